/*
 * The BigInt C functions (TVMFFIBigIntFromByteArray,
 * TVMFFIBigIntGetContentByteArray) and the kTVMFFIBigInt object layout, from
 * strict C11: canonical results, every bad input refused with its error kind,
 * and the words read at their documented offsets. Exits 1 if a check fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "c_check.h"

static int FromWords(const int64_t* words, size_t n, TVMFFIAny* out) {
  TVMFFIByteArray b;
  b.data = (const char*)words;
  b.size = n * sizeof(int64_t);
  return TVMFFIBigIntFromByteArray(&b, out);
}

/* Words that fit int64 become kTVMFFIInt, whatever sign words follow. */
static void TestCanonicalInt(void) {
  int64_t cases[][3] = {{0, 0, 0}, {5, 0, 0}, {-1, -1, -1}, {INT64_MIN, -1, -1}, {INT64_MAX, 0, 0}};
  size_t i, n;
  TVMFFIAny out;
  TVMFFIByteArray empty = {NULL, 0};
  for (i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    for (n = 1; n <= 3; ++n) {
      CHECK(FromWords(cases[i], n, &out) == 0);
      CHECK(out.type_index == kTVMFFIInt && out.v_int64 == cases[i][0]);
    }
  }
  CHECK(TVMFFIBigIntFromByteArray(&empty, &out) == 0);
  CHECK(out.type_index == kTVMFFIInt && out.v_int64 == 0);
}

/* Values outside int64: an object with the count at 24 and the words at 32. */
static void TestHeapLayout(void) {
  /* 2^64 + 7 with a redundant zero word; -(2^64) - 1; 2^63 (needs a sign guard). */
  int64_t big[] = {7, 1, 0, 0};
  int64_t neg[] = {-1, -2, -1};
  int64_t guard[] = {INT64_MIN, 0};
  TVMFFIAny out;
  TVMFFIByteArray content;
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(kTVMFFIBigInt);
  CHECK(info != NULL && info->type_key.size == 10 &&
        memcmp(info->type_key.data, "ffi.BigInt", 10) == 0);

  CHECK(FromWords(big, 4, &out) == 0);
  CHECK(out.type_index == kTVMFFIBigInt && out.zero_padding == 0);
  CHECK(TVMFFIObjectGetTypeIndex(out.v_obj) == kTVMFFIBigInt);
  CHECK(*(const size_t*)((const char*)out.v_obj + 24) == 2);
  CHECK(memcmp((const char*)out.v_obj + 32, big, 16) == 0);
  content = TVMFFIBigIntGetContentByteArray(&out);
  CHECK(content.data == (const char*)out.v_obj + 32 && content.size == 16);
  TVMFFIObjectDecRef(out.v_obj);

  CHECK(FromWords(neg, 3, &out) == 0);
  CHECK(out.type_index == kTVMFFIBigInt && *(const size_t*)((const char*)out.v_obj + 24) == 2);
  CHECK(memcmp((const char*)out.v_obj + 32, neg, 16) == 0);
  TVMFFIObjectDecRef(out.v_obj);

  CHECK(FromWords(guard, 2, &out) == 0);
  CHECK(out.type_index == kTVMFFIBigInt && *(const size_t*)((const char*)out.v_obj + 24) == 2);
  TVMFFIObjectDecRef(out.v_obj);
}

static void TestContentOfInt(void) {
  TVMFFIAny v;
  TVMFFIByteArray content;
  memset(&v, 0, sizeof(v));
  v.type_index = kTVMFFIInt;
  v.v_int64 = -42;
  content = TVMFFIBigIntGetContentByteArray(&v);
  CHECK(content.data == (const char*)&v.v_int64 && content.size == 8);
  v.type_index = kTVMFFIFloat;
  v.v_float64 = 1.5;
  content = TVMFFIBigIntGetContentByteArray(&v);
  CHECK(content.data == NULL && content.size == 0 && TakeError("TypeError", NULL));
  content = TVMFFIBigIntGetContentByteArray(NULL);
  CHECK(content.data == NULL && content.size == 0 && TakeError("ValueError", NULL));
  /* A BigInt cell without its object: refused, never read. */
  v.type_index = kTVMFFIBigInt;
  v.v_obj = NULL;
  content = TVMFFIBigIntGetContentByteArray(&v);
  CHECK(content.data == NULL && content.size == 0 && TakeError("TypeError", NULL));
}

/* Bad input: an error of the documented kind, the output left None, no read past the data. */
static void TestBadInput(void) {
  char one = 'x';
  TVMFFIByteArray partial = {&one, 1};
  TVMFFIByteArray null_data = {NULL, 8};
  TVMFFIByteArray huge = {&one, SIZE_MAX - 7};
  TVMFFIAny out;
  memset(&out, 0, sizeof(out));
  out.type_index = kTVMFFIInt;
  out.v_int64 = 3;
  CHECK(TVMFFIBigIntFromByteArray(&partial, &out) != 0 && TakeError("ValueError", NULL));
  CHECK(out.type_index == kTVMFFINone);
  CHECK(TVMFFIBigIntFromByteArray(&null_data, &out) != 0 && TakeError("ValueError", NULL));
  CHECK(TVMFFIBigIntFromByteArray(NULL, &out) != 0 && TakeError("ValueError", NULL));
  CHECK(TVMFFIBigIntFromByteArray(&partial, NULL) != 0 && TakeError("ValueError", NULL));
  /* Far beyond any allocation: refused by size before a byte is read. */
  CHECK(TVMFFIBigIntFromByteArray(&huge, &out) != 0 && TakeError("OverflowError", NULL));
  CHECK(out.type_index == kTVMFFINone);
}

int main(void) {
  TestCanonicalInt();
  TestHeapLayout();
  TestContentOfInt();
  TestBadInput();
  printf("test_big_int_c: %d checks, %d failed\n", g_checks, g_failures);
  return g_failures == 0 ? 0 : 1;
}

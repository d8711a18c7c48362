/*
 * Builds Arrays and Maps through the global functions from strict C11 and
 * reads them back through the C ABI only (the Array cell inline). Driven by
 * test_containers_c_driver.cc; each entry point returns its number of failed
 * checks after printing them.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

#include "c_check.h"

int tvmffi_containers_c_array(void);
int tvmffi_containers_c_map(void);

static TVMFFIAny None(void) {
  TVMFFIAny a;
  memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFINone;
  return a;
}

static TVMFFIAny Int(int64_t v) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

static TVMFFIAny Float(double v) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}

static TVMFFIAny Str(const char* s) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}

static TVMFFIAny Obj(TVMFFIObjectHandle h) {
  TVMFFIAny a = None();
  a.type_index = TVMFFIObjectGetTypeIndex(h);
  a.v_obj = (TVMFFIObject*)h;
  return a;
}

static void Release(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
  *a = None();
}

static TVMFFIObjectHandle Global(const char* name) {
  TVMFFIByteArray n;
  TVMFFIObjectHandle f = NULL;
  n.data = name;
  n.size = strlen(name);
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) return NULL;
  return f;
}

/* Calls a global; returns its return code; *out receives the (owned) result. */
static int Call(const char* name, TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  TVMFFIObjectHandle f = Global(name);
  int rc;
  *out = None();
  if (f == NULL) {
    fprintf(stderr, "global %s is not registered\n", name);
    ++g_failures;
    return -100;
  }
  rc = TVMFFIFunctionCall(f, args, n, out);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* The bytes of a string-like value (small or object). */
static int StrEquals(const TVMFFIAny* a, const char* expect) {
  TVMFFIByteArray b;
  if (a->type_index == kTVMFFISmallStr) {
    b = TVMFFISmallBytesGetContentByteArray(a);
  } else if (a->type_index == kTVMFFIStr) {
    b = *TVMFFIBytesGetByteArrayPtr(a->v_obj);
  } else {
    return 0;
  }
  return b.size == strlen(expect) && memcmp(b.data, expect, b.size) == 0;
}

int tvmffi_containers_c_array(void) {
  TVMFFIAny args[4];
  TVMFFIAny arr, item, size, bad;
  TVMFFISeqCell* cell;
  const TVMFFIAny* items;
  g_failures = 0;

  args[0] = Int(7);
  args[1] = Float(2.5);
  args[2] = Str("a string longer than seven bytes");
  args[3] = None();
  CHECK(Call("ffi.Array", args, 4, &arr) == 0);
  CHECK(arr.type_index == kTVMFFIArray);
  if (arr.type_index != kTVMFFIArray) return g_failures;

  /* Read the cell inline. */
  cell = TVMFFISeqGetCellPtr(arr.v_obj);
  CHECK(cell->size == 4);
  CHECK(cell->capacity >= 4);
  CHECK(cell->data_deleter == NULL);
  CHECK((char*)cell->data == (char*)arr.v_obj + sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell));
  items = (const TVMFFIAny*)cell->data;
  CHECK(items[0].type_index == kTVMFFIInt && items[0].v_int64 == 7);
  CHECK(items[1].type_index == kTVMFFIFloat && items[1].v_float64 == 2.5);
  /* The borrowed C string was copied into an owned String. */
  CHECK(items[2].type_index == kTVMFFIStr);
  CHECK(StrEquals(&items[2], "a string longer than seven bytes"));
  CHECK(items[3].type_index == kTVMFFINone);

  /* The accessors. */
  args[0] = Obj(arr.v_obj);
  CHECK(Call("ffi.ArraySize", args, 1, &size) == 0);
  CHECK(size.type_index == kTVMFFIInt && size.v_int64 == 4);
  args[1] = Int(2);
  CHECK(Call("ffi.ArrayGetItem", args, 2, &item) == 0);
  CHECK(StrEquals(&item, "a string longer than seven bytes"));
  /* Same String object, one more reference. */
  CHECK(item.v_obj == items[2].v_obj);
  Release(&item);
  args[1] = Int(4);
  CHECK(Call("ffi.ArrayGetItem", args, 2, &bad) == -1);
  CHECK(TakeError("IndexError", "Array index 4 out of range for an Array of size 4"));
  args[1] = Float(1.0);
  CHECK(Call("ffi.ArrayGetItem", args, 2, &bad) == -1);
  CHECK(TakeError("TypeError", "argument #1"));
  args[0] = Int(1);
  CHECK(Call("ffi.ArraySize", args, 1, &bad) == -1);
  CHECK(TakeError("TypeError", "Expected `ffi.Array` but got `int`"));

  /* Nested: an Array holding the first one. */
  args[0] = Obj(arr.v_obj);
  CHECK(Call("ffi.Array", args, 1, &item) == 0);
  CHECK(TVMFFISeqGetCellPtr(item.v_obj)->size == 1);
  CHECK(((const TVMFFIAny*)TVMFFISeqGetCellPtr(item.v_obj)->data)[0].v_obj == arr.v_obj);
  Release(&item);

  /* A DLTensor* view cannot be stored. */
  {
    DLTensor t;
    memset(&t, 0, sizeof(t));
    args[0] = None();
    args[0].type_index = kTVMFFIDLTensorPtr;
    args[0].v_ptr = &t;
    CHECK(Call("ffi.Array", args, 1, &bad) == -1);
    CHECK(TakeError("TypeError", "DLTensor"));
  }

  Release(&arr);
  return g_failures;
}

int tvmffi_containers_c_map(void) {
  TVMFFIAny args[6];
  TVMFFIAny map, value, count, items, step, more;
  TVMFFISeqCell* cell;
  const TVMFFIAny* kv;
  int entries = 0;
  g_failures = 0;

  args[0] = Str("a");
  args[1] = Int(1);
  args[2] = Str("a key longer than seven");
  args[3] = Float(2.5);
  args[4] = Int(3);
  args[5] = Str("three");
  CHECK(Call("ffi.Map", args, 6, &map) == 0);
  CHECK(map.type_index == kTVMFFIMap);
  if (map.type_index != kTVMFFIMap) return g_failures;

  args[0] = Obj(map.v_obj);
  CHECK(Call("ffi.MapSize", args, 1, &value) == 0);
  CHECK(value.type_index == kTVMFFIInt && value.v_int64 == 3);

  /* Lookups with borrowed-string keys match the stored Strings by content. */
  args[1] = Str("a key longer than seven");
  CHECK(Call("ffi.MapGetItem", args, 2, &value) == 0);
  CHECK(value.type_index == kTVMFFIFloat && value.v_float64 == 2.5);
  args[1] = Int(3);
  CHECK(Call("ffi.MapGetItem", args, 2, &value) == 0);
  CHECK(StrEquals(&value, "three"));
  Release(&value);
  args[1] = Str("a");
  CHECK(Call("ffi.MapCount", args, 2, &count) == 0);
  CHECK(count.type_index == kTVMFFIInt && count.v_int64 == 1);
  args[1] = Str("zz");
  CHECK(Call("ffi.MapCount", args, 2, &count) == 0);
  CHECK(count.v_int64 == 0);
  CHECK(Call("ffi.MapGetItem", args, 2, &value) == -1);
  CHECK(TakeError("KeyError", "key \"zz\" is not in the Map"));

  /* Items, flattened, in insertion order; read inline as an Array. */
  CHECK(Call("ffi.MapItems", args, 1, &items) == 0);
  CHECK(items.type_index == kTVMFFIArray);
  cell = TVMFFISeqGetCellPtr(items.v_obj);
  CHECK(cell->size == 6);
  kv = (const TVMFFIAny*)cell->data;
  CHECK(StrEquals(&kv[0], "a"));
  CHECK(kv[1].v_int64 == 1);
  CHECK(StrEquals(&kv[2], "a key longer than seven"));
  CHECK(kv[4].type_index == kTVMFFIInt && kv[4].v_int64 == 3);
  CHECK(StrEquals(&kv[5], "three"));
  Release(&items);

  /* The forward-iteration protocol. */
  CHECK(Call("ffi.MapForwardIterFunctor", args, 1, &step) == 0);
  CHECK(step.type_index == kTVMFFIFunction);
  do {
    TVMFFIAny cmd = Int(0), key;
    key = None();
    CHECK(TVMFFIFunctionCall(step.v_obj, &cmd, 1, &key) == 0);
    ++entries;
    Release(&key);
    cmd = Int(2);
    more = None();
    CHECK(TVMFFIFunctionCall(step.v_obj, &cmd, 1, &more) == 0);
    CHECK(more.type_index == kTVMFFIBool);
  } while (more.v_int64 != 0 && entries < 10);
  CHECK(entries == 3);
  Release(&step);

  /* An odd number of arguments is a ValueError. */
  CHECK(Call("ffi.Map", args, 1, &value) == -1);
  CHECK(TakeError("ValueError", "even number of arguments"));

  Release(&map);
  return g_failures;
}

/*
 * What the strict-C11 ABI tests share: a CHECK that counts and reports, and
 * taking the raised error with its kind checked. Counters are static, one set
 * per test file; a file reports them itself.
 */
#ifndef TVMFFI_TESTS_C_ABI_C_CHECK_H_
#define TVMFFI_TESTS_C_ABI_C_CHECK_H_

#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

static int g_checks = 0;
static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++g_checks;                                                                \
    if (!(cond)) {                                                             \
      ++g_failures;                                                            \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* 1 when `b` holds exactly `s`. */
static inline int ByteArrayEq(TVMFFIByteArray b, const char* s) {
  return b.size == strlen(s) && memcmp(b.data, s, b.size) == 0;
}

/* 1 when `b` contains `s`. */
static inline int ByteArrayContains(TVMFFIByteArray b, const char* s) {
  size_t n = strlen(s);
  size_t i;
  if (n > b.size) return 0;
  for (i = 0; i + n <= b.size; ++i) {
    if (memcmp(b.data + i, s, n) == 0) return 1;
  }
  return 0;
}

/*
 * Takes the raised error; 1 when there is one, of kind `kind`, and its
 * message contains `part` (NULL: any message). Prints what it found otherwise.
 */
static inline int TakeError(const char* kind, const char* part) {
  TVMFFIObjectHandle err = NULL;
  TVMFFIErrorCell* cell;
  int ok;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == NULL) {
    fprintf(stderr, "  expected a raised %s, found none\n", kind);
    return 0;
  }
  cell = TVMFFIErrorGetCellPtr(err);
  ok = TVMFFIObjectGetTypeIndex(err) == kTVMFFIError && ByteArrayEq(cell->kind, kind) &&
       (part == NULL || ByteArrayContains(cell->message, part));
  if (!ok) {
    fprintf(stderr, "  expected %s containing '%s', got %.*s: %.*s\n", kind, part ? part : "",
            (int)cell->kind.size, cell->kind.data, (int)cell->message.size, cell->message.data);
  }
  TVMFFIObjectDecRef(err);
  return ok;
}

#endif /* TVMFFI_TESTS_C_ABI_C_CHECK_H_ */

/*
 * A shared library with no TVM-FFI symbol at all: the loader must refuse it
 * ("exports no TVM-FFI functions") before dlopen runs any of its code. Its
 * constructor would leave a trace in the environment.
 */
#define _POSIX_C_SOURCE 200112L
#include <stdlib.h>

__attribute__((constructor)) static void tvmffi_test_noexport_ctor(void) {
  setenv("TVMFFI_TEST_NOEXPORT_CONSTRUCTOR_RAN", "1", 1);
}

int tvmffi_test_noexport_answer(void) {
  return 42;
}

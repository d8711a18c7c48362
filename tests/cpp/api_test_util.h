/*
 * Helpers shared by the tests of tests/cpp/api.cmake.
 */
#ifndef TVMFFI_TESTS_API_TEST_UTIL_H_
#define TVMFFI_TESTS_API_TEST_UTIL_H_

#include <tvm/ffi/error.h>

#include <catch2/catch_test_macros.hpp>

namespace api_test {

/*! \brief The tvm::ffi::Error that f throws; fails the test when it throws none. */
template <typename F>
tvm::ffi::Error ErrorOf(F&& f) {
  try {
    f();
  } catch (const tvm::ffi::Error& err) {
    return err;
  }
  FAIL("expected a tvm::ffi::Error, but nothing was thrown");
  return tvm::ffi::Error("None", "");
}

}  // namespace api_test

#endif  // TVMFFI_TESTS_API_TEST_UTIL_H_

// Helpers shared by the fuzz targets (C ABI only).
#ifndef TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_
#define TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_

#include <tvm/ffi/c_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime_test_util.h"

namespace fuzz {

// A broken property: print what and abort, so libFuzzer saves the input.
[[noreturn]] inline void Fail(const std::string& what, const std::string& input = std::string()) {
  std::fprintf(stderr, "FUZZ PROPERTY FAILED: %s", what.c_str());
  if (!input.empty()) {
    std::fprintf(stderr, " [input:");
    for (unsigned char c : input) std::fprintf(stderr, " %02x", c);
    std::fprintf(stderr, "]");
  }
  std::fprintf(stderr, "\n");
  std::abort();
}

// After a call returned -1: an error of `kind` must be raised (then taken).
inline void ExpectRaised(const char* kind, const char* api) {
  rt_test::RaisedError e = rt_test::TakeRaised();
  if (e.kind != kind) {
    Fail(std::string(api) + " failed with `" + e.kind + "` (" + e.message + "), expected " + kind);
  }
}

// TVMFFIDataTypeToString as a std::string; false (error taken) on failure.
inline bool DTypeText(const DLDataType& t, std::string* out) {
  TVMFFIAny v = rt_test::None();
  if (TVMFFIDataTypeToString(&t, &v) != 0) {
    rt_test::TakeRaised();
    return false;
  }
  *out = rt_test::AnyText(v);
  rt_test::Release(&v);
  return true;
}

}  // namespace fuzz

#endif  // TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_

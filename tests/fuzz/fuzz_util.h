// Helpers shared by the fuzz targets (C ABI only).
#ifndef TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_
#define TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_

#include <tvm/ffi/c_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

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

/*! \brief Whether `s` is valid UTF-8 (shortest forms, no surrogates, <= U+10FFFF). */
inline bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = cp << 6 | (cc & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n;
  }
  return true;
}

}  // namespace fuzz

#endif  // TVMFFI_TESTS_FUZZ_FUZZ_UTIL_H_

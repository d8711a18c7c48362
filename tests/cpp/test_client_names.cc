// Upstream names that kernel libraries built on TVM-FFI (FlashInfer, sgl-kernel,
// ...) use and that .ci/clients.sh found missing by compiling them: each is
// checked here for upstream's behaviour. Only the headers such a library
// includes: Array comes with container/tensor.h, as upstream's does.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>

#include "api_test_util.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <unistd.h>

#include <cstdio>
#include <string>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

using api_test::ErrorOf;

// Runs f with file descriptor 2 sent to a temporary file; returns what was written.
template <typename F>
std::string CaptureStderr(F&& f) {
  std::fflush(stderr);
  std::FILE* sink = std::tmpfile();
  REQUIRE(sink != nullptr);
  int saved = dup(2);
  REQUIRE(saved >= 0);
  REQUIRE(dup2(fileno(sink), 2) >= 0);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(sink);
  char buffer[512];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), sink)) > 0) text.append(buffer, n);
  std::fclose(sink);
  return text;
}

[[noreturn]] void ThrowLogged(int n) {
  TVM_FFI_LOG_AND_THROW(NotImplementedError) << "dtype code " << n << " is not supported";
}

TEST_CASE("TVM_FFI_LOG_AND_THROW throws the error and writes it to stderr", "[client_names]") {
  Error err("None", "", "");
  std::string logged = CaptureStderr([&] { err = ErrorOf([] { ThrowLogged(7); }); });
  CHECK(err.kind() == "NotImplementedError");
  CHECK(err.message() == "dtype code 7 is not supported");
  CHECK_THAT(err.backtrace(), ContainsSubstring("test_client_names.cc"));
  // What was logged is the thrown error's full message, once.
  CHECK(logged == err.FullMessage());
  CHECK_THAT(logged, StartsWith("Traceback (most recent call last):\n"));
  CHECK_THAT(logged, EndsWith("NotImplementedError: dtype code 7 is not supported\n"));
}

TEST_CASE("TVM_FFI_LOG_AND_THROW is a statement and an expression", "[client_names]") {
  auto pick = [](int code) -> int {
    if (code == 0) TVM_FFI_LOG_AND_THROW(ValueError) << "code " << code;
    return code > 1 ? code : (TVM_FFI_LOG_AND_THROW(TypeError) << "small code", 0);
  };
  std::string logged = CaptureStderr([&] {
    CHECK(pick(2) == 2);
    CHECK(ErrorOf([&] { pick(0); }).kind() == "ValueError");
    CHECK(ErrorOf([&] { pick(1); }).kind() == "TypeError");
  });
  CHECK_THAT(logged, ContainsSubstring("ValueError: code 0\n"));
  CHECK_THAT(logged, ContainsSubstring("TypeError: small code\n"));
}

TEST_CASE("TVM_FFI_THROW writes nothing to stderr", "[client_names]") {
  std::string logged = CaptureStderr(
      [] { CHECK(ErrorOf([] { TVM_FFI_THROW(ValueError) << "quiet"; }).message() == "quiet"); });
  CHECK(logged.empty());
}

TEST_CASE("a message argument that throws and logs leaves the outer error intact",
          "[client_names]") {
  auto inner_value = [] {
    try {
      TVM_FFI_LOG_AND_THROW(IndexError) << "inner";
    } catch (const Error& err) {
      CHECK(err.message() == "inner");
    }
    return 5;
  };
  std::string logged = CaptureStderr([&] {
    Error outer =
        ErrorOf([&] { TVM_FFI_LOG_AND_THROW(RuntimeError) << "outer " << inner_value(); });
    CHECK(outer.kind() == "RuntimeError");
    CHECK(outer.message() == "outer 5");
  });
  CHECK_THAT(logged, ContainsSubstring("IndexError: inner\n"));
  CHECK_THAT(logged, EndsWith("RuntimeError: outer 5\n"));
}

// FlashInfer's batch prefill binding returns Array<int64_t> (its plan) having
// included only container/tensor.h and function.h; upstream's shape.h
// includes container/array.h.
TEST_CASE("Array comes with container/tensor.h", "[client_names]") {
  tvm::ffi::Array<int64_t> plan{3, 1, 4};
  CHECK(plan.size() == 3);
  CHECK(plan[2] == 4);
  tvm::ffi::Any held = plan;
  CHECK(held.cast<tvm::ffi::Array<int64_t>>().same_as(plan));
}

}  // namespace

// Tests of the error.h additions that match upstream: Error::FullMessage, the
// cause-chain / extra-context constructor, TVM_FFI_CHECK_<op>(x, y, Kind),
// TVM_FFI_CHECK_NOTNULL and TVM_FFI_DCHECK* (built twice: with and without
// NDEBUG, see tests/cpp/api.cmake).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/error.h>

#include "api_test_util.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::EndsWith;
using Catch::Matchers::StartsWith;

using api_test::ErrorOf;

TEST_CASE("FullMessage is traceback, then kind and message", "[error_ext]") {
  Error plain("ValueError", "bad value", "");
  CHECK(plain.FullMessage() == "Traceback (most recent call last):\nValueError: bad value\n");
  // Backtraces are most recent first; FullMessage prints them most recent last.
  Error traced("IndexError", "out of range", "inner.cc:2\nouter.cc:1\n");
  CHECK(traced.FullMessage() ==
        "Traceback (most recent call last):\nouter.cc:1\ninner.cc:2\nIndexError: out of range\n");
  Error thrown = ErrorOf([] { TVM_FFI_THROW(KeyError) << "missing " << 3; });
  CHECK_THAT(thrown.FullMessage(), StartsWith("Traceback (most recent call last):\n"));
  CHECK_THAT(thrown.FullMessage(), EndsWith("KeyError: missing 3\n"));
}

TEST_CASE("errors carry a cause chain and an extra context", "[error_ext]") {
  Error root("IOError", "disk full", "");
  Array<int> context{1, 2};
  Error top("RuntimeError", "save failed", "", root, context);
  REQUIRE(top.cause_chain().has_value());
  CHECK(top.cause_chain()->same_as(root));
  CHECK(top.cause_chain()->message() == "disk full");
  REQUIRE(top.extra_context().has_value());
  CHECK(top.extra_context()->same_as(context));
  CHECK(top.kind() == "RuntimeError");
  // Chains nest; absent parts stay absent.
  Error outer("ValueError", "outer", "", top, std::nullopt);
  CHECK(outer.cause_chain()->cause_chain()->same_as(root));
  CHECK_FALSE(outer.extra_context().has_value());
  CHECK_FALSE(root.cause_chain().has_value());
  CHECK_FALSE(root.extra_context().has_value());
  Error none_given("E", "m", "", std::nullopt, std::nullopt);
  CHECK_FALSE(none_given.cause_chain().has_value());
  // The error keeps its cause alive.
  int count_before = root.use_count();
  {
    Error holder("E", "m", "", root, std::nullopt);
    CHECK(root.use_count() == count_before + 1);
  }
  CHECK(root.use_count() == count_before);
}

TEST_CASE("TVM_FFI_CHECK_<op> throw the given kind with both values", "[error_ext]") {
  TVM_FFI_CHECK_EQ(3, 3, ValueError);
  TVM_FFI_CHECK_NE(3, 4, ValueError);
  TVM_FFI_CHECK_LT(3, 4, ValueError);
  TVM_FFI_CHECK_LE(4, 4, ValueError);
  TVM_FFI_CHECK_GT(5, 4, ValueError);
  TVM_FFI_CHECK_GE(4, 4, ValueError);
  Error eq = ErrorOf([] { TVM_FFI_CHECK_EQ(3, 5, ValueError) << "sizes"; });
  CHECK(eq.kind() == "ValueError");
  CHECK_THAT(eq.message(), ContainsSubstring("3 == 5"));
  CHECK_THAT(eq.message(), ContainsSubstring("(3 vs. 5)"));
  CHECK_THAT(eq.message(), EndsWith(": sizes"));
  CHECK(ErrorOf([] { TVM_FFI_CHECK_NE(2, 2, TypeError); }).kind() == "TypeError");
  CHECK(ErrorOf([] { TVM_FFI_CHECK_LT(4, 3, IndexError); }).kind() == "IndexError");
  CHECK(ErrorOf([] { TVM_FFI_CHECK_LE(4, 3, IndexError); }).kind() == "IndexError");
  CHECK(ErrorOf([] { TVM_FFI_CHECK_GT(3, 4, KeyError); }).kind() == "KeyError");
  CHECK_THAT(ErrorOf([] { TVM_FFI_CHECK_GE(3, 4, KeyError); }).message(),
             ContainsSubstring("(3 vs. 4)"));
  // Signed/unsigned mixes compile without warnings and compare as C++ does.
  size_t n = 2;
  TVM_FFI_CHECK_EQ(n, 2, ValueError);
  // Operands are evaluated once.
  int calls = 0;
  auto next = [&] { return ++calls; };
  TVM_FFI_CHECK_EQ(next(), 1, ValueError);
  CHECK(calls == 1);
  // The ICHECK forms are the InternalError instances.
  CHECK(ErrorOf([] { TVM_FFI_ICHECK_EQ(1, 2); }).kind() == "InternalError");
  CHECK(ErrorOf([] { TVM_FFI_ICHECK_GE(1, 2); }).kind() == "InternalError");
}

TEST_CASE("TVM_FFI_CHECK_NOTNULL evaluates to its operand", "[error_ext]") {
  int x = 5;
  int* p = &x;
  CHECK(TVM_FFI_CHECK_NOTNULL(p, ValueError) == &x);
  int* null_p = nullptr;
  Error err = ErrorOf([&] { (void)TVM_FFI_CHECK_NOTNULL(null_p, ValueError); });
  CHECK(err.kind() == "ValueError");
  CHECK_THAT(err.message(), ContainsSubstring("Check not null: null_p"));
  CHECK(ErrorOf([&] { (void)TVM_FFI_ICHECK_NOTNULL(null_p); }).kind() == "InternalError");
}

TEST_CASE("TVM_FFI_DCHECK* check only without NDEBUG", "[error_ext]") {
  int evaluated = 0;
  auto bump = [&] { return ++evaluated; };
  int* null_p = nullptr;
#ifdef NDEBUG
  TVM_FFI_DCHECK(false);
  TVM_FFI_DCHECK_EQ(1, 2) << "never built";
  TVM_FFI_DCHECK_NE(1, 1);
  TVM_FFI_DCHECK_LT(2, 1);
  TVM_FFI_DCHECK_LE(2, 1);
  TVM_FFI_DCHECK_GT(1, 2);
  TVM_FFI_DCHECK_GE(1, 2);
  TVM_FFI_DCHECK(bump() == 100);
  CHECK(evaluated == 0);  // compiled out: operands are not evaluated
  CHECK(TVM_FFI_DCHECK_NOTNULL(null_p) == nullptr);
#else
  CHECK(ErrorOf([] { TVM_FFI_DCHECK(false); }).kind() == "InternalError");
  CHECK_THAT(ErrorOf([] { TVM_FFI_DCHECK_EQ(1, 2) << "why"; }).message(),
             ContainsSubstring("(1 vs. 2)"));
  CHECK_THROWS_AS([] { TVM_FFI_DCHECK_NE(1, 1); }(), Error);
  CHECK_THROWS_AS([] { TVM_FFI_DCHECK_LT(2, 1); }(), Error);
  CHECK_THROWS_AS([] { TVM_FFI_DCHECK_LE(2, 1); }(), Error);
  CHECK_THROWS_AS([] { TVM_FFI_DCHECK_GT(1, 2); }(), Error);
  CHECK_THROWS_AS([] { TVM_FFI_DCHECK_GE(1, 2); }(), Error);
  TVM_FFI_DCHECK(bump() == 1);
  CHECK(evaluated == 1);
  CHECK(ErrorOf([&] { (void)TVM_FFI_DCHECK_NOTNULL(null_p); }).kind() == "InternalError");
#endif
  TVM_FFI_DCHECK_EQ(2, 2);
  TVM_FFI_DCHECK(true);
}

}  // namespace

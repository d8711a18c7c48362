// Tests of tvm/ffi/expected.h: Expected<T> / Unexpected, their conversion
// through Any, typed functions returning Expected, Function::CallExpected.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <string>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

Expected<int> Halve(int x) {
  if (x % 2 != 0) return Unexpected(Error("ValueError", "odd: " + std::to_string(x)));
  return x / 2;
}

TEST_CASE("Expected holds a value", "[expected]") {
  Expected<int> r = Halve(10);
  CHECK(r.is_ok());
  CHECK(r.has_value());
  CHECK_FALSE(r.is_err());
  CHECK(r.value() == 5);
  CHECK(r.value_or(-1) == 5);
  CHECK(r.type_index() == TypeIndex::kTVMFFIInt);
  CHECK_THROWS_AS(r.error(), Error);
  try {
    (void)r.error();
  } catch (const Error& e) {
    CHECK(e.kind() == "RuntimeError");
    CHECK_THAT(e.message(), ContainsSubstring("holds a value"));
  }
}

TEST_CASE("Expected holds an error", "[expected]") {
  Expected<int> r = Halve(3);
  CHECK(r.is_err());
  CHECK_FALSE(r.has_value());
  CHECK(r.type_index() == TypeIndex::kTVMFFIError);
  CHECK(r.value_or(-1) == -1);
  CHECK(r.error().kind() == "ValueError");
  CHECK(r.error().message() == "odd: 3");
  // value() throws the held error itself, not a new one.
  Error held = r.error();
  try {
    (void)r.value();
    FAIL("value() of an error did not throw");
  } catch (const Error& e) {
    CHECK(e.same_as(held));
  }
  // Directly from an Error too.
  Expected<String> s = Error("KeyError", "k");
  CHECK(s.is_err());
  CHECK(std::move(s).error().kind() == "KeyError");
}

TEST_CASE("Expected of object types and moves", "[expected]") {
  Array<int> arr{1, 2, 3};
  Expected<Array<int>> r = arr;
  CHECK(r.value().same_as(arr));
  Array<int> moved = std::move(r).value();
  CHECK(moved.same_as(arr));
  Expected<String> s = String("hello");
  CHECK(s.value() == "hello");
  CHECK(Expected<String>(Error("E", "m")).value_or(String("dflt")) == "dflt");
  Expected<Optional<int>> none = Optional<int>(std::nullopt);
  CHECK(none.is_ok());
  CHECK_FALSE(none.value().has_value());
}

namespace {
__attribute__((noinline)) Expected<int> FailingExpected() {
  return Unexpected(Error("ValueError", "failed", ""));
}
}  // namespace

// value() && used to move the error out before throwing; at -O3 GCC 12/13
// dropped the store that emptied the Expected, and its destructor, run by
// the unwinder, released a cleared pointer (SIGSEGV in Release builds).
TEST_CASE("value() of an error at -O3: the Expected unwinds cleanly", "[expected]") {
  int caught = 0;
  try {
    Expected<int> e = FailingExpected();
    std::move(e).value();
  } catch (const Error& err) {
    caught += err.kind() == "ValueError";
  }
  try {
    Expected<int> e = FailingExpected();
    (void)e.value();
  } catch (const Error& err) {
    caught += err.message() == "failed";
  }
  CHECK(caught == 2);
  // The thrown error is the held one: the same object, still held by e.
  Expected<int> e = FailingExpected();
  try {
    (void)std::move(e).value();
  } catch (const Error& err) {
    CHECK(err.same_as(e.error()));
  }
}

TEST_CASE("Expected<void>", "[expected]") {
  Expected<void> ok;
  CHECK(ok.is_ok());
  CHECK_NOTHROW(ok.value());
  CHECK(ok.type_index() == TypeIndex::kTVMFFINone);
  Expected<void> bad = Unexpected(Error("IOError", "disk"));
  CHECK(bad.is_err());
  CHECK_THROWS_AS(bad.value(), Error);
  CHECK(bad.error().kind() == "IOError");
}

TEST_CASE("Expected converts through Any as the value or the Error", "[expected]") {
  Any ok = Halve(8);
  CHECK(ok.cast<int>() == 4);
  Any err = Halve(7);
  CHECK(err.type_index() == TypeIndex::kTVMFFIError);
  CHECK(err.cast<Error>().message() == "odd: 7");
  Expected<int> back_ok = ok.cast<Expected<int>>();
  CHECK(back_ok.value() == 4);
  Expected<int> back_err = err.cast<Expected<int>>();
  CHECK(back_err.error().message() == "odd: 7");
  // Anything else is neither: a TypeError naming the value type.
  Any text = String("x");
  CHECK_FALSE(text.try_cast<Expected<int>>().has_value());
  try {
    (void)text.cast<Expected<int>>();
    FAIL("cast did not throw");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
  }
  // int -> float conversion applies to the value alternative.
  Any three = 3;
  CHECK(three.cast<Expected<double>>().value() == 3.0);
  Any none;
  CHECK(none.cast<Expected<void>>().is_ok());
  CHECK(Any(Expected<void>(Error("E", "x"))).cast<Expected<void>>().is_err());
}

TEST_CASE("a typed function returning Expected returns the value or the Error", "[expected]") {
  Function f = Function::FromTyped(Halve, "halve");
  CHECK(f(6).cast<int>() == 3);
  Any r = f(5);
  // The error is the result (not raised), as upstream: it is a value of type ffi.Error.
  REQUIRE(r.type_index() == TypeIndex::kTVMFFIError);
  CHECK(r.cast<Error>().kind() == "ValueError");
  CHECK_THROWS_AS(f(5).cast<int>(), Error);
  // An Expected parameter accepts either.
  Function g = Function::FromTyped([](Expected<int> e) { return e.is_ok() ? e.value() : -1; });
  CHECK(g(4).cast<int>() == 4);
  CHECK(g(Error("E", "m")).cast<int>() == -1);
}

TEST_CASE("Function::CallExpected", "[expected]") {
  Function f = Function::FromTyped([](int x) {
    if (x < 0) TVM_FFI_THROW(ValueError) << "negative " << x;
    return x * 2;
  });
  Expected<int> ok = f.CallExpected<int>(4);
  CHECK(ok.value() == 8);
  Expected<int> raised = f.CallExpected<int>(-1);
  REQUIRE(raised.is_err());
  CHECK(raised.error().kind() == "ValueError");
  CHECK_THAT(raised.error().message(), ContainsSubstring("negative -1"));
  // The default result type is Any.
  Expected<Any> any = f.CallExpected(2);
  CHECK(any.value().cast<int>() == 4);
  // A result of another type is a TypeError, not a throw.
  Expected<String> wrong = f.CallExpected<String>(1);
  REQUIRE(wrong.is_err());
  CHECK(wrong.error().kind() == "TypeError");
  CHECK_THAT(wrong.error().message(), ContainsSubstring("result type mismatch"));
  // Argument errors come back too.
  Expected<int> badarg = f.CallExpected<int>(String("x"));
  CHECK(badarg.error().kind() == "TypeError");
  // A returned Error is the error alternative.
  Function h = Function::FromTyped(Halve);
  CHECK(h.CallExpected<int>(3).error().message() == "odd: 3");
  // void results.
  Function v = Function::FromTyped([](int x) {
    if (x != 0) TVM_FFI_THROW(IndexError) << "x";
  });
  CHECK(v.CallExpected<void>(0).is_ok());
  CHECK(v.CallExpected<void>(1).error().kind() == "IndexError");
  CHECK(f.CallExpected<void>(1).error().kind() == "TypeError");
  // A null function does not throw either.
  Function null_fn(nullptr);
  CHECK(null_fn.CallExpected<int>(1).error().kind() == "ValueError");
}

TEST_CASE("ExpectedUnsafe moves storage across raw values", "[expected]") {
  Expected<String> s = String("a long string that is not a small string");
  TVMFFIAny raw = detail::ExpectedUnsafe::MoveToTVMFFIAny(std::move(s));
  CHECK(raw.type_index == TypeIndex::kTVMFFIStr);
  Expected<String> back = detail::ExpectedUnsafe::MoveFromTVMFFIAny<String>(raw);
  CHECK(detail::ExpectedUnsafe::ValueAs<String>(back) ==
        "a long string that is not a small string");
  CHECK(detail::ExpectedUnsafe::GetData(back).type_index() == TypeIndex::kTVMFFIStr);
  Expected<int> err = Error("E", "m");
  CHECK_THROWS_AS(detail::ExpectedUnsafe::ValueAs<int>(err), Error);
}

}  // namespace

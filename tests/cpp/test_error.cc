// Tests of tvm/ffi/error.h: Error objects, TVM_FFI_THROW / CHECK / ICHECK
// messages, the raised-error slot across threads and C calls.
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;
using Catch::Matchers::StartsWith;

// Runs f, which must throw an Error; returns it.
template <typename F>
Error ExpectError(F&& f) {
  try {
    f();
  } catch (const Error& err) {
    return err;
  }
  FAIL("no tvm::ffi::Error was thrown");
  throw std::logic_error("unreachable");
}

enum class Mode : int { kA = 3 };
enum Plain { kPlainB = 5 };
struct NotPrintable {
  int v;
  bool operator==(const NotPrintable& o) const { return v == o.v; }
};

int Positive(int x) {
  if (x > 0) return x;
  TVM_FFI_THROW(ValueError) << "not positive: " << x;  // no return needed after a throw
}
}  // namespace

TEST_CASE("TVM_FFI_THROW creates a catchable Error", "[error]") {
  Error err = ExpectError([] { TVM_FFI_THROW(ValueError) << "bad value " << 42; });
  REQUIRE(err.kind() == "ValueError");
  REQUIRE(err.message() == "bad value 42");
  REQUIRE_FALSE(err.backtrace().empty());
  REQUIRE_THAT(std::string(err.what()), ContainsSubstring("ValueError: bad value 42"));
  REQUIRE(err->type_index() == kTVMFFIError);
  REQUIRE(Positive(3) == 3);
  REQUIRE(ExpectError([] { Positive(-1); }).message() == "not positive: -1");
  // Catchable as std::exception too.
  try {
    TVM_FFI_THROW(KeyError) << "k";
  } catch (const std::exception& ex) {
    REQUIRE_THAT(std::string(ex.what()), ContainsSubstring("KeyError: k"));
  }
}

TEST_CASE("Error takes a String kind and message with a TVMFFIBacktrace", "[error]") {
  String kind("ValueError"), message("a message that is long enough");
  TVMFFIByteArray trace{"  at f\n", 7};
  Error both(kind, message, &trace);
  REQUIRE(both.kind() == "ValueError");
  REQUIRE(both.message() == "a message that is long enough");
  REQUIRE(both.backtrace() == "  at f\n");
  Error mixed("TypeError", message, nullptr);
  REQUIRE(mixed.kind() == "TypeError");
  REQUIRE(mixed.message() == "a message that is long enough");
  REQUIRE(mixed.backtrace().empty());
}

TEST_CASE("The message builder formats every supported type", "[error]") {
  int value = 9;
  const int* ptr = reinterpret_cast<const int*>(0xabc0);
  std::string s = "std";
  Error err = ExpectError([&] {
    TVM_FFI_THROW(RuntimeError) << "c-str " << 'c' << ' ' << s << ' ' << std::string_view("view")
                                << ' ' << String("ffi-string") << ' ' << -12 << ' ' << 7u << ' '
                                << int64_t{-1} << ' ' << uint64_t{18446744073709551615ull} << ' '
                                << int8_t{-3} << ' ' << uint8_t{250} << ' ' << 0.5 << ' ' << 1e20f
                                << ' ' << true << ' ' << false << ' ' << Mode::kA << ' ' << kPlainB
                                << ' ' << ptr << ' ' << nullptr << ' '
                                << static_cast<const char*>(nullptr) << ' ' << dl_float32 << ' '
                                << DLDataType{kDLInt, 8, 4} << ' ' << DLDevice{kDLCUDA, 1} << ' '
                                << DLDevice{kDLCPU, 0} << ' ' << value;
  });
  REQUIRE(err.kind() == "RuntimeError");
  REQUIRE(err.message() ==
          "c-str c std view ffi-string -12 7 -1 18446744073709551615 -3 250 0.5 1e+20 true false 3 "
          "5 0xabc0 nullptr (null) float32 int8x4 cuda:1 cpu:0 9");
}

TEST_CASE("Messages may build and throw nested errors", "[error]") {
  auto inner = []() -> std::string {
    try {
      TVM_FFI_THROW(KeyError) << "inner " << 1;
    } catch (const Error& err) {
      return err.kind() + ":" + err.message();
    }
  };
  REQUIRE(ExpectError([&] { TVM_FFI_THROW(ValueError) << "outer(" << inner() << ")"; }).message() ==
          "outer(KeyError:inner 1)");
  // An exception escaping the message does not spoil later messages.
  auto boom = []() -> int { throw std::runtime_error("boom"); };
  REQUIRE_THROWS_AS([&] { TVM_FFI_THROW(ValueError) << "partial " << boom(); }(),
                    std::runtime_error);
  REQUIRE(ExpectError([] { TVM_FFI_THROW(ValueError) << "clean"; }).message() == "clean");
}

TEST_CASE("TVM_FFI_CHECK names the condition and the kind", "[error]") {
  int n = -2;
  TVM_FFI_CHECK(n < 0, ValueError) << "never thrown";
  Error err =
      ExpectError([&] { TVM_FFI_CHECK(n > 0, ValueError) << "n must be positive, got " << n; });
  REQUIRE(err.kind() == "ValueError");
  REQUIRE(err.message() == "Check failed: (n > 0) is false: n must be positive, got -2");
  Error ierr = ExpectError([&] { TVM_FFI_ICHECK(n == 1) << "internal"; });
  REQUIRE(ierr.kind() == "InternalError");
  REQUIRE(ierr.message() == "Check failed: (n == 1) is false: internal");
  // The check macros nest under if/else without capturing the else.
  bool took_else = false;
  if (n > 100)
    TVM_FFI_ICHECK(false);
  else
    took_else = true;
  REQUIRE(took_else);
}

TEST_CASE("TVM_FFI_ICHECK_XX show both values when printable", "[error]") {
  size_t size = 3;
  int expected = 4;
  TVM_FFI_ICHECK_EQ(size, 3) << "ok";
  TVM_FFI_ICHECK_LT(size, 4u);
  TVM_FFI_ICHECK_GE(size, 3u);
  TVM_FFI_ICHECK_NE(size, 2u);
  TVM_FFI_ICHECK_LE(size, 3u);
  TVM_FFI_ICHECK_GT(size, 2u);
  REQUIRE(ExpectError([&] { TVM_FFI_ICHECK_EQ(size, expected) << "sizes differ"; }).message() ==
          "Check failed: size == expected (3 vs. 4): sizes differ");
  REQUIRE(ExpectError([&] { TVM_FFI_ICHECK_GT(size, 10u); }).message() ==
          "Check failed: size > 10u (3 vs. 10): ");
  REQUIRE(ExpectError([&] { TVM_FFI_ICHECK_NE(dl_float32, dl_float32); }).message() ==
          "Check failed: dl_float32 != dl_float32 (float32 vs. float32): ");
  Mode m = Mode::kA;
  REQUIRE(ExpectError([&] { TVM_FFI_ICHECK_NE(m, Mode::kA); }).message() ==
          "Check failed: m != Mode::kA (3 vs. 3): ");
  NotPrintable a{1}, b{2};
  Error err = ExpectError([&] { TVM_FFI_ICHECK_EQ(a, b) << "opaque"; });
  REQUIRE(err.kind() == "InternalError");
  REQUIRE(err.message() == "Check failed: a == b: opaque");
  int* null_ptr = nullptr;
  int target = 1;
  REQUIRE(TVM_FFI_ICHECK_NOTNULL(&target) == &target);
  REQUIRE(ExpectError([&] { (void)TVM_FFI_ICHECK_NOTNULL(null_ptr); }).message() ==
          "Check not null: null_ptr");
}

TEST_CASE("Error constructed directly; copies share the object", "[error]") {
  Error err("AttributeError", "no such attribute", "frame2\nframe1\n");
  REQUIRE(err.kind() == "AttributeError");
  REQUIRE(err.backtrace() == "frame2\nframe1\n");
  REQUIRE(err.TracebackMostRecentCallLast() == "frame1\nframe2\n");
  REQUIRE(std::string(err.what()) ==
          "Traceback (most recent call last):\nframe1\nframe2\nAttributeError: no such attribute");
  Error copy = err;
  REQUIRE(copy.same_as(err));
  REQUIRE(err.use_count() == 2);
  TVMFFIByteArray more{"frame0\n", 7};
  err.UpdateBacktrace(&more, kTVMFFIBacktraceUpdateModeAppend);
  REQUIRE(copy.backtrace() == "frame2\nframe1\nframe0\n");
  err.UpdateBacktrace(&more, kTVMFFIBacktraceUpdateModeReplace);
  REQUIRE(copy.backtrace() == "frame0\n");
  Error no_trace("TypeError", "short");
  REQUIRE(std::string(no_trace.what()) == "TypeError: short");
}

TEST_CASE("Raised errors move through the thread-local slot", "[error]") {
  Error err("IndexError", "out of range");
  detail::SetSafeCallRaised(err);
  REQUIRE(err.use_count() == 2);  // the slot holds one
  Error moved = detail::MoveFromSafeCallRaised();
  REQUIRE(moved.same_as(err));
  TVMFFIObjectHandle none = reinterpret_cast<TVMFFIObjectHandle>(0x1);
  TVMFFIErrorMoveFromRaised(&none);
  REQUIRE(none == nullptr);  // the slot was cleared

  TVMFFIErrorSetRaisedFromCStr("NotImplementedError", "from C");
  Error from_c = detail::MoveFromSafeCallRaised();
  REQUIRE(from_c.kind() == "NotImplementedError");
  REQUIRE(from_c.message() == "from C");

  const char* parts[] = {"a", nullptr, "b", "c"};
  TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 4);
  REQUIRE(detail::MoveFromSafeCallRaised().message() == "abc");
}

TEST_CASE("Each thread has its own raised-error slot", "[error]") {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  std::vector<std::string> seen(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < 200; ++i) {
        std::string msg = "thread " + std::to_string(t) + " round " + std::to_string(i);
        TVMFFIErrorSetRaisedFromCStr("RuntimeError", msg.c_str());
        std::this_thread::yield();
        Error err = detail::MoveFromSafeCallRaised();
        if (err.message() != msg) {
          seen[t] = "mismatch: " + err.message();
          return;
        }
        // A thrown error that crosses a C call on this thread.
        try {
          TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(nullptr, nullptr));
        } catch (const Error& e) {
          if (e.kind() != "ValueError") {
            seen[t] = "kind: " + e.kind();
            return;
          }
        }
      }
      seen[t] = "ok";
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) REQUIRE(seen[t] == "ok");
}

TEST_CASE("Safe-call boundaries turn exceptions into return codes", "[error]") {
  auto call = [](auto&& body) -> int {
    TVM_FFI_SAFE_CALL_BEGIN();
    body();
    TVM_FFI_SAFE_CALL_END();
  };
  REQUIRE(call([] {}) == 0);
  REQUIRE(call([] { TVM_FFI_THROW(TypeError) << "typed"; }) == -1);
  Error e1 = detail::MoveFromSafeCallRaised();
  REQUIRE(e1.kind() == "TypeError");
  REQUIRE(e1.message() == "typed");
  REQUIRE(call([] { throw std::runtime_error("std failure"); }) == -1);
  Error e2 = detail::MoveFromSafeCallRaised();
  REQUIRE(e2.kind() == "InternalError");
  REQUIRE(e2.message() == "std failure");
  REQUIRE(call([] { throw std::bad_alloc(); }) == -1);
  REQUIRE(detail::MoveFromSafeCallRaised().kind() == "MemoryError");
  REQUIRE(call([] { throw 42; }) == -1);
  REQUIRE(detail::MoveFromSafeCallRaised().kind() == "InternalError");
  REQUIRE(call([] { throw EnvErrorAlreadySet(); }) == -2);
  REQUIRE_THROWS_AS(detail::ThrowRaisedError(-2), EnvErrorAlreadySet);
}

TEST_CASE("TVMFFIFunctionCall contains what a C callback throws, -2 included", "[error]") {
  TVMFFIObjectHandle f = nullptr;
  REQUIRE(
      TVMFFIFunctionCreate(
          nullptr,
          [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) -> int { throw EnvErrorAlreadySet(); },
          nullptr, &f) == 0);
  TVMFFIAny result{};
  // The caller's environment holds the error: -2, nothing parked.
  REQUIRE(TVMFFIFunctionCall(f, nullptr, 0, &result) == -2);
  TVMFFIObjectHandle parked = nullptr;
  TVMFFIErrorMoveFromRaised(&parked);
  REQUIRE(parked == nullptr);
  TVMFFIObjectDecRef(f);
}

TEST_CASE("DLDataType and DLDevice print to std::ostream", "[error]") {
  std::ostringstream os;
  os << dl_bfloat16 << ' ' << DLDataType{kDLFloat, 32, 4} << ' ' << DLDevice{kDLCUDA, 2} << ' '
     << DLDevice{static_cast<DLDeviceType>(99), 0};
  REQUIRE(os.str() == "bfloat16 float32x4 cuda:2 device(99):0");
}

namespace {
// Each is noinline and works after its call, so each is a frame of its own.
[[noreturn]] __attribute__((noinline)) void ThrowTagged(int tag) {
  TVM_FFI_THROW(ValueError) << "tag " << tag;
}
__attribute__((noinline)) int ThrowViaA(int tag) {
  ThrowTagged(tag + 1);
}
__attribute__((noinline)) int ThrowViaB(int tag) {
  ThrowTagged(tag + 2);
}
// Catches something else: the error, and its backtrace, go on through it.
__attribute__((noinline)) int PassesThrough(int tag) {
  try {
    int r = ThrowViaA(tag);
    asm volatile("" : "+r"(r));
    return r;
  } catch (const std::runtime_error&) {
    return -1;
  }
}
__attribute__((noinline, noclone)) int ThrowVia(int which) {
  int r = which == 0 ? ThrowViaA(0) : which == 1 ? ThrowViaB(0) : PassesThrough(0);
  asm volatile("" : "+r"(r));  // no tail call: this frame stays
  return r;
}

// Calls f(which) through the C API from `depth` extra frames of its own.
__attribute__((noinline)) Error CallFromDepth(TVMFFIObjectHandle f, int which, int depth) {
  if (depth > 0) {
    Error e = CallFromDepth(f, which, depth - 1);
    asm volatile("");
    return e;
  }
  TVMFFIAny arg;
  arg.type_index = kTVMFFIInt;
  arg.zero_padding = 0;
  arg.v_int64 = which;
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  REQUIRE(TVMFFIFunctionCall(f, &arg, 1, &result) == -1);
  return detail::MoveFromSafeCallRaised();
}

// The same without any FFI call: a C++ catch of Error, `depth` frames down.
__attribute__((noinline, noclone)) std::string CatchHere(int which) {
  try {
    ThrowVia(which);
  } catch (const Error& err) {
    return err.backtrace();
  }
  return "not thrown";
}
__attribute__((noinline)) std::string CatchFromDepth(int which, int depth) {
  std::string r = depth > 0 ? CatchFromDepth(which, depth - 1) : CatchHere(which);
  asm volatile("");
  return r;
}

size_t LineCount(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST_CASE("A thrown error's backtrace is its own call chain, up to the frame that catches it",
          "[error]") {
  Function kernel = Function::FromTyped([](int which) -> int { return ThrowVia(which); });
  TVMFFIObjectHandle f = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(kernel);
  Error a = CallFromDepth(f, 0, 0);
  REQUIRE(a.kind() == "ValueError");
  REQUIRE(a.message() == "tag 1");
  const std::string bt = a.backtrace();
  // The site first (file and line), then the frames.
  REQUIRE(bt.rfind("  File \"", 0) == 0);
  REQUIRE_THAT(bt.substr(0, bt.find('\n')), ContainsSubstring("test_error.cc\", line "));
  // It ends at the safe-call entry that caught it: the caller's frames are not in it.
  REQUIRE(CallFromDepth(f, 0, 5).backtrace() == bt);
  // The same throw site reached from another caller: another backtrace, as long.
  const std::string via_b = CallFromDepth(f, 1, 0).backtrace();
  REQUIRE(via_b != bt);
  REQUIRE(LineCount(via_b) == LineCount(bt));
  // A frame that catches another type does not end it: one frame more.
  const std::string passes = CallFromDepth(f, 2, 3).backtrace();
  INFO("via A:\n" << bt << "through a catch of std::runtime_error:\n" << passes);
  REQUIRE(LineCount(passes) == LineCount(bt) + 1);
  // Repeated throws (cached per address) give the same answers, in any order.
  for (int i = 0; i < 20; ++i) {
    REQUIRE(CallFromDepth(f, i % 3, i % 4).backtrace() == (i % 3 == 0   ? bt
                                                           : i % 3 == 1 ? via_b
                                                                        : passes));
  }
  // Without an FFI call, a C++ catch of Error ends it the same way.
  const std::string caught = CatchFromDepth(0, 0);
  REQUIRE(LineCount(caught) > 0);
  REQUIRE(CatchFromDepth(0, 4) == caught);
  REQUIRE(CatchFromDepth(1, 2) != caught);
  REQUIRE(LineCount(CatchFromDepth(1, 2)) == LineCount(caught));
  REQUIRE(LineCount(CatchFromDepth(2, 1)) == LineCount(caught) + 1);
}

TEST_CASE("Backtrace frames of helpers dladdr cannot name are named or shown as file+offset",
          "[error]") {
  // ThrowTagged and ThrowViaA are local symbols (anonymous namespace), which
  // dladdr does not see: the runtime names them from the executable's .symtab.
  Function kernel = Function::FromTyped([](int which) -> int { return ThrowVia(which); });
  const std::string bt =
      CallFromDepth(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(kernel), 0, 0).backtrace();
  INFO(bt);
  REQUIRE_THAT(bt, !ContainsSubstring("??"));
  REQUIRE_THAT(bt, ContainsSubstring("ThrowTagged(int)"));
  REQUIRE_THAT(bt, ContainsSubstring("ThrowViaA(int)"));  // maybe a "[clone .isra.0]"
  REQUIRE_THAT(bt, ContainsSubstring("ThrowVia(int)"));
  // Named once: the site line names the thrower, so its own frame is not repeated.
  const size_t first = bt.find("ThrowTagged");
  REQUIRE(bt.find("ThrowTagged", first + 1) == std::string::npos);
}

namespace {
int CCallsThrough(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  // A C callee: passes the -1 of the function it calls straight on.
  return TVMFFIFunctionCall(static_cast<TVMFFIObjectHandle>(self), const_cast<TVMFFIAny*>(args),
                            num_args, result);
}
}  // namespace

TEST_CASE("The kind of an Error survives every boundary", "[error]") {
  // A kind the runtime has never seen, thrown in a kernel.
  Function inner =
      Function::FromTyped([](int) -> int { TVM_FFI_THROW(MyCustomKindError) << "deep"; });
  TVMFFIObjectHandle inner_h = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(inner);
  // Kernel -> C caller.
  Error direct = CallFromDepth(inner_h, 0, 0);
  REQUIRE(direct.kind() == "MyCustomKindError");
  REQUIRE(direct.message() == "deep");
  // Kernel -> C -> a kernel that rethrows (TVM_FFI_CHECK_SAFE_CALL) -> C: the same error.
  Function outer = Function::FromTyped([inner_h](int x) -> int {
    TVMFFIAny arg;
    arg.type_index = kTVMFFIInt;
    arg.zero_padding = 0;
    arg.v_int64 = x;
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionCall(inner_h, &arg, 1, &result));
    return 0;
  });
  Error rethrown = CallFromDepth(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(outer), 0, 0);
  REQUIRE(rethrown.kind() == "MyCustomKindError");
  REQUIRE(rethrown.message() == "deep");
  REQUIRE(rethrown.backtrace() == direct.backtrace());  // the thrower's frames, unchanged
  // Kernel -> C -> a C callee -> C++ caller (Function::operator() rethrows).
  Function via_c = Function::FromExternC(inner_h, CCallsThrough, nullptr);
  Error from_c = ExpectError([&] { via_c(1); });
  REQUIRE(from_c.kind() == "MyCustomKindError");
  REQUIRE(from_c.message() == "deep");
  // ... and a C++ caller of the kernel itself.
  REQUIRE(ExpectError([&] { outer(1); }).kind() == "MyCustomKindError");
  // The runtime's own errors (its Throw is TVM_FFI_THROW's machinery) keep theirs too.
  Function to_string = Function::GetGlobalRequired("ffi.String");
  Error runtime_err = ExpectError([&] { to_string(inner); });
  REQUIRE(runtime_err.kind() == "TypeError");
  REQUIRE_THAT(runtime_err.message(), ContainsSubstring("ffi.String"));
}

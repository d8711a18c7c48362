// Error objects, the per-thread raised slot, backtraces and error kinds.
#include <catch2/catch_test_macros.hpp>

#include <alloca.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "runtime_test_util.h"

using namespace rt_test;

TEST_CASE("SetRaisedFromCStr and MoveFromRaised", "[runtime][error]") {
  TVMFFIObjectHandle err = reinterpret_cast<TVMFFIObjectHandle>(1);
  TVMFFIErrorMoveFromRaised(&err);
  REQUIRE(err == nullptr);

  TVMFFIErrorSetRaisedFromCStr("ValueError", "the message");
  TVMFFIErrorMoveFromRaised(&err);
  REQUIRE(err != nullptr);
  REQUIRE(TVMFFIObjectGetTypeIndex(err) == kTVMFFIError);
  REQUIRE(RefCount(err) == ((uint64_t{1} << 32) | 1));
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  REQUIRE(Str(cell->kind) == "ValueError");
  REQUIRE(Str(cell->message) == "the message");
  REQUIRE(cell->kind.data[cell->kind.size] == '\0');
  REQUIRE(cell->message.data[cell->message.size] == '\0');
  REQUIRE(cell->update_backtrace != nullptr);
  REQUIRE(cell->cause_chain == nullptr);
  REQUIRE(cell->extra_context == nullptr);
  TVMFFIObjectDecRef(err);
  // The slot was cleared by the move.
  TVMFFIErrorMoveFromRaised(&err);
  REQUIRE(err == nullptr);

  SECTION("a later error replaces an earlier one") {
    TVMFFIErrorSetRaisedFromCStr("KeyError", "first");
    TVMFFIErrorSetRaisedFromCStr("IndexError", "second");
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "IndexError");
    REQUIRE(e.message == "second");
    REQUIRE_FALSE(TakeRaised().present);
  }
  SECTION("NULL kind and message") {
    TVMFFIErrorSetRaisedFromCStr(nullptr, nullptr);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "RuntimeError");
    REQUIRE(e.message.empty());
  }
  SECTION("MoveFromRaised(NULL) leaves the slot alone") {
    TVMFFIErrorSetRaisedFromCStr("KeyError", "kept");
    TVMFFIErrorMoveFromRaised(nullptr);
    REQUIRE(TakeRaised().message == "kept");
  }
}

TEST_CASE("SetRaisedFromCStrParts concatenates and skips NULL parts", "[runtime][error]") {
  const char* parts[] = {"a", nullptr, "b", "", "c"};
  TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 5);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "TypeError");
  REQUIRE(e.message == "abc");
  TVMFFIErrorSetRaisedFromCStrParts(nullptr, nullptr, 4);
  e = TakeRaised();
  REQUIRE(e.kind == "RuntimeError");
  REQUIRE(e.message.empty());
  TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, 0);
  REQUIRE(TakeRaised().message.empty());
  TVMFFIErrorSetRaisedFromCStrParts("TypeError", parts, -3);
  REQUIRE(TakeRaised().message.empty());
}

TEST_CASE("SetRaised takes its own reference and checks its argument", "[runtime][error]") {
  TVMFFIByteArray kind = BA("RuntimeError"), msg = BA("parked");
  Handle err;
  REQUIRE(TVMFFIErrorCreate(&kind, &msg, nullptr, err.out()) == 0);
  TVMFFIErrorSetRaised(err.get());
  REQUIRE(StrongCount(err.get()) == 2);
  TVMFFIErrorSetRaised(err.get());  // replacing it with itself is fine
  REQUIRE(StrongCount(err.get()) == 2);
  TVMFFIErrorSetRaisedFromCStr("ValueError", "other");  // releases the slot's reference
  REQUIRE(StrongCount(err.get()) == 1);
  REQUIRE(TakeRaised().message == "other");

  TVMFFIErrorSetRaised(nullptr);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "ValueError");
  REQUIRE(e.message == "TVMFFIErrorSetRaised: argument `error` is NULL");

  Handle not_error;
  REQUIRE(TVMFFIObjectCreateOpaque(nullptr, kTVMFFIOpaquePyObject, nullptr, not_error.out()) == 0);
  TVMFFIErrorSetRaised(not_error.get());
  e = TakeRaised();
  REQUIRE(e.kind == "TypeError");
  REQUIRE(e.message.find("ffi.OpaquePyObject") != std::string::npos);
  REQUIRE(StrongCount(not_error.get()) == 1);
}

TEST_CASE("Each thread has its own raised slot", "[runtime][error]") {
  constexpr int kThreads = 8;
  constexpr int kRounds = 200;
  std::atomic<int> mismatches{0};
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int r = 0; r < kRounds; ++r) {
        std::string msg = "thread " + std::to_string(t) + " round " + std::to_string(r);
        TVMFFIErrorSetRaisedFromCStr("ValueError", msg.c_str());
        std::this_thread::yield();
        RaisedError e = TakeRaised();
        if (!e.present || e.message != msg) mismatches.fetch_add(1);
        if (TakeRaised().present) mismatches.fetch_add(1);
      }
      // Leave one raised: the thread's exit must release it (checked by LSan).
      TVMFFIErrorSetRaisedFromCStr("ValueError", "left behind");
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(mismatches.load() == 0);
  REQUIRE_FALSE(TakeRaised().present);
}

TEST_CASE("ErrorCreate copies its texts; update_backtrace replaces or appends",
          "[runtime][error]") {
  std::string kind = "KeyError", msg = "no key", bt = "  at f (x.cc:1)\n";
  TVMFFIByteArray k = BA(kind), m = BA(msg), b = BA(bt);
  Handle err;
  REQUIRE(TVMFFIErrorCreate(&k, &m, &b, err.out()) == 0);
  kind.assign(kind.size(), 'X');
  msg.assign(msg.size(), 'X');
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err.get());
  REQUIRE(Str(cell->kind) == "KeyError");
  REQUIRE(Str(cell->message) == "no key");
  REQUIRE(Str(cell->backtrace) == "  at f (x.cc:1)\n");
  TVMFFIByteArray more = BA("  at g (y.cc:2)\n");
  cell->update_backtrace(err.get(), &more, kTVMFFIBacktraceUpdateModeAppend);
  REQUIRE(Str(cell->backtrace) == "  at f (x.cc:1)\n  at g (y.cc:2)\n");
  cell->update_backtrace(err.get(), &more, kTVMFFIBacktraceUpdateModeReplace);
  REQUIRE(Str(cell->backtrace) == "  at g (y.cc:2)\n");
  TVMFFIByteArray empty{nullptr, 0};
  cell->update_backtrace(err.get(), &empty, kTVMFFIBacktraceUpdateModeReplace);
  REQUIRE(cell->backtrace.size == 0);
  cell->update_backtrace(err.get(), nullptr, kTVMFFIBacktraceUpdateModeReplace);  // ignored

  SECTION("failure is reported by the return value only") {
    TVMFFIObjectHandle out = nullptr;
    TVMFFIByteArray bad{nullptr, 5};
    REQUIRE(TVMFFIErrorCreate(nullptr, &m, nullptr, &out) != 0);
    REQUIRE(TVMFFIErrorCreate(&k, nullptr, nullptr, &out) != 0);
    REQUIRE(TVMFFIErrorCreate(&k, &m, &bad, &out) != 0);
    REQUIRE(TVMFFIErrorCreate(&k, &m, nullptr, nullptr) != 0);
    REQUIRE(out == nullptr);
    REQUIRE_FALSE(TakeRaised().present);
  }
}

TEST_CASE("Cause chain and extra context are held by the error", "[runtime][error]") {
  TVMFFIByteArray k = BA("RuntimeError"), m1 = BA("root cause"), m2 = BA("wrapper");
  Handle cause, extra;
  REQUIRE(TVMFFIErrorCreate(&k, &m1, nullptr, cause.out()) == 0);
  static int extra_freed = 0;
  extra_freed = 0;
  REQUIRE(TVMFFIObjectCreateOpaque(
              nullptr, kTVMFFIOpaquePyObject, [](void*) { ++extra_freed; }, extra.out()) == 0);
  TVMFFIObjectHandle err = nullptr;
  REQUIRE(TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m2, nullptr, cause.get(), extra.get(),
                                                    &err) == 0);
  REQUIRE(StrongCount(cause.get()) == 2);
  REQUIRE(StrongCount(extra.get()) == 2);
  TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  REQUIRE(cell->cause_chain == cause.get());
  REQUIRE(cell->extra_context == extra.get());
  REQUIRE(Str(TVMFFIErrorGetCellPtr(cell->cause_chain)->message) == "root cause");
  // Dropping our handles leaves the error's references alive.
  TVMFFIObjectDecRef(extra.release());
  REQUIRE(extra_freed == 0);
  TVMFFIObjectDecRef(err);
  REQUIRE(extra_freed == 1);
  REQUIRE(StrongCount(cause.get()) == 1);

  SECTION("NULL cause and context are fine") {
    Handle e;
    REQUIRE(TVMFFIErrorCreateWithCauseAndExtraContext(&k, &m2, nullptr, nullptr, nullptr,
                                                      e.out()) == 0);
    REQUIRE(TVMFFIErrorGetCellPtr(e.get())->cause_chain == nullptr);
  }
}

namespace {
// noinline so the frame shows up in the backtrace.
__attribute__((noinline)) void RaiseFromHere() {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "with a backtrace");
  asm volatile("");
}
}  // namespace

TEST_CASE("Raised errors carry a backtrace", "[runtime][error]") {
  RaiseFromHere();
  RaisedError e = TakeRaised();
  REQUIRE(e.present);
  REQUIRE_FALSE(e.backtrace.empty());
  REQUIRE(e.backtrace.rfind("  at ", 0) == 0);
  // Frames inside libtvmffi (the capture itself) are not shown first.
  REQUIRE(e.backtrace.find("TVMFFIBacktrace") == std::string::npos);
  REQUIRE(e.backtrace.find("test_runtime") != std::string::npos);
}

TEST_CASE("TVMFFIBacktrace formats a first line and frames", "[runtime][error]") {
  const TVMFFIByteArray* bt = TVMFFIBacktrace("file.cc", 42, "MyFunc", 0);
  REQUIRE(bt != nullptr);
  std::string text = Str(*bt);
  // The site in upstream's form (its Python package parses it), then frames.
  const std::string site = "  File \"file.cc\", line 42, in MyFunc\n";
  REQUIRE(text.rfind(site, 0) == 0);
  REQUIRE(text.size() > site.size());
  // Every other line is a frame line.
  size_t pos = site.size(), lines = 1;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    REQUIRE(nl != std::string::npos);
    REQUIRE(text.compare(pos, 5, "  at ") == 0);
    pos = nl + 1;
    ++lines;
  }
  REQUIRE(lines >= 2);
  REQUIRE(lines <= 1 + 32);  // the default limit
  // Same buffer on the next call of this thread; never NULL.
  const TVMFFIByteArray* again = TVMFFIBacktrace(nullptr, 0, nullptr, 1);
  REQUIRE(again == bt);
  REQUIRE(again->data != nullptr);
  REQUIRE(std::string(again->data, again->size).rfind("  File \"file.cc\"", 0) ==
          std::string::npos);
}

TEST_CASE("Error kinds: standard codes and registration", "[runtime][error]") {
  const std::pair<const char*, int32_t> standard[] = {
      {"RuntimeError", kTVMFFIErrorKindRuntimeError},
      {"ValueError", kTVMFFIErrorKindValueError},
      {"TypeError", kTVMFFIErrorKindTypeError},
      {"AttributeError", kTVMFFIErrorKindAttributeError},
      {"KeyError", kTVMFFIErrorKindKeyError},
      {"IndexError", kTVMFFIErrorKindIndexError},
      {"NotImplementedError", kTVMFFIErrorKindNotImplementedError},
      {"MemoryError", kTVMFFIErrorKindMemoryError},
      {"InternalError", kTVMFFIErrorKindInternalError},
  };
  for (const auto& [name, code] : standard) {
    TVMFFIByteArray k = BA(name);
    REQUIRE(TVMFFIErrorKindLookup(&k) == code);
    int32_t got = -7;
    REQUIRE(TVMFFIErrorKindRegister(&k, &got) == 0);
    REQUIRE(got == code);
  }
  TVMFFIByteArray custom = BA("test.runtime.CustomError");
  REQUIRE(TVMFFIErrorKindLookup(&custom) == kTVMFFIErrorKindUnknown);
  int32_t c1 = 0, c2 = 0;
  REQUIRE(TVMFFIErrorKindRegister(&custom, &c1) == 0);
  REQUIRE(c1 >= kTVMFFIErrorKindCustomBegin);
  REQUIRE(TVMFFIErrorKindRegister(&custom, &c2) == 0);
  REQUIRE(c1 == c2);
  REQUIRE(TVMFFIErrorKindLookup(&custom) == c1);
  TVMFFIByteArray other = BA("test.runtime.OtherError");
  int32_t c3 = 0;
  REQUIRE(TVMFFIErrorKindRegister(&other, &c3) == 0);
  REQUIRE(c3 != c1);

  REQUIRE(TVMFFIErrorKindLookup(nullptr) == kTVMFFIErrorKindUnknown);
  REQUIRE(TVMFFIErrorKindRegister(nullptr, &c1) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIErrorKindRegister: argument `kind` is NULL");
  REQUIRE(TVMFFIErrorKindRegister(&custom, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIErrorKindRegister: argument `out_code` is NULL");
  TVMFFIByteArray empty = BA("");
  REQUIRE(TVMFFIErrorKindRegister(&empty, &c1) == -1);
  REQUIRE(TakeRaised().kind == "ValueError");
}

TEST_CASE("Raising an error is cheap enough to use on hot error paths", "[runtime][error]") {
  // Not a timing assertion: warms the frame cache and checks repeated raises
  // return consistent backtraces (the cache must not corrupt them).
  // Compared through the frame of RaiseFromHere: the compiler may peel or
  // unroll the loop, so the caller's frame can differ between iterations.
  auto through_raiser = [](const std::string& bt) {
    size_t at = bt.find("RaiseFromHere");
    REQUIRE(at != std::string::npos);
    return bt.substr(0, bt.find('\n', at));
  };
  std::string first;
  for (int i = 0; i < 50; ++i) {
    RaiseFromHere();
    RaisedError e = TakeRaised();
    if (i == 0) first = through_raiser(e.backtrace);
    REQUIRE(through_raiser(e.backtrace) == first);
  }
}

namespace {
// One call site of TVMFFIBacktrace reached through different chains.
__attribute__((noinline)) std::string Leaf(int cross) {
  const TVMFFIByteArray* bt = TVMFFIBacktrace(nullptr, 0, nullptr, cross);
  std::string text = Str(*bt);
  asm volatile("");
  return text;
}
__attribute__((noinline)) std::string ViaA(int cross) {
  std::string r = Leaf(cross);
  asm volatile("");
  return r;
}
__attribute__((noinline)) std::string ViaB(int cross) {
  std::string r = Leaf(cross);
  asm volatile("");
  return r;
}
__attribute__((noinline)) std::string Recurse(int depth) {
  std::string r = depth == 0 ? Leaf(0) : Recurse(depth - 1);
  asm volatile("");
  return r;
}
// Moves the whole chain below it to a different stack depth.
__attribute__((noinline)) std::string Shifted(size_t bytes) {
  char* pad = static_cast<char*>(alloca(bytes));
  std::memset(pad, 0x5a, bytes);
  asm volatile("" : : "r"(pad) : "memory");
  std::string r = ViaA(0);
  asm volatile("");
  return r;
}
size_t Lines(const std::string& s) {
  return static_cast<size_t>(std::count(s.begin(), s.end(), '\n'));
}
}  // namespace

TEST_CASE("Cached backtraces follow the actual call chain", "[runtime][error]") {
  // The first call through each chain unwinds for real; later calls may reuse
  // it only when the chain is the same. (Each comparison uses one call site:
  // the test function's own frame is part of the chain.)
  std::vector<std::string> a, b;
  for (int i = 0; i < 20; ++i) {
    a.push_back(ViaA(0));
    b.push_back(ViaB(0));
  }
  REQUIRE(a[0] != b[0]);
  REQUIRE(Lines(a[0]) == Lines(b[0]));
  for (int i = 1; i < 20; ++i) {
    REQUIRE(a[i] == a[0]);
    REQUIRE(b[i] == b[0]);
  }
  // Same frames at a different stack depth.
  std::vector<std::string> shifted;
  for (size_t bytes : {64, 4096, 64, 1000}) shifted.push_back(Shifted(bytes));
  for (const std::string& s : shifted) REQUIRE(s == shifted[0]);
  // Recursion depth changes the number of frames.
  std::vector<std::string> rec;
  for (int depth : {3, 5, 3, 5, 4, 3}) rec.push_back(Recurse(depth));
  REQUIRE(Lines(rec[1]) == Lines(rec[0]) + 2);
  REQUIRE(Lines(rec[4]) == Lines(rec[0]) + 1);
  REQUIRE(rec[2] == rec[0]);
  REQUIRE(rec[5] == rec[0]);
  REQUIRE(rec[3] == rec[1]);
  // cross_ffi_boundary changes nothing here (no FFI frame in the chain).
  std::vector<std::string> cross;
  for (int c : {0, 1, 0, 1}) cross.push_back(ViaA(c));
  for (const std::string& s : cross) REQUIRE(s == cross[0]);
  // Each thread learns on its own and gets a consistent answer for its chain.
  std::vector<std::string> other;
  OnNewThread([&] {
    for (int i = 0; i < 3; ++i) other.push_back(ViaA(0));
  });
  REQUIRE(Lines(other[0]) > 0);
  REQUIRE(other[1] == other[0]);
  REQUIRE(other[2] == other[0]);
  REQUIRE(other[0] != a[0]);
}

// Issue #25: a stale error (raised by an earlier failure nobody fetched) is
// never reported by a later call that fails without raising: the runtime
// raises a fresh error for a callee that returned non-zero silently.
namespace {
int SilentFailure(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  return -1;
}
int SilentInit(void**) {
  return -1;
}
int SilentDeinit(void*) {
  return -3;
}
int SilentSignals() {
  return -1;
}
int InitToOne(void** out) {
  *out = reinterpret_cast<void*>(1);
  return 0;
}
int RaisingSignals() {
  TVMFFIErrorSetRaisedFromCStr("KeyboardInterrupt", "stop");
  return -1;
}
void LeaveStale() {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "stale");
}
}  // namespace

TEST_CASE("A call that fails without raising never reports a stale error",
          "[runtime][error][hostile]") {
  TVMFFIObjectHandle fn = nullptr;
  REQUIRE(TVMFFIFunctionCreate(nullptr, SilentFailure, nullptr, &fn) == 0);
  TVMFFIAny result = None();
  LeaveStale();
  REQUIRE(TVMFFIFunctionCall(fn, nullptr, 0, &result) == -1);
  RaisedError e = TakeRaised();
  CHECK(e.kind == "RuntimeError");
  CHECK(e.message == "the called function returned -1 without setting an error");
  TVMFFIObjectDecRef(fn);

  void* handle = nullptr;
  LeaveStale();
  REQUIRE(TVMFFIHandleInitOnce(&handle, SilentInit) == -1);
  e = TakeRaised();
  CHECK(e.kind == "RuntimeError");
  CHECK(e.message == "TVMFFIHandleInitOnce: init_func returned -1 without setting an error");
  REQUIRE(TVMFFIHandleInitOnce(&handle, InitToOne) == 0);
  LeaveStale();
  REQUIRE(TVMFFIHandleDeinitOnce(&handle, SilentDeinit) == -3);
  e = TakeRaised();
  CHECK(e.message == "TVMFFIHandleDeinitOnce: deinit_func returned -3 without setting an error");

  REQUIRE(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", reinterpret_cast<void*>(SilentSignals)) ==
          0);
  LeaveStale();
  REQUIRE(TVMFFIEnvCheckSignals() == -1);
  e = TakeRaised();
  CHECK(e.message == "the TVMFFIEnvCheckSignals hook returned -1 without setting an error");
  // A hook that raises keeps its own error.
  REQUIRE(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", reinterpret_cast<void*>(RaisingSignals)) ==
          0);
  LeaveStale();
  REQUIRE(TVMFFIEnvCheckSignals() == -1);
  e = TakeRaised();
  CHECK(e.kind == "KeyboardInterrupt");
  REQUIRE(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", nullptr) == 0);
}

// Issue #25: a global function name must be usable by name from C.
TEST_CASE("Empty or NUL-containing global names are refused", "[runtime][error][hostile]") {
  TVMFFIObjectHandle fn = nullptr;
  REQUIRE(TVMFFIFunctionCreate(nullptr, SilentFailure, nullptr, &fn) == 0);
  TVMFFIByteArray empty{"", 0};
  REQUIRE(TVMFFIFunctionSetGlobal(&empty, fn, 1) == -1);
  RaisedError e = TakeRaised();
  CHECK(e.kind == "ValueError");
  CHECK(e.message == "TVMFFIFunctionSetGlobal: the global function name is empty");
  const char with_nul[] = "ffi.Good\0evil";
  TVMFFIByteArray nul{with_nul, sizeof(with_nul) - 1};
  REQUIRE(TVMFFIFunctionSetGlobal(&nul, fn, 1) == -1);
  e = TakeRaised();
  CHECK(e.kind == "ValueError");
  CHECK(e.message ==
        "TVMFFIFunctionSetGlobal: the global function name contains a NUL byte (at offset 8)");
  TVMFFIObjectHandle got = nullptr;
  TVMFFIByteArray good{"ffi.Good", 8};
  REQUIRE(TVMFFIFunctionGetGlobal(&good, &got) == 0);
  CHECK(got == nullptr);  // nothing registered under the cut-short name
  TVMFFIMethodInfo info{};
  info.name = empty;
  info.method.type_index = kTVMFFIFunction;
  info.method.v_obj = static_cast<TVMFFIObject*>(fn);
  REQUIRE(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 1) == -1);
  CHECK(TakeRaised().message ==
        "TVMFFIFunctionSetGlobalFromMethodInfo: the global function name is empty");
  TVMFFIObjectDecRef(fn);
}

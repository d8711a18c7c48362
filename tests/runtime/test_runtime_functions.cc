// Function objects, the global registry, AnyView -> Any and one-time handles.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime_test_util.h"

using namespace rt_test;

namespace {

struct Counter {
  std::atomic<int> calls{0};
  std::atomic<int> deleted{0};
};

// Returns the sum of its integer arguments plus the number of calls so far.
int SumArgs(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  auto* c = static_cast<Counter*>(self);
  c->calls.fetch_add(1);
  int64_t sum = 0;
  for (int32_t i = 0; i < num_args; ++i) {
    if (args[i].type_index != kTVMFFIInt) {
      TVMFFIErrorSetRaisedFromCStr("TypeError", "SumArgs wants integers");
      return -1;
    }
    sum += args[i].v_int64;
  }
  *result = Int(sum);
  return 0;
}

void CounterDeleter(void* self) {
  static_cast<Counter*>(self)->deleted.fetch_add(1);
}

Handle MakeFunction(Counter* c) {
  Handle h;
  REQUIRE(TVMFFIFunctionCreate(c, SumArgs, CounterDeleter, h.out()) == 0);
  return h;
}

std::vector<std::string> GlobalNames() {
  std::vector<std::string> names;
  REQUIRE(TVMFFIFunctionListGlobalNames(
              [](void* ctx, const TVMFFIByteArray* n) -> int {
                static_cast<std::vector<std::string>*>(ctx)->push_back(Str(*n));
                return 0;
              },
              &names) == 0);
  return names;
}

}  // namespace

TEST_CASE("Function objects call their C callback with its own context", "[runtime][function]") {
  Counter c;
  {
    Handle f = MakeFunction(&c);
    REQUIRE(TVMFFIObjectGetTypeIndex(f.get()) == kTVMFFIFunction);
    const TVMFFIFunctionCell* cell = TVMFFIFunctionGetCellPtr(f.get());
    REQUIRE(cell->safe_call != nullptr);
    REQUIRE(cell->cpp_call == nullptr);

    TVMFFIAny args[] = {Int(1), Int(2), Int(39)};
    TVMFFIAny result = None();
    REQUIRE(TVMFFIFunctionCall(f.get(), args, 3, &result) == 0);
    REQUIRE(result.type_index == kTVMFFIInt);
    REQUIRE(result.v_int64 == 42);
    // Called straight through the cell, as other binaries do.
    result = None();
    REQUIRE(cell->safe_call(f.get(), args, 2, &result) == 0);
    REQUIRE(result.v_int64 == 3);
    REQUIRE(c.calls == 2);
    // Zero arguments, NULL args pointer.
    REQUIRE(TVMFFIFunctionCall(f.get(), nullptr, 0, &result) == 0);
    REQUIRE(result.v_int64 == 0);
    // The callee's error is passed through untouched.
    args[1].type_index = kTVMFFINone;
    REQUIRE(TVMFFIFunctionCall(f.get(), args, 3, &result) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
    REQUIRE(e.message == "SumArgs wants integers");
    REQUIRE(c.deleted == 0);
  }
  REQUIRE(c.deleted == 1);
}

TEST_CASE("TVMFFIFunctionCall rejects bad handles", "[runtime][function]") {
  TVMFFIAny result = None();
  REQUIRE(TVMFFIFunctionCall(nullptr, nullptr, 0, &result) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "ValueError");
  REQUIRE(e.message == "TVMFFIFunctionCall: argument `func` is NULL");
  Handle s;
  TVMFFIAny str = None();
  TVMFFIByteArray text = BA("definitely not a function");
  REQUIRE(TVMFFIStringFromByteArray(&text, &str) == 0);
  *s.out() = str.v_obj;
  REQUIRE(TVMFFIFunctionCall(s.get(), nullptr, 0, &result) == -1);
  e = TakeRaised();
  REQUIRE(e.kind == "TypeError");
  REQUIRE(e.message.find("ffi.String") != std::string::npos);
}

TEST_CASE("A C++ callback that throws is contained", "[runtime][function]") {
  Handle f;
  REQUIRE(TVMFFIFunctionCreate(
              nullptr,
              [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) -> int {
                throw std::runtime_error("escaped");
              },
              nullptr, f.out()) == 0);
  TVMFFIAny result = None();
  REQUIRE(TVMFFIFunctionCall(f.get(), nullptr, 0, &result) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "InternalError");
  REQUIRE(e.message == "escaped");
}

namespace {
int RaiseOwn(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  TVMFFIErrorSetRaisedFromCStr("KeyError", "own");
  return -1;
}
int ReturnCode(void* self, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  return static_cast<int>(reinterpret_cast<intptr_t>(self));
}
int ThrowEscaped(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  throw std::runtime_error("escaped");
}
void LeaveStaleError() {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "stale");
}
// TVMFFIFunctionCall of callback(self) with a stale error in the slot: its
// return code, then what was raised.
RaisedError CallAfterStale(TVMFFISafeCallType callback, intptr_t self, int expected_rc) {
  Handle f;
  REQUIRE(TVMFFIFunctionCreate(reinterpret_cast<void*>(self), callback, nullptr, f.out()) == 0);
  TVMFFIAny result = None();
  LeaveStaleError();
  REQUIRE(TVMFFIFunctionCall(f.get(), nullptr, 0, &result) == expected_rc);
  CHECK(result.type_index == kTVMFFINone);
  return TakeRaised();
}
}  // namespace

// TVMFFIFunctionCall reports what a C callback did, whatever an earlier
// failure left in the slot: its own error, a fresh one for a silent failure
// (any nonzero code but -2, passed on as returned).
TEST_CASE("TVMFFIFunctionCall reports a C callback's own outcome", "[runtime][function]") {
  RaisedError e = CallAfterStale(RaiseOwn, 0, -1);
  CHECK(e.kind == "KeyError");
  CHECK(e.message == "own");
  e = CallAfterStale(ThrowEscaped, 0, -1);
  CHECK(e.kind == "InternalError");
  CHECK(e.message == "escaped");
  e = CallAfterStale(ReturnCode, 1, 1);
  CHECK(e.kind == "RuntimeError");
  CHECK(e.message == "the called function returned 1 without setting an error");
  // -2: the caller's environment holds its own error; nothing is raised (the
  // stale one stays where it was).
  e = CallAfterStale(ReturnCode, -2, -2);
  CHECK(e.message == "stale");
}

// A function object made by C code, not by TVMFFIFunctionCreate: the same
// checks and the same stale-error guard on TVMFFIFunctionCall.
TEST_CASE("TVMFFIFunctionCall of a function object made by C code", "[runtime][function]") {
  struct CFunction {
    TVMFFIObject header;
    TVMFFIFunctionCell cell;
  };
  CFunction fn{};
  fn.header.combined_ref_count = (uint64_t{1} << 32) | 1;
  fn.header.type_index = kTVMFFIFunction;
  fn.header.deleter = [](void*, int) {};
  fn.cell.safe_call = [](void* handle, const TVMFFIAny* args, int32_t num_args,
                         TVMFFIAny* result) -> int {
    if (num_args == 1) {
      // The handle is the function object itself.
      *result = Int(args[0].v_int64 + (handle != nullptr ? 1 : 0));
      return 0;
    }
    return -1;  // silently
  };
  TVMFFIAny arg = Int(41);
  TVMFFIAny result = None();
  REQUIRE(TVMFFIFunctionCall(&fn.header, &arg, 1, &result) == 0);
  CHECK(result.v_int64 == 42);
  LeaveStaleError();
  REQUIRE(TVMFFIFunctionCall(&fn.header, nullptr, 0, &result) == -1);
  RaisedError e = TakeRaised();
  CHECK(e.kind == "RuntimeError");
  CHECK(e.message == "the called function returned -1 without setting an error");
  REQUIRE(TVMFFIFunctionCall(&fn.header, &arg, 1, nullptr) == -1);
  CHECK(TakeRaised().message == "TVMFFIFunctionCall: argument `result` is NULL");
  REQUIRE(TVMFFIFunctionCall(&fn.header, nullptr, 1, &result) == -1);
  CHECK(TakeRaised().message.find("`args` is NULL") != std::string::npos);
  REQUIRE(TVMFFIFunctionCall(&fn.header, &arg, -1, &result) == -1);
  CHECK(TakeRaised().message.find("`num_args` is negative") != std::string::npos);
}

TEST_CASE("TVMFFIFunctionCreate argument errors", "[runtime][function]") {
  TVMFFIObjectHandle out = nullptr;
  REQUIRE(TVMFFIFunctionCreate(nullptr, nullptr, nullptr, &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionCreate: argument `safe_call` is NULL");
  REQUIRE(TVMFFIFunctionCreate(nullptr, SumArgs, nullptr, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionCreate: argument `out` is NULL");
  REQUIRE(out == nullptr);
}

TEST_CASE("Global registry: set, get, override, remove, list", "[runtime][function]") {
  Counter c1, c2;
  {
    Handle f1 = MakeFunction(&c1);
    Handle f2 = MakeFunction(&c2);
    TVMFFIByteArray name = BA("test.runtime.sum");
    REQUIRE(TVMFFIFunctionSetGlobal(&name, f1.get(), 0) == 0);
    REQUIRE(StrongCount(f1.get()) == 2);

    Handle got;
    REQUIRE(TVMFFIFunctionGetGlobal(&name, got.out()) == 0);
    REQUIRE(got.get() == f1.get());
    REQUIRE(StrongCount(f1.get()) == 3);

    REQUIRE(TVMFFIFunctionSetGlobal(&name, f2.get(), 0) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "RuntimeError");
    REQUIRE(e.message == "Global function `test.runtime.sum` is already registered");
    REQUIRE(StrongCount(f2.get()) == 1);

    REQUIRE(TVMFFIFunctionSetGlobal(&name, f2.get(), 1) == 0);
    REQUIRE(StrongCount(f1.get()) == 2);  // the registry let go of f1
    REQUIRE(StrongCount(f2.get()) == 2);
    Handle got2;
    REQUIRE(TVMFFIFunctionGetGlobal(&name, got2.out()) == 0);
    REQUIRE(got2.get() == f2.get());

    std::vector<std::string> names = GlobalNames();
    REQUIRE(std::is_sorted(names.begin(), names.end()));
    REQUIRE(std::count(names.begin(), names.end(), "test.runtime.sum") == 1);
    REQUIRE(std::count(names.begin(), names.end(), "ffi.String") == 1);

    REQUIRE(TVMFFIFunctionRemoveGlobal(&name) == 0);
    REQUIRE(StrongCount(f2.get()) == 2);              // got2 and f2
    REQUIRE(TVMFFIFunctionRemoveGlobal(&name) == 0);  // absent: still fine
    TVMFFIObjectHandle none = reinterpret_cast<TVMFFIObjectHandle>(1);
    REQUIRE(TVMFFIFunctionGetGlobal(&name, &none) == 0);
    REQUIRE(none == nullptr);
    REQUIRE_FALSE(TakeRaised().present);
    names = GlobalNames();
    REQUIRE(std::count(names.begin(), names.end(), "test.runtime.sum") == 0);
  }
  REQUIRE(c1.deleted == 1);
  REQUIRE(c2.deleted == 1);
}

TEST_CASE("Global registry argument errors", "[runtime][function]") {
  Counter c;
  Handle f = MakeFunction(&c);
  TVMFFIByteArray name = BA("test.runtime.bad");
  TVMFFIObjectHandle out = nullptr;
  REQUIRE(TVMFFIFunctionSetGlobal(nullptr, f.get(), 0) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionSetGlobal: argument `name` is NULL");
  REQUIRE(TVMFFIFunctionSetGlobal(&name, nullptr, 0) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionSetGlobal: argument `f` is NULL");
  Handle opaque;
  REQUIRE(TVMFFIObjectCreateOpaque(nullptr, kTVMFFIOpaquePyObject, nullptr, opaque.out()) == 0);
  REQUIRE(TVMFFIFunctionSetGlobal(&name, opaque.get(), 0) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
  REQUIRE(TVMFFIFunctionGetGlobal(nullptr, &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionGetGlobal: argument `name` is NULL");
  REQUIRE(TVMFFIFunctionGetGlobal(&name, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionGetGlobal: argument `out` is NULL");
  REQUIRE(TVMFFIFunctionRemoveGlobal(nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionRemoveGlobal: argument `name` is NULL");
  REQUIRE(TVMFFIFunctionListGlobalNames(nullptr, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIFunctionListGlobalNames: argument `visit` is NULL");
  REQUIRE(TVMFFIFunctionSetGlobalFromMethodInfo(nullptr, 0) == -1);
  REQUIRE(TakeRaised().message ==
          "TVMFFIFunctionSetGlobalFromMethodInfo: argument `method_info` is NULL");
  TVMFFIMethodInfo info;
  std::memset(&info, 0, sizeof(info));
  info.name = name;
  info.method = Int(3);
  REQUIRE(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
}

TEST_CASE("SetGlobalFromMethodInfo keeps doc and metadata", "[runtime][function]") {
  Counter c;
  Handle f = MakeFunction(&c);
  TVMFFIMethodInfo info;
  std::memset(&info, 0, sizeof(info));
  std::string metadata = R"({"type_schema": "int"})";
  info.name = BA("test.runtime.documented");
  info.doc = BA("adds things");
  info.metadata = BA(metadata);
  info.method = ObjView(f.get());
  REQUIRE(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0) == 0);
  REQUIRE(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0) == -1);
  REQUIRE(TakeRaised().kind == "RuntimeError");
  metadata.assign(metadata.size(), '?');  // the registry copied it

  Handle meta;
  TVMFFIByteArray meta_name = BA("ffi.GetGlobalFuncMetadata");
  REQUIRE(TVMFFIFunctionGetGlobal(&meta_name, meta.out()) == 0);
  REQUIRE(meta.get() != nullptr);
  TVMFFIAny arg = None();
  arg.type_index = kTVMFFIRawStr;
  arg.v_c_str = "test.runtime.documented";
  TVMFFIAny result = None();
  REQUIRE(TVMFFIFunctionCall(meta.get(), &arg, 1, &result) == 0);
  REQUIRE(AnyText(result) == R"({"type_schema": "int"})");
  Release(&result);
  arg.v_c_str = "test.runtime.not_registered";
  REQUIRE(TVMFFIFunctionCall(meta.get(), &arg, 1, &result) == -1);
  REQUIRE(TakeRaised().kind == "KeyError");
  TVMFFIByteArray name = BA("test.runtime.documented");
  REQUIRE(TVMFFIFunctionRemoveGlobal(&name) == 0);
}

TEST_CASE("Built-in ffi.String and ffi.Bytes", "[runtime][function]") {
  for (const char* fname : {"ffi.String", "ffi.Bytes"}) {
    INFO(fname);
    bool is_string = std::string(fname) == "ffi.String";
    Handle f;
    TVMFFIByteArray n = BA(fname);
    REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
    REQUIRE(f.get() != nullptr);
    TVMFFIAny arg = None();
    arg.type_index = kTVMFFIRawStr;
    arg.v_c_str = "from a C string, long";
    TVMFFIAny result = None();
    REQUIRE(TVMFFIFunctionCall(f.get(), &arg, 1, &result) == 0);
    REQUIRE(result.type_index == (is_string ? kTVMFFIStr : kTVMFFIBytes));
    REQUIRE(AnyText(result) == "from a C string, long");
    Release(&result);
    arg.v_c_str = "tiny";
    REQUIRE(TVMFFIFunctionCall(f.get(), &arg, 1, &result) == 0);
    REQUIRE(result.type_index == (is_string ? kTVMFFISmallStr : kTVMFFISmallBytes));
    arg = Int(1);
    REQUIRE(TVMFFIFunctionCall(f.get(), &arg, 1, &result) == -1);
    REQUIRE(TakeRaised().kind == "TypeError");
    REQUIRE(TVMFFIFunctionCall(f.get(), nullptr, 0, &result) == -1);
    REQUIRE(TakeRaised().kind == "TypeError");
  }
}

TEST_CASE("Global registry under concurrent register/lookup/remove", "[runtime][function]") {
  constexpr int kThreads = 6;
  constexpr int kRounds = 300;
  Counter c;
  std::atomic<int> errors{0};
  {
    Handle f = MakeFunction(&c);
    TVMFFIObjectHandle fh = f.get();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        std::string own = "test.runtime.concurrent." + std::to_string(t);
        TVMFFIByteArray own_name = BA(own);
        TVMFFIByteArray shared = BA("test.runtime.concurrent.shared");
        for (int r = 0; r < kRounds; ++r) {
          if (TVMFFIFunctionSetGlobal(&own_name, fh, 0) != 0) errors.fetch_add(1);
          if (TVMFFIFunctionSetGlobal(&shared, fh, 1) != 0) errors.fetch_add(1);
          TVMFFIObjectHandle got = nullptr;
          if (TVMFFIFunctionGetGlobal(&own_name, &got) != 0 || got != fh) errors.fetch_add(1);
          TVMFFIObjectDecRef(got);
          got = nullptr;
          if (TVMFFIFunctionGetGlobal(&shared, &got) != 0) errors.fetch_add(1);
          if (got != nullptr) {
            TVMFFIAny arg = Int(r);
            TVMFFIAny result = None();
            if (TVMFFIFunctionCall(got, &arg, 1, &result) != 0 || result.v_int64 != r) {
              errors.fetch_add(1);
            }
            TVMFFIObjectDecRef(got);
          }
          if ((r % 7) == 0 && TVMFFIFunctionRemoveGlobal(&shared) != 0) errors.fetch_add(1);
          if (TVMFFIFunctionRemoveGlobal(&own_name) != 0) errors.fetch_add(1);
          if (r % 50 == 0) {
            TVMFFIFunctionListGlobalNames([](void*, const TVMFFIByteArray*) { return 0; }, nullptr);
          }
        }
      });
    }
    for (auto& th : threads) th.join();
    TVMFFIByteArray shared = BA("test.runtime.concurrent.shared");
    REQUIRE(TVMFFIFunctionRemoveGlobal(&shared) == 0);
    REQUIRE(StrongCount(fh) == 1);
  }
  REQUIRE(errors.load() == 0);
  REQUIRE(c.deleted == 1);
}

// ---------------------------------------------------------------------------
// AnyView -> Any
// ---------------------------------------------------------------------------

TEST_CASE("AnyViewToOwnedAny: POD values are copied", "[runtime][any]") {
  TVMFFIAny views[8];
  for (auto& v : views) v = None();
  views[1] = Int(-5);
  views[2].type_index = kTVMFFIBool;
  views[2].v_int64 = 1;
  views[3].type_index = kTVMFFIFloat;
  views[3].v_float64 = 1.25;
  views[4].type_index = kTVMFFIOpaquePtr;
  views[4].v_ptr = &views;
  views[5].type_index = kTVMFFIDataType;
  views[5].v_dtype = DLDataType{kDLFloat, 16, 2};
  views[6].type_index = kTVMFFIDevice;
  views[6].v_device = DLDevice{kDLCUDA, 3};
  TVMFFIByteArray small = BA("tiny");
  REQUIRE(TVMFFIStringFromByteArray(&small, &views[7]) == 0);
  for (const TVMFFIAny& v : views) {
    INFO(v.type_index);
    TVMFFIAny out = Int(77);
    REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
    REQUIRE(std::memcmp(&out, &v, sizeof(TVMFFIAny)) == 0);
  }
}

TEST_CASE("AnyViewToOwnedAny: strings and bytes become owned", "[runtime][any]") {
  std::string text = "a raw C string that is long";
  TVMFFIAny v = None();
  v.type_index = kTVMFFIRawStr;
  v.v_c_str = text.c_str();
  TVMFFIAny out = None();
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
  REQUIRE(out.type_index == kTVMFFIStr);
  text.assign(text.size(), '#');
  REQUIRE(AnyText(out) == "a raw C string that is long");
  Release(&out);

  v.v_c_str = "seven77";
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
  REQUIRE(out.type_index == kTVMFFISmallStr);
  REQUIRE(AnyText(out) == "seven77");

  const char raw[] = {'x', '\0', 'y'};
  TVMFFIByteArray arr{raw, 3};
  v.type_index = kTVMFFIByteArrayPtr;
  v.v_ptr = &arr;
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
  REQUIRE(out.type_index == kTVMFFISmallBytes);
  REQUIRE(AnyText(out) == std::string(raw, 3));
  std::string big(100, 'z');
  arr = BA(big);
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
  REQUIRE(out.type_index == kTVMFFIBytes);
  REQUIRE(AnyText(out) == big);
  Release(&out);

  v.type_index = kTVMFFIRawStr;
  v.v_c_str = nullptr;
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == -1);
  REQUIRE(TakeRaised().kind == "ValueError");
}

TEST_CASE("AnyViewToOwnedAny: objects, rvalue refs, DLTensor*", "[runtime][any]") {
  Counter c;
  Handle f = MakeFunction(&c);
  TVMFFIAny v = ObjView(f.get());
  TVMFFIAny out = None();
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
  REQUIRE(out.v_obj == f.get());
  REQUIRE(out.type_index == kTVMFFIFunction);
  REQUIRE(StrongCount(f.get()) == 2);
  Release(&out);
  REQUIRE(StrongCount(f.get()) == 1);

  // An rvalue reference hands over the caller's reference without counting.
  TVMFFIObjectHandle ref = f.release();
  v = None();
  v.type_index = kTVMFFIObjectRValueRef;
  v.v_ptr = &ref;
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == 0);
  REQUIRE(ref == nullptr);
  REQUIRE(out.type_index == kTVMFFIFunction);
  REQUIRE(StrongCount(out.v_obj) == 1);
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == -1);  // already moved; out untouched
  REQUIRE(TakeRaised().kind == "ValueError");
  REQUIRE(out.type_index == kTVMFFIFunction);
  Release(&out);
  REQUIRE(c.deleted == 1);

  DLTensor dl;
  std::memset(&dl, 0, sizeof(dl));
  v = None();
  v.type_index = kTVMFFIDLTensorPtr;
  v.v_ptr = &dl;
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "TypeError");
  REQUIRE(e.message == "Cannot convert a borrowed DLTensor* to an owned value");

  v = None();
  v.type_index = 50;  // a POD index nobody defined
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, &out) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
  REQUIRE(TVMFFIAnyViewToOwnedAny(nullptr, &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIAnyViewToOwnedAny: argument `any_view` is NULL");
  REQUIRE(TVMFFIAnyViewToOwnedAny(&v, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIAnyViewToOwnedAny: argument `out` is NULL");
}

// ---------------------------------------------------------------------------
// One-time handles
// ---------------------------------------------------------------------------

namespace {
std::atomic<int> g_init_calls{0};
std::atomic<int> g_deinit_calls{0};
int g_resource = 0;

int SlowInit(void** out) {
  g_init_calls.fetch_add(1);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  *out = &g_resource;
  return 0;
}

int CountDeinit(void* h) {
  if (h != &g_resource) return -1;
  g_deinit_calls.fetch_add(1);
  return 0;
}
}  // namespace

TEST_CASE("HandleInitOnce runs the initialiser once across threads", "[runtime][init]") {
  g_init_calls = 0;
  g_deinit_calls = 0;
  void* handle = nullptr;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      if (TVMFFIHandleInitOnce(&handle, SlowInit) != 0) bad.fetch_add(1);
      if (__atomic_load_n(&handle, __ATOMIC_ACQUIRE) != &g_resource) bad.fetch_add(1);
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(bad == 0);
  REQUIRE(g_init_calls == 1);

  threads.clear();
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      if (TVMFFIHandleDeinitOnce(&handle, CountDeinit) != 0) bad.fetch_add(1);
    });
  }
  for (auto& th : threads) th.join();
  REQUIRE(bad == 0);
  REQUIRE(g_deinit_calls == 1);
  REQUIRE(handle == nullptr);
}

TEST_CASE("HandleInitOnce: failures and nesting", "[runtime][init]") {
  void* handle = nullptr;
  REQUIRE(TVMFFIHandleInitOnce(&handle, [](void**) -> int {
            TVMFFIErrorSetRaisedFromCStr("RuntimeError", "cannot init");
            return -1;
          }) == -1);
  REQUIRE(handle == nullptr);
  REQUIRE(TakeRaised().message == "cannot init");

  // An initialiser may initialise another handle.
  static void* inner = nullptr;
  inner = nullptr;
  REQUIRE(TVMFFIHandleInitOnce(&handle, [](void** out) -> int {
            int rc = TVMFFIHandleInitOnce(&inner, [](void** o) -> int {
              *o = &g_resource;
              return 0;
            });
            *out = inner;
            return rc;
          }) == 0);
  REQUIRE(handle == &g_resource);
  REQUIRE(inner == &g_resource);

  REQUIRE(TVMFFIHandleDeinitOnce(&handle, [](void*) -> int {
            TVMFFIErrorSetRaisedFromCStr("RuntimeError", "cannot deinit");
            return -1;
          }) == -1);
  REQUIRE(handle == nullptr);  // cleared even though deinit failed (as upstream)
  REQUIRE(TakeRaised().message == "cannot deinit");

  // An init that "succeeds" with NULL is an error, and the handle stays unset.
  REQUIRE(TVMFFIHandleInitOnce(&handle, [](void** out) -> int {
            *out = nullptr;
            return 0;
          }) == -1);
  REQUIRE(handle == nullptr);
  RaisedError null_init = TakeRaised();
  REQUIRE(null_init.kind == "RuntimeError");
  REQUIRE(null_init.message == "init_func must return a non-NULL handle");

  REQUIRE(TVMFFIHandleInitOnce(nullptr, SlowInit) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIHandleInitOnce: argument `handle_addr` is NULL");
  handle = nullptr;
  REQUIRE(TVMFFIHandleInitOnce(&handle, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIHandleInitOnce: argument `init_func` is NULL");
  REQUIRE(TVMFFIHandleDeinitOnce(nullptr, CountDeinit) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIHandleDeinitOnce: argument `handle_addr` is NULL");
  REQUIRE(TVMFFIHandleDeinitOnce(&handle, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIHandleDeinitOnce: argument `deinit_func` is NULL");
}

namespace {
// Calls the global `name` with `args`; returns the rc, the result in *out.
int CallGlobal(const char* name, std::vector<TVMFFIAny> args, TVMFFIAny* out) {
  Handle f;
  TVMFFIByteArray n = BA(name);
  REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
  REQUIRE(f.get() != nullptr);
  *out = None();
  return TVMFFIFunctionCall(f.get(), args.data(), static_cast<int32_t>(args.size()), out);
}

TVMFFIAny CStr(const char* s) {
  TVMFFIAny a = None();
  a.type_index = kTVMFFIRawStr;
  a.v_c_str = s;
  return a;
}
}  // namespace

TEST_CASE("Built-in ffi.FunctionRemoveGlobal and ffi.FunctionListGlobalNamesFunctor",
          "[runtime][function]") {
  Counter c;
  {
    Handle f = MakeFunction(&c);
    TVMFFIByteArray name = BA("test.runtime.listed");
    REQUIRE(TVMFFIFunctionSetGlobal(&name, f.get(), 0) == 0);
  }
  TVMFFIAny functor;
  REQUIRE(CallGlobal("ffi.FunctionListGlobalNamesFunctor", {}, &functor) == 0);
  REQUIRE(functor.type_index == kTVMFFIFunction);
  TVMFFIAny arg = Int(-1);
  TVMFFIAny count = None();
  REQUIRE(TVMFFIFunctionCall(functor.v_obj, &arg, 1, &count) == 0);
  std::vector<std::string> expected = GlobalNames();
  REQUIRE(count.type_index == kTVMFFIInt);
  REQUIRE(count.v_int64 == static_cast<int64_t>(expected.size()));
  std::vector<std::string> listed;
  for (int64_t i = 0; i < count.v_int64; ++i) {
    arg = Int(i);
    TVMFFIAny name = None();
    REQUIRE(TVMFFIFunctionCall(functor.v_obj, &arg, 1, &name) == 0);
    listed.push_back(AnyText(name));
    Release(&name);
  }
  REQUIRE(listed == expected);  // sorted, a snapshot of the registry
  REQUIRE(std::find(listed.begin(), listed.end(), "test.runtime.listed") != listed.end());
  arg = Int(count.v_int64);
  REQUIRE(TVMFFIFunctionCall(functor.v_obj, &arg, 1, &count) == -1);
  REQUIRE(TakeRaised().kind == "IndexError");
  Release(&functor);

  TVMFFIAny removed;
  REQUIRE(CallGlobal("ffi.FunctionRemoveGlobal", {CStr("test.runtime.listed")}, &removed) == 0);
  REQUIRE((removed.type_index == kTVMFFIBool && removed.v_int64 == 1));
  REQUIRE(CallGlobal("ffi.FunctionRemoveGlobal", {CStr("test.runtime.listed")}, &removed) == 0);
  REQUIRE((removed.type_index == kTVMFFIBool && removed.v_int64 == 0));
  REQUIRE(CallGlobal("ffi.FunctionRemoveGlobal", {Int(3)}, &removed) == -1);
  REQUIRE(TakeRaised().message == "ffi.FunctionRemoveGlobal expects one string argument");
  REQUIRE(c.deleted.load() == 1);
}

TEST_CASE("Built-in ffi.FunctionFromExternC wraps a C safe call", "[runtime][function]") {
  auto ptr = [](const void* p) {
    TVMFFIAny a = None();
    a.type_index = kTVMFFIOpaquePtr;
    a.v_ptr = const_cast<void*>(p);
    return a;
  };
  Counter c;
  TVMFFIAny f;
  REQUIRE(CallGlobal("ffi.FunctionFromExternC",
                     {ptr(&c), ptr(reinterpret_cast<void*>(SumArgs)),
                      ptr(reinterpret_cast<void*>(CounterDeleter))},
                     &f) == 0);
  REQUIRE(f.type_index == kTVMFFIFunction);
  TVMFFIAny args[] = {Int(40), Int(2)};
  TVMFFIAny result = None();
  REQUIRE(TVMFFIFunctionCall(f.v_obj, args, 2, &result) == 0);
  REQUIRE(result.v_int64 == 42);
  REQUIRE(c.calls == 1);
  Release(&f);
  REQUIRE(c.deleted == 1);  // the deleter ran with `self`

  // An int address and a None deleter are accepted too.
  Counter c2;
  REQUIRE(CallGlobal("ffi.FunctionFromExternC",
                     {Int(reinterpret_cast<intptr_t>(&c2)),
                      Int(reinterpret_cast<intptr_t>(reinterpret_cast<void*>(SumArgs))), None()},
                     &f) == 0);
  REQUIRE(TVMFFIFunctionCall(f.v_obj, args, 1, &result) == 0);
  REQUIRE(result.v_int64 == 40);
  Release(&f);
  REQUIRE(c2.deleted == 0);

  REQUIRE(CallGlobal("ffi.FunctionFromExternC", {None(), None(), None()}, &f) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "ValueError");
  REQUIRE(e.message == "ffi.FunctionFromExternC: safe_call is NULL");
  REQUIRE(CallGlobal("ffi.FunctionFromExternC", {None(), CStr("x"), None()}, &f) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
  REQUIRE(CallGlobal("ffi.FunctionFromExternC", {None()}, &f) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
}

TEST_CASE("Built-in ffi.LoadFailures and ffi.RecordLoadFailure", "[runtime][function]") {
  // Every built-in registered when the runtime loaded.
  TVMFFIAny failures;
  REQUIRE(CallGlobal("ffi.LoadFailures", {}, &failures) == 0);
  REQUIRE(AnyText(failures).empty());
  TVMFFIAny none;
  REQUIRE(CallGlobal("ffi.RecordLoadFailure", {CStr("test: something failed")}, &none) == 0);
  REQUIRE(none.type_index == kTVMFFINone);
  REQUIRE(CallGlobal("ffi.LoadFailures", {}, &failures) == 0);
  REQUIRE(AnyText(failures) == "test: something failed\n");
  Release(&failures);
  REQUIRE(CallGlobal("ffi.RecordLoadFailure", {}, &none) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
}

// ---------------------------------------------------------------------------
// Every built-in global against bad call arguments (RELIABILITY.md, defects 3-5)
// ---------------------------------------------------------------------------

namespace {

// Calls f through TVMFFIFunctionCall (direct = false) or straight into its cell.
int CallBuiltin(TVMFFIObjectHandle f, bool direct, TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  if (direct) return TVMFFIFunctionGetCellPtr(f)->safe_call(f, args, n, result);
  return TVMFFIFunctionCall(f, args, n, result);
}

TVMFFIAny MakeWith(const char* ctor, std::vector<TVMFFIAny> args) {
  TVMFFIByteArray n = BA(ctor);
  Handle f;
  REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
  TVMFFIAny out = None();
  REQUIRE(TVMFFIFunctionCall(f.get(), args.data(), static_cast<int32_t>(args.size()), &out) == 0);
  return out;
}

}  // namespace

TEST_CASE("Built-in globals refuse NULL result, NULL args and negative counts",
          "[runtime][function][regression]") {
  int checked = 0;
  for (const std::string& name : GlobalNames()) {
    if (name.compare(0, 4, "ffi.") != 0) continue;
    TVMFFIByteArray n = BA(name);
    Handle f;
    REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
    for (bool direct : {false, true}) {
      CAPTURE(name, direct);
      TVMFFIAny arg = Int(0);
      TVMFFIAny result = None();
      // NULL result (defect 4).
      REQUIRE(CallBuiltin(f.get(), direct, &arg, 1, nullptr) == -1);
      RaisedError e = TakeRaised();
      REQUIRE(e.kind == "ValueError");
      REQUIRE(e.message.find("`result` is NULL") != std::string::npos);
      // NULL args with a count (defect 5).
      REQUIRE(CallBuiltin(f.get(), direct, nullptr, 1, &result) == -1);
      e = TakeRaised();
      REQUIRE(e.kind == "ValueError");
      REQUIRE(e.message.find("`args` is NULL") != std::string::npos);
      // A negative count.
      REQUIRE(CallBuiltin(f.get(), direct, &arg, -1, &result) == -1);
      e = TakeRaised();
      REQUIRE(e.kind == "ValueError");
      REQUIRE(e.message.find("`num_args` is negative") != std::string::npos);
      ++checked;
    }
  }
  REQUIRE(checked >= 2 * 30);  // the runtime registers over 30 ffi.* globals
}

TEST_CASE("Built-in globals refuse invalid string views instead of reading them",
          "[runtime][function][regression]") {
  TVMFFIByteArray null_data{nullptr, 100};  // defect 3: NULL data with a size
  std::vector<TVMFFIAny> bad(3, None());
  bad[0].type_index = kTVMFFIByteArrayPtr;
  bad[0].v_ptr = &null_data;
  bad[1].type_index = kTVMFFIByteArrayPtr;  // a NULL TVMFFIByteArray*
  bad[2].type_index = kTVMFFIRawStr;        // a NULL const char*
  TVMFFIAny text = MakeWith("ffi.String", {[] {
                              TVMFFIAny a = None();
                              a.type_index = kTVMFFIRawStr;
                              a.v_c_str = "a string longer than seven bytes";
                              return a;
                            }()});
  TVMFFIAny arr = MakeWith("ffi.Array", {text});
  TVMFFIAny map = MakeWith("ffi.Map", {text, Int(1)});
  int errors = 0;
  for (const std::string& name : GlobalNames()) {
    if (name.compare(0, 4, "ffi.") != 0) continue;
    TVMFFIByteArray n = BA(name);
    Handle f;
    REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
    for (size_t b = 0; b < bad.size(); ++b) {
      for (std::vector<TVMFFIAny> args : std::vector<std::vector<TVMFFIAny>>{
               {bad[b]}, {bad[b], bad[b]}, {arr, bad[b]}, {map, bad[b]}, {bad[b], text}}) {
        CAPTURE(name, b, args.size());
        TVMFFIAny result = None();
        int rc =
            TVMFFIFunctionCall(f.get(), args.data(), static_cast<int32_t>(args.size()), &result);
        if (rc == 0) {
          Release(&result);
          continue;
        }
        RaisedError e = TakeRaised();
        REQUIRE((e.kind == "ValueError" || e.kind == "TypeError" || e.kind == "KeyError" ||
                 e.kind == "IndexError" || e.kind == "AttributeError"));
        ++errors;
      }
    }
  }
  // ffi.String / ffi.Bytes name the problem.
  for (const char* name : {"ffi.String", "ffi.Bytes"}) {
    TVMFFIByteArray n = BA(name);
    Handle f;
    REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
    TVMFFIAny result = None();
    REQUIRE(TVMFFIFunctionCall(f.get(), &bad[0], 1, &result) == -1);
    RaisedError e = TakeRaised();
    CAPTURE(name, e.message);
    REQUIRE(e.kind == "ValueError");
    REQUIRE(e.message.find("NULL data with size 100") != std::string::npos);
    REQUIRE(e.message.find("argument 0") != std::string::npos);
  }
  Release(&text);
  Release(&arr);
  Release(&map);
  REQUIRE(errors > 0);
}

TEST_CASE("Objects are checked by their real type, not only by the tag",
          "[runtime][function][regression]") {
  // A String object wearing a Function (or Module, Error) tag (defect 9).
  TVMFFIAny str = MakeWith("ffi.String", {[] {
                             TVMFFIAny a = None();
                             a.type_index = kTVMFFIRawStr;
                             a.v_c_str = "not a function, just a string";
                             return a;
                           }()});
  REQUIRE(str.type_index == kTVMFFIStr);
  TVMFFIAny liar = str;
  liar.type_index = kTVMFFIFunction;
  const uint32_t refs = StrongCount(str.v_obj);

  SECTION("TVMFFIFunctionSetGlobalFromMethodInfo") {
    TVMFFIMethodInfo info{};
    info.name = BA("tvmffi.test.liar");
    info.method = liar;
    REQUIRE(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 1) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
    REQUIRE(e.message.find("method_info->method") != std::string::npos);
    REQUIRE(e.message.find("ffi.String") != std::string::npos);
  }
  SECTION("TVMFFITypeRegisterMethod") {
    TVMFFIMethodInfo info{};
    info.name = BA("liar");
    info.method = liar;
    REQUIRE(TVMFFITypeRegisterMethod(kTVMFFIStr, &info) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
    REQUIRE(e.message.find("ffi.String") != std::string::npos);
  }
  SECTION("TVMFFIAnyViewToOwnedAny") {
    TVMFFIAny out = None();
    REQUIRE(TVMFFIAnyViewToOwnedAny(&liar, &out) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
    REQUIRE(e.message.find("ffi.Function") != std::string::npos);
    REQUIRE(e.message.find("ffi.String") != std::string::npos);
  }
  SECTION("the cause of TVMFFIErrorCreateWithCauseAndExtraContext") {
    TVMFFIByteArray kind = BA("ValueError"), msg = BA("m");
    TVMFFIObjectHandle err = nullptr;
    REQUIRE(TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, nullptr, str.v_obj, nullptr,
                                                      &err) == -1);
    REQUIRE(err == nullptr);
  }
  SECTION("module globals") {
    TVMFFIAny mod = liar;
    mod.type_index = kTVMFFIModule;
    TVMFFIByteArray n = BA("ffi.ModuleGetKind");
    Handle f;
    REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
    TVMFFIAny result = None();
    REQUIRE(TVMFFIFunctionCall(f.get(), &mod, 1, &result) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
    REQUIRE(e.message.find("Expected `ffi.Module` but got `str (tagged ffi.Module)`") !=
            std::string::npos);
    TVMFFIAny fn = liar;
    n = BA("ffi.ModuleVisitContextSymbols");
    Handle visit;
    REQUIRE(TVMFFIFunctionGetGlobal(&n, visit.out()) == 0);
    REQUIRE(TVMFFIFunctionCall(visit.get(), &fn, 1, &result) == -1);
    e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
  }
  REQUIRE(StrongCount(str.v_obj) == refs);
  Release(&str);
}

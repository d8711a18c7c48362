// Concurrency stress test, written for ThreadSanitizer (TVMFFI_SANITIZE_THREAD)
// but run in every build: several threads at once create, call, register and
// look up global functions, raise and read errors, set and get streams and
// allocators, share objects (and weak references) across threads, register
// types and error kinds, and load one module.
//
// Catch2 assertions are not thread-safe, so worker threads record failures
// in a Failures sink and the main thread checks it.
//
// Env: TVMFFI_STRESS_THREADS (default 4), TVMFFI_STRESS_ITERS (default 2000).
// Each scenario prints "stress: <name>: T threads x N iterations, W ms".
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime_test_util.h"

namespace {

using namespace rt_test;
namespace ffi = tvm::ffi;

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  int n = std::atoi(v);
  return n > 0 ? n : fallback;
}

int Threads() {
  return EnvInt("TVMFFI_STRESS_THREADS", 4);
}
int Iters() {
  return EnvInt("TVMFFI_STRESS_ITERS", 2000);
}

// Failures seen by worker threads; the first message is kept.
class Failures {
 public:
  void Add(const std::string& what) {
    if (count_.fetch_add(1) == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      first_ = what;
    }
  }
  int count() const { return count_.load(); }
  std::string first() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_;
  }

 private:
  std::atomic<int> count_{0};
  std::mutex mu_;
  std::string first_;
};

#define STRESS_CHECK(sink, cond)                                                                \
  do {                                                                                          \
    if (!(cond)) (sink).Add(std::string(__FILE__ ":") + std::to_string(__LINE__) + ": " #cond); \
  } while (0)

using Scenario = std::function<void(int tid, int iters, Failures& f)>;

// Runs `body` on `threads` threads released together; prints the figures and
// checks that no thread recorded a failure or threw.
void RunStress(const char* name, int threads, const Scenario& body) {
  const int iters = Iters();
  Failures f;
  std::atomic<int> ready{0};
  std::vector<std::thread> pool;
  auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      try {
        body(t, iters, f);
      } catch (const std::exception& e) {
        f.Add(std::string("exception: ") + e.what());
      }
    });
  }
  for (auto& th : pool) th.join();
  double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("stress: %s: %d threads x %d iterations, %.0f ms\n", name, threads, iters, ms);
  std::fflush(stdout);
  INFO(f.first());
  REQUIRE(f.count() == 0);
}

// ---------------------------------------------------------------------------
// Scenarios
// ---------------------------------------------------------------------------

// A C function whose context is its thread id: returns args[0] + tid.
int AddTid(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (num_args != 1 || args[0].type_index != kTVMFFIInt) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "AddTid: expects one int");
    return -1;
  }
  *result = Int(args[0].v_int64 + static_cast<int64_t>(reinterpret_cast<intptr_t>(self)));
  return 0;
}

// Raises a ValueError whose message carries its argument.
int RaiseArg(void*, const TVMFFIAny* args, int32_t, TVMFFIAny*) {
  std::string msg = "raised " + std::to_string(args[0].v_int64);
  TVMFFIErrorSetRaisedFromCStr("ValueError", msg.c_str());
  return -1;
}

TVMFFIObjectHandle MakeFunction(intptr_t ctx, TVMFFISafeCallType fn) {
  TVMFFIObjectHandle out = nullptr;
  if (TVMFFIFunctionCreate(reinterpret_cast<void*>(ctx), fn, nullptr, &out) != 0) return nullptr;
  return out;
}

// Calls f(x); returns the int result, or INT64_MIN on error (the error is taken).
int64_t CallInt(TVMFFIObjectHandle f, int64_t x) {
  TVMFFIAny arg = Int(x);
  TVMFFIAny res = None();
  if (TVMFFIFunctionCall(f, &arg, 1, &res) != 0) {
    TakeRaised();
    return INT64_MIN;
  }
  int64_t v = res.type_index == kTVMFFIInt ? res.v_int64 : INT64_MIN;
  Release(&res);
  return v;
}

void Globals(int tid, int iters, Failures& f) {
  const std::string own_s = "stress.global.t" + std::to_string(tid);
  const std::string shared_s = "stress.global.shared";
  const TVMFFIByteArray own = BA(own_s), shared = BA(shared_s);
  const int nthreads = Threads();
  for (int i = 0; i < iters; ++i) {
    Handle fn(MakeFunction(tid, AddTid));
    STRESS_CHECK(f, fn.get() != nullptr);
    STRESS_CHECK(f, TVMFFIFunctionSetGlobal(&own, fn.get(), 1) == 0);
    STRESS_CHECK(f, TVMFFIFunctionSetGlobal(&shared, fn.get(), 1) == 0);

    Handle mine;
    STRESS_CHECK(f, TVMFFIFunctionGetGlobal(&own, mine.out()) == 0);
    STRESS_CHECK(f, mine.get() != nullptr && CallInt(mine.get(), i) == i + tid);

    // Whoever registered last: some thread's function.
    Handle any;
    STRESS_CHECK(f, TVMFFIFunctionGetGlobal(&shared, any.out()) == 0);
    if (any.get() != nullptr) {
      int64_t r = CallInt(any.get(), i) - i;
      STRESS_CHECK(f, r >= 0 && r < nthreads);
    }
    if (i % 16 == 0) {
      int seen = 0;
      auto visit = [](void* ctx, const TVMFFIByteArray*) -> int {
        ++*static_cast<int*>(ctx);
        return 0;
      };
      STRESS_CHECK(f, TVMFFIFunctionListGlobalNames(visit, &seen) == 0);
      STRESS_CHECK(f, seen > 0);
      STRESS_CHECK(f, TVMFFIFunctionRemoveGlobal(&own) == 0);
      Handle gone;
      STRESS_CHECK(f, TVMFFIFunctionGetGlobal(&own, gone.out()) == 0);
      STRESS_CHECK(f, gone.get() == nullptr);
    }
  }
  TVMFFIFunctionRemoveGlobal(&own);
}

void Errors(int tid, int iters, Failures& f) {
  Handle raiser(MakeFunction(0, RaiseArg));
  STRESS_CHECK(f, raiser.get() != nullptr);
  for (int i = 0; i < iters; ++i) {
    int64_t token = static_cast<int64_t>(tid) * 1000000 + i;
    TVMFFIAny arg = Int(token);
    TVMFFIAny res = None();
    STRESS_CHECK(f, TVMFFIFunctionCall(raiser.get(), &arg, 1, &res) == -1);
    RaisedError e = TakeRaised();
    STRESS_CHECK(f, e.present && e.kind == "ValueError");
    STRESS_CHECK(f, e.message == "raised " + std::to_string(token));

    // Set directly, replaced, then read: only this thread's last one.
    std::string first = "first " + std::to_string(token);
    std::string second = "second " + std::to_string(token);
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", first.c_str());
    TVMFFIErrorSetRaisedFromCStr("KeyError", second.c_str());
    e = TakeRaised();
    STRESS_CHECK(f, e.kind == "KeyError" && e.message == second);
    STRESS_CHECK(f, !TakeRaised().present);

    // Error kinds registered concurrently get one code each.
    std::string kind = "StressError" + std::to_string(i % 8);
    const TVMFFIByteArray kind_ba = BA(kind);
    int32_t code = -1;
    STRESS_CHECK(f, TVMFFIErrorKindRegister(&kind_ba, &code) == 0);
    STRESS_CHECK(f, code >= kTVMFFIErrorKindCustomBegin);
    STRESS_CHECK(f, TVMFFIErrorKindLookup(&kind_ba) == code);
  }
}

int AllocA(DLTensor*, DLManagedTensorVersioned**, void*,
           void (*)(void*, const char*, const char*)) {
  return -1;
}
int AllocB(DLTensor*, DLManagedTensorVersioned**, void*,
           void (*)(void*, const char*, const char*)) {
  return -1;
}

void StreamsAndAllocators(int tid, int iters, Failures& f) {
  TVMFFIStreamHandle prev[4] = {nullptr, nullptr, nullptr, nullptr};
  DLPackManagedTensorAllocator mine = tid % 2 == 0 ? AllocA : AllocB;
  for (int i = 0; i < iters; ++i) {
    int dev = i % 4;
    auto* stream = reinterpret_cast<TVMFFIStreamHandle>(static_cast<uintptr_t>(tid + 1) << 20 | i);
    TVMFFIStreamHandle orig = reinterpret_cast<TVMFFIStreamHandle>(1);
    STRESS_CHECK(f, TVMFFIEnvSetStream(kDLCUDA, dev, stream, &orig) == 0);
    STRESS_CHECK(f, orig == prev[dev]);  // never another thread's
    STRESS_CHECK(f, TVMFFIEnvGetStream(kDLCUDA, dev) == stream);
    prev[dev] = stream;

    DLPackManagedTensorAllocator before = nullptr;
    STRESS_CHECK(f, TVMFFIEnvSetDLPackManagedTensorAllocator(mine, 0, &before) == 0);
    STRESS_CHECK(f, before == nullptr || before == mine);
    STRESS_CHECK(f, TVMFFIEnvGetDLPackManagedTensorAllocator() == mine);
    if (i % 2 == 1) {
      STRESS_CHECK(f, TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, nullptr) == 0);
    }
  }
  for (int dev = 0; dev < 4; ++dev) TVMFFIEnvSetStream(kDLCUDA, dev, nullptr, nullptr);
  TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, nullptr);
}

std::atomic<int64_t> g_live_stress_objects{0};

class StressObj : public ffi::Object {
 public:
  explicit StressObj(int64_t v) : value(v), check(~v) { g_live_stress_objects.fetch_add(1); }
  ~StressObj() { g_live_stress_objects.fetch_sub(1); }
  int64_t value;
  int64_t check;  // ~value while alive: a reader of freed memory would see a mismatch
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.stress.Obj", StressObj, ffi::Object);
};

// Slots shared by every thread of the Objects scenario. The mutex guards the
// slots only: counts are taken and dropped outside it.
struct SharedSlots {
  static constexpr int kSlots = 8;
  std::mutex mu;
  ffi::ObjectPtr<StressObj> strong[kSlots];
  ffi::WeakObjectPtr<StressObj> weak[kSlots];
};

SharedSlots& Slots() {
  static SharedSlots* s = new SharedSlots();  // outlives the scenario's threads
  return *s;
}

void Objects(int tid, int iters, Failures& f) {
  SharedSlots& s = Slots();
  for (int i = 0; i < iters; ++i) {
    int k = (tid * 7 + i) % SharedSlots::kSlots;
    ffi::ObjectPtr<StressObj> fresh = ffi::make_object<StressObj>(tid * 1000000 + i);
    ffi::ObjectPtr<StressObj> taken;
    ffi::WeakObjectPtr<StressObj> weak;
    {
      std::lock_guard<std::mutex> lock(s.mu);
      taken = s.strong[k];  // a copy: one more strong reference
      weak = s.weak[(k + 1) % SharedSlots::kSlots];
      if (i % 3 == 0) s.strong[k] = fresh;  // the old one may now die outside
      s.weak[k] = fresh;
    }
    if (taken != nullptr) STRESS_CHECK(f, taken->check == ~taken->value);
    // The weak slot's object may be dying in another thread right now.
    if (ffi::ObjectPtr<StressObj> locked = weak.lock()) {
      STRESS_CHECK(f, locked->check == ~locked->value);
      ffi::ObjectPtr<StressObj> copy = locked;
      STRESS_CHECK(f, copy.use_count() >= 2);
    }
    // The same object through the C ABI on several references.
    TVMFFIObjectHandle h = ffi::detail::ObjectUnsafe::GetHeader(fresh.get());
    STRESS_CHECK(f, TVMFFIObjectIncRef(h) == 0);
    STRESS_CHECK(f, TVMFFIObjectDecRef(h) == 0);
    // A String created here, dropped in whatever thread replaces it.
    ffi::String text(std::string(40, static_cast<char>('a' + tid % 26)));
    STRESS_CHECK(f, text.size() == 40);
  }
}

void Types(int tid, int iters, Failures& f) {
  (void)tid;
  for (int i = 0; i < iters; ++i) {
    std::string key = "test.stress.Type" + std::to_string(i % 64);
    TVMFFIByteArray k = BA(key);
    int32_t idx = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 0, kTVMFFIObject);
    STRESS_CHECK(f, idx >= kTVMFFIDynObjectBegin);
    int32_t again = -1;
    STRESS_CHECK(f, TVMFFITypeKeyToIndex(&k, &again) == 0 && again == idx);
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(idx);
    STRESS_CHECK(f, info != nullptr && Str(info->type_key) == key);
    STRESS_CHECK(f, info != nullptr && info->type_depth == 1);
  }
}

#ifdef TVMFFI_TEST_LIB_A
void Modules(int tid, int iters, Failures& f) {
  (void)tid;
  // dlopen is slow and serialised by the loader: a tenth of the iterations.
  int loads = iters / 10 > 0 ? iters / 10 : 1;
  for (int i = 0; i < loads; ++i) {
    ffi::Module m = ffi::Module::LoadFromFile(TVMFFI_TEST_LIB_A);
    ffi::Function add = m->GetFunctionRequired("add_int");
    STRESS_CHECK(f, add(i, 1).cast<int64_t>() == i + 1);
    STRESS_CHECK(f, m->GetFunctionRequired("whoami")().cast<ffi::String>() == "lib_a");
  }
}
#endif

}  // namespace

// ---------------------------------------------------------------------------
// Test cases: each scenario alone, then all of them at once.
// ---------------------------------------------------------------------------

TEST_CASE("Stress: global functions", "[stress]") {
  RunStress("globals", Threads(), Globals);
}

TEST_CASE("Stress: raised errors and error kinds", "[stress]") {
  RunStress("errors", Threads(), Errors);
}

TEST_CASE("Stress: per-thread streams and allocators", "[stress]") {
  RunStress("streams+allocators", Threads(), StreamsAndAllocators);
}

TEST_CASE("Stress: objects and weak references shared across threads", "[stress]") {
  RunStress("objects", Threads(), Objects);
  {
    SharedSlots& s = Slots();
    std::lock_guard<std::mutex> lock(s.mu);
    for (auto& p : s.strong) p.reset();
    for (auto& w : s.weak) w.reset();
  }
  REQUIRE(g_live_stress_objects.load() == 0);
}

TEST_CASE("Stress: type registration", "[stress]") {
  RunStress("types", Threads(), Types);
}

#ifdef TVMFFI_TEST_LIB_A
TEST_CASE("Stress: module loading", "[stress]") {
  RunStress("modules", Threads(), Modules);
}
#endif

TEST_CASE("Stress: every scenario at once", "[stress]") {
  std::vector<Scenario> all = {Globals, Errors, StreamsAndAllocators, Objects, Types};
#ifdef TVMFFI_TEST_LIB_A
  all.push_back(Modules);
#endif
  const int per = Threads() / 2 > 0 ? Threads() / 2 : 1;
  const int threads = per * static_cast<int>(all.size());
  RunStress("mixed", threads, [&](int tid, int iters, Failures& f) {
    all[static_cast<size_t>(tid) % all.size()](tid / static_cast<int>(all.size()), iters, f);
  });
  {
    SharedSlots& s = Slots();
    std::lock_guard<std::mutex> lock(s.mu);
    for (auto& p : s.strong) p.reset();
    for (auto& w : s.weak) w.reset();
  }
  REQUIRE(g_live_stress_objects.load() == 0);
}

// Issue #14, item 8: TVMFFITypeRegisterAttr grows a column while readers of
// TVMFFIGetTypeAttrColumn read it without a lock. Readers load `size`, then
// `data`, with acquire loads, as c_api.h says; they see a consistent buffer.
TEST_CASE("Stress: type attributes registered while others read the column", "[stress]") {
  static std::atomic<int> round{0};
  const std::string attr = "test.stress.attr" + std::to_string(round.fetch_add(1));
  const int writers = 1;
  RunStress("type-attrs", Threads(), [&](int tid, int iters, Failures& f) {
    TVMFFIByteArray name = BA(attr);
    if (tid < writers) {
      // New types, each given the attribute: the column grows.
      for (int i = 0; i < iters; ++i) {
        std::string key =
            "test.stress.AttrType" + std::to_string(round.load()) + "." + std::to_string(i);
        TVMFFIByteArray k = BA(key);
        int32_t idx = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 0, kTVMFFIObject);
        TVMFFIAny v = Int(idx);
        STRESS_CHECK(f, TVMFFITypeRegisterAttr(idx, &name, &v) == 0);
      }
    } else {
      for (int i = 0; i < iters * 4; ++i) {
        const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&name);
        if (col == nullptr) continue;
        const int32_t size = __atomic_load_n(&col->size, __ATOMIC_ACQUIRE);
        const TVMFFIAny* data = __atomic_load_n(&col->data, __ATOMIC_ACQUIRE);
        for (int32_t j = 0; j < size; ++j) {
          if (data[j].type_index == kTVMFFIInt) {
            STRESS_CHECK(f, data[j].v_int64 == static_cast<int64_t>(j));
          }
        }
      }
    }
  });
}

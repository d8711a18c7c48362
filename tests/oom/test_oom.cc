// Out-of-memory injection (issue #14, item 3; tests/RELIABILITY.md). Built
// only with -DTVMFFI_FAULT_INJECTION=ON. Every scenario runs with the N-th
// allocation inside libtvmffi failing, for N = 1, 2, ... until a run reaches
// no armed allocation, once with only that allocation failing ("one-shot")
// and once with every later one failing too ("sticky"). Each run must end in
// full success or a clean MemoryError (-1 plus a raised MemoryError from C,
// tvm::ffi::Error of kind MemoryError from C++), with the state unchanged:
// reference counts, registry contents, deleter counts. ASan (CI) checks that
// nothing leaks and nothing is touched after free. Some scenarios run each
// attempt on a new thread (fresh thread-local tables); the "whole process"
// ones count every operator new of the process instead, header-only C++ code
// of this binary included (which reports failure as std::bad_alloc); the
// loading scenario starts a child process per attempt (tests/oom/load_probe.cc).
#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <string>
#include <vector>

#include "fault_countdown.h"
#include "fault_injection.h"
#include "runtime_test_util.h"

namespace {

using namespace rt_test;
namespace ffi = tvm::ffi;

// Long enough never to take the small-string form.
constexpr const char* kLong = "a string long enough to need an object of its own";

// --------------------------------------------------------------------------
// This binary's own allocations (the header-only C++ layer: make_object,
// List/Dict storage, Strings). A countdown of this binary, armed only by the
// whole-process scenarios; then the runtime's operator new, which forwards
// here, is counted too.
// --------------------------------------------------------------------------

using ExeFault = tvmffi_oom::FaultCountdown;
thread_local ExeFault tl_exe{0, 0, false, false};

bool ExeFails() noexcept {
  return tl_exe.Fails("test_oom");
}

int64_t ExeFaultSet(int64_t nth, bool sticky) {
  int64_t injected = tl_exe.injected;
  tl_exe = ExeFault{nth, 0, sticky, false};
  return injected;
}

}  // namespace

// The process's real operators come after this binary (the sanitizer's or libstdc++'s).
namespace {
using PlainNew = void* (*)(std::size_t);
using AlignedNew = void* (*)(std::size_t, std::align_val_t);
void* NextOperator(const char* mangled) {
  void* p = dlsym(RTLD_NEXT, mangled);
  if (p == nullptr) std::abort();
  return p;
}
}  // namespace

void* operator new(std::size_t n) {
  static const auto real = reinterpret_cast<PlainNew>(NextOperator("_Znwm"));
  if (ExeFails()) throw std::bad_alloc();
  return real(n);
}
void* operator new[](std::size_t n) {
  static const auto real = reinterpret_cast<PlainNew>(NextOperator("_Znam"));
  if (ExeFails()) throw std::bad_alloc();
  return real(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  static const auto real = reinterpret_cast<AlignedNew>(NextOperator("_ZnwmSt11align_val_t"));
  if (ExeFails()) throw std::bad_alloc();
  return real(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  static const auto real = reinterpret_cast<AlignedNew>(NextOperator("_ZnamSt11align_val_t"));
  if (ExeFails()) throw std::bad_alloc();
  return real(n, a);
}

namespace {

// --------------------------------------------------------------------------
// The driver
// --------------------------------------------------------------------------

// Which allocations a scenario's N counts, and where it runs.
enum class Mode {
  kRuntime,       // the runtime's own allocations, on this thread
  kRuntimeFresh,  // the same, each run on a new thread (fresh thread-local tables)
  kWholeProcess,  // every operator new of the process, on this thread; header-only
                  // C++ code reports a failure as std::bad_alloc
};

struct Outcome {
  int64_t injected = 0;  // allocations that failed during the run
  bool failed = false;   // the scenario reported a failure
  std::string kind;      // ... of this kind
  std::string message;
};

// One run of `act` with the nth allocation failing. act returns 0, or -1
// after a C call failed (its error is then in the raised slot), or throws.
template <typename Act>
Outcome RunArmed(int64_t nth, bool sticky, Mode mode, Act& act) {
  const bool whole = mode == Mode::kWholeProcess;
  auto disarm = [&] { return whole ? ExeFaultSet(0, false) : TVMFFIFaultInjectionSet(0, 0); };
  Outcome out;
  int rc = 0;
  if (whole) {
    ExeFaultSet(nth, sticky);
  } else {
    TVMFFIFaultInjectionSet(nth, sticky ? 1 : 0);
  }
  try {
    rc = act();
    out.injected = disarm();
  } catch (const ffi::Error& e) {
    out.injected = disarm();
    out.failed = true;
    out.kind = e.kind();
    out.message = e.message();
    return out;
  } catch (const std::bad_alloc&) {
    out.injected = disarm();
    out.failed = true;
    out.kind = "std::bad_alloc";
    return out;
  } catch (const std::exception& e) {
    out.injected = disarm();
    out.failed = true;
    out.kind = std::string("C++ exception: ") + e.what();
    return out;
  }
  if (rc != 0) {
    out.failed = true;
    RaisedError e = TakeRaised();
    out.kind = e.present ? e.kind : "<rc " + std::to_string(rc) + ", nothing raised>";
    out.message = e.message;
  }
  return out;
}

// Runs the scenario for N = 1, 2, ... (one-shot, then sticky) until no armed
// allocation is reached. check(failed) runs after each run, disarmed, and
// asserts the state. Returns the number of runs with an injected failure.
template <typename Act, typename Check>
int64_t Survive(const char* name, Act act, Check check, Mode mode = Mode::kRuntime) {
  int64_t survived[2] = {0, 0};
  int64_t clean_errors = 0;
  for (int sticky = 0; sticky < 2; ++sticky) {
    for (int64_t n = 1;; ++n) {
      Outcome o;
      if (mode == Mode::kRuntimeFresh) {
        OnNewThread([&] { o = RunArmed(n, sticky != 0, mode, act); });
      } else {
        o = RunArmed(n, sticky != 0, mode, act);
      }
      INFO(name << ": allocation " << n << (sticky ? " (sticky)" : " (one-shot)") << " failed "
                << o.injected << " time(s); outcome: "
                << (o.failed ? o.kind + ": " + o.message : std::string("success")));
      if (o.failed) {
        if (mode == Mode::kWholeProcess && o.kind == "std::bad_alloc") {
          // Thrown by header-only code in this binary, as C++ does.
        } else {
          CHECK(o.kind == "MemoryError");
        }
        ++clean_errors;
      }
      check(o.failed);
      // A run that reached no armed allocation is the complete scenario.
      if (o.injected == 0) {
        REQUIRE_FALSE(o.failed);
        break;
      }
      ++survived[sticky];
      REQUIRE(n < 100000);
    }
  }
  std::printf(
      "oom: %-52s %5lld injected failures survived (%lld one-shot, %lld sticky), %lld failed "
      "cleanly\n",
      name, static_cast<long long>(survived[0] + survived[1]), static_cast<long long>(survived[0]),
      static_cast<long long>(survived[1]), static_cast<long long>(clean_errors));
  std::fflush(stdout);
  CHECK(survived[0] > 0);  // the scenario does allocate inside libtvmffi
  return survived[0] + survived[1];
}

// Names in the global registry.
std::set<std::string> GlobalNames() {
  std::set<std::string> names;
  REQUIRE(TVMFFIFunctionListGlobalNames(
              [](void* ctx, const TVMFFIByteArray* name) {
                static_cast<std::set<std::string>*>(ctx)->insert(Str(*name));
                return 0;
              },
              &names) == 0);
  return names;
}

// A global function of the runtime (REQUIREd to exist).
Handle Global(const char* name) {
  Handle f;
  TVMFFIByteArray n = BA(name);
  REQUIRE(TVMFFIFunctionGetGlobal(&n, f.out()) == 0);
  REQUIRE(f.get() != nullptr);
  return f;
}

// Calls f(args...) into *result (None first); 0 or -1.
int Call(TVMFFIObjectHandle f, std::vector<TVMFFIAny> args, TVMFFIAny* result) {
  *result = None();
  return TVMFFIFunctionCall(f, args.data(), static_cast<int32_t>(args.size()), result);
}

// Owns a TVMFFIAny.
struct OwnedAny {
  TVMFFIAny v = None();
  ~OwnedAny() { Release(&v); }
};

// --------------------------------------------------------------------------
// C functions
// --------------------------------------------------------------------------

int g_fn_deleted = 0;

int AddCall(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  if (num_args != 2) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add: two arguments");
    return -1;
  }
  *result = Int(args[0].v_int64 + args[1].v_int64);
  return 0;
}

int RaiseValueError(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) {
  TVMFFIErrorSetRaisedFromCStr("ValueError", "raised on purpose by the callee");
  return -1;
}

TEST_CASE("OOM: C functions are created, called and released", "[oom]") {
  bool created = false;
  Survive(
      "C function: create, call, convert, release",
      [&] {
        created = false;
        Handle f;
        if (TVMFFIFunctionCreate(
                &g_fn_deleted, AddCall, [](void*) { ++g_fn_deleted; }, f.out()) != 0) {
          return -1;
        }
        created = true;
        OwnedAny r;
        if (Call(f.get(), {Int(40), Int(2)}, &r.v) != 0) return -1;
        REQUIRE(r.v.v_int64 == 42);
        // A borrowed C string becomes an owned String object.
        TVMFFIAny view = None();
        view.type_index = kTVMFFIRawStr;
        view.v_c_str = kLong;
        OwnedAny s;
        if (TVMFFIAnyViewToOwnedAny(&view, &s.v) != 0) return -1;
        REQUIRE(AnyText(s.v) == kLong);
        return 0;
      },
      [&](bool) {
        // The Function owns `self` only once it exists: its deleter ran exactly
        // once then, never when the creation failed (the caller keeps it).
        CHECK(g_fn_deleted == (created ? 1 : 0));
        g_fn_deleted = 0;
      });
}

TEST_CASE("OOM: typed C++ functions of the runtime", "[oom]") {
  ffi::Function keep = ffi::Function::FromTyped([](int64_t x) { return x; });
  Survive(
      "C++ typed call: ffi.Array, ffi.ArraySize, GetItem",
      [&] {
        ffi::Function make = ffi::Function::GetGlobalRequired("ffi.Array");
        ffi::Function size = ffi::Function::GetGlobalRequired("ffi.ArraySize");
        ffi::Function item = ffi::Function::GetGlobalRequired("ffi.ArrayGetItem");
        ffi::Array<ffi::Any> a = make(1, ffi::String(kLong), keep).cast<ffi::Array<ffi::Any>>();
        // Calls that can throw stay outside REQUIRE (which would catch the throw).
        int64_t n = size(a).cast<int64_t>();
        ffi::String s = item(a, 1).cast<ffi::String>();
        REQUIRE(n == 3);
        REQUIRE(s == kLong);
        return 0;
      },
      [&](bool) { CHECK(keep.use_count() == 1); });
}

// --------------------------------------------------------------------------
// Errors
// --------------------------------------------------------------------------

TEST_CASE("OOM: errors are raised, fetched and chained", "[oom]") {
  Handle raiser;
  REQUIRE(TVMFFIFunctionCreate(nullptr, RaiseValueError, nullptr, raiser.out()) == 0);
  Survive(
      "errors: raise from C, from a callee, fetch",
      [&] {
        // Each raise must leave a ValueError, or a MemoryError when even
        // creating the error failed; this act reports the latter as failure.
        auto expect_value_error = [](const char* needle) {
          RaisedError e = TakeRaised();
          REQUIRE(e.present);
          if (e.kind == "MemoryError") {
            TVMFFIErrorSetRaisedFromCStr("MemoryError", e.message.c_str());
            return -1;
          }
          REQUIRE(e.kind == "ValueError");
          REQUIRE(e.message.find(needle) != std::string::npos);
          return 0;
        };
        TVMFFIErrorSetRaisedFromCStr("ValueError", "first");
        if (expect_value_error("first") != 0) return -1;
        const char* parts[] = {"one ", "two ", kLong};
        TVMFFIErrorSetRaisedFromCStrParts("ValueError", parts, 3);
        if (expect_value_error("two") != 0) return -1;
        OwnedAny r;
        REQUIRE(Call(raiser.get(), {}, &r.v) == -1);
        if (expect_value_error("on purpose") != 0) return -1;
        return 0;
      },
      [](bool) { CHECK_FALSE(TakeRaised().present); });

  Survive(
      "errors: create with cause, backtrace, kinds",
      [&] {
        TVMFFIByteArray kind = BA("ValueError");
        TVMFFIByteArray msg = BA(kLong);
        const TVMFFIByteArray* bt = TVMFFIBacktrace(__FILE__, __LINE__, "oom", 0);
        REQUIRE(bt != nullptr);
        Handle cause;
        if (TVMFFIErrorCreate(&kind, &msg, bt, cause.out()) != 0) {
          TVMFFIErrorSetRaisedFromCStr("MemoryError", "TVMFFIErrorCreate failed");
          return -1;
        }
        Handle err;
        if (TVMFFIErrorCreateWithCauseAndExtraContext(&kind, &msg, bt, cause.get(), nullptr,
                                                      err.out()) != 0) {
          TVMFFIErrorSetRaisedFromCStr("MemoryError", "TVMFFIErrorCreate failed");
          return -1;
        }
        REQUIRE(StrongCount(cause.get()) == 2);
        TVMFFIErrorSetRaised(err.get());
        RaisedError e = TakeRaised();
        REQUIRE(e.kind == "ValueError");
        TVMFFIByteArray custom = BA("OomTestError");
        int32_t code = 0;
        if (TVMFFIErrorKindRegister(&custom, &code) != 0) return -1;
        REQUIRE(TVMFFIErrorKindLookup(&custom) == code);
        return 0;
      },
      [](bool) { CHECK_FALSE(TakeRaised().present); });

  Survive(
      "errors: C++ Error thrown inside the runtime",
      [&] {
        // An IndexError made by the runtime (with its backtrace), or a MemoryError.
        ffi::Function make = ffi::Function::GetGlobalRequired("ffi.Array");
        ffi::Function item = ffi::Function::GetGlobalRequired("ffi.ArrayGetItem");
        ffi::Array<ffi::Any> a = make(1, 2).cast<ffi::Array<ffi::Any>>();
        try {
          item(a, 7);
        } catch (const ffi::Error& e) {
          if (e.kind() == "MemoryError") throw;
          REQUIRE(e.kind() == "IndexError");
          return 0;
        }
        FAIL("ffi.ArrayGetItem(a, 7) did not throw");
        return 0;
      },
      [](bool) { CHECK_FALSE(TakeRaised().present); });
}

TEST_CASE("OOM: C++ functions and errors (whole process)", "[oom]") {
  // Made, registered, called and thrown through by header-only code of this
  // binary and the runtime; every operator new of the process in turn.
  std::string wrong;
  bool backtrace_empty = true;
  Survive(
      "C++ typed function, TVM_FFI_THROW through it (whole process)",
      [&] {
        wrong.clear();
        ffi::Function f = ffi::Function::FromTyped([](int64_t a, const ffi::String& s) -> int64_t {
          if (a < 0) TVM_FFI_THROW(ValueError) << "negative: " << a << " with " << s;
          return a + static_cast<int64_t>(s.size());
        });
        int64_t r = f(1, ffi::String(kLong)).cast<int64_t>();
        if (r != 1 + static_cast<int64_t>(std::strlen(kLong))) wrong = "wrong result";
        try {
          f(-1, ffi::String(kLong));
          wrong = "no throw";
        } catch (const ffi::Error& e) {
          if (e.kind() == "MemoryError") throw;
          if (e.kind() != "ValueError") wrong = e.kind();
          // Out of memory while capturing it, a backtrace may be empty (valid).
          backtrace_empty = e.backtrace().empty();
        }
        return 0;
      },
      [&](bool) {
        CHECK(wrong.empty());
        CHECK_FALSE(TakeRaised().present);
      },
      Mode::kWholeProcess);
  CHECK_FALSE(backtrace_empty);  // the last, complete run
}

// --------------------------------------------------------------------------
// DLPack
// --------------------------------------------------------------------------

int g_producer_deleted = 0;
int64_t g_shape[3] = {2, 3, 4};
float g_data[24];

DLTensor ProducerTensor() {
  return HostF32Tensor(g_data, g_shape, 3);
}

DLManagedTensor* NewLegacy() {
  auto* m = new DLManagedTensor{};
  m->dl_tensor = ProducerTensor();
  m->deleter = [](DLManagedTensor* self) {
    ++g_producer_deleted;
    delete self;
  };
  return m;
}

DLManagedTensorVersioned* NewVersioned() {
  auto* m = new DLManagedTensorVersioned{};
  m->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m->dl_tensor = ProducerTensor();
  m->deleter = [](DLManagedTensorVersioned* self) {
    ++g_producer_deleted;
    delete self;
  };
  return m;
}

TEST_CASE("OOM: DLPack import and export", "[oom]") {
  auto producer_ran_once = [](bool) {
    // Imported or refused, the producer's deleter ran exactly once.
    CHECK(g_producer_deleted == 1);
    g_producer_deleted = 0;
  };
  Survive(
      "DLPack: legacy import, export both ways",
      [] {
        Handle t;
        if (TVMFFITensorFromDLPack(NewLegacy(), 0, 1, t.out()) != 0) return -1;
        DLManagedTensor* out = nullptr;
        if (TVMFFITensorToDLPack(t.get(), &out) != 0) return -1;
        REQUIRE(out->dl_tensor.data == g_data);
        out->deleter(out);
        DLManagedTensorVersioned* outv = nullptr;
        if (TVMFFITensorToDLPackVersioned(t.get(), &outv) != 0) return -1;
        REQUIRE(outv->dl_tensor.strides[0] == 12);
        outv->deleter(outv);
        return 0;
      },
      producer_ran_once);
  Survive(
      "DLPack: versioned import (C and C++)",
      [] {
        Handle t;
        if (TVMFFITensorFromDLPackVersioned(NewVersioned(), 4, 1, t.out()) != 0) return -1;
        ffi::Tensor c = ffi::Tensor::FromDLPackVersioned(NewVersioned());
        // The second import's deleter has run too once `c` dies: count 2, then 1.
        REQUIRE(c.shape()[2] == 4);
        c = ffi::Tensor();
        REQUIRE(g_producer_deleted == 1);
        g_producer_deleted = 0;
        return 0;
      },
      [](bool failed) {
        // Failed before the second import: 1; after it (in C++): 2 (both ran).
        CHECK((g_producer_deleted == 1 || (failed && g_producer_deleted == 2)));
        g_producer_deleted = 0;
      });

  Handle t;
  REQUIRE(TVMFFITensorFromDLPack(NewLegacy(), 0, 0, t.out()) == 0);
  Survive(
      "DLPack: export of a live tensor",
      [&] {
        DLManagedTensorVersioned* outv = nullptr;
        if (TVMFFITensorToDLPackVersioned(t.get(), &outv) != 0) return -1;
        outv->deleter(outv);
        return 0;
      },
      [&](bool) {
        CHECK(StrongCount(t.get()) == 1);
        CHECK(g_producer_deleted == 0);
      });
  TVMFFIObjectDecRef(t.release());
  CHECK(g_producer_deleted == 1);
  g_producer_deleted = 0;
}

// --------------------------------------------------------------------------
// Containers
// --------------------------------------------------------------------------

TEST_CASE("OOM: containers through their globals", "[oom]") {
  Handle keep;  // an element whose references are counted
  REQUIRE(TVMFFIFunctionCreate(nullptr, AddCall, nullptr, keep.out()) == 0);
  Handle array = Global("ffi.Array"), array_size = Global("ffi.ArraySize"),
         array_item = Global("ffi.ArrayGetItem"), map = Global("ffi.Map"),
         map_item = Global("ffi.MapGetItem"), map_items = Global("ffi.MapItems"),
         map_iter = Global("ffi.MapForwardIterFunctor"), shape = Global("ffi.Shape"),
         contains = Global("ffi.ArrayContains"), map_count = Global("ffi.MapCount");
  TVMFFIAny long_key = None();
  long_key.type_index = kTVMFFIRawStr;
  long_key.v_c_str = kLong;

  Survive(
      "containers: ffi.Array / ArraySize / GetItem / Contains",
      [&] {
        OwnedAny a;
        if (Call(array.get(), {Int(1), long_key, ObjView(keep.get())}, &a.v) != 0) return -1;
        OwnedAny n, item, has;
        if (Call(array_size.get(), {a.v}, &n.v) != 0) return -1;
        REQUIRE(n.v.v_int64 == 3);
        if (Call(array_item.get(), {a.v, Int(1)}, &item.v) != 0) return -1;
        REQUIRE(AnyText(item.v) == kLong);
        if (Call(contains.get(), {a.v, long_key}, &has.v) != 0) return -1;
        REQUIRE(has.v.v_int64 == 1);
        return 0;
      },
      [&](bool) { CHECK(StrongCount(keep.get()) == 1); });

  Survive(
      "containers: ffi.Map / GetItem / Count / Items / iterator",
      [&] {
        OwnedAny m;
        if (Call(map.get(), {long_key, ObjView(keep.get()), Int(7), Int(8), Int(9), long_key},
                 &m.v) != 0) {
          return -1;
        }
        OwnedAny v, c, items, it;
        if (Call(map_item.get(), {m.v, long_key}, &v.v) != 0) return -1;
        REQUIRE(v.v.v_obj == keep.get());
        if (Call(map_count.get(), {m.v, Int(7)}, &c.v) != 0) return -1;
        REQUIRE(c.v.v_int64 == 1);
        if (Call(map_items.get(), {m.v}, &items.v) != 0) return -1;
        if (Call(map_iter.get(), {m.v}, &it.v) != 0) return -1;
        OwnedAny step;
        if (Call(it.v.v_obj, {Int(0)}, &step.v) != 0) return -1;
        return 0;
      },
      [&](bool) { CHECK(StrongCount(keep.get()) == 1); });

  Survive(
      "containers: ffi.Shape",
      [&] {
        OwnedAny s;
        if (Call(shape.get(), {Int(2), Int(3), Int(4)}, &s.v) != 0) return -1;
        REQUIRE(s.v.type_index == kTVMFFIShape);
        return 0;
      },
      [](bool) {});

  ffi::Function cxx_keep = ffi::Function::FromTyped([](int64_t x) { return x; });
  Survive(
      "containers: C++ Array / Map / Shape through the runtime",
      [&] {
        ffi::Function make_map = ffi::Function::GetGlobalRequired("ffi.Map");
        ffi::Function make_shape = ffi::Function::GetGlobalRequired("ffi.Shape");
        ffi::Function items = ffi::Function::GetGlobalRequired("ffi.MapItems");
        auto m = make_map(ffi::String(kLong), cxx_keep, 1, 2).cast<ffi::Map<ffi::Any, ffi::Any>>();
        REQUIRE(m.size() == 2);
        auto kv = items(m).cast<ffi::Array<ffi::Any>>();
        REQUIRE(kv.size() == 4);
        auto s = make_shape(5, 6).cast<ffi::Shape>();
        REQUIRE(s.size() == 2);
        return 0;
      },
      [&](bool) { CHECK(cxx_keep.use_count() == 1); });

  // Every allocation of the process in turn, header-only code included; no
  // Catch2 macro runs while armed (the results are checked afterwards).
  bool wrong = false;
  Survive(
      "containers: C++ List / Dict / Array / Map / Shape (whole process)",
      [&] {
        wrong = false;
        ffi::List<ffi::Any> l;
        l.push_back(1);
        l.push_back(ffi::String(kLong));
        l.push_back(cxx_keep);
        l.insert(l.begin(), ffi::Any(ffi::String("front, and long enough for an object")));
        ffi::Dict<ffi::String, ffi::Any> d;
        d.Set(ffi::String(kLong), cxx_keep);
        for (int i = 0; i < 20; ++i) d.Set(ffi::String("key number " + std::to_string(i)), i);
        d.erase(ffi::String("key number 3"));
        ffi::Array<ffi::Any> a{ffi::Any(1), ffi::Any(cxx_keep), ffi::Any(ffi::String(kLong))};
        a.push_back(l);
        ffi::Map<ffi::String, ffi::Any> m;
        for (int i = 0; i < 12; ++i) m.Set(ffi::String("map key " + std::to_string(i)), a);
        ffi::Shape s{1, 2, 3, 4, 5};
        wrong = l.size() != 4 || d.size() != 20 || a.size() != 4 || m.size() != 12 ||
                s.size() != 5 || !d.Get(ffi::String(kLong)).has_value();
        return 0;
      },
      [&](bool) {
        CHECK_FALSE(wrong);
        CHECK(cxx_keep.use_count() == 1);
      },
      Mode::kWholeProcess);
}

// --------------------------------------------------------------------------
// Strings and bytes
// --------------------------------------------------------------------------

TEST_CASE("OOM: strings and bytes", "[oom]") {
  Handle string_global = Global("ffi.String"), bytes_global = Global("ffi.Bytes");
  Survive(
      "strings: String/Bytes from bytes, ffi.String, ffi.Bytes, dtype",
      [&] {
        TVMFFIByteArray text = BA(kLong);
        OwnedAny s, b, s2, b2;
        if (TVMFFIStringFromByteArray(&text, &s.v) != 0) return -1;
        if (TVMFFIBytesFromByteArray(&text, &b.v) != 0) return -1;
        REQUIRE(AnyText(s.v) == kLong);
        REQUIRE(AnyText(b.v) == kLong);
        TVMFFIAny arg = None();
        arg.type_index = kTVMFFIByteArrayPtr;
        arg.v_ptr = &text;
        if (Call(string_global.get(), {arg}, &s2.v) != 0) return -1;
        if (Call(bytes_global.get(), {arg}, &b2.v) != 0) return -1;
        REQUIRE(AnyText(s2.v) == kLong);
        DLDataType dt{};
        TVMFFIByteArray dts = BA("float32x4");
        if (TVMFFIDataTypeFromString(&dts, &dt) != 0) return -1;
        OwnedAny back;
        if (TVMFFIDataTypeToString(&dt, &back.v) != 0) return -1;
        REQUIRE(AnyText(back.v) == "float32x4");
        return 0;
      },
      [](bool) {});
}

// --------------------------------------------------------------------------
// Modules
// --------------------------------------------------------------------------

TEST_CASE("OOM: module load and call", "[oom]") {
  Handle load = Global("ffi.ModuleLoadFromFile"), get = Global("ffi.ModuleGetFunction");
  Survive(
      "module: load a library, get and call a function",
      [&] {
        TVMFFIAny path = None();
        path.type_index = kTVMFFIRawStr;
        path.v_c_str = TVMFFI_TEST_LIB_A;
        OwnedAny mod;
        if (Call(load.get(), {path}, &mod.v) != 0) return -1;
        TVMFFIAny name = None();
        name.type_index = kTVMFFIRawStr;
        name.v_c_str = "add_int";
        OwnedAny f, r;
        if (Call(get.get(), {mod.v, name, Bool(false)}, &f.v) != 0) return -1;
        REQUIRE(f.v.type_index == kTVMFFIFunction);
        if (Call(f.v.v_obj, {Int(2), Int(3)}, &r.v) != 0) return -1;
        REQUIRE(r.v.v_int64 == 5);
        return 0;
      },
      [](bool) {});
}

TEST_CASE("OOM: a loaded module's functions and metadata, global lists (C++)", "[oom]") {
  ffi::Function load = ffi::Function::GetGlobalRequired("ffi.ModuleLoadFromFile");
  ffi::Any mod = load(TVMFFI_TEST_LIB_A);
  auto g = [](const char* name) { return ffi::Function::GetGlobalRequired(name); };
  ffi::Function get = g("ffi.ModuleGetFunction"), list = g("ffi.ModuleListFunctions"),
                meta = g("ffi.ModuleGetFunctionMetadata"), doc = g("ffi.ModuleGetFunctionDoc"),
                implements = g("ffi.ModuleImplementsFunction"), kind = g("ffi.ModuleGetKind"),
                path = g("ffi.ModuleGetLibraryPath"), imports = g("ffi.ModuleGetImports"),
                names = g("ffi.FunctionListGlobalNamesFunctor"),
                global_meta = g("ffi.GetGlobalFuncMetadata"), failures = g("ffi.LoadFailures"),
                system_lib = g("ffi.SystemLib");
  Survive(
      "module: functions, metadata, imports, global lists",
      [&] {
        // Results are read after each call (a throwing call stays out of REQUIRE).
        ffi::Function whoami = get(mod, "whoami", false).cast<ffi::Function>();
        ffi::String who = whoami().cast<ffi::String>();
        ffi::Function long_string = get(mod, "long_string", false).cast<ffi::Function>();
        ffi::Any text = long_string(100);
        ffi::Function lib_names = get(mod, "names", false).cast<ffi::Function>();
        auto made = lib_names(5).cast<ffi::Array<ffi::String>>();
        ffi::Function adder =
            get(mod, "make_adder", false).cast<ffi::Function>()(10).cast<ffi::Function>();
        int64_t sum = adder(5).cast<int64_t>();
        auto listed = list(mod).cast<ffi::Array<ffi::Any>>();
        ffi::Any m = meta(mod, "add_int", false);
        ffi::Any d = doc(mod, "add_int", false);
        bool has = implements(mod, "add_int", false).cast<bool>();
        ffi::Any k = kind(mod), p = path(mod), imps = imports(mod);
        ffi::Function step = names().cast<ffi::Function>();
        int64_t count = step(-1).cast<int64_t>();
        ffi::Any first = step(0);
        ffi::Any gm = global_meta("ffi.Array"), lf = failures();
        ffi::Any sys = system_lib(ffi::Optional<ffi::String>());
        try {
          get(mod, "fail", false).cast<ffi::Function>()("no");
          FAIL("lib_a's fail did not throw");
        } catch (const ffi::Error& e) {
          if (e.kind() == "MemoryError") throw;
          REQUIRE(e.kind() == "ValueError");
        }
        REQUIRE(who == "lib_a");
        REQUIRE(made.size() == 5);
        REQUIRE(sum == 15);
        REQUIRE(listed.size() >= 10);
        REQUIRE(has);
        REQUIRE(count > 20);
        return 0;
      },
      [](bool) { CHECK_FALSE(TakeRaised().present); });
}

// --------------------------------------------------------------------------
// The environment tables
// --------------------------------------------------------------------------

int g_alloc_deleted = 0;
int g_alloc_made = 0;

int TestAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                  void (*set_error)(void*, const char*, const char*)) {
  auto* m = new (std::nothrow) DLManagedTensorVersioned{};
  if (m == nullptr) {
    set_error(error_ctx, "MemoryError", "test allocator");
    return -1;
  }
  m->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m->dl_tensor = *prototype;
  m->dl_tensor.data = g_data;
  m->dl_tensor.strides = nullptr;
  m->dl_tensor.byte_offset = 0;
  m->deleter = [](DLManagedTensorVersioned* self) {
    ++g_alloc_deleted;
    delete self;
  };
  ++g_alloc_made;
  *out = m;
  return 0;
}

TEST_CASE("OOM: stream and allocator tables", "[oom]") {
  Survive(
      "env: streams for several devices",
      [] {
        // Each run on a new thread, whose table starts empty.
        for (int32_t dev = 0; dev < 6; ++dev) {
          TVMFFIStreamHandle orig = reinterpret_cast<void*>(1);
          if (TVMFFIEnvSetStream(kDLCUDA, dev, reinterpret_cast<void*>(0x100 + dev), &orig) != 0) {
            return -1;
          }
          REQUIRE(TVMFFIEnvGetStream(kDLCUDA, dev) == reinterpret_cast<void*>(0x100 + dev));
          REQUIRE(TVMFFIEnvSetStream(kDLCUDA, dev, nullptr, nullptr) == 0);
        }
        return 0;
      },
      [](bool) {
        // This thread's table was never touched; the run's own went with its thread.
        for (int32_t dev = 0; dev < 6; ++dev) CHECK(TVMFFIEnvGetStream(kDLCUDA, dev) == nullptr);
      },
      Mode::kRuntimeFresh);

  Survive(
      "env: allocator set, TVMFFIEnvTensorAlloc, reset",
      [] {
        DLPackManagedTensorAllocator orig = nullptr;
        if (TVMFFIEnvSetDLPackManagedTensorAllocator(TestAllocator, 0, &orig) != 0) return -1;
        DLTensor proto = ProducerTensor();
        Handle t;
        int rc = TVMFFIEnvTensorAlloc(&proto, t.out());
        TVMFFIEnvSetDLPackManagedTensorAllocator(orig, 0, nullptr);
        return rc;
      },
      [](bool) {
        CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == nullptr);
        // Allocated or not, what the allocator made was released exactly once.
        CHECK(g_alloc_deleted == g_alloc_made);
        g_alloc_deleted = 0;
        g_alloc_made = 0;
      },
      Mode::kRuntimeFresh);

  Survive(
      "env: the built-in custom allocator",
      [] {
        TVMFFICustomAllocator* a = TVMFFIGetCustomAllocator();
        void* body = a->allocate(100, 64, 0, a->context);
        if (body == nullptr) return -1;
        REQUIRE(reinterpret_cast<uintptr_t>(body) % 64 == 0);
        reinterpret_cast<TVMFFIObjectAllocHeader*>(body)[-1].delete_space(body);
        return 0;
      },
      [](bool) {});
}

// --------------------------------------------------------------------------
// The type registry
// --------------------------------------------------------------------------

TEST_CASE("OOM: type registration (index, field, method, metadata, attribute)", "[oom]") {
  Handle method;
  REQUIRE(TVMFFIFunctionCreate(nullptr, AddCall, nullptr, method.out()) == 0);
  int run = 0;
  int methods_registered = 0;
  std::string key;
  const std::string field_name = "a_field_with_a_name_long_enough_to_need_memory";
  const std::string method_name = "a_method_with_a_name_long_enough_to_need_memory";
  TVMFFIByteArray attr_name = BA("oom.test.type_attribute");
  Survive(
      "types: GetOrAllocIndex, RegisterField/Method/Metadata/Attr",
      [&] {
        // A new type each run: registrations are permanent.
        key = "oom.test.Type" + std::to_string(run++);
        TVMFFIByteArray k = BA(key);
        int32_t idx = TVMFFITypeGetOrAllocIndex(&k, -1, 1, 0, 1, kTVMFFIObject);
        if (idx < 0) return -1;
        TVMFFIFieldInfo field{};
        field.name = BA(field_name);
        field.doc = BA("the field's documentation, long enough to be copied to the heap");
        field.size = 8;
        field.alignment = 8;
        field.offset = static_cast<int64_t>(sizeof(TVMFFIObject));
        field.getter = [](void* f, TVMFFIAny* result) {
          *result = Int(*static_cast<int64_t*>(f));
          return 0;
        };
        field.field_static_type_index = kTVMFFIInt;
        if (TVMFFITypeRegisterField(idx, &field) != 0) return -1;
        TVMFFIMethodInfo m{};
        m.name = BA(method_name);
        m.flags = kTVMFFIFieldFlagBitMaskIsStaticMethod;
        m.method = ObjView(method.get());
        if (TVMFFITypeRegisterMethod(idx, &m) != 0) return -1;
        TVMFFITypeMetadata meta{};
        meta.doc = BA("the type's documentation, long enough to be copied to the heap");
        meta.total_size = static_cast<int32_t>(sizeof(TVMFFIObject) + 8);
        if (TVMFFITypeRegisterMetadata(idx, &meta) != 0) return -1;
        TVMFFIAny value = Int(idx);
        return TVMFFITypeRegisterAttr(idx, &attr_name, &value);
      },
      [&](bool) {
        // Registered wholly or not at all, piece by piece; nothing half-written.
        TVMFFIByteArray k = BA(key);
        int32_t idx = -1;
        if (TVMFFITypeKeyToIndex(&k, &idx) != 0) {
          CHECK(TakeRaised().kind == "KeyError");
          return;
        }
        const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(idx);
        REQUIRE(info != nullptr);
        CHECK(Str(info->type_key) == key);
        CHECK(info->num_fields <= 1);
        CHECK(info->num_methods <= 1);
        if (info->num_fields == 1) CHECK(Str(info->fields[0].name) == field_name);
        if (info->num_methods == 1) {
          CHECK(Str(info->methods[0].name) == method_name);
          ++methods_registered;
        }
        // The registry holds one reference per registered method, no more.
        CHECK(StrongCount(method.get()) == 1u + static_cast<uint32_t>(methods_registered));
        if (const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&attr_name)) {
          if (col->begin_index == 0 && idx < col->size &&
              col->data[idx].type_index != kTVMFFINone) {
            CHECK(col->data[idx].v_int64 == idx);
          }
        }
      });
}

// --------------------------------------------------------------------------
// The global registry
// --------------------------------------------------------------------------

TEST_CASE("OOM: the global registry", "[oom]") {
  const std::set<std::string> before = GlobalNames();
  Handle f;
  REQUIRE(TVMFFIFunctionCreate(nullptr, AddCall, nullptr, f.out()) == 0);
  Survive(
      "registry: set, get, list, remove (C)",
      [&] {
        TVMFFIByteArray name = BA("oom.test.a_rather_long_function_name");
        if (TVMFFIFunctionSetGlobal(&name, f.get(), 0) != 0) return -1;
        Handle got;
        int rc = TVMFFIFunctionGetGlobal(&name, got.out());
        if (rc == 0) {
          REQUIRE(got.get() == f.get());
          int count = 0;
          rc = TVMFFIFunctionListGlobalNames(
              [](void* ctx, const TVMFFIByteArray*) {
                ++*static_cast<int*>(ctx);
                return 0;
              },
              &count);
        }
        // Removal comes last, whatever happened: it must not fail.
        REQUIRE(TVMFFIFunctionRemoveGlobal(&name) == 0);
        return rc;
      },
      [&](bool) {
        CHECK(StrongCount(f.get()) == 1);
        CHECK(GlobalNames() == before);
      });

  ffi::Function typed = ffi::Function::FromTyped(
      [](int64_t a, const ffi::String& s) { return a + static_cast<int64_t>(s.size()); });
  Survive(
      "registry: set, get, call, remove (C++ typed)",
      [&] {
        ffi::Function::SetGlobal("oom.test.typed", typed);
        try {
          ffi::Function g = ffi::Function::GetGlobalRequired("oom.test.typed");
          int64_t r = g(1, ffi::String(kLong)).cast<int64_t>();
          REQUIRE(r == 1 + static_cast<int64_t>(std::strlen(kLong)));
        } catch (...) {
          ffi::Function::RemoveGlobal("oom.test.typed");
          throw;
        }
        ffi::Function::RemoveGlobal("oom.test.typed");
        return 0;
      },
      [&](bool) {
        CHECK(typed.use_count() == 1);
        CHECK(GlobalNames() == before);
      });
}

// --------------------------------------------------------------------------
// Loading the library (its static initialisers)
// --------------------------------------------------------------------------

struct ProbeRun {
  int status = -1;
  std::string out;
  std::string err;
};

// Runs the load probe with allocation `nth` of loading failing (0: none).
ProbeRun RunLoadProbe(int64_t nth, bool sticky) {
  char err_path[] = "/tmp/tvmffi_oom_probe_XXXXXX";
  int fd = mkstemp(err_path);
  REQUIRE(fd >= 0);
  close(fd);
  std::string cmd = "TVMFFI_FAULT_INJECTION_LOAD=" + std::to_string(nth) +
                    " TVMFFI_FAULT_INJECTION_LOAD_STICKY=" + (sticky ? "1" : "0") + " '" +
                    TVMFFI_TEST_LOAD_PROBE + "' 2>" + err_path;
  ProbeRun r;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  r.status = pclose(p);
  if (FILE* e = std::fopen(err_path, "r")) {
    while ((n = std::fread(buf, 1, sizeof(buf), e)) > 0) r.err.append(buf, n);
    std::fclose(e);
  }
  std::remove(err_path);
  return r;
}

// The values of the lines "<key> <value>" of the probe's output.
std::vector<std::string> Lines(const std::string& text, const std::string& key) {
  std::vector<std::string> values;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    if (line.rfind(key + " ", 0) == 0) values.push_back(line.substr(key.size() + 1));
    pos = end + 1;
  }
  return values;
}

TEST_CASE("OOM: loading the library (static initialisers)", "[oom]") {
  // A clean load: the full set of built-in globals.
  ProbeRun clean = RunLoadProbe(0, false);
  REQUIRE(clean.status == 0);
  std::vector<std::string> all = Lines(clean.out, "global");
  REQUIRE(all.size() > 20);
  REQUIRE(Lines(clean.out, "injected") == std::vector<std::string>{"0"});
  int64_t survived[2] = {0, 0};
  for (int sticky = 0; sticky < 2; ++sticky) {
    for (int64_t n = 1;; ++n) {
      ProbeRun r = RunLoadProbe(n, sticky != 0);
      INFO("load with allocation " << n << (sticky ? " (sticky)" : " (one-shot)")
                                   << " failing; stdout:\n"
                                   << r.out << "stderr:\n"
                                   << r.err);
      // The process ran to the end: no abort, no terminate, no leak (ASan).
      REQUIRE(r.status == 0);
      std::vector<std::string> injected = Lines(r.out, "injected");
      REQUIRE(injected.size() == 1);
      // Raising an error works after any failed load.
      CHECK(Lines(r.out, "raise") == std::vector<std::string>{"ValueError"});
      // A built-in that is missing was reported on stderr, by name.
      std::vector<std::string> got = Lines(r.out, "global");
      std::set<std::string> have(got.begin(), got.end());
      for (const std::string& name : all) {
        if (have.count(name) == 0) {
          CHECK(r.err.find("built-in global `" + name + "`") != std::string::npos);
        }
      }
      if (injected[0] == "0") {
        CHECK(got == all);
        break;
      }
      ++survived[sticky];
      REQUIRE(n < 10000);
    }
  }
  std::printf("oom: %-52s %5lld injected failures survived (%lld one-shot, %lld sticky)\n",
              "load: the runtime's static initialisers",
              static_cast<long long>(survived[0] + survived[1]),
              static_cast<long long>(survived[0]), static_cast<long long>(survived[1]));
  CHECK(survived[0] > 0);
}

}  // namespace

// Side-by-side micro-benchmark: this one source is built twice by
// benchmarks/side_by_side.sh, once against our headers and libtvmffi and once
// against apache/tvm-ffi's headers and libtvm_ffi, so it uses only names both
// sides have (upstream's spelling).
//
//   side_by_side --list             the case names, one a line
//   side_by_side --count CASE N     run CASE N times and exit (for callgrind:
//                                   the script subtracts two counts)
//   side_by_side --time             every case: "name ns_per_iteration", best
//                                   of 300 runs of ~0.2 ms each
//
// Every case runs in its own noinline function with the loop inside, so the
// only per-iteration cost besides the case is the loop itself, as for the
// floor (a call of a noinline add through a volatile C function pointer).
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

using tvm::ffi::Function;
using tvm::ffi::Tensor;
using tvm::ffi::TensorView;

template <typename T>
inline void Keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

__attribute__((noinline)) int Add(int a, int b) {
  return a + b;
}
int (*volatile g_add)(int, int) = Add;

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDevice kCPU{kDLCPU, 0};

// --- producers -----------------------------------------------------------
// A producer's tensor imported again and again: its deleter only counts (the
// struct lives for the whole run), so a case measures the consumer's work.
float g_data[16];
int64_t g_shape[2] = {4, 4};
int64_t g_strides[2] = {4, 1};
int64_t g_deleted = 0;
DLManagedTensorVersioned g_versioned;
DLManagedTensor g_legacy;

void CountVersioned(DLManagedTensorVersioned*) {
  ++g_deleted;
}
void CountLegacy(DLManagedTensor*) {
  ++g_deleted;
}

DLTensor ProducerTensor(int64_t* strides) {
  DLTensor t;
  t.data = g_data;
  t.device = kCPU;
  t.ndim = 2;
  t.dtype = kF32;
  t.shape = g_shape;
  t.strides = strides;
  t.byte_offset = 0;
  return t;
}

// NDAllocators: the CPU one mallocs the data; the static one hands out one
// buffer (so the case is the tensor object alone).
size_t DataBytes(const DLTensor* t) {
  size_t n = 1;
  for (int32_t i = 0; i < t->ndim; ++i) n *= static_cast<size_t>(t->shape[i]);
  return (n * t->dtype.bits * t->dtype.lanes + 7) / 8;
}
struct CPUAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(DataBytes(t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};
alignas(64) unsigned char g_static_buffer[64];
struct StaticAlloc {
  void AllocData(DLTensor* t) { t->data = g_static_buffer; }
  void FreeData(DLTensor*) {}
};

// The environment's allocator: one malloc block holds the managed tensor, its
// shape and the data (compact, NULL strides, as most allocators return).
struct EnvBlock {
  DLManagedTensorVersioned managed;
  int64_t shape[4];
  alignas(64) unsigned char data[64];
};
void EnvBlockDeleter(DLManagedTensorVersioned* self) {
  std::free(self->manager_ctx);
}
int EnvCPUAlloc(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                void (*set_error)(void*, const char*, const char*)) {
  if (prototype->ndim > 4 || DataBytes(prototype) > sizeof(EnvBlock::data)) {
    set_error(error_ctx, "ValueError", "bench allocator: tensor too large");
    return -1;
  }
  auto* block = static_cast<EnvBlock*>(std::malloc(sizeof(EnvBlock)));
  if (block == nullptr) return -1;
  DLManagedTensorVersioned& m = block->managed;
  m.version.major = DLPACK_MAJOR_VERSION;
  m.version.minor = DLPACK_MINOR_VERSION;
  m.manager_ctx = block;
  m.deleter = EnvBlockDeleter;
  m.flags = 0;
  m.dl_tensor = *prototype;
  m.dl_tensor.data = block->data;
  m.dl_tensor.shape = block->shape;
  m.dl_tensor.strides = nullptr;
  m.dl_tensor.byte_offset = 0;
  for (int32_t i = 0; i < prototype->ndim; ++i) block->shape[i] = prototype->shape[i];
  *out = &m;
  return 0;
}

// --- call paths --------------------------------------------------------
Function g_fadd;
Function g_f3;
Function g_fthrow;
TVMFFIObjectHandle g_fadd_handle;
TVMFFIObjectHandle g_f3_handle;
TVMFFIObjectHandle g_fthrow_handle;
TVMFFIObjectHandle g_cadd_handle;  // made by TVMFFIFunctionCreate (a C callback)
DLTensor g_dl[3];

// What codegen-emitted C calls: the exported symbol, through a pointer (as
// looked up in a loaded module), with three DLTensor* arguments.
void ThreeViews(TensorView a, TensorView b, TensorView c) {
  Keep(a.data_ptr());
  Keep(b.data_ptr());
  Keep(c.data_ptr());
}
// The same kernel kept out of line (as one defined in another file, or
// interposable in a shared library): the exported symbol calls it, passing
// each TensorView by value.
__attribute__((noinline)) void ThreeViewsCalled(TensorView a, TensorView b, TensorView c) {
  Keep(a.data_ptr());
  Keep(b.data_ptr());
  Keep(c.data_ptr());
}
}  // namespace
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sbs_three_views, ThreeViews);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sbs_three_views_called, ThreeViewsCalled);
namespace {
int (*volatile g_export3)(void*, const TVMFFIAny*, int32_t, TVMFFIAny*) = __tvm_ffi_sbs_three_views;
int (*volatile g_export3_called)(void*, const TVMFFIAny*, int32_t,
                                 TVMFFIAny*) = __tvm_ffi_sbs_three_views_called;

TVMFFIAny IntAny(int64_t v) {
  TVMFFIAny a;
  a.type_index = kTVMFFIInt;
  a.zero_padding = 0;
  a.v_int64 = v;
  return a;
}
TVMFFIAny TensorPtrAny(DLTensor* t) {
  TVMFFIAny a;
  a.type_index = kTVMFFIDLTensorPtr;
  a.zero_padding = 0;
  a.v_int64 = 0;
  a.v_ptr = t;
  return a;
}

void Setup() {
  std::memset(&g_versioned, 0, sizeof(g_versioned));
  g_versioned.version.major = DLPACK_MAJOR_VERSION;
  g_versioned.version.minor = DLPACK_MINOR_VERSION;
  g_versioned.deleter = CountVersioned;
  g_versioned.dl_tensor = ProducerTensor(g_strides);
  std::memset(&g_legacy, 0, sizeof(g_legacy));
  g_legacy.deleter = CountLegacy;
  g_legacy.dl_tensor = ProducerTensor(g_strides);

  g_fadd = Function::FromTyped([](int a, int b) { return Add(a, b); });
  g_fadd_handle = tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(g_fadd);
  g_f3 = Function::FromTyped([](TensorView a, TensorView b, TensorView c) {
    Keep(a.data_ptr());
    Keep(b.data_ptr());
    Keep(c.data_ptr());
  });
  g_f3_handle = tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(g_f3);
  g_fthrow = Function::FromTyped([](int a) -> int {
    if (a >= 0) TVM_FFI_THROW(ValueError) << "bench";
    return a;
  });
  g_fthrow_handle = tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(g_fthrow);
  for (DLTensor& t : g_dl) t = ProducerTensor(g_strides);
  TVMFFIFunctionCreate(
      nullptr,
      [](void*, const TVMFFIAny* args, int32_t, TVMFFIAny* result) -> int {
        *result = IntAny(Add(static_cast<int>(args[0].v_int64), static_cast<int>(args[1].v_int64)));
        return 0;
      },
      nullptr, &g_cadd_handle);
  Function::SetGlobal("bench.sbs.add", g_fadd, true);
  TVMFFIEnvSetStream(kDLCUDA, 0, &g_versioned, nullptr);  // any non-NULL handle
  TVMFFIEnvSetDLPackManagedTensorAllocator(EnvCPUAlloc, 0, nullptr);
}

// --- the cases -----------------------------------------------------------
#define SBS_CASE(fn) __attribute__((noinline)) void fn(int64_t n)

SBS_CASE(Floor) {
  for (int64_t i = 0; i < n; ++i) Keep(g_add(static_cast<int>(i), 1));
}
SBS_CASE(FromDLPackVersioned) {
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::FromDLPackVersioned(&g_versioned);
    Keep(t);
  }
}
SBS_CASE(FromDLPackVersionedNoStrides) {
  g_versioned.dl_tensor.strides = nullptr;
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::FromDLPackVersioned(&g_versioned);
    Keep(t);
  }
  g_versioned.dl_tensor.strides = g_strides;
}
SBS_CASE(FromDLPack) {
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::FromDLPack(&g_legacy);
    Keep(t);
  }
}
SBS_CASE(FromNDAlloc) {
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::FromNDAlloc(CPUAlloc(), {1}, kF32, kCPU);
    Keep(t);
  }
}
SBS_CASE(FromNDAllocStatic) {
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::FromNDAlloc(StaticAlloc(), {1}, kF32, kCPU);
    Keep(t);
  }
}
SBS_CASE(FromEnvAlloc) {
  for (int64_t i = 0; i < n; ++i) {
    Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {1}, kF32, kCPU);
    Keep(t);
  }
}
SBS_CASE(CallCxx) {
  for (int64_t i = 0; i < n; ++i) {
    int r = g_fadd(static_cast<int>(i), 1).cast<int>();
    Keep(r);
  }
}
SBS_CASE(CallC) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny args[2] = {IntAny(i), IntAny(1)};
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    int rc = TVMFFIFunctionCall(g_fadd_handle, args, 2, &result);
    Keep(rc);
    Keep(result.v_int64);
  }
}
// A C callback (TVMFFIFunctionCreate) through TVMFFIFunctionCall.
SBS_CASE(CallCFunction) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny args[2] = {IntAny(i), IntAny(1)};
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    int rc = TVMFFIFunctionCall(g_cadd_handle, args, 2, &result);
    Keep(rc);
    Keep(result.v_int64);
  }
}
SBS_CASE(ThreeViewsCxx) {
  TensorView v0(&g_dl[0]), v1(&g_dl[1]), v2(&g_dl[2]);
  for (int64_t i = 0; i < n; ++i) {
    auto r = g_f3(v0, v1, v2);
    Keep(r);
  }
}
SBS_CASE(ThreeDLTensorC) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny args[3] = {TensorPtrAny(&g_dl[0]), TensorPtrAny(&g_dl[1]), TensorPtrAny(&g_dl[2])};
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    int rc = TVMFFIFunctionCall(g_f3_handle, args, 3, &result);
    Keep(rc);
  }
}
SBS_CASE(ThreeViewsExport) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny args[3] = {TensorPtrAny(&g_dl[0]), TensorPtrAny(&g_dl[1]), TensorPtrAny(&g_dl[2])};
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    int rc = g_export3(nullptr, args, 3, &result);
    Keep(rc);
  }
}
SBS_CASE(ThreeViewsExportCalled) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny args[3] = {TensorPtrAny(&g_dl[0]), TensorPtrAny(&g_dl[1]), TensorPtrAny(&g_dl[2])};
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    int rc = g_export3_called(nullptr, args, 3, &result);
    Keep(rc);
  }
}
// A kernel's error: thrown in the body, caught at the function's C boundary
// (-1), then moved out of the thread's slot and released, as a host does.
SBS_CASE(ThrowC) {
  for (int64_t i = 0; i < n; ++i) {
    TVMFFIAny arg = IntAny(i);
    TVMFFIAny result;
    result.type_index = kTVMFFINone;
    result.zero_padding = 0;
    result.v_int64 = 0;
    int rc = TVMFFIFunctionCall(g_fthrow_handle, &arg, 1, &result);
    Keep(rc);
    if (rc != -1) std::abort();
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err == nullptr) std::abort();
    TVMFFIObjectDecRef(err);
  }
}
SBS_CASE(GetGlobal) {
  for (int64_t i = 0; i < n; ++i) {
    auto f = Function::GetGlobal("bench.sbs.add");
    Keep(f);
  }
}
SBS_CASE(EnvGetStream) {
  for (int64_t i = 0; i < n; ++i) Keep(TVMFFIEnvGetStream(kDLCUDA, 0));
}

struct Case {
  const char* name;
  void (*run)(int64_t);
};
const Case kCases[] = {
    {"floor", Floor},
    {"FromDLPackVersioned", FromDLPackVersioned},
    {"FromDLPack", FromDLPack},
    {"FromNDAlloc", FromNDAlloc},
    {"FromEnvAlloc", FromEnvAlloc},
    {"FromDLPackVersioned_nostrides", FromDLPackVersionedNoStrides},
    {"FromNDAlloc_static", FromNDAllocStatic},
    {"CallCxx", CallCxx},
    {"CallC", CallC},
    {"CallCFunction", CallCFunction},
    {"ThreeViewsCxx", ThreeViewsCxx},
    {"ThreeDLTensorC", ThreeDLTensorC},
    {"ThreeViewsExport", ThreeViewsExport},
    {"ThreeViewsExportCalled", ThreeViewsExportCalled},
    {"ThrowC", ThrowC},
    {"GetGlobal", GetGlobal},
    {"EnvGetStream", EnvGetStream},
};

// ns per iteration: the best of many short runs (~0.2 ms each, ~60 ms in
// all). On a shared, loaded machine a short run has a fair chance to go
// uninterrupted, and the best one is the case's own cost.
double TimeNs(void (*run)(int64_t)) {
  using Clock = std::chrono::steady_clock;
  auto once = [&](int64_t iters) {
    auto start = Clock::now();
    run(iters);
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
  };
  int64_t iters = 16;
  while (once(iters) < 2e5 && iters < (int64_t{1} << 30)) iters *= 2;
  double best = 1e300;
  for (int rep = 0; rep < 300; ++rep)
    best = std::min(best, once(iters) / static_cast<double>(iters));
  return best;
}

}  // namespace

int main(int argc, char** argv) {
  Setup();
  if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Case& c : kCases) std::printf("%s\n", c.name);
    return 0;
  }
  if (argc == 4 && std::strcmp(argv[1], "--count") == 0) {
    for (const Case& c : kCases) {
      if (std::strcmp(c.name, argv[2]) == 0) {
        const int64_t n = std::atoll(argv[3]);
        g_deleted = 0;
        c.run(n);
        // Each import hands the producer's tensor back exactly once.
        if (std::strncmp(c.name, "FromDLPack", 10) == 0 && g_deleted != n) {
          std::fprintf(stderr, "%s: deleter ran %lld times for %lld imports\n", c.name,
                       static_cast<long long>(g_deleted), static_cast<long long>(n));
          return 3;
        }
        return 0;
      }
    }
    std::fprintf(stderr, "unknown case %s\n", argv[2]);
    return 2;
  }
  if (argc == 2 && std::strcmp(argv[1], "--time") == 0) {
    // The floor before and after the cases; the smaller is printed.
    double floor_ns = TimeNs(Floor);
    double ns[sizeof(kCases) / sizeof(kCases[0])];
    for (size_t i = 1; i < sizeof(kCases) / sizeof(kCases[0]); ++i) ns[i] = TimeNs(kCases[i].run);
    ns[0] = std::min(floor_ns, TimeNs(Floor));
    for (size_t i = 0; i < sizeof(kCases) / sizeof(kCases[0]); ++i) {
      std::printf("%s %.3f\n", kCases[i].name, ns[i]);
    }
    return 0;
  }
  std::fprintf(stderr, "usage: %s --list | --count CASE N | --time\n", argv[0]);
  return 2;
}

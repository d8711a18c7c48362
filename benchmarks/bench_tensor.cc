// Tensor-path benchmark: DLPack import, NDAlloc allocation, calls with three
// tensor views, and the environment's stream lookup.
//
// Every case is timed against a floor measured in the same run: a call of a
// noinline `int add(int, int)` through a volatile C function pointer. Each
// case is auto-calibrated to ~0.2 s per repetition and the best of 5 is kept.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>

#include <tvm/ffi/memory.h>
#include "bench_util.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace tensor_bench {
// The smallest object: just the header (a make_object reference point). Not in
// the anonymous namespace: its type constants would be unused internal symbols.
class BareObj : public tvm::ffi::Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("bench.tensor.Bare", BareObj, tvm::ffi::Object);
};
}  // namespace tensor_bench

namespace {

using namespace tvm::ffi;
using tensor_bench::BareObj;

using namespace bench;

// The trivial NDAllocator of the FromNDAlloc row: a static buffer, nothing to free,
// so the row measures the object (allocation, header, shape/strides, refcount).
alignas(64) unsigned char g_static_buffer[64];
struct StaticBufferAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = g_static_buffer; }
  void FreeData(DLTensor*) {}
};
// The same with malloc/free of the data (informational).
struct MallocAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = std::malloc(GetDataSize(*tensor)); }
  void FreeData(DLTensor* tensor) { std::free(tensor->data); }
};

// A producer's versioned tensor that is imported again and again: its
// deleter only counts (the struct lives for the whole run).
int64_t g_deleted = 0;
void CountingDeleter(DLManagedTensorVersioned*) {
  ++g_deleted;
}

TVMFFIAny TensorPtrAny(DLTensor* t) {
  TVMFFIAny a;
  a.type_index = kTVMFFIDLTensorPtr;
  a.zero_padding = 0;
  a.v_ptr = t;
  return a;
}

}  // namespace

int main() {
  std::vector<Row> rows;

  double floor_ns = MeasureNs([](int i) {
    int r = g_add(i, 1);
    DoNotOptimize(r);
  });
  rows.push_back({"floor: add(int,int) via volatile C fn ptr", floor_ns, 0});

  // --- DLPack import ---------------------------------------------------------
  float data[16] = {};
  int64_t shape[2] = {4, 4};
  int64_t strides[2] = {4, 1};
  DLManagedTensorVersioned managed{};
  managed.version.major = DLPACK_MAJOR_VERSION;
  managed.version.minor = DLPACK_MINOR_VERSION;
  managed.deleter = CountingDeleter;
  managed.dl_tensor.data = data;
  managed.dl_tensor.device = DLDevice{kDLCPU, 0};
  managed.dl_tensor.ndim = 2;
  managed.dl_tensor.dtype = dl_float32;
  managed.dl_tensor.shape = shape;
  managed.dl_tensor.strides = strides;
  rows.push_back({"Tensor::FromDLPackVersioned + drop", MeasureNs([&](int) {
                    Tensor t = Tensor::FromDLPackVersioned(&managed);
                    DoNotOptimize(t);
                  }),
                  10});
  managed.dl_tensor.strides = nullptr;
  rows.push_back({"  same, producer without strides (filled in)", MeasureNs([&](int) {
                    Tensor t = Tensor::FromDLPackVersioned(&managed);
                    DoNotOptimize(t);
                  }),
                  0});
  managed.dl_tensor.strides = strides;

  // --- NDAlloc ------------------------------------------------------------
  DLDevice cpu{kDLCPU, 0};
  rows.push_back({"Tensor::FromNDAlloc({1}), static-buffer alloc + drop", MeasureNs([&](int) {
                    Tensor t = Tensor::FromNDAlloc(StaticBufferAlloc(), {1}, dl_float32, cpu);
                    DoNotOptimize(t);
                  }),
                  16});
  rows.push_back({"  same, malloc/free of the data", MeasureNs([&](int) {
                    Tensor t = Tensor::FromNDAlloc(MallocAlloc(), {1}, dl_float32, cpu);
                    DoNotOptimize(t);
                  }),
                  0});

  // What allocation-bound rows cannot go below: the object allocation itself.
  rows.push_back({"  reference: make_object<Object-only> + drop", MeasureNs([](int) {
                    ObjectPtr<BareObj> p = make_object<BareObj>();
                    DoNotOptimize(p);
                  }),
                  0});
  rows.push_back({"  reference: malloc(96) + free", MeasureNs([](int) {
                    void* p = std::malloc(96);
                    DoNotOptimize(p);
                    std::free(p);
                  }),
                  0});

  // --- calls with three tensor views -----------------------------------------
  Function f3 = Function::FromTyped([](TensorView a, TensorView b, TensorView c) {
    DoNotOptimize(a.data_ptr());
    DoNotOptimize(b.data_ptr());
    DoNotOptimize(c.data_ptr());
  });
  DLTensor dl[3];
  for (DLTensor& t : dl) t = managed.dl_tensor;
  TensorView v0(&dl[0]), v1(&dl[1]), v2(&dl[2]);
  rows.push_back({"Function(TensorView x3), C++ operator()", MeasureNs([&](int) {
                    Any r = f3(v0, v1, v2);
                    DoNotOptimize(r);
                  }),
                  5});
  TVMFFIObjectHandle f3_handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(f3);
  rows.push_back(
      {"TVMFFIFunctionCall(kTVMFFIDLTensorPtr x3), C API", MeasureNs([&](int) {
         TVMFFIAny args[3] = {TensorPtrAny(&dl[0]), TensorPtrAny(&dl[1]), TensorPtrAny(&dl[2])};
         TVMFFIAny result;
         result.type_index = kTVMFFINone;
         result.zero_padding = 0;
         result.v_int64 = 0;
         int rc = TVMFFIFunctionCall(f3_handle, args, 3, &result);
         DoNotOptimize(rc);
       }),
       5});
  Tensor owned[3] = {Tensor::FromNDAlloc(StaticBufferAlloc(), {4}, dl_float32, cpu),
                     Tensor::FromNDAlloc(StaticBufferAlloc(), {4}, dl_float32, cpu),
                     Tensor::FromNDAlloc(StaticBufferAlloc(), {4}, dl_float32, cpu)};
  rows.push_back({"  same C++ call with three ffi.Tensor args", MeasureNs([&](int) {
                    Any r = f3(owned[0], owned[1], owned[2]);
                    DoNotOptimize(r);
                  }),
                  0});
  AnyView tensor_arg = owned[0];
  rows.push_back({"  AnyView(ffi.Tensor).cast<TensorView>()", MeasureNs([&](int) {
                    TensorView v = tensor_arg.cast<TensorView>();
                    DoNotOptimize(v);
                  }),
                  0});

  // --- environment -------------------------------------------------------
  TVMFFIEnvSetStream(kDLCUDA, 0, &managed, nullptr);  // the thread has a table
  rows.push_back({"TVMFFIEnvGetStream(cuda:0)", MeasureNs([](int) {
                    void* s = TVMFFIEnvGetStream(kDLCUDA, 0);
                    DoNotOptimize(s);
                  }),
                  1.5});
  TVMFFIEnvSetStream(kDLCUDA, 0, nullptr, nullptr);

  int missed = PrintRows(rows, floor_ns, 55);
  std::printf("%d case(s) over target (DLPack deleter ran %lld times)\n", missed,
              static_cast<long long>(g_deleted));
  return 0;
}

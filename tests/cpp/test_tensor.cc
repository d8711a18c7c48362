// Tests of tvm/ffi/container/tensor.h: TensorObj layout, Tensor and
// TensorView accessors on every kind of layout, allocation (NDAlloc, env
// allocator), DLPack import/export through the C API, the Any conversion
// rules of the tensor concept doc, and typed functions taking tensors.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/env.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>

#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tensor_test_util.h"

// The guide's spelling: `ffi::Tensor`, `ffi::GetDataSize`.
namespace ffi = tvm::ffi;

namespace {

using namespace tvm::ffi;
using tensor_test::StrongCount;

constexpr DLDevice kCPU{kDLCPU, 0};

// ---------------------------------------------------------------------------
// Allocators
// ---------------------------------------------------------------------------

// The kernel library guide's CPU allocator, as written there.
struct CPUNDAlloc {
  void AllocData(DLTensor* tensor) { tensor->data = malloc(ffi::GetDataSize(*tensor)); }
  void FreeData(DLTensor* tensor) { free(tensor->data); }
};

// Counts calls; extra AllocData arguments fill the buffer.
struct CountingAlloc {
  static inline int allocs = 0;
  static inline int frees = 0;
  static inline size_t last_bytes = 0;
  static void Reset() { allocs = frees = 0; }
  void AllocData(DLTensor* tensor) {
    last_bytes = GetDataSize(*tensor);
    tensor->data = std::malloc(last_bytes > 0 ? last_bytes : 1);
    ++allocs;
  }
  void AllocData(DLTensor* tensor, unsigned char fill, int* seen) {
    AllocData(tensor);
    std::memset(tensor->data, fill, last_bytes);
    *seen = tensor->ndim;
  }
  void FreeData(DLTensor* tensor) {
    std::free(tensor->data);
    tensor->data = nullptr;
    ++frees;
  }
};

struct ThrowingAlloc {
  static inline int frees = 0;
  void AllocData(DLTensor*) { throw std::runtime_error("no memory today"); }
  void FreeData(DLTensor*) { ++frees; }
};

// A DLPack producer whose deleter counts calls and frees its arrays.
template <typename M>
struct Producer {
  static inline int deleted = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::vector<float> data;
  M managed{};

  static void Deleter(M* self) {
    ++deleted;
    delete static_cast<Producer*>(self->manager_ctx);
  }
  // Heap-allocated: ownership passes to whoever imports it.
  static M* Make(std::vector<int64_t> shape, std::vector<int64_t> strides = {},
                 uint64_t flags = 0) {
    auto* p = new Producer();
    p->shape = std::move(shape);
    p->strides = std::move(strides);
    int64_t n = 1;
    for (int64_t e : p->shape) n *= e;
    p->data.assign(static_cast<size_t>(n > 0 ? n : 1), 1.5f);
    p->managed.dl_tensor.data = p->data.data();
    p->managed.dl_tensor.device = kCPU;
    p->managed.dl_tensor.ndim = static_cast<int32_t>(p->shape.size());
    p->managed.dl_tensor.dtype = dl_float32;
    p->managed.dl_tensor.shape = p->shape.data();
    p->managed.dl_tensor.strides = p->strides.empty() ? nullptr : p->strides.data();
    p->managed.dl_tensor.byte_offset = 0;
    p->managed.manager_ctx = p;
    p->managed.deleter = &Producer::Deleter;
    if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
      p->managed.version.major = DLPACK_MAJOR_VERSION;
      p->managed.version.minor = DLPACK_MINOR_VERSION;
      p->managed.flags = flags;
    }
    return &p->managed;
  }
};
using VersionedProducer = Producer<DLManagedTensorVersioned>;
using LegacyProducer = Producer<DLManagedTensor>;

// A DLTensor that owns its arrays (for views).
struct OwnedDLTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLTensor dl{};
  OwnedDLTensor(void* data, std::vector<int64_t> s, std::vector<int64_t> st = {},
                DLDataType dtype = dl_float32, DLDevice device = kCPU, uint64_t byte_offset = 0)
      : shape(std::move(s)), strides(std::move(st)) {
    dl.data = data;
    dl.device = device;
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = dtype;
    dl.shape = shape.empty() ? nullptr : shape.data();
    dl.strides = strides.empty() ? nullptr : strides.data();
    dl.byte_offset = byte_offset;
  }
};

// ---------------------------------------------------------------------------
// Layout
// ---------------------------------------------------------------------------

TEST_CASE("TensorObj is the object header followed by a DLTensor", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {2, 3}, dl_float32, kCPU);
  TVMFFIObject* header = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(t);
  CHECK(header->type_index == kTVMFFITensor);
  const DLTensor* dl = t.GetDLTensorPtr();
  CHECK(reinterpret_cast<const char*>(dl) == reinterpret_cast<const char*>(header) + 24);
  CHECK(TVMFFITensorGetDLTensorPtr(header) == dl);
  CHECK(static_cast<const DLTensor*>(t.get()) == dl);
  CHECK(t.GetTypeKey() == "ffi.Tensor");
  Tensor again = GetRef<Tensor>(t.get());
  CHECK(again.same_as(t));
  CHECK(t.use_count() == 2);

  CHECK(sizeof(TensorView) == sizeof(DLTensor));
  TensorView view = t;
  CHECK(std::memcmp(&view, dl, sizeof(DLTensor)) == 0);  // same bytes as the DLTensor
  CHECK(view.GetDLTensorPtr() != dl);                    // but its own copy
}

// ---------------------------------------------------------------------------
// Accessors
// ---------------------------------------------------------------------------

template <typename T>
void CheckCompact234(const T& t) {
  CHECK(t.dim() == 3);
  CHECK(t.ndim() == 3);
  CHECK(t.dtype() == dl_float32);
  CHECK(t.sizes() == ShapeView(std::vector<int64_t>{2, 3, 4}));
  CHECK(t.shape() == ShapeView(std::vector<int64_t>{2, 3, 4}));
  CHECK(t.size(0) == 2);
  CHECK(t.size(2) == 4);
  CHECK(t.size(-1) == 4);
  CHECK(t.size(-3) == 2);
  CHECK(t.strides() == ShapeView(std::vector<int64_t>{12, 4, 1}));
  CHECK(t.stride(0) == 12);
  CHECK(t.stride(-1) == 1);
  CHECK(t.stride(-2) == 4);
  CHECK(t.numel() == 24);
  CHECK(t.byte_offset() == 0);
  CHECK(t.is_contiguous());
  CHECK(t.IsContiguous());
  CHECK(t.device().device_type == kDLCPU);
  CHECK(t.device().device_id == 0);
  CHECK(GetDataSize(t) == 96);
  REQUIRE_FFI_ERROR(t.size(3), "IndexError",
                    "size(3): dimension index out of range for a tensor with 3 dimensions "
                    "(expected -3..2)");
  REQUIRE_FFI_ERROR(t.size(-4), "IndexError", "size(-4)");
  REQUIRE_FFI_ERROR(t.stride(3), "IndexError", "stride(3)");
  REQUIRE_FFI_ERROR(t.stride(-4), "IndexError", "stride(-4)");
}

TEST_CASE("byte size: sub-byte types pack, and overflow is detected", "[tensor]") {
  // One formula for GetDataSize and DataTypeBytes (upstream's): 8 x uint1 is one byte.
  const DLDataType u1{kDLUInt, 1, 1};
  const DLDataType i4{kDLInt, 4, 1};
  CHECK(GetDataSize(8, u1) == 1);
  CHECK(GetDataSize(9, u1) == 2);
  CHECK(GetDataSize(3, i4) == 2);
  CHECK(GetDataSize(5, DLDataType{kDLFloat, 32, 4}) == 80);
  CHECK(DataTypeBytes(u1, 8) == static_cast<int64_t>(GetDataSize(8, u1)));
  CHECK(DataTypeBytes(i4, 3) == static_cast<int64_t>(GetDataSize(3, i4)));
  uint64_t numel = 0;
  uint64_t nbytes = 0;
  const int64_t shape[] = {3, 1000, 7};
  REQUIRE(detail::ShapeDataBytes(shape, 3, u1, &numel, &nbytes));
  CHECK(numel == 21000);
  CHECK(nbytes == 2625);
  const int64_t huge[] = {int64_t{1} << 40, int64_t{1} << 20};
  CHECK(detail::ShapeDataBytes(huge, 2, u1, &numel, &nbytes));  // 2^60 bits fit
  CHECK(nbytes == uint64_t{1} << 57);
  CHECK_FALSE(detail::ShapeDataBytes(huge, 2, DLDataType{kDLFloat, 64, 1}, &numel, &nbytes));
  const int64_t negative[] = {2, -1};
  CHECK_FALSE(detail::ShapeDataBytes(negative, 2, u1, &numel, &nbytes));
}

TEST_CASE("accessors of a compact tensor (Tensor, TensorView, DLTensor*)", "[tensor]") {
  CountingAlloc::Reset();
  Tensor t = Tensor::FromNDAlloc(CountingAlloc(), {2, 3, 4}, dl_float32, kCPU);
  REQUIRE(CountingAlloc::allocs == 1);
  CHECK(CountingAlloc::last_bytes == 96);
  CHECK(t.data_ptr() != nullptr);
  CHECK(t.data_ptr() == t.GetDLTensorPtr()->data);
  CHECK(t.IsAligned(1));
  CheckCompact234(t);
  TensorView view = t;
  CheckCompact234(view);
  CHECK(view.data_ptr() == t.data_ptr());
  CHECK(view.strides().data() == t.strides().data());  // borrowed from the object

  // A stride-less DLTensor: compact strides are computed.
  std::vector<float> buffer(24);
  OwnedDLTensor raw(buffer.data(), {2, 3, 4});
  TensorView raw_view(&raw.dl);
  CheckCompact234(raw_view);
  CHECK(GetDataSize(raw.dl) == 96);
  CHECK(IsContiguous(raw.dl));
  // The computed strides are stable arrays, shared by equal shapes.
  const int64_t* first = raw_view.strides().data();
  CHECK(raw_view.strides().data() == first);
  OwnedDLTensor raw2(buffer.data(), {2, 3, 4});
  CHECK(TensorView(&raw2.dl).strides().data() == first);
  OwnedDLTensor raw_1d(buffer.data(), {24});
  CHECK(TensorView(&raw_1d.dl).strides() == ShapeView(std::vector<int64_t>{1}));
  t = Tensor();
  CHECK(CountingAlloc::frees == 1);
}

TEST_CASE("accessors of a strided (non-contiguous) tensor", "[tensor]") {
  CountingAlloc::Reset();
  // Column-major 2x3: a permutation of the compact layout.
  Tensor t = Tensor::FromNDAllocStrided(CountingAlloc(), {2, 3}, {1, 2}, dl_float32, kCPU);
  CHECK(CountingAlloc::last_bytes == 24);
  CHECK(t.strides() == ShapeView(std::vector<int64_t>{1, 2}));
  CHECK(t.stride(0) == 1);
  CHECK(t.stride(-1) == 2);
  CHECK_FALSE(t.is_contiguous());
  CHECK_FALSE(TensorView(t).IsContiguous());
  CHECK(t.numel() == 6);
  CHECK(GetDataSize(t) == 24);

  // A transposed view of a bigger buffer, from a DLTensor.
  std::vector<float> buffer(12);
  OwnedDLTensor raw(buffer.data(), {4, 3}, {1, 4});
  TensorView v(&raw.dl);
  CHECK(v.strides() == ShapeView(std::vector<int64_t>{1, 4}));
  CHECK(v.stride(-2) == 1);
  CHECK_FALSE(v.is_contiguous());

  // Size-1 dimensions never break contiguity, whatever their stride.
  OwnedDLTensor unit(buffer.data(), {2, 1, 3}, {3, 99, 1});
  CHECK(TensorView(&unit.dl).is_contiguous());
  OwnedDLTensor unit_last(buffer.data(), {3, 1}, {1, 7});
  CHECK(IsContiguous(unit_last.dl));
  OwnedDLTensor padded(buffer.data(), {2, 3}, {4, 1});
  CHECK_FALSE(IsContiguous(padded.dl));

  // Strides that leave the compact allocation are refused before allocating.
  int allocs_before = CountingAlloc::allocs;
  REQUIRE_FFI_ERROR(Tensor::FromNDAllocStrided(CountingAlloc(), {2, 3}, {4, 1}, dl_float32, kCPU),
                    "ValueError", "outside the compact allocation of 6 elements");
  REQUIRE_FFI_ERROR(Tensor::FromNDAllocStrided(CountingAlloc(), {2, 3}, {1}, dl_float32, kCPU),
                    "ValueError", "differ in length");
  REQUIRE_FFI_ERROR(Tensor::FromNDAllocStrided(CountingAlloc(), {2, 3}, {-3, 1}, dl_float32, kCPU),
                    "ValueError", "negative stride in dimension 0");
  CHECK(CountingAlloc::allocs == allocs_before);
  t = Tensor();
  CHECK(CountingAlloc::frees == 1);
}

TEST_CASE("accessors of a zero-size tensor", "[tensor]") {
  CountingAlloc::Reset();
  Tensor t = Tensor::FromNDAlloc(CountingAlloc(), {0, 5}, dl_float32, kCPU);
  CHECK(CountingAlloc::last_bytes == 0);
  CHECK(t.numel() == 0);
  CHECK(GetDataSize(t) == 0);
  CHECK(t.size(0) == 0);
  CHECK(t.size(-1) == 5);
  CHECK(t.strides() == ShapeView(std::vector<int64_t>{5, 1}));
  CHECK(t.is_contiguous());
  // A zero-size tensor is contiguous whatever its strides say.
  OwnedDLTensor odd(nullptr, {3, 0}, {7, 7});
  CHECK(TensorView(&odd.dl).is_contiguous());
  CHECK(GetDataSize(odd.dl) == 0);
  // Strides of an empty tensor are not checked against the (empty) allocation.
  Tensor s = Tensor::FromNDAllocStrided(CountingAlloc(), {0, 4}, {100, 1}, dl_float32, kCPU);
  CHECK(s.stride(0) == 100);
}

TEST_CASE("accessors of a zero-dimensional tensor", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {}, dl_float64, kCPU);
  for (TensorView v : {TensorView(t)}) {
    CHECK(v.dim() == 0);
    CHECK(v.sizes().empty());
    CHECK(v.strides().empty());
    CHECK(v.numel() == 1);
    CHECK(GetDataSize(v) == 8);
    CHECK(v.is_contiguous());
    REQUIRE_FFI_ERROR(v.size(0), "IndexError", "size(0): a 0-dimensional tensor has no dimensions");
    REQUIRE_FFI_ERROR(v.stride(-1), "IndexError", "stride(-1)");
  }
  CHECK(t.ndim() == 0);
  CHECK(t.shape().size() == 0);
  CHECK(t.numel() == 1);
  *static_cast<double*>(t.data_ptr()) = 2.5;
  CHECK(*static_cast<double*>(TensorView(t).data_ptr()) == 2.5);
  // A raw 0-d DLTensor may have NULL shape and strides.
  double value = 1;
  OwnedDLTensor raw(&value, {}, {}, dl_float64);
  TensorView rv(&raw.dl);
  CHECK(rv.shape().data() == nullptr);
  CHECK(rv.strides().size() == 0);
  CHECK(rv.numel() == 1);
}

TEST_CASE("byte_offset: data_ptr adds it on direct-address devices", "[tensor]") {
  alignas(64) float buffer[32] = {};
  OwnedDLTensor raw(buffer, {4}, {}, dl_float32, kCPU, /*byte_offset=*/8);
  TensorView v(&raw.dl);
  CHECK(v.byte_offset() == 8);
  CHECK(v.data_ptr() == static_cast<void*>(buffer + 2));
  CHECK(v.IsAligned(8));
  CHECK_FALSE(v.IsAligned(16));
  CHECK(IsAligned(raw.dl, 8));
  CHECK_FALSE(IsAligned(raw.dl, 64));
  CHECK(IsAligned(raw.dl, 0));  // no requirement

  OwnedDLTensor cuda(reinterpret_cast<void*>(0x10000), {4}, {}, dl_float32, DLDevice{kDLCUDA, 0},
                     16);
  CHECK(TensorView(&cuda.dl).data_ptr() == reinterpret_cast<void*>(0x10010));
  // On an opaque-handle device data is a handle: the offset stays separate.
  OwnedDLTensor vulkan(reinterpret_cast<void*>(0x1001), {4}, {}, dl_float32, DLDevice{kDLVulkan, 0},
                       32);
  TensorView vv(&vulkan.dl);
  CHECK(vv.data_ptr() == reinterpret_cast<void*>(0x1001));
  CHECK(vv.IsAligned(32));  // only byte_offset counts there
  CHECK_FALSE(vv.IsAligned(64));

  // A Tensor viewing an offset into another (as_strided, through the C API).
  Tensor base = Tensor::FromNDAlloc(CPUNDAlloc(), {8}, dl_float32, kCPU);
  Tensor tail = base.as_strided({4}, {1}, 4);
  CHECK(tail.byte_offset() == 0);  // folded into data on a CPU (as upstream)
  CHECK(tail.data_ptr() == static_cast<char*>(base.data_ptr()) + 16);
  CHECK(tail.numel() == 4);
  CHECK(base.use_count() == 2);  // the view keeps its source alive
  // A TensorView borrows the new shape/strides arrays: keep them alive.
  std::vector<int64_t> half_shape{4}, step_two{2};
  TensorView every_other = TensorView(base).as_strided(half_shape, step_two, 1);
  CHECK(every_other.stride(0) == 2);
  CHECK(every_other.shape().data() == half_shape.data());
  CHECK(every_other.byte_offset() == 0);
  CHECK(every_other.data_ptr() == static_cast<char*>(base.data_ptr()) + 4);
  // Where data is an opaque handle the offset stays in byte_offset.
  int64_t one = 1;
  TensorView vulkan_tail = vv.as_strided(ShapeView(&one, 1), ShapeView(&one, 1), 2);
  CHECK(vulkan_tail.byte_offset() == 32 + 8);
  CHECK(vulkan_tail.data_ptr() == reinterpret_cast<void*>(0x1001));
  REQUIRE_FFI_ERROR(base.as_strided({2, 2}, {1}), "ValueError", "differ in length");
  REQUIRE_FFI_ERROR(base.as_strided({2}, {1}, -1), "ValueError", "negative element_offset");
}

TEST_CASE("null tensors are refused with ValueError", "[tensor]") {
  Tensor null;
  CHECK_FALSE(null.defined());
  CHECK(null.GetDLTensorPtr() == nullptr);
  REQUIRE_FFI_ERROR(null.ndim(), "ValueError", "accessing a null Tensor");
  REQUIRE_FFI_ERROR(null.data_ptr(), "ValueError", "null Tensor");
  REQUIRE_FFI_ERROR(TensorView(null), "ValueError", "cannot make a TensorView of a null Tensor");
  const DLTensor* none = nullptr;
  REQUIRE_FFI_ERROR(TensorView(none), "ValueError", "NULL DLTensor*");
  REQUIRE_FFI_ERROR(null.ToDLPack(), "ValueError", "NULL");
  REQUIRE_FFI_ERROR(null.ToDLPackVersioned(), "ValueError", "NULL");
}

// ---------------------------------------------------------------------------
// FromNDAlloc
// ---------------------------------------------------------------------------

TEST_CASE("FromNDAlloc: allocator kept in the object, FreeData once at the end", "[tensor]") {
  CountingAlloc::Reset();
  {
    int seen_ndim = -1;
    Tensor a = Tensor::FromNDAlloc(CountingAlloc(), std::vector<int64_t>{4, 4}, dl_uint8, kCPU,
                                   static_cast<unsigned char>(7), &seen_ndim);
    CHECK(seen_ndim == 2);  // the extra arguments reached AllocData
    CHECK(static_cast<unsigned char*>(a.data_ptr())[15] == 7);
    CHECK(CountingAlloc::allocs == 1);
    Tensor b = a;
    CHECK(a.use_count() == 2);
    a = Tensor();
    CHECK(CountingAlloc::frees == 0);
    Any held = b;
    b = Tensor();
    CHECK(CountingAlloc::frees == 0);
  }
  CHECK(CountingAlloc::allocs == 1);
  CHECK(CountingAlloc::frees == 1);

  // Shape arguments: ShapeView, Shape, std::vector, braced list.
  Shape shape{3, 2};
  std::vector<int64_t> vec{3, 2};
  Tensor from_shape = Tensor::FromNDAlloc(CountingAlloc(), shape, dl_int32, kCPU);
  Tensor from_view = Tensor::FromNDAlloc(CountingAlloc(), ShapeView(vec), dl_int32, kCPU);
  Tensor from_vec = Tensor::FromNDAlloc(CountingAlloc(), vec, dl_int32, kCPU);
  for (const Tensor& t : {from_shape, from_view, from_vec}) {
    CHECK(t.shape() == shape);
    CHECK(t.shape().data() != vec.data());  // the object keeps its own copy
    CHECK(GetDataSize(t) == 24);
  }
}

TEST_CASE("FromNDAlloc: recycled blocks, other threads, weak references", "[tensor]") {
  CountingAlloc::Reset();
  int made = 0;
  auto make = [&made](int i) {
    ++made;
    // 1 to 3 dimensions share one block size; 9 are larger than a recycled block.
    std::vector<int64_t> shape(i % 4 == 3 ? 9 : static_cast<size_t>(i % 3 + 1), 2);
    Tensor t = Tensor::FromNDAlloc(CountingAlloc(), shape, dl_float32, kCPU);
    REQUIRE(t.shape().size() == shape.size());
    REQUIRE(t.stride(0) == t.numel() / 2);
    return t;
  };
  {
    // More alive at once than a thread keeps, then all released.
    std::vector<Tensor> alive;
    for (int i = 0; i < 100; ++i) alive.push_back(make(i));
    alive.clear();
    // Made and dropped one by one: blocks come back.
    for (int i = 0; i < 100; ++i) make(i);
  }
  CHECK(CountingAlloc::frees == made);
  {
    // Made on one thread, dropped on another, and the threads end.
    std::vector<Tensor> from_worker;
    std::thread worker([&] {
      for (int i = 0; i < 40; ++i) from_worker.push_back(make(i));
    });
    worker.join();
    std::vector<Tensor> to_worker;
    for (int i = 0; i < 40; ++i) to_worker.push_back(make(i));
    std::thread dropper([&] {
      to_worker.clear();
      from_worker.clear();
    });
    dropper.join();
  }
  CHECK(CountingAlloc::frees == made);
  {
    // A weak reference outlives the data: FreeData at the last strong one.
    Tensor t = make(0);
    WeakObjectPtr<TensorObj> weak(detail::ObjectUnsafe::ObjectPtrFromObjectRef<TensorObj>(t));
    t = Tensor();
    CHECK(weak.expired());
    CHECK(CountingAlloc::frees == made);
  }
  CHECK(CountingAlloc::allocs == made);
}

TEST_CASE("FromNDAlloc: an over-aligned allocator object", "[tensor]") {
  struct alignas(64) AlignedAlloc {
    int* frees;
    void AllocData(DLTensor* t) { t->data = std::malloc(GetDataSize(*t)); }
    void FreeData(DLTensor* t) {
      std::free(t->data);
      ++*frees;
    }
  };
  int frees = 0;
  {
    Tensor t = Tensor::FromNDAlloc(AlignedAlloc{&frees}, {2, 3}, dl_float32, kCPU);
    CHECK(reinterpret_cast<uintptr_t>(t.get()) % 64 == 0);
    CHECK(t.shape() == ShapeView({2, 3}));
    CHECK(t.stride(0) == 3);
  }
  CHECK(frees == 1);
}

TEST_CASE("FromNDAlloc: the guide's CPUNDAlloc", "[tensor]") {
  ffi::Tensor cpu_tensor = ffi::Tensor::FromNDAlloc(CPUNDAlloc(), {16}, dl_float32, kCPU);
  float* data = static_cast<float*>(cpu_tensor.data_ptr());
  for (int i = 0; i < 16; ++i) data[i] = static_cast<float>(i);
  ffi::TensorView view = cpu_tensor;
  CHECK(static_cast<float*>(view.data_ptr())[15] == 15.0f);
  CHECK(ffi::GetDataSize(view) == 64);
}

TEST_CASE("FromNDAlloc: failures", "[tensor]") {
  CountingAlloc::Reset();
  REQUIRE_FFI_ERROR(Tensor::FromNDAlloc(CountingAlloc(), {2, -1}, dl_float32, kCPU), "ValueError",
                    "FromNDAlloc: shape [2, -1] has a negative extent in dimension 1");
  CHECK(CountingAlloc::allocs == 0);
  ThrowingAlloc::frees = 0;
  CHECK_THROWS_AS(Tensor::FromNDAlloc(ThrowingAlloc(), {2}, dl_float32, kCPU), std::runtime_error);
  CHECK(ThrowingAlloc::frees == 0);  // nothing was allocated, nothing freed (ASan: no leak)
}

// ---------------------------------------------------------------------------
// FromEnvAlloc
// ---------------------------------------------------------------------------

int g_env_allocs = 0;
int CountingEnvAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* ctx,
                         void (*SetError)(void*, const char*, const char*)) {
  ++g_env_allocs;
  return CPUTensorAllocator(prototype, out, ctx, SetError);
}
int FailingEnvAllocator(DLTensor*, DLManagedTensorVersioned**, void* ctx,
                        void (*SetError)(void*, const char*, const char*)) {
  SetError(ctx, "MemoryError", "the test allocator is out of memory");
  return -1;
}

// Clears this thread's and the global allocator for a scope, restoring both after.
struct NoGlobalAllocator {
  EnvTensorAllocatorGuard thread_clear{nullptr};
  DLPackManagedTensorAllocator saved = nullptr;
  // With the thread's own setting cleared, "the one in effect" is the global one.
  NoGlobalAllocator() { TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 1, &saved); }
  ~NoGlobalAllocator() { TVMFFIEnvSetDLPackManagedTensorAllocator(saved, 1, nullptr); }
};

TEST_CASE("FromEnvAlloc: uses the installed allocator", "[tensor]") {
  NoGlobalAllocator clean;
  EnvTensorAllocatorGuard guard(CountingEnvAllocator);
  g_env_allocs = 0;
  // The upstream test's call, with a braced shape.
  Tensor tensor = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {1, 2, 3},
                                       DLDataType({kDLFloat, 32, 1}), DLDevice({kDLCPU, 0}));
  CHECK(g_env_allocs == 1);
  CHECK(tensor.use_count() == 1);
  CHECK(tensor.shape().size() == 3);
  CHECK(tensor.size(0) == 1);
  CHECK(tensor.size(1) == 2);
  CHECK(tensor.size(2) == 3);
  CHECK(tensor.dtype() == dl_float32);
  CHECK(tensor.device().device_type == kDLCPU);
  CHECK(tensor.data_ptr() != nullptr);
  CHECK(tensor.IsAligned(64));
  CHECK(tensor.strides() == ShapeView(std::vector<int64_t>{6, 3, 1}));
  // The guide's `{max_c_tmp_size}` with a long, and a Shape.
  long n = 10;
  Tensor tmp = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {n}, dl_float32, tensor.device());
  CHECK(tmp.numel() == 10);
  Tensor from_shape = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, Shape{2, 2}, dl_int8, kCPU);
  CHECK(from_shape.numel() == 4);
  CHECK(g_env_allocs == 3);
}

TEST_CASE("FromEnvAlloc: no allocator is a RuntimeError", "[tensor]") {
  NoGlobalAllocator clean;
  EnvTensorAllocatorGuard none(nullptr);
  REQUIRE_FFI_ERROR(Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, dl_float32, kCPU),
                    "RuntimeError", "no tensor allocator is set");
}

TEST_CASE("FromEnvAlloc: the allocator's own error passes through", "[tensor]") {
  EnvTensorAllocatorGuard guard(FailingEnvAllocator);
  REQUIRE_FFI_ERROR(Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, dl_float32, kCPU),
                    "MemoryError", "the test allocator is out of memory");
  EnvTensorAllocatorGuard cpu(CPUTensorAllocator);
  REQUIRE_FFI_ERROR(
      Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4}, dl_float32, DLDevice{kDLCUDA, 1}),
      "ValueError", "can only allocate on cpu, not on cuda:1");
  REQUIRE_FFI_ERROR(Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4, -2}, dl_float32, kCPU),
                    "ValueError", "FromEnvAlloc: shape [4, -2] has a negative extent");
  REQUIRE_FFI_ERROR(Tensor::FromEnvAlloc(nullptr, {4}, dl_float32, kCPU), "ValueError",
                    "env_alloc is NULL");
}

// A fake env_alloc that reports success but hands back the wrong thing.
int EnvAllocReturningShape(DLTensor*, TVMFFIObjectHandle* out) {
  Shape s{1};
  *out = detail::ObjectUnsafe::MoveObjectRefToTVMFFIObjectPtr(std::move(s));
  return 0;
}
int EnvAllocReturningNothing(DLTensor*, TVMFFIObjectHandle* out) {
  *out = nullptr;
  return 0;
}

TEST_CASE("FromEnvAlloc: a misbehaving env_alloc is reported, not trusted", "[tensor]") {
  REQUIRE_FFI_ERROR(Tensor::FromEnvAlloc(EnvAllocReturningShape, {1}, dl_float32, kCPU),
                    "RuntimeError", "returned a `ffi.Shape` instead of an ffi.Tensor");
  REQUIRE_FFI_ERROR(Tensor::FromEnvAlloc(EnvAllocReturningNothing, {1}, dl_float32, kCPU),
                    "RuntimeError", "returned no tensor");
}

// ---------------------------------------------------------------------------
// DLPack
// ---------------------------------------------------------------------------

TEST_CASE("FromDLPackVersioned: zero copy, deleter once at the last reference", "[tensor]") {
  VersionedProducer::deleted = 0;
  DLManagedTensorVersioned* m = VersionedProducer::Make({2, 3});
  void* data = m->dl_tensor.data;
  Tensor t = Tensor::FromDLPackVersioned(m);
  CHECK(t.data_ptr() == data);
  CHECK(t.shape() == ShapeView(std::vector<int64_t>{2, 3}));
  CHECK(t.strides() == ShapeView(std::vector<int64_t>{3, 1}));  // filled in by the import
  CHECK(static_cast<float*>(t.data_ptr())[5] == 1.5f);
  Tensor copy = t;
  t = Tensor();
  CHECK(VersionedProducer::deleted == 0);
  copy = Tensor();
  CHECK(VersionedProducer::deleted == 1);
}

TEST_CASE("DLPack round trips keep the data pointer and call each deleter once", "[tensor]") {
  CountingAlloc::Reset();
  Tensor t = Tensor::FromNDAlloc(CountingAlloc(), {4, 5}, dl_float32, kCPU);
  TVMFFIObject* handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(t);

  SECTION("versioned") {
    DLManagedTensorVersioned* exported = t.ToDLPackVersioned();
    CHECK(exported->version.major == DLPACK_MAJOR_VERSION);
    CHECK(exported->dl_tensor.data == t.data_ptr());
    CHECK(exported->flags == 0);
    CHECK(StrongCount(handle) == 2);  // the export holds a reference
    Tensor back = Tensor::FromDLPackVersioned(exported);
    CHECK(back.data_ptr() == t.data_ptr());
    CHECK(back.shape() == t.shape());
    CHECK_FALSE(back.same_as(t));
    back = Tensor();  // runs the export's deleter, which drops its reference
    CHECK(StrongCount(handle) == 1);
  }
  SECTION("legacy") {
    DLManagedTensor* exported = t.ToDLPack();
    CHECK(exported->dl_tensor.data == t.data_ptr());
    CHECK(StrongCount(handle) == 2);
    Tensor back = Tensor::FromDLPack(exported);
    CHECK(back.data_ptr() == t.data_ptr());
    CHECK(back.strides() == t.strides());
    back = Tensor();
    CHECK(StrongCount(handle) == 1);
  }
  SECTION("export deleter without import") {
    DLManagedTensorVersioned* exported = t->ToDLPackVersioned();
    CHECK(StrongCount(handle) == 2);
    exported->deleter(exported);
    CHECK(StrongCount(handle) == 1);
  }
  CHECK(CountingAlloc::frees == 0);
  t = Tensor();
  CHECK(CountingAlloc::frees == 1);
}

TEST_CASE("DLPack: a producer's tensor imported, exported and re-imported", "[tensor]") {
  LegacyProducer::deleted = 0;
  DLManagedTensor* m = LegacyProducer::Make({3});
  void* data = m->dl_tensor.data;
  Tensor t = Tensor::FromDLPack(m);
  DLManagedTensorVersioned* out = t.ToDLPackVersioned();
  t = Tensor();
  CHECK(LegacyProducer::deleted == 0);  // the export keeps it alive
  Tensor again = Tensor::FromDLPackVersioned(out);
  CHECK(again.data_ptr() == data);
  again = Tensor();
  CHECK(LegacyProducer::deleted == 1);
}

TEST_CASE("DLPack: the read-only flag is kept", "[tensor]") {
  VersionedProducer::deleted = 0;
  Tensor t =
      Tensor::FromDLPackVersioned(VersionedProducer::Make({2}, {}, DLPACK_FLAG_BITMASK_READ_ONLY));
  DLManagedTensorVersioned* out = t.ToDLPackVersioned();
  CHECK((out->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
  Tensor again = Tensor::FromDLPackVersioned(out);
  DLManagedTensorVersioned* out2 = again.ToDLPackVersioned();
  CHECK((out2->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0);
  out2->deleter(out2);
  again = Tensor();
  t = Tensor();
  CHECK(VersionedProducer::deleted == 1);
}

TEST_CASE("DLPack import failures: ValueError and the deleter still runs once", "[tensor]") {
  SECTION("misaligned") {
    VersionedProducer::deleted = 0;
    DLManagedTensorVersioned* m = VersionedProducer::Make({4});
    m->dl_tensor.byte_offset = 4;  // 4 bytes into a float buffer: not 64-aligned
    REQUIRE_FFI_ERROR(Tensor::FromDLPackVersioned(m, 64), "ValueError", "not aligned to 64");
    CHECK(VersionedProducer::deleted == 1);
  }
  SECTION("not contiguous") {
    LegacyProducer::deleted = 0;
    DLManagedTensor* m = LegacyProducer::Make({2, 3}, {1, 2});
    REQUIRE_FFI_ERROR(Tensor::FromDLPack(m, 0, true), "ValueError", "not contiguous");
    CHECK(LegacyProducer::deleted == 1);
  }
  SECTION("contiguity accepted when required and present") {
    LegacyProducer::deleted = 0;
    Tensor ok = Tensor::FromDLPack(LegacyProducer::Make({2, 3}, {3, 1}), 4, true);
    CHECK(ok.is_contiguous());
    ok = Tensor();
    CHECK(LegacyProducer::deleted == 1);
  }
  SECTION("major version") {
    VersionedProducer::deleted = 0;
    DLManagedTensorVersioned* m = VersionedProducer::Make({4});
    m->version.major = 2;
    REQUIRE_FFI_ERROR(Tensor::FromDLPackVersioned(m), "ValueError", "major version");
    CHECK(VersionedProducer::deleted == 1);
  }
  SECTION("negative extent") {
    VersionedProducer::deleted = 0;
    DLManagedTensorVersioned* m = VersionedProducer::Make({4});
    m->dl_tensor.shape[0] = -4;
    REQUIRE_FFI_ERROR(Tensor::FromDLPackVersioned(m), "ValueError", "negative extent");
    CHECK(VersionedProducer::deleted == 1);
  }
  SECTION("alignment beyond the C API's int32") {
    VersionedProducer::deleted = 0;
    DLManagedTensorVersioned* m = VersionedProducer::Make({4});
    REQUIRE_FFI_ERROR(Tensor::FromDLPackVersioned(m, size_t{1} << 40), "ValueError",
                      "require_alignment 1099511627776 is larger than the C API accepts");
    CHECK(VersionedProducer::deleted == 1);
  }
  SECTION("NULL") {
    REQUIRE_FFI_ERROR(Tensor::FromDLPack(nullptr), "ValueError", "NULL");
  }
}

// ---------------------------------------------------------------------------
// Any conversions (the tensor concept doc)
// ---------------------------------------------------------------------------

TEST_CASE("Any: Tensor is owned, TensorView is borrowed as kTVMFFIDLTensorPtr", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {2, 2}, dl_float32, kCPU);
  TVMFFIObject* handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(t);
  {
    Any owned = t;
    CHECK(owned.type_index() == kTVMFFITensor);
    CHECK(StrongCount(handle) == 2);
    CHECK(owned.cast<Tensor>().same_as(t));
    TensorView v = owned.cast<TensorView>();
    CHECK(v.data_ptr() == t.data_ptr());
    CHECK(owned.as<TensorView>().has_value());
    CHECK(owned.as<Tensor>().has_value());
  }
  CHECK(StrongCount(handle) == 1);

  AnyView borrowed = t;
  CHECK(borrowed.type_index() == kTVMFFITensor);
  CHECK(StrongCount(handle) == 1);
  CHECK(borrowed.cast<Tensor>().same_as(t));
  CHECK(borrowed.cast<TensorView>().numel() == 4);

  TensorView view = t;
  AnyView as_view = view;
  TVMFFIAny raw = as_view.CopyToTVMFFIAny();
  CHECK(raw.type_index == kTVMFFIDLTensorPtr);
  CHECK(raw.zero_padding == 0);
  CHECK(raw.v_ptr == view.GetDLTensorPtr());
  CHECK(StrongCount(handle) == 1);  // no reference taken
}

TEST_CASE("Any: a borrowed DLTensor* converts to TensorView, never to Tensor", "[tensor]") {
  std::vector<float> buffer(6, 0.5f);
  OwnedDLTensor raw(buffer.data(), {2, 3});
  AnyView view = &raw.dl;
  CHECK(view.type_index() == kTVMFFIDLTensorPtr);
  TensorView tv = view.cast<TensorView>();
  CHECK(tv.data_ptr() == buffer.data());
  CHECK(tv.shape().data() == raw.shape.data());
  CHECK(view.as<TensorView>().has_value());

  CHECK_FALSE(view.try_cast<Tensor>().has_value());
  CHECK_FALSE(view.as<Tensor>().has_value());
  REQUIRE_FFI_ERROR(view.cast<Tensor>(), "TypeError",
                    "a borrowed DLTensor cannot be owned: it cannot be converted to an owning "
                    "ffi.Tensor");
  // Making it owned is refused by the runtime as well.
  auto err = tensor_test::CaptureError([&] { Any owned = view; });
  REQUIRE(err.has_value());
  CHECK(err->kind() == "TypeError");

  // A NULL DLTensor* is no tensor at all.
  AnyView null_view = static_cast<DLTensor*>(nullptr);
  CHECK_FALSE(null_view.try_cast<TensorView>().has_value());
  REQUIRE_FFI_ERROR(null_view.cast<TensorView>(), "TypeError", "None (a NULL DLTensor*)");

  AnyView number = 1;
  REQUIRE_FFI_ERROR(number.cast<TensorView>(), "TypeError",
                    "Cannot convert from type `int` to `DLTensor*`");
  REQUIRE_FFI_ERROR(number.cast<Tensor>(), "TypeError",
                    "Cannot convert from type `int` to `ffi.Tensor`");
  AnyView none;
  CHECK_FALSE(none.try_cast<TensorView>().has_value());
  CHECK_FALSE(none.cast<Tensor>().defined());  // Tensor is nullable: None is a null Tensor
  Shape shape{1};
  CHECK_FALSE(AnyView(shape).try_cast<TensorView>().has_value());
  CHECK_FALSE(AnyView(shape).try_cast<Tensor>().has_value());
}

// The tensor concept doc's C conversions, written against the C++ types.
TEST_CASE("Any: the concept doc's conversions agree with the C++ traits", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {3}, dl_float32, kCPU);
  AnyView owned_view = t;
  TVMFFIAny value = owned_view.CopyToTVMFFIAny();
  // AnyToDLTensorView on a kTVMFFITensor: object + sizeof(TVMFFIObject).
  DLTensor* dl =
      reinterpret_cast<DLTensor*>(reinterpret_cast<char*>(value.v_obj) + sizeof(TVMFFIObject));
  CHECK(dl == t.GetDLTensorPtr());
  CHECK(owned_view.cast<TensorView>().data_ptr() == dl->data);
}

// ---------------------------------------------------------------------------
// Typed functions
// ---------------------------------------------------------------------------

TEST_CASE("typed functions accept every tensor parameter form", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {2, 5}, dl_float32, kCPU);
  TVMFFIObject* handle = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(t);
  std::vector<float> buffer(10);
  OwnedDLTensor raw(buffer.data(), {10});
  DLTensor* raw_ptr = &raw.dl;
  TensorView view = t;

  Function by_value = Function::FromTyped([](Tensor x) { return x.numel(); });
  Function by_ref = Function::FromTyped([](const Tensor& x) { return x.use_count(); });
  Function by_view = Function::FromTyped([](TensorView x) { return x.numel(); });
  Function by_const_view = Function::FromTyped([](const TensorView& x) { return x.size(-1); });

  CHECK(by_value(t).cast<int64_t>() == 10);
  CHECK(StrongCount(handle) == 1);
  CHECK(by_ref(t).cast<int>() >= 1);
  CHECK(by_view(t).cast<int64_t>() == 10);
  CHECK(by_view(raw_ptr).cast<int64_t>() == 10);
  CHECK(by_view(view).cast<int64_t>() == 10);
  CHECK(by_const_view(raw_ptr).cast<int64_t>() == 10);
  CHECK(by_const_view(t).cast<int64_t>() == 5);
  CHECK(StrongCount(handle) == 1);  // views never take a reference

  // Owning parameters refuse borrowed tensors, naming the reason.
  REQUIRE_FFI_ERROR(by_value(raw_ptr), "TypeError",
                    "Mismatched type on argument #0 when calling: `(0: ffi.Tensor) -> int`. "
                    "Expected `ffi.Tensor` but got `DLTensor* (a borrowed DLTensor cannot be "
                    "owned");
  REQUIRE_FFI_ERROR(by_ref(view), "TypeError", "a borrowed DLTensor cannot be owned");
  REQUIRE_FFI_ERROR(by_view(1), "TypeError",
                    "Mismatched type on argument #0 when calling: `(0: DLTensor*) -> int`. "
                    "Expected `DLTensor*` but got `int`");
  REQUIRE_FFI_ERROR(by_view(static_cast<DLTensor*>(nullptr)), "TypeError",
                    "but got `None (a NULL DLTensor*)`");
  REQUIRE_FFI_ERROR(by_view(nullptr), "TypeError", "but got `None`");

  // Several views: the fast path checks and reads each argument in one step
  // and stops at the first that is not a tensor; that one is reported.
  Function three = Function::FromTyped([](TensorView a, TensorView b, TensorView c) {
    return a.numel() + b.numel() * 100 + c.numel() * 10000;
  });
  CHECK(three(t, raw_ptr, view).cast<int64_t>() == 10 + 1000 + 100000);
  REQUIRE_FFI_ERROR(three(t, static_cast<DLTensor*>(nullptr), 1), "TypeError",
                    "Mismatched type on argument #1 when calling: "
                    "`(0: DLTensor*, 1: DLTensor*, 2: DLTensor*) -> int`. "
                    "Expected `DLTensor*` but got `None (a NULL DLTensor*)`");
  REQUIRE_FFI_ERROR(three(t, view, "x"), "TypeError", "Mismatched type on argument #2");
}

TEST_CASE("typed functions: Optional<Tensor> and Optional<TensorView>", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {7}, dl_float32, kCPU);
  std::vector<float> buffer(3);
  OwnedDLTensor raw(buffer.data(), {3});
  DLTensor* null_dl = nullptr;

  Function opt_tensor = Function::FromTyped(
      [](Optional<Tensor> x) -> int64_t { return x.has_value() ? x.value().numel() : -1; });
  Function opt_view = Function::FromTyped(
      [](Optional<TensorView> x) -> int64_t { return x.has_value() ? x.value().numel() : -1; });
  Function std_opt_view = Function::FromTyped(
      [](std::optional<TensorView> x) -> int64_t { return x ? x->numel() : -1; });
  Function std_opt_tensor =
      Function::FromTyped([](std::optional<Tensor> x) -> int64_t { return x ? x->numel() : -1; });

  for (const Function& f : {opt_tensor, opt_view, std_opt_view, std_opt_tensor}) {
    CHECK(f(nullptr).cast<int64_t>() == -1);   // None
    CHECK(f(Tensor()).cast<int64_t>() == -1);  // a null Tensor is None
    CHECK(f(null_dl).cast<int64_t>() == -1);   // a NULL DLTensor*
    CHECK(f(t).cast<int64_t>() == 7);
  }
  CHECK(opt_view(&raw.dl).cast<int64_t>() == 3);
  CHECK(std_opt_view(&raw.dl).cast<int64_t>() == 3);
  REQUIRE_FFI_ERROR(opt_tensor(&raw.dl), "TypeError", "a borrowed DLTensor cannot be owned");
  REQUIRE_FFI_ERROR(opt_view(2.5), "TypeError", "Expected `Optional<DLTensor*>` but got `float`");

  // The guide's kernel signature, called with a None optional input.
  std::vector<float> out(7), ws(7);
  OwnedDLTensor out_dl(out.data(), {7}), ws_dl(ws.data(), {7});
  Function kernel =
      Function::FromTyped([](ffi::TensorView input, ffi::Optional<ffi::Tensor> optional_input,
                             ffi::TensorView output, ffi::TensorView workspace) {
        TVM_FFI_CHECK(input.numel() == output.numel(), ValueError) << "size mismatch";
        const float* in = static_cast<const float*>(input.data_ptr());
        float* o = static_cast<float*>(output.data_ptr());
        for (int64_t i = 0; i < input.numel(); ++i) o[i] = in[i] + (optional_input ? 1.0f : 0.0f);
        (void)workspace;
      });
  static_cast<float*>(t.data_ptr())[6] = 4.0f;
  kernel(t, nullptr, &out_dl.dl, &ws_dl.dl);
  CHECK(out[6] == 4.0f);
  kernel(t, t, &out_dl.dl, &ws_dl.dl);
  CHECK(out[6] == 5.0f);
  REQUIRE_FFI_ERROR(kernel(t, nullptr, &raw.dl, &ws_dl.dl), "ValueError", "size mismatch");
}

TEST_CASE("typed functions: returning a Tensor, three views through the C API", "[tensor]") {
  Function make = Function::FromTyped([](int64_t n) {
    return Tensor::FromNDAlloc(CPUNDAlloc(), {n}, dl_float32, DLDevice{kDLCPU, 0});
  });
  Any result = make(6);
  CHECK(result.type_index() == kTVMFFITensor);
  Tensor made = result.cast<Tensor>();
  CHECK(made.numel() == 6);
  CHECK(made.use_count() == 2);  // result and made

  // The guide's dtype dispatch and checks.
  Function add = Function::FromTyped([](TensorView a, TensorView b, TensorView c) {
    TVM_FFI_CHECK(a.numel() == b.numel() && a.numel() == c.numel(), ValueError) << "size mismatch";
    if (a.dtype() == dl_float32) {
      const float* x = static_cast<const float*>(a.data_ptr());
      const float* y = static_cast<const float*>(b.data_ptr());
      float* z = static_cast<float*>(c.data_ptr());
      for (int64_t i = 0; i < a.numel(); ++i) z[i] = x[i] + y[i];
    } else {
      TVM_FFI_THROW(TypeError) << "Unsupported dtype: " << a.dtype();
    }
  });
  std::vector<float> x{1, 2, 3}, y{10, 20, 30}, z(3);
  OwnedDLTensor xd(x.data(), {3}), yd(y.data(), {3}), zd(z.data(), {3});
  TVMFFIAny args[3];
  DLTensor* ptrs[3] = {&xd.dl, &yd.dl, &zd.dl};
  for (int i = 0; i < 3; ++i) {
    args[i].type_index = kTVMFFIDLTensorPtr;
    args[i].zero_padding = 0;
    args[i].v_ptr = ptrs[i];
  }
  TVMFFIAny ret;
  ret.type_index = kTVMFFINone;
  ret.zero_padding = 0;
  ret.v_int64 = 0;
  TVMFFIObjectHandle fh = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(add);
  REQUIRE(TVMFFIFunctionCall(fh, args, 3, &ret) == 0);
  CHECK(ret.type_index == kTVMFFINone);
  CHECK(z == std::vector<float>{11, 22, 33});
  std::vector<int32_t> ints(3);
  OwnedDLTensor id(ints.data(), {3}, {}, dl_int32);
  REQUIRE_FFI_ERROR(add(&id.dl, &id.dl, &id.dl), "TypeError", "Unsupported dtype: int32");
}

TEST_CASE("stride-less views: compact strides from many threads at once", "[tensor]") {
  std::atomic<int> failures{0};
  auto worker = [&](int seed) {
    for (int i = 0; i < 200; ++i) {
      int64_t a = 1 + (i + seed) % 7, b = 2 + i % 5;
      OwnedDLTensor raw(nullptr, {a, b, 3});
      TensorView v(&raw.dl);
      ShapeView st = v.strides();
      if (st.size() != 3 || st[0] != b * 3 || st[1] != 3 || st[2] != 1) ++failures;
      if (v.stride(0) != b * 3) ++failures;
    }
  };
  std::thread t1(worker, 0), t2(worker, 3);
  worker(5);
  t1.join();
  t2.join();
  CHECK(failures == 0);
}

TEST_CASE("typed functions: a raw const TensorObj* parameter", "[tensor]") {
  Tensor t = Tensor::FromNDAlloc(CPUNDAlloc(), {3, 3}, dl_float32, kCPU);
  Function f =
      Function::FromTyped([](const TensorObj* obj) { return static_cast<int64_t>(obj->ndim); });
  CHECK(f(t).cast<int64_t>() == 2);
  CHECK(t.use_count() == 1);
  std::vector<float> buffer(9);
  OwnedDLTensor raw(buffer.data(), {9});
  REQUIRE_FFI_ERROR(f(&raw.dl), "TypeError", "Mismatched type on argument #0");
}

}  // namespace

// The guide's export pattern: a void kernel of two TensorViews, exported as
// `__tvm_ffi_tensor_test_scale` and called the way a loader would.
void TensorTestScale(ffi::TensorView input, ffi::TensorView output) {
  TVM_FFI_CHECK(input.numel() == output.numel(), ValueError) << "size mismatch";
  TVM_FFI_CHECK(input.dtype() == ffi::dl_float32, TypeError)
      << "Unsupported dtype: " << input.dtype();
  const float* x = static_cast<const float*>(input.data_ptr());
  float* y = static_cast<float*>(output.data_ptr());
  for (int64_t i = 0; i < input.numel(); ++i) y[i] = 2 * x[i];
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(tensor_test_scale, TensorTestScale);

namespace {

TEST_CASE("TVM_FFI_DLL_EXPORT_TYPED_FUNC with TensorView parameters", "[tensor]") {
  std::vector<float> x{1, 2, 3}, y(3);
  OwnedDLTensor xd(x.data(), {3}), yd(y.data(), {3});
  TVMFFIAny args[2];
  DLTensor* ptrs[2] = {&xd.dl, &yd.dl};
  for (int i = 0; i < 2; ++i) {
    args[i].type_index = kTVMFFIDLTensorPtr;
    args[i].zero_padding = 0;
    args[i].v_ptr = ptrs[i];
  }
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  REQUIRE(__tvm_ffi_tensor_test_scale(nullptr, args, 2, &result) == 0);
  CHECK(y == std::vector<float>{2, 4, 6});
  // An owned Tensor works as the output too.
  Tensor out = Tensor::FromNDAlloc(CPUNDAlloc(), {3}, dl_float32, kCPU);
  args[1].type_index = kTVMFFITensor;
  args[1].v_obj = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(out);
  REQUIRE(__tvm_ffi_tensor_test_scale(nullptr, args, 2, &result) == 0);
  CHECK(static_cast<float*>(out.data_ptr())[2] == 6.0f);
  // Errors come back as -1 with the error raised, naming the function.
  args[1].type_index = kTVMFFIInt;
  args[1].v_int64 = 3;
  REQUIRE(__tvm_ffi_tensor_test_scale(nullptr, args, 2, &result) == -1);
  auto err = tensor_test::CaptureError([] { detail::ThrowRaisedError(-1); });
  REQUIRE(err.has_value());
  CHECK(err->kind() == "TypeError");
  CHECK_THAT(err->message(),
             Catch::Matchers::ContainsSubstring(
                 "Mismatched type on argument #1 when calling: `tensor_test_scale("));
}

}  // namespace

/*
 * Tensor objects and DLPack import/export.
 *
 * A Tensor is the 24-byte object header immediately followed by a DLTensor
 * (the ABI), then private bookkeeping and, when needed, inline shape/stride
 * storage.
 */
#include <cstdlib>
#include <new>

#include <tvm/ffi/details/tensor_geometry.h>

#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

enum class TensorOrigin : int32_t {
  kLegacyDLPack = 0,     // owns a DLManagedTensor
  kVersionedDLPack = 1,  // owns a DLManagedTensorVersioned
  kView = 2,             // holds a reference to another Tensor
};

struct TensorObject {
  TVMFFIObject header;
  DLTensor dl;
  TensorOrigin origin;
  bool pooled;     // a block of the per-thread pool (kPoolBlock bytes)
  uint64_t flags;  // DLPack flags, reported again on versioned export
  void* managed;
  TVMFFIObject* source;
  // followed by optional int64_t storage for shape / strides
};
static_assert(offsetof(TensorObject, dl) == sizeof(TVMFFIObject));
static_assert(sizeof(TensorObject) % alignof(int64_t) == 0);

using ::tvm::ffi::IsAligned;
using ::tvm::ffi::IsContiguous;
using ::tvm::ffi::kMaxNDim;
using ::tvm::ffi::details::FillCompactStrides;
// First type code of user-defined dtypes (`custom[name]`), as upstream.
constexpr uint8_t kCustomTypeCodeBegin = 129;

int64_t* TailOf(TensorObject* t) { return reinterpret_cast<int64_t*>(t + 1); }
void TensorDeleter(void* self, int flags);

// Tensor blocks with room for up to kPooledDims dimensions of shape and
// strides are recycled per thread: otherwise a malloc and a free are most of
// a DLPack import and its release. They are plain malloc blocks of one size,
// so a block freed on another thread joins that thread's pool. Sanitizer
// builds skip the pool, so that use-after-free stays visible.
constexpr size_t kPooledDims = 4;
constexpr size_t kPoolBlock = sizeof(TensorObject) + 2 * kPooledDims * sizeof(int64_t);
constexpr int kPoolMax = 64;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kUsePool = false;
#else
constexpr bool kUsePool = true;
#endif

struct TensorPool {  // trivially destructible: valid until the thread is gone
  void* head;
  int count;
  bool closed;
};
// Initial-exec TLS, as env.cc's hot state: one load, no __tls_get_addr.
__attribute__((tls_model("initial-exec"))) thread_local TensorPool tl_pool{nullptr, 0, false};

// Its destructor frees the blocks when the thread ends; armed by the first put.
struct TensorPoolCloser {
  bool armed = false;
  ~TensorPoolCloser() {
    tl_pool.closed = true;
    while (tl_pool.head != nullptr) {
      void* next = *static_cast<void**>(tl_pool.head);
      std::free(tl_pool.head);
      tl_pool.head = next;
    }
    tl_pool.count = 0;
  }
};
__attribute__((tls_model("initial-exec"))) thread_local TensorPoolCloser tl_pool_closer;

TensorObject* AllocTensor(size_t size) {
  TVMFFIObject* obj;
  bool pooled = false;
  if (kUsePool && size <= kPoolBlock) {
    pooled = true;
    if (tl_pool.head != nullptr) {
      void* mem = tl_pool.head;
      tl_pool.head = *static_cast<void**>(mem);
      --tl_pool.count;
      obj = InitObjectHeader(mem, kTVMFFITensor, TensorDeleter);
    } else {
      obj = AllocObject(kPoolBlock, kTVMFFITensor, TensorDeleter);
    }
  } else {
    obj = AllocObject(size, kTVMFFITensor, TensorDeleter);
  }
  auto* t = reinterpret_cast<TensorObject*>(obj);
  t->pooled = pooled;
  return t;
}

void FreeTensor(TensorObject* t) {
  if (t->pooled && !tl_pool.closed && tl_pool.count < kPoolMax) {
    tl_pool_closer.armed = true;
    *reinterpret_cast<void**>(t) = tl_pool.head;
    tl_pool.head = t;
    ++tl_pool.count;
    return;
  }
  FreeObjectMemory(t);
}

void TensorDeleter(void* self, int flags) {
  auto* t = static_cast<TensorObject*>(self);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    switch (t->origin) {
      case TensorOrigin::kLegacyDLPack: {
        auto* m = static_cast<DLManagedTensor*>(t->managed);
        if (m != nullptr && m->deleter != nullptr) m->deleter(m);
        break;
      }
      case TensorOrigin::kVersionedDLPack: {
        auto* m = static_cast<DLManagedTensorVersioned*>(t->managed);
        if (m != nullptr && m->deleter != nullptr) m->deleter(m);
        break;
      }
      case TensorOrigin::kView:
        DecRef(t->source);
        break;
    }
    t->managed = nullptr;
    t->source = nullptr;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeTensor(t);
}

// Flags of a tensor we created; a Tensor made by another binary has none we know of.
uint64_t FlagsOf(const TVMFFIObject* obj) {
  if (obj->deleter != TensorDeleter) return 0;
  return reinterpret_cast<const TensorObject*>(obj)->flags;
}

// The one checked layout computation for imports and views: ValueError on
// anything malformed, and on any shape, stride, size or offset arithmetic that
// would overflow int64 (so later stride/size code can compute unchecked).
// Accepted on purpose: negative strides (DLPack allows them; `data` +
// `byte_offset` is then not the lowest address) and type codes >= 129
// (user-defined `custom[...]` types).
[[noreturn]] TVMFFI_RT_COLD void ThrowTooLarge(const char* api, const char* what,
                                                  const char* part) {
  Throw("ValueError", api, ": ", what, " is too large: its ", part, " overflows int64");
}

void ValidateShape(const DLTensor& t, const char* api, const char* what) {
  if (t.ndim < 0 || t.ndim > kMaxNDim) {
    Throw("ValueError", api, ": ", what, " has ndim ", t.ndim, ", expected 0..", kMaxNDim);
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    Throw("ValueError", api, ": ", what, " has ndim ", t.ndim, " but a NULL shape");
  }
  const DLDataType dt = t.dtype;
  if (dt.bits == 0 || dt.lanes == 0) {
    Throw("ValueError", api, ": ", what, " has a dtype with ", static_cast<int>(dt.bits), " bits and ",
          static_cast<int>(dt.lanes), " lanes; both must be nonzero");
  }
  if (dt.code > kDLFloat4_e2m1fn && dt.code < kCustomTypeCodeBegin) {
    Throw("ValueError", api, ": ", what, " has an unknown dtype type code ",
          static_cast<int>(dt.code));
  }
  if (!IsValidDeviceType(t.device.device_type)) {
    Throw("ValueError", api, ": ", what, " has an invalid device type ",
          static_cast<int64_t>(t.device.device_type), " (DLPack defines 1..18)");
  }
  if (t.device.device_id < 0) {
    Throw("ValueError", api, ": ", what, " has a negative device id ", t.device.device_id);
  }
  for (int32_t i = 0; i < t.ndim; ++i) {
    if (TVMFFI_RT_UNLIKELY(t.shape[i] < 0)) {
      Throw("ValueError", api, ": ", what, " has a negative extent ", t.shape[i], " in dimension ",
            i);
    }
  }
  // The element count, as suffix products: they are also the compact strides
  // a stride-less tensor is given, so each must fit, even where a zero extent
  // makes the count 0.
  int64_t numel = 1;
  bool overflow = false;
  for (int32_t i = t.ndim - 1; i >= 0; --i) {
    overflow |= __builtin_mul_overflow(numel, t.shape[i], &numel);
  }
  if (TVMFFI_RT_UNLIKELY(overflow)) ThrowTooLarge(api, what, "shape (compact strides)");
  // Elements addressed past the first one: sum of (extent - 1) * |stride|.
  int64_t span = numel == 0 ? 0 : numel - 1;
  if (numel != 0 && t.strides != nullptr) {
    span = 0;
    for (int32_t i = 0; i < t.ndim; ++i) {
      const int64_t stride = t.strides[i];
      int64_t step = 0;
      const bool unrepresentable = stride == INT64_MIN;  // |stride| does not fit
      const int64_t magnitude = unrepresentable ? 0 : (stride < 0 ? -stride : stride);
      overflow |= unrepresentable;
      overflow |= __builtin_mul_overflow(t.shape[i] - 1, magnitude, &step);
      overflow |= __builtin_add_overflow(span, step, &span);
    }
    if (TVMFFI_RT_UNLIKELY(overflow)) ThrowTooLarge(api, what, "strides");
  }
  // Bits of the elements and up to the last addressed element: each must fit
  // 64 bits (so every byte count below is under 2^61), and the bytes up to
  // the last addressed element after byte_offset must fit int64.
  const uint64_t elem_bits = static_cast<uint64_t>(dt.bits) * dt.lanes;
  uint64_t bits = 0, end_bits = 0, end = 0;
  if (TVMFFI_RT_UNLIKELY(__builtin_mul_overflow(static_cast<uint64_t>(numel), elem_bits, &bits))) {
    ThrowTooLarge(api, what, "size in bytes");
  }
  if (TVMFFI_RT_UNLIKELY(
          __builtin_mul_overflow(static_cast<uint64_t>(span) + 1, elem_bits, &end_bits))) {
    ThrowTooLarge(api, what, "strides");
  }
  if (TVMFFI_RT_UNLIKELY(__builtin_add_overflow(t.byte_offset, end_bits / 8, &end) ||
                         end > static_cast<uint64_t>(INT64_MAX))) {
    Throw("ValueError", api, ": ", what, " has byte_offset ", t.byte_offset,
          ": the addressed bytes would overflow int64");
  }
  if (t.data == nullptr && numel != 0) {
    Throw("ValueError", api, ": ", what, " has NULL data but ", numel, " elements");
  }
}

void ValidateImport(const DLTensor& t, int32_t require_alignment, int32_t require_contiguous,
                    const char* api) {
  ValidateShape(t, api, "the DLPack tensor");
  if (require_alignment > 0) {
    if (!IsAligned(t, static_cast<size_t>(require_alignment))) {
      Throw("ValueError", api, ": data is not aligned to ", require_alignment,
            " bytes (data=", t.data, ", byte_offset=", t.byte_offset, ")");
    }
  }
  if (require_contiguous != 0 && !IsContiguous(t)) {
    Throw("ValueError", api, ": the DLPack tensor is not contiguous (compact row-major)");
  }
}

template <typename M>
TVMFFIObject* Import(M* from, bool versioned, int32_t require_alignment, int32_t require_contiguous,
                     bool out_missing, const char* api) {
  CheckNotNull(from, api, "from");
  // From here on we own `from`: any failure runs its deleter exactly once.
  try {
    if (out_missing) ThrowNullArgument(api, "out");

    uint64_t flags = 0;
    if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
      if (from->version.major != DLPACK_MAJOR_VERSION) {
        Throw("ValueError", api, ": unsupported DLPack major version ", from->version.major,
              " (expected ", DLPACK_MAJOR_VERSION, ")");
      }
      flags = from->flags;
    }
    const DLTensor& src = from->dl_tensor;
    ValidateImport(src, require_alignment, require_contiguous, api);
    // DLPack >= 1.2 consumers expect strides: synthesise compact ones if absent.
    bool fill_strides = src.strides == nullptr && src.ndim > 0;
    size_t tail = fill_strides ? static_cast<size_t>(src.ndim) : 0;
    TensorObject* t = AllocTensor(sizeof(TensorObject) + tail * sizeof(int64_t));
    TVMFFIObject* obj = &t->header;
    t->dl = src;
    t->origin = versioned ? TensorOrigin::kVersionedDLPack : TensorOrigin::kLegacyDLPack;
    t->flags = flags;
    t->managed = from;
    t->source = nullptr;
    if (fill_strides) {
      t->dl.strides = TailOf(t);
      FillCompactStrides(src.shape, src.ndim, t->dl.strides);
    }
    return obj;
  } catch (...) {
    if (from->deleter != nullptr) from->deleter(from);
    throw;
  }
}

void CheckTensor(const TVMFFIObject* obj, const char* api, const char* arg) {
  if (!ObjectIsInstance(obj, kTVMFFITensor)) {
    Throw("TypeError", api, ": argument `", arg, "` must be an ffi.Tensor, got `",
          TypeIndexToKey(obj->type_index), "`");
  }
}

// The exported struct is one malloc block: the managed tensor and, if the
// Tensor has no strides, compact strides after it.
template <typename M>
void ExportDeleter(M* self) {
  if (self == nullptr) return;
  DecRef(static_cast<TVMFFIObject*>(self->manager_ctx));
  std::free(self);
}

template <typename M>
M* Export(TVMFFIObject* obj) {
  const DLTensor* dl = TVMFFITensorGetDLTensorPtr(obj);
  bool fill_strides = dl->strides == nullptr && dl->ndim > 0;
  size_t extra = fill_strides ? static_cast<size_t>(dl->ndim) * sizeof(int64_t) : 0;
  size_t head = (sizeof(M) + alignof(int64_t) - 1) / alignof(int64_t) * alignof(int64_t);
  void* mem = TVMFFI_RT_MALLOC(head + extra);
  if (mem == nullptr) throw std::bad_alloc();
  M* m = new (mem) M();
  m->dl_tensor = *dl;
  if (fill_strides) {
    m->dl_tensor.strides = reinterpret_cast<int64_t*>(static_cast<char*>(mem) + head);
    FillCompactStrides(dl->shape, dl->ndim, m->dl_tensor.strides);
  }
  m->manager_ctx = obj;
  m->deleter = ExportDeleter<M>;
  IncRef(obj);
  return m;
}

}  // namespace

TVMFFIObject* TensorFromManagedVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                         int32_t require_contiguous, const char* api) {
  return Import(from, true, require_alignment, require_contiguous, false, api);
}

}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" {

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVMFFIObject* obj = Import(from, false, require_alignment, require_contiguous, out == nullptr,
                             "TVMFFITensorFromDLPack");
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVMFFIObject* obj = Import(from, true, require_alignment, require_contiguous, out == nullptr,
                             "TVMFFITensorFromDLPackVersioned");
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(from, "TVMFFITensorToDLPack", "from");
  CheckNotNull(out, "TVMFFITensorToDLPack", "out");
  auto* obj = static_cast<TVMFFIObject*>(from);
  CheckTensor(obj, "TVMFFITensorToDLPack", "from");
  *out = Export<DLManagedTensor>(obj);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPackVersioned(TVMFFIObjectHandle from, DLManagedTensorVersioned** out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(from, "TVMFFITensorToDLPackVersioned", "from");
  CheckNotNull(out, "TVMFFITensorToDLPackVersioned", "out");
  auto* obj = static_cast<TVMFFIObject*>(from);
  CheckTensor(obj, "TVMFFITensorToDLPackVersioned", "from");
  DLManagedTensorVersioned* m = Export<DLManagedTensorVersioned>(obj);
  m->version.major = DLPACK_MAJOR_VERSION;
  m->version.minor = DLPACK_MINOR_VERSION;
  m->flags = FlagsOf(obj);
  *out = m;
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorCreateUnsafeView(TVMFFIObjectHandle source, const DLTensor* prototype,
                                 TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  const char* api = "TVMFFITensorCreateUnsafeView";
  CheckNotNull(source, api, "source");
  CheckNotNull(prototype, api, "prototype");
  CheckNotNull(out, api, "out");
  auto* src = static_cast<TVMFFIObject*>(source);
  CheckTensor(src, api, "source");
  ValidateShape(*prototype, api, "the prototype");
  int32_t ndim = prototype->ndim;
  TensorObject* t = AllocTensor(sizeof(TensorObject) + 2 * static_cast<size_t>(ndim) * sizeof(int64_t));
  TVMFFIObject* obj = &t->header;
  t->dl = *prototype;
  t->origin = TensorOrigin::kView;
  t->flags = FlagsOf(src);
  t->managed = nullptr;
  t->source = src;
  IncRef(src);
  // Own copies: the prototype's arrays are only borrowed for this call.
  int64_t* shape = TailOf(t);
  int64_t* strides = shape + ndim;
  if (ndim > 0) {
    std::memcpy(shape, prototype->shape, sizeof(int64_t) * ndim);
    if (prototype->strides != nullptr) {
      std::memcpy(strides, prototype->strides, sizeof(int64_t) * ndim);
    } else {
      FillCompactStrides(shape, ndim, strides);
    }
    t->dl.shape = shape;
    t->dl.strides = strides;
  } else {
    t->dl.shape = nullptr;
    t->dl.strides = nullptr;
  }
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"

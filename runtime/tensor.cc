/*
 * Tensor objects and DLPack import/export.
 *
 * A Tensor is the C++ layer's TensorObj (the object header immediately
 * followed by a DLTensor: the ABI), then private bookkeeping and, when
 * needed, inline shape/stride storage.
 */
#include <cstdio>
#include <cstdlib>
#include <new>

#include <tvm/ffi/container/tensor.h>
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

// Made on AllocObject memory (or a pooled block), never constructed.
struct TensorObject : ::tvm::ffi::TensorObj {
  TensorOrigin origin;
  bool pooled;     // a block of the per-thread pool (kPoolBlock bytes)
  uint64_t flags;  // DLPack flags, reported again on versioned export
  // What the tensor holds, by origin: the DLManagedTensor(Versioned) whose
  // deleter runs once, or the viewed tensor (a reference).
  void* owner;
  // followed by optional int64_t storage for shape / strides
};
static_assert(sizeof(TensorObject) % alignof(int64_t) == 0);

TVMFFIObject* HeaderOf(TensorObject* t) {
  return ::tvm::ffi::detail::ObjectUnsafe::GetHeader(t);
}
DLTensor& DLOf(TensorObject* t) {
  return *t;
}

using ::tvm::ffi::IsAligned;
using ::tvm::ffi::IsContiguous;
using ::tvm::ffi::kMaxNDim;
using ::tvm::ffi::detail::FillCompactStrides;
using ::tvm::ffi::detail::kCustomTypeCodeBegin;

int64_t* TailOf(TensorObject* t) {
  return reinterpret_cast<int64_t*>(t + 1);
}
void TensorDeleter(void* self, int flags);
void PooledTensorDeleter(void* self, int flags);

// Tensor blocks with room for up to kPooledDims dimensions of shape and
// strides are recycled per thread: otherwise a malloc and a free are most of
// a DLPack import and its release. They are plain malloc blocks of one size,
// so a block freed on another thread joins that thread's pool. Sanitizer
// builds skip the pool, so that use-after-free stays visible (and hold the
// import's fast checks to the full ones, see ValidateShape).
constexpr size_t kPooledDims = 4;
constexpr size_t kPoolBlock = sizeof(TensorObject) + 2 * kPooledDims * sizeof(int64_t);
constexpr int kPoolMax = 64;
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TVMFFI_RT_SANITIZING 1  // clang's spelling
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(TVMFFI_RT_SANITIZING)
constexpr bool kUsePool = false;
#else
constexpr bool kUsePool = true;
#endif

// The C++ layer's per-thread block pool (container/tensor.h), this library's
// own instance. Initial-exec TLS, as env.cc's hot state: one load, no
// __tls_get_addr.
using TensorPool = ::tvm::ffi::detail::ThreadBlockPool<kPoolMax>;
__attribute__((tls_model("initial-exec"))) thread_local TensorPool tl_pool{nullptr, nullptr, 0,
                                                                           false, false};

// Its destructor frees the blocks when the thread ends. A thread_local with a
// destructor is reached through a guard (and __tls_get_addr), so it is touched
// once per thread, on the first put.
struct TensorPoolCloser {
  ~TensorPoolCloser() {
    tl_pool.Drain([](void* block) { std::free(block); });
  }
  void Arm() { tl_pool.armed = true; }
};
thread_local TensorPoolCloser tl_pool_closer;

TVMFFI_RT_NOINLINE TensorObject* AllocTensorSlow(size_t size) {
  const bool pooled = kUsePool && size <= kPoolBlock;
  TVMFFIObject* obj = AllocObject(pooled ? kPoolBlock : size, kTVMFFITensor,
                                  pooled ? PooledTensorDeleter : TensorDeleter);
  auto* t = reinterpret_cast<TensorObject*>(obj);
  t->pooled = pooled;
  return t;
}

// A block of this thread's pool, or NULL when it has none.
inline TensorObject* PopPooled() {
  void* mem = tl_pool.Take();
  if (mem == nullptr) return nullptr;
  // A pooled block was a tensor of ours: only the counts (where a link may
  // have been) need resetting; type index, deleter (PooledTensorDeleter) and
  // `pooled` are still set.
  auto* t = static_cast<TensorObject*>(mem);
  HeaderOf(t)->combined_ref_count = ::tvm::ffi::detail::kCombinedRefCountBothOne;
  return t;
}

TensorObject* AllocTensor(size_t size) {
  if (kUsePool && size <= kPoolBlock) {
    if (TensorObject* t = PopPooled()) return t;
  }
  return AllocTensorSlow(size);
}

TVMFFI_RT_NOINLINE void ArmPoolCloser() {
  tl_pool_closer.Arm();
}

void FreeTensor(TensorObject* t) {
  if (t->pooled && tl_pool.Put(t, ArmPoolCloser)) return;
  FreeObjectMemory(t);
}

// Hand a tensor's owner back: the producer's deleter (exactly once), or the
// reference to the viewed tensor. Takes the fields, not the tensor, so that
// the block can be recycled first and this be the deleter's last (tail) call.
// Imports come first; their owner is never NULL (Import checks `from`).
inline void ReleaseOwner(TensorOrigin origin, void* owner) {
  if (TVMFFI_RT_LIKELY(origin == TensorOrigin::kVersionedDLPack)) {
    auto* m = static_cast<DLManagedTensorVersioned*>(owner);
    if (m->deleter != nullptr) m->deleter(m);
  } else if (origin == TensorOrigin::kLegacyDLPack) {
    auto* m = static_cast<DLManagedTensor*>(owner);
    if (m->deleter != nullptr) m->deleter(m);
  } else {
    DecRef(static_cast<TVMFFIObject*>(owner));
  }
}

TVMFFI_RT_NOINLINE void TensorDeleterSlow(TensorObject* t, int flags) {
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    ReleaseOwner(t->origin, t->owner);
    t->owner = nullptr;
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeTensor(t);
}

void TensorDeleter(void* self, int flags) {
  TensorDeleterSlow(static_cast<TensorObject*>(self), flags);
}

// The deleter of pool-sized blocks.
void PooledTensorDeleter(void* self, int flags) {
  auto* t = static_cast<TensorObject*>(self);
  // The usual case -- no weak references, this thread's slot free -- with no
  // frame: the block takes the slot, then the owner goes (a tail call).
  if (TVMFFI_RT_LIKELY(flags == kTVMFFIObjectDeleterFlagBitMaskBoth) && tl_pool.PutInSlot(t)) {
    ReleaseOwner(t->origin, t->owner);  // the slot holds the block: its fields are intact
    return;
  }
  TensorDeleterSlow(t, flags);
}

// Flags of a tensor we created; a Tensor made by another binary has none we know of.
uint64_t FlagsOf(const TVMFFIObject* obj) {
  if (obj->deleter != TensorDeleter && obj->deleter != PooledTensorDeleter) return 0;
  return reinterpret_cast<const TensorObject*>(obj)->flags;
}

// The one checked layout computation for imports and views: ValueError on
// anything malformed, and on any shape, stride, size or offset arithmetic that
// would overflow int64 (so later stride/size code can compute unchecked).
// Accepted on purpose: negative strides (DLPack allows them; `data` +
// `byte_offset` is then not the lowest address) and type codes >= 129
// (user-defined `custom[...]` types).
[[noreturn]] TVM_FFI_COLD_CODE void ThrowTooLarge(const char* api, const char* what,
                                                  const char* part) {
  Throw("ValueError", api, ": ", what, " is too large: its ", part, " overflows int64");
}

TVMFFI_RT_NOINLINE void ValidateShapeFull(const DLTensor& t, const char* api, const char* what) {
  if (t.ndim < 0 || t.ndim > kMaxNDim) {
    Throw("ValueError", api, ": ", what, " has ndim ", t.ndim, ", expected 0..", kMaxNDim);
  }
  if (t.ndim > 0 && t.shape == nullptr) {
    Throw("ValueError", api, ": ", what, " has ndim ", t.ndim, " but a NULL shape");
  }
  const DLDataType dt = t.dtype;
  if (dt.bits == 0 || dt.lanes == 0) {
    Throw("ValueError", api, ": ", what, " has a dtype with ", static_cast<int>(dt.bits),
          " bits and ", static_cast<int>(dt.lanes), " lanes; both must be nonzero");
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

// ValidateShapeFull's common case in one pass (tensor_geometry.h, shared with
// the Python extension's borrowed tensors): false for anything else -- an
// error, or merely another layout: ValidateShapeFull decides those and throws
// the precise error. kFill (imports): a stride-less tensor's compact strides
// are written to `fill` on the way; false also when it has more than
// kPooledDims dimensions (no room in a pool block).
template <bool kFill = false>
inline bool IsPlainValidShape(const DLTensor& t, int64_t* fill = nullptr) {
  return ::tvm::ffi::detail::IsPlainValidTensor<kFill, static_cast<int32_t>(kPooledDims)>(t, fill);
}

inline void ValidateShape(const DLTensor& t, const char* api, const char* what) {
  if (!kUsePool) {
    // Sanitizer builds (the fuzzers among them) make every check and hold the
    // fast verdict to it: a layout IsPlainValidShape accepts must pass.
    const bool plain = IsPlainValidShape(t);
    try {
      ValidateShapeFull(t, api, what);
    } catch (...) {
      ::tvm::ffi::detail::RethrowIfForcedUnwind();
      if (plain) {
        std::fprintf(stderr, "%s: IsPlainValidShape accepted %s that ValidateShapeFull rejects\n",
                     api, what);
        std::abort();
      }
      throw;
    }
    return;
  }
  if (TVMFFI_RT_UNLIKELY(!IsPlainValidShape(t))) ValidateShapeFull(t, api, what);
}

[[noreturn]] TVM_FFI_COLD_CODE void ThrowNotAligned(const DLTensor& t, int32_t require_alignment,
                                                    const char* api) {
  Throw("ValueError", api, ": data is not aligned to ", require_alignment, " bytes (data=", t.data,
        ", byte_offset=", t.byte_offset, ")");
}

[[noreturn]] TVM_FFI_COLD_CODE void ThrowNotContiguous(const char* api) {
  Throw("ValueError", api, ": the DLPack tensor is not contiguous (compact row-major)");
}

inline void ValidateImport(const DLTensor& t, int32_t require_alignment, int32_t require_contiguous,
                           const char* api) {
  ValidateShape(t, api, "the DLPack tensor");
  if (require_alignment > 0 && !IsAligned(t, static_cast<size_t>(require_alignment))) {
    ThrowNotAligned(t, require_alignment, api);
  }
  if (require_contiguous != 0 && !IsContiguous(t)) ThrowNotContiguous(api);
}

// The tensor object t becomes `from`'s: its DLTensor, origin, flags and owner.
template <typename M>
inline __attribute__((always_inline)) void TakeOver(TensorObject* t, M* from) {
  DLOf(t) = from->dl_tensor;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    t->origin = TensorOrigin::kVersionedDLPack;
    t->flags = from->flags;
  } else {
    t->origin = TensorOrigin::kLegacyDLPack;
    t->flags = 0;
  }
  t->owner = from;
}

// Fill a new tensor object that takes over `from` (already validated).
template <typename M>
TVMFFIObject* FillImported(TensorObject* t, M* from, bool fill_strides) {
  const DLTensor& src = from->dl_tensor;
  TakeOver(t, from);
  if (fill_strides) {
    t->strides = TailOf(t);
    FillCompactStrides(src.shape, src.ndim, t->strides);
  }
  return HeaderOf(t);
}

// DLPack >= 1.2 consumers expect strides: an import synthesises compact ones
// if the producer gave none.
inline bool NeedsStrides(const DLTensor& src) {
  return src.strides == nullptr && src.ndim > 0;
}

// The common import of a non-NULL `from`, without exception frames: a known
// version, a plain valid layout (see IsPlainValidShape) and a block in this
// thread's pool. NULL when any of that is not so; then Import decides, with
// every check. (Inlined: in the C entries the fast path then needs no frame.)
template <typename M>
inline __attribute__((always_inline)) TVMFFIObject* TryImportPlain(M* from) {
  if (!kUsePool) return nullptr;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    if (TVMFFI_RT_UNLIKELY(from->version.major != DLPACK_MAJOR_VERSION)) return nullptr;
  }
  // The block first: the check writes a stride-less tensor's strides into it.
  TensorObject* t = PopPooled();
  if (TVMFFI_RT_UNLIKELY(t == nullptr)) return nullptr;
  const DLTensor& src = from->dl_tensor;
  if (TVMFFI_RT_UNLIKELY(!IsPlainValidShape<true>(src, TailOf(t)))) {
    tl_pool.slot = t;  // back: PopPooled left the slot empty
    return nullptr;
  }
  TakeOver(t, from);
  if (NeedsStrides(src)) t->strides = TailOf(t);  // filled by the check
  return HeaderOf(t);
}

template <typename M>
TVMFFI_RT_NOINLINE TVMFFIObject* Import(M* from, int32_t require_alignment,
                                        int32_t require_contiguous, bool out_missing,
                                        const char* api) {
  CheckNotNull(from, api, "from");
  // From here on we own `from`: any failure runs its deleter exactly once.
  try {
    if (out_missing) ThrowNullArgument(api, "out");
    if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
      if (from->version.major != DLPACK_MAJOR_VERSION) {
        Throw("ValueError", api, ": unsupported DLPack major version ", from->version.major,
              " (expected ", DLPACK_MAJOR_VERSION, ")");
      }
    }
    const DLTensor& src = from->dl_tensor;
    ValidateImport(src, require_alignment, require_contiguous, api);
    const bool fill_strides = NeedsStrides(src);
    size_t tail = fill_strides ? static_cast<size_t>(src.ndim) : 0;
    return FillImported(AllocTensor(sizeof(TensorObject) + tail * sizeof(int64_t)), from,
                        fill_strides);
  } catch (...) {
    if (from->deleter != nullptr) from->deleter(from);
    throw;
  }
}

// The C entries' checked path (after TryImportPlain declined): every check,
// errors as -1 and the raised error; out of line, so that the fast path
// needs no frame.
template <typename M>
TVMFFI_RT_NOINLINE int ImportEntry(M* from, int32_t require_alignment, int32_t require_contiguous,
                                   TVMFFIObjectHandle* out, const char* api) {
  TVM_FFI_SAFE_CALL_BEGIN();
  TVMFFIObject* obj = Import(from, require_alignment, require_contiguous, out == nullptr, api);
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
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

// Both DLPack imports: the plain layout without requirements takes the
// fast path; anything else (and every refusal) goes through ImportEntry.
template <typename Managed>
inline int ImportFromDLPack(Managed* from, int32_t require_alignment, int32_t require_contiguous,
                            TVMFFIObjectHandle* out, const char* api) {
  if (TVMFFI_RT_UNLIKELY(from == nullptr || out == nullptr || require_alignment > 0 ||
                         require_contiguous != 0)) {
    return ImportEntry(from, require_alignment, require_contiguous, out, api);
  }
  TVMFFIObject* obj = TryImportPlain(from);
  // No requirement (a non-positive alignment is none): the checked path gets zeros.
  if (TVMFFI_RT_UNLIKELY(obj == nullptr)) return ImportEntry(from, 0, 0, out, api);
  *out = obj;
  return 0;
}

}  // namespace rt
}  // namespace tvmffi

namespace tvmffi {
namespace rt {
namespace {

// Whether a tensor's strides (non-NULL) are the compact ones of its shape
// (dimensions of extent 1 may say anything).
bool CompactStrides(const DLTensor* t) {
  int64_t expected = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expected) return false;
    if (__builtin_mul_overflow(expected, t->shape[i], &expected)) return false;
  }
  return true;
}

// "[2, 3] dtype (code 2, bits 32, lanes 1) on device 1:0" (strides too when not
// compact), for the allocator's mismatch message.
std::string DescribeAllocation(const DLTensor* t) {
  std::string out = "[";
  for (int i = 0; i < t->ndim; ++i) {
    if (i != 0) out += ", ";
    out += std::to_string(t->shape[i]);
  }
  if (t->strides != nullptr && !CompactStrides(t)) {
    out += "] strides [";
    for (int i = 0; i < t->ndim; ++i) out += Concat(i ? ", " : "", t->strides[i]);
  }
  return Concat(out, "] dtype (code ", static_cast<int>(t->dtype.code), ", bits ",
                static_cast<int>(t->dtype.bits), ", lanes ", t->dtype.lanes, ") on device ",
                static_cast<int>(t->device.device_type), ":", t->device.device_id);
}

// Whether the allocator's tensor is what was asked for: same shape, dtype
// and device, compact (a kernel writes `prototype`'s extents into it).
inline bool SameAllocation(const DLTensor* prototype, const DLTensor* got) {
  uint32_t dt_a, dt_b;
  std::memcpy(&dt_a, &got->dtype, sizeof(dt_a));
  std::memcpy(&dt_b, &prototype->dtype, sizeof(dt_b));
  if (got->ndim != prototype->ndim || dt_a != dt_b ||
      got->device.device_type != prototype->device.device_type ||
      got->device.device_id != prototype->device.device_id) {
    return false;
  }
  for (int i = 0; i < got->ndim; ++i) {
    if (got->shape[i] != prototype->shape[i]) return false;
  }
  // A kernel writes the new tensor as compact: strides, when given, must be
  // the compact ones (a negative or padded stride would send its writes
  // outside the block; dimensions of extent 1 may say anything).
  return got->strides == nullptr || CompactStrides(got);
}

// On a mismatch the tensor is released and the call fails, naming both.
[[noreturn]] TVM_FFI_COLD_CODE void RefuseAllocation(const DLTensor* prototype, TVMFFIObject* obj) {
  const DLTensor* got = TVMFFITensorGetDLTensorPtr(obj);
  std::string what =
      Concat("TVMFFIEnvTensorAlloc: the allocator returned a tensor of shape ",
             DescribeAllocation(got), ", not the requested ", DescribeAllocation(prototype));
  DecRef(obj);
  Throw("RuntimeError", what);
}

}  // namespace
}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" {

int TVMFFITensorFromDLPack(DLManagedTensor* from, int32_t require_alignment,
                           int32_t require_contiguous, TVMFFIObjectHandle* out) {
  return ImportFromDLPack(from, require_alignment, require_contiguous, out,
                          "TVMFFITensorFromDLPack");
}

int TVMFFITensorFromDLPackVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                    int32_t require_contiguous, TVMFFIObjectHandle* out) {
  return ImportFromDLPack(from, require_alignment, require_contiguous, out,
                          "TVMFFITensorFromDLPackVersioned");
}

// Here rather than in env.cc (which keeps the allocator state): the import
// of the allocator's tensor is inlined.
int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out) {
  const char* api = "TVMFFIEnvTensorAlloc";
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(prototype, api, "prototype");
  CheckNotNull(out, api, "out");
  if (TVMFFI_RT_UNLIKELY(prototype->ndim < 0 ||
                         (prototype->ndim > 0 && prototype->shape == nullptr))) {
    Throw("ValueError", api, ": prototype has ndim ", prototype->ndim,
          prototype->ndim < 0 ? "" : " but no shape");
  }
  DLPackManagedTensorAllocator alloc = EnvCurrentAllocator();
  if (TVMFFI_RT_UNLIKELY(alloc == nullptr)) ThrowNoEnvAllocator();
  DLManagedTensorVersioned* managed = nullptr;
  EnvAllocError err{nullptr};
  int rc = alloc(prototype, &managed, &err, EnvAllocSetError);
  if (TVMFFI_RT_UNLIKELY(rc != 0 || managed == nullptr || err.error != nullptr)) {
    EnvAllocCheck(rc, managed, &err);
  }
  TVMFFIObject* obj = TryImportPlain(managed);
  if (TVMFFI_RT_UNLIKELY(obj == nullptr)) obj = Import(managed, 0, 0, false, api);
  if (TVMFFI_RT_UNLIKELY(!SameAllocation(prototype, TVMFFITensorGetDLTensorPtr(obj)))) {
    RefuseAllocation(prototype, obj);
  }
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFITensorToDLPack(TVMFFIObjectHandle from, DLManagedTensor** out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(from, "TVMFFITensorToDLPack", "from");
  CheckNotNull(out, "TVMFFITensorToDLPack", "out");
  auto* obj = static_cast<TVMFFIObject*>(from);
  CheckTensor(obj, "TVMFFITensorToDLPack", "from");
  // Legacy DLPack has no read-only flag: its consumer would take the memory
  // as writable (and write a read-only mapping or a bytes object).
  if ((FlagsOf(obj) & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) {
    Throw("ValueError",
          "TVMFFITensorToDLPack: the tensor `from` is read-only, and legacy DLPack cannot mark "
          "it so; export it with TVMFFITensorToDLPackVersioned (its flags carry read-only)");
  }
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
  TensorObject* t =
      AllocTensor(sizeof(TensorObject) + 2 * static_cast<size_t>(ndim) * sizeof(int64_t));
  TVMFFIObject* obj = HeaderOf(t);
  DLOf(t) = *prototype;
  t->origin = TensorOrigin::kView;
  t->flags = FlagsOf(src);
  t->owner = src;
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
    t->shape = shape;
    t->strides = strides;
  } else {
    t->shape = nullptr;
    t->strides = nullptr;
  }
  *out = obj;
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"

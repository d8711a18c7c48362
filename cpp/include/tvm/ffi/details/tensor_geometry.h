/*
 * tvmffi core: the geometry of a DLTensor, in one place.
 *
 * Contiguity, compact strides, the element address, the byte size of packed
 * data and its overflow check are used by the C++ headers (tensor.h, shape.h,
 * env.h), by libtvmffi (runtime/tensor.cc) and by kernels. This header is
 * light on purpose: the C ABI and the C++ standard integer headers only.
 */
#ifndef TVM_FFI_DETAILS_TENSOR_GEOMETRY_H_
#define TVM_FFI_DETAILS_TENSOR_GEOMETRY_H_

#include <tvm/ffi/base_detail.h>

#include <cstddef>
#include <cstdint>

namespace tvm {
namespace ffi {

/*! \brief The most dimensions of a tensor that libtvmffi imports, views or allocates. */
inline constexpr int32_t kMaxNDim = 64;

/*!
 * \return Whether `data` is a real address on this device (so that alignment
 *         and byte offsets can be applied to it), rather than an opaque handle.
 */
TVM_FFI_INLINE bool IsDirectAddressDevice(const DLDevice& device) noexcept {
  switch (static_cast<int32_t>(device.device_type)) {
    case kDLCPU:
    case kDLCUDA:
    case kDLCUDAHost:
    case kDLCUDAManaged:
    case kDLROCM:
    case kDLROCMHost:
      return true;
    default:
      return false;
  }
}

/*!
 * \return Whether the tensor is compact row-major. NULL strides mean compact;
 *         the stride of an extent-1 dimension does not matter; a tensor with
 *         no elements is contiguous.
 */
inline bool IsContiguous(const DLTensor& arr) noexcept {
  if (arr.strides == nullptr) return true;
  uint64_t expected = 1;
  bool empty = false;
  bool ok = true;
  for (int32_t i = arr.ndim; i != 0; --i) {
    const int64_t extent = arr.shape[i - 1];
    if (extent == 0) empty = true;
    if (extent == 1) continue;
    if (static_cast<uint64_t>(arr.strides[i - 1]) != expected) ok = false;
    expected *= static_cast<uint64_t>(extent);
  }
  return ok || empty;
}

/*!
 * \return Whether the first element is aligned to `alignment` bytes: the
 *         address data + byte_offset on direct-address devices, the
 *         byte_offset alone elsewhere. An alignment of 0 or 1 always holds.
 */
inline bool IsAligned(const DLTensor& arr, size_t alignment) noexcept {
  if (alignment <= 1) return true;
  uint64_t where = arr.byte_offset;
  if (IsDirectAddressDevice(arr.device)) where += reinterpret_cast<uintptr_t>(arr.data);
  return where % alignment == 0;
}

namespace detail {

/*!
 * \return The bytes of `numel` elements of `dtype`, packed: sub-byte types
 *         round up once, at the end (8 x uint1 -> 1 byte, 3 x int4 -> 2).
 */
constexpr uint64_t PackedDataBytes(uint64_t numel, DLDataType dtype) noexcept {
  return (numel * dtype.bits * dtype.lanes + 7) / 8;
}

/*!
 * \brief Write the compact row-major strides of shape[0..ndim) to out[0..ndim).
 *        Unsigned arithmetic: with a zero extent the other products are
 *        unbounded, and wrap harmlessly.
 */
TVM_FFI_INLINE void FillCompactStrides(const int64_t* shape, int32_t ndim, int64_t* out) noexcept {
  uint64_t stride = 1;
  for (int32_t i = ndim; i != 0; --i) {
    out[i - 1] = static_cast<int64_t>(stride);
    stride *= static_cast<uint64_t>(shape[i - 1]);
  }
}

/*! \brief The compact stride of dimension i (product of the later extents). */
TVM_FFI_INLINE int64_t CompactStride(const int64_t* shape, int32_t ndim, int32_t i) noexcept {
  uint64_t stride = 1;
  for (int32_t k = i + 1; k < ndim; ++k) stride *= static_cast<uint64_t>(shape[k]);
  return static_cast<int64_t>(stride);
}

/*!
 * \brief The element count and packed byte size of a shape.
 * \return false when an extent is negative or either number exceeds INT64_MAX.
 */
inline bool ShapeDataBytes(const int64_t* shape, int32_t ndim, DLDataType dtype, uint64_t* numel,
                           uint64_t* nbytes) noexcept {
  uint64_t n = 1;
  bool overflow = false;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return false;
    overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(shape[i]), &n);
  }
  // ceil(n * b / 8) without a wider type: n = 8q + r.
  const uint64_t b = static_cast<uint64_t>(dtype.bits) * dtype.lanes;
  uint64_t bytes = 0;
  overflow |= __builtin_mul_overflow(n / 8, b, &bytes);
  overflow |= __builtin_add_overflow(bytes, ((n % 8) * b + 7) / 8, &bytes);
  if (overflow || n > static_cast<uint64_t>(INT64_MAX) ||
      bytes > static_cast<uint64_t>(INT64_MAX)) {
    return false;
  }
  *numel = n;
  *nbytes = bytes;
  return true;
}

/*! \brief The first element's address; byte_offset is added on direct-address devices only. */
TVM_FFI_INLINE void* DataPtrOf(const DLTensor& t) noexcept {
  if (t.byte_offset == 0 || !IsDirectAddressDevice(t.device)) return t.data;
  return static_cast<char*>(t.data) + t.byte_offset;
}

}  // namespace detail

/*! \return The bytes needed for `numel` packed elements of `dtype` (sub-byte types pack). */
TVM_FFI_INLINE size_t GetDataSize(size_t numel, DLDataType dtype) noexcept {
  return static_cast<size_t>(detail::PackedDataBytes(numel, dtype));
}

/*! \return The bytes of data the tensor describes (its shape, compactly). */
inline size_t GetDataSize(const DLTensor& arr) noexcept {
  size_t numel = 1;
  for (int32_t i = 0; i < arr.ndim; ++i) numel *= static_cast<size_t>(arr.shape[i]);
  return GetDataSize(numel, arr.dtype);
}

namespace detail {

/*! \brief First type code of user-defined dtypes (`custom[name]`), as upstream. */
inline constexpr uint8_t kCustomTypeCodeBegin = 129;

/*!
 * \brief The common case of libtvmffi's DLPack import validation in one pass,
 *        for every door a DLPack tensor enters by (the runtime's import and
 *        allocator, the Python extension's borrowed tensors): header fields in
 *        range, NULL or compact row-major strides (strides[i] == the product of
 *        the later extents, in every dimension), no overflow, non-NULL data.
 * \return true only for a tensor the full validation accepts; false for
 *         anything else -- an error, or merely another layout, which the full
 *         validation (TVMFFITensorFromDLPackVersioned) decides and explains.
 * \tparam kFill write a stride-less tensor's compact strides to `fill` on the
 *         way (the suffix products the loop computes); then also false when it
 *         has more than kFillDims dimensions.
 */
template <bool kFill = false, int32_t kFillDims = 0>
inline bool IsPlainValidTensor(const DLTensor& t, int64_t* fill = nullptr) noexcept {
  // Early exits rather than accumulated flags, and few values live across
  // the loop: fewer instructions and no saved registers when all is well.
  const DLDataType dt = t.dtype;
  if (TVM_FFI_PREDICT_FALSE(static_cast<uint32_t>(t.ndim) > static_cast<uint32_t>(kMaxNDim))) {
    return false;
  }
  if (TVM_FFI_PREDICT_FALSE(static_cast<uint32_t>(dt.bits) * dt.lanes == 0)) return false;
  if (TVM_FFI_PREDICT_FALSE(dt.code > kDLFloat4_e2m1fn && dt.code < kCustomTypeCodeBegin))
    return false;
  // DLPack's device types: 1..18.
  if (TVM_FFI_PREDICT_FALSE(t.device.device_type < 1 || t.device.device_type > 18)) return false;
  if (TVM_FFI_PREDICT_FALSE(t.device.device_id < 0)) return false;
  int64_t numel = 1;
  if (t.ndim > 0) {
    const int64_t* shape = t.shape;
    const int64_t* strides = t.strides;
    if (TVM_FFI_PREDICT_FALSE(shape == nullptr)) return false;
    int64_t sign = 0;  // OR of the extents: negative if one is
    int64_t i = t.ndim - 1;
    if (strides == nullptr) {
      if (kFill && TVM_FFI_PREDICT_FALSE(i >= static_cast<int64_t>(kFillDims))) return false;
      do {
        sign |= shape[i];
        if (kFill) fill[i] = numel;
        if (TVM_FFI_PREDICT_FALSE(__builtin_mul_overflow(numel, shape[i], &numel))) return false;
      } while (--i >= 0);
    } else {
      do {
        sign |= shape[i];
        if (TVM_FFI_PREDICT_FALSE(strides[i] != numel)) return false;
        if (TVM_FFI_PREDICT_FALSE(__builtin_mul_overflow(numel, shape[i], &numel))) return false;
      } while (--i >= 0);
    }
    if (TVM_FFI_PREDICT_FALSE(sign < 0)) return false;
  }
  const uint64_t elem_bits = static_cast<uint64_t>(dt.bits) * dt.lanes;
  uint64_t bits = 0, end = 0;
  if (TVM_FFI_PREDICT_FALSE(
          __builtin_mul_overflow(static_cast<uint64_t>(numel), elem_bits, &bits))) {
    return false;
  }
  // Bits up to the end of the last addressed element: numel's, or one
  // element's when there are none.
  if (TVM_FFI_PREDICT_FALSE(numel == 0)) bits = elem_bits;
  if (TVM_FFI_PREDICT_FALSE(__builtin_add_overflow(t.byte_offset, bits / 8, &end) ||
                            end > static_cast<uint64_t>(INT64_MAX))) {
    return false;
  }
  return t.data != nullptr || numel == 0;
}

}  // namespace detail

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_TENSOR_GEOMETRY_H_

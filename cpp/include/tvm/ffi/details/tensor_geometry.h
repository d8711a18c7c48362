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

namespace details {

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

}  // namespace details

/*! \return The bytes needed for `numel` packed elements of `dtype` (sub-byte types pack). */
TVM_FFI_INLINE size_t GetDataSize(size_t numel, DLDataType dtype) noexcept {
  return static_cast<size_t>(details::PackedDataBytes(numel, dtype));
}

/*! \return The bytes of data the tensor describes (its shape, compactly). */
inline size_t GetDataSize(const DLTensor& arr) noexcept {
  size_t numel = 1;
  for (int32_t i = 0; i < arr.ndim; ++i) numel *= static_cast<size_t>(arr.shape[i]);
  return GetDataSize(numel, arr.dtype);
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_TENSOR_GEOMETRY_H_

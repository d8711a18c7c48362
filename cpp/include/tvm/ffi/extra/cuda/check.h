/*
 * tvmffi C++ layer: argument checks for CUDA kernel entry points.
 *
 * Each check names the offending argument and throws the kind a caller can
 * act on:
 *   ValueError  wrong device (type or ordinal), shape, rank, or a
 *               non-contiguous layout;
 *   TypeError   wrong dtype (all dtype problems, including a mismatch
 *               between two arguments).
 * No CUDA call is made: the header needs only the tensor layer.
 *
 * \code
 * void Scale(ffi::TensorView out, ffi::TensorView in, double factor) {
 *   ffi::CheckCUDA(in, "in");
 *   ffi::CheckSameDevice(out, "out", in, "in");
 *   ffi::CheckSameDType(out, "out", in, "in");
 *   ffi::CheckSameShape(out, "out", in, "in");
 *   ffi::CheckContiguous(in, "in");
 *   ...
 * }
 * \endcode
 */
#ifndef TVM_FFI_EXTRA_CUDA_CHECK_H_
#define TVM_FFI_EXTRA_CUDA_CHECK_H_

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>

#include <cstdint>
#include <string>

namespace tvm {
namespace ffi {
namespace detail {

TVM_FFI_INLINE bool SameDType(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

/*! \brief "[2, 3]" for error messages. */
TVM_FFI_COLD_CODE inline std::string ShapeString(const TensorView& t) {
  std::string s = "[";
  for (int32_t i = 0; i < t.ndim(); ++i) {
    if (i != 0) s += ", ";
    s += std::to_string(t.shape()[static_cast<size_t>(i)]);
  }
  return s + "]";
}

}  // namespace detail

/*! \brief ValueError unless `t` lives in CUDA device memory (kDLCUDA). */
TVM_FFI_INLINE void CheckCUDA(const TensorView& t, const char* name) {
  const DLDevice dev = t.device();
  if (TVM_FFI_PREDICT_FALSE(dev.device_type != kDLCUDA)) {
    TVM_FFI_THROW(ValueError) << "`" << name << "` must be a CUDA tensor, but it is on " << dev;
  }
}

/*! \brief ValueError unless `a` and `b` are on the same device (type and ordinal). */
TVM_FFI_INLINE void CheckSameDevice(const TensorView& a, const char* a_name, const TensorView& b,
                                    const char* b_name) {
  const DLDevice da = a.device(), db = b.device();
  if (TVM_FFI_PREDICT_FALSE(da.device_type != db.device_type || da.device_id != db.device_id)) {
    TVM_FFI_THROW(ValueError) << "`" << b_name << "` is on " << db << " but `" << a_name
                              << "` is on " << da << "; they must be on the same device";
  }
}

/*! \brief ValueError unless `t` is compact row-major (strides absent or matching). */
TVM_FFI_INLINE void CheckContiguous(const TensorView& t, const char* name) {
  if (TVM_FFI_PREDICT_FALSE(!t.IsContiguous())) {
    TVM_FFI_THROW(ValueError) << "`" << name
                              << "` must be contiguous (row-major, no gaps); strided tensors are "
                                 "not supported";
  }
}

/*! \brief TypeError unless `t` has dtype `expected`. */
TVM_FFI_INLINE void CheckDType(const TensorView& t, const char* name, DLDataType expected) {
  if (TVM_FFI_PREDICT_FALSE(!detail::SameDType(t.dtype(), expected))) {
    TVM_FFI_THROW(TypeError) << "`" << name << "` has dtype " << t.dtype() << ", expected "
                             << expected;
  }
}

/*! \brief TypeError unless `b` has the dtype of `a`. */
TVM_FFI_INLINE void CheckSameDType(const TensorView& a, const char* a_name, const TensorView& b,
                                   const char* b_name) {
  if (TVM_FFI_PREDICT_FALSE(!detail::SameDType(a.dtype(), b.dtype()))) {
    TVM_FFI_THROW(TypeError) << "`" << b_name << "` has dtype " << b.dtype() << " but `" << a_name
                             << "` has dtype " << a.dtype() << "; they must match";
  }
}

/*! \brief ValueError unless `t` has exactly `ndim` dimensions. */
TVM_FFI_INLINE void CheckNDim(const TensorView& t, const char* name, int32_t ndim) {
  if (TVM_FFI_PREDICT_FALSE(t.ndim() != ndim)) {
    TVM_FFI_THROW(ValueError) << "`" << name << "` must have " << ndim << " dimension(s), got "
                              << t.ndim();
  }
}

/*! \brief ValueError unless `b` has the shape of `a` (no broadcasting). */
TVM_FFI_INLINE void CheckSameShape(const TensorView& a, const char* a_name, const TensorView& b,
                                   const char* b_name) {
  bool same = a.ndim() == b.ndim();
  for (int32_t i = 0; same && i < a.ndim(); ++i)
    same = a.shape()[static_cast<size_t>(i)] == b.shape()[static_cast<size_t>(i)];
  if (TVM_FFI_PREDICT_FALSE(!same)) {
    TVM_FFI_THROW(ValueError) << "`" << b_name << "` has shape " << detail::ShapeString(b)
                              << " but `" << a_name << "` has shape " << detail::ShapeString(a)
                              << "; they must match";
  }
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_CUDA_CHECK_H_

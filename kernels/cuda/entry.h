// Host-side helpers shared by the FFI entry points of libtvmffi_kernels.
#ifndef TVMFFI_KERNELS_CUDA_ENTRY_H_
#define TVMFFI_KERNELS_CUDA_ENTRY_H_

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/cuda/utils.h>

#include <cstdint>

namespace tvmffi_kernels {

/*! \brief Typed pointer to the first element (TensorView::data_ptr(), cast). */
template <typename T>
inline T* DataPtr(const tvm::ffi::TensorView& t) {
  return static_cast<T*>(t.data_ptr());
}

/*!
 * \brief The checks every elementwise entry runs, in the guide's order:
 *        CUDA device, same device, same dtype, same shape, contiguous.
 * \param names Argument names, out first, for the error messages.
 */
template <int N>
inline void CheckElementwiseArgs(const tvm::ffi::TensorView (&t)[N],
                                 const char* const (&names)[N]) {
  for (int k = 0; k < N; ++k) tvm::ffi::CheckCUDA(t[k], names[k]);
  for (int k = 1; k < N; ++k) tvm::ffi::CheckSameDevice(t[0], names[0], t[k], names[k]);
  for (int k = 1; k < N; ++k) tvm::ffi::CheckSameDType(t[0], names[0], t[k], names[k]);
  for (int k = 1; k < N; ++k) tvm::ffi::CheckSameShape(t[0], names[0], t[k], names[k]);
  for (int k = 0; k < N; ++k) tvm::ffi::CheckContiguous(t[k], names[k]);
}

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_ENTRY_H_

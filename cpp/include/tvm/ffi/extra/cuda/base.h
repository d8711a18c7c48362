/*
 * tvmffi C++ layer: CUDA error checking and the environment stream.
 *
 * Opt-in header for CUDA kernel libraries (needs the CUDA toolkit's
 * <cuda_runtime.h>); nothing in the core includes it.
 */
#ifndef TVM_FFI_EXTRA_CUDA_BASE_H_
#define TVM_FFI_EXTRA_CUDA_BASE_H_

#include <cuda_runtime.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>

/*!
 * \brief Evaluate a CUDA runtime call; on failure throw a RuntimeError.
 *
 * The message names the CUDA error, its code and its description, e.g.
 * "CUDA Runtime Error: cudaErrorInvalidValue (1): invalid argument".
 * CUDA failures are RuntimeError (not a kind of their own) so that callers in
 * any language see the same kind as upstream reports for them. Variadic, so a
 * call with template arguments (`Launch<T, 2>(...)`) needs no extra parentheses.
 *
 * \code
 * TVM_FFI_CHECK_CUDA_ERROR(cudaMemsetAsync(ptr, 0, nbytes, stream));
 * \endcode
 */
#define TVM_FFI_CHECK_CUDA_ERROR(...)                                                              \
  do {                                                                                             \
    const cudaError_t tvm_ffi_cuda_err_ = (__VA_ARGS__);                                           \
    if (TVM_FFI_PREDICT_FALSE(tvm_ffi_cuda_err_ != cudaSuccess)) {                                 \
      TVM_FFI_THROW(RuntimeError) << "CUDA Runtime Error: " << cudaGetErrorName(tvm_ffi_cuda_err_) \
                                  << " (" << static_cast<int>(tvm_ffi_cuda_err_)                   \
                                  << "): " << cudaGetErrorString(tvm_ffi_cuda_err_);               \
    }                                                                                              \
  } while (0)

/*! \brief Short spelling of TVM_FFI_CHECK_CUDA_ERROR. */
#define TVM_FFI_CHECK_CUDA(...) TVM_FFI_CHECK_CUDA_ERROR(__VA_ARGS__)

namespace tvm {
namespace ffi {

/*!
 * \brief The calling thread's current stream for a CUDA device, as set by the
 *        host through TVMFFIEnvSetStream (NULL, the default stream, if unset).
 *
 * \code
 * cudaStream_t stream = ffi::GetCUDAStream(x.device());
 * MyKernel<<<grid, block, 0, stream>>>(...);
 * \endcode
 */
inline cudaStream_t GetCUDAStream(DLDevice device) {
  return static_cast<cudaStream_t>(TVMFFIEnvGetStream(device.device_type, device.device_id));
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_CUDA_BASE_H_

/*
 * tvmffi C++ layer: CUDA error checking, the environment stream and launch extents.
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

/*!
 * \brief Grid or block extents of a kernel launch; an extent not given is 1.
 *
 * What the launchers of cubin_launcher.h take (upstream's name). It has the
 * fields of CUDA's own `::dim3` and converts from it, so either can be passed.
 *
 * \code
 * ffi::dim3 grid((n + 255) / 256), block(256);
 * \endcode
 */
struct dim3 {
  /*! \brief Extent along x. */
  unsigned int x = 1;
  /*! \brief Extent along y. */
  unsigned int y = 1;
  /*! \brief Extent along z. */
  unsigned int z = 1;

  /*! \brief (1, 1, 1). */
  constexpr dim3() = default;
  /*! \brief (x, 1, 1). */
  constexpr explicit dim3(unsigned int x_) : x(x_) {}
  /*! \brief (x, y, z). */
  constexpr dim3(unsigned int x_, unsigned int y_, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
  /*! \brief The same extents as CUDA's `::dim3`. */
  constexpr dim3(::dim3 d) : x(d.x), y(d.y), z(d.z) {}  // NOLINT(google-explicit-constructor)
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_CUDA_BASE_H_

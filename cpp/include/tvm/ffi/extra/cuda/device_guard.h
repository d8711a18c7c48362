/*
 * tvmffi C++ layer: RAII switch of the current CUDA device.
 */
#ifndef TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_
#define TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_

#include <tvm/ffi/extra/cuda/base.h>

namespace tvm {
namespace ffi {

/*!
 * \brief Make a CUDA device current for a scope.
 *
 * The constructor reads the current device once (cudaGetDevice) and calls
 * cudaSetDevice only when it differs from the target; the destructor switches
 * back only if the constructor switched. On the common path (already on the
 * right device) the guard costs one cudaGetDevice.
 *
 * \code
 * void Kernel(ffi::TensorView x) {
 *   ffi::CUDADeviceGuard guard(x.device().device_id);
 *   ...
 * }
 * \endcode
 */
struct CUDADeviceGuard {
  CUDADeviceGuard() = delete;
  /*!
   * \brief Switch to `device_index` if it is not current.
   * \throws RuntimeError when the CUDA runtime refuses (no device, bad index).
   */
  explicit CUDADeviceGuard(int device_index) : target_device_index_(device_index) {
    TVM_FFI_CHECK_CUDA_ERROR(cudaGetDevice(&original_device_index_));
    if (original_device_index_ != target_device_index_) {
      TVM_FFI_CHECK_CUDA_ERROR(cudaSetDevice(target_device_index_));
    }
  }
  CUDADeviceGuard(const CUDADeviceGuard&) = delete;
  CUDADeviceGuard& operator=(const CUDADeviceGuard&) = delete;

  /*!
   * \brief Restore the original device if the constructor changed it.
   *
   * Never throws: it may run while an exception unwinds, and switching back to
   * a device that was current a moment ago does not fail in practice. A failure
   * is cleared so that it is not reported by an unrelated later call.
   */
  ~CUDADeviceGuard() {
    if (original_device_index_ != target_device_index_) {
      if (cudaSetDevice(original_device_index_) != cudaSuccess) (void)cudaGetLastError();
    }
  }

 private:
  int original_device_index_ = 0;
  int target_device_index_;
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_CUDA_DEVICE_GUARD_H_

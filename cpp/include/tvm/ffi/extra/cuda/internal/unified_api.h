/*
 * tvmffi C++ layer: one set of names over the CUDA runtime and driver APIs
 * (upstream 0.1.15's <tvm/ffi/extra/cuda/internal/unified_api.h>), the layer
 * under cubin_launcher.h.
 *
 *   TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API   0: the runtime API (the default,
 *                 needs CUDA >= 12.8); 1 (or defined empty): the driver API.
 *   cuda_api::    the handle types (StreamHandle, LibraryHandle, KernelHandle,
 *                 LaunchConfig, ResultType, ...) and thin wrappers (LoadLibrary,
 *                 GetKernel, LaunchKernel, LaunchKernelEx, ...) returning the
 *                 CUDA status of the API chosen.
 *   TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(call)   RuntimeError on failure.
 *
 * Internal in upstream's sense: include <tvm/ffi/extra/cuda/cubin_launcher.h>;
 * this path exists so code that names it directly builds too.
 */
#ifndef TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_
#define TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_

#include <cuda.h>
#include <cuda_runtime.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/cuda/base.h>

#include <cstdint>

// Which CUDA API: 0 the runtime, 1 the driver. A definition without a value
// (`#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API`) asks for the driver.
#if !defined(TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API)
#if CUDART_VERSION >= 12080
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 0
#else
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 1
#endif
#elif (0 - TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API - 1) == 1  // defined empty
#undef TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
#define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API 1
#endif
#if !TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API && CUDART_VERSION < 12080
#error \
    "cubin_launcher.h: the runtime API's library loading needs CUDA >= 12.8; \
define TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API to 1 (and link libcuda) for older toolkits"
#endif

namespace tvm {
namespace ffi {
namespace cuda_api {

#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
using ResultType = CUresult;
using StreamHandle = CUstream;
using DeviceHandle = CUdevice;
using LibraryHandle = CUlibrary;
using KernelHandle = CUkernel;
using LaunchConfig = CUlaunchConfig;
using LaunchAttrType = CUlaunchAttribute;
using DeviceAttrType = CUdevice_attribute;
constexpr ResultType kSuccess = CUDA_SUCCESS;
#else
/*! \brief The status every wrapper returns (cudaError_t, or CUresult under the driver API). */
using ResultType = cudaError_t;
/*! \brief A stream (cudaStream_t; CUstream is the same type). */
using StreamHandle = cudaStream_t;
/*! \brief A device: its ordinal (a CUdevice under the driver API). */
using DeviceHandle = int;
/*! \brief A loaded binary (cudaLibrary_t / CUlibrary). */
using LibraryHandle = cudaLibrary_t;
/*! \brief A kernel of a loaded binary (cudaKernel_t / CUkernel). */
using KernelHandle = cudaKernel_t;
/*! \brief The extended launch's configuration (cudaLaunchConfig_t / CUlaunchConfig). */
using LaunchConfig = cudaLaunchConfig_t;
/*! \brief One attribute of an extended launch (cudaLaunchAttribute / CUlaunchAttribute). */
using LaunchAttrType = cudaLaunchAttribute;
/*! \brief A device attribute (cudaDeviceAttr / CUdevice_attribute). */
using DeviceAttrType = cudaDeviceAttr;
/*! \brief The success status. */
constexpr ResultType kSuccess = cudaSuccess;
#endif

/*!
 * \brief The symbolic name ("cudaErrorInvalidValue") and the description of a status.
 *
 * Both are static strings; an unknown code gets "unknown CUDA error".
 */
inline void GetErrorString(ResultType err, const char** name, const char** str) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  // cuGetError* leave the pointer unset for a code they do not know.
  *name = "unknown CUDA error";
  *str = "unknown CUDA error";
  (void)cuGetErrorName(err, name);
  (void)cuGetErrorString(err, str);
#else
  *name = cudaGetErrorName(err);
  *str = cudaGetErrorString(err);
#endif
}

/*!
 * \brief Forget the runtime's record of a failure that has been reported (a
 *        later cudaGetLastError would otherwise return it); no-op for the driver.
 */
inline void ClearLastError() noexcept {
#if !TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  (void)cudaGetLastError();
#endif
}

/*! \brief Load a binary (cubin, fatbin, or NUL-terminated PTX) from memory; no JIT options. */
inline ResultType LoadLibrary(LibraryHandle* library, const void* image) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  // The driver API needs cuInit, which the runtime would have done for us.
  ResultType err = cuInit(0);
  if (err != kSuccess) return err;
  return cuLibraryLoadData(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
#else
  return cudaLibraryLoadData(library, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
#endif
}

/*! \brief Unload a binary; its kernels become invalid. */
inline ResultType UnloadLibrary(LibraryHandle library) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryUnload(library);
#else
  return cudaLibraryUnload(library);
#endif
}

/*! \brief The kernel called `name` (its symbol: the plain name for `extern "C"` kernels). */
inline ResultType GetKernel(KernelHandle* kernel, LibraryHandle library, const char* name) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLibraryGetKernel(kernel, library, name);
#else
  return cudaLibraryGetKernel(kernel, library, name);
#endif
}

/*! \brief The device of ordinal `device_id`; throws RuntimeError if there is none. */
inline DeviceHandle GetDeviceHandle(int device_id) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  CUdevice device = 0;
  ResultType err = cuDeviceGet(&device, device_id);
  if (err != kSuccess) {
    const char* name = nullptr;
    const char* text = nullptr;
    GetErrorString(err, &name, &text);
    TVM_FFI_THROW(RuntimeError) << "cuDeviceGet(" << device_id << ") failed: " << name << " ("
                                << static_cast<int>(err) << "): " << text;
  }
  return device;
#else
  return device_id;
#endif
}

/*! \brief The number of CUDA devices. */
inline ResultType GetDeviceCount(int* count) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  ResultType err = cuInit(0);
  if (err != kSuccess) return err;
  return cuDeviceGetCount(count);
#else
  return cudaGetDeviceCount(count);
#endif
}

/*! \brief One attribute of a device. */
inline ResultType GetDeviceAttribute(int* value, DeviceAttrType attr, DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuDeviceGetAttribute(value, attr, device);
#else
  return cudaDeviceGetAttribute(value, attr, device);
#endif
}

/*! \brief The static shared memory (bytes) of a kernel on a device. */
inline ResultType GetKernelSharedMem(KernelHandle kernel, int& out, DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuKernelGetAttribute(&out, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kernel, device);
#else
  (void)device;  // the runtime reports the attributes of the current device
  cudaFuncAttributes attrs{};
  ResultType err = cudaFuncGetAttributes(&attrs, reinterpret_cast<const void*>(kernel));
  if (err == kSuccess) out = static_cast<int>(attrs.sharedSizeBytes);
  return err;
#endif
}

/*! \brief Let launches of a kernel on a device use up to `shmem` bytes of dynamic shared memory. */
inline ResultType SetKernelMaxDynamicSharedMem(KernelHandle kernel, int shmem,
                                               DeviceHandle device) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuKernelSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, shmem, kernel,
                              device);
#else
  return cudaKernelSetAttributeForDevice(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shmem,
                                         device);
#endif
}

/*!
 * \brief Launch a kernel on `stream` (asynchronous; the status says whether it was queued).
 * \param args The addresses of the kernel's arguments, in order.
 */
inline ResultType LaunchKernel(KernelHandle kernel, void** args, tvm::ffi::dim3 grid,
                               tvm::ffi::dim3 block, StreamHandle stream,
                               uint32_t dyn_smem_bytes = 0) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  // A CUkernel stands for the function of the current context where a CUfunction is taken.
  return cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), grid.x, grid.y, grid.z, block.x,
                        block.y, block.z, dyn_smem_bytes, stream, args, nullptr);
#else
  return cudaLaunchKernel(reinterpret_cast<const void*>(kernel), ::dim3(grid.x, grid.y, grid.z),
                          ::dim3(block.x, block.y, block.z), args, dyn_smem_bytes, stream);
#endif
}

/*!
 * \brief Launch a kernel with an extended configuration (launch attributes such as a
 *        cluster shape, sm_90 and later); see ConstructLaunchConfig.
 */
inline ResultType LaunchKernelEx(KernelHandle kernel, void** args, const LaunchConfig& config) {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  return cuLaunchKernelEx(&config, reinterpret_cast<CUfunction>(kernel), args, nullptr);
#else
  return cudaLaunchKernelExC(&config, reinterpret_cast<const void*>(kernel), args);
#endif
}

/*!
 * \brief Fill `config` for LaunchKernelEx: grid, block, dynamic shared memory and stream,
 *        plus, when `cluster_dim` > 1, clusters of `cluster_dim` blocks along x.
 *
 * \param kernel Unused (kept for upstream's signature).
 * \param attr Storage for the cluster attribute; `config` points at it, so it
 *             must outlive the launch.
 * \return kSuccess, or the invalid-value status when `cluster_dim` does not divide grid.x.
 */
inline ResultType ConstructLaunchConfig(KernelHandle kernel, StreamHandle stream,
                                        uint32_t smem_size, tvm::ffi::dim3 grid,
                                        tvm::ffi::dim3 block, int cluster_dim, LaunchConfig& config,
                                        LaunchAttrType& attr) {
  (void)kernel;
  const bool clustered = cluster_dim > 1;
  const unsigned int cluster = clustered ? static_cast<unsigned int>(cluster_dim) : 1u;
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  config = CUlaunchConfig{};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = block.x;
  config.blockDimY = block.y;
  config.blockDimZ = block.z;
  config.sharedMemBytes = smem_size;
  config.hStream = stream;
  if (clustered) {
    if (grid.x % cluster != 0) return CUDA_ERROR_INVALID_VALUE;
    attr = CUlaunchAttribute{};
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = cluster;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
#else
  config = cudaLaunchConfig_t{};
  config.gridDim = ::dim3(grid.x, grid.y, grid.z);
  config.blockDim = ::dim3(block.x, block.y, block.z);
  config.dynamicSmemBytes = smem_size;
  config.stream = stream;
  if (clustered) {
    if (grid.x % cluster != 0) return cudaErrorInvalidValue;
    attr = cudaLaunchAttribute{};
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = cluster;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
  }
#endif
  return kSuccess;
}

}  // namespace cuda_api
}  // namespace ffi
}  // namespace tvm

// The prefix of TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR's message.
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
#define TVM_FFI_CUBIN_ERROR_KIND_ "CUDA Driver Error: "
#else
#define TVM_FFI_CUBIN_ERROR_KIND_ "CUDA Runtime Error: "
#endif

/*!
 * \brief Evaluate a cubin-launcher call (a cuda_api status: the runtime's or the
 *        driver's); on failure throw RuntimeError naming the error.
 *
 * "CUDA Runtime Error: cudaErrorInvalidValue (1): invalid argument" (or
 * "CUDA Driver Error: CUDA_ERROR_INVALID_VALUE (1): ..." under the driver API).
 *
 * \code
 * TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(kernel.Launch(args, grid, block, stream));
 * \endcode
 */
#define TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(...)                                              \
  do {                                                                                            \
    const ::tvm::ffi::cuda_api::ResultType tvm_ffi_cubin_err_ = (__VA_ARGS__);                    \
    if (TVM_FFI_PREDICT_FALSE(tvm_ffi_cubin_err_ != ::tvm::ffi::cuda_api::kSuccess)) {            \
      const char* tvm_ffi_cubin_err_name_ = nullptr;                                              \
      const char* tvm_ffi_cubin_err_text_ = nullptr;                                              \
      ::tvm::ffi::cuda_api::GetErrorString(tvm_ffi_cubin_err_, &tvm_ffi_cubin_err_name_,          \
                                           &tvm_ffi_cubin_err_text_);                             \
      TVM_FFI_THROW(RuntimeError) << TVM_FFI_CUBIN_ERROR_KIND_ << tvm_ffi_cubin_err_name_ << " (" \
                                  << static_cast<int>(tvm_ffi_cubin_err_)                         \
                                  << "): " << tvm_ffi_cubin_err_text_;                            \
    }                                                                                             \
  } while (0)

#endif  // TVM_FFI_EXTRA_CUDA_INTERNAL_UNIFIED_API_H_

/*
 * tvmffi C++ layer: load a CUDA binary (cubin, fatbin or PTX) and launch its kernels.
 *
 * Opt-in header for kernel libraries that ship precompiled device code instead
 * of compiling it with nvcc into the library (kernels from Triton, NVRTC, a
 * cubin built by another toolchain). It needs the CUDA toolkit's <cuda.h> and
 * <cuda_runtime.h>; nothing in the core includes it.
 *
 * The names and signatures are upstream's (apache/tvm-ffi), so code written
 * for its cubin launcher builds against this header unchanged:
 *
 *   CubinModule   one loaded binary (a CUDA "library": context-independent,
 *                 usable on every device); unloaded by its destructor.
 *   CubinKernel   one kernel of it; Launch / LaunchEx return the CUDA status.
 *   cuda_api::    the types and thin wrappers the two classes use.
 *   TVM_FFI_EMBED_CUBIN(name)   the binary that tvmffi.utils.embed_cubin,
 *                 tvm_ffi_embed_bin_into (CMake) or load_inline(embed_cubin=)
 *                 linked into the library, loaded on first use.
 *
 * API: the CUDA runtime (cudaLibraryLoadData, ...; needs CUDA >= 12.8) unless
 * TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API is defined to 1 (or empty) before the
 * include, or the toolkit is older: then the driver API (cuLibraryLoadData,
 * ...; link libcuda). Under the driver API a kernel launches into the calling
 * thread's current context, which the runtime makes current on the thread's
 * first runtime call (any tensor library has done so).
 *
 * \code
 * TVM_FFI_EMBED_CUBIN(my_kernels);
 *
 * void AddOne(ffi::TensorView x, ffi::TensorView y) {
 *   static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(my_kernels, "add_one");
 *   void* px = x.data_ptr();
 *   void* py = y.data_ptr();
 *   int64_t n = x.size(0);
 *   void* args[] = {&px, &py, &n};  // the addresses of the arguments
 *   auto stream = static_cast<ffi::cuda_api::StreamHandle>(
 *       TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
 *   TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
 *       kernel.Launch(args, ffi::dim3((n + 255) / 256), ffi::dim3(256), stream));
 * }
 * \endcode
 */
#ifndef TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_
#define TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_

#include <cuda.h>
#include <cuda_runtime.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/cuda/base.h>
#include <tvm/ffi/extra/cuda/internal/unified_api.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <utility>

namespace tvm {
namespace ffi {
namespace detail {

// The CUDA calls behind the wrappers, named in error messages.
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
inline constexpr const char kCubinLoadCall[] = "cuLibraryLoadData";
inline constexpr const char kCubinGetKernelCall[] = "cuLibraryGetKernel";
inline constexpr const char kCubinDeviceAttrCall[] = "cuDeviceGetAttribute";
inline constexpr const char kCubinStaticSmemCall[] = "cuKernelGetAttribute";
inline constexpr const char kCubinSetSmemCall[] = "cuKernelSetAttribute";
#else
inline constexpr const char kCubinLoadCall[] = "cudaLibraryLoadData";
inline constexpr const char kCubinGetKernelCall[] = "cudaLibraryGetKernel";
inline constexpr const char kCubinDeviceAttrCall[] = "cudaDeviceGetAttribute";
inline constexpr const char kCubinStaticSmemCall[] = "cudaFuncGetAttributes";
inline constexpr const char kCubinSetSmemCall[] = "cudaKernelSetAttributeForDevice";
#endif

/*! \brief Throw RuntimeError "<what>: <call> failed: <name> (<code>): <description>". */
[[noreturn]] inline void ThrowCubinError(cuda_api::ResultType err, const char* call,
                                         const std::string& what) {
  const char* name = nullptr;
  const char* text = nullptr;
  cuda_api::GetErrorString(err, &name, &text);
  cuda_api::ClearLastError();
  TVM_FFI_THROW(RuntimeError) << what << ": " << call << " failed: " << name << " ("
                              << static_cast<int>(err) << "): " << text;
}

}  // namespace detail

class CubinKernel;

/*!
 * \brief One loaded CUDA binary (cubin, fatbin or PTX) and its kernels.
 *
 * The binary is loaded as a CUDA library: once, for every device (each device
 * gets its code when a kernel first runs there). The constructor loads it and
 * throws RuntimeError, naming the CUDA call and error, when CUDA refuses (no
 * device or driver, an image that is not a binary, or one without code for
 * the device). The destructor unloads it; the kernels taken from it must not
 * be launched afterwards. Movable, not copyable.
 *
 * \code
 * ffi::CubinModule module(cubin_bytes);
 * ffi::CubinKernel add_one = module["add_one"];
 * \endcode
 */
class CubinModule {
 public:
  /*!
   * \brief Load the binary held by `bytes` (copied by CUDA: `bytes` may go afterwards).
   * \throws ValueError when `bytes` is empty; RuntimeError when CUDA refuses it.
   */
  explicit CubinModule(const Bytes& bytes) {
    if (bytes.size() == 0) {
      TVM_FFI_THROW(ValueError) << "CubinModule: the CUDA binary is empty (0 bytes)";
    }
    Load(bytes.data());
  }

  /*!
   * \brief Load the binary at `code`: an ELF cubin, a fatbin, or NUL-terminated PTX.
   * \throws ValueError when `code` is null; RuntimeError when CUDA refuses it.
   */
  explicit CubinModule(const char* code) { Load(code); }

  /*! \brief As CubinModule(const char*), for a byte array (bin2c, `#embed`). */
  explicit CubinModule(const unsigned char* code) { Load(code); }

  CubinModule(const CubinModule&) = delete;
  CubinModule& operator=(const CubinModule&) = delete;

  /*! \brief Take `other`'s binary; `other` is left empty. */
  CubinModule(CubinModule&& other) noexcept : library_(other.library_) { other.library_ = nullptr; }

  /*! \brief Unload this module's binary, then take `other`'s; `other` is left empty. */
  CubinModule& operator=(CubinModule&& other) noexcept {
    if (this != &other) {
      Unload();
      library_ = std::exchange(other.library_, nullptr);
    }
    return *this;
  }

  /*!
   * \brief Unload the binary. Never throws: a failure (e.g. the CUDA runtime
   *        already shut down at process exit) is ignored.
   */
  ~CubinModule() { Unload(); }

  /*!
   * \brief The kernel called `name` (the symbol in the binary: the plain name
   *        of an `extern "C"` kernel, else its mangled name).
   * \throws RuntimeError naming the kernel when the binary has none of that name.
   */
  CubinKernel GetKernel(const char* name);

  /*!
   * \brief GetKernel, then let the kernel's launches use up to `dynamic_smem_max`
   *        bytes of dynamic shared memory (CUDA allows 48 KiB unless raised).
   *
   * -1: as much as each device allows (its opt-in maximum per block less the
   * kernel's static shared memory). Set on every device; throws RuntimeError
   * only if no device accepts it.
   */
  CubinKernel GetKernelWithMaxDynamicSharedMemory(const char* name, int64_t dynamic_smem_max = -1);

  /*! \brief GetKernel(name). */
  CubinKernel operator[](const char* name);

  /*! \brief The CUDA library handle (null after a move). */
  cuda_api::LibraryHandle GetHandle() const { return library_; }

 private:
  void Load(const void* image) {
    if (image == nullptr) {
      TVM_FFI_THROW(ValueError) << "CubinModule: the CUDA binary is a null pointer";
    }
    cuda_api::ResultType err = cuda_api::LoadLibrary(&library_, image);
    if (err != cuda_api::kSuccess) {
      library_ = nullptr;
      detail::ThrowCubinError(err, detail::kCubinLoadCall,
                              "CubinModule: cannot load the CUDA binary");
    }
  }

  void Unload() noexcept {
    if (library_ != nullptr) {
      if (cuda_api::UnloadLibrary(library_) != cuda_api::kSuccess) cuda_api::ClearLastError();
      library_ = nullptr;
    }
  }

  cuda_api::LibraryHandle library_ = nullptr;
};

/*!
 * \brief One kernel of a CubinModule, ready to launch.
 *
 * Launch and LaunchEx queue the kernel on a stream and return the CUDA status
 * (check it with TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR); they do not wait.
 * The handle stays valid while its module is loaded. Movable, not copyable.
 */
class CubinKernel {
 public:
  /*!
   * \brief The kernel called `name` in the loaded `library`.
   * \throws RuntimeError naming the kernel when there is none of that name.
   */
  CubinKernel(cuda_api::LibraryHandle library, const char* name)
      : name_(name != nullptr ? name : "") {
    if (name == nullptr) {
      TVM_FFI_THROW(ValueError) << "CubinKernel: the kernel name is a null pointer";
    }
    cuda_api::ResultType err = cuda_api::GetKernel(&kernel_, library, name);
    if (err != cuda_api::kSuccess) {
      kernel_ = nullptr;
      // 500 is both cudaErrorSymbolNotFound and CUDA_ERROR_NOT_FOUND.
      const bool missing = static_cast<int>(err) == 500;
      detail::ThrowCubinError(
          err, detail::kCubinGetKernelCall,
          missing ? "CubinKernel: no kernel named '" + name_ + "' in the CUDA binary"
                  : "CubinKernel: cannot get the kernel '" + name_ + "'");
    }
  }

  CubinKernel(const CubinKernel&) = delete;
  CubinKernel& operator=(const CubinKernel&) = delete;

  /*! \brief Take `other`'s kernel; `other` is left empty. */
  CubinKernel(CubinKernel&& other) noexcept
      : kernel_(std::exchange(other.kernel_, nullptr)), name_(std::move(other.name_)) {}

  /*! \brief Take `other`'s kernel; `other` is left empty. */
  CubinKernel& operator=(CubinKernel&& other) noexcept {
    if (this != &other) {
      kernel_ = std::exchange(other.kernel_, nullptr);
      name_ = std::move(other.name_);
    }
    return *this;
  }

  /*! \brief Nothing to release: the module owns the kernel. */
  ~CubinKernel() = default;

  /*!
   * \brief Queue the kernel on `stream`.
   *
   * \param args The addresses of the kernel's arguments, in order
   *             (`void* args[] = {&ptr, &n};`).
   * \param grid Blocks per grid.
   * \param block Threads per block.
   * \param stream The stream (nullptr: the default stream).
   * \param dyn_smem_bytes Dynamic shared memory per block; above 48 KiB only
   *        after SetMaxDynamicSharedMemory (or GetKernelWithMaxDynamicSharedMemory).
   * \return The CUDA status of the launch.
   */
  cuda_api::ResultType Launch(void** args, dim3 grid, dim3 block, cuda_api::StreamHandle stream,
                              uint32_t dyn_smem_bytes = 0) {
    return cuda_api::LaunchKernel(kernel_, args, grid, block, stream, dyn_smem_bytes);
  }

  /*!
   * \brief Queue the kernel with an extended configuration (cuda_api::ConstructLaunchConfig).
   * \return The CUDA status of the launch.
   */
  cuda_api::ResultType LaunchEx(void** args, const cuda_api::LaunchConfig& config) {
    return cuda_api::LaunchKernelEx(kernel_, args, config);
  }

  /*!
   * \brief Let launches of this kernel use up to `dynamic_smem_max` bytes of
   *        dynamic shared memory, on every device.
   *
   * -1: each device's opt-in maximum per block less the kernel's static shared
   * memory. A device that refuses is skipped (a process may use only some
   * GPUs); RuntimeError, naming the kernel, only if every device refuses.
   * Without devices there is nothing to set.
   */
  void SetMaxDynamicSharedMemory(int64_t dynamic_smem_max = -1) {
    int count = 0;
    if (cuda_api::GetDeviceCount(&count) != cuda_api::kSuccess || count <= 0) {
      cuda_api::ClearLastError();
      return;
    }
    cuda_api::ResultType last = cuda_api::kSuccess;
    const char* last_call = "";
    bool any = false;
    for (int i = 0; i < count; ++i) {
      cuda_api::DeviceHandle device = cuda_api::GetDeviceHandle(i);
      int bytes = 0;
      if (dynamic_smem_max < 0) {
        int optin = 0;
        int static_bytes = 0;
        last = cuda_api::GetDeviceAttribute(&optin, kMaxSharedPerBlockOptin, device);
        last_call = detail::kCubinDeviceAttrCall;
        if (last != cuda_api::kSuccess) continue;
        last = cuda_api::GetKernelSharedMem(kernel_, static_bytes, device);
        last_call = detail::kCubinStaticSmemCall;
        if (last != cuda_api::kSuccess) continue;
        bytes = optin > static_bytes ? optin - static_bytes : 0;
      } else {
        bytes = dynamic_smem_max > INT32_MAX ? INT32_MAX : static_cast<int>(dynamic_smem_max);
      }
      last = cuda_api::SetKernelMaxDynamicSharedMem(kernel_, bytes, device);
      last_call = detail::kCubinSetSmemCall;
      if (last == cuda_api::kSuccess) any = true;
    }
    if (!any) {
      detail::ThrowCubinError(last, last_call,
                              "CubinKernel '" + name_ + "': cannot raise the dynamic shared " +
                                  "memory limit to " + std::to_string(dynamic_smem_max) +
                                  " bytes on any device");
    }
    cuda_api::ClearLastError();  // refusals by some devices are not the caller's concern
  }

  /*! \brief The CUDA kernel handle (null after a move). */
  cuda_api::KernelHandle GetHandle() const { return kernel_; }

 private:
  // The opt-in limit (cudaDevAttrMaxSharedMemoryPerBlockOptin and
  // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN are both 97), not
  // the 48 KiB default one: raising the limit is what this is for.
  static constexpr cuda_api::DeviceAttrType kMaxSharedPerBlockOptin =
      static_cast<cuda_api::DeviceAttrType>(97);

  cuda_api::KernelHandle kernel_ = nullptr;
  std::string name_;
};

inline CubinKernel CubinModule::GetKernel(const char* name) {
  return CubinKernel(library_, name);
}

inline CubinKernel CubinModule::GetKernelWithMaxDynamicSharedMemory(const char* name,
                                                                    int64_t dynamic_smem_max) {
  CubinKernel kernel(library_, name);
  kernel.SetMaxDynamicSharedMemory(dynamic_smem_max);
  return kernel;
}

inline CubinKernel CubinModule::operator[](const char* name) {
  return GetKernel(name);
}

}  // namespace ffi
}  // namespace tvm

/*!
 * \brief Declare the CUDA binary embedded in this library under `name`.
 *
 * The bytes lie between the symbols `__tvm_ffi__cubin_<name>` and
 * `__tvm_ffi__cubin_<name>_end`, which one of these put into the library:
 * `python -m tvmffi.utils.embed_cubin`, the CMake function
 * `tvm_ffi_embed_bin_into(<target> SYMBOL <name> BIN <file>)`, or
 * `tvmffi.cpp.load_inline(..., embed_cubin={"<name>": data})`. The binary is
 * loaded on first use (TVM_FFI_EMBED_CUBIN_GET_KERNEL; thread-safe, and a
 * failed load is tried again at the next use) and unloaded when the library
 * is unloaded or the process exits. Use at namespace scope, once per name in
 * a translation unit.
 *
 * \code
 * TVM_FFI_EMBED_CUBIN(my_kernels);
 * ...
 * static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(my_kernels, "add_one");
 * \endcode
 */
#define TVM_FFI_EMBED_CUBIN(name)                        \
  extern "C" const char __tvm_ffi__cubin_##name[];       \
  extern "C" const char __tvm_ffi__cubin_##name##_end[]; \
  TVM_FFI_EMBED_CUBIN_FROM_BYTES(name, __tvm_ffi__cubin_##name)

/*!
 * \brief Declare a CUDA binary held by the array (or pointer) `imageBytes`
 *        under `name` (e.g. the array of `bin2c` or C++26 `#embed`); loaded on
 *        first use like TVM_FFI_EMBED_CUBIN.
 */
#define TVM_FFI_EMBED_CUBIN_FROM_BYTES(name, imageBytes)                \
  namespace {                                                           \
  struct EmbedCubinModule_##name {                                      \
    ::tvm::ffi::CubinModule mod{imageBytes};                            \
    /* Loaded at the first call (a function-local static: once, even */ \
    /* with threads racing; retried if the load threw). */              \
    static EmbedCubinModule_##name* Global() {                          \
      static EmbedCubinModule_##name inst;                              \
      return &inst;                                                     \
    }                                                                   \
  };                                                                    \
  } /* namespace */

/*!
 * \brief The kernel `kernel_name` (a string) of the binary declared by
 *        TVM_FFI_EMBED_CUBIN(name), as a CubinKernel; loads the binary on first use.
 *        Keep the result (`static auto kernel = ...`): each call looks the name up.
 */
#define TVM_FFI_EMBED_CUBIN_GET_KERNEL(name, kernel_name) \
  (EmbedCubinModule_##name::Global()->mod[kernel_name])

#endif  // TVM_FFI_EXTRA_CUDA_CUBIN_LAUNCHER_H_

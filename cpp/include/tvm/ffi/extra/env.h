/*
 * tvmffi C++ layer, opt-in: helpers for hosts that drive the environment of
 * extra/c_env_api.h (a framework adapter, a test, a C++ application).
 *
 * - EnvStreamGuard: set the calling thread's stream of one device for a
 *   scope, then put the previous one back.
 * - EnvTensorAllocatorGuard: install a DLPack tensor allocator for the
 *   calling thread for a scope, then put the previous setting back.
 * - CPUTensorAllocator: a ready DLPackManagedTensorAllocator for CPU tensors
 *   (64-byte aligned, compact), e.g. for hosts without a framework allocator.
 *
 * Kernel libraries do not need this header: they only read the environment
 * (TVMFFIEnvGetStream, Tensor::FromEnvAlloc).
 */
#ifndef TVM_FFI_EXTRA_ENV_H_
#define TVM_FFI_EXTRA_ENV_H_

#include <tvm/ffi/details/tensor_geometry.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <string>

namespace tvm {
namespace ffi {

/*!
 * \brief Sets the calling thread's current stream of one device for the
 *        lifetime of the guard; the destructor restores the stream that was
 *        set before. Guards nest (destroy them in reverse order, as scopes do).
 *
 * \code
 * {
 *   ffi::EnvStreamGuard guard(DLDevice{kDLCUDA, 0}, my_stream);
 *   kernel(x, y);  // sees my_stream through TVMFFIEnvGetStream(kDLCUDA, 0)
 * }  // previous stream restored
 * \endcode
 */
class EnvStreamGuard {
 public:
  /*! \brief ValueError (from TVMFFIEnvSetStream) for a negative device id. */
  EnvStreamGuard(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream)
      : device_type_(device_type), device_id_(device_id) {
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvSetStream(device_type, device_id, stream, &previous_));
  }
  EnvStreamGuard(DLDevice device, TVMFFIStreamHandle stream)
      : EnvStreamGuard(static_cast<int32_t>(device.device_type), device.device_id, stream) {}
  EnvStreamGuard(const EnvStreamGuard&) = delete;
  EnvStreamGuard& operator=(const EnvStreamGuard&) = delete;
  ~EnvStreamGuard() {
    // Cannot fail: the same (device_type, device_id) was accepted above.
    (void)TVMFFIEnvSetStream(device_type_, device_id_, previous_, nullptr);
  }
  /*! \return The stream that was current before the guard (restored at its end). */
  TVMFFIStreamHandle previous_stream() const noexcept { return previous_; }

 private:
  int32_t device_type_;
  int32_t device_id_;
  TVMFFIStreamHandle previous_{nullptr};
};

/*!
 * \brief Installs a DLPack tensor allocator for the calling thread for the
 *        lifetime of the guard (TVMFFIEnvSetDLPackManagedTensorAllocator with
 *        write_to_global_context = 0); the destructor restores the thread's
 *        previous setting. Guards nest.
 *
 * The thread-local setting overrides the global one. A thread that had no
 * setting of its own (it used the global allocator) gets "no setting" back,
 * so it follows later changes of the global allocator again.
 */
class EnvTensorAllocatorGuard {
 public:
  explicit EnvTensorAllocatorGuard(DLPackManagedTensorAllocator allocator) {
    // The C API reports the allocator in effect, not the thread's own slot:
    // clear the slot to see the global one, and compare.
    DLPackManagedTensorAllocator in_effect = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, &in_effect));
    DLPackManagedTensorAllocator global = TVMFFIEnvGetDLPackManagedTensorAllocator();
    previous_ = in_effect == global ? nullptr : in_effect;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIEnvSetDLPackManagedTensorAllocator(allocator, 0, nullptr));
  }
  EnvTensorAllocatorGuard(const EnvTensorAllocatorGuard&) = delete;
  EnvTensorAllocatorGuard& operator=(const EnvTensorAllocatorGuard&) = delete;
  ~EnvTensorAllocatorGuard() {
    (void)TVMFFIEnvSetDLPackManagedTensorAllocator(previous_, 0, nullptr);
  }

 private:
  DLPackManagedTensorAllocator previous_{nullptr};
};

namespace detail {

/*! \brief One block: the managed tensor, then shape[ndim] and strides[ndim]. */
struct CPUTensorAllocatorBlock {
  DLManagedTensorVersioned managed;
  // followed by 2 * ndim int64_t
};

inline void CPUTensorAllocatorDeleter(DLManagedTensorVersioned* self) {
  if (self == nullptr) return;
  std::free(self->manager_ctx);  // the data
  std::free(self);               // the block (self is its first member)
}

inline int CPUTensorAllocatorFail(void* error_ctx,
                                  void (*SetError)(void*, const char*, const char*),
                                  const char* kind, const std::string& message) noexcept {
  if (SetError != nullptr) SetError(error_ctx, kind, message.c_str());
  return -1;
}

}  // namespace detail

/*!
 * \brief A DLPackManagedTensorAllocator for CPU memory:
 *        `TVMFFIEnvSetDLPackManagedTensorAllocator(ffi::CPUTensorAllocator, 1, nullptr)`.
 *
 * Makes a compact tensor with the prototype's shape, dtype and device (which
 * must be kDLCPU), with data aligned to 64 bytes (never NULL, even for zero
 * elements). The deleter frees everything; it is code of the binary that
 * installed the allocator. Failures are reported through SetError and -1:
 * ValueError for a bad prototype, MemoryError when memory runs out. Never throws.
 */
inline int CPUTensorAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                              void (*SetError)(void* error_ctx, const char* kind,
                                               const char* message)) {
  using detail::CPUTensorAllocatorFail;
  constexpr size_t kAlignment = 64;
  try {
    if (prototype == nullptr || out == nullptr) {
      return CPUTensorAllocatorFail(error_ctx, SetError, "ValueError",
                                    "CPUTensorAllocator: prototype and out must not be NULL");
    }
    if (prototype->device.device_type != kDLCPU) {
      return CPUTensorAllocatorFail(error_ctx, SetError, "ValueError",
                                    "CPUTensorAllocator: can only allocate on cpu, not on " +
                                        DLDeviceToString(prototype->device));
    }
    const int32_t ndim = prototype->ndim;
    if (ndim < 0 || ndim > kMaxNDim || (ndim > 0 && prototype->shape == nullptr)) {
      return CPUTensorAllocatorFail(error_ctx, SetError, "ValueError",
                                    "CPUTensorAllocator: bad prototype: ndim " +
                                        std::to_string(ndim) +
                                        (ndim > 0 && prototype->shape == nullptr
                                             ? " with a NULL shape"
                                             : " (expected 0.." + std::to_string(kMaxNDim) + ")"));
    }
    for (int32_t i = 0; i < ndim; ++i) {
      if (prototype->shape[i] < 0) {
        return CPUTensorAllocatorFail(error_ctx, SetError, "ValueError",
                                      "CPUTensorAllocator: negative extent " +
                                          std::to_string(prototype->shape[i]) + " in dimension " +
                                          std::to_string(i));
      }
    }
    // Explicit prototype strides must be the compact ones.
    int64_t compact[kMaxNDim];
    detail::FillCompactStrides(prototype->shape, ndim, compact);
    if (prototype->strides != nullptr) {
      for (int32_t i = 0; i < ndim; ++i) {
        if (prototype->shape[i] != 1 && prototype->strides[i] != compact[i]) {
          return CPUTensorAllocatorFail(error_ctx, SetError, "ValueError",
                                        "CPUTensorAllocator: only compact tensors are supported");
        }
      }
    }
    uint64_t numel = 0;
    uint64_t nbytes = 0;
    if (!detail::ShapeDataBytes(prototype->shape, ndim, prototype->dtype, &numel, &nbytes) ||
        nbytes > (static_cast<uint64_t>(1) << 62)) {
      return CPUTensorAllocatorFail(error_ctx, SetError, "MemoryError",
                                    "CPUTensorAllocator: the tensor is too large");
    }
    // aligned_alloc wants a multiple of the alignment; zero elements still get a buffer.
    size_t data_bytes = static_cast<size_t>((nbytes + kAlignment - 1) / kAlignment * kAlignment);
    if (data_bytes == 0) data_bytes = kAlignment;
    void* data = std::aligned_alloc(kAlignment, data_bytes);
    if (data == nullptr) {
      return CPUTensorAllocatorFail(
          error_ctx, SetError, "MemoryError",
          "CPUTensorAllocator: failed to allocate " + std::to_string(data_bytes) + " bytes");
    }
    void* mem = std::malloc(sizeof(detail::CPUTensorAllocatorBlock) +
                            2 * static_cast<size_t>(ndim) * sizeof(int64_t));
    if (mem == nullptr) {
      std::free(data);
      return CPUTensorAllocatorFail(error_ctx, SetError, "MemoryError",
                                    "CPUTensorAllocator: out of memory");
    }
    auto* block = new (mem) detail::CPUTensorAllocatorBlock();
    int64_t* shape = reinterpret_cast<int64_t*>(block + 1);
    int64_t* strides = shape + ndim;
    for (int32_t i = 0; i < ndim; ++i) {
      shape[i] = prototype->shape[i];
      strides[i] = compact[i];
    }
    DLManagedTensorVersioned* managed = &block->managed;
    managed->version.major = DLPACK_MAJOR_VERSION;
    managed->version.minor = DLPACK_MINOR_VERSION;
    managed->manager_ctx = data;
    managed->deleter = detail::CPUTensorAllocatorDeleter;
    managed->flags = 0;
    managed->dl_tensor.data = data;
    managed->dl_tensor.device = prototype->device;
    managed->dl_tensor.ndim = ndim;
    managed->dl_tensor.dtype = prototype->dtype;
    managed->dl_tensor.shape = ndim > 0 ? shape : nullptr;
    managed->dl_tensor.strides = ndim > 0 ? strides : nullptr;
    managed->dl_tensor.byte_offset = 0;
    *out = managed;
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    // Only std::string can throw here (bad_alloc while building a message).
    if (SetError != nullptr)
      SetError(error_ctx, "MemoryError", "CPUTensorAllocator: out of memory");
    return -1;
  }
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_ENV_H_

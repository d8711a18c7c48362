// Test helpers: load libtvmffi_kernels.so with dlopen and call its exported
// __tvm_ffi_<name> functions through the raw safe-call ABI, with DLTensor*
// arguments, reading raised errors from their TVMFFIErrorCell.
//
// Needs only the C ABI headers, so these tests do not depend on the C++ layer
// (and run on machines without a GPU).
#ifndef TVMFFI_TESTS_CUDA_FFI_CALL_H_
#define TVMFFI_TESTS_CUDA_FFI_CALL_H_

#include <dlfcn.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace tvmffi_test {

/*! \brief The kernel library, loaded once; NULL if it cannot be loaded (see KernelLibError). */
inline void* KernelLib() {
  static void* handle = dlopen(TVMFFI_CUDA_KERNELS_LIB, RTLD_NOW | RTLD_LOCAL);
  return handle;
}

inline std::string KernelLibError() {
  const char* e = dlerror();
  return e ? e : "";
}

/*! \brief `__tvm_ffi_<name>` from the kernel library, or NULL. */
inline TVMFFISafeCallType KernelFn(const std::string& name) {
  void* h = KernelLib();
  if (h == nullptr) return nullptr;
  return reinterpret_cast<TVMFFISafeCallType>(dlsym(h, ("__tvm_ffi_" + name).c_str()));
}

/*! \brief Outcome of one call: return code, error kind/message, owned result. */
struct CallResult {
  int rc = -2;  // -2: the function was not found
  std::string kind;
  std::string message;
  TVMFFIAny value;

  CallResult() { Clear(); }
  CallResult(const CallResult&) = delete;
  CallResult& operator=(const CallResult&) = delete;
  CallResult(CallResult&& o) noexcept
      : rc(o.rc), kind(std::move(o.kind)), message(std::move(o.message)), value(o.value) {
    o.Clear();
  }
  CallResult& operator=(CallResult&& o) noexcept {
    if (this != &o) {
      Release();
      rc = o.rc;
      kind = std::move(o.kind);
      message = std::move(o.message);
      value = o.value;
      o.Clear();
    }
    return *this;
  }
  ~CallResult() { Release(); }
  /*! \brief The DLTensor inside a returned Tensor object, or NULL. */
  DLTensor* tensor() const {
    if (value.type_index != kTVMFFITensor || value.v_obj == nullptr) return nullptr;
    return reinterpret_cast<DLTensor*>(reinterpret_cast<char*>(value.v_obj) + sizeof(TVMFFIObject));
  }
  /*! \brief "rc=-1 ValueError: ..." for test diagnostics. */
  std::string Describe() const { return "rc=" + std::to_string(rc) + " " + kind + ": " + message; }

 private:
  void Release() {
    if (value.type_index >= kTVMFFIStaticObjectBegin && value.v_obj != nullptr) {
      TVMFFIObjectDecRef(value.v_obj);
    }
    Clear();
  }
  void Clear() {
    std::memset(&value, 0, sizeof(value));
    value.type_index = kTVMFFINone;
  }
};

/*! \brief Call `__tvm_ffi_<name>` directly (handle NULL), as a loader-free host would. */
inline CallResult Call(const std::string& name, std::vector<TVMFFIAny> args) {
  CallResult r;
  TVMFFISafeCallType f = KernelFn(name);
  if (f == nullptr) {
    r.message = "symbol __tvm_ffi_" + name + " not found";
    return r;
  }
  r.rc = f(nullptr, args.data(), static_cast<int32_t>(args.size()), &r.value);
  if (r.rc != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) {
      const auto* cell =
          reinterpret_cast<const TVMFFIErrorCell*>(static_cast<char*>(err) + sizeof(TVMFFIObject));
      r.kind.assign(cell->kind.data, cell->kind.size);
      r.message.assign(cell->message.data, cell->message.size);
      TVMFFIObjectDecRef(err);
    } else {
      r.message = "non-zero return without a raised error";
    }
  }
  return r;
}

inline TVMFFIAny AnyTensor(DLTensor* t) {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = t;
  return a;
}

inline TVMFFIAny AnyFloat(double v) {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}

/*! \brief A DLTensor that owns its shape (and optional strides) arrays. */
class TestTensor {
 public:
  TestTensor(void* data, std::vector<int64_t> shape, DLDataType dtype, DLDevice device,
             uint64_t byte_offset = 0)
      : shape_(std::move(shape)) {
    std::memset(&dl_, 0, sizeof(dl_));
    dl_.data = data;
    dl_.device = device;
    dl_.dtype = dtype;
    dl_.ndim = static_cast<int32_t>(shape_.size());
    dl_.byte_offset = byte_offset;
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  void SetStrides(std::vector<int64_t> strides) { strides_ = std::move(strides); }
  DLTensor* get() {
    dl_.shape = shape_.data();
    dl_.strides = strides_.empty() ? nullptr : strides_.data();
    return &dl_;
  }
  TVMFFIAny any() { return AnyTensor(get()); }

 private:
  std::vector<int64_t> shape_;
  std::vector<int64_t> strides_;
  DLTensor dl_;
};

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kF16{kDLFloat, 16, 1};
constexpr DLDataType kBF16{kDLBfloat, 16, 1};
constexpr DLDataType kF64{kDLFloat, 64, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};
constexpr DLDataType kI64{kDLInt, 64, 1};
constexpr DLDataType kI8{kDLInt, 8, 1};
constexpr DLDataType kU8{kDLUInt, 8, 1};

inline DLDevice CUDADev(int id = 0) {
  return DLDevice{kDLCUDA, id};
}
inline DLDevice CPUDev() {
  return DLDevice{kDLCPU, 0};
}

/*!
 * \brief Fill a versioned DLPack tensor the way a test allocator answers
 *        `prototype`: its device, dtype and shape (kept in `shape`), compact
 *        (no strides), over `data`, owned through `ctx` and `deleter`.
 */
inline void FillFromPrototype(DLManagedTensorVersioned* m, const DLTensor* prototype, void* data,
                              std::vector<int64_t>* shape, void* ctx,
                              void (*deleter)(DLManagedTensorVersioned*)) {
  shape->assign(prototype->shape, prototype->shape + prototype->ndim);
  m->version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m->manager_ctx = ctx;
  m->deleter = deleter;
  m->flags = 0;
  DLTensor& t = m->dl_tensor;
  t.data = data;
  t.device = prototype->device;
  t.ndim = prototype->ndim;
  t.dtype = prototype->dtype;
  t.shape = shape->data();
  t.strides = nullptr;
  t.byte_offset = 0;
}

}  // namespace tvmffi_test

#endif  // TVMFFI_TESTS_CUDA_FFI_CALL_H_

/*
 * tvmffi C++ layer (tvmffi extension): shape functions, so that a host can
 * learn the shapes, dtypes and devices of the tensors an exported function
 * returns without running it (torch's fake tensors, jax.ffi.ffi_call's result
 * spec, a planner sizing buffers).
 *
 * TVM_FFI_DLL_EXPORT_SHAPE(name, fn), after TVM_FFI_DLL_EXPORT_TYPED_FUNC(name, ...)
 * in the same file, exports
 *
 *   extern "C" int __tvm_ffi__shape_<name>(void* self, const TVMFFIAny* args,
 *                                         int32_t num_args, TVMFFIAny* result);
 *
 * a safe-call function (TVMFFISafeCallType; 0 on success, -1 with the error
 * parked as by TVMFFIErrorSetRaised) taking the arguments of `name` itself:
 *  - each tensor as a DLTensor* (kTVMFFIDLTensorPtr) or an ffi.Tensor; only
 *    its ndim, shape, dtype and device are read, so `data` may be NULL and
 *    `strides` NULL (the shape function never reads or writes data);
 *  - scalars (int, float, bool, str, None for Optional) as in a call.
 * On success `result` holds a String (owned by the caller: release it with
 * TVMFFIObjectDecRef when it is an object) with one entry per tensor the
 * function returns, as JSON (stable, keys in this order):
 *
 *   [{"shape":[2,3],"dtype":"float32","device":[1,0]}]
 *
 * "dtype" is the DLDataType's name (DLDataTypeToString), "device" is
 * [device_type, device_id] (DLDevice). Bad arguments fail with the same error
 * kind and message the function itself would give (TypeError for a wrong
 * type, ValueError for a wrong shape, ...), checked by `fn`. The function is
 * pure and thread-safe when `fn` is.
 *
 * A function that fills outputs it is given (TVM_FFI_DLL_EXPORT_WRITES) may
 * declare one too, for hosts that allocate those outputs themselves (JAX,
 * whose results are new buffers): they pass None in place of each written
 * argument (its parameter in `fn` is Optional<TensorView>), and it returns
 * one spec per written argument, in parameter order.
 *
 * `fn` takes the parameters of the exported function (TensorView for tensors;
 * the conversions and argument errors are those of TVM_FFI_DLL_EXPORT_TYPED_FUNC)
 * and returns a TensorSpec or a std::vector<TensorSpec>:
 *
 *   ffi::TensorSpec ScaleAllocShape(ffi::TensorView x, double) {
 *     return ffi::TensorSpec::Like(x);
 *   }
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_alloc, ScaleAlloc);
 *   TVM_FFI_DLL_EXPORT_SHAPE(scale_alloc, ScaleAllocShape);
 *
 * Hosts find it with dlsym next to `__tvm_ffi_<name>` (like the metadata
 * symbols it is reserved: Module::GetFunction does not return it);
 * tvmffi.torch uses it for fake tensors, tvmffi.jax for ffi_call's result spec. Opting out of
 * metadata (TVM_FFI_DLL_EXPORT_NO_METADATA) omits it too.
 */
#ifndef TVM_FFI_EXTRA_SHAPE_FUNCTION_H_
#define TVM_FFI_EXTRA_SHAPE_FUNCTION_H_

#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief What a shape function says about one result tensor (tvmffi extension). */
struct TensorSpec {
  /*! \brief The result's shape. */
  std::vector<int64_t> shape;
  /*! \brief The result's element type. */
  DLDataType dtype{kDLFloat, 32, 1};
  /*! \brief The device the result is allocated on. */
  DLDevice device{kDLCPU, 0};

  TensorSpec() = default;
  TensorSpec(std::vector<int64_t> shape_, DLDataType dtype_, DLDevice device_)
      : shape(std::move(shape_)), dtype(dtype_), device(device_) {}

  /*! \return A spec with the shape, dtype and device of `t` (any tensor-like with those accessors).
   */
  template <typename TensorLike>
  static TensorSpec Like(const TensorLike& t) {
    auto s = t.shape();
    return TensorSpec(std::vector<int64_t>(s.begin(), s.end()), t.dtype(), t.device());
  }
};

namespace detail {

inline void AppendTensorSpecJSON(const TensorSpec& spec, std::string* out) {
  *out += "{\"shape\":[";
  for (size_t i = 0; i < spec.shape.size(); ++i) {
    if (i != 0) *out += ",";
    TVM_FFI_CHECK(spec.shape[i] >= 0, ValueError)
        << "shape function: result dimension " << i << " is negative (" << spec.shape[i] << ")";
    *out += std::to_string(spec.shape[i]);
  }
  *out += "],\"dtype\":\"";
  *out += std::string(DLDataTypeToString(spec.dtype));
  *out += "\",\"device\":[" + std::to_string(static_cast<int>(spec.device.device_type)) + "," +
          std::to_string(spec.device.device_id) + "]}";
}

inline String TensorSpecsToJSON(const std::vector<TensorSpec>& specs) {
  std::string out = "[";
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i != 0) out += ",";
    AppendTensorSpecJSON(specs[i], &out);
  }
  out += "]";
  return String(out);
}

inline String TensorSpecsToJSON(const TensorSpec& spec) {
  return TensorSpecsToJSON(std::vector<TensorSpec>{spec});
}

/*! \brief `fn` wrapped to return the JSON of its specs, with the same parameters. */
template <typename R, typename... Args>
auto ShapeFunctionJSON(R (*fn)(Args...)) {
  return
      [fn](Args... args) -> String { return TensorSpecsToJSON(fn(std::forward<Args>(args)...)); };
}

template <typename F, typename R, typename C, typename... Args>
auto ShapeFunctionJSONMember(F fn, R (C::*)(Args...) const) {
  return
      [fn](Args... args) -> String { return TensorSpecsToJSON(fn(std::forward<Args>(args)...)); };
}

/*! \brief A captureless or capturing lambda (its call operator's parameters). */
template <typename F, typename = decltype(&F::operator())>
auto ShapeFunctionJSON(F fn) {
  return ShapeFunctionJSONMember(fn, &F::operator());
}

template <typename F>
constexpr size_t ShapeFunctionArity(F&& fn) noexcept {
  return FunctionInfo<remove_cvref_t<decltype(ShapeFunctionJSON(fn))>>::num_args;
}

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

#if TVM_FFI_EXPORT_METADATA_ENABLED_

/*!
 * \brief Export the shape function `Fn` of the exported function ExportName as
 *        `__tvm_ffi__shape_<ExportName>` (see the file comment for the C
 *        convention). Place it after TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, ...):
 *        `Fn` must take as many parameters as the function (checked at compile time).
 * \code
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_alloc, ScaleAlloc);       // (x, factor) -> Tensor
 *   TVM_FFI_DLL_EXPORT_SHAPE(scale_alloc, [](ffi::TensorView x, double) {
 *     return ffi::TensorSpec::Like(x);
 *   });
 * \endcode
 */
#define TVM_FFI_DLL_EXPORT_SHAPE(ExportName, ...)                                                 \
  static_assert(                                                                                  \
      ::tvm::ffi::detail::ShapeFunctionArity(__VA_ARGS__) == __tvm_ffi__arity_##ExportName(),     \
      "TVM_FFI_DLL_EXPORT_SHAPE(" #ExportName                                                     \
      ", fn): fn must take as many parameters as the exported function");                         \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__shape_##ExportName(                                \
      void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {                   \
    (void)self;                                                                                   \
    return ::tvm::ffi::detail::InvokeExportedTyped(                                               \
        #ExportName, ::tvm::ffi::detail::ShapeFunctionJSON(__VA_ARGS__), args, num_args, result); \
  }

#else  // metadata opted out

#define TVM_FFI_DLL_EXPORT_SHAPE(ExportName, ...)

#endif  // TVM_FFI_EXPORT_METADATA_ENABLED_

#endif  // TVM_FFI_EXTRA_SHAPE_FUNCTION_H_

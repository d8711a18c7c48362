/*
 * tvmffi C++ layer: the metadata and documentation symbols that go with an
 * exported function (included by tvm/ffi/function.h).
 *
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC(name, fn) exports, besides `__tvm_ffi_<name>`:
 *
 *   extern "C" int __tvm_ffi__metadata_<name>(void* self, const TVMFFIAny* args,
 *                                            int32_t num_args, TVMFFIAny* result);
 *
 * a safe-call function that ignores its arguments and returns the signature
 * of `fn` as a JSON String (format version 1, stable; keys always in this order):
 *
 *   {"name":"add_int",
 *    "args":[{"index":0,"type":"int"},{"index":1,"type":"int"}],
 *    "ret":"int",
 *    "type_schema":"{\"type\":\"ffi.Function\",\"args\":[{\"type\":\"int\"},...]}"}
 *
 *  - "name": the export name (the symbol without `__tvm_ffi_`).
 *  - "args": one entry per parameter, in order; "type" is the readable type
 *    name also used in argument error messages ("int", "float", "bool", "str",
 *    "DLTensor*" for TensorView, "ffi.Tensor", "Optional[DLTensor*]", "Any", ...).
 *  - "ret": the readable return type ("None" for void).
 *  - "type_schema": a JSON document *encoded as a string*, in the layout
 *    upstream TVM-FFI tools read: {"type":"ffi.Function","args":[<ret>,<arg0>,...]},
 *    each entry {"type":"<name>"} or, for Optional, {"type":"Optional","args":[<T>]}.
 *
 * The String is created with TVMFFIStringFromByteArray, so its memory belongs
 * to libtvmffi. `Module::GetFunctionMetadata(name)` returns it.
 *
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(name, "text") exports
 * `__tvm_ffi__doc_<name>` returning "text" (`Module::GetFunctionDoc(name)`).
 *
 * Opting out (for minimal binaries): define TVM_FFI_DLL_EXPORT_NO_METADATA, or
 * upstream's switch TVM_FFI_DLL_EXPORT_INCLUDE_METADATA as 0, before including
 * any tvm/ffi header. Both the metadata and the doc symbols are then omitted.
 * (Upstream's default is off; tvmffi's default is on.)
 */
#ifndef TVM_FFI_FUNCTION_METADATA_H_
#define TVM_FFI_FUNCTION_METADATA_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function_details.h>
#include <tvm/ffi/optional.h>

#include <optional>
#include <string>
#include <string_view>

#if defined(TVM_FFI_DLL_EXPORT_NO_METADATA)
#define TVM_FFI_EXPORT_METADATA_ENABLED_ 0
#elif defined(TVM_FFI_DLL_EXPORT_INCLUDE_METADATA)
#if TVM_FFI_DLL_EXPORT_INCLUDE_METADATA
#define TVM_FFI_EXPORT_METADATA_ENABLED_ 1
#else
#define TVM_FFI_EXPORT_METADATA_ENABLED_ 0
#endif
#else
#define TVM_FFI_EXPORT_METADATA_ENABLED_ 1
#endif

namespace tvm {
namespace ffi {
namespace details {

/*! \brief The upstream-style type schema of T: {"type":"int"}, {"type":"Optional","args":[...]}. */
template <typename T>
inline std::string MetadataTypeSchema() {
  using U = remove_cvref_t<T>;
  using Inner = typename OptionalInner<U>::type;
  if constexpr (!std::is_void_v<Inner>) {
    return "{\"type\":\"Optional\",\"args\":[" + MetadataTypeSchema<Inner>() + "]}";
  } else if constexpr (!std::is_void_v<U> && !std::is_same_v<U, Any> &&
                       !std::is_same_v<U, AnyView> && HasTypeSchema<U>::value) {
    return TypeTraits<U>::TypeSchema();
  } else {
    std::string s = "{\"type\":";
    AppendJSONString(&s, std::is_same_v<U, AnyView> ? std::string("Any") : TypeName<U>());
    s += "}";
    return s;
  }
}

template <typename FType>
struct MetadataJSON;

template <typename R, typename... Args>
struct MetadataJSON<R(Args...)> {
  /*! \return The metadata document described at the top of this file. */
  static std::string Build(std::string_view name) {
    std::string s = "{\"name\":";
    AppendJSONString(&s, name);
    s += ",\"args\":[";
    size_t index = 0;
    ((s += (index == 0 ? "{\"index\":" : ",{\"index\":"), s += std::to_string(index),
      s += ",\"type\":", AppendJSONString(&s, TypeName<Args>()), s += "}", ++index),
     ...);
    s += "],\"ret\":";
    AppendJSONString(&s, TypeName<R>());
    std::string schema = "{\"type\":\"ffi.Function\",\"args\":[" + MetadataTypeSchema<R>();
    ((schema += ",", schema += MetadataTypeSchema<Args>()), ...);
    schema += "]}";
    s += ",\"type_schema\":";
    AppendJSONString(&s, schema);
    s += "}";
    return s;
  }
};

/*! \brief Write `text` as an owned String (allocated by libtvmffi) into *result. */
inline int ExportStringResult(std::string_view text, TVMFFIAny* result) {
  TVMFFIByteArray bytes{text.data(), text.size()};
  return TVMFFIStringFromByteArray(&bytes, result);
}

/*!
 * \brief Body of `__tvm_ffi__metadata_<name>`. The callable is taken by value
 *        only to learn its type (C++17 has no decltype of a lambda expression).
 */
template <typename F>
inline int ExportFunctionMetadata(const char* name, TVMFFIAny* result, const F&) {
  TVM_FFI_SAFE_CALL_BEGIN();
  using FType = typename FunctionInfo<remove_cvref_t<F>>::FType;
  std::string json = MetadataJSON<FType>::Build(name);
  return ExportStringResult(json, result);
  TVM_FFI_SAFE_CALL_END();
}

/*! \brief Body of `__tvm_ffi__doc_<name>`. */
inline int ExportFunctionDoc(std::string_view doc, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  return ExportStringResult(doc, result);
  TVM_FFI_SAFE_CALL_END();
}

}  // namespace details
}  // namespace ffi
}  // namespace tvm

#if TVM_FFI_EXPORT_METADATA_ENABLED_

/*!
 * \brief The metadata symbol `__tvm_ffi__metadata_<ExportName>` of
 *        TVM_FFI_DLL_EXPORT_TYPED_FUNC (the function's signature as JSON).
 */
#undef TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_(ExportName, ...)                           \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_##ExportName(                     \
      void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {           \
    (void)self;                                                                            \
    (void)args;                                                                            \
    (void)num_args;                                                                        \
    return ::tvm::ffi::details::ExportFunctionMetadata(#ExportName, result, __VA_ARGS__); \
  }

/*!
 * \brief Export a documentation string for an exported function as
 *        `__tvm_ffi__doc_<ExportName>` (read with Module::GetFunctionDoc).
 * \code
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_int, "Add two integers.");
 * \endcode
 */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)                    \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_##ExportName(                   \
      void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {    \
    (void)self;                                                                     \
    (void)args;                                                                     \
    (void)num_args;                                                                 \
    return ::tvm::ffi::details::ExportFunctionDoc(DocString, result);               \
  }

#else  // metadata opted out

#undef TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_(ExportName, ...)
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)

#endif  // TVM_FFI_EXPORT_METADATA_ENABLED_

#endif  // TVM_FFI_FUNCTION_METADATA_H_

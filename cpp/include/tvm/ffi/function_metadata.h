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
 *    "type_schema":"{\"type\":\"ffi.Function\",\"named_args\":{\"return\":[{\"type\":\"int\"}],...}}"}
 *
 *  - "name": the export name (the symbol without `__tvm_ffi_`).
 *  - "args": one entry per parameter, in order; "type" is the readable type
 *    name also used in argument error messages ("int", "float", "bool", "str",
 *    "DLTensor*" for TensorView, "ffi.Tensor", "Optional<DLTensor*>", "Any", ...).
 *  - "ret": the readable return type ("None" for void).
 *  - "type_schema": a JSON document *encoded as a string*, in the layout
 *    upstream TVM-FFI 0.1.15 writes:
 *    {"type":"ffi.Function","named_args":{"return":[<ret>],"params":[<arg0>,...]}},
 *    each entry {"type":"<name>"} or, for Optional, {"type":"Optional","args":[<T>]}
 *    (before 0.1.15, and before tvmffi followed it: the flat
 *    {"type":"ffi.Function","args":[<ret>,<arg0>,...]}; tvmffi's readers take both).
 *
 * The String is created with TVMFFIStringFromByteArray, so its memory belongs
 * to libtvmffi. `Module::GetFunctionMetadata(name)` returns it.
 *
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(name, "text") exports
 * `__tvm_ffi__doc_<name>` returning "text" (`Module::GetFunctionDoc(name)`).
 *
 * TVM_FFI_DLL_EXPORT_WRITES(name, i, j, ...) (a tvmffi extension), after the
 * export of `name`, declares the arguments the function writes (0-based, each
 * less than its arity: checked at compile time); TVM_FFI_DLL_EXPORT_WRITES_NOTHING(name)
 * declares that it writes none. It exports `__tvm_ffi__writes_<name>`, a
 * safe-call function returning the indices as a JSON array String, sorted
 * ("[0,2]", "[]"); `Module::GetFunctionWrites(name)` returns them. A host may
 * then lend read-only memory to the other arguments without a private copy,
 * and refuse it for these. No declaration: the host assumes any argument may
 * be written.
 *
 * Opting out (for minimal binaries): define TVM_FFI_DLL_EXPORT_NO_METADATA, or
 * upstream's switch TVM_FFI_DLL_EXPORT_INCLUDE_METADATA as 0, before including
 * any tvm/ffi header. The metadata, doc and writes symbols are then omitted.
 * (Upstream's default is off; tvmffi's default is on.)
 */
#ifndef TVM_FFI_FUNCTION_METADATA_H_
#define TVM_FFI_FUNCTION_METADATA_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function_detail.h>
#include <tvm/ffi/optional.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
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
namespace detail {

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

/*!
 * \brief A callable's schema (upstream 0.1.15's form):
 *        {"type":<type_key>,"named_args":{"return":[<R>],"params":[<Args>...]}}.
 *        Readers should still accept the older flat form
 *        {"type":<type_key>,"args":[<R>,<Args>...]}.
 */
template <typename R, typename... Args>
inline std::string CallableTypeSchema(std::string_view type_key) {
  std::string s = "{\"type\":";
  AppendJSONString(&s, type_key);
  s += ",\"named_args\":{\"return\":[" + MetadataTypeSchema<R>() + "],\"params\":[";
  const char* sep = "";
  ((s += sep, s += MetadataTypeSchema<Args>(), sep = ","), ...);
  (void)sep;
  return s + "]}}";
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
    std::string schema = CallableTypeSchema<R, Args...>("ffi.Function");
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

/*! \brief The metadata of a signature FType as `__tvm_ffi__metadata_<name>` returns it. */
template <typename FType>
inline int ExportSignatureMetadata(const char* name, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  std::string json = MetadataJSON<FType>::Build(name);
  return ExportStringResult(json, result);
  TVM_FFI_SAFE_CALL_END();
}

/*!
 * \brief Body of `__tvm_ffi__metadata_<name>`. The callable is taken only to
 *        learn its type (C++17 has no decltype of a lambda expression). Always
 *        inlined, so that the reference is dropped: a kernel whose address is
 *        taken is not inlined into its exported symbol (see
 *        FuncFunctorImpl::UnpackExported).
 */
template <typename F>
TVM_FFI_INLINE int ExportFunctionMetadata(const char* name, TVMFFIAny* result, const F&) {
  return ExportSignatureMetadata<typename FunctionInfo<remove_cvref_t<F>>::FType>(name, result);
}

/*! \brief Body of `__tvm_ffi__doc_<name>`. */
inline int ExportFunctionDoc(std::string_view doc, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  return ExportStringResult(doc, result);
  TVM_FFI_SAFE_CALL_END();
}

/*! \brief The arity of an exported callable; only its type is used (see ExportFunctionMetadata). */
template <typename F>
constexpr size_t ExportArity(const F&) noexcept {
  return FunctionInfo<remove_cvref_t<F>>::num_args;
}

/*! \return Whether every index of a writes declaration names an argument. */
constexpr bool WritesInRange(size_t arity, std::initializer_list<int64_t> indices) noexcept {
  for (int64_t i : indices) {
    if (i < 0 || static_cast<uint64_t>(i) >= arity) return false;
  }
  return true;
}

/*! \return Whether no index of a writes declaration is listed twice. */
constexpr bool WritesUnique(std::initializer_list<int64_t> indices) noexcept {
  const int64_t* b = indices.begin();
  for (size_t k = 0; k < indices.size(); ++k) {
    for (size_t j = k + 1; j < indices.size(); ++j) {
      if (b[k] == b[j]) return false;
    }
  }
  return true;
}

/*! \brief Body of `__tvm_ffi__writes_<name>`: the indices as a sorted JSON array. */
inline int ExportFunctionWrites(std::initializer_list<int64_t> indices, TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  std::string json = "[";
  int64_t last = -1;
  for (size_t n = 0; n < indices.size(); ++n) {  // ascending, by selection (a handful of items)
    int64_t next = -1;
    for (int64_t i : indices) {
      if (i > last && (next < 0 || i < next)) next = i;
    }
    if (n != 0) json += ",";
    json += std::to_string(next);
    last = next;
  }
  json += "]";
  return ExportStringResult(json, result);
  TVM_FFI_SAFE_CALL_END();
}

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

#if TVM_FFI_EXPORT_METADATA_ENABLED_

/*!
 * \brief The metadata symbol `__tvm_ffi__metadata_<ExportName>` of
 *        TVM_FFI_DLL_EXPORT_TYPED_FUNC (the function's signature as JSON).
 */
#undef TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_(ExportName, ...)                         \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__metadata_##ExportName(                    \
      void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {          \
    (void)self;                                                                          \
    (void)args;                                                                          \
    (void)num_args;                                                                      \
    return ::tvm::ffi::detail::ExportFunctionMetadata(#ExportName, result, __VA_ARGS__); \
  }                                                                                      \
  [[maybe_unused]] static constexpr size_t __tvm_ffi__arity_##ExportName() noexcept {    \
    return ::tvm::ffi::detail::ExportArity(__VA_ARGS__);                                 \
  }

/*!
 * \brief Export a documentation string for an exported function as
 *        `__tvm_ffi__doc_<ExportName>` (read with Module::GetFunctionDoc).
 * \code
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_int, "Add two integers.");
 * \endcode
 */
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)                \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__doc_##ExportName(                \
      void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) { \
    (void)self;                                                                 \
    (void)args;                                                                 \
    (void)num_args;                                                             \
    return ::tvm::ffi::detail::ExportFunctionDoc(DocString, result);            \
  }

/*!
 * \brief Declare the arguments an exported function writes (tvmffi extension),
 *        as `__tvm_ffi__writes_<ExportName>` (read with Module::GetFunctionWrites).
 *        Place it after TVM_FFI_DLL_EXPORT_TYPED_FUNC(ExportName, ...) in the
 *        same file: each index must be below the function's arity, once.
 * \code
 *   TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);  // Scale(out, in, factor)
 *   TVM_FFI_DLL_EXPORT_WRITES(scale, 0);           // writes `out` only
 * \endcode
 */
#define TVM_FFI_DLL_EXPORT_WRITES(ExportName, ...) \
  TVM_FFI_DLL_EXPORT_WRITES_IMPL_(ExportName, {__VA_ARGS__})

/*! \brief Declare that an exported function writes none of its arguments (see above). */
#define TVM_FFI_DLL_EXPORT_WRITES_NOTHING(ExportName) \
  TVM_FFI_DLL_EXPORT_WRITES_IMPL_(ExportName, {})

// The braced list arrives as __VA_ARGS__ (its commas split macro arguments).
#define TVM_FFI_DLL_EXPORT_WRITES_IMPL_(ExportName, ...)                                         \
  static_assert(::tvm::ffi::detail::WritesInRange(__tvm_ffi__arity_##ExportName(), __VA_ARGS__), \
                "TVM_FFI_DLL_EXPORT_WRITES(" #ExportName                                         \
                ", ...): an index is negative or not below the function's arity");               \
  static_assert(::tvm::ffi::detail::WritesUnique(__VA_ARGS__),                                   \
                "TVM_FFI_DLL_EXPORT_WRITES(" #ExportName ", ...): an index is listed twice");    \
  extern "C" TVM_FFI_DLL_EXPORT int __tvm_ffi__writes_##ExportName(                              \
      void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {                  \
    (void)self;                                                                                  \
    (void)args;                                                                                  \
    (void)num_args;                                                                              \
    return ::tvm::ffi::detail::ExportFunctionWrites(__VA_ARGS__, result);                        \
  }

#else  // metadata opted out

#undef TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_METADATA_(ExportName, ...)
#define TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(ExportName, DocString)
#define TVM_FFI_DLL_EXPORT_WRITES(ExportName, ...)
#define TVM_FFI_DLL_EXPORT_WRITES_NOTHING(ExportName)

#endif  // TVM_FFI_EXPORT_METADATA_ENABLED_

#endif  // TVM_FFI_FUNCTION_METADATA_H_

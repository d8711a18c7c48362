/*
 * tvm/ffi/extra/serialization.h: object graphs to and from JSON values
 * (upstream's API and format).
 *
 *   json::Value graph = ToJSONGraph(value);          // {"root_index", "nodes"}
 *   String text = json::Stringify(graph);
 *   Any back = FromJSONGraph(json::Parse(text));
 *
 * Every distinct value becomes one node {"type": key, "data": ...}; shared
 * objects stay shared after the round trip. Reflected objects are written
 * field by field (TVMFFITypeInfo) and rebuilt with their type's creator and
 * field setters. runtime/serialization.cc documents the node formats. The
 * work happens in libtvmffi (globals `ffi.ToJSONGraph`, `ffi.FromJSONGraph`,
 * and the text forms `ffi.ToJSONGraphString`, `ffi.FromJSONGraphString`).
 */
#ifndef TVM_FFI_EXTRA_SERIALIZATION_H_
#define TVM_FFI_EXTRA_SERIALIZATION_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>

namespace tvm {
namespace ffi {

namespace detail {
// Bodies shared with libtvmffi_upstream_cxx's exported copies.
inline json::Value ToJSONGraphImpl(const Any& value, const Any& metadata) {
  return TVM_FFI_RUNTIME_GLOBAL_("ffi.ToJSONGraph")(value, metadata);
}
inline Any FromJSONGraphImpl(const json::Value& value) {
  return TVM_FFI_RUNTIME_GLOBAL_("ffi.FromJSONGraph")(value);
}
}  // namespace detail

#ifndef TVM_FFI_SERIALIZATION_OUT_OF_LINE_
// Hidden: upstream's out-of-line functions have these mangled names (json.h).
/*!
 * \brief The object graph of `value` as a JSON value:
 *        {"root_index": i, "nodes": [...], "metadata": metadata (when not None)}.
 * \throws Error ValueError for a List/Dict/object that contains itself or
 *         nesting deeper than 1000 levels; TypeError for a value that cannot be
 *         serialized (an opaque pointer, an object type without a creator).
 */
TVM_FFI_HIDDEN inline json::Value ToJSONGraph(const Any& value,
                                              const Any& metadata = Any(nullptr)) {
  return detail::ToJSONGraphImpl(value, metadata);
}
/*!
 * \brief Rebuild the value a ToJSONGraph graph describes.
 * \throws Error ValueError for a malformed graph (naming the node and what is
 *         wrong); TypeError for a missing required field or an unknown type.
 */
TVM_FFI_HIDDEN inline Any FromJSONGraph(const json::Value& value) {
  return detail::FromJSONGraphImpl(value);
}
#else
json::Value ToJSONGraph(const Any& value, const Any& metadata = Any(nullptr));
Any FromJSONGraph(const json::Value& value);
#endif

/*! \brief Typed keys of a type's own JSON form (upstream's names). */
namespace type_attr {
/*! \brief value -> the JSON-able data ToJSONGraph stores for it. */
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kDataToJson{"__data_to_json__"};
/*! \brief The stored data -> the value (FromJSONGraph). */
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kDataFromJson{
    "__data_from_json__"};
}  // namespace type_attr

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_SERIALIZATION_H_

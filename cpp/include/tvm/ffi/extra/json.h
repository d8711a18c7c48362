/*
 * tvm/ffi/extra/json.h: JSON text to and from ffi values (upstream's API).
 *
 *   json::Value v = json::Parse(R"({"name": "relu", "shape": [2, 3], "scale": 0.5})");
 *   json::Object obj = v.cast<json::Object>();
 *   int64_t rows = obj["shape"].cast<json::Array>()[0].cast<int64_t>();
 *   String text = json::Stringify(v, 2);   // two-space indent; no indent: compact
 *
 * Values: null <-> None, true/false <-> bool, integers that fit int64 <-> int,
 * other numbers <-> float, strings <-> String, arrays <-> json::Array (Array<Any>),
 * objects <-> json::Object (Map<Any, Any>, keys in document order). Parse also
 * reads NaN, Infinity and -Infinity; Stringify writes them the same way.
 *
 * The parser and the writer live in libtvmffi (globals `ffi.json.Parse` and
 * `ffi.json.Stringify`); these wrappers call them. Code built against upstream's
 * header gets the same functions from libtvmffi_upstream_cxx.so.
 */
#ifndef TVM_FFI_EXTRA_JSON_H_
#define TVM_FFI_EXTRA_JSON_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

namespace tvm {
namespace ffi {
namespace json {

/*! \brief A JSON value: an Any holding None, bool, int, float, String, Array or Map. */
using Value = Any;

/*!
 * \brief A JSON object. Keys are Any (checked to be strings when written) so
 *        that reading a parsed object needs no per-key conversion.
 */
using Object = ffi::Map<Any, Any>;

/*! \brief A JSON array. */
using Array = ffi::Array<Any>;

}  // namespace json

namespace detail {
// The bodies of json::Parse / json::Stringify, shared with the out-of-line
// copies that libtvmffi_upstream_cxx.so exports under upstream's names.
inline json::Value JsonParse(const String& json_str, String* error_msg) {
  const Function& parse = TVM_FFI_RUNTIME_GLOBAL_("ffi.json.Parse");
  if (error_msg == nullptr) return parse(json_str);
  try {
    json::Value result = parse(json_str);
    *error_msg = String("");
    return result;
  } catch (const Error& e) {
    if (e.kind() != "ValueError") throw;
    *error_msg = String(e.message());
  }
  return json::Value(nullptr);
}
inline String JsonStringify(const json::Value& value, const Optional<int>& indent) {
  return TVM_FFI_RUNTIME_GLOBAL_("ffi.json.Stringify")(value, indent).cast<String>();
}
}  // namespace detail

namespace json {

/*!
 * \brief Parse JSON text (RFC 8259, plus NaN, Infinity and -Infinity).
 *
 * Integers that fit in int64 become int, other numbers float (a number out of
 * double's range is an error). Objects keep their keys in document order; a
 * repeated key keeps its first position and its last value. Nesting deeper
 * than 1000 levels is an error.
 *
 * \param json_str The text.
 * \param error_msg Where to report a syntax error instead of throwing; set to
 *        "" on success. The message names the problem and its place, as
 *        Python's json module does ("Expecting ',' delimiter: line 1 column 3 (char 2)").
 * \return The value; None when parsing failed and error_msg is given.
 * \throws Error ValueError (with the message above) on bad text when error_msg
 *         is nullptr.
 */
#ifndef TVM_FFI_JSON_OUT_OF_LINE_
// Inline and hidden: the mangled name is upstream's out-of-line function's,
// which a host's exported copy must never interpose (README, "Upstream C++
// hosts"). libtvmffi_upstream_cxx defines TVM_FFI_JSON_OUT_OF_LINE_ to get
// plain declarations and export the definitions.
TVM_FFI_HIDDEN inline json::Value Parse(const String& json_str, String* error_msg = nullptr) {
  return detail::JsonParse(json_str, error_msg);
}
#else
json::Value Parse(const String& json_str, String* error_msg = nullptr);
#endif

/*!
 * \brief Write a value as JSON text.
 *
 * Floats always carry a '.' or an exponent (5.0 is "5.0") and use the fewest
 * digits that read back to the same double; NaN and infinities are written
 * NaN, Infinity, -Infinity. Strings are escaped as EscapeStringJSON does.
 * Array and List become arrays, Map and Dict objects (in their iteration order).
 *
 * \param value The value.
 * \param indent Spaces per nesting level; empty or 0: compact (no spaces at
 *        all). With an indent, every element goes on its own line, keys are
 *        followed by ": ", and empty arrays and objects stay "[]" and "{}".
 * \return The text.
 * \throws Error ValueError for a value of another type ("json::Stringify:
 *         unsupported type: `ffi.Function` ..."), an object key that is not a
 *         string, a List or Dict that contains itself, nesting deeper than 1000
 *         levels, or a negative indent.
 */
#ifndef TVM_FFI_JSON_OUT_OF_LINE_
TVM_FFI_HIDDEN inline String Stringify(const json::Value& value,
                                       const Optional<int>& indent = std::nullopt) {
  return detail::JsonStringify(value, indent);
}
#else
String Stringify(const json::Value& value, const Optional<int>& indent = std::nullopt);
#endif

}  // namespace json
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_JSON_H_

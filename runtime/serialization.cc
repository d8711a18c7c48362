/*
 * Object graphs to and from JSON values: the globals behind
 * <tvm/ffi/extra/serialization.h> (names and format as upstream's):
 *
 *   ffi.ToJSONGraph(value, metadata) -> json::Value
 *   ffi.FromJSONGraph(json::Value) -> Any
 *   ffi.ToJSONGraphString(value, metadata) -> str, ffi.FromJSONGraphString(str) -> Any
 *
 * The graph is {"root_index": i, "nodes": [node, ...], "metadata": m (if not
 * None)}; a node is {"type": key, "data": ...}: None (no data), bool, int,
 * float, ffi.String, ffi.Bytes (base64), DataType ("float32"), Device
 * ([type, id]), ffi.Shape ([extents]), ffi.Array / ffi.List (node indices),
 * ffi.Map / ffi.Dict ([k0, v0, k1, v1, ...] node indices), and a reflected
 * object ({field: value}): fields of static type None/bool/int/float/DataType
 * hold their value, others a node index. Equal values share one node (objects
 * by identity, strings by content). A type attribute `__data_to_json__` /
 * `__data_from_json__` (Functions) replaces the field walk of a type. An enum
 * singleton (tvm/ffi/enum.h) is its integer index (IntEnum) or its name
 * (other enums), and reads back as the registered singleton itself.
 *
 * Objects are rebuilt with the type's creator (TVMFFITypeMetadata) and field
 * setters; a missing field takes its default or is a TypeError. Malformed
 * graphs (bad indices, wrong node shapes, a node that contains itself) are
 * ValueErrors; nesting is bounded (kMaxDepth), never a stack overflow.
 *
 * The graph is untrusted: each field's value is checked against the
 * reflected field's static type (an object of that type or a subclass, an
 * int that fits the field's width, ...), the creator must make an object of
 * exactly the type, and the runtime's own types are checked for what their
 * field types cannot say (CheckReconstructedObject: an AccessPath's parent
 * chain and depth, an AccessStep's kind and key; a StructuralKey's hash is
 * recomputed). The void data type is written "void" ("" reads as void too).
 *
 * This file registers the four globals; the writer is serialization_write.cc,
 * the reader serialization_read.cc, and what both use serialization_internal.h.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/string.h>

#include "builtin_def.h"
#include "serialization_internal.h"

namespace tvm {
namespace ffi {
namespace {

[[maybe_unused]] const bool kSerializationGlobalsRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.ToJSONGraph",
           [](Any value, Any metadata) -> json::Value {
             return json_graph::WriteGraph(value, metadata);
           })
      .def("ffi.FromJSONGraph", [](Any graph) -> Any { return json_graph::ReadGraph(graph); })
      .def("ffi.ToJSONGraphString",
           [](Any value, Any metadata) -> String {
             return json_graph::WriteGraphText(value, metadata);
           })
      .def("ffi.FromJSONGraphString",
           [](String text) -> Any { return json_graph::ReadGraphText(text); });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm

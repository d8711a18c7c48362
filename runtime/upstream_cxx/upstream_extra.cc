/*
 * libtvmffi_upstream_cxx: upstream's out-of-line structural, dataclass and
 * JSON entry points (StructuralEqual::Equal / GetFirstMismatch,
 * StructuralHash::Hash, DeepCopy, ReprPrint, RecursiveHash, RecursiveEq /
 * Lt / Le / Gt / Ge; json::Parse, json::Stringify, ToJSONGraph, FromJSONGraph;
 * VisitErrorContext::FindAccessPaths), over the runtime's globals of the same
 * meaning (`ffi.StructuralEqual`, ...; runtime/reflection.cc, dataclass.cc,
 * json.cc, serialization.cc, visit_error_context.cc), so a host built against
 * upstream's headers gets the same rules as one built against ours.
 *
 * The classes are declared here in upstream's shape (static members only);
 * our <tvm/ffi/extra/structural_*.h>, dataclass.h and visit_error_context.h
 * define hidden inline versions of the same names and must not be included
 * in this file.
 */
// json.h and serialization.h give plain declarations under these macros.
#define TVM_FFI_JSON_OUT_OF_LINE_
#define TVM_FFI_SERIALIZATION_OUT_OF_LINE_
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/string.h>

#include <cstdint>

#include "upstream_module.h"  // TVMFFI_UPSTREAM_CXX_API

namespace tvm {
namespace ffi {

class TVMFFI_UPSTREAM_CXX_API StructuralEqual {
 public:
  static bool Equal(const Any& lhs, const Any& rhs, bool map_free_vars, bool skip_tensor_content);
  static Optional<reflection::AccessPathPair> GetFirstMismatch(const Any& lhs, const Any& rhs,
                                                               bool map_free_vars,
                                                               bool skip_tensor_content);
};

class TVMFFI_UPSTREAM_CXX_API StructuralHash {
 public:
  static uint64_t Hash(const Any& value, bool map_free_vars, bool skip_tensor_content);
};

// Upstream's VisitErrorContext as far as its out-of-line member goes (the
// object layouts agree: a List and an Optional<ObjectRef>, one pointer each).
class TVMFFI_UPSTREAM_CXX_API VisitErrorContext : public ObjectRef {
 public:
  static Array<reflection::AccessPath> FindAccessPaths(const ObjectRef& root,
                                                       const VisitErrorContext& visit_context,
                                                       bool allow_prefix_match);
};

TVMFFI_UPSTREAM_CXX_API Any DeepCopy(const Any& value);
TVMFFI_UPSTREAM_CXX_API String ReprPrint(const Any& value);
TVMFFI_UPSTREAM_CXX_API int64_t RecursiveHash(const Any& value);
TVMFFI_UPSTREAM_CXX_API bool RecursiveEq(const Any& lhs, const Any& rhs);
TVMFFI_UPSTREAM_CXX_API bool RecursiveLt(const Any& lhs, const Any& rhs);
TVMFFI_UPSTREAM_CXX_API bool RecursiveLe(const Any& lhs, const Any& rhs);
TVMFFI_UPSTREAM_CXX_API bool RecursiveGt(const Any& lhs, const Any& rhs);
TVMFFI_UPSTREAM_CXX_API bool RecursiveGe(const Any& lhs, const Any& rhs);

// Each forwards to the runtime's global, looked up once (a function-local
// static, so the first calls may race safely) and kept for the process (never
// released: no exit-order hazard with the runtime's registry).

bool StructuralEqual::Equal(const Any& lhs, const Any& rhs, bool map_free_vars,
                            bool skip_tensor_content) {
  static const Function* fn = new Function(Function::GetGlobalRequired("ffi.StructuralEqual"));
  return (*fn)(lhs, rhs, map_free_vars, skip_tensor_content).cast<bool>();
}

Optional<reflection::AccessPathPair> StructuralEqual::GetFirstMismatch(const Any& lhs,
                                                                       const Any& rhs,
                                                                       bool map_free_vars,
                                                                       bool skip_tensor_content) {
  static const Function* fn =
      new Function(Function::GetGlobalRequired("ffi.GetFirstStructuralMismatch"));
  return (*fn)(lhs, rhs, map_free_vars, skip_tensor_content)
      .cast<Optional<reflection::AccessPathPair>>();
}

uint64_t StructuralHash::Hash(const Any& value, bool map_free_vars, bool skip_tensor_content) {
  static const Function* fn = new Function(Function::GetGlobalRequired("ffi.StructuralHash"));
  return static_cast<uint64_t>((*fn)(value, map_free_vars, skip_tensor_content).cast<int64_t>());
}

Any DeepCopy(const Any& value) {
  static const Function* fn = new Function(Function::GetGlobalRequired("ffi.DeepCopy"));
  return (*fn)(value);
}

String ReprPrint(const Any& value) {
  static const Function* fn = new Function(Function::GetGlobalRequired("ffi.ReprPrint"));
  return (*fn)(value).cast<String>();
}

Array<reflection::AccessPath> VisitErrorContext::FindAccessPaths(
    const ObjectRef& root, const VisitErrorContext& visit_context, bool allow_prefix_match) {
  static const Function* fn =
      new Function(Function::GetGlobalRequired("ffi.VisitErrorContext.FindAccessPaths"));
  return (*fn)(root, static_cast<const ObjectRef&>(visit_context), allow_prefix_match)
      .cast<Array<reflection::AccessPath>>();
}

int64_t RecursiveHash(const Any& value) {
  static const Function* fn = new Function(Function::GetGlobalRequired("ffi.RecursiveHash"));
  return (*fn)(value).cast<int64_t>();
}

// The five comparisons: one body, each with its global.
#define TVMFFI_UPSTREAM_RECURSIVE_COMPARE(Name)                                          \
  bool Name(const Any& lhs, const Any& rhs) {                                            \
    static const Function* fn = new Function(Function::GetGlobalRequired("ffi." #Name)); \
    return (*fn)(lhs, rhs).cast<bool>();                                                 \
  }
TVMFFI_UPSTREAM_RECURSIVE_COMPARE(RecursiveEq)
TVMFFI_UPSTREAM_RECURSIVE_COMPARE(RecursiveLt)
TVMFFI_UPSTREAM_RECURSIVE_COMPARE(RecursiveLe)
TVMFFI_UPSTREAM_RECURSIVE_COMPARE(RecursiveGt)
TVMFFI_UPSTREAM_RECURSIVE_COMPARE(RecursiveGe)
#undef TVMFFI_UPSTREAM_RECURSIVE_COMPARE

namespace json {

TVMFFI_UPSTREAM_CXX_API json::Value Parse(const String& json_str, String* error_msg) {
  return detail::JsonParse(json_str, error_msg);
}

// Upstream's Optional<int> is a TVMFFIAny (None, or an int); ours is a
// std::optional. The mangled name is the same, so read the caller's object
// by upstream's layout.
TVMFFI_UPSTREAM_CXX_API String Stringify(const json::Value& value, const Optional<int>& indent) {
  const TVMFFIAny* cell = reinterpret_cast<const TVMFFIAny*>(&indent);
  Optional<int> ours;
  if (cell->type_index == TypeIndex::kTVMFFIInt) {
    ours = static_cast<int>(cell->v_int64);
  } else if (cell->type_index != TypeIndex::kTVMFFINone) {
    TVM_FFI_THROW(TypeError) << "json::Stringify: `indent` must be an int or None, got `"
                             << detail::TypeIndexToTypeKey(cell->type_index) << "`";
  }
  return detail::JsonStringify(value, ours);
}

// apache-tvm-ffi 0.1.12 took the indent by value: an Optional<int> that holds
// a std::optional<int> and has a user-written copy constructor, so (Itanium
// C++ ABI) the caller passes the address of its copy. TileLang 0.1.15's
// compiler, built against 0.1.12, calls this one.
struct OptionalIntV012 {
  int value;
  bool engaged;
};
TVMFFI_UPSTREAM_CXX_API String
StringifyIndentByValue(const json::Value& value, const OptionalIntV012* indent) __asm__(
    "_ZN3tvm3ffi4json9StringifyERKNS0_3AnyENS0_8OptionalIivEE");
String StringifyIndentByValue(const json::Value& value, const OptionalIntV012* indent) {
  Optional<int> ours;
  if (indent != nullptr && indent->engaged) ours = indent->value;
  return detail::JsonStringify(value, ours);
}

}  // namespace json

TVMFFI_UPSTREAM_CXX_API json::Value ToJSONGraph(const Any& value, const Any& metadata) {
  return detail::ToJSONGraphImpl(value, metadata);
}

TVMFFI_UPSTREAM_CXX_API Any FromJSONGraph(const json::Value& value) {
  return detail::FromJSONGraphImpl(value);
}

}  // namespace ffi
}  // namespace tvm

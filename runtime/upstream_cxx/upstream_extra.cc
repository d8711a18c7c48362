/*
 * libtvmffi_upstream_cxx: upstream's out-of-line json::Parse, json::Stringify
 * (tvm/ffi/extra/json.h), ReprPrint (extra/dataclass.h), ToJSONGraph and
 * FromJSONGraph (extra/serialization.h), exported under upstream's mangled
 * names. The bodies are our headers' (details::..., over the runtime's globals).
 */
#define TVM_FFI_JSON_OUT_OF_LINE_
#define TVM_FFI_DATACLASS_OUT_OF_LINE_
#define TVM_FFI_SERIALIZATION_OUT_OF_LINE_
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>

#define TVMFFI_UPSTREAM_CXX_API __attribute__((visibility("default")))

namespace tvm {
namespace ffi {
namespace json {

TVMFFI_UPSTREAM_CXX_API json::Value Parse(const String& json_str, String* error_msg) {
  return details::JsonParse(json_str, error_msg);
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
                             << details::TypeIndexToTypeKey(cell->type_index) << "`";
  }
  return details::JsonStringify(value, ours);
}

}  // namespace json

TVMFFI_UPSTREAM_CXX_API String ReprPrint(const Any& value) { return details::ReprPrintImpl(value); }

TVMFFI_UPSTREAM_CXX_API json::Value ToJSONGraph(const Any& value, const Any& metadata) {
  return details::ToJSONGraphImpl(value, metadata);
}

TVMFFI_UPSTREAM_CXX_API Any FromJSONGraph(const json::Value& value) {
  return details::FromJSONGraphImpl(value);
}

}  // namespace ffi
}  // namespace tvm

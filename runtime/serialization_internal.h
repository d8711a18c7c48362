/*
 * What the two halves of the object-graph JSON format (serialization.cc)
 * share: the nesting bound, the encodings of ffi.Bytes and DataType nodes,
 * which fields are stored inline, the type lookups both halves make, and the
 * entry points of the writer (serialization_write.cc) and the reader
 * (serialization_read.cc) that serialization.cc registers as globals. Nothing
 * here is exported (the runtime is built with hidden visibility).
 */
#ifndef TVMFFI_RUNTIME_SERIALIZATION_INTERNAL_H_
#define TVMFFI_RUNTIME_SERIALIZATION_INTERNAL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/base64.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace tvm {
namespace ffi {
namespace json_graph {

constexpr int kMaxDepth = 1000;

// ffi.Bytes nodes hold base64 (extra/base64.h); a bad text is a bad graph.
inline std::string BytesDataEncode(std::string_view in) {
  String text = ffi::Base64Encode(TVMFFIByteArray{in.data(), in.size()});
  return std::string(text.data(), text.size());
}

inline Bytes BytesDataDecode(const String& in) {
  try {
    return ffi::Base64Decode(in);
  } catch (const Error& e) {
    TVM_FFI_THROW(ValueError) << "Invalid JSON Object Graph: ffi.Bytes data: " << e.message();
  }
}

// The type attribute `name` of `type_index`, or None.
inline AnyView TypeAttr(const char* name, int32_t type_index) {
  // No column at all is None here (TypeAttrColumn would raise).
  TVMFFIByteArray attr{name, std::char_traits<char>::length(name)};
  const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&attr);
  if (column == nullptr) return AnyView();
  return reflection::detail::TypeAttrColumnEntry(column, type_index);
}

inline bool HasCreator(const TVMFFITypeInfo* info) {
  const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(info);
  return (md != nullptr && md->creator != nullptr) ||
         TypeAttr("__ffi_new__", info->type_index) != nullptr;
}

inline std::string TypeKeyOf(const TVMFFITypeInfo* info) {
  return std::string(info->type_key.data, info->type_key.size);
}

// Whether a field of this static type is stored inline (not as a node index).
inline bool InlineField(int32_t static_type_index) {
  return static_type_index == TypeIndex::kTVMFFINone ||
         static_type_index == TypeIndex::kTVMFFIBool ||
         static_type_index == TypeIndex::kTVMFFIInt ||
         static_type_index == TypeIndex::kTVMFFIFloat ||
         static_type_index == TypeIndex::kTVMFFIDataType;
}

// A data type as graph text: void is written "void" (it prints as "", which
// does not parse), and "" from upstream's writer reads as void.
inline String DTypeText(DLDataType t) {
  if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) return String("void");
  return DLDataTypeToString(t);
}
inline DLDataType DTypeFromText(const String& text) {
  return StringToDLDataType(text.size() == 0 ? String("void") : text);
}

/*! \brief ffi.ToJSONGraph: the graph of `value` as a json value (serialization_write.cc). */
json::Value WriteGraph(const Any& value, const Any& metadata);
/*! \brief ffi.ToJSONGraphString: the same graph, written as JSON text at once. */
String WriteGraphText(const Any& value, const Any& metadata);
/*! \brief ffi.FromJSONGraph: the value a graph describes (serialization_read.cc). */
Any ReadGraph(const Any& graph);
/*! \brief ffi.FromJSONGraphString: the value the graph in JSON text describes. */
Any ReadGraphText(const String& text);

}  // namespace json_graph
}  // namespace ffi
}  // namespace tvm

#endif  // TVMFFI_RUNTIME_SERIALIZATION_INTERNAL_H_

// Fuzz target (d): the function metadata JSON.
//
// Writer: the runtime-side escaper (AppendJSONString, used by
// TVM_FFI_DLL_EXPORT_TYPED_FUNC's metadata) and the whole metadata document
// (MetadataJSON::Build) with a fuzzed function name. For valid UTF-8 input,
// the tool's JSON reader (nlohmann-json, as `tvmffi inspect` uses it) must
// give back exactly the input.
//
// Reader: the same reader on the raw input (it reads what any library
// exports): it must accept or refuse, never crash.
#include <tvm/ffi/function.h>
#include <tvm/ffi/function_metadata.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_util.h"

namespace {

using Json = nlohmann::json;

// The tool's reader: no exceptions, a discarded value for bad text.
bool ToolReadDocument(std::string_view text, Json* out) {
  *out = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  return !out->is_discarded();
}
// A JSON text that must be one string literal: its decoded content.
bool ToolParseString(std::string_view text, std::string* out) {
  Json v;
  if (!ToolReadDocument(text, &v) || !v.is_string()) return false;
  *out = v.get<std::string>();
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  // Reader on raw input: any answer, no crash.
  Json doc;
  (void)ToolReadDocument(input, &doc);

  // Writer: escape, read back.
  std::string quoted;
  tvm::ffi::detail::AppendJSONString(&quoted, input);
  if (fuzz::ValidUtf8(input)) {
    std::string back;
    if (!ToolParseString(quoted, &back))
      fuzz::Fail("the tool cannot read an escaped string", input);
    if (back != input) fuzz::Fail("escaped string reads back differently", input);

    // The whole metadata document with this name.
    std::string meta =
        tvm::ffi::detail::MetadataJSON<tvm::ffi::String(int64_t, tvm::ffi::String)>::Build(input);
    Json m;
    if (!ToolReadDocument(meta, &m) || !m.is_object()) fuzz::Fail("metadata is not JSON", input);
    auto name = m.find("name");
    if (name == m.end() || !name->is_string() || name->get<std::string>() != input) {
      fuzz::Fail("metadata name reads back differently", input);
    }
    auto schema = m.find("type_schema");
    Json inner;
    if (schema == m.end() || !schema->is_string() ||
        !ToolReadDocument(schema->get<std::string>(), &inner)) {
      fuzz::Fail("metadata type_schema is not JSON text", input);
    }
  }
  return 0;
}

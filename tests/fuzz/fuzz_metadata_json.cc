// Fuzz target (d): the function metadata JSON.
//
// Writer: the runtime-side escaper (AppendJSONString, used by
// TVM_FFI_DLL_EXPORT_TYPED_FUNC's metadata) and the whole metadata document
// (MetadataJSON::Build) with a fuzzed function name. For valid UTF-8 input,
// the tool's JSON reader must give back exactly the input; so must
// nlohmann-json, the reference reader, when it is installed.
//
// Reader: the tool's JSON reader on the raw input (it reads what any library
// exports): it must accept or refuse, never crash.
//
// The tool's reader is reached through ToolParseString / ToolReadDocument
// only: when the tool moves to nlohmann-json (wip/tools), re-point those two.
#include <tvm/ffi/function.h>
#include <tvm/ffi/function_metadata.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "tools/json_lite.h"

#if __has_include(<nlohmann/json.hpp>)
#include <nlohmann/json.hpp>
#define TVMFFI_FUZZ_HAVE_NLOHMANN 1
#endif

namespace {

// --- the tool's reader (re-point here) -------------------------------------
bool ToolReadDocument(std::string_view text, tvmffi::json::Value* out) {
  std::string err;
  return tvmffi::json::Parse(text, out, &err);
}
// A JSON text that must be one string literal: its decoded content.
bool ToolParseString(std::string_view text, std::string* out) {
  tvmffi::json::Value v;
  if (!ToolReadDocument(text, &v) || !v.IsString()) return false;
  *out = v.str;
  return true;
}
// ---------------------------------------------------------------------------

bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    uint32_t cp = n == 1 ? c : c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
      unsigned char cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = cp << 6 | (cc & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n;
  }
  return true;
}

void CheckReference(const std::string& json, const std::string& expect, const std::string& input) {
#if TVMFFI_FUZZ_HAVE_NLOHMANN
  nlohmann::json j = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_string() || j.get<std::string>() != expect) {
    fuzz::Fail("nlohmann-json reads the escaped string differently", input);
  }
#else
  (void)json;
  (void)expect;
  (void)input;
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);

  // Reader on raw input: any answer, no crash.
  tvmffi::json::Value doc;
  (void)ToolReadDocument(input, &doc);

  // Writer: escape, read back.
  std::string quoted;
  tvm::ffi::details::AppendJSONString(&quoted, input);
  if (ValidUtf8(input)) {
    std::string back;
    if (!ToolParseString(quoted, &back)) fuzz::Fail("the tool cannot read an escaped string", input);
    if (back != input) fuzz::Fail("escaped string reads back differently", input);
    CheckReference(quoted, input, input);

    // The whole metadata document with this name.
    std::string meta =
        tvm::ffi::details::MetadataJSON<tvm::ffi::String(int64_t, tvm::ffi::String)>::Build(input);
    tvmffi::json::Value m;
    if (!ToolReadDocument(meta, &m) || !m.IsObject()) fuzz::Fail("metadata is not JSON", input);
    const tvmffi::json::Value* name = m.Get("name");
    if (name == nullptr || !name->IsString() || name->str != input) {
      fuzz::Fail("metadata name reads back differently", input);
    }
    const tvmffi::json::Value* schema = m.Get("type_schema");
    tvmffi::json::Value inner;
    if (schema == nullptr || !schema->IsString() || !ToolReadDocument(schema->str, &inner)) {
      fuzz::Fail("metadata type_schema is not JSON text", input);
    }
  }
  return 0;
}

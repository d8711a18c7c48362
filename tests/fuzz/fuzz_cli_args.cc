// Fuzz target (e): the argument language of `tvmffi call` (ints, floats,
// bools, none, "str:" strings, tensor literals like "f32[[1,2],[3,4]]").
//
// The parser lives in the tool's source file, in an anonymous namespace, so
// this target compiles that file into itself (its main renamed) and calls
// ParseArg directly. When the parser moves to its own file (wip/tools),
// replace the include below with that file's header: ParseArg, ListParser and
// FormatValue are the only names used here.
//
// Properties: every token parses or is refused with a message; a parsed
// value prints (FormatValue) without crashing; no leak.
#define main tvmffi_cli_main
#include "tools/tvmffi_cli.cc"
#undef main

#include <cstdint>
#include <string>

#include "fuzz_util.h"

namespace {

// Issue #14 item 2, fixed on wip/reliab: a ragged tensor literal can parse
// with fewer elements in its shape than values, and the values are written
// past the tensor's end. Skip those until the fix is merged.
bool PendingFix(const std::string& tok) {
#if TVMFFI_FUZZ_SKIP_PENDING
  size_t br = tok.find('[');
  if (br == std::string::npos || br == 0) return false;
  std::vector<int64_t> shape;
  std::vector<std::string> values;
  std::string err;
  if (!ListParser(tok.substr(br)).Parse(&shape, &values, &err)) return false;
  int64_t n = 1;
  for (int64_t e : shape) {
    if (__builtin_mul_overflow(n, e < 0 ? 0 : e, &n)) return true;
  }
  return static_cast<int64_t>(values.size()) != n;
#else
  (void)tok;
  return false;
#endif
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One command-line token: argv strings end at the first NUL.
  std::string tok(reinterpret_cast<const char*>(data), size);
  tok = tok.substr(0, tok.find('\0'));
  if (PendingFix(tok)) return 0;
  ffi::Any value;
  std::string err;
  bool ok = false;
  try {
    ok = ParseArg(tok, &value, &err);
  } catch (const ffi::Error& e) {
    // The tool reports these as `tvmffi call: error: <kind>: <message>`.
    if (e.kind().empty()) fuzz::Fail("an error without a kind", tok);
    return 0;
  }
  if (!ok) {
    if (err.empty()) fuzz::Fail("a refused argument without a message", tok);
    return 0;
  }
  std::string printed = FormatValue(*ffi::details::AnyUnsafe::TVMFFIAnyPtrFromAny(value));
  if (printed.empty()) fuzz::Fail("a parsed argument prints as nothing", tok);
  return 0;
}

// Fuzz target (e): the argument language of `tvmffi call` (ints, floats,
// bools, none, "str:" strings, tensor literals like "f32[[1,2],[3,4]]").
//
// The parser is the tool's own (tools/arg_parser.h, library tvmffi_cli_args).
//
// Properties: every token parses or is refused with a message; a parsed
// tensor literal has exactly prod(shape) values; no crash, no leak.
#include <cstdint>
#include <string>
#include <vector>

#include "arg_parser.h"
#include "fuzz_util.h"

namespace ffi = tvm::ffi;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // One command-line token: argv strings end at the first NUL.
  std::string tok(reinterpret_cast<const char*>(data), size);
  tok = tok.substr(0, tok.find('\0'));
  size_t br = tok.find('[');
  if (br != std::string::npos) {
    std::vector<int64_t> shape;
    std::vector<std::string> values;
    std::string lerr;
    if (tvmffi::cli::ParseTensorLiteral(tok.substr(br), &shape, &values, &lerr)) {
      int64_t n = 1;
      bool overflow = false;
      for (int64_t e : shape) overflow |= __builtin_mul_overflow(n, e, &n);
      if (overflow || static_cast<int64_t>(values.size()) != n) {
        fuzz::Fail("a tensor literal parses with a shape that does not match its values", tok);
      }
    } else if (lerr.empty()) {
      fuzz::Fail("a refused tensor literal without a message", tok);
    }
  }
  ffi::Any value;
  std::string err;
  bool ok = false;
  try {
    ok = tvmffi::cli::ParseArg(tok, &value, &err);
  } catch (const ffi::Error& e) {
    // The tool reports these as `tvmffi call: error: <kind>: <message>`.
    if (e.kind().empty()) fuzz::Fail("an error without a kind", tok);
    return 0;
  }
  if (!ok) {
    if (err.empty()) fuzz::Fail("a refused argument without a message", tok);
    return 0;
  }
  return 0;
}

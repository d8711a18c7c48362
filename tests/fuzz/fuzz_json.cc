// Fuzz target (f): json::Parse / json::Stringify (runtime/json.cc) on
// arbitrary text.
//
//  - Parse accepts or reports "<what>: line L column C (char K)" with K within
//    the input; never a crash, a leak or a stack overflow (nesting is bounded).
//  - What it accepts writes back (compact and indented), and the text written
//    is a fixpoint: Stringify(Parse(Stringify(v))) == Stringify(v).
//  - Against nlohmann-json as a reference, on valid UTF-8 without NUL: what the reference
//    accepts, Parse accepts too (unless it is nested deeper than our bound or
//    holds a number out of double's range); and the compact text written for a
//    value without NaN/Infinity is JSON the reference reads.
//  - FromJSONGraph (runtime/serialization_read.cc) on what Parse accepts: a value
//    or an Error, never a crash; a value it builds serializes again, and that
//    graph rebuilds.
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fuzz_util.h"

namespace {

using tvm::ffi::Any;
using tvm::ffi::String;
namespace json = tvm::ffi::json;

// "<what>: line L column C (char K)" with 1 <= L, 1 <= C, 0 <= K <= size.
bool WellFormedError(const std::string& msg, size_t size) {
  size_t at = msg.rfind(": line ");
  if (at == std::string::npos || at == 0) return false;
  long line = 0, column = 0, chr = -1;
  int used = 0;
  if (std::sscanf(msg.c_str() + at, ": line %ld column %ld (char %ld)%n", &line, &column, &chr,
                  &used) != 3) {
    return false;
  }
  return at + static_cast<size_t>(used) == msg.size() && line >= 1 && column >= 1 && chr >= 0 &&
         static_cast<size_t>(chr) <= size;
}

bool HasNonFinite(const Any& v) {
  using tvm::ffi::TypeIndex;
  switch (v.type_index()) {
    case TypeIndex::kTVMFFIFloat:
      return !std::isfinite(v.cast<double>());
    case TypeIndex::kTVMFFIArray:
      for (const Any& x : v.cast<json::Array>()) {
        if (HasNonFinite(x)) return true;
      }
      return false;
    case TypeIndex::kTVMFFIMap:
      for (const auto& kv : v.cast<json::Object>()) {
        if (HasNonFinite(kv.second)) return true;
      }
      return false;
    default:
      return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Errors are the common case here; their backtraces are not the subject.
  setenv("TVM_FFI_BACKTRACE", "0", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  String error;
  Any value = json::Parse(String(input), &error);
  // nlohmann-json stops reading at a NUL byte, so it is a reference only for
  // valid UTF-8 without NUL (ours reads every byte: a raw NUL outside a
  // string is "Extra data" or "Expecting value").
  const bool utf8 = fuzz::ValidUtf8(input) && input.find('\0') == std::string::npos;
  const nlohmann::json ref = nlohmann::json::parse(input, nullptr, /*allow_exceptions=*/false);

  if (!error.empty()) {
    std::string msg(error);
    if (!WellFormedError(msg, size)) fuzz::Fail("malformed parse error: " + msg, input);
    if (value != nullptr) fuzz::Fail("a failed parse returned a value", input);
    const bool bounded =
        msg.rfind("Nesting deeper", 0) == 0 || msg.rfind("Number out of range", 0) == 0;
    if (utf8 && !ref.is_discarded() && !bounded) {
      fuzz::Fail("refused JSON that nlohmann-json accepts: " + msg, input);
    }
    return 0;
  }

  std::string compact(json::Stringify(value));
  std::string indented(json::Stringify(value, 2));
  if (std::string(json::Stringify(json::Parse(String(compact)))) != compact) {
    fuzz::Fail("compact text is not a fixpoint: " + compact, input);
  }
  if (std::string(json::Stringify(json::Parse(String(indented)))) != compact) {
    fuzz::Fail("indented text reads back differently: " + indented, input);
  }
  if (utf8 && !HasNonFinite(value)) {
    const nlohmann::json back = nlohmann::json::parse(compact, nullptr, false);
    if (back.is_discarded())
      fuzz::Fail("nlohmann-json cannot read what we wrote: " + compact, input);
  }

  Any rebuilt;
  try {
    rebuilt = tvm::ffi::FromJSONGraph(value);
  } catch (const tvm::ffi::Error&) {
    return 0;  // malformed graphs are refused with an Error: fine
  }
  json::Value graph = tvm::ffi::ToJSONGraph(rebuilt);
  (void)tvm::ffi::FromJSONGraph(graph);
  return 0;
}

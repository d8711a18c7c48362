// Fuzz target (a): data type strings. Anything TVMFFIDataTypeFromString
// accepts must print with TVMFFIDataTypeToString and parse back to the same
// DLDataType; the printed text must be stable (print(parse(print(t))) ==
// print(t)). Anything refused must come back as -1 with a ValueError.
#include <tvm/ffi/c_api.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_util.h"

namespace {

bool Same(const DLDataType& a, const DLDataType& b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TVMFFIByteArray text{reinterpret_cast<const char*>(data), size};
  DLDataType t;
  if (TVMFFIDataTypeFromString(&text, &t) != 0) {
    fuzz::ExpectRaised("ValueError", "TVMFFIDataTypeFromString");
    return 0;
  }
  std::string printed;
  if (!fuzz::DTypeText(t, &printed)) {
    fuzz::Fail("TVMFFIDataTypeToString refused a parsed dtype", std::string(text.data, size));
  }
  // Void prints as "" (upstream's spelling) but only "void" parses back.
  const std::string reread = printed.empty() ? std::string("void") : printed;
  TVMFFIByteArray again{reread.data(), reread.size()};
  DLDataType t2;
  if (TVMFFIDataTypeFromString(&again, &t2) != 0) {
    fuzz::Fail("printed dtype does not parse: `" + printed + "` from",
               std::string(text.data, size));
  }
  if (!Same(t, t2)) {
    fuzz::Fail("dtype round trip changed the type: `" + printed + "` from",
               std::string(text.data, size));
  }
  std::string printed2;
  if (!fuzz::DTypeText(t2, &printed2) || printed2 != printed) {
    fuzz::Fail("dtype text is not stable: `" + printed + "` vs `" + printed2 + "` from",
               std::string(text.data, size));
  }
  return 0;
}

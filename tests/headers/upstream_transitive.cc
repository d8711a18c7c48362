// Names that upstream 0.1.15's headers bring along, used the way code written
// against them may: ByteSwap and the endian macros through any core header
// (its base_detail.h includes endian.h), TVM_FFI_EXTRA_CXX_API through the
// extra API's headers (they include extra/base.h). Compiled only
// (-fsyntax-only, strict warnings) by headers.cmake.
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/function.h>

#include <cstdint>

TVM_FFI_EXTRA_CXX_API uint32_t ReadLittleEndianU32(uint32_t raw);
TVM_FFI_EXTRA_CXX_API uint32_t ReadLittleEndianU32(uint32_t raw) {
  if (!TVM_FFI_IO_NO_ENDIAN_SWAP) tvm::ffi::ByteSwap(&raw, sizeof(raw), 1);
  static_assert(TVM_FFI_LITTLE_ENDIAN == 0 || TVM_FFI_LITTLE_ENDIAN == 1, "a 0/1 value");
  return raw;
}

int main() {
  return ReadLittleEndianU32(0) == 0 ? 0 : 1;
}

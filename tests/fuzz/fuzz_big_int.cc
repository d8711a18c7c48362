// Fuzz target (h): BigInt's words and arithmetic. The input is two word
// arrays (any bytes; a length that is no multiple of 8 must be refused with a
// ValueError by TVMFFIBigIntFromByteArray). Each accepted array must come back
// canonical from TVMFFIBigIntGetContentByteArray (int64 inline, no redundant
// sign word, the same number), and the two numbers must satisfy the
// identities of exact integer arithmetic: a + b - b == a, the division
// identities of both rounding modes with their remainder signs, the bitwise
// identities, shifts, and decimal text that parses back.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "fuzz_util.h"

namespace {

using tvm::ffi::BigInt;
using U = tvm::ffi::detail::BigIntUnsafe;

void Check(bool ok, const char* what) {
  if (!ok) fuzz::Fail(what);
}

// Words in, a canonical number out (nullopt when the length was refused).
bool Decode(const uint8_t* data, size_t size, BigInt* out) {
  TVMFFIByteArray bytes{reinterpret_cast<const char*>(data), size};
  TVMFFIAny cell;
  if (TVMFFIBigIntFromByteArray(&bytes, &cell) != 0) {
    Check(size % 8 != 0, "TVMFFIBigIntFromByteArray refused whole words");
    fuzz::ExpectRaised("ValueError", "TVMFFIBigIntFromByteArray");
    return false;
  }
  Check(size % 8 == 0, "TVMFFIBigIntFromByteArray accepted a partial word");
  TVMFFIByteArray content = TVMFFIBigIntGetContentByteArray(&cell);
  const size_t n = content.size / 8;
  Check(content.data != nullptr && n >= 1 && content.size % 8 == 0, "content of a decoded int");
  Check((cell.type_index == kTVMFFIInt) == (n == 1), "inline exactly when one word");
  int64_t top = 0, below = 0;
  std::memcpy(&top, content.data + (n - 1) * 8, 8);
  if (n > 1) std::memcpy(&below, content.data + (n - 2) * 8, 8);
  Check(n == 1 || top != (below < 0 ? -1 : 0), "a redundant sign word in the content");
  // The input's words, sign-extended, are the content's.
  for (size_t i = 0; i < size / 8; ++i) {
    int64_t w = 0, c = 0;
    std::memcpy(&w, data + i * 8, 8);
    if (i < n) {
      std::memcpy(&c, content.data + i * 8, 8);
    } else {
      c = top < 0 ? -1 : 0;
    }
    Check(w == c, "content differs from the input words");
  }
  *out = tvm::ffi::detail::AnyUnsafe::MoveTVMFFIAnyRawToAny(cell).cast<BigInt>();
  return true;
}

std::string Text(const BigInt& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Byte 0: where the first array ends (a share of the rest); at most 32 words each.
  if (size == 0 || size > 1 + 2 * 32 * 8 + 16) return 0;
  const size_t rest = size - 1;
  const size_t split = rest * data[0] / 255;
  BigInt a, b;
  const bool has_a = Decode(data + 1, split, &a);
  const bool has_b = Decode(data + 1 + split, rest - split, &b);
  if (!has_a || !has_b) return 0;
  try {
    Check(a + b - b == a && a - b + b == a, "a + b - b");
    Check(a * b == b * a && -(-a) == a, "commutation, negation");
    Check((a < b) == (a - b < 0) && (a == b) == (a - b == 0), "order agrees with subtraction");
    Check(((a ^ b) ^ b) == a && ((a & b) | (a & ~b)) == a, "bitwise identities");
    Check(((a & b) + (a | b)) == a + b, "and plus or");
    const int64_t shift = data[0] % 130;
    Check(((a << shift) >> shift) == a, "shift round trip");
    Check((a >> shift) == floordiv(a, BigInt(1) << shift), "right shift rounds down");
    std::istringstream is(Text(a));
    BigInt parsed;
    is >> parsed;
    Check(!is.fail() && parsed == a, "decimal text parses back");
    if (b != 0) {
      BigInt q = a / b, r = a % b;
      Check(q * b + r == a, "truncating division identity");
      Check(r == 0 || (r < 0) == (a < 0), "truncating remainder takes the dividend's sign");
      BigInt fq = floordiv(a, b), fr = floormod(a, b);
      Check(fq * b + fr == a, "floor division identity");
      Check(fr == 0 || (fr < 0) == (b < 0), "floor remainder takes the divisor's sign");
      BigInt abs_b = b < 0 ? -b : b;
      Check((r < 0 ? -r : r) < abs_b && (fr < 0 ? -fr : fr) < abs_b, "remainder below divisor");
    }
  } catch (const tvm::ffi::Error& e) {
    fuzz::Fail("arithmetic on 32-word operands threw " + std::string(e.kind()));
  }
  return 0;
}

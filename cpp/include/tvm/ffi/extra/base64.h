/*
 * tvmffi C++ layer: base64 (RFC 4648, standard alphabet, '=' padding), as
 * upstream 0.1.15's <tvm/ffi/extra/base64.h> names it.
 *
 *   String text = Base64Encode(Bytes("\x00\xff", 2));   // "AP8="
 *   Bytes raw = Base64Decode(text);                      // the two bytes again
 *
 * Decoding is strict: a length that is not a multiple of 4, a character
 * outside the alphabet, or '=' anywhere but the last one or two places of the
 * text throws ValueError naming what was wrong and where (upstream checks the
 * length only). Header-only; the JSON graph keeps ffi.Bytes in this form.
 */
#ifndef TVM_FFI_EXTRA_BASE64_H_
#define TVM_FFI_EXTRA_BASE64_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The base64 text of `bytes` (4 characters per 3 bytes, '='-padded). */
inline String Base64Encode(TVMFFIByteArray bytes) {
  constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const unsigned char* in = reinterpret_cast<const unsigned char*>(bytes.data);
  std::string out;
  out.reserve((bytes.size + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size; i += 3) {
    const size_t left = bytes.size - i;
    uint32_t group = static_cast<uint32_t>(in[i]) << 16;
    if (left > 1) group |= static_cast<uint32_t>(in[i + 1]) << 8;
    if (left > 2) group |= static_cast<uint32_t>(in[i + 2]);
    out.push_back(kAlphabet[(group >> 18) & 63u]);
    out.push_back(kAlphabet[(group >> 12) & 63u]);
    out.push_back(left > 1 ? kAlphabet[(group >> 6) & 63u] : '=');
    out.push_back(left > 2 ? kAlphabet[group & 63u] : '=');
  }
  return String(std::move(out));
}

/*! \brief The base64 text of `data`. */
inline String Base64Encode(const Bytes& data) {
  return Base64Encode(TVMFFIByteArray{data.data(), data.size()});
}

/*!
 * \brief The bytes that base64 `text` encodes.
 * \throws ValueError if `text` is not base64 (see the file comment).
 */
inline Bytes Base64Decode(TVMFFIByteArray text) {
  auto sextet = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size % 4 != 0) {
    TVM_FFI_THROW(ValueError) << "Base64Decode: length " << text.size << " is not a multiple of 4";
  }
  std::string out;
  out.reserve(text.size / 4 * 3);
  for (size_t i = 0; i < text.size; i += 4) {
    const char* quad = text.data + i;
    const bool last = i + 4 == text.size;
    // '=' may only end the text: "xy==" or "xyz=".
    const int pad = last ? (quad[3] == '=' ? (quad[2] == '=' ? 2 : 1) : 0) : 0;
    uint32_t group = 0;
    for (int k = 0; k < 4; ++k) {
      int v = k < 4 - pad ? sextet(quad[k]) : 0;
      if (v < 0) {
        TVM_FFI_THROW(ValueError) << "Base64Decode: character " << i + static_cast<size_t>(k)
                                  << " is not base64 (code "
                                  << static_cast<int>(static_cast<unsigned char>(quad[k])) << ")";
      }
      group = (group << 6) | static_cast<uint32_t>(v);
    }
    out.push_back(static_cast<char>((group >> 16) & 0xffu));
    if (pad < 2) out.push_back(static_cast<char>((group >> 8) & 0xffu));
    if (pad < 1) out.push_back(static_cast<char>(group & 0xffu));
  }
  return Bytes(out.data(), out.size());
}

/*! \brief The bytes that base64 `text` encodes; ValueError if it is not base64. */
inline Bytes Base64Decode(const String& text) {
  return Base64Decode(TVMFFIByteArray{text.data(), text.size()});
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_BASE64_H_

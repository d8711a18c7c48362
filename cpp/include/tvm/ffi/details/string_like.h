/*
 * tvmffi core: the bytes of a string value, in one place.
 *
 * A str or bytes value travels in six forms (RawStr, SmallStr, Str,
 * ByteArrayPtr, SmallBytes, Bytes). type_traits.h (String, Bytes,
 * std::string_view conversions), error.h (text the runtime returns) and
 * libtvmffi read them through StringLikeView. This header is light on
 * purpose: the C ABI and <string_view> only.
 */
#ifndef TVM_FFI_DETAILS_STRING_LIKE_H_
#define TVM_FFI_DETAILS_STRING_LIKE_H_

#include <tvm/ffi/base_detail.h>

#include <string_view>

namespace tvm {
namespace ffi {
namespace detail {

// GCC may not see that only String/Bytes objects reach the byte-array read
// below and warn about other (smaller) objects allocated nearby.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#endif
/*!
 * \brief The bytes of a string value: a str or bytes cell in any of its forms
 *        (RawStr, SmallStr, Str, ByteArrayPtr, SmallBytes, Bytes) and its
 *        class, kTVMFFIStr or kTVMFFIBytes. The one reading of these forms.
 * \return false when the cell is not string-like or is a NULL view.
 */
TVM_FFI_INLINE bool StringLikeView(const TVMFFIAny* v, std::string_view* out,
                                   int32_t* klass) noexcept {
  switch (v->type_index) {
    case kTVMFFIRawStr:
      if (v->v_c_str == nullptr) return false;
      *out = std::string_view(v->v_c_str);
      *klass = kTVMFFIStr;
      return true;
    case kTVMFFISmallStr:
    case kTVMFFISmallBytes:
      *out = std::string_view(v->v_bytes, v->small_str_len);
      *klass = v->type_index == kTVMFFISmallStr ? kTVMFFIStr : kTVMFFIBytes;
      return true;
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(v->v_obj);
      *out = std::string_view(b->data, b->size);
      *klass = v->type_index;
      return true;
    }
    case kTVMFFIByteArrayPtr: {
      const TVMFFIByteArray* b = static_cast<const TVMFFIByteArray*>(v->v_ptr);
      if (b == nullptr || (b->data == nullptr && b->size != 0)) return false;  // invalid view
      *out = std::string_view(b->data, b->size);
      *klass = kTVMFFIBytes;
      return true;
    }
    default:
      return false;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_STRING_LIKE_H_

/*
 * tvmffi C++ layer: DLDataType helpers.
 *
 * Text conversion goes through the C API (TVMFFIDataTypeFromString /
 * TVMFFIDataTypeToString) so every binary agrees on the names.
 */
#ifndef TVM_FFI_DTYPE_H_
#define TVM_FFI_DTYPE_H_

#include <tvm/ffi/details/tensor_geometry.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/string.h>
#include <tvm/ffi/type_traits.h>

#include <string>

namespace tvm {
namespace ffi {

/*! \brief Parse a data type name ("float32", "int8x4", "bool", "float8_e4m3fn"); ValueError if
 * unknown. */
inline DLDataType StringToDLDataType(const String& str) {
  DLDataType out;
  TVMFFIByteArray text{str.data(), str.size()};
  TVM_FFI_CHECK_SAFE_CALL(TVMFFIDataTypeFromString(&text, &out));
  return out;
}

/*! \brief The name of a data type ("float32", "int8x4"). */
inline String DLDataTypeToString(DLDataType dtype) {
  TVMFFIAny out;
  detail::SetAnyNone(&out);
  TVM_FFI_CHECK_SAFE_CALL(TVMFFIDataTypeToString(&dtype, &out));
  return TypeTraits<String>::MoveFromAnyAfterCheck(&out);
}

/*! \return Bits of all lanes of one element (bits * lanes). */
constexpr int64_t DataTypeBits(DLDataType dtype) noexcept {
  return static_cast<int64_t>(dtype.bits) * static_cast<int64_t>(dtype.lanes);
}

/*! \return Bytes of one element, all lanes, sub-byte types rounded up (int4 -> 1). */
constexpr int64_t DataTypeBytes(DLDataType dtype) noexcept {
  return static_cast<int64_t>(detail::PackedDataBytes(1, dtype));
}

/*! \return Bytes of num_elems elements, packed (sub-byte types round up once, at the end). */
constexpr int64_t DataTypeBytes(DLDataType dtype, int64_t num_elems) noexcept {
  return static_cast<int64_t>(detail::PackedDataBytes(static_cast<uint64_t>(num_elems), dtype));
}

/// Common data types.
inline constexpr DLDataType dl_bool{static_cast<uint8_t>(kDLBool), 8, 1};
inline constexpr DLDataType dl_int8{static_cast<uint8_t>(kDLInt), 8, 1};
inline constexpr DLDataType dl_int16{static_cast<uint8_t>(kDLInt), 16, 1};
inline constexpr DLDataType dl_int32{static_cast<uint8_t>(kDLInt), 32, 1};
inline constexpr DLDataType dl_int64{static_cast<uint8_t>(kDLInt), 64, 1};
inline constexpr DLDataType dl_uint8{static_cast<uint8_t>(kDLUInt), 8, 1};
inline constexpr DLDataType dl_uint16{static_cast<uint8_t>(kDLUInt), 16, 1};
inline constexpr DLDataType dl_uint32{static_cast<uint8_t>(kDLUInt), 32, 1};
inline constexpr DLDataType dl_uint64{static_cast<uint8_t>(kDLUInt), 64, 1};
inline constexpr DLDataType dl_float16{static_cast<uint8_t>(kDLFloat), 16, 1};
inline constexpr DLDataType dl_float32{static_cast<uint8_t>(kDLFloat), 32, 1};
inline constexpr DLDataType dl_float64{static_cast<uint8_t>(kDLFloat), 64, 1};
inline constexpr DLDataType dl_bfloat16{static_cast<uint8_t>(kDLBfloat), 16, 1};

// DLDataType in Any: also converts from a str naming a data type.
template <>
struct TypeTraits<DLDataType>
    : public detail::PODTraitsBase<DLDataType, TypeIndex::kTVMFFIDataType> {
  TVM_FFI_INLINE static void CopyToAnyView(const DLDataType& src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIDataType;
    result->zero_padding = 0;
    result->v_int64 = 0;  // unused bytes are zero, so values compare as integers
    result->v_dtype = src;
  }
  TVM_FFI_INLINE static void MoveToAny(DLDataType src, TVMFFIAny* result) {
    CopyToAnyView(src, result);
  }
  TVM_FFI_INLINE static DLDataType CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return src->v_dtype;
  }
  TVM_FFI_INLINE static DLDataType MoveFromAnyAfterCheck(TVMFFIAny* src) { return src->v_dtype; }
  template <typename LazyT_ = DLDataType>  // lazy std::optional: see TypeTraitsBase
  static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIDataType) return src->v_dtype;
    std::string_view text;
    if (detail::AnyStrView(src, &text)) {
      DLDataType out;
      TVMFFIByteArray bytes{text.data(), text.size()};
      if (TVMFFIDataTypeFromString(&bytes, &out) == 0) return out;
      // Not a data type name: report the mismatch, not the parse error.
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      detail::ObjectUnsafe::DecRefObjectHandle(err);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDataType; }
};

}  // namespace ffi
}  // namespace tvm

/*! \brief Data types are equal when code, bits and lanes match. */
inline bool operator==(const DLDataType& lhs, const DLDataType& rhs) noexcept {
  return lhs.code == rhs.code && lhs.bits == rhs.bits && lhs.lanes == rhs.lanes;
}
inline bool operator!=(const DLDataType& lhs, const DLDataType& rhs) noexcept {
  return !(lhs == rhs);
}

/*!
 * \brief `stream << dtype` for any std::ostream-like stream (anything with
 *        write(const char*, n)); this header does not include <ostream>.
 */
template <typename Stream, typename T, std::enable_if_t<std::is_same_v<T, DLDataType>, int> = 0>
inline auto operator<<(Stream& os, const T& dtype)
    -> decltype(os.write(static_cast<const char*>(nullptr), 0)) {
  std::string text;
  ::tvm::ffi::detail::AppendDataType(&text, dtype);
  return os.write(text.data(), static_cast<std::ptrdiff_t>(text.size()));
}

#endif  // TVM_FFI_DTYPE_H_

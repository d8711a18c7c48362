/*
 * tvmffi C++ layer: TypeTraits of the plain value types (None, bool, ints,
 * floats, void*, DLDevice, DLTensor*). String-like types are in string.h,
 * DLDataType in dtype.h, Optional in optional.h, objects in object.h.
 *
 * Conversions allowed by TryCastFromAnyView (cast / try_cast / typed function
 * arguments): int <- bool, bool <- int, float <- int/bool. Everything else
 * must match exactly.
 */
#ifndef TVM_FFI_TYPE_TRAITS_H_
#define TVM_FFI_TYPE_TRAITS_H_

#include <tvm/ffi/details/string_like.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tvm {
namespace ffi {

/*! \brief The readable name of a type index ("int", "str", "ffi.Tensor"). */
inline std::string TypeIndexToTypeKey(int32_t type_index) {
  return detail::TypeIndexToTypeKey(type_index);
}

// None
template <>
struct TypeTraits<std::nullptr_t> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFINone;
  TVM_FFI_INLINE static void CopyToAnyView(std::nullptr_t, TVMFFIAny* result) {
    detail::SetAnyNone(result);
  }
  TVM_FFI_INLINE static void MoveToAny(std::nullptr_t, TVMFFIAny* result) {
    detail::SetAnyNone(result);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFINone;
  }
  TVM_FFI_INLINE static std::nullptr_t CopyFromAnyViewAfterCheck(const TVMFFIAny*) {
    return nullptr;
  }
  TVM_FFI_INLINE static std::nullptr_t MoveFromAnyAfterCheck(TVMFFIAny*) { return nullptr; }
  template <typename LazyT_ = std::nullptr_t>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return nullptr;
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFINone; }
};

namespace detail {

/*! \brief The bytes of any str-like value (RawStr, SmallStr, Str); false otherwise. */
TVM_FFI_INLINE bool AnyStrView(const TVMFFIAny* src, std::string_view* out) noexcept {
  int32_t klass;
  return StringLikeView(src, out, &klass) && klass == TypeIndex::kTVMFFIStr;
}

/*!
 * \brief A device from text as upstream accepts it: "<name>" or "<name>:<id>"
 *        (id a non-negative int32); anything after a space is ignored. Names:
 *        cpu, cuda, opencl, vulkan, metal/mps, vpi, rocm, ext_dev, hexagon,
 *        wgpu/webgpu, maia, trn.
 */
template <typename Device = DLDevice>  // a template: std::optional instantiated only if used
std::optional<Device> DeviceFromString(std::string_view text) {
  text = text.substr(0, text.find(' '));
  size_t colon = text.find(':');
  std::string_view name = text.substr(0, colon);
  struct Entry {
    const char* name;
    int32_t type;
  };
  static constexpr Entry kNames[] = {
      {"cpu", kDLCPU},        {"cuda", kDLCUDA}, {"opencl", kDLOpenCL}, {"vulkan", kDLVulkan},
      {"metal", kDLMetal},    {"mps", kDLMetal}, {"vpi", kDLVPI},       {"rocm", kDLROCM},
      {"ext_dev", kDLExtDev}, {"hexagon", 16},   {"wgpu", 15},          {"webgpu", 15},
      {"maia", 17},           {"trn", 18}};
  int32_t type = -1;
  for (const Entry& e : kNames) {
    if (name == e.name) type = e.type;
  }
  if (type < 0) return std::nullopt;
  int64_t id = 0;
  if (colon != std::string_view::npos) {
    std::string_view digits = text.substr(colon + 1);
    if (digits.empty()) return std::nullopt;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      id = id * 10 + (c - '0');
      if (id > INT32_MAX) return std::nullopt;
    }
  }
  return Device{static_cast<DLDeviceType>(type), static_cast<int32_t>(id)};
}

/*! \brief The OverflowError of storing an unsigned value above INT64_MAX (cold). */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowUInt64Overflow(uint64_t value) {
  TVM_FFI_THROW(OverflowError) << "Integer value " << value
                               << " is too large to fit in int64_t. Consider explicitly casting "
                                  "to int64_t first if this is intentional.";
}

/*! \brief Shared body of the POD traits: one type index, one union member. */
template <typename T, int32_t kIndex>
struct PODTraitsBase : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = kIndex;
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == kIndex;
  }
};
}  // namespace detail

/*! \brief A bool that does not accept ints (for places where int must not pass as bool). */
class StrictBool {
 public:
  StrictBool(bool value) : value_(value) {}  // NOLINT(*)
  operator bool() const { return value_; }   // NOLINT(*)

 private:
  bool value_;
};

template <>
struct TypeTraits<StrictBool> : public detail::PODTraitsBase<StrictBool, TypeIndex::kTVMFFIBool> {
  TVM_FFI_INLINE static void CopyToAnyView(const StrictBool& src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIBool;
    result->zero_padding = 0;
    result->v_int64 = static_cast<bool>(src);
  }
  TVM_FFI_INLINE static void MoveToAny(StrictBool src, TVMFFIAny* result) {
    CopyToAnyView(src, result);
  }
  TVM_FFI_INLINE static StrictBool CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return src->v_int64 != 0;
  }
  TVM_FFI_INLINE static StrictBool MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return src->v_int64 != 0;
  }
  template <typename LazyT_ = StrictBool>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIBool) return StrictBool(src->v_int64 != 0);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIBool; }
};

// bool: also accepts int (nonzero is true).
template <>
struct TypeTraits<bool> : public detail::PODTraitsBase<bool, TypeIndex::kTVMFFIBool> {
  TVM_FFI_INLINE static void CopyToAnyView(bool src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIBool;
    result->zero_padding = 0;
    result->v_int64 = src ? 1 : 0;
  }
  TVM_FFI_INLINE static void MoveToAny(bool src, TVMFFIAny* result) { CopyToAnyView(src, result); }
  TVM_FFI_INLINE static bool CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return src->v_int64 != 0;
  }
  TVM_FFI_INLINE static bool MoveFromAnyAfterCheck(TVMFFIAny* src) { return src->v_int64 != 0; }
  template <typename LazyT_ = bool>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIBool || src->type_index == TypeIndex::kTVMFFIInt) {
      return src->v_int64 != 0;
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIBool; }
};

// Integers (and integer-backed enums): also accept bool.
template <typename Int>
struct TypeTraits<Int, std::enable_if_t<(std::is_integral_v<Int> && !std::is_same_v<Int, bool>) ||
                                        std::is_enum_v<Int>>>
    : public detail::PODTraitsBase<Int, TypeIndex::kTVMFFIInt> {
  TVM_FFI_INLINE static void CopyToAnyView(const Int& src, TVMFFIAny* result) {
    if constexpr (std::is_integral_v<Int> && std::is_unsigned_v<Int> && sizeof(Int) >= 8) {
      // As upstream: an FFI int is int64, so larger unsigned values do not fit.
      if (TVM_FFI_PREDICT_FALSE(static_cast<uint64_t>(src) > static_cast<uint64_t>(INT64_MAX))) {
        detail::ThrowUInt64Overflow(static_cast<uint64_t>(src));
      }
    }
    result->type_index = TypeIndex::kTVMFFIInt;
    result->zero_padding = 0;
    result->v_int64 = static_cast<int64_t>(src);
  }
  TVM_FFI_INLINE static void MoveToAny(Int src, TVMFFIAny* result) { CopyToAnyView(src, result); }
  TVM_FFI_INLINE static Int CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return static_cast<Int>(src->v_int64);
  }
  TVM_FFI_INLINE static Int MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return static_cast<Int>(src->v_int64);
  }
  TVM_FFI_INLINE static std::optional<Int> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIInt || src->type_index == TypeIndex::kTVMFFIBool) {
      return static_cast<Int>(src->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIInt; }
};

// Floating point: also accepts int and bool.
template <typename Float>
struct TypeTraits<Float, std::enable_if_t<std::is_floating_point_v<Float>>>
    : public detail::PODTraitsBase<Float, TypeIndex::kTVMFFIFloat> {
  TVM_FFI_INLINE static void CopyToAnyView(const Float& src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIFloat;
    result->zero_padding = 0;
    result->v_float64 = static_cast<double>(src);
  }
  TVM_FFI_INLINE static void MoveToAny(Float src, TVMFFIAny* result) { CopyToAnyView(src, result); }
  TVM_FFI_INLINE static Float CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return static_cast<Float>(src->v_float64);
  }
  TVM_FFI_INLINE static Float MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return static_cast<Float>(src->v_float64);
  }
  TVM_FFI_INLINE static std::optional<Float> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIFloat) return static_cast<Float>(src->v_float64);
    if (src->type_index == TypeIndex::kTVMFFIInt || src->type_index == TypeIndex::kTVMFFIBool) {
      return static_cast<Float>(src->v_int64);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIFloat; }
};

// void*: an unowned opaque pointer; None converts to nullptr.
template <>
struct TypeTraits<void*> : public detail::PODTraitsBase<void*, TypeIndex::kTVMFFIOpaquePtr> {
  TVM_FFI_INLINE static void CopyToAnyView(void* src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIOpaquePtr;
    result->zero_padding = 0;
    TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result);
    result->v_ptr = src;
  }
  TVM_FFI_INLINE static void MoveToAny(void* src, TVMFFIAny* result) { CopyToAnyView(src, result); }
  TVM_FFI_INLINE static void* CopyFromAnyViewAfterCheck(const TVMFFIAny* src) { return src->v_ptr; }
  TVM_FFI_INLINE static void* MoveFromAnyAfterCheck(TVMFFIAny* src) { return src->v_ptr; }
  template <typename LazyT_ = void*>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIOpaquePtr) return src->v_ptr;
    if (src->type_index == TypeIndex::kTVMFFINone) return static_cast<void*>(nullptr);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIOpaquePtr; }
};

// DLDevice
template <>
struct TypeTraits<DLDevice> : public detail::PODTraitsBase<DLDevice, TypeIndex::kTVMFFIDevice> {
  TVM_FFI_INLINE static void CopyToAnyView(const DLDevice& src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIDevice;
    result->zero_padding = 0;
    result->v_int64 = 0;
    result->v_device = src;
  }
  TVM_FFI_INLINE static void MoveToAny(DLDevice src, TVMFFIAny* result) {
    CopyToAnyView(src, result);
  }
  TVM_FFI_INLINE static DLDevice CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return src->v_device;
  }
  TVM_FFI_INLINE static DLDevice MoveFromAnyAfterCheck(TVMFFIAny* src) { return src->v_device; }
  template <typename LazyT_ = DLDevice>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIDevice) return src->v_device;
    // Text names a device, as upstream: "cpu", "cuda:3".
    std::string_view text;
    if (detail::AnyStrView(src, &text)) return detail::DeviceFromString<LazyT_>(text);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDevice; }
};

// DLTensor*: a borrowed tensor, only in views (arguments). A Tensor object
// (type ffi.Tensor) also converts: its DLTensor follows the header.
template <>
struct TypeTraits<DLTensor*>
    : public detail::PODTraitsBase<DLTensor*, TypeIndex::kTVMFFIDLTensorPtr> {
  static constexpr bool storage_enabled = false;
  TVM_FFI_INLINE static void CopyToAnyView(DLTensor* src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIDLTensorPtr;
    result->zero_padding = 0;
    TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result);
    result->v_ptr = src;
  }
  /*!
   * \brief No owned Any can hold a DLTensor*: a RuntimeError when tried (as
   *        upstream, a typed function returning DLTensor* still compiles, so
   *        its metadata can be read; calling it raises).
   */
  [[noreturn]] static void MoveToAny(DLTensor*, TVMFFIAny*) {
    TVM_FFI_THROW(RuntimeError) << "DLTensor* does not own its tensor: only an AnyView can hold it "
                                   "(use Tensor)";
  }
  TVM_FFI_INLINE static DLTensor* CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return static_cast<DLTensor*>(src->v_ptr);
  }
  template <typename LazyT_ = DLTensor*>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIDLTensorPtr) return static_cast<DLTensor*>(src->v_ptr);
    if (src->type_index == TypeIndex::kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(src->v_obj);
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFIDLTensorPtr; }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_TYPE_TRAITS_H_

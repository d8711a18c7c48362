/*
 * tvmffi C++ layer: helpers shared by the containers (Array, Map, Tuple,
 * Variant and the std:: bridges).
 *
 * Internal: the contents of namespace tvm::ffi::details are not an API.
 * Containers store their elements as owned TVMFFIAny cells; the helpers
 * below move C++ values in and out of such cells for any element type T,
 * including Any itself (which has no TypeTraits of its own).
 */
#ifndef TVM_FFI_CONTAINER_CONTAINER_DETAILS_H_
#define TVM_FFI_CONTAINER_CONTAINER_DETAILS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {
namespace details {

/*! \brief Whether T may be stored in a container (Any, or a type with storage-enabled traits). */
template <typename T, typename = void>
inline constexpr bool storage_enabled_v = false;
template <typename T>
inline constexpr bool storage_enabled_v<T, std::enable_if_t<TypeTraits<T>::storage_enabled>> =
    true;
template <>
inline constexpr bool storage_enabled_v<Any, void> = true;

/*! \brief Whether every one of Ts may be stored in a container. */
template <typename... Ts>
inline constexpr bool all_storage_enabled_v = (storage_enabled_v<Ts> && ...);

/*!
 * \brief Whether a container of T may share the storage of a container of U
 *        (every U cell is already a valid T cell): same type, T = Any, an
 *        object reference base, or Optional of such.
 */
template <typename T, typename U, typename = void>
struct ObjectRefSubsumes : std::false_type {};
template <typename T, typename U>
struct ObjectRefSubsumes<
    T, U, std::enable_if_t<std::is_base_of_v<ObjectRef, T> && std::is_base_of_v<T, U>>>
    : std::bool_constant<T::_type_is_nullable || !U::_type_is_nullable> {};

template <typename T, typename U>
struct TypeSubsumes
    : std::bool_constant<std::is_same_v<T, U> || std::is_same_v<T, Any> ||
                         ObjectRefSubsumes<T, U>::value> {};
template <typename X, typename U>
struct TypeSubsumes<Optional<X>, U>
    : std::bool_constant<std::is_same_v<Optional<X>, U> || std::is_same_v<U, std::nullptr_t> ||
                         TypeSubsumes<X, U>::value> {};

template <typename T, typename U>
inline constexpr bool type_subsumes_v = TypeSubsumes<T, U>::value;

/*! \brief Element access for any T a container can hold (T = Any needs no check). */
template <typename T>
struct ElemOps {
  static std::string TypeStr() {
    if constexpr (std::is_same_v<T, Any>) {
      return "Any";
    } else {
      return TypeTraits<T>::TypeStr();
    }
  }
  /*! \return Whether the stored cell is exactly what T stores (no conversion needed). */
  TVM_FFI_INLINE static bool CheckStrict(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return TypeTraits<T>::CheckAnyStrict(v);
    }
  }
  /*! \return A T copied out of a cell that passed CheckStrict. */
  TVM_FFI_INLINE static T CopyAfterCheck(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return Any(AnyView::CopyFromTVMFFIAny(*v));
    } else {
      return TypeTraits<T>::CopyFromAnyViewAfterCheck(v);
    }
  }
  /*! \return A T taken out of an owned cell that passed CheckStrict (the cell becomes None). */
  TVM_FFI_INLINE static T MoveAfterCheck(TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return AnyUnsafe::MoveTVMFFIAnyToAny(v);
    } else {
      return TypeTraits<T>::MoveFromAnyAfterCheck(v);
    }
  }
  /*! \return The cell converted to T (with the allowed conversions), or nullopt. */
  TVM_FFI_INLINE static std::optional<T> TryCast(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return Any(AnyView::CopyFromTVMFFIAny(*v));
    } else {
      return TypeTraits<T>::TryCastFromAnyView(v);
    }
  }
  /*! \return What the cell holds, for "expected T but got X" messages. */
  static std::string MismatchInfo(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return TypeIndexToTypeKey(v->type_index);
    } else {
      return TypeTraits<T>::GetMismatchTypeInfo(v);
    }
  }
  /*! \return Whether the cell can become a T (strictly or by conversion). */
  static bool Convertible(const TVMFFIAny* v) {
    if constexpr (std::is_same_v<T, Any>) {
      return true;
    } else {
      return TypeTraits<T>::CheckAnyStrict(v) || TypeTraits<T>::TryCastFromAnyView(v).has_value();
    }
  }
};

/*! \brief `{"type":"<name>"}` with the name JSON-escaped. */
inline std::string PlainTypeSchema(const std::string& name) {
  std::string s = "{\"type\":\"";
  for (char c : name) {
    if (c == '"' || c == '\\') s.push_back('\\');
    s.push_back(c);
  }
  return s + "\"}";
}

/*!
 * \brief The type schema of an element type, in the JSON layout of function
 *        metadata: {"type":"int"}, {"type":"ffi.Array","args":[...]}, ...
 */
template <typename T>
inline std::string ElemTypeSchema() {
  using Inner = typename OptionalInner<T>::type;
  if constexpr (std::is_same_v<T, Any>) {
    return PlainTypeSchema("Any");
  } else if constexpr (!std::is_void_v<Inner>) {
    return "{\"type\":\"Optional\",\"args\":[" + ElemTypeSchema<Inner>() + "]}";
  } else if constexpr (HasTypeSchema<T>::value) {
    return TypeTraits<T>::TypeSchema();
  } else {
    return PlainTypeSchema(TypeTraits<T>::TypeStr());
  }
}

/*! \brief `Name<T0, T1, ...>` from the element type names. */
template <typename... Ts>
inline std::string ParamTypeStr(const char* name) {
  std::string s = std::string(name) + "<";
  const char* sep = "";
  ((s += sep, s += ElemOps<Ts>::TypeStr(), sep = ", "), ...);
  return s + ">";
}

/*! \brief `{"type":"<key>","args":[<schema of T0>,...]}`. */
template <typename... Ts>
inline std::string ParamTypeSchema(const char* key) {
  std::string s = std::string("{\"type\":\"") + key + "\",\"args\":[";
  const char* sep = "";
  ((s += sep, s += ElemTypeSchema<Ts>(), sep = ","), ...);
  return s + "]}";
}

/*! \brief Turn a value into an owned cell (the caller owns the result). */
template <typename T>
TVM_FFI_INLINE TVMFFIAny MakeOwnedCell(T&& value) {
  return AnyUnsafe::MoveAnyToTVMFFIAny(Any(std::forward<T>(value)));
}

/*! \brief Release whatever an owned cell holds; the cell is None afterwards. */
TVM_FFI_INLINE void ReleaseCell(TVMFFIAny* cell) {
  if (cell->type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
    TVMFFIObject* obj = cell->v_obj;
    SetAnyNone(cell);
    HeaderDecRef(obj);
  } else {
    SetAnyNone(cell);
  }
}

/*! \brief A new owned copy of an owned cell (objects gain a reference). */
TVM_FFI_INLINE TVMFFIAny CopyCell(const TVMFFIAny& cell) noexcept {
  if (cell.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) HeaderIncRef(cell.v_obj);
  return cell;
}

/*!
 * \brief The bytes of a string-like cell (str or bytes, in any of their
 *        forms, views included) and its class: kTVMFFIStr or kTVMFFIBytes.
 * \return false when the cell is not string-like.
 */
TVM_FFI_INLINE bool StringLikeView(const TVMFFIAny* v, std::string_view* out,
                                   int32_t* klass) noexcept {
  switch (v->type_index) {
    case TypeIndex::kTVMFFIRawStr:
      if (v->v_c_str == nullptr) return false;  // an invalid view is not a string
      *out = std::string_view(v->v_c_str);
      *klass = TypeIndex::kTVMFFIStr;
      return true;
    case TypeIndex::kTVMFFISmallStr:
      *out = std::string_view(v->v_bytes, v->small_str_len);
      *klass = TypeIndex::kTVMFFIStr;
      return true;
    case TypeIndex::kTVMFFIStr:
    case TypeIndex::kTVMFFIBytes: {
      const TVMFFIByteArray* b = TVMFFIBytesGetByteArrayPtr(v->v_obj);
      *out = std::string_view(b->data, b->size);
      *klass = v->type_index;
      return true;
    }
    case TypeIndex::kTVMFFISmallBytes:
      *out = std::string_view(v->v_bytes, v->small_str_len);
      *klass = TypeIndex::kTVMFFIBytes;
      return true;
    case TypeIndex::kTVMFFIByteArrayPtr: {
      const TVMFFIByteArray* b = static_cast<const TVMFFIByteArray*>(v->v_ptr);
      if (b == nullptr || (b->data == nullptr && b->size != 0)) return false;
      *out = std::string_view(b->data, b->size);
      *klass = TypeIndex::kTVMFFIBytes;
      return true;
    }
    default:
      return false;
  }
}

/*! \brief A short printable rendering of a key for error messages ("\"abc\"", "42", "ffi.Tensor"). */
inline std::string CellToShortString(const TVMFFIAny* v) {
  std::string_view bytes;
  int32_t klass;
  if (StringLikeView(v, &bytes, &klass)) {
    constexpr size_t kMax = 64;
    std::string out = klass == TypeIndex::kTVMFFIBytes ? "b\"" : "\"";
    out.append(bytes.data(), bytes.size() < kMax ? bytes.size() : kMax);
    if (bytes.size() > kMax) out.append("...");
    out.push_back('"');
    return out;
  }
  switch (v->type_index) {
    case TypeIndex::kTVMFFINone:
      return "None";
    case TypeIndex::kTVMFFIInt:
      return std::to_string(v->v_int64);
    case TypeIndex::kTVMFFIBool:
      return v->v_int64 != 0 ? "True" : "False";
    case TypeIndex::kTVMFFIFloat: {
      ErrorMessageStream os;
      os << v->v_float64;
      return std::move(os.str());
    }
    default:
      return TypeIndexToTypeKey(v->type_index);
  }
}

/*!
 * \brief Adapts an iterator over cells into an iterator over converted values.
 * \tparam Converter has `using ResultType` and `static ResultType convert(const TVMFFIAny*)`.
 */
template <typename Converter, typename CellPtr>
class IterAdapter {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using difference_type = std::ptrdiff_t;
  using value_type = typename Converter::ResultType;
  using pointer = const value_type*;
  using reference = value_type;

  IterAdapter() noexcept = default;
  explicit IterAdapter(CellPtr iter) noexcept : iter_(iter) {}

  reference operator*() const { return Converter::convert(iter_); }
  reference operator[](difference_type n) const { return Converter::convert(iter_ + n); }
  IterAdapter& operator++() noexcept {
    ++iter_;
    return *this;
  }
  IterAdapter operator++(int) noexcept {
    IterAdapter copy = *this;
    ++iter_;
    return copy;
  }
  IterAdapter& operator--() noexcept {
    --iter_;
    return *this;
  }
  IterAdapter operator--(int) noexcept {
    IterAdapter copy = *this;
    --iter_;
    return copy;
  }
  IterAdapter& operator+=(difference_type n) noexcept {
    iter_ += n;
    return *this;
  }
  IterAdapter& operator-=(difference_type n) noexcept {
    iter_ -= n;
    return *this;
  }
  IterAdapter operator+(difference_type n) const noexcept { return IterAdapter(iter_ + n); }
  friend IterAdapter operator+(difference_type n, const IterAdapter& it) noexcept {
    return IterAdapter(it.iter_ + n);
  }
  IterAdapter operator-(difference_type n) const noexcept { return IterAdapter(iter_ - n); }
  difference_type operator-(const IterAdapter& other) const noexcept { return iter_ - other.iter_; }
  bool operator==(const IterAdapter& other) const noexcept { return iter_ == other.iter_; }
  bool operator!=(const IterAdapter& other) const noexcept { return iter_ != other.iter_; }
  bool operator<(const IterAdapter& other) const noexcept { return iter_ < other.iter_; }
  bool operator>(const IterAdapter& other) const noexcept { return iter_ > other.iter_; }
  bool operator<=(const IterAdapter& other) const noexcept { return iter_ <= other.iter_; }
  bool operator>=(const IterAdapter& other) const noexcept { return iter_ >= other.iter_; }

  /*! \return The underlying cell pointer. */
  CellPtr base() const noexcept { return iter_; }

 private:
  CellPtr iter_{};
};

/*! \brief Reverse counterpart of IterAdapter (walks cells backwards). */
template <typename Converter, typename CellPtr>
class ReverseIterAdapter {
 public:
  using iterator_category = std::random_access_iterator_tag;
  using difference_type = std::ptrdiff_t;
  using value_type = typename Converter::ResultType;
  using pointer = const value_type*;
  using reference = value_type;

  ReverseIterAdapter() noexcept = default;
  /*! \param iter Points at the element this iterator yields. */
  explicit ReverseIterAdapter(CellPtr iter) noexcept : iter_(iter) {}

  reference operator*() const { return Converter::convert(iter_); }
  ReverseIterAdapter& operator++() noexcept {
    --iter_;
    return *this;
  }
  ReverseIterAdapter operator++(int) noexcept {
    ReverseIterAdapter copy = *this;
    --iter_;
    return copy;
  }
  ReverseIterAdapter& operator--() noexcept {
    ++iter_;
    return *this;
  }
  ReverseIterAdapter operator--(int) noexcept {
    ReverseIterAdapter copy = *this;
    ++iter_;
    return copy;
  }
  ReverseIterAdapter operator+(difference_type n) const noexcept {
    return ReverseIterAdapter(iter_ - n);
  }
  difference_type operator-(const ReverseIterAdapter& other) const noexcept {
    return other.iter_ - iter_;
  }
  bool operator==(const ReverseIterAdapter& other) const noexcept { return iter_ == other.iter_; }
  bool operator!=(const ReverseIterAdapter& other) const noexcept { return iter_ != other.iter_; }

 private:
  CellPtr iter_{};
};

// ---------------------------------------------------------------------------
// Hashing and equality of cells (Map keys, content comparison).
// ---------------------------------------------------------------------------

/*! \brief A 64-bit finaliser (splitmix64): spreads every input bit over the result. */
TVM_FFI_INLINE uint64_t HashMix64(uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

TVM_FFI_INLINE uint64_t Load64(const char* p) noexcept {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
TVM_FFI_INLINE uint64_t Load32(const char* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

/*!
 * \brief Hash of a byte range: 8 bytes per multiply-rotate step, then a
 *        finaliser. Only fixed-size loads (no memcpy of a variable length):
 *        the last step re-reads an overlapping 8 bytes, short ranges combine
 *        two overlapping 4-byte loads or three single bytes.
 */
TVM_FFI_INLINE uint64_t HashBytes(const char* data, size_t size) noexcept {
  constexpr uint64_t kMul = 0x9e3779b97f4a7c15ULL;
  uint64_t h = 0x243f6a8885a308d3ULL ^ (static_cast<uint64_t>(size) * kMul);
  uint64_t last;
  if (size >= 8) {
    for (size_t i = 0; i + 8 < size; i += 8) {
      h = (h ^ (Load64(data + i) * kMul)) * 0xff51afd7ed558ccdULL;
      h = (h << 29) | (h >> 35);
    }
    last = Load64(data + size - 8);
  } else if (size >= 4) {
    last = (Load32(data) << 32) | Load32(data + size - 4);
  } else if (size > 0) {
    last = (static_cast<uint64_t>(static_cast<unsigned char>(data[0])) << 16) |
           (static_cast<uint64_t>(static_cast<unsigned char>(data[size >> 1])) << 8) |
           static_cast<uint64_t>(static_cast<unsigned char>(data[size - 1]));
  } else {
    last = 0;
  }
  h = (h ^ (last * kMul)) * 0xc4ceb9fe1a85ec53ULL;
  return HashMix64(h);
}

/*!
 * \brief The hash of a key cell, consistent with KeyCellEqual: strings and
 *        bytes by content (small, heap and borrowed forms hash alike), other
 *        values by type and bits, objects by address.
 */
TVM_FFI_INLINE uint64_t KeyCellHash(const TVMFFIAny* v) noexcept {
  std::string_view bytes;
  int32_t klass;
  if (StringLikeView(v, &bytes, &klass)) {
    return HashBytes(bytes.data(), bytes.size()) ^ static_cast<uint64_t>(klass);
  }
  uint64_t bits;
  switch (v->type_index) {
    case TypeIndex::kTVMFFIDataType:
      bits = static_cast<uint64_t>(v->v_dtype.code) | (static_cast<uint64_t>(v->v_dtype.bits) << 8) |
             (static_cast<uint64_t>(v->v_dtype.lanes) << 16);
      break;
    case TypeIndex::kTVMFFIDevice:
      bits = static_cast<uint64_t>(static_cast<uint32_t>(v->v_device.device_type)) |
             (static_cast<uint64_t>(static_cast<uint32_t>(v->v_device.device_id)) << 32);
      break;
    case TypeIndex::kTVMFFINone:
      bits = 0;
      break;
    default:
      bits = v->v_uint64;
      break;
  }
  return HashMix64(bits + static_cast<uint64_t>(static_cast<uint32_t>(v->type_index)) *
                              0x9e3779b97f4a7c15ULL);
}

/*! \brief Key equality matching KeyCellHash. */
TVM_FFI_INLINE bool KeyCellEqual(const TVMFFIAny* a, const TVMFFIAny* b) noexcept {
  if (a->type_index == b->type_index) {
    switch (a->type_index) {
      case TypeIndex::kTVMFFINone:
        return true;
      case TypeIndex::kTVMFFIDataType:
        return a->v_dtype.code == b->v_dtype.code && a->v_dtype.bits == b->v_dtype.bits &&
               a->v_dtype.lanes == b->v_dtype.lanes;
      case TypeIndex::kTVMFFIDevice:
        return a->v_device.device_type == b->v_device.device_type &&
               a->v_device.device_id == b->v_device.device_id;
      case TypeIndex::kTVMFFISmallStr:
      case TypeIndex::kTVMFFISmallBytes: {
        // At most 7 bytes: compare the used bytes of the 8-byte slots at once
        // (little endian, as every target of the ABI).
        if (a->small_str_len != b->small_str_len) return false;
        uint64_t mask = (uint64_t{1} << (8 * (a->small_str_len & 7))) - 1;
        return ((Load64(a->v_bytes) ^ Load64(b->v_bytes)) & mask) == 0;
      }
      case TypeIndex::kTVMFFIStr:
      case TypeIndex::kTVMFFIBytes:
      case TypeIndex::kTVMFFIRawStr:
      case TypeIndex::kTVMFFIByteArrayPtr:
        if (a->v_uint64 == b->v_uint64) return true;
        break;  // compare contents below
      default:
        return a->v_uint64 == b->v_uint64;
    }
  }
  std::string_view sa, sb;
  int32_t ka, kb;
  return StringLikeView(a, &sa, &ka) && StringLikeView(b, &sb, &kb) && ka == kb && sa == sb;
}

/*!
 * \brief Deep content equality used by Array/Map comparison: arrays and maps
 *        element by element, shapes by their extents, strings by content,
 *        floats by value, other objects by identity.
 */
inline bool CellContentEqual(const TVMFFIAny* a, const TVMFFIAny* b);

}  // namespace details
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_CONTAINER_DETAILS_H_

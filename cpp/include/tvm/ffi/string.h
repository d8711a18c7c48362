/*
 * tvmffi C++ layer: String and Bytes.
 *
 * Both are values holding one TVMFFIAny: up to 7 bytes live inline
 * (kTVMFFISmallStr / kTVMFFISmallBytes, NUL-terminated in v_bytes); longer
 * contents are a String/Bytes object made by libtvmffi
 * (TVMFFIStringFromByteArray), so its deleter never lives in a library that
 * might be unloaded. The data is always NUL-terminated.
 */
#ifndef TVM_FFI_STRING_H_
#define TVM_FFI_STRING_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/type_traits.h>

#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tvm {
namespace ffi {

namespace detail {

/*! \brief The object layout of String and Bytes: header + TVMFFIByteArray. */
class BytesObjBase : public Object, public TVMFFIByteArray {};

/*! \brief A String object (index 65). */
class StringObj : public BytesObjBase {
 public:
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIStr;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIStr, StringObj, Object);
};

/*! \brief A Bytes object (index 66). */
class BytesObj : public BytesObjBase {
 public:
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIBytes;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIBytes, BytesObj, Object);
};

constexpr size_t kMaxSmallBytesLen = sizeof(int64_t) - 1;

/*! \brief The small form of a string or bytes value (size <= kMaxSmallBytesLen): inline, NUL
 * padded. */
TVM_FFI_INLINE void SetSmallBytes(TVMFFIAny* out, int32_t small_type_index, const char* bytes,
                                  size_t size) noexcept {
  out->type_index = small_type_index;
  out->small_str_len = static_cast<uint32_t>(size);
  out->v_int64 = 0;
  if (size != 0) std::memcpy(out->v_bytes, bytes, size);
}

/*!
 * \brief Storage shared by String and Bytes: a small value, an object, or
 *        None (the empty state of Optional<String>; reads as "").
 */
class BytesBaseCell {
 public:
  BytesBaseCell() noexcept { SetAnyNone(&data_); }
  explicit BytesBaseCell(std::nullopt_t) noexcept { SetAnyNone(&data_); }
  BytesBaseCell(const BytesBaseCell& other) noexcept : data_(other.data_) {
    if (data_.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) HeaderIncRef(data_.v_obj);
  }
  BytesBaseCell(BytesBaseCell&& other) noexcept : data_(other.data_) { SetAnyNone(&other.data_); }
  BytesBaseCell& operator=(const BytesBaseCell& other) {
    BytesBaseCell(other).swap(*this);
    return *this;
  }
  BytesBaseCell& operator=(BytesBaseCell&& other) noexcept {
    BytesBaseCell(std::move(other)).swap(*this);
    return *this;
  }
  ~BytesBaseCell() {
    if (data_.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) HeaderDecRef(data_.v_obj);
  }
  void swap(BytesBaseCell& other) noexcept { std::swap(data_, other.data_); }

  bool operator==(std::nullopt_t) const noexcept {
    return data_.type_index == TypeIndex::kTVMFFINone;
  }
  bool operator!=(std::nullopt_t) const noexcept {
    return data_.type_index != TypeIndex::kTVMFFINone;
  }
  const char* data() const noexcept {
    return data_.type_index < TypeIndex::kTVMFFIStaticObjectBegin
               ? data_.v_bytes
               : TVMFFIBytesGetByteArrayPtr(data_.v_obj)->data;
  }
  size_t size() const noexcept {
    return data_.type_index < TypeIndex::kTVMFFIStaticObjectBegin
               ? data_.small_str_len
               : TVMFFIBytesGetByteArrayPtr(data_.v_obj)->size;
  }
  /*! \brief Set to the empty small value of the given index. */
  void InitEmpty(int32_t small_type_index) noexcept {
    data_.type_index = small_type_index;
    data_.small_str_len = 0;
    data_.v_int64 = 0;
  }
  /*! \brief Set to a copy of the bytes (the cell must be empty or None). */
  void Init(const char* bytes, size_t size, int32_t small_type_index, bool is_str) {
    if (size <= kMaxSmallBytesLen) {
      SetSmallBytes(&data_, small_type_index, bytes, size);
    } else {
      InitLarge(bytes, size, is_str);
    }
  }
  /*!
   * \brief Set to a copy of the bytes held by an object whatever the size, as
   *        upstream's String/Bytes(std::string&&) (the cell must be empty or None).
   *
   * libtvmffi still makes the object: a short value is asked for padded to the
   * smallest object size, then the fresh object (ours alone) is cut back to it.
   */
  void InitObject(const char* bytes, size_t size, bool is_str) {
    if (size > kMaxSmallBytesLen) return InitLarge(bytes, size, is_str);
    char padded[kMaxSmallBytesLen + 1] = {};
    if (size != 0) std::memcpy(padded, bytes, size);
    InitLarge(padded, sizeof(padded), is_str);
    TVMFFIByteArray* array = TVMFFIBytesGetByteArrayPtr(data_.v_obj);
    const_cast<char*>(array->data)[size] = '\0';
    array->size = size;
  }
  TVMFFIAny CopyToTVMFFIAny() const noexcept { return data_; }
  void MoveToAny(TVMFFIAny* result) noexcept {
    *result = data_;
    SetAnyNone(&data_);
  }
  static BytesBaseCell CopyFromAnyView(const TVMFFIAny* src) noexcept {
    BytesBaseCell cell;
    cell.data_ = *src;
    if (cell.data_.type_index >= TypeIndex::kTVMFFIStaticObjectBegin)
      HeaderIncRef(cell.data_.v_obj);
    return cell;
  }
  static BytesBaseCell MoveFromAny(TVMFFIAny* src) noexcept {
    BytesBaseCell cell;
    cell.data_ = *src;
    SetAnyNone(src);
    return cell;
  }

 private:
  TVMFFIAny data_;

  TVM_FFI_NOINLINE void InitLarge(const char* bytes, size_t size, bool is_str) {
    TVMFFIByteArray input{bytes, size};
    TVMFFIAny out;
    SetAnyNone(&out);
    int ret =
        is_str ? TVMFFIStringFromByteArray(&input, &out) : TVMFFIBytesFromByteArray(&input, &out);
    if (ret != 0) ThrowRaisedError(ret);
    data_ = out;
  }
};

/*! \brief memcmp-style three-way comparison of two byte ranges. */
inline int CompareBytes(const char* lhs, size_t lhs_size, const char* rhs,
                        size_t rhs_size) noexcept {
  size_t n = lhs_size < rhs_size ? lhs_size : rhs_size;
  int r = n != 0 ? std::memcmp(lhs, rhs, n) : 0;
  if (r != 0) return r < 0 ? -1 : 1;
  return lhs_size < rhs_size ? -1 : (lhs_size > rhs_size ? 1 : 0);
}
}  // namespace detail

/*! \brief An immutable byte string (Python bytes). */
class Bytes {
 public:
  Bytes() noexcept { data_.InitEmpty(TypeIndex::kTVMFFISmallBytes); }
  Bytes(const char* data, size_t size) {
    data_.Init(data, size, TypeIndex::kTVMFFISmallBytes, false);
  }
  Bytes(TVMFFIByteArray bytes) : Bytes(bytes.data, bytes.size) {}         // NOLINT(*)
  Bytes(const std::string& other) : Bytes(other.data(), other.size()) {}  // NOLINT(*)
  /*!
   * \brief Copies the bytes into a Bytes object (index 66, even when short, as
   *        upstream's move makes one), then empties the source.
   */
  Bytes(std::string&& other) {  // NOLINT(*)
    data_.InitObject(other.data(), other.size(), false);
    other.clear();
  }
  explicit Bytes(std::string_view other) : Bytes(other.data(), other.size()) {}
  // Bytes("abc"): exact, where string_view and std::string would tie.
  explicit Bytes(const char* str) : Bytes(std::string_view(str)) {}

  void swap(Bytes& other) noexcept { data_.swap(other.data_); }
  size_t size() const noexcept { return data_.size(); }
  const char* data() const noexcept { return data_.data(); }
  bool empty() const noexcept { return size() == 0; }
  operator std::string() const { return std::string(data(), size()); }  // NOLINT(*)

  /*! \brief Three-way comparison of byte ranges. */
  static int memncmp(const char* lhs, const char* rhs, size_t lhs_count, size_t rhs_count) {
    return detail::CompareBytes(lhs, lhs_count, rhs, rhs_count);
  }
  /*! \brief Equality of byte ranges. */
  static bool memequal(const void* lhs, const void* rhs, size_t lhs_count, size_t rhs_count) {
    return lhs_count == rhs_count &&
           (lhs == rhs || lhs_count == 0 || std::memcmp(lhs, rhs, lhs_count) == 0);
  }

 private:
  detail::BytesBaseCell data_;
  explicit Bytes(detail::BytesBaseCell cell) noexcept : data_(std::move(cell)) {}
  template <typename, typename>
  friend struct TypeTraits;
  template <typename, typename>
  friend class Optional;
};

inline bool operator==(const Bytes& lhs, const Bytes& rhs) {
  return Bytes::memequal(lhs.data(), rhs.data(), lhs.size(), rhs.size());
}
inline bool operator!=(const Bytes& lhs, const Bytes& rhs) {
  return !(lhs == rhs);
}

/*! \brief An immutable UTF-8 string (Python str), small-string optimised. */
class String {
 public:
  String() noexcept { data_.InitEmpty(TypeIndex::kTVMFFISmallStr); }
  String(std::nullptr_t) = delete;
  String(const char* other) : String(other, std::char_traits<char>::length(other)) {}  // NOLINT(*)
  String(const char* data, size_t size) {
    data_.Init(data, size, TypeIndex::kTVMFFISmallStr, true);
  }
  String(const std::string& other) : String(other.data(), other.size()) {}  // NOLINT(*)
  /*!
   * \brief Copies the text into a String object (index 65, even when short, as
   *        upstream's move makes one; libtvmffi makes every String object), then
   *        empties the source, as upstream's move leaves it.
   */
  String(std::string&& other) {  // NOLINT(*)
    data_.InitObject(other.data(), other.size(), true);
    other.clear();
  }
  explicit String(std::string_view other) : String(other.data(), other.size()) {}
  explicit String(TVMFFIByteArray other) : String(other.data, other.size) {}

  String& operator=(const char* other) {
    String(other).swap(*this);
    return *this;
  }
  String& operator=(const std::string& other) {
    String(other).swap(*this);
    return *this;
  }
  String& operator=(std::string&& other) {
    String(std::move(other)).swap(*this);
    return *this;
  }
  void swap(String& other) noexcept { data_.swap(other.data_); }

  /*! \return The characters (NUL-terminated). */
  const char* data() const noexcept { return data_.data(); }
  const char* c_str() const noexcept { return data(); }
  size_t size() const noexcept { return data_.size(); }
  size_t length() const noexcept { return size(); }
  bool empty() const noexcept { return size() == 0; }
  char at(size_t pos) const {
    if (pos >= size()) throw std::out_of_range("tvm::ffi::String::at: index out of range");
    return data()[pos];
  }
  char operator[](size_t pos) const noexcept { return data()[pos]; }

  int compare(const String& other) const noexcept {
    return detail::CompareBytes(data(), size(), other.data(), other.size());
  }
  int compare(const std::string& other) const noexcept {
    return detail::CompareBytes(data(), size(), other.data(), other.size());
  }
  int compare(const char* other) const noexcept {
    return detail::CompareBytes(data(), size(), other, std::char_traits<char>::length(other));
  }
  int compare(const TVMFFIByteArray& other) const noexcept {
    return detail::CompareBytes(data(), size(), other.data, other.size);
  }

  static constexpr size_t npos = static_cast<size_t>(-1);
  size_t find(std::string_view needle, size_t pos = 0) const noexcept {
    return std::string_view(data(), size()).find(needle, pos);
  }
  size_t find(const String& needle, size_t pos = 0) const noexcept {
    return find(std::string_view(needle.data(), needle.size()), pos);
  }
  size_t find(const char* needle, size_t pos = 0) const noexcept {
    return find(std::string_view(needle), pos);
  }
  String substr(size_t pos = 0, size_t count = npos) const {
    if (pos > size()) throw std::out_of_range("tvm::ffi::String::substr: position out of range");
    size_t rest = size() - pos;
    return String(data() + pos, count < rest ? count : rest);
  }
  bool starts_with(std::string_view prefix) const noexcept {
    return prefix.size() <= size() && std::string_view(data(), prefix.size()) == prefix;
  }
  bool starts_with(const char* prefix) const noexcept {
    return starts_with(std::string_view(prefix));
  }
  bool starts_with(const String& prefix) const noexcept {
    return starts_with(std::string_view(prefix.data(), prefix.size()));
  }
  bool ends_with(std::string_view suffix) const noexcept {
    return suffix.size() <= size() &&
           std::string_view(data() + size() - suffix.size(), suffix.size()) == suffix;
  }
  bool ends_with(const char* suffix) const noexcept { return ends_with(std::string_view(suffix)); }
  bool ends_with(const String& suffix) const noexcept {
    return ends_with(std::string_view(suffix.data(), suffix.size()));
  }

  operator std::string() const { return std::string(data(), size()); }  // NOLINT(*)

  /*!
   * \brief The pieces between occurrences of `delim`: n delimiters give n + 1
   *        pieces, empty ones included ("" gives one empty piece).
   * \return Views into this string's characters, valid while it lives.
   */
  template <typename Part = std::string_view>  // a template: vector instantiated only if used
  std::vector<Part> Split(char delim) const {
    std::vector<Part> parts;
    std::string_view rest(data(), size());
    for (size_t at; (at = rest.find(delim)) != std::string_view::npos; rest.remove_prefix(at + 1)) {
      parts.push_back(rest.substr(0, at));
    }
    parts.push_back(rest);
    return parts;
  }

 private:
  detail::BytesBaseCell data_;
  explicit String(detail::BytesBaseCell cell) noexcept : data_(std::move(cell)) {}
  template <typename, typename>
  friend struct TypeTraits;
  template <typename, typename>
  friend class Optional;
};

inline String operator+(const String& lhs, const String& rhs) {
  std::string out;
  out.reserve(lhs.size() + rhs.size());
  out.append(lhs.data(), lhs.size()).append(rhs.data(), rhs.size());
  return String(out);
}
inline String operator+(const String& lhs, std::string_view rhs) {
  std::string out;
  out.reserve(lhs.size() + rhs.size());
  out.append(lhs.data(), lhs.size()).append(rhs.data(), rhs.size());
  return String(out);
}
inline String operator+(std::string_view lhs, const String& rhs) {
  std::string out;
  out.reserve(lhs.size() + rhs.size());
  out.append(lhs.data(), lhs.size()).append(rhs.data(), rhs.size());
  return String(out);
}
inline String operator+(const String& lhs, const char* rhs) {
  return lhs + std::string_view(rhs);
}
inline String operator+(const char* lhs, const String& rhs) {
  return std::string_view(lhs) + rhs;
}
inline String operator+(const String& lhs, const std::string& rhs) {
  return lhs + std::string_view(rhs);
}
inline String operator+(const std::string& lhs, const String& rhs) {
  return std::string_view(lhs) + rhs;
}

#define TVM_FFI_STRING_COMPARE_OP_(Op)                                          \
  inline bool operator Op(const String& lhs, const String& rhs) noexcept {      \
    return lhs.compare(rhs) Op 0;                                               \
  }                                                                             \
  inline bool operator Op(const String& lhs, const std::string& rhs) noexcept { \
    return lhs.compare(rhs) Op 0;                                               \
  }                                                                             \
  inline bool operator Op(const std::string& lhs, const String& rhs) noexcept { \
    return 0 Op rhs.compare(lhs);                                               \
  }                                                                             \
  inline bool operator Op(const String& lhs, const char* rhs) noexcept {        \
    return lhs.compare(rhs) Op 0;                                               \
  }                                                                             \
  inline bool operator Op(const char* lhs, const String& rhs) noexcept {        \
    return 0 Op rhs.compare(lhs);                                               \
  }
TVM_FFI_STRING_COMPARE_OP_(==)
TVM_FFI_STRING_COMPARE_OP_(!=)
TVM_FFI_STRING_COMPARE_OP_(<)
TVM_FFI_STRING_COMPARE_OP_(>)
TVM_FFI_STRING_COMPARE_OP_(<=)
TVM_FFI_STRING_COMPARE_OP_(>=)
#undef TVM_FFI_STRING_COMPARE_OP_

/*! \brief A view of a TVMFFIByteArray. */
TVM_FFI_INLINE std::string_view ToStringView(TVMFFIByteArray str) {
  return std::string_view(str.data, str.size);
}

/*! \brief Error messages: `TVM_FFI_THROW(ValueError) << name;` */
inline detail::ErrorMessageStream& operator<<(detail::ErrorMessageStream& os, const String& s) {
  os.str().append(s.data(), s.size());
  return os;
}

/*!
 * \brief `stream << s` for std::ostream-like streams (this header has no
 *        <ostream>). T is deduced, so nothing converts to String implicitly here.
 */
template <typename Stream, typename T, std::enable_if_t<std::is_same_v<T, String>, int> = 0>
inline auto operator<<(Stream& os, const T& s)
    -> decltype(os.write(static_cast<const char*>(nullptr), 0)) {
  return os.write(s.data(), static_cast<std::ptrdiff_t>(s.size()));
}

namespace detail {
/*!
 * \brief Append `s` as a JSON string literal (RFC 8259): quoted; `"`, `\\`, `/`
 *        and the control characters escaped (\b \f \n \r \t, the others and
 *        DEL as \u00XX); other bytes, UTF-8 included, copied as they are.
 *        The one JSON escaper: metadata, type schemas, EscapeStringJSON and
 *        json::Stringify all use it.
 */
inline void AppendJSONString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    const char* esc = nullptr;
    switch (c) {
      case '"':
        esc = "\\\"";
        break;
      case '\\':
        esc = "\\\\";
        break;
      case '/':
        esc = "\\/";
        break;
      case '\b':
        esc = "\\b";
        break;
      case '\f':
        esc = "\\f";
        break;
      case '\n':
        esc = "\\n";
        break;
      case '\r':
        esc = "\\r";
        break;
      case '\t':
        esc = "\\t";
        break;
      default:
        break;
    }
    if (esc != nullptr) {
      out->append(esc);
    } else if (c < 0x20 || c == 0x7f) {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 0xf]);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back('"');
}

/*!
 * \brief Append `s` quoted the way Python's repr writes a str, but always in
 *        double quotes: \n \t \r \\ \" as such, other control bytes and
 *        DEL as \xNN, ANSI colour sequences (ESC [ digits/; m or K) as
 *        \x1b[...m, valid UTF-8 sequences as \uXXXX / \UXXXXXXXX, and any byte
 *        that does not start a valid sequence as \xNN.
 */
inline void AppendPyString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  auto hex = [out](const char* prefix, uint32_t v, int digits) {
    out->append(prefix);
    for (int shift = 4 * (digits - 1); shift >= 0; shift -= 4)
      out->push_back(kHex[(v >> shift) & 0xf]);
  };
  auto cont = [&s](size_t i) {
    return i < s.size() && (static_cast<unsigned char>(s[i]) & 0xc0) == 0x80;
  };
  out->push_back('"');
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == 0x1b && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';')) ++j;
      if (j < s.size() && (s[j] == 'm' || s[j] == 'K')) {
        out->append("\\x1b");
        out->append(s.data() + i + 1, j - i);
        i = j + 1;
        continue;
      }
    }
    switch (c) {
      case '\n':
        out->append("\\n");
        ++i;
        continue;
      case '\t':
        out->append("\\t");
        ++i;
        continue;
      case '\r':
        out->append("\\r");
        ++i;
        continue;
      case '\\':
        out->append("\\\\");
        ++i;
        continue;
      case '"':
        out->append("\\\"");
        ++i;
        continue;
      default:
        break;
    }
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) {
        hex("\\x", c, 2);
      } else {
        out->push_back(static_cast<char>(c));
      }
      ++i;
      continue;
    }
    // A UTF-8 sequence of n bytes (lead byte, then n - 1 continuation bytes).
    const size_t n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    bool ok = n != 0;
    for (size_t k = 1; ok && k < n; ++k) ok = cont(i + k);
    if (!ok) {
      hex("\\x", c, 2);
      ++i;
      continue;
    }
    uint32_t cp = c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
    if (n == 4) {
      hex("\\U", cp, 8);
    } else {
      hex("\\u", cp, 4);
    }
    i += n;
  }
  out->push_back('"');
}

TVM_FFI_INLINE bool IsStrIndex(int32_t index) noexcept {
  return index == TypeIndex::kTVMFFIRawStr || index == TypeIndex::kTVMFFISmallStr ||
         index == TypeIndex::kTVMFFIStr;
}
}  // namespace detail

/*!
 * \brief `value` as a JSON string literal, quoted (RFC 8259; see
 *        detail::AppendJSONString for what is escaped).
 */
inline String EscapeStringJSON(const String& value) {
  std::string out;
  detail::AppendJSONString(&out, std::string_view(value.data(), value.size()));
  return String(out);
}

/*! \brief Upstream's former name of EscapeStringJSON. */
[[deprecated("Use EscapeStringJSON instead")]] inline String EscapeString(const String& value) {
  return EscapeStringJSON(value);
}

/*!
 * \brief `value` quoted and escaped the way Python's repr writes a str (in
 *        double quotes; see detail::AppendPyString): "a\\nb", "\\u00e9", "\\x80".
 */
inline String EscapedStringPy(const String& value) {
  std::string out;
  detail::AppendPyString(&out, std::string_view(value.data(), value.size()));
  return String(out);
}

// ---------------------------------------------------------------------------
// TypeTraits of string-like types.
// ---------------------------------------------------------------------------

template <>
inline constexpr bool use_default_type_traits_v<String> = false;

template <>
struct TypeTraits<String> : public TypeTraitsBase {
  TVM_FFI_INLINE static void CopyToAnyView(const String& src, TVMFFIAny* result) {
    *result = src.data_.CopyToTVMFFIAny();
  }
  TVM_FFI_INLINE static void MoveToAny(String src, TVMFFIAny* result) {
    src.data_.MoveToAny(result);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFISmallStr ||
           src->type_index == TypeIndex::kTVMFFIStr;
  }
  TVM_FFI_INLINE static String CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return String(detail::BytesBaseCell::CopyFromAnyView(src));
  }
  TVM_FFI_INLINE static String MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return String(detail::BytesBaseCell::MoveFromAny(src));
  }
  template <typename LazyT_ = String>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    if (src->type_index == TypeIndex::kTVMFFIRawStr && src->v_c_str != nullptr) {
      return String(src->v_c_str);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "str"; }
  /*! \brief As upstream: the type key, {"type":"ffi.String"} (TypeStr() says "str"). */
  static std::string TypeSchema() { return R"({"type":"ffi.String"})"; }
};

template <>
inline constexpr bool use_default_type_traits_v<Bytes> = false;

template <>
struct TypeTraits<Bytes> : public TypeTraitsBase {
  TVM_FFI_INLINE static void CopyToAnyView(const Bytes& src, TVMFFIAny* result) {
    *result = src.data_.CopyToTVMFFIAny();
  }
  TVM_FFI_INLINE static void MoveToAny(Bytes src, TVMFFIAny* result) {
    src.data_.MoveToAny(result);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFISmallBytes ||
           src->type_index == TypeIndex::kTVMFFIBytes;
  }
  TVM_FFI_INLINE static Bytes CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Bytes(detail::BytesBaseCell::CopyFromAnyView(src));
  }
  TVM_FFI_INLINE static Bytes MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return Bytes(detail::BytesBaseCell::MoveFromAny(src));
  }
  template <typename LazyT_ = Bytes>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    if (src->type_index == TypeIndex::kTVMFFIByteArrayPtr) {
      // A NULL array, or NULL data with a size, is not bytes (the cast fails).
      const auto* b = static_cast<const TVMFFIByteArray*>(src->v_ptr);
      if (b == nullptr || (b->data == nullptr && b->size != 0)) return std::nullopt;
      return Bytes(*b);
    }
    return std::nullopt;
  }
  static std::string TypeStr() { return "bytes"; }
  /*! \brief As upstream: the type key, {"type":"ffi.Bytes"}. */
  static std::string TypeSchema() { return R"({"type":"ffi.Bytes"})"; }
};

namespace detail {
/*! \brief Traits of borrowed C++ string types: views become RawStr, owned values String. */
struct BorrowedStrTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return IsStrIndex(src->type_index);
  }
  static std::string TypeStr() { return "str"; }
};
}  // namespace detail

// const char*: a view; the pointer is valid while the viewed value lives.
template <>
struct TypeTraits<const char*> : public detail::BorrowedStrTraitsBase {
  TVM_FFI_INLINE static void CopyToAnyView(const char* src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIRawStr;
    result->zero_padding = 0;
    TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result);
    result->v_c_str = src;
  }
  static void MoveToAny(const char* src, TVMFFIAny* result) {
    TypeTraits<String>::MoveToAny(String(src), result);
  }
  TVM_FFI_INLINE static const char* CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    std::string_view view;
    detail::AnyStrView(src, &view);
    return view.data();
  }
  template <typename LazyT_ = const char*>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
};

// String literals.
template <size_t N>
struct TypeTraits<char[N]> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  TVM_FFI_INLINE static void CopyToAnyView(const char (&src)[N], TVMFFIAny* result) {
    TypeTraits<const char*>::CopyToAnyView(src, result);
  }
  static void MoveToAny(const char* src, TVMFFIAny* result) {
    TypeTraits<String>::MoveToAny(String(src), result);
  }
  static std::string TypeStr() { return "str"; }
};

// std::string: views borrow c_str(); owned values copy into a String.
template <>
struct TypeTraits<std::string> : public detail::BorrowedStrTraitsBase {
  TVM_FFI_INLINE static void CopyToAnyView(const std::string& src, TVMFFIAny* result) {
    TypeTraits<const char*>::CopyToAnyView(src.c_str(), result);
  }
  static void MoveToAny(const std::string& src, TVMFFIAny* result) {
    TypeTraits<String>::MoveToAny(String(src), result);
  }
  static std::string CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    std::string_view view;
    detail::AnyStrView(src, &view);
    return std::string(view);
  }
  template <typename LazyT_ = std::string>  // lazy std::optional: see TypeTraitsBase
  static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    // Bytes convert too, as upstream (std::string holds any bytes).
    std::string_view bytes;
    int32_t klass;
    if (detail::StringLikeView(src, &bytes, &klass) && klass == TypeIndex::kTVMFFIBytes) {
      return std::string(bytes);
    }
    return std::nullopt;
  }
};

// std::string_view: owned values copy into a String. Not NUL-terminated, so
// it cannot be a view; as a parameter it views the argument for the call.
template <>
struct TypeTraits<std::string_view> : public detail::BorrowedStrTraitsBase {
  template <typename U = std::string_view>
  static void CopyToAnyView(U, TVMFFIAny*) {
    static_assert(detail::always_false_v<U>,
                  "std::string_view is not NUL-terminated and cannot be borrowed into an "
                  "AnyView; pass a String (or std::string) instead");
  }
  static void MoveToAny(std::string_view src, TVMFFIAny* result) {
    TypeTraits<String>::MoveToAny(String(src), result);
  }
  TVM_FFI_INLINE static std::string_view CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    std::string_view view;
    detail::AnyStrView(src, &view);
    return view;
  }
  template <typename LazyT_ = std::string_view>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
};

// TVMFFIByteArray*: a borrowed byte range, only in views.
template <>
struct TypeTraits<TVMFFIByteArray*> : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIByteArrayPtr;
  TVM_FFI_INLINE static void CopyToAnyView(TVMFFIByteArray* src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIByteArrayPtr;
    result->zero_padding = 0;
    TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result);
    result->v_ptr = src;
  }
  static void MoveToAny(TVMFFIByteArray* src, TVMFFIAny* result) {
    TypeTraits<Bytes>::MoveToAny(Bytes(*src), result);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIByteArrayPtr;
  }
  TVM_FFI_INLINE static TVMFFIByteArray* CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return static_cast<TVMFFIByteArray*>(src->v_ptr);
  }
  template <typename LazyT_ = TVMFFIByteArray*>  // lazy std::optional: see TypeTraitsBase
  TVM_FFI_INLINE static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return "bytes"; }
};

}  // namespace ffi
}  // namespace tvm

namespace std {
template <>
struct hash<::tvm::ffi::String> {
  size_t operator()(const ::tvm::ffi::String& s) const noexcept {
    return std::hash<std::string_view>()(std::string_view(s.data(), s.size()));
  }
};
template <>
struct hash<::tvm::ffi::Bytes> {
  size_t operator()(const ::tvm::ffi::Bytes& s) const noexcept {
    return std::hash<std::string_view>()(std::string_view(s.data(), s.size()));
  }
};
}  // namespace std

#endif  // TVM_FFI_STRING_H_

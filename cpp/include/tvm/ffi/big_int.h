/*
 * tvmffi C++ layer: BigInt, an immutable integer of any size.
 *
 * A BigInt is one TVMFFIAny cell: kTVMFFIInt (inline) whenever the value fits
 * int64, else kTVMFFIBigInt, an object holding the canonical words (c_api.h):
 * two's complement int64 words, least significant first, without redundant
 * sign words. So equal values have equal cells up to the object's address,
 * and the inline and heap forms never hold the same value.
 *
 * Arithmetic is exact: the int64 fast paths promote on overflow. `/` and `%`
 * truncate (as C++), floordiv/floormod round down (as Python); bitwise
 * operators act on infinite two's complement; `>>` rounds down. Errors:
 * ZeroDivisionError, ValueError (NaN, a negative shift count) and
 * OverflowError (infinity, a result over kMaxBits bits, a narrowing
 * conversion that does not fit).
 *
 * Everything here is inline: a library built against these headers needs no
 * C++ symbol of the runtime. The multiword algorithms are the plain
 * schoolbook ones (division bit by bit): correct and short, not fast.
 */
#ifndef TVM_FFI_BIG_INT_H_
#define TVM_FFI_BIG_INT_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/type_traits.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
namespace detail {

struct BigIntUnsafe;

/*!
 * \brief The heap form: the header, a word count, then the words (c_api.h,
 *        kTVMFFIBigInt). Built by make_inplace_array_object<BigIntObj, int64_t>.
 */
class BigIntObj : public Object {
 public:
  /*! \brief `size` words follow; the builder writes them, then normalizes. */
  explicit BigIntObj(size_t size) : size_(size) {}
  BigIntObj(const BigIntObj&) = delete;
  BigIntObj& operator=(const BigIntObj&) = delete;

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIBigInt;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIBigInt, BigIntObj, Object);

 private:
  size_t size_;
  friend struct BigIntUnsafe;
};
}  // namespace detail

/*! \brief An immutable integer of any size (see the top of this file). */
class BigInt {
 public:
  /*! \brief Borrowed words, least significant first; the storage must outlive it. */
  class ArrayView {
   public:
    ArrayView(const int64_t* data, size_t size) : data_(data), size_(size) {}
    const int64_t& operator[](size_t i) const { return data_[i]; }
    size_t size() const { return size_; }

   private:
    const int64_t* data_;
    size_t size_;
  };

  /*! \brief The largest magnitude a result may have, in bits (OverflowError beyond). */
  static constexpr size_t kMaxBits = size_t{1} << 32;

  /*! \brief Zero. */
  BigInt() noexcept { Reset(); }
  /*! \brief Any integer of at most 64 bits, exactly (uint64 above INT64_MAX too). */
  template <typename Int, std::enable_if_t<(std::is_integral_v<Int> && sizeof(Int) <= 8), int> = 0>
  BigInt(Int value);  // NOLINT(*)
  /*! \brief A finite double, truncated toward zero (ValueError for NaN, OverflowError for inf). */
  explicit BigInt(double value);

  BigInt(const BigInt& other) noexcept : data_(other.data_) {
    if (data_.type_index != TypeIndex::kTVMFFIInt) {
      detail::ObjectUnsafe::IncRefObjectHandle(data_.v_obj);
    }
  }
  /*! \brief Moves; the source becomes 0. */
  BigInt(BigInt&& other) noexcept : data_(other.data_) { other.Reset(); }
  ~BigInt() {
    if (data_.type_index != TypeIndex::kTVMFFIInt) {
      detail::ObjectUnsafe::DecRefObjectHandle(data_.v_obj);
    }
  }
  BigInt& operator=(const BigInt& other) {
    BigInt(other).swap(*this);
    return *this;
  }
  BigInt& operator=(BigInt&& other) noexcept {
    BigInt(std::move(other)).swap(*this);
    return *this;
  }
  /*! \brief Exchanges the two cells (no reference count changes). */
  void swap(BigInt& other) noexcept { std::swap(data_, other.data_); }

  explicit operator bool() const noexcept {
    return data_.type_index != TypeIndex::kTVMFFIInt || data_.v_int64 != 0;
  }
  /*! \brief The value as int64 (OverflowError when it does not fit). */
  explicit operator int64_t() const {
    if (data_.type_index != TypeIndex::kTVMFFIInt) {
      TVM_FFI_THROW(OverflowError) << "BigInt does not fit int64_t";
    }
    return data_.v_int64;
  }
  /*! \brief The nearest double, ties to even (OverflowError past the finite range). */
  explicit operator double() const;
  /*! \brief The value as Int when it fits, else nullopt. */
  template <typename Int, std::enable_if_t<(std::is_integral_v<Int> && sizeof(Int) <= 8), int> = 0>
  std::optional<Int> as() const;
  /*! \brief A hash of the value (the same for equal values, whatever the objects). */
  uint64_t hash() const;

  BigInt& operator+=(const BigInt& rhs);
  BigInt& operator-=(const BigInt& rhs);
  BigInt& operator*=(const BigInt& rhs);
  BigInt& operator/=(const BigInt& rhs);
  BigInt& operator%=(const BigInt& rhs);
  BigInt& operator&=(const BigInt& rhs);
  BigInt& operator|=(const BigInt& rhs);
  BigInt& operator^=(const BigInt& rhs);
  BigInt& operator<<=(const BigInt& rhs);
  BigInt& operator>>=(const BigInt& rhs);
  BigInt& operator++() { return *this += 1; }
  BigInt& operator--() { return *this -= 1; }
  BigInt operator++(int) {
    BigInt old = *this;
    *this += 1;
    return old;
  }
  BigInt operator--(int) {
    BigInt old = *this;
    *this -= 1;
    return old;
  }

 private:
  // Takes over a normalized object of two or more words.
  explicit BigInt(ObjectPtr<detail::BigIntObj> ptr) noexcept {
    Reset();
    TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(&data_);
    data_.v_obj = detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(ptr));
    data_.type_index = TypeIndex::kTVMFFIBigInt;
  }
  void Reset() noexcept {
    data_.type_index = TypeIndex::kTVMFFIInt;
    data_.zero_padding = 0;
    data_.v_int64 = 0;
  }
  TVMFFIAny data_;
  friend struct detail::BigIntUnsafe;
  friend struct TypeTraits<BigInt>;
};

namespace detail {
/*! \brief Access to BigInt's representation (upstream's name; tests and the runtime use it). */
struct BigIntUnsafe {
  static bool CheckInt64(const BigInt& v) { return v.data_.type_index == TypeIndex::kTVMFFIInt; }
  static bool CheckInt64(const int64_t&) { return true; }
  static int64_t GetInt64(const BigInt& v) { return v.data_.v_int64; }
  static int64_t GetInt64(const int64_t& v) { return v; }
  /*! \brief The words of a cell holding kTVMFFIInt or kTVMFFIBigInt. */
  static BigInt::ArrayView GetArrayView(const TVMFFIAny* cell) {
    if (cell->type_index == TypeIndex::kTVMFFIInt) return {&cell->v_int64, 1};
    const BigIntObj* obj = ObjectUnsafe::RawObjectPtrFromUnowned<BigIntObj>(cell->v_obj);
    return {reinterpret_cast<const int64_t*>(obj + 1), obj->size_};
  }
  static BigInt::ArrayView GetArrayView(const BigInt& v) { return GetArrayView(&v.data_); }
  static BigInt::ArrayView GetArrayView(const int64_t& v) { return {&v, 1}; }
  /*! \brief The words of an object under construction (not yet normalized). */
  static BigInt::ArrayView GetArrayView(const ObjectPtr<BigIntObj>& ptr) {
    return {GetMutableData(ptr), ptr->size_};
  }
  static int64_t* GetMutableData(const ObjectPtr<BigIntObj>& ptr) {
    return reinterpret_cast<int64_t*>(ptr.get() + 1);
  }
  /*! \brief Shortens an unshared object under construction (the memory stays). */
  static void ShrinkSize(const ObjectPtr<BigIntObj>& ptr, size_t size) { ptr->size_ = size; }
  /*!
   * \brief Drops redundant sign words of a fully written object; one word left
   *        becomes the inline form. Keeps the allocation otherwise.
   */
  static BigInt Normalize(ObjectPtr<BigIntObj> ptr) {
    const int64_t* w = GetMutableData(ptr);
    size_t n = ptr->size_;
    while (n > 1 && w[n - 1] == (w[n - 2] < 0 ? -1 : 0)) --n;
    if (n <= 1) return BigInt(n == 1 ? w[0] : int64_t{0});
    ShrinkSize(ptr, n);
    return BigInt(std::move(ptr));
  }
  /*! \brief An object of n words, all written by the caller before Normalize. */
  static ObjectPtr<BigIntObj> Alloc(size_t n) {
    if (n > BigInt::kMaxBits / 64 + 2) {
      TVM_FFI_THROW(OverflowError) << "BigInt result would exceed " << BigInt::kMaxBits << " bits";
    }
    return make_inplace_array_object<BigIntObj, int64_t>(n, n);
  }
};

namespace int_ops {
using View = BigInt::ArrayView;

inline bool IsNegative(View x) {
  return x[x.size() - 1] < 0;
}
inline bool IsNormalizedZero(View x) {
  return x.size() == 1 && x[0] == 0;
}
/*! \brief Word i of x, sign-extended past its end. */
inline uint64_t WordAt(View x, size_t i) {
  return i < x.size() ? static_cast<uint64_t>(x[i]) : (IsNegative(x) ? ~uint64_t{0} : 0);
}
inline int64_t BitcastToInt64(uint64_t bits) {
  int64_t out;
  std::memcpy(&out, &bits, sizeof(out));
  return out;
}

// ---- int64 fast paths: true means "does not fit, take the fallback" ----
inline bool AddOverflow(int64_t a, int64_t b, int64_t* out) {
  return __builtin_add_overflow(a, b, out);
}
inline bool SubOverflow(int64_t a, int64_t b, int64_t* out) {
  return __builtin_sub_overflow(a, b, out);
}
inline bool MulOverflow(int64_t a, int64_t b, int64_t* out) {
  return __builtin_mul_overflow(a, b, out);
}
[[noreturn]] inline void ThrowZeroDivision() {
  TVM_FFI_THROW(ZeroDivisionError) << "BigInt division or modulo by zero";
}
inline bool TruncDivOverflow(int64_t a, int64_t b, int64_t* out) {
  if (b == 0) ThrowZeroDivision();
  if (b == -1 && a == std::numeric_limits<int64_t>::min()) return true;
  *out = a / b;
  return false;
}
inline bool TruncModOverflow(int64_t a, int64_t b, int64_t* out) {
  if (b == 0) ThrowZeroDivision();
  *out = b == -1 ? 0 : a % b;
  return false;
}
inline bool FloorDivOverflow(int64_t a, int64_t b, int64_t* out) {
  if (TruncDivOverflow(a, b, out)) return true;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --*out;
  return false;
}
inline bool FloorModOverflow(int64_t a, int64_t b, int64_t* out) {
  TruncModOverflow(a, b, out);
  if (*out != 0 && ((*out < 0) != (b < 0))) *out += b;
  return false;
}
[[noreturn]] inline void ThrowNegativeShift() {
  TVM_FFI_THROW(ValueError) << "BigInt shift count must not be negative";
}
inline bool LeftShiftOverflow(int64_t a, int64_t b, int64_t* out) {
  if (b < 0) ThrowNegativeShift();
  if (a == 0) {
    *out = 0;
    return false;
  }
  if (b >= 63) return true;
  int64_t shifted = static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  if ((shifted >> b) != a) return true;
  *out = shifted;
  return false;
}
inline int64_t RightShift(int64_t a, int64_t b) {
  if (b < 0) ThrowNegativeShift();
  return a >> (b > 63 ? 63 : b);
}

// ---- two's complement word algorithms ----
/*! \brief Sign-extended compare: -1, 0 or 1. Inputs need not be canonical. */
inline int CompareFallback(View a, View b) {
  bool na = IsNegative(a), nb = IsNegative(b);
  if (na != nb) return na ? -1 : 1;
  for (size_t i = std::max(a.size(), b.size()); i-- > 0;) {
    uint64_t x = WordAt(a, i), y = WordAt(b, i);
    if (x != y) return x < y ? -1 : 1;  // same sign: unsigned order of words agrees
  }
  return 0;
}
inline bool EqualFallback(View a, View b) {
  return CompareFallback(a, b) == 0;
}

/*! \brief a + b + carry_in over sign-extended words, with `invert_b` for a - b. */
inline BigInt AddWords(View a, View b, bool invert_b) {
  size_t n = std::max(a.size(), b.size()) + 1;
  auto ptr = BigIntUnsafe::Alloc(n);
  int64_t* out = BigIntUnsafe::GetMutableData(ptr);
  uint64_t carry = invert_b ? 1 : 0;
  for (size_t i = 0; i < n; ++i) {
    uint64_t x = WordAt(a, i), y = invert_b ? ~WordAt(b, i) : WordAt(b, i);
    uint64_t s = x + y;
    uint64_t c = s < x;
    s += carry;
    c |= s < carry;
    out[i] = BitcastToInt64(s);
    carry = c;
  }
  return BigIntUnsafe::Normalize(std::move(ptr));
}
inline BigInt AddFallback(View a, View b) {
  return AddWords(a, b, false);
}
inline BigInt SubFallback(View a, View b) {
  return AddWords(a, b, true);
}
inline BigInt NegateFallback(View x) {
  int64_t zero = 0;
  return AddWords(View(&zero, 1), x, true);
}

template <typename Op>
inline BigInt BitwiseWords(View a, View b, Op op) {
  size_t n = std::max(a.size(), b.size());
  auto ptr = BigIntUnsafe::Alloc(n);
  int64_t* out = BigIntUnsafe::GetMutableData(ptr);
  for (size_t i = 0; i < n; ++i) out[i] = BitcastToInt64(op(WordAt(a, i), WordAt(b, i)));
  return BigIntUnsafe::Normalize(std::move(ptr));
}
inline BigInt AndFallback(View a, View b) {
  return BitwiseWords(a, b, [](uint64_t x, uint64_t y) { return x & y; });
}
inline BigInt OrFallback(View a, View b) {
  return BitwiseWords(a, b, [](uint64_t x, uint64_t y) { return x | y; });
}
inline BigInt XorFallback(View a, View b) {
  return BitwiseWords(a, b, [](uint64_t x, uint64_t y) { return x ^ y; });
}
inline BigInt ComplementFallback(View x) {
  int64_t minus_one = -1;
  return XorFallback(x, View(&minus_one, 1));
}
/*! \brief A copy of the words of x as a BigInt. */
inline BigInt FromWords(View x) {
  auto ptr = BigIntUnsafe::Alloc(x.size());
  std::copy_n(&x[0], x.size(), BigIntUnsafe::GetMutableData(ptr));
  return BigIntUnsafe::Normalize(std::move(ptr));
}
inline BigInt MinFallback(View a, View b) {
  return FromWords(CompareFallback(a, b) <= 0 ? a : b);
}
inline BigInt MaxFallback(View a, View b) {
  return FromWords(CompareFallback(a, b) >= 0 ? a : b);
}

// ---- magnitudes: sign and unsigned words, for multiplication and division ----
using Mag = std::vector<uint64_t>;
// A double word (GCC and Clang; __extension__ keeps -Wpedantic quiet).
__extension__ typedef unsigned __int128 U128;
/*! \brief |x| as trimmed unsigned words (empty for 0). */
inline Mag Magnitude(View x) {
  Mag m(x.size());
  bool neg = IsNegative(x);
  uint64_t carry = 1;
  for (size_t i = 0; i < x.size(); ++i) {
    uint64_t w = static_cast<uint64_t>(x[i]);
    if (neg) {
      w = ~w + carry;
      carry = carry && w == 0;
    }
    m[i] = w;
  }
  while (!m.empty() && m.back() == 0) m.pop_back();
  return m;
}
/*! \brief The BigInt of (negative ? -m : m). */
inline BigInt FromMagnitude(const Mag& m, bool negative) {
  auto ptr = BigIntUnsafe::Alloc(m.size() + 1);
  int64_t* out = BigIntUnsafe::GetMutableData(ptr);
  uint64_t carry = 1;
  for (size_t i = 0; i <= m.size(); ++i) {
    uint64_t w = i < m.size() ? m[i] : 0;
    if (negative) {
      w = ~w + carry;
      carry = carry && w == 0;
    }
    out[i] = BitcastToInt64(w);
  }
  return BigIntUnsafe::Normalize(std::move(ptr));
}
inline BigInt MulFallback(View a, View b) {
  Mag x = Magnitude(a), y = Magnitude(b);
  if (x.empty() || y.empty()) return BigInt(0);
  if ((x.size() + y.size()) * 64 > BigInt::kMaxBits + 128) {
    TVM_FFI_THROW(OverflowError) << "BigInt product would exceed " << BigInt::kMaxBits << " bits";
  }
  Mag r(x.size() + y.size(), 0);
  for (size_t i = 0; i < x.size(); ++i) {
    U128 carry = 0;
    for (size_t j = 0; j < y.size(); ++j) {
      U128 t = static_cast<U128>(x[i]) * y[j] + r[i + j] + carry;
      r[i + j] = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
    r[i + y.size()] = static_cast<uint64_t>(carry);
  }
  while (!r.empty() && r.back() == 0) r.pop_back();
  return FromMagnitude(r, IsNegative(a) != IsNegative(b));
}

/*! \brief Quotient and remainder of magnitudes (divisor nonempty). */
inline void DivMagnitude(const Mag& a, const Mag& b, Mag* q, Mag* r) {
  q->assign(a.size(), 0);
  r->clear();
  if (b.size() == 1) {  // one word: a word at a time
    U128 rem = 0;
    for (size_t i = a.size(); i-- > 0;) {
      U128 cur = (rem << 64) | a[i];
      (*q)[i] = static_cast<uint64_t>(cur / b[0]);
      rem = cur % b[0];
    }
    if (rem != 0) r->push_back(static_cast<uint64_t>(rem));
  } else {  // bit by bit: r = 2r + bit; subtract b when r >= b
    Mag rem(b.size() + 1, 0);
    for (size_t bit = a.size() * 64; bit-- > 0;) {
      uint64_t in = (a[bit / 64] >> (bit % 64)) & 1;
      for (size_t k = rem.size(); k-- > 0;) {
        rem[k] = (rem[k] << 1) | (k ? rem[k - 1] >> 63 : in);
      }
      bool ge = true;
      for (size_t k = rem.size(); k-- > 0;) {
        uint64_t bk = k < b.size() ? b[k] : 0;
        if (rem[k] != bk) {
          ge = rem[k] > bk;
          break;
        }
      }
      if (!ge) continue;
      uint64_t borrow = 0;
      for (size_t k = 0; k < rem.size(); ++k) {
        uint64_t bk = k < b.size() ? b[k] : 0;
        uint64_t d = rem[k] - bk - borrow;
        borrow = (rem[k] < bk) || (rem[k] - bk < borrow);
        rem[k] = d;
      }
      (*q)[bit / 64] |= uint64_t{1} << (bit % 64);
    }
    *r = std::move(rem);
  }
  while (!q->empty() && q->back() == 0) q->pop_back();
  while (!r->empty() && r->back() == 0) r->pop_back();
}
/*! \brief Truncating quotient and remainder (the remainder has the dividend's sign). */
inline std::pair<BigInt, BigInt> DivRemFallback(View a, View b) {
  Mag y = Magnitude(b);
  if (y.empty()) ThrowZeroDivision();
  Mag q, r;
  DivMagnitude(Magnitude(a), y, &q, &r);
  bool na = IsNegative(a), nb = IsNegative(b);
  return {FromMagnitude(q, na != nb), FromMagnitude(r, na)};
}
inline std::pair<BigInt, BigInt> DivRemFallback(View a, int64_t b) {
  return DivRemFallback(a, View(&b, 1));
}
inline BigInt TruncDivFallback(View a, View b) {
  return DivRemFallback(a, b).first;
}
inline BigInt TruncModFallback(View a, View b) {
  return DivRemFallback(a, b).second;
}
inline BigInt FloorDivFallback(View a, View b) {
  auto qr = DivRemFallback(a, b);
  if (qr.second && IsNegative(a) != IsNegative(b)) {
    int64_t one = 1;
    return SubFallback(BigIntUnsafe::GetArrayView(qr.first), View(&one, 1));
  }
  return std::move(qr.first);
}
inline BigInt FloorModFallback(View a, View b) {
  BigInt r = DivRemFallback(a, b).second;
  if (r && IsNegative(a) != IsNegative(b)) return AddFallback(BigIntUnsafe::GetArrayView(r), b);
  return r;
}

/*! \brief A nonnegative shift count as size_t; false when it is too large for one. */
inline bool ShiftCount(View count, size_t* out) {
  if (IsNegative(count)) ThrowNegativeShift();
  for (size_t i = 1; i < count.size(); ++i) {
    if (count[i] != 0) return false;
  }
  *out = static_cast<size_t>(count[0]);
  return true;
}
inline BigInt LeftShiftFallback(View x, View count) {
  size_t s = 0;
  bool fits = ShiftCount(count, &s);
  if (x.size() == 1 && x[0] == 0) return BigInt(0);
  if (!fits || s > BigInt::kMaxBits) {
    TVM_FFI_THROW(OverflowError) << "BigInt shift count is too large (the result would exceed "
                                 << BigInt::kMaxBits << " bits)";
  }
  size_t words = s / 64, bits = s % 64;
  size_t n = x.size() + words + 1;
  auto ptr = BigIntUnsafe::Alloc(n);
  int64_t* out = BigIntUnsafe::GetMutableData(ptr);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = 0;
    if (i >= words) {
      size_t j = i - words;
      v = WordAt(x, j) << bits;
      if (bits != 0 && j > 0) v |= WordAt(x, j - 1) >> (64 - bits);
    }
    out[i] = BitcastToInt64(v);
  }
  return BigIntUnsafe::Normalize(std::move(ptr));
}
inline BigInt RightShiftFallback(View x, View count) {
  size_t s = 0;
  if (!ShiftCount(count, &s) || s / 64 >= x.size()) return BigInt(IsNegative(x) ? -1 : 0);
  size_t words = s / 64, bits = s % 64;
  size_t n = x.size() - words;
  auto ptr = BigIntUnsafe::Alloc(n);
  int64_t* out = BigIntUnsafe::GetMutableData(ptr);
  for (size_t i = 0; i < n; ++i) {
    uint64_t v = WordAt(x, i + words) >> bits;
    if (bits != 0) v |= WordAt(x, i + words + 1) << (64 - bits);
    out[i] = BitcastToInt64(v);
  }
  return BigIntUnsafe::Normalize(std::move(ptr));
}

inline BigInt FromDoubleFallback(double value) {
  if (std::isnan(value)) TVM_FFI_THROW(ValueError) << "cannot convert NaN to BigInt";
  if (std::isinf(value)) TVM_FFI_THROW(OverflowError) << "cannot convert infinity to BigInt";
  int exp = 0;
  double frac = std::frexp(std::fabs(value), &exp);  // |value| = frac * 2^exp, frac in [0.5, 1)
  int64_t mantissa = static_cast<int64_t>(std::ldexp(frac, 53));
  int64_t shift = exp - 53;
  BigInt m(mantissa);
  // Values reaching here are at least 2^63, so shift > 0 and nothing is cut.
  int64_t zero = 0;
  View mv = BigIntUnsafe::GetArrayView(m);
  BigInt r = LeftShiftFallback(mv, View(&shift, 1));
  return value < 0 ? SubFallback(View(&zero, 1), BigIntUnsafe::GetArrayView(r)) : r;
}
inline double ToDoubleFallback(const BigInt& value) {
  View x = BigIntUnsafe::GetArrayView(value);
  Mag m = Magnitude(x);
  size_t top = m.size() - 1;
  int lead = 64 - __builtin_clzll(m[top]);
  size_t bitlen = top * 64 + static_cast<size_t>(lead);
  if (bitlen > 1024) TVM_FFI_THROW(OverflowError) << "BigInt is too large for a double";
  // The top 64 bits and a sticky bit for everything below; round to 53 bits.
  auto bit_at = [&](size_t i) { return (m[i / 64] >> (i % 64)) & 1; };
  uint64_t hi = 0;
  for (size_t k = 0; k < 64; ++k) {
    hi = (hi << 1) | (bitlen - 1 >= k ? bit_at(bitlen - 1 - k) : 0);
  }
  bool sticky = false;
  for (size_t i = 0; i + 64 < bitlen && !sticky; ++i) sticky = bit_at(i) != 0;
  uint64_t mant = hi >> 11, rest = hi & 0x7ff;
  if (rest > 0x400 || (rest == 0x400 && (sticky || (mant & 1)))) ++mant;
  double r = std::ldexp(static_cast<double>(mant), static_cast<int>(bitlen) - 53);
  if (std::isinf(r)) TVM_FFI_THROW(OverflowError) << "BigInt is too large for a double";
  return IsNegative(x) ? -r : r;
}
/*! \brief Decimal text, '-' first for negative values. */
inline std::string ToStringFallback(const BigInt& value) {
  View x = BigIntUnsafe::GetArrayView(value);
  if (x.size() == 1) return std::to_string(x[0]);
  Mag m = Magnitude(x), q, r;
  const Mag chunk_divisor{10000000000000000000ull};  // 10^19
  std::string digits;                                // reversed
  while (!m.empty()) {
    DivMagnitude(m, chunk_divisor, &q, &r);
    uint64_t chunk = r.empty() ? 0 : r[0];
    for (int k = 0; k < 19 && (!q.empty() || chunk != 0); ++k) {
      digits.push_back(static_cast<char>('0' + chunk % 10));
      chunk /= 10;
    }
    m.swap(q);
  }
  if (IsNegative(x)) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}
}  // namespace int_ops
}  // namespace detail

template <typename Int, std::enable_if_t<(std::is_integral_v<Int> && sizeof(Int) <= 8), int>>
inline BigInt::BigInt(Int value) {
  Reset();
  if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      auto ptr = detail::BigIntUnsafe::Alloc(2);
      detail::BigIntUnsafe::GetMutableData(ptr)[0] = detail::int_ops::BitcastToInt64(value);
      detail::BigIntUnsafe::GetMutableData(ptr)[1] = 0;
      *this = BigInt(std::move(ptr));
      return;
    }
  }
  data_.v_int64 = static_cast<int64_t>(value);
}

inline BigInt::BigInt(double value) {
  Reset();
  // 2^63 is the first double above the int64 range (INT64_MAX rounds up to it).
  constexpr double kLow = -9223372036854775808.0;
  if (value >= kLow && value < -kLow) {
    data_.v_int64 = static_cast<int64_t>(value);
  } else {
    *this = detail::int_ops::FromDoubleFallback(value);
  }
}

inline BigInt::operator double() const {
  if (data_.type_index == TypeIndex::kTVMFFIInt) return static_cast<double>(data_.v_int64);
  return detail::int_ops::ToDoubleFallback(*this);
}

template <typename Int, std::enable_if_t<(std::is_integral_v<Int> && sizeof(Int) <= 8), int>>
inline std::optional<Int> BigInt::as() const {
  if (data_.type_index == TypeIndex::kTVMFFIInt) {
    int64_t v = data_.v_int64;
    if constexpr (std::is_signed_v<Int>) {
      if (v < std::numeric_limits<Int>::min() || v > std::numeric_limits<Int>::max()) return {};
    } else {
      if (v < 0 || static_cast<uint64_t>(v) > std::numeric_limits<Int>::max()) return {};
    }
    return static_cast<Int>(v);
  }
  if constexpr (std::is_unsigned_v<Int> && sizeof(Int) == 8) {
    BigInt::ArrayView w = detail::BigIntUnsafe::GetArrayView(*this);
    if (w.size() == 2 && w[1] == 0) return static_cast<Int>(w[0]);
  }
  return std::nullopt;
}

inline uint64_t BigInt::hash() const {
  if (data_.type_index == TypeIndex::kTVMFFIInt) return static_cast<uint64_t>(data_.v_int64);
  BigInt::ArrayView w = detail::BigIntUnsafe::GetArrayView(*this);
  return detail::StableHashBytes(&w[0], w.size() * sizeof(int64_t));
}

template <>
inline constexpr bool use_default_type_traits_v<BigInt> = false;

/*! \brief BigInt in Any: int or ffi.BigInt; casts also accept bool. */
template <>
struct TypeTraits<BigInt> : public TypeTraitsBase {
  static void CopyToAnyView(const BigInt& src, TVMFFIAny* result) { *result = src.data_; }
  static void MoveToAny(BigInt src, TVMFFIAny* result) {
    *result = src.data_;
    src.Reset();
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIInt || src->type_index == TypeIndex::kTVMFFIBigInt;
  }
  static BigInt CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    BigInt r;
    r.data_ = *src;
    if (r.data_.type_index != TypeIndex::kTVMFFIInt) {
      detail::ObjectUnsafe::IncRefObjectHandle(r.data_.v_obj);
    }
    return r;
  }
  static BigInt MoveFromAnyAfterCheck(TVMFFIAny* src) {
    BigInt r;
    r.data_ = *src;
    detail::SetAnyNone(src);
    return r;
  }
  template <typename LazyT_ = BigInt>
  static std::optional<LazyT_> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    if (src->type_index == TypeIndex::kTVMFFIBool) return BigInt(src->v_int64);
    return std::nullopt;
  }
  static std::string TypeStr() { return "BigInt"; }
  static std::string TypeSchema() { return R"({"type":"ffi.BigInt"})"; }
};

// ---- operators: each for (BigInt, BigInt), (BigInt, int64_t), (int64_t, BigInt) ----
// An int64 operand is borrowed as one word; it never becomes a cell.
#define TVMFFI_BIGINT_OVERLOADS_(Ret, Name, ...)                                 \
  inline Ret Name(const BigInt& a, const BigInt& b) __VA_ARGS__ inline Ret Name( \
      const BigInt& a, int64_t b) __VA_ARGS__ inline Ret                         \
  Name(int64_t a, const BigInt& b) __VA_ARGS__

// The int64 fast path when both fit; `Overflow` sets `r` or says it does not fit.
#define TVMFFI_BIGINT_CHECKED_(Name, Fallback, Overflow)                      \
  TVMFFI_BIGINT_OVERLOADS_(BigInt, Name, {                                    \
    using U = detail::BigIntUnsafe;                                           \
    if (U::CheckInt64(a) && U::CheckInt64(b)) {                               \
      int64_t x = U::GetInt64(a), y = U::GetInt64(b), r = 0;                  \
      if (!(Overflow)) return BigInt(r);                                      \
    }                                                                         \
    return detail::int_ops::Fallback(U::GetArrayView(a), U::GetArrayView(b)); \
  })
#define TVMFFI_BIGINT_EXACT_(Ret, Name, Fallback, ...)                        \
  TVMFFI_BIGINT_OVERLOADS_(Ret, Name, {                                       \
    using U = detail::BigIntUnsafe;                                           \
    if (U::CheckInt64(a) && U::CheckInt64(b)) {                               \
      int64_t x = U::GetInt64(a), y = U::GetInt64(b);                         \
      return __VA_ARGS__;                                                     \
    }                                                                         \
    return detail::int_ops::Fallback(U::GetArrayView(a), U::GetArrayView(b)); \
  })

TVMFFI_BIGINT_CHECKED_(operator+, AddFallback, detail::int_ops::AddOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(operator-, SubFallback, detail::int_ops::SubOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(operator*, MulFallback, detail::int_ops::MulOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(operator/, TruncDivFallback, detail::int_ops::TruncDivOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(operator%, TruncModFallback, detail::int_ops::TruncModOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(truncdiv, TruncDivFallback, detail::int_ops::TruncDivOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(truncmod, TruncModFallback, detail::int_ops::TruncModOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(floordiv, FloorDivFallback, detail::int_ops::FloorDivOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(floormod, FloorModFallback, detail::int_ops::FloorModOverflow(x, y, &r))
TVMFFI_BIGINT_CHECKED_(operator<<, LeftShiftFallback, detail::int_ops::LeftShiftOverflow(x, y, &r))
TVMFFI_BIGINT_EXACT_(BigInt, operator>>, RightShiftFallback,
                     BigInt(detail::int_ops::RightShift(x, y)))
TVMFFI_BIGINT_EXACT_(BigInt, operator&, AndFallback, BigInt(x& y))
TVMFFI_BIGINT_EXACT_(BigInt, operator|, OrFallback, BigInt(x | y))
TVMFFI_BIGINT_EXACT_(BigInt, operator^, XorFallback, BigInt(x ^ y))
TVMFFI_BIGINT_EXACT_(BigInt, min, MinFallback, BigInt(x <= y ? x : y))
TVMFFI_BIGINT_EXACT_(BigInt, max, MaxFallback, BigInt(x >= y ? x : y))
TVMFFI_BIGINT_EXACT_(bool, operator==, EqualFallback, x == y)
TVMFFI_BIGINT_OVERLOADS_(bool, operator!=, { return !(a == b); })
// Op is an operator token; it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TVMFFI_BIGINT_COMPARE_(Op)                                                        \
  TVMFFI_BIGINT_OVERLOADS_(bool, operator Op, {                                           \
    using U = detail::BigIntUnsafe;                                                       \
    if (U::CheckInt64(a) && U::CheckInt64(b)) return U::GetInt64(a) Op U::GetInt64(b);    \
    return detail::int_ops::CompareFallback(U::GetArrayView(a), U::GetArrayView(b)) Op 0; \
  })
TVMFFI_BIGINT_COMPARE_(<)
TVMFFI_BIGINT_COMPARE_(<=)
TVMFFI_BIGINT_COMPARE_(>)
TVMFFI_BIGINT_COMPARE_(>=)
// NOLINTEND(bugprone-macro-parentheses)
#undef TVMFFI_BIGINT_COMPARE_
#undef TVMFFI_BIGINT_CHECKED_
#undef TVMFFI_BIGINT_EXACT_
#undef TVMFFI_BIGINT_OVERLOADS_

inline BigInt operator+(const BigInt& v) {
  return v;
}
inline BigInt operator-(const BigInt& v) {
  using U = detail::BigIntUnsafe;
  if (U::CheckInt64(v) && U::GetInt64(v) != std::numeric_limits<int64_t>::min()) {
    return BigInt(-U::GetInt64(v));
  }
  return detail::int_ops::NegateFallback(U::GetArrayView(v));
}
inline BigInt operator~(const BigInt& v) {
  using U = detail::BigIntUnsafe;
  if (U::CheckInt64(v)) return BigInt(~U::GetInt64(v));
  return detail::int_ops::ComplementFallback(U::GetArrayView(v));
}

inline BigInt& BigInt::operator+=(const BigInt& rhs) {
  return *this = *this + rhs;
}
inline BigInt& BigInt::operator-=(const BigInt& rhs) {
  return *this = *this - rhs;
}
inline BigInt& BigInt::operator*=(const BigInt& rhs) {
  return *this = *this * rhs;
}
inline BigInt& BigInt::operator/=(const BigInt& rhs) {
  return *this = *this / rhs;
}
inline BigInt& BigInt::operator%=(const BigInt& rhs) {
  return *this = *this % rhs;
}
inline BigInt& BigInt::operator&=(const BigInt& rhs) {
  return *this = *this & rhs;
}
inline BigInt& BigInt::operator|=(const BigInt& rhs) {
  return *this = *this | rhs;
}
inline BigInt& BigInt::operator^=(const BigInt& rhs) {
  return *this = *this ^ rhs;
}
inline BigInt& BigInt::operator<<=(const BigInt& rhs) {
  return *this = *this << rhs;
}
inline BigInt& BigInt::operator>>=(const BigInt& rhs) {
  return *this = *this >> rhs;
}

/*! \brief Reads [+-]digits (after the stream's usual whitespace skip); on failure sets failbit
 * and leaves `value` as it was. */
inline std::istream& operator>>(std::istream& is, BigInt& value) {
  std::istream::sentry sentry(is);
  if (!sentry) return is;
  bool negative = false;
  int c = is.peek();
  if (c == '+' || c == '-') negative = is.get() == '-';
  BigInt result;
  bool any = false;
  for (c = is.peek(); c >= '0' && c <= '9'; c = is.peek()) {
    is.get();
    any = true;
    result = result * 10 + (c - '0');
  }
  if (!any) {
    is.setstate(std::ios::failbit);
    return is;
  }
  value = negative ? -result : std::move(result);
  return is;
}

inline std::ostream& operator<<(std::ostream& os, const BigInt& value) {
  return os << detail::int_ops::ToStringFallback(value);
}

}  // namespace ffi
}  // namespace tvm

namespace std {
template <>
inline void swap(tvm::ffi::BigInt& a, tvm::ffi::BigInt& b) noexcept {
  a.swap(b);
}
template <>
struct hash<tvm::ffi::BigInt> {
  size_t operator()(const tvm::ffi::BigInt& v) const { return static_cast<size_t>(v.hash()); }
};
}  // namespace std
#endif  // TVM_FFI_BIG_INT_H_

/*
 * tvmffi C++ layer: Expected<T>, a value or an Error, for code that reports
 * failures without throwing.
 *
 *   Expected<int> ParsePositive(int x) {
 *     if (x <= 0) return Unexpected(Error("ValueError", "not positive"));
 *     return x;
 *   }
 *   Expected<int> r = ParsePositive(3);
 *   if (r.is_ok()) use(r.value()); else report(r.error());
 *
 * The storage is one Any holding either the value or the Error object, so an
 * Expected crosses the ABI as that Any: a typed function returning
 * Expected<T> returns the T or the Error object as its result (the error is
 * a value, not raised), and TypeTraits<Expected<T>> accepts either back.
 * Function::CallExpected<T>(...) turns a raised error into an Expected too.
 */
#ifndef TVM_FFI_EXPECTED_H_
#define TVM_FFI_EXPECTED_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>

#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief Marks an Error as the failure alternative of an Expected. */
template <typename E = Error>
class Unexpected {
  static_assert(std::is_base_of_v<Error, std::remove_cv_t<E>>,
                "Unexpected<E>: E must be Error or derived from it");

 public:
  explicit Unexpected(E error) : error_(std::move(error)) {}
  const E& error() const& noexcept { return error_; }
  E& error() & noexcept { return error_; }
  const E&& error() const&& noexcept { return std::move(error_); }
  E&& error() && noexcept { return std::move(error_); }

 private:
  E error_;
};

template <typename E>
Unexpected(E) -> Unexpected<E>;

template <typename T>
class Expected;

namespace detail {
struct ExpectedUnsafe;

template <typename T>
inline constexpr bool is_expected_v = false;
template <typename T>
inline constexpr bool is_expected_v<Expected<T>> = true;
template <typename T>
inline constexpr bool is_unexpected_v = false;
template <typename E>
inline constexpr bool is_unexpected_v<Unexpected<E>> = true;

/*! \brief An Expected<U> is an Expected<T> as is when a U is a T (an Error is both). */
template <typename T, typename U>
struct TypeSubsumes<Expected<T>, Expected<U>>
    : std::bool_constant<!std::is_void_v<T> &&
                         (std::is_void_v<U> ? std::is_same_v<T, Any> : TypeSubsumes<T, U>::value)> {
};
template <>
struct TypeSubsumes<Expected<void>, Expected<void>> : std::true_type {};

/*! \brief What Expected's error() throws when there is no error. */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowBadExpectedAccess() {
  TVM_FFI_THROW(RuntimeError) << "Bad expected access: the Expected holds a value, not an error";
}

/*! \brief The part of Expected<T> and Expected<void> that does not depend on T. */
class ExpectedStorage {
 public:
  /*! \return The type index of what is held (kTVMFFIError for an error). */
  TVM_FFI_INLINE int32_t type_index() const noexcept { return data_.type_index(); }
  /*! \return Whether a value (not an error) is held. */
  TVM_FFI_INLINE bool is_ok() const noexcept {
    return data_.type_index() != TypeIndex::kTVMFFIError;
  }
  /*! \return Whether an error is held. */
  TVM_FFI_INLINE bool is_err() const noexcept { return !is_ok(); }
  /*! \brief Same as is_ok(). */
  TVM_FFI_INLINE bool has_value() const noexcept { return is_ok(); }
  /*! \return The error; RuntimeError if a value is held. */
  Error error() const& {
    if (is_ok()) ThrowBadExpectedAccess();
    return AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_);
  }
  Error error() && {
    if (is_ok()) ThrowBadExpectedAccess();
    return AnyUnsafe::MoveFromAnyAfterCheck<Error>(std::move(data_));
  }

 protected:
  ExpectedStorage() = default;
  explicit ExpectedStorage(Any data) noexcept : data_(std::move(data)) {}
  // Both throw a copy (one more reference to the error object) and leave data_
  // alone: with a move, GCC 12/13 at -O3 (IPA mod/ref) drops the store that
  // empties data_ on the way to the throw, and the unwinder's ~Expected then
  // releases a cleared pointer (tests/cpp/test_expected.cc, "value() of an error
  // at -O3").
  [[noreturn]] void ThrowError() const& {
    throw AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_);
  }
  [[noreturn]] void ThrowError() && { throw AnyUnsafe::CopyFromAnyViewAfterCheck<Error>(data_); }

  Any data_;  // the value, or an Error (type index kTVMFFIError)
  friend struct ExpectedUnsafe;
};
}  // namespace detail

/*!
 * \brief Either a T or an Error. T must not be void-qualified or Error itself;
 *        Expected<void> is the specialisation below.
 */
template <typename T>
class Expected : public detail::ExpectedStorage {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>,
                "Expected<Error> is ambiguous: use Error directly");

 public:
  Expected(T value) : ExpectedStorage(Any(std::move(value))) {}      // NOLINT(*)
  Expected(Error error) : ExpectedStorage(Any(std::move(error))) {}  // NOLINT(*)
  /*!
   * \brief A value implicitly convertible to T (one conversion, so that
   *        `return x;` works where x converts to T). Errors, Unexpected and
   *        other Expecteds take their own constructors.
   */
  template <typename U, typename = std::enable_if_t<!detail::is_expected_v<std::decay_t<U>> &&
                                                    !detail::is_unexpected_v<std::decay_t<U>> &&
                                                    !std::is_base_of_v<Error, std::decay_t<U>> &&
                                                    !std::is_same_v<std::decay_t<U>, T> &&
                                                    std::is_convertible_v<U, T>>>
  Expected(U&& value)  // NOLINT(*)
      : ExpectedStorage(Any(T(std::forward<U>(value)))) {}
  /*!
   * \brief From an Expected of another type: the storage is taken over as is
   *        when a U is already a T (type_subsumes_v), else the value is
   *        converted to T; an error stays the error.
   */
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, T> && !std::is_void_v<U> &&
                                        (type_subsumes_v<T, U> || std::is_convertible_v<U, T>)>>
  Expected(Expected<U> other)  // NOLINT(*)
      : ExpectedStorage(Convert(std::move(other))) {}
  template <typename E, typename = std::enable_if_t<std::is_base_of_v<Error, std::remove_cv_t<E>>>>
  Expected(Unexpected<E> unexpected)  // NOLINT(*)
      : ExpectedStorage(Any(Error(std::move(unexpected).error()))) {}

  /*! \return The value; throws the held Error otherwise. */
  T value() const& {
    if (TVM_FFI_PREDICT_FALSE(is_err())) ThrowError();
    return detail::AnyUnsafe::CopyFromAnyViewAfterCheck<T>(data_);
  }
  T value() && {
    if (TVM_FFI_PREDICT_FALSE(is_err())) std::move(*this).ThrowError();
    return detail::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
  }
  /*! \return The value, or `fallback` when an error is held. */
  template <typename U = std::remove_cv_t<T>>
  T value_or(U&& fallback) const& {
    if (is_ok()) return detail::AnyUnsafe::CopyFromAnyViewAfterCheck<T>(data_);
    return T(std::forward<U>(fallback));
  }
  template <typename U = std::remove_cv_t<T>>
  T value_or(U&& fallback) && {
    if (is_ok()) return detail::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
    return T(std::forward<U>(fallback));
  }

  /*!
   * \return This Expected as an Expected<U> when its value is stored as a U
   *         (as Any::as<U>(), no conversion) or it holds an error; otherwise
   *         a TypeError naming both types.
   */
  template <typename U, typename = std::enable_if_t<
                            std::is_same_v<U, std::decay_t<U>> && !std::is_base_of_v<Error, U> &&
                            (TypeTraits<U>::storage_enabled || std::is_same_v<U, Any>)>>
  Expected<U> as_or_error() const& {
    return Expected(*this).template as_or_error<U>();
  }
  template <typename U, typename = std::enable_if_t<
                            std::is_same_v<U, std::decay_t<U>> && !std::is_base_of_v<Error, U> &&
                            (TypeTraits<U>::storage_enabled || std::is_same_v<U, Any>)>>
  Expected<U> as_or_error() && {
    if (is_ok()) {
      if constexpr (!std::is_same_v<U, Any>) {
        if (!detail::AnyUnsafe::CheckAnyStrict<U>(data_)) {
          return Error("TypeError",
                       "Cannot treat type `" + data_.GetTypeKey() + "` as type `" +
                           TypeTraits<U>::TypeStr() + "`",
                       "");
        }
      }
    }
    Expected<U> out;
    out.data_ = std::move(data_);
    return out;
  }

 private:
  Expected() = default;
  template <typename U>
  static Any Convert(Expected<U>&& other) {
    if constexpr (type_subsumes_v<T, U>) {
      return std::move(other.data_);
    } else {
      if (other.is_err()) return Any(std::move(other).error());
      return Any(T(std::move(other).value()));
    }
  }
  template <typename>
  friend class Expected;
  friend struct detail::ExpectedUnsafe;
};

/*! \brief Success (None held) or an Error. */
template <>
class Expected<void> : public detail::ExpectedStorage {
 public:
  Expected() = default;
  Expected(Error error) : ExpectedStorage(Any(std::move(error))) {}  // NOLINT(*)
  template <typename E, typename = std::enable_if_t<std::is_base_of_v<Error, std::remove_cv_t<E>>>>
  Expected(Unexpected<E> unexpected)  // NOLINT(*)
      : ExpectedStorage(Any(Error(std::move(unexpected).error()))) {}

  /*! \brief Throws the held Error, if any. */
  void value() const& {
    if (TVM_FFI_PREDICT_FALSE(is_err())) ThrowError();
  }
  void value() && {
    if (TVM_FFI_PREDICT_FALSE(is_err())) std::move(*this).ThrowError();
  }
};

namespace detail {
/*! \brief Raw access to an Expected's storage, for code that moves it across the C ABI. */
struct ExpectedUnsafe {
  /*! \brief Take over a raw value (a T-compatible value or an Error); `raw` must not be reused. */
  template <typename T>
  static Expected<T> MoveFromTVMFFIAny(TVMFFIAny raw) {
    Expected<T> result;
    result.data_ = AnyUnsafe::MoveTVMFFIAnyToAny(&raw);
    return result;
  }
  /*! \brief Give up the storage as a raw owned value. */
  template <typename T>
  static TVMFFIAny MoveToTVMFFIAny(Expected<T>&& result) {
    return AnyUnsafe::MoveAnyToTVMFFIAny(std::move(result.data_));
  }
  /*! \return The storage. */
  template <typename T>
  static const Any& GetData(const Expected<T>& result) noexcept {
    return result.data_;
  }
  /*! \return The storage, to move from (the Expected must not be read after). */
  template <typename T>
  static Any& GetData(Expected<T>& result) noexcept {
    return result.data_;
  }
  /*! \return The held value read as T (storage assumed T-compatible); throws the held Error. */
  template <typename T, typename U>
  static T ValueAs(const Expected<U>& result) {
    if constexpr (std::is_void_v<T>) {
      static_assert(std::is_void_v<U>, "ValueAs<void> needs an Expected<void>");
      result.value();
    } else {
      if (TVM_FFI_PREDICT_FALSE(result.is_err())) result.ThrowError();
      return AnyUnsafe::CopyFromAnyViewAfterCheck<T>(result.data_);
    }
  }
};

/*! \brief TypeTraits<T>, with None standing for void. */
template <typename T>
using ExpectedValueTraits = TypeTraits<std::conditional_t<std::is_void_v<T>, std::nullptr_t, T>>;
}  // namespace detail

template <typename T>
inline constexpr bool use_default_type_traits_v<Expected<T>> = false;

/*! \brief An Expected converts as its value or as its Error. */
template <typename T>
struct TypeTraits<Expected<T>> : public TypeTraitsBase {
  using ValueTraits = detail::ExpectedValueTraits<T>;

  static void CopyToAnyView(const Expected<T>& src, TVMFFIAny* result) {
    const TVMFFIAny* raw =
        detail::AnyUnsafe::TVMFFIAnyPtrFromAny(detail::ExpectedUnsafe::GetData(src));
    *result = *raw;  // a view: no reference taken
  }
  static void MoveToAny(Expected<T> src, TVMFFIAny* result) {
    *result = detail::ExpectedUnsafe::MoveToTVMFFIAny(std::move(src));
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return ValueTraits::CheckAnyStrict(src) || src->type_index == TypeIndex::kTVMFFIError;
  }
  static Expected<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIError) {
      return TypeTraits<Error>::CopyFromAnyViewAfterCheck(src);
    }
    return FromValue(ValueTraits::CopyFromAnyViewAfterCheck(src));
  }
  static Expected<T> MoveFromAnyAfterCheck(TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIError) {
      return TypeTraits<Error>::MoveFromAnyAfterCheck(src);
    }
    return FromValue(ValueTraits::MoveFromAnyAfterCheck(src));
  }
  static std::optional<Expected<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIError) {
      return Expected<T>(TypeTraits<Error>::CopyFromAnyViewAfterCheck(src));
    }
    if (auto value = ValueTraits::TryCastFromAnyView(src)) return FromValue(*std::move(value));
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    return ValueTraits::GetMismatchTypeInfo(src);
  }
  static std::string TypeStr() {
    if constexpr (std::is_void_v<T>) {
      return "Expected<void>";
    } else if constexpr (std::is_same_v<T, Any>) {
      return "Expected<Any>";
    } else {
      return "Expected<" + TypeTraits<T>::TypeStr() + ">";
    }
  }

 private:
  template <typename V>
  static Expected<T> FromValue(V&& value) {
    if constexpr (std::is_void_v<T>) {
      return Expected<void>();
    } else {
      return Expected<T>(T(std::forward<V>(value)));
    }
  }
};

namespace detail {
/*!
 * \brief The error TVM_FFI_UNEXPECTED builds: stream the message in (any
 *        ostream manipulator works), then it becomes an Unexpected<Error> or
 *        an Expected<T> holding the error. Its backtrace is the one line of
 *        the place that built it (no stack walk). Only a temporary converts,
 *        so a builder cannot be used twice.
 */
class UnexpectedBuilder {
 public:
  UnexpectedBuilder(const char* kind, const char* file, int line, const char* function)
      : kind_(kind), file_(file), line_(line), function_(function) {}

  template <typename V>
  UnexpectedBuilder&& operator<<(V&& value) && {
    message_ << std::forward<V>(value);
    return std::move(*this);
  }
  UnexpectedBuilder&& operator<<(std::ostream& (*manipulator)(std::ostream&)) && {
    manipulator(message_);
    return std::move(*this);
  }

  operator Unexpected<Error>() && {  // NOLINT(google-explicit-constructor)
    std::string where = "  File \"" + std::string(file_) + "\", line " + std::to_string(line_) +
                        ", in " + function_ + "\n";
    return Unexpected(Error(kind_, message_.str(), where));
  }
  // Direct, as `return TVM_FFI_UNEXPECTED(...)` may not chain two conversions.
  template <typename T>
  operator Expected<T>() && {  // NOLINT(google-explicit-constructor)
    return static_cast<Unexpected<Error>>(std::move(*this));
  }

 private:
  const char* kind_;
  const char* file_;
  int line_;
  const char* function_;
  std::ostringstream message_;
};
}  // namespace detail

}  // namespace ffi
}  // namespace tvm

/*!
 * \brief An error of ErrorKind as a value, for functions that return
 *        Expected: `return TVM_FFI_UNEXPECTED(ValueError) << "bad " << n;`
 */
#define TVM_FFI_UNEXPECTED(ErrorKind) \
  ::tvm::ffi::detail::UnexpectedBuilder(#ErrorKind, __FILE__, __LINE__, TVM_FFI_FUNC_SIG)

/*!
 * \brief In a function returning Expected: return an ErrorKind error unless
 *        cond holds; stream more of the message after it. A `while` (left at
 *        once by its return), so that it is one statement and an `else`
 *        after it stays with the caller's `if`.
 */
#define TVM_FFI_RET_CHECK(cond, ErrorKind) \
  while (TVM_FFI_PREDICT_FALSE(!(cond)))   \
  return TVM_FFI_UNEXPECTED(ErrorKind) << "Check failed: (" #cond ") is false: "

#define TVM_FFI_RET_CHECK_BINARY_OP_(Name, Op, x, y, ErrorKind)                     \
  while (auto tvm_ffi_ret_check_values_ = ::tvm::ffi::detail::LogCheck##Name(x, y)) \
  return TVM_FFI_UNEXPECTED(ErrorKind)                                              \
         << "Check failed: " #x " " #Op " " #y << *tvm_ffi_ret_check_values_ << " : "

/*! \brief TVM_FFI_RET_CHECK of x Op y; the message shows both values when printable. */
#define TVM_FFI_RET_CHECK_EQ(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(_EQ, ==, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_NE(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(_NE, !=, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_LT(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(_LT, <, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_LE(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(_LE, <=, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_GT(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(_GT, >, x, y, ErrorKind)
#define TVM_FFI_RET_CHECK_GE(x, y, ErrorKind) TVM_FFI_RET_CHECK_BINARY_OP_(_GE, >=, x, y, ErrorKind)

/*! \brief The TVM_FFI_RET_CHECK forms for internal invariants (InternalError). */
#define TVM_FFI_RET_ICHECK(cond) TVM_FFI_RET_CHECK(cond, InternalError)
#define TVM_FFI_RET_ICHECK_EQ(x, y) TVM_FFI_RET_CHECK_EQ(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_NE(x, y) TVM_FFI_RET_CHECK_NE(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_LT(x, y) TVM_FFI_RET_CHECK_LT(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_LE(x, y) TVM_FFI_RET_CHECK_LE(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_GT(x, y) TVM_FFI_RET_CHECK_GT(x, y, InternalError)
#define TVM_FFI_RET_ICHECK_GE(x, y) TVM_FFI_RET_CHECK_GE(x, y, InternalError)

#endif  // TVM_FFI_EXPECTED_H_

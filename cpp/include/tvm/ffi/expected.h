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

namespace details {
struct ExpectedUnsafe;

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
}  // namespace details

/*!
 * \brief Either a T or an Error. T must not be void-qualified or Error itself;
 *        Expected<void> is the specialisation below.
 */
template <typename T>
class Expected : public details::ExpectedStorage {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, Error>,
                "Expected<Error> is ambiguous: use Error directly");

 public:
  Expected(T value) : ExpectedStorage(Any(std::move(value))) {}      // NOLINT(*)
  Expected(Error error) : ExpectedStorage(Any(std::move(error))) {}  // NOLINT(*)
  template <typename E, typename = std::enable_if_t<std::is_base_of_v<Error, std::remove_cv_t<E>>>>
  Expected(Unexpected<E> unexpected)  // NOLINT(*)
      : ExpectedStorage(Any(Error(std::move(unexpected).error()))) {}

  /*! \return The value; throws the held Error otherwise. */
  T value() const& {
    if (TVM_FFI_PREDICT_FALSE(is_err())) ThrowError();
    return details::AnyUnsafe::CopyFromAnyViewAfterCheck<T>(data_);
  }
  T value() && {
    if (TVM_FFI_PREDICT_FALSE(is_err())) std::move(*this).ThrowError();
    return details::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
  }
  /*! \return The value, or `fallback` when an error is held. */
  template <typename U = std::remove_cv_t<T>>
  T value_or(U&& fallback) const& {
    if (is_ok()) return details::AnyUnsafe::CopyFromAnyViewAfterCheck<T>(data_);
    return T(std::forward<U>(fallback));
  }
  template <typename U = std::remove_cv_t<T>>
  T value_or(U&& fallback) && {
    if (is_ok()) return details::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
    return T(std::forward<U>(fallback));
  }

 private:
  Expected() = default;
  friend struct details::ExpectedUnsafe;
};

/*! \brief Success (None held) or an Error. */
template <>
class Expected<void> : public details::ExpectedStorage {
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

namespace details {
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
}  // namespace details

template <typename T>
inline constexpr bool use_default_type_traits_v<Expected<T>> = false;

/*! \brief An Expected converts as its value or as its Error. */
template <typename T>
struct TypeTraits<Expected<T>> : public TypeTraitsBase {
  using ValueTraits = details::ExpectedValueTraits<T>;

  static void CopyToAnyView(const Expected<T>& src, TVMFFIAny* result) {
    const TVMFFIAny* raw =
        details::AnyUnsafe::TVMFFIAnyPtrFromAny(details::ExpectedUnsafe::GetData(src));
    *result = *raw;  // a view: no reference taken
  }
  static void MoveToAny(Expected<T> src, TVMFFIAny* result) {
    *result = details::ExpectedUnsafe::MoveToTVMFFIAny(std::move(src));
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

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXPECTED_H_

/*
 * tvmffi C++ layer: Unchanged and UnchangedOr<T>, the results of structural
 * mutation (upstream 0.1.15 declares them in extra/structural_mutate.h, which
 * includes this file).
 *
 * Unchanged is a payload-free marker (type index kTVMFFIUnchanged) meaning
 * "keep the original value"; UnchangedOr<T> holds a replacement T or the
 * marker in one Any, so it crosses the ABI as that Any.
 */
#ifndef TVM_FFI_EXTRA_UNCHANGED_OR_H_
#define TVM_FFI_EXTRA_UNCHANGED_OR_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/expected.h>
#include <tvm/ffi/object.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

template <typename T>
class UnchangedOr;

/*! \brief The result "keep the original value" (no payload). */
struct Unchanged {
  /*! \return The marker as a raw value (nothing to own). */
  TVM_FFI_INLINE TVMFFIAny CopyToTVMFFIAny() const noexcept {
    TVMFFIAny raw;
    raw.type_index = TypeIndex::kTVMFFIUnchanged;
    raw.zero_padding = 0;
    raw.v_int64 = 0;
    return raw;
  }
  TVM_FFI_INLINE operator Any() const noexcept {  // NOLINT(google-explicit-constructor)
    return detail::AnyUnsafe::MoveTVMFFIAnyRawToAny(CopyToTVMFFIAny());
  }
};

namespace detail {
struct UnchangedOrUnsafe;
template <typename T>
inline constexpr bool is_unchanged_or_v = false;
template <typename T>
inline constexpr bool is_unchanged_or_v<UnchangedOr<T>> = true;
}  // namespace detail

/*!
 * \brief A mutation's result: a replacement T, or Unchanged (keep the
 *        original). Its value leaves it once, by move (the accessors are
 *        rvalue-qualified): `std::move(r).ValueOrUnchanged(original)`.
 * \note A replacement may be the original object itself (changed in place):
 *       UnchangedOrSameAs tests identity, not contents.
 */
template <typename T>
class UnchangedOr {
  static_assert(!std::is_base_of_v<Error, std::remove_cv_t<T>>,
                "UnchangedOr<Error>: an error belongs in the Expected around it");

 public:
  UnchangedOr(Unchanged unchanged) noexcept : data_(Any(unchanged)) {}  // NOLINT(*)
  UnchangedOr(T value) : data_(Any(std::move(value))) {}                // NOLINT(*)
  /*! \brief A value implicitly convertible to T. */
  template <
      typename U,
      typename = std::enable_if_t<
          !std::is_same_v<std::decay_t<U>, Unchanged> && !std::is_same_v<std::decay_t<U>, T> &&
          !detail::is_unchanged_or_v<std::decay_t<U>> && !detail::is_expected_v<std::decay_t<U>> &&
          !detail::is_unexpected_v<std::decay_t<U>> && !std::is_base_of_v<Error, std::decay_t<U>> &&
          std::is_convertible_v<U, T>>>
  UnchangedOr(U&& value) : data_(Any(T(std::forward<U>(value)))) {}  // NOLINT(*)
  /*!
   * \brief From a result of another type: the storage (marker included) is
   *        taken as is when a U is a T, else the replacement is converted.
   */
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, T> &&
                                        (type_subsumes_v<T, U> || std::is_convertible_v<U, T>)>>
  UnchangedOr(UnchangedOr<U> other)  // NOLINT(*)
      : data_(Convert(std::move(other))) {}

  UnchangedOr(const UnchangedOr&) = default;
  UnchangedOr(UnchangedOr&&) noexcept = default;
  UnchangedOr& operator=(const UnchangedOr&) = default;
  UnchangedOr& operator=(UnchangedOr&&) noexcept = default;

  /*! \return Whether this is the Unchanged marker. */
  TVM_FFI_INLINE bool IsUnchanged() const& noexcept {
    return data_.type_index() == TypeIndex::kTVMFFIUnchanged;
  }
  /*! \return Whether the original may be kept: Unchanged, or the same value as `original`. */
  TVM_FFI_INLINE bool UnchangedOrSameAs(const T& original) const& noexcept {
    if (IsUnchanged()) return true;
    if constexpr (std::is_same_v<T, Any>) {
      return data_.same_as(original);
    } else if constexpr (std::is_base_of_v<ObjectRef, T>) {
      return data_.same_as(static_cast<const ObjectRef&>(original));
    } else {
      return data_.same_as(Any(original));
    }
  }
  /*! \return The replacement, or a copy of `original` (left as is) when unchanged. */
  TVM_FFI_INLINE T ValueOrUnchanged(const T& original) && {
    if (IsUnchanged()) return original;
    return detail::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
  }
  /*! \return The replacement, or `original` (moved from only then) when unchanged. */
  TVM_FFI_INLINE T ValueOrUnchanged(T&& original) && {
    if (IsUnchanged()) return std::move(original);
    return detail::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
  }
  /*! \return For UnchangedOr<Any>: the replacement, or `original` owned. */
  template <typename U = T, typename = std::enable_if_t<std::is_same_v<U, Any>>>
  TVM_FFI_INLINE Any ValueOrUnchanged(AnyView original) && {
    if (IsUnchanged()) return Any(original);
    return std::move(data_);
  }
  /*! \return The replacement. \pre !IsUnchanged(). */
  TVM_FFI_INLINE T ValueUnchecked() && {
    return detail::AnyUnsafe::MoveFromAnyAfterCheck<T>(std::move(data_));
  }
  /*! \return The stored result as U (an exact type check, as Any::as); nullopt otherwise. */
  template <typename U,
            typename = std::enable_if_t<TypeTraits<U>::storage_enabled || std::is_same_v<U, Any>>>
  TVM_FFI_INLINE std::optional<U> as() && {
    return std::move(data_).template as<U>();
  }
  /*! \return The stored result as U; TypeError otherwise. */
  template <typename U,
            typename = std::enable_if_t<TypeTraits<U>::storage_enabled || std::is_same_v<U, Any>>>
  TVM_FFI_INLINE U as_or_throw() && {
    return std::move(data_).template as_or_throw<U>();
  }

 private:
  struct UnsafeInit {};
  UnchangedOr(UnsafeInit, Any data) noexcept : data_(std::move(data)) {}
  template <typename U>
  static Any Convert(UnchangedOr<U>&& other) {
    if constexpr (type_subsumes_v<T, U>) {
      return std::move(other.data_);
    } else {
      if (other.IsUnchanged()) return std::move(other.data_);
      return Any(T(std::move(other).ValueUnchecked()));
    }
  }

  template <typename>
  friend class UnchangedOr;
  friend struct detail::UnchangedOrUnsafe;
  template <typename, typename>
  friend struct TypeTraits;

  Any data_;  // a T, or the Unchanged marker
};

namespace detail {
/*! \brief An UnchangedOr<U> is an UnchangedOr<T> as is when a U is a T. */
template <typename T, typename U>
struct TypeSubsumes<UnchangedOr<T>, UnchangedOr<U>> : TypeSubsumes<T, U> {};

/*! \brief Raw moves between UnchangedOr and its storage. */
struct UnchangedOrUnsafe {
  /*! \brief Take over `raw` (a T or the marker). */
  template <typename T>
  TVM_FFI_INLINE static UnchangedOr<T> MoveFromTVMFFIAny(TVMFFIAny raw) {
    return UnchangedOr<T>(typename UnchangedOr<T>::UnsafeInit{},
                          AnyUnsafe::MoveTVMFFIAnyRawToAny(raw));
  }
  template <typename T>
  TVM_FFI_INLINE static TVMFFIAny MoveToTVMFFIAny(UnchangedOr<T>&& result) noexcept {
    return AnyUnsafe::MoveAnyToTVMFFIAny(std::move(result.data_));
  }
};
}  // namespace detail

template <typename T>
inline constexpr bool use_default_type_traits_v<UnchangedOr<T>> = false;

/*! \brief An UnchangedOr converts as its replacement or as the Unchanged marker. */
template <typename T>
struct TypeTraits<UnchangedOr<T>> : public TypeTraitsBase {
  static void CopyToAnyView(const UnchangedOr<T>& src, TVMFFIAny* result) {
    *result = *detail::AnyUnsafe::TVMFFIAnyPtrFromAny(src.data_);  // a view: no reference
  }
  static void MoveToAny(UnchangedOr<T> src, TVMFFIAny* result) {
    *result = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(src.data_));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if constexpr (std::is_same_v<T, Any>) {
      return src->type_index != TypeIndex::kTVMFFIError;
    } else {
      return src->type_index == TypeIndex::kTVMFFIUnchanged || TypeTraits<T>::CheckAnyStrict(src);
    }
  }
  static UnchangedOr<T> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIUnchanged) return Unchanged();
    if constexpr (std::is_same_v<T, Any>) {
      return UnchangedOr<T>(Any(AnyView::CopyFromTVMFFIAny(*src)));
    } else {
      return UnchangedOr<T>(TypeTraits<T>::CopyFromAnyViewAfterCheck(src));
    }
  }
  static UnchangedOr<T> MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return UnchangedOr<T>(typename UnchangedOr<T>::UnsafeInit{},
                          detail::AnyUnsafe::MoveTVMFFIAnyToAny(src));
  }
  static std::optional<UnchangedOr<T>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    if constexpr (!std::is_same_v<T, Any>) {
      if (std::optional<T> v = TypeTraits<T>::TryCastFromAnyView(src)) {
        return UnchangedOr<T>(*std::move(v));
      }
    }
    return std::nullopt;
  }
  static std::string TypeStr() {
    if constexpr (std::is_same_v<T, Any>) {
      return "UnchangedOr<Any>";
    } else {
      return "UnchangedOr<" + TypeTraits<T>::TypeStr() + ">";
    }
  }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_UNCHANGED_OR_H_

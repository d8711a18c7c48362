/*
 * tvmffi C++ layer: Optional<T>.
 *
 * - T an ObjectRef, ObjectPtr or Arc: one nullable pointer (null means empty).
 * - T any other type an Any can hold: one Any cell (None means empty), as upstream.
 * - otherwise (views such as TensorView): a std::optional<T>.
 * In Any, an empty Optional is None. Typed functions also accept std::optional<T>.
 */
#ifndef TVM_FFI_OPTIONAL_H_
#define TVM_FFI_OPTIONAL_H_

#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace tvm {
namespace ffi {

class AnyView;

template <typename T>
inline constexpr bool is_optional_type_v = false;
template <typename T>
inline constexpr bool is_optional_type_v<Optional<T>> = true;

/*! \brief Whether Optional<T> is a nullable reference. */
template <typename T>
inline constexpr bool use_ptr_based_optional_v =
    std::is_base_of_v<ObjectRef, T> && !is_optional_type_v<T>;
/*! \brief Upstream's name of use_ptr_based_optional_v. */
template <typename T>
inline constexpr bool use_object_ref_optional_v = use_ptr_based_optional_v<T>;

/*! \brief Whether T is an ObjectPtr<O> or an Arc<O> (Optional<T> is then a nullable pointer). */
template <typename T>
inline constexpr bool is_object_pointer_v = false;
template <typename O>
inline constexpr bool is_object_pointer_v<ObjectPtr<O>> = true;
template <typename O>
inline constexpr bool is_object_pointer_v<Arc<O>> = true;

/*! \brief Whether Optional<T> is one nullable pointer (an ObjectRef, ObjectPtr or Arc). */
template <typename T>
inline constexpr bool use_object_ptr_optional_v =
    use_ptr_based_optional_v<T> || is_object_pointer_v<T>;

namespace detail {
template <typename Opt, typename T>
struct OptionalTraitsBase;

[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowEmptyOptionalAccess() {
  TVM_FFI_THROW(RuntimeError) << "value() called on an empty Optional";
}
/*! \brief Optional<T>::as_or_throw<U>(): the value (None when empty) strictly as U (any.h). */
template <typename U, typename Opt>
U OptionalAsOrThrow(const Opt& opt);
}  // namespace detail

/*!
 * \brief as_or_throw<U>() of every Optional (upstream 0.1.15): the stored value
 *        (None when empty) as U when it is stored as a U (no conversion), else a
 *        TypeError. On an rvalue, success leaves the Optional empty and failure
 *        leaves it as it was.
 */
#define TVM_FFI_OPTIONAL_AS_OR_THROW_                           \
  template <typename U>                                         \
  U as_or_throw() const& {                                      \
    return ::tvm::ffi::detail::OptionalAsOrThrow<U>(*this);     \
  }                                                             \
  template <typename U>                                         \
  U as_or_throw()&& {                                           \
    U result = ::tvm::ffi::detail::OptionalAsOrThrow<U>(*this); \
    *this = std::nullopt;                                       \
    return result;                                              \
  }

/*!
 * \brief Optional of a type that cannot live in an Any (a view such as TensorView):
 *        a std::optional inside.
 */
template <typename T>
class Optional<T,
               std::enable_if_t<!TypeTraits<T>::storage_enabled && !use_object_ptr_optional_v<T>>> {
 public:
  /*! \brief The type held (upstream 0.1.15). */
  using value_type = T;
  TVM_FFI_OPTIONAL_AS_OR_THROW_
  Optional() = default;
  Optional(std::nullopt_t) noexcept {}  // NOLINT(*)
  Optional(T value) {                   // NOLINT(*)
    if (!IsEmptyInner(value)) data_ = std::move(value);
  }
  Optional(std::optional<T> value) {  // NOLINT(*)
    if (value.has_value() && !IsEmptyInner(*value)) data_ = std::move(value);
  }
  Optional& operator=(T value) {
    if (IsEmptyInner(value)) {
      data_.reset();
    } else {
      data_ = std::move(value);
    }
    return *this;
  }
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }

  bool has_value() const noexcept { return data_.has_value(); }
  explicit operator bool() const noexcept { return has_value(); }
  const T& value() const& {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return *data_;
  }
  T&& value() && {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return *std::move(data_);
  }
  template <typename U>
  T value_or(U&& default_value) const {
    return data_.value_or(std::forward<U>(default_value));
  }
  const T& operator*() const& noexcept { return *data_; }
  T&& operator*() && noexcept { return *std::move(data_); }
  const T* operator->() const noexcept { return &*data_; }
  // A template, so that converting to another type does not instantiate
  // std::optional<T> just to rule this conversion out.
  template <typename U, std::enable_if_t<std::is_same_v<U, T>, int> = 0>
  operator std::optional<U>() const {  // NOLINT(*)
    return data_;
  }

  bool operator==(std::nullopt_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullopt_t) const noexcept { return has_value(); }
  bool operator==(const Optional& other) const { return data_ == other.data_; }
  bool operator!=(const Optional& other) const { return data_ != other.data_; }
  bool operator==(const T& other) const { return has_value() && *data_ == other; }
  bool operator!=(const T& other) const { return !(*this == other); }

 private:
  // As upstream: an Optional holding an empty Optional is empty itself (both
  // are None in an Any, so the two states could not survive a round trip).
  static bool IsEmptyInner([[maybe_unused]] const T& value) noexcept {
    if constexpr (is_optional_type_v<T>) {
      return !value.has_value();
    } else {
      return false;
    }
  }

  std::optional<T> data_;
};

namespace detail {
/*! \brief Any, named through T so that optional.h needs only Any's declaration. */
struct AnyUnsafe;
template <typename T>
struct AnyCellOf {
  using type = Any;
  using view = AnyView;
  using unsafe = AnyUnsafe;
};
/*! \brief Whether Optional<T> takes U as text directly (T String or Bytes). */
template <typename T, typename U>
inline constexpr bool optional_takes_text_v =
    (std::is_same_v<T, String> ||
     std::is_same_v<T, Bytes>)&&(std::is_same_v<U, std::string> ||
                                 std::is_convertible_v<const U&, const char*>);
}  // namespace detail

/*!
 * \brief Optional of a value an Any can hold (numbers, String, Bytes, DataType,
 *        containers' elements, nested Optionals): one Any cell, None when empty.
 *
 * The layout is an Any's whatever T is, the same as passing the value through the
 * FFI. None is the empty state, so an Optional<Optional<T>> holding an empty
 * inner Optional is empty itself.
 */
template <typename T>
class Optional<T,
               std::enable_if_t<TypeTraits<T>::storage_enabled && !use_object_ptr_optional_v<T>>> {
  using Cell = typename detail::AnyCellOf<T>::type;
  using Unsafe = typename detail::AnyCellOf<T>::unsafe;

 public:
  /*! \brief The type held (upstream 0.1.15). */
  using value_type = T;
  TVM_FFI_OPTIONAL_AS_OR_THROW_
  Optional() = default;
  Optional(std::nullopt_t) noexcept {}              // NOLINT(*)
  Optional(std::nullptr_t) noexcept {}              // NOLINT(*)
  Optional(const T& value) : data_(value) {}        // NOLINT(*)
  Optional(T&& value) : data_(std::move(value)) {}  // NOLINT(*)
  template <typename U, std::enable_if_t<std::is_convertible_v<U, T>, int> = 0>
  Optional(std::optional<U> value) {  // NOLINT(*)
    if (value.has_value()) data_ = Cell(T(*std::move(value)));
  }
  /*! \brief Optional<String> / Optional<Bytes> straight from text. */
  template <typename U, std::enable_if_t<detail::optional_takes_text_v<T, U>, int> = 0>
  Optional(const U& text) : data_(T(text)) {}  // NOLINT(*)

  Optional& operator=(T value) {
    data_ = Cell(std::move(value));
    return *this;
  }
  // Exact matches, so `opt = "text"` does not choose between two conversions.
  template <typename U, std::enable_if_t<detail::optional_takes_text_v<T, U>, int> = 0>
  Optional& operator=(const U& text) {
    return *this = T(text);
  }
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    data_.reset();
    return *this;
  }

  bool has_value() const noexcept { return data_.type_index() != TypeIndex::kTVMFFINone; }
  explicit operator bool() const noexcept { return has_value(); }
  /*! \brief The value, decoded from the cell (a copy: the cell holds it as an Any does). */
  T value() const& {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return **this;
  }
  /*! \brief Moves the value out: the Optional is empty afterwards. */
  T value() && {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return *std::move(*this);
  }
  template <typename U>
  T value_or(U&& default_value) const {
    return has_value() ? **this : T(std::forward<U>(default_value));
  }
  /*! \brief The value (unchecked: call only when has_value()). */
  T operator*() const& { return Unsafe::template CopyFromAnyViewAfterCheck<T>(data_); }
  T operator*() && {
    T out = Unsafe::template MoveFromAnyAfterCheck<T>(std::move(data_));
    data_.reset();
    return out;
  }
  /*! \brief `opt->member()` on the decoded copy (unchecked, as operator*). */
  struct ArrowProxy {
    T value;
    const T* operator->() const noexcept { return &value; }
  };
  ArrowProxy operator->() const { return ArrowProxy{**this}; }
  /*! \brief The value as U, strictly (no conversion), as Any::as<U>(). */
  template <typename U>
  auto as() const {
    return data_.template as<U>();
  }
  // A template, so that converting to another type does not instantiate
  // std::optional<T> just to rule this conversion out.
  template <typename U, std::enable_if_t<std::is_same_v<U, T>, int> = 0>
  operator std::optional<U>() const {  // NOLINT(*)
    return has_value() ? std::optional<T>(**this) : std::nullopt;
  }

  bool operator==(std::nullopt_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullopt_t) const noexcept { return has_value(); }
  bool operator==(std::nullptr_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullptr_t) const noexcept { return has_value(); }
  bool operator==(const Optional& other) const {
    if (!has_value() || !other.has_value()) return has_value() == other.has_value();
    return **this == *other;
  }
  bool operator!=(const Optional& other) const { return !(*this == other); }
  template <typename U,
            std::enable_if_t<!is_optional_type_v<U> && !std::is_same_v<U, std::nullopt_t> &&
                                 !std::is_same_v<U, std::nullptr_t>,
                             int> = 0>
  bool operator==(const U& other) const {
    return has_value() && **this == other;
  }
  template <typename U,
            std::enable_if_t<!is_optional_type_v<U> && !std::is_same_v<U, std::nullopt_t> &&
                                 !std::is_same_v<U, std::nullptr_t>,
                             int> = 0>
  bool operator!=(const U& other) const {
    return !(*this == other);
  }
  /*! \brief Whether both hold the same cell (the same object, or equal plain values). */
  bool same_as(const Optional& other) const noexcept { return data_.same_as(other.data_); }

 private:
  template <typename, typename>
  friend struct detail::OptionalTraitsBase;
  Cell data_;
};

/*!
 * \brief Optional of an object reference: one nullable ObjectPtr (null means
 *        empty), the layout of an ObjectRef. As upstream 0.1.15 it is not an
 *        ObjectRef itself: take the reference out with value() or `*`, or use
 *        the pointer-like members below.
 */
template <typename T>
class Optional<T, std::enable_if_t<use_ptr_based_optional_v<T>>> {
 public:
  /*! \brief The type held (upstream 0.1.15). */
  using value_type = T;
  using ContainerType = typename T::ContainerType;
  TVM_FFI_OPTIONAL_AS_OR_THROW_

  Optional() noexcept = default;
  Optional(const Optional&) noexcept = default;
  Optional(Optional&&) noexcept = default;
  Optional& operator=(const Optional&) = default;
  Optional& operator=(Optional&&) = default;
  /*! \brief An empty Optional (for ObjectUnsafe::ObjectRefFromObjectPtr). */
  explicit Optional(UnsafeInit) noexcept {}
  Optional(std::nullopt_t) noexcept {}  // NOLINT(*)
  Optional(std::nullptr_t) noexcept {}  // NOLINT(*)
  Optional(T value) noexcept            // NOLINT(*)
      : data_(detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(std::move(value))) {}
  template <typename U, std::enable_if_t<std::is_convertible_v<U, T>, int> = 0>
  Optional(std::optional<U> value) {  // NOLINT(*)
    if (value.has_value()) *this = T(*std::move(value));
  }
  /*! \brief From a reference to a subtype (e.g. Optional<ObjectRef> from a Function). */
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U> && !std::is_same_v<T, U> &&
                                             !is_optional_type_v<U>,
                                         int> = 0>
  Optional(U value) noexcept  // NOLINT(*)
      : data_(detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(std::move(value))) {}
  Optional& operator=(T value) noexcept {
    data_ = detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(std::move(value));
    return *this;
  }
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    data_.reset();
    return *this;
  }

  bool has_value() const noexcept { return data_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  T value() const& {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<T>(data_);
  }
  T value() && {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<T>(std::move(data_));
  }
  template <typename U>
  T value_or(U&& default_value) const {
    return has_value() ? detail::ObjectUnsafe::ObjectRefFromObjectPtr<T>(data_)
                       : T(std::forward<U>(default_value));
  }
  /*! \brief The value (unchecked: call only when has_value()). */
  T operator*() const& noexcept { return detail::ObjectUnsafe::ObjectRefFromObjectPtr<T>(data_); }
  T operator*() && noexcept {
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<T>(std::move(data_));
  }
  /*! \brief The object, null when empty. */
  const ContainerType* get() const noexcept {
    return static_cast<const ContainerType*>(data_.get());
  }
  const ContainerType* operator->() const noexcept { return get(); }
  /*! \brief The value strictly as U (no conversion), as Any::as<U>(); None when empty. */
  template <typename U>
  auto as() const {
    return typename detail::AnyCellOf<U>::view(*this).template as<U>();
  }
  /*! \brief Code written for upstream's `std::optional<Function> GetGlobal(...)` keeps working. */
  // A template, so that converting to another type does not instantiate
  // std::optional<T> just to rule this conversion out.
  template <typename U, std::enable_if_t<std::is_same_v<U, T>, int> = 0>
  operator std::optional<U>() const {  // NOLINT(*)
    return has_value() ? std::optional<T>(**this) : std::nullopt;
  }

  bool operator==(std::nullopt_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullopt_t) const noexcept { return has_value(); }
  bool operator==(std::nullptr_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullptr_t) const noexcept { return has_value(); }
  /*! \brief Two empties are equal; two values compare as T does (the same object at least). */
  template <
      typename O,
      std::enable_if_t<std::is_same_v<O, Optional> || std::is_same_v<O, std::optional<T>>, int> = 0>
  auto operator==(const O& other) const {
    using Result = decltype(std::declval<const T&>() == std::declval<const T&>());
    if (!has_value() || !other.has_value()) return Result(has_value() == other.has_value());
    if (data_.get() == OtherObject(*other)) return Result(true);
    return **this == *other;
  }
  template <
      typename O,
      std::enable_if_t<std::is_same_v<O, Optional> || std::is_same_v<O, std::optional<T>>, int> = 0>
  auto operator!=(const O& other) const {
    return !(*this == other);
  }
  /*! \brief A value compares as T does; an empty Optional equals no value. */
  template <
      typename U,
      std::enable_if_t<!is_optional_type_v<U> && !std::is_same_v<U, std::optional<T>> &&
                           !std::is_same_v<U, std::nullopt_t> && !std::is_same_v<U, std::nullptr_t>,
                       int> = 0>
  auto operator==(const U& other) const {
    using Result = decltype(std::declval<const T&>() == other);
    if (!has_value()) return Result(false);
    if constexpr (std::is_base_of_v<ObjectRef, U>) {
      if (data_.get() == other.get()) return Result(true);
    }
    return **this == other;
  }
  template <
      typename U,
      std::enable_if_t<!is_optional_type_v<U> && !std::is_same_v<U, std::optional<T>> &&
                           !std::is_same_v<U, std::nullopt_t> && !std::is_same_v<U, std::nullptr_t>,
                       int> = 0>
  auto operator!=(const U& other) const {
    return !(*this == other);
  }
  /*! \brief Whether both hold the same object (or both are empty). */
  bool same_as(const Optional& other) const noexcept { return data_ == other.data_; }
  /*! \brief Whether this holds other's object (or is empty and other null). */
  bool same_as(const ObjectRef& other) const noexcept { return data_.get() == other.get(); }
  /*! \brief Whether this is the only strong reference to its object. */
  bool unique() const noexcept { return data_.unique(); }
  /*! \brief The object's strong reference count, 0 when empty. */
  int use_count() const noexcept { return data_.use_count(); }

 private:
  template <typename R>
  static const Object* OtherObject(const R& ref) noexcept {
    return ref.get();
  }
  friend struct detail::ObjectUnsafe;
  ObjectPtr<Object> data_;
};

/*!
 * \brief Optional<ObjectPtr<O>> / Optional<Arc<O>>: one pointer, null when empty
 *        (so a null ObjectPtr makes an empty Optional, as in an Any).
 */
template <typename T>
class Optional<T, std::enable_if_t<is_object_pointer_v<T>>> {
  using Obj = std::remove_pointer_t<decltype(std::declval<const T&>().get())>;

 public:
  /*! \brief The type held (upstream 0.1.15). */
  using value_type = T;
  TVM_FFI_OPTIONAL_AS_OR_THROW_
  Optional() noexcept = default;
  Optional(std::nullopt_t) noexcept {}                     // NOLINT(*)
  Optional(std::nullptr_t) noexcept {}                     // NOLINT(*)
  Optional(T value) noexcept : data_(std::move(value)) {}  // NOLINT(*)
  /*! \brief From a pointer that converts to T (a derived Arc or ObjectPtr). */
  template <typename U, std::enable_if_t<is_object_pointer_v<U> && !std::is_same_v<U, T> &&
                                             std::is_convertible_v<U, T>,
                                         int> = 0>
  Optional(U value) noexcept : data_(T(std::move(value))) {}  // NOLINT(*)
  template <typename U, std::enable_if_t<std::is_convertible_v<U, T>, int> = 0>
  Optional(std::optional<U> value) {  // NOLINT(*)
    if (value.has_value()) data_ = T(*std::move(value));
  }
  Optional& operator=(T value) noexcept {
    data_ = std::move(value);
    return *this;
  }
  Optional& operator=(std::nullopt_t) noexcept {
    data_.reset();
    return *this;
  }
  Optional& operator=(std::nullptr_t) noexcept {
    data_.reset();
    return *this;
  }

  bool has_value() const noexcept { return data_ != nullptr; }
  explicit operator bool() const noexcept { return has_value(); }
  T value() const& {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return **this;
  }
  /*! \brief Moves the pointer out: the Optional is empty afterwards. */
  T value() && {
    if (!has_value()) detail::ThrowEmptyOptionalAccess();
    return *std::move(*this);
  }
  template <typename U>
  T value_or(U&& default_value) const {
    return has_value() ? **this : T(std::forward<U>(default_value));
  }
  /*! \brief The value (unchecked: call only when has_value()). */
  T operator*() const& noexcept { return Wrap(ObjectPtr<Obj>(data_)); }
  T operator*() && noexcept { return Wrap(std::move(data_)); }
  Obj* get() const noexcept { return data_.get(); }
  Obj* operator->() const noexcept { return data_.get(); }
  // A template, so that converting to another type does not instantiate
  // std::optional<T> just to rule this conversion out.
  template <typename U, std::enable_if_t<std::is_same_v<U, T>, int> = 0>
  operator std::optional<U>() const {  // NOLINT(*)
    return has_value() ? std::optional<T>(**this) : std::nullopt;
  }

  bool operator==(std::nullopt_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullopt_t) const noexcept { return has_value(); }
  bool operator==(std::nullptr_t) const noexcept { return !has_value(); }
  bool operator!=(std::nullptr_t) const noexcept { return has_value(); }

 private:
  static T Wrap(ObjectPtr<Obj> ptr) noexcept {
    if constexpr (std::is_same_v<T, ObjectPtr<Obj>>) {
      return ptr;
    } else {
      return detail::ObjectUnsafe::ArcFromObjectPtr(std::move(ptr));
    }
  }
  ObjectPtr<Obj> data_;
};

// ---------------------------------------------------------------------------
// TypeTraits: an empty optional is None.
// ---------------------------------------------------------------------------

template <typename T>
inline constexpr bool use_default_type_traits_v<Optional<T>> = false;

namespace detail {
template <typename Opt, typename T>
struct OptionalTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = TypeTraits<T>::storage_enabled;
  // An Any-backed Optional lends its cell as is (decoding it first would lend
  // a temporary's storage).
  static constexpr bool kAnyBacked =
      is_optional_type_v<Opt> && TypeTraits<T>::storage_enabled && !use_object_ptr_optional_v<T>;
  TVM_FFI_INLINE static void CopyToAnyView(const Opt& src, TVMFFIAny* result) {
    if constexpr (kAnyBacked) {
      *result = *AnyCellOf<T>::unsafe::TVMFFIAnyPtrFromAny(src.data_);
    } else if (src.has_value()) {
      TypeTraits<T>::CopyToAnyView(*src, result);
    } else {
      SetAnyNone(result);
    }
  }
  TVM_FFI_INLINE static void MoveToAny(Opt src, TVMFFIAny* result) {
    if constexpr (kAnyBacked) {
      *result = AnyCellOf<T>::unsafe::MoveAnyToTVMFFIAny(std::move(src.data_));
    } else if (src.has_value()) {
      TypeTraits<T>::MoveToAny(*std::move(src), result);
    } else {
      SetAnyNone(result);
    }
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFINone || TypeTraits<T>::CheckAnyStrict(src);
  }
  TVM_FFI_INLINE static Opt CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return Opt(std::nullopt);
    return Opt(TypeTraits<T>::CopyFromAnyViewAfterCheck(src));
  }
  TVM_FFI_INLINE static Opt MoveFromAnyAfterCheck(TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return Opt(std::nullopt);
    return Opt(TypeTraits<T>::MoveFromAnyAfterCheck(src));
  }
  TVM_FFI_INLINE static std::optional<Opt> TryCastFromAnyView(const TVMFFIAny* src) {
    std::optional<Opt> result;  // disengaged: no conversion
    if (src->type_index == TypeIndex::kTVMFFINone) {
      result.emplace(std::nullopt);  // converted: an empty optional
    } else if (CheckAnyStrict(src)) {
      result.emplace(TypeTraits<T>::CopyFromAnyViewAfterCheck(src));
    } else if (std::optional<T> value = TypeTraits<T>::TryCastFromAnyView(src)) {
      result.emplace(*std::move(value));
    }
    return result;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    return TypeTraits<T>::GetMismatchTypeInfo(src);
  }
  /*! \brief "Optional<T>", as upstream 0.1.15 spells it (std::optional<T> too). */
  static std::string TypeStr() { return "Optional<" + TypeTraits<T>::TypeStr() + ">"; }
  /*! \brief For a T whose traits have a schema (as upstream, a nullable ObjectPtr's nests). */
  static std::string TypeSchema() {
    return R"({"type":"Optional","args":[)" + TypeTraits<T>::TypeSchema() + "]}";
  }
};

/*! \brief T of Optional<T> / std::optional<T>; void for anything else. */
template <typename T>
struct OptionalInner {
  using type = void;
};
template <typename T>
struct OptionalInner<Optional<T>> {
  using type = T;
};
template <typename T>
struct OptionalInner<std::optional<T>> {
  using type = T;
};

/*! \brief Whether TypeTraits<T> describes itself with a TypeSchema() (containers do). */
template <typename T, typename = void>
struct HasTypeSchema : std::false_type {};
template <typename T>
struct HasTypeSchema<T, std::void_t<decltype(TypeTraits<T>::TypeSchema())>> : std::true_type {};

}  // namespace detail

template <typename T>
struct TypeTraits<Optional<T>> : public detail::OptionalTraitsBase<Optional<T>, T> {};

template <typename T>
struct TypeTraits<std::optional<T>> : public detail::OptionalTraitsBase<std::optional<T>, T> {
  static constexpr bool storage_enabled = false;
};

}  // namespace ffi
}  // namespace tvm
#undef TVM_FFI_OPTIONAL_AS_OR_THROW_
#endif  // TVM_FFI_OPTIONAL_H_

/*
 * tvmffi C++ layer: Variant<Types...>, a value that holds one of several
 * FFI types, stored as a single Any (sizeof(Variant) == sizeof(Any)).
 *
 *   Variant<int64_t, String> v = String("x");
 *   v.as<String>();   // std::optional<String>: exact type only
 *   v.get<int64_t>(); // throws TypeError "Cannot convert from type `str` to `int`"
 *
 * Converting an Any to a Variant accepts a value that is exactly one of the
 * alternatives first; otherwise it tries the alternatives' conversions in
 * declaration order (so Variant<int64_t, double> keeps 1 as int and turns
 * true into 1).
 */
#ifndef TVM_FFI_CONTAINER_VARIANT_H_
#define TVM_FFI_CONTAINER_VARIANT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_detail.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

namespace detail {
/*!
 * \brief Which alternative a C++ value of type T is stored as: the first
 *        alternative that is T itself, else the first that can share T's
 *        storage, else the first constructible from T; -1 when none.
 */
template <typename T, typename... Vs>
constexpr int VariantSelect() {
  using U = remove_cvref_t<T>;
  constexpr bool same[] = {std::is_same_v<U, Vs>..., false};
  constexpr bool subsumes[] = {type_subsumes_v<Vs, U>..., false};
  constexpr bool constructible[] = {std::is_constructible_v<Vs, T>..., false};
  for (size_t i = 0; i < sizeof...(Vs); ++i) {
    if (same[i]) return static_cast<int>(i);
  }
  for (size_t i = 0; i < sizeof...(Vs); ++i) {
    if (subsumes[i]) return static_cast<int>(i);
  }
  for (size_t i = 0; i < sizeof...(Vs); ++i) {
    if (constructible[i]) return static_cast<int>(i);
  }
  return -1;
}
}  // namespace detail

template <typename... Types>
class Variant {
 public:
  static_assert(sizeof...(Types) > 0, "Variant<> needs at least one alternative");
  static_assert(detail::all_storage_enabled_v<Types...>,
                "Variant<...>: every alternative must be storable in an Any");

  /*! \brief Whether a T can be stored in this variant. */
  template <typename T>
  static constexpr bool variant_contains_v = detail::VariantSelect<T, Types...>() >= 0;
  /*! \brief Not a reference to one exact object type (see ObjectRef). */
  static constexpr bool _type_container_is_exact = false;

  Variant(const Variant&) = default;
  Variant(Variant&&) noexcept = default;
  Variant& operator=(const Variant&) = default;
  Variant& operator=(Variant&&) noexcept = default;

  /*! \brief Store a value as the alternative it selects (see detail::VariantSelect). */
  template <typename T, typename = std::enable_if_t<!std::is_same_v<detail::remove_cvref_t<T>,
                                                                    Variant> &&
                                                    variant_contains_v<T>>>
  Variant(T&& value)  // NOLINT(*)
      : data_(Selected<T>(std::forward<T>(value))) {}
  template <typename T,
            typename = std::enable_if_t<!std::is_same_v<detail::remove_cvref_t<T>, Variant> &&
                                        variant_contains_v<T>>>
  Variant& operator=(T&& value) {
    data_ = Selected<T>(std::forward<T>(value));
    return *this;
  }

  /*! \return The value as T when it holds exactly a T (no conversion), else nullopt. */
  template <typename T, typename = std::enable_if_t<!is_object_subclass_v<T>>>
  std::optional<T> as() const {
    return data_.as<T>();
  }
  /*! \return The object as `const T*` when it is a T (or subclass), else nullptr. */
  template <typename T, typename = std::enable_if_t<is_object_subclass_v<T>>, typename = void>
  const T* as() const {
    return data_.as<T>();
  }
  /*! \return The value converted to T; TypeError when it does not convert. */
  template <typename T>
  T get() const& {
    return data_.cast<T>();
  }
  template <typename T>
  T get() && {
    return std::move(data_).template cast<T>();
  }
  /*! \return Whether the value is exactly a T (e.g. `is<String>()`). */
  template <typename T>
  bool is() const {
    return detail::ElemOps<T>::CheckStrict(detail::AnyUnsafe::TVMFFIAnyPtrFromAny(data_));
  }
  /*! \return The readable type of the held value ("int", "str", "ffi.Tensor", ...). */
  std::string GetTypeKey() const { return data_.GetTypeKey(); }
  int32_t type_index() const noexcept { return data_.type_index(); }
  /*! \return Whether both hold the same value bits (the same object for objects). */
  bool same_as(const Variant& other) const noexcept { return data_.same_as(other.data_); }
  /*! \return The value as an Any. */
  const Any& AsAny() const& noexcept { return data_; }
  Any AsAny() && noexcept { return std::move(data_); }

 private:
  explicit Variant(Any data, int) : data_(std::move(data)) {}
  template <typename T>
  static Any Selected(T&& value) {
    constexpr int kIndex = detail::VariantSelect<T, Types...>();
    using Alt = detail::TypeAt<static_cast<size_t>(kIndex), Types...>;
    if constexpr (std::is_same_v<Alt, Any>) {
      return Any(std::forward<T>(value));
    } else {
      return Any(Alt(std::forward<T>(value)));
    }
  }

  Any data_;
  template <typename, typename>
  friend struct TypeTraits;
};

template <typename... Types>
inline constexpr bool use_default_type_traits_v<Variant<Types...>> = false;

template <typename... Types>
struct TypeTraits<Variant<Types...>> : public TypeTraitsBase {
  using Self = Variant<Types...>;
  TVM_FFI_INLINE static void CopyToAnyView(const Self& src, TVMFFIAny* result) {
    *result = *detail::AnyUnsafe::TVMFFIAnyPtrFromAny(src.data_);
  }
  TVM_FFI_INLINE static void MoveToAny(Self src, TVMFFIAny* result) {
    *result = detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(src.data_));
  }
  /*! \brief Exactly one of the alternatives. */
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return (detail::ElemOps<Types>::CheckStrict(src) || ...);
  }
  TVM_FFI_INLINE static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Self(Any(AnyView::CopyFromTVMFFIAny(*src)), 0);
  }
  TVM_FFI_INLINE static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return Self(detail::AnyUnsafe::MoveTVMFFIAnyToAny(src), 0);
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    std::optional<Self> result;
    detail::TakeFirstAlternative<false, Types...>(
        src, [&result](auto value) { result.emplace(Self(Any(std::move(value)), 0)); });
    return result;
  }
  static std::string TypeStr() { return detail::ParamTypeStr<Types...>("Variant"); }
  static std::string TypeSchema() { return detail::ParamTypeSchema<Types...>("Variant"); }
};

template <typename... V>
size_t ObjectPtrHash::operator()(const Variant<V...>& a) const noexcept {
  static_assert((std::is_base_of_v<ObjectRef, V> && ...),
                "ObjectPtrHash: every alternative of the Variant must be an object reference");
  return std::hash<const Object*>()(a.template as<Object>());
}

template <typename... V>
bool ObjectPtrEqual::operator()(const Variant<V...>& a, const Variant<V...>& b) const noexcept {
  static_assert((std::is_base_of_v<ObjectRef, V> && ...),
                "ObjectPtrEqual: every alternative of the Variant must be an object reference");
  return a.same_as(b);
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_VARIANT_H_

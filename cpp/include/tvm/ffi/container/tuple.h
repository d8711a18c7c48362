/*
 * tvmffi C++ layer: Tuple<Types...>, a fixed-size typed sequence stored as
 * an Array (type index 71) of sizeof...(Types) elements.
 *
 * A typed function that returns a Tuple returns several results at once: the
 * caller receives one Array and reads the parts back by position.
 *
 *   Function f = Function::FromTyped([](int64_t x) { return Tuple<int64_t, String>(x, "x"); });
 *   auto [n, s] = f(1).cast<Tuple<int64_t, String>>();
 *
 * Like Array, a Tuple is copy-on-write: Set<I>() copies a shared tuple first.
 */
#ifndef TVM_FFI_CONTAINER_TUPLE_H_
#define TVM_FFI_CONTAINER_TUPLE_H_

#include <tvm/ffi/container/array.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

namespace detail {
/*!
 * \brief The rule of Tuple<Ts...> and std::tuple<Ts...> (extra/stl.h): an
 *        Array of exactly sizeof...(Ts) elements whose element i is a Ts[i].
 */
template <typename... Ts>
struct FixedSeqOps {
  static constexpr int64_t kSize = static_cast<int64_t>(sizeof...(Ts));
  using Seq = std::index_sequence_for<Ts...>;

  /*! \return Whether src is an Array of kSize elements; *items is set to them. */
  static bool Items(const TVMFFIAny* src, const TVMFFIAny** items) {
    if (src->type_index != TypeIndex::kTVMFFIArray) return false;
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    *items = static_cast<const TVMFFIAny*>(cell->data);
    return cell->size == kSize;
  }
  /*! \return Whether src holds every element exactly. */
  static bool CheckStrict(const TVMFFIAny* src) {
    const TVMFFIAny* items;
    return Items(src, &items) && StrictAll(items, Seq{});
  }
  /*! \return make(elements...) of a checked Array's elements, copied. */
  template <typename Make>
  static auto CopyAll(const TVMFFIAny* items, Make&& make) {
    return CopyAll(items, make, Seq{});
  }
  /*!
   * \return make(elements...) of the elements, converted left to right;
   *         nullopt at the first that does not convert.
   */
  template <typename Result, typename Make>
  static std::optional<Result> TryCastAll(const TVMFFIAny* items, Make&& make) {
    return TryCastFrom<0, Result>(items, make);
  }
  /*! \return `Array[size=3]` for a wrong size, `Array[index 1: str]` for a wrong element. */
  static std::string MismatchInfo(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIArray) return TypeTraitsBase::GetMismatchTypeInfo(src);
    const TVMFFIAny* items;
    if (!Items(src, &items)) {
      return "Array[size=" + std::to_string(TVMFFISeqGetCellPtr(src->v_obj)->size) + "]";
    }
    std::string info;
    FirstMismatch(items, &info, Seq{});
    return info.empty() ? std::string(StaticTypeKey::kTVMFFIArray) : info;
  }

 private:
  template <size_t... Is>
  static bool StrictAll(const TVMFFIAny* items, std::index_sequence<Is...>) {
    (void)items;
    return (ElemOps<Ts>::CheckStrict(items + Is) && ...);
  }
  template <typename Make, size_t... Is>
  static auto CopyAll(const TVMFFIAny* items, Make& make, std::index_sequence<Is...>) {
    (void)items;
    return make(ElemOps<Ts>::CopyAfterCheck(items + Is)...);
  }
  // Element I is converted into this frame and passed on by reference with
  // those before it (no std::tuple: <tuple> stays out of the umbrella).
  template <size_t I, typename Result, typename Make, typename... Done>
  static std::optional<Result> TryCastFrom(const TVMFFIAny* items, Make& make, Done&&... done) {
    if constexpr (I == sizeof...(Ts)) {
      (void)items;
      return make(std::forward<Done>(done)...);
    } else {
      using T = TypeAt<I, Ts...>;
      std::optional<T> value = ElemOps<T>::TryCast(items + I);
      if (!value.has_value()) return std::nullopt;
      return TryCastFrom<I + 1, Result>(items, make, std::forward<Done>(done)...,
                                        *std::move(value));
    }
  }
  template <size_t... Is>
  static void FirstMismatch(const TVMFFIAny* items, std::string* info, std::index_sequence<Is...>) {
    (void)items;
    (void)((ElemOps<Ts>::Convertible(items + Is)
                ? false
                : (*info = "Array[index " + std::to_string(Is) + ": " +
                           ElemOps<Ts>::MismatchInfo(items + Is) + "]",
                   true)) ||
           ...);
  }
};
}  // namespace detail

template <typename... Types>
class Tuple : public ObjectRef {
 public:
  static_assert(detail::all_storage_enabled_v<Types...>,
                "Tuple<...>: every element type must be storable in an Any");
  static constexpr size_t kSize = sizeof...(Types);

  /*! \brief Every element default-constructed (None for Any). */
  Tuple() : ObjectRef(MakeNode(DefaultOf<Types>()...)) {}
  explicit Tuple(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  Tuple(const Tuple&) noexcept = default;
  Tuple(Tuple&&) noexcept = default;
  Tuple& operator=(const Tuple&) = default;
  Tuple& operator=(Tuple&&) = default;
  /*! \brief Share a tuple whose elements are valid here (e.g. Tuple<Any, Any> from Tuple<int,
   * str>). */
  template <typename... UTypes,
            typename = std::enable_if_t<sizeof...(UTypes) == kSize &&
                                        !std::is_same_v<Tuple<UTypes...>, Tuple> &&
                                        (detail::type_subsumes_v<Types, UTypes> && ...)>>
  Tuple(const Tuple<UTypes...>& other) noexcept : ObjectRef(other) {}  // NOLINT(*)
  /*! \brief From one value per element. */
  template <typename... UTypes,
            typename = std::enable_if_t<sizeof...(UTypes) == kSize && (kSize > 0) &&
                                        !(kSize == 1 &&
                                          (std::is_same_v<std::decay_t<UTypes>, Tuple> && ...))>>
  explicit Tuple(UTypes&&... args) : ObjectRef(MakeNode(Types(std::forward<UTypes>(args))...)) {}

  /*! \brief get() without an index is ObjectRef's (the object). */
  using ObjectRef::get;
  /*! \return Element I. */
  template <size_t I>
  auto get() const& {
    static_assert(I < kSize, "Tuple index out of range");
    using R = detail::TypeAt<I, Types...>;
    return detail::ElemOps<R>::CopyAfterCheck(Cells() + I);
  }
  /*!
   * \return Element I, moved out when this Tuple is the only reference to its
   *         storage (as upstream: `auto [a, b] = std::move(t)` takes the elements).
   */
  template <size_t I>
  auto get() && {
    static_assert(I < kSize, "Tuple index out of range");
    using R = detail::TypeAt<I, Types...>;
    TVMFFIAny* cell = static_cast<TVMFFIAny*>(GetArrayObj()->data) + I;
    if (data_.unique()) {
      if constexpr (std::is_same_v<R, Any>) {
        return detail::AnyUnsafe::MoveTVMFFIAnyToAny(cell);
      } else {
        if (TypeTraits<R>::CheckAnyStrict(cell)) {
          return detail::AnyUnsafe::MoveFromAnyAfterCheck<R>(
              detail::AnyUnsafe::MoveTVMFFIAnyToAny(cell));
        }
      }
    }
    return std::as_const(*this).template get<I>();
  }
  /*! \brief Replace element I (copy-on-write). */
  template <size_t I, typename U>
  void Set(U&& item) {
    static_assert(I < kSize, "Tuple index out of range");
    using R = detail::TypeAt<I, Types...>;
    TVMFFIAny cell = detail::MakeOwnedCell(R(std::forward<U>(item)));
    if (!data_.unique()) {
      data_ = ArrayObj::CopyFrom(static_cast<int64_t>(kSize), GetArrayObj());
    }
    GetArrayObj()->SetCell(static_cast<int64_t>(I), cell);
  }
  /*! \return The number of elements. */
  static constexpr size_t size() noexcept { return kSize; }

  /*! \return Whether both hold equal elements (deep, as Array::operator==). */
  bool operator==(const Tuple& other) const {
    if (data_ == other.data_) return true;
    for (size_t i = 0; i < kSize; ++i) {
      if (!detail::CellContentEqual(Cells() + i, other.Cells() + i)) return false;
    }
    return true;
  }
  bool operator!=(const Tuple& other) const { return !(*this == other); }

  using ContainerType = ArrayObj;
  static constexpr bool _type_is_nullable = false;
  static constexpr bool _type_container_is_exact = false;  // element types are checked at run time

 private:
  ArrayObj* GetArrayObj() const noexcept { return static_cast<ArrayObj*>(data_.get()); }
  const TVMFFIAny* Cells() const noexcept {
    return static_cast<const TVMFFIAny*>(GetArrayObj()->data);
  }
  template <typename T>
  static T DefaultOf() {
    if constexpr (std::is_same_v<T, Any>) {
      return Any();
    } else {
      return T();
    }
  }
  template <typename... Values>
  static ObjectPtr<Object> MakeNode(Values&&... values) {
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(kSize));
    (p->PushCell(detail::MakeOwnedCell(std::forward<Values>(values))), ...);
    return p;
  }

  template <typename...>
  friend class Tuple;
};

/*! \brief `Tuple(1, String("a"))` is a Tuple<int, String>. */
template <typename... UTypes>
Tuple(UTypes&&...) -> Tuple<std::remove_cv_t<std::remove_reference_t<UTypes>>...>;

/*! \brief `get<I>(tuple)`, found by argument-dependent lookup as std::get is for std::tuple. */
template <size_t I, typename... Types>
auto get(const Tuple<Types...>& t) {
  return t.template get<I>();
}
/*! \brief `get<I>(std::move(tuple))`: moves element I out when the storage is not shared. */
template <size_t I, typename... Types>
auto get(Tuple<Types...>&& t) {
  return std::move(t).template get<I>();
}

template <typename... Types>
inline constexpr bool use_default_type_traits_v<Tuple<Types...>> = false;

/*! \brief A Tuple converts from an Array of the right size whose elements convert. */
template <typename... Types>
struct TypeTraits<Tuple<Types...>> : public ObjectRefTypeTraitsBase<Tuple<Types...>> {
  using Self = Tuple<Types...>;
  using Ops = detail::FixedSeqOps<Types...>;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIArray;
  using ObjectRefTypeTraitsBase<Self>::CopyFromAnyViewAfterCheck;

  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) { return Ops::CheckStrict(src); }

  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    const TVMFFIAny* items;
    if (!Ops::Items(src, &items)) return std::nullopt;
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return Ops::template TryCastAll<Self>(
        items, [](auto&&... values) { return Self(std::forward<decltype(values)>(values)...); });
  }

  /*! \return `Array[size=3]` for a wrong size, `Array[index 1: str]` for a wrong element. */
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) { return Ops::MismatchInfo(src); }

  static std::string TypeStr() { return detail::ParamTypeStr<Types...>("Tuple"); }
  static std::string TypeSchema() { return detail::ParamTypeSchema<Types...>("Tuple"); }
};

}  // namespace ffi
}  // namespace tvm

// Structured bindings: `auto [a, b] = tuple;`
namespace std {
template <typename... Types>
struct tuple_size<::tvm::ffi::Tuple<Types...>> : std::integral_constant<size_t, sizeof...(Types)> {
};
template <size_t I, typename... Types>
struct tuple_element<I, ::tvm::ffi::Tuple<Types...>> {
  using type = ::tvm::ffi::detail::TypeAt<I, Types...>;
};
}  // namespace std

#endif  // TVM_FFI_CONTAINER_TUPLE_H_

/*
 * tvmffi C++ layer: standard-library types at the FFI boundary.
 *
 * Typed functions (Function::FromTyped, TVM_FFI_DLL_EXPORT_TYPED_FUNC) may
 * take and return these; they travel as FFI containers and are converted
 * (copied) on each side:
 *
 *   std::vector<T>, std::array<T, N>        <->  Array
 *   std::tuple<Ts...>                       <->  Array of sizeof...(Ts) elements
 *   std::map<K, V>, std::unordered_map<K, V> <->  Map
 *   std::variant<Ts...>                     <->  the held alternative
 *   std::monostate                          <->  None
 *   std::function<R(Args...)>               <->  Function (an empty one: None)
 *
 * (std::string / std::string_view are in string.h, std::optional in
 * optional.h.) Elements may themselves be any convertible type, standard
 * ones included (std::vector<std::string>, std::map<std::string,
 * std::vector<int64_t>>, ...). A failed element conversion is a TypeError
 * naming the position, e.g. for a typed function taking std::vector<int>:
 *   Mismatched type on argument #0 when calling: `f(0: std::vector<int>) -> int`.
 *   Expected `std::vector<int>` but got `Array[index 2: str]`
 *
 * These types are converted into new objects, so they cannot be *borrowed*
 * into an AnyView: pass Array<T>(vec) / Map<K, V>(m) where a view is built
 * (e.g. as an argument of Function::operator()), or Any(vec).
 *
 * A std::function result becomes a Function that checks its arguments as
 * Function::FromTyped does; a Function argument becomes a std::function that
 * calls it and casts its result to R (TypeError when it does not convert).
 *
 * Opt-in (as upstream's extra/stl.h): neither function.h nor the umbrella
 * tvm_ffi.h includes it, so a kernel that does not use these types does not
 * pay for <map>, <unordered_map>, <variant>, <tuple> and <functional>.
 */
#ifndef TVM_FFI_EXTRA_STL_H_
#define TVM_FFI_EXTRA_STL_H_

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tuple.h>
#include <tvm/ffi/function.h>

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

namespace tvm {
namespace ffi {
namespace detail {

/*! \brief Static error for the std bridges' CopyToAnyView (they would need to own a new object). */
template <typename U>
inline void StdTypeCannotBeViewed() {
  static_assert(always_false_v<U>,
                "A std:: container converts into a new FFI object and cannot be borrowed into an "
                "AnyView (e.g. as an argument of Function::operator()): wrap it first, e.g. "
                "Array<T>(vec), Map<K, V>(m), or Any(value)");
}

/*! \brief Base of the sequence-like bridges (vector, array): an Array with elements of T. */
template <typename T>
struct StdSeqTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIArray;

  template <typename Iter>
  static void MoveRangeToAny(Iter first, Iter last, size_t n, TVMFFIAny* result) {
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(static_cast<int64_t>(n));
    for (; first != last; ++first) {
      p->PushCell(MakeOwnedCell(T(std::move(*first))));
    }
    SetAnyObject(result, ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(p)));
  }
  static bool CheckElementsStrict(const TVMFFIAny* src) {
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
    for (int64_t i = 0; i < cell->size; ++i) {
      if (!ElemOps<T>::CheckStrict(items + i)) return false;
    }
    return true;
  }
  /*! \brief Call out(i, value) for each element, converted; false at the first that does not
   * convert. */
  template <typename Out>
  static bool ConvertElements(const TVMFFIAny* src, Out out) {
    if (src->type_index == TypeIndex::kTVMFFIShape) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        const TVMFFIShapeCell* shape = TVMFFIShapeGetCellPtr(src->v_obj);
        for (size_t i = 0; i < shape->size; ++i) out(i, static_cast<T>(shape->data[i]));
        return true;
      } else {
        return false;
      }
    }
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
    for (int64_t i = 0; i < cell->size; ++i) {
      std::optional<T> value = ElemOps<T>::TryCast(items + i);
      if (!value.has_value()) return false;
      out(static_cast<size_t>(i), *std::move(value));
    }
    return true;
  }
  static int64_t ElementCount(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIShape) {
      return static_cast<int64_t>(TVMFFIShapeGetCellPtr(src->v_obj)->size);
    }
    return TVMFFISeqGetCellPtr(src->v_obj)->size;
  }
  static bool IsSequence(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIArray ||
           (src->type_index == TypeIndex::kTVMFFIShape && std::is_integral_v<T> &&
            !std::is_same_v<T, bool>);
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIArray) return TypeIndexToTypeKey(src->type_index);
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
    for (int64_t i = 0; i < cell->size; ++i) {
      if (!ElemOps<T>::Convertible(items + i)) {
        return "Array[index " + std::to_string(i) + ": " + ElemOps<T>::MismatchInfo(items + i) +
               "]";
      }
    }
    return StaticTypeKey::kTVMFFIArray;
  }
};

template <typename M, typename = void>
struct StdMapHasReserve : std::false_type {};
template <typename M>
struct StdMapHasReserve<M, std::void_t<decltype(std::declval<M&>().reserve(size_t{0}))>>
    : std::true_type {};

/*!
 * \brief The map bridges (std::map, std::unordered_map: Self): a Map with
 *        keys of K and values of V, entries emplaced in the Map's order.
 */
template <typename Self, typename K, typename V>
struct StdMapTraitsBase : public TypeTraitsBase {
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIMap;

  template <typename U = Self>
  static void CopyToAnyView(const U&, TVMFFIAny*) {
    StdTypeCannotBeViewed<U>();
  }
  static void MoveToAny(Self src, TVMFFIAny* result) { MoveMapToAny(src, result); }
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
    Self out = Sized(n->size());
    for (auto it = n->begin(); it != n->end(); ++it) {
      out.emplace(ElemOps<K>::CopyAfterCheck(it.key_cell()),
                  ElemOps<V>::CopyAfterCheck(it.value_cell()));
    }
    return out;
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    Self out = CopyFromAnyViewAfterCheck(src);
    ReleaseCell(src);
    return out;
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIMap) return std::nullopt;
    Self out = Sized(reinterpret_cast<const MapObj*>(src->v_obj)->size());
    if (!ConvertEntries(src, [&out](K k, V v) { out.emplace(std::move(k), std::move(v)); })) {
      return std::nullopt;
    }
    return out;
  }
  /*! \return `{"type":"<name>","args":[K, V]}`. */
  static std::string SchemaOf(const char* name) {
    return std::string("{\"type\":\"") + name + "\",\"args\":[" + ArgsSchema() + "]}";
  }

  /*! \return An empty Self with room for n entries where Self can reserve. */
  static Self Sized(size_t n) {
    Self out;
    if constexpr (StdMapHasReserve<Self>::value) out.reserve(n);
    (void)n;
    return out;
  }

  template <typename M>
  static void MoveMapToAny(M&& src, TVMFFIAny* result) {
    ObjectPtr<Object> data = MapObj::Create(static_cast<int64_t>(src.size()));
    for (auto& kv : src) {
      TVMFFIAny k = MakeOwnedCell(K(kv.first));
      TVMFFIAny v;
      try {
        v = MakeOwnedCell(V(std::move(kv.second)));
      } catch (...) {
        ReleaseCell(&k);
        throw;
      }
      MapObj::InsertOrAssign(&data, k, v);
    }
    SetAnyObject(result, ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(data)));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIMap) return false;
    const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (!ElemOps<K>::CheckStrict(it.key_cell()) || !ElemOps<V>::CheckStrict(it.value_cell())) {
        return false;
      }
    }
    return true;
  }
  /*! \brief Call out(key, value) per entry in map order; false at the first that does not convert.
   */
  template <typename Out>
  static bool ConvertEntries(const TVMFFIAny* src, Out out) {
    const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
    for (auto it = n->begin(); it != n->end(); ++it) {
      std::optional<K> k = ElemOps<K>::TryCast(it.key_cell());
      if (!k.has_value()) return false;
      std::optional<V> v = ElemOps<V>::TryCast(it.value_cell());
      if (!v.has_value()) return false;
      out(*std::move(k), *std::move(v));
    }
    return true;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIMap) return TypeIndexToTypeKey(src->type_index);
    const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (!ElemOps<K>::Convertible(it.key_cell())) {
        return "Map[some key is " + ElemOps<K>::MismatchInfo(it.key_cell()) + ", V]";
      }
      if (!ElemOps<V>::Convertible(it.value_cell())) {
        return "Map[K, some value is " + ElemOps<V>::MismatchInfo(it.value_cell()) + "]";
      }
    }
    return StaticTypeKey::kTVMFFIMap;
  }
  static std::string ArgsStr() { return ElemOps<K>::TypeStr() + ", " + ElemOps<V>::TypeStr(); }
  static std::string ArgsSchema() { return ElemTypeSchema<K>() + "," + ElemTypeSchema<V>(); }
};

}  // namespace detail

// ---------------------------------------------------------------------------
// std::vector<T>
// ---------------------------------------------------------------------------

template <typename T, typename Alloc>
struct TypeTraits<std::vector<T, Alloc>> : public detail::StdSeqTraitsBase<T> {
  using Self = std::vector<T, Alloc>;
  using Base = detail::StdSeqTraitsBase<T>;

  template <typename U = Self>
  static void CopyToAnyView(const U&, TVMFFIAny*) {
    detail::StdTypeCannotBeViewed<U>();
  }
  static void MoveToAny(Self src, TVMFFIAny* result) {
    size_t n = src.size();
    Base::MoveRangeToAny(src.begin(), src.end(), n, result);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIArray && Base::CheckElementsStrict(src);
  }
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(src->v_obj);
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
    Self out;
    out.reserve(static_cast<size_t>(cell->size));
    for (int64_t i = 0; i < cell->size; ++i) {
      out.push_back(detail::ElemOps<T>::CopyAfterCheck(items + i));
    }
    return out;
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    Self out = CopyFromAnyViewAfterCheck(src);
    detail::ReleaseCell(src);
    return out;
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!Base::IsSequence(src)) return std::nullopt;
    Self out;
    out.reserve(static_cast<size_t>(Base::ElementCount(src)));
    if (!Base::ConvertElements(src, [&out](size_t, T value) { out.push_back(std::move(value)); })) {
      return std::nullopt;
    }
    return out;
  }
  static std::string TypeStr() { return "std::vector<" + detail::ElemOps<T>::TypeStr() + ">"; }
  static std::string TypeSchema() {
    return "{\"type\":\"std::vector\",\"args\":[" + detail::ElemTypeSchema<T>() + "]}";
  }
};

// ---------------------------------------------------------------------------
// std::array<T, N>
// ---------------------------------------------------------------------------

template <typename T, size_t N>
struct TypeTraits<std::array<T, N>> : public detail::StdSeqTraitsBase<T> {
  using Self = std::array<T, N>;
  using Base = detail::StdSeqTraitsBase<T>;

  template <typename U = Self>
  static void CopyToAnyView(const U&, TVMFFIAny*) {
    detail::StdTypeCannotBeViewed<U>();
  }
  static void MoveToAny(Self src, TVMFFIAny* result) {
    Base::MoveRangeToAny(src.begin(), src.end(), N, result);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIArray &&
           TVMFFISeqGetCellPtr(src->v_obj)->size == static_cast<int64_t>(N) &&
           Base::CheckElementsStrict(src);
  }
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    const TVMFFIAny* items = static_cast<const TVMFFIAny*>(TVMFFISeqGetCellPtr(src->v_obj)->data);
    return Build(items, std::make_index_sequence<N>{});
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    Self out = CopyFromAnyViewAfterCheck(src);
    detail::ReleaseCell(src);
    return out;
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (!Base::IsSequence(src) || Base::ElementCount(src) != static_cast<int64_t>(N)) {
      return std::nullopt;
    }
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    std::vector<T> values;
    values.reserve(N);
    if (!Base::ConvertElements(src, [&values](size_t, T v) { values.push_back(std::move(v)); })) {
      return std::nullopt;
    }
    return FromVector(std::move(values), std::make_index_sequence<N>{});
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFIArray &&
        TVMFFISeqGetCellPtr(src->v_obj)->size != static_cast<int64_t>(N)) {
      return "Array[size=" + std::to_string(TVMFFISeqGetCellPtr(src->v_obj)->size) + "]";
    }
    return Base::GetMismatchTypeInfo(src);
  }
  static std::string TypeStr() {
    return "std::array<" + detail::ElemOps<T>::TypeStr() + ", " + std::to_string(N) + ">";
  }

 private:
  template <size_t... Is>
  static Self Build(const TVMFFIAny* items, std::index_sequence<Is...>) {
    return Self{{detail::ElemOps<T>::CopyAfterCheck(items + Is)...}};
  }
  template <size_t... Is>
  static Self FromVector(std::vector<T>&& values, std::index_sequence<Is...>) {
    return Self{{std::move(values[Is])...}};
  }
};

// ---------------------------------------------------------------------------
// std::tuple<Ts...>
// ---------------------------------------------------------------------------

template <typename... Ts>
struct TypeTraits<std::tuple<Ts...>> : public TypeTraitsBase {
  using Self = std::tuple<Ts...>;
  using Ops = detail::FixedSeqOps<Ts...>;  // the rule of ffi::Tuple (tuple.h)
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIArray;

  template <typename U = Self>
  static void CopyToAnyView(const U&, TVMFFIAny*) {
    detail::StdTypeCannotBeViewed<U>();
  }
  static void MoveToAny(Self src, TVMFFIAny* result) {
    ObjectPtr<ArrayObj> p = ArrayObj::Empty(Ops::kSize);
    std::apply(
        [&p](auto&&... values) {
          (p->PushCell(detail::MakeOwnedCell(Ts(std::move(values)))), ...);
        },
        std::move(src));
    detail::SetAnyObject(result,
                         detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(p)));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) { return Ops::CheckStrict(src); }
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Ops::CopyAll(
        static_cast<const TVMFFIAny*>(TVMFFISeqGetCellPtr(src->v_obj)->data),
        [](auto&&... values) { return Self(std::forward<decltype(values)>(values)...); });
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    Self out = CopyFromAnyViewAfterCheck(src);
    detail::ReleaseCell(src);
    return out;
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    const TVMFFIAny* items;
    if (!Ops::Items(src, &items)) return std::nullopt;
    return Ops::template TryCastAll<Self>(
        items, [](auto&&... values) { return Self(std::forward<decltype(values)>(values)...); });
  }
  /*! \return `Array[size=3]` for a wrong size, `Array[index 1: str]` for a wrong element. */
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) { return Ops::MismatchInfo(src); }
  static std::string TypeStr() { return detail::ParamTypeStr<Ts...>("std::tuple"); }
  static std::string TypeSchema() { return detail::ParamTypeSchema<Ts...>("std::tuple"); }
};

// ---------------------------------------------------------------------------
// std::map / std::unordered_map
// ---------------------------------------------------------------------------

template <typename K, typename V, typename Less, typename Alloc>
struct TypeTraits<std::map<K, V, Less, Alloc>>
    : public detail::StdMapTraitsBase<std::map<K, V, Less, Alloc>, K, V> {
  using Base = detail::StdMapTraitsBase<std::map<K, V, Less, Alloc>, K, V>;
  static std::string TypeStr() { return "std::map<" + Base::ArgsStr() + ">"; }
  static std::string TypeSchema() { return Base::SchemaOf("std::map"); }
};

template <typename K, typename V, typename Hash, typename Equal, typename Alloc>
struct TypeTraits<std::unordered_map<K, V, Hash, Equal, Alloc>>
    : public detail::StdMapTraitsBase<std::unordered_map<K, V, Hash, Equal, Alloc>, K, V> {
  using Base = detail::StdMapTraitsBase<std::unordered_map<K, V, Hash, Equal, Alloc>, K, V>;
  static std::string TypeStr() { return "std::unordered_map<" + Base::ArgsStr() + ">"; }
  static std::string TypeSchema() { return Base::SchemaOf("std::unordered_map"); }
};

// ---------------------------------------------------------------------------
// std::monostate (None) and std::variant<Ts...>
// ---------------------------------------------------------------------------

template <>
struct TypeTraits<std::monostate> : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFINone;
  static void CopyToAnyView(std::monostate, TVMFFIAny* result) { detail::SetAnyNone(result); }
  static void MoveToAny(std::monostate, TVMFFIAny* result) { detail::SetAnyNone(result); }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFINone;
  }
  static std::monostate CopyFromAnyViewAfterCheck(const TVMFFIAny*) { return {}; }
  static std::monostate MoveFromAnyAfterCheck(TVMFFIAny*) { return {}; }
  static std::optional<std::monostate> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return std::monostate{};
    return std::nullopt;
  }
  static std::string TypeStr() { return StaticTypeKey::kTVMFFINone; }
};

template <typename... Ts>
struct TypeTraits<std::variant<Ts...>> : public TypeTraitsBase {
  using Self = std::variant<Ts...>;
  static constexpr bool storage_enabled = false;

  /*! \brief A view when every alternative can be viewed; else a static error. */
  static void CopyToAnyView(const Self& src, TVMFFIAny* result) {
    std::visit(
        [result](const auto& value) {
          using A = detail::remove_cvref_t<decltype(value)>;
          TypeTraits<A>::CopyToAnyView(value, result);
        },
        src);
  }
  static void MoveToAny(Self src, TVMFFIAny* result) {
    std::visit(
        [result](auto&& value) {
          using A = detail::remove_cvref_t<decltype(value)>;
          *result = detail::MakeOwnedCell(A(std::move(value)));
        },
        std::move(src));
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return (detail::ElemOps<Ts>::CheckStrict(src) || ...);
  }
  /*! \brief The first alternative that holds the value exactly. */
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    std::optional<Self> out;
    detail::TakeFirstAlternative<true, Ts...>(src, Emplacer{&out});
    return *std::move(out);
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    Self out = CopyFromAnyViewAfterCheck(src);
    detail::ReleaseCell(src);
    return out;
  }
  /*! \brief Exact alternatives first, then the first alternative whose conversion succeeds. */
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    std::optional<Self> out;
    detail::TakeFirstAlternative<false, Ts...>(src, Emplacer{&out});
    return out;
  }
  static std::string TypeStr() { return detail::ParamTypeStr<Ts...>("std::variant"); }
  static std::string TypeSchema() { return detail::ParamTypeSchema<Ts...>("Variant"); }

 private:
  /*! \brief Holds the alternative it is given (by its own type, so equal types stay apart). */
  struct Emplacer {
    std::optional<Self>* out;
    template <typename A>
    void operator()(A value) const {
      out->emplace(std::in_place_type<A>, std::move(value));
    }
  };
};

// ---------------------------------------------------------------------------
// std::function<R(Args...)>
// ---------------------------------------------------------------------------

template <typename R, typename... Args>
struct TypeTraits<std::function<R(Args...)>> : public TypeTraitsBase {
  using Self = std::function<R(Args...)>;
  using Typed = TypedFunction<R(Args...)>;  // the conversions, both ways (function.h)
  static constexpr bool storage_enabled = false;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIFunction;

  template <typename U = Self>
  static void CopyToAnyView(const U&, TVMFFIAny*) {
    detail::StdTypeCannotBeViewed<U>();
  }
  static void MoveToAny(Self src, TVMFFIAny* result) {
    if (!src) {
      detail::SetAnyNone(result);
      return;
    }
    TypeTraits<Typed>::MoveToAny(Typed(std::move(src)), result);
  }
  static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index == TypeIndex::kTVMFFIFunction;
  }
  static Self CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return Self(TypeTraits<Typed>::CopyFromAnyViewAfterCheck(src));
  }
  static Self MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return Self(TypeTraits<Typed>::MoveFromAnyAfterCheck(src));
  }
  static std::optional<Self> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  /*! \return e.g. `std::function<int(int, str)>`. */
  static std::string TypeStr() {
    std::string s = "std::function<" + detail::TypeName<R>() + "(";
    size_t index = 0;
    ((s += (index++ == 0 ? "" : ", "), s += detail::TypeName<Args>()), ...);
    return s + ")>";
  }
  /*! \return {"type":"std::function","named_args":{"return":[<R>],"params":[...]}}, as
   * ffi.Function's. */
  static std::string TypeSchema() {
    return detail::CallableTypeSchema<R, Args...>("std::function");
  }
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_STL_H_

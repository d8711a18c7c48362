/*
 * The typed layer over MapBaseObj (internal piece of
 * <tvm/ffi/container/map_base.h>; include that): key views for lookups,
 * MapTypedIterator, the mutation policies MapKind (copy-on-write, for Map)
 * and DictKind (in place, for Dict), detail::MapRefBase (every reference
 * method of Map and Dict, parameterised by that policy) and
 * MapTypeTraitsBase (their conversions to and from Any).
 */
#ifndef TVM_FFI_DETAILS_MAP_REF_BASE_H_
#define TVM_FFI_DETAILS_MAP_REF_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <tvm/ffi/details/map_base_obj.h>
#include <tvm/ffi/details/map_base_ops.h>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

namespace detail {

/*! \brief The cell a key reads as for lookups (borrowed; nothing is copied). */
template <typename K>
TVM_FFI_INLINE TVMFFIAny MapKeyView(const K& key) {
  TVMFFIAny view;
  if constexpr (std::is_same_v<K, Any>) {
    view = *AnyUnsafe::TVMFFIAnyPtrFromAny(key);
  } else {
    TypeTraits<K>::CopyToAnyView(key, &view);
  }
  return view;
}

/*! \return The number of items in [first, last) when it can be counted without consuming it. */
template <typename IterType>
int64_t MapRangeSize(IterType first, IterType last) {
  using Category = typename std::iterator_traits<IterType>::iterator_category;
  if constexpr (std::is_base_of_v<std::forward_iterator_tag, Category>) {
    return static_cast<int64_t>(std::distance(first, last));
  } else {
    return 0;
  }
}

/*! \brief The iterator of Map<K, V> and Dict<K, V>: yields std::pair<K, V> by value. */
template <typename K, typename V, bool kChecked = false>
class MapTypedIterator {
 public:
  using iterator_category = std::bidirectional_iterator_tag;
  using difference_type = int64_t;
  using value_type = const std::pair<K, V>;
  using pointer = value_type*;
  using reference = value_type;

  MapTypedIterator() = default;
  explicit MapTypedIterator(MapBaseObj::iterator itr) noexcept : itr_(itr) {}
  reference operator*() const {
    return std::pair<K, V>(ElemOps<K>::template Read<kChecked>(itr_.key_cell()),
                           ElemOps<V>::template Read<kChecked>(itr_.value_cell()));
  }
  pointer operator->() const = delete;
  MapTypedIterator& operator++() noexcept {
    ++itr_;
    return *this;
  }
  MapTypedIterator operator++(int) noexcept {
    MapTypedIterator copy = *this;
    ++itr_;
    return copy;
  }
  MapTypedIterator& operator--() noexcept {
    --itr_;
    return *this;
  }
  MapTypedIterator operator--(int) noexcept {
    MapTypedIterator copy = *this;
    --itr_;
    return copy;
  }
  bool operator==(const MapTypedIterator& other) const noexcept { return itr_ == other.itr_; }
  bool operator!=(const MapTypedIterator& other) const noexcept { return itr_ != other.itr_; }

 private:
  MapBaseObj::iterator itr_;
};

/*! \brief What names Map and Dict (messages, type keys, conversions). */
struct MapKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIMap;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIDict;
  static constexpr const char* kName = "Map";
  /*! \brief Whether every reference shares one mutable object (element reads are then checked). */
  static constexpr bool kShared = false;
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIMap;
};
struct DictKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIDict;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIMap;
  static constexpr const char* kName = "Dict";
  static constexpr bool kShared = true;
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIDict;
};

/*!
 * \brief The reference methods Map<K, V> and Dict<K, V> share: lookups,
 *        iteration and Set.
 *
 * The two differ only in their mutation policy, which Derived supplies:
 * `bool AssignIfPresent(const TVMFFIAny* key, uint64_t hash, TVMFFIAny v)`
 * (give a present key the owned value v in place and return true, else
 * leave v to the caller: Map only when unique, Dict always) and
 * `void InsertCells(TVMFFIAny k, TVMFFIAny v, uint64_t hash)` (set key to
 * value, taking both owned cells, also when it throws: Map copies a shared
 * object first, Dict keeps its one object when the entries move to bigger
 * storage).
 */
template <typename Derived, typename K, typename V, typename ObjT, typename Kind>
class MapRefBase : public ObjectRef {
 public:
  static_assert(storage_enabled_v<K> && storage_enabled_v<V>,
                "Map<K, V> / Dict<K, V>: K and V must be storable in an Any");
  using key_type = K;
  using mapped_type = V;
  /*! \brief Iterates in the map's order (see map.h), yielding std::pair<K, V>. */
  using iterator = MapTypedIterator<K, V, Kind::kShared>;

  /*! \return The value of a key; KeyError naming the key when it is absent. */
  V at(const K& key) const {
    TVMFFIAny view = MapKeyView(key);
    const ObjT* n = Obj();
    if (n == nullptr) MapBaseObj::ThrowKeyError(&view, Kind::kName);
    return ElemOps<V>::template Read<Kind::kShared>(n->AtCell(&view));
  }
  V operator[](const K& key) const { return at(key); }
  /*! \return The value of a key, or an empty Optional. */
  Optional<V> Get(const K& key) const {
    const TVMFFIAny* cell = FindCell(key);
    if (cell == nullptr) return Optional<V>(std::nullopt);
    return Optional<V>(ElemOps<V>::template Read<Kind::kShared>(cell));
  }
  /*! \return 1 when the key is present, else 0. */
  size_t count(const K& key) const { return FindCell(key) != nullptr ? 1 : 0; }
  /*! \return Whether the key is present. */
  bool contains(const K& key) const { return FindCell(key) != nullptr; }
  size_t size() const noexcept {
    const ObjT* n = Obj();
    return n == nullptr ? 0 : n->size();
  }
  bool empty() const noexcept { return size() == 0; }

  // A reference made with UnsafeInit has no object: its begin() == end() (default iterators).
  iterator begin() const {
    const ObjT* n = Obj();
    return n == nullptr ? iterator() : iterator(n->begin());
  }
  iterator end() const {
    const ObjT* n = Obj();
    return n == nullptr ? iterator() : iterator(n->end());
  }
  /*! \return An iterator at the key, or end(). */
  iterator find(const K& key) const {
    const ObjT* n = Obj();
    if (n == nullptr) return end();
    TVMFFIAny view = MapKeyView(key);
    return iterator(MapBaseObj::iterator(n, n->FindPos(&view, AnyCellHash(&view))));
  }

  /*! \brief Set key to value. */
  void Set(const K& key, const V& value) {
    TVMFFIAny v = MakeOwnedCell(V(value));
    const TVMFFIAny view = MapKeyView(key);
    const uint64_t hash = AnyCellHash(&view);
    // One probe finds the key or its place, so the key's cell is made first.
    // That is free for a plain key; an object key is looked up first instead
    // (a present one keeps its cell: no reference counting on the key).
    if (view.type_index >= TypeIndex::kTVMFFIStaticObjectBegin &&
        static_cast<Derived*>(this)->AssignIfPresent(&view, hash, v)) {
      return;
    }
    TVMFFIAny k;
    try {
      k = MakeOwnedCell(K(key));
    } catch (...) {
      ReleaseCell(&v);
      throw;
    }
    static_cast<Derived*>(this)->InsertCells(k, v, hash);
  }

  using ContainerType = ObjT;
  static constexpr bool _type_is_nullable = false;
  /*! \brief The element types are checked at run time: not every object is a valid value. */
  static constexpr bool _type_container_is_exact = false;

 protected:
  explicit MapRefBase(ObjectPtr<Object> n) noexcept : ObjectRef(std::move(n)) {}
  explicit MapRefBase(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  /*! \brief Share the object of another map reference. */
  explicit MapRefBase(const ObjectRef& other) noexcept : ObjectRef(other) {}
  explicit MapRefBase(ObjectRef&& other) noexcept : ObjectRef(std::move(other)) {}

  /*! \return The object (nullptr only for a reference made with UnsafeInit). */
  ObjT* Obj() const noexcept { return static_cast<ObjT*>(data_.get()); }
  const TVMFFIAny* FindCell(const K& key) const {
    const ObjT* n = Obj();
    if (n == nullptr) return nullptr;
    TVMFFIAny view = MapKeyView(key);
    return n->FindValueCell(&view);
  }
};

/*!
 * \brief Any conversions shared by Map and Dict. Kind names the reference:
 *        kIndex (its type index), kOtherIndex (the other map type, which
 *        converts by copying), kName ("Map") and kKey ("ffi.Map").
 *        A value converts to Ref<K, V> when every key converts to K and every
 *        value to V; a new object is built only when something must convert.
 */
template <typename Ref, typename K, typename V, typename Kind>
struct MapTypeTraitsBase : public ObjectRefTypeTraitsBase<Ref> {
  static constexpr int32_t field_static_type_index = Kind::kIndex;
  using ObjectRefTypeTraitsBase<Ref>::CopyFromAnyViewAfterCheck;

  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index != Kind::kIndex) return false;
    if constexpr (std::is_same_v<K, Any> && std::is_same_v<V, Any>) {
      return true;
    } else {
      const MapBaseObj* n = reinterpret_cast<const MapBaseObj*>(src->v_obj);
      for (auto it = n->begin(); it != n->end(); ++it) {
        if (!ElemOps<K>::CheckStrict(it.key_cell())) return false;
        if (!ElemOps<V>::CheckStrict(it.value_cell())) return false;
      }
      return true;
    }
  }

  static std::optional<Ref> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != Kind::kIndex && src->type_index != Kind::kOtherIndex) {
      return std::nullopt;
    }
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    const MapBaseObj* n = reinterpret_cast<const MapBaseObj*>(src->v_obj);
    Ref result;
    for (auto it = n->begin(); it != n->end(); ++it) {
      std::optional<K> k = ElemOps<K>::TryCast(it.key_cell());
      if (!k.has_value()) return std::nullopt;
      std::optional<V> v = ElemOps<V>::TryCast(it.value_cell());
      if (!v.has_value()) return std::nullopt;
      result.Set(*k, *v);
    }
    return result;
  }

  /*! \return e.g. `Map[value at key "b" is str]`: the first entry that does not convert. */
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != Kind::kIndex && src->type_index != Kind::kOtherIndex) {
      return TypeTraitsBase::GetMismatchTypeInfo(src);
    }
    const MapBaseObj* n = reinterpret_cast<const MapBaseObj*>(src->v_obj);
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (!ElemOps<K>::Convertible(it.key_cell())) {
        return std::string(Kind::kName) + "[some key is " +
               ElemOps<K>::MismatchInfo(it.key_cell()) + ", V]";
      }
      if (!ElemOps<V>::Convertible(it.value_cell())) {
        return std::string(Kind::kName) + "[K, some value is " +
               ElemOps<V>::MismatchInfo(it.value_cell()) + "]";
      }
    }
    return Kind::kKey;
  }

  static std::string TypeStr() {
    return std::string(Kind::kName) + "<" + ElemOps<K>::TypeStr() + ", " + ElemOps<V>::TypeStr() +
           ">";
  }
  static std::string TypeSchema() {
    return std::string("{\"type\":\"") + Kind::kKey + "\",\"args\":[" + ElemTypeSchema<K>() + "," +
           ElemTypeSchema<V>() + "]}";
  }
};

}  // namespace detail

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_MAP_REF_BASE_H_

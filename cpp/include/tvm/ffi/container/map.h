/*
 * tvmffi C++ layer: Map<K, V>, an immutable (copy-on-write) hash map, type
 * index 72. Its object has the TVM-FFI 0.1 standard map layout (small and
 * dense forms), documented in map_base.h.
 *
 * Iteration order is insertion order, with one twist that comes with the
 * standard layout: in a map of more than 4 entries (the dense form), setting
 * a key that is already present moves it to the end; in a small map it keeps
 * its place. Erasing a key and setting it again moves it to the end.
 *
 * Keys hash and compare with AnyHash / AnyEqual: strings and bytes by
 * content (small, heap and borrowed forms alike), everything else by its
 * type index and 8 value bytes (objects by address). Mutating a map that is
 * shared copies it first; a unique map is changed in place. Mutation
 * invalidates iterators.
 */
#ifndef TVM_FFI_CONTAINER_MAP_H_
#define TVM_FFI_CONTAINER_MAP_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <cstring>
#include <initializer_list>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The Map object (type index 72): a MapBaseObj. */
class MapObj : public MapBaseObj {
 public:
  MapObj() noexcept = default;

  /*! \return A new empty map with room for `capacity` entries. */
  static ObjectPtr<MapObj> Create(int64_t capacity) {
    if (capacity < 0) capacity = 0;
    return CreateEmpty<MapObj>(static_cast<uint64_t>(capacity));
  }
  /*! \return A new empty map. */
  static ObjectPtr<MapObj> Empty() { return Create(0); }
  /*!
   * \brief Set key to value in the unique map *data (null: a new map); may
   *        replace *data. Takes ownership of both cells.
   */
  static void InsertOrAssign(ObjectPtr<Object>* data, TVMFFIAny key, TVMFFIAny value) {
    if (*data == nullptr) *data = CreateEmpty<MapObj>();
    MapBaseObj::InsertOrAssign<MapObj>(data, key, value, details::AnyCellHash(&key));
  }

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIMap;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIMap, MapObj, Object);
};

static_assert(sizeof(MapObj) == sizeof(MapBaseObj), "MapObj adds no fields");

/*!
 * \brief A hash map from K to V with insertion-ordered iteration and
 *        copy-on-write sharing (see the top of this file).
 *
 * Reading never copies; Set / erase / clear copy the map first when another
 * reference shares it. K and V may be Any, or any type an Any can store.
 */
template <typename K, typename V, typename = void>
class Map : public ObjectRef {
 public:
  static_assert(details::storage_enabled_v<K> && details::storage_enabled_v<V>,
                "Map<K, V>: K and V must be storable in an Any");
  using key_type = K;
  using mapped_type = V;
  class iterator;

  /*! \brief An empty map. */
  Map() : ObjectRef(MapObj::Empty()) {}
  explicit Map(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  explicit Map(ObjectPtr<Object> n) noexcept : ObjectRef(std::move(n)) {}
  Map(const Map& other) noexcept = default;
  Map(Map&& other) noexcept = default;
  Map& operator=(const Map& other) = default;
  Map& operator=(Map&& other) = default;
  /*! \brief Share the map of another Map whose K/V are stored the same way (e.g. to Map<Any, Any>). */
  template <typename KU, typename VU,
            typename = std::enable_if_t<(std::is_same_v<K, Any> || std::is_same_v<K, KU>)&&(
                                            std::is_same_v<V, Any> || std::is_same_v<V, VU>) &&
                                        !(std::is_same_v<K, KU> && std::is_same_v<V, VU>)>>
  Map(const Map<KU, VU>& other) noexcept : ObjectRef(other) {}  // NOLINT(*)

  /*! \brief From (key, value) pairs; a repeated key takes the last value. */
  template <typename IterType>
  Map(IterType first, IterType last) : ObjectRef(MapObj::Create(RangeSize(first, last))) {
    for (; first != last; ++first) Set((*first).first, (*first).second);
  }
  Map(std::initializer_list<std::pair<K, V>> init) : Map(init.begin(), init.end()) {}
  template <typename Hash, typename Equal>
  Map(const std::unordered_map<K, V, Hash, Equal>& init)  // NOLINT(*)
      : Map(init.begin(), init.end()) {}
  template <typename Less>
  Map(const std::map<K, V, Less>& init) : Map(init.begin(), init.end()) {}  // NOLINT(*)

  /*! \return The value of a key; KeyError naming the key when it is absent. */
  V at(const K& key) const {
    TVMFFIAny view = KeyView(key);
    const MapObj* n = GetMapObj();
    if (n == nullptr) MapObj::ThrowKeyError(&view);
    return details::ElemOps<V>::CopyAfterCheck(n->AtCell(&view));
  }
  V operator[](const K& key) const { return at(key); }
  /*! \return The value of a key, or an empty Optional. */
  Optional<V> Get(const K& key) const {
    const TVMFFIAny* cell = FindCell(key);
    if (cell == nullptr) return Optional<V>(std::nullopt);
    return Optional<V>(details::ElemOps<V>::CopyAfterCheck(cell));
  }
  /*! \return 1 when the key is present, else 0. */
  size_t count(const K& key) const { return FindCell(key) != nullptr ? 1 : 0; }
  /*! \return Whether the key is present. */
  bool contains(const K& key) const { return FindCell(key) != nullptr; }
  size_t size() const noexcept {
    const MapObj* n = GetMapObj();
    return n == nullptr ? 0 : n->size();
  }
  bool empty() const noexcept { return size() == 0; }

  /*! \brief Set key to value (copy-on-write). */
  void Set(const K& key, const V& value) {
    TVMFFIAny k = details::MakeOwnedCell(K(key));
    TVMFFIAny v;
    try {
      v = details::MakeOwnedCell(V(value));
      CopyOnWrite();
    } catch (...) {
      details::ReleaseCell(&k);
      throw;
    }
    MapBaseObj::InsertOrAssign<MapObj>(&data_, k, v, details::AnyCellHash(&k));
  }
  /*! \brief Remove a key if present (copy-on-write only when it is present). */
  void erase(const K& key) {
    if (FindCell(key) == nullptr) return;
    TVMFFIAny view = KeyView(key);
    MapObj* n = CopyOnWrite();
    n->ErasePos(n->FindPos(&view, details::AnyCellHash(&view)));
  }
  /*! \brief Remove every entry. */
  void clear() {
    if (data_ == nullptr) return;
    if (data_.unique()) {
      GetMapObj()->clear();
    } else {
      data_ = MapObj::Empty();
    }
  }

  /*! \brief Make this reference the only one to its map (copying if shared). */
  MapObj* CopyOnWrite() {
    if (data_ == nullptr) {
      data_ = MapObj::Empty();
    } else if (!data_.unique()) {
      data_ = MapBaseObj::CopyOf<MapObj>(GetMapObj());
    }
    return GetMapObj();
  }

  /*! \brief Iterates in the map's order (see the top of this file), yielding std::pair<K, V>. */
  class iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using difference_type = int64_t;
    using value_type = const std::pair<K, V>;
    using pointer = value_type*;
    using reference = value_type;

    iterator() = default;
    reference operator*() const {
      return std::pair<K, V>(details::ElemOps<K>::CopyAfterCheck(itr_.key_cell()),
                             details::ElemOps<V>::CopyAfterCheck(itr_.value_cell()));
    }
    pointer operator->() const = delete;
    iterator& operator++() noexcept {
      ++itr_;
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator copy = *this;
      ++itr_;
      return copy;
    }
    iterator& operator--() noexcept {
      --itr_;
      return *this;
    }
    iterator operator--(int) noexcept {
      iterator copy = *this;
      --itr_;
      return copy;
    }
    bool operator==(const iterator& other) const noexcept { return itr_ == other.itr_; }
    bool operator!=(const iterator& other) const noexcept { return itr_ != other.itr_; }

   private:
    explicit iterator(MapObj::iterator itr) noexcept : itr_(itr) {}
    MapObj::iterator itr_;
    template <typename, typename, typename>
    friend class Map;
  };

  // A map made with UnsafeInit has no object: its begin() == end() (default iterators).
  iterator begin() const {
    const MapObj* n = GetMapObj();
    return n == nullptr ? iterator() : iterator(n->begin());
  }
  iterator end() const {
    const MapObj* n = GetMapObj();
    return n == nullptr ? iterator() : iterator(n->end());
  }
  /*! \return An iterator at the key, or end(). */
  iterator find(const K& key) const {
    const MapObj* n = GetMapObj();
    if (n == nullptr) return end();
    TVMFFIAny view = KeyView(key);
    return iterator(MapObj::iterator(n, n->FindPos(&view, details::AnyCellHash(&view))));
  }

  /*! \return Whether both maps hold equal values under equal keys (deep for containers). */
  bool operator==(const Map& other) const;
  bool operator!=(const Map& other) const { return !(*this == other); }

  /*! \return The map object (nullptr only for a map made with UnsafeInit). */
  MapObj* GetMapObj() const noexcept { return static_cast<MapObj*>(data_.get()); }

  using ContainerType = MapObj;
  static constexpr bool _type_is_nullable = false;

 private:
  static TVMFFIAny KeyView(const K& key) {
    TVMFFIAny view;
    if constexpr (std::is_same_v<K, Any>) {
      view = *details::AnyUnsafe::TVMFFIAnyPtrFromAny(key);
    } else {
      TypeTraits<K>::CopyToAnyView(key, &view);
    }
    return view;
  }
  template <typename IterType>
  static int64_t RangeSize(IterType first, IterType last) {
    using Category = typename std::iterator_traits<IterType>::iterator_category;
    if constexpr (std::is_base_of_v<std::forward_iterator_tag, Category>) {
      return static_cast<int64_t>(std::distance(first, last));
    } else {
      return 0;
    }
  }
  const TVMFFIAny* FindCell(const K& key) const {
    const MapObj* n = GetMapObj();
    if (n == nullptr) return nullptr;
    TVMFFIAny view = KeyView(key);
    return n->FindValueCell(&view);
  }
  template <typename, typename, typename>
  friend class Map;
};

/*! \brief A copy of lhs with every entry of rhs set into it. */
template <typename K, typename V>
inline Map<K, V> Merge(Map<K, V> lhs, const Map<K, V>& rhs) {
  for (const auto& kv : rhs) lhs.Set(kv.first, kv.second);
  return lhs;
}

// ---------------------------------------------------------------------------
// Content equality of cells (Array::operator==, Map::operator==).
// ---------------------------------------------------------------------------

namespace details {
inline bool CellContentEqual(const TVMFFIAny* a, const TVMFFIAny* b) {
  if (a->type_index == b->type_index && a->v_uint64 == b->v_uint64 &&
      a->zero_padding == b->zero_padding) {
    return true;
  }
  if (a->type_index == TypeIndex::kTVMFFIFloat || b->type_index == TypeIndex::kTVMFFIFloat) {
    return a->type_index == b->type_index && a->v_float64 == b->v_float64;
  }
  if (a->type_index != b->type_index) {
    // Only the forms of a string (or of bytes) differ in type index and still compare equal.
    return AnyCellEqual(a, b);
  }
  switch (a->type_index) {
    case TypeIndex::kTVMFFIArray: {
      const TVMFFISeqCell* x = TVMFFISeqGetCellPtr(a->v_obj);
      const TVMFFISeqCell* y = TVMFFISeqGetCellPtr(b->v_obj);
      if (x->size != y->size) return false;
      const TVMFFIAny* xs = static_cast<const TVMFFIAny*>(x->data);
      const TVMFFIAny* ys = static_cast<const TVMFFIAny*>(y->data);
      for (int64_t i = 0; i < x->size; ++i) {
        if (!CellContentEqual(xs + i, ys + i)) return false;
      }
      return true;
    }
    case TypeIndex::kTVMFFIMap: {
      const MapObj* x = reinterpret_cast<const MapObj*>(a->v_obj);
      const MapObj* y = reinterpret_cast<const MapObj*>(b->v_obj);
      if (x->size() != y->size()) return false;
      for (auto it = x->begin(); it != x->end(); ++it) {
        const TVMFFIAny* other = y->FindValueCell(it.key_cell());
        if (other == nullptr || !CellContentEqual(it.value_cell(), other)) return false;
      }
      return true;
    }
    case TypeIndex::kTVMFFIShape: {
      const TVMFFIShapeCell* x = TVMFFIShapeGetCellPtr(a->v_obj);
      const TVMFFIShapeCell* y = TVMFFIShapeGetCellPtr(b->v_obj);
      return x->size == y->size &&
             (x->size == 0 || std::memcmp(x->data, y->data, sizeof(int64_t) * x->size) == 0);
    }
    default:
      return AnyCellEqual(a, b);
  }
}
}  // namespace details

template <typename K, typename V, typename E>
inline bool Map<K, V, E>::operator==(const Map& other) const {
  if (data_ == other.data_) return true;
  if (size() != other.size()) return false;
  if (empty()) return true;
  TVMFFIAny a, b;
  details::SetAnyObject(&a, details::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*this));
  details::SetAnyObject(&b, details::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(other));
  return details::CellContentEqual(&a, &b);
}

// ---------------------------------------------------------------------------
// TypeTraits: a Map Any converts to Map<K, V> when every key converts to K and
// every value to V (a new map is built only when some entry needs converting).
// ---------------------------------------------------------------------------

template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Map<K, V>> = false;

template <typename K, typename V>
struct TypeTraits<Map<K, V>> : public ObjectRefTypeTraitsBase<Map<K, V>> {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIMap;
  using ObjectRefTypeTraitsBase<Map<K, V>>::CopyFromAnyViewAfterCheck;

  static constexpr bool kAnyKey = std::is_same_v<K, Any>;
  static constexpr bool kAnyValue = std::is_same_v<V, Any>;

  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIMap) return false;
    if constexpr (kAnyKey && kAnyValue) {
      return true;
    } else {
      const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
      for (auto it = n->begin(); it != n->end(); ++it) {
        if (!details::ElemOps<K>::CheckStrict(it.key_cell())) return false;
        if (!details::ElemOps<V>::CheckStrict(it.value_cell())) return false;
      }
      return true;
    }
  }

  static std::optional<Map<K, V>> TryCastFromAnyView(const TVMFFIAny* src) {
    // A Dict converts too, into a new Map (a Map must not alias a mutable Dict).
    if (src->type_index != TypeIndex::kTVMFFIMap && src->type_index != TypeIndex::kTVMFFIDict) {
      return std::nullopt;
    }
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    const MapBaseObj* n = reinterpret_cast<const MapBaseObj*>(src->v_obj);
    Map<K, V> result(MapObj::Create(static_cast<int64_t>(n->size())));
    for (auto it = n->begin(); it != n->end(); ++it) {
      std::optional<K> k = details::ElemOps<K>::TryCast(it.key_cell());
      if (!k.has_value()) return std::nullopt;
      std::optional<V> v = details::ElemOps<V>::TryCast(it.value_cell());
      if (!v.has_value()) return std::nullopt;
      result.Set(*k, *v);
    }
    return result;
  }

  /*! \return e.g. `Map[value at key "b" is str]`: the first entry that does not convert. */
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIMap && src->type_index != TypeIndex::kTVMFFIDict) {
      return TypeTraitsBase::GetMismatchTypeInfo(src);
    }
    const MapBaseObj* n = reinterpret_cast<const MapBaseObj*>(src->v_obj);
    for (auto it = n->begin(); it != n->end(); ++it) {
      if (!details::ElemOps<K>::Convertible(it.key_cell())) {
        return "Map[key " + details::CellToShortString(it.key_cell()) + " is " +
               details::ElemOps<K>::MismatchInfo(it.key_cell()) + "]";
      }
      if (!details::ElemOps<V>::Convertible(it.value_cell())) {
        return "Map[value at key " + details::CellToShortString(it.key_cell()) + " is " +
               details::ElemOps<V>::MismatchInfo(it.value_cell()) + "]";
      }
    }
    return StaticTypeKey::kTVMFFIMap;
  }

  static std::string TypeStr() {
    return "Map<" + details::ElemOps<K>::TypeStr() + ", " + details::ElemOps<V>::TypeStr() + ">";
  }
  static std::string TypeSchema() {
    return "{\"type\":\"ffi.Map\",\"args\":[" + details::ElemTypeSchema<K>() + "," +
           details::ElemTypeSchema<V>() + "]}";
  }
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_MAP_H_

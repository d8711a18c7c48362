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
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/details/stack_guard.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <cstring>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <string>
#include <type_traits>
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
    MapBaseObj::InsertOrAssign<MapObj>(data, key, value, detail::AnyCellHash(&key));
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
template <typename K, typename V, typename E = void>
class Map : public detail::MapRefBase<Map<K, V, E>, K, V, MapObj, detail::MapKind> {
  using MapBase = detail::MapRefBase<Map<K, V, E>, K, V, MapObj, detail::MapKind>;

 public:
  /*! \brief An empty map. */
  Map() : MapBase(MapObj::Empty()) {}
  explicit Map(UnsafeInit tag) noexcept : MapBase(tag) {}
  explicit Map(ObjectPtr<Object> n) noexcept : MapBase(std::move(n)) {}
  Map(const Map& other) noexcept = default;
  Map(Map&& other) noexcept = default;
  Map& operator=(const Map& other) = default;
  Map& operator=(Map&& other) = default;
  /*!
   * \brief Share the map of a Map<KU, VU> whose keys and values are valid K and V
   *        (e.g. Map<String, Array<Any>> from Map<String, Array<int>>).
   */
  template <typename KU, typename VU,
            typename = std::enable_if_t<detail::shares_as_v<Map, Map<KU, VU>>>>
  Map(const Map<KU, VU>& other) noexcept : MapBase(other) {}  // NOLINT(*)
  template <typename KU, typename VU,
            typename = std::enable_if_t<detail::shares_as_v<Map, Map<KU, VU>>>>
  Map(Map<KU, VU>&& other) noexcept : MapBase(std::move(other)) {}  // NOLINT(*)

  /*! \brief From (key, value) pairs; a repeated key takes the last value. */
  template <typename IterType>
  Map(IterType first, IterType last) : MapBase(MapObj::Create(detail::MapRangeSize(first, last))) {
    for (; first != last; ++first) this->Set((*first).first, (*first).second);
  }
  Map(std::initializer_list<std::pair<K, V>> init) : Map(init.begin(), init.end()) {}
  /*! \brief From a std::map or std::unordered_map of K to V. */
  template <typename StdMap, typename = std::enable_if_t<detail::is_std_assoc_v<StdMap, K, V>>>
  Map(const StdMap& init) : Map(init.begin(), init.end()) {}  // NOLINT(*)

  // Lookups, iteration and Set (copy-on-write): MapRefBase.

  /*! \brief Remove a key if present (copy-on-write only when it is present). */
  void erase(const K& key) {
    if (this->FindCell(key) == nullptr) return;
    TVMFFIAny view = detail::MapKeyView(key);
    MapObj* n = CopyOnWrite();
    n->ErasePos(n->FindPos(&view, detail::AnyCellHash(&view)));
  }
  /*! \brief Remove every entry. */
  void clear() {
    if (this->data_ == nullptr) return;
    if (this->data_.unique()) {
      GetMapObj()->clear();
    } else {
      this->data_ = MapObj::Empty();
    }
  }

  /*! \brief Make this reference the only one to its map (copying if shared). */
  MapObj* CopyOnWrite() {
    if (this->data_ == nullptr) {
      this->data_ = MapObj::Empty();
    } else if (!this->data_.unique()) {
      this->data_ = MapBaseObj::CopyOf<MapObj>(GetMapObj());
    }
    return GetMapObj();
  }

  /*! \return Whether both maps hold equal values under equal keys (deep for containers). */
  bool operator==(const Map& other) const;
  bool operator!=(const Map& other) const { return !(*this == other); }

  /*! \return The map object (nullptr only for a map made with UnsafeInit). */
  MapObj* GetMapObj() const noexcept { return this->Obj(); }

 private:
  // The mutation policy (MapRefBase::Set): a value is replaced in place only
  // in a unique map; a shared map is copied first.
  TVM_FFI_INLINE bool AssignIfPresent(const TVMFFIAny* key, uint64_t hash, TVMFFIAny v) {
    return this->data_.unique() && GetMapObj()->AssignIfPresent(key, hash, v);
  }
  TVM_FFI_INLINE void InsertCells(TVMFFIAny k, TVMFFIAny v, uint64_t hash) {
    try {
      CopyOnWrite();
    } catch (...) {
      detail::ReleaseCell(&k);
      detail::ReleaseCell(&v);
      throw;
    }
    MapBaseObj::InsertOrAssign<MapObj>(&this->data_, k, v, hash);
  }

  friend MapBase;
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

namespace detail {
[[noreturn]] TVM_FFI_NOINLINE TVM_FFI_COLD inline void ThrowContentEqualTooDeep() {
  TVM_FFI_THROW(ValueError) << "container comparison: the values are nested too deeply for this "
                               "thread's stack (two cycles, or a chain of containers thousands "
                               "of levels deep)";
}

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
    case TypeIndex::kTVMFFIArray:
    case TypeIndex::kTVMFFIList:
    case TypeIndex::kTVMFFIMap:
    case TypeIndex::kTVMFFIDict:
      // Nested containers recurse: two distinct cycles, or a chain deeper
      // than the stack, are a ValueError (the walkers' rule, stack_guard.h).
      if (TVM_FFI_PREDICT_FALSE(stack::NearlyExhausted(kWalkerStackReserve))) {
        ThrowContentEqualTooDeep();
      }
      break;
    default:
      break;
  }
  switch (a->type_index) {
    case TypeIndex::kTVMFFIArray:
    case TypeIndex::kTVMFFIList: {
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
    case TypeIndex::kTVMFFIMap:
    case TypeIndex::kTVMFFIDict: {
      const MapBaseObj* x = reinterpret_cast<const MapBaseObj*>(a->v_obj);
      const MapBaseObj* y = reinterpret_cast<const MapBaseObj*>(b->v_obj);
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
}  // namespace detail

template <typename K, typename V, typename E>
inline bool Map<K, V, E>::operator==(const Map& other) const {
  if (this->data_ == other.data_) return true;
  if (this->size() != other.size()) return false;
  if (this->empty()) return true;
  TVMFFIAny a, b;
  detail::SetAnyObject(&a, detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(*this));
  detail::SetAnyObject(&b, detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(other));
  return detail::CellContentEqual(&a, &b);
}

template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Map<K, V>> = false;

// A Map value converts from a Map, or from a Dict by copying (a Map must not
// alias a mutable Dict).
template <typename K, typename V>
struct TypeTraits<Map<K, V>> : public detail::MapTypeTraitsBase<Map<K, V>, K, V, detail::MapKind> {
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_MAP_H_

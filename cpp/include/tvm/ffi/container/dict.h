/*
 * tvmffi C++ layer: Dict<K, V>, a mutable hash map (type index 76).
 *
 * The object has the TVM-FFI 0.1 standard map layout, the same as Map's
 * (see the table in map_base.h), so other binaries read and insert into it
 * with their own inline code. Every reference shares the one object and sees
 * every change: when the storage must grow, the entries move to new storage
 * that this same object takes over, so its address never changes.
 *
 *   Dict<String, int64_t> d;
 *   Dict<String, int64_t> alias = d;
 *   alias.Set("a", 1);          // d.at("a") == 1
 *
 * Keys hash and compare as in Map (AnyHash / AnyEqual); the iteration order
 * follows the same rules as Map's (map.h). A Map converts to a Dict by
 * copying, and a Dict to a Map by copying. Not thread-safe: a Dict must not
 * be read while it is mutated. Mutation invalidates iterators.
 */
#ifndef TVM_FFI_CONTAINER_DICT_H_
#define TVM_FFI_CONTAINER_DICT_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <initializer_list>
#include <optional>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief The Dict object (type index 76): a MapBaseObj. */
class DictObj : public MapBaseObj {
 public:
  DictObj() noexcept = default;

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIDict;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIDict, DictObj, Object);
};

static_assert(sizeof(DictObj) == sizeof(MapBaseObj), "DictObj adds no fields");

/*!
 * \brief A mutable hash map from K to V, shared by reference (see the top of
 *        this file). K and V may be Any, or any type an Any can store.
 */
template <typename K, typename V, typename E = void>
class Dict : public detail::MapRefBase<Dict<K, V, E>, K, V, DictObj, detail::DictKind> {
  using MapBase = detail::MapRefBase<Dict<K, V, E>, K, V, DictObj, detail::DictKind>;

 public:
  /*! \brief An empty dict. */
  Dict() : MapBase(MapBaseObj::CreateEmpty<DictObj>()) {}
  explicit Dict(UnsafeInit tag) noexcept : MapBase(tag) {}
  explicit Dict(ObjectPtr<Object> n) noexcept : MapBase(std::move(n)) {}
  Dict(const Dict& other) noexcept = default;
  Dict(Dict&& other) noexcept = default;
  Dict& operator=(const Dict& other) = default;
  Dict& operator=(Dict&& other) = default;
  /*!
   * \brief Share the dict of a Dict<KU, VU> whose keys and values are valid K and V
   *        (e.g. Dict<Any, Any> from Dict<String, int>). Both then mutate the one
   *        dict; a Dict<KU, VU> read of an entry stored through the wider
   *        reference that is no KU / VU throws TypeError.
   */
  template <typename KU, typename VU,
            typename = std::enable_if_t<detail::shares_as_v<Dict, Dict<KU, VU>>>>
  Dict(const Dict<KU, VU>& other) noexcept : MapBase(other) {}  // NOLINT(*)
  template <typename KU, typename VU,
            typename = std::enable_if_t<detail::shares_as_v<Dict, Dict<KU, VU>>>>
  Dict(Dict<KU, VU>&& other) noexcept : MapBase(std::move(other)) {}  // NOLINT(*)

  /*! \brief From (key, value) pairs; a repeated key takes the last value. */
  template <typename IterType>
  Dict(IterType first, IterType last)
      : MapBase(MapBaseObj::CreateEmpty<DictObj>(
            static_cast<uint64_t>(detail::MapRangeSize(first, last)))) {
    for (; first != last; ++first) this->Set((*first).first, (*first).second);
  }
  Dict(std::initializer_list<std::pair<K, V>> init) : Dict(init.begin(), init.end()) {}
  /*! \brief From a std::map or std::unordered_map of K to V. */
  template <typename StdMap, typename = std::enable_if_t<detail::is_std_assoc_v<StdMap, K, V>>>
  Dict(const StdMap& init) : Dict(init.begin(), init.end()) {}  // NOLINT(*)

  // Lookups, iteration and Set (in place: every reference sees it): MapRefBase.

  /*! \brief Remove a key if present. */
  void erase(const K& key) {
    DictObj* n = GetDictObj();
    if (n == nullptr) return;
    TVMFFIAny view = detail::MapKeyView(key);
    uint64_t pos = n->FindPos(&view, detail::AnyCellHash(&view));
    if (pos != n->EndPos()) n->ErasePos(pos);
  }
  /*! \brief Remove every entry (the storage stays). */
  void clear() {
    DictObj* n = GetDictObj();
    if (n != nullptr) n->clear();
  }

  /*! \return The dict object (nullptr only for a dict made with UnsafeInit). */
  DictObj* GetDictObj() const noexcept { return this->Obj(); }

 private:
  // The mutation policy (MapRefBase::Set): the one shared object, always.
  TVM_FFI_INLINE bool AssignIfPresent(const TVMFFIAny* key, uint64_t hash, TVMFFIAny v) {
    DictObj* n = GetDictObj();
    return n != nullptr && n->AssignIfPresent(key, hash, v);
  }
  TVM_FFI_INLINE void InsertCells(TVMFFIAny k, TVMFFIAny v, uint64_t hash) {
    if (this->data_ == nullptr) {
      try {
        this->data_ = MapBaseObj::CreateEmpty<DictObj>();
      } catch (...) {
        detail::ReleaseCell(&k);
        detail::ReleaseCell(&v);
        throw;
      }
    }
    if (GetDictObj()->TryInsertOrAssign(k, v, hash)) return;
    ObjectPtr<Object> storage = this->data_;
    MapBaseObj::GrowAndInsert<DictObj>(&storage, k, v, hash);
    if (storage.get() != this->data_.get()) {
      // The entries moved to bigger storage: this object takes it over.
      GetDictObj()->TakeStorageFrom(std::move(storage));
    }
  }

  friend MapBase;
};

template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Dict<K, V>> = false;

// A Dict value converts from a Dict (shared: the same mutable object) or from
// a Map (copied into a new Dict).
template <typename K, typename V>
struct TypeTraits<Dict<K, V>>
    : public detail::MapTypeTraitsBase<Dict<K, V>, K, V, detail::DictKind> {};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_DICT_H_

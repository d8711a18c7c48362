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
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/container/map_base.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

#include <initializer_list>
#include <map>
#include <optional>
#include <type_traits>
#include <unordered_map>
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
template <typename K, typename V, typename = void>
class Dict : public ObjectRef {
 public:
  static_assert(details::storage_enabled_v<K> && details::storage_enabled_v<V>,
                "Dict<K, V>: K and V must be storable in an Any");
  using key_type = K;
  using mapped_type = V;
  using iterator = details::MapTypedIterator<K, V>;

  /*! \brief An empty dict. */
  Dict() : ObjectRef(MapBaseObj::CreateEmpty<DictObj>()) {}
  explicit Dict(UnsafeInit tag) noexcept : ObjectRef(tag) {}
  explicit Dict(ObjectPtr<Object> n) noexcept : ObjectRef(std::move(n)) {}
  Dict(const Dict& other) noexcept = default;
  Dict(Dict&& other) noexcept = default;
  Dict& operator=(const Dict& other) = default;
  Dict& operator=(Dict&& other) = default;

  /*! \brief From (key, value) pairs; a repeated key takes the last value. */
  template <typename IterType>
  Dict(IterType first, IterType last)
      : ObjectRef(MapBaseObj::CreateEmpty<DictObj>(
            static_cast<uint64_t>(details::MapRangeSize(first, last)))) {
    for (; first != last; ++first) Set((*first).first, (*first).second);
  }
  Dict(std::initializer_list<std::pair<K, V>> init) : Dict(init.begin(), init.end()) {}
  template <typename Hash, typename Equal>
  Dict(const std::unordered_map<K, V, Hash, Equal>& init)  // NOLINT(*)
      : Dict(init.begin(), init.end()) {}
  template <typename Less>
  Dict(const std::map<K, V, Less>& init) : Dict(init.begin(), init.end()) {}  // NOLINT(*)

  // ---- reading ----

  /*! \return The value of a key; KeyError naming the key when it is absent. */
  V at(const K& key) const {
    TVMFFIAny view = details::MapKeyView(key);
    const DictObj* n = GetDictObj();
    if (n == nullptr) MapBaseObj::ThrowKeyError(&view, "Dict");
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
  bool contains(const K& key) const { return FindCell(key) != nullptr; }
  size_t size() const noexcept {
    const DictObj* n = GetDictObj();
    return n == nullptr ? 0 : n->size();
  }
  bool empty() const noexcept { return size() == 0; }
  iterator begin() const {
    const DictObj* n = GetDictObj();
    return n == nullptr ? iterator() : iterator(n->begin());
  }
  iterator end() const {
    const DictObj* n = GetDictObj();
    return n == nullptr ? iterator() : iterator(n->end());
  }
  /*! \return An iterator at the key, or end(). */
  iterator find(const K& key) const {
    const DictObj* n = GetDictObj();
    if (n == nullptr) return end();
    TVMFFIAny view = details::MapKeyView(key);
    return iterator(MapBaseObj::iterator(n, n->FindPos(&view, details::AnyCellHash(&view))));
  }

  // ---- mutation, in place: every reference sees it ----

  /*! \brief Set key to value. */
  void Set(const K& key, const V& value) {
    if (data_ == nullptr) data_ = MapBaseObj::CreateEmpty<DictObj>();
    TVMFFIAny v = details::MakeOwnedCell(V(value));
    {
      TVMFFIAny view = details::MapKeyView(key);
      if (GetDictObj()->AssignIfPresent(&view, details::AnyCellHash(&view), v)) return;
    }
    TVMFFIAny k;
    try {
      k = details::MakeOwnedCell(K(key));
    } catch (...) {
      details::ReleaseCell(&v);
      throw;
    }
    ObjectPtr<Object> storage = data_;
    MapBaseObj::InsertOrAssign<DictObj>(&storage, k, v, details::AnyCellHash(&k));
    if (storage.get() != data_.get()) {
      // The entries moved to bigger storage: this object takes it over.
      GetDictObj()->TakeStorageFrom(std::move(storage));
    }
  }
  /*! \brief Remove a key if present. */
  void erase(const K& key) {
    DictObj* n = GetDictObj();
    if (n == nullptr) return;
    TVMFFIAny view = details::MapKeyView(key);
    uint64_t pos = n->FindPos(&view, details::AnyCellHash(&view));
    if (pos != n->EndPos()) n->ErasePos(pos);
  }
  /*! \brief Remove every entry (the storage stays). */
  void clear() {
    DictObj* n = GetDictObj();
    if (n != nullptr) n->clear();
  }

  /*! \return The dict object (nullptr only for a dict made with UnsafeInit). */
  DictObj* GetDictObj() const noexcept { return static_cast<DictObj*>(data_.get()); }

  using ContainerType = DictObj;
  static constexpr bool _type_is_nullable = false;

 private:
  const TVMFFIAny* FindCell(const K& key) const {
    const DictObj* n = GetDictObj();
    if (n == nullptr) return nullptr;
    TVMFFIAny view = details::MapKeyView(key);
    return n->FindValueCell(&view);
  }
};

template <typename K, typename V>
inline constexpr bool use_default_type_traits_v<Dict<K, V>> = false;

namespace details {
struct DictKind {
  static constexpr int32_t kIndex = TypeIndex::kTVMFFIDict;
  static constexpr int32_t kOtherIndex = TypeIndex::kTVMFFIMap;
  static constexpr const char* kName = "Dict";
  static constexpr const char* kKey = StaticTypeKey::kTVMFFIDict;
};
}  // namespace details

// A Dict value converts from a Dict (shared: the same mutable object) or from
// a Map (copied into a new Dict).
template <typename K, typename V>
struct TypeTraits<Dict<K, V>>
    : public details::MapTypeTraitsBase<Dict<K, V>, K, V, details::DictKind> {};

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_CONTAINER_DICT_H_

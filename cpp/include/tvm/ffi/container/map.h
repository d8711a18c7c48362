/*
 * tvmffi C++ layer: Map<K, V>, an insertion-ordered hash map (type index 72).
 *
 * Iteration order is insertion order: a new key goes to the end, assigning
 * to an existing key keeps its place, and erasing a key and setting it again
 * moves it to the end (as Python's dict).
 *
 * Object layout (ours; upstream's is different, so a Map object is only
 * ever read through the code of these headers or the ffi.Map* globals):
 *
 *   offset 0   TVMFFIObject header (type index 72)
 *   offset 24  int64_t size_         live entries
 *   offset 32  int64_t used_         entry slots consumed, live or erased
 *   offset 40  int64_t capacity_     entry slots allocated
 *   offset 48  uint64_t bucket_mask_ number of index buckets - 1 (a power of two - 1)
 *   offset 56  KVCell entries[capacity_]  {TVMFFIAny key; TVMFFIAny value;}, in insertion order
 *   then       uint64_t buckets[bucket_mask_ + 1]
 *
 * Everything lives in the one allocation of the object, so the object's own
 * deleter frees it whatever binary later mutates the map. The index is open
 * addressing with linear probing; a bucket is 0 when empty, else
 * (hash >> 32) << 32 | (entry + 1). There are at least twice as many buckets
 * as entry slots, so probes stay short. Erasing releases the entry's key and
 * value and marks its key with type index -1; the bucket keeps pointing at
 * it as a tombstone that never matches. Erased slots are reclaimed by
 * compacting in place (entries slide down, order kept, index rebuilt) once
 * they outnumber the live ones, or when the slots run out; only when the
 * live entries fill more than half the slots does the map move to a new
 * object of twice the capacity.
 *
 * Keys: strings and bytes compare by content (a small string equals a heap
 * string with the same bytes), ints / floats / bools by type and value,
 * objects by identity. Like Array, a Map is copy-on-write: mutating a map
 * that is shared copies it first; a unique map is changed in place.
 * Mutation invalidates iterators.
 */
#ifndef TVM_FFI_CONTAINER_MAP_H_
#define TVM_FFI_CONTAINER_MAP_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_details.h>
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

/*! \brief The Map object: header + insertion-ordered entries + open-addressing index. */
class MapObj : public Object {
 public:
  /*! \brief One entry: an owned key and an owned value. */
  struct KVCell {
    TVMFFIAny key;
    TVMFFIAny value;
  };
  /*! \brief The (key, value) pair an iterator yields. */
  using KVType = std::pair<Any, Any>;

  /*! \brief Iterates over the live entries in insertion order. */
  class iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using difference_type = int64_t;
    using value_type = KVType;
    using pointer = const KVType*;
    using reference = KVType;

    iterator() noexcept = default;
    /*! \return A copy of the current (key, value) pair. */
    KVType operator*() const {
      const KVCell& cell = self_->Entries()[index_];
      return KVType(Any(AnyView::CopyFromTVMFFIAny(cell.key)),
                    Any(AnyView::CopyFromTVMFFIAny(cell.value)));
    }
    /*! \return The current key cell (borrowed). */
    const TVMFFIAny* key_cell() const noexcept { return &self_->Entries()[index_].key; }
    /*! \return The current value cell (borrowed). */
    const TVMFFIAny* value_cell() const noexcept { return &self_->Entries()[index_].value; }
    /*! \return The current key, as a reference into the map. */
    const Any& key() const noexcept { return *reinterpret_cast<const Any*>(key_cell()); }
    /*! \return The current value, as a reference into the map. */
    const Any& value() const noexcept { return *reinterpret_cast<const Any*>(value_cell()); }
    iterator& operator++() noexcept {
      index_ = self_->NextLive(index_ + 1);
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator copy = *this;
      ++*this;
      return copy;
    }
    iterator& operator--() noexcept {
      index_ = self_->PrevLive(index_ - 1);
      return *this;
    }
    iterator operator--(int) noexcept {
      iterator copy = *this;
      --*this;
      return copy;
    }
    bool operator==(const iterator& other) const noexcept {
      return self_ == other.self_ && index_ == other.index_;
    }
    bool operator!=(const iterator& other) const noexcept { return !(*this == other); }

   private:
    iterator(const MapObj* self, int64_t index) noexcept : self_(self), index_(index) {}
    const MapObj* self_{nullptr};
    int64_t index_{0};
    friend class MapObj;
    template <typename, typename, typename>
    friend class Map;
  };

  /*! \brief Prefer the static Create*: the trailing storage must be allocated with the object. */
  MapObj(int64_t capacity, uint64_t num_buckets) noexcept
      : size_(0), used_(0), capacity_(capacity), bucket_mask_(num_buckets - 1) {
    std::memset(static_cast<void*>(Buckets()), 0, sizeof(uint64_t) * num_buckets);
  }
  MapObj(const MapObj&) = delete;
  MapObj& operator=(const MapObj&) = delete;
  ~MapObj() {
    KVCell* entries = Entries();
    for (int64_t i = 0; i < used_; ++i) {
      if (entries[i].key.type_index == kErasedKey) continue;
      details::ReleaseCell(&entries[i].key);
      details::ReleaseCell(&entries[i].value);
    }
  }

  /*! \return The number of entries. */
  size_t size() const noexcept { return static_cast<size_t>(size_); }
  /*! \return Whether the map has no entries. */
  bool empty() const noexcept { return size_ == 0; }
  /*! \return The number of entry slots (live + erased + free). */
  size_t capacity() const noexcept { return static_cast<size_t>(capacity_); }

  /*! \return 1 when the key is present, else 0. */
  size_t count(const Any& key) const noexcept { return FindEntry(CellOf(key)) >= 0 ? 1 : 0; }
  /*! \return The value of a key; KeyError naming the key when it is absent. */
  const Any& at(const Any& key) const { return *reinterpret_cast<const Any*>(AtCell(CellOf(key))); }
  const Any& operator[](const Any& key) const { return at(key); }
  /*! \return An iterator at the key, or end(). */
  iterator find(const Any& key) const noexcept {
    int64_t e = FindEntry(CellOf(key));
    return e >= 0 ? iterator(this, e) : end();
  }
  iterator begin() const noexcept { return iterator(this, NextLive(0)); }
  iterator end() const noexcept { return iterator(this, used_); }

  /*! \return The value cell of a key (any form of the key, views included), or nullptr. */
  TVM_FFI_INLINE const TVMFFIAny* FindValueCell(const TVMFFIAny* key) const noexcept {
    int64_t e = FindEntry(key);
    return e >= 0 ? &Entries()[e].value : nullptr;
  }
  /*! \return The value cell of a key; KeyError naming the key when it is absent. */
  TVM_FFI_INLINE const TVMFFIAny* AtCell(const TVMFFIAny* key) const {
    int64_t e = FindEntry(key);
    if (TVM_FFI_PREDICT_FALSE(e < 0)) ThrowKeyError(key);
    return &Entries()[e].value;
  }

  // ---- construction and mutation (used by Map<K, V>; `self` must be unique) ----

  /*! \brief Initial number of entry slots once something is inserted. */
  static constexpr int64_t kInitCapacity = 4;

  /*! \return A new empty map with room for `capacity` entries. */
  static ObjectPtr<MapObj> Create(int64_t capacity) {
    if (capacity < 0) capacity = 0;
    if (capacity > kMaxCapacity) {
      TVM_FFI_THROW(ValueError) << "Map: cannot hold " << capacity << " entries (at most "
                                << kMaxCapacity << ")";
    }
    uint64_t num_buckets = 1;
    while (num_buckets < static_cast<uint64_t>(capacity) * 2) num_buckets <<= 1;
    size_t bytes = sizeof(MapObj) + sizeof(KVCell) * static_cast<size_t>(capacity) +
                   sizeof(uint64_t) * num_buckets;
    return details::MakeObjectWithSize<MapObj>(bytes, capacity, num_buckets);
  }
  /*! \return A new empty map (no entry slots yet). */
  static ObjectPtr<MapObj> Empty() { return Create(0); }

  /*! \return A new map holding copies of the live entries of `from`, with at least `capacity` slots. */
  static ObjectPtr<MapObj> CopyFrom(int64_t capacity, const MapObj* from) {
    ObjectPtr<MapObj> p = Create(capacity > from->size_ ? capacity : from->size_);
    const KVCell* src = from->Entries();
    KVCell* dst = p->Entries();
    for (int64_t i = 0; i < from->used_; ++i) {
      if (src[i].key.type_index == kErasedKey) continue;
      dst[p->used_].key = details::CopyCell(src[i].key);
      dst[p->used_].value = details::CopyCell(src[i].value);
      ++p->used_;
    }
    p->size_ = p->used_;
    p->RebuildIndex();
    return p;
  }

  /*!
   * \brief Set key to value in the unique map *data (null: a new map),
   *        growing or compacting as needed; may replace *data.
   * \param key, value Owned cells; ownership passes to the map.
   */
  static void InsertOrAssign(ObjectPtr<Object>* data, TVMFFIAny key, TVMFFIAny value) {
    InsertOrAssign(data, key, value, details::KeyCellHash(&key));
  }
  /*! \brief As above, with the key's hash (details::KeyCellHash) already computed. */
  static void InsertOrAssign(ObjectPtr<Object>* data, TVMFFIAny key, TVMFFIAny value,
                             uint64_t hash) {
    if (*data == nullptr) *data = Create(kInitCapacity);
    MapObj* self = static_cast<MapObj*>(data->get());
    int64_t e = self->FindEntryWithHash(&key, hash);
    if (e >= 0) {
      // Existing key: keep its place and its stored key, replace the value.
      details::ReleaseCell(&key);
      self->AssignValue(e, value);
      return;
    }
    if (self->used_ == self->capacity_) {
      if (self->size_ * 2 <= self->capacity_ && self->capacity_ > 0) {
        self->CompactInPlace();
      } else {
        int64_t cap = self->capacity_ * 2;
        if (cap < kInitCapacity) cap = kInitCapacity;
        // The object moves: relocate the cells into a bigger one.
        ObjectPtr<MapObj> bigger = MoveFrom(cap, self);
        *data = std::move(bigger);
        self = static_cast<MapObj*>(data->get());
      }
    }
    self->AppendNew(key, value, hash);
  }

  /*! \brief Erase a key from this (unique) map; returns whether it was present. */
  bool EraseKey(const TVMFFIAny* key) {
    int64_t e = FindEntry(key);
    if (e < 0) return false;
    EraseEntry(e);
    return true;
  }

  /*! \brief Drop every entry (keeps the capacity). */
  void Clear() {
    KVCell* entries = Entries();
    int64_t used = used_;
    size_ = 0;
    used_ = 0;
    std::memset(static_cast<void*>(Buckets()), 0, sizeof(uint64_t) * (bucket_mask_ + 1));
    for (int64_t i = 0; i < used; ++i) {
      if (entries[i].key.type_index == kErasedKey) continue;
      details::ReleaseCell(&entries[i].key);
      details::ReleaseCell(&entries[i].value);
    }
  }

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIMap;
  static constexpr bool _type_final = true;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIMap, MapObj, Object);

 private:
  /*! \brief Type index written into the key of an erased entry (never a real key). */
  static constexpr int32_t kErasedKey = TypeIndex::kTVMFFIAny;
  static constexpr int64_t kMaxCapacity = (int64_t{1} << 31) - 1;

  int64_t size_;
  int64_t used_;
  int64_t capacity_;
  uint64_t bucket_mask_;

  KVCell* Entries() const noexcept {
    return reinterpret_cast<KVCell*>(const_cast<char*>(reinterpret_cast<const char*>(this)) +
                                     sizeof(MapObj));
  }
  uint64_t* Buckets() const noexcept {
    return reinterpret_cast<uint64_t*>(Entries() + capacity_);
  }
  static const TVMFFIAny* CellOf(const Any& any) noexcept {
    return details::AnyUnsafe::TVMFFIAnyPtrFromAny(any);
  }

  int64_t NextLive(int64_t i) const noexcept {
    const KVCell* entries = Entries();
    while (i < used_ && entries[i].key.type_index == kErasedKey) ++i;
    return i;
  }
  int64_t PrevLive(int64_t i) const noexcept {
    const KVCell* entries = Entries();
    while (i > 0 && entries[i].key.type_index == kErasedKey) --i;
    return i;
  }

  TVM_FFI_INLINE int64_t FindEntry(const TVMFFIAny* key) const noexcept {
    return FindEntryWithHash(key, details::KeyCellHash(key));
  }
  TVM_FFI_INLINE int64_t FindEntryWithHash(const TVMFFIAny* key, uint64_t hash) const noexcept {
    const uint64_t* buckets = Buckets();
    const KVCell* entries = Entries();
    const uint64_t tag = hash >> 32;
    uint64_t pos = hash & bucket_mask_;
    while (true) {
      uint64_t b = buckets[pos];
      if (b == 0) return -1;
      if ((b >> 32) == tag) {
        int64_t e = static_cast<int64_t>(static_cast<uint32_t>(b)) - 1;
        if (details::KeyCellEqual(&entries[e].key, key)) return e;
      }
      pos = (pos + 1) & bucket_mask_;
    }
  }

  /*! \brief Index an entry; there is always a free bucket (buckets > 2 * capacity). */
  TVM_FFI_INLINE void PlaceInIndex(int64_t entry, uint64_t hash) noexcept {
    uint64_t* buckets = Buckets();
    uint64_t pos = hash & bucket_mask_;
    while (buckets[pos] != 0) pos = (pos + 1) & bucket_mask_;
    buckets[pos] = ((hash >> 32) << 32) | static_cast<uint64_t>(entry + 1);
  }

  /*! \brief Replace the value of entry e with an owned cell (the old one is released last). */
  void AssignValue(int64_t e, TVMFFIAny value) {
    KVCell& cell = Entries()[e];
    TVMFFIAny old = cell.value;
    cell.value = value;
    details::ReleaseCell(&old);
  }

  void AppendNew(TVMFFIAny key, TVMFFIAny value, uint64_t hash) noexcept {
    KVCell& cell = Entries()[used_];
    cell.key = key;
    cell.value = value;
    PlaceInIndex(used_, hash);
    ++used_;
    ++size_;
  }

  void RebuildIndex() noexcept {
    std::memset(static_cast<void*>(Buckets()), 0, sizeof(uint64_t) * (bucket_mask_ + 1));
    const KVCell* entries = Entries();
    for (int64_t i = 0; i < used_; ++i) {
      if (entries[i].key.type_index == kErasedKey) continue;
      PlaceInIndex(i, details::KeyCellHash(&entries[i].key));
    }
  }

  /*! \brief Slide the live entries down over the erased ones (order kept) and reindex. */
  void CompactInPlace() noexcept {
    KVCell* entries = Entries();
    int64_t w = 0;
    for (int64_t r = 0; r < used_; ++r) {
      if (entries[r].key.type_index == kErasedKey) continue;
      if (w != r) entries[w] = entries[r];  // cells relocate bitwise: ownership moves along
      ++w;
    }
    used_ = w;
    RebuildIndex();
  }

  /*! \return A new map taking over the live cells of `from` (which is left empty). */
  static ObjectPtr<MapObj> MoveFrom(int64_t capacity, MapObj* from) {
    ObjectPtr<MapObj> p = Create(capacity > from->size_ ? capacity : from->size_);
    const KVCell* src = from->Entries();
    KVCell* dst = p->Entries();
    for (int64_t i = 0; i < from->used_; ++i) {
      if (src[i].key.type_index == kErasedKey) continue;
      dst[p->used_++] = src[i];
    }
    p->size_ = p->used_;
    from->size_ = 0;
    from->used_ = 0;
    p->RebuildIndex();
    return p;
  }

  void EraseEntry(int64_t e) {
    KVCell& cell = Entries()[e];
    TVMFFIAny key = cell.key;
    TVMFFIAny value = cell.value;
    cell.key.type_index = kErasedKey;
    cell.key.zero_padding = 0;
    cell.key.v_int64 = 0;
    details::SetAnyNone(&cell.value);
    --size_;
    // Many tombstones make probes and iteration slow: compact once they outnumber live entries.
    int64_t erased = used_ - size_;
    if (erased > 8 && erased > size_) CompactInPlace();
    // Release last: a destructor may run arbitrary code (even look at this map).
    details::ReleaseCell(&key);
    details::ReleaseCell(&value);
  }

  [[noreturn]] TVM_FFI_NOINLINE TVM_FFI_COLD static void ThrowKeyError(const TVMFFIAny* key) {
    TVM_FFI_THROW(KeyError) << "key " << details::CellToShortString(key)
                            << " is not in the Map";
  }

  template <typename, typename, typename>
  friend class Map;
};

static_assert(sizeof(MapObj) == 56, "MapObj layout: header + 4 x 8 bytes");

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

  /*! \brief From (key, value) pairs; a repeated key keeps its first place and its last value. */
  template <typename IterType>
  Map(IterType first, IterType last) : ObjectRef(MapObj::Empty()) {
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

  /*! \brief Set key to value (copy-on-write). An existing key keeps its place. */
  void Set(const K& key, const V& value) {
    TVMFFIAny view = KeyView(key);
    const uint64_t hash = details::KeyCellHash(&view);
    MapObj* n = GetMapObj();
    if (n != nullptr && data_.unique()) {
      int64_t e = n->FindEntryWithHash(&view, hash);
      if (e >= 0) {
        // Existing key in a unique map: only the value changes.
        n->AssignValue(e, details::MakeOwnedCell(V(value)));
        return;
      }
    }
    TVMFFIAny k = details::MakeOwnedCell(K(key));
    TVMFFIAny v;
    try {
      v = details::MakeOwnedCell(V(value));
    } catch (...) {
      details::ReleaseCell(&k);
      throw;
    }
    if (n != nullptr && !data_.unique()) {
      // Copy with one spare slot so the insertion does not reallocate again.
      data_ = MapObj::CopyFrom(n->size_ + 1, n);
    }
    MapObj::InsertOrAssign(&data_, k, v, hash);
  }
  /*! \brief Remove a key if present (copy-on-write only when it is present). */
  void erase(const K& key) {
    if (FindCell(key) == nullptr) return;
    TVMFFIAny view = KeyView(key);
    CopyOnWrite()->EraseKey(&view);
  }
  /*! \brief Remove every entry. */
  void clear() {
    if (data_ == nullptr) return;
    if (data_.unique()) {
      GetMapObj()->Clear();
    } else {
      data_ = MapObj::Empty();
    }
  }

  /*! \brief Make this reference the only one to its map (copying if shared). */
  MapObj* CopyOnWrite() {
    if (data_ == nullptr) {
      data_ = MapObj::Empty();
    } else if (!data_.unique()) {
      data_ = MapObj::CopyFrom(GetMapObj()->size_, GetMapObj());
    }
    return GetMapObj();
  }

  /*! \brief Iterates in insertion order, yielding std::pair<K, V>. */
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
    int64_t e = n->FindEntry(&view);
    return e >= 0 ? iterator(MapObj::iterator(n, e)) : end();
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
    return KeyCellEqual(a, b);
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
      return KeyCellEqual(a, b);
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
    if (src->type_index != TypeIndex::kTVMFFIMap) return std::nullopt;
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
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
    if (src->type_index != TypeIndex::kTVMFFIMap) return TypeTraitsBase::GetMismatchTypeInfo(src);
    const MapObj* n = reinterpret_cast<const MapObj*>(src->v_obj);
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

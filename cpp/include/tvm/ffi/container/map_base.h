/*
 * tvmffi C++ layer: MapBaseObj, the storage shared by Map (type index 72,
 * immutable, copy-on-write) and Dict (type index 76, mutable in place).
 *
 * The layout is the TVM-FFI 0.1 standard one: a binary built against any
 * TVM-FFI 0.1 headers reads, searches, iterates and (for Dict) inserts into
 * these objects with its own inline code, so every offset, encoding, hash
 * and growth rule below is fixed. tests/c_abi/test_container_layout.cc pins the
 * offsets; tests/c_abi/test_map_layout_c.c reads a map from C with them.
 *
 * Object (all offsets in bytes, 64-bit targets):
 *
 * | offset | field          | type             | meaning                                   |
 * |--------|----------------|------------------|-------------------------------------------|
 * | 0      | header         | TVMFFIObject     | type index 72 (Map) or 76 (Dict)          |
 * | 24     | data           | void*            | the entries (small) or the blocks (dense) |
 * | 32     | size           | uint64_t         | number of entries                         |
 * | 40     | slots          | uint64_t         | bit 63 set: small form; low bits: slots   |
 * | 48     | data_deleter   | void (*)(void*)  | frees `data`; NULL when `data` is inline  |
 * | 56     | fib_shift      | uint32_t         | dense only: 64 - log2(slots)              |
 * | 64     | iter_list_head | uint64_t         | dense only: first slot in iteration order |
 * | 72     | iter_list_tail | uint64_t         | dense only: last slot in iteration order  |
 *
 * A small object is 56 bytes followed (when made here) by its entries; a
 * dense one is 80 bytes. A small object always has room for 2 entries
 * inline (56 + 64 >= 80), so a Dict can turn into the dense form in place.
 *
 * Small form (slots bit 63 set, at most 4 slots): `data` points at `slots`
 * entries of {TVMFFIAny key; TVMFFIAny value;} (32 bytes), the first `size`
 * in use, in insertion order. Lookup is a linear scan. Erasing slides the
 * later entries down. A full small map of fewer than 4 slots grows to a
 * small map of min(max(2 * slots, 2), 4) slots; a full one of 4 slots turns
 * dense.
 *
 * Dense form (bit 63 clear, `slots` a power of two): `data` is an array of
 * slots / 16 blocks of 784 bytes: 16 metadata bytes, then 16 items of 48
 * bytes {TVMFFIAny key; TVMFFIAny value; uint64_t prev; uint64_t next;}.
 * Slot i lives in block i / 16, at position i % 16. Metadata byte:
 *   0xFF            empty slot
 *   0xFE            protected (only transiently, during an insertion)
 *   bit 7 clear     head of a chain; bit 7 set: a later link of some chain
 *   bits 0-6 (jump) 0: end of chain, else the next link is at
 *                   (i + kMapJumpDistance[jump]) % slots
 * A key with hash h (AnyHash) lives in the chain whose head is slot
 * (h * 11400714819323198485) >> fib_shift (64-bit product); if that slot is
 * not a head, the key is absent. prev/next thread every entry into a doubly
 * linked iteration list (UINT64_MAX ends it), from iter_list_head to
 * iter_list_tail, in insertion order. Assigning to a key that is already
 * present moves it to the end of that list (the small form keeps its place).
 * The table counts as full when size + 1 > slots * 0.99 (as a double), or
 * when no free slot is reachable from the chain's tail by one of the 125
 * jumps; then it is rebuilt with twice the slots (fib_shift - 1), every
 * entry placed anew and the iteration order kept (which slot an entry lands
 * in is not part of the format: readers follow the metadata and the list).
 * A table built for n >= 4 entries at once
 * has the smallest power of two p > n slots, doubled when p < 2n.
 *
 * Ownership: entries hold references (TVMFFIAny cells, as in Any). The
 * object's own deleter releases the entries and calls data_deleter(data) if
 * set, whichever form the object is in by then (a Dict may have switched
 * form in another binary). Not thread-safe: a Dict, or a Map being built,
 * must not be read while it is mutated.
 */
#ifndef TVM_FFI_CONTAINER_MAP_BASE_H_
#define TVM_FFI_CONTAINER_MAP_BASE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>

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

template <typename Derived, typename K, typename V, typename ObjT, typename Kind>
class MapRefBase;

/*! \brief Jump distances of the dense form's chains, by the 7-bit jump code (0: no next). */
struct MapJumpTable {
  uint64_t dist[126];
  constexpr MapJumpTable() : dist() {
    // Codes 0-15 jump by their own value, codes 16-82 by the triangle
    // numbers T(6)..T(72), codes 83-125 by the sparse large distances below.
    constexpr uint64_t kLarge[43] = {
        8515ULL,
        19110ULL,
        42778ULL,
        96141ULL,
        216153ULL,
        486591ULL,
        1092981ULL,
        2458653ULL,
        5532801ULL,
        12442566ULL,
        27993903ULL,
        62983476ULL,
        141717030ULL,
        318844378ULL,
        717352503ULL,
        1614057336ULL,
        3631522476ULL,
        8170957530ULL,
        18384510628ULL,
        41364789378ULL,
        93070452520ULL,
        209408356380ULL,
        471168559170ULL,
        1060128894105ULL,
        2385289465695ULL,
        5366898840628ULL,
        12075518705635ULL,
        27169915244790ULL,
        61132312065111ULL,
        137547689707000ULL,
        309482283181501ULL,
        696335127828753ULL,
        1566753995631385ULL,
        3525196511162271ULL,
        7931691992677701ULL,
        17846306936293605ULL,
        40154190677507445ULL,
        90346928918121501ULL,
        203280589587557251ULL,
        457381325854679626ULL,
        1029107982097042876ULL,
        2315492959180353330ULL,
        5209859154120846435ULL,
    };
    for (int i = 0; i < 16; ++i) dist[i] = static_cast<uint64_t>(i);
    for (int n = 6; n <= 72; ++n)
      dist[16 + (n - 6)] = static_cast<uint64_t>(n) * static_cast<uint64_t>(n + 1) / 2;
    for (int i = 0; i < 43; ++i) dist[83 + i] = kLarge[i];
  }
};
inline constexpr MapJumpTable kMapJumps{};
static_assert(kMapJumps.dist[16] == 21 && kMapJumps.dist[82] == 2628 &&
                  kMapJumps.dist[83] == 8515 && kMapJumps.dist[125] == 5209859154120846435ULL,
              "dense map jump table");

/*! \brief A dense slot's item: the entry, then its iteration-list links. */
struct MapDenseItem {
  TVMFFIAny key;
  TVMFFIAny value;
  uint64_t prev;
  uint64_t next;
};
static_assert(sizeof(MapDenseItem) == 48, "dense map item is 48 bytes");

/*! \brief The dense-only fields, stored right after the 56-byte common part. */
struct MapDenseFields {
  uint32_t fib_shift;
  uint32_t unused;
  uint64_t iter_list_head;
  uint64_t iter_list_tail;
};

}  // namespace detail

/*! \brief The storage of Map and Dict (see the top of this file). No type index of its own. */
class MapBaseObj : public Object {
 public:
  using key_type = Any;
  using mapped_type = Any;
  /*! \brief How an entry reads: its key and value as Any (same bytes as the two cells). */
  using KVType = std::pair<Any, Any>;
  /*! \brief An entry as stored: an owned key cell and an owned value cell. */
  struct KVCell {
    TVMFFIAny key;
    TVMFFIAny value;
  };
  static_assert(sizeof(KVType) == sizeof(KVCell), "an entry reads as std::pair<Any, Any>");

  /*! \brief Bit of `slots` that marks the small form. */
  static constexpr uint64_t kSmallTag = uint64_t{1} << 63;
  /*! \brief Slots a small map starts with and grows to at most. */
  static constexpr uint64_t kSmallMinSlots = 2;
  static constexpr uint64_t kSmallMaxSlots = 4;
  /*! \brief Entries per dense block; bytes per block (metadata + items). */
  static constexpr uint64_t kBlockSlots = 16;
  static constexpr size_t kBlockBytes = kBlockSlots + kBlockSlots * sizeof(detail::MapDenseItem);
  /*! \brief Dense metadata values. */
  static constexpr uint8_t kEmptyMeta = 0xFF;
  static constexpr uint8_t kProtectedMeta = 0xFE;
  static constexpr uint8_t kTailBit = 0x80;
  static constexpr uint8_t kJumpMask = 0x7F;
  /*! \brief Ends the dense iteration list; also the dense end() position. */
  static constexpr uint64_t kNoSlot = ~uint64_t{0};
  /*! \brief Multiplier of the Fibonacci hashing that picks a chain's head. */
  static constexpr uint64_t kFibMul = 11400714819323198485ULL;

  /*! \brief Walks the entries: in order of position (small), of the iteration list (dense). */
  class iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using difference_type = int64_t;
    using value_type = KVType;
    using pointer = KVType*;
    using reference = KVType&;

    iterator() noexcept = default;
    /*! \return The entry, as a reference into the map (valid until the map changes). */
    KVType& operator*() const noexcept { return *operator->(); }
    KVType* operator->() const noexcept {
      return reinterpret_cast<KVType*>(self_->EntryAt(index_));
    }
    /*! \return The current key / value cell (borrowed). */
    const TVMFFIAny* key_cell() const noexcept { return &self_->EntryAt(index_)->key; }
    const TVMFFIAny* value_cell() const noexcept { return &self_->EntryAt(index_)->value; }
    /*! \return The current key / value, as references into the map. */
    const Any& key() const noexcept { return *reinterpret_cast<const Any*>(key_cell()); }
    const Any& value() const noexcept { return *reinterpret_cast<const Any*>(value_cell()); }
    iterator& operator++() noexcept {
      index_ = self_->NextPos(index_);
      return *this;
    }
    iterator operator++(int) noexcept {
      iterator copy = *this;
      ++*this;
      return copy;
    }
    iterator& operator--() noexcept {
      index_ = self_->PrevPos(index_);
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
    iterator(const MapBaseObj* self, uint64_t index) noexcept : self_(self), index_(index) {}
    const MapBaseObj* self_{nullptr};
    uint64_t index_{0};
    friend class MapBaseObj;
    template <typename, typename, typename>
    friend class Map;
    template <typename, typename, typename>
    friend class Dict;
    template <typename, typename, typename, typename, typename>
    friend class detail::MapRefBase;
  };

  MapBaseObj(const MapBaseObj&) = delete;
  MapBaseObj& operator=(const MapBaseObj&) = delete;
  ~MapBaseObj() {
    DropEntries();
    if (data_deleter_ != nullptr) data_deleter_(data_);
  }

  /*! \return The number of entries. */
  size_t size() const noexcept { return static_cast<size_t>(size_); }
  /*! \return Whether the map has no entries. */
  bool empty() const noexcept { return size_ == 0; }
  /*! \return Whether the map is in the small form. */
  bool IsSmallMap() const noexcept { return (slots_ & kSmallTag) != 0; }
  /*! \return The number of slots (small: entry room; dense: table size). */
  uint64_t NumSlots() const noexcept { return slots_ & ~kSmallTag; }

  /*! \return 1 when the key is present, else 0. */
  size_t count(const Any& key) const noexcept { return FindValueCell(CellOf(key)) ? 1 : 0; }
  /*! \return The value of a key; KeyError naming the key when it is absent. */
  const Any& at(const Any& key) const { return *reinterpret_cast<const Any*>(AtCell(CellOf(key))); }
  Any& at(const Any& key) {
    return *reinterpret_cast<Any*>(const_cast<TVMFFIAny*>(AtCell(CellOf(key))));
  }
  const Any& operator[](const Any& key) const { return at(key); }
  /*! \return An iterator at the key, or end(). */
  iterator find(const Any& key) const noexcept {
    return iterator(this, FindPos(CellOf(key), detail::AnyCellHash(CellOf(key))));
  }
  iterator begin() const noexcept {
    return iterator(this, IsSmallMap() ? 0 : Dense()->iter_list_head);
  }
  iterator end() const noexcept { return iterator(this, EndPos()); }

  /*! \return The value cell of a key (any form of the key, views included), or nullptr. */
  TVM_FFI_INLINE const TVMFFIAny* FindValueCell(const TVMFFIAny* key) const noexcept {
    uint64_t pos = FindPos(key, detail::AnyCellHash(key));
    return pos == EndPos() ? nullptr : &EntryAt(pos)->value;
  }
  /*! \return The value cell of a key; KeyError naming the key when it is absent. */
  TVM_FFI_INLINE const TVMFFIAny* AtCell(const TVMFFIAny* key) const {
    const TVMFFIAny* cell = FindValueCell(key);
    if (TVM_FFI_PREDICT_FALSE(cell == nullptr)) {
      ThrowKeyError(key, header_.type_index == TypeIndex::kTVMFFIDict ? "Dict" : "Map");
    }
    return cell;
  }

  /*! \brief Erase the entry at an iterator of this map (nothing at end()). Not while others read.
   */
  void erase(const iterator& position) {
    if (position.self_ == this && position.index_ != EndPos()) ErasePos(position.index_);
  }
  /*! \brief Erase a key if present. Not while others read. */
  void erase(const Any& key) { erase(find(key)); }
  /*! \brief Drop every entry, keeping the slots. Not while others read. */
  void clear() noexcept {
    ReleaseEntries();
    size_ = 0;
    if (!IsSmallMap()) {
      detail::MapDenseFields* d = Dense();
      d->iter_list_head = kNoSlot;
      d->iter_list_tail = kNoSlot;
    }
  }

  [[noreturn]] TVM_FFI_COLD_CODE static void ThrowKeyError(const TVMFFIAny* key,
                                                           const char* kind = "Map") {
    TVM_FFI_THROW(KeyError) << "key " << detail::CellToShortString(key) << " is not in the "
                            << kind;
  }

  // ---- construction and mutation (Map and Dict) ----

  /*!
   * \return A new empty map of type ObjT with room for n entries: small when
   *         n < 4 (at least 2 slots), else dense sized for n.
   */
  template <typename ObjT>
  static ObjectPtr<ObjT> CreateEmpty(uint64_t n = kSmallMinSlots) {
    if (n < kSmallMaxSlots) return NewSmall<ObjT>(n < kSmallMinSlots ? kSmallMinSlots : n);
    uint64_t slots = 1;
    uint32_t shift = 64;
    while (slots <= n) {
      slots <<= 1;
      --shift;
    }
    if (slots < 2 * n) {
      slots <<= 1;
      --shift;
    }
    return NewDense<ObjT>(shift, slots);
  }

  /*! \return A new map of type ObjT holding new references to the entries of `from`. */
  template <typename ObjT>
  static ObjectPtr<ObjT> CopyOf(const MapBaseObj* from) {
    if (from->IsSmallMap()) {
      ObjectPtr<ObjT> p =
          NewSmall<ObjT>(from->size_ < kSmallMinSlots ? kSmallMinSlots : from->size_);
      MapBaseObj* m = p.get();
      const KVCell* src = from->SmallEntries();
      KVCell* dst = m->SmallEntries();
      for (uint64_t i = 0; i < from->size_; ++i) {
        dst[i].key = detail::CopyCell(src[i].key);
        dst[i].value = detail::CopyCell(src[i].value);
        m->size_ = i + 1;
      }
      return p;
    }
    // Dense: the same table, slot for slot (see CopyDenseBlocks).
    const detail::MapDenseFields* fd = from->Dense();
    const uint64_t slots = from->slots_;
    ObjectPtr<ObjT> p = NewDense<ObjT>(fd->fib_shift, slots, /*mark_empty=*/false);
    MapBaseObj* m = p.get();
    if (kHasStreamingStores && slots / kBlockSlots * kBlockBytes >= kStreamingCopyBytes &&
        reinterpret_cast<uintptr_t>(m->data_) % 16 == 0) {
      CopyDenseBlocks<true>(m, from);
    } else {
      CopyDenseBlocks<false>(m, from);
    }
    m->size_ = from->size_;
    m->Dense()->iter_list_head = fd->iter_list_head;
    m->Dense()->iter_list_tail = fd->iter_list_tail;
    return p;
  }

  /*!
   * \brief Set key to value in the map *holder, with the key's
   *        AnyHash. Takes ownership of both cells. When the storage must
   *        grow, *holder is replaced by a new map of type ObjT that has taken
   *        over every entry (the old one is left empty). Nothing else may
   *        read or write the map meanwhile (a Map: a reference's own copy; a
   *        Dict: the shared object, see Dict::Set).
   */
  template <typename ObjT>
  static void InsertOrAssign(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
                             uint64_t hash) {
    MapBaseObj* m = static_cast<MapBaseObj*>(holder->get());
    if (!m->TryInsertOrAssign(key, value, hash)) GrowAndInsert<ObjT>(holder, key, value, hash);
  }

  /*!
   * \brief InsertOrAssign without growing: false (both cells left to the
   *        caller) when the key is absent and has no place in this storage;
   *        then only GrowAndInsert may follow (a dense table may be left
   *        with a chain half moved, mended by growing).
   */
  bool TryInsertOrAssign(TVMFFIAny key, TVMFFIAny value, uint64_t hash) {
    if (!IsSmallMap()) return DenseTryInsert(key, value, hash);
    KVCell* cells = SmallEntries();
    const uint64_t pos = SmallFind(&key);
    if (pos != size_) {
      detail::ReleaseCell(&key);
      TVMFFIAny old = cells[pos].value;
      cells[pos].value = value;
      detail::ReleaseCell(&old);
      return true;
    }
    if (size_ == NumSlots()) return false;
    SmallAppend(key, value);
    return true;
  }

  /*!
   * \brief Add a key that TryInsertOrAssign found absent and without a place:
   *        *holder is replaced by a bigger map of type ObjT that takes over
   *        every entry (the old one is left empty), then the key.
   */
  template <typename ObjT>
  static void GrowAndInsert(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
                            uint64_t hash) {
    MapBaseObj* m = static_cast<MapBaseObj*>(holder->get());
    if (!m->IsSmallMap()) {
      GrowAndPlace<ObjT>(holder, key, value, hash);
      return;
    }
    const uint64_t slots = m->NumSlots();
    ObjectPtr<Object> grown;
    try {  // the cells are ours: a failed growth must release them
      if (slots < kSmallMaxSlots) {
        uint64_t next = slots * 2 < kSmallMinSlots ? kSmallMinSlots : slots * 2;
        grown = NewSmall<ObjT>(next < kSmallMaxSlots ? next : kSmallMaxSlots);
      } else {
        grown = CreateEmpty<ObjT>(m->size_);
      }
    } catch (...) {
      detail::ReleaseCell(&key);
      detail::ReleaseCell(&value);
      throw;
    }
    m->MoveEntriesInto<ObjT>(&grown);
    *holder = std::move(grown);
    m = static_cast<MapBaseObj*>(holder->get());
    if (m->IsSmallMap()) {
      m->SmallAppend(key, value);  // room for one more: it just grew
      return;
    }
    ListHooks hooks{m};
    if (m->DenseIsFull() || !m->PlaceAbsent(key, value, hash, hooks)) {
      GrowAndPlace<ObjT>(holder, key, value, hash);
    }
  }

  /*!
   * \brief If the key (a view, with its AnyHash) is present, give it the
   *        owned `value` (as InsertOrAssign would: in the dense form the entry
   *        moves to the end of the iteration order) and return true; else
   *        return false and leave `value` to the caller. Nothing else may
   *        read the map meanwhile.
   */
  bool AssignIfPresent(const TVMFFIAny* key, uint64_t hash, TVMFFIAny value) {
    const uint64_t pos = FindPos(key, hash);
    if (pos == EndPos()) return false;
    TVMFFIAny* cell = &EntryAt(pos)->value;
    TVMFFIAny old = *cell;
    *cell = value;
    if (!IsSmallMap() && Dense()->iter_list_tail != pos) {
      ListUnlink(pos);
      ListAppend(pos);
    }
    detail::ReleaseCell(&old);
    return true;
  }

  /*!
   * \brief Take over the storage of `other` (a map with no other owner whose
   *        entries this map must now own), leaving it empty. `this` must have
   *        no entries, must not be read meanwhile, and must have been
   *        allocated with at least 80 bytes (every standard map object is).
   *        Used by Dict to grow in place.
   */
  void TakeStorageFrom(ObjectPtr<Object> other) {
    MapBaseObj* o = static_cast<MapBaseObj*>(other.get());
    if (data_deleter_ != nullptr) data_deleter_(data_);
    data_ = o->data_;
    size_ = o->size_;
    slots_ = o->slots_;
    data_deleter_ = o->data_deleter_;
    if (!o->IsSmallMap()) *Dense() = *o->Dense();
    if (o->IsSmallMap() && o->data_deleter_ == nullptr) {
      // The entries live inside `other`: keep it alive until our data is freed.
      data_deleter_ = &ReleaseOwnerOfInlineEntries;
      o->size_ = 0;
      o->slots_ = kSmallTag;
      detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(other));
      return;
    }
    o->data_ = nullptr;
    o->data_deleter_ = nullptr;
    o->size_ = 0;
    o->slots_ = 0;
  }

 protected:
  MapBaseObj() noexcept : data_(nullptr), size_(0), slots_(0), data_deleter_(nullptr) {}

  /*! \brief See the table at the top of this file. */
  void* data_;
  uint64_t size_;
  uint64_t slots_;
  void (*data_deleter_)(void*);

  static const TVMFFIAny* CellOf(const Any& any) noexcept {
    return detail::AnyUnsafe::TVMFFIAnyPtrFromAny(any);
  }

  // ---- positions: small = entry index (end = size), dense = slot (end = kNoSlot) ----
  uint64_t EndPos() const noexcept { return IsSmallMap() ? size_ : kNoSlot; }
  KVCell* EntryAt(uint64_t pos) const noexcept {
    if (IsSmallMap()) return SmallEntries() + pos;
    return reinterpret_cast<KVCell*>(Item(pos));
  }
  uint64_t NextPos(uint64_t pos) const noexcept {
    if (IsSmallMap()) return pos + 1 < size_ ? pos + 1 : size_;
    return pos == kNoSlot ? pos : Item(pos)->next;
  }
  uint64_t PrevPos(uint64_t pos) const noexcept {
    if (IsSmallMap()) return pos > 0 ? pos - 1 : size_;
    return pos == kNoSlot ? Dense()->iter_list_tail : Item(pos)->prev;
  }

  TVM_FFI_INLINE uint64_t FindPos(const TVMFFIAny* key, uint64_t hash) const noexcept {
    if (IsSmallMap()) return SmallFind(key);
    if (size_ == 0) return kNoSlot;
    uint64_t slot = HeadSlot(hash);
    uint8_t meta = Meta(slot);
    if ((meta & kTailBit) != 0) return kNoSlot;  // empty, protected or another chain's link
    while (true) {
      if (detail::AnyCellEqual(&Item(slot)->key, key)) return slot;
      uint8_t jump = meta & kJumpMask;
      if (jump == 0) return kNoSlot;
      slot = Jump(slot, jump);
      meta = Meta(slot);
    }
  }

  // ---- small form ----
  KVCell* SmallEntries() const noexcept { return static_cast<KVCell*>(data_); }
  uint64_t SmallFind(const TVMFFIAny* key) const noexcept {
    const KVCell* cells = SmallEntries();
    for (uint64_t i = 0; i < size_; ++i) {
      if (detail::AnyCellEqual(&cells[i].key, key)) return i;
    }
    return size_;
  }
  void SmallAppend(TVMFFIAny key, TVMFFIAny value) noexcept {
    KVCell* cells = SmallEntries();
    cells[size_].key = key;
    cells[size_].value = value;
    ++size_;
  }
  template <typename ObjT>
  static ObjectPtr<ObjT> NewSmall(uint64_t slots) {
    static_assert(std::is_base_of_v<MapBaseObj, ObjT> && sizeof(ObjT) == sizeof(MapBaseObj),
                  "map types share MapBaseObj's layout");
    ObjectPtr<ObjT> p =
        detail::MakeObjectWithSize<ObjT>(sizeof(MapBaseObj) + slots * sizeof(KVCell));
    p->data_ = reinterpret_cast<char*>(p.get()) + sizeof(MapBaseObj);
    p->slots_ = slots | kSmallTag;
    return p;
  }
  static void ReleaseOwnerOfInlineEntries(void* data) {
    TVMFFIObjectDecRef(reinterpret_cast<char*>(data) - sizeof(MapBaseObj));
  }

  // ---- dense form ----
  detail::MapDenseFields* Dense() const noexcept {
    return reinterpret_cast<detail::MapDenseFields*>(
        const_cast<char*>(reinterpret_cast<const char*>(this)) + sizeof(MapBaseObj));
  }
  // A slot's metadata byte and item lie in the block of slots
  // [slot & ~15, +16), at data_ + (slot / 16) * 784: metadata first, then items.
  uint8_t& Meta(uint64_t slot) const noexcept {
    // Its block + slot % 16, without a multiply (as Item): 784 / 16 - 1 = 48.
    const uint64_t block_first = slot & ~(kBlockSlots - 1);
    return reinterpret_cast<uint8_t&>(
        static_cast<char*>(data_)[slot + block_first * (kBlockBytes / kBlockSlots - 1)]);
  }
  detail::MapDenseItem* Item(uint64_t slot) const noexcept {
    // Its block + 16 + (slot % 16) * 48, spelled so that the offset is one
    // shift, one add and a 3x (no multiply): it is on the critical path of
    // every walk along the iteration list.
    static_assert(kBlockBytes - kBlockSlots * sizeof(detail::MapDenseItem) == kBlockSlots,
                  "a block is its metadata bytes, then its items");
    return reinterpret_cast<detail::MapDenseItem*>(static_cast<char*>(data_) + kBlockSlots +
                                                   slot * sizeof(detail::MapDenseItem) +
                                                   (slot & ~(kBlockSlots - 1)));
  }
  /*! \brief The slot `jump` leads to from `slot` ((slot + distance) mod slots; slots is a power of
   * two). */
  uint64_t Jump(uint64_t slot, uint8_t jump) const noexcept {
    return (slot + detail::kMapJumps.dist[jump]) & (slots_ - 1);
  }
  uint64_t HeadSlot(uint64_t hash) const noexcept { return (hash * kFibMul) >> Dense()->fib_shift; }
  static void FreeBlocks(void* data) { ::operator delete(data); }

  /*!
   * \brief A new dense map object with `slots` slots and no entries; with
   *        mark_empty false the blocks are left for the caller to fill.
   */
  template <typename ObjT>
  static ObjectPtr<ObjT> NewDense(uint32_t fib_shift, uint64_t slots, bool mark_empty = true) {
    static_assert(std::is_base_of_v<MapBaseObj, ObjT> && sizeof(ObjT) == sizeof(MapBaseObj),
                  "map types share MapBaseObj's layout");
    ObjectPtr<ObjT> p =
        detail::MakeObjectWithSize<ObjT>(sizeof(MapBaseObj) + sizeof(detail::MapDenseFields));
    uint64_t n_blocks = (slots + kBlockSlots - 1) / kBlockSlots;
    p->data_ = ::operator new(n_blocks* kBlockBytes);
    p->data_deleter_ = &FreeBlocks;
    p->slots_ = slots;
    if (mark_empty) MarkEmpty(p->data_, n_blocks);
    detail::MapDenseFields* d = p->Dense();
    d->fib_shift = fib_shift;
    d->unused = 0;
    d->iter_list_head = kNoSlot;
    d->iter_list_tail = kNoSlot;
    return p;
  }

  /*! \brief How many of a table's `slots` lie in the block that starts at slot `first`. */
  static uint64_t SlotsInBlock(uint64_t slots, uint64_t first) noexcept {
    return slots - first < kBlockSlots ? slots - first : kBlockSlots;
  }

  /*! \brief Mark every slot of n_blocks blocks empty. */
  static void MarkEmpty(void* data, uint64_t n_blocks) noexcept {
    for (uint64_t b = 0; b < n_blocks; ++b) {
      char* block = static_cast<char*>(data) + b * kBlockBytes;
      std::memset(block, kEmptyMeta, kBlockSlots);
      // Every empty slot's key and value read as None (see BlockTypeBits).
      detail::MapDenseItem* items = reinterpret_cast<detail::MapDenseItem*>(block + kBlockSlots);
      for (uint64_t j = 0; j < kBlockSlots; ++j) {
        items[j].key.type_index = TypeIndex::kTVMFFINone;
        items[j].value.type_index = TypeIndex::kTVMFFINone;
      }
    }
  }

  bool DenseIsFull() const noexcept {
    return static_cast<double>(size_ + 1) > static_cast<double>(slots_) * 0.99;
  }
  /*! \return The first empty slot one jump away from `from`, with its jump code; false if none. */
  bool FindEmptyAfter(uint64_t from, uint8_t* jump, uint64_t* found) const noexcept {
    for (uint8_t j = 1; j < 126; ++j) {
      uint64_t s = Jump(from, j);
      if (Meta(s) == kEmptyMeta) {
        *jump = j;
        *found = s;
        return true;
      }
    }
    return false;
  }
  void SetJump(uint64_t slot, uint8_t jump) noexcept {
    Meta(slot) = static_cast<uint8_t>((Meta(slot) & kTailBit) | jump);
  }
  uint64_t NextInChain(uint64_t slot) const noexcept {
    uint8_t jump = Meta(slot) & kJumpMask;
    return jump == 0 ? kNoSlot : Jump(slot, jump);
  }
  /*! \return The link before `slot` in its chain (slot must not be a head). */
  uint64_t ChainPrev(uint64_t slot) const noexcept {
    uint64_t cur = HeadSlot(detail::AnyCellHash(&Item(slot)->key));
    while (true) {
      uint64_t next = NextInChain(cur);
      if (next == slot) return cur;
      cur = next;
    }
  }
  void ListAppend(uint64_t slot) noexcept {
    detail::MapDenseFields* d = Dense();
    detail::MapDenseItem* it = Item(slot);
    it->prev = d->iter_list_tail;
    it->next = kNoSlot;
    if (d->iter_list_tail != kNoSlot) Item(d->iter_list_tail)->next = slot;
    if (d->iter_list_head == kNoSlot) d->iter_list_head = slot;
    d->iter_list_tail = slot;
  }
  void ListUnlink(uint64_t slot) noexcept {
    detail::MapDenseFields* d = Dense();
    detail::MapDenseItem* it = Item(slot);
    (it->prev == kNoSlot ? d->iter_list_head : Item(it->prev)->next) = it->next;
    (it->next == kNoSlot ? d->iter_list_tail : Item(it->next)->prev) = it->prev;
  }
  /*! \brief Item `to` takes the list position of item `from` (links only). */
  void ListRelink(uint64_t from, uint64_t to) noexcept {
    detail::MapDenseFields* d = Dense();
    detail::MapDenseItem* src = Item(from);
    detail::MapDenseItem* dst = Item(to);
    dst->prev = src->prev;
    dst->next = src->next;
    (dst->prev == kNoSlot ? d->iter_list_head : Item(dst->prev)->next) = to;
    (dst->next == kNoSlot ? d->iter_list_tail : Item(dst->next)->prev) = to;
  }
  void PlaceItem(uint64_t slot, uint8_t meta, TVMFFIAny key, TVMFFIAny value) noexcept {
    Meta(slot) = meta;
    detail::MapDenseItem* it = Item(slot);
    it->key = key;
    it->value = value;
  }

  /*! \return The last link of the chain through `slot`. */
  uint64_t ChainTail(uint64_t slot) const noexcept {
    for (uint64_t next = NextInChain(slot); next != kNoSlot; next = NextInChain(slot)) slot = next;
    return slot;
  }

  /*!
   * \brief What placing an entry does besides the metadata and cells:
   *        Placed(slot) when a new entry lands, Moved(from, to) when an
   *        eviction relocates one. This one keeps the iteration list.
   */
  struct ListHooks {
    MapBaseObj* m;
    void Placed(uint64_t slot) noexcept { m->ListAppend(slot); }
    void Moved(uint64_t from, uint64_t to) noexcept { m->ListRelink(from, to); }
  };

  /*!
   * \brief Insert or assign in the dense table without growing.
   * \return false when the table is full (nothing changed that matters:
   *         entries keep their iteration order and are all still present,
   *         and the key is known to be absent).
   */
  bool DenseTryInsert(TVMFFIAny key, TVMFFIAny value, uint64_t hash) {
    if (slots_ == 0) return false;
    const uint64_t head = HeadSlot(hash);
    const uint8_t meta = Meta(head);
    ListHooks hooks{this};
    if (meta == kEmptyMeta) {
      PlaceItem(head, 0, key, value);
      ListAppend(head);
      ++size_;
      return true;
    }
    if ((meta & kTailBit) != 0) {
      // The head slot holds a link of another chain: move that chain's rest away.
      return !DenseIsFull() && EvictAndPlaceHead(head, key, value, hooks);
    }
    uint64_t slot = head;
    while (true) {
      detail::MapDenseItem* it = Item(slot);
      if (detail::AnyCellEqual(&it->key, &key)) {
        // Present: new value, and the entry moves to the end of the iteration order.
        detail::ReleaseCell(&key);
        TVMFFIAny old = it->value;
        it->value = value;
        if (Dense()->iter_list_tail != slot) {
          ListUnlink(slot);
          ListAppend(slot);
        }
        detail::ReleaseCell(&old);
        return true;
      }
      const uint64_t next = NextInChain(slot);
      if (next == kNoSlot) break;
      slot = next;
    }
    return !DenseIsFull() && PlaceAfter(slot, key, value, hooks);
  }

  /*!
   * \brief Place an entry whose key is known to be absent (it comes from
   *        another table, or a probe found no match), in a table the caller
   *        knows has room: no key comparisons, no fullness test.
   * \return false when no free slot is reachable (nothing lost, as for
   *         DenseTryInsert).
   */
  template <typename Hooks>
  bool PlaceAbsent(TVMFFIAny key, TVMFFIAny value, uint64_t hash, Hooks& hooks) {
    const uint64_t head = HeadSlot(hash);
    const uint8_t meta = Meta(head);
    if (meta == kEmptyMeta) {
      PlaceItem(head, 0, key, value);
      hooks.Placed(head);
      ++size_;
      return true;
    }
    if ((meta & kTailBit) != 0) return EvictAndPlaceHead(head, key, value, hooks);
    return PlaceAfter(ChainTail(head), key, value, hooks);
  }

  /*! \brief Append an entry to the chain whose last link is `tail`; false if no slot is free. */
  template <typename Hooks>
  bool PlaceAfter(uint64_t tail, TVMFFIAny key, TVMFFIAny value, Hooks& hooks) {
    uint8_t jump;
    uint64_t empty;
    if (!FindEmptyAfter(tail, &jump, &empty)) return false;
    PlaceItem(empty, kTailBit, key, value);
    hooks.Placed(empty);
    SetJump(tail, jump);
    ++size_;
    return true;
  }

  /*!
   * \brief `target` belongs to another chain: relocate it and the links after
   *        it to free slots (re-linked from its predecessor), then make
   *        `target` the head of the key's chain.
   */
  template <typename Hooks>
  bool EvictAndPlaceHead(uint64_t target, TVMFFIAny key, TVMFFIAny value, Hooks& hooks) {
    uint64_t writer = ChainPrev(target);
    uint64_t reader = target;
    bool first = true;
    while (reader != kNoSlot) {
      uint8_t jump;
      uint64_t empty;
      if (!FindEmptyAfter(writer, &jump, &empty)) return false;
      uint8_t reader_meta = Meta(reader);
      detail::MapDenseItem* src = Item(reader);
      PlaceItem(empty, kTailBit, src->key, src->value);
      hooks.Moved(reader, empty);
      ClearItemCells(src);
      // The vacated target stays unusable until the new head is written there.
      Meta(reader) = first ? kProtectedMeta : kEmptyMeta;
      first = false;
      SetJump(writer, jump);
      writer = empty;
      uint8_t rj = reader_meta & kJumpMask;
      reader = rj == 0 ? kNoSlot : Jump(reader, rj);
    }
    PlaceItem(target, 0, key, value);
    hooks.Placed(target);
    ++size_;
    return true;
  }

  /*!
   * \brief The dense table *holder found no place for a key known to be
   *        absent: move its entries to one twice as big (again, until the
   *        key finds a place there), then place the key without a probe.
   */
  template <typename ObjT>
  static void GrowAndPlace(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
                           uint64_t hash) {
    MapBaseObj* m = static_cast<MapBaseObj*>(holder->get());
    while (true) {
      ObjectPtr<Object> bigger;
      try {  // the cells are ours: a failed growth must release them
        if (m->slots_ == 0) {
          // A table with no slots (storage already handed away) starts over at 8.
          bigger = CreateEmpty<ObjT>(kSmallMaxSlots);
        } else {
          bigger = NewDense<ObjT>(m->Dense()->fib_shift - 1, m->slots_ * 2);
        }
      } catch (...) {
        detail::ReleaseCell(&key);
        detail::ReleaseCell(&value);
        throw;
      }
      m->MoveEntriesInto<ObjT>(&bigger);
      *holder = std::move(bigger);
      m = static_cast<MapBaseObj*>(holder->get());
      ListHooks hooks{m};
      if (!m->DenseIsFull() && m->PlaceAbsent(key, value, hash, hooks)) return;
    }
  }

  /*!
   * \brief Move every entry, in iteration order, into *dst, a new map with
   *        no entries (small with room for them all, or dense); this map is
   *        left empty. *dst may be replaced by a bigger map on the way.
   */
  template <typename ObjT>
  void MoveEntriesInto(ObjectPtr<Object>* dst) {
    MapBaseObj* d = static_cast<MapBaseObj*>(dst->get());
    // Keys from one table are distinct: a dense *dst with room for them all
    // takes them without probes.
    const bool roomy =
        !d->IsSmallMap() && static_cast<double>(size_) <= static_cast<double>(d->slots_) * 0.99;
    if (IsSmallMap()) {
      KVCell* cells = SmallEntries();
      const uint64_t n = size_;
      size_ = 0;
      if (d->IsSmallMap()) {
        // Small to bigger small: the cells move as bytes.
        if (n != 0) std::memcpy(static_cast<void*>(d->SmallEntries()), cells, n * sizeof(KVCell));
        d->size_ = n;
        return;
      }
      for (uint64_t i = 0; i < n; ++i) {
        MovePlace<ObjT>(dst, roomy, cells[i].key, cells[i].value,
                        detail::AnyCellHash(&cells[i].key));
      }
      return;
    }
    if (!(roomy && slots_ >= kScanRehashMinSlots && d->slots_ <= (uint64_t{1} << 32) &&
          MoveByScan(d))) {
      uint64_t pos = Dense()->iter_list_head;
      while (pos != kNoSlot) {
        detail::MapDenseItem* it = Item(pos);
        pos = it->next;
        MovePlace<ObjT>(dst, roomy, it->key, it->value, detail::AnyCellHash(&it->key));
      }
    }
    // The cells moved out: drop the table without releasing them.
    if (data_deleter_ != nullptr) data_deleter_(data_);
    data_ = nullptr;
    data_deleter_ = nullptr;
    size_ = 0;
    slots_ = 0;
    Dense()->iter_list_head = kNoSlot;
    Dense()->iter_list_tail = kNoSlot;
  }

  /*! \brief One entry of MoveEntriesInto: placed directly while *dst is the roomy table. */
  template <typename ObjT>
  static void MovePlace(ObjectPtr<Object>* dst, bool roomy, TVMFFIAny key, TVMFFIAny value,
                        uint64_t hash) {
    if (!roomy) {
      InsertOrAssign<ObjT>(dst, key, value, hash);
      return;
    }
    MapBaseObj* d = static_cast<MapBaseObj*>(dst->get());
    ListHooks hooks{d};
    if (d->PlaceAbsent(key, value, hash, hooks)) return;
    // No free slot (an eviction may have stopped half way): only growing mends that.
    GrowAndPlace<ObjT>(dst, key, value, hash);
  }

  /*! \brief Tables of at least this many slots move by a scan of their blocks (MoveByScan). */
  static constexpr uint64_t kScanRehashMinSlots = uint64_t{1} << 13;

  /*!
   * \brief Move every entry into the empty dense table d (with room for
   *        them all, at most 2^32 slots) block by block instead of along the
   *        iteration list: a big table read in list order is a chain of
   *        cache misses, one at a time, while a scan reads it in order and
   *        knows the next keys, so the slots they go to are fetched ahead.
   *        d's list is rebuilt afterwards from a map of old slot to new slot.
   * \return false when some entry found no free slot or there was no
   *         memory for the map: then d is empty again and this table untouched.
   */
  bool MoveByScan(MapBaseObj* d) noexcept {
    uint32_t* where = new (std::nothrow) uint32_t[slots_];
    if (where == nullptr) return false;
    // While entries move, a new item's prev and next are its old ones.
    struct ScanHooks {
      const MapBaseObj* from;
      MapBaseObj* to;
      uint32_t* where;
      uint64_t origin;  // the old slot of the entry being placed
      void Placed(uint64_t slot) noexcept {
        const detail::MapDenseItem* o = from->Item(origin);
        detail::MapDenseItem* n = to->Item(slot);
        n->prev = o->prev;
        n->next = o->next;
        where[origin] = static_cast<uint32_t>(slot);
      }
      void Moved(uint64_t a, uint64_t b) noexcept {
        const detail::MapDenseItem* src = to->Item(a);
        detail::MapDenseItem* dst = to->Item(b);
        dst->prev = src->prev;
        dst->next = src->next;
        // Its old slot: the old list's link to it.
        const uint64_t old =
            src->prev == kNoSlot ? from->Dense()->iter_list_head : from->Item(src->prev)->next;
        where[old] = static_cast<uint32_t>(b);
      }
    };
    ScanHooks hooks{this, d, where, 0};
    // The heads of one block's keys are fetched while the block before is placed.
    uint64_t hashes[2][kBlockSlots];
    auto fetch = [this, d, &hashes](uint64_t first) {
      uint64_t* h = hashes[(first / kBlockSlots) & 1];
      const uint64_t in_block = SlotsInBlock(slots_, first);
      const uint8_t* meta = &Meta(first);
      const detail::MapDenseItem* items = Item(first);
      for (uint64_t j = 0; j < in_block; ++j) {
        if (meta[j] >= kProtectedMeta) continue;
        h[j] = detail::AnyCellHash(&items[j].key);
        const uint64_t head = d->HeadSlot(h[j]);
        Prefetch(&d->Meta(head));
        Prefetch(d->Item(head));
      }
    };
    bool ok = true;
    fetch(0);
    for (uint64_t first = 0; ok && first < slots_; first += kBlockSlots) {
      if (first + kBlockSlots < slots_) fetch(first + kBlockSlots);
      const uint64_t* h = hashes[(first / kBlockSlots) & 1];
      const uint64_t in_block = SlotsInBlock(slots_, first);
      const uint8_t* meta = &Meta(first);
      const detail::MapDenseItem* items = Item(first);
      for (uint64_t j = 0; j < in_block; ++j) {
        if (meta[j] >= kProtectedMeta) continue;
        hooks.origin = first + j;
        if (!d->PlaceAbsent(items[j].key, items[j].value, h[j], hooks)) {
          ok = false;
          break;
        }
      }
    }
    if (!ok) {
      // Start d over (its cells are copies: nothing to release).
      d->size_ = 0;
      MarkEmpty(d->data_, (d->slots_ + kBlockSlots - 1) / kBlockSlots);
      delete[] where;
      return false;
    }
    // Old slots to new ones, in d's links (read in order, block by block).
    auto map = [where](uint64_t old) { return old == kNoSlot ? kNoSlot : uint64_t{where[old]}; };
    for (uint64_t first = 0; first < d->slots_; first += kBlockSlots) {
      const uint64_t in_block = SlotsInBlock(d->slots_, first);
      const uint8_t* meta = &d->Meta(first);
      detail::MapDenseItem* items = d->Item(first);
      for (uint64_t j = 0; j < in_block; ++j) {
        if (meta[j] >= kProtectedMeta) continue;
        items[j].prev = map(items[j].prev);
        items[j].next = map(items[j].next);
      }
    }
    d->Dense()->iter_list_head = map(Dense()->iter_list_head);
    d->Dense()->iter_list_tail = map(Dense()->iter_list_tail);
    delete[] where;
    return true;
  }

  /*! \brief A hint that *p is read or written soon. */
  static void Prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 1);
#else
    (void)p;
#endif
  }

  void ErasePos(uint64_t pos) {
    TVMFFIAny key, value;
    if (IsSmallMap()) {
      KVCell* cells = SmallEntries();
      key = cells[pos].key;
      value = cells[pos].value;
      if (pos + 1 < size_) {
        std::memmove(static_cast<void*>(cells + pos), cells + pos + 1,
                     (size_ - pos - 1) * sizeof(KVCell));
      }
      --size_;
    } else {
      detail::MapDenseItem* it = Item(pos);
      key = it->key;
      value = it->value;
      ListUnlink(pos);
      --size_;
      if (NextInChain(pos) == kNoSlot) {
        if ((Meta(pos) & kTailBit) != 0) SetJump(ChainPrev(pos), 0);
        Meta(pos) = kEmptyMeta;
        ClearItemCells(it);
      } else {
        // Fill the hole with the chain's last link, which frees the last slot.
        uint64_t prev = pos;
        uint64_t last = NextInChain(pos);
        while (NextInChain(last) != kNoSlot) {
          prev = last;
          last = NextInChain(last);
        }
        detail::MapDenseItem* tail = Item(last);
        it->key = tail->key;
        it->value = tail->value;
        ListRelink(last, pos);
        Meta(last) = kEmptyMeta;
        ClearItemCells(tail);
        SetJump(prev, 0);
      }
    }
    // Release last: a destructor may run arbitrary code.
    detail::ReleaseCell(&key);
    detail::ReleaseCell(&value);
  }

  // Copying a dense table. A full block is moved 16 bytes at a time, the
  // OR of its type indices (BlockTypeBits) taken from the words on their
  // way, so the source is read once. Tables of kStreamingCopyBytes or more
  // are written with streaming (non-temporal) stores where the compiler has
  // them: the copy would not stay in cache anyway, and a plain store first
  // reads the line it writes. The copy of a 50 MB table (10^6 entries) on a
  // 2-core x86 (Zen 5): memcpy of each block, then its type scan, 3.1 ms;
  // 16-byte moves with the scan folded in, 2.6; the same streaming, 2.2.
#if defined(__GNUC__) && defined(__x86_64__)
  static constexpr bool kHasStreamingStores = true;
#else
  static constexpr bool kHasStreamingStores = false;
#endif
  static constexpr size_t kStreamingCopyBytes = size_t{16} << 20;

#if defined(__GNUC__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  using Word16 = long long __attribute__((vector_size(16)));
  template <bool kStreaming>
  TVM_FFI_INLINE static Word16 MoveWord(char* dst, const char* src) noexcept {
    Word16 v;
    std::memcpy(&v, src, sizeof(v));
#if defined(__x86_64__)
    if constexpr (kStreaming) {
#if defined(__clang__)
      __builtin_nontemporal_store(v, reinterpret_cast<Word16*>(dst));
#else
      __builtin_ia32_movntdq(reinterpret_cast<Word16*>(dst), v);
#endif
      return v;
    }
#endif
    std::memcpy(dst, &v, sizeof(v));
    return v;
  }
  /*! \brief Copy a full block (metadata, then 16 items of 3 words); return its BlockTypeBits. */
  template <bool kStreaming>
  TVM_FFI_INLINE static uint32_t CopyFullBlock(void* dst, const void* src) noexcept {
    static_assert(kBlockSlots == 16 && sizeof(detail::MapDenseItem) == 48,
                  "a block is 16 bytes of metadata and 16 items of 48 bytes");
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    MoveWord<kStreaming>(d, s);
    Word16 bits = {0, 0};
    for (int j = 0; j < 16; ++j) {
      const int w = 16 + 48 * j;  // the key's cell, the value's, then the links
      bits |= MoveWord<kStreaming>(d + w, s + w) | MoveWord<kStreaming>(d + w + 16, s + w + 16);
      MoveWord<kStreaming>(d + w + 32, s + w + 32);
    }
    // Lane 0's low half is the type index of each cell (little-endian).
    static_assert(offsetof(TVMFFIAny, type_index) == 0, "a cell starts with its type index");
    return static_cast<uint32_t>(bits[0]);
  }
#else
  template <bool kStreaming>
  static uint32_t CopyFullBlock(void* dst, const void* src) noexcept {
    CopyBytes(dst, src, kBlockBytes);
    return BlockTypeBits(reinterpret_cast<const detail::MapDenseItem*>(
                             static_cast<const uint8_t*>(src) + kBlockSlots),
                         kBlockSlots);
  }
#endif

  /*!
   * \brief Copy every block of `from` into m (same slot count), bytes whole
   *        (empty slots included), then give the keys and values their new
   *        references: none at all in a block of plain values.
   */
  template <bool kStreaming>
  TVM_FFI_NOINLINE static void CopyDenseBlocks(MapBaseObj* m, const MapBaseObj* from) noexcept {
    const uint64_t slots = from->slots_;
    for (uint64_t first = 0; first < slots; first += kBlockSlots) {
      const uint64_t in_block = SlotsInBlock(slots, first);
      const uint8_t* src_meta = &from->Meta(first);
      const detail::MapDenseItem* src = from->Item(first);
      uint32_t bits;
      if (in_block == kBlockSlots) {
        bits = CopyFullBlock<kStreaming>(&m->Meta(first), src_meta);
      } else {
        CopyBytes(&m->Meta(first), src_meta, in_block);
        CopyBytes(m->Item(first), src, in_block * sizeof(detail::MapDenseItem));
        bits = BlockTypeBits(src, in_block);
      }
      if (!detail::MayHoldObject(bits)) continue;
      for (uint64_t j = 0; j < in_block; ++j) {
        if (src_meta[j] >= kProtectedMeta) continue;
        if (src[j].key.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
          detail::HeaderIncRef(src[j].key.v_obj);
        }
        if (src[j].value.type_index >= TypeIndex::kTVMFFIStaticObjectBegin) {
          detail::HeaderIncRef(src[j].value.v_obj);
        }
      }
    }
#if defined(__GNUC__) && defined(__x86_64__)
    // Streaming stores are weakly ordered: finish them before the map is handed out.
    if constexpr (kStreaming) __builtin_ia32_sfence();
#endif
  }

  /*!
   * \brief std::memcpy, called: a copy of a few hundred bytes whose size the
   *        compiler knows (or bounds) is inlined as `rep movs`, several times
   *        slower here than the library's vector moves.
   */
  TVM_FFI_NOINLINE static void CopyBytes(void* dst, const void* src, size_t n) noexcept {
    std::memcpy(dst, src, n);
  }

  /*! \brief Leave a vacated dense item reading as None (see BlockTypeBits). */
  static void ClearItemCells(detail::MapDenseItem* it) noexcept {
    detail::SetAnyNone(&it->key);
    detail::SetAnyNone(&it->value);
  }

  /*!
   * \return The OR of the type indices (CellTypeBits) of the keys and values
   *         of a block's first in_block (8 or 16) items, occupied or not: no
   *         metadata read, no branch. Dense tables made here keep every empty
   *         slot's cells None (NewDense marks them so, erasing and moving an
   *         entry clear the slot left behind), so the OR shows an object
   *         only when an entry holds one. An empty slot written otherwise (a
   *         table of another binary) can only make it show one more often,
   *         which sends the caller to its exact, per-slot way.
   */
  static uint32_t BlockTypeBits(const detail::MapDenseItem* items, uint64_t in_block) noexcept {
    auto four = [items](uint64_t j) {
      const detail::MapDenseItem* q = items + j;
      return detail::CellTypeBits(q[0].key) | detail::CellTypeBits(q[0].value) |
             detail::CellTypeBits(q[1].key) | detail::CellTypeBits(q[1].value) |
             detail::CellTypeBits(q[2].key) | detail::CellTypeBits(q[2].value) |
             detail::CellTypeBits(q[3].key) | detail::CellTypeBits(q[3].value);
    };
    static_assert(kBlockSlots == 16, "a full block is read as four fours");
    if (in_block == kBlockSlots) return (four(0) | four(4)) | (four(8) | four(12));
    uint32_t bits = 0;
    for (uint64_t j = 0; j < in_block; ++j) {
      bits |= detail::CellTypeBits(items[j].key) | detail::CellTypeBits(items[j].value);
    }
    return bits;
  }

  /*! \brief Release the entries of a dying map (the metadata and cells are left as they are). */
  void DropEntries() noexcept {
    if (size_ == 0) return;  // also a table whose entries moved out (MoveEntriesInto)
    if (IsSmallMap()) {
      // Key, value, key, value...: the entries read as 2 * size cells.
      const TVMFFIAny* cells = &SmallEntries()->key;
      const int64_t n = static_cast<int64_t>(2 * size_);
      const int64_t first = detail::PlainPrefix(cells, n);
      if (first < n) DropCells(cells + first, n - first);
      return;
    }
    // A block at a time: skipped whole when it holds plain values only.
    detail::ContainerReleaseScope release;
    for (uint64_t first = 0; first < slots_; first += kBlockSlots) {
      const uint64_t in_block = SlotsInBlock(slots_, first);
      const uint8_t* meta = &Meta(first);
      const detail::MapDenseItem* items = Item(first);
      if (!detail::MayHoldObject(BlockTypeBits(items, in_block))) continue;
      for (uint64_t j = 0; j < in_block; ++j) {
        if (meta[j] >= kProtectedMeta) continue;  // empty or protected
        release.Drop(items[j].key);
        release.Drop(items[j].value);
      }
    }
  }
  /*! \brief Release n owned cells of a dying map. */
  TVM_FFI_NOINLINE static void DropCells(const TVMFFIAny* cells, int64_t n) noexcept {
    detail::ContainerReleaseScope release;
    for (int64_t i = 0; i < n; ++i) release.Drop(cells[i]);
  }

  void ReleaseEntries() noexcept {
    // Bounded recursion: a chain of nested containers is released in a loop.
    detail::ContainerReleaseScope release;
    if (IsSmallMap()) {
      KVCell* cells = SmallEntries();
      for (uint64_t i = 0; i < size_; ++i) {
        release.Release(&cells[i].key);
        release.Release(&cells[i].value);
      }
      return;
    }
    // A block at a time: its metadata bytes, then its items.
    for (uint64_t first = 0; first < slots_; first += kBlockSlots) {
      const uint64_t in_block = SlotsInBlock(slots_, first);
      uint8_t* meta = &Meta(first);
      detail::MapDenseItem* items = Item(first);
      for (uint64_t j = 0; j < in_block; ++j) {
        if (meta[j] >= kProtectedMeta) continue;  // empty or protected
        meta[j] = kEmptyMeta;
        // An entry of two plain values holds no reference: nothing to drop.
        if (items[j].key.type_index < TypeIndex::kTVMFFIStaticObjectBegin &&
            items[j].value.type_index < TypeIndex::kTVMFFIStaticObjectBegin) {
          continue;
        }
        release.Release(&items[j].key);
        release.Release(&items[j].value);
      }
    }
  }

  template <typename, typename, typename>
  friend class Map;
  template <typename, typename, typename>
  friend class Dict;
  template <typename, typename, typename, typename, typename>
  friend class detail::MapRefBase;
};

static_assert(sizeof(MapBaseObj) == 56, "map object: header + data, size, slots, data_deleter");

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

#endif  // TVM_FFI_CONTAINER_MAP_BASE_H_

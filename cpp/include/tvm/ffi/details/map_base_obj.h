/*
 * MapBaseObj, the storage of Map and Dict (internal piece of
 * <tvm/ffi/container/map_base.h>, whose top comment gives the layout; include
 * that): the dense form's jump table, item and field structs, and the class
 * itself, with its fields, constants, iterator, lookups, the small form and
 * the dense form's slot, chain and iteration-list primitives. Creating and
 * copying maps, insertion, growth, erasing and releasing entries are
 * declared here and defined in map_base_ops.h.
 */
#ifndef TVM_FFI_DETAILS_MAP_BASE_OBJ_H_
#define TVM_FFI_DETAILS_MAP_BASE_OBJ_H_

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
  static ObjectPtr<ObjT> CreateEmpty(uint64_t n = kSmallMinSlots);

  /*! \return A new map of type ObjT holding new references to the entries of `from`. */
  template <typename ObjT>
  static ObjectPtr<ObjT> CopyOf(const MapBaseObj* from);

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
                             uint64_t hash);

  /*!
   * \brief InsertOrAssign without growing: false (both cells left to the
   *        caller) when the key is absent and has no place in this storage;
   *        then only GrowAndInsert may follow (a dense table may be left
   *        with a chain half moved, mended by growing).
   */
  bool TryInsertOrAssign(TVMFFIAny key, TVMFFIAny value, uint64_t hash);

  /*!
   * \brief Add a key that TryInsertOrAssign found absent and without a place:
   *        *holder is replaced by a bigger map of type ObjT that takes over
   *        every entry (the old one is left empty), then the key.
   */
  template <typename ObjT>
  static void GrowAndInsert(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
                            uint64_t hash);

  /*!
   * \brief If the key (a view, with its AnyHash) is present, give it the
   *        owned `value` (as InsertOrAssign would: in the dense form the entry
   *        moves to the end of the iteration order) and return true; else
   *        return false and leave `value` to the caller. Nothing else may
   *        read the map meanwhile.
   */
  bool AssignIfPresent(const TVMFFIAny* key, uint64_t hash, TVMFFIAny value);

  /*!
   * \brief Take over the storage of `other` (a map with no other owner whose
   *        entries this map must now own), leaving it empty. `this` must have
   *        no entries, must not be read meanwhile, and must have been
   *        allocated with at least 80 bytes (every standard map object is).
   *        Used by Dict to grow in place.
   */
  void TakeStorageFrom(ObjectPtr<Object> other);

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
  bool DenseTryInsert(TVMFFIAny key, TVMFFIAny value, uint64_t hash);

  /*!
   * \brief Place an entry whose key is known to be absent (it comes from
   *        another table, or a probe found no match), in a table the caller
   *        knows has room: no key comparisons, no fullness test.
   * \return false when no free slot is reachable (nothing lost, as for
   *         DenseTryInsert).
   */
  template <typename Hooks>
  bool PlaceAbsent(TVMFFIAny key, TVMFFIAny value, uint64_t hash, Hooks& hooks);

  /*! \brief Append an entry to the chain whose last link is `tail`; false if no slot is free. */
  template <typename Hooks>
  bool PlaceAfter(uint64_t tail, TVMFFIAny key, TVMFFIAny value, Hooks& hooks);

  /*!
   * \brief `target` belongs to another chain: relocate it and the links after
   *        it to free slots (re-linked from its predecessor), then make
   *        `target` the head of the key's chain.
   */
  template <typename Hooks>
  bool EvictAndPlaceHead(uint64_t target, TVMFFIAny key, TVMFFIAny value, Hooks& hooks);

  /*!
   * \brief The dense table *holder found no place for a key known to be
   *        absent: move its entries to one twice as big (again, until the
   *        key finds a place there), then place the key without a probe.
   */
  template <typename ObjT>
  static void GrowAndPlace(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
                           uint64_t hash);

  /*!
   * \brief Move every entry, in iteration order, into *dst, a new map with
   *        no entries (small with room for them all, or dense); this map is
   *        left empty. *dst may be replaced by a bigger map on the way.
   */
  template <typename ObjT>
  void MoveEntriesInto(ObjectPtr<Object>* dst);

  /*! \brief One entry of MoveEntriesInto: placed directly while *dst is the roomy table. */
  template <typename ObjT>
  static void MovePlace(ObjectPtr<Object>* dst, bool roomy, TVMFFIAny key, TVMFFIAny value,
                        uint64_t hash);

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
  bool MoveByScan(MapBaseObj* d) noexcept;

  /*! \brief A hint that *p is read or written soon. */
  static void Prefetch(const void* p) noexcept;

  void ErasePos(uint64_t pos);

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
  TVM_FFI_NOINLINE static void CopyDenseBlocks(MapBaseObj* m, const MapBaseObj* from) noexcept;

  /*!
   * \brief std::memcpy, called: a copy of a few hundred bytes whose size the
   *        compiler knows (or bounds) is inlined as `rep movs`, several times
   *        slower here than the library's vector moves.
   */
  TVM_FFI_NOINLINE static inline void CopyBytes(void* dst, const void* src, size_t n) noexcept;

  /*! \brief Leave a vacated dense item reading as None (see BlockTypeBits). */
  static void ClearItemCells(detail::MapDenseItem* it) noexcept;

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
  static uint32_t BlockTypeBits(const detail::MapDenseItem* items, uint64_t in_block) noexcept;

  /*! \brief Release the entries of a dying map (the metadata and cells are left as they are). */
  void DropEntries() noexcept;
  /*! \brief Release n owned cells of a dying map. */
  TVM_FFI_NOINLINE static inline void DropCells(const TVMFFIAny* cells, int64_t n) noexcept;

  void ReleaseEntries() noexcept;

  template <typename, typename, typename>
  friend class Map;
  template <typename, typename, typename>
  friend class Dict;
  template <typename, typename, typename, typename, typename>
  friend class detail::MapRefBase;
};

static_assert(sizeof(MapBaseObj) == 56, "map object: header + data, size, slots, data_deleter");

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_MAP_BASE_OBJ_H_

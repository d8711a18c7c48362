/*
 * The operations of MapBaseObj that change or copy a table (internal piece of
 * <tvm/ffi/container/map_base.h>; include that), defined out of the class in
 * map_base_obj.h: creating and copying maps, insertion and assignment in
 * both forms, placing entries in the dense form's chains (evicting a chain
 * that holds a head slot), growing and rehashing, erasing, the block copy of
 * a dense table, and dropping and releasing entries.
 */
#ifndef TVM_FFI_DETAILS_MAP_BASE_OPS_H_
#define TVM_FFI_DETAILS_MAP_BASE_OPS_H_

#include <tvm/ffi/details/map_base_obj.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <utility>

namespace tvm {
namespace ffi {

template <typename ObjT>
inline ObjectPtr<ObjT> MapBaseObj::CreateEmpty(uint64_t n) {
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

template <typename ObjT>
inline ObjectPtr<ObjT> MapBaseObj::CopyOf(const MapBaseObj* from) {
  if (from->IsSmallMap()) {
    ObjectPtr<ObjT> p = NewSmall<ObjT>(from->size_ < kSmallMinSlots ? kSmallMinSlots : from->size_);
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

template <typename ObjT>
inline void MapBaseObj::InsertOrAssign(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
                                       uint64_t hash) {
  MapBaseObj* m = static_cast<MapBaseObj*>(holder->get());
  if (!m->TryInsertOrAssign(key, value, hash)) GrowAndInsert<ObjT>(holder, key, value, hash);
}

inline bool MapBaseObj::TryInsertOrAssign(TVMFFIAny key, TVMFFIAny value, uint64_t hash) {
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

template <typename ObjT>
inline void MapBaseObj::GrowAndInsert(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
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

inline bool MapBaseObj::AssignIfPresent(const TVMFFIAny* key, uint64_t hash, TVMFFIAny value) {
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

inline void MapBaseObj::TakeStorageFrom(ObjectPtr<Object> other) {
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

inline bool MapBaseObj::DenseTryInsert(TVMFFIAny key, TVMFFIAny value, uint64_t hash) {
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

template <typename Hooks>
inline bool MapBaseObj::PlaceAbsent(TVMFFIAny key, TVMFFIAny value, uint64_t hash, Hooks& hooks) {
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

template <typename Hooks>
inline bool MapBaseObj::PlaceAfter(uint64_t tail, TVMFFIAny key, TVMFFIAny value, Hooks& hooks) {
  uint8_t jump;
  uint64_t empty;
  if (!FindEmptyAfter(tail, &jump, &empty)) return false;
  PlaceItem(empty, kTailBit, key, value);
  hooks.Placed(empty);
  SetJump(tail, jump);
  ++size_;
  return true;
}

template <typename Hooks>
inline bool MapBaseObj::EvictAndPlaceHead(uint64_t target, TVMFFIAny key, TVMFFIAny value,
                                          Hooks& hooks) {
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

template <typename ObjT>
inline void MapBaseObj::GrowAndPlace(ObjectPtr<Object>* holder, TVMFFIAny key, TVMFFIAny value,
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

template <typename ObjT>
inline void MapBaseObj::MoveEntriesInto(ObjectPtr<Object>* dst) {
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
      MovePlace<ObjT>(dst, roomy, cells[i].key, cells[i].value, detail::AnyCellHash(&cells[i].key));
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

template <typename ObjT>
inline void MapBaseObj::MovePlace(ObjectPtr<Object>* dst, bool roomy, TVMFFIAny key,
                                  TVMFFIAny value, uint64_t hash) {
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

inline bool MapBaseObj::MoveByScan(MapBaseObj* d) noexcept {
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

inline void MapBaseObj::Prefetch(const void* p) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 1);
#else
  (void)p;
#endif
}

inline void MapBaseObj::ErasePos(uint64_t pos) {
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

template <bool kStreaming>
TVM_FFI_NOINLINE void MapBaseObj::CopyDenseBlocks(MapBaseObj* m, const MapBaseObj* from) noexcept {
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

void MapBaseObj::CopyBytes(void* dst, const void* src, size_t n) noexcept {
  std::memcpy(dst, src, n);
}

inline void MapBaseObj::ClearItemCells(detail::MapDenseItem* it) noexcept {
  detail::SetAnyNone(&it->key);
  detail::SetAnyNone(&it->value);
}

inline uint32_t MapBaseObj::BlockTypeBits(const detail::MapDenseItem* items,
                                          uint64_t in_block) noexcept {
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

inline void MapBaseObj::DropEntries() noexcept {
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

void MapBaseObj::DropCells(const TVMFFIAny* cells, int64_t n) noexcept {
  detail::ContainerReleaseScope release;
  for (int64_t i = 0; i < n; ++i) release.Drop(cells[i]);
}

inline void MapBaseObj::ReleaseEntries() noexcept {
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

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_MAP_BASE_OPS_H_

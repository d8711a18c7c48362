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
 *
 * The pieces, each in tvm/ffi/details/: map_base_obj.h (MapBaseObj: fields,
 * lookups, the small form and the dense form's primitives), map_base_ops.h
 * (insertion, growth, erasing, copying and releasing entries) and
 * map_ref_base.h (the typed layer: detail::MapRefBase and its policies).
 */
#ifndef TVM_FFI_CONTAINER_MAP_BASE_H_
#define TVM_FFI_CONTAINER_MAP_BASE_H_

#include <tvm/ffi/details/map_base_obj.h>
#include <tvm/ffi/details/map_base_ops.h>
#include <tvm/ffi/details/map_ref_base.h>

#endif  // TVM_FFI_CONTAINER_MAP_BASE_H_

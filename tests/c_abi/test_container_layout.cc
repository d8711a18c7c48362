// Compile-only: the byte layouts of the Map/Dict and Array/List objects that
// other TVM-FFI 0.1 binaries read inline (the tables in map_base.h and
// seq_base.h). A drift fails the build. Linked into test_layout.
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>

#include <cstddef>

namespace {
using tvm::ffi::MapBaseObj;

// offsetof on the object types: they are not standard-layout (fields in a
// base and a derived class), which GCC and Clang lay out in order anyway.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#endif
struct MapProbe : MapBaseObj {
  static constexpr size_t kData() { return offsetof(MapProbe, data_); }
  static constexpr size_t kSize() { return offsetof(MapProbe, size_); }
  static constexpr size_t kSlots() { return offsetof(MapProbe, slots_); }
  static constexpr size_t kDataDeleter() { return offsetof(MapProbe, data_deleter_); }
};
constexpr size_t kSeqCell = offsetof(tvm::ffi::ListObj, data);
constexpr size_t kArrayCell = offsetof(tvm::ffi::ArrayObj, data);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

// Map and Dict objects: header, then data, size, slots, data_deleter.
static_assert(sizeof(TVMFFIObject) == 24, "object header");
static_assert(MapProbe::kData() == 24, "map data");
static_assert(MapProbe::kSize() == 32, "map size");
static_assert(MapProbe::kSlots() == 40, "map slots (bit 63: small form)");
static_assert(MapProbe::kDataDeleter() == 48, "map data_deleter");
static_assert(sizeof(MapBaseObj) == 56, "small map object (entries follow inline)");
static_assert(sizeof(tvm::ffi::MapObj) == 56 && sizeof(tvm::ffi::DictObj) == 56,
              "Map and Dict objects are MapBaseObj");
static_assert(MapBaseObj::kSmallTag == (uint64_t{1} << 63), "small-form tag");
static_assert(MapBaseObj::kSmallMinSlots == 2 && MapBaseObj::kSmallMaxSlots == 4,
              "small form: 2 to 4 slots");
static_assert(sizeof(MapBaseObj) + 2 * sizeof(MapBaseObj::KVCell) >=
                  sizeof(MapBaseObj) + sizeof(tvm::ffi::detail::MapDenseFields),
              "a small object has room to turn dense in place");
// Small-form entry: key then value, 32 bytes.
static_assert(sizeof(MapBaseObj::KVCell) == 32 && offsetof(MapBaseObj::KVCell, key) == 0 &&
                  offsetof(MapBaseObj::KVCell, value) == 16,
              "small entry {key, value}");
// Dense fields after the common part: fib_shift @56, iter_list_head @64, iter_list_tail @72.
static_assert(sizeof(MapBaseObj) + offsetof(tvm::ffi::detail::MapDenseFields, fib_shift) == 56,
              "dense fib_shift");
static_assert(sizeof(MapBaseObj) + offsetof(tvm::ffi::detail::MapDenseFields, iter_list_head) == 64,
              "dense iter_list_head");
static_assert(sizeof(MapBaseObj) + offsetof(tvm::ffi::detail::MapDenseFields, iter_list_tail) == 72,
              "dense iter_list_tail");
static_assert(sizeof(MapBaseObj) + sizeof(tvm::ffi::detail::MapDenseFields) == 80,
              "dense map object");
// Dense blocks: 16 metadata bytes, then 16 items {key, value, prev, next} of 48 bytes.
static_assert(sizeof(tvm::ffi::detail::MapDenseItem) == 48 &&
                  offsetof(tvm::ffi::detail::MapDenseItem, key) == 0 &&
                  offsetof(tvm::ffi::detail::MapDenseItem, value) == 16 &&
                  offsetof(tvm::ffi::detail::MapDenseItem, prev) == 32 &&
                  offsetof(tvm::ffi::detail::MapDenseItem, next) == 40,
              "dense item");
static_assert(MapBaseObj::kBlockSlots == 16 && MapBaseObj::kBlockBytes == 784, "dense block");
static_assert(MapBaseObj::kEmptyMeta == 0xFF && MapBaseObj::kProtectedMeta == 0xFE &&
                  MapBaseObj::kTailBit == 0x80 && MapBaseObj::kJumpMask == 0x7F,
              "dense metadata encoding");
static_assert(MapBaseObj::kNoSlot == ~uint64_t{0}, "iteration list end");
static_assert(MapBaseObj::kFibMul == 11400714819323198485ULL, "Fibonacci hashing multiplier");
// Jump distances: 0..15, triangle numbers T(6)..T(72), then 43 sparse large ones.
static_assert(tvm::ffi::detail::kMapJumps.dist[1] == 1 &&
                  tvm::ffi::detail::kMapJumps.dist[15] == 15 &&
                  tvm::ffi::detail::kMapJumps.dist[17] == 28 &&
                  tvm::ffi::detail::kMapJumps.dist[84] == 19110 &&
                  tvm::ffi::detail::kMapJumps.dist[99] == 3631522476ULL,
              "dense jump distances");
// The standard key hash.
static_assert(sizeof(uint64_t) == sizeof(decltype(tvm::ffi::AnyHash()(tvm::ffi::Any()))),
              "AnyHash is 64-bit");

// Array and List objects: header, then TVMFFISeqCell {data, size, capacity, data_deleter}.
static_assert(kSeqCell == 24 && kArrayCell == 24, "sequence cell after the header");
static_assert(offsetof(TVMFFISeqCell, data) == 0 && offsetof(TVMFFISeqCell, size) == 8 &&
                  offsetof(TVMFFISeqCell, capacity) == 16 &&
                  offsetof(TVMFFISeqCell, data_deleter) == 24 && sizeof(TVMFFISeqCell) == 32,
              "TVMFFISeqCell");
static_assert(sizeof(tvm::ffi::ListObj) == 56 && sizeof(tvm::ffi::ArrayObj) == 56,
              "sequence objects");

// Type indices.
static_assert(tvm::ffi::MapObj::_type_index == 72 && tvm::ffi::DictObj::_type_index == 76 &&
                  tvm::ffi::ListObj::_type_index == 75 && tvm::ffi::ArrayObj::_type_index == 71,
              "container type indices");
}  // namespace

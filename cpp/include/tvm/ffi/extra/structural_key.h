/*
 * tvmffi C++ layer: StructuralKey, a value wrapped with its structural hash,
 * for containers keyed by structure.
 *
 *   std::unordered_map<StructuralKey, int> by_structure;
 *   by_structure[StructuralKey(Array<int>{1, 2})] = 1;
 *   by_structure.count(StructuralKey(Array<int>{1, 2}));   // 1
 *
 * Two keys are equal when their hashes match and their values are
 * StructurallyEqual; std::hash<StructuralKey> is the stored hash. The object
 * is "ffi.StructuralKey" (fields key, hash_i64; constructor `__init__(key)`
 * and the global `ffi.StructuralKey(key)` registered by libtvmffi, with
 * `ffi.StructuralKeyEqual(a, b)`).
 * Unlike upstream 0.1.14, Map and Dict still hash a StructuralKey by identity
 * (their key hashing is the ABI's fixed AnyHash).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_KEY_H_
#define TVM_FFI_EXTRA_STRUCTURAL_KEY_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/memory.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief A value and its structural hash (computed once, at construction). */
class StructuralKeyObj : public Object {
 public:
  Any key;
  int64_t hash_i64{0};

  StructuralKeyObj() = default;
  explicit StructuralKeyObj(Any value)
      : key(std::move(value)), hash_i64(static_cast<int64_t>(StructuralHash::Hash(key))) {}

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.StructuralKey", StructuralKeyObj, Object);
};

/*! \brief Reference to a StructuralKeyObj (never null). */
class StructuralKey : public ObjectRef {
 public:
  explicit StructuralKey(Any key) : ObjectRef(make_object<StructuralKeyObj>(std::move(key))) {}

  bool operator==(const StructuralKey& other) const {
    return same_as(other) ||
           (get()->hash_i64 == other->hash_i64 && StructuralEqual::Equal(get()->key, other->key));
  }
  bool operator!=(const StructuralKey& other) const { return !(*this == other); }

  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(StructuralKey, ObjectRef, StructuralKeyObj);
};

}  // namespace ffi
}  // namespace tvm

namespace std {
template <>
struct hash<tvm::ffi::StructuralKey> {
  size_t operator()(const tvm::ffi::StructuralKey& key) const {
    return static_cast<size_t>(static_cast<uint64_t>(key->hash_i64));
  }
};
}  // namespace std

#endif  // TVM_FFI_EXTRA_STRUCTURAL_KEY_H_

/*
 * tvmffi C++ layer: structural hashing, consistent with StructuralEqual
 * (structurally equal values hash the same; the flags mean the same).
 *
 *   uint64_t h = StructuralHash::Hash(value);
 *   std::unordered_map<Any, int, StructuralHash, StructuralEqual> by_structure;
 *
 * Map and Dict hash independently of their iteration order; free variables
 * hash by identity, or by binding order inside an SEqHashDef field (or
 * everywhere with map_free_vars), so alpha-equivalent functions hash the same.
 * The values are this implementation's own: stable within a process, not
 * equal to another runtime's.
 *
 * Errors as StructuralEqual. The work is done by libtvmffi's global
 * `ffi.StructuralHash` (upstream's name).
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_HASH_H_
#define TVM_FFI_EXTRA_STRUCTURAL_HASH_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>

#include <cstdint>

namespace tvm {
namespace ffi {

/*! \brief Structural hash (see the top of this file). */
class StructuralHash {
 public:
  // Hidden, as StructuralEqual::Equal (upstream's mangled name).
  TVM_FFI_HIDDEN static uint64_t Hash(const Any& value, bool map_free_vars = false,
                                      bool skip_tensor_content = false) {
    static const Function fn = Function::GetGlobalRequired("ffi.StructuralHash");
    return static_cast<uint64_t>(fn(value, map_free_vars, skip_tensor_content).cast<int64_t>());
  }
  uint64_t operator()(const Any& value) const { return Hash(value); }
};

namespace type_attr {
/*!
 * \brief A type's own structural hash (upstream's typed key): (self, hash so
 *        far, hash) where hash(part, init, def_region_kind) hashes a part.
 */
inline constexpr reflection::AttrKey<TypedFunction<int64_t(
    const Object*, int64_t, const TypedFunction<int64_t(AnyView, int64_t, int)>&)>>
    kSHash{"__s_hash__"};
}  // namespace type_attr

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_STRUCTURAL_HASH_H_

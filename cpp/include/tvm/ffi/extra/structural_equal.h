/*
 * tvmffi C++ layer: structural equality of values.
 *
 *   StructuralEqual::Equal(a, b);                  // bool
 *   StructuralEqual()(a, b);                       // the same, as a functor
 *   Optional<reflection::AccessPathPair> m = StructuralEqual::GetFirstMismatch(a, b);
 *   // m: nullopt when equal, else (path in a, path in b) of the first difference,
 *   //    e.g. (<root>.body[2], <root>.body[2]) or (<root>[3], <root>[<missing:3>]).
 *
 * Two values are structurally equal when they have the same type and equal
 * contents: containers element by element, objects field by field through
 * their reflection (fields flagged SEqHashIgnore are skipped), as the type's
 * structural kind says (see runtime/reflection.cc for the rules: tree, DAG,
 * free variable, unique instance). `map_free_vars` lets unbound free
 * variables pair up (as inside an SEqHashDef field); `skip_tensor_content`
 * compares tensors by shape and dtype only.
 *
 * Errors: an object whose type declares no structural kind is a TypeError
 * naming the type; a tensor whose content would be read must be a
 * contiguous CPU tensor (else ValueError).
 *
 * The work is done by libtvmffi's globals `ffi.StructuralEqual` and
 * `ffi.GetFirstStructuralMismatch` (upstream's names), so the same rules
 * apply to every language; these wrappers look them up once.
 */
#ifndef TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_
#define TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/reflection/accessor.h>

namespace tvm {
namespace ffi {

/*! \brief Structural equality (see the top of this file). */
class StructuralEqual {
 public:
  // Hidden: same mangled names as upstream's out-of-line members; an exported
  // copy in a library would interpose upstream's runtime (infinite recursion
  // through its global).
  /*! \return Whether lhs and rhs are structurally equal. */
  TVM_FFI_HIDDEN static bool Equal(const Any& lhs, const Any& rhs, bool map_free_vars = false,
                                   bool skip_tensor_content = false) {
    static const Function fn = Function::GetGlobalRequired("ffi.StructuralEqual");
    return fn(lhs, rhs, map_free_vars, skip_tensor_content).cast<bool>();
  }
  /*! \return nullopt if equal, else the paths to the first difference on each side. */
  TVM_FFI_HIDDEN static Optional<reflection::AccessPathPair> GetFirstMismatch(
      const Any& lhs, const Any& rhs, bool map_free_vars = false,
      bool skip_tensor_content = false) {
    static const Function fn = Function::GetGlobalRequired("ffi.GetFirstStructuralMismatch");
    return fn(lhs, rhs, map_free_vars, skip_tensor_content)
        .cast<Optional<reflection::AccessPathPair>>();
  }
  bool operator()(const Any& lhs, const Any& rhs) const { return Equal(lhs, rhs); }
};

namespace type_attr {
/*!
 * \brief A type's own structural equality (upstream's typed key): (lhs, rhs,
 *        eq) where eq(a, b, def_region_kind, field_name) compares parts.
 */
inline constexpr reflection::AttrKey<TypedFunction<bool(
    const Object*, const Object*, const TypedFunction<bool(AnyView, AnyView, int, AnyView)>&)>>
    kSEqual{"__s_equal__"};
}  // namespace type_attr

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_STRUCTURAL_EQUAL_H_

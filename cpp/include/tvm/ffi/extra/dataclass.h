/*
 * tvmffi C++ layer: reflection-driven operations on object graphs.
 *
 *   Any copy = DeepCopy(value);          // nothing mutable shared with value
 *   String text = ReprPrint(value);      // e.g. test.Point(x=1, y=2.5)
 *   std::cout << value;                  // the same text, for Any, ObjectRef,
 *                                        // Optional<T> and Variant<...>
 *   RecursiveEq(a, b), RecursiveLt(a, b) // by value, through containers and
 *   (Le, Gt, Ge), RecursiveHash(a)       // reflected fields
 *
 * The rules (what is copied or shared, the printed forms) are described in
 * runtime/dataclass.cc. In short: containers are rebuilt, objects are
 * copied with `__ffi_shallow_copy__` (ObjectDef registers it for
 * copy-constructible classes) and their fields copied in turn; a type
 * without it is a TypeError. ReprPrint follows upstream's format
 * ("(1, 2)" for an Array, "[1, 2]" for a List, "{k: v}" for a Map,
 * "type.key(field=value, ...)" for a reflected object, a type's
 * `__ffi_repr__` when it has one).
 *
 * The Recursive* functions compare by value: None first, then same-typed
 * values (1, 1.0 and true are unequal; a str equals a str whatever its storage),
 * strings, Array, List and Shape lexicographically (a prefix first), Map and
 * Dict by their keys' values (equal or unordered), objects of one type by
 * their reflected fields without `refl::compare(false)` or by the type's
 * `__ffi_eq__` / `__ffi_compare__`. Ordering values of different types, NaNs,
 * differing maps or opaque pointers is a TypeError; ordering through a cycle
 * a ValueError (equality treats a cycle met again as equal). RecursiveHash
 * agrees with RecursiveEq (it also skips `refl::hash(false)` fields, or uses
 * `__ffi_hash__`).
 *
 * The work is done by libtvmffi's globals `ffi.DeepCopy`, `ffi.ReprPrint`,
 * `ffi.RecursiveHash`, `ffi.RecursiveEq`, ... (upstream's names). Opt-in:
 * brings <ostream>.
 */
#ifndef TVM_FFI_EXTRA_DATACLASS_H_
#define TVM_FFI_EXTRA_DATACLASS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <ostream>

namespace tvm {
namespace ffi {

/*!
 * \brief Typed keys of the type attributes a type sets to take over ReprPrint,
 *        RecursiveHash, RecursiveEq and the orderings (upstream's names). Each
 *        hook gets the object(s) and a function to apply to the parts.
 */
namespace type_attr {
inline constexpr reflection::AttrKey<
    TypedFunction<String(const Object*, const TypedFunction<String(AnyView)>&)>>
    kRepr{"__ffi_repr__"};
inline constexpr reflection::AttrKey<
    TypedFunction<int64_t(const Object*, const TypedFunction<int64_t(AnyView)>&)>>
    kHash{"__ffi_hash__"};
inline constexpr reflection::AttrKey<
    TypedFunction<bool(const Object*, const Object*, const TypedFunction<bool(AnyView, AnyView)>&)>>
    kEq{"__ffi_eq__"};
inline constexpr reflection::AttrKey<TypedFunction<int32_t(
    const Object*, const Object*, const TypedFunction<int32_t(AnyView, AnyView)>&)>>
    kCompare{"__ffi_compare__"};
}  // namespace type_attr

// These are hidden: upstream exports functions of the same mangled names,
// which an exported copy in a library would interpose.

/*! \return A deep copy of value (see the top of this file). */
TVM_FFI_HIDDEN inline Any DeepCopy(const Any& value) {
  static const Function fn = Function::GetGlobalRequired("ffi.DeepCopy");
  return fn(value);
}

/*! \return The printed form of value (see the top of this file). */
TVM_FFI_HIDDEN inline String ReprPrint(const Any& value) {
  static const Function fn = Function::GetGlobalRequired("ffi.ReprPrint");
  return fn(value).cast<String>();
}

/*! \return A hash of value that agrees with RecursiveEq (see the top of this file). */
TVM_FFI_HIDDEN inline int64_t RecursiveHash(const Any& value) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveHash");
  return fn(value).cast<int64_t>();
}

/*! \return Whether lhs equals rhs by value (see the top of this file). */
TVM_FFI_HIDDEN inline bool RecursiveEq(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveEq");
  return fn(lhs, rhs).cast<bool>();
}

/*! \return Whether lhs orders before rhs. \throws TypeError / ValueError (see the top). */
TVM_FFI_HIDDEN inline bool RecursiveLt(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveLt");
  return fn(lhs, rhs).cast<bool>();
}

/*! \return Whether lhs orders before or equals rhs. */
TVM_FFI_HIDDEN inline bool RecursiveLe(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveLe");
  return fn(lhs, rhs).cast<bool>();
}

/*! \return Whether lhs orders after rhs. */
TVM_FFI_HIDDEN inline bool RecursiveGt(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveGt");
  return fn(lhs, rhs).cast<bool>();
}

/*! \return Whether lhs orders after or equals rhs. */
TVM_FFI_HIDDEN inline bool RecursiveGe(const Any& lhs, const Any& rhs) {
  static const Function fn = Function::GetGlobalRequired("ffi.RecursiveGe");
  return fn(lhs, rhs).cast<bool>();
}

inline std::ostream& operator<<(std::ostream& os, const Any& value) {
  String text = ReprPrint(value);
  return os.write(text.data(), static_cast<std::streamsize>(text.size()));
}
inline std::ostream& operator<<(std::ostream& os, const ObjectRef& value) {
  return os << Any(value);
}
template <typename T>
inline std::ostream& operator<<(std::ostream& os, const Optional<T>& value) {
  return os << Any(value);
}
// At least one alternative: with a bare pack, `os << std::endl` would deduce
// Variant<> and trip its static_assert.
template <typename V0, typename... V>
inline std::ostream& operator<<(std::ostream& os, const Variant<V0, V...>& value) {
  return os << Any(value);
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_DATACLASS_H_

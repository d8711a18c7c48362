/*
 * tvmffi C++ layer: reflection-driven operations on object graphs.
 *
 *   Any copy = DeepCopy(value);          // nothing mutable shared with value
 *   String text = ReprPrint(value);      // e.g. test.Point(x=1, y=2.5)
 *   std::cout << value;                  // the same text, for Any, ObjectRef,
 *                                        // Optional<T> and Variant<...>
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
 * The work is done by libtvmffi's globals `ffi.DeepCopy` and `ffi.ReprPrint`
 * (upstream's names). Opt-in: brings <ostream>.
 */
#ifndef TVM_FFI_EXTRA_DATACLASS_H_
#define TVM_FFI_EXTRA_DATACLASS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <ostream>

namespace tvm {
namespace ffi {

// DeepCopy and ReprPrint are hidden: upstream exports functions of the same
// mangled names, which an exported copy in a library would interpose.

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
template <typename... V>
inline std::ostream& operator<<(std::ostream& os, const Variant<V...>& value) {
  return os << Any(value);
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_EXTRA_DATACLASS_H_

/*
 * tvm/ffi/extra/dataclass.h (opt-in; brings <ostream>): ReprPrint and
 * `std::ostream << value` for Any, ObjectRef, Variant and Optional, in
 * upstream's format:
 *
 *   std::cout << Any(42) << " " << Any(String("hi")) << " " << obj;
 *   // 42 "hi" test.Int(value=7)
 *
 * The printer lives in libtvmffi (global `ffi.ReprPrint`); see runtime/repr.cc
 * for the format of every type. String, Shape, DLDataType and DLDevice keep
 * their own operator<< (String prints its text unquoted, Shape "[1, 2]").
 *
 * Upstream's DeepCopy and RecursiveHash/Eq/Lt/Le/Gt/Ge, declared in the same
 * header there, are not provided yet.
 */
#ifndef TVM_FFI_EXTRA_DATACLASS_H_
#define TVM_FFI_EXTRA_DATACLASS_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/base_details.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <ostream>

namespace tvm {
namespace ffi {

namespace details {
/*! \brief The body of ReprPrint (shared with libtvmffi_upstream_cxx's exported copy). */
inline String ReprPrintImpl(const Any& value) {
  return TVM_FFI_RUNTIME_GLOBAL_("ffi.ReprPrint")(value).cast<String>();
}
}  // namespace details

/*!
 * \brief A readable, Python-like text for a value: None, True, 42, 3.14,
 *        "text", (1, 2) for an Array, [1, 2] for a List, {"k": 1} for a Map,
 *        type_key(field=value, ...) for a reflected object; "..." for an object
 *        reached again while it is being printed.
 * \throws Error Only what a type's own `__ffi_repr__` hook raises.
 */
#ifndef TVM_FFI_DATACLASS_OUT_OF_LINE_
// Hidden: upstream's out-of-line function has this mangled name (see json.h).
TVM_FFI_HIDDEN inline String ReprPrint(const Any& value) { return details::ReprPrintImpl(value); }
#else
String ReprPrint(const Any& value);
#endif

/*! \brief `os << value` writes ReprPrint(value). */
inline std::ostream& operator<<(std::ostream& os, const Any& value) {
  return os << ReprPrint(value);
}

/*! \brief `os << ref` writes ReprPrint of the object (its dynamic type); None when null. */
inline std::ostream& operator<<(std::ostream& os, const ObjectRef& value) {
  return os << ReprPrint(Any(value));
}

/*! \brief `os << variant` writes ReprPrint of the held alternative. */
template <typename... V>
inline std::ostream& operator<<(std::ostream& os, const Variant<V...>& value) {
  return os << ReprPrint(Any(value));
}

/*! \brief `os << optional` writes ReprPrint of the value, or None. */
template <typename T>
inline std::ostream& operator<<(std::ostream& os, const Optional<T>& value) {
  return os << ReprPrint(Any(value));
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_DATACLASS_H_

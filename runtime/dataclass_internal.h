/*
 * What the runtime's whole-graph operations of <tvm/ffi/extra/dataclass.h>
 * share (dataclass.cc registers them as globals): the small lookups every
 * walk makes (a type's key, the object in an Any) and the entry point of
 * each operation: DeepCopy (dataclass.cc), ReprPrint (dataclass_repr.cc),
 * RecursiveEq/Lt/... and RecursiveHash (dataclass_recursive.cc). Nothing here
 * is exported (the runtime is built with hidden visibility).
 */
#ifndef TVMFFI_RUNTIME_DATACLASS_INTERNAL_H_
#define TVMFFI_RUNTIME_DATACLASS_INTERNAL_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/object.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace tvm {
namespace ffi {
namespace dataclass_impl {

inline std::string_view TypeKeyOf(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  return std::string_view(info->type_key.data, info->type_key.size);
}

inline const Object* ObjectOf(const Any& value) {
  return reinterpret_cast<const Object*>(detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value)->v_obj);
}

/*! \brief ffi.ReprPrint: the text of `value` (dataclass_repr.cc). */
std::string ReprOf(const Any& value);
/*! \brief ffi.RecursiveHash: a hash consistent with RecursiveEq (dataclass_recursive.cc). */
uint64_t RecursiveHashOf(const Any& value);
/*!
 * \brief ffi.RecursiveEq/Lt/Le/Gt/Ge: the three-way comparison of `lhs` and
 *        `rhs` (-1, 0, 1); `equal_only` for RecursiveEq (dataclass_recursive.cc).
 */
int RecursiveCompareOf(const Any& lhs, const Any& rhs, bool equal_only);

}  // namespace dataclass_impl
}  // namespace ffi
}  // namespace tvm

#endif  // TVMFFI_RUNTIME_DATACLASS_INTERNAL_H_

/*
 * The reflected fields of a type through the C ABI (TVMFFITypeInfo): its
 * ancestors' fields first (root first), then its own, as upstream's
 * ForEachFieldInfo visits them. Used by repr.cc and serialization.cc.
 */
#ifndef TVMFFI_RUNTIME_FIELD_WALK_H_
#define TVMFFI_RUNTIME_FIELD_WALK_H_

#include <tvm/ffi/c_api.h>

namespace tvmffi {
namespace rt {

template <typename Visit>
void ForEachField(const TVMFFITypeInfo* info, Visit visit) {
  for (int32_t level = 0; level <= info->type_depth; ++level) {
    const TVMFFITypeInfo* t = level < info->type_depth ? info->type_ancestors[level] : info;
    if (t == nullptr) continue;
    for (int32_t i = 0; i < t->num_fields; ++i) visit(t->fields[i]);
  }
}

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_FIELD_WALK_H_

/*
 * The runtime's part of enums (tvm/ffi/enum.h): the reflection of
 * ffi.EnumState (fields entries, indexes, attrs), ffi.Enum (_int_index,
 * _str_index), ffi.IntEnum and ffi.StrEnum (each also `value`: the integer
 * resp. the name), and the `__ffi_enum__` type attribute column, created at
 * load so that lookups never meet a missing column. ToJSONGraph / FromJSONGraph
 * (serialization.cc), DeepCopy and ReprPrint (dataclass.cc) treat enums as
 * singletons.
 */
#include <tvm/ffi/enum.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdio>
#include <exception>

#include "registration.h"

namespace tvm {
namespace ffi {
namespace {

void RegisterEnumTypes() noexcept {
  try {
    namespace refl = reflection;
    refl::EnsureTypeAttrColumn(refl::type_attr::kEnumState);
    refl::ObjectDef<EnumStateObj>()
        .def(refl::init<>())
        .def_ro("entries", &EnumStateObj::entries, "singletons in registration order",
                refl::init(false))
        .def_ro("indexes", &EnumStateObj::indexes, "integer and string index to singleton",
                refl::init(false))
        .def_ro("attrs", &EnumStateObj::attrs, "attribute name to (singleton to value)",
                refl::init(false));
    // Identity is what matters: the integer index takes no part in hashing.
    refl::ObjectDef<EnumObj>(refl::init(false))
        .def_ro("_int_index", &EnumObj::_int_index, "canonical integer index",
                refl::AttachFieldFlag::SEqHashIgnore())
        .def_ro("_str_index", &EnumObj::_str_index, "canonical string index");
    refl::ObjectDef<IntEnumObj>(refl::init(false))
        .def_ro("value", &EnumObj::_int_index, "the integer value", refl::init(false),
                refl::AttachFieldFlag::SEqHashIgnore())
        .def_convert<IntEnum>();
    refl::ObjectDef<StrEnumObj>(refl::init(false))
        .def_ro("value", &EnumObj::_str_index, "the string value", refl::init(false),
                refl::AttachFieldFlag::SEqHashIgnore())
        .def_convert<StrEnum>();
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register the enum types: %s", e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

[[maybe_unused]] const bool kEnumTypesRegistered = (RegisterEnumTypes(), true);

}  // namespace
}  // namespace ffi
}  // namespace tvm

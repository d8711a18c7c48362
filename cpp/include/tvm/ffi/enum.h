/*
 * tvmffi C++ layer (opt-in): enums, object types whose instances are a fixed
 * set of registered singletons.
 *
 *   class ColorObj : public EnumObj {
 *    public:
 *     TVM_FFI_DECLARE_OBJECT_INFO_FINAL("my.Color", ColorObj, EnumObj);
 *   };
 *   TVM_FFI_STATIC_INIT_BLOCK() {
 *     refl::ObjectDef<ColorObj>(refl::init(false));
 *     refl::EnumDef<ColorObj>("Red");     // int index 0
 *     refl::EnumDef<ColorObj>("Green");   // int index 1
 *   }
 *   Enum red = EnumObj::_GetByStrIndex<ColorObj>("Red");
 *   EnumObj::_GetByIntIndex<ColorObj>(0).same_as(red);   // true
 *
 * Each singleton has a canonical integer index (`_int_index`) and string index
 * (`_str_index`, its name). IntEnumObj / StrEnumObj are bases for enums whose
 * public `value` is the integer / the string (an IntEnum's integers are given
 * explicitly at registration). The singletons of a class live in its
 * `ffi.EnumState`, stored as the type attribute `__ffi_enum__`
 * (reflection::type_attr::kEnumState); reflection::EnumDef
 * (<tvm/ffi/reflection/enum_def.h>) fills it. Enums compare structurally by
 * identity (kTVMFFISEqHashKindUniqueInstance); ToJSONGraph writes an IntEnum
 * as its integer and any other enum as its name, and FromJSONGraph returns
 * the registered singleton.
 */
#ifndef TVM_FFI_ENUM_H_
#define TVM_FFI_ENUM_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

class Enum;
class IntEnum;
class StrEnum;

/*! \brief The registered singletons of one enum class (type attribute `__ffi_enum__`). */
class EnumStateObj : public Object {
 public:
  /*! \brief The singletons, in registration order. */
  List<ObjectRef> entries;
  /*! \brief Integer index and string index (both) to singleton. */
  Dict<Any, ObjectRef> indexes;
  /*! \brief Per-singleton attributes: attribute name -> (singleton -> value). */
  Dict<String, Dict<ObjectRef, Any>> attrs;

  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.EnumState", EnumStateObj, Object);
};

/*! \brief Reference to an EnumStateObj (nullable). */
class EnumState : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(EnumState, ObjectRef, EnumStateObj);
};

namespace type_attr {
/*! \brief The typed key of an enum class's EnumState (upstream's name). */
inline constexpr reflection::AttrKey<EnumState> kEnumState{"__ffi_enum__"};
}  // namespace type_attr

/*! \brief Base of enum singletons: their canonical integer and string indices. */
class EnumObj : public Object {
 public:
  /*! \brief The canonical integer index. */
  int64_t _int_index = 0;
  /*! \brief The canonical string index (the singleton's name). */
  String _str_index;

  EnumObj() = default;
  /*! \brief A singleton with the given indices (EnumDef sets them on registration). */
  EnumObj(int64_t int_index, String str_index)
      : _int_index(int_index), _str_index(std::move(str_index)) {}

  // NOLINTBEGIN(bugprone-reserved-identifier)
  /*!
   * \brief The singleton of EnumClsObj registered with integer index `index`.
   * \throws ValueError if there is none.
   */
  template <typename EnumClsObj>
  static Enum _GetByIntIndex(int64_t index);
  /*!
   * \brief The singleton of EnumClsObj registered with string index `index`.
   * \throws ValueError if there is none.
   */
  template <typename EnumClsObj>
  static Enum _GetByStrIndex(const String& index);
  /*!
   * \brief As above, for the enum class of type index `type_index`. (A
   *        template only so that a file that never calls it does not
   *        instantiate the lookup; call it as a plain function.)
   */
  template <typename LazyT_ = void>
  static Enum _GetByIntIndex(int32_t type_index, int64_t index);
  /*! \brief As above, for the enum class of type index `type_index`. */
  template <typename LazyT_ = void>
  static Enum _GetByStrIndex(int32_t type_index, const String& index);
  // NOLINTEND(bugprone-reserved-identifier)

  // Singletons: structurally equal only to themselves.
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUniqueInstance;
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.Enum", EnumObj, Object);

 private:
  template <typename Index>
  static Enum Lookup(int32_t type_index, const Index& index);
};

/*! \brief Reference to an enum singleton (nullable); equal values are the same object. */
class Enum : public ObjectRef {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(Enum, ObjectRef, EnumObj);
};

/*! \brief Base of enums whose public `value` is the integer index. */
class IntEnumObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.IntEnum", IntEnumObj, EnumObj);
};

/*! \brief Reference to an IntEnumObj (nullable). */
class IntEnum : public Enum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(IntEnum, Enum, IntEnumObj);
};

/*! \brief Base of enums whose public `value` is the string index. */
class StrEnumObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO("ffi.StrEnum", StrEnumObj, EnumObj);
};

/*! \brief Reference to a StrEnumObj (nullable). */
class StrEnum : public Enum {
 public:
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(StrEnum, Enum, StrEnumObj);
};

template <typename Index>
inline Enum EnumObj::Lookup(int32_t type_index, const Index& index) {
  // libtvmffi creates the column at load, so the lookup cannot fail for want of it.
  static reflection::TypeAttrColumn column(reflection::type_attr::kEnumState);
  AnyView state_any = column[type_index];
  if (state_any != nullptr) {
    if (auto state = state_any.as<EnumState>()) {
      if (Optional<ObjectRef> entry = (*state)->indexes.Get(Any(index))) {
        return entry.value().as_or_throw<Enum>();
      }
    }
  }
  TVM_FFI_THROW(ValueError) << "Enum `" << TypeIndexToTypeKey(type_index)
                            << "` has no instance with index " << index;
  TVM_FFI_UNREACHABLE();
}

// NOLINTBEGIN(bugprone-reserved-identifier)
template <typename EnumClsObj>
inline Enum EnumObj::_GetByIntIndex(int64_t index) {
  static_assert(std::is_base_of_v<EnumObj, EnumClsObj>, "EnumClsObj must derive from EnumObj");
  return Lookup(EnumClsObj::_GetOrAllocRuntimeTypeIndex(), index);
}

template <typename EnumClsObj>
inline Enum EnumObj::_GetByStrIndex(const String& index) {
  static_assert(std::is_base_of_v<EnumObj, EnumClsObj>, "EnumClsObj must derive from EnumObj");
  return Lookup(EnumClsObj::_GetOrAllocRuntimeTypeIndex(), index);
}

template <typename LazyT_>
inline Enum EnumObj::_GetByIntIndex(int32_t type_index, int64_t index) {
  return Lookup(type_index, index);
}

template <typename LazyT_>
inline Enum EnumObj::_GetByStrIndex(int32_t type_index, const String& index) {
  return Lookup(type_index, index);
}
// NOLINTEND(bugprone-reserved-identifier)

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_ENUM_H_

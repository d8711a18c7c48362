/*
 * How object references and pointers convert to and from TVMFFIAny (internal
 * piece of <tvm/ffi/object.h>; include that): the TypeTraits of ObjectRef
 * subclasses (ObjectRefTypeTraitsBase, ObjectRefWithFallbackTraitsBase), of
 * raw object pointers, ObjectPtr and Arc; the static and runtime type indices
 * of a C++ type (TypeToFieldStaticTypeIndex, TypeToRuntimeTypeIndex); and the
 * subsumption rules type_subsumes_v and object_ref_contains_v.
 */
#ifndef TVM_FFI_DETAILS_OBJECT_TRAITS_H_
#define TVM_FFI_DETAILS_OBJECT_TRAITS_H_

#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/details/object_core.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

// ---------------------------------------------------------------------------
// TypeTraits of object references and object pointers.
// ---------------------------------------------------------------------------

/*! \brief TypeTraits of an ObjectRef subclass: holds objects of ContainerType (or None). */
template <typename TObjRef>
struct ObjectRefTypeTraitsBase : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIObject;
  using ContainerType = typename TObjRef::ContainerType;

  TVM_FFI_INLINE static void CopyToAnyView(const TObjRef& src, TVMFFIAny* result) {
    TVMFFIObject* obj = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(src);
    if (obj == nullptr) {
      detail::SetAnyNone(result);
    } else {
      detail::SetAnyObject(result, obj);
    }
  }
  TVM_FFI_INLINE static void MoveToAny(TObjRef src, TVMFFIAny* result) {
    TVMFFIObject* obj = detail::ObjectUnsafe::MoveObjectRefToTVMFFIObjectPtr(std::move(src));
    if (obj == nullptr) {
      detail::SetAnyNone(result);
    } else {
      detail::SetAnyObject(result, obj);
    }
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    if constexpr (TObjRef::_type_is_nullable) {
      if (src->type_index == TypeIndex::kTVMFFINone) return true;
    }
    // The object's own header decides, not the tag: a mislabelled cell (a
    // String tagged as a Function) must not be taken for what the tag says.
    return src->type_index >= TypeIndex::kTVMFFIStaticObjectBegin && src->v_obj != nullptr &&
           detail::IsObjectInstance<ContainerType>(src->v_obj->type_index);
  }
  TVM_FFI_INLINE static TObjRef CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if constexpr (TObjRef::_type_is_nullable) {
      if (src->type_index == TypeIndex::kTVMFFINone) return TObjRef(UnsafeInit{});
    }
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(
        detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(src->v_obj));
  }
  TVM_FFI_INLINE static TObjRef MoveFromAnyAfterCheck(TVMFFIAny* src) {
    if constexpr (TObjRef::_type_is_nullable) {
      if (src->type_index == TypeIndex::kTVMFFINone) return TObjRef(UnsafeInit{});
    }
    TObjRef result = detail::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(
        detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(src->v_obj));
    detail::SetAnyNone(src);
    return result;
  }
  TVM_FFI_INLINE static std::optional<TObjRef> TryCastFromAnyView(const TVMFFIAny* src) {
    // Through TypeTraits: a specialisation may narrow CheckAnyStrict (upstream does the same).
    if (TypeTraits<TObjRef>::CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return ContainerType::_type_key; }
};

template <typename TObjRef>
struct TypeTraits<TObjRef, std::enable_if_t<std::is_base_of_v<ObjectRef, TObjRef> &&
                                            use_default_type_traits_v<TObjRef>>>
    : public ObjectRefTypeTraitsBase<TObjRef> {};

/*!
 * \brief TypeTraits base of an object reference that also converts from plain
 *        values: a value that is not already the object is tried as each of
 *        FallbackTypes in order, and the first that converts goes through
 *        `TypeTraits<ObjectRefType>::ConvertFallbackValue(FallbackType)`, which
 *        the specialisation deriving from this base defines once per type.
 */
template <typename ObjectRefType, typename... FallbackTypes>
struct ObjectRefWithFallbackTraitsBase : public ObjectRefTypeTraitsBase<ObjectRefType> {
  static_assert(!(std::is_same_v<FallbackTypes, bool> || ...),
                "a bool fallback would also take every int: use tvm::ffi::StrictBool");
  TVM_FFI_INLINE static std::optional<ObjectRefType> TryCastFromAnyView(const TVMFFIAny* src) {
    if (auto obj = ObjectRefTypeTraitsBase<ObjectRefType>::TryCastFromAnyView(src)) return obj;
    std::optional<ObjectRefType> result;
    // Left to right, stopping at the first fallback that converts.
    (void)((result = TryFallback<FallbackTypes>(src)).has_value() || ...);
    return result;
  }

 private:
  template <typename FallbackType>
  TVM_FFI_INLINE static std::optional<ObjectRefType> TryFallback(const TVMFFIAny* src) {
    if (auto value = TypeTraits<FallbackType>::TryCastFromAnyView(src)) {
      return TypeTraits<ObjectRefType>::ConvertFallbackValue(*std::move(value));
    }
    return std::nullopt;
  }
};

/*!
 * \brief TypeTraits of a raw (borrowed) object pointer, e.g. `const MyObj*` parameters.
 *
 * Storable, as upstream's: `Array<const MyObj*>` holds owning references to its
 * elements and hands out pointers borrowed from its own storage (valid while
 * the array holds them).
 */
template <typename TObject>
struct TypeTraits<TObject*, std::enable_if_t<is_object_subclass_v<TObject>>>
    : public TypeTraitsBase {
  TVM_FFI_INLINE static void CopyToAnyView(TObject* src, TVMFFIAny* result) {
    detail::SetAnyObject(result, detail::ObjectUnsafe::GetHeader(src));
  }
  TVM_FFI_INLINE static void MoveToAny(TObject* src, TVMFFIAny* result) {
    TVMFFIObject* obj = detail::ObjectUnsafe::GetHeader(src);
    detail::HeaderIncRef(obj);
    detail::SetAnyObject(result, obj);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index >= TypeIndex::kTVMFFIStaticObjectBegin &&
           detail::IsObjectInstance<std::remove_cv_t<TObject>>(src->type_index);
  }
  TVM_FFI_INLINE static TObject* CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    static_assert(std::is_const_v<TObject> || TObject::_type_mutable,
                  "only const pointers unless the object type sets _type_mutable");
    return detail::ObjectUnsafe::RawObjectPtrFromUnowned<std::remove_cv_t<TObject>>(src->v_obj);
  }
  TVM_FFI_INLINE static std::optional<TObject*> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return TObject::_type_key; }
};

/*! \brief TypeTraits of ObjectPtr<T> (nullable); none for a cv-qualified T. */
template <typename TObject>
struct TypeTraits<ObjectPtr<TObject>,
                  std::enable_if_t<is_object_subclass_v<TObject> &&
                                   std::is_same_v<TObject, std::remove_cv_t<TObject>>>>
    : public TypeTraitsBase {
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIObject;
  TVM_FFI_INLINE static void CopyToAnyView(const ObjectPtr<TObject>& src, TVMFFIAny* result) {
    TVMFFIObject* obj = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectPtr(src);
    if (obj == nullptr) {
      detail::SetAnyNone(result);
    } else {
      detail::SetAnyObject(result, obj);
    }
  }
  TVM_FFI_INLINE static void MoveToAny(ObjectPtr<TObject> src, TVMFFIAny* result) {
    TVMFFIObject* obj = detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(src));
    if (obj == nullptr) {
      detail::SetAnyNone(result);
    } else {
      detail::SetAnyObject(result, obj);
    }
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return true;
    return src->type_index >= TypeIndex::kTVMFFIStaticObjectBegin &&
           detail::IsObjectInstance<TObject>(src->type_index);
  }
  TVM_FFI_INLINE static ObjectPtr<TObject> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return nullptr;
    return detail::ObjectUnsafe::ObjectPtrFromUnowned<TObject>(src->v_obj);
  }
  TVM_FFI_INLINE static ObjectPtr<TObject> MoveFromAnyAfterCheck(TVMFFIAny* src) {
    if (src->type_index == TypeIndex::kTVMFFINone) return nullptr;
    ObjectPtr<TObject> result = detail::ObjectUnsafe::ObjectPtrFromOwned<TObject>(src->v_obj);
    detail::SetAnyNone(src);
    return result;
  }
  TVM_FFI_INLINE static std::optional<ObjectPtr<TObject>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return TObject::_type_key; }
  /*! \brief The metadata type schema: nullable, so an Optional of the type. */
  static std::string TypeSchema() {
    return std::string(R"({"type":"Optional","args":[{"type":")") + TObject::_type_key + "\"}]}";
  }
};

/*! \brief TypeTraits of Arc<T>: as ObjectPtr<T>, but None does not convert. */
template <typename TObject>
struct TypeTraits<Arc<TObject>,
                  std::enable_if_t<is_object_subclass_v<TObject> &&
                                   std::is_same_v<TObject, std::remove_cv_t<TObject>>>>
    : public TypeTraitsBase {
  using PtrTraits = TypeTraits<ObjectPtr<TObject>>;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIObject;
  TVM_FFI_INLINE static void CopyToAnyView(const Arc<TObject>& src, TVMFFIAny* result) {
    PtrTraits::CopyToAnyView(src, result);
  }
  TVM_FFI_INLINE static void MoveToAny(Arc<TObject> src, TVMFFIAny* result) {
    PtrTraits::MoveToAny(std::move(src), result);
  }
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny* src) {
    return src->type_index != TypeIndex::kTVMFFINone && PtrTraits::CheckAnyStrict(src);
  }
  TVM_FFI_INLINE static Arc<TObject> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return detail::ObjectUnsafe::ArcFromObjectPtr(PtrTraits::CopyFromAnyViewAfterCheck(src));
  }
  TVM_FFI_INLINE static Arc<TObject> MoveFromAnyAfterCheck(TVMFFIAny* src) {
    return detail::ObjectUnsafe::ArcFromObjectPtr(PtrTraits::MoveFromAnyAfterCheck(src));
  }
  TVM_FFI_INLINE static std::optional<Arc<TObject>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (CheckAnyStrict(src)) return CopyFromAnyViewAfterCheck(src);
    return std::nullopt;
  }
  static std::string TypeStr() { return TObject::_type_key; }
  static std::string TypeSchema() {
    return std::string(R"({"type":")") + TObject::_type_key + "\"}";
  }
};

/*!
 * \brief The static type index a field of type T holds (kTVMFFIAny when T has
 *        no fixed one, or no TypeTraits).
 */
template <typename T, typename = void>
struct TypeToFieldStaticTypeIndex {
  static constexpr int32_t value = TypeIndex::kTVMFFIAny;
};
template <typename T>
struct TypeToFieldStaticTypeIndex<T, std::enable_if_t<TypeTraits<T>::convert_enabled>> {
  static constexpr int32_t value = TypeTraits<T>::field_static_type_index;
};

/*!
 * \brief The run-time type index of values of type T: the object's for object
 *        references and pointers (their payload type), else the static one.
 */
template <typename T, typename = void>
struct TypeToRuntimeTypeIndex {
  static int32_t v() { return TypeToFieldStaticTypeIndex<T>::value; }
};
template <typename T>
struct TypeToRuntimeTypeIndex<T, std::enable_if_t<std::is_base_of_v<ObjectRef, T>>> {
  static int32_t v() { return T::ContainerType::RuntimeTypeIndex(); }
};
template <typename TObject>
struct TypeToRuntimeTypeIndex<ObjectPtr<TObject>, std::enable_if_t<is_object_subclass_v<TObject>>> {
  static int32_t v() { return TObject::RuntimeTypeIndex(); }
};
template <typename TObject>
struct TypeToRuntimeTypeIndex<Arc<TObject>, std::enable_if_t<is_object_subclass_v<TObject>>> {
  static int32_t v() { return TObject::RuntimeTypeIndex(); }
};

class Any;

namespace detail {

/*!
 * \brief Whether a container of T may share the storage of a container of U
 *        (every U cell is already a valid T cell): same type, T = Any, an
 *        object reference base, or Optional of such.
 */
template <typename T, typename U, typename = void>
struct ObjectRefSubsumes : std::false_type {};
template <typename T, typename U>
struct ObjectRefSubsumes<
    T, U, std::enable_if_t<std::is_base_of_v<ObjectRef, T> && std::is_base_of_v<T, U>>>
    : std::bool_constant<T::_type_is_nullable || !U::_type_is_nullable> {};

template <typename T, typename U>
struct TypeSubsumes : std::bool_constant<std::is_same_v<T, U> || std::is_same_v<T, Any> ||
                                         ObjectRefSubsumes<T, U>::value> {};
// Pointers: a base pointer holds its derived ones; a nullable ObjectPtr holds an
// Arc, never the reverse.
template <typename B, typename D>
struct TypeSubsumes<ObjectPtr<B>, ObjectPtr<D>> : std::bool_constant<std::is_base_of_v<B, D>> {};
template <typename B, typename D>
struct TypeSubsumes<Arc<B>, Arc<D>> : std::bool_constant<std::is_base_of_v<B, D>> {};
template <typename B, typename D>
struct TypeSubsumes<ObjectPtr<B>, Arc<D>> : std::bool_constant<std::is_base_of_v<B, D>> {};

}  // namespace detail

/*!
 * \brief Whether every SourceType value is already a valid TargetType value, so
 *        TargetType can share its storage without conversion (upstream's name;
 *        target first): Any holds everything, a base pointer or reference its
 *        derived ones; container/container_detail.h adds the containers.
 */
template <typename TargetType, typename SourceType>
inline constexpr bool type_subsumes_v = detail::TypeSubsumes<TargetType, SourceType>::value;

/*!
 * \brief Whether every ObjectType object is a valid RefType value (upstream's
 *        name; reference first). Defined only for an object reference and an
 *        object type; true when RefType's ContainerType is exact and a base of
 *        ObjectType. A reference whose ContainerType is not exact may specialize
 *        it with its own rule.
 */
template <typename RefType, typename ObjectType,
          typename = std::enable_if_t<std::is_base_of_v<ObjectRef, RefType> &&
                                      std::is_base_of_v<Object, ObjectType>>>
inline constexpr bool object_ref_contains_v = RefType::_type_container_is_exact&&
    std::is_base_of_v<typename RefType::ContainerType, ObjectType>;

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_OBJECT_TRAITS_H_

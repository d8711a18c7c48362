/*
 * The type declaration macros of objects and references (internal piece of
 * <tvm/ffi/object.h>; include that): TVM_FFI_DECLARE_OBJECT_INFO and its
 * _STATIC, _FINAL, _PREDEFINED_TYPE_KEY and _LOOKUP forms, the reference
 * members TVM_FFI_DEFINE_OBJECT_REF_METHODS_(NOT)NULLABLE, the spellings of
 * older 0.1 releases, and detail::EagerTypeIndex, which the macros call to
 * register a type when its library loads.
 */
#ifndef TVM_FFI_DETAILS_OBJECT_MACROS_H_
#define TVM_FFI_DETAILS_OBJECT_MACROS_H_

#include <tvm/ffi/details/object_core.h>

namespace tvm {
namespace ffi {

// ---------------------------------------------------------------------------
// Type declaration macros.
// ---------------------------------------------------------------------------

/*!
 * \brief Declare an object type whose index is fixed at compile time. The
 *        class must declare `static constexpr int32_t _type_index = ...;` first.
 */
#define TVM_FFI_DECLARE_OBJECT_INFO_STATIC(TypeKey, TypeName, ParentType)                     \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                         \
  TVM_FFI_INLINE static int32_t RuntimeTypeIndex() noexcept {                                 \
    return TypeName::_type_index;                                                             \
  }                                                                                           \
  static int32_t _GetOrAllocRuntimeTypeIndex() {                                              \
    static_assert(!ParentType::_type_final, "ParentType is final");                           \
    static const int32_t tindex [[maybe_unused]] = ::tvm::ffi::detail::RegisterObjectType(    \
        TypeName::_type_key, TypeName::_type_index, TypeName::_type_depth,                    \
        static_cast<int32_t>(TypeName::_type_child_slots),                                    \
        TypeName::_type_child_slots_can_overflow, ParentType::_GetOrAllocRuntimeTypeIndex()); \
    return TypeName::_type_index;                                                             \
  }                                                                                           \
  static constexpr const char* _type_key = TypeKey

namespace detail {
/*!
 * \brief The type index registered at load time for `_type_index`. Never
 *        throws: a static initialiser that threw would terminate the process
 *        (e.g. out of memory while a library loads). On failure it is -1 and
 *        RuntimeTypeIndex() registers on first use instead, raising the error there.
 */
template <typename T>
int32_t EagerTypeIndex() noexcept {
  try {
    return T::_GetOrAllocRuntimeTypeIndex();
  } catch (...) {
    return -1;
  }
}
}  // namespace detail

/*!
 * \brief Declare an object type whose index the runtime assigns on first use
 *        (the class declares `static constexpr const char* _type_key` itself).
 */
#define TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)                 \
  static constexpr int32_t _type_depth = ParentType::_type_depth + 1;                         \
  static int32_t _GetOrAllocRuntimeTypeIndex() {                                              \
    static_assert(!ParentType::_type_final, "ParentType is final");                           \
    static const int32_t tindex = ::tvm::ffi::detail::RegisterObjectType(                     \
        TypeName::_type_key, -1, TypeName::_type_depth,                                       \
        static_cast<int32_t>(TypeName::_type_child_slots),                                    \
        TypeName::_type_child_slots_can_overflow, ParentType::_GetOrAllocRuntimeTypeIndex()); \
    return tindex;                                                                            \
  }                                                                                           \
  TVM_FFI_INLINE static int32_t RuntimeTypeIndex() {                                          \
    return TypeName::_GetOrAllocRuntimeTypeIndex();                                           \
  }                                                                                           \
  /* Eager copy for code that reads _type_index; prefer RuntimeTypeIndex(). */                \
  static inline const int32_t _type_index = ::tvm::ffi::detail::EagerTypeIndex<TypeName>()

/*!
 * \brief Declare an object type that may be subclassed; its index comes from
 *        TVMFFITypeGetOrAllocIndex on first use.
 */
#define TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType) \
  static constexpr const char* _type_key = TypeKey;                \
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)

/*! \brief As TVM_FFI_DECLARE_OBJECT_INFO for a type without subclasses (faster type checks). */
#define TVM_FFI_DECLARE_OBJECT_INFO_FINAL(TypeKey, TypeName, ParentType) \
  static constexpr bool _type_final = true;                              \
  static constexpr uint32_t _type_child_slots = 0;                       \
  TVM_FFI_DECLARE_OBJECT_INFO(TypeKey, TypeName, ParentType)

/*!
 * \brief Declare a C++ view of an object type that someone else registered
 *        (e.g. another library): its index is looked up by key on first use,
 *        and a key that is not registered raises KeyError then. TypeDepth is
 *        the registered depth (Object is 0); the type is treated as mutable
 *        and open to subclasses.
 */
#define TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP(RegisteredKey, TypeDepth) \
  static constexpr const char* _type_key = RegisteredKey;            \
  static constexpr int32_t _type_depth = TypeDepth;                  \
  static constexpr bool _type_mutable = true;                        \
  static constexpr bool _type_final = false;                         \
  static constexpr uint32_t _type_child_slots = 0;                   \
  static constexpr bool _type_child_slots_can_overflow = true;       \
  static int32_t _GetOrAllocRuntimeTypeIndex() {                     \
    static const int32_t tindex = [] {                               \
      TVMFFIByteArray key{RegisteredKey, sizeof(RegisteredKey) - 1}; \
      int32_t index = -1;                                            \
      TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(&key, &index));   \
      return index;                                                  \
    }();                                                             \
    return tindex;                                                   \
  }                                                                  \
  static int32_t RuntimeTypeIndex() {                                \
    return _GetOrAllocRuntimeTypeIndex();                            \
  }

// Spellings of older 0.1 releases (type key declared separately).
#define TVM_FFI_DECLARE_BASE_OBJECT_INFO(TypeName, ParentType) \
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)
#define TVM_FFI_DECLARE_FINAL_OBJECT_INFO(TypeName, ParentType) \
  static constexpr bool _type_final = true;                     \
  static constexpr uint32_t _type_child_slots = 0;              \
  TVM_FFI_DECLARE_OBJECT_INFO_PREDEFINED_TYPE_KEY(TypeName, ParentType)

/*! \brief Members of a reference type TypeName to objects of ObjectName (both forms below). */
#define TVM_FFI_OBJECT_REF_METHODS_COMMON_(TypeName, ParentType, ObjectName, kNullable)            \
  explicit TypeName(::tvm::ffi::ObjectPtr<ObjectName> n) : ParentType(std::move(n)) {}             \
  explicit TypeName(::tvm::ffi::UnsafeInit tag) : ParentType(tag) {}                               \
  TVM_FFI_DEFINE_DEFAULT_COPY_MOVE_AND_ASSIGN(TypeName)                                            \
  using __PtrType = std::conditional_t<ObjectName::_type_mutable, ObjectName*, const ObjectName*>; \
  __PtrType operator->() const {                                                                   \
    return static_cast<__PtrType>(data_.get());                                                    \
  }                                                                                                \
  __PtrType get() const {                                                                          \
    return static_cast<__PtrType>(data_.get());                                                    \
  }                                                                                                \
  static constexpr bool _type_is_nullable = kNullable;                                             \
  using ContainerType = ObjectName

/*! \brief Members of a nullable reference type TypeName to objects of ObjectName. */
#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TypeName, ParentType, ObjectName) \
  TypeName() = default;                                                              \
  TVM_FFI_OBJECT_REF_METHODS_COMMON_(TypeName, ParentType, ObjectName, true)

/*! \brief Members of a reference type TypeName that is never null. */
#define TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypeName, ParentType, ObjectName) \
  TVM_FFI_OBJECT_REF_METHODS_COMMON_(TypeName, ParentType, ObjectName, false)

// Spellings of older 0.1 releases.
#define TVM_FFI_DEFINE_NULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NULLABLE(TypeName, ParentType, ObjectName)
#define TVM_FFI_DEFINE_NOTNULLABLE_OBJECT_REF_METHODS(TypeName, ParentType, ObjectName) \
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(TypeName, ParentType, ObjectName)

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_OBJECT_MACROS_H_

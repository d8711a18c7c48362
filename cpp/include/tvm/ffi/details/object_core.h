/*
 * Objects and the references to them (internal piece of <tvm/ffi/object.h>;
 * include that): Object (the ABI header and type identity), ObjectPtr, Arc
 * and WeakObjectPtr, ObjectRef, hashing and equality by address, the primary
 * TypeTraits and TypeTraitsBase, the instance check (detail::IsObjectInstance)
 * and raw access to objects and references (detail::ObjectUnsafe, GetRef,
 * GetObjectPtr).
 */
#ifndef TVM_FFI_DETAILS_OBJECT_CORE_H_
#define TVM_FFI_DETAILS_OBJECT_CORE_H_

#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/details/object_header.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*!
 * \brief Tag for constructing a reference in a null state even when its type
 *        is not nullable. Only for code that fills the reference right after.
 */
struct UnsafeInit {};

class Object;
class ObjectRef;
template <typename T>
class ObjectPtr;
template <typename T, typename = void>
class Optional;

namespace detail {
struct ObjectUnsafe;

template <typename TargetType>
TVM_FFI_INLINE bool IsObjectInstance(int32_t object_type_index);

/*! \brief Readable name of a type index, as used in error messages ("int", "str", "ffi.Tensor"). */
inline std::string TypeIndexToTypeKey(int32_t type_index);
}  // namespace detail

/*!
 * \brief Base class of all objects. Its only member is the ABI header, so a
 *        payload declared right after it (e.g. a C cell struct as second
 *        base) sits at offset 24 as the ABI requires.
 *
 * Subclasses declare their type with TVM_FFI_DECLARE_OBJECT_INFO(_FINAL) and
 * are created with make_object<T>(...).
 */
class Object {
 protected:
  /*! \brief The ABI header shared by every object. */
  TVMFFIObject header_;

 public:
  Object() noexcept { ClearHeader(); }
  // A copy is a new object: it never inherits counts or deleter.
  Object(const Object&) noexcept { ClearHeader(); }
  Object& operator=(const Object&) noexcept { return *this; }
  ~Object() = default;

  /*! \return Whether this object's type is TargetType or derives from it. */
  template <typename TargetType>
  bool IsInstance() const {
    return detail::IsObjectInstance<TargetType>(header_.type_index);
  }
  /*! \return The run-time type index. */
  int32_t type_index() const noexcept { return header_.type_index; }
  /*! \return The registered type key, e.g. "ffi.String" (slow: for messages). */
  std::string GetTypeKey() const { return TypeIndex2Key(header_.type_index); }
  /*! \return The hash of the type key the runtime computed. */
  uint64_t GetTypeKeyHash() const {
    const TypeInfo* info = TVMFFIGetTypeInfo(header_.type_index);
    return info != nullptr ? info->type_key_hash : 0;
  }
  /*! \return The registered type key of a type index. */
  static std::string TypeIndex2Key(int32_t tindex) {
    const TypeInfo* info = TVMFFIGetTypeInfo(tindex);
    if (info == nullptr) {
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      if (err != nullptr) detail::HeaderDecRef(static_cast<TVMFFIObject*>(err));
    }
    return detail::TypeKeyOrUnregistered(info, tindex);
  }
  /*! \return The number of strong references. */
  uint64_t use_count() const noexcept {
    return __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED) &
           detail::kCombinedRefCountMaskUInt32;
  }
  /*!
   * \return Whether exactly one strong reference and no weak one exist (as
   *         upstream 0.1.15): only then may copy-on-write change the object in
   *         place, since a weak reference could otherwise be locked meanwhile.
   */
  bool unique() const noexcept {
    return __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED) ==
           detail::kCombinedRefCountBothOne;
  }

  // Type configuration, overridden by the DECLARE macros of subclasses.
  static constexpr const char* _type_key = StaticTypeKey::kTVMFFIObject;
  static constexpr bool _type_final = false;
  static constexpr bool _type_mutable = false;
  static constexpr uint32_t _type_child_slots = 0;
  static constexpr bool _type_child_slots_can_overflow = true;
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIObject;
  static constexpr int32_t _type_depth = 0;
  static constexpr TVMFFISEqHashKind _type_s_eq_hash_kind = kTVMFFISEqHashKindUnsupported;
  /*! \return The run-time type index of this class. */
  TVM_FFI_INLINE static int32_t RuntimeTypeIndex() noexcept { return TypeIndex::kTVMFFIObject; }
  /*! \return The type index, registering the type on first use (root: nothing to do). */
  static int32_t _GetOrAllocRuntimeTypeIndex() { return TypeIndex::kTVMFFIObject; }

 private:
  void ClearHeader() noexcept {
    header_.combined_ref_count = 0;
    header_.type_index = 0;
    header_.__padding = 0;
    header_.deleter = nullptr;
  }
  void IncRef() noexcept { detail::HeaderIncRef(&header_); }
  void DecRef() { detail::HeaderDecRef(&header_); }
  void IncWeakRef() noexcept {
    __atomic_fetch_add(&header_.combined_ref_count, detail::kCombinedRefCountWeakOne,
                       __ATOMIC_RELAXED);
  }
  void DecWeakRef() {
    if (__atomic_fetch_sub(&header_.combined_ref_count, detail::kCombinedRefCountWeakOne,
                           TVM_FFI_REFCOUNT_DEC_ORDER) == detail::kCombinedRefCountWeakOne) {
      TVM_FFI_REFCOUNT_ACQUIRE_FENCE();
      if (header_.deleter != nullptr) {
        header_.deleter(&header_, kTVMFFIObjectDeleterFlagBitMaskWeak);
      }
    }
  }
  // Add a strong reference only while at least one exists (CAS, so a racing
  // final DecRef cannot be resurrected).
  bool TryPromoteWeakPtr() noexcept {
    uint64_t count = __atomic_load_n(&header_.combined_ref_count, __ATOMIC_RELAXED);
    while ((count & detail::kCombinedRefCountMaskUInt32) != 0) {
      if (__atomic_compare_exchange_n(&header_.combined_ref_count, &count, count + 1, true,
                                      __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        return true;
      }
    }
    return false;
  }

  template <typename>
  friend class ObjectPtr;
  template <typename>
  friend class WeakObjectPtr;
  friend class ObjectRef;
  friend struct detail::ObjectUnsafe;
};

static_assert(sizeof(Object) == sizeof(TVMFFIObject), "Object must be exactly the ABI header");

/*!
 * \brief Owning smart pointer to an object (one strong reference).
 * \tparam T Object or a subclass.
 */
template <typename T>
class ObjectPtr {
 public:
  ObjectPtr() noexcept = default;
  ObjectPtr(std::nullptr_t) noexcept {}  // NOLINT(*)
  ObjectPtr(const ObjectPtr<T>& other) noexcept : ObjectPtr(other.data_) {}
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U>, int> = 0>
  ObjectPtr(const ObjectPtr<U>& other) noexcept : ObjectPtr(other.data_) {}  // NOLINT(*)
  ObjectPtr(ObjectPtr<T>&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U>, int> = 0>
  ObjectPtr(ObjectPtr<U>&& other) noexcept : data_(other.data_) {  // NOLINT(*)
    other.data_ = nullptr;
  }
  ~ObjectPtr() { reset(); }

  ObjectPtr<T>& operator=(const ObjectPtr<T>& other) {
    ObjectPtr<T>(other).swap(*this);
    return *this;
  }
  ObjectPtr<T>& operator=(ObjectPtr<T>&& other) {
    ObjectPtr<T>(std::move(other)).swap(*this);
    return *this;
  }
  void swap(ObjectPtr<T>& other) noexcept { std::swap(data_, other.data_); }

  T* get() const noexcept { return static_cast<T*>(data_); }
  T* operator->() const noexcept { return get(); }
  T& operator*() const noexcept { return *get(); }
  explicit operator bool() const noexcept { return data_ != nullptr; }

  /*! \brief Drop the reference (if any). */
  void reset() {
    if (data_ != nullptr) {
      Object* old = data_;
      data_ = nullptr;
      old->DecRef();
    }
  }
  int use_count() const noexcept {
    return data_ != nullptr ? static_cast<int>(data_->use_count()) : 0;
  }
  /*! \brief Whether this is the only reference, strong or weak (Object::unique). */
  bool unique() const noexcept { return data_ != nullptr && data_->unique(); }

  bool operator==(const ObjectPtr<T>& other) const noexcept { return data_ == other.data_; }
  bool operator!=(const ObjectPtr<T>& other) const noexcept { return data_ != other.data_; }
  bool operator==(std::nullptr_t) const noexcept { return data_ == nullptr; }
  bool operator!=(std::nullptr_t) const noexcept { return data_ != nullptr; }

 private:
  Object* data_{nullptr};
  // Takes a new strong reference.
  explicit ObjectPtr(Object* data) noexcept : data_(data) {
    if (data_ != nullptr) data_->IncRef();
  }
  template <typename>
  friend class ObjectPtr;
  template <typename>
  friend class WeakObjectPtr;
  friend class ObjectRef;
  friend struct detail::ObjectUnsafe;
};

/*!
 * \brief Owning pointer to an object that is never null (upstream's Arc<T>).
 *
 * Same layout as ObjectPtr<T>, of which it is a subclass, so it converts to
 * ObjectPtr<Base> but not back. Its public API cannot make a null value: no
 * default or nullptr constructor, no reset()/swap(); make_arc<T>(...) creates
 * one. Only a moved-from Arc, or one built from UnsafeInit for two-phase
 * construction, is null, and must be assigned before use.
 */
template <typename T>
class Arc : public ObjectPtr<T> {
 public:
  Arc() = delete;
  Arc(std::nullptr_t) = delete;
  Arc(const Arc&) = default;
  Arc(Arc&&) = default;
  Arc& operator=(const Arc&) = default;
  Arc& operator=(Arc&&) = default;
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U>, int> = 0>
  Arc(const Arc<U>& other) noexcept  // NOLINT(*)
      : ObjectPtr<T>(static_cast<const ObjectPtr<U>&>(other)) {}
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U>, int> = 0>
  Arc(Arc<U>&& other) noexcept  // NOLINT(*)
      : ObjectPtr<T>(static_cast<ObjectPtr<U>&&>(other)) {}
  /*! \brief A null Arc to be assigned before use (construct-then-populate). */
  explicit Arc(UnsafeInit) noexcept : ObjectPtr<T>(nullptr) {}

 private:
  explicit Arc(ObjectPtr<T> ptr) noexcept : ObjectPtr<T>(std::move(ptr)) {}
  using ObjectPtr<T>::reset;
  using ObjectPtr<T>::swap;
  template <typename>
  friend class Arc;
  friend struct detail::ObjectUnsafe;
};

/*!
 * \brief Weak pointer to an object: keeps the memory, not the value, alive.
 *        lock() gives an ObjectPtr while a strong reference still exists.
 */
template <typename T>
class WeakObjectPtr {
 public:
  WeakObjectPtr() noexcept = default;
  WeakObjectPtr(std::nullptr_t) noexcept {}  // NOLINT(*)
  WeakObjectPtr(const WeakObjectPtr<T>& other) noexcept : WeakObjectPtr(other.data_) {}
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U>, int> = 0>
  WeakObjectPtr(const WeakObjectPtr<U>& other) noexcept
      : WeakObjectPtr(other.data_) {}  // NOLINT(*)
  template <typename U, std::enable_if_t<std::is_base_of_v<T, U>, int> = 0>
  WeakObjectPtr(const ObjectPtr<U>& other) noexcept : WeakObjectPtr(other.data_) {}  // NOLINT(*)
  WeakObjectPtr(WeakObjectPtr<T>&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
  ~WeakObjectPtr() { reset(); }

  WeakObjectPtr<T>& operator=(const WeakObjectPtr<T>& other) {
    WeakObjectPtr<T>(other).swap(*this);
    return *this;
  }
  WeakObjectPtr<T>& operator=(WeakObjectPtr<T>&& other) {
    WeakObjectPtr<T>(std::move(other)).swap(*this);
    return *this;
  }
  void swap(WeakObjectPtr<T>& other) noexcept { std::swap(data_, other.data_); }

  /*! \return A strong pointer, or null if the object was already destroyed. */
  ObjectPtr<T> lock() const noexcept {
    ObjectPtr<T> ret;
    if (data_ != nullptr && data_->TryPromoteWeakPtr()) ret.data_ = data_;
    return ret;
  }
  void reset() {
    if (data_ != nullptr) {
      Object* old = data_;
      data_ = nullptr;
      old->DecWeakRef();
    }
  }
  /*! \return The number of strong references (0 once expired). */
  int use_count() const noexcept {
    return data_ != nullptr ? static_cast<int>(data_->use_count()) : 0;
  }
  bool expired() const noexcept { return use_count() == 0; }

 private:
  Object* data_{nullptr};
  explicit WeakObjectPtr(Object* data) noexcept : data_(data) {
    if (data_ != nullptr) data_->IncWeakRef();
  }
  template <typename>
  friend class WeakObjectPtr;
  friend struct detail::ObjectUnsafe;
};

/*! \brief Whether T is Object or derives from it. */
template <typename T>
inline constexpr bool is_object_subclass_v = std::is_base_of_v<Object, T>;

// ---------------------------------------------------------------------------
// TypeTraits: how a C++ type converts to and from TVMFFIAny.
// ---------------------------------------------------------------------------

/*!
 * \brief Conversion rules between a C++ type and TVMFFIAny.
 *
 * Enabled specialisations derive from TypeTraitsBase and provide:
 * - CopyToAnyView(const T&, TVMFFIAny*): borrow into a view.
 * - MoveToAny(T, TVMFFIAny*): move into an owned value.
 * - CheckAnyStrict(const TVMFFIAny*): the value is exactly what MoveToAny makes.
 * - CopyFromAnyViewAfterCheck / MoveFromAnyAfterCheck: extract after CheckAnyStrict.
 * - TryCastFromAnyView(const TVMFFIAny*) -> std::optional<T>: with conversions.
 * - TypeStr(): the name used in signatures and errors.
 * - GetMismatchTypeInfo(const TVMFFIAny*): the name of what was found instead.
 */
template <typename, typename = void>
struct TypeTraits {
  static constexpr bool convert_enabled = false;
  static constexpr bool storage_enabled = false;
};

/*! \brief TypeTraits of T with const and reference removed. */
template <typename T>
using TypeTraitsNoCR = TypeTraits<std::remove_const_t<std::remove_reference_t<T>>>;

/*! \brief Set to false for ObjectRef subclasses that specialise TypeTraits themselves. */
template <typename T>
inline constexpr bool use_default_type_traits_v = true;

/*!
 * \brief Common part of every enabled TypeTraits.
 *
 * The full specialisations in our headers declare TryCastFromAnyView as a
 * member template whose result depends on its parameter
 * (`template <typename LazyT_ = T> std::optional<LazyT_> ...`): with a
 * non-dependent std::optional<T> result the compiler instantiates that
 * optional where the header is read (its return statements convert to it),
 * ~7 ms of compile time each for every file that includes it, whether or not
 * it converts to T. Calls are written the same way.
 */
struct TypeTraitsBase {
  static constexpr bool convert_enabled = true;
  static constexpr bool storage_enabled = true;
  static constexpr int32_t field_static_type_index = TypeIndex::kTVMFFIAny;
  static std::string GetMismatchTypeInfo(const TVMFFIAny* source) {
    // An object whose tag is not its own type: name both, the object wins.
    if (source->type_index >= TypeIndex::kTVMFFIStaticObjectBegin && source->v_obj != nullptr &&
        source->v_obj->type_index != source->type_index) {
      return detail::TypeIndexToTypeKey(source->v_obj->type_index) + " (tagged " +
             detail::TypeIndexToTypeKey(source->type_index) + ")";
    }
    return detail::TypeIndexToTypeKey(source->type_index);
  }
};

/*! \brief Base of every object reference (a nullable ObjectPtr<Object>). */
class ObjectRef {
 public:
  ObjectRef() noexcept = default;
  ObjectRef(const ObjectRef& other) noexcept = default;
  ObjectRef(ObjectRef&& other) noexcept = default;
  ObjectRef& operator=(const ObjectRef& other) = default;
  ObjectRef& operator=(ObjectRef&& other) = default;
  explicit ObjectRef(ObjectPtr<Object> data) noexcept : data_(std::move(data)) {}
  explicit ObjectRef(UnsafeInit) noexcept {}
  ObjectRef(std::nullptr_t) noexcept {}  // NOLINT(*)

  /*! \return Whether both refer to the same object (or both are null). */
  bool same_as(const ObjectRef& other) const noexcept { return data_ == other.data_; }
  bool operator==(const ObjectRef& other) const noexcept { return data_ == other.data_; }
  bool operator!=(const ObjectRef& other) const noexcept { return data_ != other.data_; }
  bool operator<(const ObjectRef& other) const noexcept { return data_.get() < other.data_.get(); }
  /*! \return Whether the reference is not null. */
  bool defined() const noexcept { return data_ != nullptr; }
  const Object* get() const noexcept { return data_.get(); }
  const Object* operator->() const noexcept { return get(); }
  bool unique() const noexcept { return data_.unique(); }
  int use_count() const noexcept { return data_.use_count(); }

  /*! \return The object as ObjectType, or nullptr when null or of another type. */
  template <typename ObjectType, std::enable_if_t<is_object_subclass_v<ObjectType>, int> = 0>
  const ObjectType* as() const {
    if (data_ != nullptr && data_->IsInstance<ObjectType>()) {
      return static_cast<const ObjectType*>(data_.get());
    }
    return nullptr;
  }

  /*!
   * \return The reference as RefType when its object has the right type;
   *         a null RefType when this is null and RefType is nullable;
   *         std::nullopt otherwise.
   */
  template <typename RefType, std::enable_if_t<std::is_base_of_v<ObjectRef, RefType>, int> = 0>
  std::optional<RefType> as() const& {
    if (data_ != nullptr) {
      if (IsA<RefType>()) {
        RefType result(UnsafeInit{});
        result.data_ = data_;
        return result;
      }
      return std::nullopt;
    }
    if constexpr (RefType::_type_is_nullable) return RefType(UnsafeInit{});
    return std::nullopt;
  }
  /*! \brief As above, moving the reference out when it matches (this is then null). */
  template <typename RefType, std::enable_if_t<std::is_base_of_v<ObjectRef, RefType>, int> = 0>
  std::optional<RefType> as() && {
    if (data_ != nullptr) {
      if (IsA<RefType>()) {
        RefType result(UnsafeInit{});
        result.data_ = std::move(data_);
        return result;
      }
      return std::nullopt;
    }
    if constexpr (RefType::_type_is_nullable) return RefType(UnsafeInit{});
    return std::nullopt;
  }
  /*!
   * \return The reference as RefType, as as<RefType>() but a TypeError instead
   *         of std::nullopt (defined in any.h).
   */
  template <typename RefType, typename = std::enable_if_t<std::is_base_of_v<ObjectRef, RefType>>>
  RefType as_or_throw() const&;
  /*! \brief As above, moving the reference out when it matches. */
  template <typename RefType, typename = std::enable_if_t<std::is_base_of_v<ObjectRef, RefType>>>
  RefType as_or_throw() &&;

  /*! \return The type index of the object, kTVMFFINone when null. */
  int32_t type_index() const noexcept {
    return data_ != nullptr ? data_->type_index() : TypeIndex::kTVMFFINone;
  }
  /*! \return The registered type key, "None" when null. */
  std::string GetTypeKey() const {
    return data_ != nullptr ? data_->GetTypeKey() : std::string(StaticTypeKey::kTVMFFINone);
  }

  /*! \brief The object type this reference holds. */
  using ContainerType = Object;
  /*! \brief Whether the reference may be null. */
  static constexpr bool _type_is_nullable = true;
  /*!
   * \brief Whether every object of ContainerType (or derived) is a valid value of
   *        this reference. Typed containers (Array<T>, Map<K, V>, ...) say false:
   *        their element types are checked at run time.
   */
  static constexpr bool _type_container_is_exact = true;

 private:
  /*! \brief Whether the (non-null) object passes RefType's strict check. */
  template <typename RefType>
  bool IsA() const {
    TVMFFIAny view;
    view.type_index = data_->type_index();
    view.zero_padding = 0;
    view.v_obj = const_cast<TVMFFIObject*>(&data_->header_);
    return TypeTraits<RefType>::CheckAnyStrict(&view);
  }

 protected:
  ObjectPtr<Object> data_;
  Object* get_mutable() const noexcept { return data_.get(); }
  friend struct detail::ObjectUnsafe;
  friend struct ObjectPtrHash;
};

template <typename... Types>
class Variant;

/*! \brief Hash of an object reference by address. */
struct ObjectPtrHash {
  size_t operator()(const ObjectRef& a) const noexcept {
    return std::hash<const Object*>()(a.get());
  }
  template <typename T>
  size_t operator()(const ObjectPtr<T>& a) const noexcept {
    return std::hash<const Object*>()(a.get());
  }
  /*! \brief A Variant of object references (defined in container/variant.h). */
  template <typename... V>
  size_t operator()(const Variant<V...>& a) const noexcept;
};

/*! \brief Equality of object references by address. */
struct ObjectPtrEqual {
  bool operator()(const ObjectRef& a, const ObjectRef& b) const noexcept { return a.same_as(b); }
  template <typename T>
  bool operator()(const ObjectPtr<T>& a, const ObjectPtr<T>& b) const noexcept {
    return a == b;
  }
  /*! \brief Variants of object references (defined in container/variant.h). */
  template <typename... V>
  bool operator()(const Variant<V...>& a, const Variant<V...>& b) const noexcept;
};

namespace detail {

/*! \brief Ancestor walk through the runtime's type table (dynamic hierarchies). */
TVM_FFI_NOINLINE inline bool IsInstanceByTypeTable(int32_t object_type_index,
                                                   int32_t target_type_index,
                                                   int32_t target_depth) {
  const TypeInfo* info = TVMFFIGetTypeInfo(object_type_index);
  if (info == nullptr) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) HeaderDecRef(static_cast<TVMFFIObject*>(err));
    return false;
  }
  return TypeInfoIsSubtype(info, target_type_index, target_depth);
}

template <typename TargetType>
TVM_FFI_INLINE bool IsObjectInstance(int32_t object_type_index) {
  static_assert(is_object_subclass_v<TargetType>);
  if constexpr (std::is_same_v<std::remove_cv_t<TargetType>, Object>) {
    return true;
  } else {
    const int32_t target = TargetType::RuntimeTypeIndex();
    if (object_type_index == target) return true;
    if constexpr (TargetType::_type_final) {
      return false;
    } else {
      // Subtypes are always registered after their parents.
      if (object_type_index < target) return false;
      return IsInstanceByTypeTable(object_type_index, target, TargetType::_type_depth);
    }
  }
}

inline std::string TypeIndexToTypeKey(int32_t type_index) {
  // Strings and bytes read as Python's names in any of their forms; the
  // other types by their registered key (detail::kStaticTypes for built-ins).
  switch (type_index) {
    case TypeIndex::kTVMFFIRawStr:
    case TypeIndex::kTVMFFISmallStr:
    case TypeIndex::kTVMFFIStr:
      return "str";
    case TypeIndex::kTVMFFIByteArrayPtr:
    case TypeIndex::kTVMFFISmallBytes:
    case TypeIndex::kTVMFFIBytes:
      return "bytes";
    default:
      return Object::TypeIndex2Key(type_index);
  }
}

/*! \brief Raw access to the internals of objects and references (for the FFI layer). */
struct ObjectUnsafe {
  static TVMFFIObject* GetHeader(const Object* src) noexcept {
    return const_cast<TVMFFIObject*>(&src->header_);
  }
  /*! \brief Wrap a pointer the caller knows is not null. */
  template <typename T>
  static Arc<T> ArcFromObjectPtr(ObjectPtr<T> ptr) noexcept {
    return Arc<T>(std::move(ptr));
  }
  template <typename T>
  static T* RawObjectPtrFromUnowned(TVMFFIObject* obj) noexcept {
    // Go through Object*: T may place Object away from offset 0 (e.g. a vtable).
    return static_cast<T*>(reinterpret_cast<Object*>(obj));
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromOwned(Object* raw) noexcept {
    ObjectPtr<T> ptr;
    ptr.data_ = raw;
    return ptr;
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromOwned(TVMFFIObject* obj) noexcept {
    return ObjectPtrFromOwned<T>(reinterpret_cast<Object*>(obj));
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromUnowned(Object* raw) noexcept {
    return ObjectPtr<T>(raw);
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromUnowned(TVMFFIObject* obj) noexcept {
    return ObjectPtr<T>(reinterpret_cast<Object*>(obj));
  }
  template <typename T>
  static T ObjectRefFromObjectPtr(const ObjectPtr<Object>& ptr) {
    T ref(UnsafeInit{});
    ref.data_ = ptr;
    return ref;
  }
  template <typename T>
  static T ObjectRefFromObjectPtr(ObjectPtr<Object>&& ptr) {
    T ref(UnsafeInit{});
    ref.data_ = std::move(ptr);
    return ref;
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromObjectRef(const ObjectRef& ref) noexcept {
    return ObjectPtr<T>(ref.data_.data_);
  }
  template <typename T>
  static ObjectPtr<T> ObjectPtrFromObjectRef(ObjectRef&& ref) noexcept {
    ObjectPtr<T> result;
    result.data_ = ref.data_.data_;
    ref.data_.data_ = nullptr;
    return result;
  }
  static Object* RawObjectPtrFromObjectRef(const ObjectRef& ref) noexcept {
    return ref.data_.data_;
  }
  static TVMFFIObject* TVMFFIObjectPtrFromObjectRef(const ObjectRef& ref) noexcept {
    return ref.data_.data_ != nullptr ? GetHeader(ref.data_.data_) : nullptr;
  }
  template <typename T>
  static TVMFFIObject* TVMFFIObjectPtrFromObjectPtr(const ObjectPtr<T>& ptr) noexcept {
    return ptr.data_ != nullptr ? GetHeader(ptr.data_) : nullptr;
  }
  /*! \brief Release ownership of the reference's object to the caller. */
  static TVMFFIObject* MoveObjectRefToTVMFFIObjectPtr(ObjectRef&& ref) noexcept {
    Object* obj = ref.data_.data_;
    ref.data_.data_ = nullptr;
    return obj != nullptr ? GetHeader(obj) : nullptr;
  }
  template <typename T>
  static TVMFFIObject* MoveObjectPtrToTVMFFIObjectPtr(ObjectPtr<T>&& ptr) noexcept {
    Object* obj = ptr.data_;
    ptr.data_ = nullptr;
    return obj != nullptr ? GetHeader(obj) : nullptr;
  }
  static void IncRefObjectHandle(TVMFFIObjectHandle handle) noexcept {
    if (handle != nullptr) HeaderIncRef(static_cast<TVMFFIObject*>(handle));
  }
  static void DecRefObjectHandle(TVMFFIObjectHandle handle) {
    if (handle != nullptr) HeaderDecRef(static_cast<TVMFFIObject*>(handle));
  }
};

/*! \brief Store an object pointer in a TVMFFIAny (no reference change). */
TVM_FFI_INLINE void SetAnyObject(TVMFFIAny* result, TVMFFIObject* obj) noexcept {
  result->type_index = obj->type_index;
  result->zero_padding = 0;
  TVM_FFI_CLEAR_PTR_PADDING_IN_FFI_ANY(result);
  result->v_obj = obj;
}
}  // namespace detail

/*!
 * \brief A reference of type RefType to an object the caller already holds.
 *        RefType may be an Optional of a reference: a null ptr makes it empty.
 */
template <typename RefType, typename ObjType>
inline RefType GetRef(const ObjType* ptr) {
  static_assert(std::is_base_of_v<typename RefType::ContainerType, ObjType>,
                "GetRef: the object type does not match the reference type");
  if constexpr (!std::is_base_of_v<ObjectRef, RefType>) {
    // Optional<R> (optional.h): not an ObjectRef, but one nullable ObjectPtr.
    if (ptr == nullptr) return RefType(std::nullopt);
  }
  return detail::ObjectUnsafe::ObjectRefFromObjectPtr<RefType>(
      detail::ObjectUnsafe::ObjectPtrFromUnowned<Object>(
          const_cast<Object*>(static_cast<const Object*>(ptr))));
}

/*! \brief A new ObjectPtr<T> to an object the caller already holds. */
template <typename T, typename ObjType>
inline ObjectPtr<T> GetObjectPtr(ObjType* ptr) {
  static_assert(std::is_base_of_v<T, std::remove_cv_t<ObjType>>,
                "GetObjectPtr: can only point to the type or a base");
  return detail::ObjectUnsafe::ObjectPtrFromUnowned<T>(
      const_cast<Object*>(static_cast<const Object*>(ptr)));
}

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_OBJECT_CORE_H_

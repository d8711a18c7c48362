/*
 * tvmffi C++ layer: reference-counted objects.
 *
 * Every heap object starts with a TVMFFIObject header (see c_api.h). Objects
 * may be created by any binary; reference counting is done inline with the
 * exact atomics of the ABI so that all binaries agree, and the last release
 * calls the header's deleter (which lives in whichever binary made the object).
 */
#ifndef TVM_FFI_OBJECT_H_
#define TVM_FFI_OBJECT_H_

#include <tvm/ffi/base_detail.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief Alias of the C enum of type indices. */
using TypeIndex = TVMFFITypeIndex;
/*! \brief Alias of the C struct returned by TVMFFIGetTypeInfo. */
using TypeInfo = TVMFFITypeInfo;

/*!
 * \brief Tag for constructing a reference in a null state even when its type
 *        is not nullable. Only for code that fills the reference right after.
 */
struct UnsafeInit {};

/*! \brief Type keys of the built-in types, as the runtime registers them. */
struct StaticTypeKey {
  static constexpr const char* kTVMFFIAny = "Any";
  static constexpr const char* kTVMFFINone = "None";
  static constexpr const char* kTVMFFIBool = "bool";
  static constexpr const char* kTVMFFIInt = "int";
  static constexpr const char* kTVMFFIFloat = "float";
  static constexpr const char* kTVMFFIOpaquePtr = "void*";
  static constexpr const char* kTVMFFIDataType = "DataType";
  static constexpr const char* kTVMFFIDevice = "Device";
  static constexpr const char* kTVMFFIDLTensorPtr = "DLTensor*";
  static constexpr const char* kTVMFFIRawStr = "const char*";
  static constexpr const char* kTVMFFIByteArrayPtr = "TVMFFIByteArray*";
  static constexpr const char* kTVMFFIObjectRValueRef = "ObjectRValueRef";
  static constexpr const char* kTVMFFISmallStr = "ffi.SmallStr";
  static constexpr const char* kTVMFFISmallBytes = "ffi.SmallBytes";
  static constexpr const char* kTVMFFIUnchanged = "ffi.Unchanged";
  static constexpr const char* kTVMFFIObject = "ffi.Object";
  static constexpr const char* kTVMFFIStr = "ffi.String";
  static constexpr const char* kTVMFFIBytes = "ffi.Bytes";
  static constexpr const char* kTVMFFIError = "ffi.Error";
  static constexpr const char* kTVMFFIFunction = "ffi.Function";
  static constexpr const char* kTVMFFIShape = "ffi.Shape";
  static constexpr const char* kTVMFFITensor = "ffi.Tensor";
  static constexpr const char* kTVMFFIArray = "ffi.Array";
  static constexpr const char* kTVMFFIMap = "ffi.Map";
  static constexpr const char* kTVMFFIModule = "ffi.Module";
  static constexpr const char* kTVMFFIOpaquePyObject = "ffi.OpaquePyObject";
  static constexpr const char* kTVMFFIList = "ffi.List";
  static constexpr const char* kTVMFFIDict = "ffi.Dict";
  static constexpr const char* kTVMFFIVisitInterrupt = "ffi.VisitInterrupt";
  static constexpr const char* kTVMFFIBigInt = "ffi.BigInt";
};

namespace detail {
/*! \brief A built-in type: its static index and key. */
struct StaticTypeEntry {
  int32_t index;
  const char* key;
};
/*!
 * \brief Every built-in type the runtime registers when it loads, in
 *        registration order: the values stored inline in TVMFFIAny and
 *        ffi.Object are roots; the other objects derive from ffi.Object.
 */
inline constexpr StaticTypeEntry kStaticTypes[] = {
    {TypeIndex::kTVMFFINone, StaticTypeKey::kTVMFFINone},
    {TypeIndex::kTVMFFIInt, StaticTypeKey::kTVMFFIInt},
    {TypeIndex::kTVMFFIBool, StaticTypeKey::kTVMFFIBool},
    {TypeIndex::kTVMFFIFloat, StaticTypeKey::kTVMFFIFloat},
    {TypeIndex::kTVMFFIOpaquePtr, StaticTypeKey::kTVMFFIOpaquePtr},
    {TypeIndex::kTVMFFIDataType, StaticTypeKey::kTVMFFIDataType},
    {TypeIndex::kTVMFFIDevice, StaticTypeKey::kTVMFFIDevice},
    {TypeIndex::kTVMFFIDLTensorPtr, StaticTypeKey::kTVMFFIDLTensorPtr},
    {TypeIndex::kTVMFFIRawStr, StaticTypeKey::kTVMFFIRawStr},
    {TypeIndex::kTVMFFIByteArrayPtr, StaticTypeKey::kTVMFFIByteArrayPtr},
    {TypeIndex::kTVMFFIObjectRValueRef, StaticTypeKey::kTVMFFIObjectRValueRef},
    {TypeIndex::kTVMFFISmallStr, StaticTypeKey::kTVMFFISmallStr},
    {TypeIndex::kTVMFFISmallBytes, StaticTypeKey::kTVMFFISmallBytes},
    {TypeIndex::kTVMFFIUnchanged, StaticTypeKey::kTVMFFIUnchanged},
    {TypeIndex::kTVMFFIObject, StaticTypeKey::kTVMFFIObject},
    {TypeIndex::kTVMFFIStr, StaticTypeKey::kTVMFFIStr},
    {TypeIndex::kTVMFFIBytes, StaticTypeKey::kTVMFFIBytes},
    {TypeIndex::kTVMFFIError, StaticTypeKey::kTVMFFIError},
    {TypeIndex::kTVMFFIFunction, StaticTypeKey::kTVMFFIFunction},
    {TypeIndex::kTVMFFIShape, StaticTypeKey::kTVMFFIShape},
    {TypeIndex::kTVMFFITensor, StaticTypeKey::kTVMFFITensor},
    {TypeIndex::kTVMFFIArray, StaticTypeKey::kTVMFFIArray},
    {TypeIndex::kTVMFFIMap, StaticTypeKey::kTVMFFIMap},
    {TypeIndex::kTVMFFIModule, StaticTypeKey::kTVMFFIModule},
    {TypeIndex::kTVMFFIOpaquePyObject, StaticTypeKey::kTVMFFIOpaquePyObject},
    {TypeIndex::kTVMFFIList, StaticTypeKey::kTVMFFIList},
    {TypeIndex::kTVMFFIDict, StaticTypeKey::kTVMFFIDict},
    {TypeIndex::kTVMFFIVisitInterrupt, StaticTypeKey::kTVMFFIVisitInterrupt},
    {TypeIndex::kTVMFFIBigInt, StaticTypeKey::kTVMFFIBigInt},
};
}  // namespace detail

class Object;
class ObjectRef;
template <typename T>
class ObjectPtr;
template <typename T, typename = void>
class Optional;

namespace detail {
struct ObjectUnsafe;

constexpr uint64_t kCombinedRefCountStrongOne = 1;
constexpr uint64_t kCombinedRefCountWeakOne = static_cast<uint64_t>(1) << 32;
constexpr uint64_t kCombinedRefCountBothOne = kCombinedRefCountWeakOne | kCombinedRefCountStrongOne;
constexpr uint64_t kCombinedRefCountMaskUInt32 = kCombinedRefCountWeakOne - 1;

/*!
 * \brief The header of a new object, written the one way every object's is
 *        (by make_object here, by AllocObject in the runtime): one strong and
 *        one weak reference, the type index, __padding 0, the deleter.
 */
TVM_FFI_INLINE void InitObjectHeader(TVMFFIObject* header, int32_t type_index,
                                     decltype(TVMFFIObject::deleter) deleter) noexcept {
  header->combined_ref_count = kCombinedRefCountBothOne;
  header->type_index = type_index;
  header->__padding = 0;
  header->deleter = deleter;
}

template <typename TargetType>
TVM_FFI_INLINE bool IsObjectInstance(int32_t object_type_index);

/*! \brief Readable name of a type index, as used in error messages ("int", "str", "ffi.Tensor"). */
inline std::string TypeIndexToTypeKey(int32_t type_index);

/*!
 * \brief The subtype rule, shared with the runtime's registry: whether the
 *        type described by `info` is the type (target_index, target_depth)
 *        or derives from it (its ancestor at target_depth is that type).
 */
TVM_FFI_INLINE bool TypeInfoIsSubtype(const TypeInfo* info, int32_t target_index,
                                      int32_t target_depth) {
  return info->type_index == target_index ||
         (info->type_depth > target_depth &&
          info->type_ancestors[target_depth]->type_index == target_index);
}

/*! \return The key of the type `info` describes, or "<unregistered type index N>" when null. */
inline std::string TypeKeyOrUnregistered(const TypeInfo* info, int32_t type_index) {
  if (info == nullptr) return "<unregistered type index " + std::to_string(type_index) + ">";
  return std::string(info->type_key.data, info->type_key.size);
}

/*!
 * \brief info->metadata, loaded with acquire: the runtime publishes a new record
 *        with a release store, possibly while others read (weakly ordered CPUs).
 */
TVM_FFI_INLINE const TVMFFITypeMetadata* TypeMetadataOf(const TVMFFITypeInfo* info) noexcept {
  return __atomic_load_n(&info->metadata, __ATOMIC_ACQUIRE);
}

/*! \brief Register a type key with the runtime; throws on failure (defined in error.h). */
inline int32_t RegisterObjectType(const char* type_key, int32_t static_type_index,
                                  int32_t type_depth, int32_t num_child_slots,
                                  bool child_slots_can_overflow, int32_t parent_type_index);

/*! \brief ObjectDeleteSlow when weak references remain: destroy now, free with the last one. */
TVM_FFI_NOINLINE inline void ObjectDeleteWithWeakRefs(TVMFFIObject* header) {
  TVM_FFI_REFCOUNT_ACQUIRE_FENCE();
  if (header->deleter != nullptr) header->deleter(header, kTVMFFIObjectDeleterFlagBitMaskStrong);
  if (__atomic_fetch_sub(&header->combined_ref_count, kCombinedRefCountWeakOne,
                         TVM_FFI_REFCOUNT_DEC_ORDER) == kCombinedRefCountWeakOne) {
    TVM_FFI_REFCOUNT_ACQUIRE_FENCE();
    if (header->deleter != nullptr) header->deleter(header, kTVMFFIObjectDeleterFlagBitMaskWeak);
  }
}

/*! \brief Destroy an object whose last strong reference went away (the weak one too, or not). */
TVM_FFI_INLINE void ObjectDestroyNow(TVMFFIObject* header, bool with_weak_refs) {
  if (TVM_FFI_PREDICT_FALSE(with_weak_refs)) {
    ObjectDeleteWithWeakRefs(header);
    return;
  }
  TVM_FFI_REFCOUNT_ACQUIRE_FENCE();
  if (header->deleter != nullptr) header->deleter(header, kTVMFFIObjectDeleterFlagBitMaskBoth);
}

/*!
 * \brief Bounded nesting of destruction, for every kind of object: a deleter
 *        that drops the last reference to another object runs that object's
 *        deleter inside its own, so dropping a chain of N objects would use
 *        N nested frames. Past kMaxNesting nested destructions on this thread
 *        the object is queued instead, and the outermost destruction empties
 *        the queue before it returns: a chain of any length (containers,
 *        C++ objects, objects another language defines) uses a bounded stack.
 *        Each binary keeps its own per-thread state; a chain alternating
 *        between binaries is bounded all the same.
 */
struct ObjectDestroyState {
  static constexpr int kMaxNesting = 64;
  int depth;
  std::vector<std::pair<TVMFFIObject*, bool>>* pending;  // made on the first queued object
  static ObjectDestroyState& Get() noexcept {
    static thread_local ObjectDestroyState state{0, nullptr};
    return state;
  }
};

/*! \brief The DecRef path after the last strong reference went away. */
TVM_FFI_NOINLINE inline void ObjectDeleteSlow(TVMFFIObject* header, uint64_t count_before_sub) {
  const bool with_weak_refs = count_before_sub != kCombinedRefCountBothOne;
  ObjectDestroyState& st = ObjectDestroyState::Get();
  if (TVM_FFI_PREDICT_FALSE(st.depth >= ObjectDestroyState::kMaxNesting)) {
    try {
      if (st.pending == nullptr) st.pending = new std::vector<std::pair<TVMFFIObject*, bool>>();
      st.pending->emplace_back(header, with_weak_refs);
      return;
    } catch (...) {
      // out of memory: destroy it here, nesting deeper
    }
  }
  ++st.depth;
  ObjectDestroyNow(header, with_weak_refs);
  if (TVM_FFI_PREDICT_FALSE(st.depth == 1 && st.pending != nullptr)) {
    // The outermost: destroy what deeper destructions queued (they may queue more).
    std::vector<std::pair<TVMFFIObject*, bool>>* pending = st.pending;
    while (!pending->empty()) {
      std::pair<TVMFFIObject*, bool> next = pending->back();
      pending->pop_back();
      ObjectDestroyNow(next.first, next.second);
    }
    st.pending = nullptr;
    delete pending;
  }
  --st.depth;
}

/*! \brief ABI IncRef on a raw header. */
TVM_FFI_INLINE void HeaderIncRef(TVMFFIObject* header) noexcept {
  __atomic_fetch_add(&header->combined_ref_count, kCombinedRefCountStrongOne, __ATOMIC_RELAXED);
}

/*! \brief ABI DecRef on a raw header. */
TVM_FFI_INLINE void HeaderDecRef(TVMFFIObject* header) {
  // The sole owner (one strong reference, no weak ones) is the only one who
  // may touch the count: it skips the atomic read-modify-write, as
  // libstdc++'s shared_ptr does. The acquire load orders the deleter after
  // every earlier owner's release.
  if (__atomic_load_n(&header->combined_ref_count, __ATOMIC_ACQUIRE) == kCombinedRefCountBothOne) {
    ObjectDeleteSlow(header, kCombinedRefCountBothOne);
    return;
  }
  uint64_t before = __atomic_fetch_sub(&header->combined_ref_count, kCombinedRefCountStrongOne,
                                       TVM_FFI_REFCOUNT_DEC_ORDER);
  if (TVM_FFI_PREDICT_FALSE((before & kCombinedRefCountMaskUInt32) == kCombinedRefCountStrongOne)) {
    ObjectDeleteSlow(header, before);
  }
}
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

// error.h defines ThrowRaisedError, declared above; it needs the classes here.
#include <tvm/ffi/error.h>

#endif  // TVM_FFI_OBJECT_H_

/*
 * The object header's protocol (internal piece of <tvm/ffi/object.h>; include
 * that): the built-in types' keys (StaticTypeKey, detail::kStaticTypes), the
 * one way a header is initialised (detail::InitObjectHeader), the subtype rule
 * shared with the runtime's registry (detail::TypeInfoIsSubtype), and
 * reference counting on a raw header with the exact atomics of the ABI
 * (detail::HeaderIncRef / HeaderDecRef, and the release protocol behind them),
 * so that every binary agrees on an object whichever made it.
 */
#ifndef TVM_FFI_DETAILS_OBJECT_HEADER_H_
#define TVM_FFI_DETAILS_OBJECT_HEADER_H_

#include <tvm/ffi/base_detail.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {

/*! \brief Alias of the C enum of type indices. */
using TypeIndex = TVMFFITypeIndex;
/*! \brief Alias of the C struct returned by TVMFFIGetTypeInfo. */
using TypeInfo = TVMFFITypeInfo;

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

namespace detail {

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

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_OBJECT_HEADER_H_

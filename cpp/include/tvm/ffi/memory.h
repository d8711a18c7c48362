/*
 * tvmffi C++ layer: creating objects on the heap.
 *
 * make_object<T>(args...) allocates T, fills the ABI header (counts 1+1,
 * type index, deleter) and returns the only strong reference. The deleter
 * is an instantiation in the binary that called make_object: objects made
 * by a library must not outlive it (the module loader never unloads).
 */
#ifndef TVM_FFI_MEMORY_H_
#define TVM_FFI_MEMORY_H_

#include <tvm/ffi/object.h>

#include <new>

namespace tvm {
namespace ffi {

/*! \brief Signature of TVMFFIObject::deleter. */
using FObjectDeleter = void (*)(void* obj, int flags);

namespace detail {

template <size_t Align>
inline void* ObjectAllocBytes(size_t size) {
  if constexpr (Align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    return ::operator new(size, std::align_val_t(Align));
  } else {
    return ::operator new(size);
  }
}

template <size_t Align>
inline void ObjectFreeBytes(void* ptr) noexcept {
  if constexpr (Align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    ::operator delete(ptr, std::align_val_t(Align));
  } else {
    ::operator delete(ptr);
  }
}

/*! \brief The deleter of objects of type T made by make_object in this binary. */
template <typename T>
void ObjectDeleter(void* self, int flags) {
  T* tptr = ObjectUnsafe::RawObjectPtrFromUnowned<T>(static_cast<TVMFFIObject*>(self));
  // Call exactly T's destructor: objects need no virtual destructor.
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) tptr->T::~T();
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) ObjectFreeBytes<alignof(T)>(tptr);
}

template <typename T, typename... Args>
inline ObjectPtr<T> MakeObjectWithSize(size_t size, Args&&... args) {
  static_assert(is_object_subclass_v<T>, "make_object: T must derive from Object");
  void* mem = ObjectAllocBytes<alignof(T)>(size);
  T* ptr;
  try {
    ptr = new (mem) T(std::forward<Args>(args)...);
  } catch (...) {
    ObjectFreeBytes<alignof(T)>(mem);
    throw;
  }
  InitObjectHeader(ObjectUnsafe::GetHeader(ptr), T::RuntimeTypeIndex(), &ObjectDeleter<T>);
  return ObjectUnsafe::ObjectPtrFromOwned<T>(static_cast<Object*>(ptr));
}
}  // namespace detail

/*!
 * \brief Allocate and construct an object.
 * \return The only strong reference to it.
 */
template <typename T, typename... Args>
inline ObjectPtr<T> make_object(Args&&... args) {
  return detail::MakeObjectWithSize<T>(sizeof(T), std::forward<Args>(args)...);
}

/*! \brief As make_object, returning the never-null Arc<T>. */
template <typename T, typename... Args>
inline Arc<T> make_arc(Args&&... args) {
  return detail::ObjectUnsafe::ArcFromObjectPtr(make_object<T>(std::forward<Args>(args)...));
}

/*!
 * \brief Allocate an object followed by room for num_elems ElemType values
 *        (constructed by ArrayType itself, which must also destroy them).
 */
template <typename ArrayType, typename ElemType, typename... Args>
inline ObjectPtr<ArrayType> make_inplace_array_object(size_t num_elems, Args&&... args) {
  static_assert(
      alignof(ArrayType) % alignof(ElemType) == 0 && sizeof(ArrayType) % alignof(ElemType) == 0,
      "elements must be aligned right after the array header");
  return detail::MakeObjectWithSize<ArrayType>(sizeof(ArrayType) + sizeof(ElemType) * num_elems,
                                               std::forward<Args>(args)...);
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_MEMORY_H_

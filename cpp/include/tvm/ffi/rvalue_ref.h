/*
 * tvmffi C++ layer: RValueRef<TObjRef>, an object reference passed by move
 * through the ABI.
 *
 *   Function f = Function::FromTyped([](RValueRef<Array<int>> a) {
 *     Array<int> arr = *std::move(a);  // the caller's reference, now ours
 *     arr.push_back(1);                // unique: no copy on write
 *     return arr;
 *   });
 *   f(RValueRef(std::move(arr)));
 *
 * As an argument the value travels as kTVMFFIObjectRValueRef: v_ptr is the
 * address of the caller's object pointer, and the callee takes the object
 * over by clearing that pointer. A callee given a plain object (not an
 * rvalue) gets its own reference instead; one given an object of another
 * convertible type gets the converted copy and leaves the caller's alone.
 */
#ifndef TVM_FFI_RVALUE_REF_H_
#define TVM_FFI_RVALUE_REF_H_

#include <tvm/ffi/object.h>
#include <tvm/ffi/type_traits.h>

#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {

/*! \brief Holds a TObjRef that is to be moved into the callee. */
template <typename TObjRef, typename = std::enable_if_t<std::is_base_of_v<ObjectRef, TObjRef>>>
class RValueRef {
 public:
  using ContainerType = typename TObjRef::ContainerType;
  /*! \brief Only from an rvalue: the reference is taken over. */
  explicit RValueRef(TObjRef&& data)
      : data_(detail::ObjectUnsafe::ObjectPtrFromObjectRef<ContainerType>(std::move(data))) {}
  /*! \return The reference, moved out (this is empty afterwards). */
  TObjRef operator*() && {
    return detail::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(
        ObjectPtr<Object>(std::move(data_)));
  }

 private:
  // mutable: a callee moves out of it through a const view of the argument.
  mutable ObjectPtr<ContainerType> data_;

  template <typename, typename>
  friend struct TypeTraits;
};

template <typename TObjRef>
inline constexpr bool use_default_type_traits_v<RValueRef<TObjRef>> = false;

template <typename TObjRef>
struct TypeTraits<RValueRef<TObjRef>> : public TypeTraitsBase {
  // Only passed as an argument: never stored in an Any.
  static constexpr bool storage_enabled = false;

  TVM_FFI_INLINE static void CopyToAnyView(const RValueRef<TObjRef>& src, TVMFFIAny* result) {
    result->type_index = TypeIndex::kTVMFFIObjectRValueRef;
    result->zero_padding = 0;
    // The address of the pointer, so that the callee can clear it.
    result->v_ptr = &src.data_;
  }
  // Always the converting path: the object behind the pointer must be checked.
  TVM_FFI_INLINE static bool CheckAnyStrict(const TVMFFIAny*) { return false; }
  static RValueRef<TObjRef> CopyFromAnyViewAfterCheck(const TVMFFIAny* src) {
    return *TryCastFromAnyView(src);
  }

  static std::optional<RValueRef<TObjRef>> TryCastFromAnyView(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIObjectRValueRef) {
      // A plain value: our own reference (or converted copy).
      if (std::optional<TObjRef> ref = TypeTraits<TObjRef>::TryCastFromAnyView(src)) {
        return RValueRef<TObjRef>(*std::move(ref));
      }
      return std::nullopt;
    }
    ObjectPtr<Object>* slot = static_cast<ObjectPtr<Object>*>(src->v_ptr);
    TVMFFIAny target = Pointee(slot);
    if (TypeTraits<TObjRef>::CheckAnyStrict(&target)) {
      // Same type: take the caller's reference over.
      return RValueRef<TObjRef>(
          detail::ObjectUnsafe::ObjectRefFromObjectPtr<TObjRef>(std::move(*slot)));
    }
    // Another type: convert a copy, the caller keeps its object.
    if (std::optional<TObjRef> ref = TypeTraits<TObjRef>::TryCastFromAnyView(&target)) {
      return RValueRef<TObjRef>(*std::move(ref));
    }
    return std::nullopt;
  }
  static std::string GetMismatchTypeInfo(const TVMFFIAny* src) {
    if (src->type_index != TypeIndex::kTVMFFIObjectRValueRef) {
      return TypeTraits<TObjRef>::GetMismatchTypeInfo(src);
    }
    TVMFFIAny target = Pointee(static_cast<ObjectPtr<Object>*>(src->v_ptr));
    return "RValueRef<" + TypeTraits<TObjRef>::GetMismatchTypeInfo(&target) + ">";
  }
  static std::string TypeStr() { return "RValueRef<" + TypeTraits<TObjRef>::TypeStr() + ">"; }

 private:
  /*! \brief A view of the object the rvalue points at (None when already moved out). */
  static TVMFFIAny Pointee(const ObjectPtr<Object>* slot) {
    TVMFFIAny view;
    detail::SetAnyNone(&view);
    Object* obj = slot != nullptr ? slot->get() : nullptr;
    if (obj != nullptr) {
      view.type_index = obj->type_index();
      view.v_obj = detail::ObjectUnsafe::GetHeader(obj);
    }
    return view;
  }
};

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_RVALUE_REF_H_

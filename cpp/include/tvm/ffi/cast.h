/*
 * tvmffi C++ layer: checked downcasts of object references.
 */
#ifndef TVM_FFI_CAST_H_
#define TVM_FFI_CAST_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/object.h>

#include <utility>

namespace tvm {
namespace ffi {

/*!
 * \brief Downcast a reference to a subtype reference.
 * \throws TypeError when the object has another type, or when it is null and
 *         SubRef is not nullable.
 */
template <typename SubRef, typename BaseRef,
          typename = std::enable_if_t<std::is_base_of_v<ObjectRef, SubRef> &&
                                      std::is_base_of_v<ObjectRef, BaseRef>>>
inline SubRef Downcast(BaseRef ref) {
  if (ref.defined()) {
    if (TVM_FFI_PREDICT_FALSE(!ref->template IsInstance<typename SubRef::ContainerType>())) {
      TVM_FFI_THROW(TypeError) << "Downcast from `" << ref->GetTypeKey() << "` to `"
                               << SubRef::ContainerType::_type_key << "` failed";
    }
  } else if constexpr (!SubRef::_type_is_nullable) {
    TVM_FFI_THROW(TypeError) << "Downcast of a null reference to the non-nullable `"
                             << SubRef::ContainerType::_type_key << "`";
  }
  return detail::ObjectUnsafe::ObjectRefFromObjectPtr<SubRef>(
      detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(std::move(ref)));
}

namespace detail {
/*! \brief Whether R is a reference or an Optional of one (not an ObjectRef since 0.1.15). */
template <typename R>
inline constexpr bool is_ref_or_optional_ref_v =
    std::is_base_of_v<ObjectRef, R> || use_object_ref_optional_v<typename OptionalInner<R>::type>;
/*! \brief Whether Downcast<Sub>(Base) goes through an Optional on either side. */
template <typename Sub, typename Base>
constexpr bool IsOptionalDowncast() {
  if (!is_ref_or_optional_ref_v<Sub> || !is_ref_or_optional_ref_v<Base>) return false;
  return is_optional_type_v<Sub> || is_optional_type_v<Base>;
}
}  // namespace detail

/*!
 * \brief Downcast where either side is an Optional of a reference (Optional is
 *        not an ObjectRef): an empty Optional reads as a null reference, and a
 *        null reference makes an empty Optional.
 */
template <typename SubRef, typename BaseRef,
          typename = std::enable_if_t<detail::IsOptionalDowncast<SubRef, BaseRef>()>,
          typename = void>
inline SubRef Downcast(BaseRef ref) {
  ObjectRef base;
  if constexpr (is_optional_type_v<BaseRef>) {
    if (ref.has_value()) base = *std::move(ref);
  } else {
    base = std::move(ref);
  }
  if constexpr (is_optional_type_v<SubRef>) {
    if (!base.defined()) return SubRef(std::nullopt);
    return SubRef(Downcast<typename SubRef::value_type>(std::move(base)));
  } else {
    return Downcast<SubRef>(std::move(base));
  }
}

/*! \brief Convert an Any to T (as Any::cast<T>). */
template <typename T>
inline T Downcast(const Any& value) {
  return value.cast<T>();
}
/*! \brief Convert an AnyView to T (as AnyView::cast<T>). */
template <typename T>
inline T Downcast(const AnyView& value) {
  return value.cast<T>();
}

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_CAST_H_

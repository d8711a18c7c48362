/*
 * tvmffi C++ layer: making an object of a reflected type from its field
 * values, by type key.
 *
 *   namespace refl = tvm::ffi::reflection;
 *   Any p = refl::ObjectCreator("my.Point")(Map<String, Any>{{"x", 1}, {"y", 2}});
 *
 * The type needs a creator (ObjectDef registers make_object<T>() for default
 * constructible types; a `__ffi_new__` type attribute also works). Fields not
 * given take their registered default; a field with neither is a TypeError,
 * and so is a name that is not a field of the type.
 */
#ifndef TVM_FFI_REFLECTION_CREATOR_H_
#define TVM_FFI_REFLECTION_CREATOR_H_

#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/string.h>

#include <string_view>

namespace tvm {
namespace ffi {

namespace detail {
/*! \brief The `__ffi_new__` attribute of a type, or nullopt. */
inline Optional<Function> TypeNewAttr(int32_t type_index) {
  TVMFFIByteArray key = reflection::AsByteArray(reflection::type_attr::kNew);
  if (TVMFFIGetTypeAttrColumn(&key) == nullptr) return Optional<Function>();
  AnyView attr = reflection::TypeAttrColumn(reflection::type_attr::kNew)[type_index];
  if (attr.type_index() != TypeIndex::kTVMFFIFunction) return Optional<Function>();
  return attr.cast<Function>();
}
}  // namespace detail

/*! \brief Whether objects of the type can be made empty by reflection. */
inline bool HasCreator(const TVMFFITypeInfo* type_info) {
  const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(type_info);
  if (md != nullptr && md->creator != nullptr) return true;
  return detail::TypeNewAttr(type_info->type_index).has_value();
}

/*!
 * \brief A new object of the type with its fields as the creator leaves them.
 * \throws RuntimeError if the type has no creator.
 */
inline ObjectPtr<Object> CreateEmptyObject(const TVMFFITypeInfo* type_info) {
  const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(type_info);
  if (md != nullptr && md->creator != nullptr) {
    TVMFFIObjectHandle handle = nullptr;
    TVM_FFI_CHECK_SAFE_CALL(md->creator(&handle));
    return detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(handle));
  }
  if (Optional<Function> make = detail::TypeNewAttr(type_info->type_index)) {
    return detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>((*make)().cast<ObjectRef>());
  }
  TVM_FFI_THROW(RuntimeError) << "Type `"
                              << std::string_view(type_info->type_key.data,
                                                  type_info->type_key.size)
                              << "` has no creator (no default constructor was registered and no "
                                 "__ffi_new__ attribute is set)";
  TVM_FFI_UNREACHABLE();
}

namespace reflection {

/*! \brief Makes objects of one type from a Map of field values. */
class ObjectCreator {
 public:
  explicit ObjectCreator(std::string_view type_key)
      : ObjectCreator(TVMFFIGetTypeInfo(TypeKeyToIndex(type_key))) {}
  /*! \throws RuntimeError if the type has no creator. */
  explicit ObjectCreator(const TVMFFITypeInfo* type_info) : type_info_(type_info) {
    if (!HasCreator(type_info)) {
      TVM_FFI_THROW(RuntimeError) << "Type `" << TypeKey()
                                  << "` cannot be created by reflection: it has no creator";
    }
  }

  /*!
   * \brief A new object with the given fields set and the others defaulted.
   * \throws TypeError for a required field missing or a field the type lacks.
   * (A template only so that files which never call it do not instantiate the
   * Map lookups; call it as a plain function.)
   */
  template <typename LazyT_ = void>
  Any operator()(const Map<String, Any>& fields) const {
    ObjectPtr<Object> obj = CreateEmptyObject(type_info_);
    size_t used = 0;
    ForEachFieldInfo(type_info_, [&](const TVMFFIFieldInfo* f) {
      void* addr = reinterpret_cast<char*>(obj.get()) + f->offset;
      auto it = fields.find(String(f->name));
      if (it != fields.end()) {
        Any value = (*it).second;
        TVM_FFI_CHECK_SAFE_CALL(
            CallFieldSetter(f, addr, reinterpret_cast<const TVMFFIAny*>(&value)));
        ++used;
      } else if (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
        SetFieldToDefault(f, addr);
      } else {
        TVM_FFI_THROW(TypeError) << "Required field `"
                                 << std::string_view(f->name.data, f->name.size)
                                 << "` not set in type `" << TypeKey() << "`";
      }
    });
    if (used != fields.size()) {
      for (const auto& kv : fields) {
        bool known = ForEachFieldInfoWithEarlyStop(type_info_, [&](const TVMFFIFieldInfo* f) {
          return detail::ByteArrayEquals(f->name,
                                         std::string_view(kv.first.data(), kv.first.size()));
        });
        if (!known) {
          TVM_FFI_THROW(TypeError)
              << "Type `" << TypeKey() << "` does not have field `" << kv.first << "`";
        }
      }
    }
    return ObjectRef(std::move(obj));
  }

 private:
  std::string_view TypeKey() const {
    return std::string_view(type_info_->type_key.data, type_info_->type_key.size);
  }
  const TVMFFITypeInfo* type_info_;
};

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_CREATOR_H_

/*
 * tvmffi C++ layer: reading the reflection tables a type registered
 * (TVMFFITypeInfo::fields / methods, type attribute columns).
 *
 *   namespace refl = tvm::ffi::reflection;
 *   refl::FieldGetter get_x("my.Point", "x");
 *   int64_t x = get_x(point).cast<int64_t>();
 *   refl::FieldSetter("my.Point", "x")(point, 3);
 *   Function f = refl::GetMethod("my.Point", "norm");
 *   AnyView repr = refl::TypeAttrColumn("__ffi_repr__")[point->type_index()];
 *
 * Everything goes through the C registry (TVMFFIGetTypeInfo,
 * TVMFFIGetTypeAttrColumn), so types registered by another runtime build are
 * read the same way. A name that is not registered is a RuntimeError naming
 * the field or method and the type. Opt-in: no kernel header includes this.
 */
#ifndef TVM_FFI_REFLECTION_ACCESSOR_H_
#define TVM_FFI_REFLECTION_ACCESSOR_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/native_function.h>

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace tvm {
namespace ffi {
namespace reflection {

/*! \brief Names of the standard type attribute columns (upstream's; not all are used here). */
namespace type_attr {
inline constexpr const char* kNew = "__ffi_new__";
inline constexpr const char* kInit = "__ffi_init__";
inline constexpr const char* kConvert = "__ffi_convert__";
inline constexpr const char* kShallowCopy = "__ffi_shallow_copy__";
inline constexpr const char* kTypeFinal = "__ffi_type_final__";
inline constexpr const char* kConvertTypeSchema = "__ffi_convert_type_schema__";
inline constexpr const char* kRepr = "__ffi_repr__";
inline constexpr const char* kHash = "__ffi_hash__";
inline constexpr const char* kEq = "__ffi_eq__";
inline constexpr const char* kCompare = "__ffi_compare__";
/*!
 * \brief A type's own hash and equality for Any keys (Map, Dict): native
 *        hooks (reflection/native_function.h, type_attr::kAnyHash) or
 *        Functions `int64_t(const Any&)` and `bool(const Any&, const Any&)`.
 *        They should not fail: a table that grows rehashes every key with no
 *        way back part way.
 */
inline constexpr const char* kAnyHash = "__any_hash__";
/*! \brief See kAnyHash. */
inline constexpr const char* kAnyEqual = "__any_equal__";
inline constexpr const char* kSHash = "__s_hash__";
inline constexpr const char* kSEqual = "__s_equal__";
inline constexpr const char* kStructuralVisit = "__s_visit__";
inline constexpr const char* kDataToJson = "__data_to_json__";
inline constexpr const char* kDataFromJson = "__data_from_json__";
inline constexpr const char* kEnumState = "__ffi_enum__";
}  // namespace type_attr

/*!
 * \brief A type attribute's name together with the type of its values
 *        (upstream's typed key): `TypeAttrDef::attr(key, value)` stores a T,
 *        `key.ValueFrom(column[type_index])` reads one back.
 * \note `name` is borrowed: its storage must outlive the key (a literal).
 */
template <typename T>
struct AttrKey {
  using ValueType = T;
  const char* name;

  /*!
   * \return None when `value` is None (no entry), else the value as T.
   * \throws TypeError when a present value is not stored as a T (no conversion).
   */
  TVM_FFI_INLINE std::optional<ValueType> ValueFrom(AnyView value) const {
    if (value == nullptr) return std::nullopt;
    return value.template as_or_throw<ValueType>();
  }
};

/*! \brief A NUL-terminated literal as a TVMFFIByteArray (no copy). */
inline constexpr TVMFFIByteArray AsByteArray(const char* s) {
  return {s, std::char_traits<char>::length(s)};
}

namespace detail {
inline bool ByteArrayEquals(const TVMFFIByteArray& a, std::string_view b) {
  return std::string_view(a.data, a.size) == b;
}
inline const TVMFFITypeInfo* TypeInfoOfKey(std::string_view type_key) {
  return TVMFFIGetTypeInfo(TypeKeyToIndex(type_key));
}
/*!
 * \brief A published (array, count) pair of a type record: count first, then
 *        the array (acquire). The runtime stores the array, then the count
 *        (release), and never frees an array it replaced, so on weakly
 *        ordered CPUs too the count never exceeds the array read.
 */
template <typename T>
struct PublishedSpan {
  const T* data;
  int32_t size;
};
template <typename T>
inline PublishedSpan<T> LoadPublished(const T* const* data, const int32_t* size) {
  int32_t n = __atomic_load_n(size, __ATOMIC_ACQUIRE);
  return PublishedSpan<T>{__atomic_load_n(data, __ATOMIC_ACQUIRE), n};
}
inline PublishedSpan<TVMFFIFieldInfo> FieldsOf(const TVMFFITypeInfo* info) {
  return LoadPublished(&info->fields, &info->num_fields);
}
}  // namespace detail
// Our older name of this namespace (as tvm::ffi::details is of tvm::ffi::detail).
namespace details = detail;

/*!
 * \brief Visit the fields of a type, inherited ones first (root to leaf),
 *        then its own, in registration order.
 * \param callback void(const TVMFFIFieldInfo*).
 */
template <typename Callback>
inline void ForEachFieldInfo(const TypeInfo* type_info, Callback callback) {
  static_assert(std::is_same_v<decltype(callback(type_info->fields)), void>,
                "ForEachFieldInfo: the callback must return void");
  // Depth 0 is Object itself, which has no fields.
  for (int32_t d = 1; d < type_info->type_depth; ++d) {
    auto base = detail::FieldsOf(type_info->type_ancestors[d]);
    for (int32_t i = 0; i < base.size; ++i) callback(base.data + i);
  }
  auto own = detail::FieldsOf(type_info);
  for (int32_t i = 0; i < own.size; ++i) callback(own.data + i);
}

/*!
 * \brief As ForEachFieldInfo, stopping at the first field for which the
 *        callback returns true.
 * \return Whether the walk stopped early.
 */
template <typename Callback>
inline bool ForEachFieldInfoWithEarlyStop(const TypeInfo* type_info, Callback callback) {
  for (int32_t d = 1; d < type_info->type_depth; ++d) {
    auto base = detail::FieldsOf(type_info->type_ancestors[d]);
    for (int32_t i = 0; i < base.size; ++i) {
      if (callback(base.data + i)) return true;
    }
  }
  auto own = detail::FieldsOf(type_info);
  for (int32_t i = 0; i < own.size; ++i) {
    if (callback(own.data + i)) return true;
  }
  return false;
}

/*!
 * \brief The field `field_name` of the type `type_key`, own or inherited.
 * \throws RuntimeError if the type has no such field; ValueError if the key is unknown.
 */
inline const TVMFFIFieldInfo* GetFieldInfo(std::string_view type_key, const char* field_name) {
  const TVMFFITypeInfo* info = detail::TypeInfoOfKey(type_key);
  const TVMFFIFieldInfo* found = nullptr;
  ForEachFieldInfoWithEarlyStop(info, [&](const TVMFFIFieldInfo* f) {
    if (detail::ByteArrayEquals(f->name, field_name)) found = f;
    return found != nullptr;
  });
  if (found == nullptr) {
    TVM_FFI_THROW(RuntimeError) << "Cannot find field `" << field_name << "` in " << type_key;
  }
  return found;
}

/*!
 * \brief The method `method_name` registered on the type `type_key` itself.
 * \throws RuntimeError if there is none.
 */
inline const TVMFFIMethodInfo* GetMethodInfo(std::string_view type_key, const char* method_name) {
  const TVMFFITypeInfo* info = detail::TypeInfoOfKey(type_key);
  auto methods = detail::LoadPublished(&info->methods, &info->num_methods);
  for (int32_t i = 0; i < methods.size; ++i) {
    if (detail::ByteArrayEquals(methods.data[i].name, method_name)) return methods.data + i;
  }
  TVM_FFI_THROW(RuntimeError) << "Cannot find method `" << method_name << "` in " << type_key;
}

/*! \brief The method `method_name` of `type_key` as a Function (see GetMethodInfo). */
inline Function GetMethod(std::string_view type_key, const char* method_name) {
  return AnyView::CopyFromTVMFFIAny(GetMethodInfo(type_key, method_name)->method).cast<Function>();
}

/*!
 * \brief Run a field's setter on the field at `field_addr`; returns the C status.
 *        With kTVMFFIFieldFlagBitSetterIsFunctionObj the setter is a Function
 *        called as (field address as an opaque pointer, value).
 */
inline int CallFieldSetter(const TVMFFIFieldInfo* field_info, void* field_addr,
                           const TVMFFIAny* value) {
  if (field_info->flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny args[2] = {AnyView(field_addr).CopyToTVMFFIAny(), *value};
    TVMFFIAny result{};
    int ret = TVMFFIFunctionCall(reinterpret_cast<TVMFFIObjectHandle>(field_info->setter), args, 2,
                                 &result);
    if (ret == 0) ::tvm::ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&result);  // released here
    return ret;
  }
  return field_info->setter(field_addr, value);
}

/*!
 * \brief Run a field's setter with its registered default: the value, or a
 *        fresh result of the factory when kTVMFFIFieldFlagBitMaskDefaultFromFactory
 *        is set. Returns the setter's C status (the error is in the safe-call slot).
 * \throws Error if the factory itself fails.
 */
inline int CallFieldSetterToDefault(const TVMFFIFieldInfo* field_info, void* field_addr) {
  if (field_info->flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) {
    Any value = AnyView::CopyFromTVMFFIAny(field_info->default_value_or_factory).cast<Function>()();
    return CallFieldSetter(field_info, field_addr, reinterpret_cast<const TVMFFIAny*>(&value));
  }
  return CallFieldSetter(field_info, field_addr, &field_info->default_value_or_factory);
}

/*!
 * \brief Set a field to its registered default (see CallFieldSetterToDefault).
 * \throws Error when the setter rejects the default.
 */
inline void SetFieldToDefault(const TVMFFIFieldInfo* field_info, void* field_addr) {
  TVM_FFI_CHECK_SAFE_CALL(CallFieldSetterToDefault(field_info, field_addr));
}

/*! \brief Reads one reflected field of any object that has it. */
class FieldGetter {
 public:
  explicit FieldGetter(const TVMFFIFieldInfo* field_info) : field_info_(field_info) {}
  FieldGetter(std::string_view type_key, const char* field_name)
      : FieldGetter(GetFieldInfo(type_key, field_name)) {}

  /*! \return The field's value (an owned copy). */
  Any operator()(const Object* obj) const {
    Any result;
    void* addr = const_cast<char*>(reinterpret_cast<const char*>(obj)) + field_info_->offset;
    TVM_FFI_CHECK_SAFE_CALL(field_info_->getter(addr, reinterpret_cast<TVMFFIAny*>(&result)));
    return result;
  }
  Any operator()(const ObjectPtr<Object>& obj) const { return (*this)(obj.get()); }
  Any operator()(const ObjectRef& obj) const { return (*this)(obj.get()); }

 private:
  const TVMFFIFieldInfo* field_info_;
};

/*!
 * \brief Writes one reflected field. The setter converts the value to the
 *        field's C++ type; a value that does not convert is a TypeError.
 */
class FieldSetter {
 public:
  explicit FieldSetter(const TVMFFIFieldInfo* field_info) : field_info_(field_info) {}
  FieldSetter(std::string_view type_key, const char* field_name)
      : FieldSetter(GetFieldInfo(type_key, field_name)) {}

  void operator()(const Object* obj, AnyView value) const {
    void* addr = const_cast<char*>(reinterpret_cast<const char*>(obj)) + field_info_->offset;
    TVM_FFI_CHECK_SAFE_CALL(
        CallFieldSetter(field_info_, addr, reinterpret_cast<const TVMFFIAny*>(&value)));
  }
  void operator()(const ObjectPtr<Object>& obj, AnyView value) const { (*this)(obj.get(), value); }
  void operator()(const ObjectRef& obj, AnyView value) const { (*this)(obj.get(), value); }

 private:
  const TVMFFIFieldInfo* field_info_;
};

namespace detail {
/*! \brief The entry of type_index in column (None when absent); column must not be null. */
inline AnyView TypeAttrColumnEntry(const TVMFFITypeAttrColumn* column, int32_t type_index) {
  // Size first, then data (acquire): the runtime publishes in the other order.
  int32_t size = __atomic_load_n(&column->size, __ATOMIC_ACQUIRE);
  const TVMFFIAny* data = __atomic_load_n(&column->data, __ATOMIC_ACQUIRE);
  // Columns of other runtimes may start past type index 0.
  int64_t slot = static_cast<int64_t>(type_index) - column->begin_index;
  if (slot < 0 || slot >= size) return AnyView();
  return AnyView::CopyFromTVMFFIAny(data[slot]);
}
}  // namespace detail

/*!
 * \brief One type attribute column (TVMFFIGetTypeAttrColumn), indexed by type
 *        index; a type without a value reads as None.
 * \throws RuntimeError if no column of that name exists.
 */
class TypeAttrColumn {
 public:
  explicit TypeAttrColumn(std::string_view attr_name) {
    TVMFFIByteArray name{attr_name.data(), attr_name.size()};
    column_ = TVMFFIGetTypeAttrColumn(&name);
    if (column_ == nullptr) {
      TVM_FFI_THROW(RuntimeError) << "Cannot find type attribute " << attr_name;
    }
  }
  /*! \brief The column a typed key names. */
  template <typename T>
  explicit TypeAttrColumn(AttrKey<T> key) : TypeAttrColumn(std::string_view(key.name)) {}

  AnyView operator[](int32_t type_index) const {
    return detail::TypeAttrColumnEntry(column_, type_index);
  }

 private:
  const TVMFFITypeAttrColumn* column_;
};

}  // namespace reflection

/*!
 * \brief Typed keys of the standard type attribute columns (upstream's
 *        tvm::ffi::type_attr; the plain names are reflection::type_attr).
 *        Other headers add theirs (serialization.h, structural_*.h, enum.h,
 *        extra/dataclass.h).
 */
namespace type_attr {
inline constexpr reflection::AttrKey<TypedFunction<ObjectRef()>> kNew{"__ffi_new__"};
inline constexpr reflection::AttrKey<Function> kInit{"__ffi_init__"};
inline constexpr reflection::AttrKey<TypedFunction<Any(AnyView)>> kConvert{"__ffi_convert__"};
inline constexpr reflection::AttrKey<Any> kConvertTypeSchema{"__ffi_convert_type_schema__"};
inline constexpr reflection::AttrKey<TypedFunction<ObjectRef(const Object*)>> kShallowCopy{
    "__ffi_shallow_copy__"};
inline constexpr reflection::AttrKey<bool> kTypeFinal{"__ffi_type_final__"};
/*!
 * \brief A type's own hash of Any keys (Map, Dict, AnyHash): a native hook
 *        (`native_fn_attr<&Fn>(kAnyHash)`) or a Function; see any.h.
 */
inline constexpr reflection::AttrKey<reflection::NativeFunctionView<int64_t(const Any&)>> kAnyHash{
    "__any_hash__"};
/*! \brief A type's own equality of Any keys, the partner of kAnyHash. */
inline constexpr reflection::AttrKey<reflection::NativeFunctionView<bool(const Any&, const Any&)>>
    kAnyEqual{"__any_equal__"};
}  // namespace type_attr

}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_ACCESSOR_H_

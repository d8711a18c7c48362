/*
 * tvmffi C++ layer: registering global functions and the reflection of
 * object types (fields, methods, type attributes).
 *
 *   TVM_FFI_STATIC_INIT_BLOCK() {
 *     namespace refl = tvm::ffi::reflection;
 *     refl::GlobalDef()
 *         .def("my.add", [](int a, int b) { return a + b; }, "Add two integers.")
 *         .def_packed("my.count", [](tvm::ffi::PackedArgs args, tvm::ffi::Any* rv) {
 *           *rv = args.size();
 *         })
 *         .def_method("my.Point.norm", &PointObj::Norm);   // self becomes argument 0
 *     refl::ObjectDef<PointObj>()
 *         .def_ro("x", &PointObj::x, "the x coordinate")
 *         .def_rw("y", &PointObj::y, refl::DefaultValue(0))
 *         .def("norm", &PointObj::Norm)
 *         .def_static("origin", []() { return Point(0, 0); })
 *         .def(refl::init<int64_t, int64_t>())
 *         .def_type_attr("__my_attr__", 42);
 *     refl::TypeAttrDef<PointObj>().def("__other_attr__", [](const PointObj* p) { return p->x; });
 *   }
 *
 * Everything registers through the C functions (TVMFFIFunctionSetGlobalFromMethodInfo,
 * TVMFFITypeRegisterField/Method/Metadata/Attr), so a type registered here is
 * reflected the same way to code built against another runtime, and back.
 * A global name that is already registered, a field registered twice, or a
 * type attribute set twice is an error from the runtime (RuntimeError/ValueError
 * naming it).
 *
 * Extra arguments of def/def_ro/def_rw/def_static: a docstring (const char*),
 * Metadata{{"key", value}, ...} (int, bool, float or string values), and for
 * fields DefaultValue, DefaultFactory, AttachFieldFlag and repr(bool).
 * Each field and method also carries {"type_schema": ...} in its metadata.
 */
#ifndef TVM_FFI_REFLECTION_REGISTRY_H_
#define TVM_FFI_REFLECTION_REGISTRY_H_

#include <tvm/ffi/details/overload_cast.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/accessor.h>

#include <exception>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tvm {
namespace ffi {
namespace reflection {

/*! \brief Base of the extra arguments that change a field's or a method's info. */
struct InfoTrait {};

/*! \brief Key/value pairs written into the metadata JSON of a field or method. */
class Metadata : public InfoTrait {
 public:
  Metadata(std::initializer_list<std::pair<String, Any>> entries) : entries_(entries) {}
  const std::vector<std::pair<String, Any>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<String, Any>> entries_;
};

/*! \brief The default value of a field (sets kTVMFFIFieldFlagBitMaskHasDefault). */
class DefaultValue : public InfoTrait {
 public:
  explicit DefaultValue(Any value) : value_(std::move(value)) {}
  void Apply(TVMFFIFieldInfo* info) const {
    // A view: the runtime keeps its own reference while registering.
    info->default_value_or_factory = AnyView(value_).CopyToTVMFFIAny();
    info->flags |= kTVMFFIFieldFlagBitMaskHasDefault;
  }

 private:
  Any value_;
};

/*! \brief A factory `() -> Any` called for each default (fresh mutable defaults). */
class DefaultFactory : public InfoTrait {
 public:
  explicit DefaultFactory(Function factory) : factory_(std::move(factory)) {}
  void Apply(TVMFFIFieldInfo* info) const {
    info->default_value_or_factory = AnyView(factory_).CopyToTVMFFIAny();
    info->flags |= kTVMFFIFieldFlagBitMaskHasDefault | kTVMFFIFieldFlagBitMaskDefaultFromFactory;
  }

 private:
  Function factory_;
};

/*! \brief Lower-case spellings, as in Python's dataclasses. */
class default_value : public DefaultValue {
  using DefaultValue::DefaultValue;
};
class default_factory : public DefaultFactory {
  using DefaultFactory::DefaultFactory;
};

/*! \brief Set raw field flags (structural equality/hash behaviour). */
class AttachFieldFlag : public InfoTrait {
 public:
  explicit AttachFieldFlag(int32_t flag) : flag_(flag) {}
  /*!
   * \brief The field binds free variables (compared by position, not identity),
   *        in its value and everything below it.
   */
  static AttachFieldFlag SEqHashDef() { return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashDef); }
  /*! \brief Upstream 0.1.14's name for the same bit (a recursive def region). */
  static AttachFieldFlag SEqHashDefRecursive() { return SEqHashDef(); }
  /*!
   * \brief The field binds a free variable met directly in its value, but
   *        what that variable's own fields reach are uses (a let-style binding).
   */
  static AttachFieldFlag SEqHashDefNonRecursive() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive);
  }
  /*! \brief Upstream 0.1.15's name of SEqHashDefRecursive (a pattern def region). */
  static AttachFieldFlag SEqHashDefPattern() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashDefPattern);
  }
  /*! \brief Upstream 0.1.15's name of SEqHashDefNonRecursive (a simple def region). */
  static AttachFieldFlag SEqHashDefSimple() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashDefSimple);
  }
  /*! \brief The field is skipped by StructuralEqual and StructuralHash. */
  static AttachFieldFlag SEqHashIgnore() {
    return AttachFieldFlag(kTVMFFIFieldFlagBitMaskSEqHashIgnore);
  }
  void Apply(TVMFFIFieldInfo* info) const { info->flags |= flag_; }

 private:
  int32_t flag_;
};

namespace detail {
/*! \brief A field trait `name(bool on)` that sets OffFlag when off. */
template <int32_t OffFlag>
class FieldSwitch : public InfoTrait {
 public:
  explicit FieldSwitch(bool on) : on_(on) {}
  void Apply(TVMFFIFieldInfo* info) const {
    if (!on_) info->flags |= OffFlag;
  }

 private:
  bool on_;
};
}  // namespace detail

/*! \brief repr(false) keeps a field out of the printed form. */
class repr : public detail::FieldSwitch<kTVMFFIFieldFlagBitMaskReprOff> {
  using FieldSwitch::FieldSwitch;
};
/*! \brief compare(false) keeps a field out of the reflection-based comparisons. */
class compare : public detail::FieldSwitch<kTVMFFIFieldFlagBitMaskCompareOff> {
  using FieldSwitch::FieldSwitch;
};
/*! \brief hash(false) keeps a field out of the reflection-based hash. */
class hash : public detail::FieldSwitch<kTVMFFIFieldFlagBitMaskHashOff> {
  using FieldSwitch::FieldSwitch;
};
/*! \brief kw_only(true): the generated `__ffi_init__` takes the field by keyword only. */
class kw_only : public InfoTrait {
 public:
  explicit kw_only(bool on) : on_(on) {}
  void Apply(TVMFFIFieldInfo* info) const {
    if (on_) info->flags |= kTVMFFIFieldFlagBitMaskKwOnly;
  }

 private:
  bool on_;
};

/*!
 * \brief init<Args...>() passed to ObjectDef::def registers the constructor:
 *        the static method and the type attribute `__ffi_init__`, both
 *        calling make_object<T>(Args...).
 */
template <typename... Args>
struct init {};

/*!
 * \brief init<>: with no argument, a zero-argument constructor for
 *        ObjectDef::def; `init(false)` as a field trait leaves the field out
 *        of the generated `__ffi_init__` (kTVMFFIFieldFlagBitMaskInitOff), and
 *        given to ObjectDef's constructor, asks for no generated
 *        `__ffi_init__` at all.
 */
template <>
struct init<> : public InfoTrait {
  constexpr init() noexcept = default;
  explicit init(bool include_in_init) : include(include_in_init) {}
  void Apply(TVMFFIFieldInfo* info) const {
    if (!include) info->flags |= kTVMFFIFieldFlagBitMaskInitOff;
  }
  bool include = true;
};
init(bool)->init<>;

/*!
 * \brief The byte offset of a member from the start of the object (= its
 *        TVMFFIObject header, which Object is).
 */
template <typename Class, typename T>
inline int64_t GetFieldByteOffsetToObject(T Class::*field) {
  // Measured on uninitialised storage (only addresses are taken): Object has
  // no virtual functions, so Class's layout is fixed at compile time.
  alignas(Class) unsigned char storage[sizeof(Class)];
  const Class* obj = reinterpret_cast<const Class*>(storage);
  const char* base = reinterpret_cast<const char*>(static_cast<const Object*>(obj));
  const char* member = reinterpret_cast<const char*>(&(obj->*field));
  return static_cast<int64_t>(member - base);
}

namespace detail {

using ::tvm::ffi::detail::always_false_v;
using ::tvm::ffi::detail::AppendJSONString;
using ::tvm::ffi::detail::FunctionInfo;
using ::tvm::ffi::detail::MetadataTypeSchema;
using ::tvm::ffi::detail::remove_cvref_t;

template <typename T, typename = void>
struct HasFieldStaticTypeIndex : std::false_type {};
template <typename T>
struct HasFieldStaticTypeIndex<T, std::void_t<decltype(TypeTraits<T>::field_static_type_index)>>
    : std::true_type {};

/*! \brief The static type index a field of type T declares (an enum is an int; else kTVMFFIAny). */
template <typename T>
constexpr int32_t FieldStaticTypeIndex() {
  if constexpr (std::is_enum_v<T>) {
    return TypeIndex::kTVMFFIInt;
  } else if constexpr (HasFieldStaticTypeIndex<T>::value) {
    return TypeTraits<T>::field_static_type_index;
  } else {
    return TypeIndex::kTVMFFIAny;
  }
}

/*! \brief The type schema of a field of type T (an enum is an int). */
template <typename T>
inline std::string FieldTypeSchema() {
  if constexpr (std::is_enum_v<T>) {
    return MetadataTypeSchema<int64_t>();
  } else {
    return MetadataTypeSchema<T>();
  }
}

/*! \brief A callable type's schema, as TypedFunction<FType>::TypeSchema(). */
template <typename FType>
struct FunctionTypeSchema;
template <typename R, typename... Args>
struct FunctionTypeSchema<R(Args...)> {
  static std::string Get() {
    return ::tvm::ffi::detail::CallableTypeSchema<R, Args...>("ffi.Function");
  }
};

/*! \brief Pieces of a field or method info collected before the C record is filled. */
struct InfoExtras {
  const char* doc = "";
  std::vector<std::pair<String, Any>> metadata;

  /*! \brief The metadata as a JSON object; values must be int, bool, float or string. */
  std::string MetadataJSON() const {
    std::string out = "{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      const auto& [key, value] = metadata[i];
      if (i != 0) out += ",";
      AppendJSONString(&out, std::string_view(key.data(), key.size()));
      out += ":";
      // The type index is checked: read the cell (no cast<> to instantiate).
      const TVMFFIAny* cell = ::tvm::ffi::detail::AnyUnsafe::TVMFFIAnyPtrFromAny(value);
      switch (cell->type_index) {
        case TypeIndex::kTVMFFIBool:
          out += cell->v_int64 != 0 ? "true" : "false";
          break;
        case TypeIndex::kTVMFFIInt:
          out += std::to_string(cell->v_int64);
          break;
        case TypeIndex::kTVMFFIFloat:
          out += std::to_string(cell->v_float64);
          break;
        default:
          if (std::optional<String> text = value.try_cast<String>()) {
            AppendJSONString(&out, std::string_view(text->data(), text->size()));
            break;
          }
          TVM_FFI_THROW(TypeError)
              << "Metadata `" << key << "`: a value must be int, bool, float or str, not "
              << value.GetTypeKey();
      }
    }
    return out + "}";
  }
};

/*! \brief Apply one extra argument of def*(): docstring, Metadata or an InfoTrait with Apply. */
template <typename Info, typename Extra>
inline void ApplyExtra(Info* info, InfoExtras* extras, const Extra& extra) {
  using E = remove_cvref_t<Extra>;
  if constexpr (std::is_same_v<E, Metadata>) {
    extras->metadata.insert(extras->metadata.end(), extra.entries().begin(), extra.entries().end());
  } else if constexpr (std::is_convertible_v<const E&, const char*>) {
    extras->doc = static_cast<const char*>(extra);
  } else if constexpr (std::is_base_of_v<InfoTrait, E>) {
    static_assert(std::is_same_v<Info, TVMFFIFieldInfo>,
                  "DefaultValue, DefaultFactory, AttachFieldFlag and repr apply to fields only");
    extra.Apply(info);
  } else {
    static_assert(always_false_v<E>,
                  "extra arguments must be a docstring (const char*), Metadata or an InfoTrait");
  }
}

/*! \brief A member function pointer made into a callable taking `self` first. */
template <typename Class, typename R, typename... Args>
inline auto MemberAsFree(R (Class::*fn)(Args...)) {
  static_assert(std::is_base_of_v<Object, Class> || std::is_base_of_v<ObjectRef, Class>,
                "a method must belong to an Object or an ObjectRef class");
  if constexpr (std::is_base_of_v<ObjectRef, Class>) {
    return [fn](Class self, Args... args) -> R { return (self.*fn)(std::forward<Args>(args)...); };
  } else {
    return [fn](const Class* self, Args... args) -> R {
      return (const_cast<Class*>(self)->*fn)(std::forward<Args>(args)...);
    };
  }
}
template <typename Class, typename R, typename... Args>
inline auto MemberAsFree(R (Class::*fn)(Args...) const) {
  static_assert(std::is_base_of_v<Object, Class> || std::is_base_of_v<ObjectRef, Class>,
                "a method must belong to an Object or an ObjectRef class");
  if constexpr (std::is_base_of_v<ObjectRef, Class>) {
    return [fn](const Class& self, Args... args) -> R {
      return (self.*fn)(std::forward<Args>(args)...);
    };
  } else {
    return [fn](const Class* self, Args... args) -> R {
      return (self->*fn)(std::forward<Args>(args)...);
    };
  }
}

/*! \brief A member function pointer as MemberAsFree; any other callable unchanged. */
template <typename Func>
inline auto AsFreeFunction(Func&& func) {
  using F = remove_cvref_t<Func>;
  if constexpr (std::is_member_function_pointer_v<F>) {
    return MemberAsFree(func);
  } else {
    return std::forward<Func>(func);
  }
}
/*! \brief A method info's pieces and the C call that registers it. */
template <typename Callable, typename... Extra>
inline void FillMethodInfo(TVMFFIMethodInfo* info, InfoExtras* extras, std::string* metadata,
                           const char* name, const Function& func, Extra&&... extra) {
  using FType = typename FunctionInfo<remove_cvref_t<Callable>>::FType;
  extras->metadata.emplace_back("type_schema", String(FunctionTypeSchema<FType>::Get()));
  (ApplyExtra(info, extras, extra), ...);
  *metadata = extras->MetadataJSON();
  info->name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
  info->doc = TVMFFIByteArray{extras->doc, std::char_traits<char>::length(extras->doc)};
  info->metadata = TVMFFIByteArray{metadata->data(), metadata->size()};
  info->method = AnyView(func).CopyToTVMFFIAny();
}

/*! \brief Set the type attribute `name` of `type_index` to `value`. */
inline void RegisterTypeAttr(int32_t type_index, const char* name, AnyView value) {
  TVMFFIByteArray key = AsByteArray(name);
  TVMFFIAny cell = value.CopyToTVMFFIAny();
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index, &key, &cell));
}

/*!
 * \brief Set a type attribute to a value (anything convertible to Any) or to a
 *        callable (wrapped as a Function named "<type_key>.<name>").
 */
template <typename Value>
inline void RegisterTypeAttrValueOrFunc(int32_t type_index, const char* type_key, const char* name,
                                        Value&& value) {
  if constexpr (std::is_convertible_v<Value&&, AnyView> ||
                std::is_convertible_v<remove_cvref_t<Value>, Any>) {
    RegisterTypeAttr(type_index, name, Any(std::forward<Value>(value)));
  } else {
    RegisterTypeAttr(type_index, name,
                     Function::FromTyped(AsFreeFunction(std::forward<Value>(value)),
                                         std::string(type_key) + "." + name));
  }
}

// def_convert<TSelf>() of a builder for Class: the `__ffi_convert__`
// attribute, AnyView -> TSelf (with TSelf's usual conversions), else a TypeError.
template <typename TSelf, typename Class>
void RegisterConvert(int32_t type_index, const char* type_key) {
  static_assert(std::is_same_v<typename TSelf::ContainerType, Class>,
                "def_convert<TSelf>: TSelf::ContainerType must be the registered class");
  RegisterTypeAttr(type_index, type_attr::kConvert,
                   Function::FromTyped([](AnyView value) -> TSelf { return value.cast<TSelf>(); },
                                       std::string(type_key) + "." + type_attr::kConvert));
}

}  // namespace detail

/*! \brief Builder that registers global functions (each def() registers at once). */
class GlobalDef {
 public:
  /*! \brief Register a typed function (see Function::FromTyped). */
  template <typename Func, typename... Extra>
  GlobalDef& def(const char* name, Func&& func, Extra&&... extra) {
    using F = detail::remove_cvref_t<Func>;
    Register<F>(name, Function::FromTyped(std::forward<Func>(func), std::string(name)),
                std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief Register a packed function `void(PackedArgs, Any*)`. */
  template <typename Func, typename... Extra>
  GlobalDef& def_packed(const char* name, Func func, Extra&&... extra) {
    Register<void>(name, Function::FromPacked(std::move(func)), std::forward<Extra>(extra)...);
    return *this;
  }
  /*!
   * \brief Register a member function as a global whose first argument is the
   *        object (a `const T*` for Object classes, the reference for ObjectRef
   *        classes); a free function registers as with def().
   */
  template <typename Func, typename... Extra>
  GlobalDef& def_method(const char* name, Func&& func, Extra&&... extra) {
    auto callable = detail::AsFreeFunction(std::forward<Func>(func));
    using F = decltype(callable);
    Register<F>(name, Function::FromTyped(std::move(callable), std::string(name)),
                std::forward<Extra>(extra)...);
    return *this;
  }

 private:
  template <typename Callable, typename... Extra>
  static void Register(const char* name, const Function& func, Extra&&... extra) {
    TVMFFIMethodInfo info{};
    detail::InfoExtras extras;
    std::string metadata;
    if constexpr (std::is_void_v<Callable>) {
      // A packed function's schema is a plain Function (its signature is unknown), as upstream.
      extras.metadata.emplace_back("type_schema", String(R"({"type":"ffi.Function"})"));
      (detail::ApplyExtra(&info, &extras, extra), ...);
      metadata = extras.MetadataJSON();
      info.name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
      info.doc = TVMFFIByteArray{extras.doc, std::char_traits<char>::length(extras.doc)};
      info.metadata = TVMFFIByteArray{metadata.data(), metadata.size()};
      info.method = AnyView(func).CopyToTVMFFIAny();
    } else {
      detail::FillMethodInfo<Callable>(&info, &extras, &metadata, name, func, extra...);
    }
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0));
  }
};

/*!
 * \brief Registers the reflection of object type `Class`: its metadata (creator,
 *        size, structural kind) when constructed, then each field and method
 *        as def_ro/def_rw/def/def_static are called.
 *
 * The creator is make_object<Class>() when Class is default constructible,
 * else make_object<Class>(UnsafeInit{}) when that exists (ObjectCreator and
 * the JSON/graph tools need it); a copy-constructible Class also gets the
 * `__ffi_shallow_copy__` type attribute (DeepCopy uses it). `def_rw` needs a
 * class declared mutable (`_type_mutable = true`). Each ObjectDef<T>(...)
 * re-registers T's metadata; a field or type attribute registered twice is
 * an error.
 */
template <typename Class>
class ObjectDef {
 public:
  /*!
   * \param extra An optional docstring of the type, and init(false) to ask for
   *        no generated `__ffi_init__`.
   */
  template <typename... Extra>
  explicit ObjectDef(Extra&&... extra)
      : type_index_(Class::_GetOrAllocRuntimeTypeIndex()), type_key_(Class::_type_key) {
    static_assert(((std::is_convertible_v<Extra, const char*> ||
                    std::is_same_v<detail::remove_cvref_t<Extra>, init<>>)&&...),
                  "ObjectDef: extra arguments must be a docstring (const char*) or init(false)");
    const char* doc = "";
    (TakeTypeExtra(&doc, extra), ...);
    TVMFFITypeMetadata md{};
    md.doc = TVMFFIByteArray{doc, std::char_traits<char>::length(doc)};
    md.creator = nullptr;
    if constexpr (std::is_default_constructible_v<Class> ||
                  std::is_constructible_v<Class, UnsafeInit>) {
      md.creator = &CreateDefault;
    }
    md.total_size = static_cast<int32_t>(sizeof(Class));
    md.structural_eq_hash_kind = Class::_type_s_eq_hash_kind;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMetadata(type_index_, &md));
    if constexpr (std::is_copy_constructible_v<Class>) RegisterShallowCopy();
    RegisterTypeFinal();
  }

  /*! \brief A read-only field; extras: docstring, Metadata, DefaultValue, ... */
  template <typename T, typename Base, typename... Extra>
  ObjectDef& def_ro(const char* name, T Base::*field, Extra&&... extra) {
    RegisterField(name, field, false, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A writable field (the class must be declared mutable). */
  template <typename T, typename Base, typename... Extra>
  ObjectDef& def_rw(const char* name, T Base::*field, Extra&&... extra) {
    static_assert(Class::_type_mutable, "def_rw needs a class with _type_mutable = true");
    RegisterField(name, field, true, std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A method; a member function takes the object as argument 0. */
  template <typename Func, typename... Extra>
  ObjectDef& def(const char* name, Func&& func, Extra&&... extra) {
    RegisterMethod(name, false, std::forward<Func>(func), std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A static method (kTVMFFIFieldFlagBitMaskIsStaticMethod). */
  template <typename Func, typename... Extra>
  ObjectDef& def_static(const char* name, Func&& func, Extra&&... extra) {
    RegisterMethod(name, true, std::forward<Func>(func), std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief A type attribute of Class, as TypeAttrDef::def. */
  template <typename Value>
  ObjectDef& def_type_attr(const char* name, Value&& value) {
    detail::RegisterTypeAttrValueOrFunc(type_index_, type_key_, name, std::forward<Value>(value));
    return *this;
  }
  /*! \brief The `__ffi_convert__` type attribute: a Function AnyView -> TSelf. */
  template <typename TSelf>
  ObjectDef& def_convert() {
    detail::RegisterConvert<TSelf, Class>(type_index_, type_key_);
    return *this;
  }
  /*!
   * \brief Unless Class has its own constructor (def(init<...>), init(false),
   *        or an `__ffi_init__` set already), register the generated
   *        `__ffi_init__` (the runtime's ffi._RegisterFFIInit): it takes the
   *        fields without init(false) positionally (required ones first, in
   *        order; kw_only fields excluded) or, after the ffi.GetKwargsObject
   *        marker, as name/value pairs; fields not given take their defaults.
   */
  ~ObjectDef() noexcept(false) {
    // Not while an error from the chain unwinds: a second throw would terminate.
    if (!auto_init_ || std::uncaught_exceptions() > uncaught_at_start_) return;
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index_);
    const TVMFFITypeMetadata* md = ::tvm::ffi::detail::TypeMetadataOf(info);
    if (md == nullptr || md->creator == nullptr) return;
    TVMFFIByteArray key = AsByteArray(type_attr::kInit);
    if (TVMFFIGetTypeAttrColumn(&key) != nullptr &&
        TypeAttrColumn(type_attr::kInit)[type_index_] != nullptr) {
      return;
    }
    if (Optional<Function> reg = Function::GetGlobal("ffi._RegisterFFIInit")) {
      (*reg)(type_index_);
    }
  }
  ObjectDef(const ObjectDef&) = delete;
  ObjectDef& operator=(const ObjectDef&) = delete;

  /*! \brief The constructor: static method and type attribute `__ffi_init__` (upstream's names). */
  template <typename... Args, typename... Extra>
  ObjectDef& def(init<Args...>, Extra&&... extra) {
    auto_init_ = false;
    auto make = [](Args... args) -> ObjectRef {
      return ObjectRef(make_object<Class>(std::forward<Args>(args)...));
    };
    RegisterMethod(type_attr::kInit, true, make, std::forward<Extra>(extra)...);
    detail::RegisterTypeAttr(
        type_index_, type_attr::kInit,
        Function::FromTyped(make, std::string(type_key_) + "." + type_attr::kInit));
    return *this;
  }

 private:
  template <typename Extra>
  void TakeTypeExtra(const char** doc, const Extra& extra) {
    if constexpr (std::is_same_v<detail::remove_cvref_t<Extra>, init<>>) {
      if (!extra.include) auto_init_ = false;
    } else {
      *doc = static_cast<const char*>(extra);
    }
  }

  static int CreateDefault(TVMFFIObjectHandle* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    ObjectPtr<Class> obj;
    if constexpr (std::is_default_constructible_v<Class>) {
      obj = make_object<Class>();
    } else {
      // Fields left for the caller to set (ObjectCreator, deserialisers).
      obj = make_object<Class>(UnsafeInit{});
    }
    *result = ::tvm::ffi::detail::ObjectUnsafe::MoveObjectPtrToTVMFFIObjectPtr(std::move(obj));
    TVM_FFI_SAFE_CALL_END();
  }

  // `__ffi_shallow_copy__` (DeepCopy's per-object step), once per type.
  // `__ffi_type_final__` (upstream 0.1.15): whether the class admits no
  // subclass, for readers that dispatch on exact type. Once per type.
  void RegisterTypeFinal() {
    TVMFFIByteArray key = AsByteArray(type_attr::kTypeFinal);
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&key);
    if (column != nullptr && TypeAttrColumn(type_attr::kTypeFinal)[type_index_] != nullptr) return;
    detail::RegisterTypeAttr(type_index_, type_attr::kTypeFinal, Class::_type_final);
  }

  void RegisterShallowCopy() {
    TVMFFIByteArray key = AsByteArray(type_attr::kShallowCopy);
    const TVMFFITypeAttrColumn* column = TVMFFIGetTypeAttrColumn(&key);
    if (column != nullptr && TypeAttrColumn(type_attr::kShallowCopy)[type_index_] != nullptr)
      return;
    detail::RegisterTypeAttr(
        type_index_, type_attr::kShallowCopy,
        Function::FromTyped(
            [](const Class* self) -> ObjectRef { return ObjectRef(make_object<Class>(*self)); },
            std::string(type_key_) + "." + type_attr::kShallowCopy));
  }

  template <typename T>
  static int GetField(void* field, TVMFFIAny* result) {
    TVM_FFI_SAFE_CALL_BEGIN();
    Any value;
    if constexpr (std::is_enum_v<T>) {
      value = static_cast<int64_t>(*static_cast<T*>(field));
    } else {
      value = *static_cast<T*>(field);
    }
    *result = ::tvm::ffi::detail::AnyUnsafe::MoveAnyToTVMFFIAny(std::move(value));
    TVM_FFI_SAFE_CALL_END();
  }

  template <typename T>
  static int SetField(void* field, const TVMFFIAny* value) {
    TVM_FFI_SAFE_CALL_BEGIN();
    if constexpr (std::is_same_v<T, Any>) {
      *static_cast<T*>(field) = AnyView::CopyFromTVMFFIAny(*value);
    } else if constexpr (std::is_enum_v<T>) {
      *static_cast<T*>(field) = static_cast<T>(AnyView::CopyFromTVMFFIAny(*value).cast<int64_t>());
    } else {
      *static_cast<T*>(field) = AnyView::CopyFromTVMFFIAny(*value).cast<T>();
    }
    TVM_FFI_SAFE_CALL_END();
  }

  template <typename T, typename Base, typename... Extra>
  void RegisterField(const char* name, T Base::*field, bool writable, Extra&&... extra) {
    static_assert(std::is_base_of_v<Base, Class>, "the field must belong to Class or a base");
    TVMFFIFieldInfo info{};
    detail::InfoExtras extras;
    extras.metadata.emplace_back("type_schema", String(detail::FieldTypeSchema<T>()));
    info.flags = writable ? kTVMFFIFieldFlagBitMaskWritable : 0;
    info.default_value_or_factory = AnyView().CopyToTVMFFIAny();
    (detail::ApplyExtra(&info, &extras, extra), ...);
    std::string metadata = extras.MetadataJSON();
    info.name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
    info.doc = TVMFFIByteArray{extras.doc, std::char_traits<char>::length(extras.doc)};
    info.metadata = TVMFFIByteArray{metadata.data(), metadata.size()};
    info.size = static_cast<int64_t>(sizeof(T));
    info.alignment = static_cast<int64_t>(alignof(T));
    info.offset = GetFieldByteOffsetToObject<Class, T>(field);
    info.getter = &GetField<T>;
    info.setter = &SetField<T>;
    info.field_static_type_index = detail::FieldStaticTypeIndex<T>();
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterField(type_index_, &info));
  }

  template <typename Func, typename... Extra>
  void RegisterMethod(const char* name, bool is_static, Func&& func, Extra&&... extra) {
    auto callable = detail::AsFreeFunction(std::forward<Func>(func));
    using F = decltype(callable);
    Function method = Function::FromTyped(std::move(callable), std::string(type_key_) + "." + name);
    TVMFFIMethodInfo info{};
    detail::InfoExtras extras;
    std::string metadata;
    detail::FillMethodInfo<F>(&info, &extras, &metadata, name, method, extra...);
    info.flags = is_static ? kTVMFFIFieldFlagBitMaskIsStaticMethod : 0;
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterMethod(type_index_, &info));
  }

  int32_t type_index_;
  const char* type_key_;
  bool auto_init_ = true;
  int uncaught_at_start_ = std::uncaught_exceptions();
};

/*!
 * \brief Registers type attributes of `Class` (one column per name; setting
 *        the same attribute of a type twice is a ValueError).
 */
template <typename Class, typename = std::enable_if_t<std::is_base_of_v<Object, Class>>>
class TypeAttrDef {
 public:
  TypeAttrDef() : type_index_(Class::_GetOrAllocRuntimeTypeIndex()), type_key_(Class::_type_key) {}

  /*! \brief A value (anything convertible to Any) or a callable (wrapped as a Function). */
  template <typename Value>
  TypeAttrDef& def(const char* name, Value&& value) {
    detail::RegisterTypeAttrValueOrFunc(type_index_, type_key_, name, std::forward<Value>(value));
    return *this;
  }
  /*! \brief The `__ffi_convert__` type attribute: a Function AnyView -> TSelf. */
  template <typename TSelf>
  TypeAttrDef& def_convert() {
    detail::RegisterConvert<TSelf, Class>(type_index_, type_key_);
    return *this;
  }
  /*! \brief A constant value. */
  template <typename T>
  TypeAttrDef& attr(const char* name, T value) {
    detail::RegisterTypeAttr(type_index_, name, Any(std::move(value)));
    return *this;
  }
  /*! \brief A value of the key's declared type T (`value` is converted to T first). */
  template <typename T, typename Value>
  TypeAttrDef& attr(AttrKey<T> key, Value&& value) {
    T typed(std::forward<Value>(value));
    detail::RegisterTypeAttr(type_index_, key.name, Any(std::move(typed)));
    return *this;
  }
  /*!
   * \brief The native hook `Fn` under a key whose type is a NativeFunctionView
   *        (reflection/native_function.h): its adapter pointer is stored.
   */
  template <auto Fn, typename T>
  TypeAttrDef& native_fn_attr(AttrKey<T> key) {
    return attr(key, T::template FromNative<Fn>());
  }

 private:
  int32_t type_index_;
  const char* type_key_;
};

/*! \brief Make sure the type attribute column `name` exists, even if no type sets it. */
inline void EnsureTypeAttrColumn(std::string_view name) {
  TVMFFIByteArray key{name.data(), name.size()};
  TVMFFIAny none = AnyView().CopyToTVMFFIAny();
  TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(kTVMFFINone, &key, &none));
}
/*! \brief Make sure the column a typed key names exists. */
template <typename T>
inline void EnsureTypeAttrColumn(AttrKey<T> key) {
  EnsureTypeAttrColumn(std::string_view(key.name));
}

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_REGISTRY_H_

/*
 * tvmffi C++ layer (opt-in): reflection::EnumDef, which registers one
 * singleton of an enum class (see <tvm/ffi/enum.h>).
 *
 *   refl::EnumDef<ColorObj>("Red").set_attr("rgb", int64_t{0xff0000});
 *   refl::EnumDef<PriorityObj>("High", 10);   // PriorityObj derives IntEnumObj
 *
 * A plain or StrEnum singleton takes the next integer index (its position in
 * registration order); an IntEnum singleton must be given its integer. A name
 * or integer registered twice for the same class is a ValueError. The first
 * EnumDef of a class sets its `__ffi_enum__` type attribute to a new
 * ffi.EnumState, later ones add to that state.
 */
#ifndef TVM_FFI_REFLECTION_ENUM_DEF_H_
#define TVM_FFI_REFLECTION_ENUM_DEF_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace tvm {
namespace ffi {
namespace reflection {

/*! \brief Registers one singleton of the enum class EnumClsObj (at construction). */
template <typename EnumClsObj, typename = std::enable_if_t<std::is_base_of_v<EnumObj, EnumClsObj>>>
class EnumDef {
 public:
  /*! \brief A singleton named `str_index`; its integer index is the number registered before it. */
  explicit EnumDef(const char* str_index) : type_index_(EnumClsObj::_GetOrAllocRuntimeTypeIndex()) {
    static_assert(!std::is_base_of_v<IntEnumObj, EnumClsObj>,
                  "an IntEnum singleton needs its integer: EnumDef(name, int_index)");
    EnumState state = State();
    Add(state, static_cast<int64_t>(state->entries.size()), String(str_index));
  }

  /*! \brief An IntEnum singleton named `str_index` with integer index `int_index`. */
  EnumDef(const char* str_index, int64_t int_index)
      : type_index_(EnumClsObj::_GetOrAllocRuntimeTypeIndex()) {
    static_assert(std::is_base_of_v<IntEnumObj, EnumClsObj>,
                  "only an IntEnum singleton takes an explicit integer index");
    Add(State(), int_index, String(str_index));
  }

  /*! \brief Set attribute `attr_name` of this singleton (EnumState::attrs). */
  template <typename T>
  EnumDef& set_attr(const char* attr_name, T value) {
    Dict<String, Dict<ObjectRef, Any>> attrs = State()->attrs;
    String name(attr_name);
    // Dicts are shared references: filling `column` fills the stored one.
    Dict<ObjectRef, Any> column = attrs.Get(name).value_or(Dict<ObjectRef, Any>());
    if (attrs.count(name) == 0) attrs.Set(name, column);
    column.Set(instance_, Any(std::move(value)));
    return *this;
  }
  /*! \brief Set the attribute a typed key names to a value of its type T. */
  template <typename T, typename Value>
  EnumDef& set_attr(AttrKey<T> key, Value&& value) {
    return set_attr(key.name, T(std::forward<Value>(value)));
  }
  /*!
   * \brief Whether EnumClsObj has a singleton named `str_index` (exact, case
   *        sensitive); creates nothing (upstream 0.1.15).
   */
  static bool IsDefined(const String& str_index) {
    AnyView existing =
        TypeAttrColumn(type_attr::kEnumState)[EnumClsObj::_GetOrAllocRuntimeTypeIndex()];
    if (existing == nullptr) return false;
    std::optional<EnumState> state = existing.as<EnumState>();
    return state.has_value() && (*state)->indexes.count(Any(str_index)) != 0;
  }
  /*! \brief Set a native hook `Fn` under a NativeFunctionView-typed key (see TypeAttrDef). */
  template <auto Fn, typename T>
  EnumDef& set_native_fn_attr(AttrKey<T> key) {
    return set_attr(key, T::template FromNative<Fn>());
  }

 private:
  // The class's state, created and stored as its type attribute on first use.
  EnumState State() const {
    TypeAttrColumn column(type_attr::kEnumState);
    AnyView existing = column[type_index_];
    if (existing != nullptr) {
      if (auto state = existing.as<EnumState>()) return *state;
      TVM_FFI_THROW(TypeError) << "type attribute " << type_attr::kEnumState << " of `"
                               << EnumClsObj::_type_key << "` is a `" << existing.GetTypeKey()
                               << "`, not an ffi.EnumState";
    }
    EnumState state(make_object<EnumStateObj>());
    TVMFFIByteArray name = AsByteArray(type_attr::kEnumState);
    TVMFFIAny value = AnyView(state).CopyToTVMFFIAny();
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeRegisterAttr(type_index_, &name, &value));
    return state;
  }

  void Add(const EnumState& state, int64_t int_index, String str_index) {
    Dict<Any, ObjectRef> indexes = state->indexes;
    if (indexes.count(Any(int_index)) != 0 || indexes.count(Any(str_index)) != 0) {
      TVM_FFI_THROW(ValueError) << "enum `" << EnumClsObj::_type_key
                                << "` already has an instance `" << str_index
                                << "` or an instance with index " << int_index;
    }
    ObjectPtr<EnumClsObj> obj = make_object<EnumClsObj>();
    obj->_int_index = int_index;
    obj->_str_index = str_index;
    instance_ = Enum(ObjectPtr<EnumObj>(std::move(obj)));
    List<ObjectRef> entries = state->entries;
    entries.push_back(instance_);
    indexes.Set(Any(int_index), instance_);
    indexes.Set(Any(std::move(str_index)), instance_);
  }

  int32_t type_index_;
  Enum instance_;
};

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_REFLECTION_ENUM_DEF_H_

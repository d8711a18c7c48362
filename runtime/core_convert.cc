/*
 * The `__ffi_convert__` type attribute of the runtime's own object types
 * (ffi.Object, ffi.Function, ffi.Error, ffi.String, ffi.Bytes, ffi.Array,
 * ffi.List, ffi.Map, ffi.Dict, ffi.Shape, ffi.Tensor), as `.ref<T>()` gives it
 * to a reflected class: a Function AnyView -> T with T's usual conversions,
 * else a TypeError "Cannot cast from `X` to `T`". Converters that meet a value
 * of another type (the Python package's type schemas) call it before they
 * give up; ffi.Shape takes an ffi.Array or ffi.List of ints as well.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdio>
#include <string>

#include "registration.h"

namespace tvm {
namespace ffi {
namespace {

[[noreturn]] void CannotCast(AnyView value, const char* target) {
  TVM_FFI_THROW(TypeError) << "Cannot cast from `" << value.GetTypeKey() << "` to `" << target
                           << "`";
}

template <typename T>
void RegisterConvertOf(int32_t type_index, const char* type_key) {
  reflection::detail::RegisterTypeAttr(
      type_index, reflection::type_attr::kConvert,
      Function::FromTyped(
          [type_key](AnyView value) -> T {
            if (std::optional<T> out = value.try_cast<T>()) return *std::move(out);
            CannotCast(value, type_key);
          },
          std::string(type_key) + "." + reflection::type_attr::kConvert));
}

Shape ShapeFromAny(AnyView value) {
  const TVMFFIAny* cell = reinterpret_cast<const TVMFFIAny*>(&value);
  if (cell->type_index == TypeIndex::kTVMFFIShape) return value.cast<Shape>();
  if (cell->type_index == TypeIndex::kTVMFFIArray || cell->type_index == TypeIndex::kTVMFFIList) {
    ObjectPtr<ShapeObj> p = detail::MakeShapeFromIntSeq(cell->v_obj);
    if (p != nullptr) return Shape(std::move(p));
  }
  CannotCast(value, "ffi.Shape");
}

void RegisterCoreConverts() noexcept {
  try {
    reflection::EnsureTypeAttrColumn(reflection::type_attr::kConvert);
    RegisterConvertOf<ObjectRef>(TypeIndex::kTVMFFIObject, "ffi.Object");
    RegisterConvertOf<Function>(TypeIndex::kTVMFFIFunction, "ffi.Function");
    RegisterConvertOf<Error>(TypeIndex::kTVMFFIError, "ffi.Error");
    RegisterConvertOf<String>(TypeIndex::kTVMFFIStr, "ffi.String");
    RegisterConvertOf<Bytes>(TypeIndex::kTVMFFIBytes, "ffi.Bytes");
    RegisterConvertOf<Array<Any>>(TypeIndex::kTVMFFIArray, "ffi.Array");
    RegisterConvertOf<List<Any>>(TypeIndex::kTVMFFIList, "ffi.List");
    RegisterConvertOf<Map<Any, Any>>(TypeIndex::kTVMFFIMap, "ffi.Map");
    RegisterConvertOf<Dict<Any, Any>>(TypeIndex::kTVMFFIDict, "ffi.Dict");
    RegisterConvertOf<Tensor>(TypeIndex::kTVMFFITensor, "ffi.Tensor");
    reflection::detail::RegisterTypeAttr(
        TypeIndex::kTVMFFIShape, reflection::type_attr::kConvert,
        Function::FromTyped(&ShapeFromAny,
                            std::string("ffi.Shape.") + reflection::type_attr::kConvert));
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register __ffi_convert__ of the core types: %s",
                  e.what());
    tvmffi::rt::RecordLoadFailure(what);
  }
}

[[maybe_unused]] const bool kCoreConvertsRegistered = [] {
  RegisterCoreConverts();
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm

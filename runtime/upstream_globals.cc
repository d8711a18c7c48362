/*
 * Built-in globals that apache/tvm-ffi 0.1.15 registers and that the rest of
 * the runtime had no home for (issue #39; the module ones are in module.cc):
 *   ffi.GetRegisteredTypeKeys() -> Array<str>: every type key, by type index
 *   ffi._TypeIndexEnd() -> int: one past the highest dynamic type index given
 *       out (tvmffi's own; the table has gaps: reserved child slots)
 *   ffi.GetInvalidObject() -> the sentinel ffi.MapGetItemOrMissing returns
 *   ffi.ListReserve(list, capacity)                   (capacity >= 0)
 *   ffi.ContainerFindFirstNonCPUDevice(value) -> Device: the device of the
 *       first non-CPU Tensor met depth first through Array / List / Map / Dict
 *       values (Map keys are not searched, as upstream), else cpu:0
 *   ffi.MakeObjectFromPackedArgs(type, name0, value0, ...) -> Object: a
 *       reflected type (index or key) made empty by its creator, its fields
 *       (inherited ones first) set from the named values or their defaults
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>

#include <string>
#include <vector>

#include "builtin_def.h"
#include "internal.h"

namespace tvm {
namespace ffi {
namespace {

bool FindFirstNonCPUDevice(const AnyView& value, DLDevice* out) {
  switch (value.type_index()) {
    case TypeIndex::kTVMFFITensor: {
      const DLDevice& dev = value.as<TensorObj>()->device;
      if (dev.device_type == kDLCPU) return false;
      *out = dev;
      return true;
    }
    case TypeIndex::kTVMFFIArray:
    case TypeIndex::kTVMFFIList:
      for (const Any& item : *value.as<SeqBaseObj>()) {
        if (FindFirstNonCPUDevice(item, out)) return true;
      }
      return false;
    case TypeIndex::kTVMFFIMap:
    case TypeIndex::kTVMFFIDict:
      for (const auto& kv : *value.as<MapBaseObj>()) {
        if (FindFirstNonCPUDevice(kv.second, out)) return true;
      }
      return false;
    default:
      return false;
  }
}

void MakeObjectFromPackedArgs(PackedArgs args, Any* ret) {
  if (args.size() == 0 || args.size() % 2 != 1) {
    TVM_FFI_THROW(TypeError) << "ffi.MakeObjectFromPackedArgs takes a type (index or key) "
                             << "followed by name/value pairs; got " << args.size() << " arguments";
  }
  int32_t type_index;
  if (auto index = args[0].try_cast<int32_t>()) {
    type_index = *index;
  } else {
    String key = args[0].cast<String>();
    TVMFFIByteArray bytes{key.data(), key.size()};
    TVM_FFI_CHECK_SAFE_CALL(TVMFFITypeKeyToIndex(&bytes, &type_index));
  }
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) TVM_FFI_THROW(KeyError) << "no type with index " << type_index;
  std::vector<String> names;
  for (int i = 1; i < args.size(); i += 2) {
    auto name = args[i].try_cast<String>();
    if (!name.has_value()) {
      TVM_FFI_THROW(TypeError) << "ffi.MakeObjectFromPackedArgs: argument " << i
                               << " must be a field name (str), got " << args[i].GetTypeKey();
    }
    names.push_back(*name);
  }
  std::vector<bool> used(names.size(), false);
  ObjectPtr<Object> obj = CreateEmptyObject(info);
  auto fill = [&](const TVMFFITypeInfo* t) {
    for (int32_t f = 0; f < t->num_fields; ++f) {
      const TVMFFIFieldInfo* field = t->fields + f;
      void* addr = reinterpret_cast<char*>(obj.get()) + field->offset;
      size_t k = 0;
      while (k < names.size() && (used[k] || names[k].compare(field->name) != 0)) ++k;
      if (k < names.size()) {
        AnyView value = args[static_cast<int>(2 * k + 2)];
        TVM_FFI_CHECK_SAFE_CALL(
            reflection::CallFieldSetter(field, addr, reinterpret_cast<const TVMFFIAny*>(&value)));
        used[k] = true;
      } else if (field->flags & kTVMFFIFieldFlagBitMaskHasDefault) {
        reflection::SetFieldToDefault(field, addr);
      } else {
        TVM_FFI_THROW(TypeError) << "Required field `"
                                 << std::string(field->name.data, field->name.size)
                                 << "` not set in type `"
                                 << std::string(info->type_key.data, info->type_key.size) << "`";
      }
    }
  };
  for (int32_t depth = 1; depth < info->type_depth; ++depth) fill(info->type_ancestors[depth]);
  fill(info);
  for (size_t k = 0; k < names.size(); ++k) {
    if (!used[k]) {
      TVM_FFI_THROW(TypeError) << "Type `" << std::string(info->type_key.data, info->type_key.size)
                               << "` does not have field `" << names[k] << "`";
    }
  }
  *ret = ObjectRef(std::move(obj));
}

[[maybe_unused]] const bool kUpstreamGlobalsRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.GetInvalidObject",
           []() -> ObjectRef {
             return Function::GetGlobalRequired("ffi.MapGetMissingObject")().cast<ObjectRef>();
           })
      .def("ffi.ListReserve",
           [](const ListObj* list, int64_t capacity) -> void {
             if (capacity < 0) {
               TVM_FFI_THROW(ValueError)
                   << "ffi.ListReserve: capacity must be >= 0, got " << capacity;
             }
             // The caller's List itself (a List<Any> argument could be a converted copy).
             List<Any>(GetObjectPtr<Object>(const_cast<ListObj*>(list))).reserve(capacity);
           })
      .def("ffi.ContainerFindFirstNonCPUDevice",
           [](AnyView value) -> DLDevice {
             DLDevice dev{kDLCPU, 0};
             FindFirstNonCPUDevice(value, &dev);
             return dev;
           })
      .def_packed("ffi.MakeObjectFromPackedArgs", MakeObjectFromPackedArgs)
      .def("ffi._TypeIndexEnd", []() -> int64_t { return tvmffi::rt::TypeIndexEnd(); })
      .def("ffi.GetRegisteredTypeKeys", []() -> Array<String> {
        Array<String> out;
        for (const std::string& key : tvmffi::rt::RegisteredTypeKeys()) out.push_back(String(key));
        return out;
      });
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm

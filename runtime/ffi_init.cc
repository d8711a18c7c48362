/*
 * The generated constructor of reflected types (upstream's globals):
 *
 *   ffi.GetKwargsObject() -> Object   the marker that starts keyword arguments
 *   ffi._RegisterFFIInit(type_index)  sets the type's `__ffi_init__` attribute
 *
 * ObjectDef<T> calls ffi._RegisterFFIInit when T has no constructor of its
 * own. The generated `__ffi_init__(args...)` makes an object with the type's
 * creator and sets its reflected fields (inherited ones first):
 *   - positionally, the fields that are neither init(false) nor kw_only,
 *     those without a default first (each group in field order);
 *   - after the marker, as name, value pairs, any field that is not
 *     init(false);
 *   - any other field gets its default; a field without one is a TypeError
 *     ("missing required argument"), except init(false) fields, which keep
 *     what the creator left.
 * Too many positional arguments, an odd number of keyword items, an unknown
 * or repeated name, or a value the field does not accept are TypeErrors that
 * name the type and the field.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/creator.h>
#include <tvm/ffi/reflection/registry.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "builtin_def.h"
#include "internal.h"

namespace tvm {
namespace ffi {
namespace {

ObjectRef KwargsMarker() {
  // Leaked on purpose: callers may hold it past exit.
  static ObjectRef* marker = new ObjectRef(make_object<Object>());
  return *marker;
}

std::string_view Name(const TVMFFIByteArray& b) {
  return std::string_view(b.data, b.size);
}

struct InitPlan {
  struct Field {
    const TVMFFIFieldInfo* info;
    bool init;
    bool kw_only;
    bool has_default;
  };
  std::string type_key;
  const TVMFFITypeInfo* type_info;
  std::vector<Field> fields;
  std::vector<size_t> positional;  // indices into fields

  const Field* Find(std::string_view name, size_t* index) const {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].init && Name(fields[i].info->name) == name) {
        *index = i;
        return &fields[i];
      }
    }
    return nullptr;
  }
};

std::shared_ptr<InitPlan> MakePlan(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr)
    TVM_FFI_THROW(ValueError) << "ffi._RegisterFFIInit: unknown type index " << type_index;
  auto plan = std::make_shared<InitPlan>();
  plan->type_key = std::string(Name(info->type_key));
  plan->type_info = info;
  reflection::ForEachFieldInfo(info, [&](const TVMFFIFieldInfo* f) {
    plan->fields.push_back({f, (f->flags & kTVMFFIFieldFlagBitMaskInitOff) == 0,
                            (f->flags & kTVMFFIFieldFlagBitMaskKwOnly) != 0,
                            (f->flags & kTVMFFIFieldFlagBitMaskHasDefault) != 0});
  });
  for (size_t i = 0; i < plan->fields.size(); ++i) {
    if (plan->fields[i].init && !plan->fields[i].kw_only) plan->positional.push_back(i);
  }
  std::stable_partition(plan->positional.begin(), plan->positional.end(),
                        [&](size_t i) { return !plan->fields[i].has_default; });
  return plan;
}

// The setter's error, naming the type, `what` the value was and the field; the cause below.
[[noreturn]] void ThrowSetterError(const InitPlan& plan, const TVMFFIFieldInfo* f,
                                   const char* what) {
  Error cause = detail::MoveFromSafeCallRaised();
  // The cause on lines of its own, each indented by two spaces (upstream's layout).
  std::string text = cause.message();
  std::string indented = "  ";
  for (char c : text) {
    indented.push_back(c);
    if (c == '\n') indented.append("  ");
  }
  TVM_FFI_THROW(TypeError) << plan.type_key << ".__ffi_init__() " << what << " '" << Name(f->name)
                           << "':\n"
                           << indented;
}

void SetField(const InitPlan& plan, Object* obj, size_t index, const TVMFFIAny* value) {
  const TVMFFIFieldInfo* f = plan.fields[index].info;
  void* addr = reinterpret_cast<char*>(obj) + f->offset;
  if (reflection::CallFieldSetter(f, addr, value) != 0) ThrowSetterError(plan, f, "field");
}

// A default goes through the same setter as a passed value, and fails the same way.
void SetFieldToDefault(const InitPlan& plan, Object* obj, size_t index) {
  const TVMFFIFieldInfo* f = plan.fields[index].info;
  void* addr = reinterpret_cast<char*>(obj) + f->offset;
  if (reflection::CallFieldSetterToDefault(f, addr) != 0) {
    ThrowSetterError(plan, f, "default for field");
  }
}

Any Construct(const InitPlan& plan, const AnyView* args, int32_t num_args) {
  ObjectPtr<Object> obj = CreateEmptyObject(plan.type_info);
  // The fields are written at this type's offsets: the creator must have made one.
  if (obj == nullptr || obj->type_index() != plan.type_info->type_index) {
    TVM_FFI_THROW(TypeError) << plan.type_key << ".__ffi_init__(): the type's creator made "
                             << (obj == nullptr ? std::string("nothing")
                                                : "a `" + obj->GetTypeKey() + "`");
  }
  const ObjectRef marker = KwargsMarker();
  int32_t kw_at = num_args;
  for (int32_t i = 0; i < num_args; ++i) {
    if (args[i].type_index() >= TypeIndex::kTVMFFIStaticObjectBegin &&
        args[i].cast<const Object*>() == marker.get()) {
      kw_at = i;
      break;
    }
  }
  if (static_cast<size_t>(kw_at) > plan.positional.size()) {
    TVM_FFI_THROW(TypeError) << plan.type_key << ".__ffi_init__() takes at most "
                             << plan.positional.size() << " positional argument(s), but " << kw_at
                             << " were given";
  }
  std::vector<bool> set(plan.fields.size(), false);
  for (int32_t i = 0; i < kw_at; ++i) {
    TVMFFIAny cell = args[i].CopyToTVMFFIAny();
    SetField(plan, obj.get(), plan.positional[i], &cell);
    set[plan.positional[i]] = true;
  }
  if (kw_at < num_args) {
    if ((num_args - kw_at - 1) % 2 != 0) {
      TVM_FFI_THROW(TypeError)
          << plan.type_key << ".__ffi_init__() keyword arguments must come as name, value pairs";
    }
    for (int32_t i = kw_at + 1; i < num_args; i += 2) {
      std::optional<String> name = args[i].try_cast<String>();
      if (!name.has_value()) {
        TVM_FFI_THROW(TypeError) << plan.type_key << ".__ffi_init__() keyword argument names must "
                                 << "be strings, not " << args[i].GetTypeKey();
      }
      size_t index = 0;
      if (plan.Find(std::string_view(name->data(), name->size()), &index) == nullptr) {
        TVM_FFI_THROW(TypeError) << plan.type_key
                                 << ".__ffi_init__() got an unexpected keyword argument '" << *name
                                 << "'";
      }
      if (set[index]) {
        TVM_FFI_THROW(TypeError) << plan.type_key
                                 << ".__ffi_init__() got multiple values for argument '" << *name
                                 << "'";
      }
      TVMFFIAny cell = args[i + 1].CopyToTVMFFIAny();
      SetField(plan, obj.get(), index, &cell);
      set[index] = true;
    }
  }
  for (size_t i = 0; i < plan.fields.size(); ++i) {
    if (set[i]) continue;
    const InitPlan::Field& f = plan.fields[i];
    if (f.has_default) {
      SetFieldToDefault(plan, obj.get(), i);
    } else if (f.init) {
      TVM_FFI_THROW(TypeError) << plan.type_key << ".__ffi_init__() missing required "
                               << (f.kw_only ? "keyword-only " : "") << "argument: '"
                               << Name(f.info->name) << "'";
    }
  }
  ObjectRef result(std::move(obj));
  std::string problem = tvmffi::rt::CheckReconstructedObject(result);
  if (!problem.empty()) {
    TVM_FFI_THROW(ValueError) << plan.type_key << ".__ffi_init__(): " << problem;
  }
  return result;
}

void RegisterFFIInit(int32_t type_index) {
  std::shared_ptr<InitPlan> plan = MakePlan(type_index);
  Function init = Function::FromPacked(
      [plan](PackedArgs args, Any* rv) { *rv = Construct(*plan, args.data(), args.size()); });
  reflection::detail::RegisterTypeAttr(type_index, reflection::type_attr::kInit, init);
}

[[maybe_unused]] const bool kFFIInitRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.GetKwargsObject", []() { return KwargsMarker(); })
      .def("ffi._RegisterFFIInit", RegisterFFIInit);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm

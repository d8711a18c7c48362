/*
 * Storage of object types defined by another language at run time (the
 * Python package's `@py_class`): the language lays the fields out and
 * registers them; the runtime gives it the code that must not run in that
 * language (an object may die anywhere, e.g. while a Python exception is
 * pending):
 *
 *   ffi.MakeFieldGetter(static_index) -> int
 *       the address of a TVMFFIFieldGetter for a field stored as
 *       `static_index` says (see Storage below);
 *   ffi.MakeFieldSetter(static_index, token, f_convert) -> Function
 *       a field setter (kTVMFFIFieldFlagBitSetterIsFunctionObj: called with
 *       the field's address and the value) that converts the value through
 *       f_convert(token, value, result) (int (*)(void*, const TVMFFIAny*,
 *       TVMFFIAny*): 0 with an owned result, else -1 with an error raised),
 *       then stores it, releasing what was there;
 *   ffi._PyClassRegisterTypeAttrColumns(type_index, total_size) -> None
 *       `__ffi_new__` (a zeroed object of total_size bytes whose deleter
 *       releases the fields), `__ffi_shallow_copy__` and, when the type has
 *       none, `__ffi_init__` (the generated one, ffi._RegisterFFIInit).
 *
 * Storage, from a field's static type index (and size): kTVMFFIAny with 16
 * bytes is a TVMFFIAny (8 bytes: an object reference); an object index is an
 * object reference (TVMFFIObject*, may be null); int (int64), float (double),
 * bool (1 byte), opaque pointer, DLDataType and DLDevice are plain data.
 */
#include <tvm/ffi/any.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "builtin_def.h"

namespace tvm {
namespace ffi {
namespace {

enum class Storage { kPod, kAny, kRef };

Storage StorageOf(int32_t static_index, int64_t size) {
  if (static_index == TypeIndex::kTVMFFIAny) return size == 8 ? Storage::kRef : Storage::kAny;
  if (static_index >= TypeIndex::kTVMFFIStaticObjectBegin) return Storage::kRef;
  return Storage::kPod;
}

// Each field of the type, inherited ones first; an offset seen before (an
// alias of a field, e.g. an enum's `value`) once.
template <typename F>
void ForEachField(int32_t type_index, F visit) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) return;
  std::vector<int64_t> seen;
  auto walk = [&](const TVMFFITypeInfo* t) {
    for (int32_t i = 0; i < t->num_fields; ++i) {
      const TVMFFIFieldInfo& f = t->fields[i];
      bool dup = false;
      for (int64_t off : seen) dup = dup || off == f.offset;
      if (dup) continue;
      seen.push_back(f.offset);
      visit(f.offset, StorageOf(f.field_static_type_index, f.size), f.size);
    }
  };
  for (int32_t d = 0; d < info->type_depth; ++d) walk(info->type_ancestors[d]);
  walk(info);
}

void ReleaseSlot(char* addr, Storage kind) {
  if (kind == Storage::kAny) {
    TVMFFIAny* a = reinterpret_cast<TVMFFIAny*>(addr);
    if (a->type_index >= TypeIndex::kTVMFFIStaticObjectBegin && a->v_obj != nullptr) {
      TVMFFIObject* p = a->v_obj;
      ::tvm::ffi::detail::SetAnyNone(a);
      TVMFFIObjectDecRef(p);
    }
  } else if (kind == Storage::kRef) {
    void* p = nullptr;
    std::memcpy(&p, addr, sizeof(p));
    if (p != nullptr) {
      std::memset(addr, 0, sizeof(p));
      TVMFFIObjectDecRef(p);
    }
  }
}

void DeleteObject(void* self, int flags) {
  TVMFFIObject* obj = static_cast<TVMFFIObject*>(self);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    ForEachField(obj->type_index, [&](int64_t offset, Storage kind, int64_t) {
      ReleaseSlot(static_cast<char*>(self) + offset, kind);
    });
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) std::free(self);
}

TVMFFIObject* AllocObject(int32_t type_index, int64_t total_size) {
  const size_t size = static_cast<size_t>(total_size) < sizeof(TVMFFIObject)
                          ? sizeof(TVMFFIObject)
                          : static_cast<size_t>(total_size);
  void* p = std::calloc(1, size);
  if (p == nullptr) {
    TVM_FFI_THROW(MemoryError) << "Failed to allocate " << size << " bytes for type "
                               << detail::TypeIndexToTypeKey(type_index);
  }
  TVMFFIObject* obj = static_cast<TVMFFIObject*>(p);
  obj->combined_ref_count = (uint64_t{1} << 32) | 1;
  obj->type_index = type_index;
  obj->deleter = &DeleteObject;
  return obj;
}

ObjectRef Owned(TVMFFIObject* obj) {
  return detail::ObjectUnsafe::ObjectRefFromObjectPtr<ObjectRef>(
      detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(obj));
}

// ---- getters (owned results) -------------------------------------------------
int GetInt(void* field, TVMFFIAny* out) {
  out->type_index = TypeIndex::kTVMFFIInt;
  out->zero_padding = 0;
  std::memcpy(&out->v_int64, field, 8);
  return 0;
}
int GetFloat(void* field, TVMFFIAny* out) {
  out->type_index = TypeIndex::kTVMFFIFloat;
  out->zero_padding = 0;
  std::memcpy(&out->v_float64, field, 8);
  return 0;
}
int GetBool(void* field, TVMFFIAny* out) {
  out->type_index = TypeIndex::kTVMFFIBool;
  out->zero_padding = 0;
  out->v_int64 = *static_cast<const uint8_t*>(field) != 0 ? 1 : 0;
  return 0;
}
int GetPtr(void* field, TVMFFIAny* out) {
  out->type_index = TypeIndex::kTVMFFIOpaquePtr;
  out->zero_padding = 0;
  out->v_int64 = 0;
  std::memcpy(&out->v_ptr, field, sizeof(void*));
  return 0;
}
int GetDType(void* field, TVMFFIAny* out) {
  out->type_index = TypeIndex::kTVMFFIDataType;
  out->zero_padding = 0;
  out->v_int64 = 0;
  std::memcpy(&out->v_dtype, field, sizeof(DLDataType));
  return 0;
}
int GetDevice(void* field, TVMFFIAny* out) {
  out->type_index = TypeIndex::kTVMFFIDevice;
  out->zero_padding = 0;
  out->v_int64 = 0;
  std::memcpy(&out->v_device, field, sizeof(DLDevice));
  return 0;
}
int GetAny(void* field, TVMFFIAny* out) {
  return TVMFFIAnyViewToOwnedAny(static_cast<const TVMFFIAny*>(field), out);
}
int GetRef(void* field, TVMFFIAny* out) {
  void* p = nullptr;
  std::memcpy(&p, field, sizeof(p));
  out->zero_padding = 0;
  out->v_int64 = 0;
  if (p == nullptr) {
    out->type_index = TypeIndex::kTVMFFINone;
    return 0;
  }
  TVMFFIObjectIncRef(p);
  out->type_index = static_cast<TVMFFIObject*>(p)->type_index;
  out->v_obj = static_cast<TVMFFIObject*>(p);
  return 0;
}

int64_t MakeFieldGetter(int32_t static_index) {
  TVMFFIFieldGetter g = nullptr;
  switch (static_index) {
    case TypeIndex::kTVMFFIInt:
      g = &GetInt;
      break;
    case TypeIndex::kTVMFFIFloat:
      g = &GetFloat;
      break;
    case TypeIndex::kTVMFFIBool:
      g = &GetBool;
      break;
    case TypeIndex::kTVMFFIOpaquePtr:
      g = &GetPtr;
      break;
    case TypeIndex::kTVMFFIDataType:
      g = &GetDType;
      break;
    case TypeIndex::kTVMFFIDevice:
      g = &GetDevice;
      break;
    case TypeIndex::kTVMFFIAny:
      g = &GetAny;
      break;
    default:
      if (static_index < TypeIndex::kTVMFFIStaticObjectBegin) {
        TVM_FFI_THROW(ValueError) << "ffi.MakeFieldGetter: unsupported field type index "
                                  << static_index;
      }
      g = &GetRef;
  }
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(g));
}

// ---- setters --------------------------------------------------------------------
void Store(int32_t static_index, char* field, const TVMFFIAny& v) {
  const int32_t ti = v.type_index;
  switch (static_index) {
    case TypeIndex::kTVMFFIInt:
      std::memcpy(field, &v.v_int64, 8);
      return;
    case TypeIndex::kTVMFFIFloat: {
      const double d = ti == TypeIndex::kTVMFFIFloat ? v.v_float64 : static_cast<double>(v.v_int64);
      std::memcpy(field, &d, 8);
      return;
    }
    case TypeIndex::kTVMFFIBool:
      *reinterpret_cast<uint8_t*>(field) = v.v_int64 != 0;
      return;
    case TypeIndex::kTVMFFIOpaquePtr: {
      void* p = ti == TypeIndex::kTVMFFIOpaquePtr ? v.v_ptr : nullptr;
      std::memcpy(field, &p, sizeof(p));
      return;
    }
    case TypeIndex::kTVMFFIDataType:
      std::memcpy(field, &v.v_dtype, sizeof(DLDataType));
      return;
    case TypeIndex::kTVMFFIDevice:
      std::memcpy(field, &v.v_device, sizeof(DLDevice));
      return;
    case TypeIndex::kTVMFFIAny: {
      TVMFFIAny fresh;
      if (TVMFFIAnyViewToOwnedAny(&v, &fresh) != 0) detail::ThrowRaisedError(-1);
      TVMFFIAny old;
      std::memcpy(&old, field, sizeof(old));
      std::memcpy(field, &fresh, sizeof(fresh));
      if (old.type_index >= TypeIndex::kTVMFFIStaticObjectBegin && old.v_obj != nullptr) {
        TVMFFIObjectDecRef(old.v_obj);
      }
      return;
    }
    default:
      break;
  }
  void* p = nullptr;
  if (ti >= TypeIndex::kTVMFFIStaticObjectBegin) {
    p = v.v_obj;
    TVMFFIObjectIncRef(p);
  } else if (ti != TypeIndex::kTVMFFINone) {
    TVM_FFI_THROW(TypeError) << "expected an object, got a value of type `"
                             << detail::TypeIndexToTypeKey(ti) << "`";
  }
  void* old = nullptr;
  std::memcpy(&old, field, sizeof(old));
  std::memcpy(field, &p, sizeof(p));
  if (old != nullptr) TVMFFIObjectDecRef(old);
}

using FConvert = int (*)(void* token, const TVMFFIAny* value, TVMFFIAny* result);

Function MakeFieldSetter(int32_t static_index, int64_t token, int64_t f_convert) {
  if (static_index < TypeIndex::kTVMFFIStaticObjectBegin && static_index != TypeIndex::kTVMFFIAny &&
      (static_index < TypeIndex::kTVMFFINone || static_index > TypeIndex::kTVMFFIDevice)) {
    TVM_FFI_THROW(ValueError) << "ffi.MakeFieldSetter: unsupported field type index "
                              << static_index;
  }
  FConvert convert = reinterpret_cast<FConvert>(static_cast<intptr_t>(f_convert));
  void* ctx = reinterpret_cast<void*>(static_cast<intptr_t>(token));
  return Function::FromPacked([static_index, convert, ctx](PackedArgs args, Any* rv) {
    if (args.size() != 2) {
      TVM_FFI_THROW(TypeError) << "a field setter takes (address, value), got " << args.size()
                               << " arguments";
    }
    char* field = static_cast<char*>(args[0].cast<void*>());
    const TVMFFIAny* value = reinterpret_cast<const TVMFFIAny*>(args.data() + 1);
    Any converted = args[1];
    if (convert != nullptr) {
      TVMFFIAny out;
      ::tvm::ffi::detail::SetAnyNone(&out);
      const int rc = convert(ctx, value, &out);
      if (rc != 0) detail::ThrowRaisedError(rc);
      converted = detail::AnyUnsafe::MoveTVMFFIAnyToAny(&out);
    }
    Store(static_index, field, *detail::AnyUnsafe::TVMFFIAnyPtrFromAny(converted));
    *rv = Any();
  });
}

// ---- type attributes --------------------------------------------------------------
bool HasTypeAttr(int32_t type_index, const char* name) {
  TVMFFIByteArray n{name, std::strlen(name)};
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&n);
  if (col == nullptr) return false;
  const int32_t at = type_index - col->begin_index;
  return at >= 0 && at < col->size && col->data[at].type_index != TypeIndex::kTVMFFINone;
}

void PyClassRegisterTypeAttrColumns(int32_t type_index, int64_t total_size) {
  if (TVMFFIGetTypeInfo(type_index) == nullptr) {
    TVM_FFI_THROW(ValueError) << "ffi._PyClassRegisterTypeAttrColumns: unknown type index "
                              << type_index;
  }
  if (total_size < static_cast<int64_t>(sizeof(TVMFFIObject))) {
    TVM_FFI_THROW(ValueError) << "ffi._PyClassRegisterTypeAttrColumns: total size " << total_size
                              << " is smaller than an object header";
  }
  // These objects are allocated here, total_size bytes from the header: every
  // field, inherited ones too, must lie inside (a C++ parent may have fields
  // before its header, at negative offsets, which such an object lacks).
  ForEachField(type_index, [&](int64_t offset, Storage, int64_t size) {
    if (offset < static_cast<int64_t>(sizeof(TVMFFIObject)) || size > total_size - offset) {
      TVM_FFI_THROW(ValueError) << "ffi._PyClassRegisterTypeAttrColumns: type "
                                << detail::TypeIndexToTypeKey(type_index)
                                << " has a field at offset " << offset << " of size " << size
                                << ", outside the object's " << total_size << " bytes";
    }
  });
  if (!HasTypeAttr(type_index, "__ffi_new__")) {
    reflection::detail::RegisterTypeAttr(
        type_index, "__ffi_new__",
        Function::FromPacked([type_index, total_size](PackedArgs, Any* rv) {
          *rv = Owned(AllocObject(type_index, total_size));
        }));
  }
  if (!HasTypeAttr(type_index, "__ffi_shallow_copy__")) {
    reflection::detail::RegisterTypeAttr(
        type_index, "__ffi_shallow_copy__",
        Function::FromPacked([type_index, total_size](PackedArgs args, Any* rv) {
          const TVMFFIAny* src_any =
              args.size() == 1 ? reinterpret_cast<const TVMFFIAny*>(args.data()) : nullptr;
          if (src_any == nullptr || src_any->type_index < TypeIndex::kTVMFFIStaticObjectBegin ||
              src_any->v_obj == nullptr) {
            TVM_FFI_THROW(TypeError) << "__ffi_shallow_copy__ expects one object";
          }
          const char* src = reinterpret_cast<const char*>(src_any->v_obj);
          TVMFFIObject* dst_obj = AllocObject(type_index, total_size);
          ObjectRef dst = Owned(dst_obj);  // released (with its fields) if a copy throws
          char* out = reinterpret_cast<char*>(dst_obj);
          ForEachField(type_index, [&](int64_t offset, Storage kind, int64_t size) {
            if (kind == Storage::kAny) {
              if (TVMFFIAnyViewToOwnedAny(reinterpret_cast<const TVMFFIAny*>(src + offset),
                                          reinterpret_cast<TVMFFIAny*>(out + offset)) != 0) {
                detail::ThrowRaisedError(-1);
              }
            } else if (kind == Storage::kRef) {
              void* p = nullptr;
              std::memcpy(&p, src + offset, sizeof(p));
              if (p != nullptr) TVMFFIObjectIncRef(p);
              std::memcpy(out + offset, &p, sizeof(p));
            } else {
              std::memcpy(out + offset, src + offset, static_cast<size_t>(size));
            }
          });
          *rv = std::move(dst);
        }));
  }
  if (!HasTypeAttr(type_index, reflection::type_attr::kInit)) {
    Function::GetGlobalRequired("ffi._RegisterFFIInit")(type_index);
  }
}

[[maybe_unused]] const bool kPyClassSupportRegistered = [] {
  tvmffi::rt::BuiltinDef()
      .def("ffi.MakeFieldGetter", MakeFieldGetter)
      .def("ffi.MakeFieldSetter", MakeFieldSetter)
      .def("ffi._PyClassRegisterTypeAttrColumns", PyClassRegisterTypeAttrColumns);
  return true;
}();

}  // namespace
}  // namespace ffi
}  // namespace tvm

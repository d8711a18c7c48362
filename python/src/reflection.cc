// Reflection for tvmffi/_typeinfo.py and _pyclass.py: the runtime's type
// records (TVMFFITypeInfo, its fields, methods and metadata) as plain Python
// tuples, type attributes, field reads and writes through the field's own
// getter / setter, object creation, and the registration of Python-defined
// types. The C structs are read here only, so Python declares none of them.

#include <cstdint>
#include <cstring>
#include <string>

#include <nanobind/stl/string.h>

#include "bindings.h"

namespace tvmffi_py {
namespace {

nb::str Text(const TVMFFIByteArray& b) {
  if (b.data == nullptr || b.size == 0) return nb::str("");
  PyObject* s = PyUnicode_DecodeUTF8(b.data, static_cast<Py_ssize_t>(b.size), "replace");
  if (s == nullptr) throw nb::python_error();
  return nb::steal<nb::str>(s);
}

TVMFFIByteArray Bytes(const std::string& s) {
  return TVMFFIByteArray{s.data(), s.size()};
}

// The Python value of a borrowed cell (the call path's conversion of an owned copy).
nb::object ViewToPy(const TVMFFIAny* view) {
  TVMFFIAny owned;
  Check(TVMFFIAnyViewToOwnedAny(view, &owned));
  return ToPy(&owned);
}

// An owned cell of `value`, converted as call arguments are; released on scope exit.
struct OwnedCell {
  TVMFFIAny a;
  explicit OwnedCell(nb::handle value) {
    if (!PyToOwnedAny(value.ptr(), &a)) throw nb::python_error();
  }
  ~OwnedCell() {
    if (a.type_index >= kTVMFFIStaticObjectBegin && a.v_obj != nullptr) {
      TVMFFIObjectDecRef(a.v_obj);
    }
  }
  OwnedCell(const OwnedCell&) = delete;
  OwnedCell& operator=(const OwnedCell&) = delete;
};

// (name, doc, metadata, flags, size, alignment, offset, getter, setter,
//  field_static_type_index, has_default_cell)
nb::tuple FieldTuple(const TVMFFIFieldInfo& f) {
  return nb::make_tuple(Text(f.name), Text(f.doc), Text(f.metadata), f.flags, f.size, f.alignment,
                        f.offset, reinterpret_cast<uintptr_t>(f.getter),
                        reinterpret_cast<uintptr_t>(f.setter), f.field_static_type_index);
}

// (name, doc, metadata, flags)
nb::tuple MethodTuple(const TVMFFIMethodInfo& m) {
  return nb::make_tuple(Text(m.name), Text(m.doc), Text(m.metadata), m.flags);
}

const TVMFFITypeInfo* InfoOrThrow(int32_t type_index) {
  const TVMFFITypeInfo* info = type_index >= 0 ? TVMFFIGetTypeInfo(type_index) : nullptr;
  if (info == nullptr) {
    throw nb::value_error(("no type has the index " + std::to_string(type_index)).c_str());
  }
  return info;
}

const TVMFFIFieldInfo& FieldAt(int32_t type_index, int32_t i) {
  const TVMFFITypeInfo* info = InfoOrThrow(type_index);
  if (i < 0 || i >= info->num_fields) throw nb::index_error("field index out of range");
  return info->fields[i];
}

void* FieldAddress(uintptr_t object, int64_t offset) {
  if (object == 0) throw nb::value_error("cannot read or write a field of a null object");
  return reinterpret_cast<char*>(object) + offset;
}

// Write `value` into the field at `addr` through the setter (a C setter, or an
// ffi.Function taking (address, value) when FLAG_SETTER_IS_FUNCTION).
void SetField(uintptr_t setter, int64_t flags, void* addr, const TVMFFIAny* value) {
  if (setter == 0) throw nb::attribute_error("the field is read-only");
  if (flags & kTVMFFIFieldFlagBitSetterIsFunctionObj) {
    TVMFFIAny args[2];
    args[0].type_index = kTVMFFIOpaquePtr;
    args[0].zero_padding = 0;
    args[0].v_int64 = 0;
    args[0].v_ptr = addr;
    args[1] = *value;
    TVMFFIAny out;
    out.type_index = kTVMFFINone;
    out.zero_padding = 0;
    out.v_int64 = 0;
    Check(TVMFFIFunctionCall(reinterpret_cast<TVMFFIObjectHandle>(setter), args, 2, &out));
    ToPy(&out);  // released
  } else {
    Check(reinterpret_cast<TVMFFIFieldSetter>(setter)(addr, value));
  }
}

// The attribute column `name`, or nullptr (the runtime's error cleared) when there is none.
const TVMFFITypeAttrColumn* Column(const std::string& name) {
  TVMFFIByteArray key = Bytes(name);
  const TVMFFITypeAttrColumn* col = TVMFFIGetTypeAttrColumn(&key);
  if (col == nullptr) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
  }
  return col;
}

const TVMFFIAny* ColumnEntry(const TVMFFITypeAttrColumn* col, int32_t type_index) {
  const int64_t i = static_cast<int64_t>(type_index) - col->begin_index;
  if (i < 0 || i >= col->size) return nullptr;
  const TVMFFIAny* cell = &col->data[i];
  return cell->type_index == kTVMFFINone ? nullptr : cell;
}

// The f_convert of ffi.MakeFieldSetter for fields of Python-defined types:
// `token` is the field's Python reader / writer (tvmffi._pyclass._FieldIO, kept
// alive by the package); its _ffi_convert(value) gives the value to store.
// Runs on any thread, with or without the GIL.
int FieldConvert(void* token, const TVMFFIAny* value, TVMFFIAny* result) {
  PyGILState_STATE gil = PyGILState_Ensure();
  int rc = -1;
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(value, &owned) == 0) {
    PyObject* v = AnyToPy(&owned, nullptr);
    if (v != nullptr) {
      PyObject* out = PyObject_CallMethod(static_cast<PyObject*>(token), "_ffi_convert", "O", v);
      Py_DECREF(v);
      if (out != nullptr) {
        if (PyToOwnedAny(out, result)) rc = 0;
        Py_DECREF(out);
      }
    }
    if (rc != 0) SetFFIErrorFromPython();
  }
  PyGILState_Release(gil);
  return rc;
}

}  // namespace

void DefineReflection(nb::module_& m) {
  m.def(
      "_type_info",
      [](int32_t type_index) -> nb::object {
        const TVMFFITypeInfo* info = type_index >= 0 ? TVMFFIGetTypeInfo(type_index) : nullptr;
        if (info == nullptr) return nb::none();
        nb::list ancestors;
        for (int32_t d = 0; d < info->type_depth; ++d) {
          ancestors.append(info->type_ancestors[d]->type_index);
        }
        nb::list fields;
        for (int32_t i = 0; i < info->num_fields; ++i) fields.append(FieldTuple(info->fields[i]));
        nb::list methods;
        for (int32_t i = 0; i < info->num_methods; ++i) {
          methods.append(MethodTuple(info->methods[i]));
        }
        nb::object meta = nb::none();
        if (const TVMFFITypeMetadata* md = info->metadata) {
          meta = nb::make_tuple(Text(md->doc), reinterpret_cast<uintptr_t>(md->creator),
                                md->total_size, static_cast<int32_t>(md->structural_eq_hash_kind));
        }
        return nb::make_tuple(info->type_index, Text(info->type_key), nb::tuple(ancestors),
                              nb::tuple(fields), nb::tuple(methods), meta);
      },
      nb::arg("type_index"),
      "The runtime's record of a type: (type_index, type_key, ancestors, fields, methods, "
      "metadata), or None. fields: (name, doc, metadata, flags, size, alignment, offset, "
      "getter, setter, field_static_type_index); methods: (name, doc, metadata, flags); "
      "metadata: (doc, creator, total_size, structural_eq_hash_kind) or None.");
  m.def(
      "_type_metadata",
      [](int32_t type_index) -> nb::object {
        const TVMFFITypeInfo* info = type_index >= 0 ? TVMFFIGetTypeInfo(type_index) : nullptr;
        if (info == nullptr || info->metadata == nullptr) return nb::none();
        const TVMFFITypeMetadata* md = info->metadata;
        return nb::make_tuple(Text(md->doc), reinterpret_cast<uintptr_t>(md->creator),
                              md->total_size, static_cast<int32_t>(md->structural_eq_hash_kind));
      },
      nb::arg("type_index"),
      "(doc, creator, total_size, structural_eq_hash_kind) of a type as registered now, or None.");
  m.def(
      "_type_key_of",
      [](int32_t type_index) -> nb::object {
        const TVMFFITypeInfo* info = type_index >= 0 ? TVMFFIGetTypeInfo(type_index) : nullptr;
        if (info == nullptr) return nb::none();
        return Text(info->type_key);
      },
      nb::arg("type_index"), "The type key of a type index, or None.");
  m.def(
      "_type_key_to_index",
      [](const std::string& key) -> nb::object {
        TVMFFIByteArray k = Bytes(key);
        int32_t index = -1;
        if (TVMFFITypeKeyToIndex(&k, &index) != 0) {
          TVMFFIObjectHandle err = nullptr;  // an unknown key: no error for the caller
          TVMFFIErrorMoveFromRaised(&err);
          if (err != nullptr) TVMFFIObjectDecRef(err);
          return nb::none();
        }
        return nb::int_(index);
      },
      nb::arg("type_key"), "The type index of a type key, or None when there is no such type.");
  m.def(
      "_type_method",
      [](int32_t type_index, int32_t i) {
        const TVMFFITypeInfo* info = InfoOrThrow(type_index);
        if (i < 0 || i >= info->num_methods) throw nb::index_error("method index out of range");
        return ViewToPy(&info->methods[i].method);
      },
      nb::arg("type_index"), nb::arg("i"), "The value of method `i` of a type (a Function).");
  m.def(
      "_type_attr",
      [](int32_t type_index, const std::string& name, bool ancestor) -> nb::object {
        const TVMFFITypeAttrColumn* col = Column(name);
        if (col == nullptr) return nb::none();
        if (const TVMFFIAny* cell = ColumnEntry(col, type_index)) return ViewToPy(cell);
        if (!ancestor) return nb::none();
        const TVMFFITypeInfo* info = type_index >= 0 ? TVMFFIGetTypeInfo(type_index) : nullptr;
        if (info == nullptr) return nb::none();
        for (int32_t d = info->type_depth - 1; d >= 0; --d) {
          if (const TVMFFIAny* cell = ColumnEntry(col, info->type_ancestors[d]->type_index)) {
            return ViewToPy(cell);
          }
        }
        return nb::none();
      },
      nb::arg("type_index"), nb::arg("name"), nb::arg("ancestor") = false,
      "The type attribute `name` of a type (None when unset); with `ancestor`, the nearest "
      "ancestor's when the type has none.");
  m.def(
      "_type_register_attr",
      [](int32_t type_index, const std::string& name, nb::handle value) {
        TVMFFIByteArray key = Bytes(name);
        OwnedCell cell(value);
        Check(TVMFFITypeRegisterAttr(type_index, &key, &cell.a));
      },
      nb::arg("type_index"), nb::arg("name"), nb::arg("value").none(),
      "Set the type attribute `name` of a type (TVMFFITypeRegisterAttr; kTVMFFINone: the "
      "column only).");
  m.def(
      "_field_get",
      [](uintptr_t getter, uintptr_t object, int64_t offset) {
        void* addr = FieldAddress(object, offset);
        if (getter == 0) throw nb::attribute_error("the field has no getter");
        TVMFFIAny out;
        out.type_index = kTVMFFINone;
        out.zero_padding = 0;
        out.v_int64 = 0;
        Check(reinterpret_cast<TVMFFIFieldGetter>(getter)(addr, &out));
        return ToPy(&out);
      },
      nb::arg("getter"), nb::arg("object"), nb::arg("offset"),
      "Read a field of the object at address `object` through its getter (an address).");
  m.def(
      "_field_set",
      [](uintptr_t setter, int64_t flags, uintptr_t object, int64_t offset, nb::handle value) {
        void* addr = FieldAddress(object, offset);
        OwnedCell cell(value);
        SetField(setter, flags, addr, &cell.a);
      },
      nb::arg("setter"), nb::arg("flags"), nb::arg("object"), nb::arg("offset"),
      nb::arg("value").none(),
      "Write `value` (converted as call arguments are) into a field of the object at address "
      "`object` through its setter.");
  m.def(
      "_field_default",
      [](int32_t type_index, int32_t i) {
        const TVMFFIFieldInfo& f = FieldAt(type_index, i);
        if (!(f.flags & kTVMFFIFieldFlagBitMaskHasDefault)) throw nb::type_error("no default");
        return ViewToPy(&f.default_value_or_factory);
      },
      nb::arg("type_index"), nb::arg("i"),
      "The default value (or factory) of field `i` of a type, as recorded.");
  m.def(
      "_field_set_default",
      [](int32_t type_index, int32_t i, uintptr_t object) {
        const TVMFFIFieldInfo& f = FieldAt(type_index, i);
        if (!(f.flags & kTVMFFIFieldFlagBitMaskHasDefault)) throw nb::type_error("no default");
        if (f.flags & kTVMFFIFieldFlagBitMaskDefaultFromFactory) {
          nb::object value = ViewToPy(&f.default_value_or_factory)();
          OwnedCell cell(value);
          SetField(reinterpret_cast<uintptr_t>(f.setter), f.flags, FieldAddress(object, f.offset),
                   &cell.a);
        } else {
          SetField(reinterpret_cast<uintptr_t>(f.setter), f.flags, FieldAddress(object, f.offset),
                   &f.default_value_or_factory);
        }
      },
      nb::arg("type_index"), nb::arg("i"), nb::arg("object"),
      "Write the default of field `i` of a type (or its factory's value) into the object at "
      "address `object`, the recorded value itself (not a Python copy of it).");
  m.def(
      "_create_object",
      [](uintptr_t creator) {
        if (creator == 0) throw nb::value_error("the type has no creator");
        TVMFFIObjectHandle h = nullptr;
        Check(reinterpret_cast<TVMFFIObjectCreator>(creator)(&h));
        if (h == nullptr) throw nb::value_error("the creator returned no object");
        return WrapObject(h);
      },
      nb::arg("creator"), "A new object made by a type's creator (an address, from metadata).");
  m.def(
      "_object_type_index",
      [](uintptr_t handle) {
        if (handle == 0) throw nb::value_error("null object handle");
        return TVMFFIObjectGetTypeIndex(reinterpret_cast<TVMFFIObjectHandle>(handle));
      },
      nb::arg("handle"), "The type index of the object at `handle`.");
  m.def(
      "_inst_state",
      [](nb::handle obj) -> int {
        if (!nb::isinstance<ObjectRef>(obj)) return -1;
        return nb::inst_ready(obj) ? 2 : 0;
      },
      nb::arg("obj").none(),
      "2: `obj` is a constructed tvmffi.Object (its handle is released with it); 0: only "
      "allocated (cls.__new__); -1: not a tvmffi.Object.");
  m.def(
      "_opaque_pyobject",
      [](uintptr_t handle) -> nb::object {
        if (handle == 0) throw nb::value_error("null object handle");
        auto h = reinterpret_cast<TVMFFIObjectHandle>(handle);
        if (TVMFFIObjectGetTypeIndex(h) != kTVMFFIOpaquePyObject) {
          throw nb::type_error("not an ffi.OpaquePyObject");
        }
        PyObject* held = nullptr;
        std::memcpy(&held, reinterpret_cast<const char*>(h) + sizeof(TVMFFIObject), sizeof(held));
        return nb::borrow(held == nullptr ? Py_None : held);
      },
      nb::arg("handle"), "The Python object an ffi.OpaquePyObject (at `handle`) holds.");

  m.def(
      "_error_new",
      [](const std::string& kind, const std::string& message, const std::string& backtrace) {
        TVMFFIByteArray k = Bytes(kind), msg = Bytes(message), bt = Bytes(backtrace);
        TVMFFIObjectHandle h = nullptr;
        Check(TVMFFIErrorCreate(&k, &msg, &bt, &h));
        return WrapObject(h);
      },
      nb::arg("kind"), nb::arg("message"), nb::arg("backtrace"),
      "A new ffi.Error (TVMFFIErrorCreate) as its Python object.");

  m.def(
      "_error_fields",
      [](uintptr_t handle) {
        auto h = reinterpret_cast<TVMFFIObjectHandle>(handle);
        if (h == nullptr || TVMFFIObjectGetTypeIndex(h) != kTVMFFIError) {
          throw nb::type_error("not an ffi.Error");
        }
        const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(h);
        return nb::make_tuple(Text(cell->kind), Text(cell->message), Text(cell->backtrace));
      },
      nb::arg("handle"), "(kind, message, backtrace) of the ffi.Error at `handle`.");
  m.def(
      "_error_update_backtrace",
      [](uintptr_t handle, const std::string& backtrace, int32_t mode) {
        auto h = reinterpret_cast<TVMFFIObjectHandle>(handle);
        if (h == nullptr || TVMFFIObjectGetTypeIndex(h) != kTVMFFIError) {
          throw nb::type_error("not an ffi.Error");
        }
        if (mode != kTVMFFIBacktraceUpdateModeReplace && mode != kTVMFFIBacktraceUpdateModeAppend) {
          throw nb::value_error("update mode must be 0 (replace) or 1 (append)");
        }
        TVMFFIByteArray bt = Bytes(backtrace);
        TVMFFIErrorGetCellPtr(h)->update_backtrace(h, &bt, mode);
      },
      nb::arg("handle"), nb::arg("backtrace"), nb::arg("mode"),
      "Replace (mode 0) or append to (mode 1) the backtrace of the ffi.Error at `handle`.");
  m.def(
      "_error_extra_context",
      [](uintptr_t handle) -> nb::object {
        auto h = reinterpret_cast<TVMFFIObjectHandle>(handle);
        if (h == nullptr || TVMFFIObjectGetTypeIndex(h) != kTVMFFIError) {
          throw nb::type_error("not an ffi.Error");
        }
        TVMFFIObjectHandle ctx = TVMFFIErrorGetCellPtr(h)->extra_context;
        if (ctx == nullptr) return nb::none();
        TVMFFIObjectIncRef(ctx);
        const int32_t index = TVMFFIObjectGetTypeIndex(ctx);
        // As an owned value converts (str for an ffi.String, ...); an
        // ffi.OpaquePyObject stays its wrapper.
        if (index == kTVMFFIOpaquePyObject) return WrapObject(ctx);
        TVMFFIAny owned;
        owned.type_index = index;
        owned.zero_padding = 0;
        owned.v_obj = static_cast<TVMFFIObject*>(ctx);
        return ToPy(&owned);
      },
      nb::arg("handle"),
      "The extra context of the ffi.Error at `handle` as a Python value, or None.");
  m.def(
      "_is_subtype",
      [](int32_t actual, int32_t target) {
        if (actual == target) return true;
        const TVMFFITypeInfo* a = actual >= 0 ? TVMFFIGetTypeInfo(actual) : nullptr;
        const TVMFFITypeInfo* t = target >= 0 ? TVMFFIGetTypeInfo(target) : nullptr;
        if (a == nullptr || t == nullptr || a->type_depth <= t->type_depth) return false;
        return a->type_ancestors[t->type_depth]->type_index == target;
      },
      nb::arg("actual"), nb::arg("target"),
      "Whether type index `actual` is `target` or derives from it.");

  m.def(
      "_runtime_version",
      []() {
        TVMFFIVersion v;
        TVMFFIGetVersion(&v);
        return nb::make_tuple(v.major, v.minor, v.patch);
      },
      "(major, minor, patch) of the loaded runtime (TVMFFIGetVersion).");

  m.def(
      "_field_converter",
      []() {
        int (*f)(void*, const TVMFFIAny*, TVMFFIAny*) = FieldConvert;
        return reinterpret_cast<uintptr_t>(f);
      },
      "The address of the f_convert for ffi.MakeFieldSetter: token is a Python object whose "
      "_ffi_convert(value) gives the value to store (the package keeps it alive).");

  // Registration of Python-defined types (tvmffi/_pyclass.py).
  m.def(
      "_type_alloc_index",
      [](const std::string& key, int32_t depth, int32_t parent, int32_t child_slots) {
        TVMFFIByteArray k = Bytes(key);
        const int32_t index = TVMFFITypeGetOrAllocIndex(&k, -1, depth, child_slots, 1, parent);
        if (index < 0) Check(-1);
        return index;
      },
      nb::arg("type_key"), nb::arg("depth"), nb::arg("parent"), nb::arg("child_slots") = 0,
      "TVMFFITypeGetOrAllocIndex of a dynamic type (child_slots reserved, may overflow).");
  m.def(
      "_type_register_field",
      [](int32_t type_index, const std::string& name, nb::handle doc, const std::string& metadata,
         int64_t flags, int64_t size, int64_t alignment, int64_t offset, uintptr_t getter,
         uintptr_t setter, nb::handle default_value, int32_t static_type_index) {
        std::string doc_text = doc.is_none() ? std::string() : nb::cast<std::string>(doc);
        TVMFFIFieldInfo f;
        std::memset(&f, 0, sizeof(f));
        f.name = Bytes(name);
        f.doc = Bytes(doc_text);
        f.metadata = Bytes(metadata);
        f.flags = flags;
        f.size = size;
        f.alignment = alignment;
        f.offset = offset;
        f.getter = reinterpret_cast<TVMFFIFieldGetter>(getter);
        f.setter = reinterpret_cast<TVMFFIFieldSetter>(setter);
        f.field_static_type_index = static_type_index;
        if (default_value.is_none() && !(flags & kTVMFFIFieldFlagBitMaskHasDefault)) {
          Check(TVMFFITypeRegisterField(type_index, &f));
          return;
        }
        OwnedCell cell(default_value);
        f.default_value_or_factory = cell.a;
        Check(TVMFFITypeRegisterField(type_index, &f));
      },
      nb::arg("type_index"), nb::arg("name"), nb::arg("doc").none(), nb::arg("metadata"),
      nb::arg("flags"), nb::arg("size"), nb::arg("alignment"), nb::arg("offset"), nb::arg("getter"),
      nb::arg("setter"), nb::arg("default").none(), nb::arg("static_type_index"),
      "TVMFFITypeRegisterField (the default converted as call arguments are; the runtime "
      "keeps its own copy of every string and value).");
  m.def(
      "_type_register_method",
      [](int32_t type_index, const std::string& name, nb::handle metadata, int64_t flags,
         nb::handle func) {
        std::string meta = metadata.is_none() ? std::string() : nb::cast<std::string>(metadata);
        OwnedCell cell(func);
        TVMFFIMethodInfo mi;
        std::memset(&mi, 0, sizeof(mi));
        mi.name = Bytes(name);
        mi.metadata = Bytes(meta);
        mi.flags = flags;
        mi.method = cell.a;
        Check(TVMFFITypeRegisterMethod(type_index, &mi));
      },
      nb::arg("type_index"), nb::arg("name"), nb::arg("metadata").none(), nb::arg("flags"),
      nb::arg("func"), "TVMFFITypeRegisterMethod.");
  m.def(
      "_type_register_metadata",
      [](int32_t type_index, int32_t total_size, int32_t structural_eq_hash_kind) {
        TVMFFITypeMetadata md;
        std::memset(&md, 0, sizeof(md));
        md.total_size = total_size;
        md.structural_eq_hash_kind = static_cast<TVMFFISEqHashKind>(structural_eq_hash_kind);
        Check(TVMFFITypeRegisterMetadata(type_index, &md));
      },
      nb::arg("type_index"), nb::arg("total_size"), nb::arg("structural_eq_hash_kind"),
      "TVMFFITypeRegisterMetadata (no doc, no creator).");
}

}  // namespace tvmffi_py

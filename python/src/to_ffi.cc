// Python values -> owned TVMFFIAny (containers, callback results,
// tvmffi.convert), through the runtime's own constructors.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "call_internal.h"
#include "tvmffi_internal/stack_bounds.h"  // tvmffi::internal, header-only

namespace tvmffi_py {

// ---------------------------------------------------------------------------
// Global functions the converters use (looked up once).
// ---------------------------------------------------------------------------
TVMFFIObjectHandle GlobalFunc(const char* name, TVMFFIObjectHandle* cache) {
  if (*cache == nullptr && (*cache = BuiltinFunction(name)) != nullptr) {
    TVMFFIObjectIncRef(*cache);  // the runtime's own, as registered when _core was imported
  }
  if (*cache == nullptr) {
    TVMFFIByteArray n{name, std::strlen(name)};
    if (TVMFFIFunctionGetGlobal(&n, cache) != 0 || *cache == nullptr) {
      SetPyErrorFromFFI();
      if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_RuntimeError, "tvmffi: no global function %s", name);
      }
      return nullptr;
    }
  }
  return *cache;
}

TVMFFIObjectHandle g_array_ctor = nullptr;
TVMFFIObjectHandle g_map_ctor = nullptr;
TVMFFIObjectHandle g_shape_ctor = nullptr;

// Call a constructor with owned arguments (released here); false with a Python error.
bool CallWithOwned(TVMFFIObjectHandle f, TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  out->type_index = kTVMFFINone;
  out->zero_padding = 0;
  out->v_int64 = 0;
  int rc = TVMFFIFunctionCall(f, args, n, out);
  for (int32_t i = 0; i < n; ++i) {
    if (args[i].type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(args[i].v_obj);
  }
  if (rc != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

void ReleaseOwned(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
}

// ---------------------------------------------------------------------------
// Python -> owned Any (containers, callback results, tvmffi.convert)
// ---------------------------------------------------------------------------

// Nesting. Lists, tuples and dicts convert recursively: each level enters the
// interpreter's recursion check (RecursionError past sys.getrecursionlimit())
// and checks what is left of the thread's C stack, so that a self-referential
// or very deeply nested value is a RecursionError, never a stack overflow,
// whatever the recursion limit (tvmffi_internal/stack_bounds.h, as the runtime's
// recursive walkers).
bool CStackNearlyExhausted() {
  // For the error path and Python code below a level.
  return tvmffi::stack::NearlyExhausted(size_t{256} << 10);
}

bool EnterNested() {
  if (Py_EnterRecursiveCall(" while converting a nested list, tuple or dict to a tvmffi value")) {
    return false;
  }
  if (CStackNearlyExhausted()) {
    Py_LeaveRecursiveCall();
    PyErr_SetString(PyExc_RecursionError,
                    "tvmffi: a list, tuple or dict is nested too deeply to convert on this "
                    "thread's C stack");
    return false;
  }
  return true;
}

// A list, tuple, tvmffi.Shape or dict as an owned ffi.Array / ffi.Shape / ffi.Map.
// The items are converted from a snapshot holding strong references (a tuple
// of the list's items, a list of the dict's pairs): converting one can run
// Python code (__index__, __float__, __dlpack__, a callable's wrapper ...) that
// grows, shrinks or clears the container, and changes only the original.
bool ContainerToOwned(PyObject* obj, Kind kind, TVMFFIAny* out) {
  const bool is_map = kind == Kind::kMapping;
  TVMFFIObjectHandle ctor = kind == Kind::kShape ? GlobalFunc("ffi.Shape", &g_shape_ctor)
                            : is_map             ? GlobalFunc("ffi.Map", &g_map_ctor)
                                                 : GlobalFunc("ffi.Array", &g_array_ctor);
  if (ctor == nullptr) return false;
  PyObject* snap = is_map ? PyDict_Items(obj) : PyList_Check(obj) ? PyList_AsTuple(obj) : obj;
  if (snap == nullptr) return false;
  if (snap == obj) Py_INCREF(snap);  // a tuple: immutable
  const Py_ssize_t n = is_map ? PyList_GET_SIZE(snap) : PyTuple_GET_SIZE(snap);
  const Py_ssize_t n_any = is_map ? 2 * n : n;
  if (n_any > INT32_MAX) {
    Py_DECREF(snap);
    PyErr_Format(PyExc_ValueError, "tvmffi: a %s of %zd items is too large to convert",
                 is_map ? "dict" : "sequence", n);
    return false;
  }
  TVMFFIAny* items = new (std::nothrow) TVMFFIAny[n_any > 0 ? n_any : 1];
  if (items == nullptr || !EnterNested()) {
    delete[] items;
    Py_DECREF(snap);
    if (items == nullptr) PyErr_NoMemory();
    return false;
  }
  Py_ssize_t done = 0;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    if (is_map) {
      PyObject* pair = PyList_GET_ITEM(snap, i);  // (key, value), made by PyDict_Items
      ok = PyToOwnedAny(PyTuple_GET_ITEM(pair, 0), &items[done]) && ++done &&
           PyToOwnedAny(PyTuple_GET_ITEM(pair, 1), &items[done]) && ++done;
    } else {
      ok = PyToOwnedAny(PyTuple_GET_ITEM(snap, i), &items[done]) && ++done;
    }
  }
  Py_LeaveRecursiveCall();
  Py_DECREF(snap);
  if (!ok) {
    for (Py_ssize_t i = 0; i < done; ++i) ReleaseOwned(&items[i]);
    delete[] items;
    return false;
  }
  ok = CallWithOwned(ctor, items, static_cast<int32_t>(done), out);
  delete[] items;
  return ok;
}

// A str as an owned ffi.String (small or not).
bool StrToOwned(PyObject* obj, TVMFFIAny* out) {
  Py_ssize_t size = 0;
  const char* s = PyUnicode_AsUTF8AndSize(obj, &size);
  if (s == nullptr) return false;
  TVMFFIByteArray ba{s, static_cast<size_t>(size)};
  if (TVMFFIStringFromByteArray(&ba, out) != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

// bytes or bytearray.
bool BytesToOwned(PyObject* obj, TVMFFIAny* out) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_Check(obj)) {
    PyBytes_AsStringAndSize(obj, &data, &size);
  } else {
    data = PyByteArray_AS_STRING(obj);
    size = PyByteArray_GET_SIZE(obj);
  }
  TVMFFIByteArray ba{data, static_cast<size_t>(size)};
  if (TVMFFIBytesFromByteArray(&ba, out) != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

// The FFI object a core.String, core.Bytes or Shape keeps (its
// _tvm_ffi_cached_object), as a new reference in `out` when it is an object of
// `type_index`: 1. None kept, or another value there: 0 (convert the value).
// -1 with a Python error.
int CachedObjectToOwned(PyObject* obj, int32_t type_index, TVMFFIAny* out) {
  PyObject* cached = PyObject_GetAttr(obj, CachedObjectName());
  if (cached == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();  // a String made by str.__new__ has the slot unset
    return 0;
  }
  int r = 0;
  if (PyType_IsSubtype(Py_TYPE(cached), GetCoreTypes().object) && nb::inst_ready(cached)) {
    TVMFFIObjectHandle h = nb::inst_ptr<ObjectRef>(cached)->handle;
    if (h != nullptr && TVMFFIObjectGetTypeIndex(h) == type_index) {
      TVMFFIObjectIncRef(h);
      out->type_index = type_index;
      out->v_obj = static_cast<TVMFFIObject*>(h);
      r = 1;
    }
  }
  Py_DECREF(cached);
  return r;
}

// An int past int64 as an owned ffi.BigInt: its two's complement words,
// least significant first, as TVMFFIBigIntFromByteArray reads them (native
// byte order: the runtime's platforms are little-endian).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "BigInt words are read little-endian");
TVMFFI_PY_COLD bool LongToBigInt(PyObject* v, TVMFFIAny* out) {
  nb::object bits = nb::steal(PyObject_CallMethod(v, "bit_length", nullptr));
  if (!bits.is_valid()) return false;
  const size_t nbits = PyLong_AsSize_t(bits.ptr());
  if (nbits == static_cast<size_t>(-1) && PyErr_Occurred()) return false;
  const size_t nbytes = (nbits / 64 + 1) * 8;  // a sign bit above the magnitude
  nb::object args = nb::steal(Py_BuildValue("(ns)", static_cast<Py_ssize_t>(nbytes), "little"));
  nb::object kwargs = nb::steal(Py_BuildValue("{s:O}", "signed", Py_True));
  if (!args.is_valid() || !kwargs.is_valid()) return false;
  nb::object to_bytes = nb::steal(PyObject_GetAttrString(v, "to_bytes"));
  if (!to_bytes.is_valid()) return false;
  nb::object data = nb::steal(PyObject_Call(to_bytes.ptr(), args.ptr(), kwargs.ptr()));
  if (!data.is_valid()) return false;
  TVMFFIByteArray ba{PyBytes_AS_STRING(data.ptr()),
                     static_cast<size_t>(PyBytes_GET_SIZE(data.ptr()))};
  if (TVMFFIBigIntFromByteArray(&ba, out) != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

bool IndexToOwnedInt(PyObject* obj, TVMFFIAny* out) {
  nb::object idx = nb::steal(PyNumber_Index(obj));
  if (!idx.is_valid()) return false;
  out->type_index = kTVMFFIInt;
  out->zero_padding = 0;
  if (LongToInt64(idx.ptr(), &out->v_int64)) return true;
  if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return false;
  PyErr_Clear();
  return LongToBigInt(idx.ptr(), out);
}

bool PyToOwnedAny(PyObject* obj, TVMFFIAny* out) {
  out->zero_padding = 0;
  out->v_int64 = 0;
  PyTypeObject* t = Py_TYPE(obj);
  if (obj == Py_None) {
    out->type_index = kTVMFFINone;
    return true;
  }
  if (t == &PyBool_Type) {
    out->type_index = kTVMFFIBool;
    out->v_int64 = obj == Py_True ? 1 : 0;
    return true;
  }
  const TypeEntry e = LookupType(t);
  switch (e.kind) {
    case Kind::kObject: {
      TVMFFIObjectHandle h = ObjectHandleOf(obj);
      if (h == nullptr) return false;
      // Inside a call's list or dict argument, a read-only tvmffi.Tensor is
      // replaced by a checked copy, as at the top level.
      if (tls_pack_frame != nullptr && TVMFFIObjectGetTypeIndex(h) == kTVMFFITensor &&
          TensorObjectReadOnly(obj, h)) {
        h = ReadOnlyObjectCopy(*tls_pack_frame, tls_pack_arg, true, obj, h);
        if (h == nullptr) return false;
      } else {
        TVMFFIObjectIncRef(h);
      }
      out->type_index = TVMFFIObjectGetTypeIndex(h);
      out->v_obj = static_cast<TVMFFIObject*>(h);
      return true;
    }
    case Kind::kDevice:
      if (!nb::inst_ready(obj)) return DeviceNotInitialised();
      out->type_index = kTVMFFIDevice;
      out->v_device = nb::inst_ptr<DeviceValue>(obj)->dev;
      return true;
    case Kind::kInt:
      return IndexToOwnedInt(obj, out);
    case Kind::kFloat:
      out->type_index = kTVMFFIFloat;
      out->v_float64 = PyFloat_AsDouble(obj);
      return !PyErr_Occurred();
    case Kind::kDType: {
      Py_ssize_t size = 0;
      const char* s = PyUnicode_AsUTF8AndSize(obj, &size);
      if (s == nullptr) return false;
      TVMFFIByteArray ba{s, static_cast<size_t>(size)};
      if (TVMFFIDataTypeFromString(&ba, &out->v_dtype) != 0) {
        SetPyErrorFromFFI();
        return false;
      }
      out->type_index = kTVMFFIDataType;
      return true;
    }
    case Kind::kStr:
      return StrToOwned(obj, out);
    case Kind::kBytes:
      return BytesToOwned(obj, out);
    case Kind::kNative: {
      const bool is_str = PyUnicode_Check(obj);
      const bool is_bytes = !is_str && PyBytes_Check(obj);
      const int cached = CachedObjectToOwned(obj,
                                             is_str     ? kTVMFFIStr
                                             : is_bytes ? kTVMFFIBytes
                                                        : kTVMFFIShape,
                                             out);
      if (cached != 0) return cached > 0;
      if (is_str) return StrToOwned(obj, out);
      if (is_bytes) return BytesToOwned(obj, out);
      return ContainerToOwned(obj, Kind::kShape, out);
    }
    case Kind::kBuffer:
    case Kind::kExchange:
    case Kind::kTorchLegacy:
    case Kind::kDLPack: {
      if (tls_pack_frame != nullptr && AutogradWrites(*tls_pack_frame, e.fw, tls_pack_arg) &&
          !NoteWrittenTensor(*tls_pack_frame, tls_pack_arg, true, obj)) {
        return false;
      }
      DLManagedTensorVersioned* m = ManagedFromPy(obj);
      if (m == nullptr) return false;
      // Read-only memory never enters an FFI value: a checked copy inside a
      // call's argument, else a snapshot copy.
      if (IsReadOnly(m)) {
        m = ProtectOwned(tls_pack_frame, tls_pack_arg, true, m, obj, nullptr);
        if (m == nullptr) return false;
      }
      const DLDevice dev = m->dl_tensor.device;
      TVMFFIObjectHandle h = nullptr;
      if (TVMFFITensorFromDLPackVersioned(m, 0, 0, &h) != 0) {
        SetPyErrorFromFFI();
        return false;
      }
      out->type_index = kTVMFFITensor;
      out->v_obj = static_cast<TVMFFIObject*>(h);
      // A framework tensor inside a call's list or dict argument gives the
      // call its framework (allocator, results, stream) as a direct one does.
      if (tls_pack_frame != nullptr && e.fw != nullptr) {
        NoteFramework(*tls_pack_frame, e.fw);
        if (!NoteDevice(*tls_pack_frame, e.fw, dev)) {
          TVMFFIObjectDecRef(h);  // the caller releases only what succeeded
          return false;
        }
      }
      return true;
    }
    case Kind::kShape:
    case Kind::kSequence:
    case Kind::kMapping:
      return ContainerToOwned(obj, e.kind, out);
    case Kind::kBadExchange:
      return BadExchangeError(t);
    case Kind::kRValueRef: {
      // obj._move() as an owned value (a callback's result, a list item): the
      // object's reference is taken over and the Python object left empty.
      // A tensor inside a call's argument goes the object way (read-only
      // tensors are copied there).
      PyObject* target = RValueRefTarget(obj);
      if (target == nullptr) return false;
      TVMFFIObjectHandle* handle = &nb::inst_ptr<ObjectRef>(target)->handle;
      bool ok = true;
      if (tls_pack_frame != nullptr && TVMFFIObjectGetTypeIndex(*handle) == kTVMFFITensor) {
        ok = PyToOwnedAny(target, out);
      } else {
        out->type_index = TVMFFIObjectGetTypeIndex(*handle);
        out->v_obj = static_cast<TVMFFIObject*>(*handle);
        *handle = nullptr;
      }
      Py_DECREF(target);
      return ok;
    }
    case Kind::kCallable: {
      TVMFFIObjectHandle h = FunctionFromCallable(obj);
      if (h == nullptr) return false;
      out->type_index = kTVMFFIFunction;
      out->v_obj = static_cast<TVMFFIObject*>(h);
      return true;
    }
    case Kind::kUnsupported: {
      const int done = PackFallback(obj, out);
      if (done != 0) return done > 0;
      break;
    }
  }
  PyErr_Format(PyExc_TypeError,
               "cannot convert an object of type '%s' to a tvmffi value: it is neither an FFI "
               "value nor a DLPack tensor (no __dlpack__)",
               t->tp_name);
  return false;
}

void SetPackFallback(nb::handle hook) {
  PyObject* old = g_pack_fallback;
  g_pack_fallback = hook.is_none() ? nullptr : hook.inc_ref().ptr();
  Py_XDECREF(old);
}

}  // namespace tvmffi_py

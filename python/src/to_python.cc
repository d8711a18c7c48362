// Owned TVMFFIAny results -> Python values (AnyToPy), as upstream's package
// gives them.

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

namespace tvmffi_py {

// ---------------------------------------------------------------------------
// Any -> Python
// ---------------------------------------------------------------------------

PyObject* StrFromBytes(const char* data, size_t size) {
  return PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(size), "surrogateescape");
}

PyObject* TensorToFramework(TVMFFIObjectHandle h, const Framework* fw) {
  if (fw->api != nullptr && fw->api->managed_tensor_to_py_object_no_sync != nullptr) {
    // A read-only result is copied for a framework that ignores the flag (export.cc).
    PyObject* out = ExportToFramework(h, fw->api, "a tensor returned to the framework");
    TVMFFIObjectDecRef(h);
    return out;
  }
  nb::object wrapped = WrapObject(h);
  const Hooks& hooks = GetHooks();
  if (hooks.fw_from_tensor == nullptr) return wrapped.release().ptr();
  return PyObject_CallFunctionObjArgs(hooks.fw_from_tensor, fw->name, wrapped.ptr(), nullptr);
}

// A container returned by a call with framework tensors: its wrapper carries
// the framework's name, so the tensors read from it come out as the
// framework's (container.py, _lift). A wrapper class without the attribute
// leaves it untagged.
TVMFFI_PY_COLD PyObject* ContainerInFramework(TVMFFIObjectHandle h, const Framework* fw) {
  PyObject* r = nullptr;
  try {
    r = WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    return nullptr;
  }
  static PyObject* const kAttr = PyUnicode_InternFromString("_tvm_ffi_framework");
  if (kAttr == nullptr || PyObject_SetAttr(r, kAttr, fw->name) != 0) {
    PyErr_Clear();
  } else {
    g_containers_tagged = true;
  }
  return r;
}

// An opaque pointer as a ctypes.c_void_p, as upstream's package gives it (NULL:
// c_void_p(None), a value that is not None). The class is looked up once; the
// instance is made by its tp_new (zero-filled: NULL) and the pointer written
// through its buffer (cheaper than calling the class with an int).
PyObject* OpaquePtrToPy(void* p) {
  static PyTypeObject* cls = nullptr;
  static PyObject* no_args = nullptr;
  if (cls == nullptr) {
    PyObject* mod = PyImport_ImportModule("ctypes");
    if (mod == nullptr) return nullptr;
    PyObject* c_void_p = PyObject_GetAttrString(mod, "c_void_p");
    Py_DECREF(mod);
    if (c_void_p == nullptr || (no_args = PyTuple_New(0)) == nullptr) {
      Py_XDECREF(c_void_p);
      return nullptr;
    }
    cls = reinterpret_cast<PyTypeObject*>(c_void_p);
  }
  PyObject* r = cls->tp_new(cls, no_args, nullptr);
  if (r == nullptr || p == nullptr) return r;
  Py_buffer view;
  if (PyObject_GetBuffer(r, &view, PyBUF_WRITABLE) != 0) {
    Py_DECREF(r);
    return nullptr;
  }
  if (view.len == static_cast<Py_ssize_t>(sizeof(p))) std::memcpy(view.buf, &p, sizeof(p));
  const bool ok = view.len == static_cast<Py_ssize_t>(sizeof(p));
  PyBuffer_Release(&view);
  if (!ok) {
    Py_DECREF(r);
    PyErr_SetString(PyExc_SystemError, "tvmffi: ctypes.c_void_p is not pointer-sized");
    return nullptr;
  }
  return r;
}

// The size from which ffi.String / ffi.Bytes results keep their object (AnyToPy).
constexpr size_t kKeepStringMinSize = 128;

// `value` (a str, bytes or tuple: stolen) as an instance of `cls`, a Python
// subclass of `base`, that keeps the FFI object `h` (stolen) as its
// _tvm_ffi_cached_object: passed back to a call, it is `h` again (no copy).
// Made by base's tp_new, not cls.__new__ (Python code; Shape.__new__ makes a
// new FFI object).
TVMFFI_PY_COLD PyObject* KeepingObject(PyTypeObject* base, PyObject* cls, PyObject* value,
                                       TVMFFIObjectHandle h) {
  PyObject* args = value != nullptr ? PyTuple_Pack(1, value) : nullptr;
  Py_XDECREF(value);
  PyObject* r =
      args != nullptr ? base->tp_new(reinterpret_cast<PyTypeObject*>(cls), args, nullptr) : nullptr;
  Py_XDECREF(args);
  if (r == nullptr) {
    TVMFFIObjectDecRef(h);
    return nullptr;
  }
  PyObject* obj = nullptr;
  try {
    obj = WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    Py_DECREF(r);
    return nullptr;
  }
  const int rc = PyObject_SetAttr(r, CachedObjectName(), obj);
  Py_DECREF(obj);
  if (rc != 0) Py_CLEAR(r);
  return r;
}

PyObject* AnyToPy(TVMFFIAny* a, const Framework* fw) {
  switch (a->type_index) {
    case kTVMFFINone:
      Py_RETURN_NONE;
    case kTVMFFIInt:
      return PyLong_FromLongLong(a->v_int64);
    case kTVMFFIBool:
      return PyBool_FromLong(a->v_int64 != 0);
    case kTVMFFIFloat:
      return PyFloat_FromDouble(a->v_float64);
    case kTVMFFIOpaquePtr:
      return OpaquePtrToPy(a->v_ptr);
    case kTVMFFISmallStr:
      return StrFromBytes(a->v_bytes, a->small_str_len);
    case kTVMFFISmallBytes:
      return PyBytes_FromStringAndSize(a->v_bytes, static_cast<Py_ssize_t>(a->small_str_len));
    case kTVMFFIDataType: {
      TVMFFIAny s;
      const DLDataType& t = a->v_dtype;
      if (t.code == kDLOpaqueHandle && t.bits == 0 && t.lanes == 0) {
        // The void type prints as "" (upstream's spelling), which no dtype
        // parses (issue #25): it comes to Python by its name, "void".
        s.type_index = kTVMFFISmallStr;
        s.zero_padding = 0;
        s.small_str_len = 4;
        std::memcpy(s.v_bytes, "void", 4);
      } else if (TVMFFIDataTypeToString(&a->v_dtype, &s) != 0) {
        SetPyErrorFromFFI();
        return nullptr;
      }
      PyObject* str = AnyToPy(&s, nullptr);
      const Hooks& h = GetHooks();
      if (str == nullptr || h.dtype_cls == nullptr) return str;
      PyObject* r = PyObject_CallOneArg(h.dtype_cls, str);
      Py_DECREF(str);
      return r;
    }
    case kTVMFFIDevice: {
      PyObject* cls = GetHooks().device_cls;  // core._set_class_device's, if any
      if (cls == nullptr) cls = reinterpret_cast<PyObject*>(GetCoreTypes().device);
      nb::object d = nb::inst_alloc(cls);
      new (nb::inst_ptr<DeviceValue>(d)) DeviceValue{a->v_device};
      nb::inst_mark_ready(d);
      return d.release().ptr();
    }
    default:
      break;
  }
  if (a->type_index < kTVMFFIStaticObjectBegin) {
    PyErr_Format(PyExc_TypeError, "tvmffi: cannot convert a value of type index %d to Python",
                 a->type_index);
    return nullptr;
  }
  TVMFFIObjectHandle h = a->v_obj;
  switch (a->type_index) {
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      // A long string (kKeepStringMinSize bytes or more) comes back as a
      // core.String / core.Bytes that keeps the object, as upstream's: passed
      // back, it is not copied again. Shorter ones are plain str / bytes: the
      // subclass instance and the kept object would triple their cost.
      const TVMFFIByteArray* ba = TVMFFIBytesGetByteArrayPtr(h);
      const bool is_str = a->type_index == kTVMFFIStr;
      PyObject* r = is_str ? StrFromBytes(ba->data, ba->size)
                           : PyBytes_FromStringAndSize(ba->data, static_cast<Py_ssize_t>(ba->size));
      PyObject* cls = is_str ? GetHooks().string_cls : GetHooks().bytes_cls;
      if (cls != nullptr && ba->size >= kKeepStringMinSize) {
        return KeepingObject(is_str ? &PyUnicode_Type : &PyBytes_Type, cls, r, h);
      }
      TVMFFIObjectDecRef(h);
      return r;
    }
    case kTVMFFIShape: {
      const TVMFFIShapeCell* cell = TVMFFIShapeGetCellPtr(h);
      PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(cell->size));
      if (tup != nullptr) {
        for (size_t k = 0; k < cell->size; ++k) {
          PyTuple_SET_ITEM(tup, k, PyLong_FromLongLong(cell->data[k]));
        }
      }
      const Hooks& hooks = GetHooks();
      if (hooks.shape_cls != nullptr) return KeepingObject(&PyTuple_Type, hooks.shape_cls, tup, h);
      TVMFFIObjectDecRef(h);
      return tup;
    }
    case kTVMFFITensor:
      if (fw != nullptr) return TensorToFramework(h, fw);
      break;
    case kTVMFFIArray:
    case kTVMFFIList:
    case kTVMFFIMap:
    case kTVMFFIDict:
      if (fw != nullptr) return ContainerInFramework(h, fw);
      break;
    case kTVMFFIBigInt: {
      // An ffi.BigInt is a Python int: from its words (least significant
      // first, little-endian on the runtime's platforms).
      const TVMFFIByteArray words = TVMFFIBigIntGetContentByteArray(a);
      PyObject* r = nullptr;
      if (words.data == nullptr) {
        SetPyErrorFromFFI();
      } else {
        nb::object data =
            nb::steal(PyBytes_FromStringAndSize(words.data, static_cast<Py_ssize_t>(words.size)));
        if (data.is_valid()) {
          r = PyObject_CallMethod(reinterpret_cast<PyObject*>(&PyLong_Type), "from_bytes", "(Os)",
                                  data.ptr(), "little");
          // from_bytes has no positional `signed`: subtract 2^(8n) for a negative top word.
          if (r != nullptr && (static_cast<unsigned char>(words.data[words.size - 1]) & 0x80)) {
            nb::object shift = nb::steal(PyLong_FromSize_t(words.size * 8));
            nb::object one = nb::steal(PyLong_FromLong(1));
            nb::object span = nb::steal(PyNumber_Lshift(one.ptr(), shift.ptr()));
            PyObject* neg = span.is_valid() ? PyNumber_Subtract(r, span.ptr()) : nullptr;
            Py_DECREF(r);
            r = neg;
          }
        }
      }
      TVMFFIObjectDecRef(h);
      return r;
    }
    case kTVMFFIOpaquePyObject: {
      // A Python object carried across the FFI comes back as itself.
      PyObject* held = nullptr;
      std::memcpy(&held, reinterpret_cast<const char*>(h) + sizeof(TVMFFIObject), sizeof(held));
      if (held == nullptr) held = Py_None;
      Py_INCREF(held);
      TVMFFIObjectDecRef(h);
      return held;
    }
    default:
      break;
  }
  try {
    return WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    return nullptr;
  }
}

}  // namespace tvmffi_py

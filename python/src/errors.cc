// Errors in both directions (an ffi.Error <-> a Python exception, the same
// object each way) and the signal check a long call makes (Ctrl-C).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <nanobind/stl/string.h>

#include "bindings.h"

namespace tvmffi_py {

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------
void SetPyErrorFromFFI() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "tvmffi: a call failed without raising an error");
    }
    return;
  }
  PyErr_Clear();
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  PyObject* kind = PyUnicode_DecodeUTF8(cell->kind.data, cell->kind.size, "replace");
  PyObject* msg = PyUnicode_DecodeUTF8(cell->message.data, cell->message.size, "replace");
  PyObject* bt = PyUnicode_DecodeUTF8(cell->backtrace.data, cell->backtrace.size, "replace");
  const Hooks& h = GetHooks();
  PyObject* exc = nullptr;
  if (h.make_error != nullptr && kind && msg && bt) {
    // The hook takes a reference to the error (the exception's __tvm_ffi_error__).
    PyObject* addr = PyLong_FromVoidPtr(err);
    if (addr != nullptr) {
      TVMFFIObjectIncRef(err);
      exc = PyObject_CallFunctionObjArgs(h.make_error, kind, msg, bt, addr, nullptr);
      Py_DECREF(addr);
    }
  }
  TVMFFIObjectDecRef(err);
  if (exc != nullptr) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
    Py_DECREF(exc);
  } else if (!PyErr_Occurred()) {
    PyErr_Format(PyExc_RuntimeError, "%U: %U", kind, msg);
  }
  Py_XDECREF(kind);
  Py_XDECREF(msg);
  Py_XDECREF(bt);
}

void ThrowFFIError() {
  SetPyErrorFromFFI();
  throw nb::python_error();
}

void SetFFIErrorFromPython() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value != nullptr && tb != nullptr) PyException_SetTraceback(value, tb);
  std::string kind = "RuntimeError", msg, bt;
  const Hooks& h = GetHooks();
  PyObject* info = (h.error_info != nullptr && value != nullptr)
                       ? PyObject_CallOneArg(h.error_info, value)
                       : nullptr;
  const char *k = nullptr, *m = nullptr, *b = nullptr;
  unsigned long long prior = 0;  // NOLINT(runtime/int): the error it came from, if any
  if (info != nullptr && PyArg_ParseTuple(info, "sss|K", &k, &m, &b, &prior)) {
    kind = k;
    msg = m;
    bt = b;
  } else {
    PyErr_Clear();
    if (type != nullptr) kind = reinterpret_cast<PyTypeObject*>(type)->tp_name;
    PyObject* s = value != nullptr ? PyObject_Str(value) : nullptr;
    const char* cs = s != nullptr ? PyUnicode_AsUTF8(s) : nullptr;
    if (cs != nullptr) msg = cs;
    PyErr_Clear();
    Py_XDECREF(s);
  }
  Py_XDECREF(info);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  TVMFFIByteArray kb{kind.data(), kind.size()}, mb{msg.data(), msg.size()},
      bb{bt.data(), bt.size()};
  if (prior != 0) {
    // An exception made from an FFI error goes back as that very error, the
    // Python frames it crossed appended to its backtrace. (The hook checked it
    // is an ffi.Error and gave a reference of its own, released here.)
    TVMFFIObjectHandle err = reinterpret_cast<TVMFFIObjectHandle>(prior);
    const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    if (cell->update_backtrace != nullptr && !bt.empty()) {
      cell->update_backtrace(err, &bb, kTVMFFIBacktraceUpdateModeAppend);
    }
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
    return;
  }
  TVMFFIObjectHandle err = nullptr;
  if (TVMFFIErrorCreate(&kb, &mb, &bb, &err) == 0) {
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
  } else {
    TVMFFIErrorSetRaisedFromCStr(kind.c_str(), msg.c_str());
  }
}

// TVM_FFI_RELEASE_GIL_BY_DEFAULT as upstream reads it: int(value), 1 when unset.
bool ReleaseGilByDefault() {
  const char* v = std::getenv("TVM_FFI_RELEASE_GIL_BY_DEFAULT");
  if (v == nullptr) return true;
  nb::object n = nb::steal(PyLong_FromUnicodeObject(nb::str(v).ptr(), 10));
  if (!n.is_valid()) throw nb::python_error();
  return PyObject_IsTrue(n.ptr()) == 1;
}

// The TVMFFIEnvCheckSignals hook: a long call that checks for signals sees
// Ctrl-C (any signal whose Python handler raises) as the handler's exception,
// raised as an FFI error that the call returns (KeyboardInterrupt in Python).
// Takes the GIL: the call runs without it. Handlers run on the main thread
// only; elsewhere this is a no-op.
int CheckSignals() {
  PyGILState_STATE g;
  if (!EnterPython(&g)) return 0;
  int rc = 0;
  if (PyErr_CheckSignals() != 0) {
    SetFFIErrorFromPython();
    rc = -1;
  }
  LeavePython(g);
  return rc;
}

void InstallSignalCheck() {
  Check(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", reinterpret_cast<void*>(&CheckSignals)));
}

}  // namespace tvmffi_py

// Functions made in Python: a Python callable as an ffi.Function (callbacks
// take the GIL), C and MLIR-compiled safe calls given by address.

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
// Python callables as Functions
// ---------------------------------------------------------------------------

int PySafeCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  PyGILState_STATE g;
  if (!EnterPython(&g)) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError",
                                 "tvmffi: a Python callback was called while the Python "
                                 "interpreter is exiting");
    return -1;
  }
  int rc = -1;
  PyObject* tuple = PyTuple_New(num_args);
  bool ok = tuple != nullptr;
  // Tensors lent as DLTensor*: the callback gets owning copies, written back
  // when it returns (AnyViewToPy), so that nothing it keeps can dangle.
  std::unique_ptr<LentTensor[]> lent;
  for (int32_t i = 0; ok && i < num_args; ++i) {
    if (args[i].type_index == kTVMFFIDLTensorPtr && lent == nullptr) {
      lent.reset(new (std::nothrow) LentTensor[num_args]);
      if (lent == nullptr) {
        PyErr_NoMemory();
        ok = false;
        break;
      }
    }
    PyObject* v = AnyViewToPy(&args[i], lent != nullptr ? &lent[i] : nullptr);
    if (v == nullptr) {
      ok = false;
    } else {
      PyTuple_SET_ITEM(tuple, i, v);
    }
  }
  PyObject* ret = ok ? PyObject_Call(static_cast<PyObject*>(self), tuple, nullptr) : nullptr;
  bool returned = true;
  for (int32_t i = 0; lent != nullptr && i < num_args; ++i) {
    returned = ReturnLentTensor(&lent[i]) && returned;
  }
  if (ret != nullptr) {
    if (returned && PyToOwnedAny(ret, result)) rc = 0;
    Py_DECREF(ret);
  }
  Py_XDECREF(tuple);
  if (rc != 0) SetFFIErrorFromPython();
  LeavePython(g);
  return rc;
}

void PyDeleter(void* self) {
  PyGILState_STATE g;
  if (!EnterPython(&g)) return;  // the interpreter is exiting or gone: leak rather than crash
  Py_DECREF(static_cast<PyObject*>(self));
  LeavePython(g);
}

TVMFFIObjectHandle FunctionFromCallable(PyObject* callable) {
  TVMFFIObjectHandle out = nullptr;
  Py_INCREF(callable);
  if (TVMFFIFunctionCreate(callable, PySafeCall, PyDeleter, &out) != 0) {
    Py_DECREF(callable);
    SetPyErrorFromFFI();
    return nullptr;
  }
  return out;
}

// ---------------------------------------------------------------------------
// C functions as Functions (Function.__from_extern_c__ and
// Function.__from_mlir_packed_safe_call__): JIT-compiled code hands over an
// address; an optional Python object (the engine that owns the code) is kept
// alive as long as the function.
// ---------------------------------------------------------------------------

// A Python int (or an object with __index__) as a non-NULL address.
void* AddressFromPy(nb::handle value, const char* what) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw nb::type_error((std::string("argument `") + what +
                          "` must be an int address, got an object of type '" +
                          Py_TYPE(value.ptr())->tp_name + "'")
                             .c_str());
  }
  void* addr = PyLong_AsVoidPtr(index);
  Py_DECREF(index);
  if (addr == nullptr) {
    if (PyErr_Occurred()) throw nb::python_error();
    throw nb::value_error((std::string("argument `") + what + "` is NULL").c_str());
  }
  return addr;
}

// MLIR's "packed" convention: one array of pointers to the arguments
// (handle, args, num_args, result) and to the return code.
struct MlirPackedCall {
  void (*packed)(void**);
  PyObject* keep_alive;  // owned, or NULL
};

int MlirPackedSafeCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  auto* call = static_cast<MlirPackedCall*>(self);
  void* handle = nullptr;  // the callee ignores it, as a safe call's `self`
  int rc = 0;
  void* packed[] = {&handle, &args, &num_args, &result, &rc};
  call->packed(packed);
  return rc;
}

void MlirPackedDeleter(void* self) {
  auto* call = static_cast<MlirPackedCall*>(self);
  if (call->keep_alive != nullptr) PyDeleter(call->keep_alive);
  delete call;
}

nb::object FunctionFromExternC(nb::handle c_symbol, nb::handle keep_alive) {
  auto call = reinterpret_cast<TVMFFISafeCallType>(AddressFromPy(c_symbol, "c_symbol"));
  const bool keep = !keep_alive.is_none();
  TVMFFIObjectHandle h = nullptr;
  if (keep) Py_INCREF(keep_alive.ptr());
  if (TVMFFIFunctionCreate(keep ? keep_alive.ptr() : nullptr, call, keep ? PyDeleter : nullptr,
                           &h) != 0) {
    if (keep) Py_DECREF(keep_alive.ptr());
    ThrowFFIError();
  }
  return WrapObject(h);
}

nb::object FunctionFromMlirPacked(nb::handle symbol, nb::handle keep_alive) {
  auto packed = reinterpret_cast<void (*)(void**)>(AddressFromPy(symbol, "mlir_packed_symbol"));
  auto* call = new MlirPackedCall{packed, nullptr};
  if (!keep_alive.is_none()) call->keep_alive = keep_alive.inc_ref().ptr();
  TVMFFIObjectHandle h = nullptr;
  if (TVMFFIFunctionCreate(call, MlirPackedSafeCall, MlirPackedDeleter, &h) != 0) {
    Py_XDECREF(call->keep_alive);
    delete call;
    ThrowFFIError();
  }
  return WrapObject(h);
}

}  // namespace tvmffi_py

// Tensor allocators of a call: TVMFFIEnvTensorAlloc asks the arguments'
// framework (through the Python hook) or `with tvmffi.use_allocator(...)`.

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
// Allocators: TVMFFIEnvTensorAlloc during a call asks the framework of the
// arguments (through the Python hook, for frameworks without an exchange
// API), or the callable of `with tvmffi.use_allocator(...)` when the call has
// no framework tensor.
// ---------------------------------------------------------------------------
// The thread's use_allocator scopes: a list whose last item is the callable
// calls get (tvmffi/allocator.py keeps it; a scope may be removed from it on
// another thread), or one callable; NULL: none. A strong reference.
thread_local PyObject* tls_scoped_alloc = nullptr;

// The scoped allocator calls get now (a new reference), or NULL.
PyObject* CurrentScopedAlloc() {
  PyObject* a = tls_scoped_alloc;
  if (a != nullptr && PyList_Check(a)) {
    const Py_ssize_t n = PyList_GET_SIZE(a);
    a = n > 0 ? PyList_GET_ITEM(a, n - 1) : nullptr;
  }
  Py_XINCREF(a);
  return a;
}

// "shape (2, 3), dtype float32, device type 1 (id 0)" (a new reference; NULL with an error).
PyObject* DescribeTensor(const DLTensor& t) {
  std::string shape = "(";
  for (int k = 0; k < t.ndim; ++k) {
    shape += std::to_string(t.shape[k]);
    if (k + 1 < t.ndim || t.ndim == 1) shape += t.ndim == 1 ? "," : ", ";
  }
  shape += ")";
  TVMFFIAny dtype_str;
  if (TVMFFIDataTypeToString(&t.dtype, &dtype_str) != 0) {
    SetPyErrorFromFFI();
    return nullptr;
  }
  PyObject* dtype = AnyToPy(&dtype_str, nullptr);
  if (dtype == nullptr) return nullptr;
  PyObject* r = PyUnicode_FromFormat("shape %s, dtype %U, device type %d (id %d)", shape.c_str(),
                                     dtype, static_cast<int>(t.device.device_type),
                                     static_cast<int>(t.device.device_id));
  Py_DECREF(dtype);
  return r;
}

bool MatchesPrototype(const DLTensor& t, const DLTensor& proto) {
  if (t.ndim != proto.ndim || t.dtype.code != proto.dtype.code ||
      t.dtype.bits != proto.dtype.bits || t.dtype.lanes != proto.dtype.lanes ||
      t.device.device_type != proto.device.device_type ||
      t.device.device_id != proto.device.device_id) {
    return false;
  }
  for (int k = 0; k < t.ndim; ++k) {
    if (t.shape[k] != proto.shape[k]) return false;
  }
  return true;
}

int PyAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* error_ctx,
            void (*set_error)(void*, const char*, const char*), bool scoped) {
  PyGILState_STATE g;
  if (!EnterPython(&g)) {
    set_error(error_ctx, "RuntimeError",
              "tvmffi: a Python allocator was asked for a tensor while the Python interpreter "
              "is exiting");
    return -1;
  }
  int rc = -1;
  const Framework* fw = tls_alloc_fw;
  const Hooks& h = GetHooks();
  PyObject* shape = PyTuple_New(proto->ndim);
  for (int k = 0; k < proto->ndim; ++k) {
    PyTuple_SET_ITEM(shape, k, PyLong_FromLongLong(proto->shape[k]));
  }
  TVMFFIAny dtype_str;
  PyObject* dtype = nullptr;
  PyObject* obj = nullptr;
  if (TVMFFIDataTypeToString(&proto->dtype, &dtype_str) == 0) {
    dtype = AnyToPy(&dtype_str, nullptr);
  } else {
    SetPyErrorFromFFI();
  }
  const int dev_type = static_cast<int>(proto->device.device_type);
  const int dev_id = static_cast<int>(proto->device.device_id);
  PyObject* scoped_fn = scoped ? CurrentScopedAlloc() : nullptr;
  if (dtype != nullptr && scoped_fn != nullptr) {
    obj = PyObject_CallFunction(scoped_fn, "OOii", shape, dtype, dev_type, dev_id);
  } else if (dtype != nullptr && !scoped && fw != nullptr && h.fw_alloc != nullptr) {
    obj = PyObject_CallFunction(h.fw_alloc, "OOOii", fw->name, shape, dtype, dev_type, dev_id);
  } else if (!PyErr_Occurred()) {
    PyErr_SetString(PyExc_RuntimeError, "tvmffi: no tensor allocator is set for this call");
  }
  Py_XDECREF(scoped_fn);
  if (obj != nullptr) {
    DLManagedTensorVersioned* m = ManagedFromPy(obj);
    if (m != nullptr && (!MatchesPrototype(m->dl_tensor, *proto) || IsReadOnly(m))) {
      PyObject* got = DescribeTensor(m->dl_tensor);
      PyObject* want = got != nullptr ? DescribeTensor(*proto) : nullptr;
      if (want != nullptr) {
        PyErr_Format(PyExc_ValueError,
                     "tvmffi: the allocator returned a %stensor of %U for a request of %U",
                     IsReadOnly(m) ? "read-only " : "", got, want);
      }
      Py_XDECREF(got);
      Py_XDECREF(want);
      ReleaseManaged(m);
      m = nullptr;
    }
    Py_DECREF(obj);
    if (m != nullptr) {
      *out = m;
      rc = 0;
    }
  }
  Py_DECREF(shape);
  Py_XDECREF(dtype);
  if (rc != 0) {
    SetFFIErrorFromPython();
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) {
      TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
      std::string kind(cell->kind.data, cell->kind.size);
      std::string msg(cell->message.data, cell->message.size);
      set_error(error_ctx, kind.c_str(), msg.c_str());
      TVMFFIObjectDecRef(err);
    } else {
      set_error(error_ctx, "RuntimeError", "tvmffi: the allocator failed");
    }
  }
  LeavePython(g);
  return rc;
}

// The allocator installed for frameworks without an exchange API: asks the
// framework (through the Python hook) for an empty tensor.
int PyFrameworkAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void*, const char*, const char*)) {
  return PyAlloc(proto, out, error_ctx, set_error, false);
}

// The allocator of `with tvmffi.use_allocator(...)`.
int PyScopedAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* error_ctx,
                  void (*set_error)(void*, const char*, const char*)) {
  return PyAlloc(proto, out, error_ctx, set_error, true);
}

nb::tuple SwapScopedAllocator(nb::handle callable) {
  DLPackManagedTensorAllocator prev_env = nullptr;
  Check(TVMFFIEnvSetDLPackManagedTensorAllocator(callable.is_none() ? nullptr : PyScopedAlloc, 0,
                                                 &prev_env));
  PyObject* prev = tls_scoped_alloc;  // its reference moves into the tuple
  tls_scoped_alloc = callable.is_none() ? nullptr : callable.inc_ref().ptr();
  return nb::make_tuple(prev != nullptr ? nb::steal(prev) : nb::none(),
                        reinterpret_cast<uintptr_t>(prev_env));
}

void RestoreScopedAllocator(nb::handle callable, uintptr_t env_allocator) {
  Check(TVMFFIEnvSetDLPackManagedTensorAllocator(
      reinterpret_cast<DLPackManagedTensorAllocator>(env_allocator), 0, nullptr));
  PyObject* cur = tls_scoped_alloc;
  tls_scoped_alloc = callable.is_none() ? nullptr : callable.inc_ref().ptr();
  Py_XDECREF(cur);
}

}  // namespace tvmffi_py

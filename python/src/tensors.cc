// DLTensorTestWrapper (tvmffi.core, for tests): a class with its own DLPack C
// exchange API, as a framework's.

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
// DLTensorTestWrapper (tvmffi.core, for tests): a tvmffi.Tensor behind a
// class of its own whose DLPack C exchange API (__dlpack_c_exchange_api__)
// is implemented here, as a framework's would be: arguments of that class
// take the exchange-API path, results come back through the API as Tensors.
// ---------------------------------------------------------------------------

int TestWrapperToManaged(void* py_object, DLManagedTensorVersioned** out) {
  nb::handle self(static_cast<PyObject*>(py_object));
  // The API's own results are tvmffi.Tensors (TestWrapperFromManaged): take them too.
  nb::handle tensor = self;
  if (nb::isinstance<DLTensorTestWrapper>(self)) {
    const DLTensorTestWrapper* w = nb::inst_ptr<DLTensorTestWrapper>(self);
    if (!nb::inst_ready(self) || !w->tensor.is_valid()) {
      PyErr_SetString(PyExc_TypeError, "DLTensorTestWrapper is not initialised");
      return -1;
    }
    tensor = w->tensor;
  } else if (!PyObject_TypeCheck(self.ptr(), GetCoreTypes().tensor) || !nb::inst_ready(self) ||
             nb::inst_ptr<ObjectRef>(self)->handle == nullptr) {
    PyErr_SetString(PyExc_TypeError, "expected a DLTensorTestWrapper or a tvmffi.Tensor");
    return -1;
  }
  if (TVMFFITensorToDLPackVersioned(nb::inst_ptr<ObjectRef>(tensor)->handle, out) != 0) {
    SetPyErrorFromFFI();
    return -1;
  }
  return 0;
}

int TestWrapperFromManaged(DLManagedTensorVersioned* managed, void** out) {
  TVMFFIObjectHandle h = nullptr;
  if (TVMFFITensorFromDLPackVersioned(managed, 0, 0, &h) != 0) {
    SetPyErrorFromFFI();
    return -1;
  }
  try {
    *out = WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    return -1;
  }
  return 0;
}

int TestWrapperStream(DLDeviceType device_type, int32_t device_id, void** out) {
  *out = device_type == kDLCPU ? nullptr : TVMFFIEnvGetStream(device_type, device_id);
  return 0;
}

DLPackExchangeAPI* TestWrapperApi() {
  static DLPackExchangeAPI api = [] {
    DLPackExchangeAPI a;
    std::memset(&a, 0, sizeof(a));
    a.header.version.major = DLPACK_MAJOR_VERSION;
    a.header.version.minor = DLPACK_MINOR_VERSION;
    a.header.prev_api = nullptr;
    a.managed_tensor_allocator = nullptr;  // tensors are made by the runtime
    a.managed_tensor_from_py_object_no_sync = TestWrapperToManaged;
    a.managed_tensor_to_py_object_no_sync = TestWrapperFromManaged;
    a.dltensor_from_py_object_no_sync = nullptr;
    a.current_work_stream = TestWrapperStream;
    return a;
  }();
  return &api;
}

}  // namespace tvmffi_py

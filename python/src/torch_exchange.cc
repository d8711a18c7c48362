// tvmffi._torch_exchange: the DLPack C exchange API for torch versions that do
// not offer one (torch < 2.10 has no torch.Tensor.__dlpack_c_exchange_api__).
// Built against the torch found at configure time; tvmffi uses it only when
// the running torch is that version (tvmffi/_framework.py checks). The wheel
// also ships this file as tvmffi/_torch_exchange.cc, from which
// tvmffi.utils._build_optional_torch_c_dlpack builds it for another torch.
//
// Debian's dlpack.h (1.x) comes first: torch's own ATen/dlpack.h has the same
// include guard and the same DLTensor/DLManagedTensor layout, so it is skipped.
// torch/csrc/autograd/python_variable.h needs pybind11; the three things used
// from libtorch_python are declared here instead, as that header has them.
#include <Python.h>
#include <dlpack/dlpack.h>

#include <ATen/DLConvertor.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/util/MaybeOwned.h>

#include <cstdint>
#include <exception>
#include <new>

extern PyObject* THPVariableClass;  // torch.Tensor (libtorch_python)
// torch.Tensor from an at::Tensor, a new reference (libtorch_python). Its
// parameter was `at::TensorBase` (by value) and became `const at::TensorBase&`
// in torch 2.x: both are declared weak, and the one this torch has is called.
__attribute__((weak)) PyObject* THPVariable_Wrap(at::TensorBase var);
__attribute__((weak)) PyObject* THPVariable_Wrap(const at::TensorBase& var);

namespace {

// The object layout of torch.Tensor instances (torch's THPVariable).
struct TorchVariable {
  PyObject_HEAD c10::MaybeOwned<at::Tensor> cdata;
  PyObject* backward_hooks;
};

// A versioned view of a legacy DLManagedTensor (owns it).
struct LegacyAsVersioned {
  DLManagedTensorVersioned v;
  DLManagedTensor* legacy;
};

void DeleteLegacyAsVersioned(DLManagedTensorVersioned* self) {
  auto* w = static_cast<LegacyAsVersioned*>(self->manager_ctx);
  if (w->legacy->deleter != nullptr) w->legacy->deleter(w->legacy);
  delete w;
}

DLManagedTensorVersioned* Versioned(DLManagedTensor* legacy) {
  auto* w = new LegacyAsVersioned();
  w->legacy = legacy;
  w->v.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  w->v.manager_ctx = w;
  w->v.deleter = DeleteLegacyAsVersioned;
  w->v.flags = 0;
  w->v.dl_tensor = legacy->dl_tensor;
  return &w->v;
}

// A legacy view of a versioned DLManagedTensorVersioned (owns it), for at::fromDLPack.
struct VersionedAsLegacy {
  DLManagedTensor l;
  DLManagedTensorVersioned* v;
};

void DeleteVersionedAsLegacy(DLManagedTensor* self) {
  auto* w = static_cast<VersionedAsLegacy*>(self->manager_ctx);
  if (w->v->deleter != nullptr) w->v->deleter(w->v);
  delete w;
}

const at::Tensor* Unpack(void* py_object) {
  PyObject* obj = static_cast<PyObject*>(py_object);
  if (THPVariableClass == nullptr ||
      !PyObject_TypeCheck(obj, reinterpret_cast<PyTypeObject*>(THPVariableClass))) {
    PyErr_Format(PyExc_TypeError, "expected a torch.Tensor, got %s", Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  return &*reinterpret_cast<TorchVariable*>(obj)->cdata;
}

// `t` as a DLTensor whose shape and strides point into `t`; -1 with BufferError.
int FillDLTensor(const at::Tensor& t, DLTensor* out) {
  try {
    out->data = t.data_ptr();
    const at::Device dev = t.device();
    if (dev.is_cpu()) {
      out->device = DLDevice{kDLCPU, 0};
    } else if (dev.is_cuda()) {
      out->device = DLDevice{kDLCUDA, dev.index()};
    } else {
      PyErr_Format(PyExc_BufferError, "tvmffi: torch device %s has no DLPack form",
                   dev.str().c_str());
      return -1;
    }
    out->ndim = static_cast<int32_t>(t.dim());
    out->dtype = at::getDLDataType(t);
    out->shape = const_cast<int64_t*>(t.sizes().data());
    out->strides = const_cast<int64_t*>(t.strides().data());
    out->byte_offset = 0;
    return 0;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
    return -1;
  }
}

int DLTensorFromPy(void* py_object, DLTensor* out) {
  const at::Tensor* t = Unpack(py_object);
  return t != nullptr ? FillDLTensor(*t, out) : -1;
}

// An export holding a shallow copy of the tensor: its own sizes and strides
// (stable if the caller's tensor is resized or re-stored later) over the same
// storage, as the view at::toDLPack makes, without that view's trip through
// the dispatcher (several times the cost per call).
struct HeldTensor {
  DLManagedTensorVersioned v;
  at::Tensor t;
};

void DeleteHeldTensor(DLManagedTensorVersioned* self) {
  delete static_cast<HeldTensor*>(self->manager_ctx);
}

int ManagedFromPy(void* py_object, DLManagedTensorVersioned** out) {
  const at::Tensor* t = Unpack(py_object);
  if (t == nullptr) return -1;
  auto* h = new (std::nothrow) HeldTensor();
  if (h == nullptr) {
    PyErr_NoMemory();
    return -1;
  }
  try {
    const c10::TensorImpl* impl = t->unsafeGetTensorImpl();
    h->t = at::Tensor(impl->shallow_copy_and_detach(impl->version_counter(),
                                                    /*allow_tensor_metadata_change=*/false));
  } catch (const std::exception& e) {
    delete h;
    PyErr_SetString(PyExc_BufferError, e.what());
    return -1;
  }
  if (FillDLTensor(h->t, &h->v.dl_tensor) != 0) {
    delete h;
    return -1;
  }
  h->v.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  h->v.manager_ctx = h;
  h->v.deleter = DeleteHeldTensor;
  h->v.flags = 0;
  *out = &h->v;
  return 0;
}

// torch.autograd's version bump of each tensor in a list, for a torch before
// 2.1 (torch._C._increment_version): what an in-place op records.
PyObject* IncrementVersion(PyObject*, PyObject* tensors) {
  if (!PyList_Check(tensors)) {
    PyErr_SetString(PyExc_TypeError, "increment_version: expected a list of torch.Tensor");
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tensors); ++i) {
    const at::Tensor* t = Unpack(PyList_GET_ITEM(tensors, i));
    if (t == nullptr) return nullptr;
    t->unsafeGetTensorImpl()->bump_version();
  }
  Py_RETURN_NONE;
}

PyObject* WrapTorchTensor(at::Tensor t) {
  auto by_ref = static_cast<PyObject* (*)(const at::TensorBase&)>(&THPVariable_Wrap);
  auto by_value = static_cast<PyObject* (*)(at::TensorBase)>(&THPVariable_Wrap);
  if (by_ref != nullptr) return by_ref(t);
  if (by_value != nullptr) return by_value(std::move(t));
  PyErr_SetString(PyExc_RuntimeError, "tvmffi: this torch exports no THPVariable_Wrap");
  return nullptr;
}

int ManagedToPy(DLManagedTensorVersioned* tensor, void** out) {
  auto* w = new VersionedAsLegacy();
  w->v = tensor;
  w->l.dl_tensor = tensor->dl_tensor;
  w->l.manager_ctx = w;
  w->l.deleter = DeleteVersionedAsLegacy;
  try {
    at::Tensor t = at::fromDLPack(&w->l);  // owns w from here on
    // torch has no read-only tensors: read-only memory comes in as a copy, on
    // any device (tvmffi shares it only with consumers that keep the flag).
    if ((tensor->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) t = t.clone();
    *out = WrapTorchTensor(std::move(t));
    return *out != nullptr ? 0 : -1;
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_BufferError, e.what());
    return -1;
  }
}

int Allocate(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
             void (*set_error)(void*, const char*, const char*)) {
  try {
    at::Device dev(at::kCPU);
    if (prototype->device.device_type == kDLCUDA) {
      dev = at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(prototype->device.device_id));
    } else if (prototype->device.device_type != kDLCPU) {
      set_error(error_ctx, "ValueError", "torch allocates on CPU and CUDA devices only");
      return -1;
    }
    const at::TensorOptions options =
        at::TensorOptions().dtype(at::toScalarType(prototype->dtype)).device(dev);
    at::Tensor t = at::empty(at::IntArrayRef(prototype->shape, prototype->ndim), options);
    *out = Versioned(at::toDLPack(t));
    return 0;
  } catch (const std::exception& e) {
    set_error(error_ctx, "RuntimeError", e.what());
    return -1;
  }
}

const DLPackExchangeAPI* Api() {
  static DLPackExchangeAPI api = [] {
    DLPackExchangeAPI a{};
    a.header.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    a.header.prev_api = nullptr;
    a.managed_tensor_allocator = Allocate;
    a.managed_tensor_from_py_object_no_sync = ManagedFromPy;
    a.managed_tensor_to_py_object_no_sync = ManagedToPy;
    a.dltensor_from_py_object_no_sync = DLTensorFromPy;
    a.current_work_stream = nullptr;  // tvmffi asks torch.cuda.current_stream() instead
    return a;
  }();
  return &api;
}

PyObject* ExchangeApi(PyObject*, PyObject*) {
  return PyCapsule_New(const_cast<DLPackExchangeAPI*>(Api()), "dlpack_exchange_api", nullptr);
}

PyMethodDef kMethods[] = {
    {"exchange_api", ExchangeApi, METH_NOARGS,
     "A capsule 'dlpack_exchange_api' holding the DLPackExchangeAPI for torch.Tensor."},
    {"increment_version", IncrementVersion, METH_O,
     "Bump the autograd version counter of each torch.Tensor in a list."},
    {nullptr, nullptr, 0, nullptr}};

PyModuleDef kModule = {PyModuleDef_HEAD_INIT,
                       "_torch_exchange",
                       "The DLPack C exchange API for torch versions without one.",
                       -1,
                       kMethods,
                       nullptr,
                       nullptr,
                       nullptr,
                       nullptr};

}  // namespace

// The same table for code that loads this file as a plain library (upstream's
// name; tvmffi.utils._build_optional_torch_c_dlpack builds it that way).
extern "C" __attribute__((visibility("default"))) int64_t TorchDLPackExchangeAPIPtr() {
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(Api()));
}

PyMODINIT_FUNC PyInit__torch_exchange() {
  PyObject* m = PyModule_Create(&kModule);
  if (m != nullptr) PyModule_AddStringConstant(m, "torch_version", TVMFFI_TORCH_VERSION);
  return m;
}

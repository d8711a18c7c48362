// Tensors leaving tvmffi for a consumer: __dlpack__ capsules (versioned and
// legacy) and frameworks' DLPack C exchange APIs (call results, convert_func).
//
// A read-only tensor (DLPACK_FLAG_BITMASK_READ_ONLY: numpy's writeable=False,
// a bytes object, a read-only memmap) is shared only with a consumer known to
// honour the flag; any other gets a private copy, since a consumer that ignores
// the flag (torch 2.11's from_dlpack) would write the producer's memory. A
// capsule's consumer is unknown: __dlpack__ copies a read-only tensor unless
// the consumer passed copy=False (then BufferError, as the array API says for
// a copy that is needed but forbidden). An exchange API's consumer is probed
// once (HonorsReadOnly). tvmffi copies host memory only: a read-only tensor
// off the host is refused where a copy is needed. Writable tensors are shared.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "bindings.h"
#include "call_internal.h"

namespace tvmffi_py {

namespace {

// A legacy view of a versioned export (owns it).
struct LegacyOverVersioned {
  DLManagedTensor legacy;
  DLManagedTensorVersioned* versioned;
};

void DeleteLegacyOverVersioned(DLManagedTensor* self) {
  auto* w = static_cast<LegacyOverVersioned*>(self->manager_ctx);
  ReleaseManaged(w->versioned);
  delete w;
}

// The probe's tensor: one float32 of host memory, freed by its deleter.
struct Probe {
  DLManagedTensorVersioned m;
  int64_t shape = 1;
  float value = 0;
};

void DeleteProbe(DLManagedTensorVersioned* self) {
  delete static_cast<Probe*>(self->manager_ctx);
}

// Whether `api`'s consumer keeps DLPack's read-only flag: it is given a
// read-only tensor, and its object is exported back. It honours the flag if it
// copied the memory or still marks it read-only; it ignores the flag if it
// shares the memory writable; a refusal counts as ignoring (it is given copies,
// which it takes). Run with the GIL held; errors are cleared.
bool ProbeReadOnly(const DLPackExchangeAPI* api) {
  if (api->managed_tensor_to_py_object_no_sync == nullptr ||
      api->managed_tensor_from_py_object_no_sync == nullptr) {
    return false;
  }
  Probe* p = new (std::nothrow) Probe();
  if (p == nullptr) return false;
  std::memset(&p->m, 0, sizeof(p->m));
  p->m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  p->m.manager_ctx = p;
  p->m.deleter = DeleteProbe;
  p->m.flags = DLPACK_FLAG_BITMASK_READ_ONLY;
  p->m.dl_tensor.data = &p->value;
  p->m.dl_tensor.device = DLDevice{kDLCPU, 0};
  p->m.dl_tensor.ndim = 1;
  p->m.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
  p->m.dl_tensor.shape = &p->shape;
  const void* ours = &p->value;
  void* obj = nullptr;
  if (api->managed_tensor_to_py_object_no_sync(&p->m, &obj) != 0 || obj == nullptr) {
    PyErr_Clear();  // refused (the consumer released or leaked the probe)
    return false;
  }
  DLManagedTensorVersioned* back = nullptr;
  bool honours = false;
  if (api->managed_tensor_from_py_object_no_sync(obj, &back) == 0 && back != nullptr) {
    const char* data = static_cast<const char*>(back->dl_tensor.data) + back->dl_tensor.byte_offset;
    honours = data != ours || IsReadOnly(back);
    ReleaseManaged(back);
  } else {
    PyErr_Clear();
  }
  Py_DECREF(static_cast<PyObject*>(obj));
  return honours;
}

}  // namespace

bool HonoursReadOnly(const DLPackExchangeAPI* api) {
  // Few APIs (one per framework): a list searched linearly, kept for the process.
  static std::vector<std::pair<const DLPackExchangeAPI*, bool>>* known =
      new std::vector<std::pair<const DLPackExchangeAPI*, bool>>();
  for (const auto& k : *known) {
    if (k.first == api) return k.second;
  }
  const bool honours = ProbeReadOnly(api);
  try {
    known->emplace_back(api, honours);
  } catch (const std::bad_alloc&) {
    // not remembered: probed again next time
  }
  return honours;
}

DLManagedTensorVersioned* ExportManaged(TVMFFIObjectHandle h, ExportCopy copy, bool honours,
                                        const char* who) {
  DLManagedTensorVersioned* m = nullptr;
  if (TVMFFITensorToDLPackVersioned(h, &m) != 0) {
    SetPyErrorFromFFI();
    return nullptr;
  }
  const bool read_only = IsReadOnly(m);
  if (copy != ExportCopy::kAlways && (!read_only || honours)) return m;  // shared
  const DLDevice dev = m->dl_tensor.device;
  if (copy == ExportCopy::kNever) {
    ReleaseManaged(m);
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor is read-only, and a consumer may ignore DLPack's read-only "
                 "flag (torch does) and write it, so tvmffi exports it only as a copy; "
                 "copy=False forbids one (pass copy=None or copy=True)",
                 who);
    return nullptr;
  }
  if (!IsHostMemory(dev)) {
    ReleaseManaged(m);
    PyErr_Format(PyExc_BufferError,
                 "%s: the tensor is %s on device type %d (id %d), and tvmffi copies host "
                 "memory only; %s",
                 who, read_only ? "read-only" : "asked for as a copy",
                 static_cast<int>(dev.device_type), static_cast<int>(dev.device_id),
                 read_only ? "a consumer may ignore DLPack's read-only flag, so it gets no "
                             "view: copy the tensor with its framework first"
                           : "pass copy=None, or copy with the consumer's framework");
    return nullptr;
  }
  // A writable snapshot (flags: IS_COPIED); `m` is released once it is copied.
  return OwnHostCopy(nullptr, -1, false, m->dl_tensor, m);
}

PyObject* ExportCapsule(TVMFFIObjectHandle h, ExportCopy copy, bool versioned, bool honours,
                        const char* who) {
  DLManagedTensorVersioned* m = ExportManaged(h, copy, honours, who);
  if (m == nullptr) return nullptr;
  if (versioned) {
    PyObject* cap = PyCapsule_New(m, "dltensor_versioned", CapsuleDeleterVersioned);
    if (cap == nullptr) ReleaseManaged(m);
    return cap;
  }
  auto* w = new (std::nothrow) LegacyOverVersioned();
  if (w == nullptr) {
    ReleaseManaged(m);
    return PyErr_NoMemory();
  }
  w->versioned = m;
  w->legacy.dl_tensor = m->dl_tensor;
  w->legacy.manager_ctx = w;
  w->legacy.deleter = DeleteLegacyOverVersioned;
  PyObject* cap = PyCapsule_New(&w->legacy, "dltensor", CapsuleDeleterLegacy);
  if (cap == nullptr) DeleteLegacyOverVersioned(&w->legacy);
  return cap;
}

PyObject* ExportToFramework(TVMFFIObjectHandle h, const DLPackExchangeAPI* api, const char* who) {
  if (api->managed_tensor_to_py_object_no_sync == nullptr) {
    PyErr_SetString(PyExc_TypeError,
                    "the DLPack C exchange API has no managed_tensor_to_py_object");
    return nullptr;
  }
  DLManagedTensorVersioned* m = ExportManaged(h, ExportCopy::kIfNeeded, HonoursReadOnly(api), who);
  if (m == nullptr) return nullptr;
  void* out = nullptr;
  if (api->managed_tensor_to_py_object_no_sync(m, &out) != 0 || out == nullptr) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "managed_tensor_to_py_object_no_sync failed");
    }
    return nullptr;
  }
  return static_cast<PyObject*>(out);
}

}  // namespace tvmffi_py

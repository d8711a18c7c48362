// Read-only and immutable tensors in calls: private copies checked after the
// call, producer copies off the host, the library's declared writes.

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
// Read-only tensors. A function is never given read-only memory: the buffer
// protocol's readonly and DLPack's read-only flag mean the producer allows no
// writes, and writing a read-only mapping (np.memmap(mode="r")) kills the
// process. On the host the function gets a private copy, compared with the
// original after the call: a write is a ValueError naming the argument, and
// the original is never touched. Off the host tvmffi reads no memory, so the
// producer is asked for a copy (__dlpack__(copy=True)); writes to that copy
// are lost, not reported; a producer that cannot copy is a ValueError.
// ---------------------------------------------------------------------------
bool IsReadOnly(const DLManagedTensorVersioned* m) {
  return (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
}

bool IsHostMemory(DLDevice d) {
  return d.device_type == kDLCPU || d.device_type == kDLCUDAHost || d.device_type == kDLROCMHost;
}

// Read-only memory for argument #arg where the library declares what the
// function writes (TVM_FFI_DLL_EXPORT_WRITES): lent as is when it does not
// write the argument (no copy), refused before the call when it does.
// Undeclared (and arguments 63 and later): a private copy, as above.

TVMFFI_PY_COLD ReadOnlyUse ReadOnlyArgUse(const CallFrame& f, int arg, bool jax = false) {
  if (arg >= 63) return ReadOnlyUse::kCopy;
  const uint64_t bit = uint64_t{1} << arg;
  if ((f.fn->keeps_args & bit) != 0) return ReadOnlyUse::kLend;
  if ((f.fn->writes_args & bit) == 0) return ReadOnlyUse::kCopy;
  nb::object self = nb::find(*f.fn);  // the Python object, for its __name__
  PyErr_Clear();
  PyObject* name = self.is_valid() ? PyObject_GetAttrString(self.ptr(), "__name__") : nullptr;
  if (name == nullptr || !PyUnicode_Check(name)) {
    PyErr_Clear();
    Py_XDECREF(name);
    name = PyUnicode_FromString("the function");
  }
  PyErr_Format(PyExc_ValueError,
               "read-only array passed to '%U', which writes argument #%d (its library "
               "declares so): %s",
               name, arg,
               jax ? "JAX arrays are immutable; to get results in JAX arrays, register the "
                     "function with tvmffi.jax.register_ffi_target and call it with "
                     "jax.ffi.ffi_call"
                   : "pass a writable array, e.g. a copy");
  Py_XDECREF(name);
  return ReadOnlyUse::kRefused;
}

void Unref(HostCopy* c) {
  if (c->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    c->~HostCopy();
    std::free(c);
  }
}

// The bytes t's elements span, relative to its first element: [lo, hi).
void ByteSpan(const DLTensor& t, int64_t* lo, int64_t* hi) {
  int64_t min_el = 0, max_el = 0, compact = 1;
  for (int k = t.ndim - 1; k >= 0; --k) {
    const int64_t n = t.shape[k];
    if (n <= 0) {
      *lo = *hi = 0;  // no elements: nothing to copy
      return;
    }
    const int64_t s = t.strides != nullptr ? t.strides[k] : compact;
    if (s >= 0) {
      max_el += (n - 1) * s;
    } else {
      min_el += (n - 1) * s;
    }
    compact *= n;
  }
  const int64_t bits = static_cast<int64_t>(t.dtype.bits) * t.dtype.lanes;
  *lo = -((-min_el * bits + 7) / 8);
  *hi = ((max_el + 1) * bits + 7) / 8;
}

// NULL with MemoryError. One malloc block: the header, then the copy.
HostCopy* CopyHost(const DLTensor& t) {
  int64_t lo = 0, hi = 0;
  ByteSpan(t, &lo, &hi);
  const char* first = static_cast<const char*>(t.data) + t.byte_offset;
  const size_t n = static_cast<size_t>(hi - lo);
  // The copy keeps the original's address modulo kAlign (DLPack's usual
  // alignment): kernels may check it. Plain malloc: posix_memalign costs more.
  constexpr uintptr_t kAlign = 64;
  void* block = std::malloc(sizeof(HostCopy) + kAlign + n);
  if (block == nullptr) {
    PyErr_NoMemory();
    return nullptr;
  }
  HostCopy* c = new (block) HostCopy();
  c->orig = first + lo;
  char* data = static_cast<char*>(block) + sizeof(HostCopy);
  const uintptr_t shift =
      (reinterpret_cast<uintptr_t>(c->orig) - reinterpret_cast<uintptr_t>(data)) % kAlign;
  c->copy = data + shift;
  c->nbytes = n;
  c->lo = lo;
  if (n != 0) std::memcpy(c->copy, c->orig, n);
  return c;
}

struct ReadOnlyCheck {
  int arg;
  bool nested;                     // a tensor inside a list or dict argument
  HostCopy* copy;                  // one reference
  DLManagedTensorVersioned* keep;  // the original's owner, released after the check (or NULL)
};

// The checks of one call: a few inline (one allocation for a typical call), more on the heap.
struct ReadOnlyChecks {
  static constexpr int kInline = 4;
  ReadOnlyCheck inline_items[kInline];
  int n_inline = 0;
  std::vector<ReadOnlyCheck> more;

  template <typename F>
  void ForEach(F&& f) const {
    for (int i = 0; i < n_inline; ++i) f(inline_items[i]);
    for (const ReadOnlyCheck& c : more) f(c);
  }
};

TVMFFI_PY_COLD void DeleteChecks(ReadOnlyChecks* checks) {
  checks->ForEach([](const ReadOnlyCheck& c) {
    Unref(c.copy);
    if (c.keep != nullptr && c.keep->deleter != nullptr) c.keep->deleter(c.keep);
  });
  delete checks;
}

// Check `copy` after the call (takes its reference and `keep`); false with MemoryError.
TVMFFI_PY_COLD bool AddCheck(CallFrame& f, int arg, bool nested, HostCopy* copy,
                             DLManagedTensorVersioned* keep) {
  try {
    if (f.checks == nullptr) f.checks = new ReadOnlyChecks();
    ReadOnlyChecks& c = *f.checks;
    if (c.n_inline < ReadOnlyChecks::kInline) {
      c.inline_items[c.n_inline++] = ReadOnlyCheck{arg, nested, copy, keep};
    } else {
      c.more.push_back(ReadOnlyCheck{arg, nested, copy, keep});
    }
    return true;
  } catch (const std::bad_alloc&) {
    Unref(copy);
    if (keep != nullptr && keep->deleter != nullptr) keep->deleter(keep);
    PyErr_NoMemory();
    return false;
  }
}

// After the call: false, with ValueError, when the function changed a copy.
TVMFFI_PY_COLD bool VerifyReadOnly(const CallFrame& f) {
  const ReadOnlyCheck* changed = nullptr;
  f.checks->ForEach([&changed](const ReadOnlyCheck& c) {
    if (changed == nullptr && std::memcmp(c.copy->orig, c.copy->copy, c.copy->nbytes) != 0) {
      changed = &c;
    }
  });
  if (changed == nullptr) return true;
  PyErr_Format(PyExc_ValueError,
               "argument #%d%s is read-only, but the function wrote to it: a function is "
               "given a private copy of read-only memory, so the original is unchanged "
               "and the result is discarded; %s",
               changed->arg, changed->nested ? " (a tensor inside it)" : "",
               f.fw != nullptr && f.fw->immutable
                   ? "JAX arrays are immutable: to get results in JAX arrays, register the "
                     "function with tvmffi.jax.register_ffi_target and call it with "
                     "jax.ffi.ffi_call"
                   : "pass a writable array for an output");
  return false;
}

// A managed tensor with t's layout over `copy` (takes one reference of it);
// NULL with MemoryError (the reference released).
struct CopyManaged {
  DLManagedTensorVersioned m;
  HostCopy* copy;
  int64_t* dims;  // shape, then strides
};

void CopyManagedDeleter(DLManagedTensorVersioned* self) {
  CopyManaged* c = static_cast<CopyManaged*>(self->manager_ctx);
  Unref(c->copy);
  delete[] c->dims;
  delete c;
}

DLManagedTensorVersioned* ManagedOverCopy(const DLTensor& t, HostCopy* copy) {
  CopyManaged* c = new (std::nothrow) CopyManaged();
  int64_t* dims = c != nullptr ? new (std::nothrow) int64_t[2 * t.ndim + 1] : nullptr;
  if (dims == nullptr) {
    delete c;
    Unref(copy);
    PyErr_NoMemory();
    return nullptr;
  }
  c->copy = copy;
  c->dims = dims;
  c->m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  c->m.manager_ctx = c;
  c->m.deleter = CopyManagedDeleter;
  c->m.flags = DLPACK_FLAG_BITMASK_IS_COPIED;
  c->m.dl_tensor = t;
  c->m.dl_tensor.data = copy->copy - copy->lo;
  c->m.dl_tensor.byte_offset = 0;
  for (int k = 0; k < t.ndim; ++k) dims[k] = t.shape[k];
  c->m.dl_tensor.shape = dims;
  if (t.strides != nullptr) {
    for (int k = 0; k < t.ndim; ++k) dims[t.ndim + k] = t.strides[k];
    c->m.dl_tensor.strides = dims + t.ndim;
  }
  return &c->m;
}

void ReleaseManaged(DLManagedTensorVersioned* m) {
  if (m != nullptr && m->deleter != nullptr) m->deleter(m);
}

// A read-only host tensor lent as DLTensor*: the slot's DLTensor views a private copy.
TVMFFI_PY_COLD bool LendHostCopy(CallFrame& f, int arg, TensorSlot& s, const DLTensor& src) {
  const DLTensor t = src;  // src may be s.dl itself
  HostCopy* c = CopyHost(t);
  if (c == nullptr || !AddCheck(f, arg, false, c, nullptr)) return false;
  s.dl = t;
  s.dl.data = c->copy - c->lo;
  s.dl.byte_offset = 0;
  return true;
}

// A read-only host tensor handed over owning: a managed tensor over a private
// copy. `keep` (the original's owner, or NULL) is released after the call's
// check, or at once when there is no call (`f` NULL: the copy is a snapshot).
DLManagedTensorVersioned* OwnHostCopy(CallFrame* f, int arg, bool nested, const DLTensor& t,
                                      DLManagedTensorVersioned* keep) {
  HostCopy* c = CopyHost(t);
  if (c == nullptr) {
    ReleaseManaged(keep);
    return nullptr;
  }
  if (f != nullptr) c->refs.store(2, std::memory_order_relaxed);  // the tensor's and the check's
  DLManagedTensorVersioned* m = ManagedOverCopy(t, c);
  if (m == nullptr) {
    if (f != nullptr) Unref(c);
    ReleaseManaged(keep);
    return nullptr;
  }
  if (f == nullptr) {
    ReleaseManaged(keep);
    return m;
  }
  if (!AddCheck(*f, arg, nested, c, keep)) {
    m->deleter(m);
    return nullptr;
  }
  return m;
}

// Off the host: a writable copy made by the producer (a DLPack capsule), else
// NULL with ValueError. `arg` < 0: not an argument of a call.
PyObject* ProducerCopy(PyObject* obj, PyObject* stream, int arg, DLDevice dev) {
  PyObject* cap = CallDunderDLPack(obj, stream, /*copy=*/true);
  if (cap != nullptr) {
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
      auto* m =
          static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
      if (!IsReadOnly(m)) return cap;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
      return cap;
    }
    Py_DECREF(cap);
  }
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyObject* why = value != nullptr ? PyObject_Str(value)
                                   : PyUnicode_FromString("it returned no writable DLPack tensor");
  PyErr_Clear();
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  char where[32] = "a tensor";
  if (arg >= 0) std::snprintf(where, sizeof(where), "argument #%d", arg);
  PyErr_Format(PyExc_ValueError,
               "%s is read-only memory on device type %d (id %d): a function is given a "
               "private copy of read-only memory, and off the host only its producer can "
               "copy it, but %s.__dlpack__(copy=True) failed: %U; pass a writable tensor",
               where, static_cast<int>(dev.device_type), static_cast<int>(dev.device_id),
               Py_TYPE(obj)->tp_name, why != nullptr ? why : Py_None);
  Py_XDECREF(why);
  return nullptr;
}

// A read-only managed tensor `m` (consumed) made safe to hand over owning.
TVMFFI_PY_COLD DLManagedTensorVersioned* ProtectOwned(CallFrame* f, int arg, bool nested,
                                                      DLManagedTensorVersioned* m, PyObject* obj,
                                                      PyObject* stream) {
  if (f != nullptr && !nested) {
    switch (ReadOnlyArgUse(*f, arg)) {
      case ReadOnlyUse::kLend:
        m->flags |= DLPACK_FLAG_BITMASK_READ_ONLY;  // JAX's arrays may come without it
        return m;
      case ReadOnlyUse::kRefused:
        ReleaseManaged(m);
        return nullptr;
      case ReadOnlyUse::kCopy:
        break;
    }
  }
  if (IsHostMemory(m->dl_tensor.device)) return OwnHostCopy(f, arg, nested, m->dl_tensor, m);
  const DLDevice dev = m->dl_tensor.device;
  ReleaseManaged(m);
  PyObject* cap = ProducerCopy(obj, stream, f != nullptr ? arg : -1, dev);
  return cap != nullptr ? ManagedFromCapsule(cap, obj) : nullptr;
}

// The slot takes `cap` (a DLPack capsule, either name), dropped after the
// call; returns the capsule's DLTensor.
DLTensor* SlotHoldsCapsule(TensorSlot& s, PyObject* cap) {
  ReleaseSlot(s);
  s.ref = cap;
  s.cleanup = Cleanup::kDecRef;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    return &static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"))
                ->dl_tensor;
  }
  return &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
}

// A read-only tensor lent as DLTensor* (`src`, held by the slot): the slot
// switches to a private copy (host) or the producer's copy; returns the
// DLTensor to lend, NULL with an error. (Six arguments: a seventh, on the
// stack, costs the inlined fast path its frame pointer.)
TVMFFI_PY_COLD DLTensor* LendReadOnly(CallFrame& f, int arg, TensorSlot& s, DLTensor& src,
                                      PyObject* a, PyObject* stream) {
  switch (ReadOnlyArgUse(f, arg)) {
    case ReadOnlyUse::kLend:
      return &src;
    case ReadOnlyUse::kRefused:
      return nullptr;
    case ReadOnlyUse::kCopy:
      break;
  }
  if (IsHostMemory(src.device)) return LendHostCopy(f, arg, s, src) ? &s.dl : nullptr;
  PyObject* cap = ProducerCopy(a, stream, arg, src.device);
  if (cap == nullptr) return nullptr;
  return SlotHoldsCapsule(s, cap);
}

// tvmffi._framework.<name> (cold paths only).
TVMFFI_PY_COLD PyObject* FrameworkHelper(const char* name) {
  PyObject* mod = PyImport_ImportModule("tvmffi._framework");
  if (mod == nullptr) return nullptr;
  PyObject* fn = PyObject_GetAttrString(mod, name);
  Py_DECREF(mod);
  return fn;
}

// An immutable framework's array (JAX) off the host: the function gets a copy
// the framework makes (_framework.immutable_copy), compared with the original
// after the call (VerifyImmutable), so a write is an error, not lost.
TVMFFI_PY_COLD DLTensor* LendImmutableCopy(CallFrame& f, int arg, TensorSlot& s, PyObject* a,
                                           DLTensor* dl) {
  switch (ReadOnlyArgUse(f, arg, /*jax=*/true)) {
    case ReadOnlyUse::kLend:
      return dl;
    case ReadOnlyUse::kRefused:
      return nullptr;
    case ReadOnlyUse::kCopy:
      break;
  }
  PyObject* fn = FrameworkHelper("immutable_copy");
  PyObject* copy = fn != nullptr ? PyObject_CallOneArg(fn, a) : nullptr;
  Py_XDECREF(fn);
  PyObject* cap = copy != nullptr ? CallDunderDLPack(copy, nullptr) : nullptr;
  if (cap != nullptr && f.immutable_copies == nullptr) f.immutable_copies = PyList_New(0);
  PyObject* item = cap != nullptr && f.immutable_copies != nullptr
                       ? Py_BuildValue("(iOO)", arg, a, copy)
                       : nullptr;
  const bool ok = item != nullptr && PyList_Append(f.immutable_copies, item) == 0;
  Py_XDECREF(item);
  Py_XDECREF(copy);
  if (!ok ||
      (!PyCapsule_IsValid(cap, "dltensor_versioned") && !PyCapsule_IsValid(cap, "dltensor"))) {
    if (ok) PyErr_SetString(PyExc_TypeError, "__dlpack__() did not return a DLPack capsule");
    Py_XDECREF(cap);
    return nullptr;
  }
  return SlotHoldsCapsule(s, cap);
}

// After the call: false, with the error _framework.immutable_verify raised, when a copy changed.
TVMFFI_PY_COLD bool VerifyImmutable(const CallFrame& f) {
  PyObject* fn = FrameworkHelper("immutable_verify");
  PyObject* r = fn != nullptr ? PyObject_CallOneArg(fn, f.immutable_copies) : nullptr;
  Py_XDECREF(fn);
  Py_XDECREF(r);
  return r != nullptr;
}

// Whether the ffi.Tensor `h` carries the read-only flag (a versioned export reports it).
bool TensorFlagReadOnly(TVMFFIObjectHandle h) {
  DLManagedTensorVersioned* m = nullptr;
  if (TVMFFITensorToDLPackVersioned(h, &m) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    if (err != nullptr) TVMFFIObjectDecRef(err);
    return false;
  }
  const bool ro = IsReadOnly(m);
  m->deleter(m);
  return ro;
}

// The same for a tvmffi.Tensor argument, remembered on the Python object.
bool TensorObjectReadOnly(PyObject* a, TVMFFIObjectHandle h) {
  if (Py_TYPE(a) == GetCoreTypes().tensor) {
    TensorRef* r = nb::inst_ptr<TensorRef>(a);
    if (r->read_only < 0) r->read_only = TensorFlagReadOnly(h) ? 1 : 0;
    return r->read_only != 0;
  }
  return TensorFlagReadOnly(h);
}

// A read-only tvmffi.Tensor passed in a call: an owned ffi.Tensor over a copy; NULL with an error.
TVMFFI_PY_COLD TVMFFIObjectHandle ReadOnlyObjectCopy(CallFrame& f, int arg, bool nested,
                                                     PyObject* a, TVMFFIObjectHandle h) {
  if (!nested) {
    switch (ReadOnlyArgUse(f, arg)) {
      case ReadOnlyUse::kLend:  // the tensor itself, its read-only flag with it
        TVMFFIObjectIncRef(h);
        return h;
      case ReadOnlyUse::kRefused:
        return nullptr;
      case ReadOnlyUse::kCopy:
        break;
    }
  }
  const DLTensor* dl = TVMFFITensorGetDLTensorPtr(h);
  DLManagedTensorVersioned* m = nullptr;
  if (IsHostMemory(dl->device)) {
    m = OwnHostCopy(&f, arg, nested, *dl, nullptr);
  } else {
    PyObject* cap = ProducerCopy(a, nullptr, arg, dl->device);
    m = cap != nullptr ? ManagedFromCapsule(cap, a) : nullptr;
  }
  if (m == nullptr) return nullptr;
  TVMFFIObjectHandle copy = nullptr;
  if (TVMFFITensorFromDLPackVersioned(m, 0, 0, &copy) != 0) {
    SetPyErrorFromFFI();
    return nullptr;
  }
  return copy;
}

}  // namespace tvmffi_py

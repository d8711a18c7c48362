// Arguments of Python callbacks: borrowed views -> Python values, with tensors
// lent as DLTensor* given as owning copies written back after the callback.

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
// Tensors lent to Python callbacks. A DLTensor* argument is valid only during
// the call, and a callback may keep what it gets (in a list, as a numpy array
// through np.from_dlpack, ...). So the callback gets an owning tensor over a
// private copy of the memory, never a view: when the callback returns, the
// bytes it changed are written back to the lent memory (writes during the
// callback reach the caller, as with a view; writes after it stay in the copy,
// which lives as long as the callback keeps it). Off the host tvmffi cannot
// copy memory itself: a framework that can (torch or cupy, when imported) makes
// the copy and writes it back (tvmffi/_framework.py, copy_lent).
// ---------------------------------------------------------------------------
struct BorrowedView {
  DLManagedTensorVersioned m;
};

void BorrowedViewDeleter(DLManagedTensorVersioned* self) {
  delete static_cast<BorrowedView*>(self->manager_ctx);
}

// A host tensor lent to a callback: the copy its tensor owns (one reference
// here) and the bytes as they were lent, to tell what the callback changed.
struct LentHost {
  HostCopy* copy;
  char* snapshot;
};

// The bytes the callback changed in the copy, written to the lent memory: a
// write made to that memory by other means meanwhile (the caller's own array,
// the same memory lent twice) is kept unless the callback wrote those bytes.
void WriteBack(const LentHost& l) {
  const HostCopy* c = l.copy;
  const size_t n = c->nbytes;
  if (n == 0 || std::memcmp(l.snapshot, c->copy, n) == 0) return;
  char* orig = const_cast<char*>(c->orig);
  constexpr size_t kBlock = 64;
  for (size_t at = 0; at < n; at += kBlock) {
    const size_t end = at + kBlock < n ? at + kBlock : n;
    if (std::memcmp(l.snapshot + at, c->copy + at, end - at) == 0) continue;
    for (size_t k = at; k < end; ++k) {
      if (l.snapshot[k] != c->copy[k]) orig[k] = c->copy[k];
    }
  }
}

// tvmffi._framework.copy_lent (a borrowed reference, looked up once); NULL with an error.
PyObject* CopyLentHook() {
  static PyObject* fn = nullptr;
  if (fn == nullptr) {
    PyObject* mod = PyImport_ImportModule("tvmffi._framework");
    if (mod == nullptr) return nullptr;
    fn = PyObject_GetAttrString(mod, "copy_lent");
    Py_DECREF(mod);
  }
  return fn;
}

// The callback's tensor for a lent DLTensor* (see above); NULL with an error.
PyObject* LentTensorToPy(const DLTensor* src, LentTensor* lent) {
  if (src == nullptr) {
    PyErr_SetString(PyExc_ValueError, "tvmffi: a callback argument is a NULL DLTensor*");
    return nullptr;
  }
  // The runtime checks the tensor first (rank, extents, strides, data), as a view.
  BorrowedView* b = new BorrowedView();
  b->m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  b->m.manager_ctx = b;
  b->m.deleter = BorrowedViewDeleter;
  b->m.flags = 0;
  b->m.dl_tensor = *src;
  TVMFFIObjectHandle view = nullptr;
  if (TVMFFITensorFromDLPackVersioned(&b->m, 0, 0, &view) != 0) {  // releases b on failure
    SetPyErrorFromFFI();
    return nullptr;
  }
  const DLTensor& t = *TVMFFITensorGetDLTensorPtr(view);
  TVMFFIAny owned;
  owned.type_index = kTVMFFITensor;
  owned.zero_padding = 0;
  if (!IsHostMemory(t.device)) {
    owned.v_obj = static_cast<TVMFFIObject*>(view);
    PyObject* view_py = AnyToPy(&owned, nullptr);  // the view, for the framework only
    PyObject* hook = view_py != nullptr ? CopyLentHook() : nullptr;
    PyObject* r = hook != nullptr ? PyObject_CallOneArg(hook, view_py) : nullptr;
    Py_XDECREF(view_py);
    if (r == nullptr) return nullptr;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 2 ||
        !PyCallable_Check(PyTuple_GET_ITEM(r, 1))) {
      Py_DECREF(r);
      PyErr_SetString(PyExc_TypeError,
                      "tvmffi._framework.copy_lent must return (tensor, write_back)");
      return nullptr;
    }
    PyObject* tensor = PyTuple_GET_ITEM(r, 0);
    Py_INCREF(tensor);
    lent->write_back = PyTuple_GET_ITEM(r, 1);
    Py_INCREF(lent->write_back);
    Py_DECREF(r);
    return tensor;
  }
  HostCopy* c = CopyHost(t);
  char* snapshot = c != nullptr ? static_cast<char*>(std::malloc(c->nbytes + 1)) : nullptr;
  LentHost* l = snapshot != nullptr ? new (std::nothrow) LentHost{c, snapshot} : nullptr;
  if (l == nullptr) {
    if (c != nullptr) Unref(c);
    std::free(snapshot);
    TVMFFIObjectDecRef(view);
    if (!PyErr_Occurred()) PyErr_NoMemory();
    return nullptr;
  }
  if (c->nbytes != 0) std::memcpy(snapshot, c->copy, c->nbytes);
  c->refs.store(2, std::memory_order_relaxed);  // the tensor's and the write-back's
  lent->host = l;
  DLManagedTensorVersioned* m = ManagedOverCopy(t, c);  // copies shape and strides
  TVMFFIObjectDecRef(view);
  if (m == nullptr) return nullptr;  // MemoryError; the write-back still holds l
  TVMFFIObjectHandle h = nullptr;
  if (TVMFFITensorFromDLPackVersioned(m, 0, 0, &h) != 0) {
    SetPyErrorFromFFI();
    return nullptr;
  }
  owned.v_obj = static_cast<TVMFFIObject*>(h);
  return AnyToPy(&owned, nullptr);
}

bool ReturnLentTensor(LentTensor* lent) {
  bool ok = true;
  if (lent->host != nullptr) {
    LentHost* l = static_cast<LentHost*>(lent->host);
    WriteBack(*l);
    Unref(l->copy);
    std::free(l->snapshot);
    delete l;
    lent->host = nullptr;
  }
  if (lent->write_back != nullptr) {
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject* r = PyObject_CallNoArgs(lent->write_back);
    Py_CLEAR(lent->write_back);
    if (r == nullptr) {
      ok = false;
      if (type != nullptr) {  // the callback's own error is the one reported
        PyErr_Clear();
        PyErr_Restore(type, value, tb);
      }
    } else {
      Py_DECREF(r);
      PyErr_Restore(type, value, tb);
    }
  }
  return ok;
}

PyObject* AnyViewToPy(const TVMFFIAny* view, LentTensor* lent) {
  if (view->type_index == kTVMFFIDLTensorPtr) {
    return LentTensorToPy(static_cast<const DLTensor*>(view->v_ptr), lent);
  }
  TVMFFIAny owned;
  if (TVMFFIAnyViewToOwnedAny(view, &owned) != 0) {
    SetPyErrorFromFFI();
    return nullptr;
  }
  return AnyToPy(&owned, nullptr);
}

}  // namespace tvmffi_py

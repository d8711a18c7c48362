// The call path of tvmffi.Function: Python arguments -> TVMFFIAny views (tensors
// as borrowed DLTensor*, or as owning ffi.Tensor where the function takes one),
// the environment (stream, allocator) and the GIL for the call, its error or
// result back to Python.

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

thread_local CallFrame* tls_pack_frame = nullptr;
thread_local int tls_pack_arg = 0;

// ---------------------------------------------------------------------------
// Converting the arguments of one call.
// ---------------------------------------------------------------------------
PyObject* PyLongFromStream(void* s) {
  return PyLong_FromVoidPtr(s);
}

// The framework's current stream for a non-CPU device, once per call.
bool NoteDevice(CallFrame& f, const Framework* fw, DLDevice dev) {
  if (dev.device_type == kDLCPU || f.has_stream) return true;
  void* stream = nullptr;
  if (fw->api != nullptr && fw->api->current_work_stream != nullptr) {
    if (fw->api->current_work_stream(dev.device_type, dev.device_id, &stream) != 0) return false;
  } else {
    const Hooks& h = GetHooks();
    if (h.fw_stream == nullptr) return true;
    PyObject* r =
        PyObject_CallFunction(h.fw_stream, "Oii", fw->name, static_cast<int>(dev.device_type),
                              static_cast<int>(dev.device_id));
    if (r == nullptr) return false;
    if (r == Py_None) {
      Py_DECREF(r);
      return true;
    }
    stream = PyLong_AsVoidPtr(r);
    Py_DECREF(r);
    if (PyErr_Occurred()) return false;
  }
  f.has_stream = true;
  f.dev_type = dev.device_type;
  f.dev_id = dev.device_id;
  f.stream = stream;
  return true;
}

void NoteFramework(CallFrame& f, const Framework* fw) {
  if (f.fw == nullptr) f.fw = fw;
}

// Set once a returned container is tagged with a framework (ContainerInFramework):
// until then no container argument is asked for a tag.
bool g_containers_tagged = false;

// A container that an earlier call returned tagged passes its framework on, so
// that what this call returns comes out in that framework too (echo(f(x))[0]
// is a torch tensor when x was). Cold: only containers, only once tags exist.
TVMFFI_PY_COLD void NoteContainerFramework(CallFrame& f, PyObject* a) {
  static PyObject* const kAttr = PyUnicode_InternFromString("_tvm_ffi_framework");
  PyObject* name = kAttr != nullptr ? PyObject_GetAttr(a, kAttr) : nullptr;
  if (name == nullptr) {
    PyErr_Clear();  // untagged, or a class without the slot
    return;
  }
  for (const Framework& fw : g_frameworks) {
    if (fw.name == name) {
      NoteFramework(f, &fw);
      break;
    }
  }
  Py_DECREF(name);
}

bool ArgError(int i, PyObject* a) {
  // Add the argument position to the pending exception's message.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject* msg = value != nullptr ? PyObject_Str(value) : nullptr;
  PyErr_Clear();  // a __str__ that raised: the message is then "None"
  PyObject* kind = type != nullptr ? type : PyExc_TypeError;
  PyErr_Format(kind, "argument #%d (type '%s'): %U", i, Py_TYPE(a)->tp_name,
               msg != nullptr ? msg : Py_None);
  Py_XDECREF(msg);
  // Made now (PyErr_Format sets it lazily), to see whether the type took a message.
  PyObject *ntype, *nvalue, *ntb;
  PyErr_Fetch(&ntype, &nvalue, &ntb);
  PyErr_NormalizeException(&ntype, &nvalue, &ntb);
  PyErr_Restore(ntype, nvalue, ntb);
  if (value != nullptr && !PyErr_ExceptionMatches(kind)) {
    // A type made with other arguments than a message (UnicodeEncodeError,
    // ...): the original exception, with the position as a note.
    PyErr_Clear();
    PyObject* note = PyUnicode_FromFormat("argument #%d (type '%s')", i, Py_TYPE(a)->tp_name);
    PyObject* r = note != nullptr ? PyObject_CallMethod(value, "add_note", "O", note) : nullptr;
    Py_XDECREF(r);  // (add_note: Python 3.11+; without it, the original alone)
    Py_XDECREF(note);
    PyErr_Clear();
    PyErr_Restore(type, value, tb);
    return false;
  }
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  return false;
}

// A generic __dlpack__ producer: learn its device first, so that it gets the
// call's stream (*stream_arg: a new reference, or NULL for none).
// Upstream's __tvm_ffi_env_stream__ protocol: a tensor off the host that says
// which stream it wants (an int handle) makes that the call's stream (the
// first such argument; a stream already chosen stays). False with an error.
TVMFFI_PY_COLD bool EnvStreamOf(CallFrame& f, PyObject* a, int dt, int di) {
  PyObject* method = PyObject_GetAttrString(a, "__tvm_ffi_env_stream__");
  if (method == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return false;
    PyErr_Clear();
    return true;
  }
  PyObject* r = PyObject_CallNoArgs(method);
  Py_DECREF(method);
  if (r == nullptr) return false;
  void* stream = PyLong_AsVoidPtr(r);
  Py_DECREF(r);
  if (PyErr_Occurred()) return false;
  f.has_stream = true;
  f.dev_type = dt;
  f.dev_id = di;
  f.stream = stream;
  return true;
}

bool DLPackStreamArg(CallFrame& f, const Framework* fw, PyObject* a, PyObject** stream_arg) {
  *stream_arg = nullptr;
  PyObject* dev = PyObject_CallMethod(a, "__dlpack_device__", nullptr);
  if (dev == nullptr) return false;
  if (!PyTuple_Check(dev) || PyTuple_GET_SIZE(dev) != 2) {
    PyErr_Format(PyExc_TypeError,
                 "%s.__dlpack_device__() must return a tuple (device_type, device_id), got %s "
                 "of type '%s'",
                 Py_TYPE(a)->tp_name, PyTuple_Check(dev) ? "a tuple" : "an object",
                 Py_TYPE(dev)->tp_name);
    Py_DECREF(dev);
    return false;
  }
  int dt = 0, di = 0;
  int ok = PyArg_ParseTuple(dev, "ii", &dt, &di);
  Py_DECREF(dev);
  if (!ok) return false;
  if (dt != kDLCPU && !f.has_stream && !EnvStreamOf(f, a, dt, di)) return false;
  if (!NoteDevice(f, fw, DLDevice{static_cast<DLDeviceType>(dt), di})) return false;
  if (dt != kDLCPU && f.has_stream) {
    // DLPack stream numbers: 1 is CUDA's legacy default stream (handle 0).
    *stream_arg = f.stream == nullptr ? PyLong_FromLong(1) : PyLongFromStream(f.stream);
  }
  return true;
}

__attribute__((noinline)) bool PackTensorDLPack(CallFrame& f, const TypeEntry& e, PyObject* a,
                                                int i, TVMFFIAny* out) {
  f.ran_python = true;  // __dlpack__ / __dlpack_device__
  TensorSlot& s = f.slots[f.n_slots];
  s.heap = nullptr;
  s.cleanup = Cleanup::kNone;
  PyObject* stream_arg = nullptr;
  if (e.kind == Kind::kDLPack && !DLPackStreamArg(f, e.fw, a, &stream_arg)) return false;
  PyObject* cap = e.kind == Kind::kTorchLegacy ? TorchToDLPack(a) : CallDunderDLPack(a, stream_arg);
  if (cap == nullptr) {
    Py_XDECREF(stream_arg);
    return false;
  }
  DLTensor* dl;
  bool read_only = false;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    dl = &m->dl_tensor;
    read_only = IsReadOnly(m);
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    dl = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
  } else {
    Py_DECREF(cap);
    Py_XDECREF(stream_arg);
    PyErr_SetString(PyExc_TypeError, "__dlpack__() did not return a DLPack capsule");
    return false;
  }
  if (!ValidateBorrowed(*dl, "__dlpack__()")) {  // bad ndim, NULL shape, strides, ...
    Py_DECREF(cap);
    Py_XDECREF(stream_arg);
    return false;
  }
  read_only = read_only || e.fw->immutable;
  // The capsule keeps its name, so dropping it after the call frees the export.
  s.ref = cap;
  s.cleanup = Cleanup::kDecRef;
  ++f.n_slots;
  out->type_index = kTVMFFIDLTensorPtr;
  out->zero_padding = 0;
  out->v_ptr = dl;
  NoteFramework(f, e.fw);
  const DLDevice dev = dl->device;
  if (read_only) {
    out->v_ptr = e.fw->immutable && !IsHostMemory(dev) ? LendImmutableCopy(f, i, s, a, dl)
                                                       : LendReadOnly(f, i, s, *dl, a, stream_arg);
  }
  Py_XDECREF(stream_arg);
  return out->v_ptr != nullptr && NoteDevice(f, e.fw, dev);
}

// A framework tensor for an ffi.Tensor parameter: an owning tensor (the
// deleter of its DLPack export keeps the Python object alive; no copy).
TVMFFI_PY_COLD bool PackOwningTensor(CallFrame& f, const TypeEntry& e, PyObject* a, int i,
                                     TVMFFIAny* out) {
  // The exchange API's export and numpy's own getbuffer run no Python code;
  // every other way may (borrowed tensors are then rechecked).
  PyObject* stream_arg = nullptr;
  DLManagedTensorVersioned* m = nullptr;
  if (e.kind == Kind::kExchange) {
    if (e.fw->api->managed_tensor_from_py_object_no_sync(a, &m) != 0) return false;
  } else if (e.kind == Kind::kBuffer) {
    if (!e.ndarray) f.ran_python = true;  // a subclass may define __buffer__
    m = ManagedFromBuffer(a);
  }
  if (m == nullptr) {  // kTorchLegacy, kDLPack, or a buffer the buffer protocol cannot describe
    f.ran_python = true;
    PyObject* cap;
    if (e.kind == Kind::kTorchLegacy) {
      cap = TorchToDLPack(a);
    } else {
      if (!DLPackStreamArg(f, e.fw, a, &stream_arg)) return false;
      cap = CallDunderDLPack(a, stream_arg);
    }
    m = cap != nullptr ? ManagedFromCapsule(cap, a) : nullptr;
    if (m == nullptr) {
      Py_XDECREF(stream_arg);
      return false;
    }
  }
  NoteFramework(f, e.fw);
  if (IsReadOnly(m) || e.fw->immutable) {
    f.ran_python = true;
    m = ProtectOwned(&f, i, false, m, a, stream_arg);
  }
  Py_XDECREF(stream_arg);
  if (m == nullptr) return false;
  const DLDevice dev = m->dl_tensor.device;
  TVMFFIObjectHandle h = nullptr;
  if (TVMFFITensorFromDLPackVersioned(m, 0, 0, &h) != 0) {  // releases m on failure
    SetPyErrorFromFFI();
    return false;
  }
  f.objs[f.n_objs++] = h;
  out->type_index = kTVMFFITensor;
  out->v_obj = static_cast<TVMFFIObject*>(h);
  return NoteDevice(f, e.fw, dev);
}

TVMFFI_PY_COLD bool PackOwned(CallFrame& f, PyObject* a, int i, TVMFFIAny* out) {
  f.ran_python = true;
  CallFrame* const prev_frame = tls_pack_frame;
  const int prev_arg = tls_pack_arg;
  tls_pack_frame = &f;
  tls_pack_arg = i;
  const bool ok = PyToOwnedAny(a, out);
  tls_pack_frame = prev_frame;
  tls_pack_arg = prev_arg;
  if (!ok) return false;
  if (out->type_index >= kTVMFFIStaticObjectBegin) f.objs[f.n_objs++] = out->v_obj;
  return true;
}

bool PackArg(CallFrame& f, PyObject* a, TVMFFIAny* out, int i, uint64_t owning_args);

// obj._move(): passed as kTVMFFIObjectRValueRef, whose v_ptr is the address
// of the Python object's own handle. A callee that takes the object over
// clears it (the Python object is left empty); one that only reads it leaves
// it. The Python object is held for the call (the ObjectRValueRef, which may
// be changed meanwhile, is not relied on). A read-only tensor is passed as
// any object argument is (a checked copy), never moved.
TVMFFI_PY_COLD bool PackRValueRef(CallFrame& f, PyObject* a, TVMFFIAny* out, int i,
                                  uint64_t owning_args) {
  PyObject* obj = RValueRefTarget(a);
  if (obj == nullptr) return false;
  TensorSlot& s = f.slots[f.n_slots++];
  s.heap = nullptr;
  s.ref = obj;
  s.cleanup = Cleanup::kDecRef;
  TVMFFIObjectHandle* handle = &nb::inst_ptr<ObjectRef>(obj)->handle;
  if (TVMFFIObjectGetTypeIndex(*handle) == kTVMFFITensor && TensorObjectReadOnly(obj, *handle)) {
    return PackArg(f, obj, out, i, owning_args);
  }
  out->type_index = kTVMFFIObjectRValueRef;
  out->v_ptr = handle;
  f.has_rvalue = true;
  return true;
}

// With an obj._move() argument: when another argument refers to the same
// object (f(x, x._move())), the frame holds a reference of its own (one per
// moved argument, which itself uses none of f.objs), so the callee taking the
// object over and dropping it cannot free what it still reads.
TVMFFI_PY_COLD void HoldMovedAliases(CallFrame& f, Py_ssize_t nargs) {
  for (Py_ssize_t k = 0; k < nargs; ++k) {
    if (f.args[k].type_index != kTVMFFIObjectRValueRef) continue;
    TVMFFIObjectHandle moved = *static_cast<TVMFFIObjectHandle*>(f.args[k].v_ptr);
    for (Py_ssize_t j = 0; j < nargs; ++j) {
      if (f.args[j].type_index >= kTVMFFIStaticObjectBegin && f.args[j].v_obj == moved) {
        TVMFFIObjectIncRef(moved);
        f.objs[f.n_objs++] = moved;
        break;
      }
    }
  }
}

// Whether bit i of a FunctionRef::owning_args mask is set.
inline bool OwningAt(uint64_t owning_args, int i) {
  return ((owning_args >> (i < 63 ? i : 63)) & 1) != 0;
}

// Argument #i; `owning_args`: the function's ffi.Tensor parameters (FunctionRef).
bool PackArg(CallFrame& f, PyObject* a, TVMFFIAny* out, int i, uint64_t owning_args) {
  PyTypeObject* t = Py_TYPE(a);
  out->zero_padding = 0;
  if (t == &PyLong_Type) {
    out->type_index = kTVMFFIInt;
    if (__builtin_expect(LongToInt64(a, &out->v_int64), 1)) return true;
    // Past int64: an ffi.BigInt the frame owns for the call.
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return false;
    PyErr_Clear();
    return PackOwned(f, a, i, out);
  }
  if (t == &PyFloat_Type) {
    out->type_index = kTVMFFIFloat;
    out->v_float64 = PyFloat_AS_DOUBLE(a);
    return true;
  }
  if (a == Py_None) {
    out->type_index = kTVMFFINone;
    out->v_int64 = 0;
    return true;
  }
  if (t == &PyBool_Type) {
    out->type_index = kTVMFFIBool;
    out->v_int64 = a == Py_True ? 1 : 0;
    return true;
  }
  if (t == &PyUnicode_Type) {
    Py_ssize_t size = 0;
    const char* s = PyUnicode_AsUTF8AndSize(a, &size);
    if (s == nullptr) return false;
    if (std::strlen(s) != static_cast<size_t>(size)) return PackOwned(f, a, i, out);  // inner NUL
    out->type_index = kTVMFFIRawStr;
    out->v_c_str = s;
    return true;
  }
  const TypeEntry e = LookupType(t);
  switch (e.kind) {
    case Kind::kObject: {
      TVMFFIObjectHandle h = ObjectHandleOf(a);
      if (h == nullptr) return false;
      out->type_index = TVMFFIObjectGetTypeIndex(h);
      out->v_obj = static_cast<TVMFFIObject*>(h);
      if (__builtin_expect(g_containers_tagged, 0) && f.fw == nullptr &&
          (out->type_index == kTVMFFIArray || out->type_index == kTVMFFIMap ||
           out->type_index == kTVMFFIList || out->type_index == kTVMFFIDict)) {
        NoteContainerFramework(f, a);
      }
      if (out->type_index == kTVMFFITensor && TensorObjectReadOnly(a, h)) {
        TVMFFIObjectHandle copy = ReadOnlyObjectCopy(f, i, false, a, h);
        if (copy == nullptr) return false;
        f.objs[f.n_objs++] = copy;
        out->v_obj = static_cast<TVMFFIObject*>(copy);
      }
      return true;
    }
    case Kind::kDevice:
      if (!nb::inst_ready(a)) return DeviceNotInitialised();
      out->type_index = kTVMFFIDevice;
      out->v_device = nb::inst_ptr<DeviceValue>(a)->dev;
      return true;
    case Kind::kBuffer: {
      if (owning_args != 0 && OwningAt(owning_args, i)) return PackOwningTensor(f, e, a, i, out);
      TensorSlot& s = f.slots[f.n_slots];
      s.heap = nullptr;
      if (e.ndarray && DLTensorFromNdarray(a, &s.dl, s.strides)) {
        s.cleanup = Cleanup::kNone;  // the caller's reference keeps the array for the call
        ++f.n_slots;
        out->type_index = kTVMFFIDLTensorPtr;
        out->v_ptr = &s.dl;
        NoteFramework(f, e.fw);
        return true;
      }
      if (PyObject_GetBuffer(a, &s.view, PyBUF_RECORDS_RO) == 0) {
        if (DLTensorFromBuffer(s.view, &s.dl, s.strides, &s.heap)) {
          s.cleanup = Cleanup::kBuffer;
          ++f.n_slots;
          out->type_index = kTVMFFIDLTensorPtr;
          out->v_ptr = &s.dl;
          NoteFramework(f, e.fw);
          return !s.view.readonly || LendReadOnly(f, i, s, s.dl, a, nullptr) != nullptr;
        }
        PyBuffer_Release(&s.view);
        delete[] s.heap;
      }
      PyErr_Clear();  // a layout the buffer protocol cannot give: ask __dlpack__
      TypeEntry generic = e;
      generic.kind = Kind::kDLPack;
      return PackTensorDLPack(f, generic, a, i, out);
    }
    case Kind::kExchange: {
      if (AutogradWrites(f, e.fw, i) && !NoteWrittenTensor(f, i, false, a)) return false;
      if (owning_args != 0 && OwningAt(owning_args, i)) return PackOwningTensor(f, e, a, i, out);
      TensorSlot& s = f.slots[f.n_slots];
      s.heap = nullptr;
      const DLPackExchangeAPI* api = e.fw->api;
      if (api->dltensor_from_py_object_no_sync != nullptr && !e.fw->immutable) {
        // No flags on this path: the exchange API's DLTensor export is for
        // tensors that may be written (torch has no read-only tensors).
        if (api->dltensor_from_py_object_no_sync(a, &s.dl) != 0) return false;
        if (!ValidateBorrowed(s.dl, "the DLPack C exchange API")) return false;
        s.cleanup = Cleanup::kNone;
        ++f.n_slots;
        out->type_index = kTVMFFIDLTensorPtr;
        out->v_ptr = &s.dl;
        NoteFramework(f, e.fw);
        return NoteDevice(f, e.fw, s.dl.device);
      }
      DLManagedTensorVersioned* m = nullptr;
      if (api->managed_tensor_from_py_object_no_sync(a, &m) != 0) return false;
      s.managed = m;
      s.cleanup = Cleanup::kManaged;
      ++f.n_slots;
      if (!ValidateBorrowed(m->dl_tensor, "the DLPack C exchange API")) return false;
      out->type_index = kTVMFFIDLTensorPtr;
      out->v_ptr = &m->dl_tensor;
      NoteFramework(f, e.fw);
      const DLDevice dev = m->dl_tensor.device;
      if ((IsReadOnly(m) || e.fw->immutable) &&
          (out->v_ptr = e.fw->immutable && !IsHostMemory(dev)
                            ? LendImmutableCopy(f, i, s, a, &m->dl_tensor)
                            : LendReadOnly(f, i, s, m->dl_tensor, a, nullptr)) == nullptr) {
        return false;
      }
      return NoteDevice(f, e.fw, dev);
    }
    case Kind::kTorchLegacy:
    case Kind::kDLPack:
      if (AutogradWrites(f, e.fw, i) && !NoteWrittenTensor(f, i, false, a)) return false;
      if (owning_args != 0 && OwningAt(owning_args, i)) return PackOwningTensor(f, e, a, i, out);
      return PackTensorDLPack(f, e, a, i, out);
    case Kind::kInt:
      return PackOwned(f, a, i, out);  // __index__; an ffi.BigInt past int64
    case Kind::kFloat:
      out->type_index = kTVMFFIFloat;
      out->v_float64 = PyFloat_AsDouble(a);
      return !PyErr_Occurred();
    case Kind::kDType:
    case Kind::kShape:
    case Kind::kNative:
    case Kind::kStr:
    case Kind::kBytes:
    case Kind::kSequence:
    case Kind::kMapping:
    case Kind::kCallable:
      return PackOwned(f, a, i, out);
    case Kind::kBadExchange:
      return BadExchangeError(t);
    case Kind::kRValueRef:
      f.ran_python = true;  // the `obj` attribute
      return PackRValueRef(f, a, out, i, owning_args);
    case Kind::kUnsupported: {
      f.ran_python = true;
      const int done = PackFallback(a, out);
      if (done < 0) return false;
      if (done == 0) break;
      if (out->type_index >= kTVMFFIStaticObjectBegin) f.objs[f.n_objs++] = out->v_obj;
      return true;
    }
  }
  PyErr_Format(PyExc_TypeError,
               "cannot pass an object of type '%s' to a tvmffi function: it is neither an FFI "
               "value (None, bool, int, float, str, bytes, tvmffi.Object, tvmffi.Device, "
               "tvmffi.dtype, list, tuple, dict, callable) nor a DLPack tensor (no __dlpack__)",
               t->tp_name);
  return false;
}

// ---------------------------------------------------------------------------
// The call
// ---------------------------------------------------------------------------

constexpr std::string_view kNoAllocator = "no tensor allocator is set";
constexpr const char* kNoAllocatorHint =
    "\nFrom Python: the function allocates a tensor, and the call has no framework tensor "
    "(numpy, torch, ...) among its arguments to allocate it with. Pass one, or set an "
    "allocator for a scope: `with tvmffi.use_allocator(\"numpy\"): ...` (\"torch\", or a "
    "callable (shape, dtype, device) -> tensor).";

// The error of a failed call as a Python exception (NULL, always).
TVMFFI_PY_COLD PyObject* CallError() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (PyErr_Occurred() != nullptr) {
    // The host's error is already set (the function returned -2 after a hook
    // left a Python exception pending): that exception is the call's error.
    if (err != nullptr) TVMFFIObjectDecRef(err);
    return nullptr;
  }
  if (err != nullptr) {
    const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    const std::string_view kind(cell->kind.data, cell->kind.size);
    const std::string_view msg(cell->message.data, cell->message.size);
    if (kind == "RuntimeError" && msg.find(kNoAllocator) != std::string_view::npos) {
      std::string text(msg);
      text += kNoAllocatorHint;
      TVMFFIByteArray mb{text.data(), text.size()};
      TVMFFIObjectHandle hinted = nullptr;
      if (TVMFFIErrorCreate(&cell->kind, &mb, &cell->backtrace, &hinted) == 0) {
        TVMFFIObjectDecRef(err);
        err = hinted;
      }
    }
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
  }
  SetPyErrorFromFFI();
  return nullptr;
}

// A tensor lent through the exchange API's DLTensor export, or read from a
// numpy array's fields, has no owner: the
// framework's tensor itself stays alive (the caller holds it), but Python code
// run for a later argument may have resized it or replaced its storage. When
// any ran, each such argument is exported again and must be unchanged (data,
// layout, and the very shape/strides arrays), else ValueError: its memory is
// never passed stale. Nothing is read through the first export's pointers.
TVMFFI_PY_COLD bool ArgChangedError(Py_ssize_t i, PyObject* arg) {
  PyErr_Clear();
  PyErr_Format(PyExc_ValueError,
               "argument #%zd (type '%s') changed while the call's arguments were "
               "converted: Python code run for another argument resized it or replaced "
               "its storage, so its memory is not passed",
               i, Py_TYPE(arg)->tp_name);
  return false;
}

// Whether torch's legacy export of `arg` now has the memory the call holds in
// `cell` (data, offset, ndim, dtype, device); false on any difference.
TVMFFI_PY_COLD bool RecheckTorchLegacy(const TVMFFIAny& cell, PyObject* arg) {
  if (cell.type_index != kTVMFFIDLTensorPtr) return true;  // an owning tensor: kept alive
  const DLTensor& was = *static_cast<const DLTensor*>(cell.v_ptr);
  PyObject* cap = TorchToDLPack(arg);
  if (cap == nullptr || !PyCapsule_IsValid(cap, "dltensor")) {
    Py_XDECREF(cap);
    return false;
  }
  const DLTensor& now =
      static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"))->dl_tensor;
  // `was` is read for its fields only: its data may be freed.
  bool same = now.data == was.data && now.byte_offset == was.byte_offset && now.ndim == was.ndim &&
              now.dtype.code == was.dtype.code && now.dtype.bits == was.dtype.bits &&
              now.dtype.lanes == was.dtype.lanes &&
              now.device.device_type == was.device.device_type &&
              now.device.device_id == was.device.device_id;
  // Not its shape or strides: torch may point them into the tensor (where a
  // resize changes them in place) or copy them; the memory is what must stay.
  Py_DECREF(cap);  // unconsumed: its destructor releases the export
  return same;
}

TVMFFI_PY_COLD bool RecheckBorrowed(CallFrame& f, PyObject* const* pyargs, Py_ssize_t nargs) {
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (f.args[i].type_index != kTVMFFIDLTensorPtr) continue;
    const TensorSlot* s = nullptr;
    for (int k = 0; k < f.n_slots && s == nullptr; ++k) {
      if (f.args[i].v_ptr == &f.slots[k].dl && f.slots[k].cleanup == Cleanup::kNone) {
        s = &f.slots[k];
      }
    }
    const TypeEntry e = LookupType(Py_TYPE(pyargs[i]));
    if (s == nullptr) {
      // Held by a buffer view, a capsule or a managed tensor. torch's legacy
      // export (torch < 2.10) does not keep the storage's memory: a resize
      // frees it under the export, so it is checked as a borrowed one is.
      if (e.kind == Kind::kTorchLegacy && !RecheckTorchLegacy(f.args[i], pyargs[i])) {
        return ArgChangedError(i, pyargs[i]);
      }
      continue;
    }
    DLTensor now;
    if (e.kind == Kind::kBuffer) {  // numpy.ndarray's fields (a borrowed buffer has no slot here)
      int64_t strides[kInlineDims];
      bool same = e.ndarray && DLTensorFromNdarray(pyargs[i], &now, strides) &&
                  now.data == s->dl.data && now.ndim == s->dl.ndim &&
                  (now.ndim == 0 || now.shape == s->dl.shape) &&
                  now.dtype.code == s->dl.dtype.code && now.dtype.bits == s->dl.dtype.bits;
      for (int k = 0; same && k < now.ndim; ++k) same = strides[k] == s->dl.strides[k];
      if (!same) return ArgChangedError(i, pyargs[i]);
      continue;
    }
    const bool same = e.kind == Kind::kExchange &&
                      e.fw->api->dltensor_from_py_object_no_sync != nullptr &&
                      e.fw->api->dltensor_from_py_object_no_sync(pyargs[i], &now) == 0 &&
                      now.data == s->dl.data && now.byte_offset == s->dl.byte_offset &&
                      now.ndim == s->dl.ndim && now.shape == s->dl.shape &&
                      now.strides == s->dl.strides && now.dtype.code == s->dl.dtype.code &&
                      now.dtype.bits == s->dl.dtype.bits && now.dtype.lanes == s->dl.dtype.lanes &&
                      now.device.device_type == s->dl.device.device_type &&
                      now.device.device_id == s->dl.device.device_id;
    if (!same) return ArgChangedError(i, pyargs[i]);
  }
  return true;
}

// A one-digit int (|v| < 2**30, as most arguments are) as int64, read from
// the object without a call; false (nothing set, no error) for any other.
inline bool CompactLongToInt64(PyObject* v, int64_t* out) {
#if PY_VERSION_HEX >= 0x030C0000
  auto* l = reinterpret_cast<PyLongObject*>(v);
  if (!PyUnstable_Long_IsCompact(l)) return false;
  *out = PyUnstable_Long_CompactValue(l);
  return true;
#elif PY_VERSION_HEX >= 0x030B0000
  const Py_ssize_t size = Py_SIZE(v);
  if (size < -1 || size > 1) return false;
  const int64_t digit = reinterpret_cast<PyLongObject*>(v)->ob_digit[0];
  *out = size < 0 ? -digit : (size == 0 ? 0 : digit);
  return true;
#else
  (void)v;
  (void)out;
  return false;  // the general path converts it
#endif
}

// Arguments that are all exact ints of one digit, floats, bools or None (the
// common case of scalar functions): nothing to hold, release, recheck or set
// in the environment, so the call needs no CallFrame. False, with nothing
// set and no error, as soon as one argument is anything else.
inline bool PackScalars(PyObject* const* pyargs, Py_ssize_t nargs, TVMFFIAny* out) {
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject* a = pyargs[i];
    PyTypeObject* t = Py_TYPE(a);
    TVMFFIAny& c = out[i];
    c.zero_padding = 0;
    if (t == &PyLong_Type) {
      if (!CompactLongToInt64(a, &c.v_int64)) return false;
      c.type_index = kTVMFFIInt;
    } else if (t == &PyFloat_Type) {
      c.type_index = kTVMFFIFloat;
      c.v_float64 = PyFloat_AS_DOUBLE(a);
    } else if (a == Py_None) {
      c.type_index = kTVMFFINone;
      c.v_int64 = 0;
    } else if (t == &PyBool_Type) {
      c.type_index = kTVMFFIBool;
      c.v_int64 = a == Py_True ? 1 : 0;
    } else {
      return false;
    }
  }
  return true;
}

// The call itself, GIL released around it unless release_gil is off
// (upstream's contract: other Python threads run meanwhile; everything the
// call may reach that touches Python takes the GIL itself).
inline int InvokeFunction(const FunctionRef* fn, TVMFFIAny* args, Py_ssize_t nargs,
                          TVMFFIAny* result) {
  result->type_index = kTVMFFINone;
  result->zero_padding = 0;
  result->v_int64 = 0;
  if (!fn->release_gil) {
    return TVMFFIFunctionCall(fn->handle, args, static_cast<int32_t>(nargs), result);
  }
  PyThreadState* ts = PyEval_SaveThread();
  const int rc = TVMFFIFunctionCall(fn->handle, args, static_cast<int32_t>(nargs), result);
  PyEval_RestoreThread(ts);
  return rc;
}

// Any call: each argument converted by PackArg into a CallFrame that holds
// what the conversions made, the framework's allocator and stream set for the call.
__attribute__((noinline)) PyObject* CallFunctionFramed(FunctionRef* fn, PyObject* const* pyargs,
                                                       Py_ssize_t nargs) {
  TVMFFIAny args_inline[kInlineArgs];
  TensorSlot slots_inline[kInlineArgs];
  TVMFFIObjectHandle objs_inline[kInlineArgs];
  std::unique_ptr<TVMFFIAny[]> args_heap;
  std::unique_ptr<TensorSlot[]> slots_heap;
  std::unique_ptr<TVMFFIObjectHandle[]> objs_heap;
  CallFrame f;
  f.fn = fn;
  if (nargs <= kInlineArgs) {
    f.args = args_inline;
    f.slots = slots_inline;
    f.objs = objs_inline;
  } else {
    args_heap.reset(new TVMFFIAny[nargs]);
    slots_heap.reset(new TensorSlot[nargs]);
    objs_heap.reset(new TVMFFIObjectHandle[nargs]);
    f.args = args_heap.get();
    f.slots = slots_heap.get();
    f.objs = objs_heap.get();
  }
  // Without a type schema any parameter may keep what it is given (an Any, an
  // ffi.Tensor): framework tensors go as owning tensors everywhere.
  const uint64_t owning_args = fn->schema_known ? fn->owning_args : ~uint64_t{0};
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (!PackArg(f, pyargs[i], &f.args[i], static_cast<int>(i), owning_args)) {
      ArgError(static_cast<int>(i), pyargs[i]);
      return nullptr;
    }
  }
  if (__builtin_expect(f.ran_python, 0) && !RecheckBorrowed(f, pyargs, nargs)) return nullptr;
  if (__builtin_expect(f.has_rvalue, 0)) HoldMovedAliases(f, nargs);
  // Environment of the call: the framework allocates, its stream is current.
  DLPackManagedTensorAllocator prev_alloc = nullptr;
  const Framework* prev_fw = nullptr;
  bool py_alloc = false;
  if (f.fw != nullptr) {
    DLPackManagedTensorAllocator alloc =
        f.fw->api != nullptr ? f.fw->api->managed_tensor_allocator : nullptr;
    if (alloc == nullptr) {
      // Only the Python-hook allocator reads the framework from the thread:
      // exchange-API frameworks skip both thread-local accesses.
      alloc = PyFrameworkAlloc;
      py_alloc = true;
      prev_fw = tls_alloc_fw;
      tls_alloc_fw = f.fw;
    }
    TVMFFIEnvSetDLPackManagedTensorAllocator(alloc, 0, &prev_alloc);
  }
  TVMFFIStreamHandle prev_stream = nullptr;
  if (f.has_stream) TVMFFIEnvSetStream(f.dev_type, f.dev_id, f.stream, &prev_stream);

  // With the GIL released, the frame's references keep the arguments alive;
  // callbacks, allocators, deleters of Python-backed tensors and the signal
  // check take the GIL themselves.
  TVMFFIAny result;
  const int rc = InvokeFunction(fn, f.args, nargs, &result);

  if (f.has_stream) TVMFFIEnvSetStream(f.dev_type, f.dev_id, prev_stream, nullptr);
  if (f.fw != nullptr) {
    TVMFFIEnvSetDLPackManagedTensorAllocator(prev_alloc, 0, nullptr);
    if (py_alloc) tls_alloc_fw = prev_fw;
  }
  if (f.written != nullptr && !BumpWrittenVersions(f)) {
    if (rc == 0) {
      ReleaseOwned(&result);
      return nullptr;
    }
    PyErr_WriteUnraisable(nullptr);  // the call's own error comes first
  }
  if (rc != 0) return CallError();
  if ((f.checks != nullptr && !VerifyReadOnly(f)) ||
      (f.immutable_copies != nullptr && !VerifyImmutable(f))) {
    ReleaseOwned(&result);
    return nullptr;
  }
  return AnyToPy(&result, f.fw);
}

PyObject* CallFunction(FunctionRef* fn, PyObject* const* pyargs, Py_ssize_t nargs) {
  if (nargs <= kInlineArgs) {
    TVMFFIAny args[kInlineArgs];
    if (PackScalars(pyargs, nargs, args)) {
      TVMFFIAny result;
      if (InvokeFunction(fn, args, nargs, &result) != 0) return CallError();
      if (result.type_index == kTVMFFIInt) return PyLong_FromLongLong(result.v_int64);
      return AnyToPy(&result, nullptr);  // no framework among scalar arguments
    }
  }
  return CallFunctionFramed(fn, pyargs, nargs);
}

}  // namespace tvmffi_py

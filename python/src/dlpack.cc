// Python tensors -> DLTensor / DLManagedTensorVersioned: the buffer protocol
// (numpy), DLPack capsules (__dlpack__, torch's legacy export), and the
// scalar/object readers the argument converters share.

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
// Buffer protocol (numpy) -> DLTensor
// ---------------------------------------------------------------------------
bool DTypeFromFormat(const char* fmt, Py_ssize_t itemsize, DLDataType* out) {
  if (fmt == nullptr) fmt = "B";
  if (*fmt == '@' || *fmt == '=' || *fmt == '<') ++fmt;
  const uint16_t bits = static_cast<uint16_t>(itemsize * 8);
  out->lanes = 1;
  out->bits = static_cast<uint8_t>(bits);
  if (fmt[0] == 'Z' && (fmt[1] == 'f' || fmt[1] == 'd') && fmt[2] == '\0') {
    out->code = kDLComplex;
    return true;
  }
  if (fmt[0] == '\0' || fmt[1] != '\0') return false;
  switch (fmt[0]) {
    case '?':
      out->code = kDLBool;
      return true;
    case 'b':
    case 'h':
    case 'i':
    case 'l':
    case 'q':
      out->code = kDLInt;
      return true;
    case 'B':
    case 'H':
    case 'I':
    case 'L':
    case 'Q':
      out->code = kDLUInt;
      return true;
    case 'e':
    case 'f':
    case 'd':
      out->code = kDLFloat;
      return true;
    default:
      return false;
  }
}

// A host DLTensor over memory described numpy's way (strides in bytes, the
// shape array kept by its owner); `st` receives the strides in elements.
// False when a stride is not a whole number of elements.
bool FillHostDLTensor(void* data, int ndim, Py_ssize_t* shape, const Py_ssize_t* byte_strides,
                      DLDataType dtype, Py_ssize_t itemsize, int64_t* st, DLTensor* dl) {
  for (int k = 0; k < ndim; ++k) {
    if (byte_strides[k] % itemsize != 0) return false;
    st[k] = byte_strides[k] / itemsize;
  }
  dl->data = data;
  dl->device = DLDevice{kDLCPU, 0};
  dl->ndim = ndim;
  dl->dtype = dtype;
  dl->shape = ndim > 0 ? reinterpret_cast<int64_t*>(shape) : st;
  dl->strides = st;
  dl->byte_offset = 0;
  return true;
}

// Fill `dl` from a buffer view; `strides` has room for kInlineDims, else *heap is allocated.
bool DLTensorFromBuffer(const Py_buffer& view, DLTensor* dl, int64_t* strides, int64_t** heap) {
  DLDataType dtype;
  if (!DTypeFromFormat(view.format, view.itemsize, &dtype)) return false;
  if (view.strides == nullptr && view.ndim > 0) return false;
  int64_t* st = strides;
  if (view.ndim > kInlineDims) {
    *heap = new int64_t[view.ndim];
    st = *heap;
  }
  return FillHostDLTensor(view.buf, view.ndim, view.shape, view.strides, dtype, view.itemsize, st,
                          dl);
}

// numpy.ndarray's fields, read directly as numpy's own inline accessors
// (PyArray_DATA, PyArray_DESCR, ...) compiled into every extension read them:
// numpy 1.x and 2.x share this prefix of the array and of its dtype. Saves
// numpy's getbuffer, which rebuilds the format string on every call.
struct NdarrayFields {
  PyObject_HEAD char* data;
  int nd;
  Py_ssize_t* dimensions;
  Py_ssize_t* strides;
  PyObject* base;
  PyObject* descr;
  int flags;
};
struct NdarrayDescrPrefix {
  PyObject_HEAD PyTypeObject* typeobj;
  char kind;
  char type;
  char byteorder;
  char flags;  // numpy 2: _former_flags
  int type_num;
};
constexpr int kNpyArrayWriteable = 0x0400;
constexpr char kNpySwapped = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? '>' : '<';

bool NdarrayLayoutKnown(PyTypeObject* t) {
  if (std::strcmp(t->tp_name, "numpy.ndarray") != 0 ||
      t->tp_basicsize < static_cast<Py_ssize_t>(sizeof(NdarrayFields))) {
    return false;
  }
  PyObject* name = PyUnicode_FromString("numpy");
  PyObject* np = name != nullptr ? PyImport_GetModule(name) : nullptr;
  Py_XDECREF(name);
  PyObject* ver = np != nullptr ? PyObject_GetAttrString(np, "__version__") : nullptr;
  const char* v = ver != nullptr ? PyUnicode_AsUTF8(ver) : nullptr;
  const bool known = v != nullptr && (v[0] == '1' || v[0] == '2') && v[1] == '.';
  Py_XDECREF(ver);
  Py_XDECREF(np);
  PyErr_Clear();
  return known;
}

// The dtype of a numpy type number (NPY_BOOL ... NPY_HALF); false for the others.
bool DTypeFromNpyType(int type_num, DLDataType* out) {
  struct Entry {
    uint8_t code, bits;
  };
  static constexpr Entry kTable[] = {{kDLBool, 8},
                                     {kDLInt, 8},
                                     {kDLUInt, 8},
                                     {kDLInt, 16},
                                     {kDLUInt, 16},
                                     {kDLInt, 32},
                                     {kDLUInt, 32},
                                     {kDLInt, sizeof(long) * 8},   // NOLINT(google-runtime-int)
                                     {kDLUInt, sizeof(long) * 8},  // NOLINT(google-runtime-int)
                                     {kDLInt, 64},
                                     {kDLUInt, 64},
                                     {kDLFloat, 32},
                                     {kDLFloat, 64},
                                     {0, 0},  // long double
                                     {kDLComplex, 64},
                                     {kDLComplex, 128}};
  constexpr int kNpyHalf = 23;
  Entry e{0, 0};
  if (type_num >= 0 && type_num < static_cast<int>(sizeof(kTable) / sizeof(kTable[0]))) {
    e = kTable[type_num];
  } else if (type_num == kNpyHalf) {
    e = {kDLFloat, 16};
  }
  if (e.bits == 0) return false;
  *out = DLDataType{e.code, e.bits, 1};
  return true;
}

bool DLTensorFromNdarray(PyObject* a, DLTensor* dl, int64_t* strides) {
  const NdarrayFields* arr = reinterpret_cast<const NdarrayFields*>(a);
  const NdarrayDescrPrefix* d = reinterpret_cast<const NdarrayDescrPrefix*>(arr->descr);
  DLDataType dtype;
  const int ndim = arr->nd;
  // Read-only arrays, byte-swapped or unusual dtypes, many dimensions: the buffer path.
  if ((arr->flags & kNpyArrayWriteable) == 0 || ndim > kInlineDims || d->byteorder == kNpySwapped ||
      !DTypeFromNpyType(d->type_num, &dtype)) {
    return false;
  }
  return FillHostDLTensor(arr->data, ndim, arr->dimensions, arr->strides, dtype, dtype.bits / 8,
                          strides, dl);
}

struct BufferManaged {
  DLManagedTensorVersioned m;
  Py_buffer view;
  int64_t strides[kInlineDims];
  int64_t* heap = nullptr;
};

void BufferManagedDeleter(DLManagedTensorVersioned* self) {
  BufferManaged* b = static_cast<BufferManaged*>(self->manager_ctx);
  PyGILState_STATE g;
  if (EnterPython(&g)) {  // exiting: the buffer is left held, never a blocked thread
    PyBuffer_Release(&b->view);
    LeavePython(g);
  }
  delete[] b->heap;
  delete b;
}

struct LegacyManaged {
  DLManagedTensorVersioned m;
  DLManagedTensor* legacy;
};

void LegacyManagedDeleter(DLManagedTensorVersioned* self) {
  LegacyManaged* l = static_cast<LegacyManaged*>(self->manager_ctx);
  if (l->legacy->deleter != nullptr) l->legacy->deleter(l->legacy);
  delete l;
}

// Call obj.__dlpack__(**kwargs), asking for a versioned capsule first; with
// `copy`, asking the producer for a copy (copy=True, DLPack 2023).
PyObject* CallDunderDLPack(PyObject* obj, PyObject* stream, bool copy) {
  PyObject* meth = PyObject_GetAttrString(obj, "__dlpack__");
  if (meth == nullptr) return nullptr;
  PyObject* kwargs = PyDict_New();
  if (kwargs == nullptr) {
    Py_DECREF(meth);
    return nullptr;
  }
  if (stream != nullptr) PyDict_SetItemString(kwargs, "stream", stream);
  if (copy) PyDict_SetItemString(kwargs, "copy", Py_True);
  PyObject* ver = Py_BuildValue("(ii)", DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION);
  PyDict_SetItemString(kwargs, "max_version", ver);
  Py_DECREF(ver);
  PyObject* empty = PyTuple_New(0);
  PyObject* cap = PyObject_Call(meth, empty, kwargs);
  if (cap == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();  // a producer older than DLPack 1.0: no max_version
    PyDict_DelItemString(kwargs, "max_version");
    cap = PyObject_Call(meth, empty, kwargs);
  }
  Py_DECREF(empty);
  Py_DECREF(kwargs);
  Py_DECREF(meth);
  return cap;
}

// torch without the exchange API: torch._C._to_dlpack (a legacy capsule).
PyObject* TorchToDLPack(PyObject* a) {
  static PyObject* to_dlpack = nullptr;
  if (to_dlpack == nullptr) {
    PyObject* torch_c = PyImport_ImportModule("torch._C");
    if (torch_c == nullptr) return nullptr;
    to_dlpack = PyObject_GetAttrString(torch_c, "_to_dlpack");
    Py_DECREF(torch_c);
    if (to_dlpack == nullptr) return nullptr;
  }
  return PyObject_CallOneArg(to_dlpack, a);
}

// The managed tensor of a DLPack capsule from obj.__dlpack__() (the capsule is
// consumed: renamed "used_*" and released); NULL with TypeError.
DLManagedTensorVersioned* ManagedFromCapsule(PyObject* cap, PyObject* obj) {
  DLManagedTensorVersioned* out = nullptr;
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    out = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    PyCapsule_SetName(cap, "used_dltensor_versioned");
  } else if (PyCapsule_IsValid(cap, "dltensor")) {
    DLManagedTensor* legacy = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    LegacyManaged* l = new LegacyManaged();
    l->legacy = legacy;
    l->m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    l->m.manager_ctx = l;
    l->m.deleter = LegacyManagedDeleter;
    l->m.flags = 0;
    l->m.dl_tensor = legacy->dl_tensor;
    PyCapsule_SetName(cap, "used_dltensor");
    out = &l->m;
  } else {
    PyErr_Format(PyExc_TypeError, "tvmffi: %s.__dlpack__() did not return a DLPack capsule",
                 Py_TYPE(obj)->tp_name);
  }
  Py_DECREF(cap);
  return out;
}

// A numpy array through the buffer protocol; NULL, with no error set, when the
// buffer protocol cannot describe it (e.g. byte-swapped): then ask __dlpack__.
DLManagedTensorVersioned* ManagedFromBuffer(PyObject* obj) {
  BufferManaged* b = new BufferManaged();
  if (PyObject_GetBuffer(obj, &b->view, PyBUF_RECORDS_RO) == 0) {
    if (DLTensorFromBuffer(b->view, &b->m.dl_tensor, b->strides, &b->heap)) {
      b->m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
      b->m.manager_ctx = b;
      b->m.deleter = BufferManagedDeleter;
      b->m.flags = b->view.readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
      return &b->m;
    }
    PyBuffer_Release(&b->view);
  }
  PyErr_Clear();
  delete[] b->heap;
  delete b;
  return nullptr;
}

thread_local const Framework* tls_alloc_fw = nullptr;

// A tvmffi.Device made by Device.__new__ without __init__ (false, always).
TVMFFI_PY_COLD bool DeviceNotInitialised() {
  PyErr_SetString(PyExc_TypeError,
                  "the tvmffi.Device is not initialised (made by __new__ without __init__)");
  return false;
}

// The handle of a tvmffi.Object; NULL with TypeError for one never initialised.
TVMFFIObjectHandle ObjectHandleOf(PyObject* obj) {
  TVMFFIObjectHandle h = nb::inst_ptr<ObjectRef>(obj)->handle;
  if (h == nullptr) PyErr_SetString(PyExc_TypeError, "the tvmffi.Object is not initialised");
  return h;
}

// The tvmffi.Object an ObjectRValueRef (obj._move()) stands for, a new
// reference with a non-NULL handle; NULL with an exception otherwise.
TVMFFI_PY_COLD PyObject* RValueRefTarget(PyObject* rvalue) {
  PyObject* obj = PyObject_GetAttrString(rvalue, "obj");
  if (obj == nullptr) return nullptr;
  if (!PyObject_TypeCheck(obj, GetCoreTypes().object)) {
    PyErr_Format(PyExc_TypeError, "ObjectRValueRef: expected a tvmffi.Object, got '%s'",
                 Py_TYPE(obj)->tp_name);
    Py_DECREF(obj);
    return nullptr;
  }
  if (nb::inst_ptr<ObjectRef>(obj)->handle == nullptr) {
    PyErr_SetString(PyExc_ValueError,
                    "ObjectRValueRef: the object holds no reference to hand over (moved "
                    "already, or never initialised)");
    Py_DECREF(obj);
    return nullptr;
  }
  return obj;
}

// An int as int64 (OverflowError beyond 64 bits).
bool LongToInt64(PyObject* v, int64_t* out) {
  int overflow = 0;
  *out = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (overflow != 0) {
    PyErr_SetString(PyExc_OverflowError, "int does not fit in 64 bits");
    return false;
  }
  return *out != -1 || !PyErr_Occurred();
}

// An object with __index__ (int subclasses, numpy integers) as int64.
bool IndexToInt64(PyObject* obj, int64_t* out) {
  PyObject* idx = PyNumber_Index(obj);
  if (idx == nullptr) return false;
  const bool ok = LongToInt64(idx, out);
  Py_DECREF(idx);
  return ok;
}

// ---------------------------------------------------------------------------
// Python object -> owned DLManagedTensorVersioned (from_dlpack, allocator, owned Any)
// ---------------------------------------------------------------------------
DLManagedTensorVersioned* ManagedFromPy(PyObject* obj) {
  const TypeEntry e = LookupType(Py_TYPE(obj));
  if (e.kind == Kind::kExchange) {
    DLManagedTensorVersioned* m = nullptr;
    if (e.fw->api->managed_tensor_from_py_object_no_sync(obj, &m) != 0) return nullptr;
    return m;
  }
  if (e.kind == Kind::kBuffer) {
    if (DLManagedTensorVersioned* m = ManagedFromBuffer(obj)) return m;
  }
  if (e.kind == Kind::kBadExchange) {
    BadExchangeError(Py_TYPE(obj));
    return nullptr;
  }
  if (e.kind != Kind::kBuffer && e.kind != Kind::kTorchLegacy && e.kind != Kind::kDLPack) {
    PyErr_Format(PyExc_TypeError,
                 "tvmffi: an object of type '%s' is not a DLPack tensor (it has no __dlpack__)",
                 Py_TYPE(obj)->tp_name);
    return nullptr;
  }
  PyObject* cap = CallDunderDLPack(obj, nullptr);
  if (cap == nullptr) return nullptr;
  return ManagedFromCapsule(cap, obj);
}

// A borrowed producer tensor (a __dlpack__ capsule or an exchange API's
// export, lent to one call) checked by the runtime's one DLPack validation,
// the one from_dlpack uses: its common case inline (IsPlainValidTensor, the
// runtime's own fast verdict, no allocation), anything else through
// TVMFFITensorFromDLPackVersioned on a view whose deleter does nothing, so the
// producer keeps its tensor. False with a Python error (ValueError naming the
// producer, `source`; the caller adds the argument's position).
namespace {
void KeepBorrowed(DLManagedTensorVersioned*) {}
}  // namespace

TVMFFI_PY_COLD bool ValidateBorrowedSlow(const DLTensor& dl, const char* source) {
  DLManagedTensorVersioned view{};
  view.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  view.deleter = KeepBorrowed;
  view.dl_tensor = dl;
  TVMFFIObjectHandle t = nullptr;
  if (TVMFFITensorFromDLPackVersioned(&view, 0, 0, &t) == 0) {
    TVMFFIObjectDecRef(t);
    return true;
  }
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  std::string msg = std::string("invalid DLPack tensor from ") + source;
  if (err != nullptr) {
    const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    msg += ": " + std::string(cell->message.data, cell->message.size);
    TVMFFIObjectDecRef(err);
  }
  PyErr_SetString(PyExc_ValueError, msg.c_str());
  return false;
}

}  // namespace tvmffi_py

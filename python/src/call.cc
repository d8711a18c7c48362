// The call path of tvmffi.Function: Python arguments -> TVMFFIAny views (tensors
// as borrowed DLTensor*, or as owning ffi.Tensor where the function takes one),
// read-only tensors as private copies checked after the call, the environment
// (stream, allocator) for the call, and the result back to Python.

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "core.h"
#include "stack_bounds.h"  // runtime/: internal, header-only

namespace tvmffi_py {

// Paths a call rarely takes (owning tensors, read-only copies, errors): out of
// line, so that the inlined fast path keeps its registers.
#define TVMFFI_PY_COLD __attribute__((noinline, cold))

static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "Py_buffer shapes are passed as int64_t*");

namespace {

// ---------------------------------------------------------------------------
// Per-type classification, cached (the cache holds a reference to each type).
// ---------------------------------------------------------------------------
enum class Kind : uint8_t {
  kObject,       // tvmffi.Object and subclasses
  kDevice,       // tvmffi.Device
  kDType,        // tvmffi.dtype (str subclass)
  kShape,        // a tuple -> ffi.Shape (ContainerToOwned)
  kNative,       // core.String / core.Bytes / tvmffi.Shape: the FFI object each may keep
  kInt,          // int subclasses and objects with __index__
  kFloat,        // float subclasses (numpy.float64, ...)
  kStr,          // str subclasses
  kBytes,        // bytes, bytearray
  kBuffer,       // numpy.ndarray: the buffer protocol, no Python-level call
  kExchange,     // a framework with the DLPack C exchange API
  kTorchLegacy,  // torch without the exchange API: torch._C._to_dlpack
  kDLPack,       // anything else with __dlpack__
  kSequence,     // list, tuple -> ffi.Array
  kMapping,      // dict -> ffi.Map
  kCallable,     // -> ffi.Function
  kBadExchange,  // an exchange-API attribute that is not a "dlpack_exchange_api" capsule
  kRValueRef,    // obj._move() (tvmffi.core.ObjectRValueRef): the reference handed over
  kUnsupported,
};

struct TypeEntry {
  PyTypeObject* type;
  Kind kind;
  const Framework* fw;
  // The type's tp_version_tag when classified: CPython gives a type a new tag
  // whenever an attribute of it or of a base changes (0: none assigned).
  unsigned int version;
};

constexpr int kMaxFrameworks = 16;
Framework g_frameworks[kMaxFrameworks];
int g_num_frameworks = 0;

const Framework* GetFramework(PyObject* root_name, const DLPackExchangeAPI* api) {
  for (int i = 0; i < g_num_frameworks; ++i) {
    Framework& f = g_frameworks[i];
    if (PyUnicode_Compare(f.name, root_name) == 0 && f.api == api) return &f;
  }
  if (g_num_frameworks == kMaxFrameworks) return nullptr;
  Framework& f = g_frameworks[g_num_frameworks++];
  Py_INCREF(root_name);
  f.name = root_name;
  f.api = api;
  // JAX arrays are immutable (others may share the buffer): read-only, always.
  f.immutable = PyUnicode_CompareWithASCIIString(root_name, "jax") == 0 ||
                PyUnicode_CompareWithASCIIString(root_name, "jaxlib") == 0;
  return &f;
}

// The top-level package of a type: "torch" for torch.Tensor.
PyObject* RootModuleName(PyTypeObject* t) {
  PyObject* mod = PyObject_GetAttrString(reinterpret_cast<PyObject*>(t), "__module__");
  if (mod == nullptr || !PyUnicode_Check(mod)) {
    PyErr_Clear();
    Py_XDECREF(mod);
    return PyUnicode_FromString("");
  }
  PyObject* dot = PyUnicode_FromString(".");
  PyObject* split = PyUnicode_Split(mod, dot, 1);
  Py_DECREF(dot);
  Py_DECREF(mod);
  if (split == nullptr) {
    PyErr_Clear();
    return PyUnicode_FromString("");
  }
  PyObject* root = PyList_GET_ITEM(split, 0);
  Py_INCREF(root);
  Py_DECREF(split);
  PyUnicode_InternInPlace(&root);
  return root;
}

// A type's DLPack C exchange API is a PyCapsule of this name (DLPack's
// convention, as torch and upstream tvm_ffi export it) and nothing else: an
// int address or a capsule of another name is never dereferenced.
constexpr const char* kExchangeApiCapsule = "dlpack_exchange_api";
constexpr const char* kExchangeApiNames[] = {"__dlpack_c_exchange_api__",
                                             "__c_dlpack_exchange_api__"};

enum class ApiStatus : uint8_t { kNone, kFound, kBad };

// Exchange-API capsules seen, kept for the process: a cached classification
// points into one, so it must outlive every cache entry.
std::vector<std::pair<PyObject*, const void*>> g_api_capsules;

// Steals `a`: None (no API), or a "dlpack_exchange_api" capsule (kBad otherwise).
ApiStatus ApiFromCapsule(PyObject* a, const DLPackExchangeAPI** out) {
  *out = nullptr;
  if (a == Py_None) {
    Py_DECREF(a);
    return ApiStatus::kNone;
  }
  if (!PyCapsule_IsValid(a, kExchangeApiCapsule)) {
    Py_DECREF(a);
    return ApiStatus::kBad;
  }
  const void* p = PyCapsule_GetPointer(a, kExchangeApiCapsule);
  bool kept = false;
  for (const auto& c : g_api_capsules) kept = kept || c.second == p;
  if (kept) {
    Py_DECREF(a);  // the same API, already kept alive by an earlier capsule
  } else {
    g_api_capsules.emplace_back(a, p);
  }
  // Walk to a major version we know (a bounded walk: the chain is not ours).
  const DLPackExchangeAPIHeader* h = static_cast<const DLPackExchangeAPIHeader*>(p);
  for (int steps = 0; h != nullptr && h->version.major != DLPACK_MAJOR_VERSION; ++steps) {
    h = steps < 16 ? h->prev_api : nullptr;
  }
  const DLPackExchangeAPI* api = reinterpret_cast<const DLPackExchangeAPI*>(h);
  if (api == nullptr || api->managed_tensor_from_py_object_no_sync == nullptr) {
    return ApiStatus::kNone;  // no version we know: the type's __dlpack__, if any
  }
  *out = api;
  return ApiStatus::kFound;
}

// The exchange API a tensor type offers on the type, walking to a major version we know;
// else the one tvmffi provides for the framework (the fw_exchange_api hook), if any.
ApiStatus ExchangeApiOf(PyTypeObject* t, const DLPackExchangeAPI** api) {
  *api = nullptr;
  for (const char* name : kExchangeApiNames) {
    PyObject* a = PyObject_GetAttrString(reinterpret_cast<PyObject*>(t), name);
    if (a == nullptr) {
      PyErr_Clear();
      continue;
    }
    const ApiStatus s = ApiFromCapsule(a, api);
    if (s != ApiStatus::kNone) return s;
  }
  const Hooks& h = GetHooks();
  if (h.fw_exchange_api == nullptr ||
      !PyObject_HasAttrString(reinterpret_cast<PyObject*>(t), "__dlpack__")) {
    return ApiStatus::kNone;
  }
  PyObject* root = RootModuleName(t);
  PyObject* a = PyObject_CallOneArg(h.fw_exchange_api, root);
  Py_DECREF(root);
  if (a == nullptr) {
    PyErr_Clear();
    return ApiStatus::kNone;
  }
  return ApiFromCapsule(a, api);
}

// Python's converter of values the extension does not classify (the
// __tvm_ffi_*__ protocols, ctypes pointers, exceptions, ...): hook(value,
// address) writes an owned TVMFFIAny at the address and returns True, returns
// False when it does not convert the value either, or raises. NULL until
// tvmffi._reflection sets it; only unsupported values reach it.
PyObject* g_pack_fallback = nullptr;

// 1: converted into `out` (owned); 0: declined (nothing set); -1: a Python error.
TVMFFI_PY_COLD int PackFallback(PyObject* obj, TVMFFIAny* out) {
  if (g_pack_fallback == nullptr) return 0;
  PyObject* addr = PyLong_FromVoidPtr(out);
  if (addr == nullptr) return -1;
  PyObject* r = PyObject_CallFunctionObjArgs(g_pack_fallback, obj, addr, nullptr);
  Py_DECREF(addr);
  if (r == nullptr) return -1;
  const int done = PyObject_IsTrue(r);
  Py_DECREF(r);
  return done;
}

// The TypeError for a type of Kind::kBadExchange (false, always).
TVMFFI_PY_COLD bool BadExchangeError(PyTypeObject* t) {
  for (const char* name : kExchangeApiNames) {
    PyObject* a = PyObject_GetAttrString(reinterpret_cast<PyObject*>(t), name);
    if (a == nullptr) {
      PyErr_Clear();
      continue;
    }
    if (a != Py_None && !PyCapsule_IsValid(a, kExchangeApiCapsule)) {
      const char* cap = PyCapsule_CheckExact(a) ? PyCapsule_GetName(a) : nullptr;
      PyErr_Clear();
      if (PyCapsule_CheckExact(a)) {
        PyErr_Format(PyExc_TypeError,
                     "tvmffi: %s.%s is not a DLPack C exchange API: expected a PyCapsule named "
                     "'%s', got a PyCapsule named '%s'",
                     t->tp_name, name, kExchangeApiCapsule, cap != nullptr ? cap : "(null)");
      } else {
        PyErr_Format(PyExc_TypeError,
                     "tvmffi: %s.%s is not a DLPack C exchange API: expected a PyCapsule named "
                     "'%s', got an object of type '%s'",
                     t->tp_name, name, kExchangeApiCapsule, Py_TYPE(a)->tp_name);
      }
      Py_DECREF(a);
      return false;
    }
    Py_DECREF(a);
  }
  PyErr_Format(PyExc_TypeError,
               "tvmffi: the DLPack C exchange API of %s is not a PyCapsule named '%s'", t->tp_name,
               kExchangeApiCapsule);
  return false;
}

// The attribute under which core.String, core.Bytes and Shape keep their FFI object.
PyObject* CachedObjectName() {
  static PyObject* const name = PyUnicode_InternFromString("_tvm_ffi_cached_object");
  return name;
}

bool IsSubtype(PyTypeObject* t, PyObject* base) {
  return base != nullptr && PyType_IsSubtype(t, reinterpret_cast<PyTypeObject*>(base));
}

// cuda-python's driver CUstream: its __index__ is the handle, but it passes as
// an opaque pointer, as in upstream's package (tvmffi._reflection packs it).
// Known by name, so that cuda-python is never imported.
bool IsCudaPythonStream(PyTypeObject* t) {
  const char* dot = std::strrchr(t->tp_name, '.');
  if (std::strcmp(dot != nullptr ? dot + 1 : t->tp_name, "CUstream") != 0) return false;
  PyObject* root = RootModuleName(t);
  const bool cuda = PyUnicode_CompareWithASCIIString(root, "cuda") == 0;
  Py_DECREF(root);
  return cuda;
}

TypeEntry Classify(PyTypeObject* t) {
  const CoreTypes& ct = GetCoreTypes();
  const Hooks& h = GetHooks();
  TypeEntry e{t, Kind::kUnsupported, nullptr, 0};
  const DLPackExchangeAPI* api = nullptr;
  ApiStatus api_status = ApiStatus::kNone;
  if (PyType_IsSubtype(t, ct.object)) {
    e.kind = Kind::kObject;
  } else if (IsSubtype(t, h.rvalue_ref_cls)) {
    e.kind = Kind::kRValueRef;
  } else if (PyType_IsSubtype(t, ct.device)) {
    e.kind = Kind::kDevice;
  } else if (IsSubtype(t, h.dtype_cls)) {
    e.kind = Kind::kDType;
  } else if (IsSubtype(t, h.string_cls) || IsSubtype(t, h.bytes_cls) || IsSubtype(t, h.shape_cls)) {
    e.kind = Kind::kNative;
  } else if (IsCudaPythonStream(t)) {
    e.kind = Kind::kUnsupported;  // to the Python packer: an opaque pointer
  } else if (PyType_IsSubtype(t, &PyLong_Type)) {
    e.kind = Kind::kInt;
  } else if (PyType_IsSubtype(t, &PyFloat_Type)) {
    e.kind = Kind::kFloat;
  } else if (PyType_IsSubtype(t, &PyUnicode_Type)) {
    e.kind = Kind::kStr;
  } else if (PyType_IsSubtype(t, &PyBytes_Type) || PyType_IsSubtype(t, &PyByteArray_Type)) {
    e.kind = Kind::kBytes;
  } else if ((api_status = ExchangeApiOf(t, &api)) == ApiStatus::kBad) {
    e.kind = Kind::kBadExchange;  // refused where a value of the type is converted
  } else if (api_status == ApiStatus::kFound) {
    PyObject* root = RootModuleName(t);
    e.kind = Kind::kExchange;
    e.fw = GetFramework(root, api);
    Py_DECREF(root);
  } else if (PyObject_HasAttrString(reinterpret_cast<PyObject*>(t), "__dlpack__")) {
    PyObject* root = RootModuleName(t);
    e.fw = GetFramework(root, nullptr);
    if (PyUnicode_CompareWithASCIIString(root, "numpy") == 0 && t->tp_as_buffer != nullptr &&
        t->tp_as_buffer->bf_getbuffer != nullptr) {
      e.kind = Kind::kBuffer;
    } else if (PyUnicode_CompareWithASCIIString(root, "torch") == 0) {
      e.kind = Kind::kTorchLegacy;
    } else {
      e.kind = Kind::kDLPack;
    }
    Py_DECREF(root);
  } else if (PyType_IsSubtype(t, &PyList_Type) || PyType_IsSubtype(t, &PyTuple_Type)) {
    e.kind = Kind::kSequence;
  } else if (PyType_IsSubtype(t, &PyDict_Type)) {
    e.kind = Kind::kMapping;
  } else if (t->tp_as_number != nullptr && t->tp_as_number->nb_index != nullptr) {
    e.kind = Kind::kInt;
  } else if (t->tp_call != nullptr) {
    e.kind = Kind::kCallable;
  }
  if (e.fw == nullptr && (e.kind == Kind::kExchange || e.kind == Kind::kBuffer ||
                          e.kind == Kind::kTorchLegacy || e.kind == Kind::kDLPack)) {
    e.kind = Kind::kUnsupported;  // framework table full (never in practice)
  }
  return e;
}

constexpr int kCacheSize = 16;
TypeEntry g_cache[kCacheSize];
int g_cache_used = 0;
int g_cache_next = 0;

// A type not in the cache, or whose entry is stale: classify it (again).
TVMFFI_PY_COLD TypeEntry ClassifyAndCache(PyTypeObject* t) {
  for (int i = 0; i < g_cache_used; ++i) {
    if (g_cache[i].type == t) {
      // Stale: drop the entry (its reference to t; the caller's object holds another).
      g_cache[i] = g_cache[--g_cache_used];
      if (g_cache_next >= g_cache_used) g_cache_next = 0;
      Py_DECREF(t);
      break;
    }
  }
  // The tag before classifying: a change made meanwhile (Classify may run
  // Python code) leaves the entry stale, never wrongly current. A type with
  // no tag (0) is not cached: nothing would tell that it changed.
  const unsigned int version = t->tp_version_tag;
  TypeEntry e = Classify(t);
  e.version = version;
  if (version == 0) return e;
  Py_INCREF(t);
  int slot;
  if (g_cache_used < kCacheSize) {
    slot = g_cache_used++;
  } else {
    slot = g_cache_next;
    g_cache_next = (g_cache_next + 1) % kCacheSize;
    Py_DECREF(g_cache[slot].type);
  }
  g_cache[slot] = e;
  return g_cache[slot];
}

// By value: a nested lookup may replace the cache slot. An entry holds while
// the type's version tag does: CPython gives a type a new tag whenever an
// attribute of it or of a base changes, so a class whose dunders change after
// its first use (a __dlpack__ added or removed, an exchange API replaced) is
// classified again. (Entries have non-zero tags.)
inline TypeEntry LookupType(PyTypeObject* t) {
  for (int i = 0; i < g_cache_used; ++i) {
    if (g_cache[i].type == t) {
      if (__builtin_expect(g_cache[i].version == t->tp_version_tag, 1)) return g_cache[i];
      break;
    }
  }
  return ClassifyAndCache(t);
}

// ---------------------------------------------------------------------------
// Global functions the converters use (looked up once).
// ---------------------------------------------------------------------------
TVMFFIObjectHandle GlobalFunc(const char* name, TVMFFIObjectHandle* cache) {
  if (*cache == nullptr && (*cache = BuiltinFunction(name)) != nullptr) {
    TVMFFIObjectIncRef(*cache);  // the runtime's own, as registered when _core was imported
  }
  if (*cache == nullptr) {
    TVMFFIByteArray n{name, std::strlen(name)};
    if (TVMFFIFunctionGetGlobal(&n, cache) != 0 || *cache == nullptr) {
      SetPyErrorFromFFI();
      if (!PyErr_Occurred()) {
        PyErr_Format(PyExc_RuntimeError, "tvmffi: no global function %s", name);
      }
      return nullptr;
    }
  }
  return *cache;
}

TVMFFIObjectHandle g_array_ctor = nullptr;
TVMFFIObjectHandle g_map_ctor = nullptr;
TVMFFIObjectHandle g_shape_ctor = nullptr;

// Call a constructor with owned arguments (released here); false with a Python error.
bool CallWithOwned(TVMFFIObjectHandle f, TVMFFIAny* args, int32_t n, TVMFFIAny* out) {
  out->type_index = kTVMFFINone;
  out->zero_padding = 0;
  out->v_int64 = 0;
  int rc = TVMFFIFunctionCall(f, args, n, out);
  for (int32_t i = 0; i < n; ++i) {
    if (args[i].type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(args[i].v_obj);
  }
  if (rc != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

void ReleaseOwned(TVMFFIAny* a) {
  if (a->type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(a->v_obj);
}

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

constexpr int kInlineDims = 6;

// Fill `dl` from a buffer view; `strides` has room for kInlineDims, else *heap is allocated.
bool DLTensorFromBuffer(const Py_buffer& view, DLTensor* dl, int64_t* strides, int64_t** heap) {
  DLDataType dtype;
  if (!DTypeFromFormat(view.format, view.itemsize, &dtype)) return false;
  const int ndim = view.ndim;
  int64_t* st = strides;
  if (ndim > kInlineDims) {
    *heap = new int64_t[ndim];
    st = *heap;
  }
  for (int k = 0; k < ndim; ++k) {
    const Py_ssize_t s = view.strides != nullptr ? view.strides[k] : 0;
    if (view.strides == nullptr || s % view.itemsize != 0) return false;
    st[k] = s / view.itemsize;
  }
  dl->data = view.buf;
  dl->device = DLDevice{kDLCPU, 0};
  dl->ndim = ndim;
  dl->dtype = dtype;
  dl->shape = ndim > 0 ? reinterpret_cast<int64_t*>(view.shape) : st;
  dl->strides = st;
  dl->byte_offset = 0;
  return true;
}

struct BufferManaged {
  DLManagedTensorVersioned m;
  Py_buffer view;
  int64_t strides[kInlineDims];
  int64_t* heap = nullptr;
};

void BufferManagedDeleter(DLManagedTensorVersioned* self) {
  BufferManaged* b = static_cast<BufferManaged*>(self->manager_ctx);
  if (Py_IsInitialized()) {
    PyGILState_STATE g = PyGILState_Ensure();
    PyBuffer_Release(&b->view);
    PyGILState_Release(g);
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
PyObject* CallDunderDLPack(PyObject* obj, PyObject* stream, bool copy = false) {
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
// One call: argument storage and clean-up.
// ---------------------------------------------------------------------------
enum class Cleanup : uint8_t { kNone, kBuffer, kDecRef, kManaged };

struct TensorSlot {
  DLTensor dl;
  int64_t strides[kInlineDims];
  int64_t* heap;
  Py_buffer view;
  PyObject* ref;
  DLManagedTensorVersioned* managed;
  Cleanup cleanup;
};

// Release what a slot holds (not its strides).
void ReleaseSlot(TensorSlot& s) {
  switch (s.cleanup) {
    case Cleanup::kBuffer:
      PyBuffer_Release(&s.view);
      break;
    case Cleanup::kDecRef:
      Py_DECREF(s.ref);
      break;
    case Cleanup::kManaged:
      if (s.managed->deleter != nullptr) s.managed->deleter(s.managed);
      break;
    case Cleanup::kNone:
      break;
  }
  s.cleanup = Cleanup::kNone;
}

constexpr int kInlineArgs = 8;

struct ReadOnlyChecks;
void DeleteChecks(ReadOnlyChecks* c);

struct CallFrame {
  const FunctionRef* fn;  // read only on the read-only paths (ReadOnlyUse)
  TVMFFIAny* args;
  TensorSlot* slots;
  TVMFFIObjectHandle* objs;
  int n_slots = 0;
  int n_objs = 0;
  const Framework* fw = nullptr;
  bool has_stream = false;
  int32_t dev_type = -1;
  int32_t dev_id = 0;
  void* stream = nullptr;
  ReadOnlyChecks* checks = nullptr;  // private copies of read-only tensors, compared after the call
  // Python code may have run while the arguments were converted (an __index__,
  // a __dlpack__, a list's items): tensors lent without an owner (the exchange
  // API's DLTensor) are checked again before the call (RecheckBorrowed).
  bool ran_python = false;
  PyObject* immutable_copies =
      nullptr;              // [(arg, JAX array, its copy)] on a GPU (LendImmutableCopy)
  bool has_rvalue = false;  // an argument is obj._move() (PackRValueRef)

  ~CallFrame() {
    for (int i = 0; i < n_slots; ++i) {
      ReleaseSlot(slots[i]);
      delete[] slots[i].heap;
    }
    for (int i = 0; i < n_objs; ++i) TVMFFIObjectDecRef(objs[i]);
    if (checks != nullptr) DeleteChecks(checks);
    Py_XDECREF(immutable_copies);
  }
};

// The frame whose arguments are being converted on this thread, while a list
// or dict argument becomes an ffi.Array/Map (its read-only tensors are checked
// after that call); NULL elsewhere.
thread_local CallFrame* tls_pack_frame = nullptr;
thread_local int tls_pack_arg = 0;

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
enum class ReadOnlyUse : uint8_t { kCopy, kLend, kRefused };

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

// A private copy of the bytes a read-only tensor's elements span. Shared by
// the tensor given to the function and the check after the call.
struct HostCopy {
  std::atomic<int> refs{1};
  const char* orig = nullptr;  // the original bytes: [orig, orig + nbytes)
  char* copy = nullptr;        // their copy, in the same block as this header
  size_t nbytes = 0;
  int64_t lo = 0;  // orig - (address of the first element), <= 0
};

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

}  // namespace

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

namespace {

// ---------------------------------------------------------------------------
// Allocators: TVMFFIEnvTensorAlloc during a call asks the framework of the
// arguments (through the Python hook, for frameworks without an exchange
// API), or the callable of `with tvmffi.use_allocator(...)` when the call has
// no framework tensor.
// ---------------------------------------------------------------------------
thread_local PyObject* tls_scoped_alloc = nullptr;  // strong reference

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
  PyGILState_STATE g = PyGILState_Ensure();
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
  if (dtype != nullptr && scoped && tls_scoped_alloc != nullptr) {
    obj = PyObject_CallFunction(tls_scoped_alloc, "OOii", shape, dtype, dev_type, dev_id);
  } else if (dtype != nullptr && !scoped && fw != nullptr && h.fw_alloc != nullptr) {
    obj = PyObject_CallFunction(h.fw_alloc, "OOOii", fw->name, shape, dtype, dev_type, dev_id);
  } else if (!PyErr_Occurred()) {
    PyErr_SetString(PyExc_RuntimeError, "tvmffi: no allocator for this call");
  }
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
  PyGILState_Release(g);
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
  for (int k = 0; k < g_num_frameworks; ++k) {
    if (g_frameworks[k].name == name) {
      NoteFramework(f, &g_frameworks[k]);
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
  f.ran_python = true;
  PyObject* stream_arg = nullptr;
  DLManagedTensorVersioned* m = nullptr;
  if (e.kind == Kind::kExchange) {
    if (e.fw->api->managed_tensor_from_py_object_no_sync(a, &m) != 0) return false;
  } else if (e.kind == Kind::kBuffer) {
    m = ManagedFromBuffer(a);
  }
  if (m == nullptr) {  // kTorchLegacy, kDLPack, or a buffer the buffer protocol cannot describe
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
  if (IsReadOnly(m) || e.fw->immutable) m = ProtectOwned(&f, i, false, m, a, stream_arg);
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
    return LongToInt64(a, &out->v_int64);
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
      if (owning_args != 0 && OwningAt(owning_args, i)) return PackOwningTensor(f, e, a, i, out);
      TensorSlot& s = f.slots[f.n_slots];
      s.heap = nullptr;
      const DLPackExchangeAPI* api = e.fw->api;
      if (api->dltensor_from_py_object_no_sync != nullptr && !e.fw->immutable) {
        // No flags on this path: the exchange API's DLTensor export is for
        // tensors that may be written (torch has no read-only tensors).
        if (api->dltensor_from_py_object_no_sync(a, &s.dl) != 0) return false;
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
      if (owning_args != 0 && OwningAt(owning_args, i)) return PackOwningTensor(f, e, a, i, out);
      return PackTensorDLPack(f, e, a, i, out);
    case Kind::kInt: {
      out->type_index = kTVMFFIInt;
      f.ran_python = true;  // __index__
      return IndexToInt64(a, &out->v_int64);
    }
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

}  // namespace

// ---------------------------------------------------------------------------
// Python -> owned Any (containers, callback results, tvmffi.convert)
// ---------------------------------------------------------------------------
namespace {

// Nesting. Lists, tuples and dicts convert recursively: each level enters the
// interpreter's recursion check (RecursionError past sys.getrecursionlimit())
// and checks what is left of the thread's C stack, so that a self-referential
// or very deeply nested value is a RecursionError, never a stack overflow,
// whatever the recursion limit (runtime/stack_bounds.h, as the runtime's
// recursive walkers).
bool CStackNearlyExhausted() {
  // For the error path and Python code below a level.
  return tvmffi::stack::NearlyExhausted(size_t{256} << 10);
}

bool EnterNested() {
  if (Py_EnterRecursiveCall(" while converting a nested list, tuple or dict to a tvmffi value")) {
    return false;
  }
  if (CStackNearlyExhausted()) {
    Py_LeaveRecursiveCall();
    PyErr_SetString(PyExc_RecursionError,
                    "tvmffi: a list, tuple or dict is nested too deeply to convert on this "
                    "thread's C stack");
    return false;
  }
  return true;
}

// A list, tuple, tvmffi.Shape or dict as an owned ffi.Array / ffi.Shape / ffi.Map.
// The items are converted from a snapshot holding strong references (a tuple
// of the list's items, a list of the dict's pairs): converting one can run
// Python code (__index__, __float__, __dlpack__, a callable's wrapper ...) that
// grows, shrinks or clears the container, and changes only the original.
bool ContainerToOwned(PyObject* obj, Kind kind, TVMFFIAny* out) {
  const bool is_map = kind == Kind::kMapping;
  TVMFFIObjectHandle ctor = kind == Kind::kShape ? GlobalFunc("ffi.Shape", &g_shape_ctor)
                            : is_map             ? GlobalFunc("ffi.Map", &g_map_ctor)
                                                 : GlobalFunc("ffi.Array", &g_array_ctor);
  if (ctor == nullptr) return false;
  PyObject* snap = is_map ? PyDict_Items(obj) : PyList_Check(obj) ? PyList_AsTuple(obj) : obj;
  if (snap == nullptr) return false;
  if (snap == obj) Py_INCREF(snap);  // a tuple: immutable
  const Py_ssize_t n = is_map ? PyList_GET_SIZE(snap) : PyTuple_GET_SIZE(snap);
  const Py_ssize_t n_any = is_map ? 2 * n : n;
  if (n_any > INT32_MAX) {
    Py_DECREF(snap);
    PyErr_Format(PyExc_ValueError, "tvmffi: a %s of %zd items is too large to convert",
                 is_map ? "dict" : "sequence", n);
    return false;
  }
  TVMFFIAny* items = new (std::nothrow) TVMFFIAny[n_any > 0 ? n_any : 1];
  if (items == nullptr || !EnterNested()) {
    delete[] items;
    Py_DECREF(snap);
    if (items == nullptr) PyErr_NoMemory();
    return false;
  }
  Py_ssize_t done = 0;
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    if (is_map) {
      PyObject* pair = PyList_GET_ITEM(snap, i);  // (key, value), made by PyDict_Items
      ok = PyToOwnedAny(PyTuple_GET_ITEM(pair, 0), &items[done]) && ++done &&
           PyToOwnedAny(PyTuple_GET_ITEM(pair, 1), &items[done]) && ++done;
    } else {
      ok = PyToOwnedAny(PyTuple_GET_ITEM(snap, i), &items[done]) && ++done;
    }
  }
  Py_LeaveRecursiveCall();
  Py_DECREF(snap);
  if (!ok) {
    for (Py_ssize_t i = 0; i < done; ++i) ReleaseOwned(&items[i]);
    delete[] items;
    return false;
  }
  ok = CallWithOwned(ctor, items, static_cast<int32_t>(done), out);
  delete[] items;
  return ok;
}

// A str as an owned ffi.String (small or not).
bool StrToOwned(PyObject* obj, TVMFFIAny* out) {
  Py_ssize_t size = 0;
  const char* s = PyUnicode_AsUTF8AndSize(obj, &size);
  if (s == nullptr) return false;
  TVMFFIByteArray ba{s, static_cast<size_t>(size)};
  if (TVMFFIStringFromByteArray(&ba, out) != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

// bytes or bytearray.
bool BytesToOwned(PyObject* obj, TVMFFIAny* out) {
  char* data = nullptr;
  Py_ssize_t size = 0;
  if (PyBytes_Check(obj)) {
    PyBytes_AsStringAndSize(obj, &data, &size);
  } else {
    data = PyByteArray_AS_STRING(obj);
    size = PyByteArray_GET_SIZE(obj);
  }
  TVMFFIByteArray ba{data, static_cast<size_t>(size)};
  if (TVMFFIBytesFromByteArray(&ba, out) != 0) {
    SetPyErrorFromFFI();
    return false;
  }
  return true;
}

// The FFI object a core.String, core.Bytes or Shape keeps (its
// _tvm_ffi_cached_object), as a new reference in `out` when it is an object of
// `type_index`: 1. None kept, or another value there: 0 (convert the value).
// -1 with a Python error.
int CachedObjectToOwned(PyObject* obj, int32_t type_index, TVMFFIAny* out) {
  PyObject* cached = PyObject_GetAttr(obj, CachedObjectName());
  if (cached == nullptr) {
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();  // a String made by str.__new__ has the slot unset
    return 0;
  }
  int r = 0;
  if (PyType_IsSubtype(Py_TYPE(cached), GetCoreTypes().object) && nb::inst_ready(cached)) {
    TVMFFIObjectHandle h = nb::inst_ptr<ObjectRef>(cached)->handle;
    if (h != nullptr && TVMFFIObjectGetTypeIndex(h) == type_index) {
      TVMFFIObjectIncRef(h);
      out->type_index = type_index;
      out->v_obj = static_cast<TVMFFIObject*>(h);
      r = 1;
    }
  }
  Py_DECREF(cached);
  return r;
}

}  // namespace

bool PyToOwnedAny(PyObject* obj, TVMFFIAny* out) {
  out->zero_padding = 0;
  out->v_int64 = 0;
  PyTypeObject* t = Py_TYPE(obj);
  if (obj == Py_None) {
    out->type_index = kTVMFFINone;
    return true;
  }
  if (t == &PyBool_Type) {
    out->type_index = kTVMFFIBool;
    out->v_int64 = obj == Py_True ? 1 : 0;
    return true;
  }
  const TypeEntry e = LookupType(t);
  switch (e.kind) {
    case Kind::kObject: {
      TVMFFIObjectHandle h = ObjectHandleOf(obj);
      if (h == nullptr) return false;
      // Inside a call's list or dict argument, a read-only tvmffi.Tensor is
      // replaced by a checked copy, as at the top level.
      if (tls_pack_frame != nullptr && TVMFFIObjectGetTypeIndex(h) == kTVMFFITensor &&
          TensorObjectReadOnly(obj, h)) {
        h = ReadOnlyObjectCopy(*tls_pack_frame, tls_pack_arg, true, obj, h);
        if (h == nullptr) return false;
      } else {
        TVMFFIObjectIncRef(h);
      }
      out->type_index = TVMFFIObjectGetTypeIndex(h);
      out->v_obj = static_cast<TVMFFIObject*>(h);
      return true;
    }
    case Kind::kDevice:
      if (!nb::inst_ready(obj)) return DeviceNotInitialised();
      out->type_index = kTVMFFIDevice;
      out->v_device = nb::inst_ptr<DeviceValue>(obj)->dev;
      return true;
    case Kind::kInt: {
      out->type_index = kTVMFFIInt;
      return IndexToInt64(obj, &out->v_int64);
    }
    case Kind::kFloat:
      out->type_index = kTVMFFIFloat;
      out->v_float64 = PyFloat_AsDouble(obj);
      return !PyErr_Occurred();
    case Kind::kDType: {
      Py_ssize_t size = 0;
      const char* s = PyUnicode_AsUTF8AndSize(obj, &size);
      if (s == nullptr) return false;
      TVMFFIByteArray ba{s, static_cast<size_t>(size)};
      if (TVMFFIDataTypeFromString(&ba, &out->v_dtype) != 0) {
        SetPyErrorFromFFI();
        return false;
      }
      out->type_index = kTVMFFIDataType;
      return true;
    }
    case Kind::kStr:
      return StrToOwned(obj, out);
    case Kind::kBytes:
      return BytesToOwned(obj, out);
    case Kind::kNative: {
      const bool is_str = PyUnicode_Check(obj);
      const bool is_bytes = !is_str && PyBytes_Check(obj);
      const int cached = CachedObjectToOwned(obj,
                                             is_str     ? kTVMFFIStr
                                             : is_bytes ? kTVMFFIBytes
                                                        : kTVMFFIShape,
                                             out);
      if (cached != 0) return cached > 0;
      if (is_str) return StrToOwned(obj, out);
      if (is_bytes) return BytesToOwned(obj, out);
      return ContainerToOwned(obj, Kind::kShape, out);
    }
    case Kind::kBuffer:
    case Kind::kExchange:
    case Kind::kTorchLegacy:
    case Kind::kDLPack: {
      DLManagedTensorVersioned* m = ManagedFromPy(obj);
      if (m == nullptr) return false;
      // Read-only memory never enters an FFI value: a checked copy inside a
      // call's argument, else a snapshot copy.
      if (IsReadOnly(m)) {
        m = ProtectOwned(tls_pack_frame, tls_pack_arg, true, m, obj, nullptr);
        if (m == nullptr) return false;
      }
      const DLDevice dev = m->dl_tensor.device;
      TVMFFIObjectHandle h = nullptr;
      if (TVMFFITensorFromDLPackVersioned(m, 0, 0, &h) != 0) {
        SetPyErrorFromFFI();
        return false;
      }
      out->type_index = kTVMFFITensor;
      out->v_obj = static_cast<TVMFFIObject*>(h);
      // A framework tensor inside a call's list or dict argument gives the
      // call its framework (allocator, results, stream) as a direct one does.
      if (tls_pack_frame != nullptr && e.fw != nullptr) {
        NoteFramework(*tls_pack_frame, e.fw);
        if (!NoteDevice(*tls_pack_frame, e.fw, dev)) {
          TVMFFIObjectDecRef(h);  // the caller releases only what succeeded
          return false;
        }
      }
      return true;
    }
    case Kind::kShape:
    case Kind::kSequence:
    case Kind::kMapping:
      return ContainerToOwned(obj, e.kind, out);
    case Kind::kBadExchange:
      return BadExchangeError(t);
    case Kind::kRValueRef: {
      // obj._move() as an owned value (a callback's result, a list item): the
      // object's reference is taken over and the Python object left empty.
      // A tensor inside a call's argument goes the object way (read-only
      // tensors are copied there).
      PyObject* target = RValueRefTarget(obj);
      if (target == nullptr) return false;
      TVMFFIObjectHandle* handle = &nb::inst_ptr<ObjectRef>(target)->handle;
      bool ok = true;
      if (tls_pack_frame != nullptr && TVMFFIObjectGetTypeIndex(*handle) == kTVMFFITensor) {
        ok = PyToOwnedAny(target, out);
      } else {
        out->type_index = TVMFFIObjectGetTypeIndex(*handle);
        out->v_obj = static_cast<TVMFFIObject*>(*handle);
        *handle = nullptr;
      }
      Py_DECREF(target);
      return ok;
    }
    case Kind::kCallable: {
      TVMFFIObjectHandle h = FunctionFromCallable(obj);
      if (h == nullptr) return false;
      out->type_index = kTVMFFIFunction;
      out->v_obj = static_cast<TVMFFIObject*>(h);
      return true;
    }
    case Kind::kUnsupported: {
      const int done = PackFallback(obj, out);
      if (done != 0) return done > 0;
      break;
    }
  }
  PyErr_Format(PyExc_TypeError,
               "cannot convert an object of type '%s' to a tvmffi value: it is neither an FFI "
               "value nor a DLPack tensor (no __dlpack__)",
               t->tp_name);
  return false;
}

void SetPackFallback(nb::handle hook) {
  PyObject* old = g_pack_fallback;
  g_pack_fallback = hook.is_none() ? nullptr : hook.inc_ref().ptr();
  Py_XDECREF(old);
}

// ---------------------------------------------------------------------------
// The call
// ---------------------------------------------------------------------------
namespace {

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

// A tensor lent through the exchange API's DLTensor export has no owner: the
// framework's tensor itself stays alive (the caller holds it), but Python code
// run for a later argument may have resized it or replaced its storage. When
// any ran, each such argument is exported again and must be unchanged (data,
// layout, and the very shape/strides arrays), else ValueError: its memory is
// never passed stale. Nothing is read through the first export's pointers.
TVMFFI_PY_COLD bool RecheckBorrowed(CallFrame& f, PyObject* const* pyargs, Py_ssize_t nargs) {
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    if (f.args[i].type_index != kTVMFFIDLTensorPtr) continue;
    const TensorSlot* s = nullptr;
    for (int k = 0; k < f.n_slots && s == nullptr; ++k) {
      if (f.args[i].v_ptr == &f.slots[k].dl && f.slots[k].cleanup == Cleanup::kNone) {
        s = &f.slots[k];
      }
    }
    if (s == nullptr) continue;  // held by a buffer view, a capsule or a managed tensor
    const TypeEntry e = LookupType(Py_TYPE(pyargs[i]));
    DLTensor now;
    const bool same = e.kind == Kind::kExchange &&
                      e.fw->api->dltensor_from_py_object_no_sync != nullptr &&
                      e.fw->api->dltensor_from_py_object_no_sync(pyargs[i], &now) == 0 &&
                      now.data == s->dl.data && now.byte_offset == s->dl.byte_offset &&
                      now.ndim == s->dl.ndim && now.shape == s->dl.shape &&
                      now.strides == s->dl.strides && now.dtype.code == s->dl.dtype.code &&
                      now.dtype.bits == s->dl.dtype.bits && now.dtype.lanes == s->dl.dtype.lanes &&
                      now.device.device_type == s->dl.device.device_type &&
                      now.device.device_id == s->dl.device.device_id;
    if (!same) {
      PyErr_Clear();
      PyErr_Format(PyExc_ValueError,
                   "argument #%zd (type '%s') changed while the call's arguments were "
                   "converted: Python code run for another argument resized it or replaced "
                   "its storage, so its memory is not passed",
                   i, Py_TYPE(pyargs[i])->tp_name);
      return false;
    }
  }
  return true;
}

}  // namespace

PyObject* CallFunction(FunctionRef* fn, PyObject* const* pyargs, Py_ssize_t nargs) {
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

  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  int rc;
  if (fn->release_gil) {
    // Upstream's contract: other Python threads run meanwhile. Everything the
    // call may reach that touches Python (callbacks, allocators, deleters of
    // Python-backed tensors, the signal check) takes the GIL itself; the
    // frame's references keep the arguments alive.
    PyThreadState* ts = PyEval_SaveThread();
    rc = TVMFFIFunctionCall(fn->handle, f.args, static_cast<int32_t>(nargs), &result);
    PyEval_RestoreThread(ts);
  } else {
    rc = TVMFFIFunctionCall(fn->handle, f.args, static_cast<int32_t>(nargs), &result);
  }

  if (f.has_stream) TVMFFIEnvSetStream(f.dev_type, f.dev_id, prev_stream, nullptr);
  if (f.fw != nullptr) {
    TVMFFIEnvSetDLPackManagedTensorAllocator(prev_alloc, 0, nullptr);
    if (py_alloc) tls_alloc_fw = prev_fw;
  }
  if (rc != 0) return CallError();
  if ((f.checks != nullptr && !VerifyReadOnly(f)) ||
      (f.immutable_copies != nullptr && !VerifyImmutable(f))) {
    ReleaseOwned(&result);
    return nullptr;
  }
  return AnyToPy(&result, f.fw);
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

// ---------------------------------------------------------------------------
// Any -> Python
// ---------------------------------------------------------------------------
namespace {

PyObject* StrFromBytes(const char* data, size_t size) {
  return PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(size), "surrogateescape");
}

PyObject* TensorToFramework(TVMFFIObjectHandle h, const Framework* fw) {
  if (fw->api != nullptr && fw->api->managed_tensor_to_py_object_no_sync != nullptr) {
    DLManagedTensorVersioned* m = nullptr;
    int rc = TVMFFITensorToDLPackVersioned(h, &m);
    TVMFFIObjectDecRef(h);
    if (rc != 0) {
      SetPyErrorFromFFI();
      return nullptr;
    }
    void* out = nullptr;
    if (fw->api->managed_tensor_to_py_object_no_sync(m, &out) != 0) return nullptr;
    return static_cast<PyObject*>(out);
  }
  nb::object wrapped = WrapObject(h);
  const Hooks& hooks = GetHooks();
  if (hooks.fw_from_tensor == nullptr) return wrapped.release().ptr();
  return PyObject_CallFunctionObjArgs(hooks.fw_from_tensor, fw->name, wrapped.ptr(), nullptr);
}

// A container returned by a call with framework tensors: its wrapper carries
// the framework's name, so the tensors read from it come out as the
// framework's (container.py, _lift). A wrapper class without the attribute
// leaves it untagged.
TVMFFI_PY_COLD PyObject* ContainerInFramework(TVMFFIObjectHandle h, const Framework* fw) {
  PyObject* r = nullptr;
  try {
    r = WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    return nullptr;
  }
  static PyObject* const kAttr = PyUnicode_InternFromString("_tvm_ffi_framework");
  if (kAttr == nullptr || PyObject_SetAttr(r, kAttr, fw->name) != 0) {
    PyErr_Clear();
  } else {
    g_containers_tagged = true;
  }
  return r;
}

// An opaque pointer as a ctypes.c_void_p, as upstream's package gives it (NULL:
// c_void_p(None), a value that is not None). The class is looked up once; the
// instance is made by its tp_new (zero-filled: NULL) and the pointer written
// through its buffer (cheaper than calling the class with an int).
PyObject* OpaquePtrToPy(void* p) {
  static PyTypeObject* cls = nullptr;
  static PyObject* no_args = nullptr;
  if (cls == nullptr) {
    PyObject* mod = PyImport_ImportModule("ctypes");
    if (mod == nullptr) return nullptr;
    PyObject* c_void_p = PyObject_GetAttrString(mod, "c_void_p");
    Py_DECREF(mod);
    if (c_void_p == nullptr || (no_args = PyTuple_New(0)) == nullptr) {
      Py_XDECREF(c_void_p);
      return nullptr;
    }
    cls = reinterpret_cast<PyTypeObject*>(c_void_p);
  }
  PyObject* r = cls->tp_new(cls, no_args, nullptr);
  if (r == nullptr || p == nullptr) return r;
  Py_buffer view;
  if (PyObject_GetBuffer(r, &view, PyBUF_WRITABLE) != 0) {
    Py_DECREF(r);
    return nullptr;
  }
  if (view.len == static_cast<Py_ssize_t>(sizeof(p))) std::memcpy(view.buf, &p, sizeof(p));
  const bool ok = view.len == static_cast<Py_ssize_t>(sizeof(p));
  PyBuffer_Release(&view);
  if (!ok) {
    Py_DECREF(r);
    PyErr_SetString(PyExc_SystemError, "tvmffi: ctypes.c_void_p is not pointer-sized");
    return nullptr;
  }
  return r;
}

// The size from which ffi.String / ffi.Bytes results keep their object (AnyToPy).
constexpr size_t kKeepStringMinSize = 128;

// `value` (a str, bytes or tuple: stolen) as an instance of `cls`, a Python
// subclass of `base`, that keeps the FFI object `h` (stolen) as its
// _tvm_ffi_cached_object: passed back to a call, it is `h` again (no copy).
// Made by base's tp_new, not cls.__new__ (Python code; Shape.__new__ makes a
// new FFI object).
TVMFFI_PY_COLD PyObject* KeepingObject(PyTypeObject* base, PyObject* cls, PyObject* value,
                                       TVMFFIObjectHandle h) {
  PyObject* args = value != nullptr ? PyTuple_Pack(1, value) : nullptr;
  Py_XDECREF(value);
  PyObject* r =
      args != nullptr ? base->tp_new(reinterpret_cast<PyTypeObject*>(cls), args, nullptr) : nullptr;
  Py_XDECREF(args);
  if (r == nullptr) {
    TVMFFIObjectDecRef(h);
    return nullptr;
  }
  PyObject* obj = nullptr;
  try {
    obj = WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    Py_DECREF(r);
    return nullptr;
  }
  const int rc = PyObject_SetAttr(r, CachedObjectName(), obj);
  Py_DECREF(obj);
  if (rc != 0) Py_CLEAR(r);
  return r;
}

}  // namespace

PyObject* AnyToPy(TVMFFIAny* a, const Framework* fw) {
  switch (a->type_index) {
    case kTVMFFINone:
      Py_RETURN_NONE;
    case kTVMFFIInt:
      return PyLong_FromLongLong(a->v_int64);
    case kTVMFFIBool:
      return PyBool_FromLong(a->v_int64 != 0);
    case kTVMFFIFloat:
      return PyFloat_FromDouble(a->v_float64);
    case kTVMFFIOpaquePtr:
      return OpaquePtrToPy(a->v_ptr);
    case kTVMFFISmallStr:
      return StrFromBytes(a->v_bytes, a->small_str_len);
    case kTVMFFISmallBytes:
      return PyBytes_FromStringAndSize(a->v_bytes, static_cast<Py_ssize_t>(a->small_str_len));
    case kTVMFFIDataType: {
      TVMFFIAny s;
      if (TVMFFIDataTypeToString(&a->v_dtype, &s) != 0) {
        SetPyErrorFromFFI();
        return nullptr;
      }
      PyObject* str = AnyToPy(&s, nullptr);
      const Hooks& h = GetHooks();
      if (str == nullptr || h.dtype_cls == nullptr) return str;
      PyObject* r = PyObject_CallOneArg(h.dtype_cls, str);
      Py_DECREF(str);
      return r;
    }
    case kTVMFFIDevice: {
      PyObject* cls = GetHooks().device_cls;  // core._set_class_device's, if any
      if (cls == nullptr) cls = reinterpret_cast<PyObject*>(GetCoreTypes().device);
      nb::object d = nb::inst_alloc(cls);
      new (nb::inst_ptr<DeviceValue>(d)) DeviceValue{a->v_device};
      nb::inst_mark_ready(d);
      return d.release().ptr();
    }
    default:
      break;
  }
  if (a->type_index < kTVMFFIStaticObjectBegin) {
    PyErr_Format(PyExc_TypeError, "tvmffi: cannot convert a value of type index %d to Python",
                 a->type_index);
    return nullptr;
  }
  TVMFFIObjectHandle h = a->v_obj;
  switch (a->type_index) {
    case kTVMFFIStr:
    case kTVMFFIBytes: {
      // A long string (kKeepStringMinSize bytes or more) comes back as a
      // core.String / core.Bytes that keeps the object, as upstream's: passed
      // back, it is not copied again. Shorter ones are plain str / bytes: the
      // subclass instance and the kept object would triple their cost.
      const TVMFFIByteArray* ba = TVMFFIBytesGetByteArrayPtr(h);
      const bool is_str = a->type_index == kTVMFFIStr;
      PyObject* r = is_str ? StrFromBytes(ba->data, ba->size)
                           : PyBytes_FromStringAndSize(ba->data, static_cast<Py_ssize_t>(ba->size));
      PyObject* cls = is_str ? GetHooks().string_cls : GetHooks().bytes_cls;
      if (cls != nullptr && ba->size >= kKeepStringMinSize) {
        return KeepingObject(is_str ? &PyUnicode_Type : &PyBytes_Type, cls, r, h);
      }
      TVMFFIObjectDecRef(h);
      return r;
    }
    case kTVMFFIShape: {
      const TVMFFIShapeCell* cell = TVMFFIShapeGetCellPtr(h);
      PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(cell->size));
      if (tup != nullptr) {
        for (size_t k = 0; k < cell->size; ++k) {
          PyTuple_SET_ITEM(tup, k, PyLong_FromLongLong(cell->data[k]));
        }
      }
      const Hooks& hooks = GetHooks();
      if (hooks.shape_cls != nullptr) return KeepingObject(&PyTuple_Type, hooks.shape_cls, tup, h);
      TVMFFIObjectDecRef(h);
      return tup;
    }
    case kTVMFFITensor:
      if (fw != nullptr) return TensorToFramework(h, fw);
      break;
    case kTVMFFIArray:
    case kTVMFFIList:
    case kTVMFFIMap:
    case kTVMFFIDict:
      if (fw != nullptr) return ContainerInFramework(h, fw);
      break;
    case kTVMFFIOpaquePyObject: {
      // A Python object carried across the FFI comes back as itself.
      PyObject* held = nullptr;
      std::memcpy(&held, reinterpret_cast<const char*>(h) + sizeof(TVMFFIObject), sizeof(held));
      if (held == nullptr) held = Py_None;
      Py_INCREF(held);
      TVMFFIObjectDecRef(h);
      return held;
    }
    default:
      break;
  }
  try {
    return WrapObject(h).release().ptr();
  } catch (nb::python_error& e) {
    e.restore();
    return nullptr;
  }
}

namespace {

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

}  // namespace

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

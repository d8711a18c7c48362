// Per-type classification of call arguments, cached (Kind, TypeEntry): which
// path converts a value of a Python type, and the tensor frameworks seen.

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

TypeEntry g_cache[kCacheSize];
int g_cache_used = 0;
int g_cache_next = 0;

// ---------------------------------------------------------------------------
// Per-type classification, cached (the cache holds a reference to each type).
// ---------------------------------------------------------------------------

std::deque<Framework> g_frameworks;

const Framework* GetFramework(PyObject* root_name, const DLPackExchangeAPI* api) {
  for (Framework& f : g_frameworks) {
    if (PyUnicode_Compare(f.name, root_name) == 0 && f.api == api) return &f;
  }
  Framework* fp;
  try {
    fp = &g_frameworks.emplace_back();
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  Framework& f = *fp;
  Py_INCREF(root_name);
  f.name = root_name;
  f.api = api;
  // JAX arrays are immutable (others may share the buffer): read-only, always.
  f.immutable = PyUnicode_CompareWithASCIIString(root_name, "jax") == 0 ||
                PyUnicode_CompareWithASCIIString(root_name, "jaxlib") == 0;
  f.autograd = PyUnicode_CompareWithASCIIString(root_name, "torch") == 0;
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

// A type's DLPack C exchange API is a PyCapsule named kExchangeApiCapsule
// and nothing else: an int address or a capsule of another name is never
// dereferenced.
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
// __tvm_ffi_*__ protocols, ctypes pointers, exceptions, ...): hook(value)
// returns an AnyCell holding the owned TVMFFIAny, None when it does not
// convert the value either, or raises. NULL until tvmffi._reflection sets it;
// only unsupported values reach it.
PyObject* g_pack_fallback = nullptr;

// 1: converted into `out` (owned); 0: declined (nothing set); -1: a Python error.
TVMFFI_PY_COLD int PackFallback(PyObject* obj, TVMFFIAny* out) {
  if (g_pack_fallback == nullptr) return 0;
  PyObject* r = PyObject_CallOneArg(g_pack_fallback, obj);
  if (r == nullptr) return -1;
  if (r == Py_None) {
    Py_DECREF(r);
    return 0;
  }
  const bool moved = MoveCellOut(r, out);
  Py_DECREF(r);
  return moved ? 1 : -1;
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
  TypeEntry e{t, Kind::kUnsupported, nullptr, false, 0};
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
      e.ndarray = NdarrayLayoutKnown(t);
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
    e.kind = Kind::kUnsupported;  // no memory for the framework's entry
  }
  return e;
}

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

}  // namespace tvmffi_py

// Helpers of the module definition (core.cc): handle access, type keys,
// values to Python, Function's call slots and vectorcall, the ObjectMeta metaclass.

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
// Helpers for the bindings
// ---------------------------------------------------------------------------

std::string TypeKeyOf(int32_t type_index);

nb::object Steal(PyObject* p) {
  if (p == nullptr) throw nb::python_error();
  return nb::steal(p);
}

// `obj` checked to be an instance of `cls` (TypeError otherwise). Methods take
// `self` as nb::handle, which nanobind does not check: an unbound call such as
// Object.__repr__(5) passes anything.
void CheckInstance(nb::handle obj, PyTypeObject* cls, const char* what) {
  if (!PyObject_TypeCheck(obj.ptr(), cls)) {
    throw nb::type_error((std::string("expected a ") + what + ", got an object of type '" +
                          Py_TYPE(obj.ptr())->tp_name + "'")
                             .c_str());
  }
}

// The handle of a tvmffi.Object, NULL for one never initialised (made by
// __new__ without __init__: ZeroedNew gives those a NULL handle).
TVMFFIObjectHandle RawHandleOf(nb::handle obj) {
  CheckInstance(obj, GetCoreTypes().object, "tvmffi.Object");
  return nb::inst_ptr<ObjectRef>(obj)->handle;
}

TVMFFIObjectHandle HandleOf(nb::handle obj) {
  TVMFFIObjectHandle h = RawHandleOf(obj);
  if (h == nullptr) throw nb::type_error("the tvmffi.Object is not initialised");
  return h;
}

// Whether a tvmffi.Device was initialised (TypeError for another object).
bool DeviceReady(nb::handle obj) {
  CheckInstance(obj, GetCoreTypes().device, "tvmffi.Device");
  return nb::inst_ready(obj);
}

// The value of a tvmffi.Device (TypeError for one made by __new__ without __init__).
DLDevice DeviceOf(nb::handle obj) {
  if (!DeviceReady(obj)) {
    throw nb::type_error("the tvmffi.Device is not initialised (made by __new__ without __init__)");
  }
  return nb::inst_ptr<DeviceValue>(obj)->dev;
}

// Instances made by Type.__new__(Type) without __init__: nanobind allocates
// them without clearing their C++ payload, which would then be read as a
// handle (or a device). Every class of the extension gets this tp_new, which
// clears it: a NULL handle, refused as "not initialised" by every method and
// by the call path. (WrapObject allocates through nanobind directly.)
newfunc g_nb_tp_new = nullptr;

PyObject* ZeroedNew(PyTypeObject* tp, PyObject* args, PyObject* kwds) {
  PyObject* o = g_nb_tp_new(tp, args, kwds);
  if (o != nullptr && !nb::inst_ready(o)) {
    std::memset(nb::inst_ptr<char>(o), 0, nb::type_size(reinterpret_cast<PyObject*>(tp)));
  }
  return o;
}

void ClearPayloadOnNew(nb::handle cls) {
  PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(cls.ptr());
  if (g_nb_tp_new == nullptr) g_nb_tp_new = tp->tp_new;
  if (tp->tp_new == g_nb_tp_new) tp->tp_new = ZeroedNew;
}

// A Python class may hold an object of the type index only if its payload
// is read as that type: tvmffi.Tensor's as a tensor, tvmffi.Function's as a
// function (TypeError otherwise).
void CheckPayloadFits(PyTypeObject* cls, int32_t type_index, const char* what) {
  const CoreTypes& ct = GetCoreTypes();
  const char* need = nullptr;
  if (PyType_IsSubtype(cls, ct.tensor) && type_index != kTVMFFITensor) need = "ffi.Tensor";
  if (PyType_IsSubtype(cls, ct.function) && type_index != kTVMFFIFunction) need = "ffi.Function";
  if (need != nullptr) {
    throw nb::type_error((std::string(what) + ": a " + cls->tp_name + " holds an " + need +
                          ", not an object of type " + TypeKeyOf(type_index))
                             .c_str());
  }
}

// The runtime's own global functions ("ffi.*") as registered when _core was
// imported; each holds one reference for the process (BuiltinFunction).
std::vector<std::pair<std::string, TVMFFIObjectHandle>>* g_builtins = nullptr;

std::string TypeKeyOf(int32_t type_index) {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(type_index);
  if (info == nullptr) return "ffi.Object";
  return std::string(info->type_key.data, info->type_key.size);
}

struct DeviceName {
  const char* name;
  int32_t code;
};
constexpr DeviceName kDeviceNames[] = {
    {"cpu", kDLCPU},
    {"cuda", kDLCUDA},
    {"cuda_host", kDLCUDAHost},
    {"opencl", kDLOpenCL},
    {"vulkan", kDLVulkan},
    {"metal", kDLMetal},
    {"vpi", kDLVPI},
    {"rocm", kDLROCM},
    {"rocm_host", kDLROCMHost},
    {"ext_dev", kDLExtDev},
    {"cuda_managed", kDLCUDAManaged},
    {"oneapi", kDLOneAPI},
    {"webgpu", kDLWebGPU},
    {"hexagon", kDLHexagon},
    {"maia", kDLMAIA},
    {"trn", 18 /* kDLTrn */},
    {"gpu", kDLCUDA},
};

const char* DeviceTypeName(int32_t code) {
  for (const DeviceName& d : kDeviceNames) {
    if (d.code == code) return d.name;
  }
  return nullptr;
}

// Device ids are int32 in DLPack: [0, INT32_MAX], never wrapped or truncated.
constexpr int64_t kMaxDeviceId = INT32_MAX;
// Device types: DLPack's, and extension types below 65536 (the runtime's
// stream table takes the same range).
constexpr int64_t kDeviceTypeEnd = 65536;

// A device type code or index given as an int: in range, never wrapped.
int64_t DeviceInt(nb::handle v, const char* what) {
  PyObject* idx = PyNumber_Index(v.ptr());  // int, or an object with __index__; TypeError else
  if (idx == nullptr) throw nb::python_error();
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  if (x == -1 && PyErr_Occurred()) throw nb::python_error();
  const bool is_type = std::strcmp(what, "type") == 0;
  const int64_t end = is_type ? kDeviceTypeEnd : kMaxDeviceId + 1;
  if (overflow != 0 || x < 0 || x >= end) {
    const std::string text = nb::cast<std::string>(nb::repr(v));
    throw nb::value_error(("invalid device " + std::string(what) + " " + text +
                           ": it must be an integer in [0, " +
                           (is_type ? std::string("65536)") : std::string("2147483647]")))
                              .c_str());
  }
  return x;
}

// A str as UTF-8 (UnicodeEncodeError for lone surrogates; never a C++ bad_cast).
std::string Utf8(nb::handle s) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
  if (data == nullptr) throw nb::python_error();
  return std::string(data, static_cast<size_t>(size));
}

// `text` for an error message: a NUL byte (which would end it) as \x00.
std::string Printable(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\0' ? std::string("\\x00") : std::string(1, c);
  return out;
}

DLDevice ParseDevice(const std::string& text, int64_t index) {
  std::string name = text;
  int64_t id = index;
  const size_t colon = text.find(':');
  if (colon != std::string::npos) {
    name = text.substr(0, colon);
    const std::string num = text.substr(colon + 1);
    // Decimal digits only (no sign, no spaces), at most INT32_MAX.
    bool ok = !num.empty() && num.size() <= 10;
    id = 0;
    for (char c : num) {
      ok = ok && c >= '0' && c <= '9';
      if (ok) id = id * 10 + (c - '0');
    }
    if (!ok || id > kMaxDeviceId) {
      throw nb::value_error(("invalid device '" + Printable(text) +
                             "': the index must be an integer in [0, 2147483647]")
                                .c_str());
    }
  }
  for (const DeviceName& d : kDeviceNames) {
    if (name == d.name) {
      return DLDevice{static_cast<DLDeviceType>(d.code), static_cast<int32_t>(id)};
    }
  }
  throw nb::value_error(("invalid device '" + Printable(text) + "': unknown device type '" +
                         Printable(name) + "' (expected e.g. 'cpu', 'cuda:0')")
                            .c_str());
}

std::string DeviceRepr(DLDevice d) {
  const char* n = DeviceTypeName(d.device_type);
  std::string s = n != nullptr ? n : ("device_type_" + std::to_string(d.device_type));
  return s + ":" + std::to_string(d.device_id);
}

nb::object ToPy(TVMFFIAny* owned) {
  return Steal(AnyToPy(owned, nullptr));
}

nb::object ShapeTuple(const int64_t* data, int n) {
  nb::object tup = Steal(PyTuple_New(n));
  for (int k = 0; k < n; ++k) PyTuple_SET_ITEM(tup.ptr(), k, PyLong_FromLongLong(data[k]));
  const Hooks& h = GetHooks();
  if (h.shape_cls == nullptr) return tup;
  // tuple's tp_new, not Shape.__new__ (which makes an ffi.Shape to keep): this
  // Shape keeps none until one is made for it.
  nb::object args = Steal(PyTuple_Pack(1, tup.ptr()));
  return Steal(
      PyTuple_Type.tp_new(reinterpret_cast<PyTypeObject*>(h.shape_cls), args.ptr(), nullptr));
}

const DLTensor* TensorOf(nb::handle self) {
  CheckInstance(self, GetCoreTypes().tensor, "tvmffi.Tensor");
  TVMFFIObjectHandle h = HandleOf(self);
  if (TVMFFIObjectGetTypeIndex(h) != kTVMFFITensor) {
    throw nb::type_error("the tvmffi.Tensor does not hold an ffi.Tensor");
  }
  return TVMFFITensorGetDLTensorPtr(h);
}

// Item k of `pair`, a tuple of two ints (a DLPack argument such as max_version):
// TypeError for anything else, ValueError past int64. No index is read unchecked.
int64_t PairItem(nb::handle pair, Py_ssize_t k, const char* what, const char* shape) {
  PyObject* p = pair.ptr();
  if (!PyTuple_Check(p) || PyTuple_GET_SIZE(p) != 2 || !PyLong_Check(PyTuple_GET_ITEM(p, 0)) ||
      !PyLong_Check(PyTuple_GET_ITEM(p, 1))) {
    throw nb::type_error((std::string("tvmffi.Tensor.__dlpack__: ") + what + " must be a tuple " +
                          shape + " of two ints, got " + nb::cast<std::string>(nb::repr(pair)))
                             .c_str());
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(PyTuple_GET_ITEM(p, k), &overflow);
  if (overflow != 0) {
    throw nb::value_error((std::string("tvmffi.Tensor.__dlpack__: ") + what + " " +
                           nb::cast<std::string>(nb::repr(pair)) + " is out of range")
                              .c_str());
  }
  return v;
}

void CapsuleDeleterVersioned(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
    auto* m =
        static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(cap, "dltensor_versioned"));
    if (m->deleter != nullptr) m->deleter(m);
  }
}

void CapsuleDeleterLegacy(PyObject* cap) {
  if (PyCapsule_IsValid(cap, "dltensor")) {
    auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
    if (m->deleter != nullptr) m->deleter(m);
  }
}

int CollectName(void* ctx, const TVMFFIByteArray* name) {
  static_cast<std::vector<std::string>*>(ctx)->emplace_back(name->data, name->size);
  return 0;
}

// FFI functions have no parameter names (the metadata has none): keyword
// arguments are a TypeError that says so. NULL, always.
PyObject* KeywordError(PyObject* self, PyObject* first_keyword) {
  PyObject* name = PyObject_GetAttrString(self, "__name__");
  if (name == nullptr || !PyUnicode_Check(name)) {
    PyErr_Clear();
    Py_XDECREF(name);
    name = PyUnicode_FromString("tvmffi.Function");
  }
  PyErr_Format(PyExc_TypeError,
               "%U() takes positional arguments only: FFI functions have no parameter names "
               "(got keyword argument %R)",
               name, first_keyword);
  Py_XDECREF(name);
  return nullptr;
}

FunctionRef* CallableRef(PyObject* self) {
  FunctionRef* f = nb::inst_ptr<FunctionRef>(self);
  if (f->handle == nullptr) {
    PyErr_SetString(PyExc_TypeError, "the tvmffi.Function is not initialised");
    return nullptr;
  }
  return f;
}

PyObject* FunctionTpCall(PyObject* self, PyObject* args, PyObject* kwargs) {
  if (kwargs != nullptr && PyDict_GET_SIZE(kwargs) != 0) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    PyDict_Next(kwargs, &pos, &key, &value);
    return KeywordError(self, key);
  }
  FunctionRef* f = CallableRef(self);
  if (f == nullptr) return nullptr;
  return CallFunction(f, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args));
}

TVMFFIObjectHandle BuiltinFunction(const char* name) {
  if (g_builtins == nullptr) return nullptr;
  for (const auto& b : *g_builtins) {
    if (b.first == name) return b.second;
  }
  return nullptr;
}

// Where a Function instance keeps its FunctionRef (EnableVectorcall): the
// same for every instance, as nanobind stores the C++ object inline.
Py_ssize_t g_function_ref_offset = -1;

PyObject* FunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames) {
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) != 0) {
    return KeywordError(self, PyTuple_GET_ITEM(kwnames, 0));
  }
  // Only constructed instances have this slot set (see EnableVectorcall): the
  // FunctionRef is read at its fixed offset, without nanobind's lookup.
  auto* f = reinterpret_cast<FunctionRef*>(reinterpret_cast<char*>(self) + g_function_ref_offset);
  if (f->handle == nullptr) {
    PyErr_SetString(PyExc_TypeError, "the tvmffi.Function is not initialised");
    return nullptr;
  }
  return CallFunction(f, args, PyVectorcall_NARGS(nargsf));
}

// Calls without an argument tuple: point the type's tp_vectorcall_offset at
// FunctionRef::vectorcall (nanobind keeps the C++ object at a fixed offset).
void EnableVectorcall(nb::handle cls) {
  nb::object probe = nb::inst_alloc(cls);  // never made ready: no C++ destructor runs
  FunctionRef* f = nb::inst_ptr<FunctionRef>(probe);
  g_function_ref_offset = reinterpret_cast<char*>(f) - reinterpret_cast<char*>(probe.ptr());
  PyTypeObject* tp = reinterpret_cast<PyTypeObject*>(cls.ptr());
  tp->tp_vectorcall_offset =
      reinterpret_cast<char*>(&f->vectorcall) - reinterpret_cast<char*>(probe.ptr());
  tp->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
  PyType_Modified(tp);
}

PyType_Slot g_function_slots[] = {{Py_tp_call, reinterpret_cast<void*>(FunctionTpCall)},
                                  {0, nullptr}};

// ---- ObjectMeta: the metaclass of the FFI classes ---------------------------
// nanobind's metaclass of bound classes (nanobind.nb_type_0) cannot be
// subclassed, and its __init__ takes exactly one base. ObjectMeta is a
// subclass of it that Python code may subclass in turn (dataclasses.enum's
// metaclass makes `list(E)`, `len(E)`, `E("name")` work) and whose __init__
// accepts mixin bases. Object, Function and Tensor are given it as their
// metaclass, so every Python subclass of them has it.
PyTypeObject* g_nb_class_meta = nullptr;

// ObjectMeta.__init__(cls, name, bases, namespace, **kwargs).
PyObject* ObjectMetaInit(PyObject* self, PyObject* args, PyObject* kwargs) {
  nb::object call_args = nb::borrow(args);
  if (PyTuple_GET_SIZE(args) == 3 && PyTuple_Check(PyTuple_GET_ITEM(args, 1)) &&
      PyTuple_GET_SIZE(PyTuple_GET_ITEM(args, 1)) > 1) {
    // nanobind fills the new class's type data from its one base: give it the
    // base whose layout the class extends (Python's choice, tp_base); the
    // other bases (mixins, or classes with that same layout) are Python's.
    PyObject* layout_base =
        reinterpret_cast<PyObject*>(reinterpret_cast<PyTypeObject*>(self)->tp_base);
    if (layout_base != nullptr && Py_TYPE(Py_TYPE(layout_base)) == Py_TYPE(g_nb_class_meta)) {
      call_args = nb::make_tuple(nb::handle(PyTuple_GET_ITEM(args, 0)),
                                 nb::make_tuple(nb::handle(layout_base)),
                                 nb::handle(PyTuple_GET_ITEM(args, 2)));
    }
  }
  if (g_nb_class_meta->tp_init(self, call_args.ptr(), kwargs) != 0) return nullptr;
  Py_RETURN_NONE;
}

PyMethodDef g_object_meta_init = {
    "__init__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(ObjectMetaInit)),
    METH_VARARGS | METH_KEYWORDS,
    "Initialise a new FFI class; with several bases, nanobind's part takes the layout base."};

nb::object MakeObjectMeta(nb::handle module, nb::handle object_cls) {
  g_nb_class_meta = Py_TYPE(object_cls.ptr());
  PyObject* nb_meta = reinterpret_cast<PyObject*>(Py_TYPE(g_nb_class_meta));
  nb::dict ns;
  ns["__module__"] = module.attr("__name__");
  ns["__qualname__"] = "ObjectMeta";
  ns["__doc__"] =
      "The metaclass of tvmffi.Object and its subclasses (a subclass of nanobind's "
      "metaclass that may be subclassed).";
  // The class statement's machinery (type_new) refuses a base without
  // Py_TPFLAGS_BASETYPE, which nanobind leaves off: lend it for this one call.
  const unsigned long flags = g_nb_class_meta->tp_flags;
  g_nb_class_meta->tp_flags = flags | Py_TPFLAGS_BASETYPE;
  PyObject* meta = PyObject_CallFunction(nb_meta, "s(O)O", "ObjectMeta",
                                         reinterpret_cast<PyObject*>(g_nb_class_meta), ns.ptr());
  g_nb_class_meta->tp_flags = flags;
  if (meta == nullptr) throw nb::python_error();
  nb::object result = nb::steal(meta);
  nb::object init =
      nb::steal(PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(meta), &g_object_meta_init));
  if (!init.is_valid() || PyObject_SetAttrString(meta, "__init__", init.ptr()) != 0) {
    throw nb::python_error();
  }
  return result;
}

// Make `meta` (ObjectMeta) the metaclass of the bound class `cls`: the layouts
// are the same, ObjectMeta adds no slot of its own but __init__.
void AdoptObjectMeta(nb::handle cls, nb::handle meta) {
  PyObject* old = reinterpret_cast<PyObject*>(Py_TYPE(cls.ptr()));
  Py_INCREF(meta.ptr());
  Py_SET_TYPE(cls.ptr(), reinterpret_cast<PyTypeObject*>(meta.ptr()));
  Py_DECREF(old);
}

}  // namespace tvmffi_py

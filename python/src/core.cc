// tvmffi._core: the nanobind module. Object, Function, Tensor and Device
// classes, errors in both directions, global functions, DLPack import/export
// and the stream table. The call path itself is in call.cc.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>

#include "core.h"

namespace tvmffi_py {

bool g_has_retired_handles = false;

namespace {
// (owner, old handle) pairs; touched with the GIL held (nanobind's init and dealloc).
using RetiredList = std::vector<std::pair<const ObjectRef*, TVMFFIObjectHandle>>;
RetiredList* g_retired = nullptr;  // never freed: read by destructors at exit

void RetireHandle(const ObjectRef* owner, TVMFFIObjectHandle old) {
  if (g_retired == nullptr) g_retired = new RetiredList();
  g_retired->emplace_back(owner, old);
  g_has_retired_handles = true;
}
}  // namespace

void ReleaseRetiredHandles(const ObjectRef* owner) {
  std::vector<TVMFFIObjectHandle> mine;
  auto& all = *g_retired;
  for (size_t i = 0; i < all.size();) {
    if (all[i].first == owner) {
      mine.push_back(all[i].second);
      all[i] = all.back();
      all.pop_back();
    } else {
      ++i;
    }
  }
  g_has_retired_handles = !all.empty();
  // Released after the table is consistent: a release may run arbitrary code.
  for (TVMFFIObjectHandle h : mine) TVMFFIObjectDecRef(h);
}

Hooks& GetHooks() {
  static Hooks hooks;
  return hooks;
}

CoreTypes& GetCoreTypes() {
  static CoreTypes types;
  return types;
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------
void SetPyErrorFromFFI() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    if (!PyErr_Occurred()) {
      PyErr_SetString(PyExc_RuntimeError, "tvmffi: a call failed without raising an error");
    }
    return;
  }
  PyErr_Clear();
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  PyObject* kind = PyUnicode_DecodeUTF8(cell->kind.data, cell->kind.size, "replace");
  PyObject* msg = PyUnicode_DecodeUTF8(cell->message.data, cell->message.size, "replace");
  PyObject* bt = PyUnicode_DecodeUTF8(cell->backtrace.data, cell->backtrace.size, "replace");
  const Hooks& h = GetHooks();
  PyObject* exc = nullptr;
  if (h.make_error != nullptr && kind && msg && bt) {
    // The hook takes a reference to the error (the exception's __tvm_ffi_error__).
    PyObject* addr = PyLong_FromVoidPtr(err);
    if (addr != nullptr) {
      TVMFFIObjectIncRef(err);
      exc = PyObject_CallFunctionObjArgs(h.make_error, kind, msg, bt, addr, nullptr);
      Py_DECREF(addr);
    }
  }
  TVMFFIObjectDecRef(err);
  if (exc != nullptr) {
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
    Py_DECREF(exc);
  } else if (!PyErr_Occurred()) {
    PyErr_Format(PyExc_RuntimeError, "%U: %U", kind, msg);
  }
  Py_XDECREF(kind);
  Py_XDECREF(msg);
  Py_XDECREF(bt);
}

void ThrowFFIError() {
  SetPyErrorFromFFI();
  throw nb::python_error();
}

void SetFFIErrorFromPython() {
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  if (value != nullptr && tb != nullptr) PyException_SetTraceback(value, tb);
  std::string kind = "RuntimeError", msg, bt;
  const Hooks& h = GetHooks();
  PyObject* info = (h.error_info != nullptr && value != nullptr)
                       ? PyObject_CallOneArg(h.error_info, value)
                       : nullptr;
  const char *k = nullptr, *m = nullptr, *b = nullptr;
  unsigned long long prior = 0;  // NOLINT(runtime/int): the error it came from, if any
  if (info != nullptr && PyArg_ParseTuple(info, "sss|K", &k, &m, &b, &prior)) {
    kind = k;
    msg = m;
    bt = b;
  } else {
    PyErr_Clear();
    if (type != nullptr) kind = reinterpret_cast<PyTypeObject*>(type)->tp_name;
    PyObject* s = value != nullptr ? PyObject_Str(value) : nullptr;
    const char* cs = s != nullptr ? PyUnicode_AsUTF8(s) : nullptr;
    if (cs != nullptr) msg = cs;
    PyErr_Clear();
    Py_XDECREF(s);
  }
  Py_XDECREF(info);
  Py_XDECREF(type);
  Py_XDECREF(value);
  Py_XDECREF(tb);
  TVMFFIByteArray kb{kind.data(), kind.size()}, mb{msg.data(), msg.size()},
      bb{bt.data(), bt.size()};
  if (prior != 0) {
    // An exception made from an FFI error goes back as that very error, the
    // Python frames it crossed appended to its backtrace. (The hook checked it
    // is an ffi.Error and gave a reference of its own, released here.)
    TVMFFIObjectHandle err = reinterpret_cast<TVMFFIObjectHandle>(prior);
    const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    if (cell->update_backtrace != nullptr && !bt.empty()) {
      cell->update_backtrace(err, &bb, kTVMFFIBacktraceUpdateModeAppend);
    }
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
    return;
  }
  TVMFFIObjectHandle err = nullptr;
  if (TVMFFIErrorCreate(&kb, &mb, &bb, &err) == 0) {
    TVMFFIErrorSetRaised(err);
    TVMFFIObjectDecRef(err);
  } else {
    TVMFFIErrorSetRaisedFromCStr(kind.c_str(), msg.c_str());
  }
}

// ---------------------------------------------------------------------------
// Objects
// ---------------------------------------------------------------------------
namespace {
std::vector<PyObject*> g_object_classes;  // by type index; strong references

PyObject* ClassFor(int32_t type_index) {
  if (type_index >= 0 && static_cast<size_t>(type_index) < g_object_classes.size() &&
      g_object_classes[type_index] != nullptr) {
    return g_object_classes[type_index];
  }
  const CoreTypes& ct = GetCoreTypes();
  if (type_index == kTVMFFIFunction) return reinterpret_cast<PyObject*>(ct.function);
  if (type_index == kTVMFFITensor) return reinterpret_cast<PyObject*>(ct.tensor);
  return reinterpret_cast<PyObject*>(ct.object);
}
}  // namespace

void RegisterObjectClass(int32_t type_index, nb::handle cls) {
  if (type_index < 0) throw nb::value_error("negative type index");
  if (static_cast<size_t>(type_index) >= g_object_classes.size()) {
    g_object_classes.resize(type_index + 1, nullptr);
  }
  Py_XDECREF(g_object_classes[type_index]);
  g_object_classes[type_index] = cls.inc_ref().ptr();
}

nb::object WrapObject(TVMFFIObjectHandle h) {
  nb::object inst = nb::inst_alloc(ClassFor(TVMFFIObjectGetTypeIndex(h)));
  if (PyType_IsSubtype(Py_TYPE(inst.ptr()), GetCoreTypes().function)) {
    new (nb::inst_ptr<FunctionRef>(inst)) FunctionRef(h);
  } else if (PyType_IsSubtype(Py_TYPE(inst.ptr()), GetCoreTypes().tensor)) {
    new (nb::inst_ptr<TensorRef>(inst)) TensorRef(h);
  } else {
    new (nb::inst_ptr<ObjectRef>(inst)) ObjectRef(h);
  }
  nb::inst_mark_ready(inst);
  return inst;
}

// ---------------------------------------------------------------------------
// Python callables as Functions
// ---------------------------------------------------------------------------
namespace {

int PySafeCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  PyGILState_STATE g = PyGILState_Ensure();
  int rc = -1;
  PyObject* tuple = PyTuple_New(num_args);
  bool ok = tuple != nullptr;
  // Tensors lent as DLTensor*: the callback gets owning copies, written back
  // when it returns (AnyViewToPy), so that nothing it keeps can dangle.
  std::unique_ptr<LentTensor[]> lent;
  for (int32_t i = 0; ok && i < num_args; ++i) {
    if (args[i].type_index == kTVMFFIDLTensorPtr && lent == nullptr) {
      lent.reset(new (std::nothrow) LentTensor[num_args]);
      if (lent == nullptr) {
        PyErr_NoMemory();
        ok = false;
        break;
      }
    }
    PyObject* v = AnyViewToPy(&args[i], lent != nullptr ? &lent[i] : nullptr);
    if (v == nullptr) {
      ok = false;
    } else {
      PyTuple_SET_ITEM(tuple, i, v);
    }
  }
  PyObject* ret = ok ? PyObject_Call(static_cast<PyObject*>(self), tuple, nullptr) : nullptr;
  bool returned = true;
  for (int32_t i = 0; lent != nullptr && i < num_args; ++i) {
    returned = ReturnLentTensor(&lent[i]) && returned;
  }
  if (ret != nullptr) {
    if (returned && PyToOwnedAny(ret, result)) rc = 0;
    Py_DECREF(ret);
  }
  Py_XDECREF(tuple);
  if (rc != 0) SetFFIErrorFromPython();
  PyGILState_Release(g);
  return rc;
}

void PyDeleter(void* self) {
  if (!Py_IsInitialized()) return;  // the interpreter is gone: leak rather than crash
  PyGILState_STATE g = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(self));
  PyGILState_Release(g);
}

}  // namespace

TVMFFIObjectHandle FunctionFromCallable(PyObject* callable) {
  TVMFFIObjectHandle out = nullptr;
  Py_INCREF(callable);
  if (TVMFFIFunctionCreate(callable, PySafeCall, PyDeleter, &out) != 0) {
    Py_DECREF(callable);
    SetPyErrorFromFFI();
    return nullptr;
  }
  return out;
}

// ---------------------------------------------------------------------------
// C functions as Functions (Function.__from_extern_c__ and
// Function.__from_mlir_packed_safe_call__): JIT-compiled code hands over an
// address; an optional Python object (the engine that owns the code) is kept
// alive as long as the function.
// ---------------------------------------------------------------------------
namespace {

// A Python int (or an object with __index__) as a non-NULL address.
void* AddressFromPy(nb::handle value, const char* what) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (index == nullptr) {
    PyErr_Clear();
    throw nb::type_error((std::string("argument `") + what +
                          "` must be an int address, got an object of type '" +
                          Py_TYPE(value.ptr())->tp_name + "'")
                             .c_str());
  }
  void* addr = PyLong_AsVoidPtr(index);
  Py_DECREF(index);
  if (addr == nullptr) {
    if (PyErr_Occurred()) throw nb::python_error();
    throw nb::value_error((std::string("argument `") + what + "` is NULL").c_str());
  }
  return addr;
}

// MLIR's "packed" convention: one array of pointers to the arguments
// (handle, args, num_args, result) and to the return code.
struct MlirPackedCall {
  void (*packed)(void**);
  PyObject* keep_alive;  // owned, or NULL
};

int MlirPackedSafeCall(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  auto* call = static_cast<MlirPackedCall*>(self);
  void* handle = nullptr;  // the callee ignores it, as a safe call's `self`
  int rc = 0;
  void* packed[] = {&handle, &args, &num_args, &result, &rc};
  call->packed(packed);
  return rc;
}

void MlirPackedDeleter(void* self) {
  auto* call = static_cast<MlirPackedCall*>(self);
  if (call->keep_alive != nullptr) PyDeleter(call->keep_alive);
  delete call;
}

nb::object FunctionFromExternC(nb::handle c_symbol, nb::handle keep_alive) {
  auto call = reinterpret_cast<TVMFFISafeCallType>(AddressFromPy(c_symbol, "c_symbol"));
  const bool keep = !keep_alive.is_none();
  TVMFFIObjectHandle h = nullptr;
  if (keep) Py_INCREF(keep_alive.ptr());
  if (TVMFFIFunctionCreate(keep ? keep_alive.ptr() : nullptr, call, keep ? PyDeleter : nullptr,
                           &h) != 0) {
    if (keep) Py_DECREF(keep_alive.ptr());
    ThrowFFIError();
  }
  return WrapObject(h);
}

nb::object FunctionFromMlirPacked(nb::handle symbol, nb::handle keep_alive) {
  auto packed = reinterpret_cast<void (*)(void**)>(AddressFromPy(symbol, "mlir_packed_symbol"));
  auto* call = new MlirPackedCall{packed, nullptr};
  if (!keep_alive.is_none()) call->keep_alive = keep_alive.inc_ref().ptr();
  TVMFFIObjectHandle h = nullptr;
  if (TVMFFIFunctionCreate(call, MlirPackedSafeCall, MlirPackedDeleter, &h) != 0) {
    Py_XDECREF(call->keep_alive);
    delete call;
    ThrowFFIError();
  }
  return WrapObject(h);
}

}  // namespace

// ---------------------------------------------------------------------------
// DLTensorTestWrapper (tvmffi.core, for tests): a tvmffi.Tensor behind a
// class of its own whose DLPack C exchange API (__dlpack_c_exchange_api__)
// is implemented here, as a framework's would be: arguments of that class
// take the exchange-API path, results come back through the API as Tensors.
// ---------------------------------------------------------------------------
namespace {

struct DLTensorTestWrapper {
  nb::object tensor;  // a tvmffi.Tensor holding an ffi.Tensor
};

int TestWrapperToManaged(void* py_object, DLManagedTensorVersioned** out) {
  nb::handle self(static_cast<PyObject*>(py_object));
  const DLTensorTestWrapper* w = nb::inst_ptr<DLTensorTestWrapper>(self);
  if (!nb::inst_ready(self) || !w->tensor.is_valid()) {
    PyErr_SetString(PyExc_TypeError, "DLTensorTestWrapper is not initialised");
    return -1;
  }
  if (TVMFFITensorToDLPackVersioned(nb::inst_ptr<ObjectRef>(w->tensor)->handle, out) != 0) {
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

}  // namespace

// ---------------------------------------------------------------------------
// Helpers for the bindings
// ---------------------------------------------------------------------------
namespace {

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

}  // namespace

TVMFFIObjectHandle BuiltinFunction(const char* name) {
  if (g_builtins == nullptr) return nullptr;
  for (const auto& b : *g_builtins) {
    if (b.first == name) return b.second;
  }
  return nullptr;
}

PyObject* FunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames) {
  if (kwnames != nullptr && PyTuple_GET_SIZE(kwnames) != 0) {
    return KeywordError(self, PyTuple_GET_ITEM(kwnames, 0));
  }
  FunctionRef* f = CallableRef(self);
  if (f == nullptr) return nullptr;
  return CallFunction(f, args, PyVectorcall_NARGS(nargsf));
}

namespace {

// Calls without an argument tuple: point the type's tp_vectorcall_offset at
// FunctionRef::vectorcall (nanobind keeps the C++ object at a fixed offset).
void EnableVectorcall(nb::handle cls) {
  nb::object probe = nb::inst_alloc(cls);  // never made ready: no C++ destructor runs
  FunctionRef* f = nb::inst_ptr<FunctionRef>(probe);
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

}  // namespace

}  // namespace tvmffi_py

// ---------------------------------------------------------------------------
// The module
// ---------------------------------------------------------------------------
namespace tvmffi_py {

bool g_release_gil_by_default = true;

namespace {

// A tvmffi.Function's payload, initialised or not (TypeError for another object).
FunctionRef* FunctionPayload(nb::handle self) {
  if (!nb::isinstance<FunctionRef>(self)) throw nb::type_error("expected a tvmffi.Function");
  return nb::inst_ptr<FunctionRef>(self);
}

// TVM_FFI_RELEASE_GIL_BY_DEFAULT as upstream reads it: int(value), 1 when unset.
bool ReleaseGilByDefault() {
  const char* v = std::getenv("TVM_FFI_RELEASE_GIL_BY_DEFAULT");
  if (v == nullptr) return true;
  nb::object n = nb::steal(PyLong_FromUnicodeObject(nb::str(v).ptr(), 10));
  if (!n.is_valid()) throw nb::python_error();
  return PyObject_IsTrue(n.ptr()) == 1;
}

// The TVMFFIEnvCheckSignals hook: a long call that checks for signals sees
// Ctrl-C (any signal whose Python handler raises) as the handler's exception,
// raised as an FFI error that the call returns (KeyboardInterrupt in Python).
// Takes the GIL: the call runs without it. Handlers run on the main thread
// only; elsewhere this is a no-op.
int CheckSignals() {
  if (!Py_IsInitialized()) return 0;
  PyGILState_STATE g = PyGILState_Ensure();
  int rc = 0;
  if (PyErr_CheckSignals() != 0) {
    SetFFIErrorFromPython();
    rc = -1;
  }
  PyGILState_Release(g);
  return rc;
}

void InstallSignalCheck() {
  Check(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", reinterpret_cast<void*>(&CheckSignals)));
}

}  // namespace
}  // namespace tvmffi_py

NB_MODULE(_core, m) {
  using namespace tvmffi_py;
  m.doc() = "Native core of tvmffi (nanobind over the TVM-FFI C ABI)";
  // Functions and classes cached for the process lifetime are not leaks.
  nb::set_leak_warnings(false);
  g_release_gil_by_default = ReleaseGilByDefault();
  InstallSignalCheck();

  auto object_cls =
      nb::class_<ObjectRef>(m, "Object", "A reference to an FFI object.")
          .def(nb::init<>())
          .def_prop_ro(
              "type_key",
              [](nb::handle self) { return TypeKeyOf(TVMFFIObjectGetTypeIndex(HandleOf(self))); })
          .def_prop_ro("type_index",
                       [](nb::handle self) { return TVMFFIObjectGetTypeIndex(HandleOf(self)); })
          .def("same_as",
               [](nb::handle self, nb::handle other) {
                 if (!nb::isinstance<ObjectRef>(other)) return false;
                 // Objects without a handle (never initialised) are only themselves.
                 TVMFFIObjectHandle a = RawHandleOf(self), b = RawHandleOf(other);
                 return a != nullptr ? a == b : self.is(other);
               })
          .def("__eq__",
               [](nb::handle self, nb::handle other) -> nb::object {
                 if (!nb::isinstance<ObjectRef>(other)) return nb::borrow(Py_NotImplemented);
                 TVMFFIObjectHandle a = RawHandleOf(self), b = RawHandleOf(other);
                 return nb::bool_(a != nullptr ? a == b : self.is(other));
               })
          .def("__hash__",
               [](nb::handle self) {
                 TVMFFIObjectHandle h = RawHandleOf(self);
                 return h != nullptr ? reinterpret_cast<intptr_t>(h)
                                     : reinterpret_cast<intptr_t>(self.ptr()) >> 4;
               })
          .def("__repr__", [](nb::handle self) {
            TVMFFIObjectHandle h = RawHandleOf(self);
            if (h == nullptr) return std::string("<tvmffi.Object (null)>");
            char buf[32];
            std::snprintf(buf, sizeof(buf), "%p", h);
            return "<" + TypeKeyOf(TVMFFIObjectGetTypeIndex(h)) + " at " + buf + ">";
          });
  GetCoreTypes().object = reinterpret_cast<PyTypeObject*>(object_cls.ptr());
  ClearPayloadOnNew(object_cls);

  // dynamic_attr: a function from a module or the registry carries __name__,
  // __doc__ and __signature__ in its own __dict__ (registry.py describes it).
  auto function_cls =
      nb::class_<FunctionRef, ObjectRef>(m, "Function", nb::type_slots(g_function_slots),
                                         nb::dynamic_attr(),
                                         "A callable FFI function; Function(callable) wraps a "
                                         "Python callable.")
          .def("__init__",
               [](FunctionRef* self, nb::handle callable) {
                 if (!PyCallable_Check(callable.ptr())) {
                   throw nb::type_error("tvmffi.Function(f): f must be callable");
                 }
                 TVMFFIObjectHandle h = FunctionFromCallable(callable.ptr());
                 if (h == nullptr) throw nb::python_error();
                 new (self) FunctionRef();
                 self->handle = h;
                 // A Python callable copies the tensors it is lent (AnyViewToPy):
                 // none escapes, so borrowed ones are passed.
                 self->schema_known = true;
               })
          .def_static("__from_extern_c__", &FunctionFromExternC, nb::arg("c_symbol"), nb::kw_only(),
                      nb::arg("keep_alive_object") = nb::none(),
                      "Function.__from_extern_c__(c_symbol, *, keep_alive_object=None): the C "
                      "function at address `c_symbol` (a TVMFFISafeCallType, whose first "
                      "argument it must ignore) as a Function; `keep_alive_object` (e.g. the JIT "
                      "engine owning the code) is kept alive as long as the Function.")
          .def_static("__from_mlir_packed_safe_call__", &FunctionFromMlirPacked,
                      nb::arg("mlir_packed_symbol"), nb::kw_only(),
                      nb::arg("keep_alive_object") = nb::none(),
                      "Function.__from_mlir_packed_safe_call__(mlir_packed_symbol, *, "
                      "keep_alive_object=None): a safe call compiled by MLIR in its packed form "
                      "(void f(void** packed): pointers to handle, args, num_args, result and "
                      "the int return code) as a Function; `keep_alive_object` is kept alive as "
                      "long as the Function.")
          .def_prop_rw(
              "release_gil",
              // The payload itself (zero-filled before __init__): no readiness check.
              [](nb::handle self) { return FunctionPayload(self)->release_gil; },
              [](nb::handle self, bool value) { FunctionPayload(self)->release_gil = value; },
              "Whether calls release the GIL while the function runs (default: "
              "TVM_FFI_RELEASE_GIL_BY_DEFAULT, 1 when unset); callbacks into Python take it "
              "again.")
          .def("__repr__", [](nb::handle self) -> std::string {
            nb::object name = nb::getattr(self, "__name__", nb::none());
            if (!nb::isinstance<nb::str>(name)) {
              TVMFFIObjectHandle h = RawHandleOf(self);
              char buf[32];
              std::snprintf(buf, sizeof(buf), "%p", h);
              return std::string("<tvmffi.Function at ") + buf + ">";
            }
            std::string text = "<tvmffi.Function " + nb::cast<std::string>(name);
            nb::object sig = nb::getattr(self, "__signature__", nb::none());
            if (!sig.is_none()) text += nb::cast<std::string>(nb::str(sig));
            return text + ">";
          });
  GetCoreTypes().function = reinterpret_cast<PyTypeObject*>(function_cls.ptr());
  ClearPayloadOnNew(function_cls);
  EnableVectorcall(function_cls);

  auto tensor_cls =
      nb::class_<TensorRef, ObjectRef>(m, "Tensor", "An FFI tensor (DLPack producer).")
          .def_prop_ro("shape",
                       [](nb::handle self) {
                         const DLTensor* t = TensorOf(self);
                         return ShapeTuple(t->shape, t->ndim);
                       })
          .def_prop_ro("strides",
                       [](nb::handle self) {
                         const DLTensor* t = TensorOf(self);
                         if (t->strides != nullptr) return ShapeTuple(t->strides, t->ndim);
                         std::vector<int64_t> st(t->ndim);
                         int64_t acc = 1;
                         for (int k = t->ndim - 1; k >= 0; --k) {
                           st[k] = acc;
                           acc *= t->shape[k];
                         }
                         return ShapeTuple(st.data(), t->ndim);
                       })
          .def_prop_ro("ndim", [](nb::handle self) { return TensorOf(self)->ndim; })
          .def_prop_ro("dtype",
                       [](nb::handle self) {
                         TVMFFIAny a;
                         a.type_index = kTVMFFIDataType;
                         a.zero_padding = 0;
                         a.v_int64 = 0;
                         a.v_dtype = TensorOf(self)->dtype;
                         return ToPy(&a);
                       })
          .def_prop_ro("device",
                       [](nb::handle self) {
                         TVMFFIAny a;
                         a.type_index = kTVMFFIDevice;
                         a.zero_padding = 0;
                         a.v_int64 = 0;
                         a.v_device = TensorOf(self)->device;
                         return ToPy(&a);
                       })
          .def(
              "data_ptr",
              [](nb::handle self) {
                const DLTensor* t = TensorOf(self);
                return reinterpret_cast<uintptr_t>(static_cast<char*>(t->data) + t->byte_offset);
              },
              "The address of the first element (``data`` plus ``byte_offset``), as an int; a "
              "method, as torch's and upstream's.")
          .def("__dlpack_device__",
               [](nb::handle self) {
                 const DLTensor* t = TensorOf(self);
                 return nb::make_tuple(static_cast<int>(t->device.device_type),
                                       t->device.device_id);
               })
          .def(
              "__dlpack__",
              [](nb::handle self, nb::handle stream, nb::handle max_version, nb::handle dl_device,
                 nb::handle copy) {
                (void)stream;    // the producer does no work on any stream: nothing to order
                TensorOf(self);  // a tvmffi.Tensor holding a tensor (TypeError otherwise)
                TVMFFIObjectHandle h = HandleOf(self);
                if (!copy.is_none() && !PyBool_Check(copy.ptr())) {
                  throw nb::type_error(("tvmffi.Tensor.__dlpack__: copy must be None or a bool, "
                                        "got an object of type '" +
                                        std::string(Py_TYPE(copy.ptr())->tp_name) + "'")
                                           .c_str());
                }
                if (copy.ptr() == Py_True) {
                  throw nb::buffer_error("tvmffi.Tensor.__dlpack__: copy=True is not supported");
                }
                if (!dl_device.is_none()) {
                  const int64_t type =
                      PairItem(dl_device, 0, "dl_device", "(device_type, device_id)");
                  const int64_t id =
                      PairItem(dl_device, 1, "dl_device", "(device_type, device_id)");
                  const DLDevice own = TensorOf(self)->device;
                  if (type != own.device_type || id != own.device_id) {
                    throw nb::buffer_error(
                        "tvmffi.Tensor.__dlpack__: cannot export to another device");
                  }
                }
                bool versioned = false;
                if (!max_version.is_none()) {
                  versioned = PairItem(max_version, 0, "max_version", "(major, minor)") >= 1;
                  PairItem(max_version, 1, "max_version", "(major, minor)");
                }
                if (versioned) {
                  DLManagedTensorVersioned* mt = nullptr;
                  Check(TVMFFITensorToDLPackVersioned(h, &mt));
                  PyObject* cap = PyCapsule_New(mt, "dltensor_versioned", CapsuleDeleterVersioned);
                  if (cap == nullptr) mt->deleter(mt);
                  return Steal(cap);
                }
                DLManagedTensor* mt = nullptr;
                Check(TVMFFITensorToDLPack(h, &mt));
                PyObject* cap = PyCapsule_New(mt, "dltensor", CapsuleDeleterLegacy);
                if (cap == nullptr) mt->deleter(mt);
                return Steal(cap);
              },
              nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
              nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none())
          .def("__repr__", [](nb::handle self) -> std::string {
            if (RawHandleOf(self) == nullptr) return "<tvmffi.Tensor (not initialised)>";
            const DLTensor* t = TensorOf(self);
            TVMFFIAny a;
            a.type_index = kTVMFFIDataType;
            a.zero_padding = 0;
            a.v_int64 = 0;
            a.v_dtype = t->dtype;
            nb::str dtype = nb::str(ToPy(&a));
            std::string shape = "(";
            for (int k = 0; k < t->ndim; ++k) {
              shape += std::to_string(t->shape[k]);
              if (k + 1 < t->ndim || t->ndim == 1) shape += ", ";
            }
            if (t->ndim == 1) shape.resize(shape.size() - 1);
            shape += ")";
            return "<tvmffi.Tensor shape=" + shape + " dtype=" + std::string(dtype.c_str()) +
                   " device=" + DeviceRepr(t->device) + ">";
          });
  GetCoreTypes().tensor = reinterpret_cast<PyTypeObject*>(tensor_cls.ptr());
  ClearPayloadOnNew(tensor_cls);

  auto wrapper_cls =
      nb::class_<DLTensorTestWrapper>(m, "DLTensorTestWrapper", nb::dynamic_attr(),
                                      "A tvmffi.Tensor behind a class with its own DLPack C "
                                      "exchange API (__dlpack_c_exchange_api__); for tests.")
          .def(
              "__init__",
              [](DLTensorTestWrapper* self, nb::handle tensor) {
                TensorOf(tensor);  // TypeError unless a tvmffi.Tensor holding a tensor
                new (self) DLTensorTestWrapper{nb::borrow(tensor)};
              },
              nb::arg("tensor"))
          .def_prop_ro(
              "tensor", [](const DLTensorTestWrapper& w) { return w.tensor; },
              "The wrapped tvmffi.Tensor.")
          .def(
              "__dlpack__",
              [](const DLTensorTestWrapper& w, nb::args args, nb::kwargs kwargs) {
                return w.tensor.attr("__dlpack__")(*args, **kwargs);
              },
              "The wrapped tensor's __dlpack__.")
          .def(
              "__dlpack_device__",
              [](const DLTensorTestWrapper& w) { return w.tensor.attr("__dlpack_device__")(); },
              "The wrapped tensor's (device_type, device_id).")
          .def(
              "__tvm_ffi_env_stream__",
              [](const DLTensorTestWrapper& w) {
                const DLDevice d = TensorOf(w.tensor)->device;
                return reinterpret_cast<intptr_t>(TVMFFIEnvGetStream(d.device_type, d.device_id));
              },
              "The runtime's current stream on the wrapped tensor's device, as an int.");
  wrapper_cls.attr("__dlpack_c_exchange_api__") =
      Steal(PyCapsule_New(TestWrapperApi(), "dlpack_exchange_api", nullptr));

  auto device_cls =
      nb::class_<DeviceValue>(m, "Device",
                              "A device: Device('cuda:0'), Device('cpu'), Device('cuda', 1).")
          .def(
              "__init__",
              [](DeviceValue* self, nb::handle spec, nb::handle index) {
                const int64_t idx = index.is_none() ? 0 : DeviceInt(index, "index");
                DLDevice d;
                if (nb::isinstance<DeviceValue>(spec)) {
                  d = DeviceOf(spec);
                } else if (nb::isinstance<nb::str>(spec)) {
                  d = ParseDevice(Utf8(spec), idx);
                } else if (nb::isinstance<nb::int_>(spec)) {
                  d = DLDevice{static_cast<DLDeviceType>(DeviceInt(spec, "type")),
                               static_cast<int32_t>(idx)};
                } else {
                  throw nb::type_error(
                      "tvmffi.Device(spec): spec must be a str such as "
                      "'cuda:0' or a DLPack device type code");
                }
                new (self) DeviceValue{d};
              },
              nb::arg("spec"), nb::arg("index") = nb::none())
          .def_prop_ro("type",
                       [](nb::handle self) -> nb::object {
                         const DLDevice d = DeviceOf(self);
                         const char* n = DeviceTypeName(d.device_type);
                         if (n == nullptr) return nb::int_(static_cast<int>(d.device_type));
                         return nb::str(n);
                       })
          .def_prop_ro("index", [](nb::handle self) { return DeviceOf(self).device_id; })
          .def("dlpack_device_type",
               [](nb::handle self) { return static_cast<int>(DeviceOf(self).device_type); })
          .def("__dlpack_device__",
               [](nb::handle self) {
                 const DLDevice d = DeviceOf(self);
                 return nb::make_tuple(static_cast<int>(d.device_type), d.device_id);
               })
          .def("__eq__",
               [](nb::handle self, nb::handle other) -> nb::object {
                 if (!DeviceReady(self)) return nb::bool_(self.is(other));
                 const DeviceValue d{DeviceOf(self)};
                 DLDevice o;
                 if (nb::isinstance<DeviceValue>(other)) {
                   if (!nb::inst_ready(other)) return nb::bool_(false);
                   o = nb::inst_ptr<DeviceValue>(other)->dev;
                 } else if (nb::isinstance<nb::str>(other)) {
                   try {
                     o = ParseDevice(Utf8(other), 0);
                   } catch (nb::python_error&) {
                     return nb::bool_(false);
                   } catch (nb::builtin_exception&) {
                     return nb::bool_(false);
                   }
                 } else {
                   return nb::borrow(Py_NotImplemented);
                 }
                 return nb::bool_(o.device_type == d.dev.device_type &&
                                  o.device_id == d.dev.device_id);
               })
          .def("__hash__",
               [](nb::handle self) {
                 const DLDevice d = DeviceOf(self);
                 return (static_cast<int64_t>(d.device_type) << 32) |
                        static_cast<int64_t>(static_cast<uint32_t>(d.device_id));
               })
          .def("__str__", [](nb::handle self) { return DeviceRepr(DeviceOf(self)); })
          .def("__repr__", [](nb::handle self) -> std::string {
            if (!DeviceReady(self)) return "<tvmffi.Device (not initialised)>";
            return "device(\"" + DeviceRepr(DeviceOf(self)) + "\")";
          });
  GetCoreTypes().device = reinterpret_cast<PyTypeObject*>(device_cls.ptr());
  ClearPayloadOnNew(device_cls);

  // After the bound classes are made (nanobind makes each with its own metaclass).
  nb::object object_meta = MakeObjectMeta(m, object_cls);
  for (nb::handle cls : {object_cls.ptr(), function_cls.ptr(), tensor_cls.ptr()}) {
    AdoptObjectMeta(cls, object_meta);
  }
  m.attr("ObjectMeta") = object_meta;

  m.def(
      "_set_hooks",
      [](nb::handle make_error, nb::handle error_info, nb::handle fw_alloc, nb::handle fw_stream,
         nb::handle fw_from_tensor, nb::handle fw_exchange_api, nb::handle dtype_cls,
         nb::handle shape_cls) {
        Hooks& h = GetHooks();
        auto keep = [](PyObject*& slot, nb::handle v) {
          Py_XDECREF(slot);
          slot = v.is_none() ? nullptr : v.inc_ref().ptr();
        };
        keep(h.make_error, make_error);
        keep(h.error_info, error_info);
        keep(h.fw_alloc, fw_alloc);
        keep(h.fw_stream, fw_stream);
        keep(h.fw_from_tensor, fw_from_tensor);
        keep(h.fw_exchange_api, fw_exchange_api);
        keep(h.dtype_cls, dtype_cls);
        keep(h.shape_cls, shape_cls);
      },
      "Install the Python-side hooks (called once by tvmffi/__init__.py).");

  m.def(
      "_set_result_classes",
      [](nb::handle string_cls, nb::handle bytes_cls) {
        if (!PyType_Check(string_cls.ptr()) ||
            !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(string_cls.ptr()), &PyUnicode_Type) ||
            !PyType_Check(bytes_cls.ptr()) ||
            !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(bytes_cls.ptr()), &PyBytes_Type)) {
          throw nb::type_error("_set_result_classes: expected a str and a bytes subclass");
        }
        Hooks& h = GetHooks();
        Py_XSETREF(h.string_cls, string_cls.inc_ref().ptr());
        Py_XSETREF(h.bytes_cls, bytes_cls.inc_ref().ptr());
      },
      "Make ffi.String / ffi.Bytes results of 128 bytes or more instances of "
      "`string_cls` / `bytes_cls` that keep the object (_tvm_ffi_cached_object).");

  m.def(
      "_set_device_class",
      [](nb::handle cls) {
        PyTypeObject* device = GetCoreTypes().device;
        if (!PyType_Check(cls.ptr()) ||
            !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), device)) {
          throw nb::type_error("_set_device_class: the class must be a subclass of tvmffi.Device");
        }
        Hooks& h = GetHooks();
        Py_XSETREF(h.device_cls, cls.ptr() == reinterpret_cast<PyObject*>(device)
                                     ? nullptr
                                     : cls.inc_ref().ptr());
      },
      "Make devices returned by calls instances of `cls` (a tvmffi.Device subclass).");

  m.def(
      "_tensor_to_exchange",
      [](nb::handle capsule, nb::handle tensor) -> nb::object {
        auto* api = static_cast<const DLPackExchangeAPI*>(
            PyCapsule_GetPointer(capsule.ptr(), "dlpack_exchange_api"));
        if (api == nullptr) throw nb::python_error();
        if (api->managed_tensor_to_py_object_no_sync == nullptr) {
          throw nb::type_error("the DLPack C exchange API has no managed_tensor_to_py_object");
        }
        TensorOf(tensor);  // TypeError unless a tvmffi.Tensor holding a tensor
        DLManagedTensorVersioned* managed = nullptr;
        Check(TVMFFITensorToDLPackVersioned(HandleOf(tensor), &managed));
        void* out = nullptr;
        if (api->managed_tensor_to_py_object_no_sync(managed, &out) != 0) {
          if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "managed_tensor_to_py_object_no_sync failed");
          }
          throw nb::python_error();
        }
        return nb::steal(static_cast<PyObject*>(out));
      },
      nb::arg("capsule"), nb::arg("tensor"),
      "`tensor` (a tvmffi.Tensor) as an instance of the framework whose DLPack C exchange API "
      "`capsule` is, sharing its memory (convert_func's tensor_cls).");

  m.def(
      "_set_rvalue_ref_class",
      [](nb::handle cls) {
        if (!PyType_Check(cls.ptr())) throw nb::type_error("_set_rvalue_ref_class: not a class");
        PyObject*& slot = GetHooks().rvalue_ref_cls;
        Py_XDECREF(slot);
        slot = cls.inc_ref().ptr();
      },
      "Make `cls` (with an `obj` attribute) the class of `obj._move()`: an argument of that "
      "class hands the object's reference to the callee (kTVMFFIObjectRValueRef).");

  m.def(
      "_register_object_class",
      [](const std::string& type_key, nb::handle cls) {
        TVMFFIByteArray k{type_key.data(), type_key.size()};
        int32_t index = 0;
        Check(TVMFFITypeKeyToIndex(&k, &index));
        if (!PyType_Check(cls.ptr()) ||
            !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls.ptr()), GetCoreTypes().object)) {
          throw nb::type_error(
              "_register_object_class: the class must be a subclass of "
              "tvmffi.Object");
        }
        CheckPayloadFits(reinterpret_cast<PyTypeObject*>(cls.ptr()), index,
                         "_register_object_class");
        RegisterObjectClass(index, cls);
        return index;
      },
      "Use `cls` for FFI objects of the type `type_key`.");

  m.def(
      "_init_from",
      [](nb::handle self, nb::handle src) {
        if (!nb::isinstance<ObjectRef>(self) || !nb::isinstance<ObjectRef>(src)) {
          throw nb::type_error("_init_from(self, src): both must be tvmffi.Object instances");
        }
        TVMFFIObjectHandle h = HandleOf(src);
        CheckPayloadFits(Py_TYPE(self.ptr()), TVMFFIObjectGetTypeIndex(h), "_init_from");
        if (!nb::inst_ready(self)) {
          // Made by __new__: construct it, so that its destructor releases the handle.
          const CoreTypes& ct = GetCoreTypes();
          if (PyType_IsSubtype(Py_TYPE(self.ptr()), ct.function)) {
            new (nb::inst_ptr<FunctionRef>(self)) FunctionRef();
          } else if (PyType_IsSubtype(Py_TYPE(self.ptr()), ct.tensor)) {
            new (nb::inst_ptr<TensorRef>(self)) TensorRef();
          } else {
            new (nb::inst_ptr<ObjectRef>(self)) ObjectRef();
          }
          nb::inst_mark_ready(self);
        }
        ObjectRef* r = nb::inst_ptr<ObjectRef>(self);
        // Bound again (upstream allows it): calls borrow the handle of each
        // argument without a reference, and one may be in flight (an
        // __index__, a __dlpack__ or a callback re-running __init__), so the
        // old handle is kept until this object dies, never freed under it.
        TVMFFIObjectIncRef(h);
        if (r->handle != nullptr) RetireHandle(r, r->handle);
        r->handle = h;
        if (PyType_IsSubtype(Py_TYPE(self.ptr()), GetCoreTypes().tensor)) {
          nb::inst_ptr<TensorRef>(self)->read_only = -1;  // a new tensor: ask again
        }
      },
      "Make `self` refer to the object of `src` (an object bound before keeps its old "
      "object alive until it dies: a call in flight may borrow it).");

  m.def(
      "convert",
      [](nb::handle value) -> nb::object {
        const Hooks& h = GetHooks();
        // A core.String, core.Bytes or Shape is already in its FFI form (as upstream's).
        for (PyObject* cls : {h.string_cls, h.bytes_cls, h.shape_cls}) {
          if (cls != nullptr &&
              PyType_IsSubtype(Py_TYPE(value.ptr()), reinterpret_cast<PyTypeObject*>(cls))) {
            return nb::borrow(value);
          }
        }
        TVMFFIAny a;
        if (!PyToOwnedAny(value.ptr(), &a)) throw nb::python_error();
        // A Python object carried as it is: its ffi.OpaquePyObject (calls give the object).
        if (a.type_index == kTVMFFIOpaquePyObject) return WrapObject(a.v_obj);
        nb::object r = ToPy(&a);
        // str / bytes / bytearray give a core.String / core.Bytes, also when small.
        PyObject* cls = PyUnicode_CheckExact(r.ptr()) && PyUnicode_Check(value.ptr()) ? h.string_cls
                        : PyBytes_CheckExact(r.ptr()) &&
                                (PyBytes_Check(value.ptr()) || PyByteArray_Check(value.ptr()))
                            ? h.bytes_cls
                            : nullptr;
        if (cls != nullptr) r = Steal(PyObject_CallOneArg(cls, r.ptr()));
        return r;
      },
      "Convert a Python value to its FFI form (list -> Array, dict -> Map, callable -> "
      "Function, DLPack tensor -> Tensor, str / bytes -> core.String / core.Bytes) and back "
      "to Python.");

  // The runtime's own "ffi.*" functions, as registered now (BuiltinFunction).
  {
    std::vector<std::string> names;
    Check(TVMFFIFunctionListGlobalNames(CollectName, &names));
    g_builtins = new std::vector<std::pair<std::string, TVMFFIObjectHandle>>();
    for (const std::string& name : names) {
      if (name.rfind("ffi.", 0) != 0) continue;
      TVMFFIByteArray n{name.data(), name.size()};
      TVMFFIObjectHandle h = nullptr;
      if (TVMFFIFunctionGetGlobal(&n, &h) == 0 && h != nullptr) g_builtins->emplace_back(name, h);
    }
  }
  m.def(
      "_builtin_func",
      [](const std::string& name) -> nb::object {
        if (TVMFFIObjectHandle h = BuiltinFunction(name.c_str())) {
          TVMFFIObjectIncRef(h);
          return WrapObject(h);
        }
        TVMFFIByteArray n{name.data(), name.size()};
        TVMFFIObjectHandle h = nullptr;
        Check(TVMFFIFunctionGetGlobal(&n, &h));
        if (h == nullptr) throw nb::value_error(("Cannot find global function " + name).c_str());
        return WrapObject(h);
      },
      nb::arg("name"),
      "The global function `name` as the package uses it: for the runtime's own \"ffi.*\" "
      "functions, the one registered when tvmffi was imported (an override or removal "
      "later does not change the package), else the current one.");

  m.def(
      "get_global_func",
      [](const std::string& name, bool allow_missing) -> nb::object {
        TVMFFIByteArray n{name.data(), name.size()};
        TVMFFIObjectHandle h = nullptr;
        Check(TVMFFIFunctionGetGlobal(&n, &h));
        if (h == nullptr) {
          if (allow_missing) return nb::none();
          throw nb::value_error(("Cannot find global function " + name).c_str());
        }
        return WrapObject(h);
      },
      nb::arg("name"), nb::arg("allow_missing") = false,
      "The global function `name`; None (allow_missing) or ValueError when there is none.");

  m.def(
      "_register_global_func",
      [](const std::string& name, nb::handle func, bool override) -> nb::object {
        nb::object f;
        if (nb::isinstance<FunctionRef>(func)) {
          f = nb::borrow(func);
        } else if (PyCallable_Check(func.ptr())) {
          TVMFFIObjectHandle h = FunctionFromCallable(func.ptr());
          if (h == nullptr) throw nb::python_error();
          f = WrapObject(h);
          nb::inst_ptr<FunctionRef>(f)->schema_known = true;  // as in Function(callable)
        } else {
          throw nb::type_error("register_global_func: the function must be callable");
        }
        TVMFFIByteArray n{name.data(), name.size()};
        Check(TVMFFIFunctionSetGlobal(&n, HandleOf(f), override ? 1 : 0));
        return f;
      },
      nb::arg("name"), nb::arg("func"), nb::arg("override") = false);

  m.def(
      "remove_global_func",
      [](const std::string& name) {
        TVMFFIByteArray n{name.data(), name.size()};
        Check(TVMFFIFunctionRemoveGlobal(&n));
      },
      "Remove the global function `name`.");

  m.def(
      "list_global_func_names",
      []() {
        std::vector<std::string> names;
        Check(TVMFFIFunctionListGlobalNames(CollectName, &names));
        nb::list out;
        for (const std::string& s : names) out.append(nb::str(s.c_str(), s.size()));
        return out;
      },
      "The names of all global functions.");

  m.def(
      "from_dlpack",
      [](nb::handle obj) {
        if (nb::isinstance<TensorRef>(obj)) return nb::borrow(obj);
        DLManagedTensorVersioned* mt = ManagedFromPy(obj.ptr());
        if (mt == nullptr) throw nb::python_error();
        TVMFFIObjectHandle h = nullptr;
        Check(TVMFFITensorFromDLPackVersioned(mt, 0, 0, &h));
        return WrapObject(h);
      },
      nb::arg("obj"), "A tvmffi.Tensor viewing the memory of a DLPack-capable object (no copy).");

  m.def(
      "_set_tensor_args",
      [](nb::handle func, uint64_t owning_args) {
        if (!nb::isinstance<FunctionRef>(func)) throw nb::type_error("expected a tvmffi.Function");
        FunctionRef* f = nb::inst_ptr<FunctionRef>(func);
        f->owning_args = owning_args;
        f->schema_known = true;
      },
      nb::arg("func"), nb::arg("owning_args"),
      "Record the function's type schema: bit i of owning_args set when argument i is an "
      "ffi.Tensor (bit 63: argument 63 and later); framework tensors go there as owning "
      "tensors, elsewhere as borrowed DLTensor*s.");
  m.def(
      "_set_writes",
      [](nb::handle func, nb::handle writes) {
        if (!nb::isinstance<FunctionRef>(func)) throw nb::type_error("expected a tvmffi.Function");
        FunctionRef* f = nb::inst_ptr<FunctionRef>(func);
        uint64_t w = 0;
        if (!writes.is_none()) {
          for (nb::handle item : writes) {
            const int64_t i = nb::cast<int64_t>(item);
            if (i < 0) throw nb::value_error("_set_writes: argument indices are >= 0");
            if (i < 63) w |= uint64_t{1} << i;
          }
        }
        f->writes_args = w;
        // Arguments 63 and later stay undeclared (copied), whatever was declared.
        f->keeps_args = writes.is_none() ? 0 : ~w & ((uint64_t{1} << 63) - 1);
      },
      nb::arg("func"), nb::arg("writes").none(),
      "Record the arguments the function declares it writes (indices; None: undeclared): "
      "read-only memory is then lent as is to the others and refused for these.");
  m.def(
      "_writes_masks",
      [](nb::handle func) {
        if (!nb::isinstance<FunctionRef>(func)) throw nb::type_error("expected a tvmffi.Function");
        const FunctionRef* f = nb::inst_ptr<FunctionRef>(func);
        return nb::make_tuple(f->writes_args, f->keeps_args);
      },
      "(writes_args, keeps_args): the call path's masks from _set_writes.");
  m.def(
      "_tensor_args",
      [](nb::handle func) {
        if (!nb::isinstance<FunctionRef>(func)) throw nb::type_error("expected a tvmffi.Function");
        const FunctionRef* f = nb::inst_ptr<FunctionRef>(func);
        return nb::make_tuple(f->schema_known ? f->owning_args : ~uint64_t{0}, f->schema_known);
      },
      "(owning_args, schema_known): what the call path knows of the function's tensor "
      "parameters (from its type schema; without one, all of them).");

  m.def(
      "_opaque_deleter",
      []() {
        // The deleter of ffi.OpaquePyObject payloads: C, so it may run while a
        // Python exception is pending (a ctypes callback may not), on any thread.
        void (*deleter)(void*) = [](void* obj) {
          if (obj == nullptr || !Py_IsInitialized()) return;
          PyGILState_STATE gil = PyGILState_Ensure();
          Py_DECREF(static_cast<PyObject*>(obj));
          PyGILState_Release(gil);
        };
        return reinterpret_cast<uintptr_t>(deleter);
      },
      "The address of a C function releasing the Python object an ffi.OpaquePyObject holds.");
  m.def(
      "_wrap_owned",
      [](uintptr_t handle) {
        if (handle == 0) throw nb::value_error("null object handle");
        return WrapObject(reinterpret_cast<TVMFFIObjectHandle>(handle));
      },
      nb::arg("handle"),
      "The Python object of an object handle, taking one reference (an ffi.OpaquePyObject "
      "stays its wrapper, where calls give the Python object it holds).");
  m.def("_set_pack_fallback", &SetPackFallback, nb::arg("hook").none(),
        "Set the converter of values the extension does not classify: hook(value, address) "
        "writes an owned TVMFFIAny at the address and returns True, returns False to leave "
        "the value a TypeError, or raises; None: no converter.");

  m.def("_swap_scoped_allocator", &SwapScopedAllocator, nb::arg("allocator").none(),
        "Set this thread's allocator for calls with no framework tensor: a callable "
        "(shape, dtype, device_type, device_id) -> tensor, or None; returns the token for "
        "_restore_scoped_allocator.");
  m.def("_restore_scoped_allocator", &RestoreScopedAllocator, nb::arg("allocator").none(),
        nb::arg("env_allocator"), "Undo _swap_scoped_allocator (its token, unpacked).");

  m.def(
      "_env_set_stream",
      [](int device_type, int device_id, uintptr_t stream) {
        TVMFFIStreamHandle prev = nullptr;
        Check(TVMFFIEnvSetStream(device_type, device_id, reinterpret_cast<void*>(stream), &prev));
        return reinterpret_cast<uintptr_t>(prev);
      },
      "Set the current stream of a device; returns the previous one.");
  m.def(
      "_env_get_stream",
      [](int device_type, int device_id) {
        return reinterpret_cast<uintptr_t>(TVMFFIEnvGetStream(device_type, device_id));
      },
      "The current stream of a device (0 when none is set).");

  m.def(
      "_dtype_fields",
      [](const std::string& s) {
        TVMFFIByteArray b{s.data(), s.size()};
        DLDataType d;
        Check(TVMFFIDataTypeFromString(&b, &d));
        return nb::make_tuple(static_cast<int>(d.code), static_cast<int>(d.bits),
                              static_cast<int>(d.lanes));
      },
      "(type_code, bits, lanes) of a data type string; ValueError when it is not one.");
}

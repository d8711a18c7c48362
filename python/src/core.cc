// tvmffi._core: the nanobind module definition. The Object, Function, Tensor
// and Device classes and the module's functions, over helpers in
// bindings.cc, objects.cc, errors.cc, functions.cc and tensors.cc; the call
// path is call.cc and the files it names.

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

bool g_release_gil_by_default = true;

namespace {

// A tvmffi.Function's payload, initialised or not (TypeError for another object).
FunctionRef* FunctionPayload(nb::handle self) {
  if (!nb::isinstance<FunctionRef>(self)) throw nb::type_error("expected a tvmffi.Function");
  return nb::inst_ptr<FunctionRef>(self);
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
  InstallExitGuard();

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
                // A read-only tensor is exported as a copy unless copy=False (export.cc):
                // the consumer may ignore DLPack's read-only flag.
                const ExportCopy how = copy.is_none()          ? ExportCopy::kIfNeeded
                                       : copy.ptr() == Py_True ? ExportCopy::kAlways
                                                               : ExportCopy::kNever;
                PyObject* cap =
                    ExportCapsule(h, how, versioned, /*honours=*/false, "tvmffi.Tensor.__dlpack__");
                if (cap == nullptr) throw nb::python_error();
                return Steal(cap);
              },
              nb::kw_only(), nb::arg("stream") = nb::none(), nb::arg("max_version") = nb::none(),
              nb::arg("dl_device") = nb::none(), nb::arg("copy") = nb::none(),
              "A DLPack capsule of the tensor (versioned with max_version >= (1, 0), else "
              "legacy), sharing its memory. A read-only tensor is exported as a writable copy "
              "(a consumer may ignore DLPack's read-only flag), and copy=False then raises "
              "BufferError; copy=True copies any host tensor.")
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
      Steal(PyCapsule_New(TestWrapperApi(), kExchangeApiCapsule, nullptr));

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
            PyCapsule_GetPointer(capsule.ptr(), kExchangeApiCapsule));
        if (api == nullptr) throw nb::python_error();
        TensorOf(tensor);  // TypeError unless a tvmffi.Tensor holding a tensor
        PyObject* out = ExportToFramework(HandleOf(tensor), api, "convert_func");
        if (out == nullptr) throw nb::python_error();
        return nb::steal(out);
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

  // Direct entries for tvmffi/_reflection.py, not FFI functions calling back
  // (its TVMFFIAny cells: cells.cc).
  m.def(
      "_handle_address",
      [](nb::handle obj) -> uintptr_t {
        // Allocated by __new__ but never constructed: its payload is no handle.
        if (!nb::isinstance<ObjectRef>(obj) || !nb::inst_ready(obj)) return 0;
        return reinterpret_cast<uintptr_t>(RawHandleOf(obj));
      },
      nb::arg("obj").none(),
      "The address of the FFI object `obj` refers to (0: none, not constructed, or not a "
      "tvmffi.Object).");
  m.def(
      "_raise_last_error",
      []() {
        TVMFFIObjectHandle err = nullptr;
        TVMFFIErrorMoveFromRaised(&err);
        if (err == nullptr)
          throw nb::builtin_exception(nb::exception_type::runtime_error,
                                      "tvmffi: a C call failed without an error");
        TVMFFIErrorSetRaised(err);
        TVMFFIObjectDecRef(err);
        ThrowFFIError();
      },
      "Raise, as a failed call does, the FFI error parked on this thread.");

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
      "_dlpack_keeping_read_only",
      [](nb::handle self, bool versioned) {
        TensorOf(self);  // a tvmffi.Tensor holding a tensor (TypeError otherwise)
        PyObject* cap = ExportCapsule(HandleOf(self), ExportCopy::kIfNeeded, versioned,
                                      /*honours=*/true, "_dlpack_keeping_read_only");
        if (cap == nullptr) throw nb::python_error();
        return Steal(cap);
      },
      nb::arg("tensor"), nb::arg("versioned"),
      "A DLPack capsule sharing the tensor's memory even if it is read-only (versioned: "
      "flagged so), only for a consumer known to keep it read-only: numpy >= 2 (versioned), "
      "numpy < 2 (legacy: it makes read-only views of every legacy capsule), tests.");
  m.def(
      "_exchange_api_capsule",
      [](uintptr_t address) {
        // The capsule a framework's __dlpack_c_exchange_api__ holds, for an
        // address a library handed over (torch's older spelling, or the add-on
        // tvmffi builds); made here, so Python declares no C function.
        if (address == 0) throw nb::value_error("_exchange_api_capsule: null address");
        PyObject* cap =
            PyCapsule_New(reinterpret_cast<void*>(address), kExchangeApiCapsule, nullptr);
        if (cap == nullptr) throw nb::python_error();
        return Steal(cap);
      },
      nb::arg("address"), "A PyCapsule named \"dlpack_exchange_api\" holding the address.");
  m.def("_set_pack_fallback", &SetPackFallback, nb::arg("hook").none(),
        "Set the converter of values the extension does not classify: hook(value) returns "
        "an AnyCell holding the value's owned TVMFFIAny, None to leave the value a "
        "TypeError, or raises; None: no converter.");

  m.def("_swap_scoped_allocator", &SwapScopedAllocator, nb::arg("allocator").none(),
        "Set this thread's allocator for calls with no framework tensor: a callable "
        "(shape, dtype, device_type, device_id) -> tensor, a list of them (the last is used, "
        "read at each allocation), or None; returns the token for "
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

  DefineReflection(m);
  DefineCells(m);
}

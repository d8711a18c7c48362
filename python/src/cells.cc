// tvmffi._core.AnyCell: one owned TVMFFIAny held by a Python object, and what
// tvmffi/_cell.py does with such cells (values in and out, calls on cells,
// ffi.OpaquePyObject), plus the shape functions' calls on metadata-only
// DLTensors (tvmffi/shape_function.py). The C structs are handled here only,
// so Python declares none of them and needs no ctypes for them.

#include <dlfcn.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>

#include "bindings.h"

namespace tvmffi_py {
namespace {

// A cell owns what it holds: whatever is left in it is released with it.
struct AnyCell {
  TVMFFIAny a;
  AnyCell() { Clear(); }
  AnyCell(const AnyCell&) = delete;
  AnyCell& operator=(const AnyCell&) = delete;
  ~AnyCell() { Release(); }
  void Clear() {
    a.type_index = kTVMFFINone;
    a.zero_padding = 0;
    a.v_int64 = 0;
  }
  void Release() {
    if (a.type_index >= kTVMFFIStaticObjectBegin && a.v_obj != nullptr) {
      TVMFFIObjectDecRef(a.v_obj);
    }
    Clear();
  }
  // The value, handed over to the caller; the cell is left None.
  TVMFFIAny Take() {
    TVMFFIAny out = a;
    Clear();
    return out;
  }
};

AnyCell* CellOf(nb::handle h) {
  return nb::inst_ptr<AnyCell>(h);
}

// The cell made from an owned value (which it takes over).
nb::object NewCell(const TVMFFIAny& owned) {
  nb::object cell = nb::inst_alloc(nb::type<AnyCell>());
  new (nb::inst_ptr<AnyCell>(cell)) AnyCell();
  nb::inst_mark_ready(cell);
  nb::inst_ptr<AnyCell>(cell)->a = owned;
  return cell;
}

// Raise, as a failed call does, the FFI error parked on this thread.
[[noreturn]] void RaiseParked() {
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  if (err == nullptr) {
    throw nb::builtin_exception(nb::exception_type::runtime_error,
                                "tvmffi: a C call failed without an error");
  }
  TVMFFIErrorSetRaised(err);
  TVMFFIObjectDecRef(err);
  ThrowFFIError();
}

// The Python value of an owned value, which this takes: an ffi.OpaquePyObject
// stays its wrapper (tvmffi.OpaquePyObject); others convert as call results do.
nb::object TakeToPy(TVMFFIAny owned) {
  if (owned.type_index == kTVMFFIOpaquePyObject && owned.v_obj != nullptr) {
    return WrapObject(owned.v_obj);
  }
  return Steal(AnyToPy(&owned, nullptr));
}

TVMFFIAny OwnedCopy(const TVMFFIAny& view) {
  TVMFFIAny out;
  out.type_index = kTVMFFINone;
  out.zero_padding = 0;
  out.v_int64 = 0;
  if (TVMFFIAnyViewToOwnedAny(&view, &out) != 0) RaiseParked();
  return out;
}

TVMFFIAny OwnedFromPy(nb::handle value) {
  TVMFFIAny out;
  if (!PyToOwnedAny(value.ptr(), &out)) throw nb::python_error();
  return out;
}

// Calls `safe_call(handle, args, n, &result)` with the GIL released (as every
// call of the package does); the owned result, or the parked error raised.
TVMFFIAny CallReleased(TVMFFISafeCallType safe_call, void* handle, std::vector<TVMFFIAny>& args,
                       int32_t n) {
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  int rc;
  {
    nb::gil_scoped_release release;
    rc = safe_call(handle, args.data(), n, &result);
  }
  if (rc != 0) RaiseParked();
  return result;
}

int CallFunctionObject(void* func, const TVMFFIAny* args, int32_t n, TVMFFIAny* result) {
  return TVMFFIFunctionCall(func, const_cast<TVMFFIAny*>(args), n, result);
}

// A library's `__tvm_ffi__shape_<name>` (tvm/ffi/extra/shape_function.h), or 0.
uintptr_t ShapeFunction(const std::string& path, const std::string& name) {
  // The module loaded the library already: dlopen finds it (and it stays loaded).
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    PyErr_Format(PyExc_OSError, "%s: %s", path.c_str(), why != nullptr ? why : "cannot load");
    throw nb::python_error();
  }
  return reinterpret_cast<uintptr_t>(dlsym(lib, ("__tvm_ffi__shape_" + name).c_str()));
}

std::vector<int64_t> Ints(nb::handle seq, const char* what) {
  std::vector<int64_t> out;
  for (nb::handle item : seq) {
    int64_t v = PyLong_AsLongLong(item.ptr());
    if (v == -1 && PyErr_Occurred()) throw nb::python_error();
    out.push_back(v);
  }
  if (out.size() > INT32_MAX) throw nb::value_error(what);
  return out;
}

// The shape function at `address` on `values`: where metas[i] is a tuple
// (shape, (code, bits, lanes), (device_type, device_id), strides or None),
// argument i is a DLTensor* with that metadata and no data; elsewhere values[i]
// converted as call arguments are. Its result (JSON text) as Python.
nb::object CallShapeFunction(uintptr_t address, nb::list values, nb::list metas) {
  if (address == 0) throw nb::value_error("null shape function");
  const size_t n = nb::len(values);
  if (nb::len(metas) != n) throw nb::value_error("values and metas differ in length");
  std::vector<DLTensor> tensors(n);
  std::vector<std::vector<int64_t>> shapes(n), strides(n);
  std::vector<TVMFFIAny> args(n);
  size_t owned = 0;  // args[0, owned) hold references once converted
  struct Releaser {
    std::vector<TVMFFIAny>& args;
    size_t& owned;
    ~Releaser() {
      for (size_t i = 0; i < owned; ++i) {
        if (args[i].type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(args[i].v_obj);
      }
    }
  } releaser{args, owned};
  for (size_t i = 0; i < n; ++i) {
    nb::handle meta = metas[i];
    if (meta.is_none()) {
      args[i] = OwnedFromPy(values[i]);
      owned = i + 1;
      continue;
    }
    nb::tuple m = nb::cast<nb::tuple>(meta);
    shapes[i] = Ints(m[0], "too many dimensions");
    nb::tuple dt = nb::cast<nb::tuple>(m[1]);
    nb::tuple dev = nb::cast<nb::tuple>(m[2]);
    DLTensor& t = tensors[i];
    t.data = nullptr;
    t.device =
        DLDevice{static_cast<DLDeviceType>(nb::cast<int32_t>(dev[0])), nb::cast<int32_t>(dev[1])};
    t.ndim = static_cast<int32_t>(shapes[i].size());
    t.dtype =
        DLDataType{nb::cast<uint8_t>(dt[0]), nb::cast<uint8_t>(dt[1]), nb::cast<uint16_t>(dt[2])};
    t.shape = shapes[i].data();
    t.strides = nullptr;
    if (!m[3].is_none()) {
      strides[i] = Ints(m[3], "too many strides");
      t.strides = strides[i].data();
    }
    t.byte_offset = 0;
    args[i].type_index = kTVMFFIDLTensorPtr;
    args[i].zero_padding = 0;
    args[i].v_ptr = &t;
    owned = i + 1;
  }
  auto fn = reinterpret_cast<TVMFFISafeCallType>(address);
  return TakeToPy(CallReleased(fn, nullptr, args, static_cast<int32_t>(n)));
}

}  // namespace

// The pack fallback's result (PackFallback): an AnyCell whose value moves to
// `out`. False with TypeError for anything else.
bool MoveCellOut(PyObject* obj, TVMFFIAny* out) {
  if (!nb::isinstance<AnyCell>(obj)) {
    PyErr_Format(PyExc_TypeError, "the pack fallback returned '%s', not an AnyCell or None",
                 Py_TYPE(obj)->tp_name);
    return false;
  }
  *out = CellOf(obj)->Take();
  return true;
}

void DefineCells(nb::module_& m) {
  nb::class_<AnyCell>(m, "AnyCell",
                      "An owned TVMFFIAny (16 bytes: type index and value); what it still holds "
                      "is released with it.")
      .def(nb::init<>())
      .def_prop_rw(
          "type_index", [](const AnyCell& c) { return c.a.type_index; },
          [](AnyCell& c, int32_t v) { c.a.type_index = v; })
      .def_prop_rw(
          "v_int64", [](const AnyCell& c) { return c.a.v_int64; },
          [](AnyCell& c, int64_t v) { c.a.v_int64 = v; })
      .def_prop_rw(
          "v_float64", [](const AnyCell& c) { return c.a.v_float64; },
          [](AnyCell& c, double v) { c.a.v_float64 = v; })
      .def_prop_rw(
          "v_ptr", [](const AnyCell& c) { return reinterpret_cast<uintptr_t>(c.a.v_ptr); },
          [](AnyCell& c, uintptr_t v) { c.a.v_ptr = reinterpret_cast<void*>(v); });

  m.def(
      "_cell_take", [](AnyCell& c) { return TakeToPy(c.Take()); }, nb::arg("cell"),
      "The Python value of the cell's owned value, which this takes (the cell is left None); "
      "an ffi.OpaquePyObject comes back as its wrapper.");
  m.def(
      "_cell_view_to_py", [](const AnyCell& c) { return TakeToPy(OwnedCopy(c.a)); },
      nb::arg("cell"), "The Python value of the cell's value, which stays in the cell.");
  m.def(
      "_cell_copy", [](const AnyCell& c) { return NewCell(OwnedCopy(c.a)); }, nb::arg("cell"),
      "A new cell holding the same value (one more reference to its object).");
  m.def(
      "_cell_release", [](AnyCell& c) { c.Release(); }, nb::arg("cell"),
      "Drop the reference the cell holds; it is left None.");
  m.def(
      "_cell_from_value", [](nb::handle value) { return NewCell(OwnedFromPy(value)); },
      nb::arg("value").none(), "A cell holding `value` converted as call arguments are.");
  m.def(
      "_cell_from_handle",
      [](uintptr_t handle) -> nb::object {
        if (handle == 0) return nb::none();
        auto h = reinterpret_cast<TVMFFIObject*>(handle);
        TVMFFIAny owned;
        owned.type_index = TVMFFIObjectGetTypeIndex(h);
        owned.zero_padding = 0;
        owned.v_obj = h;
        TVMFFIObjectIncRef(h);
        return TakeToPy(owned);
      },
      nb::arg("handle"), "A new Python reference to the FFI object at `handle` (None for 0).");
  m.def(
      "_object_inc_ref",
      [](uintptr_t handle) {
        if (handle == 0) throw nb::value_error("null object handle");
        TVMFFIObjectIncRef(reinterpret_cast<TVMFFIObjectHandle>(handle));
      },
      nb::arg("handle"), "One more reference to the FFI object at `handle`, for the caller.");
  m.def(
      "_cell_ptr",
      [](nb::handle addr) {
        TVMFFIAny v;
        v.type_index = kTVMFFIOpaquePtr;
        v.zero_padding = 0;
        v.v_ptr = addr.is_none() ? nullptr : reinterpret_cast<void*>(nb::cast<uintptr_t>(addr));
        return NewCell(v);
      },
      nb::arg("address").none(), "A cell holding an opaque pointer (None: NULL).");
  m.def(
      "_cell_opaque",
      [](nb::handle value) {
        // The deleter is C: it may run while a Python exception is pending
        // (a failed call), on any thread, or at exit (then it leaks).
        void (*deleter)(void*) = [](void* obj) {
          PyGILState_STATE gil;
          if (obj == nullptr || !EnterPython(&gil)) return;
          Py_DECREF(static_cast<PyObject*>(obj));
          LeavePython(gil);
        };
        TVMFFIObjectHandle out = nullptr;
        Py_INCREF(value.ptr());
        if (TVMFFIObjectCreateOpaque(value.ptr(), kTVMFFIOpaquePyObject, deleter, &out) != 0) {
          Py_DECREF(value.ptr());
          RaiseParked();
        }
        TVMFFIAny v;
        v.type_index = kTVMFFIOpaquePyObject;
        v.zero_padding = 0;
        v.v_obj = static_cast<TVMFFIObject*>(out);
        return NewCell(v);
      },
      nb::arg("value").none(), "A cell holding an ffi.OpaquePyObject that refers to `value`.");
  m.def(
      "_cell_unwrap",
      [](AnyCell& c) -> nb::object {
        if (c.a.type_index == kTVMFFIOpaquePyObject && c.a.v_obj != nullptr) {
          TVMFFIAny owned = c.Take();
          PyObject* held = nullptr;
          std::memcpy(&held, reinterpret_cast<const char*>(owned.v_obj) + sizeof(TVMFFIObject),
                      sizeof(held));
          nb::object r = nb::borrow(held == nullptr ? Py_None : held);
          TVMFFIObjectDecRef(owned.v_obj);
          return r;
        }
        TVMFFIAny owned = c.Take();
        return Steal(AnyToPy(&owned, nullptr));
      },
      nb::arg("cell"),
      "The Python value of the cell's owned value, which this takes: an ffi.OpaquePyObject "
      "gives the object it holds, an opaque pointer a ctypes.c_void_p.");
  m.def(
      "_cell_call",
      [](nb::handle func, nb::list cells) {
        TVMFFIObjectHandle h =
            nb::isinstance<ObjectRef>(func)
                ? RawHandleOf(func)
                : reinterpret_cast<TVMFFIObjectHandle>(nb::cast<uintptr_t>(func));
        if (h == nullptr) throw nb::value_error("null function handle");
        std::vector<TVMFFIAny> args;
        args.reserve(nb::len(cells));
        for (nb::handle c : cells) args.push_back(nb::cast<const AnyCell&>(c).a);
        return NewCell(
            CallReleased(CallFunctionObject, h, args, static_cast<int32_t>(args.size())));
      },
      nb::arg("func"), nb::arg("cells"),
      "Call an FFI function (a tvmffi.Function or a handle) on the cells' values (borrowed); "
      "a cell holding the owned result.");
  m.def("_shape_function", &ShapeFunction, nb::arg("path"), nb::arg("name"),
        "The address of the library's __tvm_ffi__shape_<name>, or 0 (OSError when the "
        "library cannot be loaded).");
  m.def("_call_shape_function", &CallShapeFunction, nb::arg("address"), nb::arg("values"),
        nb::arg("metas"),
        "Call a shape function: metas[i] (shape, (code, bits, lanes), (device_type, "
        "device_id), strides or None) makes argument i a DLTensor* without data, else "
        "values[i] goes as a call argument does; its result as Python.");
}

}  // namespace tvmffi_py

// Torch tensors that a function may write (issue #43): what torch's own
// in-place ops do. Every door that turns a framework tensor into an argument
// (the exchange API's DLTensor, a managed export, an ffi.Tensor parameter, a
// tensor inside a list or dict argument) calls NoteWrittenTensor for an
// autograd framework's tensor unless the function's library declares it does
// not write that argument (TVM_FFI_DLL_EXPORT_WRITES; AutogradWrites).
//
// Declared writes: before the call, a tensor that requires grad while grad
// mode is on is refused (a leaf, as torch refuses; a computed tensor because
// the write cannot be recorded in autograd's graph, as an in-place op without
// a derivative formula is refused). After the call, whatever it returned, the
// version counter of every written tensor is bumped, so backward() through a
// graph that saved one raises torch's "modified by an inplace operation"
// rather than computing wrong gradients.
//
// Undeclared (no metadata: any argument may be written): a tensor that
// requires grad gets the same rules (refused in grad mode, as torch's own
// __dlpack__ refuses to export one; bumped under no_grad, as an optimizer's
// in-place update is). Tensors that do not require grad are passed as
// before, unbumped: bumping every tensor only read would break backward() of
// valid graphs that saved it; declare the writes to have them bumped.

#include "call_internal.h"

namespace tvmffi_py {

namespace {

// torch._C's functions, looked up once (under the GIL); NULL until then.
// A torch without _increment_version (before 2.1) and without a matching
// tvmffi._torch_exchange: each tensor is bumped by a
// metadata-only in-place op on a detached alias, which shares its version
// counter (t.detach().unsqueeze_(0): no data touched, t's shape unchanged).
PyObject* g_is_grad_enabled = nullptr;
PyObject* g_increment_version = nullptr;
// torch.Tensor and torch.nn.Parameter: their requires_grad runs no Python code.
PyObject* g_tensor_type = nullptr;
PyObject* g_parameter_type = nullptr;
bool g_loaded = false;

// torch.<mod>.<name>, or NULL (cleared).
PyObject* TorchAttr(const char* mod, const char* name) {
  PyObject* m = PyImport_ImportModule(mod);
  PyObject* v = m != nullptr ? PyObject_GetAttrString(m, name) : nullptr;
  Py_XDECREF(m);
  if (v == nullptr) PyErr_Clear();
  return v;
}

bool LoadTorch() {
  if (g_loaded) return true;
  PyObject* c = PyImport_ImportModule("torch._C");
  if (c == nullptr) return false;
  PyObject* grad = PyObject_GetAttrString(c, "is_grad_enabled");
  Py_DECREF(c);
  if (grad == nullptr) return false;
  // torch._C._increment_version, or for an older torch tvmffi._torch_exchange's.
  PyObject* pick = TorchAttr("tvmffi._framework", "increment_version");
  PyObject* inc = pick != nullptr ? PyObject_CallNoArgs(pick) : nullptr;
  Py_XDECREF(pick);
  if (inc == nullptr) PyErr_Clear();
  if (inc == Py_None) Py_CLEAR(inc);  // neither: the detached alias's in-place op
  g_is_grad_enabled = grad;
  g_increment_version = inc;
  g_tensor_type = TorchAttr("torch", "Tensor");
  g_parameter_type = TorchAttr("torch.nn", "Parameter");
  g_loaded = true;
  return true;
}

// Bump each tensor's version; false with an exception.
bool IncrementVersions(PyObject* tensors) {
  if (g_increment_version != nullptr) {
    PyObject* r = PyObject_CallOneArg(g_increment_version, tensors);
    Py_XDECREF(r);
    return r != nullptr;
  }
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(tensors); ++i) {
    PyObject* alias = PyObject_CallMethod(PyList_GET_ITEM(tensors, i), "detach", nullptr);
    PyObject* r = alias != nullptr ? PyObject_CallMethod(alias, "unsqueeze_", "i", 0) : nullptr;
    Py_XDECREF(alias);
    if (r == nullptr) return false;
    Py_DECREF(r);
  }
  return true;
}

// obj.<name> (an interned str) as a truth value: 1, 0, or -1 with an exception.
int AttrTrue(PyObject* obj, PyObject* name) {
  PyObject* v = name != nullptr ? PyObject_GetAttr(obj, name) : nullptr;
  if (v == nullptr) return -1;
  const int r = PyObject_IsTrue(v);
  Py_DECREF(v);
  return r;
}

// The called function's __name__ (a new reference, never NULL unless out of
// memory); *known false where it has none.
PyObject* FunctionName(const CallFrame& f, bool* known = nullptr) {
  nb::object self = nb::find(*f.fn);
  PyErr_Clear();
  PyObject* name = self.is_valid() ? PyObject_GetAttrString(self.ptr(), "__name__") : nullptr;
  if (known != nullptr) *known = name != nullptr && PyUnicode_Check(name);
  if (name == nullptr || !PyUnicode_Check(name)) {
    PyErr_Clear();
    Py_XDECREF(name);
    name = PyUnicode_FromString("the function");
  }
  return name;
}

}  // namespace

TVMFFI_PY_COLD bool NoteWrittenTensor(CallFrame& f, int arg, bool nested, PyObject* tensor) {
  static PyObject* const kRequiresGrad = PyUnicode_InternFromString("requires_grad");
  static PyObject* const kIsLeaf = PyUnicode_InternFromString("is_leaf");
  // Importing torch, or a subclass's requires_grad, may run any code: borrowed
  // tensors are rechecked.
  if (!g_loaded) f.ran_python = true;
  if (!LoadTorch()) return false;
  const PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(tensor));
  if (type != g_tensor_type && type != g_parameter_type) f.ran_python = true;
  const bool declared = arg < 63 && ((f.fn->writes_args >> arg) & 1) != 0;
  const int requires_grad = AttrTrue(tensor, kRequiresGrad);
  if (requires_grad < 0) return false;
  if (requires_grad == 0 && !declared) return true;  // undeclared: passed as before
  if (requires_grad == 1) {
    PyObject* on = PyObject_CallNoArgs(g_is_grad_enabled);
    if (on == nullptr) return false;
    const int grad_mode = PyObject_IsTrue(on);
    Py_DECREF(on);
    if (grad_mode < 0) return false;
    if (grad_mode == 1) {
      const int leaf = AttrTrue(tensor, kIsLeaf);
      if (leaf < 0) return false;
      bool known = false;
      PyObject* name = FunctionName(f, &known);
      const char* what = nested ? "a tensor inside the argument" : "the tensor";
      if (declared) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s requires grad, and '%U' writes argument #%d (its library declares "
                     "so): %s; write it under torch.no_grad(), or pass a tensor that does not "
                     "require grad",
                     what, name, arg,
                     leaf == 1 ? "torch refuses in-place writes to a leaf tensor that requires "
                                 "grad"
                               : "the write cannot be recorded in autograd's graph, so "
                                 "gradients through this tensor would be wrong");
      } else {
        const char* hint = known ? PyUnicode_AsUTF8(name) : nullptr;
        if (hint == nullptr) {
          PyErr_Clear();
          hint = "<name>";
        }
        PyErr_Format(PyExc_RuntimeError,
                     "%s requires grad, and '%U' does not declare what it writes, so it may "
                     "write argument #%d where autograd cannot see it (gradients would be "
                     "silently wrong): declare the function's writes in its library "
                     "(TVM_FFI_DLL_EXPORT_WRITES(%s, <indices>) or "
                     "TVM_FFI_DLL_EXPORT_WRITES_NOTHING(%s)), or call it under "
                     "torch.no_grad() (the tensor's version is then bumped after the call)",
                     what, name, arg, hint, hint);
      }
      Py_XDECREF(name);
      return false;
    }
  }
  if (f.written == nullptr && (f.written = PyList_New(0)) == nullptr) return false;
  return PyList_Append(f.written, tensor) == 0;
}

TVMFFI_PY_COLD bool BumpWrittenVersions(CallFrame& f) {
  // A pending exception (the function's, rc == -2) is kept: the bump runs without it.
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  const bool ok = IncrementVersions(f.written);
  if (type != nullptr) {
    if (!ok) PyErr_WriteUnraisable(f.written);
    PyErr_Restore(type, value, tb);
    return true;
  }
  return ok;
}

}  // namespace tvmffi_py

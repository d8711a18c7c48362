// FFI objects as Python objects: the class registered for each type index
// (WrapObject), handles retired by a second __init__, the Python-side hooks.

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

bool g_has_retired_handles = false;

// (owner, old handle) pairs; touched with the GIL held (nanobind's init and dealloc).
using RetiredList = std::vector<std::pair<const ObjectRef*, TVMFFIObjectHandle>>;
RetiredList* g_retired = nullptr;  // never freed: read by destructors at exit

void RetireHandle(const ObjectRef* owner, TVMFFIObjectHandle old) {
  if (g_retired == nullptr) g_retired = new RetiredList();
  g_retired->emplace_back(owner, old);
  g_has_retired_handles = true;
}

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
// Objects
// ---------------------------------------------------------------------------
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

}  // namespace tvmffi_py

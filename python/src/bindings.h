// Declarations shared by the files of tvmffi._core's module definition
// (core.cc, bindings.cc, objects.cc, errors.cc, functions.cc, tensors.cc):
// what one of them gives another. The call path's are in call_internal.h.
#ifndef TVMFFI_PYTHON_BINDINGS_H_
#define TVMFFI_PYTHON_BINDINGS_H_

#include <Python.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core.h"

namespace tvmffi_py {

// ---- tensors.cc: the payload of tvmffi.core.DLTensorTestWrapper
struct DLTensorTestWrapper {
  nb::object tensor;  // a tvmffi.Tensor holding an ffi.Tensor
};

// ---- reflection.cc: type records, fields, attributes, Python-defined types
void DefineReflection(nb::module_& m);
// ---- cells.cc: tvmffi._core.AnyCell (owned TVMFFIAny cells), shape function calls
void DefineCells(nb::module_& m);

// ---- objects.cc
void RetireHandle(const ObjectRef* owner, TVMFFIObjectHandle old);

// ---- errors.cc: TVM_FFI_RELEASE_GIL_BY_DEFAULT, the TVMFFIEnvCheckSignals hook
bool ReleaseGilByDefault();
void InstallSignalCheck();
nb::object FunctionFromExternC(nb::handle c_symbol, nb::handle keep_alive);
nb::object FunctionFromMlirPacked(nb::handle symbol, nb::handle keep_alive);
DLPackExchangeAPI* TestWrapperApi();
nb::object Steal(PyObject* p);
TVMFFIObjectHandle RawHandleOf(nb::handle obj);
TVMFFIObjectHandle HandleOf(nb::handle obj);
bool DeviceReady(nb::handle obj);
DLDevice DeviceOf(nb::handle obj);
void ClearPayloadOnNew(nb::handle cls);
void CheckPayloadFits(PyTypeObject* cls, int32_t type_index, const char* what);
std::string TypeKeyOf(int32_t type_index);
const char* DeviceTypeName(int32_t code);
int64_t DeviceInt(nb::handle v, const char* what);
std::string Utf8(nb::handle s);
DLDevice ParseDevice(const std::string& text, int64_t index);
std::string DeviceRepr(DLDevice d);
nb::object ToPy(TVMFFIAny* owned);
nb::object ShapeTuple(const int64_t* data, int n);
const DLTensor* TensorOf(nb::handle self);
int64_t PairItem(nb::handle pair, Py_ssize_t k, const char* what, const char* shape);
void CapsuleDeleterVersioned(PyObject* cap);
void CapsuleDeleterLegacy(PyObject* cap);
// readonly.cc: whether a tvmffi.Tensor's tensor is marked read-only (cached on the object).
bool TensorObjectReadOnly(PyObject* a, TVMFFIObjectHandle h);
int CollectName(void* ctx, const TVMFFIByteArray* name);
void EnableVectorcall(nb::handle cls);
nb::object MakeObjectMeta(nb::handle module, nb::handle object_cls);
void AdoptObjectMeta(nb::handle cls, nb::handle meta);

extern std::vector<std::pair<std::string, TVMFFIObjectHandle>>* g_builtins;
extern PyType_Slot g_function_slots[];

}  // namespace tvmffi_py

#endif  // TVMFFI_PYTHON_BINDINGS_H_

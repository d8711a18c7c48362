// tvmffi._core: shared declarations of the native extension.
//
// The extension does not link libtvmffi: tvmffi/__init__.py loads the
// runtime by path with RTLD_GLOBAL before importing this module, so the
// TVMFFI* symbols resolve to that one copy (kernel libraries bind to it too).
#ifndef TVMFFI_PYTHON_CORE_H_
#define TVMFFI_PYTHON_CORE_H_

#include <nanobind/nanobind.h>

#include <dlpack/dlpack.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdint>

namespace tvmffi_py {

namespace nb = nanobind;

/*! \brief The name of a PyCapsule holding a DLPack C exchange API (DLPack's
 *         convention, as torch and upstream tvm_ffi export it). */
inline constexpr const char kExchangeApiCapsule[] = "dlpack_exchange_api";

/*! \brief Payload of tvmffi.Object and its subclasses: one strong reference. */
// Handles an object was bound to before __init__ bound it anew (core.cc,
// _init_from): a call in flight may still borrow them (calls take no
// reference to their arguments' handles), so they live until the object dies.
extern bool g_has_retired_handles;
struct ObjectRef;
void ReleaseRetiredHandles(const ObjectRef* owner);

struct ObjectRef {
  TVMFFIObjectHandle handle = nullptr;
  ObjectRef() = default;
  explicit ObjectRef(TVMFFIObjectHandle h) : handle(h) {}
  ObjectRef(const ObjectRef&) = delete;
  ObjectRef& operator=(const ObjectRef&) = delete;
  ~ObjectRef() {
    if (handle != nullptr) TVMFFIObjectDecRef(handle);
    if (__builtin_expect(g_has_retired_handles, 0)) ReleaseRetiredHandles(this);
  }
};
/*! \brief tvmffi.Function: the vectorcall entry lives in the instance (tp_vectorcall_offset). */
PyObject* FunctionVectorcall(PyObject* self, PyObject* const* args, size_t nargsf,
                             PyObject* kwnames);
// Whether new Functions release the GIL during calls: the environment variable
// TVM_FFI_RELEASE_GIL_BY_DEFAULT (an int, default 1), read when _core is imported.
extern bool g_release_gil_by_default;
struct FunctionRef : ObjectRef {
  vectorcallfunc vectorcall = FunctionVectorcall;
  // Function.release_gil: the call into the function runs without the GIL
  // (callbacks into Python take it again), so other Python threads run meanwhile.
  bool release_gil = g_release_gil_by_default;
  // Arguments the function takes as an owning ffi.Tensor (bit i: argument i;
  // bit 63: argument 63 and later): framework tensors there are passed as
  // owning tensors, elsewhere as borrowed DLTensor*s (the fast path). Set from
  // the type schema (schema_known); without one every argument is owning
  // (CallFunction), as any parameter might keep what it gets.
  uint64_t owning_args = 0;
  bool schema_known = false;
  // What the library declares it writes (TVM_FFI_DLL_EXPORT_WRITES), for
  // arguments 0..62: read-only memory is refused where `writes_args` has the
  // bit, lent as is where `keeps_args` has it. Both 0: undeclared (a private
  // copy, checked after the call). Read only on the read-only paths.
  uint64_t writes_args = 0;
  uint64_t keeps_args = 0;
  FunctionRef() = default;
  explicit FunctionRef(TVMFFIObjectHandle h) : ObjectRef(h) {}
};
struct TensorRef : ObjectRef {
  // Whether the tensor carries DLPack's read-only flag; -1 until first asked.
  int8_t read_only = -1;
  TensorRef() = default;
  explicit TensorRef(TVMFFIObjectHandle h) : ObjectRef(h) {}
};

/*! \brief Payload of tvmffi.Device. */
struct DeviceValue {
  DLDevice dev;
};

/*! \brief Python-side hooks installed once by tvmffi/__init__.py (_core._set_hooks). */
struct Hooks {
  PyObject* make_error = nullptr;       // (kind, message, backtrace) -> exception instance
  PyObject* error_info = nullptr;       // exception -> (kind, message, backtrace)
  PyObject* fw_alloc = nullptr;         // (framework, shape, dtype, dev_type, dev_id) -> tensor
  PyObject* fw_stream = nullptr;        // (framework, dev_type, dev_id) -> int | None
  PyObject* fw_from_tensor = nullptr;   // (framework, tvmffi.Tensor) -> framework tensor
  PyObject* fw_exchange_api = nullptr;  // framework -> DLPack exchange API capsule | None
  PyObject* dtype_cls = nullptr;        // tvmffi.dtype (a str subclass)
  PyObject* shape_cls = nullptr;        // tvmffi.Shape (a tuple subclass)
  PyObject* rvalue_ref_cls = nullptr;   // tvmffi.core.ObjectRValueRef (obj._move())
  // Results that keep their FFI object (attribute _tvm_ffi_cached_object):
  PyObject* string_cls = nullptr;  // tvmffi.core.String (a str subclass), for ffi.String
  PyObject* bytes_cls = nullptr;   // tvmffi.core.Bytes (a bytes subclass), for ffi.Bytes
  // The class of devices that calls return (core._set_class_device); NULL: tvmffi.Device.
  PyObject* device_cls = nullptr;
};
Hooks& GetHooks();

/*! \brief The Python types of the native classes (set at module init). */
struct CoreTypes {
  PyTypeObject* object = nullptr;
  PyTypeObject* function = nullptr;
  PyTypeObject* tensor = nullptr;
  PyTypeObject* device = nullptr;
};
CoreTypes& GetCoreTypes();

// ---- errors ----------------------------------------------------------------
/*! \brief Turn the thread's raised FFI error into a pending Python exception. */
void SetPyErrorFromFFI();
/*! \brief SetPyErrorFromFFI, then throw nb::python_error (for nanobind bindings). */
[[noreturn]] void ThrowFFIError();
inline void Check(int rc) {
  if (rc != 0) ThrowFFIError();
}
/*! \brief Turn the pending Python exception into the thread's raised FFI error. */
void SetFFIErrorFromPython();

// ---- objects ---------------------------------------------------------------
/*! \brief A Python object of the registered class for `h`'s type index (steals h). */
nb::object WrapObject(TVMFFIObjectHandle h);
/*! \brief Register the Python class used for objects of `type_index`. */
void RegisterObjectClass(int32_t type_index, nb::handle cls);

// ---- frameworks ------------------------------------------------------------
/*! \brief A tensor framework seen among call arguments (numpy, torch, cupy, ...). */
// Taking the GIL from any thread (exit_guard.cc): false, with nothing taken,
// once the interpreter is exiting (an atexit handler marks it, so that no
// library thread is left waiting for the GIL when finalizing ends it).
bool EnterPython(PyGILState_STATE* g);
void LeavePython(PyGILState_STATE g);
void InstallExitGuard();

struct Framework {
  PyObject* name = nullptr;                // interned root module name
  const DLPackExchangeAPI* api = nullptr;  // its DLPack C exchange API, if any
  bool immutable = false;  // JAX: its arrays are never written (passed as read-only)
  bool autograd = false;   // torch: written tensors meet autograd's rules (autograd.cc)
};

// ---- values ----------------------------------------------------------------
/*! \brief Python value of an owned Any (steals it); tensors go to `fw` when given. */
PyObject* AnyToPy(TVMFFIAny* owned, const Framework* fw);
/*!
 * \brief A tensor lent to a Python callback as DLTensor*: the callback gets an
 *        owning copy, written back when it returns (call.cc, "Tensors lent to
 *        Python callbacks"). Empty until AnyViewToPy fills it.
 */
struct LentTensor {
  void* host = nullptr;            // host memory: the copy and its snapshot
  PyObject* write_back = nullptr;  // off the host: the framework's write-back
};
/*!
 * \brief Python value of a borrowed Any view (for callbacks); NULL with an
 *        exception set. A DLTensor* becomes an owning copy recorded in `lent`.
 */
PyObject* AnyViewToPy(const TVMFFIAny* view, LentTensor* lent);
/*!
 * \brief After the callback: write back what it changed and release `lent`;
 *        false when a write-back failed (a pending exception is kept, else one set).
 */
bool ReturnLentTensor(LentTensor* lent);
/*! \brief Convert a Python value into an owned Any; false with a Python exception set. */
bool PyToOwnedAny(PyObject* obj, TVMFFIAny* out);
/*!
 * \brief Python's converter for values the extension does not classify:
 *        hook(value) returns an AnyCell holding the owned Any, or None (the
 *        value stays unsupported); None: no hook.
 */
void SetPackFallback(nb::handle hook);
/*! \brief Move an AnyCell's value (the pack fallback's result) to `out`; false with TypeError. */
bool MoveCellOut(PyObject* obj, TVMFFIAny* out);
/*! \brief A DLManagedTensorVersioned owning a view of a DLPack-capable Python object. */
DLManagedTensorVersioned* ManagedFromPy(PyObject* obj);
/*!
 * \brief The runtime's own global function `name` ("ffi.*"), as registered when
 *        _core was imported (borrowed; NULL when there was none): what the
 *        package's converters and containers call, whatever is registered under
 *        that name later.
 */
TVMFFIObjectHandle BuiltinFunction(const char* name);
/*! \brief An owned Function that calls a Python callable. */
TVMFFIObjectHandle FunctionFromCallable(PyObject* callable);

// ---- tensors leaving tvmffi (export.cc) -------------------------------------
/*! \brief DLPack's `copy` of __dlpack__: False, None, True. */
enum class ExportCopy : uint8_t { kNever, kIfNeeded, kAlways };
/*!
 * \brief An owned versioned export of the ffi.Tensor `h` (borrowed) for a
 *        consumer: shared, unless `copy` is kAlways or the tensor is read-only
 *        and `honours` (the consumer keeps DLPack's read-only flag) is false;
 *        then a writable host copy. NULL with BufferError where that copy is
 *        forbidden (kNever) or impossible (off the host); `who` prefixes it.
 */
DLManagedTensorVersioned* ExportManaged(TVMFFIObjectHandle h, ExportCopy copy, bool honours,
                                        const char* who);
/*! \brief ExportManaged as a "dltensor_versioned" or legacy "dltensor" capsule (new ref). */
PyObject* ExportCapsule(TVMFFIObjectHandle h, ExportCopy copy, bool versioned, bool honours,
                        const char* who);
/*! \brief Whether `api`'s consumer keeps DLPack's read-only flag (probed once per API). */
bool HonoursReadOnly(const DLPackExchangeAPI* api);
/*! \brief `h` (borrowed) as `api`'s framework object (new ref), copied if read-only and
 *        the framework ignores the flag; NULL with an error. */
PyObject* ExportToFramework(TVMFFIObjectHandle h, const DLPackExchangeAPI* api, const char* who);

// ---- calls -----------------------------------------------------------------
/*! \brief Call `fn` (initialised) with Python arguments (tp_call, vectorcall of Function). */
PyObject* CallFunction(FunctionRef* fn, PyObject* const* args, Py_ssize_t nargs);
/*!
 * \brief Make `callable` ((shape, dtype, device_type, device_id) -> tensor, or
 *        None) the allocator of this thread for calls with no framework
 *        tensor; returns (previous callable, previous env allocator address).
 */
nb::tuple SwapScopedAllocator(nb::handle callable);
/*! \brief Undo SwapScopedAllocator with the tuple it returned. */
void RestoreScopedAllocator(nb::handle callable, uintptr_t env_allocator);

}  // namespace tvmffi_py

#endif  // TVMFFI_PYTHON_CORE_H_

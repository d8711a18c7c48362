// Internals of tvmffi._core's call path shared by its files (call.cc,
// classify.cc, dlpack.cc, readonly.cc, allocators.cc, to_ffi.cc, to_python.cc,
// lent.cc): the argument classification, one call's frame, and the functions
// one file gives another. Not installed; nothing outside python/src uses it.
#ifndef TVMFFI_PYTHON_CALL_INTERNAL_H_
#define TVMFFI_PYTHON_CALL_INTERNAL_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include <tvm/ffi/details/tensor_geometry.h>

#include "core.h"

namespace tvmffi_py {

// Paths a call rarely takes (owning tensors, read-only copies, errors): out of
// line, so that the inlined fast path keeps its registers.
#define TVMFFI_PY_COLD __attribute__((noinline, cold))

static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "Py_buffer shapes are passed as int64_t*");

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
  kBuffer,       // numpy.ndarray: its own fields or the buffer protocol, no Python-level call
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
  // kBuffer only: numpy.ndarray itself, whose fields DLTensorFromNdarray reads.
  bool ndarray;
  // The type's tp_version_tag when classified: CPython gives a type a new tag
  // whenever an attribute of it or of a base changes (0: none assigned).
  unsigned int version;
};

constexpr int kInlineDims = 6;

// A private copy of the bytes a read-only tensor's elements span. Shared by
// the tensor given to the function and the check after the call.
struct HostCopy {
  std::atomic<int> refs{1};
  const char* orig = nullptr;  // the original bytes: [orig, orig + nbytes)
  char* copy = nullptr;        // their copy, in the same block as this header
  size_t nbytes = 0;
  int64_t lo = 0;  // orig - (address of the first element), <= 0
};

enum class ReadOnlyUse : uint8_t { kCopy, kLend, kRefused };

struct CallFrame;
struct TensorSlot;
struct ReadOnlyChecks;
TVMFFI_PY_COLD void DeleteChecks(ReadOnlyChecks* checks);

// ---- functions one file gives another -------------------------------------
TVMFFI_PY_COLD int PackFallback(PyObject* obj, TVMFFIAny* out);
TVMFFI_PY_COLD bool BadExchangeError(PyTypeObject* t);
PyObject* CachedObjectName();
void ReleaseOwned(TVMFFIAny* a);
bool DLTensorFromBuffer(const Py_buffer& view, DLTensor* dl, int64_t* strides, int64_t** heap);
bool NdarrayLayoutKnown(PyTypeObject* t);
bool DLTensorFromNdarray(PyObject* a, DLTensor* dl, int64_t* strides);
PyObject* CallDunderDLPack(PyObject* obj, PyObject* stream, bool copy = false);
PyObject* TorchToDLPack(PyObject* a);
DLManagedTensorVersioned* ManagedFromCapsule(PyObject* cap, PyObject* obj);
DLManagedTensorVersioned* ManagedFromBuffer(PyObject* obj);
TVMFFI_PY_COLD bool DeviceNotInitialised();
TVMFFIObjectHandle ObjectHandleOf(PyObject* obj);
TVMFFI_PY_COLD PyObject* RValueRefTarget(PyObject* rvalue);
bool LongToInt64(PyObject* v, int64_t* out);
bool IndexToInt64(PyObject* obj, int64_t* out);
/*! \brief An object with __index__ as an owned int: kTVMFFIInt, or an ffi.BigInt past int64. */
bool IndexToOwnedInt(PyObject* obj, TVMFFIAny* out);
DLManagedTensorVersioned* ManagedFromPy(PyObject* obj);
bool IsReadOnly(const DLManagedTensorVersioned* m);
bool IsHostMemory(DLDevice d);
void Unref(HostCopy* c);
HostCopy* CopyHost(const DLTensor& t);
TVMFFI_PY_COLD bool VerifyReadOnly(const CallFrame& f);
DLManagedTensorVersioned* ManagedOverCopy(const DLTensor& t, HostCopy* copy);
DLManagedTensorVersioned* OwnHostCopy(CallFrame* f, int arg, bool nested, const DLTensor& t,
                                      DLManagedTensorVersioned* keep);
void ReleaseManaged(DLManagedTensorVersioned* m);
TVMFFI_PY_COLD DLManagedTensorVersioned* ProtectOwned(CallFrame* f, int arg, bool nested,
                                                      DLManagedTensorVersioned* m, PyObject* obj,
                                                      PyObject* stream);
TVMFFI_PY_COLD DLTensor* LendReadOnly(CallFrame& f, int arg, TensorSlot& s, DLTensor& src,
                                      PyObject* a, PyObject* stream);
TVMFFI_PY_COLD DLTensor* LendImmutableCopy(CallFrame& f, int arg, TensorSlot& s, PyObject* a,
                                           DLTensor* dl);
TVMFFI_PY_COLD bool VerifyImmutable(const CallFrame& f);
bool TensorObjectReadOnly(PyObject* a, TVMFFIObjectHandle h);
TVMFFI_PY_COLD TVMFFIObjectHandle ReadOnlyObjectCopy(CallFrame& f, int arg, bool nested,
                                                     PyObject* a, TVMFFIObjectHandle h);
int PyFrameworkAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* error_ctx,
                     void (*set_error)(void*, const char*, const char*));
bool NoteDevice(CallFrame& f, const Framework* fw, DLDevice dev);
void NoteFramework(CallFrame& f, const Framework* fw);
bool PyToOwnedAny(PyObject* obj, TVMFFIAny* out);
TVMFFI_PY_COLD PyObject* ContainerInFramework(TVMFFIObjectHandle h, const Framework* fw);
PyObject* AnyToPy(TVMFFIAny* a, const Framework* fw);

// A borrowed DLPack tensor (a __dlpack__ capsule, an exchange API's export)
// checked as from_dlpack checks one, before any function sees it: the
// runtime's fast verdict inline, the runtime's full validation otherwise
// (dlpack.cc). False with ValueError naming `source`.
TVMFFI_PY_COLD bool ValidateBorrowedSlow(const DLTensor& dl, const char* source);
inline bool ValidateBorrowed(const DLTensor& dl, const char* source) {
  return __builtin_expect(tvm::ffi::detail::IsPlainValidTensor(dl), 1) ||
         ValidateBorrowedSlow(dl, source);
}

// The tensor frameworks seen (classify.cc), in the order first seen; a deque, so
// that no number of frameworks is refused and a Framework* stays valid as it grows.
extern std::deque<Framework> g_frameworks;
extern PyObject* g_pack_fallback;
extern thread_local const Framework* tls_alloc_fw;
extern bool g_containers_tagged;

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
inline void ReleaseSlot(TensorSlot& s) {
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
  // The autograd framework's tensors the function writes (a list, or NULL):
  // their versions are bumped after the call (autograd.cc).
  PyObject* written = nullptr;

  ~CallFrame() {
    // A failed call's exception is set: a producer's deleter may run Python
    // code (a ctypes or capsule deleter), which must not see it.
    PyObject *etype = nullptr, *evalue = nullptr, *etb = nullptr;
    const bool pending = (n_slots > 0 || n_objs > 0) && PyErr_Occurred() != nullptr;
    if (pending) PyErr_Fetch(&etype, &evalue, &etb);
    for (int i = 0; i < n_slots; ++i) {
      ReleaseSlot(slots[i]);
      delete[] slots[i].heap;
    }
    for (int i = 0; i < n_objs; ++i) TVMFFIObjectDecRef(objs[i]);
    if (checks != nullptr) DeleteChecks(checks);
    Py_XDECREF(immutable_copies);
    Py_XDECREF(written);
    if (pending) PyErr_Restore(etype, evalue, etb);
  }
};

// autograd.cc. A framework tensor for argument #arg (nested: inside a list or
// dict argument) that the function may write (AutogradWrites): refused when
// it requires grad in grad mode, else recorded in f.written (declared writes:
// every such tensor; undeclared: those that require grad). False with an error.
TVMFFI_PY_COLD bool NoteWrittenTensor(CallFrame& f, int arg, bool nested, PyObject* tensor);
// After the call: bump the version of each tensor in f.written (a pending
// exception is kept). False with an error.
TVMFFI_PY_COLD bool BumpWrittenVersions(CallFrame& f);

// Whether `fw`'s tensor for argument #arg may be written under autograd's
// rules: an autograd framework, and the function's library does not declare
// that it leaves #arg unwritten (it declares a write, or declares nothing:
// undeclared functions and arguments 63 and later).
inline bool AutogradWrites(const CallFrame& f, const Framework* fw, int arg) {
  return __builtin_expect(fw != nullptr && fw->autograd, 0) &&
         (arg >= 63 || ((f.fn->keeps_args >> arg) & 1) == 0);
}

// The frame whose arguments are being converted on this thread, while a list
// or dict argument becomes an ffi.Array/Map (its read-only tensors are checked
// after that call); NULL elsewhere.
extern thread_local CallFrame* tls_pack_frame;
extern thread_local int tls_pack_arg;

constexpr int kCacheSize = 16;
// A type not in the cache, or whose entry is stale: classify it (again).
TVMFFI_PY_COLD TypeEntry ClassifyAndCache(PyTypeObject* t);
extern TypeEntry g_cache[kCacheSize];
extern int g_cache_used;
extern int g_cache_next;

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

}  // namespace tvmffi_py

#endif  // TVMFFI_PYTHON_CALL_INTERNAL_H_

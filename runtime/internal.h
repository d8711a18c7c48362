/*
 * Private helpers shared by the runtime's translation units. Nothing here is
 * exported: the library is built with hidden visibility and a version script
 * that keeps only TVMFFI* symbols.
 */
#ifndef TVMFFI_RUNTIME_INTERNAL_H_
#define TVMFFI_RUNTIME_INTERNAL_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/string.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#define TVMFFI_RT_LIKELY(x) __builtin_expect(!!(x), 1)
#define TVMFFI_RT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define TVMFFI_RT_NOINLINE __attribute__((noinline))

namespace tvmffi {
namespace rt {

// ---------------------------------------------------------------------------
// Errors: the runtime raises tvm::ffi::Error like every other binary, and its
// exported functions convert exceptions with error.h's TVM_FFI_SAFE_CALL_BEGIN/END.
// ---------------------------------------------------------------------------

using ::tvm::ffi::Error;

/*! \brief Park an error with the given kind and message, with a backtrace. */
void SetRaised(const char* kind, std::string_view message) noexcept;

/*! \brief Errors this thread has raised so far (error.cc; initial-exec: one load). */
extern __attribute__((tls_model("initial-exec"))) __thread uint64_t tls_raise_count;
/*! \brief How many errors this thread has raised so far (SetRaised and friends count). */
inline uint64_t RaiseCount() noexcept {
  return tls_raise_count;
}
/*!
 * \brief After a callback (a C function, a hook) returned `rc`: when it failed
 *        (rc other than 0 and -2) without raising an error since
 *        RaiseCount() was `raises_before`, raise a RuntimeError naming `what`,
 *        so that the caller never reports a stale error left by an earlier call.
 */
void RaiseIfSilent(uint64_t raises_before, int rc, const char* what) noexcept;

/*! \brief The arguments printed one after another (error.h's message builder). */
template <typename... Args>
std::string Concat(Args&&... args) {
  ::tvm::ffi::detail::ErrorMessageStream os;
  (void)(os << ... << args);
  return std::move(os.str());
}

/*!
 * \brief TVM_FFI_THROW for a kind chosen at run time: `Throw("ValueError", "got ", n)` is
 *        `TVM_FFI_THROW(ValueError) << "got " << n` (the same site, message stream and
 *        backtrace; no file line, the frames say where).
 */
template <typename... Args>
[[noreturn]] TVM_FFI_COLD_CODE void Throw(const char* kind, Args&&... args) {
  ::tvm::ffi::detail::ErrorThrowSite site(kind, TVMFFIBacktrace(nullptr, 0, nullptr, 0));
  ::tvm::ffi::detail::ErrorMessageStream& os = ::tvm::ffi::detail::ThrowMessageStream();
  (void)(os << ... << args);
  throw site && os;
}

/*! \brief Throw the error a failed C call (return code rc) left in the raised slot. */
[[noreturn]] inline void ThrowRaised(int rc) {
  ::tvm::ffi::detail::ThrowRaisedError(rc);
}

/*! \brief Park the in-flight exception (inside a catch block); returns -1 or -2. */
inline int HandleCurrentException() noexcept {
  return ::tvm::ffi::detail::SetRaisedFromCurrentException();
}

/*! \brief ValueError "<func>: argument `<arg>` is NULL" when p is NULL. */
[[noreturn]] TVM_FFI_COLD_CODE void ThrowNullArgument(const char* func, const char* arg);

template <typename T>
inline void CheckNotNull(const T* p, const char* func, const char* arg) {
  if (TVMFFI_RT_UNLIKELY(p == nullptr)) ThrowNullArgument(func, arg);
}

/*! \brief ValueError: byte array `arg` of func has NULL data with a nonzero size. */
[[noreturn]] TVM_FFI_COLD_CODE void ThrowNullBytes(const char* func, const char* arg, size_t size);
/*! \brief ValueError naming func and arg unless b is non-NULL with data (NULL data only with size
 * 0). */
inline void CheckByteArray(const TVMFFIByteArray* b, const char* func, const char* arg) {
  CheckNotNull(b, func, arg);
  if (TVMFFI_RT_UNLIKELY(b->data == nullptr && b->size != 0)) ThrowNullBytes(func, arg, b->size);
}
/*! \return The bytes of a checked byte array. */
inline std::string_view ViewOf(const TVMFFIByteArray* b) {
  return std::string_view(b->data, b->size);
}

/*! \brief ValueError for a call with a NULL result, NULL args with a count, or a negative count. */
[[noreturn]] TVM_FFI_COLD_CODE void ThrowBadCallArgs(const char* func, const TVMFFIAny* args,
                                                     int32_t num_args, const TVMFFIAny* result);

/*! \brief The checks every safe_call entry of the runtime makes on its arguments. */
inline bool BadCallArgs(const TVMFFIAny* args, int32_t num_args, const TVMFFIAny* result) {
  return result == nullptr || num_args < 0 || (args == nullptr && num_args != 0);
}

// ---------------------------------------------------------------------------
// Out-of-memory injection (-DTVMFFI_FAULT_INJECTION=ON only, fault_injection.cc):
// the runtime's malloc-style allocations ask the injection first. In every
// other build these are the plain calls.
// ---------------------------------------------------------------------------

#ifdef TVMFFI_FAULT_INJECTION
/*! \brief True when this allocation is to fail (TVMFFIFaultInjectionSet). */
bool FaultInjectionFails() noexcept;
#define TVMFFI_RT_MALLOC(size) (::tvmffi::rt::FaultInjectionFails() ? nullptr : std::malloc(size))
#define TVMFFI_RT_POSIX_MEMALIGN(out, alignment, size) \
  (::tvmffi::rt::FaultInjectionFails() ? ENOMEM : posix_memalign(out, alignment, size))
#else
#define TVMFFI_RT_MALLOC(size) std::malloc(size)
#define TVMFFI_RT_POSIX_MEMALIGN(out, alignment, size) posix_memalign(out, alignment, size)
#endif

// ---------------------------------------------------------------------------
// Objects (object.cc)
// ---------------------------------------------------------------------------

/*! \brief Allocate `size` bytes (>= sizeof(TVMFFIObject)) with a fresh header. */
TVMFFIObject* AllocObject(size_t size, int32_t type_index, void (*deleter)(void*, int));
/*! \brief Fill the header of a new object in `mem` (counts 1 + 1); returns it. */
TVMFFIObject* InitObjectHeader(void* mem, int32_t type_index, void (*deleter)(void*, int));
/*! \brief Free memory obtained from AllocObject. */
void FreeObjectMemory(void* self);

// The ABI's reference counting is object.h's (one protocol for every binary).
inline void IncRef(TVMFFIObject* obj) {
  ::tvm::ffi::detail::HeaderIncRef(obj);
}
/*! \brief The DecRef protocol of the ABI (NULL is ignored). */
inline void DecRef(TVMFFIObject* obj) {
  if (obj != nullptr) ::tvm::ffi::detail::HeaderDecRef(obj);
}

/*! \brief True when the object's type is `type_index` or derives from it. */
bool ObjectIsInstance(const TVMFFIObject* obj, int32_t type_index);

/*! \brief The type key of an index ("<unknown type N>" when unregistered). Never throws. */
std::string TypeIndexToKey(int32_t type_index);

// Every registered type key, in type-index order.
std::vector<std::string> RegisteredTypeKeys();
// One past the highest dynamic type index given out (ffi._TypeIndexEnd): the
// table has gaps, the child slots reserved and not yet taken.
int32_t TypeIndexEnd();

/*!
 * \brief True when v is tagged `type_index` and really holds a (non-NULL) object
 *        of that type: the tag alone is not trusted.
 */
inline bool AnyHoldsObject(const TVMFFIAny& v, int32_t type_index) {
  return v.type_index == type_index && v.v_obj != nullptr && v.v_obj->type_index == type_index;
}

/*!
 * \brief The type of a value for messages: its tag's key, and for an object
 *        whose real type differs from the tag, both ("`ffi.Function` tag on an `ffi.String`
 * object").
 */
std::string DescribeAnyType(const TVMFFIAny& v);

/*! \brief Release whatever an owned TVMFFIAny holds and reset it to None. */
inline void AnyRelease(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) DecRef(v->v_obj);
  ::tvm::ffi::detail::SetAnyNone(v);
}

// ---------------------------------------------------------------------------
// Strings (string.cc)
// ---------------------------------------------------------------------------

/*! \brief A String (65) or Bytes (66) object holding a NUL-terminated copy. */
TVMFFIObject* MakeBytesObject(int32_t type_index, const char* data, size_t size);
/*! \brief Write an owned String (small if it fits) into *out. */
void MakeStringAny(const char* data, size_t size, TVMFFIAny* out);
/*! \brief Write an owned Bytes (small if it fits) into *out. */
void MakeBytesAny(const char* data, size_t size, TVMFFIAny* out);
/*!
 * \brief The bytes of a string-like any (RawStr, SmallStr, Str, ByteArrayPtr, SmallBytes, Bytes);
 *        false when v is not string-like.
 * \param what Names the value in errors ("ffi.String: argument 0").
 * \throws tvm::ffi::Error ValueError for a NULL const char*, a NULL TVMFFIByteArray*, or one with
 *         NULL data and a nonzero size.
 */
bool AnyGetBytes(const TVMFFIAny* v, std::string_view* out, const char* what);

// ---------------------------------------------------------------------------
// Errors (error.cc)
// ---------------------------------------------------------------------------

/*! \brief Create an Error object; throws std::bad_alloc only. */
TVMFFIObject* MakeError(std::string_view kind, std::string_view message, std::string_view backtrace,
                        TVMFFIObject* cause, TVMFFIObject* extra);

// ---------------------------------------------------------------------------
// Functions (function.cc)
// ---------------------------------------------------------------------------

/*! \brief Look up a global function; returns a new reference or NULL. */
TVMFFIObject* GlobalFunctionGet(std::string_view name);

// ---------------------------------------------------------------------------
// Tensors (tensor.cc)
// ---------------------------------------------------------------------------

/*! \brief True for the device types DLPack defines (kDLCPU .. kDLTrn, the retired 5 and 6
 * included). */
inline bool IsValidDeviceType(int32_t device_type) {
  return device_type >= 1 && device_type <= 18;
}

// ---------------------------------------------------------------------------
// The DLPack tensor allocator (state in env.cc; TVMFFIEnvTensorAlloc in tensor.cc)
// ---------------------------------------------------------------------------

// This thread's allocator (initial-exec: one load) and the process's.
extern __attribute__((
    tls_model("initial-exec"))) __thread DLPackManagedTensorAllocator tls_env_allocator;
extern std::atomic<DLPackManagedTensorAllocator> g_env_allocator;

/*! \brief The allocator in effect for this thread: its own, else the process's, else NULL. */
inline DLPackManagedTensorAllocator EnvCurrentAllocator() {
  DLPackManagedTensorAllocator a = tls_env_allocator;
  return a != nullptr ? a : g_env_allocator.load(std::memory_order_acquire);
}

/*!
 * \brief What an allocator reports through its SetError callback (error_ctx).
 *        Trivially destructible, so a successful allocation costs nothing;
 *        an error it holds is freed by EnvAllocCheck.
 */
struct EnvAllocError {
  std::pair<std::string, std::string>* error;  // kind, message; NULL until reported
};
/*! \brief The SetError callback handed to the allocator. */
void EnvAllocSetError(void* error_ctx, const char* kind, const char* message);
/*!
 * \brief After an allocation that failed or reported an error: frees the
 *        report, then throws unless the allocation succeeded (rc 0 and a tensor).
 */
TVM_FFI_COLD_CODE void EnvAllocCheck(int rc, const DLManagedTensorVersioned* managed,
                                     EnvAllocError* err);
/*! \brief RuntimeError: TVMFFIEnvTensorAlloc with no allocator installed. */
[[noreturn]] TVM_FFI_COLD_CODE void ThrowNoEnvAllocator();

// ---------------------------------------------------------------------------
// Environment tables (env.cc), read by the module loader.
// ---------------------------------------------------------------------------

/*! \brief Snapshot of TVMFFIEnvModRegisterContextSymbol entries, in registration order. */
std::vector<std::pair<std::string, void*>> EnvContextSymbols();
/*! \brief A system-library symbol registered with TVMFFIEnvModRegisterSystemLibSymbol, or NULL. */
void* EnvSystemLibSymbolLookup(std::string_view name);
/*! \brief Snapshot of all system-library symbols. */
std::vector<std::pair<std::string, void*>> EnvSystemLibSymbols();

/*!
 * \brief Implementation of TVMFFIEnvModLookupFromImports (module.cc).
 *        Arguments are checked non-NULL by the caller. Returns 0 / -1 (raised).
 */
int ModLookupFromImportsImpl(TVMFFIObjectHandle library_ctx, const char* func_name,
                             TVMFFIObjectHandle* out);

// ---------------------------------------------------------------------------
// Objects rebuilt field by field from untrusted values (reflection.cc)
// ---------------------------------------------------------------------------

/*!
 * \brief After FromJSONGraph or a generated `__ffi_init__` has set the fields
 *        of a new object: checks the invariants of the runtime's own types
 *        that their field types cannot express (an AccessPath's parent is an
 *        AccessPath or None together with its step, and its depth is its
 *        parent's plus one; an AccessStep's kind is known and its key fits
 *        the kind) and recomputes derived fields (a StructuralKey's hash).
 * \return "" when the object is sound, else what is wrong with it.
 */
std::string CheckReconstructedObject(const ::tvm::ffi::ObjectRef& obj);

// ---------------------------------------------------------------------------
// Recursion on the C stack (stack_guard.cc)
// ---------------------------------------------------------------------------

/*!
 * \brief Whether the calling thread's stack has less than `reserve` bytes
 *        left below the caller's frame (the thread's bounds are read once per
 *        thread). The recursive walkers (StructuralEqual/Hash, DeepCopy, ...)
 *        ask it before each level and raise a clear error instead of
 *        overflowing; a thread whose bounds are unknown counts 1 MiB of
 *        room from its first call. A stack smaller than twice the reserve
 *        keeps half of itself.
 */
constexpr size_t kStackReserve = size_t{256} << 10;
bool StackNearlyExhausted(size_t reserve = kStackReserve) noexcept;

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_INTERNAL_H_

/*
 * Private helpers shared by the runtime's translation units. Nothing here is
 * exported: the library is built with hidden visibility and a version script
 * that keeps only TVMFFI* symbols.
 */
#ifndef TVMFFI_RUNTIME_INTERNAL_H_
#define TVMFFI_RUNTIME_INTERNAL_H_

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <cstdint>
#include <cstdio>
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
#define TVMFFI_RT_COLD __attribute__((noinline, cold))

namespace tvmffi {
namespace rt {

// ---------------------------------------------------------------------------
// Exceptions used inside the runtime. They never cross the C ABI: every
// exported function wraps its body in TVM_FFI_SAFE_CALL_BEGIN/END.
// ---------------------------------------------------------------------------

/*! \brief An error with an FFI kind ("ValueError", ...) and a message. */
class FFIError : public std::exception {
 public:
  FFIError(std::string kind, std::string message)
      : kind_(std::move(kind)), message_(std::move(message)) {}
  const char* what() const noexcept override { return message_.c_str(); }
  const std::string& kind() const { return kind_; }
  const std::string& message() const { return message_; }

 private:
  std::string kind_;
  std::string message_;
};

/*!
 * \brief Thrown when a callee already parked its error in the raised slot
 *        (e.g. a user safe_call returned -1): the slot is left untouched.
 */
struct AlreadyRaised {
  int code = -1;
};

/*! \brief Turns the in-flight exception into a raised error; returns -1. */
int HandleCurrentException() noexcept;

/*! \brief Raise (park) an error with the given kind and message, with a backtrace. */
void SetRaised(const char* kind, std::string_view message) noexcept;

// A tiny string builder (no <sstream> in the hot library) for error messages.
inline void AppendTo(std::string* out, const char* s) { out->append(s != nullptr ? s : "(null)"); }
inline void AppendTo(std::string* out, const std::string& s) { out->append(s); }
inline void AppendTo(std::string* out, std::string_view s) { out->append(s.data(), s.size()); }
inline void AppendTo(std::string* out, char c) { out->push_back(c); }
inline void AppendTo(std::string* out, bool b) { out->append(b ? "true" : "false"); }
inline void AppendTo(std::string* out, const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  out->append(buf);
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T> || std::is_enum_v<T>>>
inline void AppendTo(std::string* out, T v) {
  if constexpr (std::is_enum_v<T>) {
    out->append(std::to_string(static_cast<long long>(v)));
  } else if constexpr (std::is_signed_v<T>) {
    out->append(std::to_string(static_cast<long long>(v)));
  } else {
    out->append(std::to_string(static_cast<unsigned long long>(v)));
  }
}

template <typename... Args>
std::string Concat(Args&&... args) {
  std::string out;
  (AppendTo(&out, std::forward<Args>(args)), ...);
  return out;
}

/*! \brief Throw an FFIError of the given kind; arguments are concatenated. */
template <typename... Args>
[[noreturn]] TVMFFI_RT_COLD void Throw(const char* kind, Args&&... args) {
  throw FFIError(kind, Concat(std::forward<Args>(args)...));
}

/*! \brief ValueError "<func>: argument `<arg>` is NULL" when p is NULL. */
[[noreturn]] TVMFFI_RT_COLD void ThrowNullArgument(const char* func, const char* arg);

template <typename T>
inline void CheckNotNull(const T* p, const char* func, const char* arg) {
  if (TVMFFI_RT_UNLIKELY(p == nullptr)) ThrowNullArgument(func, arg);
}

/*! \brief ValueError for a call with a NULL result, NULL args with a count, or a negative count. */
[[noreturn]] TVMFFI_RT_COLD void ThrowBadCallArgs(const char* func, const TVMFFIAny* args,
                                                  int32_t num_args, const TVMFFIAny* result);

/*! \brief The checks every safe_call entry of the runtime makes on its arguments. */
inline bool BadCallArgs(const TVMFFIAny* args, int32_t num_args, const TVMFFIAny* result) {
  return result == nullptr || num_args < 0 || (args == nullptr && num_args != 0);
}

// ---------------------------------------------------------------------------
// Objects (object.cc)
// ---------------------------------------------------------------------------

/*! \brief Allocate `size` bytes (>= sizeof(TVMFFIObject)) with a fresh header. */
TVMFFIObject* AllocObject(size_t size, int32_t type_index, void (*deleter)(void*, int));
/*! \brief Free memory obtained from AllocObject. */
void FreeObjectMemory(void* self);

inline void IncRef(TVMFFIObject* obj) {
  __atomic_fetch_add(&obj->combined_ref_count, 1, __ATOMIC_RELAXED);
}
/*! \brief The DecRef protocol of the ABI (NULL is ignored). */
void DecRef(TVMFFIObject* obj);

/*! \brief True when the object's type is `type_index` or derives from it. */
bool ObjectIsInstance(const TVMFFIObject* obj, int32_t type_index);

/*! \brief The type key of an index ("<unknown type N>" when unregistered). Never throws. */
std::string TypeIndexToKey(int32_t type_index);

/*!
 * \brief True when v is tagged `type_index` and really holds a (non-NULL) object
 *        of that type: the tag alone is not trusted.
 */
inline bool AnyHoldsObject(const TVMFFIAny& v, int32_t type_index) {
  return v.type_index == type_index && v.v_obj != nullptr && v.v_obj->type_index == type_index;
}

/*!
 * \brief The type of a value for messages: its tag's key, and for an object
 *        whose real type differs from the tag, both ("`ffi.Function` tag on an `ffi.String` object").
 */
std::string DescribeAnyType(const TVMFFIAny& v);

/*! \brief Release whatever an owned TVMFFIAny holds and reset it to None. */
inline void AnyRelease(TVMFFIAny* v) {
  if (v->type_index >= kTVMFFIStaticObjectBegin) DecRef(v->v_obj);
  v->type_index = kTVMFFINone;
  v->zero_padding = 0;
  v->v_int64 = 0;
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
 * \throws FFIError ValueError for a NULL const char*, a NULL TVMFFIByteArray*, or one with
 *         NULL data and a nonzero size.
 */
bool AnyGetBytes(const TVMFFIAny* v, std::string_view* out, const char* what);

// ---------------------------------------------------------------------------
// Errors (error.cc)
// ---------------------------------------------------------------------------

/*! \brief Create an Error object; throws std::bad_alloc only. */
TVMFFIObject* MakeError(std::string_view kind, std::string_view message,
                        std::string_view backtrace, TVMFFIObject* cause, TVMFFIObject* extra);

// ---------------------------------------------------------------------------
// Functions (function.cc)
// ---------------------------------------------------------------------------

/*! \brief Look up a global function; returns a new reference or NULL. */
TVMFFIObject* GlobalFunctionGet(std::string_view name);

// ---------------------------------------------------------------------------
// Tensors (tensor.cc)
// ---------------------------------------------------------------------------

/*! \brief True for the device types DLPack defines (kDLCPU .. kDLTrn, the retired 5 and 6 included). */
inline bool IsValidDeviceType(int32_t device_type) { return device_type >= 1 && device_type <= 18; }

/*! \brief Wrap a versioned managed tensor; on failure its deleter has run and it throws. */
TVMFFIObject* TensorFromManagedVersioned(DLManagedTensorVersioned* from, int32_t require_alignment,
                                         int32_t require_contiguous, const char* api);

// ---------------------------------------------------------------------------
// Environment tables (env.cc), read by the module loader.
// ---------------------------------------------------------------------------

/*! \brief Snapshot of TVMFFIEnvModRegisterContextSymbol entries, in registration order. */
std::vector<std::pair<std::string, void*>> EnvContextSymbols();
/*! \brief A system-library symbol registered with TVMFFIEnvModRegisterSystemLibSymbol, or NULL. */
void* EnvSystemLibSymbolLookup(std::string_view name);
/*! \brief Snapshot of all system-library symbols. */
std::vector<std::pair<std::string, void*>> EnvSystemLibSymbols();
/*! \brief A C function registered with TVMFFIEnvRegisterCAPI, or NULL. */
void* EnvLookupCAPI(std::string_view name);

/*!
 * \brief Implementation of TVMFFIEnvModLookupFromImports. env.cc carries a weak
 *        default that reports "not found"; the module code overrides it.
 *        Arguments are checked non-NULL by the caller. Returns 0 / -1 (raised).
 */
int ModLookupFromImportsImpl(TVMFFIObjectHandle library_ctx, const char* func_name,
                             TVMFFIObjectHandle* out);

}  // namespace rt
}  // namespace tvmffi

/*!
 * \brief Bracket the body of an exported function: any exception becomes a
 *        raised error and a -1 return. The body returns its own value on success.
 */
#define TVM_FFI_SAFE_CALL_BEGIN() try {
#define TVM_FFI_SAFE_CALL_END()                         \
  }                                                     \
  catch (...) {                                         \
    return ::tvmffi::rt::HandleCurrentException();      \
  }                                                     \
  return 0;

#endif  // TVMFFI_RUNTIME_INTERNAL_H_

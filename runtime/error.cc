/*
 * Error objects, the per-thread raised-error slot, and the error-kind registry.
 */
#include <cstdlib>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <unordered_map>

#include "internal.h"

namespace tvmffi {
namespace rt {

namespace {

// The C++ layer's ErrorObj (header and cell, the ABI); the strings the cell
// points into follow it. Made on AllocObject memory, never constructed.
using ErrorObject = ::tvm::ffi::ErrorObj;
static_assert(sizeof(ErrorObject) == 96);

struct ErrorStrings {
  std::string kind;
  std::string message;
  std::string backtrace;
};
static_assert(sizeof(ErrorObject) % alignof(ErrorStrings) == 0);

ErrorStrings* StringsOf(void* self) {
  return reinterpret_cast<ErrorStrings*>(static_cast<char*>(self) + sizeof(ErrorObject));
}

TVMFFIByteArray ArrayOf(const std::string& s) {
  return TVMFFIByteArray{s.c_str(), s.size()};
}

void ErrorDeleter(void* self, int flags) {
  auto* obj = static_cast<ErrorObject*>(self);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) {
    DecRef(static_cast<TVMFFIObject*>(obj->cause_chain));
    DecRef(static_cast<TVMFFIObject*>(obj->extra_context));
    obj->cause_chain = nullptr;
    obj->extra_context = nullptr;
    StringsOf(self)->~ErrorStrings();
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeObjectMemory(self);
}

// Called by other binaries when an error crosses another frame boundary.
void ErrorUpdateBacktrace(TVMFFIObjectHandle self, const TVMFFIByteArray* bt, int32_t mode) {
  if (self == nullptr || bt == nullptr || (bt->data == nullptr && bt->size != 0)) return;
  auto* obj = static_cast<ErrorObject*>(self);
  ErrorStrings* s = StringsOf(self);
  try {
    if (mode == kTVMFFIBacktraceUpdateModeAppend) {
      s->backtrace.append(bt->data, bt->size);
    } else {
      s->backtrace.assign(bt->data, bt->size);
    }
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return;  // out of memory: keep the old text
  }
  obj->backtrace = ArrayOf(s->backtrace);
}

// The error parked by the last failing call on this thread.
struct RaisedSlot {
  TVMFFIObject* error = nullptr;
  ~RaisedSlot() {
    TVMFFIObject* e = error;
    error = nullptr;
    DecRef(e);
  }
};
thread_local RaisedSlot tls_raised;

// Takes ownership of `err`.
void Park(TVMFFIObject* err) {
  TVMFFIObject* old = tls_raised.error;
  tls_raised.error = err;
  ++tls_raise_count;
  DecRef(old);
}

// Parked when even creating an error fails. Static storage, so that reporting
// out of memory never allocates, not even at load time; its reference that is
// never dropped keeps it alive, and its backtrace stays empty.
void KeepBacktrace(TVMFFIObjectHandle, const TVMFFIByteArray*, int32_t) {}
void NeverFreed(void*, int) {}
constexpr char kOutOfMemoryMessage[] = "out of memory (while creating an error)";
struct StaticErrorObject : ::tvm::ffi::ErrorObj {
  StaticErrorObject() noexcept {
    ::tvm::ffi::detail::InitObjectHeader(&header_, kTVMFFIError, NeverFreed);
    kind = {"MemoryError", 11};
    message = {kOutOfMemoryMessage, sizeof(kOutOfMemoryMessage) - 1};
    backtrace = {"", 0};
    update_backtrace = KeepBacktrace;
    cause_chain = nullptr;
    extra_context = nullptr;
  }
};
static_assert(std::is_trivially_destructible_v<StaticErrorObject>);
// Made on first use (a guard, no allocation): no load-time order to depend on.
TVMFFIObject* OutOfMemoryError() {
  static StaticErrorObject oom;
  return ::tvm::ffi::detail::ObjectUnsafe::GetHeader(&oom);
}

// ---------------------------------------------------------------------------
// Error kinds
// ---------------------------------------------------------------------------

class ErrorKindRegistry {
 public:
  static ErrorKindRegistry* Global() {
    static ErrorKindRegistry* inst = new ErrorKindRegistry();
    return inst;
  }

  int32_t Register(std::string_view kind) {
    std::unique_lock<std::shared_mutex> lock(mutex_);
    auto it = codes_.find(std::string(kind));
    if (it != codes_.end()) return it->second;
    int32_t code = next_++;
    codes_.emplace(std::string(kind), code);
    return code;
  }

  int32_t Lookup(std::string_view kind) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = codes_.find(std::string(kind));
    return it == codes_.end() ? kTVMFFIErrorKindUnknown : it->second;
  }

 private:
  ErrorKindRegistry() {
    codes_ = {{"RuntimeError", kTVMFFIErrorKindRuntimeError},
              {"ValueError", kTVMFFIErrorKindValueError},
              {"TypeError", kTVMFFIErrorKindTypeError},
              {"AttributeError", kTVMFFIErrorKindAttributeError},
              {"KeyError", kTVMFFIErrorKindKeyError},
              {"IndexError", kTVMFFIErrorKindIndexError},
              {"NotImplementedError", kTVMFFIErrorKindNotImplementedError},
              {"MemoryError", kTVMFFIErrorKindMemoryError},
              {"InternalError", kTVMFFIErrorKindInternalError}};
  }
  std::shared_mutex mutex_;
  std::unordered_map<std::string, int32_t> codes_;
  int32_t next_ = kTVMFFIErrorKindCustomBegin;
};

bool ValidArray(const TVMFFIByteArray* b) {
  return b != nullptr && (b->data != nullptr || b->size == 0);
}

std::string_view ViewOrEmpty(const TVMFFIByteArray* b) {
  if (b == nullptr || b->data == nullptr) return std::string_view();
  return std::string_view(b->data, b->size);
}

}  // namespace

TVMFFIObject* MakeError(std::string_view kind, std::string_view message, std::string_view backtrace,
                        TVMFFIObject* cause, TVMFFIObject* extra) {
  TVMFFIObject* obj =
      AllocObject(sizeof(ErrorObject) + sizeof(ErrorStrings), kTVMFFIError, ErrorDeleter);
  ErrorStrings* s;
  try {
    s = new (StringsOf(obj))
        ErrorStrings{std::string(kind), std::string(message), std::string(backtrace)};
  } catch (...) {
    FreeObjectMemory(obj);
    throw;
  }
  auto* e = reinterpret_cast<ErrorObject*>(obj);
  e->kind = ArrayOf(s->kind);
  e->message = ArrayOf(s->message);
  e->backtrace = ArrayOf(s->backtrace);
  e->update_backtrace = ErrorUpdateBacktrace;
  if (cause != nullptr) IncRef(cause);
  if (extra != nullptr) IncRef(extra);
  e->cause_chain = cause;
  e->extra_context = extra;
  return obj;
}

void SetRaised(const char* kind, std::string_view message) noexcept {
  try {
    const TVMFFIByteArray* bt = TVMFFIBacktrace(nullptr, 0, nullptr, 0);
    Park(MakeError(kind != nullptr ? kind : "RuntimeError", message,
                   std::string_view(bt->data, bt->size), nullptr, nullptr));
  } catch (...) {
    TVMFFIObject* oom = OutOfMemoryError();
    IncRef(oom);
    Park(oom);
  }
}

void ThrowNullArgument(const char* func, const char* arg) {
  Throw("ValueError", func, ": argument `", arg, "` is NULL");
}

void ThrowBadCallArgs(const char* func, const TVMFFIAny* args, int32_t num_args,
                      const TVMFFIAny* result) {
  if (result == nullptr) ThrowNullArgument(func, "result");
  if (num_args < 0) Throw("ValueError", func, ": argument `num_args` is negative (", num_args, ")");
  if (args == nullptr) {
    Throw("ValueError", func, ": argument `args` is NULL with num_args ", num_args);
  }
  Throw("InternalError", func, ": ThrowBadCallArgs called with valid arguments");
}

__attribute__((tls_model("initial-exec"))) __thread uint64_t tls_raise_count = 0;

void RaiseIfSilent(uint64_t raises_before, int rc, const char* what) noexcept {
  if (rc == 0 || rc == -2 || tls_raise_count != raises_before) return;
  // Failed without raising: whatever sits in the slot is stale (an earlier
  // failure nobody fetched) and must not be reported as this one.
  try {
    SetRaised("RuntimeError", Concat(what, " returned ", rc, " without setting an error"));
  } catch (...) {
    SetRaised("RuntimeError", "a call failed without setting an error");
  }
}

}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" {

void TVMFFIErrorMoveFromRaised(TVMFFIObjectHandle* result) {
  if (result == nullptr) return;  // nowhere to report; leave the slot as it is
  *result = tls_raised.error;
  tls_raised.error = nullptr;
}

void TVMFFIErrorSetRaised(TVMFFIObjectHandle error) {
  auto* obj = static_cast<TVMFFIObject*>(error);
  if (obj == nullptr) {
    SetRaised("ValueError", "TVMFFIErrorSetRaised: argument `error` is NULL");
    return;
  }
  if (!ObjectIsInstance(obj, kTVMFFIError)) {
    SetRaised("TypeError", Concat("TVMFFIErrorSetRaised: expected an ffi.Error, got `",
                                  TypeIndexToKey(obj->type_index), "`"));
    return;
  }
  IncRef(obj);
  Park(obj);
}

void TVMFFIErrorSetRaisedFromCStr(const char* kind, const char* message) {
  SetRaised(kind, message != nullptr ? std::string_view(message) : std::string_view());
}

void TVMFFIErrorSetRaisedFromCStrParts(const char* kind, const char** message_parts,
                                       int32_t num_parts) {
  std::string message;
  try {
    if (message_parts != nullptr) {
      for (int32_t i = 0; i < num_parts; ++i) {
        if (message_parts[i] != nullptr) message.append(message_parts[i]);
      }
    }
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    SetRaised("MemoryError", "out of memory");
    return;
  }
  SetRaised(kind, message);
}

int TVMFFIErrorCreate(const TVMFFIByteArray* kind, const TVMFFIByteArray* message,
                      const TVMFFIByteArray* backtrace, TVMFFIObjectHandle* out) {
  return TVMFFIErrorCreateWithCauseAndExtraContext(kind, message, backtrace, nullptr, nullptr, out);
}

int TVMFFIErrorCreateWithCauseAndExtraContext(
    const TVMFFIByteArray* kind, const TVMFFIByteArray* message, const TVMFFIByteArray* backtrace,
    TVMFFIObjectHandle cause_chain, TVMFFIObjectHandle extra_context, TVMFFIObjectHandle* out) {
  // Used while handling another error: report failure by return value only.
  if (out == nullptr || !ValidArray(kind) || !ValidArray(message)) return -1;
  if (backtrace != nullptr && !ValidArray(backtrace)) return -1;
  // The cause is read as an Error by everyone who walks the chain: check the real type.
  if (cause_chain != nullptr &&
      static_cast<TVMFFIObject*>(cause_chain)->type_index != kTVMFFIError) {
    return -1;
  }
  try {
    *out = MakeError(ViewOrEmpty(kind), ViewOrEmpty(message), ViewOrEmpty(backtrace),
                     static_cast<TVMFFIObject*>(cause_chain),
                     static_cast<TVMFFIObject*>(extra_context));
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return -1;
  }
  return 0;
}

int TVMFFIErrorKindRegister(const TVMFFIByteArray* kind, int32_t* out_code) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(kind, "TVMFFIErrorKindRegister", "kind");
  CheckNotNull(out_code, "TVMFFIErrorKindRegister", "out_code");
  if (kind->data == nullptr || kind->size == 0) {
    Throw("ValueError", "TVMFFIErrorKindRegister: the kind name is empty");
  }
  *out_code = ErrorKindRegistry::Global()->Register(std::string_view(kind->data, kind->size));
  TVM_FFI_SAFE_CALL_END();
}

int32_t TVMFFIErrorKindLookup(const TVMFFIByteArray* kind) {
  if (!ValidArray(kind)) return kTVMFFIErrorKindUnknown;
  try {
    return ErrorKindRegistry::Global()->Lookup(ViewOrEmpty(kind));
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return kTVMFFIErrorKindUnknown;
  }
}

}  // extern "C"

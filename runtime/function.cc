/*
 * Function objects, the global function registry, AnyView -> Any, and the
 * one-time handle initialisation helpers.
 */
#include <algorithm>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include <tvm/ffi/function.h>

#include "internal.h"
#include "registration.h"

namespace tvmffi {
namespace rt {

namespace {

// A function made from a C callback: the C++ layer's FunctionObj (header and
// cell, the ABI), then the callback, private to this file. Made on
// AllocObject memory, never constructed.
struct FunctionObject : ::tvm::ffi::FunctionObj {
  void* self;
  TVMFFISafeCallType user_call;
  void (*user_deleter)(void* self);
};

void FunctionDeleter(void* obj, int flags) {
  auto* f = static_cast<FunctionObject*>(obj);
  if ((flags & kTVMFFIObjectDeleterFlagBitMaskStrong) && f->user_deleter != nullptr) {
    f->user_deleter(f->self);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeObjectMemory(obj);
}

// The cell's safe_call: receives the function object, calls the C callback
// with its own context. A C++ callback that throws anyway is contained here.
int FunctionTrampoline(void* handle, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  auto* f = static_cast<FunctionObject*>(handle);
  try {
    if (TVMFFI_RT_UNLIKELY(BadCallArgs(args, num_args, result))) {
      ThrowBadCallArgs("Function call", args, num_args, result);
    }
    return f->user_call(f->self, args, num_args, result);
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

TVMFFIObject* MakeFunction(void* self, TVMFFISafeCallType call, void (*deleter)(void*)) {
  TVMFFIObject* obj = AllocObject(sizeof(FunctionObject), kTVMFFIFunction, FunctionDeleter);
  auto* f = reinterpret_cast<FunctionObject*>(obj);
  f->safe_call = FunctionTrampoline;
  f->cpp_call = nullptr;
  f->self = self;
  f->user_call = call;
  f->user_deleter = deleter;
  return obj;
}

// ---------------------------------------------------------------------------
// Global registry
// ---------------------------------------------------------------------------

struct GlobalEntry {
  std::string name;              // the table's key views this string
  TVMFFIObject* func = nullptr;  // one strong reference
  std::string doc;
  std::string metadata;
  int64_t flags = 0;
};

class GlobalRegistry {
 public:
  static GlobalRegistry* Global() {
    // Leaked on purpose: entries may hold callbacks into hosts that are gone at exit.
    static GlobalRegistry* inst = new GlobalRegistry();
    return inst;
  }

  // Takes a new reference to f.
  void Set(std::string_view name, TVMFFIObject* f, bool allow_override, std::string doc = {},
           std::string metadata = {}, int64_t flags = kTVMFFIFieldFlagBitMaskIsStaticMethod) {
    TVMFFIObject* replaced = nullptr;
    {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      auto it = table_.find(name);
      if (it != table_.end() && !allow_override) {
        Throw("RuntimeError", "Global function `", name, "` is already registered");
      }
      if (it == table_.end()) {
        auto entry = std::make_unique<GlobalEntry>();
        entry->name = std::string(name);
        std::string_view key = entry->name;
        it = table_.emplace(key, std::move(entry)).first;
      }
      IncRef(f);
      GlobalEntry& e = *it->second;
      replaced = e.func;
      e.func = f;
      e.doc = std::move(doc);
      e.metadata = std::move(metadata);
      e.flags = flags;
    }
    // Outside the lock: a deleter may call back into the registry.
    DecRef(replaced);
  }

  TVMFFIObject* Get(std::string_view name) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it == table_.end()) return nullptr;
    IncRef(it->second->func);
    return it->second->func;
  }

  bool GetMetadata(std::string_view name, std::string* out) {
    std::shared_lock<std::shared_mutex> lock(mutex_);
    auto it = table_.find(name);
    if (it == table_.end()) return false;
    *out = it->second->metadata;
    return true;
  }

  // Returns whether the name was registered.
  bool Remove(std::string_view name) {
    TVMFFIObject* removed = nullptr;
    {
      std::unique_lock<std::shared_mutex> lock(mutex_);
      auto it = table_.find(name);
      if (it == table_.end()) return false;
      removed = it->second->func;
      table_.erase(it);
    }
    DecRef(removed);
    return true;
  }

  std::vector<std::string> SortedNames() {
    std::vector<std::string> names;
    {
      std::shared_lock<std::shared_mutex> lock(mutex_);
      names.reserve(table_.size());
      for (const auto& kv : table_) names.emplace_back(kv.first);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::shared_mutex mutex_;
  // Keyed by views of the entries' own names, so lookups need no allocation.
  std::unordered_map<std::string_view, std::unique_ptr<GlobalEntry>> table_;
};

void CheckIsFunction(const TVMFFIObject* f, const char* func, const char* arg) {
  if (f->type_index != kTVMFFIFunction) {
    Throw("TypeError", func, ": argument `", arg, "` must be an ffi.Function, got `",
          TypeIndexToKey(f->type_index), "`");
  }
}

// ---------------------------------------------------------------------------
// Built-in global functions
// ---------------------------------------------------------------------------

// ffi.String(x) / ffi.Bytes(x): an owned String / Bytes from any string-like value.
template <bool kIsString>
int BuiltinStringLike(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  const char* name = kIsString ? "ffi.String" : "ffi.Bytes";
  try {
    if (num_args != 1) Throw("TypeError", name, " expects 1 argument, got ", num_args);
    std::string_view bytes;
    if (!AnyGetBytes(&args[0], &bytes,
                     kIsString ? "ffi.String: argument 0" : "ffi.Bytes: argument 0")) {
      Throw("TypeError", name, ": cannot convert `", TypeIndexToKey(args[0].type_index),
            "` to a string");
    }
    if (kIsString) {
      MakeStringAny(bytes.data(), bytes.size(), result);
    } else {
      MakeBytesAny(bytes.data(), bytes.size(), result);
    }
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// Failures recorded while loading (RecordLoadFailure), for ffi.LoadFailures.
struct LoadFailureList {
  std::mutex mu;
  std::vector<std::string> items;
  static LoadFailureList* Global() {
    static LoadFailureList* inst = new LoadFailureList();  // leaked: read until exit
    return inst;
  }
};

// A String argument as a view; TypeError naming the function otherwise.
std::string_view StringArg(const char* fname, const TVMFFIAny* args, int32_t num_args) {
  std::string_view s;
  // On the stack: removing a global must not need memory.
  char what[96];
  std::snprintf(what, sizeof(what), "%s: argument 0", fname);
  if (num_args != 1 || !AnyGetBytes(&args[0], &s, what)) {
    Throw("TypeError", fname, " expects one string argument");
  }
  return s;
}

// ffi.GetGlobalFuncMetadata(name) -> the metadata text given at registration.
int BuiltinGetGlobalFuncMetadata(void*, const TVMFFIAny* args, int32_t num_args,
                                 TVMFFIAny* result) {
  try {
    std::string_view name = StringArg("ffi.GetGlobalFuncMetadata", args, num_args);
    std::string metadata;
    if (!GlobalRegistry::Global()->GetMetadata(name, &metadata)) {
      Throw("KeyError", "Global function `", name, "` is not registered");
    }
    MakeStringAny(metadata.data(), metadata.size(), result);
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// ffi.FunctionRemoveGlobal(name) -> bool: whether the name was registered.
int BuiltinRemoveGlobal(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  try {
    std::string_view name = StringArg("ffi.FunctionRemoveGlobal", args, num_args);
    bool removed = GlobalRegistry::Global()->Remove(name);
    result->type_index = kTVMFFIBool;
    result->zero_padding = 0;
    result->v_int64 = removed ? 1 : 0;
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// The functor of ffi.FunctionListGlobalNamesFunctor over a snapshot of the
// names: f(-1) -> count, f(i) -> the i-th name (sorted).
int ListNamesStep(void* self, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  try {
    const auto& names = *static_cast<const std::vector<std::string>*>(self);
    if (num_args != 1 || args[0].type_index != kTVMFFIInt) {
      Throw("TypeError", "ffi.FunctionListGlobalNamesFunctor step expects one int argument");
    }
    int64_t i = args[0].v_int64;
    if (i < 0) {
      result->type_index = kTVMFFIInt;
      result->zero_padding = 0;
      result->v_int64 = static_cast<int64_t>(names.size());
      return 0;
    }
    if (static_cast<uint64_t>(i) >= names.size()) {
      Throw("IndexError", "ffi.FunctionListGlobalNamesFunctor: index ", i, " out of range [0, ",
            names.size(), ")");
    }
    const std::string& n = names[static_cast<size_t>(i)];
    MakeStringAny(n.data(), n.size(), result);
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// ffi.FunctionListGlobalNamesFunctor() -> the functor above.
int BuiltinListGlobalNamesFunctor(void*, const TVMFFIAny*, int32_t num_args, TVMFFIAny* result) {
  try {
    if (num_args != 0) {
      Throw("TypeError", "ffi.FunctionListGlobalNamesFunctor expects no arguments, got ", num_args);
    }
    auto names =
        std::make_unique<std::vector<std::string>>(GlobalRegistry::Global()->SortedNames());
    TVMFFIObject* f = MakeFunction(names.get(), ListNamesStep, [](void* self) {
      delete static_cast<std::vector<std::string>*>(self);
    });
    static_cast<void>(names.release());  // f owns the names now
    result->type_index = kTVMFFIFunction;
    result->zero_padding = 0;
    result->v_obj = f;
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// ffi.LoadFailures() -> str: the failures recorded while loading, one per line
// ("" when there were none). A tvmffi extension.
int BuiltinLoadFailures(void*, const TVMFFIAny*, int32_t num_args, TVMFFIAny* result) {
  try {
    if (num_args != 0) Throw("TypeError", "ffi.LoadFailures expects no arguments, got ", num_args);
    std::string text;
    {
      LoadFailureList* list = LoadFailureList::Global();
      std::lock_guard<std::mutex> lock(list->mu);
      for (const std::string& item : list->items) {
        text.append(item);
        text.push_back('\n');
      }
    }
    MakeStringAny(text.data(), text.size(), result);
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// ffi.RecordLoadFailure(what: str): how a library's static initialiser reports
// a failure (tvm/ffi/base_detail.h). A tvmffi extension.
int BuiltinRecordLoadFailure(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  try {
    RecordLoadFailure(StringArg("ffi.RecordLoadFailure", args, num_args));
    ::tvm::ffi::detail::SetAnyNone(result);
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

// Argument i of ffi.FunctionFromExternC as an address: an opaque pointer, an
// int (an address from a language without pointers) or None (NULL).
void* AddressArg(const TVMFFIAny* args, int32_t i, const char* what) {
  switch (args[i].type_index) {
    case kTVMFFIOpaquePtr:
      return args[i].v_ptr;
    case kTVMFFINone:
      return nullptr;
    case kTVMFFIInt:
      return reinterpret_cast<void*>(static_cast<intptr_t>(args[i].v_int64));
    default:
      Throw("TypeError", "ffi.FunctionFromExternC: argument ", i, " (", what,
            ") must be a pointer (void*), an int address or None, got `",
            TypeIndexToKey(args[i].type_index), "`");
  }
}

// ffi.FunctionFromExternC(self, safe_call, deleter) -> Function: the C
// function `safe_call` (TVMFFISafeCallType) as an ffi.Function called with
// `self`; `deleter(self)` (may be NULL) runs when the function dies. What
// TVMFFIFunctionCreate does, for callers that only reach globals.
int BuiltinFunctionFromExternC(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) {
  try {
    if (num_args != 3) {
      Throw("TypeError",
            "ffi.FunctionFromExternC expects 3 arguments (self, safe_call, "
            "deleter), got ",
            num_args);
    }
    void* self = AddressArg(args, 0, "self");
    void* call = AddressArg(args, 1, "safe_call");
    void* deleter = AddressArg(args, 2, "deleter");
    if (call == nullptr) Throw("ValueError", "ffi.FunctionFromExternC: safe_call is NULL");
    TVMFFIObject* f = MakeFunction(self, reinterpret_cast<TVMFFISafeCallType>(call),
                                   reinterpret_cast<void (*)(void*)>(deleter));
    result->type_index = kTVMFFIFunction;
    result->zero_padding = 0;
    result->v_obj = f;
    return 0;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    return HandleCurrentException();
  }
}

[[maybe_unused]] const bool kBuiltinsRegistered = [] {
  RegisterBuiltinGlobal("ffi.String", BuiltinStringLike<true>);
  RegisterBuiltinGlobal("ffi.Bytes", BuiltinStringLike<false>);
  RegisterBuiltinGlobal("ffi.GetGlobalFuncMetadata", BuiltinGetGlobalFuncMetadata);
  RegisterBuiltinGlobal("ffi.FunctionRemoveGlobal", BuiltinRemoveGlobal);
  RegisterBuiltinGlobal("ffi.FunctionListGlobalNamesFunctor", BuiltinListGlobalNamesFunctor);
  RegisterBuiltinGlobal("ffi.LoadFailures", BuiltinLoadFailures);
  RegisterBuiltinGlobal("ffi.RecordLoadFailure", BuiltinRecordLoadFailure);
  RegisterBuiltinGlobal("ffi.FunctionFromExternC", BuiltinFunctionFromExternC);
  return true;
}();

// Serialises TVMFFIHandleInitOnce / DeinitOnce; recursive so an init function
// may itself initialise another handle.
std::recursive_mutex& InitOnceMutex() {
  static std::recursive_mutex* m = new std::recursive_mutex();
  return *m;
}

}  // namespace

TVMFFIObject* GlobalFunctionGet(std::string_view name) {
  return GlobalRegistry::Global()->Get(name);
}

void RecordLoadFailure(std::string_view what) noexcept {
  // Printed first, so that even an allocation failure below leaves a trace.
  std::fprintf(stderr, "tvmffi: %.*s\n", static_cast<int>(what.size()), what.data());
  try {
    LoadFailureList* list = LoadFailureList::Global();
    std::lock_guard<std::mutex> lock(list->mu);
    list->items.emplace_back(what);
  } catch (...) {
    // Out of memory: the stderr line is all that is left.
  }
}

namespace {

// Records "cannot <verb> built-in global `name`[: detail][: more]" with the text
// on the stack: these run in noexcept static initialisers, where the failure
// may be the lack of memory itself.
void RecordBuiltinFailure(const char* verb, std::string_view name, std::string_view detail,
                          std::string_view more = {}) noexcept {
  char text[512];
  std::snprintf(text, sizeof(text), "cannot %s built-in global `%.*s`%s%.*s%s%.*s", verb,
                static_cast<int>(name.size()), name.data(), detail.empty() ? "" : ": ",
                static_cast<int>(detail.size()), detail.data(), more.empty() ? "" : ": ",
                static_cast<int>(more.size()), more.data());
  RecordLoadFailure(text);
}

std::string_view View(const TVMFFIByteArray& b) {
  return std::string_view(b.data, b.size);
}

}  // namespace

bool RegisterBuiltinGlobal(std::string_view name, TVMFFIObject* func) noexcept {
  try {
    GlobalRegistry::Global()->Set(name, func, /*allow_override=*/false);
    return true;
  } catch (const ::tvm::ffi::Error& e) {
    const TVMFFIErrorCell* cell =
        TVMFFIErrorGetCellPtr(::tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(e));
    RecordBuiltinFailure("register", name, View(cell->kind), View(cell->message));
  } catch (const std::exception& e) {
    RecordBuiltinFailure("register", name, e.what());
  } catch (...) {
    RecordBuiltinFailure("register", name, {});
  }
  return false;
}

bool RegisterBuiltinGlobal(std::string_view name, TVMFFISafeCallType call) noexcept {
  TVMFFIObject* f = nullptr;
  try {
    f = MakeFunction(nullptr, call, nullptr);
  } catch (...) {
    RecordBuiltinFailure("create", name, "out of memory");
    return false;
  }
  bool ok = RegisterBuiltinGlobal(name, f);
  DecRef(f);
  return ok;
}

}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

namespace {
// The header word (type_index, __padding) of functions made by the C++ headers.
static_assert(offsetof(TVMFFIObject, __padding) == offsetof(TVMFFIObject, type_index) + 4);
constexpr uint64_t kCppFunctionKind =
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    static_cast<uint64_t>(::tvm::ffi::detail::kCppFunctionMagic) << 32 |
    static_cast<uint32_t>(kTVMFFIFunction);
#else
    static_cast<uint64_t>(static_cast<uint32_t>(kTVMFFIFunction)) << 32 |
    ::tvm::ffi::detail::kCppFunctionMagic;
#endif
// The argument cells a foreign caller (C, another language) hands in are
// checked once, here at the door, so that no callee -- typed or taking Any --
// meets a cell that lies about its content (issue #43): an unknown or
// negative type index, a small string longer than its 7 bytes, a NULL
// borrowed pointer, or an object index with a NULL object or an object of
// another type. Returns the first such argument's index, or -1.
int32_t MalformedCell(const TVMFFIAny* args, int32_t num_args) noexcept {
  for (int32_t i = 0; i < num_args; ++i) {
    const TVMFFIAny& c = args[i];
    const uint32_t t = static_cast<uint32_t>(c.type_index);
    if (TVMFFI_RT_LIKELY(t <= kTVMFFIDevice)) continue;  // plain values
    if (t >= kTVMFFIStaticObjectBegin) {
      if (TVMFFI_RT_UNLIKELY(c.v_obj == nullptr || c.v_obj->type_index != c.type_index)) return i;
      continue;
    }
    switch (t) {
      case kTVMFFIDLTensorPtr:
      case kTVMFFIRawStr:
      case kTVMFFIByteArrayPtr:
      case kTVMFFIObjectRValueRef:
        if (c.v_ptr == nullptr) return i;
        continue;
      case kTVMFFISmallStr:
      case kTVMFFISmallBytes:
        if (c.small_str_len > 7) return i;
        continue;
      case kTVMFFIUnchanged:  // structural mutation's marker: no payload
        continue;
      default:
        return i;  // negative, or no type of that index
    }
  }
  return -1;
}

TVM_FFI_COLD_CODE int RefuseMalformedCell(const TVMFFIAny* args, int32_t num_args) {
  const int32_t i = MalformedCell(args, num_args);
  const TVMFFIAny& c = args[i];
  const char* what = "a type index that names no type";
  if (c.type_index >= kTVMFFIStaticObjectBegin && c.v_obj != nullptr) {
    // The object's own type, named as the typed conversions name it.
    SetRaised("TypeError",
              Concat("TVMFFIFunctionCall: argument ", i, " is a malformed TVMFFIAny: Expected `",
                     TypeIndexToKey(c.type_index), "` but got `",
                     ::tvm::ffi::TypeTraitsBase::GetMismatchTypeInfo(&c),
                     "` (an object whose type differs from the cell's type index)"));
    return -1;
  }
  if (c.type_index >= kTVMFFIStaticObjectBegin) {
    what = "an object type index with a NULL object";
  } else if (c.type_index == kTVMFFISmallStr || c.type_index == kTVMFFISmallBytes) {
    what = "a small string longer than 7 bytes";
  } else if (c.type_index >= 0) {
    what = "a NULL pointer";
  }
  SetRaised("TypeError", Concat("TVMFFIFunctionCall: argument ", i, " is a malformed TVMFFIAny (",
                                what, "; type index ", c.type_index, ")"));
  return -1;
}

TVM_FFI_COLD_CODE int FunctionCallBadArgs(TVMFFIObjectHandle func, const TVMFFIAny* args,
                                          int32_t num_args, const TVMFFIAny* result) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(func, "TVMFFIFunctionCall", "func");
  CheckIsFunction(static_cast<TVMFFIObject*>(func), "TVMFFIFunctionCall", "func");
  ThrowBadCallArgs("TVMFFIFunctionCall", args, num_args, result);
  TVM_FFI_SAFE_CALL_END();
}
// A C function's nonzero return: raise for it if it did not (RaiseIfSilent).
TVM_FFI_COLD_CODE int FunctionCallFailed(uint64_t raises, int rc) {
  RaiseIfSilent(raises, rc, "the called function");
  return rc;
}
// TVMFFIFunctionCall of any other function (a C callback, another
// library's): every check here, out of line, so that the C++ path above
// stays a compare and a jump.
TVMFFI_RT_NOINLINE int CallOtherFunction(TVMFFIObject* obj, TVMFFIAny* args, int32_t num_args,
                                         TVMFFIAny* result) {
  if (TVMFFI_RT_UNLIKELY(obj->type_index != kTVMFFIFunction ||
                         BadCallArgs(args, num_args, result))) {
    return FunctionCallBadArgs(obj, args, num_args, result);
  }
  // A callee that fails without raising would have the caller report a
  // stale error: one is raised for it (the C++ path needs no such check:
  // functions made by the C++ headers always raise).
  const uint64_t raises = RaiseCount();
  const TVMFFIFunctionCell* cell = TVMFFIFunctionGetCellPtr(obj);
  int rc;
  if (TVMFFI_RT_LIKELY(cell->safe_call == FunctionTrampoline)) {
    // A C callback made here (TVMFFIFunctionCreate): called directly, as
    // FunctionTrampoline would after the checks done above (it stays the
    // cell's entry for callers that go through the cell).
    auto* f = static_cast<FunctionObject*>(static_cast<void*>(obj));
    try {
      rc = f->user_call(f->self, args, num_args, result);
    } catch (...) {
      ::tvm::ffi::detail::RethrowIfForcedUnwind();
      return FunctionCallFailed(raises, HandleCurrentException());
    }
  } else {
    // Straight into the cell, with the function object as handle.
    rc = cell->safe_call(obj, args, num_args, result);
  }
  // Out of line: the success path keeps only `raises` across the call.
  if (TVMFFI_RT_UNLIKELY(rc != 0)) return FunctionCallFailed(raises, rc);
  return 0;
}
}  // namespace

extern "C" {

int TVMFFIFunctionCreate(void* self, TVMFFISafeCallType safe_call, void (*deleter)(void* self),
                         TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(reinterpret_cast<void*>(safe_call), "TVMFFIFunctionCreate", "safe_call");
  CheckNotNull(out, "TVMFFIFunctionCreate", "out");
  *out = MakeFunction(self, safe_call, deleter);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionCall(TVMFFIObjectHandle func, TVMFFIAny* args, int32_t num_args,
                       TVMFFIAny* result) {
  auto* obj = static_cast<TVMFFIObject*>(func);
  if (TVMFFI_RT_UNLIKELY(obj == nullptr)) return FunctionCallBadArgs(func, args, num_args, result);
  if (TVMFFI_RT_UNLIKELY(args != nullptr && MalformedCell(args, num_args) >= 0)) {
    return RefuseMalformedCell(args, num_args);
  }
  // A function made by the C++ headers (type index and padding magic, one
  // 64-bit compare) checks args, num_args and result in its own safe_call,
  // which C callers may also reach through the cell: not checked twice.
  uint64_t kind;
  std::memcpy(&kind, &obj->type_index, sizeof(kind));
  if (TVMFFI_RT_LIKELY(kind == kCppFunctionKind)) {
    return TVMFFIFunctionGetCellPtr(obj)->safe_call(obj, args, num_args, result);
  }
  return CallOtherFunction(obj, args, num_args, result);
}

// A global name is looked up by text from every language (C strings
// included): an empty name, or one with a NUL byte (which a C caller would
// see cut short, naming another function), is refused.
static void CheckGlobalName(const TVMFFIByteArray* name, const char* api) {
  std::string_view text(name->data != nullptr ? name->data : "", name->size);
  if (text.empty()) Throw("ValueError", api, ": the global function name is empty");
  size_t nul = text.find('\0');
  if (nul != std::string_view::npos) {
    Throw("ValueError", api, ": the global function name contains a NUL byte (at offset ", nul,
          ")");
  }
}

int TVMFFIFunctionSetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle f, int allow_override) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(name, "TVMFFIFunctionSetGlobal", "name");
  CheckGlobalName(name, "TVMFFIFunctionSetGlobal");
  CheckNotNull(f, "TVMFFIFunctionSetGlobal", "f");
  CheckIsFunction(static_cast<TVMFFIObject*>(f), "TVMFFIFunctionSetGlobal", "f");
  GlobalRegistry::Global()->Set(ViewOf(name), static_cast<TVMFFIObject*>(f), allow_override != 0);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionSetGlobalFromMethodInfo(const TVMFFIMethodInfo* method_info, int allow_override) {
  TVM_FFI_SAFE_CALL_BEGIN();
  const char* api = "TVMFFIFunctionSetGlobalFromMethodInfo";
  CheckNotNull(method_info, api, "method_info");
  CheckByteArray(&method_info->name, api, "method_info->name");
  CheckGlobalName(&method_info->name, api);
  const TVMFFIAny& m = method_info->method;
  if (!AnyHoldsObject(m, kTVMFFIFunction)) {
    Throw("TypeError", api, ": `method_info->method` must be an ffi.Function, got `",
          DescribeAnyType(m),
          m.v_obj == nullptr && m.type_index == kTVMFFIFunction ? "` (NULL)" : "`");
  }
  auto str = [](const TVMFFIByteArray& b) {
    return b.data != nullptr ? std::string(b.data, b.size) : std::string();
  };
  GlobalRegistry::Global()->Set(ViewOf(&method_info->name), m.v_obj, allow_override != 0,
                                str(method_info->doc), str(method_info->metadata),
                                method_info->flags);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionGetGlobal(const TVMFFIByteArray* name, TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(name, "TVMFFIFunctionGetGlobal", "name");
  CheckNotNull(out, "TVMFFIFunctionGetGlobal", "out");
  *out = GlobalRegistry::Global()->Get(ViewOf(name));
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionRemoveGlobal(const TVMFFIByteArray* name) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckByteArray(name, "TVMFFIFunctionRemoveGlobal", "name");
  GlobalRegistry::Global()->Remove(ViewOf(name));
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIFunctionListGlobalNames(int (*visit)(void* ctx, const TVMFFIByteArray* name), void* ctx) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(reinterpret_cast<void*>(visit), "TVMFFIFunctionListGlobalNames", "visit");
  for (const std::string& n : GlobalRegistry::Global()->SortedNames()) {
    TVMFFIByteArray arr{n.c_str(), n.size()};
    if (visit(ctx, &arr) != 0) break;
  }
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(any_view, "TVMFFIAnyViewToOwnedAny", "any_view");
  CheckNotNull(out, "TVMFFIAnyViewToOwnedAny", "out");
  const TVMFFIAny& v = *any_view;
  if (v.type_index >= kTVMFFIStaticObjectBegin) {
    if (v.v_obj == nullptr) {
      Throw("ValueError", "TVMFFIAnyViewToOwnedAny: object value of type `",
            TypeIndexToKey(v.type_index), "` has a NULL pointer");
    }
    // The tag must name the object's type or one of its ancestors.
    if (v.v_obj->type_index != v.type_index && !ObjectIsInstance(v.v_obj, v.type_index)) {
      Throw("TypeError", "TVMFFIAnyViewToOwnedAny: the value has a `", DescribeAnyType(v));
    }
    IncRef(v.v_obj);
    *out = v;
    out->type_index = v.v_obj->type_index;
    return 0;
  }
  switch (v.type_index) {
    case kTVMFFIRawStr: {
      if (v.v_c_str == nullptr) Throw("ValueError", "TVMFFIAnyViewToOwnedAny: NULL const char*");
      MakeStringAny(v.v_c_str, std::strlen(v.v_c_str), out);
      return 0;
    }
    case kTVMFFIByteArrayPtr: {
      auto* b = static_cast<const TVMFFIByteArray*>(v.v_ptr);
      if (b == nullptr || (b->data == nullptr && b->size != 0)) {
        Throw("ValueError", "TVMFFIAnyViewToOwnedAny: invalid TVMFFIByteArray*");
      }
      MakeBytesAny(b->data, b->size, out);
      return 0;
    }
    case kTVMFFIObjectRValueRef: {
      // v_ptr is the address of the caller's object reference: move out of it.
      auto** ref = static_cast<TVMFFIObject**>(v.v_ptr);
      if (ref == nullptr || *ref == nullptr) {
        Throw("ValueError", "TVMFFIAnyViewToOwnedAny: ObjectRValueRef is NULL or already moved");
      }
      TVMFFIObject* obj = *ref;
      *ref = nullptr;
      out->type_index = obj->type_index;
      out->zero_padding = 0;
      out->v_obj = obj;
      return 0;
    }
    case kTVMFFIDLTensorPtr:
      Throw("TypeError", "Cannot convert a borrowed DLTensor* to an owned value");
    case kTVMFFINone:
    case kTVMFFIInt:
    case kTVMFFIBool:
    case kTVMFFIFloat:
    case kTVMFFIOpaquePtr:
    case kTVMFFIDataType:
    case kTVMFFIDevice:
    case kTVMFFISmallStr:
    case kTVMFFISmallBytes:
    case kTVMFFIUnchanged:
      *out = v;
      return 0;
    default:
      Throw("TypeError", "TVMFFIAnyViewToOwnedAny: unknown type index ", v.type_index);
  }
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIHandleInitOnce(void** handle_addr, int (*init_func)(void** result)) {
  if (handle_addr != nullptr && __atomic_load_n(handle_addr, __ATOMIC_ACQUIRE) != nullptr) return 0;
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(handle_addr, "TVMFFIHandleInitOnce", "handle_addr");
  CheckNotNull(reinterpret_cast<void*>(init_func), "TVMFFIHandleInitOnce", "init_func");
  std::lock_guard<std::recursive_mutex> lock(InitOnceMutex());
  if (__atomic_load_n(handle_addr, __ATOMIC_ACQUIRE) != nullptr) return 0;
  void* result = nullptr;
  const uint64_t raises = RaiseCount();
  int rc = init_func(&result);
  if (rc != 0) {
    RaiseIfSilent(raises, rc, "TVMFFIHandleInitOnce: init_func");
    return rc;
  }
  // NULL would read as "not initialised" and rerun init_func on every call.
  if (result == nullptr) Throw("RuntimeError", "init_func must return a non-NULL handle");
  __atomic_store_n(handle_addr, result, __ATOMIC_RELEASE);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIHandleDeinitOnce(void** handle_addr, int (*deinit_func)(void* handle)) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(handle_addr, "TVMFFIHandleDeinitOnce", "handle_addr");
  CheckNotNull(reinterpret_cast<void*>(deinit_func), "TVMFFIHandleDeinitOnce", "deinit_func");
  std::lock_guard<std::recursive_mutex> lock(InitOnceMutex());
  // Cleared before deinit_func runs (as upstream): a failed deinit is not retried
  // on a half-released handle, and readers never see a handle being released.
  void* handle = __atomic_exchange_n(handle_addr, static_cast<void*>(nullptr), __ATOMIC_ACQ_REL);
  if (handle == nullptr) return 0;
  const uint64_t raises = RaiseCount();
  int rc = deinit_func(handle);
  if (rc != 0) {
    RaiseIfSilent(raises, rc, "TVMFFIHandleDeinitOnce: deinit_func");
    return rc;
  }
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"

/*
 * The environment half of the ABI: per-thread streams, the DLPack tensor
 * allocator, host C hooks and the module symbol tables.
 */
#include <atomic>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

// Common (device_type, device_id) pairs live in a flat array; anything else
// goes to a map, so every id works.
constexpr uint32_t kFastDeviceTypes = 32;
// Device types are DLDeviceType values (under 32), or TVM's RPC encoding of
// one (plus 128 per session): anything from 65536 up is a wrong argument.
constexpr uint32_t kMaxStreamDeviceType = 1u << 16;
constexpr uint32_t kFastDeviceIds = 16;

struct StreamTable {
  TVMFFIStreamHandle fast[kFastDeviceTypes][kFastDeviceIds] = {};
  std::unordered_map<uint64_t, TVMFFIStreamHandle> slow;
};

uint64_t StreamKey(int32_t device_type, int32_t device_id) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(device_type)) << 32) |
         static_cast<uint32_t>(device_id);
}

// The hot per-thread state uses the initial-exec TLS model: a read is one
// %fs-relative load instead of a __tls_get_addr call. It is a few words, small
// enough for the static TLS reserve glibc keeps for dlopen'ed libraries.
__attribute__((tls_model("initial-exec"))) thread_local StreamTable* tls_streams = nullptr;

// The (device, stream) pair this thread used last: a kernel asks for the stream
// of one device over and over, and this answers without touching the table.
// Compared field by field (cheaper than building a 64-bit key). The initial
// pair is no valid device, and NULL is the right answer for it anyway.
struct LastStream {
  int32_t device_type;
  int32_t device_id;
  TVMFFIStreamHandle stream;
};
__attribute__((tls_model("initial-exec"))) thread_local LastStream tls_last_stream = {-1, -1,
                                                                                      nullptr};

// Owns the thread's table and frees it when the thread exits.
struct StreamTableOwner {
  std::unique_ptr<StreamTable> table;
  ~StreamTableOwner() { tls_streams = nullptr; }
};
thread_local StreamTableOwner tls_stream_owner;

StreamTable* ThreadStreamTable() {
  if (tls_streams == nullptr) {
    tls_stream_owner.table = std::make_unique<StreamTable>();
    tls_streams = tls_stream_owner.table.get();
  }
  return tls_streams;
}

TVMFFIStreamHandle* FindStreamSlot(StreamTable* t, int32_t device_type, int32_t device_id) {
  if (static_cast<uint32_t>(device_type) < kFastDeviceTypes &&
      static_cast<uint32_t>(device_id) < kFastDeviceIds) {
    return &t->fast[device_type][device_id];
  }
  auto it = t->slow.find(StreamKey(device_type, device_id));
  return it == t->slow.end() ? nullptr : &it->second;
}

// Not the last-used pair: look in the table and remember the answer.
TVMFFI_RT_NOINLINE TVMFFIStreamHandle GetStreamMiss(int32_t device_type, int32_t device_id) {
  StreamTable* t = tls_streams;
  if (t == nullptr || device_type < 0 || device_id < 0) return nullptr;
  TVMFFIStreamHandle* slot = FindStreamSlot(t, device_type, device_id);
  TVMFFIStreamHandle stream = slot != nullptr ? *slot : nullptr;
  tls_last_stream = LastStream{device_type, device_id, stream};
  return stream;
}

// ---------------------------------------------------------------------------
// Allocator
// ---------------------------------------------------------------------------

DLPackManagedTensorAllocator CurrentAllocator() {
  return EnvCurrentAllocator();
}

// ---------------------------------------------------------------------------
// Name -> pointer tables
// ---------------------------------------------------------------------------

struct SymbolTables {
  std::shared_mutex mutex;
  std::unordered_map<std::string, void*> capi;
  std::vector<std::pair<std::string, void*>> context_symbols;
  std::unordered_map<std::string, void*> system_lib;
  // The signal hook is called often: cache it outside the map.
  std::atomic<void*> check_signals{nullptr};

  static SymbolTables* Global() {
    static SymbolTables* inst = new SymbolTables();
    return inst;
  }
};

}  // namespace

// The allocator state (internal.h: TVMFFIEnvTensorAlloc, in tensor.cc, reads it inline).
__attribute__((tls_model("initial-exec"))) __thread DLPackManagedTensorAllocator tls_env_allocator =
    nullptr;
std::atomic<DLPackManagedTensorAllocator> g_env_allocator{nullptr};

void EnvAllocSetError(void* error_ctx, const char* kind, const char* message) {
  auto* ctx = static_cast<EnvAllocError*>(error_ctx);
  if (ctx == nullptr) return;
  try {
    auto* error = new std::pair<std::string, std::string>(kind != nullptr ? kind : "RuntimeError",
                                                          message != nullptr ? message : "");
    delete ctx->error;  // a second report replaces the first
    ctx->error = error;
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    // out of memory: the caller reports a generic failure
  }
}

void EnvAllocCheck(int rc, const DLManagedTensorVersioned* managed, EnvAllocError* err) {
  std::unique_ptr<std::pair<std::string, std::string>> error(err->error);
  err->error = nullptr;
  if (rc == 0 && managed != nullptr) return;  // success; a stray report is dropped
  if (rc == 0)
    Throw("RuntimeError", "TVMFFIEnvTensorAlloc: the allocator returned 0 but no tensor");
  if (error != nullptr) Throw(error->first.c_str(), error->second);
  Throw("RuntimeError", "TVMFFIEnvTensorAlloc: the allocator failed (code ", rc,
        ") without reporting an error");
}

[[noreturn]] void ThrowNoEnvAllocator() {
  Throw("RuntimeError",
        "TVMFFIEnvTensorAlloc: no tensor allocator is set (install one with "
        "TVMFFIEnvSetDLPackManagedTensorAllocator)");
}

std::vector<std::pair<std::string, void*>> EnvContextSymbols() {
  SymbolTables* t = SymbolTables::Global();
  std::shared_lock<std::shared_mutex> lock(t->mutex);
  return t->context_symbols;
}

void* EnvSystemLibSymbolLookup(std::string_view name) {
  SymbolTables* t = SymbolTables::Global();
  std::shared_lock<std::shared_mutex> lock(t->mutex);
  auto it = t->system_lib.find(std::string(name));
  return it == t->system_lib.end() ? nullptr : it->second;
}

std::vector<std::pair<std::string, void*>> EnvSystemLibSymbols() {
  SymbolTables* t = SymbolTables::Global();
  std::shared_lock<std::shared_mutex> lock(t->mutex);
  return std::vector<std::pair<std::string, void*>>(t->system_lib.begin(), t->system_lib.end());
}

}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" {

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  TVM_FFI_SAFE_CALL_BEGIN();
  if (TVMFFI_RT_UNLIKELY(static_cast<uint32_t>(device_type) >= kMaxStreamDeviceType)) {
    if (device_type < 0)
      Throw("ValueError", "TVMFFIEnvSetStream: negative device_type ", device_type);
    Throw("ValueError", "TVMFFIEnvSetStream: device_type ", device_type,
          " is out of range (a DLDeviceType, with TVM's RPC session bits at most, is below ",
          kMaxStreamDeviceType, ")");
  }
  if (device_id < 0) Throw("ValueError", "TVMFFIEnvSetStream: negative device_id ", device_id);
  StreamTable* t = ThreadStreamTable();
  TVMFFIStreamHandle* slot = FindStreamSlot(t, device_type, device_id);
  if (slot == nullptr) slot = &t->slow[StreamKey(device_type, device_id)];
  if (opt_out_original_stream != nullptr) *opt_out_original_stream = *slot;
  *slot = stream;
  tls_last_stream = LastStream{device_type, device_id, stream};
  TVM_FFI_SAFE_CALL_END();
}

TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  if (TVMFFI_RT_LIKELY(tls_last_stream.device_type == device_type &&
                       tls_last_stream.device_id == device_id)) {
    return tls_last_stream.stream;
  }
  return GetStreamMiss(device_type, device_id);  // never throws: lookups only
}

int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator) {
  DLPackManagedTensorAllocator before = CurrentAllocator();
  if (write_to_global_context != 0) {
    g_env_allocator.store(allocator, std::memory_order_release);
  } else {
    tls_env_allocator = allocator;
  }
  if (opt_out_original_allocator != nullptr) *opt_out_original_allocator = before;
  return 0;
}

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) {
  return CurrentAllocator();
}

// TVMFFIEnvTensorAlloc is in tensor.cc: the import of its result is inlined there.

int TVMFFIEnvCheckSignals(void) {
  void* hook = SymbolTables::Global()->check_signals.load(std::memory_order_acquire);
  if (hook == nullptr) return 0;
  const uint64_t raises = RaiseCount();
  int rc = reinterpret_cast<int (*)(void)>(hook)();
  if (TVMFFI_RT_UNLIKELY(rc != 0)) RaiseIfSilent(raises, rc, "the TVMFFIEnvCheckSignals hook");
  return rc;
}

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(name, "TVMFFIEnvRegisterCAPI", "name");
  SymbolTables* t = SymbolTables::Global();
  std::unique_lock<std::shared_mutex> lock(t->mutex);
  if (symbol == nullptr) {
    t->capi.erase(name);
  } else {
    t->capi[name] = symbol;
  }
  if (std::strcmp(name, "TVMFFIEnvCheckSignals") == 0) {
    t->check_signals.store(symbol, std::memory_order_release);
  }
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx, const char* func_name,
                                  TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(library_ctx, "TVMFFIEnvModLookupFromImports", "library_ctx");
  CheckNotNull(func_name, "TVMFFIEnvModLookupFromImports", "func_name");
  CheckNotNull(out, "TVMFFIEnvModLookupFromImports", "out");
  return ModLookupFromImportsImpl(library_ctx, func_name, out);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(name, "TVMFFIEnvModRegisterContextSymbol", "name");
  SymbolTables* t = SymbolTables::Global();
  std::unique_lock<std::shared_mutex> lock(t->mutex);
  for (auto& kv : t->context_symbols) {
    if (kv.first == name) {
      kv.second = symbol;
      return 0;
    }
  }
  t->context_symbols.emplace_back(name, symbol);
  TVM_FFI_SAFE_CALL_END();
}

int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol) {
  TVM_FFI_SAFE_CALL_BEGIN();
  CheckNotNull(name, "TVMFFIEnvModRegisterSystemLibSymbol", "name");
  SymbolTables* t = SymbolTables::Global();
  std::unique_lock<std::shared_mutex> lock(t->mutex);
  t->system_lib[name] = symbol;
  TVM_FFI_SAFE_CALL_END();
}

}  // extern "C"

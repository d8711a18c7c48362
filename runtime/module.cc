/*
 * Modules: shared libraries loaded with dlopen, the system library, imports
 * and TVMFFIEnvModLookupFromImports (the `ffi.Module*` global functions are
 * in module_globals.cc).
 *
 * Lifetime design (documented in tvm/ffi/extra/module.h):
 *  - Libraries are opened with RTLD_NODELETE and never unmapped, so code,
 *    deleters and static data of a library stay valid for the whole process.
 *  - There is one Module per loaded library (keyed by the dlopen handle), and
 *    the loader keeps a reference to it forever. The `__tvm_ffi__library_ctx`
 *    pointer written into the library therefore never dangles, and the
 *    borrowed handles TVMFFIEnvModLookupFromImports returns (which generated
 *    code caches in its own statics) stay valid too. Functions taken from a
 *    module hold nothing of it: they only call into code that is never
 *    unmapped, so the function cache of a module creates no reference cycle.
 *  - Before writing `__tvm_ffi__library_ctx` (or a registered context symbol)
 *    the loader checks the target is writable pointer-sized data of the
 *    library (UnwritableSlot); a library that defines one otherwise is
 *    refused with a RuntimeError naming it, and nothing is written.
 */
#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/details/symbol_names.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include "elf_check.h"
#include "internal.h"
#include "module_internal.h"

namespace tvmffi {
namespace rt {
namespace module_detail {

using ::tvm::ffi::detail::kSymbolDocPrefix;
using ::tvm::ffi::detail::kSymbolFuncPrefix;
using ::tvm::ffi::detail::kSymbolLibraryBin;
using ::tvm::ffi::detail::kSymbolLibraryCtx;
using ::tvm::ffi::detail::kSymbolMetadataPrefix;
using ::tvm::ffi::detail::kSymbolWritesPrefix;

// Kind strings: static storage (ModuleObject::kind() hands out the pointer).
constexpr const char* kKindLibrary = "library";
constexpr const char* kKindSystem = "system";

struct ModuleImpl;

using ::tvm::ffi::Any;
using ::tvm::ffi::Array;
using ::tvm::ffi::Function;
using ::tvm::ffi::Module;
using ::tvm::ffi::ModuleObj;
using ::tvm::ffi::Optional;
using ::tvm::ffi::String;
using ObjectUnsafe = ::tvm::ffi::detail::ObjectUnsafe;

// The object behind a Module handle made by this loader: a ModuleObj (the
// vtable, the header, imports_, a private slot), whose virtual methods code
// built against either side's headers calls, then what is private to this
// file. Modules of other kinds (TVM's codegen modules, a host's subclass)
// are ModuleObjs too and are reached through the virtual methods only. Not in
// an anonymous namespace, where the compiler could take it for ModuleObj's
// only subclass and devirtualize calls made on other code's modules.
struct ModuleObject final : ModuleObj {
  const char* kind_ = nullptr;
  ModuleImpl* impl = nullptr;

  ~ModuleObject();
  const char* kind() const final { return kind_; }
  int GetPropertyMask() const final { return Module::kRunnable; }
  Optional<Function> GetFunction(const String& name) final;
  bool ImplementsFunction(const String& name) final;
  Optional<String> GetFunctionDoc(const String& name) final;
  Optional<String> GetFunctionMetadata(const String& name) final;
  void WriteToFile(const String&, const String&) const final {
    Throw("RuntimeError", "Module[", kind_, "] does not support WriteToFile");
  }
  Array<String> GetWriteFormats() const final { return Array<String>(); }
  ::tvm::ffi::Bytes SaveToBytes() const final {
    Throw("RuntimeError", "Module[", kind_, "] does not support SaveToBytes");
  }
  String InspectSource(const String&) const final { return String(); }  // keeps no source
  void ImportModule(const Module& other) final;
  void ClearImports() final;
};

struct ModuleImpl {
  std::string path;           // as given to the loader ("" for the system library)
  void* dl_handle = nullptr;  // NULL for the system library
  const void* link_map = nullptr;
  std::string symbol_prefix;          // system library only
  std::vector<std::string> exported;  // function names, from the ELF file (library only)

  std::mutex mu;
  std::unordered_map<std::string, TVMFFIObject*> funcs;         // own functions (strong refs)
  std::unordered_map<std::string, TVMFFIObject*> import_cache;  // for LookupFromImports

  ~ModuleImpl() {
    for (auto& kv : funcs) DecRef(kv.second);
    for (auto& kv : import_cache) DecRef(kv.second);
  }
};

ModuleObject::~ModuleObject() {
  delete impl;
}

// The C++ object of any module handle (the header sits after the vtable pointer).
ModuleObj* Obj(TVMFFIObject* mod) {
  return ::tvm::ffi::details::ObjectUnsafe::RawObjectPtrFromUnowned<ModuleObj>(mod);
}
TVMFFIObject* Handle(const ::tvm::ffi::Object* mod) {
  return ::tvm::ffi::detail::ObjectUnsafe::GetHeader(mod);
}
// Ours, as a C++ object (the header sits after the vtable pointer, as in ModuleObj).
ModuleObject* Ours(TVMFFIObject* mod) {
  return static_cast<ModuleObject*>(reinterpret_cast<::tvm::ffi::Object*>(mod));
}

void ModuleDeleter(void* self, int flags) {
  ModuleObject* m = Ours(static_cast<TVMFFIObject*>(self));
  if (flags & kTVMFFIObjectDeleterFlagBitMaskStrong) m->~ModuleObject();
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) FreeObjectMemory(m);
}

// Whether this loader made the module (else: a ModuleObj subclass of other code).
bool IsOurs(TVMFFIObject* mod) {
  return mod->deleter == ModuleDeleter;
}

TVMFFIObject* NewModule(const char* kind, std::unique_ptr<ModuleImpl> impl) {
  void* mem = TVMFFI_RT_MALLOC(sizeof(ModuleObject));
  if (mem == nullptr) throw std::bad_alloc();
  ModuleObject* m;
  try {
    m = new (mem) ModuleObject();  // allocates the empty import list
  } catch (...) {
    FreeObjectMemory(mem);
    throw;
  }
  TVMFFIObject* obj = InitObjectHeader(Handle(m), kTVMFFIModule, ModuleDeleter);
  m->kind_ = kind;
  m->impl = impl.release();
  return obj;
}

ModuleImpl* Impl(TVMFFIObject* mod) {
  return Ours(mod)->impl;
}
const std::string& LibraryPath(TVMFFIObject* mod) {
  return Impl(mod)->path;
}
bool IsSystem(TVMFFIObject* mod) {
  return Ours(mod)->kind_ == kKindSystem;
}

// A readable name of a module for messages.
std::string Describe(TVMFFIObject* mod) {
  if (!IsOurs(mod)) return Concat("Module[", Obj(mod)->kind(), "]");
  ModuleImpl* impl = Impl(mod);
  if (IsSystem(mod)) {
    return impl->symbol_prefix.empty() ? std::string("SystemLib")
                                       : Concat("SystemLib(prefix=\"", impl->symbol_prefix, "\")");
  }
  return Concat("`", impl->path, "`");
}

// ---------------------------------------------------------------------------
// Symbol lookup
// ---------------------------------------------------------------------------

// dlsym searches the library's whole dependency tree; keep only symbols that
// the library itself defines (a linked-in kernel library may define the same
// names). Also require a function symbol when `want_function` is set.
void* OwnSymbol(ModuleImpl* impl, const std::string& name, bool want_function) {
  dlerror();
  void* addr = dlsym(impl->dl_handle, name.c_str());
  if (addr == nullptr) return nullptr;
  Dl_info info;
  void* extra = nullptr;
  if (dladdr1(addr, &info, &extra, RTLD_DL_LINKMAP) == 0 || extra != impl->link_map) {
    return nullptr;
  }
  if (want_function) {
    void* sym_entry = nullptr;
    if (dladdr1(addr, &info, &sym_entry, RTLD_DL_SYMENT) != 0 && sym_entry != nullptr) {
      int type = static_cast<const ElfW(Sym)*>(sym_entry)->st_info & 0xf;  // ST_TYPE
      if (type != STT_FUNC && type != STT_GNU_IFUNC) return nullptr;
    }
  }
  return addr;
}

// The ELF size of the data symbol at `addr` (0 when the loader cannot tell).
uint64_t SymbolSize(const void* addr) {
  Dl_info info;
  void* sym_entry = nullptr;
  if (dladdr1(addr, &info, &sym_entry, RTLD_DL_SYMENT) == 0 || sym_entry == nullptr ||
      info.dli_saddr != addr) {
    return 0;
  }
  return static_cast<const ElfW(Sym)*>(sym_entry)->st_size;
}

// A symbol `<kind_prefix><name>` (the system library also tries the symbol prefix).
void* PrefixedSymbol(TVMFFIObject* mod, const char* kind_prefix, const std::string& name) {
  ModuleImpl* impl = Impl(mod);
  if (!IsSystem(mod)) return OwnSymbol(impl, kind_prefix + name, true);
  if (!impl->symbol_prefix.empty()) {
    if (void* p = EnvSystemLibSymbolLookup(kind_prefix + impl->symbol_prefix + name)) return p;
  }
  return EnvSystemLibSymbolLookup(kind_prefix + name);
}

// Names that start with '_' would reach the loader's special symbols
// (`__tvm_ffi__library_ctx` is data, not a function): never functions.
bool IsReservedName(const std::string& name) {
  return !::tvm::ffi::detail::IsFunctionName(name);
}

std::vector<std::string> ListFunctionNames(TVMFFIObject* mod) {
  if (!IsOurs(mod)) return {};  // another kind's module: no symbol table to read
  ModuleImpl* impl = Impl(mod);
  if (!IsSystem(mod)) return impl->exported;
  std::vector<std::string> names;
  const std::string p1 = std::string(kSymbolFuncPrefix) + impl->symbol_prefix;
  for (const auto& kv : EnvSystemLibSymbols()) {
    std::string_view s = kv.first;
    bool system_prefixed = !impl->symbol_prefix.empty() && s.substr(0, p1.size()) == p1;
    std::string_view rest = ::tvm::ffi::detail::ExportedFunctionName(
        s, system_prefixed ? std::string_view(p1) : std::string_view(kSymbolFuncPrefix));
    if (!rest.empty()) names.emplace_back(rest);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

// Serialises every change of an import list the runtime makes (and its
// reads), so that two concurrent imports cannot form a cycle. Code built
// against upstream's headers that reads imports() inline takes no lock, as
// upstream's does not.
std::mutex& ImportMutex() {
  static std::mutex* m = new std::mutex();
  return *m;
}

// Appends the modules of `mod`'s import list (each with a new reference);
// ImportMutex held by the caller.
void SnapshotImportsLocked(TVMFFIObject* mod, ImportList* out) {
  for (const Any& item : ModuleObj::InternalUnsafe::Imports(Obj(mod))) {
    if (item.type_index() != kTVMFFIModule) continue;  // only modules are imported
    TVMFFIObject* m = ::tvm::ffi::detail::AnyUnsafe::TVMFFIAnyPtrFromAny(item)->v_obj;
    IncRef(m);
    out->mods.push_back(m);
  }
}

void SnapshotImports(TVMFFIObject* mod, ImportList* out) {
  std::lock_guard<std::mutex> lock(ImportMutex());
  SnapshotImportsLocked(mod, out);
}

// ---------------------------------------------------------------------------
// Module operations (throw Error; callers are wrapped in safe calls)
// ---------------------------------------------------------------------------

// The reference an Optional<Function> holds, released to the caller (NULL if empty).
TVMFFIObject* ReleaseFunction(Optional<Function> f) {
  if (!f.has_value()) return nullptr;
  Function fn = *std::move(f);
  return ::tvm::ffi::detail::ObjectUnsafe::MoveObjectRefToTVMFFIObjectPtr(std::move(fn));
}

/*! \brief A new reference to the function `name` of one of our modules itself, or NULL. */
TVMFFIObject* GetOwnFunction(TVMFFIObject* mod, const std::string& name) {
  if (IsReservedName(name)) return nullptr;
  ModuleImpl* impl = Impl(mod);
  {
    std::lock_guard<std::mutex> lock(impl->mu);
    auto it = impl->funcs.find(name);
    if (it != impl->funcs.end()) {
      IncRef(it->second);
      return it->second;
    }
  }
  if (void* sym = PrefixedSymbol(mod, kSymbolFuncPrefix, name)) {
    // The runtime's trampoline calls the symbol with a NULL handle, as a
    // direct call would; the function object and its deleter live here.
    TVMFFIObjectHandle f = nullptr;
    if (TVMFFIFunctionCreate(nullptr, reinterpret_cast<TVMFFISafeCallType>(sym), nullptr, &f) !=
        0) {
      ThrowRaised(-1);
    }
    auto* fobj = static_cast<TVMFFIObject*>(f);
    std::lock_guard<std::mutex> lock(impl->mu);
    std::pair<decltype(impl->funcs)::iterator, bool> ins;
    try {
      ins = impl->funcs.emplace(name, fobj);
    } catch (...) {
      DecRef(fobj);  // out of memory: the new function must not leak
      throw;
    }
    if (!ins.second) {
      // Another thread won the race: keep one object per name.
      DecRef(fobj);
      fobj = ins.first->second;
    }
    IncRef(fobj);
    return fobj;
  }
  return nullptr;
}

/*!
 * \brief A new reference to function `name`, or NULL: the module's own (its
 *        virtual GetFunction(name) for a module of another kind), then with
 *        query_imports its imports', depth first in import order.
 */
TVMFFIObject* GetFunction(TVMFFIObject* mod, const std::string& name, bool query_imports) {
  TVMFFIObject* f =
      IsOurs(mod) ? GetOwnFunction(mod, name) : ReleaseFunction(Obj(mod)->GetFunction(name));
  if (f != nullptr) return f;
  if (query_imports) {
    ImportList imports;
    SnapshotImports(mod, &imports);
    for (TVMFFIObject* m : imports.mods) {
      if (TVMFFIObject* found = GetFunction(m, name, true)) return found;
    }
  }
  return nullptr;
}

// Whether the module itself (not its imports) has `name`: for ours, without
// creating the Function; for another kind, its virtual ImplementsFunction.
bool HasOwnFunction(TVMFFIObject* mod, const std::string& name) {
  if (!IsOurs(mod)) return Obj(mod)->ImplementsFunction(name);
  if (IsReservedName(name)) return false;
  ModuleImpl* impl = Impl(mod);
  {
    std::lock_guard<std::mutex> lock(impl->mu);
    if (impl->funcs.count(name) != 0) return true;
  }
  return PrefixedSymbol(mod, kSymbolFuncPrefix, name) != nullptr;
}

bool ImplementsFunction(TVMFFIObject* mod, const std::string& name, bool query_imports) {
  if (HasOwnFunction(mod, name)) return true;
  if (query_imports) {
    ImportList imports;
    SnapshotImports(mod, &imports);
    for (TVMFFIObject* m : imports.mods) {
      if (ImplementsFunction(m, name, true)) return true;
    }
  }
  return false;
}

// Calls a `__tvm_ffi__metadata_<name>` / `__tvm_ffi__doc_<name>` getter: true
// and an owned String in *out when the module has one.
bool GetFunctionText(TVMFFIObject* mod, const char* kind_prefix, const std::string& name,
                     bool query_imports, TVMFFIAny* out) {
  const bool bound = std::strcmp(kind_prefix, kSymbolWritesPrefix) == 0;
  if (!IsOurs(mod)) {
    // Another kind of module: its virtual doc / metadata getters (it has no
    // writes declarations), then its imports below.
    if (!bound) {
      ModuleObj* obj = Obj(mod);
      Optional<String> text = std::strcmp(kind_prefix, kSymbolDocPrefix) == 0
                                  ? obj->GetFunctionDoc(name)
                                  : obj->GetFunctionMetadata(name);
      if (text.has_value()) {
        *out = ::tvm::ffi::detail::AnyUnsafe::MoveAnyToTVMFFIAny(Any(*std::move(text)));
        return true;
      }
    }
  } else if (IsReservedName(name)) {
    return false;
  } else if (void* sym = PrefixedSymbol(mod, kind_prefix, name)) {
    auto getter = reinterpret_cast<TVMFFISafeCallType>(sym);
    TVMFFIAny result;
    ::tvm::ffi::detail::SetAnyNone(&result);
    int rc = getter(nullptr, nullptr, 0, &result);
    if (rc != 0) ThrowRaised(rc);
    if (result.type_index != kTVMFFIStr && result.type_index != kTVMFFISmallStr) {
      std::string got = TypeIndexToKey(result.type_index);
      AnyRelease(&result);
      Throw("TypeError", "Module ", Describe(mod), ": `", kind_prefix, name, "` returned `", got,
            "`, expected a str");
    }
    *out = result;
    return true;
  }
  // A writes declaration belongs to the function beside it: a module that
  // has the function itself answers for it, declared or not; only a module
  // without it asks its imports, in GetFunction's order (issue #43: a
  // module's function must not get an imported namesake's declaration, which
  // would let a writer receive read-only memory). Docs and metadata keep
  // upstream's lookup (the module, then its imports).
  if (query_imports && !(bound && HasOwnFunction(mod, name))) {
    ImportList imports;
    SnapshotImports(mod, &imports);
    for (TVMFFIObject* m : imports.mods) {
      if (GetFunctionText(m, kind_prefix, name, true, out)) return true;
    }
  }
  return false;
}

// The indices of a `__tvm_ffi__writes_<name>` answer, strictly "[i,j,...]"
// (ASCII digits, commas, optional spaces), ascending and distinct after sorting;
// ValueError naming the module and the function otherwise.
std::vector<int64_t> ParseWrites(TVMFFIObject* mod, const std::string& name,
                                 std::string_view text) {
  auto bad = [&](const char* why) {
    Throw("ValueError", "Module ", Describe(mod), ": `", kSymbolWritesPrefix, name, "` returned \"",
          std::string(text.substr(0, 64)), "\": ", why,
          " (expected a JSON array of argument indices such as [0,2])");
  };
  std::vector<int64_t> out;
  size_t pos = 0;
  auto skip_space = [&] {
    while (pos < text.size() && text[pos] == ' ') ++pos;
  };
  skip_space();
  if (pos >= text.size() || text[pos] != '[') bad("not a JSON array");
  ++pos;
  skip_space();
  if (pos < text.size() && text[pos] == ']') {
    ++pos;
  } else {
    for (;;) {
      skip_space();
      if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') bad("an item is not an index");
      int64_t v = 0;
      for (; pos < text.size() && text[pos] >= '0' && text[pos] <= '9'; ++pos) {
        if (v > (int64_t{1} << 31)) bad("an index is out of range");
        v = v * 10 + (text[pos] - '0');
      }
      out.push_back(v);
      skip_space();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        break;
      }
      bad("malformed array");
    }
  }
  skip_space();
  if (pos != text.size()) bad("text after the array");
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end()) bad("an index is listed twice");
  return out;
}

// True when `target` is `root` or reachable through imports from it;
// ImportMutex held by the caller (so the lists cannot change meanwhile).
bool ReachableThroughImportsLocked(TVMFFIObject* root, TVMFFIObject* target) {
  std::unordered_set<TVMFFIObject*> seen;
  std::vector<TVMFFIObject*> stack{root};
  ImportList keep;  // the references the walk holds
  while (!stack.empty()) {
    TVMFFIObject* m = stack.back();
    stack.pop_back();
    if (m == target) return true;
    if (!seen.insert(m).second) continue;
    size_t before = keep.mods.size();
    SnapshotImportsLocked(m, &keep);
    for (size_t i = before; i < keep.mods.size(); ++i) stack.push_back(keep.mods[i]);
  }
  return false;
}

// Appends `other` to `mod`'s import list (ModuleObj's default ImportModule and
// ours); RuntimeError when that would close a cycle.
void AppendImport(TVMFFIObject* mod, const Module& other) {
  TVMFFIObject* o = ::tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(other);
  std::lock_guard<std::mutex> import_lock(ImportMutex());
  if (ReachableThroughImportsLocked(o, mod)) {
    Throw("RuntimeError", "Module ", Describe(mod), " cannot import ", Describe(o),
          ": that would create an import cycle");
  }
  ModuleObj::InternalUnsafe::Imports(Obj(mod)).push_back(other);
}

// Drops every import (and, for ours, the lookups cached from them); the
// references are released outside the locks.
void DropImports(TVMFFIObject* mod) {
  Array<Any> imports;
  std::unordered_map<std::string, TVMFFIObject*> cache;
  {
    std::lock_guard<std::mutex> import_lock(ImportMutex());
    std::swap(imports, ModuleObj::InternalUnsafe::Imports(Obj(mod)));
    if (IsOurs(mod)) {
      ModuleImpl* impl = Impl(mod);
      std::lock_guard<std::mutex> lock(impl->mu);
      cache.swap(impl->import_cache);
    }
  }
  for (auto& kv : cache) DecRef(kv.second);
}

// ModuleObject's virtual methods: what code built against either side's
// headers calls on a module of this loader (the module itself, no imports).
Optional<Function> ModuleObject::GetFunction(const String& name) {
  TVMFFIObject* f = GetOwnFunction(Handle(this), name);
  if (f == nullptr) return Optional<Function>();
  return ObjectUnsafe::ObjectRefFromObjectPtr<Function>(
      ObjectUnsafe::ObjectPtrFromOwned<::tvm::ffi::Object>(f));
}

bool ModuleObject::ImplementsFunction(const String& name) {
  return HasOwnFunction(Handle(this), name);
}

Optional<String> OwnText(TVMFFIObject* mod, const char* kind_prefix, const String& name) {
  TVMFFIAny text;
  if (!GetFunctionText(mod, kind_prefix, name, /*query_imports=*/false, &text)) {
    return Optional<String>();
  }
  return ::tvm::ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&text).cast<String>();
}

Optional<String> ModuleObject::GetFunctionDoc(const String& name) {
  return OwnText(Handle(this), kSymbolDocPrefix, name);
}

Optional<String> ModuleObject::GetFunctionMetadata(const String& name) {
  return OwnText(Handle(this), kSymbolMetadataPrefix, name);
}

void ModuleObject::ImportModule(const Module& other) {
  AppendImport(Handle(this), other);
}

void ModuleObject::ClearImports() {
  DropImports(Handle(this));
}

std::string ExportsHint(TVMFFIObject* mod) {
  std::vector<std::string> names = ListFunctionNames(mod);
  if (names.empty()) return "; it exports no functions";
  std::string s = "; it exports: ";
  const size_t kMax = 16;
  for (size_t i = 0; i < names.size() && i < kMax; ++i) {
    if (i != 0) s += ", ";
    s += names[i];
  }
  if (names.size() > kMax) s += Concat(", ... (", names.size(), " in all)");
  return s;
}

[[noreturn]] void ThrowMissingFunction(TVMFFIObject* mod, const std::string& name,
                                       bool query_imports) {
  if (IsOurs(mod) && IsReservedName(name)) {
    Throw("AttributeError", "Module ", Describe(mod), " has no function `", name,
          "`: names that are empty or start with '_' are reserved for the loader");
  }
  std::string where;
  if (query_imports) {
    ImportList imports;
    SnapshotImports(mod, &imports);
    if (!imports.mods.empty()) where = Concat(" (nor do its ", imports.mods.size(), " imports)");
  }
  if (!IsOurs(mod)) {
    Throw("AttributeError", "Module ", Describe(mod), " has no function `", name, "`", where);
  }
  Throw("AttributeError", "Module ", Describe(mod), " has no function `", name, "`", where,
        ": symbol `", kSymbolFuncPrefix, name, "` not found", ExportsHint(mod));
}

// ---------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------

struct LoaderState {
  // Never held while calling into the dynamic loader (dlopen, dlsym, dlinfo):
  // a library constructor that loads a module while glibc's loader lock is
  // taken must not find this one held by a thread that waits in dlopen.
  std::mutex mu;
  std::unordered_map<void*, TVMFFIObject*> by_handle;     // one strong ref each, never dropped
  std::unordered_map<std::string, TVMFFIObject*> system;  // by symbol prefix, likewise

  static LoaderState* Global() {
    // Leaked on purpose: the modules it holds must outlive every static destructor.
    static LoaderState* inst = new LoaderState();
    return inst;
  }
};

void* SystemRawSymbol(ModuleImpl* impl, const std::string& name) {
  if (!impl->symbol_prefix.empty()) {
    if (void* p = EnvSystemLibSymbolLookup(impl->symbol_prefix + name)) return p;
  }
  return EnvSystemLibSymbolLookup(name);
}

// Whether [addr, addr + size) lies in memory mapped writable now: a PT_LOAD
// segment with PF_W of a loaded object, outside its PT_GNU_RELRO range (made
// read-only after relocation). An address in no loaded object (heap, stack:
// a system-library symbol registered by the program) is taken as writable.
struct WritableQuery {
  uintptr_t begin;
  uintptr_t end;
  bool in_object = false;
  bool writable = false;
};

int FindWritable(struct dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<WritableQuery*>(data);
  bool inside = false, writable = false, relro = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD && ph.p_type != PT_GNU_RELRO) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    const uintptr_t hi = lo + ph.p_memsz;
    const bool overlaps = q->begin < hi && lo < q->end;
    if (!overlaps) continue;
    if (ph.p_type == PT_GNU_RELRO) {
      relro = true;
      continue;
    }
    inside = true;
    if ((ph.p_flags & PF_W) != 0 && lo <= q->begin && q->end <= hi) writable = true;
  }
  if (!inside) return 0;
  q->in_object = true;
  q->writable = writable && !relro;
  return 1;
}

// Why the loader must not store a pointer at `addr` (the symbol `name` of
// library `where`), or "" when it may: pointer-sized data (an ELF OBJECT
// symbol of st_size sizeof(void*), aligned) in writable memory. A `.rodata`
// or RELRO symbol would crash the store; a smaller one would overwrite the
// library's neighbouring data; a function would be overwritten code.
std::string UnwritableSlot(void* addr, bool need_symbol) {
  const uintptr_t at = reinterpret_cast<uintptr_t>(addr);
  Dl_info info;
  void* sym_entry = nullptr;
  if (dladdr1(addr, &info, &sym_entry, RTLD_DL_SYMENT) != 0 && sym_entry != nullptr &&
      info.dli_saddr == addr) {
    const auto* sym = static_cast<const ElfW(Sym)*>(sym_entry);
    const int type = ELF64_ST_TYPE(sym->st_info);
    if (type != STT_OBJECT) {
      return Concat("it is not a data object (ELF symbol type ", type, ", not STT_OBJECT)");
    }
    if (sym->st_size != sizeof(void*)) {
      return Concat("it is ", sym->st_size, " bytes, not a pointer (", sizeof(void*), " bytes)");
    }
  } else if (need_symbol) {
    return "its ELF symbol cannot be read";
  }
  if (at % alignof(void*) != 0) return "its address is not pointer-aligned";
  WritableQuery q{at, at + sizeof(void*)};
  dl_iterate_phdr(&FindWritable, &q);
  if (q.in_object && !q.writable) return "it is in read-only memory (e.g. const or RELRO data)";
  return "";
}

// What the loader writes into a library before publishing its module: the
// values registered with TVMFFIEnvModRegisterContextSymbol, and the module
// handle into `__tvm_ffi__library_ctx`. Every target is checked to be
// writable pointer-sized data first; a library that defines one otherwise is
// refused (system-library entries, registered by the program itself, are
// checked for writability where the loaded objects tell).
struct SymbolWrites {
  std::vector<std::pair<void**, void*>> context;
  void** library_ctx = nullptr;

  // Resolves the addresses (for a library this calls dlsym: not under
  // LoaderState::mu); throws when one cannot take a pointer.
  void Resolve(ModuleImpl* impl, bool system, const std::string& where) {
    auto lookup = [&](const std::string& name) {
      void* addr = system ? SystemRawSymbol(impl, name) : OwnSymbol(impl, name, false);
      if (addr == nullptr) return static_cast<void**>(nullptr);
      std::string why = UnwritableSlot(addr, /*need_symbol=*/!system);
      if (!why.empty()) {
        Throw("RuntimeError", where, ": refusing to load: the loader stores a pointer in symbol `",
              name, "`, but ", why);
      }
      return static_cast<void**>(addr);
    };
    for (const auto& kv : EnvContextSymbols()) {
      if (void** addr = lookup(kv.first)) context.emplace_back(addr, kv.second);
    }
    library_ctx = lookup(kSymbolLibraryCtx);
  }
  void Apply(TVMFFIObject* mod) const {
    for (const auto& w : context) *w.first = w.second;
    if (library_ctx != nullptr) *library_ctx = mod;
  }
};

TVMFFIObject* LoadLibraryModule(const std::string& path) {
  if (path.empty()) Throw("ValueError", "Module.LoadFromFile: the path is empty");
  // Check the file before dlopen runs any of its code: a damaged file would
  // crash the loader, and a library that exports nothing is refused unloaded.
  std::vector<std::string> exported = CheckLibraryFile(path, "Module.LoadFromFile");
  // A bare name would make dlopen search the library path; we load files.
  std::string dl_path = path.find('/') == std::string::npos ? "./" + path : path;

  dlerror();
  void* handle = dlopen(dl_path.c_str(), RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
  if (handle == nullptr) {
    const char* e = dlerror();
    Throw("RuntimeError", "Module.LoadFromFile: dlopen failed for \"", path,
          "\": ", e != nullptr ? e : "unknown error");
  }
  LoaderState* st = LoaderState::Global();
  TVMFFIObject* existing = nullptr;
  {
    std::lock_guard<std::mutex> lock(st->mu);
    auto it = st->by_handle.find(handle);
    if (it != st->by_handle.end()) {
      existing = it->second;
      IncRef(existing);
    }
  }
  if (existing != nullptr) {
    // Loaded before: the same Module. Drop the extra dlopen count
    // (RTLD_NODELETE keeps the mapping regardless).
    dlclose(handle);
    return existing;
  }
  auto impl = std::make_unique<ModuleImpl>();
  impl->path = path;
  impl->dl_handle = handle;
  impl->exported = std::move(exported);
  struct link_map* lm = nullptr;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr) {
    const char* e = dlerror();
    Throw("RuntimeError", "Module.LoadFromFile: dlinfo failed for \"", path,
          "\": ", e != nullptr ? e : "unknown error");
  }
  impl->link_map = lm;
  SymbolWrites writes;
  try {
    writes.Resolve(impl.get(), /*system=*/false, Concat("Module.LoadFromFile(\"", path, "\")"));
  } catch (...) {
    dlclose(handle);  // refused (RTLD_NODELETE keeps the mapping; nothing was written)
    throw;
  }

  // The modules serialised into the library (TVM's export_library), rebuilt
  // and imported before the module is published, outside the loader's lock
  // (their loaders are other runtimes' code). Refused: nothing is published.
  const void* bin = OwnSymbol(impl.get(), kSymbolLibraryBin, false);
  uint64_t bin_size = bin != nullptr ? SymbolSize(bin) : 0;
  TVMFFIObject* fresh = NewModule(kKindLibrary, std::move(impl));
  if (bin != nullptr) {
    try {
      ImportLibraryBin(fresh, bin, bin_size, Concat("Module.LoadFromFile(\"", path, "\")"));
    } catch (...) {
      DecRef(fresh);  // never published
      throw;
    }
  }

  TVMFFIObject* existing_mod = nullptr;
  bool out_of_memory = false;
  {
    std::lock_guard<std::mutex> lock(st->mu);
    auto it = st->by_handle.find(handle);
    if (it != st->by_handle.end()) {
      existing_mod = it->second;  // another thread published it meanwhile: use that one
      IncRef(existing_mod);
    } else {
      // First load: publish the module (its one reference becomes the
      // loader's own), write the library's symbols, and add the caller's.
      try {
        st->by_handle.emplace(handle, fresh);
      } catch (...) {
        out_of_memory = true;
      }
      if (!out_of_memory) {
        writes.Apply(fresh);
        IncRef(fresh);
      }
    }
  }
  if (existing_mod != nullptr || out_of_memory) {
    DecRef(fresh);  // never published
    if (out_of_memory) throw std::bad_alloc();
    return existing_mod;
  }
  return fresh;
}

TVMFFIObject* SystemLibModule(const std::string& prefix) {
  LoaderState* st = LoaderState::Global();
  std::lock_guard<std::mutex> lock(st->mu);
  auto it = st->system.find(prefix);
  if (it == st->system.end()) {
    auto impl = std::make_unique<ModuleImpl>();
    impl->symbol_prefix = prefix;
    SymbolWrites writes;  // the system table lives in env.cc: no dlsym under the lock
    writes.Resolve(impl.get(), /*system=*/true, Concat("SystemLib(prefix=\"", prefix, "\")"));
    // Room in the table first, as for libraries: a failure must not leak the module.
    it = st->system.emplace(prefix, nullptr).first;
    TVMFFIObject* mod;
    try {
      mod = NewModule(kKindSystem, std::move(impl));
    } catch (...) {
      st->system.erase(it);
      throw;
    }
    writes.Apply(mod);
    it->second = mod;
  }
  IncRef(it->second);
  return it->second;
}

// File extension (without the dot) of the last path component, or "".
std::string Extension(const std::string& path) {
  size_t slash = path.find_last_of('/');
  size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return path.substr(dot + 1);
}

}  // namespace module_detail

using namespace module_detail;  // NOLINT(build/namespaces)

// The real lookup behind TVMFFIEnvModLookupFromImports.
int ModLookupFromImportsImpl(TVMFFIObjectHandle library_ctx, const char* func_name,
                             TVMFFIObjectHandle* out) {
  TVM_FFI_SAFE_CALL_BEGIN();
  auto* mod = static_cast<TVMFFIObject*>(library_ctx);
  if (mod->type_index != kTVMFFIModule) {
    Throw("TypeError", "TVMFFIEnvModLookupFromImports: library_ctx must be an ffi.Module, got `",
          TypeIndexToKey(mod->type_index), "` (was the library loaded by the module loader?)");
  }
  if (mod->deleter != ModuleDeleter) {
    Throw("TypeError",
          "TVMFFIEnvModLookupFromImports: library_ctx is an ffi.Module that this "
          "runtime's loader did not create");
  }
  ModuleImpl* impl = Impl(mod);
  std::string name(func_name);
  {
    std::lock_guard<std::mutex> lock(impl->mu);
    auto it = impl->import_cache.find(name);
    if (it != impl->import_cache.end()) {
      *out = it->second;
      return 0;
    }
  }
  TVMFFIObject* found = nullptr;
  {
    ImportList imports;
    SnapshotImports(mod, &imports);
    for (TVMFFIObject* m : imports.mods) {
      if ((found = GetFunction(m, name, true)) != nullptr) break;
    }
    if (found == nullptr) {
      Throw("AttributeError", "Function `", name, "` is not found in the imports of module ",
            Describe(mod), " (", imports.mods.size(), " imports)");
    }
  }
  // The cache keeps the reference: the handle handed out is borrowed.
  std::lock_guard<std::mutex> lock(impl->mu);
  auto ins = impl->import_cache.emplace(name, found);
  if (!ins.second) DecRef(found);
  *out = ins.first->second;
  TVM_FFI_SAFE_CALL_END();
}

}  // namespace rt
}  // namespace tvmffi

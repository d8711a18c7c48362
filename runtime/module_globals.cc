/*
 * The `ffi.Module*` global functions: typed C++ functions over module.cc's
 * operations; the typed machinery of function.h (the one behind
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC) checks and converts their arguments, and
 * reports errors in its usual format.
 */
#include <mutex>
#include <string>
#include <vector>

#include <tvm/ffi/container/array.h>
#include <tvm/ffi/details/symbol_names.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include "internal.h"
#include "module_internal.h"
#include "registration.h"

namespace tvmffi {
namespace rt {
namespace module_detail {
namespace {

using ::tvm::ffi::Any;
using ::tvm::ffi::Array;
using ::tvm::ffi::Function;
using ::tvm::ffi::Module;
using ::tvm::ffi::Optional;
using ::tvm::ffi::String;
using ::tvm::ffi::detail::kSymbolDocPrefix;
using ::tvm::ffi::detail::kSymbolMetadataPrefix;
using ::tvm::ffi::detail::kSymbolWritesPrefix;
using ObjectUnsafe = ::tvm::ffi::detail::ObjectUnsafe;

// The handle of a Module argument: one of ours or any other ModuleObj
// subclass (they share upstream's layout; see ModuleObject).
TVMFFIObject* Raw(const Module& mod) {
  return ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(mod);
}

// A file path without NUL bytes: the C path would silently end at the first one.
std::string PathArg(const char* fname, const String& path) {
  std::string p(path.data(), path.size());
  size_t nul = p.find('\0');
  if (nul != std::string::npos) {
    Throw("ValueError", fname, ": argument 0 (path) contains a NUL byte at offset ", nul, " (of ",
          p.size(), " bytes); a file path cannot contain NUL");
  }
  return p;
}

// A reference of type T that takes over a new reference (never NULL).
template <typename T>
T Own(TVMFFIObject* obj) {
  return ObjectUnsafe::ObjectRefFromObjectPtr<T>(
      ObjectUnsafe::ObjectPtrFromOwned<::tvm::ffi::Object>(obj));
}

Optional<Function> OwnFunction(TVMFFIObject* f) {
  if (f == nullptr) return Optional<Function>();
  return Own<Function>(f);
}

// Defines the safe-call function `Name` of the global `GlobalName`, whose body is
// the typed callable that follows: `TVMFFI_MODULE_GLOBAL(G, "ffi.X", [](...) {...});`
#define TVMFFI_MODULE_GLOBAL(Name, GlobalName, ...)                                         \
  int Name(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) noexcept {    \
    return ::tvm::ffi::detail::InvokeExportedTyped(GlobalName, __VA_ARGS__, args, num_args, \
                                                   result);                                 \
  }

// ffi.ModuleLoadFromFile(path) -> Module. Dispatches on the file extension to
// `ffi.Module.load_from_file.<ext>` when such a loader is registered; shared
// libraries (and anything else) go to the built-in `.so` loader.
TVMFFI_MODULE_GLOBAL(GModuleLoadFromFile, "ffi.ModuleLoadFromFile", [](const String& path_arg) {
  std::string path = PathArg("ffi.ModuleLoadFromFile", path_arg);
  std::string ext = Extension(path);
  if (!ext.empty() && ext != "so" && ext != "dso" && ext != "dylib" && ext != "dll") {
    if (Optional<Function> loader = Function::GetGlobal("ffi.Module.load_from_file." + ext)) {
      Any r = (*loader)(path, ext);
      if (r.type_index() != kTVMFFIModule) {
        Throw("TypeError", "ffi.Module.load_from_file.", ext, " returned `",
              TypeIndexToKey(r.type_index()), "`, expected ffi.Module");
      }
      return r.cast<Module>();
    }
  }
  return Own<Module>(LoadLibraryModule(path));
});

// ffi.Module.load_from_file.so(path, format) -> Module.
TVMFFI_MODULE_GLOBAL(GLoadSo, "ffi.Module.load_from_file.so",
                     [](const String& path, const Optional<String>&) {
                       return Own<Module>(
                           LoadLibraryModule(PathArg("ffi.Module.load_from_file.so", path)));
                     });

// ffi.ModuleGetFunction(module, name, query_imports) -> Function or None.
TVMFFI_MODULE_GLOBAL(GGetFunction, "ffi.ModuleGetFunction",
                     [](const Module& mod, const String& name, bool query_imports) {
                       return OwnFunction(GetFunction(Raw(mod), name, query_imports));
                     });

// ffi.ModuleGetFunctionRequired(module, name, query_imports) -> Function;
// AttributeError naming the function (and listing the exports) when missing.
TVMFFI_MODULE_GLOBAL(GGetFunctionRequired, "ffi.ModuleGetFunctionRequired",
                     [](const Module& mod, const String& name, bool query_imports) {
                       TVMFFIObject* f = GetFunction(Raw(mod), name, query_imports);
                       if (f == nullptr) ThrowMissingFunction(Raw(mod), name, query_imports);
                       return Own<Function>(f);
                     });

// ffi.ModuleImplementsFunction(module, name, query_imports) -> bool.
TVMFFI_MODULE_GLOBAL(GImplementsFunction, "ffi.ModuleImplementsFunction",
                     [](const Module& mod, const String& name, bool query_imports) {
                       return ImplementsFunction(Raw(mod), name, query_imports);
                     });

// ffi.ModuleGetFunctionMetadata / ffi.ModuleGetFunctionDoc(module, name,
// query_imports) -> str or None.
template <bool kDoc>
int GFunctionText(void*, const TVMFFIAny* args, int32_t num_args, TVMFFIAny* result) noexcept {
  return ::tvm::ffi::detail::InvokeExportedTyped(
      kDoc ? "ffi.ModuleGetFunctionDoc" : "ffi.ModuleGetFunctionMetadata",
      [](const Module& mod, const String& name, bool query_imports) {
        TVMFFIAny text;
        if (!GetFunctionText(Raw(mod), kDoc ? kSymbolDocPrefix : kSymbolMetadataPrefix, name,
                             query_imports, &text)) {
          return Optional<String>();
        }
        return Optional<String>(
            ::tvm::ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&text).cast<String>());
      },
      args, num_args, result);
}

// ffi.ModuleGetFunctionWrites(module, name, query_imports) -> Array<int> (the
// indices of the arguments the function writes, ascending) or None (undeclared).
TVMFFI_MODULE_GLOBAL(GGetFunctionWrites, "ffi.ModuleGetFunctionWrites",
                     [](const Module& mod, const String& name, bool query_imports) {
                       TVMFFIAny text;
                       if (!GetFunctionText(Raw(mod), kSymbolWritesPrefix, name, query_imports,
                                            &text)) {
                         return Optional<Array<int64_t>>();
                       }
                       String s =
                           ::tvm::ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&text).cast<String>();
                       const std::string_view sv(s.data(), s.size());
                       Array<int64_t> out;
                       for (int64_t i : ParseWrites(Raw(mod), name, sv)) out.push_back(i);
                       return Optional<Array<int64_t>>(out);
                     });

// The globals below call the module's virtual methods: a library module of
// this loader answers with its own, another kind of module (TVM's codegen
// modules, a host's subclass) with its overrides or ModuleObj's defaults.

// ffi.ModuleImportModule(module, other) -> None: module->ImportModule(other).
TVMFFI_MODULE_GLOBAL(GImportModule, "ffi.ModuleImportModule",
                     [](const Module& mod, const Module& other) {
                       Obj(Raw(mod))->ImportModule(other);
                     });

// ffi.ModuleClearImports(module) -> None: module->ClearImports().
TVMFFI_MODULE_GLOBAL(GClearImports, "ffi.ModuleClearImports",
                     [](const Module& mod) { Obj(Raw(mod))->ClearImports(); });

// ffi.ModuleAppendImport / ffi.ModuleDropImports(module, ...): ModuleObj's
// default ImportModule / ClearImports (the import list, under the runtime's
// import lock; a cycle is a RuntimeError). Not virtual: the defaults call them.
TVMFFI_MODULE_GLOBAL(GAppendImport, "ffi.ModuleAppendImport",
                     [](const Module& mod, const Module& other) { AppendImport(Raw(mod), other); });
TVMFFI_MODULE_GLOBAL(GDropImports, "ffi.ModuleDropImports",
                     [](const Module& mod) { DropImports(Raw(mod)); });

// ffi.ModuleGetPropertyMask(module) -> int (Module::ModulePropertyMask; a
// loaded library: runnable, 0b010).
TVMFFI_MODULE_GLOBAL(GGetPropertyMask, "ffi.ModuleGetPropertyMask",
                     [](const Module& mod) -> int64_t { return Obj(Raw(mod))->GetPropertyMask(); });

// ffi.ModuleGetWriteFormats(module) -> Array<str> (a loaded library: none).
TVMFFI_MODULE_GLOBAL(GGetWriteFormats, "ffi.ModuleGetWriteFormats",
                     [](const Module& mod) { return Obj(Raw(mod))->GetWriteFormats(); });

// ffi.ModuleInspectSource(module, format) -> str (a loaded library keeps no source: "").
TVMFFI_MODULE_GLOBAL(GInspectSource, "ffi.ModuleInspectSource",
                     [](const Module& mod, const String& format) {
                       return Obj(Raw(mod))->InspectSource(format);
                     });

// ffi.ModuleWriteToFile(module, file_name, format) (a loaded library: RuntimeError).
TVMFFI_MODULE_GLOBAL(GWriteToFile, "ffi.ModuleWriteToFile",
                     [](const Module& mod, const String& file_name, const String& format) {
                       Obj(Raw(mod))->WriteToFile(file_name, format);
                     });

// ffi.ModuleGlobalsAdd / ffi.ModuleGlobalsRemove(module): keep a module (and
// so its library) alive for the process, or stop doing so. Leaked on purpose:
// functions registered by a kept library must outlive static teardown.
std::mutex& KeptModulesMutex() {
  static auto* mu = new std::mutex();
  return *mu;
}
std::vector<Module>& KeptModules() {
  static auto* kept = new std::vector<Module>();
  return *kept;
}
TVMFFI_MODULE_GLOBAL(GGlobalsAdd, "ffi.ModuleGlobalsAdd", [](const Module& mod) {
  std::lock_guard<std::mutex> lock(KeptModulesMutex());
  for (const Module& m : KeptModules()) {
    if (m.same_as(mod)) return;
  }
  KeptModules().push_back(mod);
});
TVMFFI_MODULE_GLOBAL(GGlobalsRemove, "ffi.ModuleGlobalsRemove", [](const Module& mod) {
  Optional<Module> dropped;  // released after the lock
  {
    std::lock_guard<std::mutex> lock(KeptModulesMutex());
    std::vector<Module>& kept = KeptModules();
    for (size_t i = 0; i < kept.size(); ++i) {
      if (kept[i].same_as(mod)) {
        dropped = std::move(kept[i]);
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
    }
  }
});

// ffi.ModuleGetImports(module) -> Array<Module>.
TVMFFI_MODULE_GLOBAL(GGetImports, "ffi.ModuleGetImports", [](const Module& mod) {
  ImportList imports;
  SnapshotImports(Raw(mod), &imports);
  Array<Module> out;
  for (TVMFFIObject* m : imports.mods) {
    IncRef(m);
    out.push_back(Own<Module>(m));
  }
  return out;
});

// ffi.ModuleListFunctions(module) -> Array<str>: the names the module itself exports.
TVMFFI_MODULE_GLOBAL(GListFunctions, "ffi.ModuleListFunctions", [](const Module& mod) {
  Array<String> out;
  for (const std::string& name : ListFunctionNames(Raw(mod))) out.push_back(String(name));
  return out;
});

// ffi.ModuleGetKind(module) -> str ("library" or "system").
TVMFFI_MODULE_GLOBAL(GGetKind, "ffi.ModuleGetKind",
                     [](const Module& mod) { return String(Obj(Raw(mod))->kind()); });

// ffi.ModuleGetLibraryPath(module) -> str (the path given at load; "" for the system library).
TVMFFI_MODULE_GLOBAL(GGetLibraryPath, "ffi.ModuleGetLibraryPath", [](const Module& mod) {
  return IsOurs(Raw(mod)) ? String(LibraryPath(Raw(mod))) : String();
});

// ffi.SystemLib(symbol_prefix) -> Module: one per prefix for the process.
TVMFFI_MODULE_GLOBAL(GSystemLib, "ffi.SystemLib", [](const Optional<String>& symbol_prefix) {
  return Own<Module>(
      SystemLibModule(symbol_prefix.has_value() ? std::string(*symbol_prefix) : std::string()));
});

// ffi.ModuleVisitContextSymbols(callback): callback(name: str, value: void*) per
// TVMFFIEnvModRegisterContextSymbol entry, in registration order.
TVMFFI_MODULE_GLOBAL(GVisitContextSymbols, "ffi.ModuleVisitContextSymbols",
                     [](const Function& callback) {
                       for (const auto& kv : EnvContextSymbols()) {
                         callback(kv.first.c_str(), kv.second);
                       }
                     });

#undef TVMFFI_MODULE_GLOBAL

[[maybe_unused]] const bool kModuleGlobalsRegistered = [] {
  // ffi.Module's reflection as upstream registers it: its size (a vtable, the
  // header, imports_, a private slot), the read-only field imports_, and no
  // subclass (`__ffi_type_final__`).
  // Never throws out of this static initialiser (out of memory at load: the
  // reflection is missing and the failure recorded, as enum.cc does).
  try {
    ::tvm::ffi::reflection::ObjectDef<::tvm::ffi::ModuleObj>(::tvm::ffi::reflection::init(false))
        .def_ro("imports_", ::tvm::ffi::ModuleObj::InternalUnsafe::kImportsMember);
  } catch (const std::exception& e) {
    char what[512];
    std::snprintf(what, sizeof(what), "cannot register ffi.Module's reflection: %s", e.what());
    RecordLoadFailure(what);
  }
  RegisterBuiltinGlobal("ffi.ModuleLoadFromFile", GModuleLoadFromFile);
  RegisterBuiltinGlobal("ffi.Module.load_from_file.so", GLoadSo);
  RegisterBuiltinGlobal("ffi.ModuleGetFunction", GGetFunction);
  RegisterBuiltinGlobal("ffi.ModuleGetFunctionRequired", GGetFunctionRequired);
  RegisterBuiltinGlobal("ffi.ModuleImplementsFunction", GImplementsFunction);
  RegisterBuiltinGlobal("ffi.ModuleGetFunctionMetadata", GFunctionText<false>);
  RegisterBuiltinGlobal("ffi.ModuleGetFunctionDoc", GFunctionText<true>);
  RegisterBuiltinGlobal("ffi.ModuleGetFunctionWrites", GGetFunctionWrites);
  RegisterBuiltinGlobal("ffi.ModuleImportModule", GImportModule);
  RegisterBuiltinGlobal("ffi.ModuleGetImports", GGetImports);
  RegisterBuiltinGlobal("ffi.ModuleClearImports", GClearImports);
  RegisterBuiltinGlobal("ffi.ModuleAppendImport", GAppendImport);
  RegisterBuiltinGlobal("ffi.ModuleDropImports", GDropImports);
  RegisterBuiltinGlobal("ffi.ModuleGetPropertyMask", GGetPropertyMask);
  RegisterBuiltinGlobal("ffi.ModuleGetWriteFormats", GGetWriteFormats);
  RegisterBuiltinGlobal("ffi.ModuleInspectSource", GInspectSource);
  RegisterBuiltinGlobal("ffi.ModuleWriteToFile", GWriteToFile);
  RegisterBuiltinGlobal("ffi.ModuleGlobalsAdd", GGlobalsAdd);
  RegisterBuiltinGlobal("ffi.ModuleGlobalsRemove", GGlobalsRemove);
  RegisterBuiltinGlobal("ffi.ModuleListFunctions", GListFunctions);
  RegisterBuiltinGlobal("ffi.ModuleGetKind", GGetKind);
  RegisterBuiltinGlobal("ffi.ModuleGetLibraryPath", GGetLibraryPath);
  RegisterBuiltinGlobal("ffi.SystemLib", GSystemLib);
  RegisterBuiltinGlobal("ffi.ModuleVisitContextSymbols", GVisitContextSymbols);
  return true;
}();

}  // namespace
}  // namespace module_detail
}  // namespace rt
}  // namespace tvmffi

/*
 * What module.cc (the loader, imports, lookups) shares with module_globals.cc
 * (the `ffi.Module*` global functions). Private to the runtime.
 */
#ifndef TVMFFI_RUNTIME_MODULE_INTERNAL_H_
#define TVMFFI_RUNTIME_MODULE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <vector>

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include "internal.h"

// The runtime's access to any module's import list (ModuleObj::imports_).
struct tvm::ffi::ModuleObj::InternalUnsafe {
  static ::tvm::ffi::Array<::tvm::ffi::Any>& Imports(ModuleObj* mod) noexcept {
    return mod->imports_;
  }
  // The member itself, for ffi.Module's reflected field (module_globals.cc).
  static constexpr auto kImportsMember = &ModuleObj::imports_;
};

namespace tvmffi {
namespace rt {
namespace module_detail {

// The C++ object of any module handle (the header sits after the vtable pointer).
::tvm::ffi::ModuleObj* Obj(TVMFFIObject* mod);
// Whether this runtime's loader made the module (else: another ModuleObj subclass).
bool IsOurs(TVMFFIObject* mod);
// The path a library of ours was loaded from ("" for the system library).
const std::string& LibraryPath(TVMFFIObject* mod);

// Snapshot of the imports, each with a new reference (released by the holder).
struct ImportList {
  std::vector<TVMFFIObject*> mods;
  ImportList() = default;
  ImportList(const ImportList&) = delete;
  ImportList& operator=(const ImportList&) = delete;
  ~ImportList() {
    for (TVMFFIObject* m : mods) DecRef(m);
  }
};
// Appends the modules `mod` imports, each with a new reference.
void SnapshotImports(TVMFFIObject* mod, ImportList* out);
// The names a library of ours exports (empty for another kind of module).
std::vector<std::string> ListFunctionNames(TVMFFIObject* mod);

// A new reference to function `name` (the module's own, then with
// query_imports its imports', depth first), or NULL.
TVMFFIObject* GetFunction(TVMFFIObject* mod, const std::string& name, bool query_imports);
bool ImplementsFunction(TVMFFIObject* mod, const std::string& name, bool query_imports);
// AttributeError naming the module and the function (and a library's exports).
[[noreturn]] void ThrowMissingFunction(TVMFFIObject* mod, const std::string& name,
                                       bool query_imports);
// The text of a `<kind_prefix><name>` getter (doc, metadata, writes): true and
// an owned String in *out when found.
bool GetFunctionText(TVMFFIObject* mod, const char* kind_prefix, const std::string& name,
                     bool query_imports, TVMFFIAny* out);
// The indices of a writes declaration; ValueError when malformed.
std::vector<int64_t> ParseWrites(TVMFFIObject* mod, const std::string& name, std::string_view text);
// ModuleObj's default ImportModule / ClearImports, under the import lock.
void AppendImport(TVMFFIObject* mod, const ::tvm::ffi::Module& other);
void DropImports(TVMFFIObject* mod);

// Rebuilds the modules serialised in a library's `__tvm_ffi__library_bin`
// (`bin`; `symbol_size` its ELF size, 0 if unknown) and imports them as its
// import tree says; RuntimeError naming `where` when malformed or a kind has
// no `ffi.Module.load_from_bytes.<kind>` loader (module_bin.cc).
void ImportLibraryBin(TVMFFIObject* lib, const void* bin, uint64_t symbol_size,
                      const std::string& where);

// New references to the module of a library file, and to the system library.
TVMFFIObject* LoadLibraryModule(const std::string& path);
TVMFFIObject* SystemLibModule(const std::string& prefix);
// File extension (without the dot) of the last path component, or "".
std::string Extension(const std::string& path);

}  // namespace module_detail
}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_MODULE_INTERNAL_H_

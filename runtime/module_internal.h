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

namespace tvmffi {
namespace rt {

// ModuleObj's layout and virtual methods, declared privately: the runtime's
// modules derive from this, not from ModuleObj itself, so that libtvmffi's
// objects carry no copy of ModuleObj's vtable, typeinfo or inline members (upstream's names,
// which libtvmffi_upstream_cxx exports; a binary that links the runtime's
// objects beside that definition would otherwise hide them). Same slots, in
// the same order, with the same signatures; the static_asserts below pin the
// data members to ModuleObj's. Not in an anonymous namespace: the compiler
// would then take ModuleObject for its only subclass and devirtualize calls
// made on other code's modules.
class ModuleBase : public ::tvm::ffi::Object {
 public:
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const = 0;
  virtual ::tvm::ffi::Optional<::tvm::ffi::Function> GetFunction(
      const ::tvm::ffi::String& name) = 0;
  virtual bool ImplementsFunction(const ::tvm::ffi::String& name) = 0;
  virtual ::tvm::ffi::Optional<::tvm::ffi::String> GetFunctionDoc(
      const ::tvm::ffi::String& name) = 0;
  virtual ::tvm::ffi::Optional<::tvm::ffi::String> GetFunctionMetadata(
      const ::tvm::ffi::String& name) = 0;
  virtual void WriteToFile(const ::tvm::ffi::String& file_name,
                           const ::tvm::ffi::String& format) const = 0;
  virtual ::tvm::ffi::Array<::tvm::ffi::String> GetWriteFormats() const = 0;
  virtual ::tvm::ffi::Bytes SaveToBytes() const = 0;
  virtual ::tvm::ffi::String InspectSource(const ::tvm::ffi::String& format) const = 0;
  virtual void ImportModule(const ::tvm::ffi::Module& other) = 0;
  virtual void ClearImports() = 0;

  ::tvm::ffi::Array<::tvm::ffi::Any> imports_;  // ModuleObj::imports_
  ::tvm::ffi::ObjectRef lookup_cache_;          // ModuleObj's private slot

  // ModuleObj's type identity, for ffi.Module's reflection (module_globals.cc).
  static constexpr int32_t _type_index = ::tvm::ffi::TypeIndex::kTVMFFIModule;
  static constexpr bool _type_mutable = true;
  static constexpr bool _type_final = true;
  static constexpr uint32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(::tvm::ffi::StaticTypeKey::kTVMFFIModule, ModuleBase,
                                     ::tvm::ffi::Object);
};

namespace module_detail {

// The C++ object of any module handle (the header sits after the vtable
// pointer), seen through ModuleBase.
ModuleBase* Obj(TVMFFIObject* mod);
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

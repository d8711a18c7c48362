/*
 * libtvmffi_upstream_cxx: upstream's out-of-line ModuleObj / Module members,
 * implemented over libtvmffi's C ABI (its `ffi.Module*` global functions).
 *
 * Every module in the process has upstream's ModuleObj layout, the ones
 * libtvmffi's loader makes included (tvm/ffi/extra/module.h): LoadFromFile
 * hands the runtime's module object itself to the host, whose virtual calls
 * land in the runtime's overrides. The non-virtual lookups and the import
 * list defaults go through the runtime's globals, so that imports made from
 * either side are one list under one lock.
 */
#include "upstream_module.h"

#include <tvm/ffi/error.h>

#include <utility>

namespace tvm {
namespace ffi {
namespace {

// The runtime's module globals, looked up once and kept for the process
// (never released: no exit-order hazard with the runtime's registry).
struct RuntimeGlobals {
  Function load = Function::GetGlobalRequired("ffi.ModuleLoadFromFile");
  Function get_function = Function::GetGlobalRequired("ffi.ModuleGetFunction");
  Function implements = Function::GetGlobalRequired("ffi.ModuleImplementsFunction");
  Function get_doc = Function::GetGlobalRequired("ffi.ModuleGetFunctionDoc");
  Function get_metadata = Function::GetGlobalRequired("ffi.ModuleGetFunctionMetadata");
  Function append_import = Function::GetGlobalRequired("ffi.ModuleAppendImport");
  Function drop_imports = Function::GetGlobalRequired("ffi.ModuleDropImports");
  Function visit_context_symbols = Function::GetGlobalRequired("ffi.ModuleVisitContextSymbols");

  static const RuntimeGlobals& Get() {
    static const RuntimeGlobals* g = new RuntimeGlobals();
    return *g;
  }
};

// A module argument for the runtime's globals (borrowed).
AnyView Self(ModuleObj* mod) {
  TVMFFIAny v;
  v.type_index = TypeIndex::kTVMFFIModule;
  v.zero_padding = 0;
  v.v_obj = detail::ObjectUnsafe::GetHeader(mod);
  return AnyView::CopyFromTVMFFIAny(v);
}

}  // namespace

// ---------------------------------------------------------------------------
// ModuleObj: the defaults of its virtual methods and its non-virtual members.
// ---------------------------------------------------------------------------

int ModuleObj::GetPropertyMask() const {
  return 0;
}

bool ModuleObj::ImplementsFunction(const String& name) {
  return GetFunction(name).has_value();
}

Optional<String> ModuleObj::GetFunctionDoc(const String&) {
  return std::nullopt;
}

Optional<String> ModuleObj::GetFunctionMetadata(const String&) {
  return std::nullopt;
}

void ModuleObj::WriteToFile(const String&, const String&) const {
  TVM_FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support WriteToFile";
}

Array<String> ModuleObj::GetWriteFormats() const {
  return Array<String>();
}

Bytes ModuleObj::SaveToBytes() const {
  TVM_FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support SaveToBytes";
}

String ModuleObj::InspectSource(const String&) const {
  return String();
}

void ModuleObj::ImportModule(const Module& other) {
  RuntimeGlobals::Get().append_import(Self(this), other);
}

void ModuleObj::ClearImports() {
  RuntimeGlobals::Get().drop_imports(Self(this));
}

Optional<Function> ModuleObj::GetFunction(const String& name, bool query_imports) {
  return RuntimeGlobals::Get()
      .get_function(Self(this), name, query_imports)
      .cast<Optional<Function>>();
}

bool ModuleObj::ImplementsFunction(const String& name, bool query_imports) {
  return RuntimeGlobals::Get().implements(Self(this), name, query_imports).cast<bool>();
}

Optional<String> ModuleObj::GetFunctionDoc(const String& name, bool query_imports) {
  return RuntimeGlobals::Get().get_doc(Self(this), name, query_imports).cast<Optional<String>>();
}

Optional<String> ModuleObj::GetFunctionMetadata(const String& name, bool query_imports) {
  return RuntimeGlobals::Get()
      .get_metadata(Self(this), name, query_imports)
      .cast<Optional<String>>();
}

// ---------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------

Module Module::LoadFromFile(const String& file_name) {
  return RuntimeGlobals::Get().load(file_name).cast<Module>();
}

void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>& callback) {
  RuntimeGlobals::Get().visit_context_symbols(callback.packed());
}

}  // namespace ffi
}  // namespace tvm

/*
 * libtvmffi_upstream_cxx: upstream's out-of-line ModuleObj / Module members,
 * implemented over libtvmffi's C ABI (its `ffi.Module*` global functions).
 *
 * Module::LoadFromFile wraps the runtime's module object in RuntimeModule, an
 * object with upstream's ModuleObj layout and vtable, so that a host built
 * against upstream's headers can call mod->GetFunction(...) on it. Only the
 * wrapper crosses into such a host; the runtime's own module object stays
 * inside (it is the wrapper's `inner_`).
 */
#include "upstream_module.h"

#include <tvm/ffi/error.h>
#include <tvm/ffi/memory.h>

#include <string>
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
  Function import_module = Function::GetGlobalRequired("ffi.ModuleImportModule");
  Function get_kind = Function::GetGlobalRequired("ffi.ModuleGetKind");
  Function visit_context_symbols = Function::GetGlobalRequired("ffi.ModuleVisitContextSymbols");

  static const RuntimeGlobals& Get() {
    static const RuntimeGlobals* g = new RuntimeGlobals();
    return *g;
  }
};

// Kind strings must outlive the module (kind() returns a raw pointer).
const char* StableKind(const std::string& kind) {
  if (kind == "library") return "library";
  if (kind == "system") return "system";
  return "unknown";
}

// ModuleObj* behind an imported module (every import has upstream's layout).
ModuleObj* AsModuleObj(const Any& any) {
  const Object* obj = any.as<Object>();
  if (obj == nullptr || any.type_index() != TypeIndex::kTVMFFIModule) {
    TVM_FFI_THROW(TypeError) << "module import list holds `" << any.GetTypeKey()
                             << "`, not ffi.Module";
  }
  return static_cast<ModuleObj*>(const_cast<Object*>(obj));
}

bool Reaches(ModuleObj* from, const ModuleObj* target) {
  if (from == target) return true;
  for (const Any& import : from->imports()) {
    if (Reaches(AsModuleObj(import), target)) return true;
  }
  return false;
}

// RuntimeError when `self` importing `other` would close a cycle.
void CheckAcyclic(ModuleObj* self, const Module& other) {
  if (Reaches(other.get(), self)) {
    TVM_FFI_THROW(RuntimeError) << "Module[" << self->kind() << "]: importing Module["
                                << other->kind() << "] would create an import cycle";
  }
}

// A module of libtvmffi seen through upstream's ModuleObj interface.
class RuntimeModule final : public ModuleObj {
 public:
  explicit RuntimeModule(Any inner)
      : inner_(std::move(inner)),
        kind_(StableKind(RuntimeGlobals::Get().get_kind(inner_).cast<std::string>())) {}

  const char* kind() const final { return kind_; }
  int GetPropertyMask() const final { return 0b010; }  // runnable

  Optional<Function> GetFunction(const String& name) final {
    return RuntimeGlobals::Get().get_function(inner_, name, false).cast<Optional<Function>>();
  }
  bool ImplementsFunction(const String& name) final {
    return RuntimeGlobals::Get().implements(inner_, name, false).cast<bool>();
  }
  Optional<String> GetFunctionDoc(const String& name) final {
    return RuntimeGlobals::Get().get_doc(inner_, name, false).cast<Optional<String>>();
  }
  Optional<String> GetFunctionMetadata(const String& name) final {
    return RuntimeGlobals::Get().get_metadata(inner_, name, false).cast<Optional<String>>();
  }

  // Imports between two runtime modules are made in the runtime too, so that
  // the library's generated code (TVMFFIEnvModLookupFromImports) sees them.
  // The C++ graph is checked first: it may hold host modules the runtime
  // never sees, and a refused import must change neither graph.
  void ImportModule(const Module& other) final {
    CheckAcyclic(this, other);
    if (auto* rt = dynamic_cast<RuntimeModule*>(other.get())) {
      RuntimeGlobals::Get().import_module(inner_, rt->inner_);
    }
    imports_.push_back(other);
  }

 private:
  Any inner_;
  const char* kind_;
};

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
  CheckAcyclic(this, other);
  imports_.push_back(other);
}

void ModuleObj::ClearImports() {
  imports_.clear();
}

Optional<Function> ModuleObj::GetFunction(const String& name, bool query_imports) {
  if (Optional<Function> f = GetFunction(name)) return f;
  if (query_imports) {
    for (const Any& import : imports_) {
      if (Optional<Function> f = AsModuleObj(import)->GetFunction(name, true)) return f;
    }
  }
  return std::nullopt;
}

bool ModuleObj::ImplementsFunction(const String& name, bool query_imports) {
  if (ImplementsFunction(name)) return true;
  if (query_imports) {
    for (const Any& import : imports_) {
      if (AsModuleObj(import)->ImplementsFunction(name, true)) return true;
    }
  }
  return false;
}

Optional<String> ModuleObj::GetFunctionDoc(const String& name, bool query_imports) {
  if (Optional<String> doc = GetFunctionDoc(name)) return doc;
  if (query_imports) {
    for (const Any& import : imports_) {
      if (Optional<String> doc = AsModuleObj(import)->GetFunctionDoc(name, true)) return doc;
    }
  }
  return std::nullopt;
}

Optional<String> ModuleObj::GetFunctionMetadata(const String& name, bool query_imports) {
  if (Optional<String> meta = GetFunctionMetadata(name)) return meta;
  if (query_imports) {
    for (const Any& import : imports_) {
      if (Optional<String> meta = AsModuleObj(import)->GetFunctionMetadata(name, true)) {
        return meta;
      }
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Module
// ---------------------------------------------------------------------------

Module Module::LoadFromFile(const String& file_name) {
  Any inner = RuntimeGlobals::Get().load(file_name);
  return Module(make_object<RuntimeModule>(std::move(inner)));
}

void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>& callback) {
  RuntimeGlobals::Get().visit_context_symbols(callback.packed());
}

}  // namespace ffi
}  // namespace tvm

/*
 * tvmffi C++ layer: Module, a loaded kernel library (or the system library)
 * whose exported functions can be looked up by name.
 *
 * \code
 *   ffi::Module mod = ffi::Module::LoadFromFile("build/kernels/libmy_kernels.so");
 *   ffi::Optional<ffi::Function> add_one = mod->GetFunction("add_one");  // `__tvm_ffi_add_one`
 *   (*add_one)(x, y);
 *   ffi::Optional<ffi::String> sig = mod->GetFunctionMetadata("add_one");  // JSON
 * \endcode
 *
 * ModuleObj is upstream's C++ class (virtual methods, layout): every module
 * in the process, whoever made it, is one. The non-virtual members call
 * libtvmffi through its global functions (`ffi.ModuleLoadFromFile`,
 * `ffi.ModuleGetFunction`, ...), which C callers can use the same way (see
 * c_api.h: TVMFFIFunctionGetGlobal); those call the virtual methods.
 *
 * Lifetime (a deliberate strengthening of upstream TVM-FFI):
 *  - A shared library, once loaded, is never unloaded: it is opened with
 *    RTLD_NODELETE and the loader never closes it. Everything the library
 *    created therefore stays valid for the whole process, whatever happens to
 *    its Module: Functions taken from it, Tensors it allocated with its own
 *    deleter (Tensor::FromNDAlloc in the library), Strings, Arrays, Errors.
 *    Dropping the last Module reference is always safe, before or after
 *    using, calling or freeing such objects.
 *  - There is one Module per loaded library: loading the same file again (or
 *    another path to the same file) returns the same Module object, with the
 *    same imports. The loader itself keeps a reference to it for the life of
 *    the process, so the pointer it writes into the library's
 *    `__tvm_ffi__library_ctx` (and the functions TVMFFIEnvModLookupFromImports
 *    hands out, which generated code caches) never dangle. Modules imported
 *    into a library module are therefore kept alive for the process too.
 *  - The cost: a library's code and its Module stay resident until exit. Do
 *    not load an unbounded number of distinct libraries.
 *
 * Errors raised by LoadFromFile (kind RuntimeError unless noted), each naming the path:
 *  - the file does not exist ("no such file"), or is a directory;
 *  - the file is not a shared library (no ELF header; Mach-O / PE / archives /
 *    text are named), or is an ELF executable / object file;
 *  - the library is built for another machine;
 *  - the file is damaged or truncated: a program header, the dynamic section
 *    or a table it points to lies beyond the end of the file (the loader
 *    would fault), or the section header table does: refused before dlopen;
 *  - the library exports no TVM-FFI function (no `__tvm_ffi_<name>` symbol):
 *    refused before dlopen runs any of its code;
 *  - its `__tvm_ffi__library_bin` is malformed, or holds a module kind with no
 *    `ffi.Module.load_from_bytes.<kind>` loader registered;
 *  - dlopen itself fails (missing dependency, undefined symbol): dlerror's text;
 *  - an empty path, or one with an embedded NUL byte: ValueError.
 * A missing function is not an error for GetFunction (empty Optional);
 * GetFunctionRequired raises AttributeError naming it and listing the exports.
 */
#ifndef TVM_FFI_EXTRA_MODULE_H_
#define TVM_FFI_EXTRA_MODULE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/details/symbol_names.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>

namespace tvm {
namespace ffi {

class Module;

/*! \brief (Internal) A runtime global function (see TVM_FFI_RUNTIME_GLOBAL_). */
#define TVM_FFI_MODULE_RUNTIME_FUNC_(Name) TVM_FFI_RUNTIME_GLOBAL_(Name)

/*!
 * \brief The object behind Module: a C++ class with virtual methods, in
 *        upstream TVM-FFI's layout, shared by every module in the process.
 *
 * Layout (the binary contract with upstream-built code): the vtable pointer,
 * then the Object header (a module's handle points 8 bytes into the C++
 * object), then `imports_` and one pointer-sized private slot. The virtual
 * methods are upstream's, in upstream's order and signatures, so a module
 * made by libtvmffi's loader answers the virtual calls of code built against
 * upstream's headers, and a subclass built against either side's headers
 * (TVM's codegen modules, a host's own module) answers libtvmffi's
 * `ffi.Module*` global functions. Subclasses keep the type index of
 * ffi.Module and override kind() and GetFunction(name) at least.
 */
class ModuleObj : public Object {
 public:
  /*! \return The kind of the module: "library", "system", or a subclass's own. */
  virtual const char* kind() const = 0;

  /*! \return The property mask (Module::ModulePropertyMask); none by default. */
  virtual int GetPropertyMask() const { return 0b000; }

  /*!
   * \brief Look up a function of the module itself (not of its imports).
   * \return The function, or an empty Optional.
   */
  virtual Optional<Function> GetFunction(const String& name) = 0;

  /*! \return Whether the module itself has `name` (default: GetFunction finds it). */
  virtual bool ImplementsFunction(const String& name) { return GetFunction(name).has_value(); }

  /*! \return The documentation of a function of the module itself, or empty. */
  virtual Optional<String> GetFunctionDoc(const String& name) {
    (void)name;
    return std::nullopt;
  }

  /*! \return The signature of a function of the module itself as JSON, or empty. */
  virtual Optional<String> GetFunctionMetadata(const String& name) {
    (void)name;
    return std::nullopt;
  }

  /*! \brief Write the module to a file; RuntimeError unless the module supports it. */
  virtual void WriteToFile(const String& file_name, const String& format) const {
    (void)file_name;
    (void)format;
    TVM_FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support WriteToFile";
  }

  /*! \return The formats WriteToFile accepts (none by default). */
  virtual Array<String> GetWriteFormats() const { return Array<String>(); }

  /*! \return The module serialized to bytes; RuntimeError unless supported. */
  virtual Bytes SaveToBytes() const {
    TVM_FFI_THROW(RuntimeError) << "Module[" << kind() << "] does not support SaveToBytes";
    TVM_FFI_UNREACHABLE();
  }

  /*! \return The module's source in `format`, or "" when it keeps none. */
  virtual String InspectSource(const String& format) const {
    (void)format;
    return String();
  }

  /*!
   * \brief Import another module: its functions become reachable through
   *        GetFunction(name, true) and, from generated code of a library,
   *        through TVMFFIEnvModLookupFromImports. RuntimeError on an import cycle.
   *        The default appends to imports() under libtvmffi's import lock.
   */
  // Declared inline, defined below Module: no key function, so the vtable is
  // emitted only where a subclass is constructed (upstream's library exports
  // ModuleObj's vtable under the same name; code that merely calls must not
  // carry a copy).
  TVM_FFI_HIDDEN inline virtual void ImportModule(const Module& other);

  /*! \brief Drop every import (the default does so under libtvmffi's import lock). */
  TVM_FFI_HIDDEN inline virtual void ClearImports();

  /*!
   * \brief Look up a function, then (with query_imports) in the imports,
   *        depth first in import order (`ffi.ModuleGetFunction`). Names that
   *        are empty or start with '_' never match in a loaded library.
   */
  TVM_FFI_HIDDEN Optional<Function> GetFunction(const String& name, bool query_imports) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunction")(SelfView(), name, query_imports)
        .cast<Optional<Function>>();
  }

  /*!
   * \brief As GetFunction, but a missing function raises AttributeError naming
   *        it and listing what a library exports (tvmffi extension).
   */
  Function GetFunctionRequired(const String& name, bool query_imports = false) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionRequired")(SelfView(), name,
                                                                         query_imports)
        .cast<Function>();
  }

  /*! \return True when the module (or, with query_imports, an import) has `name`. */
  TVM_FFI_HIDDEN bool ImplementsFunction(const String& name, bool query_imports) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleImplementsFunction")(SelfView(), name,
                                                                        query_imports)
        .cast<bool>();
  }

  /*!
   * \brief The signature of a function as JSON: a library's
   *        `__tvm_ffi__metadata_<name>` symbol (see tvm/ffi/function_metadata.h),
   *        empty when it has none (TVM_FFI_DLL_EXPORT_NO_METADATA, or C code).
   */
  TVM_FFI_HIDDEN Optional<String> GetFunctionMetadata(const String& name, bool query_imports) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionMetadata")(SelfView(), name,
                                                                         query_imports)
        .cast<Optional<String>>();
  }

  /*!
   * \brief The documentation of a function: a library's `__tvm_ffi__doc_<name>`
   *        (TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC), or empty.
   */
  TVM_FFI_HIDDEN Optional<String> GetFunctionDoc(const String& name, bool query_imports) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionDoc")(SelfView(), name, query_imports)
        .cast<Optional<String>>();
  }

  /*!
   * \brief The arguments an exported function writes, from `__tvm_ffi__writes_<name>`
   *        (TVM_FFI_DLL_EXPORT_WRITES; tvmffi extension): their indices, ascending
   *        (empty: it writes none), or an empty Optional when the library does not
   *        say (then any argument may be written). A malformed answer is a ValueError.
   */
  Optional<Array<int64_t>> GetFunctionWrites(const String& name, bool query_imports = false) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionWrites")(SelfView(), name,
                                                                       query_imports)
        .cast<Optional<Array<int64_t>>>();
  }

  /*!
   * \return The imported modules, in import order. The reference is the
   *          module's own list, as upstream's: do not hold it across an
   *          ImportModule/ClearImports of this module on another thread
   *          (`ffi.ModuleGetImports` returns a snapshot taken under the lock).
   */
  const Array<Any>& imports() const { return imports_; }

  /*!
   * \return The names of the functions a loaded library exports, sorted; empty
   *          for a module of another kind (tvmffi extension).
   */
  Array<String> ListFunctions() {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleListFunctions")(SelfView())
        .cast<Array<String>>();
  }

  /*! \return The path a library was loaded from ("" for other kinds; tvmffi extension). */
  String GetLibraryPath() {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetLibraryPath")(SelfView()).cast<String>();
  }

  /*! \brief (Internal) libtvmffi's access to the import list of any module. */
  struct InternalUnsafe;

  /// \cond Doxygen_Suppress
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIModule;
  static constexpr bool _type_mutable = true;
  static constexpr bool _type_final = true;
  static constexpr uint32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIModule, ModuleObj, Object);
  /// \endcond

 protected:
  friend struct InternalUnsafe;
  /*! \brief The imported modules (each an ffi.Module), in import order. */
  Array<Any> imports_;

 private:
  AnyView SelfView() const noexcept {
    TVMFFIAny v;
    v.type_index = TypeIndex::kTVMFFIModule;
    v.zero_padding = 0;
    v.v_obj = detail::ObjectUnsafe::GetHeader(this);
    return AnyView::CopyFromTVMFFIAny(v);
  }
  // Upstream's per-module lookup cache (a Map); unused here, kept so that
  // subclass members sit where code built against upstream expects them.
  ObjectRef import_lookup_cache_;
};

/*!
 * \brief A reference to a loaded module (never null).
 * \code
 *   ffi::Module mod = ffi::Module::LoadFromFile("libkernels.so");
 *   ffi::Function f = mod->GetFunctionRequired("scale");
 * \endcode
 */
class Module : public ObjectRef {
 public:
  /*! \brief Properties reported by ModuleObj::GetPropertyMask (upstream names). */
  enum ModulePropertyMask : int {
    kBinarySerializable = 0b001,
    kRunnable = 0b010,
    kCompilationExportable = 0b100
  };

  /*!
   * \brief Load a module from a file (`ffi.ModuleLoadFromFile`).
   *
   * Shared libraries (.so, and any file without a registered loader for its
   * extension) are opened with dlopen(RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE).
   * A path without '/' is taken relative to the working directory, never
   * searched on the library path. Loading the same library again returns the
   * same Module. Before the Module is returned, the loader writes the values
   * registered with TVMFFIEnvModRegisterContextSymbol into the library's
   * symbols of the same names, and the module handle into its
   * `__tvm_ffi__library_ctx` when it has one. See the top of this file for
   * lifetime rules and errors.
   * \param file_name The path.
   */
  // Hidden: upstream's libtvm_ffi.so defines the same mangled name out of line
  // and calls it through its `ffi.ModuleLoadFromFile` global. An exported copy
  // in a host built with these headers would interpose it there, and the two
  // would call each other forever.
  TVM_FFI_HIDDEN static Module LoadFromFile(const String& file_name) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleLoadFromFile")(file_name).cast<Module>();
  }

  /*!
   * \brief The system library (`ffi.SystemLib`): the functions registered with
   *        TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_<name>", fn) by code
   *        linked into the process. One Module per prefix for the process
   *        (tvmffi extension; upstream reaches it as the `ffi.SystemLib` global).
   * \param symbol_prefix Names are looked up as `__tvm_ffi_<prefix><name>`
   *        first, then `__tvm_ffi_<name>`.
   */
  static Module SystemLib(const String& symbol_prefix = String()) {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.SystemLib")(symbol_prefix).cast<Module>();
  }

  /*!
   * \brief Call `callback(name, value)` for every symbol registered with
   *        TVMFFIEnvModRegisterContextSymbol, in registration order.
   */
  // Hidden for the same reason as LoadFromFile (same mangled name as upstream's).
  TVM_FFI_HIDDEN static void VisitContextSymbols(
      const TypedFunction<void(String, void*)>& callback) {
    TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleVisitContextSymbols")(callback.packed());
  }

  /// \cond Doxygen_Suppress
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Module, ObjectRef, ModuleObj);
  /// \endcond
};

// The defaults append to / clear the list under libtvmffi's import lock (the
// virtual `ffi.ModuleImportModule` would call back here). Under upstream's
// runtime, which has no such globals, they change the list directly, as its
// own defaults do.
inline void ModuleObj::ImportModule(const Module& other) {
  // Kept for the process (never released), as TVM_FFI_RUNTIME_GLOBAL_ does.
  static const Optional<Function>* append =
      new Optional<Function>(Function::GetGlobal("ffi.ModuleAppendImport"));
  if (append->has_value()) {
    (**append)(SelfView(), other);
  } else {
    imports_.push_back(other);
  }
}

inline void ModuleObj::ClearImports() {
  static const Optional<Function>* drop =
      new Optional<Function>(Function::GetGlobal("ffi.ModuleDropImports"));
  if (drop->has_value()) {
    (**drop)(SelfView());
  } else {
    imports_.clear();
  }
}

/*! \brief Names of the symbols a library module uses (same strings as upstream). */
namespace symbol {
/*! \brief Prefix of every exported function: `__tvm_ffi_<name>`. */
constexpr const char* tvm_ffi_symbol_prefix = detail::kSymbolFuncPrefix;
/*! \brief The conventional entry function of a library (`main`). */
constexpr const char* tvm_ffi_main = detail::kSymbolMain;
/*! \brief A `void*` the loader sets to the module handle (for TVMFFIEnvModLookupFromImports). */
constexpr const char* tvm_ffi_library_ctx = detail::kSymbolLibraryCtx;
/*!
 * \brief Modules serialised into a library by an exporter (TVM's export_library):
 *        rebuilt with `ffi.Module.load_from_bytes.<kind>` and imported at load
 *        (docs/c-abi.md, "Imports").
 */
constexpr const char* tvm_ffi_library_bin = detail::kSymbolLibraryBin;
/*! \brief Prefix of the metadata getter of a function: `__tvm_ffi__metadata_<name>`. */
constexpr const char* tvm_ffi_metadata_prefix = detail::kSymbolMetadataPrefix;
/*! \brief Prefix of the documentation getter of a function: `__tvm_ffi__doc_<name>`. */
constexpr const char* tvm_ffi_doc_prefix = detail::kSymbolDocPrefix;
/*! \brief Prefix of the getter of the arguments a function writes: `__tvm_ffi__writes_<name>`. */
constexpr const char* tvm_ffi_writes_prefix = detail::kSymbolWritesPrefix;
}  // namespace symbol

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_MODULE_H_

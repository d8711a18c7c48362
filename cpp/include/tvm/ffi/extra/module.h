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
 * Everything here calls libtvmffi through its global functions
 * (`ffi.ModuleLoadFromFile`, `ffi.ModuleGetFunction`, ...), which C callers
 * can use the same way (see c_api.h: TVMFFIFunctionGetGlobal).
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
 * \brief The object behind Module. Created only by libtvmffi (LoadFromFile,
 *        SystemLib); not subclassable.
 */
class ModuleObj : public Object {
 public:
  /*! \return "library" for a loaded shared library, "system" for the system library. */
  const char* kind() const noexcept { return kind_; }

  /*! \return The property mask (Module::ModulePropertyMask): runnable. */
  int GetPropertyMask() const noexcept { return 0b010; }

  /*!
   * \brief Look up an exported function (symbol `__tvm_ffi_<name>`).
   * \param name The function name. Names that are empty or start with '_' are
   *        reserved for the loader's own symbols and never match.
   * \param query_imports Also search imported modules (depth first, in import order).
   * \return The function, or an empty Optional. The same name returns the same
   *         Function object every time (cached by the module).
   */
  Optional<Function> GetFunction(const String& name, bool query_imports = false) const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunction")(SelfView(), name, query_imports)
        .cast<Optional<Function>>();
  }

  /*!
   * \brief As GetFunction, but a missing function raises AttributeError naming
   *        it and listing what the library exports (tvmffi extension).
   */
  Function GetFunctionRequired(const String& name, bool query_imports = false) const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionRequired")(SelfView(), name,
                                                                         query_imports)
        .cast<Function>();
  }

  /*! \return True when the module (or, with query_imports, an import) exports `name`. */
  bool ImplementsFunction(const String& name, bool query_imports = false) const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleImplementsFunction")(SelfView(), name,
                                                                        query_imports)
        .cast<bool>();
  }

  /*!
   * \brief The signature of an exported function as JSON, from the library's
   *        `__tvm_ffi__metadata_<name>` symbol (see tvm/ffi/function_metadata.h for
   *        the format). Empty when the library has no metadata for it (built with
   *        TVM_FFI_DLL_EXPORT_NO_METADATA, or written in C).
   */
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports = false) const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionMetadata")(SelfView(), name,
                                                                         query_imports)
        .cast<Optional<String>>();
  }

  /*!
   * \brief The documentation of an exported function, from `__tvm_ffi__doc_<name>`
   *        (TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC), or empty.
   */
  Optional<String> GetFunctionDoc(const String& name, bool query_imports = false) const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionDoc")(SelfView(), name, query_imports)
        .cast<Optional<String>>();
  }

  /*!
   * \brief The arguments an exported function writes, from `__tvm_ffi__writes_<name>`
   *        (TVM_FFI_DLL_EXPORT_WRITES; tvmffi extension): their indices, ascending
   *        (empty: it writes none), or an empty Optional when the library does not
   *        say (then any argument may be written). A malformed answer is a ValueError.
   */
  Optional<Array<int64_t>> GetFunctionWrites(const String& name, bool query_imports = false) const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetFunctionWrites")(SelfView(), name,
                                                                       query_imports)
        .cast<Optional<Array<int64_t>>>();
  }

  /*!
   * \brief Import another module: its functions become reachable through
   *        GetFunction(name, true) and, from generated code of this library,
   *        through TVMFFIEnvModLookupFromImports. RuntimeError on an import cycle.
   */
  void ImportModule(const Module& other) const;

  /*! \return The imported modules, in import order. */
  Array<Any> imports() const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetImports")(SelfView()).cast<Array<Any>>();
  }

  /*! \return The names of the functions the module itself exports, sorted (tvmffi extension). */
  Array<String> ListFunctions() const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleListFunctions")(SelfView())
        .cast<Array<String>>();
  }

  /*! \return The path the library was loaded from ("" for the system library; tvmffi extension). */
  String GetLibraryPath() const {
    return TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleGetLibraryPath")(SelfView()).cast<String>();
  }

  /// \cond Doxygen_Suppress
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIModule;
  static constexpr bool _type_mutable = true;
  static constexpr bool _type_final = true;
  static constexpr uint32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIModule, ModuleObj, Object);
  /// \endcond

  ModuleObj() = delete;
  ModuleObj(const ModuleObj&) = delete;
  ModuleObj& operator=(const ModuleObj&) = delete;

 private:
  AnyView SelfView() const noexcept {
    TVMFFIAny v;
    v.type_index = TypeIndex::kTVMFFIModule;
    v.zero_padding = 0;
    v.v_obj = details::ObjectUnsafe::GetHeader(this);
    return AnyView::CopyFromTVMFFIAny(v);
  }

 protected:
  // Layout shared with libtvmffi: runtime/module.cc's object derives from this
  // class and sets kind_ to a static string it owns.
  const char* kind_;
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

inline void ModuleObj::ImportModule(const Module& other) const {
  TVM_FFI_MODULE_RUNTIME_FUNC_("ffi.ModuleImportModule")(SelfView(), other);
}

/*! \brief Names of the symbols a library module uses (same strings as upstream). */
namespace symbol {
/*! \brief Prefix of every exported function: `__tvm_ffi_<name>`. */
constexpr const char* tvm_ffi_symbol_prefix = details::kSymbolFuncPrefix;
/*! \brief The conventional entry function of a library (`main`). */
constexpr const char* tvm_ffi_main = details::kSymbolMain;
/*! \brief A `void*` the loader sets to the module handle (for TVMFFIEnvModLookupFromImports). */
constexpr const char* tvm_ffi_library_ctx = details::kSymbolLibraryCtx;
/*! \brief Embedded binary of upstream's export_library (not processed by tvmffi). */
constexpr const char* tvm_ffi_library_bin = details::kSymbolLibraryBin;
/*! \brief Prefix of the metadata getter of a function: `__tvm_ffi__metadata_<name>`. */
constexpr const char* tvm_ffi_metadata_prefix = details::kSymbolMetadataPrefix;
/*! \brief Prefix of the documentation getter of a function: `__tvm_ffi__doc_<name>`. */
constexpr const char* tvm_ffi_doc_prefix = details::kSymbolDocPrefix;
/*! \brief Prefix of the getter of the arguments a function writes: `__tvm_ffi__writes_<name>`. */
constexpr const char* tvm_ffi_writes_prefix = details::kSymbolWritesPrefix;
}  // namespace symbol

}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_EXTRA_MODULE_H_

/*
 * libtvmffi_upstream_cxx: the C++ ABI of apache/tvm-ffi's ModuleObj / Module,
 * declared by us from the published class shape (private to this library).
 *
 * Hosts compiled against upstream's <tvm/ffi/extra/module.h> call into these
 * classes through their vtable and through out-of-line members whose mangled
 * names this library exports (upstream_cxx.symbols). What must match upstream:
 *  - the order and signatures of the virtual methods below (vtable slots
 *    0..11; ModuleObj declares no virtual destructor);
 *  - the data members after the Object header: `imports_` (Array<Any>), then
 *    a private Map slot, both pointer-sized;
 *  - the class names (tvm::ffi::ModuleObj, tvm::ffi::Module) and parameter
 *    types, which make up the mangled names.
 * Because ModuleObj is polymorphic and Object is not, the vtable pointer sits
 * before the Object header: a handle (TVMFFIObject*) points 8 bytes into the
 * C++ object. Our own <tvm/ffi/extra/module.h> declares the same layout and
 * vtable (libtvmffi's modules derive from it), but defines these members
 * inline, so the two must never be included together.
 */
#ifndef TVMFFI_RUNTIME_UPSTREAM_CXX_UPSTREAM_MODULE_H_
#define TVMFFI_RUNTIME_UPSTREAM_CXX_UPSTREAM_MODULE_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/object.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>

#define TVMFFI_UPSTREAM_CXX_API __attribute__((visibility("default")))

namespace tvm {
namespace ffi {

class Module;

class TVMFFI_UPSTREAM_CXX_API ModuleObj : public Object {
 public:
  // Slots 0..11, in upstream's order. The defaults of the non-pure ones are
  // defined in upstream_module.cc (the same behaviour upstream documents).
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const;
  virtual Optional<Function> GetFunction(const String& name) = 0;
  virtual bool ImplementsFunction(const String& name);
  virtual Optional<String> GetFunctionDoc(const String& name);
  virtual Optional<String> GetFunctionMetadata(const String& name);
  virtual void WriteToFile(const String& file_name, const String& format) const;
  virtual Array<String> GetWriteFormats() const;
  virtual Bytes SaveToBytes() const;
  virtual String InspectSource(const String& format) const;
  virtual void ImportModule(const Module& other);
  virtual void ClearImports();

  // Non-virtual, out of line in upstream as well.
  Optional<Function> GetFunction(const String& name, bool query_imports);
  bool ImplementsFunction(const String& name, bool query_imports);
  Optional<String> GetFunctionDoc(const String& name, bool query_imports);
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports);

  const Array<Any>& imports() const { return imports_; }

  /// \cond Doxygen_Suppress
  static constexpr int32_t _type_index = TypeIndex::kTVMFFIModule;
  static constexpr bool _type_mutable = true;
  static constexpr bool _type_final = true;
  static constexpr uint32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIModule, ModuleObj, Object);
  /// \endcond

 protected:
  Array<Any> imports_;

 private:
  // Upstream keeps a Map<String, Function> lookup cache here; we never read
  // it, but the slot keeps derived classes' members where hosts expect them.
  ObjectRef import_lookup_cache_;
};

class Module : public ObjectRef {
 public:
  TVMFFI_UPSTREAM_CXX_API static Module LoadFromFile(const String& file_name);
  TVMFFI_UPSTREAM_CXX_API static void VisitContextSymbols(
      const TypedFunction<void(String, void*)>& callback);

  /// \cond Doxygen_Suppress
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Module, ObjectRef, ModuleObj);
  /// \endcond
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVMFFI_RUNTIME_UPSTREAM_CXX_UPSTREAM_MODULE_H_

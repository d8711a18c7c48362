/*
 * Test-only: ModuleObj / Module declared the way apache/tvm-ffi's
 * <tvm/ffi/extra/module.h> shows them to a host (virtual methods in
 * upstream's order with inline defaults, out-of-line members), written by us
 * from the published class shape. Shared by upstream_host.cc and link_stub.cc.
 *
 * Our <tvm/ffi/extra/module.h> (a different, non-virtual ModuleObj) must not
 * be included next to this; String, Function, Array, ... are ours, with
 * upstream's layout.
 */
#ifndef TVMFFI_TESTS_UPSTREAM_CXX_UPSTREAM_SHAPES_H_
#define TVMFFI_TESTS_UPSTREAM_CXX_UPSTREAM_SHAPES_H_

#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/access_path.h>
#include <tvm/ffi/string.h>

namespace tvm {
namespace ffi {

class Module;

// Upstream's ModuleObj as its header shows it to a host.
class ModuleObj : public Object {
 public:
  virtual const char* kind() const = 0;
  virtual int GetPropertyMask() const { return 0; }
  virtual Optional<Function> GetFunction(const String& name) = 0;
  virtual bool ImplementsFunction(const String& name) { return GetFunction(name).has_value(); }
  virtual Optional<String> GetFunctionDoc(const String&) { return std::nullopt; }
  virtual Optional<String> GetFunctionMetadata(const String&) { return std::nullopt; }
  virtual void WriteToFile(const String&, const String&) const {
    TVM_FFI_THROW(RuntimeError) << "host default WriteToFile";
  }
  virtual Array<String> GetWriteFormats() const { return Array<String>(); }
  virtual Bytes SaveToBytes() const { TVM_FFI_THROW(RuntimeError) << "host default SaveToBytes"; }
  virtual String InspectSource(const String&) const { return String(); }
  virtual void ImportModule(const Module& other);  // out of line: the key function
  virtual void ClearImports();
  Optional<Function> GetFunction(const String& name, bool query_imports);
  bool ImplementsFunction(const String& name, bool query_imports);
  Optional<String> GetFunctionDoc(const String& name, bool query_imports);
  Optional<String> GetFunctionMetadata(const String& name, bool query_imports);
  const Array<Any>& imports() const { return imports_; }

  static constexpr int32_t _type_index = TypeIndex::kTVMFFIModule;
  static constexpr bool _type_mutable = true;
  static constexpr bool _type_final = true;
  static constexpr uint32_t _type_child_slots = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_STATIC(StaticTypeKey::kTVMFFIModule, ModuleObj, Object);

 protected:
  Array<Any> imports_;

 private:
  ObjectRef import_lookup_cache_;
};

class Module : public ObjectRef {
 public:
  static Module LoadFromFile(const String& file_name);
  static void VisitContextSymbols(const TypedFunction<void(String, void*)>& callback);
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(Module, ObjectRef, ModuleObj);
};

// Upstream's structural and dataclass entry points (out of line there).
class StructuralEqual {
 public:
  static bool Equal(const Any& lhs, const Any& rhs, bool map_free_vars = false,
                    bool skip_tensor_content = false);
  static Optional<reflection::AccessPathPair> GetFirstMismatch(const Any& lhs, const Any& rhs,
                                                               bool map_free_vars = false,
                                                               bool skip_tensor_content = false);
};
class StructuralHash {
 public:
  static uint64_t Hash(const Any& value, bool map_free_vars = false,
                       bool skip_tensor_content = false);
};
Any DeepCopy(const Any& value);
String ReprPrint(const Any& value);
int64_t RecursiveHash(const Any& value);
bool RecursiveEq(const Any& lhs, const Any& rhs);
bool RecursiveLt(const Any& lhs, const Any& rhs);
bool RecursiveLe(const Any& lhs, const Any& rhs);
bool RecursiveGt(const Any& lhs, const Any& rhs);
bool RecursiveGe(const Any& lhs, const Any& rhs);

// Out of line in upstream's <tvm/ffi/extra/visit_error_context.h>; the object
// as upstream lays it out.
class VisitErrorContextObj : public Object {
 public:
  List<ObjectRef> reverse_visit_pattern;
  Optional<ObjectRef> prev_error_context;
  static constexpr bool _type_mutable = true;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("ffi.VisitErrorContext", VisitErrorContextObj, Object);
};
class VisitErrorContext : public ObjectRef {
 public:
  static Array<reflection::AccessPath> FindAccessPaths(const ObjectRef& root,
                                                       const VisitErrorContext& visit_context,
                                                       bool allow_prefix_match = false);
  TVM_FFI_DEFINE_OBJECT_REF_METHODS_NOTNULLABLE(VisitErrorContext, ObjectRef, VisitErrorContextObj);
};

namespace json {
// Out of line in upstream's <tvm/ffi/extra/json.h>. Upstream's Optional<int>
// is a TVMFFIAny (None or an int), ours a std::optional under the same mangled
// name: a host passes an UpstreamOptionalInt (below) in its place.
Any Parse(const String& json_str, String* error_msg = nullptr);
String Stringify(const Any& value, const Optional<int>& indent);
}  // namespace json

// Out of line in upstream's <tvm/ffi/extra/serialization.h>.
Any ToJSONGraph(const Any& value, const Any& metadata = Any(nullptr));
Any FromJSONGraph(const Any& value);

/*! \brief Upstream's Optional<int> as a host lays it out. */
struct UpstreamOptionalInt {
  TVMFFIAny cell;
  const Optional<int>& as_arg() const { return *reinterpret_cast<const Optional<int>*>(&cell); }
};

}  // namespace ffi
}  // namespace tvm

#endif  // TVMFFI_TESTS_UPSTREAM_CXX_UPSTREAM_SHAPES_H_

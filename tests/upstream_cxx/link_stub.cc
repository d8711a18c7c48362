/*
 * Test-only: the C++ entry points of the link-time stand-in for upstream's
 * libtvm_ffi.so (tests/upstream_cxx/upstream_cxx.cmake), so that upstream_host.cc links
 * the way an upstream-built host does (DT_NEEDED libtvm_ffi.so). The stand-in
 * is never loaded; every body aborts.
 */
#include "upstream_shapes.h"

#include <cstdlib>

namespace tvm {
namespace ffi {

void ModuleObj::ImportModule(const Module&) {
  std::abort();
}
void ModuleObj::ClearImports() {
  std::abort();
}
Optional<Function> ModuleObj::GetFunction(const String&, bool) {
  std::abort();
}
bool ModuleObj::ImplementsFunction(const String&, bool) {
  std::abort();
}
Optional<String> ModuleObj::GetFunctionDoc(const String&, bool) {
  std::abort();
}
Optional<String> ModuleObj::GetFunctionMetadata(const String&, bool) {
  std::abort();
}
Module Module::LoadFromFile(const String&) {
  std::abort();
}
void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>&) {
  std::abort();
}
bool StructuralEqual::Equal(const Any&, const Any&, bool, bool) {
  std::abort();
}
Optional<reflection::AccessPathPair> StructuralEqual::GetFirstMismatch(const Any&, const Any&, bool,
                                                                       bool) {
  std::abort();
}
uint64_t StructuralHash::Hash(const Any&, bool, bool) {
  std::abort();
}
Any DeepCopy(const Any&) {
  std::abort();
}
String ReprPrint(const Any&) {
  std::abort();
}
Array<reflection::AccessPath> VisitErrorContext::FindAccessPaths(const ObjectRef&,
                                                                 const VisitErrorContext&, bool) {
  std::abort();
}
int64_t RecursiveHash(const Any&) {
  std::abort();
}
bool RecursiveEq(const Any&, const Any&) {
  std::abort();
}
bool RecursiveLt(const Any&, const Any&) {
  std::abort();
}
bool RecursiveLe(const Any&, const Any&) {
  std::abort();
}
bool RecursiveGt(const Any&, const Any&) {
  std::abort();
}
bool RecursiveGe(const Any&, const Any&) {
  std::abort();
}
Any json::Parse(const String&, String*) {
  std::abort();
}
String json::Stringify(const Any&, const Optional<int>&) {
  std::abort();
}
Any ToJSONGraph(const Any&, const Any&) {
  std::abort();
}
Any FromJSONGraph(const Any&) {
  std::abort();
}

}  // namespace ffi
}  // namespace tvm

// The runtime's module objects (module*.cc) are left out of the stand-in:
// they carry hidden copies of ModuleObj's vtable, typeinfo and inline
// members, which would hide the stand-in's exported ones (an ELF symbol takes
// its most restrictive visibility). What the rest of the runtime calls there:
namespace tvmffi {
namespace rt {
int ModLookupFromImportsImpl(void*, const char*, void**) {
  std::abort();
}
}  // namespace rt
}  // namespace tvmffi

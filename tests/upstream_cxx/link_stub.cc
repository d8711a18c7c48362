/*
 * Test-only stand-in for upstream's libtvm_ffi.so at link time: it defines
 * the C++ entry points upstream_host.cc uses, so the host links the way an
 * upstream-built host does (DT_NEEDED libtvm_ffi.so). It is never loaded:
 * the host's run path finds our runtime under that name. Every body aborts.
 */
#include "upstream_shapes.h"

#include <cstdlib>

namespace tvm {
namespace ffi {

void ModuleObj::ImportModule(const Module&) { std::abort(); }
void ModuleObj::ClearImports() { std::abort(); }
Optional<Function> ModuleObj::GetFunction(const String&, bool) { std::abort(); }
bool ModuleObj::ImplementsFunction(const String&, bool) { std::abort(); }
Optional<String> ModuleObj::GetFunctionDoc(const String&, bool) { std::abort(); }
Optional<String> ModuleObj::GetFunctionMetadata(const String&, bool) { std::abort(); }
Module Module::LoadFromFile(const String&) { std::abort(); }
void Module::VisitContextSymbols(const TypedFunction<void(String, void*)>&) { std::abort(); }

}  // namespace ffi
}  // namespace tvm

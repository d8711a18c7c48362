/*
 * BuiltinDef: registers the runtime's built-in globals written on the C++
 * layer (containers.cc, reflection.cc, json.cc,
 * serialization.cc) through the one registration path
 * (registration.h). Never throws, so it is safe in a static initialiser: a
 * function that cannot be made is recorded as a load failure.
 */
#ifndef TVMFFI_RUNTIME_BUILTIN_DEF_H_
#define TVMFFI_RUNTIME_BUILTIN_DEF_H_

#include <tvm/ffi/function.h>

#include <cstdio>
#include <utility>

#include "registration.h"

namespace tvmffi {
namespace rt {

class BuiltinDef {
 public:
  template <typename Func>
  BuiltinDef& def(const char* name, Func func) noexcept {
    Add(name, [&] { return tvm::ffi::Function::FromTyped(std::move(func), name); });
    return *this;
  }
  template <typename Func>
  BuiltinDef& def_packed(const char* name, Func func) noexcept {
    Add(name, [&] { return tvm::ffi::Function::FromPacked(std::move(func)); });
    return *this;
  }

 private:
  template <typename Make>
  static void Add(const char* name, Make make) noexcept {
    try {
      tvm::ffi::Function f = make();
      RegisterBuiltinGlobal(name, tvm::ffi::detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(f));
    } catch (...) {
      char what[160];
      std::snprintf(what, sizeof(what), "cannot create built-in global `%s`", name);
      RecordLoadFailure(what);
    }
  }
};

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_BUILTIN_DEF_H_

/*
 * tvmffi C++ layer: registering global functions.
 *
 *   TVM_FFI_STATIC_INIT_BLOCK() {
 *     namespace refl = tvm::ffi::reflection;
 *     refl::GlobalDef()
 *         .def("my.add", [](int a, int b) { return a + b; }, "Add two integers.")
 *         .def_packed("my.count", [](tvm::ffi::PackedArgs args, tvm::ffi::Any* rv) {
 *           *rv = args.size();
 *         });
 *   }
 *
 * Registration goes through TVMFFIFunctionSetGlobalFromMethodInfo; a name
 * that is already registered is an error (RuntimeError naming it).
 */
#ifndef TVM_FFI_REFLECTION_REGISTRY_H_
#define TVM_FFI_REFLECTION_REGISTRY_H_

#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/overload.h>

#include <string>
#include <string_view>
#include <utility>

namespace tvm {
namespace ffi {
namespace reflection {

/*! \brief Builder that registers global functions (each def() registers at once). */
class GlobalDef {
 public:
  /*!
   * \brief Register a typed function (see Function::FromTyped).
   * \param extra Optional docstring (const char*).
   */
  template <typename Func, typename... Extra>
  GlobalDef& def(const char* name, Func&& func, Extra&&... extra) {
    Register(name, Function::FromTyped(std::forward<Func>(func), std::string(name)),
             std::forward<Extra>(extra)...);
    return *this;
  }
  /*! \brief Register a packed function `void(PackedArgs, Any*)`. */
  template <typename Func, typename... Extra>
  GlobalDef& def_packed(const char* name, Func func, Extra&&... extra) {
    Register(name, Function::FromPacked(std::move(func)), std::forward<Extra>(extra)...);
    return *this;
  }

 private:
  template <typename... Extra>
  static void Register(const char* name, const Function& func, Extra&&... extra) {
    static_assert((std::is_convertible_v<Extra, const char*> && ...),
                  "GlobalDef: extra arguments must be a docstring (const char*)");
    const char* doc = "";
    ((doc = static_cast<const char*>(extra)), ...);
    TVMFFIMethodInfo info;
    info.name = TVMFFIByteArray{name, std::char_traits<char>::length(name)};
    info.doc = TVMFFIByteArray{doc, std::char_traits<char>::length(doc)};
    info.metadata = TVMFFIByteArray{"", 0};
    info.flags = 0;
    info.method = AnyView(func).CopyToTVMFFIAny();
    TVM_FFI_CHECK_SAFE_CALL(TVMFFIFunctionSetGlobalFromMethodInfo(&info, 0));
  }
};

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_REFLECTION_REGISTRY_H_

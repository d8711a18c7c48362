/*
 * tvmffi C++ layer: reflection::overload_cast, naming one function of an
 * overload set by its leading parameter types. Include
 * <tvm/ffi/reflection/registry.h> (where upstream declares it), which
 * includes this file.
 *
 *   struct Pet { void Set(int); void Set(const std::string&);
 *                int Get(int); int Get(int) const; };
 *   auto set_int = refl::overload_cast<int>(&Pet::Set);          // void (Pet::*)(int)
 *   auto get_c = refl::overload_cast<int>(&Pet::Get, refl::const_);  // ... const
 *
 * Only a prefix of the parameters needs spelling; the rest are deduced from
 * the chosen overload. When a full list and a longer overload both match, the
 * full list wins (partial ordering); when two longer overloads match, the call
 * is ambiguous and more parameters must be given. A const member function is
 * picked only with `const_`.
 */
#ifndef TVM_FFI_DETAILS_OVERLOAD_CAST_H_
#define TVM_FFI_DETAILS_OVERLOAD_CAST_H_

#include <type_traits>

namespace tvm {
namespace ffi {
namespace detail {

/*! \brief The callable behind overload_cast<Params...>. */
template <typename... Params>
struct OverloadCastImpl {
  // Exactly Params...
  template <typename R>
  constexpr auto operator()(R (*fn)(Params...)) const noexcept {
    return fn;
  }
  template <typename R, typename C>
  constexpr auto operator()(R (C::*fn)(Params...), std::false_type = {}) const noexcept {
    return fn;
  }
  template <typename R, typename C>
  constexpr auto operator()(R (C::*fn)(Params...) const, std::true_type) const noexcept {
    return fn;
  }
  // Params... then more (deduced).
  template <typename R, typename... More>
  constexpr auto operator()(R (*fn)(Params..., More...)) const noexcept {
    return fn;
  }
  template <typename R, typename C, typename... More>
  constexpr auto operator()(R (C::*fn)(Params..., More...), std::false_type = {}) const noexcept {
    return fn;
  }
  template <typename R, typename C, typename... More>
  constexpr auto operator()(R (C::*fn)(Params..., More...) const, std::true_type) const noexcept {
    return fn;
  }
};

}  // namespace detail

namespace reflection {

/*! \brief `overload_cast<Params...>(&f)`: the overload of f whose parameters start with Params. */
template <typename... Params>
inline constexpr ::tvm::ffi::detail::OverloadCastImpl<Params...> overload_cast = {};

/*! \brief Tag selecting the const member function in overload_cast. */
inline constexpr std::true_type const_ = {};

}  // namespace reflection
}  // namespace ffi
}  // namespace tvm
#endif  // TVM_FFI_DETAILS_OVERLOAD_CAST_H_

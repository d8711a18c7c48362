/*
 * tvmffi core: the symbol names of a TVM-FFI library, and the rule for which
 * exported symbols are functions. Used by the module loader (runtime), by
 * tvm/ffi/extra/module.h and by tools that read libraries.
 *
 * A library exports function <name> as `__tvm_ffi_<name>`. Names after the
 * prefix that start with '_' are the loader's own symbols
 * (`__tvm_ffi__library_ctx`, `__tvm_ffi__metadata_<name>`, ...), never functions.
 */
#ifndef TVM_FFI_DETAILS_SYMBOL_NAMES_H_
#define TVM_FFI_DETAILS_SYMBOL_NAMES_H_

#include <string_view>

namespace tvm {
namespace ffi {
namespace detail {

/*! \brief Prefix of every exported function: `__tvm_ffi_<name>`. */
inline constexpr const char kSymbolFuncPrefix[] = "__tvm_ffi_";
/*! \brief The conventional entry function of a library (`main`). */
inline constexpr const char kSymbolMain[] = "__tvm_ffi_main";
/*! \brief A `void*` the loader sets to the module handle. */
inline constexpr const char kSymbolLibraryCtx[] = "__tvm_ffi__library_ctx";
/*! \brief Embedded binary of upstream's export_library (not processed by tvmffi). */
inline constexpr const char kSymbolLibraryBin[] = "__tvm_ffi__library_bin";
/*! \brief Prefix of the metadata getter of a function: `__tvm_ffi__metadata_<name>`. */
inline constexpr const char kSymbolMetadataPrefix[] = "__tvm_ffi__metadata_";
/*! \brief Prefix of the documentation getter of a function: `__tvm_ffi__doc_<name>`. */
inline constexpr const char kSymbolDocPrefix[] = "__tvm_ffi__doc_";
/*! \brief Prefix of the getter of the arguments a function writes: `__tvm_ffi__writes_<name>`. */
inline constexpr const char kSymbolWritesPrefix[] = "__tvm_ffi__writes_";

/*! \return Whether <name> can be a function name (not empty, not starting with '_'). */
constexpr bool IsFunctionName(std::string_view name) noexcept {
  return !name.empty() && name[0] != '_';
}

/*!
 * \return The function name a symbol exports with `prefix` (kSymbolFuncPrefix,
 *         or it followed by a system-library prefix), or an empty view when
 *         the symbol is not such a function.
 */
constexpr std::string_view ExportedFunctionName(
    std::string_view symbol, std::string_view prefix = kSymbolFuncPrefix) noexcept {
  if (symbol.substr(0, prefix.size()) != prefix) return std::string_view();
  std::string_view name = symbol.substr(prefix.size());
  return IsFunctionName(name) ? name : std::string_view();
}

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_SYMBOL_NAMES_H_

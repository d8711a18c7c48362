/*
 * The one registration path for the runtime's built-in global functions
 * (function.cc, shape_global.cc, module.cc, containers.cc), implemented in
 * function.cc next to the registry.
 *
 * Built-ins register while the library loads, from static initialisers, so
 * nothing here throws or aborts: a registration that fails is recorded (read
 * back with the global `ffi.LoadFailures`, and printed once to stderr) and
 * the runtime goes on without that function. Registration writes into this
 * runtime's own registry directly, never through the exported C symbols,
 * which another runtime loaded earlier could interpose.
 *
 * Kept free of the C++ layer's headers: the declarations need only the C ABI
 * (builtin_def.h is the C++ front of it).
 */
#ifndef TVMFFI_RUNTIME_REGISTRATION_H_
#define TVMFFI_RUNTIME_REGISTRATION_H_

#include <tvm/ffi/c_api.h>

#include <string_view>

namespace tvmffi {
namespace rt {

/*!
 * \brief Register `func` (a Function; the registry takes its own reference) as
 *        the global `name`, without override. Never throws.
 * \return Whether it was registered; on failure (the name is taken, out of
 *         memory) the failure is recorded with RecordLoadFailure.
 */
bool RegisterBuiltinGlobal(std::string_view name, TVMFFIObject* func) noexcept;

/*! \brief As above, for a C callback without context. */
bool RegisterBuiltinGlobal(std::string_view name, TVMFFISafeCallType call) noexcept;

/*!
 * \brief Record a failure that happened while loading (a built-in or a
 *        library's static initialiser). Printed to stderr when recorded; kept
 *        for `ffi.LoadFailures`. Never throws.
 */
void RecordLoadFailure(std::string_view what) noexcept;

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_REGISTRATION_H_

/*
 * The stack check of the runtime's walkers and the Python extension
 * (python/src/call.cc): internal, header-only. The code lives in the C++
 * headers (tvm/ffi/details/stack_guard.h), which check with it too.
 */
#ifndef TVMFFI_INTERNAL_STACK_BOUNDS_H_
#define TVMFFI_INTERNAL_STACK_BOUNDS_H_

#include <tvm/ffi/details/stack_guard.h>

namespace tvmffi {
namespace stack {

using ::tvm::ffi::detail::stack::Bounds;
using ::tvm::ffi::detail::stack::NearlyExhausted;
using ::tvm::ffi::detail::stack::ReadBounds;

}  // namespace stack
}  // namespace tvmffi

#endif  // TVMFFI_INTERNAL_STACK_BOUNDS_H_

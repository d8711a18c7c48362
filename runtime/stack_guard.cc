/*
 * How much of the calling thread's C stack is left (internal.h,
 * StackNearlyExhausted): the recursive walkers of object graphs
 * (StructuralEqual / StructuralHash, DeepCopy, ...) ask before each level of
 * nesting, so that a value nested deeper than the stack allows is a clear
 * error (RecursionError-like ValueError) rather than a crash, while every
 * depth that fits keeps working as before.
 *
 * The bounds and the comparison live in tvmffi_internal/stack_bounds.h (shared with the
 * Python extension); the reserve is kept for the error path (message,
 * backtrace) and for callbacks below the check.
 */
#include <cstddef>

#include "internal.h"
#include "tvmffi_internal/stack_bounds.h"

namespace tvmffi {
namespace rt {

bool StackNearlyExhausted(size_t reserve) noexcept {
  return stack::NearlyExhausted(reserve);
}

}  // namespace rt
}  // namespace tvmffi

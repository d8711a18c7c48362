/*
 * How much of the calling thread's C stack is left (internal.h,
 * StackNearlyExhausted): the recursive walkers of object graphs
 * (StructuralEqual / StructuralHash, DeepCopy, ...) ask before each level of
 * nesting, so that a value nested deeper than the stack allows is a clear
 * error (RecursionError-like ValueError) rather than a crash, while every
 * depth that fits keeps working as before.
 *
 * The thread's stack bounds come from pthread_getattr_np once per thread. The
 * frame address (not the address of a local, which AddressSanitizer may move
 * to a heap "fake stack") is compared with the low end plus a reserve kept
 * for the error path (message, backtrace) and for callbacks below the check.
 */
#include <pthread.h>

#include <cstddef>
#include <cstdint>

#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

struct StackBounds {
  uintptr_t low = 0;   // lowest usable address (the stack grows down)
  size_t size = 0;     // its size, for small stacks
  bool known = false;
};

TVMFFI_RT_NOINLINE StackBounds ReadStackBounds(uintptr_t here) noexcept {
  StackBounds b;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr && size != 0) {
      uintptr_t low = reinterpret_cast<uintptr_t>(addr);
      // Only believe bounds that contain the caller's frame.
      if (here > low && here - low <= size) {
        b.low = low;
        b.size = size;
        b.known = true;
      }
    }
    pthread_attr_destroy(&attr);
  }
  if (!b.known) {
    // Unknown bounds: allow 1 MiB below the first frame that asked.
    constexpr size_t kAssumed = size_t{1} << 20;
    b.low = here > kAssumed ? here - kAssumed : 0;
    b.size = kAssumed;
    b.known = true;
  }
  return b;
}

}  // namespace

bool StackNearlyExhausted(size_t reserve) noexcept {
  static thread_local StackBounds bounds;
  uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (TVMFFI_RT_UNLIKELY(!bounds.known)) bounds = ReadStackBounds(here);
#if defined(__SANITIZE_ADDRESS__)
  reserve *= 2;  // instrumented frames are larger
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  reserve *= 2;
#endif
#endif
  // A small stack keeps half of itself for the walk.
  if (reserve > bounds.size / 2) reserve = bounds.size / 2;
  return here < bounds.low + reserve;
}

}  // namespace rt
}  // namespace tvmffi

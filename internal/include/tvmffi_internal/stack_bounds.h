/*
 * How much of the calling thread's C stack is left, header-only and internal
 * (not installed): shared by the runtime's recursive walkers
 * (stack_guard.cc, StackNearlyExhausted) and the Python extension's
 * conversion of nested lists and dicts (python/src/call.cc), each of which
 * keeps its own per-thread copy of the bounds.
 *
 * The bounds come from pthread_getattr_np once per thread. The frame address
 * (not the address of a local, which AddressSanitizer may move to a heap
 * "fake stack") is compared with the low end plus a reserve.
 */
#ifndef TVMFFI_INTERNAL_STACK_BOUNDS_H_
#define TVMFFI_INTERNAL_STACK_BOUNDS_H_

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace tvmffi {
namespace stack {

struct Bounds {
  uintptr_t low = 0;  // lowest usable address (the stack grows down)
  size_t size = 0;    // its size, for small stacks
  bool known = false;
};

__attribute__((noinline)) inline Bounds ReadBounds(uintptr_t here) noexcept {
  Bounds b;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0 && addr != nullptr && size != 0) {
      const uintptr_t low = reinterpret_cast<uintptr_t>(addr);
      // Only believe bounds that contain the caller's frame.
      if (here > low && here - low <= size) b = Bounds{low, size, true};
    }
    pthread_attr_destroy(&attr);
  }
  if (!b.known) {  // unknown: allow 1 MiB below the first frame that asked
    constexpr size_t kAssumed = size_t{1} << 20;
    b = Bounds{here > kAssumed ? here - kAssumed : 0, kAssumed, true};
  }
  return b;
}

/*! \brief Whether less than `reserve` bytes (doubled under AddressSanitizer,
 *         at most half a small stack) are left below the caller's frame. */
inline bool NearlyExhausted(size_t reserve) noexcept {
  static thread_local Bounds bounds;
  const uintptr_t here = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
  if (__builtin_expect(!bounds.known, 0)) bounds = ReadBounds(here);
#if defined(__SANITIZE_ADDRESS__)
  reserve *= 2;  // instrumented frames are larger
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  reserve *= 2;
#endif
#endif
  if (reserve > bounds.size / 2) reserve = bounds.size / 2;
  return here < bounds.low + reserve;
}

}  // namespace stack
}  // namespace tvmffi

#endif  // TVMFFI_INTERNAL_STACK_BOUNDS_H_

/*
 * How much of the calling thread's C stack is left (internal: not an API).
 * The one depth rule of every recursive walker (issue #43): the runtime's
 * (StructuralEqual/Hash, repr, DeepCopy, visiting, serialization), the
 * headers' (container content equality, StructuralVisitor) and the Python
 * extension's conversion of nested values ask before each level of nesting,
 * so that a value nested deeper than the stack allows, or a cycle, is a clear
 * error rather than a crash, while every depth that fits keeps working.
 *
 * The bounds come from pthread_getattr_np once per thread (each binary keeps
 * its own per-thread copy). The frame address (not the address of a local,
 * which AddressSanitizer may move to a heap "fake stack") is compared with
 * the low end plus a reserve.
 */
#ifndef TVM_FFI_DETAILS_STACK_GUARD_H_
#define TVM_FFI_DETAILS_STACK_GUARD_H_

#include <pthread.h>

#include <cstddef>
#include <cstdint>

namespace tvm {
namespace ffi {
namespace detail {
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

/*! \brief The reserve the walkers keep for the error path and callbacks below the check. */
constexpr size_t kWalkerStackReserve = size_t{256} << 10;

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

#endif  // TVM_FFI_DETAILS_STACK_GUARD_H_

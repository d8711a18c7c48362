/*
 * Out-of-memory injection (built only with -DTVMFFI_FAULT_INJECTION=ON).
 *
 * Replacements of every global operator new live in this library only: the
 * version script makes them local, so they catch the library's own
 * allocations and nobody else's. Each asks the per-thread countdown first and
 * otherwise forwards to the process's real operator (found with dlsym, so that
 * a sanitizer's allocator still pairs every new with its delete). The
 * runtime's malloc-style paths ask the same countdown (internal.h,
 * TVMFFI_RT_MALLOC). Control: TVMFFIFaultInjectionSet (runtime/fault_injection.h).
 */
#ifndef TVMFFI_FAULT_INJECTION
#error "fault_injection.cc is built only with TVMFFI_FAULT_INJECTION"
#endif

#include <dlfcn.h>
#include <execinfo.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "fault_countdown.h"
#include "fault_injection.h"
#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

using FaultState = tvmffi_oom::FaultCountdown;
thread_local FaultState tl_fault{0, 0, false, false};

// The real operators of the process (the sanitizer's, if any): our own
// definitions are local, so the global lookup skips them.
void* Lookup(const char* mangled) {
  void* p = dlsym(RTLD_DEFAULT, mangled);
  if (p == nullptr) {
    std::fprintf(stderr, "tvmffi fault injection: %s not found\n", mangled);
    std::abort();
  }
  return p;
}

using Plain = void* (*)(std::size_t);
using Aligned = void* (*)(std::size_t, std::align_val_t);
using PlainNothrow = void* (*)(std::size_t, const std::nothrow_t&);
using AlignedNothrow = void* (*)(std::size_t, std::align_val_t, const std::nothrow_t&);

struct RealNew {
  Plain one, array;
  Aligned one_aligned, array_aligned;
  PlainNothrow one_nothrow, array_nothrow;
  AlignedNothrow one_aligned_nothrow, array_aligned_nothrow;
};

const RealNew& Real() {
  static const RealNew real{
      reinterpret_cast<Plain>(Lookup("_Znwm")),
      reinterpret_cast<Plain>(Lookup("_Znam")),
      reinterpret_cast<Aligned>(Lookup("_ZnwmSt11align_val_t")),
      reinterpret_cast<Aligned>(Lookup("_ZnamSt11align_val_t")),
      reinterpret_cast<PlainNothrow>(Lookup("_ZnwmRKSt9nothrow_t")),
      reinterpret_cast<PlainNothrow>(Lookup("_ZnamRKSt9nothrow_t")),
      reinterpret_cast<AlignedNothrow>(Lookup("_ZnwmSt11align_val_tRKSt9nothrow_t")),
      reinterpret_cast<AlignedNothrow>(Lookup("_ZnamSt11align_val_tRKSt9nothrow_t"))};
  return real;
}

// TVMFFI_FAULT_INJECTION_LOAD=N arms the loading thread's countdown before any
// static initialiser of this library runs (priority 101 comes before the
// default), so that loading itself meets the failure (tests/oom/load_probe.cc);
// TVMFFI_FAULT_INJECTION_LOAD_STICKY=1 makes it sticky.
__attribute__((constructor(101))) void ArmAtLoad() {
  const char* nth = std::getenv("TVMFFI_FAULT_INJECTION_LOAD");
  if (nth == nullptr) return;
  const char* sticky = std::getenv("TVMFFI_FAULT_INJECTION_LOAD_STICKY");
  tl_fault = FaultState{std::strtoll(nth, nullptr, 10), 0,
                        sticky != nullptr && std::strcmp(sticky, "0") != 0, false};
}

}  // namespace

bool FaultInjectionFails() noexcept {
  return tl_fault.Fails("tvmffi fault injection");
}

}  // namespace rt
}  // namespace tvmffi

using tvmffi::rt::FaultInjectionFails;
using tvmffi::rt::Real;

void* operator new(std::size_t n) {
  if (FaultInjectionFails()) throw std::bad_alloc();
  return Real().one(n);
}
void* operator new[](std::size_t n) {
  if (FaultInjectionFails()) throw std::bad_alloc();
  return Real().array(n);
}
void* operator new(std::size_t n, std::align_val_t a) {
  if (FaultInjectionFails()) throw std::bad_alloc();
  return Real().one_aligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  if (FaultInjectionFails()) throw std::bad_alloc();
  return Real().array_aligned(n, a);
}
void* operator new(std::size_t n, const std::nothrow_t& t) noexcept {
  return FaultInjectionFails() ? nullptr : Real().one_nothrow(n, t);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return FaultInjectionFails() ? nullptr : Real().array_nothrow(n, t);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  return FaultInjectionFails() ? nullptr : Real().one_aligned_nothrow(n, a, t);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t& t) noexcept {
  return FaultInjectionFails() ? nullptr : Real().array_aligned_nothrow(n, a, t);
}

extern "C" __attribute__((visibility("default"))) int64_t TVMFFIFaultInjectionSet(int64_t nth,
                                                                                  int32_t sticky) {
  tvmffi::rt::FaultState& s = tvmffi::rt::tl_fault;
  int64_t injected = s.injected;
  s = tvmffi::rt::FaultState{nth > 0 ? nth : 0, 0, sticky != 0, false};
  return injected;
}

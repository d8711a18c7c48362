/*
 * The per-thread countdown to an injected allocation failure, shared by
 * libtvmffi's injection (runtime/fault_injection.cc) and test_oom's own
 * (its whole-process mode counts the test binary's operator new too).
 */
#ifndef TVMFFI_RUNTIME_FAULT_COUNTDOWN_H_
#define TVMFFI_RUNTIME_FAULT_COUNTDOWN_H_

#include <execinfo.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace tvmffi_oom {

// An aggregate, so a thread_local of it is constant-initialised and usable
// from any allocation.
struct FaultCountdown {
  int64_t countdown;  // 0: disarmed
  int64_t injected;   // failures since the last arming
  bool sticky;
  bool failing;  // sticky mode, after the armed failure

  /*! \return Whether this allocation must fail; `who` names the binary in the trace. */
  bool Fails(const char* who) noexcept {
    if (failing) {
      ++injected;
      return true;
    }
    if (countdown <= 0 || --countdown != 0) return false;
    ++injected;
    failing = sticky;
    // TVMFFI_FAULT_INJECTION_TRACE=1: where the armed allocation was (to debug a failing run).
    static const bool trace = std::getenv("TVMFFI_FAULT_INJECTION_TRACE") != nullptr;
    if (trace) {
      void* pcs[64];
      std::fprintf(stderr, "%s: failing this allocation:\n", who);
      backtrace_symbols_fd(pcs, backtrace(pcs, 64), 2);
    }
    return true;
  }
};

}  // namespace tvmffi_oom

#endif  // TVMFFI_RUNTIME_FAULT_COUNTDOWN_H_

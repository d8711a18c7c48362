/*
 * Test-only control of the out-of-memory injection of libtvmffi (issue #14).
 * The entry point below exists only in a runtime configured with
 * -DTVMFFI_FAULT_INJECTION=ON; it is not part of the ABI, is never installed,
 * and c_api.h does not declare it. See tests/RELIABILITY.md,
 * "Out-of-memory injection".
 */
#ifndef TVMFFI_RUNTIME_FAULT_INJECTION_H_
#define TVMFFI_RUNTIME_FAULT_INJECTION_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*!
 * \brief Arm (or disarm) the allocation failure of the calling thread.
 *
 * Counted are the allocations libtvmffi makes itself on the calling thread:
 * every form of `operator new` / `operator new[]` (plain, nothrow, aligned)
 * called from the library's code, std::string's storage included, and the
 * runtime's malloc-style paths (object memory, DLPack export blocks, the
 * built-in TVMFFICustomAllocator). Allocations of other binaries, of other
 * threads, and those libstdc++ makes inside its own compiled code are not
 * counted. A failing `operator new` throws std::bad_alloc (the nothrow forms
 * return NULL); a failing malloc-style path returns NULL.
 *
 * \param nth 1 makes the next counted allocation fail, 2 the one after, and
 *        so on; 0 (or a negative value) disarms.
 * \param sticky Nonzero: once the nth allocation has failed, every later
 *        counted allocation fails too, until the next call. Zero: only the
 *        nth fails.
 * \return The number of allocations that failed since the previous call on
 *         this thread (0 when the armed allocation was never reached).
 * \note Thread-safety: the state is per thread. Never fails.
 */
int64_t TVMFFIFaultInjectionSet(int64_t nth, int32_t sticky);

#ifdef __cplusplus
}  // extern "C"
#endif

#endif  // TVMFFI_RUNTIME_FAULT_INJECTION_H_

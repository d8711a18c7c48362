/*
 * The module loader's pre-check of a library file (runtime only; the
 * `tvmffi` tool has its own, richer reader).
 *
 * dlopen trusts the file: a program header or a dynamic table that points
 * past the end of the file makes it fault (SIGBUS) or read wild memory, and
 * it runs the library's constructors before anyone can look at its symbols.
 * This check runs first, with bounds-checked reads only (pread, no mmap), and
 * refuses such a file with a RuntimeError naming the path and the problem.
 * It also lists the exported TVM-FFI functions through PT_DYNAMIC (never
 * through section headers, which the loader ignores and a file may blank).
 */
#ifndef TVMFFI_RUNTIME_ELF_CHECK_H_
#define TVMFFI_RUNTIME_ELF_CHECK_H_

#include <string>
#include <vector>

namespace tvmffi {
namespace rt {

/*!
 * \brief Check that `path` is a shared library of this machine that dlopen can
 *        map without reading beyond the end of the file, and that it exports
 *        at least one TVM-FFI function.
 * \param path The file (checked as given; the caller refuses embedded NULs).
 * \param api The name used at the start of error messages.
 * \return The exported function names (`__tvm_ffi_<name>` with <name> not
 *         starting with '_'), sorted, without duplicates.
 * \throws FFIError RuntimeError (no such file, not a regular file, not an ELF
 *         shared library, wrong machine, malformed, no TVM-FFI exports).
 */
std::vector<std::string> CheckLibraryFile(const std::string& path, const char* api);

}  // namespace rt
}  // namespace tvmffi

#endif  // TVMFFI_RUNTIME_ELF_CHECK_H_

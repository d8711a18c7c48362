/*
 * What an ELF file is, in words: its machine, its type, and what a file
 * without an ELF header looks like. Private, header-only, shared by the
 * runtime's pre-check before dlopen (runtime/elf_check.cc) and the `tvmffi`
 * tool's reader (tools/elf_reader.h), so both describe a file the same way.
 */
#ifndef TVMFFI_INTERNAL_ELF_IDENT_H_
#define TVMFFI_INTERNAL_ELF_IDENT_H_

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace tvmffi {
namespace elf {

/*! \return A readable name of an e_machine value, or nullptr when it has none here. */
inline const char* KnownMachineName(int machine) {
  switch (machine) {
    case EM_X86_64:
      return "x86-64";
    case EM_AARCH64:
      return "aarch64";
    case EM_386:
      return "x86";
    case EM_ARM:
      return "arm";
    case EM_RISCV:
      return "riscv";
    case EM_PPC64:
      return "ppc64";
    case EM_S390:
      return "s390";
    default:
      return nullptr;
  }
}

/*! \return A readable name of an e_machine value ("unknown machine" when it has none). */
inline const char* MachineName(int machine) {
  const char* name = KnownMachineName(machine);
  return name != nullptr ? name : "unknown machine";
}

/*! \brief The e_machine of the code this was compiled into (EM_NONE when not listed). */
inline int HostMachine() {
#if defined(__x86_64__)
  return EM_X86_64;
#elif defined(__aarch64__)
  return EM_AARCH64;
#elif defined(__i386__)
  return EM_386;
#elif defined(__arm__)
  return EM_ARM;
#elif defined(__riscv)
  return EM_RISCV;
#elif defined(__powerpc64__)
  return EM_PPC64;
#else
  return EM_NONE;
#endif
}

/*! \brief A readable name of an e_type value. */
inline const char* TypeName(int type) {
  switch (type) {
    case ET_DYN:
      return "shared object";
    case ET_EXEC:
      return "executable";
    case ET_REL:
      return "relocatable object (.o)";
    case ET_CORE:
      return "core dump";
    default:
      return "file of unknown type";
  }
}

/*!
 * \brief Guess what a non-ELF file is from its first bytes ("" when unknown).
 * Used to make "not a shared library" messages specific.
 */
inline std::string GuessForeignFormat(const unsigned char* p, size_t n) {
  if (n >= 2 && p[0] == 'M' && p[1] == 'Z') return "a PE/COFF file (Windows executable or DLL)";
  if (n >= 4) {
    uint32_t m;
    std::memcpy(&m, p, 4);
    if (m == 0xfeedfaceu || m == 0xfeedfacfu || m == 0xcefaedfeu || m == 0xcffaedfeu) {
      return "a Mach-O file (macOS)";
    }
    if (m == 0xcafebabeu || m == 0xbebafecau) return "a Mach-O universal binary (macOS)";
  }
  if (n >= 8 && std::memcmp(p, "!<arch>\n", 8) == 0) return "a static archive (.a)";
  if (n >= 2 && p[0] == '#' && p[1] == '!') return "a script";
  if (n >= 4 && std::memcmp(p,
                            "\x7f"
                            "ELF",
                            4) == 0)
    return "an ELF file";
  bool text = n > 0;
  for (size_t i = 0; i < n && i < 64; ++i) {
    unsigned char c = p[i];
    if (c < 9 || (c > 13 && c < 32)) {
      text = false;
      break;
    }
  }
  if (text) return "a text file";
  return "";
}

}  // namespace elf
}  // namespace tvmffi

#endif  // TVMFFI_INTERNAL_ELF_IDENT_H_

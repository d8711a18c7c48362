/*
 * A small, defensive reader of the dynamic symbol table of an ELF file.
 *
 * Used by the `tvmffi` command line tool (inspect). Header-only and private
 * to the tool: it is not installed and not compiled into libtvmffi, which
 * keeps only a minimal ELF pre-check of its own.
 *
 * Every offset read from the file is bounds-checked, so a truncated or
 * malicious file yields an error message, never a crash. Only files in the
 * host byte order are decoded (x86-64 and aarch64 are little endian).
 */
#ifndef TVMFFI_TOOLS_ELF_READER_H_
#define TVMFFI_TOOLS_ELF_READER_H_

#include <tvm/ffi/details/symbol_names.h>

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "tvmffi_internal/elf_ident.h"

namespace tvmffi {
namespace elf {

/*! \brief One entry of .dynsym. */
struct DynSymbol {
  std::string name;
  /*! \brief For an undefined symbol with versioning: the required version (e.g. "GLIBCXX_3.4"). */
  std::string version;
  bool defined = false;
  unsigned char type = STT_NOTYPE;  // STT_FUNC, STT_OBJECT, ...
  unsigned char bind = STB_GLOBAL;  // STB_GLOBAL, STB_WEAK, ...
};

/*! \brief What went wrong, so callers can phrase their own messages. */
enum class Status {
  kOk = 0,
  kNotFound,     // no such file (ENOENT / ENOTDIR)
  kNotRegular,   // a directory, device, ...
  kIoError,      // open/read/mmap failed otherwise
  kNotElf,       // no ELF magic
  kUnsupported,  // ELF, but a class/byte order this reader does not decode
  kMalformed,    // ELF with offsets that point outside the file
};

/*! \brief The dynamic-linking view of an ELF file. */
struct ElfInfo {
  int elf_class = 0;  // ELFCLASS32 / ELFCLASS64
  int elf_type = 0;   // ET_DYN, ET_EXEC, ET_REL, ...
  int machine = 0;    // EM_X86_64, EM_AARCH64, ...
  bool has_dynsym = false;
  std::string soname;
  std::vector<std::string> needed;  // DT_NEEDED, in order
  std::vector<DynSymbol> symbols;   // .dynsym without the null entry
};

namespace detail {

// A read-only mapping of a whole file, unmapped on destruction.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<unsigned char*>(data_), size_);
  }

  Status Open(const std::string& path, std::string* error) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) {
      int e = errno;
      *error = std::strerror(e);
      return (e == ENOENT || e == ENOTDIR) ? Status::kNotFound : Status::kIoError;
    }
    if (!S_ISREG(st.st_mode)) {
      *error = S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file";
      return Status::kNotRegular;
    }
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = std::strerror(errno);
      return Status::kIoError;
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ == 0) {
      ::close(fd);
      return Status::kOk;
    }
    void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    ::close(fd);
    if (p == MAP_FAILED) {
      size_ = 0;
      *error = std::string("mmap: ") + std::strerror(e);
      return Status::kIoError;
    }
    data_ = static_cast<const unsigned char*>(p);
    return Status::kOk;
  }

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

  // True when [off, off + len) lies inside the file (overflow-safe).
  bool InBounds(uint64_t off, uint64_t len) const { return off <= size_ && len <= size_ - off; }

 private:
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

// A NUL-terminated string at `off` of a string table section, or nullptr.
inline const char* StrAt(const MappedFile& f, uint64_t tab_off, uint64_t tab_size, uint64_t off) {
  if (off >= tab_size || !f.InBounds(tab_off, tab_size)) return nullptr;
  const char* s = reinterpret_cast<const char*>(f.data() + tab_off + off);
  if (std::memchr(s, '\0', tab_size - off) == nullptr) return nullptr;
  return s;
}

template <typename Ehdr, typename Shdr, typename Sym, typename Dyn>
Status ReadTables(const MappedFile& f, ElfInfo* out, std::string* error) {
  if (!f.InBounds(0, sizeof(Ehdr))) {
    *error = "truncated ELF header";
    return Status::kMalformed;
  }
  Ehdr eh;
  std::memcpy(&eh, f.data(), sizeof(eh));
  out->elf_type = eh.e_type;
  out->machine = eh.e_machine;
  if (eh.e_shoff == 0 || eh.e_shnum == 0)
    return Status::kOk;  // no section headers: nothing to list
  if (eh.e_shentsize != sizeof(Shdr) ||
      !f.InBounds(eh.e_shoff, static_cast<uint64_t>(eh.e_shnum) * sizeof(Shdr))) {
    *error = "section header table lies outside the file";
    return Status::kMalformed;
  }
  std::vector<Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), f.data() + eh.e_shoff, sh.size() * sizeof(Shdr));

  auto strtab_of = [&](uint32_t link, uint64_t* off, uint64_t* size) {
    if (link >= sh.size() || sh[link].sh_type != SHT_STRTAB) return false;
    *off = sh[link].sh_offset;
    *size = sh[link].sh_size;
    return f.InBounds(*off, *size);
  };

  // Version requirements (.gnu.version_r): index -> name.
  std::vector<std::string> version_names;
  const Shdr* versym = nullptr;
  for (const Shdr& s : sh) {
    if (s.sh_type == SHT_GNU_versym) versym = &s;
    if (s.sh_type != SHT_GNU_verneed) continue;
    uint64_t str_off, str_size;
    if (!strtab_of(s.sh_link, &str_off, &str_size) || !f.InBounds(s.sh_offset, s.sh_size)) continue;
    uint64_t pos = s.sh_offset, end = s.sh_offset + s.sh_size;
    for (int guard = 0; guard < 4096 && pos + sizeof(Elf64_Verneed) <= end; ++guard) {
      // Elf32_Verneed and Elf64_Verneed have the same layout.
      Elf64_Verneed vn;
      std::memcpy(&vn, f.data() + pos, sizeof(vn));
      uint64_t apos = pos + vn.vn_aux;
      for (uint32_t i = 0; i < vn.vn_cnt && apos + sizeof(Elf64_Vernaux) <= end; ++i) {
        Elf64_Vernaux va;
        std::memcpy(&va, f.data() + apos, sizeof(va));
        uint16_t idx = va.vna_other & 0x7fff;
        if (const char* n = StrAt(f, str_off, str_size, va.vna_name)) {
          if (idx >= version_names.size()) version_names.resize(idx + 1);
          version_names[idx] = n;
        }
        if (va.vna_next == 0) break;
        apos += va.vna_next;
      }
      if (vn.vn_next == 0) break;
      pos += vn.vn_next;
    }
  }

  for (const Shdr& s : sh) {
    if (s.sh_type == SHT_DYNSYM) {
      if (s.sh_entsize != sizeof(Sym) || !f.InBounds(s.sh_offset, s.sh_size)) {
        *error = ".dynsym lies outside the file";
        return Status::kMalformed;
      }
      uint64_t str_off, str_size;
      if (!strtab_of(s.sh_link, &str_off, &str_size)) {
        *error = ".dynsym has no valid string table";
        return Status::kMalformed;
      }
      out->has_dynsym = true;
      uint64_t n = s.sh_size / sizeof(Sym);
      bool versym_ok =
          versym != nullptr && versym->sh_size / 2 >= n && f.InBounds(versym->sh_offset, n * 2);
      for (uint64_t i = 1; i < n; ++i) {  // entry 0 is the null symbol
        Sym sym;
        std::memcpy(&sym, f.data() + s.sh_offset + i * sizeof(Sym), sizeof(sym));
        const char* name = StrAt(f, str_off, str_size, sym.st_name);
        if (name == nullptr || name[0] == '\0') continue;
        DynSymbol d;
        d.name = name;
        d.defined = sym.st_shndx != SHN_UNDEF;
        d.type = static_cast<unsigned char>(sym.st_info & 0xf);
        d.bind = static_cast<unsigned char>(sym.st_info >> 4);
        if (!d.defined && versym_ok) {
          uint16_t v;
          std::memcpy(&v, f.data() + versym->sh_offset + i * 2, 2);
          v &= 0x7fff;
          if (v < version_names.size()) d.version = version_names[v];
        }
        out->symbols.push_back(std::move(d));
      }
    } else if (s.sh_type == SHT_DYNAMIC) {
      uint64_t str_off, str_size;
      if (!f.InBounds(s.sh_offset, s.sh_size) || !strtab_of(s.sh_link, &str_off, &str_size)) {
        continue;
      }
      uint64_t n = s.sh_size / sizeof(Dyn);
      for (uint64_t i = 0; i < n; ++i) {
        Dyn d;
        std::memcpy(&d, f.data() + s.sh_offset + i * sizeof(Dyn), sizeof(d));
        if (d.d_tag == DT_NULL) break;
        if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME) continue;
        const char* v = StrAt(f, str_off, str_size, d.d_un.d_val);
        if (v == nullptr) continue;
        if (d.d_tag == DT_NEEDED) {
          out->needed.emplace_back(v);
        } else {
          out->soname = v;
        }
      }
    }
  }
  return Status::kOk;
}

}  // namespace detail

/*!
 * \brief Read the dynamic symbols, DT_NEEDED entries and soname of an ELF file.
 * \param path The file.
 * \param out Filled on kOk (and partly on kUnsupported: class and machine).
 * \param error Receives a short reason on failure (e.g. strerror text).
 * \param first_bytes If not NULL, receives up to 16 leading bytes (to name a foreign format).
 */
inline Status ReadElf(const std::string& path, ElfInfo* out, std::string* error,
                      std::string* first_bytes = nullptr) {
  detail::MappedFile f;
  Status st = f.Open(path, error);
  if (st != Status::kOk) return st;
  if (first_bytes != nullptr) {
    first_bytes->assign(reinterpret_cast<const char*>(f.data()), f.size() < 16 ? f.size() : 16);
  }
  if (f.size() < EI_NIDENT || std::memcmp(f.data(), ELFMAG, SELFMAG) != 0) {
    *error = f.size() == 0 ? "the file is empty" : "no ELF header";
    return Status::kNotElf;
  }
  out->elf_class = f.data()[EI_CLASS];
  const bool host_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
  const int host_data = host_le ? ELFDATA2LSB : ELFDATA2MSB;
  if (f.data()[EI_DATA] != host_data) {
    *error = "ELF byte order differs from this machine";
    return Status::kUnsupported;
  }
  if (out->elf_class == ELFCLASS64) {
    return detail::ReadTables<Elf64_Ehdr, Elf64_Shdr, Elf64_Sym, Elf64_Dyn>(f, out, error);
  }
  if (out->elf_class == ELFCLASS32) {
    return detail::ReadTables<Elf32_Ehdr, Elf32_Shdr, Elf32_Sym, Elf32_Dyn>(f, out, error);
  }
  *error = "unknown ELF class";
  return Status::kUnsupported;
}

/*!
 * \brief The TVM-FFI function names a library exports: defined function
 *        symbols that detail::ExportedFunctionName accepts (symbol_names.h:
 *        `__tvm_ffi_<name>`, <name> not starting with '_'). Sorted, without
 *        duplicates.
 */
inline std::vector<std::string> ExportedFunctionNames(const ElfInfo& info) {
  std::vector<std::string> names;
  for (const DynSymbol& s : info.symbols) {
    if (!s.defined) continue;
    if (s.type != STT_FUNC && s.type != STT_NOTYPE && s.type != STT_GNU_IFUNC) continue;
    std::string_view name = ::tvm::ffi::detail::ExportedFunctionName(s.name);
    if (!name.empty()) names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace elf
}  // namespace tvmffi

#endif  // TVMFFI_TOOLS_ELF_READER_H_

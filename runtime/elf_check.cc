/*
 * The module loader's pre-check of a library file (see elf_check.h).
 *
 * Only what dlopen itself reads is checked: the ELF header, the program
 * headers, the dynamic section (read at its virtual address, as the loader
 * does) and the tables it points to. The section header table is only
 * bounds-checked: the loader never reads it.
 */
#include "elf_check.h"
#include "tvmffi_internal/elf_ident.h"

#include <tvm/ffi/details/symbol_names.h>

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

#if UINTPTR_MAX > 0xFFFFFFFFu
using Ehdr = Elf64_Ehdr;
using Phdr = Elf64_Phdr;
using Shdr = Elf64_Shdr;
using Dyn = Elf64_Dyn;
using Sym = Elf64_Sym;
constexpr unsigned char kHostClass = ELFCLASS64;
#else
using Ehdr = Elf32_Ehdr;
using Phdr = Elf32_Phdr;
using Shdr = Elf32_Shdr;
using Dyn = Elf32_Dyn;
using Sym = Elf32_Sym;
constexpr unsigned char kHostClass = ELFCLASS32;
#endif
constexpr unsigned char kHostData =
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;

using elf::GuessForeignFormat;
using elf::HostMachine;

std::string MachineName(int machine) {
  const char* name = elf::KnownMachineName(machine);
  return name != nullptr ? std::string(name) : Concat("machine ", machine);
}

// A file read with bounds-checked pread: nothing past the end is ever touched.
class FileReader {
 public:
  FileReader(const std::string& path, const char* api) : path_(path), api_(api) {}
  FileReader(const FileReader&) = delete;
  FileReader& operator=(const FileReader&) = delete;
  ~FileReader() {
    if (fd_ >= 0) ::close(fd_);
  }

  void Open() {
    struct stat st;
    if (::stat(path_.c_str(), &st) != 0) {
      int e = errno;
      if (e == ENOENT || e == ENOTDIR) {
        Throw("RuntimeError", api_, ": cannot load \"", path_, "\": no such file (",
              std::strerror(e), ")");
      }
      Throw("RuntimeError", api_, ": cannot read \"", path_, "\": ", std::strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
      Throw("RuntimeError", api_, ": cannot load \"", path_, "\": it ",
            S_ISDIR(st.st_mode) ? "is a directory" : "is not a regular file");
    }
    // O_NONBLOCK: should the path be swapped for a FIFO meanwhile, do not hang.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd_ < 0 || ::fstat(fd_, &st) != 0) {
      Throw("RuntimeError", api_, ": cannot read \"", path_, "\": ", std::strerror(errno));
    }
    size_ = static_cast<uint64_t>(st.st_size);
  }

  uint64_t size() const { return size_; }
  bool Fits(uint64_t off, uint64_t len) const { return off <= size_ && len <= size_ - off; }

  // Reads [off, off + len) or reports that it lies outside the file.
  bool Read(uint64_t off, void* dst, uint64_t len) const {
    if (!Fits(off, len)) return false;
    auto* p = static_cast<char*>(dst);
    while (len > 0) {
      ssize_t n = ::pread(fd_, p, len, static_cast<off_t>(off));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;  // the file shrank under us
      p += n;
      off += static_cast<uint64_t>(n);
      len -= static_cast<uint64_t>(n);
    }
    return true;
  }

  template <typename... Args>
  [[noreturn]] void Damaged(Args&&... what) const {
    Throw("RuntimeError", api_, ": \"", path_, "\" is a damaged or truncated shared library (",
          Concat(std::forward<Args>(what)...), "; the file has ", size_,
          " bytes); it was not loaded");
  }

 private:
  const std::string& path_;
  const char* api_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// The PT_LOAD segments: where the loader maps which file bytes.
struct LoadMap {
  std::vector<Phdr> loads;

  // File offset of [vaddr, vaddr + len) when it lies in one segment's file bytes.
  bool FileOffset(uint64_t vaddr, uint64_t len, uint64_t* off) const {
    for (const Phdr& p : loads) {
      if (vaddr < p.p_vaddr) continue;
      uint64_t rel = vaddr - p.p_vaddr;
      if (rel <= p.p_filesz && len <= p.p_filesz - rel) {
        *off = p.p_offset + rel;
        return true;
      }
    }
    return false;
  }
  bool Mapped(uint64_t vaddr) const {
    for (const Phdr& p : loads) {
      if (vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_memsz) return true;
    }
    return false;
  }
};

// The dynamic tags the check looks at, by tag (0 when absent).
struct DynamicInfo {
  std::vector<std::pair<int64_t, uint64_t>> entries;
  uint64_t Get(int64_t tag) const {
    for (const auto& e : entries) {
      if (e.first == tag) return e.second;
    }
    return 0;
  }
  bool Has(int64_t tag) const {
    return std::any_of(entries.begin(), entries.end(),
                       [&](const auto& e) { return e.first == tag; });
  }
};

const char* TagName(int64_t tag) {
  switch (tag) {
    case DT_HASH:
      return "DT_HASH";
    case DT_GNU_HASH:
      return "DT_GNU_HASH";
    case DT_STRTAB:
      return "DT_STRTAB";
    case DT_SYMTAB:
      return "DT_SYMTAB";
    case DT_RELA:
      return "DT_RELA";
    case DT_REL:
      return "DT_REL";
    case DT_JMPREL:
      return "DT_JMPREL";
    case DT_INIT_ARRAY:
      return "DT_INIT_ARRAY";
    case DT_FINI_ARRAY:
      return "DT_FINI_ARRAY";
    case DT_PREINIT_ARRAY:
      return "DT_PREINIT_ARRAY";
    case DT_VERSYM:
      return "DT_VERSYM";
    case DT_VERNEED:
      return "DT_VERNEED";
    case DT_VERDEF:
      return "DT_VERDEF";
    case DT_INIT:
      return "DT_INIT";
    case DT_FINI:
      return "DT_FINI";
    case DT_PLTGOT:
      return "DT_PLTGOT";
    default:
      return "a dynamic entry";
  }
}

// Tables the loader reads from the mapped file: address tag, size tag (0: unknown size).
constexpr int64_t kTables[][2] = {
    {DT_HASH, 0},
    {DT_GNU_HASH, 0},
    {DT_STRTAB, DT_STRSZ},
    {DT_SYMTAB, 0},
    {DT_RELA, DT_RELASZ},
    {DT_REL, DT_RELSZ},
    {DT_JMPREL, DT_PLTRELSZ},
    {DT_INIT_ARRAY, DT_INIT_ARRAYSZ},
    {DT_FINI_ARRAY, DT_FINI_ARRAYSZ},
    {DT_PREINIT_ARRAY, DT_PREINIT_ARRAYSZ},
    {DT_VERSYM, 0},
    {DT_VERNEED, 0},
    {DT_VERDEF, 0},
};
// Code or data addresses that need only be mapped.
constexpr int64_t kAddresses[] = {DT_INIT, DT_FINI, DT_PLTGOT};

void CheckProgramHeaders(const FileReader& f, const Ehdr& eh, LoadMap* map, Phdr* dynamic) {
  if (eh.e_phnum == 0) f.Damaged("it has no program headers");
  if (eh.e_phentsize != sizeof(Phdr)) {
    f.Damaged("program header entries are ", eh.e_phentsize, " bytes, expected ", sizeof(Phdr));
  }
  std::vector<Phdr> ph(eh.e_phnum);
  if (!f.Read(eh.e_phoff, ph.data(), uint64_t{eh.e_phnum} * sizeof(Phdr))) {
    f.Damaged("the program header table (offset ", uint64_t{eh.e_phoff}, ", ", eh.e_phnum,
              " entries) extends beyond the end of the file");
  }
  int num_dynamic = 0;
  for (size_t i = 0; i < ph.size(); ++i) {
    const Phdr& p = ph[i];
    const char* what = p.p_type == PT_LOAD ? "PT_LOAD" : p.p_type == PT_DYNAMIC ? "PT_DYNAMIC" : "";
    if (p.p_filesz != 0 && !f.Fits(p.p_offset, p.p_filesz)) {
      f.Damaged("program header #", i, what[0] ? " (" : "", what, what[0] ? ")" : "",
                " covers file bytes from ", uint64_t{p.p_offset}, " to ",
                uint64_t{p.p_offset} + p.p_filesz, ", beyond the end of the file");
    }
    if (p.p_type == PT_LOAD) {
      if (p.p_filesz > p.p_memsz) {
        f.Damaged("PT_LOAD segment #", i, " has more file bytes (", uint64_t{p.p_filesz},
                  ") than memory bytes (", uint64_t{p.p_memsz}, ")");
      }
      map->loads.push_back(p);
    } else if (p.p_type == PT_DYNAMIC) {
      *dynamic = p;
      ++num_dynamic;
    }
  }
  if (map->loads.empty()) f.Damaged("it has no PT_LOAD segment");
  if (num_dynamic != 1) f.Damaged("it has ", num_dynamic, " PT_DYNAMIC segments, expected 1");
}

void CheckSectionHeaders(const FileReader& f, const Ehdr& eh) {
  if (eh.e_shoff == 0) return;  // none: the loader does not need them
  // e_shnum 0 with a table: the count is in entry 0 (extended numbering).
  uint64_t n = eh.e_shnum != 0 ? eh.e_shnum : 1;
  if (eh.e_shentsize != sizeof(Shdr)) {
    f.Damaged("section header entries are ", eh.e_shentsize, " bytes, expected ", sizeof(Shdr));
  }
  if (!f.Fits(eh.e_shoff, n * sizeof(Shdr))) {
    f.Damaged("the section header table (offset ", uint64_t{eh.e_shoff}, ", ", n,
              " entries) extends beyond the end of the file");
  }
}

DynamicInfo ReadDynamic(const FileReader& f, const LoadMap& map, const Phdr& dyn_ph) {
  // The loader reads the dynamic section at its address, not at its file offset.
  uint64_t off = 0;
  if (!map.FileOffset(dyn_ph.p_vaddr, dyn_ph.p_filesz, &off)) {
    f.Damaged("the dynamic section (address ", uint64_t{dyn_ph.p_vaddr}, ", ",
              uint64_t{dyn_ph.p_filesz}, " bytes) is not inside a loaded part of the file");
  }
  std::vector<Dyn> dyn(dyn_ph.p_filesz / sizeof(Dyn));
  if (!f.Read(off, dyn.data(), dyn.size() * sizeof(Dyn))) {
    f.Damaged("the dynamic section extends beyond the end of the file");
  }
  DynamicInfo info;
  for (const Dyn& d : dyn) {
    if (d.d_tag == DT_NULL) return info;
    info.entries.emplace_back(static_cast<int64_t>(d.d_tag), static_cast<uint64_t>(d.d_un.d_val));
  }
  f.Damaged("the dynamic section has no DT_NULL terminator");
}

void CheckDynamicTables(const FileReader& f, const LoadMap& map, const DynamicInfo& dyn) {
  uint64_t off = 0;
  for (const auto& t : kTables) {
    if (!dyn.Has(t[0])) continue;
    uint64_t addr = dyn.Get(t[0]);
    uint64_t len = t[1] != 0 ? dyn.Get(t[1]) : 1;
    if (!map.FileOffset(addr, len, &off)) {
      f.Damaged(TagName(t[0]), " (address ", addr, ", ", len,
                " bytes) is not inside a loaded part of the file");
    }
  }
  for (int64_t tag : kAddresses) {
    if (dyn.Has(tag) && !map.Mapped(dyn.Get(tag))) {
      f.Damaged(TagName(tag), " (address ", dyn.Get(tag), ") is not inside a loaded segment");
    }
  }
  if (dyn.Has(DT_SYMENT) && dyn.Get(DT_SYMENT) != sizeof(Sym)) {
    f.Damaged("DT_SYMENT is ", dyn.Get(DT_SYMENT), ", expected ", sizeof(Sym));
  }
}

// Reads `count` 32-bit words at address `addr` of the loaded image.
bool ReadWords(const FileReader& f, const LoadMap& map, uint64_t addr, uint64_t count,
               std::vector<uint32_t>* out) {
  uint64_t off = 0;
  if (count > f.size() / 4 || !map.FileOffset(addr, count * 4, &off)) return false;
  out->resize(count);
  return f.Read(off, out->data(), count * 4);
}

// Number of dynamic symbols, from the hash table the loader uses to find them.
uint64_t SymbolCount(const FileReader& f, const LoadMap& map, const DynamicInfo& dyn) {
  std::vector<uint32_t> w;
  if (dyn.Has(DT_GNU_HASH)) {
    uint64_t addr = dyn.Get(DT_GNU_HASH);
    if (!ReadWords(f, map, addr, 4, &w)) f.Damaged("DT_GNU_HASH header is outside the file");
    const uint64_t nbuckets = w[0], symoffset = w[1], bloom_words = w[2];
    const uint64_t buckets_addr = addr + 16 + bloom_words * sizeof(decltype(Ehdr::e_entry));
    std::vector<uint32_t> buckets;
    if (bloom_words > f.size() || !ReadWords(f, map, buckets_addr, nbuckets, &buckets)) {
      f.Damaged("DT_GNU_HASH buckets lie outside the file");
    }
    uint64_t last = 0;
    for (uint32_t b : buckets) last = std::max<uint64_t>(last, b);
    if (last < symoffset) return symoffset;
    // Walk the chain of the highest bucket to its end marker (low bit set).
    const uint64_t chains_addr = buckets_addr + nbuckets * 4;
    for (;;) {
      std::vector<uint32_t> c;
      if (!ReadWords(f, map, chains_addr + (last - symoffset) * 4, 1, &c)) {
        f.Damaged("DT_GNU_HASH chain lies outside the file");
      }
      if (c[0] & 1u) return last + 1;
      ++last;
    }
  }
  if (dyn.Has(DT_HASH)) {
    if (!ReadWords(f, map, dyn.Get(DT_HASH), 2, &w)) f.Damaged("DT_HASH is outside the file");
    std::vector<uint32_t> rest;
    if (!ReadWords(f, map, dyn.Get(DT_HASH) + 8, uint64_t{w[0]} + w[1], &rest)) {
      f.Damaged("DT_HASH (", w[0], " buckets, ", w[1], " chains) lies outside the file");
    }
    return w[1];
  }
  return 0;  // no hash table: dlsym could find nothing
}

std::vector<std::string> ExportedNames(const FileReader& f, const LoadMap& map,
                                       const DynamicInfo& dyn) {
  std::vector<std::string> names;
  if (!dyn.Has(DT_SYMTAB) || !dyn.Has(DT_STRTAB)) return names;
  uint64_t nsyms = SymbolCount(f, map, dyn);
  uint64_t sym_off = 0, str_off = 0, str_size = dyn.Get(DT_STRSZ);
  if (nsyms > f.size() / sizeof(Sym) ||
      !map.FileOffset(dyn.Get(DT_SYMTAB), nsyms * sizeof(Sym), &sym_off)) {
    f.Damaged("the dynamic symbol table (", nsyms, " symbols) extends beyond the loaded file");
  }
  map.FileOffset(dyn.Get(DT_STRTAB), str_size, &str_off);  // checked by CheckDynamicTables
  std::vector<Sym> syms(nsyms);
  std::string strtab(str_size, '\0');
  if (!f.Read(sym_off, syms.data(), nsyms * sizeof(Sym)) ||
      !f.Read(str_off, strtab.data(), str_size)) {
    f.Damaged("the dynamic symbol table could not be read");
  }
  for (uint64_t i = 1; i < nsyms; ++i) {  // entry 0 is the null symbol
    const Sym& s = syms[i];
    int type = s.st_info & 0xf;
    if (s.st_shndx == SHN_UNDEF || s.st_name >= str_size) continue;
    if (type != STT_FUNC && type != STT_NOTYPE && type != STT_GNU_IFUNC) continue;
    size_t end = strtab.find('\0', s.st_name);
    if (end == std::string::npos) continue;
    std::string_view name(strtab.data() + s.st_name, end - s.st_name);
    std::string_view fname = ::tvm::ffi::detail::ExportedFunctionName(name);
    if (!fname.empty()) names.emplace_back(fname);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace

std::vector<std::string> CheckLibraryFile(const std::string& path, const char* api) {
  FileReader f(path, api);
  f.Open();
  unsigned char ident[EI_NIDENT] = {};
  if (!f.Read(0, ident, EI_NIDENT) || std::memcmp(ident, ELFMAG, SELFMAG) != 0) {
    unsigned char head[64];
    uint64_t n = std::min<uint64_t>(f.size(), sizeof(head));
    std::string what = f.Read(0, head, n) ? GuessForeignFormat(head, n) : std::string();
    Throw("RuntimeError", api, ": \"", path, "\" is not a shared library (",
          f.size() == 0 ? "the file is empty" : "no ELF header",
          what.empty() ? std::string() : "; it looks like " + what, ")");
  }
  uint16_t machine = 0;  // at the same offset in 32- and 64-bit headers
  f.Read(offsetof(Ehdr, e_machine), &machine, sizeof(machine));
  if (ident[EI_CLASS] != kHostClass || ident[EI_DATA] != kHostData || machine != HostMachine()) {
    Throw("RuntimeError", api, ": \"", path, "\" was built for ",
          ident[EI_DATA] != kHostData ? std::string("another byte order") : MachineName(machine),
          ident[EI_CLASS] == ELFCLASS32 ? " (32-bit)" : "", " and cannot be loaded on ",
          MachineName(HostMachine()));
  }
  Ehdr eh;
  if (!f.Read(0, &eh, sizeof(eh))) f.Damaged("the ELF header is cut short");
  if (eh.e_type != ET_DYN) {
    Throw("RuntimeError", api, ": \"", path, "\" is not a shared library: it is an ELF ",
          elf::TypeName(eh.e_type));
  }
  LoadMap map;
  Phdr dyn_ph{};
  CheckProgramHeaders(f, eh, &map, &dyn_ph);
  CheckSectionHeaders(f, eh);
  DynamicInfo dyn = ReadDynamic(f, map, dyn_ph);
  CheckDynamicTables(f, map, dyn);
  uint64_t str_size = dyn.Get(DT_STRSZ);
  for (const auto& e : dyn.entries) {
    bool is_string = e.first == DT_NEEDED || e.first == DT_SONAME || e.first == DT_RPATH ||
                     e.first == DT_RUNPATH;
    if (is_string && (!dyn.Has(DT_STRTAB) || e.second >= str_size)) {
      f.Damaged("a library name or search path of the dynamic section (offset ", e.second,
                ") is outside its string table (", str_size, " bytes)");
    }
  }
  std::vector<std::string> names = ExportedNames(f, map, dyn);
  if (names.empty()) {
    Throw("RuntimeError", api, ": \"", path,
          "\" exports no TVM-FFI functions (no symbol named `__tvm_ffi_<name>`); export them "
          "with TVM_FFI_DLL_EXPORT_TYPED_FUNC");
  }
  return names;
}

}  // namespace rt
}  // namespace tvmffi

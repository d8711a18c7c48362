/*
 * TVMFFIBacktrace: a cheap text backtrace of the calling thread.
 *
 * Return addresses come from _Unwind_Backtrace (the unwinder reads only
 * what the unwind tables describe, so it is sound under every sanitizer; this
 * file reads no stack memory itself). Unwinding stops at the FFI boundary or
 * the frame limit. The boundary is a frame inside libtvmffi, or the first
 * frame that catches tvm::ffi::Error (a safe-call entry: TVMFFIFunctionCall
 * jumps into it, so no libtvmffi frame is on the stack), read from the
 * frame's exception table. So the usual throw from a kernel unwinds only the
 * kernel's few frames, whatever the caller's stack looks like.
 *
 * Each address is turned into "  at <symbol> (<library>+0x<offset>)" with
 * dladdr (and the C++ demangler) once; that text and the catch verdict are
 * cached per address, so a repeated error costs the unwind of its own frames
 * and nothing more. dladdr knows only exported symbols, so a kernel's helpers
 * (static, or hidden by -fvisibility=hidden) are named from the file's
 * .symtab when it has one (not stripped), else shown as "  at <library>+0x<offset>";
 * a frame in no file at all (JIT code) is left out.
 *
 * Environment (read once):
 *   TVM_FFI_BACKTRACE=0           no frames at all (only the optional first line)
 *   TVM_TRACEBACK_LIMIT=N         at most N frames (default 32, at most 256)
 *   TVM_FFI_BACKTRACE_DEMANGLE=0  print mangled C++ names
 */
#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <unwind.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <typeinfo>
#include <unordered_map>

#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

constexpr int kMaxFrames = 256;
// Leading frames inside libtvmffi (the capture machinery) are dropped; at
// most this many, so a chain that never leaves libtvmffi stays bounded.
constexpr int kSelfSlack = 16;

struct Config {
  bool enabled = true;
  bool demangle = true;
  int limit = 32;

  Config() {
    if (const char* v = std::getenv("TVM_FFI_BACKTRACE")) enabled = std::strcmp(v, "0") != 0;
    if (const char* v = std::getenv("TVM_FFI_BACKTRACE_DEMANGLE"))
      demangle = std::strcmp(v, "0") != 0;
    if (const char* v = std::getenv("TVM_TRACEBACK_LIMIT")) {
      long n = std::strtol(v, nullptr, 10);
      limit = n < 0 ? 0 : (n > kMaxFrames ? kMaxFrames : static_cast<int>(n));
    }
  }
};

const Config& GetConfig() {
  static const Config config;
  return config;
}

struct Frame {
  std::string text;            // one formatted line, with its newline
  bool catches_error = false;  // the call at this address is inside a catch of ffi::Error
};

// The library's own load address, to recognise its frames.
void* SelfBase() {
  static void* base = [] {
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&TVMFFIBacktrace), &info) != 0) return info.dli_fbase;
    return static_cast<void*>(nullptr);
  }();
  return base;
}

// The function symbols of one file's .symtab (local and hidden ones
// included), sorted by address; empty when the file is stripped or unreadable.
struct SymTab {
  bool shared_object = true;  // ET_DYN: symbol values are offsets from the load base
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;  // [start, end)
  std::vector<std::string> names;
};

std::unique_ptr<SymTab> ReadSymTab(const char* path) {
  auto tab = std::make_unique<SymTab>();
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return tab;
  struct stat st;
  void* map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size >= static_cast<off_t>(sizeof(ElfW(Ehdr)))) {
    map = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  }
  close(fd);
  if (map == MAP_FAILED) return tab;
  const auto* base = static_cast<const uint8_t*>(map);
  const size_t size = static_cast<size_t>(st.st_size);
  auto in_file = [size](uint64_t off, uint64_t len) { return off <= size && len <= size - off; };
  const auto* eh = reinterpret_cast<const ElfW(Ehdr)*>(base);
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0 &&
      eh->e_ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32) &&
      eh->e_shentsize == sizeof(ElfW(Shdr)) &&
      in_file(eh->e_shoff, uint64_t{eh->e_shnum} * sizeof(ElfW(Shdr)))) {
    tab->shared_object = eh->e_type == ET_DYN;
    const auto* sh = reinterpret_cast<const ElfW(Shdr)*>(base + eh->e_shoff);
    for (size_t i = 0; i < eh->e_shnum; ++i) {
      if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum) continue;
      const ElfW(Shdr)& strs = sh[sh[i].sh_link];
      if (!in_file(sh[i].sh_offset, sh[i].sh_size) || !in_file(strs.sh_offset, strs.sh_size)) {
        continue;
      }
      const auto* syms = reinterpret_cast<const ElfW(Sym)*>(base + sh[i].sh_offset);
      const char* names = reinterpret_cast<const char*>(base + strs.sh_offset);
      std::vector<std::pair<std::pair<uintptr_t, uintptr_t>, std::string>> found;
      for (size_t k = 0; k < sh[i].sh_size / sizeof(ElfW(Sym)); ++k) {
        const ElfW(Sym)& sym = syms[k];
        if (ELF64_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
            sym.st_size == 0 || sym.st_name >= strs.sh_size) {
          continue;
        }
        const char* name = names + sym.st_name;
        found.push_back({{sym.st_value, sym.st_value + sym.st_size},
                         std::string(name, strnlen(name, strs.sh_size - sym.st_name))});
      }
      std::sort(found.begin(), found.end());
      for (auto& f : found) {
        tab->ranges.push_back(f.first);
        tab->names.push_back(std::move(f.second));
      }
      break;
    }
  }
  munmap(map, size);
  return tab;
}

// The .symtab name of the function containing `pc` in the file `path`
// loaded at `base`, or NULL. Each file is read once, on its first unnamed frame.
const char* SymTabName(const char* path, uintptr_t base, uintptr_t pc) {
  static std::mutex mutex;
  static auto* tabs = new std::map<std::string, std::unique_ptr<SymTab>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto it = tabs->find(path);
  if (it == tabs->end()) it = tabs->emplace(path, ReadSymTab(path)).first;
  const SymTab& tab = *it->second;
  uintptr_t addr = tab.shared_object ? pc - base : pc;
  auto pos =
      std::upper_bound(tab.ranges.begin(), tab.ranges.end(), std::make_pair(addr, ~uintptr_t{0}));
  if (pos == tab.ranges.begin() || addr >= (pos - 1)->second) return nullptr;
  return tab.names[static_cast<size_t>(pos - 1 - tab.ranges.begin())].c_str();
}

Frame Symbolize(uintptr_t pc, bool demangle, bool catches_error) {
  Frame f;
  f.catches_error = catches_error;
  Dl_info info;
  std::memset(&info, 0, sizeof(info));
  // In no file (JIT code): nothing to say about the frame, so it is left out.
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr ||
      info.dli_fname[0] == '\0') {
    return f;
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(info.dli_fbase);
  char off[32];
  std::snprintf(off, sizeof(off), "+0x%zx", static_cast<size_t>(pc - base));
  const char* sym = info.dli_sname;
  if (sym == nullptr) sym = SymTabName(info.dli_fname, base, pc);  // a static or hidden helper
  if (sym == nullptr) {
    f.text = Concat("  at ", info.dli_fname, off, "\n");
    return f;
  }
  std::string name = sym;
  if (demangle && name.size() > 2 && name[0] == '_' && name[1] == 'Z') {
    int status = 0;
    // Freed on every path: the copy into `name` may throw bad_alloc.
    struct Freed {
      char* p;
      ~Freed() { std::free(p); }
    } d{abi::__cxa_demangle(sym, nullptr, nullptr, &status)};
    if (status == 0 && d.p != nullptr) name = d.p;
  }
  f.text = Concat("  at ", name, " (", info.dli_fname, off, ")\n");
  return f;
}

// Address -> formatted frame. Grows without bound only with distinct code
// addresses, which are few; cleared if it ever gets large (e.g. JIT code).
class FrameCache {
 public:
  static FrameCache* Global() {
    static FrameCache* inst = new FrameCache();
    return inst;
  }
  std::shared_mutex mutex;
  std::unordered_map<uintptr_t, Frame> frames;
  static constexpr size_t kMaxEntries = 1 << 14;
};

// [lo, hi) of libtvmffi's mapped segments, to recognise its frames without a
// dladdr per frame.
struct SelfRange {
  uintptr_t lo = 0;
  uintptr_t hi = 0;
};

const SelfRange& GetSelfRange() {
  static const SelfRange range = [] {
    SelfRange r;
    std::pair<void*, SelfRange*> arg(SelfBase(), &r);
    dl_iterate_phdr(
        [](struct dl_phdr_info* info, size_t, void* arg) -> int {
          auto* rr = static_cast<std::pair<void*, SelfRange*>*>(arg);
          if (reinterpret_cast<void*>(info->dlpi_addr) != rr->first) return 0;
          for (int i = 0; i < info->dlpi_phnum; ++i) {
            const auto& ph = info->dlpi_phdr[i];
            if (ph.p_type != PT_LOAD) continue;
            uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
            uintptr_t hi = lo + ph.p_memsz;
            if (rr->second->hi == 0 || lo < rr->second->lo) rr->second->lo = lo;
            if (hi > rr->second->hi) rr->second->hi = hi;
          }
          return 1;
        },
        &arg);
    return r;
  }();
  return range;
}

// ---------------------------------------------------------------------------
// Does the call at `pc` sit inside a `catch (tvm::ffi::Error)`? Read from the
// frame's exception table (the Itanium C++ LSDA, as the C++ personality reads
// it), once per address. Anything not understood answers false: the unwind
// then simply goes on, as it would without this check.
// ---------------------------------------------------------------------------

constexpr uint8_t kEhOmit = 0xff;
constexpr uint8_t kEhIndirect = 0x80;
constexpr uint8_t kEhPcrel = 0x10;

bool ReadUleb(const uint8_t** p, const uint8_t* end, uint64_t* out) {
  uint64_t v = 0;
  for (int shift = 0; *p < end && shift < 64; shift += 7) {
    uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *out = v;
      return true;
    }
  }
  return false;
}

bool ReadSleb(const uint8_t** p, const uint8_t* end, int64_t* out) {
  uint64_t v = 0;
  int shift = 0;
  while (*p < end && shift < 64) {
    uint8_t b = *(*p)++;
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    shift += 7;
    if ((b & 0x80) == 0) {
      if (shift < 64 && (b & 0x40) != 0) v |= ~uint64_t{0} << shift;
      *out = static_cast<int64_t>(v);
      return true;
    }
  }
  return false;
}

// Size of a fixed-size encoded value; 0 for LEB128 or unknown formats.
size_t EncodedSize(uint8_t enc) {
  switch (enc & 0x0f) {
    case 0x00:
      return sizeof(uintptr_t);  // absptr
    case 0x02:
    case 0x0a:
      return 2;
    case 0x03:
    case 0x0b:
      return 4;
    case 0x04:
    case 0x0c:
      return 8;
    default:
      return 0;
  }
}

// One pointer-encoded value (DW_EH_PE_*): absolute or pc-relative, optionally
// indirect. `end` bounds the read (NULL: the type table, bounded by its index).
bool ReadEncoded(const uint8_t** p, const uint8_t* end, uint8_t enc, uintptr_t* out) {
  if (enc == kEhOmit) return false;
  const uint8_t* start = *p;
  uint64_t raw = 0;
  switch (enc & 0x0f) {
    case 0x01: {
      if (!ReadUleb(p, end, &raw)) return false;
      break;
    }
    case 0x09: {
      int64_t v = 0;
      if (!ReadSleb(p, end, &v)) return false;
      raw = static_cast<uint64_t>(v);
      break;
    }
    default: {
      size_t n = EncodedSize(enc);
      if (n == 0 || (end != nullptr && static_cast<size_t>(end - *p) < n)) return false;
      if ((enc & 0x0f) == 0x0a) {
        int16_t v;
        std::memcpy(&v, *p, 2);
        raw = static_cast<uint64_t>(static_cast<int64_t>(v));
      } else if ((enc & 0x0f) == 0x0b) {
        int32_t v;
        std::memcpy(&v, *p, 4);
        raw = static_cast<uint64_t>(static_cast<int64_t>(v));
      } else if (n == 2) {
        uint16_t v;
        std::memcpy(&v, *p, 2);
        raw = v;
      } else if (n == 4) {
        uint32_t v;
        std::memcpy(&v, *p, 4);
        raw = v;
      } else {
        std::memcpy(&raw, *p, 8);
      }
      *p += n;
    }
  }
  uintptr_t v = static_cast<uintptr_t>(raw);
  switch (enc & 0x70) {
    case 0x00:
      break;
    case kEhPcrel:
      if (v != 0) v += reinterpret_cast<uintptr_t>(start);
      break;
    default:
      return false;  // text/data/func-relative: not used by GCC or Clang on ELF
  }
  if (v != 0 && (enc & kEhIndirect) != 0) {
    std::memcpy(&v, reinterpret_cast<const void*>(v), sizeof(v));
  }
  *out = v;
  return true;
}

// Is this type_info tvm::ffi::Error's? Copies of it in other libraries are
// matched by mangled name, as the C++ runtime itself does. The name is read
// with the non-virtual type_info::name(), so a type_info made by another copy
// of the C++ runtime (a library or executable linked with -static-libstdc++,
// whose type_info vtables are its own) is matched too.
bool IsErrorTypeInfo(uintptr_t addr) {
  const std::type_info& mine = typeid(::tvm::ffi::Error);
  if (addr == reinterpret_cast<uintptr_t>(&mine)) return true;
  const char* name = reinterpret_cast<const std::type_info*>(addr)->name();
  const char* my_name = mine.name();
  if (name == nullptr) return false;
  if (*name == '*') ++name;
  if (*my_name == '*') ++my_name;
  return std::strcmp(name, my_name) == 0;
}

bool LsdaCatchesError(const uint8_t* lsda, uintptr_t func_start, uintptr_t pc) {
  if (lsda == nullptr) return false;
  // The header is unbounded in the format; the call-site table length bounds the rest.
  const uint8_t* p = lsda;
  const uint8_t* no_end = reinterpret_cast<const uint8_t*>(~uintptr_t{0});
  uint8_t lpstart_enc = *p++;
  uintptr_t lpstart = func_start;
  if (lpstart_enc != kEhOmit && !ReadEncoded(&p, no_end, lpstart_enc, &lpstart)) return false;
  uint8_t ttype_enc = *p++;
  const uint8_t* ttype_base = nullptr;
  if (ttype_enc != kEhOmit) {
    uint64_t off = 0;
    if (!ReadUleb(&p, no_end, &off)) return false;
    ttype_base = p + off;
  }
  uint8_t cs_enc = *p++;
  uint64_t cs_len = 0;
  if (!ReadUleb(&p, no_end, &cs_len)) return false;
  const uint8_t* cs_end = p + cs_len;
  const uint8_t* actions = cs_end;
  while (p < cs_end) {
    uintptr_t start = 0, len = 0, pad = 0;
    uint64_t action = 0;
    if (!ReadEncoded(&p, cs_end, cs_enc & 0x0f, &start) ||
        !ReadEncoded(&p, cs_end, cs_enc & 0x0f, &len) ||
        !ReadEncoded(&p, cs_end, cs_enc & 0x0f, &pad) || !ReadUleb(&p, cs_end, &action)) {
      return false;
    }
    if (pc < lpstart + start) return false;  // the table is sorted
    if (pc >= lpstart + start + len) continue;
    if (pad == 0 || action == 0 || ttype_base == nullptr) return false;
    size_t entry_size = EncodedSize(ttype_enc);
    if (entry_size == 0) return false;
    const uint8_t* a = actions + (action - 1);
    for (int guard = 0; guard < 64; ++guard) {
      int64_t filter = 0, next = 0;
      if (!ReadSleb(&a, no_end, &filter)) return false;
      const uint8_t* next_at = a;
      if (!ReadSleb(&a, no_end, &next)) return false;
      if (filter > 0) {
        const uint8_t* entry = ttype_base - static_cast<uint64_t>(filter) * entry_size;
        uintptr_t type_info = 0;
        if (!ReadEncoded(&entry, nullptr, ttype_enc, &type_info)) return false;
        if (type_info != 0 && IsErrorTypeInfo(type_info)) return true;
      }
      if (next == 0) return false;
      a = next_at + next;
    }
    return false;
  }
  return false;
}

// ---------------------------------------------------------------------------
// The capture
// ---------------------------------------------------------------------------

// Program counters of the frames to print, with their cache entries while
// the cache's shared lock is held.
struct CaptureState {
  uintptr_t pc[kMaxFrames];
  const Frame* frame[kMaxFrames];
  bool catches[kMaxFrames];  // for frames not in the cache yet
  int n = 0;
  int limit = 0;
  int missing = 0;         // frames not in the cache
  int skipped = 0;         // leading libtvmffi frames passed over
  bool left_self = false;  // a frame outside libtvmffi was seen
  bool cross = false;      // go on past the FFI boundary
  FrameCache* cache = nullptr;
};

_Unwind_Reason_Code CaptureOne(struct _Unwind_Context* ctx, void* arg) {
  auto* st = static_cast<CaptureState*>(arg);
  int before = 0;
  uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);
  if (ip == 0) return _URC_END_OF_STACK;
  // A return address points after the call; step back into it.
  uintptr_t pc = before != 0 ? ip : ip - 1;
  const SelfRange& self = GetSelfRange();
  bool in_self = pc >= self.lo && pc < self.hi;
  if (!st->left_self) {
    // The capture and error machinery inside libtvmffi is not shown.
    if (in_self) return ++st->skipped < kSelfSlack ? _URC_NO_REASON : _URC_END_OF_STACK;
    st->left_self = true;
  } else if (in_self && !st->cross) {
    return _URC_END_OF_STACK;  // where the FFI call that led here was entered
  }
  int i = st->n++;
  st->pc[i] = pc;
  auto it = st->cache->frames.find(pc);
  bool catches;
  if (it != st->cache->frames.end()) {
    st->frame[i] = &it->second;
    catches = it->second.catches_error;
  } else {
    st->frame[i] = nullptr;
    ++st->missing;
    catches = LsdaCatchesError(static_cast<const uint8_t*>(_Unwind_GetLanguageSpecificData(ctx)),
                               _Unwind_GetRegionStart(ctx), pc);
    st->catches[i] = catches;
  }
  // The safe-call entry that catches this error is the last frame of the callee's side.
  if (catches && !st->cross) return _URC_END_OF_STACK;
  return st->n < st->limit ? _URC_NO_REASON : _URC_END_OF_STACK;
}

struct BacktraceBuffer {
  std::string text;
  TVMFFIByteArray array{"", 0};
};
thread_local BacktraceBuffer tls_backtrace;

// Unwind and append the frames' text, through the process-wide cache.
// Inlined into TVMFFIBacktrace: every frame of ours is one more to unwind.
__attribute__((always_inline)) inline void CaptureAndFormat(std::string* out, int limit,
                                                            bool cross) {
  const Config& cfg = GetConfig();
  FrameCache* cache = FrameCache::Global();
  CaptureState st;
  st.limit = limit;
  st.cross = cross;
  st.cache = cache;
  {
    std::shared_lock<std::shared_mutex> lock(cache->mutex);
    _Unwind_Backtrace(CaptureOne, &st);
    if (st.missing == 0) {
      for (int i = 0; i < st.n; ++i) out->append(st.frame[i]->text);
      return;
    }
  }
  // Symbolize outside the lock (dladdr is slow), then publish.
  std::vector<std::pair<uintptr_t, Frame>> fresh;
  for (int i = 0; i < st.n; ++i) {
    if (st.frame[i] == nullptr) {
      fresh.emplace_back(st.pc[i], Symbolize(st.pc[i], cfg.demangle, st.catches[i]));
    }
  }
  std::unique_lock<std::shared_mutex> lock(cache->mutex);
  if (cache->frames.size() + fresh.size() > FrameCache::kMaxEntries) cache->frames.clear();
  for (auto& kv : fresh) cache->frames.emplace(kv.first, std::move(kv.second));
  for (int i = 0; i < st.n; ++i) out->append(cache->frames.find(st.pc[i])->second.text);
}

// The site line already names the throwing function: its own frame, the first
// one captured, would name it a second time. Dropped only when that frame's
// symbol is the site's function (an inlined site shows its caller: kept).
void DropSiteFrame(std::string* text, size_t frames_start, const char* func) {
  std::string_view sig(func);
  std::string_view head = sig.substr(0, sig.find('('));
  size_t cut = head.find_last_of(" :");
  std::string_view name = cut == std::string_view::npos ? head : head.substr(cut + 1);
  if (name.empty()) return;
  size_t eol = text->find('\n', frames_start);
  if (eol == std::string::npos) return;
  std::string_view first(text->data() + frames_start, eol - frames_start);
  if (first.substr(0, 5) != "  at ") return;
  for (size_t pos = first.find(name); pos != std::string_view::npos;
       pos = first.find(name, pos + 1)) {
    char before = first[pos - 1];  // pos >= 5: "  at " comes first
    size_t after_pos = pos + name.size();
    char after = after_pos < first.size() ? first[after_pos] : '\0';
    if ((before == ' ' || before == ':') && (after == '(' || after == '<')) {
      text->erase(frames_start, eol + 1 - frames_start);
      return;
    }
  }
}

}  // namespace
}  // namespace rt
}  // namespace tvmffi

using namespace tvmffi::rt;

extern "C" const TVMFFIByteArray* TVMFFIBacktrace(const char* filename, int lineno,
                                                  const char* func, int cross_ffi_boundary) {
  BacktraceBuffer& buf = tls_backtrace;
  try {
    buf.text.clear();
    if (filename != nullptr || func != nullptr) {
      // The site line in upstream's (Python traceback) form, which upstream's
      // Python package parses into a frame of the exception it raises.
      buf.text.append("  File \"");
      buf.text.append(filename != nullptr ? filename : "<unknown>");
      buf.text.append("\", line ");
      buf.text.append(std::to_string(filename != nullptr ? lineno : 0));
      buf.text.append(", in ");
      buf.text.append(func != nullptr ? func : "<unknown>");
      buf.text.push_back('\n');
    }
    const Config& cfg = GetConfig();
    if (cfg.enabled && cfg.limit > 0) {
      size_t frames_start = buf.text.size();
      CaptureAndFormat(&buf.text, cfg.limit, cross_ffi_boundary != 0);
      if (func != nullptr) DropSiteFrame(&buf.text, frames_start, func);
    }
  } catch (...) {
    ::tvm::ffi::detail::RethrowIfForcedUnwind();
    buf.text.clear();  // out of memory: an empty backtrace is still a valid answer
  }
  buf.array = TVMFFIByteArray{buf.text.c_str(), buf.text.size()};
  return &buf.array;
}

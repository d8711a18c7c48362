/*
 * TVMFFIBacktrace: a cheap text backtrace of the calling thread.
 *
 * Return addresses come from _Unwind_Backtrace (the unwinder reads only
 * what the unwind tables describe, so it is sound under every sanitizer).
 * Unwinding stops at the FFI boundary or the frame limit, so the usual throw
 * from a kernel unwinds only the kernel's few frames. Each address is turned
 * into "  at <symbol> (<library>+0x<offset>)" with dladdr (and the C++
 * demangler), and that text is cached per address, so a repeated error costs
 * little more than the unwind itself.
 *
 * Environment (read once):
 *   TVM_FFI_BACKTRACE=0           no frames at all (only the optional first line)
 *   TVM_TRACEBACK_LIMIT=N         at most N frames (default 32, at most 256)
 *   TVM_FFI_BACKTRACE_DEMANGLE=0  print mangled C++ names
 */
#include <cxxabi.h>
#include <dlfcn.h>
#include <link.h>
#include <unwind.h>

#include <cstdlib>
#include <mutex>
#include <shared_mutex>
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
    if (const char* v = std::getenv("TVM_FFI_BACKTRACE_DEMANGLE")) demangle = std::strcmp(v, "0") != 0;
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
  std::string text;  // one formatted line, with its newline
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

Frame Symbolize(uintptr_t pc, bool demangle) {
  Frame f;
  Dl_info info;
  std::memset(&info, 0, sizeof(info));
  char off[32];
  if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr) {
    std::snprintf(off, sizeof(off), "0x%zx", static_cast<size_t>(pc));
    f.text = Concat("  at ?? (", off, ")\n");
    return f;
  }
  std::snprintf(off, sizeof(off), "+0x%zx",
                static_cast<size_t>(pc - reinterpret_cast<uintptr_t>(info.dli_fbase)));
  std::string name = "??";
  if (info.dli_sname != nullptr) {
    name = info.dli_sname;
    if (demangle && name.size() > 2 && name[0] == '_' && name[1] == 'Z') {
      int status = 0;
      char* d = abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status);
      if (status == 0 && d != nullptr) name = d;
      std::free(d);
    }
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

// Program counters of the frames to print. Unwinding stops as soon as the
// answer is known, so a short call chain from the FFI boundary stays cheap.
struct CaptureState {
  uintptr_t pc[kMaxFrames];
  int n = 0;
  int limit = 0;
  int skipped = 0;         // leading libtvmffi frames passed over
  bool left_self = false;  // a frame outside libtvmffi was seen
  bool cross = false;      // go on past the next libtvmffi frame
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
  st->pc[st->n++] = pc;
  return st->n < st->limit ? _URC_NO_REASON : _URC_END_OF_STACK;
}

struct BacktraceBuffer {
  std::string text;
  TVMFFIByteArray array{"", 0};
};
thread_local BacktraceBuffer tls_backtrace;

// Append the symbolized pcs, through the process-wide cache.
void Format(std::string* out, const uintptr_t* pcs, int n) {
  const Config& cfg = GetConfig();
  FrameCache* cache = FrameCache::Global();
  const Frame* frames[kMaxFrames];
  int missing = 0;
  {
    std::shared_lock<std::shared_mutex> lock(cache->mutex);
    for (int i = 0; i < n; ++i) {
      auto it = cache->frames.find(pcs[i]);
      frames[i] = it == cache->frames.end() ? nullptr : &it->second;
      missing += frames[i] == nullptr;
    }
    if (missing == 0) {
      for (int i = 0; i < n; ++i) out->append(frames[i]->text);
      return;
    }
  }
  // Symbolize outside the lock (dladdr is slow), then publish.
  std::vector<std::pair<uintptr_t, Frame>> fresh;
  for (int i = 0; i < n; ++i) {
    if (frames[i] == nullptr) fresh.emplace_back(pcs[i], Symbolize(pcs[i], cfg.demangle));
  }
  std::unique_lock<std::shared_mutex> lock(cache->mutex);
  if (cache->frames.size() + fresh.size() > FrameCache::kMaxEntries) cache->frames.clear();
  for (auto& kv : fresh) cache->frames.emplace(kv.first, std::move(kv.second));
  for (int i = 0; i < n; ++i) out->append(cache->frames.find(pcs[i])->second.text);
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
      buf.text.append("  at ");
      buf.text.append(func != nullptr ? func : "??");
      if (filename != nullptr) {
        buf.text.append(" (");
        buf.text.append(filename);
        buf.text.push_back(':');
        buf.text.append(std::to_string(lineno));
        buf.text.push_back(')');
      }
      buf.text.push_back('\n');
    }
    const Config& cfg = GetConfig();
    if (cfg.enabled && cfg.limit > 0) {
      CaptureState st;
      st.limit = cfg.limit;
      st.cross = cross_ffi_boundary != 0;
      _Unwind_Backtrace(CaptureOne, &st);
      Format(&buf.text, st.pc, st.n);
    }
  } catch (...) {
    buf.text.clear();  // out of memory: an empty backtrace is still a valid answer
  }
  buf.array = TVMFFIByteArray{buf.text.c_str(), buf.text.size()};
  return &buf.array;
}

/*
 * TVMFFIBacktrace: a cheap text backtrace of the calling thread.
 *
 * Raw return addresses come from _Unwind_Backtrace; each address is turned
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
#include <unwind.h>

#include <pthread.h>

#include <cstdlib>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "internal.h"

namespace tvmffi {
namespace rt {
namespace {

constexpr int kMaxFrames = 256;
// Leading frames inside libtvmffi (the capture machinery) are dropped; allow
// this many of them on top of the limit.
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
  std::string text;   // one formatted line, with its newline
  bool in_self;       // the address lies in libtvmffi
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
    f.in_self = false;
    return f;
  }
  f.in_self = info.dli_fbase == SelfBase();
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

// Raw unwinder output. libgcc reports with each frame the CFA of the frame
// below it, i.e. sp[i] is frame i's stack pointer (at its call) and
// sp[i + 1] is frame i's CFA.
struct CaptureState {
  uintptr_t ip[kMaxFrames + kSelfSlack];
  uintptr_t sp[kMaxFrames + kSelfSlack];
  bool ip_before[kMaxFrames + kSelfSlack];
  int n;
  int max;
};

_Unwind_Reason_Code CaptureOne(struct _Unwind_Context* ctx, void* arg) {
  auto* st = static_cast<CaptureState*>(arg);
  if (st->n >= st->max) return _URC_END_OF_STACK;
  int before = 0;
  uintptr_t ip = _Unwind_GetIPInfo(ctx, &before);
  if (ip == 0) return _URC_END_OF_STACK;
  st->ip[st->n] = ip;
  st->sp[st->n] = _Unwind_GetCFA(ctx);
  st->ip_before[st->n] = before != 0;
  ++st->n;
  return _URC_NO_REASON;
}

struct BacktraceBuffer {
  std::string text;
  TVMFFIByteArray array{"", 0};
};
thread_local BacktraceBuffer tls_backtrace;

// Append frames: drop the leading ones inside libtvmffi (the capture and
// error machinery); without cross_ffi_boundary, stop at the next libtvmffi
// frame, i.e. where the FFI call that led here was entered. Returns how many
// leading frames the text depends on.
int Emit(std::string* out, const Frame* const* frames, int n, int limit, int cross_ffi_boundary) {
  int i = 0;
  while (i < n && frames[i]->in_self) ++i;
  for (int emitted = 0; i < n; ++i) {
    if (emitted == limit) return i;
    if (frames[i]->in_self && !cross_ffi_boundary) return i + 1;
    out->append(frames[i]->text);
    ++emitted;
  }
  return n;
}

// Symbolize pcs (through the process-wide cache) and format them.
int Format(std::string* out, const uintptr_t* pcs, int n, int cross_ffi_boundary) {
  const Config& cfg = GetConfig();
  FrameCache* cache = FrameCache::Global();
  const Frame* frames[kMaxFrames + kSelfSlack];
  int missing = 0;
  {
    std::shared_lock<std::shared_mutex> lock(cache->mutex);
    for (int i = 0; i < n; ++i) {
      auto it = cache->frames.find(pcs[i]);
      frames[i] = it == cache->frames.end() ? nullptr : &it->second;
      missing += frames[i] == nullptr;
    }
    if (missing == 0) return Emit(out, frames, n, cfg.limit, cross_ffi_boundary);
  }
  // Symbolize outside the lock (dladdr is slow), then publish.
  std::vector<std::pair<uintptr_t, Frame>> fresh;
  for (int i = 0; i < n; ++i) {
    if (frames[i] == nullptr) fresh.emplace_back(pcs[i], Symbolize(pcs[i], cfg.demangle));
  }
  std::unique_lock<std::shared_mutex> lock(cache->mutex);
  if (cache->frames.size() + fresh.size() > FrameCache::kMaxEntries) cache->frames.clear();
  for (auto& kv : fresh) cache->frames.emplace(kv.first, std::move(kv.second));
  // Node-based map: pointers to elements stay valid across inserts.
  for (int i = 0; i < n; ++i) frames[i] = &cache->frames.find(pcs[i])->second;
  return Emit(out, frames, n, cfg.limit, cross_ffi_boundary);
}

// ---------------------------------------------------------------------------
// Per-thread cache of whole backtraces.
//
// DWARF unwinding costs ~200 ns a frame, too much for hot error paths, and a
// program usually raises from the same few call chains. So a captured chain is
// remembered together with "witnesses": for each frame, the stack slot (as an
// offset from TVMFFIBacktrace's own frame) that held its return address. A later
// call with the same return address reuses the text if every witness slot it
// depends on still holds the same return address. Every such slot of the
// current chain is written by a call instruction of the current chain, so a
// differing frame shows up as a differing slot; the reads stay inside the
// thread's stack bounds.
// ---------------------------------------------------------------------------

struct Witness {
  intptr_t offset;  // slot address minus the CFA of TVMFFIBacktrace
  uintptr_t value;  // the return address it held
};

struct CachedTrace {
  uintptr_t key = 0;                // return address of TVMFFIBacktrace
  std::vector<Witness> witnesses;   // witnesses[j] proves frame j + 1
  std::vector<uintptr_t> pcs;       // symbolization addresses
  std::string text[2];              // per cross_ffi_boundary
  int depends[2] = {-1, -1};        // frames each text depends on; -1: not built
};

struct TraceCache {
  static constexpr size_t kMaxEntries = 64;
  std::vector<CachedTrace> entries;
  size_t next_victim = 0;
  bool bounds_known = false;
  uintptr_t stack_lo = 0;
  uintptr_t stack_hi = 0;
};
thread_local TraceCache tls_traces;

void InitStackBounds(TraceCache* c) {
  c->bounds_known = true;
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  void* addr = nullptr;
  size_t size = 0;
  if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
    c->stack_lo = reinterpret_cast<uintptr_t>(addr);
    c->stack_hi = c->stack_lo + size;
  }
  pthread_attr_destroy(&attr);
}

// Stack slots of other frames; they may sit next to sanitizer redzones.
__attribute__((no_sanitize("address"))) uintptr_t LoadSlot(uintptr_t addr) {
  return *reinterpret_cast<const volatile uintptr_t*>(addr);
}

// Where frame j keeps the return address into frame j + 1, or 0 if unknown.
uintptr_t FindReturnSlot(const CaptureState& st, int j) {
  uintptr_t want = st.ip[j + 1];
#if defined(__x86_64__)
  uintptr_t slot = st.sp[j + 1] - sizeof(uintptr_t);  // pushed by the call
  return LoadSlot(slot) == want ? slot : 0;
#elif defined(__aarch64__)
  // The frame record (x29, x30) is somewhere in the frame: search it.
  for (uintptr_t a = st.sp[j]; a + sizeof(uintptr_t) <= st.sp[j + 1]; a += sizeof(uintptr_t)) {
    if (LoadSlot(a) == want) return a;
  }
  return 0;
#else
  (void)st;
  (void)want;
  return 0;
#endif
}

const std::string* LookupTrace(uintptr_t key, uintptr_t anchor, int cross) {
  TraceCache& c = tls_traces;
  if (!c.bounds_known) InitStackBounds(&c);
  for (CachedTrace& e : c.entries) {
    if (e.key != key) continue;
    if (e.depends[cross] < 0) {
      e.depends[cross] = Format(&e.text[cross], e.pcs.data(), static_cast<int>(e.pcs.size()), cross);
    }
    // Frame 0 is TVMFFIBacktrace itself; frame k needs witness k - 1.
    size_t needed = e.depends[cross] > 1 ? static_cast<size_t>(e.depends[cross] - 1) : 0;
    if (e.witnesses.size() < needed) continue;
    bool same = true;
    for (size_t k = 0; k < needed && same; ++k) {
      uintptr_t addr = anchor + e.witnesses[k].offset;
      same = addr >= c.stack_lo && addr + sizeof(uintptr_t) <= c.stack_hi &&
             LoadSlot(addr) == e.witnesses[k].value;
    }
    if (same) return &e.text[cross];
  }
  return nullptr;
}

TVMFFI_RT_NOINLINE std::string LearnTrace(uintptr_t key, uintptr_t anchor,
                                          const CaptureState& st, int cross) {
  CachedTrace e;
  e.key = key;
  e.pcs.resize(st.n);
  for (int i = 0; i < st.n; ++i) {
    // A return address points after the call; step back into it.
    e.pcs[i] = st.ip_before[i] ? st.ip[i] : st.ip[i] - 1;
  }
  e.depends[cross] = Format(&e.text[cross], e.pcs.data(), st.n, cross);
  std::string text = e.text[cross];
  // Only cache a chain that starts in TVMFFIBacktrace and has findable slots.
  if (st.n < 2 || st.ip[1] != key || st.sp[1] != anchor) return text;
  for (int j = 0; j + 1 < st.n && !st.ip_before[j + 1]; ++j) {
    uintptr_t slot = FindReturnSlot(st, j);
    if (slot == 0) break;
    e.witnesses.push_back(Witness{static_cast<intptr_t>(slot - anchor), st.ip[j + 1]});
  }
  TraceCache& c = tls_traces;
  if (c.entries.size() < TraceCache::kMaxEntries) {
    c.entries.push_back(std::move(e));
  } else {
    c.entries[c.next_victim] = std::move(e);
    c.next_victim = (c.next_victim + 1) % TraceCache::kMaxEntries;
  }
  return text;
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
      int cross = cross_ffi_boundary != 0 ? 1 : 0;
      // This function's CFA anchors the witness slots; it is the same for
      // every call from the same chain.
      uintptr_t anchor = reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa());
      uintptr_t key = reinterpret_cast<uintptr_t>(__builtin_return_address(0));
      if (const std::string* cached = LookupTrace(key, anchor, cross)) {
        buf.text.append(*cached);
      } else {
        // Unwind from this very function, so frame 0 is this function.
        CaptureState st;
        st.n = 0;
        st.max = cfg.limit + kSelfSlack;
        _Unwind_Backtrace(CaptureOne, &st);
        buf.text.append(LearnTrace(key, anchor, st, cross));
      }
    }
  } catch (...) {
    buf.text.clear();  // out of memory: an empty backtrace is still a valid answer
  }
  buf.array = TVMFFIByteArray{buf.text.c_str(), buf.text.size()};
  return &buf.array;
}

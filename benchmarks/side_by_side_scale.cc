// Side-by-side scaling benchmark: how container, serialization and registry
// costs grow with the amount of work. Like side_by_side.cc, this one source is
// built twice by benchmarks/side_by_side_scale.sh, against our headers and
// libtvmffi and against apache/tvm-ffi's headers and libtvm_ffi, so it uses
// only names both sides have.
//
//   side_by_side_scale --list              "case size" pairs, one a line
//   side_by_side_scale --time [CASE...]    "case size ns_per_op" for each
//                                          pair (all cases, or those named)
//   side_by_side_scale --count CASE SIZE N set the case up at SIZE, then run
//                                          it N times inside the extern "C"
//                                          function sbs_scale_measured (for
//                                          callgrind --toggle-collect), then
//                                          print "per_op K": the units the
//                                          count covers (N, or N * 1024
//                                          registry lookups)
//
// One "op" is the whole piece of work at that size: building an n-element
// Array (and dropping it), n lookups, one pass over n elements, one
// copy-on-write of an n-element container, one serialization of an n-node
// object graph, or one registry lookup in a registry grown to n entries.
// Time per op is the best sample of several (~0.15 s per case and size, at
// least 3, after one warm-up op; short ops run back to back, enough per
// sample to last 20 us; an op over 1 s is timed once); the script keeps the
// best over alternating rounds.
#include <tvm/ffi/any.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/string.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using tvm::ffi::Any;
using tvm::ffi::Array;
using tvm::ffi::Function;
using tvm::ffi::Map;
using tvm::ffi::String;

template <typename T>
inline void Keep(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

// A fixed permutation-like walk over [0, n): visits every index once when n
// is not a multiple of the stride's prime factors (all sizes here are powers
// of ten; 7919 is prime).
inline int64_t Scatter(int64_t i, int64_t n) {
  return (i * 7919) % n;
}
inline size_t ScatterIndex(int64_t i, int64_t n) {
  return static_cast<size_t>(Scatter(i, n));
}

// Keys spread over a wide range, so the hash maps see realistic keys.
inline int64_t KeyOf(int64_t i) {
  return i * 2654435761LL % 1000000007LL;
}

// --- per-case state, built by Setup (untimed) ---------------------------------
struct State {
  int64_t n = 0;
  Array<int64_t> array;
  Map<int64_t, int64_t> int_map;
  Map<String, int64_t> str_map;
  std::vector<String> str_keys;
  Any graph;          // the object graph serialized by to_json
  String graph_text;  // its JSON text, read back by from_json
};
State g;

Array<int64_t> MakeArray(int64_t n) {
  Array<int64_t> a;
  a.reserve(n);
  for (int64_t i = 0; i < n; ++i) a.push_back(i);
  return a;
}

Map<int64_t, int64_t> MakeIntMap(int64_t n) {
  Map<int64_t, int64_t> m;
  for (int64_t i = 0; i < n; ++i) m.Set(KeyOf(i), i);
  return m;
}

// The object graph: an Array of n records; record i is a Map with an int, a
// string (heap-sized: over 8 bytes) and a reference to record i / 2, so the
// graph shares nodes (each record is referenced twice: by the root and by one
// child) and its depth stays log2(n).
Any MakeGraph(int64_t n) {
  Array<Any> records;
  records.reserve(n);
  for (int64_t i = 0; i < n; ++i) {
    Map<String, Any> rec;
    rec.Set("id", i);
    rec.Set("name", String("record_" + std::to_string(i)));
    if (i > 0) rec.Set("parent", records[i / 2]);
    records.push_back(rec);
  }
  return records;
}

// Registry sizes grow within one process: the entries registered so far stay.
int64_t g_globals = 0;
int64_t g_types = 0;
std::vector<std::string> g_global_names;
std::vector<std::string> g_type_keys;

void GrowGlobals(int64_t n) {
  Function f = Function::FromTyped([](int64_t a) { return a + 1; });
  for (; g_globals < n; ++g_globals) {
    g_global_names.push_back("bench.scale.global_" + std::to_string(g_globals));
    Function::SetGlobal(g_global_names.back(), f, true);
  }
}

void GrowTypes(int64_t n) {
  for (; g_types < n; ++g_types) {
    g_type_keys.push_back("bench.scale.Type" + std::to_string(g_types));
    TVMFFIByteArray key{g_type_keys.back().data(), g_type_keys.back().size()};
    int32_t index = TVMFFITypeGetOrAllocIndex(&key, -1, 1, 0, 1, kTVMFFIObject);
    if (index < 0) {
      std::fprintf(stderr, "type registration failed at %lld\n", static_cast<long long>(g_types));
      std::exit(1);
    }
  }
}

// --- the cases -------------------------------------------------------------
#define SCALE_CASE(fn) __attribute__((noinline)) void fn()

// Array<int64_t>: push_back n elements into an empty array (growth included),
// then drop it.
SCALE_CASE(ArrayBuild) {
  Array<int64_t> a;
  for (int64_t i = 0; i < g.n; ++i) a.push_back(i);
  Keep(a.size());
}
// n reads through operator[] in a scattered order.
SCALE_CASE(ArrayLookup) {
  int64_t s = 0;
  const Array<int64_t>& a = g.array;
  for (int64_t i = 0; i < g.n; ++i) s += a[Scatter(i, g.n)];
  Keep(s);
}
// One pass with a range-for.
SCALE_CASE(ArrayIterate) {
  int64_t s = 0;
  for (int64_t x : g.array) s += x;
  Keep(s);
}
// Copy-on-write: a second handle writes one element (the whole array is
// copied), then the copy is dropped.
SCALE_CASE(ArrayCow) {
  Array<int64_t> copy = g.array;
  copy.Set(0, -1);
  Keep(copy.size());
}
// Map<int64_t, int64_t>: Set n keys into an empty map (rehashing included),
// then drop it.
SCALE_CASE(MapBuild) {
  Map<int64_t, int64_t> m;
  for (int64_t i = 0; i < g.n; ++i) m.Set(KeyOf(i), i);
  Keep(m.size());
}
// n lookups of present keys, scattered.
SCALE_CASE(MapLookup) {
  int64_t s = 0;
  const Map<int64_t, int64_t>& m = g.int_map;
  for (int64_t i = 0; i < g.n; ++i) s += m.at(KeyOf(Scatter(i, g.n)));
  Keep(s);
}
// n lookups of present String keys (heap-sized), scattered.
SCALE_CASE(MapLookupStr) {
  int64_t s = 0;
  const Map<String, int64_t>& m = g.str_map;
  for (int64_t i = 0; i < g.n; ++i) s += m.at(g.str_keys[ScatterIndex(i, g.n)]);
  Keep(s);
}
// One pass over the entries.
SCALE_CASE(MapIterate) {
  int64_t s = 0;
  for (const auto& kv : g.int_map) s += kv.second;
  Keep(s);
}
// Copy-on-write: a second handle sets one present key (the whole map is
// copied), then the copy is dropped.
SCALE_CASE(MapCow) {
  Map<int64_t, int64_t> copy = g.int_map;
  copy.Set(KeyOf(0), -1);
  Keep(copy.size());
}
Function g_to_json;
Function g_from_json;
// ffi.ToJSONGraphString of the n-record graph.
SCALE_CASE(ToJson) {
  String text = g_to_json(g.graph, nullptr).cast<String>();
  Keep(text.size());
}
// ffi.FromJSONGraphString of its text, then the result dropped.
SCALE_CASE(FromJson) {
  Any back = g_from_json(g.graph_text);
  Keep(back.type_index());
}
// One Function::GetGlobal of a registered name, in a registry grown to n
// names of ours (the built-in globals come on top). The op is 1024 lookups,
// scattered over the names; printed per lookup.
constexpr int64_t kRegistryLookups = 1024;
SCALE_CASE(GlobalLookup) {
  for (int64_t i = 0; i < kRegistryLookups; ++i) {
    auto f = Function::GetGlobal(g_global_names[ScatterIndex(i, g.n)]);
    Keep(f);
  }
}
// One TVMFFITypeKeyToIndex of a registered key, n types registered.
SCALE_CASE(TypeLookup) {
  for (int64_t i = 0; i < kRegistryLookups; ++i) {
    const std::string& k = g_type_keys[ScatterIndex(i, g.n)];
    TVMFFIByteArray key{k.data(), k.size()};
    int32_t index = -1;
    int rc = TVMFFITypeKeyToIndex(&key, &index);
    Keep(rc);
    Keep(index);
  }
}

enum Needs { kNone, kArray, kIntMap, kStrMap, kGraph, kGraphText, kGlobals, kTypes };

struct Case {
  const char* name;
  void (*run)();
  Needs needs;
  int64_t per_op;  // the printed ns are per this many units (1: per op)
  bool registry;   // sizes 10, 10^3, 10^5 only
};
const Case kCases[] = {
    {"array_build", ArrayBuild, kNone, 1, false},
    {"array_lookup", ArrayLookup, kArray, 1, false},
    {"array_iterate", ArrayIterate, kArray, 1, false},
    {"array_cow", ArrayCow, kArray, 1, false},
    {"map_build", MapBuild, kNone, 1, false},
    {"map_lookup", MapLookup, kIntMap, 1, false},
    {"map_lookup_str", MapLookupStr, kStrMap, 1, false},
    {"map_iterate", MapIterate, kIntMap, 1, false},
    {"map_cow", MapCow, kIntMap, 1, false},
    {"to_json", ToJson, kGraph, 1, false},
    {"from_json", FromJson, kGraphText, 1, false},
    {"global_lookup", GlobalLookup, kGlobals, kRegistryLookups, true},
    {"type_lookup", TypeLookup, kTypes, kRegistryLookups, true},
};
const int64_t kSizes[] = {10, 1000, 100000, 1000000};
const int64_t kRegistrySizes[] = {10, 1000, 100000};

void Setup(const Case& c, int64_t n) {
  g.n = n;
  g.array = Array<int64_t>();
  g.int_map = Map<int64_t, int64_t>();
  g.str_map = Map<String, int64_t>();
  g.str_keys.clear();
  g.graph = Any();
  g.graph_text = String();
  switch (c.needs) {
    case kNone:
      break;
    case kArray:
      g.array = MakeArray(n);
      break;
    case kIntMap:
      g.int_map = MakeIntMap(n);
      break;
    case kStrMap:
      for (int64_t i = 0; i < n; ++i) {
        g.str_keys.push_back(String("feature_" + std::to_string(KeyOf(i))));
        g.str_map.Set(g.str_keys.back(), i);
      }
      break;
    case kGraph:
      g.graph = MakeGraph(n);
      break;
    case kGraphText:
      g.graph_text = g_to_json(MakeGraph(n), nullptr).cast<String>();
      break;
    case kGlobals:
      GrowGlobals(n);
      break;
    case kTypes:
      GrowTypes(n);
      break;
  }
}

}  // namespace

// The measured region for callgrind: --toggle-collect=sbs_scale_measured.
extern "C" __attribute__((noinline)) void sbs_scale_measured(void (*run)(), int64_t reps) {
  for (int64_t i = 0; i < reps; ++i) run();
}

namespace {

double TimeNs(void (*run)()) {
  using Clock = std::chrono::steady_clock;
  auto sample = [&](int64_t k) {  // ns per op over k back-to-back ops
    auto start = Clock::now();
    for (int64_t i = 0; i < k; ++i) run();
    return std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
           static_cast<double>(k);
  };
  // The first op warms caches and first-touches memory. An op over 1 s runs
  // once more and the faster counts: with freed memory kept in the process
  // (GLIBC_TUNABLES, benchmarks/side_by_side_scale.sh) the second one times
  // the code, not how much memory earlier cases happened to leave faulted in.
  double first = sample(1);
  if (first > 1e9) return std::min(first, sample(1));
  // Short ops run back to back, k per sample, so a sample lasts >= 20 us
  // (the clock's own cost and resolution vanish in it).
  int64_t k = 1;
  while (first * static_cast<double>(k) < 2e4) k *= 2;
  double best = 1e300;
  double total = 0;
  for (int rep = 0; rep < 3 || (total < 1.5e8 && rep < 2000); ++rep) {
    double ns = sample(k);
    best = std::min(best, ns);
    total += ns * static_cast<double>(k);
  }
  return best;
}

bool Selected(const char* name, int argc, char** argv) {
  if (argc <= 2) return true;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) return true;
  }
  return false;
}

template <typename F>
void ForEachSize(const Case& c, F f) {
  if (c.registry) {
    for (int64_t n : kRegistrySizes) f(n);
  } else {
    for (int64_t n : kSizes) f(n);
  }
}

}  // namespace

int main(int argc, char** argv) {
  g_to_json = Function::GetGlobalRequired("ffi.ToJSONGraphString");
  g_from_json = Function::GetGlobalRequired("ffi.FromJSONGraphString");
  if (argc >= 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const Case& c : kCases) {
      ForEachSize(c,
                  [&](int64_t n) { std::printf("%s %lld\n", c.name, static_cast<long long>(n)); });
    }
    return 0;
  }
  if (argc == 5 && std::strcmp(argv[1], "--count") == 0) {
    for (const Case& c : kCases) {
      if (std::strcmp(c.name, argv[2]) != 0) continue;
      const int64_t n = std::atoll(argv[3]);
      if (c.needs == kGlobals || c.needs == kTypes) {
        Setup(c, 10);  // the same small first step as --time takes
      }
      Setup(c, n);
      c.run();  // warm
      const int64_t reps = std::atoll(argv[4]);
      sbs_scale_measured(c.run, reps);
      std::printf("per_op %lld\n", static_cast<long long>(reps * c.per_op));
      return 0;
    }
    std::fprintf(stderr, "unknown case %s\n", argv[2]);
    return 2;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--time") == 0) {
    for (const Case& c : kCases) {
      if (!Selected(c.name, argc, argv)) continue;
      ForEachSize(c, [&](int64_t n) {
        Setup(c, n);
        double ns = TimeNs(c.run) / static_cast<double>(c.per_op);
        std::printf("%s %lld %.1f\n", c.name, static_cast<long long>(n), ns);
        std::fflush(stdout);
      });
    }
    return 0;
  }
  std::fprintf(stderr, "usage: %s --list | --time [CASE...] | --count CASE SIZE N\n", argv[0]);
  return 2;
}

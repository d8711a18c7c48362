// Container benchmark: Array, Map and Dict on the hot paths kernel libraries use.
//
// Each case prints ns/op and its ratio to a floor measured in the same run
// (a noinline `int add(int, int)` called through a volatile C function
// pointer). Each case is calibrated to ~0.2 s per repetition; the best of 5
// repetitions is kept.
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/extra/stl.h>
#include <tvm/ffi/tvm_ffi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench_util.h"

namespace {

using namespace tvm::ffi;

using namespace bench;

struct Result {
  std::string name;
  double ns;
};

}  // namespace

int main() {
  std::vector<Result> results;
  const double floor_ns = MeasureNs([](int i) {
    int r = g_add(static_cast<int>(i), 1);
    DoNotOptimize(r);
  });
  results.push_back({"floor: add(int,int) via volatile C fn ptr", floor_ns});

  // ---- Array<int64_t> of 8 through a typed call ----
  Function sum_array = Function::FromTyped([](Array<int64_t> xs) {
    int64_t s = 0;
    for (int64_t x : xs) s += x;
    return s;
  });
  Array<int64_t> eight = {1, 2, 3, 4, 5, 6, 7, 8};
  results.push_back({"typed call f(Array<int64_t> of 8) -> sum", MeasureNs([&](int64_t) {
                       int64_t r = sum_array(eight).cast<int64_t>();
                       DoNotOptimize(r);
                     })});
  Function size_array =
      Function::FromTyped([](const Array<int64_t>& xs) { return static_cast<int64_t>(xs.size()); });
  results.push_back({"typed call f(Array<int64_t> of 8) -> size", MeasureNs([&](int64_t) {
                       int64_t r = size_array(eight).cast<int64_t>();
                       DoNotOptimize(r);
                     })});
  results.push_back({"build Array<int64_t> of 8 + typed call -> sum", MeasureNs([&](int64_t i) {
                       Array<int64_t> xs = {i, 2, 3, 4, 5, 6, 7, 8};
                       int64_t r = sum_array(xs).cast<int64_t>();
                       DoNotOptimize(r);
                     })});
  Function sum_vector = Function::FromTyped([](const std::vector<int64_t>& xs) {
    int64_t s = 0;
    for (int64_t x : xs) s += x;
    return s;
  });
  results.push_back({"typed call f(std::vector<int64_t>) with Array of 8", MeasureNs([&](int64_t) {
                       int64_t r = sum_vector(eight).cast<int64_t>();
                       DoNotOptimize(r);
                     })});

  // ---- Map lookup in a 1k-entry map ----
  constexpr int kEntries = 1000;
  Map<String, int64_t> by_name;
  std::vector<String> names;
  std::vector<String> short_names;
  Map<String, int64_t> by_short_name;
  Map<int64_t, int64_t> by_int;
  std::vector<int64_t> int_keys;
  std::unordered_map<std::string, int64_t> std_map;
  std::vector<std::string> std_names;
  for (int i = 0; i < kEntries; ++i) {
    std::string name = "feature_" + std::to_string(i);  // 9-11 bytes: heap strings
    names.emplace_back(name);
    by_name.Set(names.back(), i);
    short_names.emplace_back("k" + std::to_string(i));  // <= 7 bytes: small strings
    by_short_name.Set(short_names.back(), i);
    int_keys.push_back(static_cast<int64_t>(i) * 2654435761LL % 1000003);
    by_int.Set(int_keys.back(), i);
    std_names.push_back(name);
    std_map[name] = i;
  }
  results.push_back({"Map<String,int64_t> 1k: at(heap-string key)", MeasureNs([&](int64_t i) {
                       int64_t r = by_name.at(names[i % kEntries]);
                       DoNotOptimize(r);
                     })});
  results.push_back({"Map<String,int64_t> 1k: at(small-string key)", MeasureNs([&](int64_t i) {
                       int64_t r = by_short_name.at(short_names[i % kEntries]);
                       DoNotOptimize(r);
                     })});
  results.push_back({"Map<String,int64_t> 1k: Get(missing key)", MeasureNs([&](int64_t i) {
                       Optional<int64_t> r = by_name.Get(short_names[i % kEntries]);
                       DoNotOptimize(r.has_value());
                     })});
  results.push_back({"Map<int64_t,int64_t> 1k: at(int key)", MeasureNs([&](int64_t i) {
                       int64_t r = by_int.at(int_keys[i % kEntries]);
                       DoNotOptimize(r);
                     })});
  results.push_back(
      {"std::unordered_map<std::string,int64_t> 1k: at (ref)", MeasureNs([&](int64_t i) {
         int64_t r = std_map.at(std_names[i % kEntries]);
         DoNotOptimize(r);
       })});
  Function map_get = Function::GetGlobalRequired("ffi.MapGetItem");
  results.push_back({"ffi.MapGetItem(map, heap-string key) global call", MeasureNs([&](int64_t i) {
                       int64_t r = map_get(by_name, names[i % kEntries]).cast<int64_t>();
                       DoNotOptimize(r);
                     })});
  results.push_back({"Map<String,int64_t> 1k: Set existing key (unique)",
                     MeasureNs([&](int64_t i) { by_name.Set(names[i % kEntries], i); })});

  // ---- the small form (at most 4 entries: a linear scan) ----
  Map<String, int64_t> small = {{"k0", 0}, {"k1", 1}, {"k2", 2}, {"k3", 3}};
  results.push_back(
      {"Map<String,int64_t> 4 (small form): at(small-string key)", MeasureNs([&](int64_t i) {
         int64_t r = small.at(short_names[i & 3]);
         DoNotOptimize(r);
       })});
  // ---- Dict: the same table, mutated in place ----
  Dict<String, int64_t> dict;
  for (int i = 0; i < kEntries; ++i) dict.Set(names[i], i);
  results.push_back({"Dict<String,int64_t> 1k: at(heap-string key)", MeasureNs([&](int64_t i) {
                       int64_t r = dict.at(names[i % kEntries]);
                       DoNotOptimize(r);
                     })});
  results.push_back({"Dict<String,int64_t> 1k: Set existing key",
                     MeasureNs([&](int64_t i) { dict.Set(names[i % kEntries], i); })});
  // ---- insertion with growth, per inserted key ----
  constexpr int kBuild = 1000;
  double build_ns = MeasureNs([&](int64_t) {
    Map<int64_t, int64_t> m;
    for (int k = 0; k < kBuild; ++k) m.Set(int_keys[k], k);
    DoNotOptimize(m.size());
  });
  results.push_back({"Map<int64_t,int64_t>: build 1k by Set, per key", build_ns / kBuild});

  std::printf("%-56s %10s %9s\n", "case", "ns/op", "x floor");
  for (const Result& r : results) {
    std::printf("%-56s %10.2f %9.2f\n", r.name.c_str(), r.ns, r.ns / floor_ns);
  }
  return 0;
}

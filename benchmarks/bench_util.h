// Shared timing harness of the CPU benchmarks: the floor function, an
// optimisation barrier, and an auto-calibrated best-of-5 ns/op measurement.
#ifndef TVMFFI_BENCHMARKS_BENCH_UTIL_H_
#define TVMFFI_BENCHMARKS_BENCH_UTIL_H_

#include <tvm/ffi/base_detail.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

// The floor: a noinline add called through a volatile C function pointer.
TVM_FFI_NOINLINE inline int add(int a, int b) {
  return a + b;
}
inline int (*volatile g_add)(int, int) = add;

// Keep a value (and everything it depends on) alive without emitting code.
template <typename T>
inline void DoNotOptimize(const T& value) {
  asm volatile("" : : "r,m"(value) : "memory");
}

using Clock = std::chrono::steady_clock;

template <typename Body>
double RunOnce(Body& body, int64_t iters) {
  auto start = Clock::now();
  for (int64_t i = 0; i < iters; ++i) body(static_cast<int>(i));
  return std::chrono::duration<double, std::nano>(Clock::now() - start).count();
}

// ns per iteration: grow until one run takes 20 ms, aim each repetition at
// 200 ms, keep the best of 5.
template <typename Body>
double MeasureNs(Body body) {
  int64_t iters = 64;
  for (;;) {
    double ns = RunOnce(body, iters);
    if (ns >= 2e7) {
      iters = static_cast<int64_t>(static_cast<double>(iters) * 2e8 / ns) + 1;
      break;
    }
    iters *= 4;
  }
  double best = 1e300;
  for (int rep = 0; rep < 5; ++rep) best = std::min(best, RunOnce(body, iters) / iters);
  return best;
}

// ns of one floor call.
inline double MeasureFloorNs() {
  return MeasureNs([](int i) {
    int r = g_add(i, 1);
    DoNotOptimize(r);
  });
}

struct Row {
  std::string name;
  double ns;
  double target;  // max ratio to the floor; <= 0: informational
};

// Print the table (name column `width` wide): ns/op, ratio to the floor and,
// for rows with a target, ok or MISS. Returns how many rows missed.
inline int PrintRows(const std::vector<Row>& rows, double floor_ns, int width) {
  std::printf("%-*s %10s %9s %8s\n", width, "case", "ns/op", "ratio", "target");
  int missed = 0;
  for (const Row& row : rows) {
    double ratio = row.ns / floor_ns;
    if (row.target > 0) {
      bool ok = ratio <= row.target;
      missed += ok ? 0 : 1;
      std::printf("%-*s %10.2f %9.2f    <= %-5g %s\n", width, row.name.c_str(), row.ns, ratio,
                  row.target, ok ? "ok" : "MISS");
    } else {
      std::printf("%-*s %10.2f %9.2f %8s\n", width, row.name.c_str(), row.ns, ratio, "-");
    }
  }
  return missed;
}

}  // namespace bench

#endif  // TVMFFI_BENCHMARKS_BENCH_UTIL_H_

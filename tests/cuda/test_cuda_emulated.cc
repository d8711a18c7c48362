// The CUDA kernels' bodies run on CPU threads: one std::thread per CUDA thread,
// __syncthreads and warp shuffles emulated with barriers, blocks one after
// another. This checks the index arithmetic (scalar head / vector body /
// tail, grid-stride and row-stride loops), the launch plans and the
// reductions (including online softmax) on machines without a GPU. It cannot
// check what only hardware shows: alignment faults, memory ordering, speed.
//
// The kernel headers are included after the emulation prelude; their <<<>>>
// launchers are compiled out (no __CUDACC__), the plans are the real ones.

#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

// --- emulation prelude: CUDA keywords and builtins on the host ------------
#define __global__
#define __device__
#define __host__
#define __shared__ static  // blocks run one at a time, so one copy serves each
#define __launch_bounds__(...)
#pragma GCC diagnostic ignored "-Wunknown-pragmas"  // the kernels' #pragma unroll
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace emu {

class Barrier {
 public:
  explicit Barrier(int n) : n_(n) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    const int gen = gen_;
    if (++count_ == n_) {
      count_ = 0;
      ++gen_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen != gen_; });
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_, count_ = 0, gen_ = 0;
};

struct Block {
  explicit Block(unsigned threads) : sync(static_cast<int>(threads)), slots(threads) {
    for (unsigned w = 0; w < (threads + 31) / 32; ++w) warps.emplace_back(new Barrier(32));
  }
  Barrier sync;
  std::vector<std::unique_ptr<Barrier>> warps;
  std::vector<float> slots;
};

thread_local Block* tl_block = nullptr;

}  // namespace emu

thread_local uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

inline void __syncthreads() {
  emu::tl_block->sync.Wait();
}

inline float __shfl_xor_sync(unsigned /*mask*/, float v, int lane_mask) {
  emu::Block* b = emu::tl_block;
  const unsigned t = threadIdx.x, warp = t / 32, lane = t % 32;
  b->slots[t] = v;
  b->warps[warp]->Wait();
  const float r = b->slots[warp * 32 + (lane ^ static_cast<unsigned>(lane_mask))];
  b->warps[warp]->Wait();  // nobody overwrites a slot before everyone read it
  return r;
}

inline float rsqrtf(float x) {
  return 1.0f / std::sqrt(x);
}

#include "elementwise.cuh"
#include "rowwise.cuh"
// --------------------------------------------------------------------------

#include <catch2/catch_test_macros.hpp>

namespace {

using namespace tvmffi_kernels;

/*!
 * \brief Run `kernel` over grid x block. With `cooperative`, each CUDA thread
 *        is an OS thread (needed for barriers and shuffles); without, the
 *        threads of a block run one after another (kernels with no communication).
 */
template <typename F>
void Emulate(unsigned grid, unsigned block, bool cooperative, F kernel) {
  REQUIRE(block % 32 == 0);
  gridDim = dim3(grid);
  blockDim = dim3(block);
  for (unsigned b = 0; b < grid; ++b) {
    emu::Block blk(block);
    if (!cooperative) {
      emu::tl_block = &blk;
      for (unsigned t = 0; t < block; ++t) {
        threadIdx = make_uint3(t, 0, 0);
        blockIdx = make_uint3(b, 0, 0);
        kernel();
      }
      continue;
    }
    std::vector<std::thread> threads;
    threads.reserve(block);
    for (unsigned t = 0; t < block; ++t) {
      threads.emplace_back([&, b, t] {
        emu::tl_block = &blk;
        threadIdx = make_uint3(t, 0, 0);
        blockIdx = make_uint3(b, 0, 0);
        kernel();
      });
    }
    for (auto& th : threads) th.join();
  }
}

template <typename T>
double ToD(T v) {
  return static_cast<double>(v);
}
template <>
double ToD<__half>(__half v) {
  return __half2float(v);
}
template <>
double ToD<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <typename T>
T FromD(double v) {
  return static_cast<T>(v);
}
template <>
__half FromD<__half>(double v) {
  return __float2half(static_cast<float>(v));
}
template <>
__nv_bfloat16 FromD<__nv_bfloat16>(double v) {
  return __float2bfloat16(static_cast<float>(v));
}
template <typename T>
double Tol() {
  return std::is_same<T, float>::value           ? 1e-5
         : std::is_same<T, __half>::value        ? 1e-3
         : std::is_same<T, __nv_bfloat16>::value ? 1e-2
                                                 : 0.0;
}

template <typename T>
std::vector<T> Random(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = FromD<T>(std::is_integral<T>::value ? std::floor(d(rng)) : d(rng));
  return v;
}

/*! \brief Count elements off by more than the tolerance, and guard elements touched. */
template <typename T>
void Expect(const std::vector<T>& got, size_t off, const std::vector<double>& ref, double rtol,
            double atol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double g = ToD(got[off + i]);
    if (!(std::fabs(g - ref[i]) <= atol + rtol * std::fabs(ref[i]))) {
      if (bad++ == 0) first = i;
    }
  }
  size_t clobbered = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if ((i < off || i >= off + ref.size()) && ToD(got[i]) != 7.0) ++clobbered;
  }
  if (bad) {
    INFO("first bad index " << first << ": got " << ToD(got[off + first]) << " want "
                            << ref[first]);
    CHECK(bad == 0);
  }
  CHECK(clobbered == 0);
}

// A small grid cap so that big sizes exercise the tile-stride and unrolled loops.
constexpr unsigned kEmuMaxBlocks = 6;

/*!
 * \brief Plan p with another geometry, as the kernel of that choice would run it
 *        (blocks capped at kEmuMaxBlocks).
 */
ElementwisePlan Regeometry(ElementwisePlan p, int unroll, unsigned threads, bool streaming,
                           bool wide, int64_t n) {
  if (p.vec > 1) p.unroll = unroll, p.streaming = streaming;
  p.threads = threads;
  p.wide = wide;
  const int64_t slots = p.vec > 1 ? p.nvec + (n - p.nvec * p.vec) : n;
  const int64_t tile = int64_t{p.threads} * p.unroll;
  p.blocks = static_cast<unsigned>(std::min<int64_t>((slots + tile - 1) / tile, kEmuMaxBlocks));
  return p;
}

/*! \brief Run plan p of one elementwise op through the kernel the launcher would pick. */
template <typename T, int N, typename Op>
void EmulateElementwise(const ElementwisePlan& p, T* out, const Inputs<T, N>& in, int64_t n,
                        Op op) {
  VisitElementwiseKernel<T, N, Op>(p, [&](auto kernel) {
    Emulate(p.blocks, p.threads, false, [&] { kernel(out, in, p.head, p.nvec, n, op); });
  });
}

template <typename T, int N, typename Op>
void RunElementwise(int64_t n, int64_t off_out, int64_t off_a, int64_t off_b, Op op,
                    double (*ref_fn)(double, double)) {
  INFO("n " << n << " offsets " << off_out << "/" << off_a << "/" << off_b << " N " << N
            << " sizeof(T) " << sizeof(T));
  const size_t total = static_cast<size_t>(n + 16);
  const bool integral = std::is_integral<T>::value;
  std::vector<T> a = Random<T>(total, integral ? 0 : -2, integral ? 50 : 2, 3);
  std::vector<T> b = Random<T>(total, integral ? 0 : -2, integral ? 50 : 2, 4);
  std::vector<T> out(total, FromD<T>(7.0));
  Inputs<T, N> in;
  in.p[0] = a.data() + off_a;
  if constexpr (N == 2) in.p[1] = b.data() + off_b;
  T* o = out.data() + off_out;
  if (n > 0) {
    const ElementwisePlan p = PlanElementwise<T, N>(o, in, n, 132, 50 << 20);
    // A 16-byte body starts 16-byte aligned for out, and for every input
    // unless the plan cuts shifted input packs (offsets that disagree).
    bool agree = true;
    for (int k = 0; k < N; ++k) {
      agree = agree &&
              (reinterpret_cast<uintptr_t>(o) - reinterpret_cast<uintptr_t>(in.p[k])) % 16 == 0;
    }
    CHECK(p.shifted == (p.vec > 1 && !agree));
    if (p.vec > 1 && p.nvec > 0) {
      CHECK(reinterpret_cast<uintptr_t>(o + p.head) % 16 == 0);
      for (int k = 0; k < N; ++k) {
        CHECK((p.shifted || reinterpret_cast<uintptr_t>(in.p[k] + p.head) % 16 == 0));
      }
    }
    CHECK(p.head + p.nvec * p.vec <= n);
    // Edges are scalar remainders only (one more pack when shifted).
    CHECK(n - p.head - p.nvec * p.vec < (p.shifted ? 3 : 2) * p.vec);
    // Every kernel the visitor can pick, on a short grid: each writes the same values.
    for (bool wide : {false, true}) {
      EmulateElementwise<T, N>(Regeometry(p, 1, 128, false, wide, n), o, in, n, op);
      EmulateElementwise<T, N>(Regeometry(p, 1, 256, false, wide, n), o, in, n, op);
      EmulateElementwise<T, N>(Regeometry(p, kMidUnroll, 256, false, wide, n), o, in, n, op);
      EmulateElementwise<T, N>(Regeometry(p, LargeUnroll<N>(), 64, true, wide, n), o, in, n, op);
    }
  }
  std::vector<double> ref(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    ref[i] = ToD(FromD<T>(ref_fn(ToD(a[off_a + i]), N == 2 ? ToD(b[off_b + i]) : 0.0)));
  }
  Expect(out, static_cast<size_t>(off_out), ref, 2 * Tol<T>(), 2 * Tol<T>());
}

template <typename T>
void AllElementwise(int64_t n, int64_t oo, int64_t oa, int64_t ob) {
  RunElementwise<T, 1>(n, oo, oa, ob, ScaleOp<T>{Acc<T>(-2.5)},
                       [](double x, double) { return x * -2.5; });
  RunElementwise<T, 1>(n, oo, oa, ob, AddOneOp<T>{}, [](double x, double) { return x + 1; });
  RunElementwise<T, 2>(n, oo, oa, ob, AddOp<T>{}, [](double x, double y) { return x + y; });
  RunElementwise<T, 2>(n, oo, oa, ob, AxpyOp<T>{Acc<T>(0.75)},
                       [](double x, double y) { return 0.75 * x + y; });
}

template <typename T>
void RunRows(bool softmax, int64_t rows, int cols, int64_t off, unsigned max_grid,
             int neg_inf_cols = 0) {
  INFO((softmax ? "softmax" : "rmsnorm")
       << " rows " << rows << " cols " << cols << " offset " << off << " sizeof(T) " << sizeof(T)
       << " -inf columns " << neg_inf_cols);
  const size_t numel = static_cast<size_t>(rows * cols);
  std::vector<T> x = Random<T>(numel + off + 8, -3, 3, static_cast<uint32_t>(cols));
  // Every other row starts with neg_inf_cols -inf values (whole vectors of some lanes).
  for (int64_t r = 0; r < rows; r += 2) {
    for (int c = 0; c < neg_inf_cols; ++c) x[off + r * cols + c] = FromD<T>(-INFINITY);
  }
  std::vector<T> w = Random<T>(cols + off + 8, 0.5, 1.5, 5);
  std::vector<T> out(numel + off + 8, FromD<T>(7.0));
  T* o = out.data() + off;
  const T* xp = x.data() + off;
  const T* wp = w.data() + off;
  auto run = [&](const RowPlan& plan, auto kernel) {
    RowPlan p = plan;
    p.grid = std::min(p.grid, max_grid);  // a short grid exercises the row-stride loop
    INFO("plan: mode " << static_cast<int>(p.mode) << " lanes " << p.lanes << " vpt " << p.vpt
                       << " rpg " << p.rpg << " block " << p.block << " grid " << p.grid);
    Emulate(p.grid, p.block, true, [&] {
      if constexpr (std::is_invocable_v<decltype(kernel), T*, const T*, int64_t, int>) {
        kernel(o, xp, rows, cols);
      } else {
        kernel(o, xp, wp, rows, cols, 1e-6f);
      }
    });
  };
  if (softmax) {
    WithRowKernel<true, T>(rows, cols, {o, xp}, run);
  } else {
    WithRowKernel<false, T>(rows, cols, {o, xp, wp}, run);
  }
  std::vector<double> ref(numel);
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = xp + r * cols;
    double* rr = ref.data() + r * cols;
    if (softmax) {
      double m = -INFINITY, s = 0;
      for (int c = 0; c < cols; ++c) m = std::max(m, ToD(xr[c]));
      for (int c = 0; c < cols; ++c) s += std::exp(ToD(xr[c]) - m);
      for (int c = 0; c < cols; ++c) rr[c] = std::exp(ToD(xr[c]) - m) / s;
    } else {
      double ss = 0;
      for (int c = 0; c < cols; ++c) ss += ToD(xr[c]) * ToD(xr[c]);
      const double inv = 1 / std::sqrt(ss / cols + 1e-6);
      for (int c = 0; c < cols; ++c) rr[c] = ToD(xr[c]) * inv * ToD(wp[c]);
    }
  }
  const double atol =
      softmax ? Tol<T>() * 1e-2 / cols + (std::is_same<T, __half>::value ? 6e-8 : 0) : Tol<T>();
  Expect(out, static_cast<size_t>(off), ref, Tol<T>(), atol);
}

}  // namespace

TEST_CASE("emulated elementwise kernels: sizes and alignments", "[cuda][emulated]") {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{7}, int64_t{1023}, int64_t{70001}}) {
    AllElementwise<float>(n, 0, 0, 0);
    AllElementwise<__half>(n, 0, 0, 0);
    AllElementwise<__nv_bfloat16>(n, 0, 0, 0);
    AllElementwise<float>(n, 1, 1, 1);  // common misalignment: scalar head
    AllElementwise<__half>(n, 5, 5, 5);
    AllElementwise<__nv_bfloat16>(n, 0, 3, 0);  // mixed: shifted input packs
    AllElementwise<float>(n, 2, 0, 1);
    AllElementwise<__half>(n, 1, 6, 3);  // every shift of a 16-bit input
    AllElementwise<__half>(n, 7, 0, 5);
  }
  // Integer and float64 add_one, as the library dispatches them.
  for (int64_t n : {int64_t{5}, int64_t{4099}}) {
    RunElementwise<int32_t, 1>(n, 0, 0, 0, AddOneOp<int32_t>{},
                               [](double x, double) { return x + 1; });
    RunElementwise<int8_t, 1>(n, 3, 3, 0, AddOneOp<int8_t>{},
                              [](double x, double) { return x + 1; });
    RunElementwise<int64_t, 1>(n, 1, 0, 0, AddOneOp<int64_t>{},
                               [](double x, double) { return x + 1; });
    RunElementwise<double, 1>(n, 0, 0, 0, AddOneOp<double>{},
                              [](double x, double) { return x + 1; });
  }
}

TEST_CASE("emulated row kernels: every plan", "[cuda][emulated]") {
  struct Shape {
    int64_t rows;
    int cols;
  };
  // group mode (8/16/32 lanes, 1-4 rows each), cached block, streaming block (long rows);
  // vector and scalar widths; grids shorter than the row count.
  for (Shape s : {Shape{1, 1}, Shape{3, 7}, Shape{37, 16}, Shape{70, 128}, Shape{9, 32},
                  Shape{19, 256}, Shape{6, 512}, Shape{2, 513}, Shape{3, 4096}, Shape{1, 16384},
                  Shape{2, 16392}, Shape{1, 20001}}) {
    for (bool softmax : {false, true}) {
      RunRows<float>(softmax, s.rows, s.cols, 0, 2);
      RunRows<__half>(softmax, s.rows, s.cols, 0, 2);
      RunRows<__nv_bfloat16>(softmax, s.rows, s.cols, 0, 2);
      RunRows<float>(softmax, s.rows, s.cols, 1, 1);  // misaligned rows: scalar path
    }
  }
  // Softmax with -inf entries: lanes whose values are all -inf contribute nothing.
  for (int neg_inf_cols : {16, 100}) {
    RunRows<float>(true, 70, 128, 0, 2, neg_inf_cols);
    RunRows<__half>(true, 70, 128, 0, 2, neg_inf_cols);
    RunRows<__nv_bfloat16>(true, 70, 128, 0, 2, neg_inf_cols);
    RunRows<__half>(true, 5, 72, 0, 2, neg_inf_cols / 2);  // 9 vectors: masked slots
  }
}

TEST_CASE("emulated kernels in place", "[cuda][emulated]") {
  const int64_t rows = 3, cols = 4100;
  std::vector<float> x = Random<float>(rows * cols, -2, 2, 8);
  std::vector<float> buf = x;
  Inputs<float, 2> in{{buf.data(), buf.data()}};
  const ElementwisePlan p = Regeometry(PlanElementwise<float, 2>(buf.data(), in, rows * cols, 4, 0),
                                       kMidUnroll, 256, false, false, rows * cols);
  EmulateElementwise<float, 2>(p, buf.data(), in, rows * cols, AddOp<float>{});
  size_t bad = 0;
  for (size_t i = 0; i < x.size(); ++i) bad += buf[i] != 2 * x[i];
  CHECK(bad == 0);

  buf = x;
  const RowPlan rp = PlanRows(rows, cols / 4, 4);
  REQUIRE(rp.mode == RowMode::kBlock);
  Emulate(rp.grid, rp.block, true, [&] {
    SoftmaxCachedKernel<float, 4, 32, 4, 1, true>(buf.data(), buf.data(), rows, cols);
  });
  bad = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) {
      const double ref = std::exp(x[r * cols + c] - m) / s;
      bad += std::fabs(buf[r * cols + c] - ref) > 1e-5 * ref;
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("emulated launch plans pick the documented geometry", "[cuda][emulated]") {
  // Group mode: every thread holds 4 vectors (64 bytes) of rows.
  // fp32 [*, 128]: 32 vectors, 32 lanes x 1 vector x 4 rows; 4 warps hold 16 rows.
  RowPlan p = PlanRows(65536, 32, 4);
  CHECK(p.mode == RowMode::kGroup);
  CHECK((p.lanes == 32 && p.vpt == 1 && p.rpg == 4));
  CHECK(p.block == 128);
  CHECK(p.grid == 65536 / 16);
  // bf16 [*, 128]: 16 vectors, half-warp groups, 2 groups x 4 rows per warp.
  p = PlanRows(65536, 16, 8);
  CHECK((p.mode == RowMode::kGroup && p.lanes == 16 && p.vpt == 1 && p.rpg == 4));
  CHECK(p.grid == 65536 / 32);
  // ... except for a 16-bit type (both ops): 8 lanes x 2 vectors x 1 row, 4 groups per warp.
  p = PlanRowsOf(65536, 16, 8, 2);
  CHECK((p.mode == RowMode::kGroup && p.lanes == 8 && p.vpt == 2 && p.rpg == 1));
  CHECK(p.grid == 65536 / 16);
  p = PlanRowsOf(65536, 32, 4, 4);  // fp32 keeps PlanRows' geometry
  CHECK((p.lanes == 32 && p.vpt == 1 && p.rpg == 4));
  p = PlanRowsOf(65536, 8, 8, 2);  // rows of up to 8 vectors already use 8 lanes
  CHECK((p.lanes == 8 && p.vpt == 1 && p.rpg == 4));
  p = PlanRows(10, 3, 4);
  CHECK((p.lanes == 8 && p.rpg == 4));
  CHECK(p.grid == 1);
  p = PlanRows(10, 64, 8);
  CHECK((p.lanes == 32 && p.vpt == 2 && p.rpg == 2));
  p = PlanRows(10, 128, 4);
  CHECK((p.mode == RowMode::kGroup && p.lanes == 32 && p.vpt == 4 && p.rpg == 1));
  CHECK(p.grid == 3);
  // fp32 [*, 4096] vectorised: 1024 vectors, one block of 256 threads per row.
  p = PlanRows(8192, 1024, 4);
  CHECK(p.mode == RowMode::kBlock);
  CHECK(p.block == 256);
  CHECK(p.grid == 8192);
  // bf16 [*, 4096]: 512 vectors of 8, 256 threads of 2 vectors (16 elements).
  p = PlanRows(8192, 512, 8);
  CHECK(p.mode == RowMode::kBlock);
  CHECK(p.vpt == 2);
  CHECK(p.block == 256);
  // Scalar path: 32 lanes x 16 elements, then blocks of up to 1024 x 16, then streaming.
  p = PlanRows(4, 512, 1);
  CHECK((p.mode == RowMode::kGroup && p.lanes == 32 && p.vpt == 16 && p.rpg == 1));
  p = PlanRows(4, 16384, 1);
  CHECK(p.mode == RowMode::kBlock);
  p = PlanRows(4, 16385, 1);
  CHECK(p.mode == RowMode::kStream);
  CHECK(p.block == 1024);
  // Elementwise on an H100 (132 SMs, 50 MiB of L2): aligned float pointers, no head.
  alignas(16) static float buf[64];
  const void* const ptrs[2] = {buf, buf};
  const int64_t l2 = 50 << 20;
  // Small (at most 4096 packs per SM): one pack a thread, 256 threads.
  ElementwisePlan e = PlanElementwise<float>(ptrs, 1 << 18, 132, l2);
  CHECK((e.head == 0 && e.vec == 4 && !e.wide && e.nvec == (1 << 16)));
  CHECK((e.unroll == 1 && e.threads == 256u && e.blocks == 256u && !e.streaming));
  CHECK(PlanElementwise<float>(ptrs, 1000003, 132, l2).unroll == 1);
  // Mid (operands in L2): kMidUnroll packs a thread, 256 threads.
  e = PlanElementwise<float>(ptrs, 4 << 20, 132, l2);
  CHECK((e.unroll == kMidUnroll && e.threads == 256u && !e.streaming));
  CHECK(e.blocks == (1u << 20) / (256 * kMidUnroll));
  // Three operands of 16 MiB (48 MiB) fit in L2: mid. Two of 25 MiB fill it
  // exactly (mid); one float more each is past it: large.
  const void* const three[3] = {buf, buf, buf};
  e = PlanElementwise<float>(three, 4 << 20, 132, l2);
  CHECK((e.unroll == kMidUnroll && e.threads == 256u && !e.streaming));
  CHECK(!PlanElementwise<float>(ptrs, l2 / 8, 132, l2).streaming);
  e = PlanElementwise<float>(ptrs, l2 / 8 + 1, 132, l2);
  CHECK((e.streaming == kLargeStreaming && e.threads == unsigned{kLargeThreads}));
  CHECK(PlanElementwise<float>(three, 18 << 18, 132, l2).streaming == kLargeStreaming);
  // Large (operands exceed L2).
  e = PlanElementwise<float>(ptrs, int64_t{1} << 28, 132, l2);
  CHECK((e.unroll == kLargeUnrollOneInput && e.threads == unsigned{kLargeThreads}));
  CHECK(e.streaming == kLargeStreaming);
  CHECK(e.blocks == (1u << 26) / (kLargeThreads * kLargeUnrollOneInput));
  CHECK(PlanElementwise<float>(three, int64_t{1} << 28, 132, l2).unroll == kLargeUnroll);
  // 2^31 elements and more: 64-bit indices.
  e = PlanElementwise<float>(ptrs, (int64_t{1} << 31) + 3, 132, l2);
  CHECK((e.wide && e.vec == 4 && e.nvec == (int64_t{1} << 29)));
  CHECK(!PlanElementwise<float>(ptrs, 0x7fffffff, 132, l2).wide);
  // Same misalignment: scalar head, then packs; the 3 edge elements get slots of their own.
  const void* const skew[2] = {buf + 1, buf + 1};
  e = PlanElementwise<float>(skew, 10, 132, l2);
  CHECK((e.head == 3 && e.vec == 4 && e.nvec == 1));
  CHECK(e.blocks == 1);
  // Pointers that disagree on their misalignment: out aligned by the head,
  // shifted input packs, the last pack in the tail.
  const void* const mixed[2] = {buf, buf + 1};
  e = PlanElementwise<float>(mixed, 10, 132, l2);
  CHECK((e.vec == 4 && e.shifted && e.head == 0 && e.nvec == 1));
  const void* const mixed2[2] = {buf + 1, buf};
  e = PlanElementwise<float>(mixed2, 10, 132, l2);
  CHECK((e.vec == 4 && e.shifted && e.head == 3 && e.nvec == 0));
  // A pointer not aligned to its element size: one scalar body.
  const void* const odd[2] = {buf, reinterpret_cast<const char*>(buf) + 1};
  e = PlanElementwise<float>(odd, 10, 132, l2);
  CHECK((e.vec == 1 && !e.shifted && e.head == 0 && e.nvec == 10));
  // Fewer elements than the peeled head: all edge.
  e = PlanElementwise<float>(skew, 2, 132, l2);
  CHECK((e.vec == 4 && e.nvec == 0 && e.head == 0));
}

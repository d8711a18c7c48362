// Row-wise kernels over the last dimension of a contiguous [rows, cols]
// tensor: RMSNorm and softmax, fp32 accumulation for every element type.
//
// Geometry (chosen by PlanRows below; measured on an H100 and an H200, see
// benchmarks/RESULTS.md). Memory-bound code runs at copy speed only with
// enough bytes in flight and enough resident threads:
//   * group   rows of at most 32 * 4 vectors: a group of 8, 16 or 32 lanes of
//             one warp owns a row, each thread holds 64 bytes (4 vectors) of
//             4 / vpt rows at once, all loads issued before the first reduction
//             (16-bit rows of 9-16 vectors: 8 lanes x 2 vectors x 1 row kept
//             in floats, one exponential per element; see PlanRowsOf),
//   * block   longer rows up to 1024 threads * 16 elements: one block per row,
//             the row cached in registers (one read, one write of memory),
//   * stream  longer rows still stream through twice (RMSNorm: sum of squares,
//             then scale; softmax: online max/sum in one pass, then the write).
// Vector width VEC is 16 bytes when cols is a multiple of it and every base
// pointer is 16-byte aligned (then every row start is too), 1 element otherwise.
// `out` may be `x` (in-place): each element is written by the thread that read
// it, after its last read. Hence no __restrict__ on `out` and `x`.
#ifndef TVMFFI_KERNELS_CUDA_ROWWISE_CUH_
#define TVMFFI_KERNELS_CUDA_ROWWISE_CUH_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "common.cuh"

namespace tvmffi_kernels {

/*! \brief 16-byte vectors each thread keeps in group mode (64 bytes), whatever the dtype. */
constexpr int kGroupVecsPerThread = 4;
/*! \brief Elements each thread keeps in block mode and on the scalar (unaligned) paths. */
constexpr int kRowElemsPerThread = 16;
constexpr int kMaxRowThreads = 1024;
constexpr int kGroupRowThreads = 128;  // 4 warps per block in group mode
constexpr float kLog2e = 1.4426950408889634f;

/*!
 * \brief Second __launch_bounds__ argument of the cached kernels: 2 asks for
 *        at most 32 registers a thread, so that 8 blocks of 256 threads fit
 *        on an SM (65536 registers); 0 is no bound (nvcc then emits no
 *        .minnctapersm). Left to itself, ptxas gives the bf16 softmax 40
 *        registers and the fp32 RMSNorm 42 in block mode: 6 and 5 blocks of
 *        256 per SM, too few loads in flight for the H200's memory. So
 *        vectorised block mode is bounded for softmax in every dtype and for
 *        the fp32 RMSNorm; neither spills. The 16-bit RMSNorm already fits in
 *        32 registers and is left alone: the bound made ptxas spill 8 bytes
 *        there. Group mode stays unbounded: at 32 registers its kernels
 *        spilled (figures: benchmarks/RESULTS.md, "Figures behind the CUDA
 *        kernels' choices").
 */
constexpr int RowMinBlocksPerSM(bool softmax, bool block, int vec, int elem_bytes) {
  return block && vec > 1 && (softmax || elem_bytes == 4) ? 2 : 0;
}

/*!
 * \brief The threads that share one row and the rows they hold at once.
 *
 * Group mode (kBlock false): LANES lanes of a warp own a row; a warp holds
 * RPG rows per group, interleaved so that one load instruction of the warp
 * touches 32 / LANES neighbouring rows. Every step is warp-uniform (shuffles
 * need the whole warp), rows past the end are masked, not skipped.
 * Block mode (kBlock true, RPG 1): the block owns a row.
 */
template <bool kBlock, int LANES, int RPG>
struct RowGroup {
  static_assert(!kBlock || RPG == 1, "a block owns one row at a time");
  static constexpr int kGroups = kBlock ? 1 : 32 / LANES;  // groups per warp
  static constexpr int kRows = kGroups * RPG;              // rows per warp (block) and step
  __device__ __forceinline__ static int Lane() {
    return kBlock ? static_cast<int>(threadIdx.x) : static_cast<int>(threadIdx.x & (LANES - 1));
  }
  __device__ __forceinline__ static int Size() { return kBlock ? blockDim.x : LANES; }
  __device__ __forceinline__ static int64_t FirstStep() {
    return kBlock ? static_cast<int64_t>(blockIdx.x)
                  : (static_cast<int64_t>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5)) *
                        kRows;
  }
  __device__ __forceinline__ static int64_t StepStride() {
    return kBlock ? static_cast<int64_t>(gridDim.x)
                  : static_cast<int64_t>(gridDim.x) * (blockDim.x >> 5) * kRows;
  }
  /*! \brief The row of slot r in the step starting at base. */
  __device__ __forceinline__ static int64_t Row(int64_t base, int r) {
    return kBlock ? base : base + r * kGroups + static_cast<int>((threadIdx.x & 31) / LANES);
  }
  __device__ __forceinline__ static float Sum(float v, float* smem) {
    return kBlock ? BlockSum(v, smem) : GroupSum<LANES>(v);
  }
  __device__ __forceinline__ static float Max(float v, float* smem) {
    return kBlock ? BlockMax(v, smem) : GroupMax<LANES>(v);
  }
};

template <typename T, int VEC>
__device__ __forceinline__ void LoadFloats(const T* p, float (&f)[VEC]) {
  const Pack<T, VEC> pk = *reinterpret_cast<const Pack<T, VEC>*>(p);
#pragma unroll
  for (int e = 0; e < VEC; ++e) f[e] = ToFloat(pk.v[e]);
}

template <typename T, int VEC>
__device__ __forceinline__ void StoreFloats(T* p, const float (&f)[VEC]) {
  Pack<T, VEC> pk;
#pragma unroll
  for (int e = 0; e < VEC; ++e) pk.v[e] = FromFloat<T>(f[e]);
  *reinterpret_cast<Pack<T, VEC>*>(p) = pk;
}

// 2^x on the special-function unit alone (ex2.approx.ftz: ~2 ulp, denormal
// results flush to zero). exp2f wraps the same instruction in range fixups
// that cost as much again (benchmarks/RESULTS.md, "Figures behind the CUDA
// kernels' choices"). Host builds (the CPU emulation of the tests) use exp2f.
__device__ __forceinline__ float FastExp2(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return exp2f(x);
#endif
}

// Online-softmax state merge: (m, s) stands for s * exp(m - ...). -inf maxima
// carry no mass and must not produce exp(-inf - -inf) = NaN.
__device__ __forceinline__ void MergeMaxSum(float& m, float& s, float m2, float s2) {
  const float mn = fmaxf(m, m2);
  if (mn == -INFINITY) return;
  s = (m == -INFINITY ? 0.f : s * FastExp2((m - mn) * kLog2e)) +
      (m2 == -INFINITY ? 0.f : s2 * FastExp2((m2 - mn) * kLog2e));
  m = mn;
}

/*! \brief MergeMaxSum over aligned groups of LANES lanes (<= 32); the whole warp must call. */
template <int LANES>
__device__ __forceinline__ void GroupMergeMaxSum(float& m, float& s) {
#pragma unroll
  for (int o = LANES / 2; o > 0; o >>= 1) {
    const float m2 = __shfl_xor_sync(kFullMask, m, o);
    const float s2 = __shfl_xor_sync(kFullMask, s, o);
    MergeMaxSum(m, s, m2, s2);
  }
}

// ---------------------------------------------------------------------------
// Cached kernels: the row lives in registers between its read and its write.
// ---------------------------------------------------------------------------

// The rows stay in registers as loaded (16-bit types packed two to a
// register), so a thread's 64 bytes cost 16 registers whatever the dtype and
// occupancy does not halve for 16-bit types; values are widened where used.

template <typename T, int VEC>
__device__ __forceinline__ Pack<T, VEC> LoadPack(const T* p) {
  return *reinterpret_cast<const Pack<T, VEC>*>(p);
}

/*! \brief out = x * rsqrt(mean(x^2) + eps) * weight, rows cached in registers. */
template <typename T, int VEC, int LANES, int VPT, int RPG, bool kBlock>
__global__ void __launch_bounds__(kBlock ? kMaxRowThreads : kGroupRowThreads,
                                  RowMinBlocksPerSM(false, kBlock, VEC, sizeof(T)))
    RMSNormCachedKernel(T* out, const T* x, const T* __restrict__ w, int64_t rows, int cols,
                        float eps) {
  GridDependencyEnter();
  using G = RowGroup<kBlock, LANES, RPG>;
  __shared__ float smem[32];
  const int nvec = cols / VEC;
  const int lane = G::Lane(), gsize = G::Size();
  const float inv_cols = 1.f / static_cast<float>(cols);

  for (int64_t base = G::FirstStep(); base < rows; base += G::StepStride()) {
    Pack<T, VEC> v[RPG][VPT];
    float ss[RPG];
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) v[r][k] = LoadPack<T, VEC>(x + row * cols + j * VEC);
      }
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
      ss[r] = 0.f;
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) {
#pragma unroll
          for (int e = 0; e < VEC; ++e) {
            const float f = ToFloat(v[r][k].v[e]);
            ss[r] = fmaf(f, f, ss[r]);
          }
        }
      }
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) ss[r] = rsqrtf(G::Sum(ss[r], smem) * inv_cols + eps);
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) {
          const Pack<T, VEC> wp = LoadPack<T, VEC>(w + j * VEC);
          float o[VEC];
#pragma unroll
          for (int e = 0; e < VEC; ++e) o[e] = ToFloat(v[r][k].v[e]) * ss[r] * ToFloat(wp.v[e]);
          StoreFloats<T, VEC>(out + row * cols + j * VEC, o);
        }
      }
    }
  }
}

/*!
 * \brief out = exp(x - max) / sum(exp(x - max)), rows cached in registers.
 *        exp is evaluated twice (for the sum and for the output) rather than
 *        kept: registers, not the special-function unit, bound this kernel.
 */
template <typename T, int VEC, int LANES, int VPT, int RPG, bool kBlock>
__global__ void __launch_bounds__(kBlock ? kMaxRowThreads : kGroupRowThreads,
                                  RowMinBlocksPerSM(true, kBlock, VEC, sizeof(T)))
    SoftmaxCachedKernel(T* out, const T* x, int64_t rows, int cols) {
  GridDependencyEnter();
  using G = RowGroup<kBlock, LANES, RPG>;
  __shared__ float smem[32];
  const int nvec = cols / VEC;
  const int lane = G::Lane(), gsize = G::Size();

  for (int64_t base = G::FirstStep(); base < rows; base += G::StepStride()) {
    Pack<T, VEC> v[RPG][VPT];
    float m[RPG], s[RPG];
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) v[r][k] = LoadPack<T, VEC>(x + row * cols + j * VEC);
      }
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
      m[r] = -INFINITY;
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) {
#pragma unroll
          for (int e = 0; e < VEC; ++e) m[r] = fmaxf(m[r], ToFloat(v[r][k].v[e]));
        }
      }
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) m[r] = G::Max(m[r], smem) * kLog2e;
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
      s[r] = 0.f;
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) {
#pragma unroll
          for (int e = 0; e < VEC; ++e)
            s[r] += FastExp2(fmaf(ToFloat(v[r][k].v[e]), kLog2e, -m[r]));
        }
      }
    }
#pragma unroll
    for (int r = 0; r < RPG; ++r) s[r] = 1.f / G::Sum(s[r], smem);
#pragma unroll
    for (int r = 0; r < RPG; ++r) {
      const int64_t row = G::Row(base, r);
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (row < rows && j < nvec) {
          float o[VEC];
#pragma unroll
          for (int e = 0; e < VEC; ++e) {
            o[e] = FastExp2(fmaf(ToFloat(v[r][k].v[e]), kLog2e, -m[r])) * s[r];
          }
          StoreFloats<T, VEC>(out + row * cols + j * VEC, o);
        }
      }
    }
  }
}

/*! \brief f(k, j) for each of a lane's VPT vector slots j that lies in a valid row. */
template <int LANES, int VPT, typename F>
__device__ __forceinline__ void ForEachSlot(bool valid_row, int lane, int nvec, F&& f) {
#pragma unroll
  for (int k = 0; k < VPT; ++k) {
    const int j = lane + k * LANES;
    if (valid_row && j < nvec) f(k, j);
  }
}

/*!
 * \brief Softmax of one row per group (RPG 1), the row kept in floats: the
 *        group's maximum, one exponential per element kept in place, the
 *        group's sum, then each kept value scaled. One exponential per
 *        element, against two in SoftmaxCachedKernel. It replaced an online
 *        form (exponentials against each lane's own maximum, then a merge of
 *        (max, sum) pairs) that spent 7 more exponentials a lane on the
 *        merge, and is faster than it (benchmarks/RESULTS.md, "Figures
 *        behind the CUDA kernels' choices"). Kept floats cost registers: only plans of
 *        VPT * VEC <= 16 use it.
 */
template <typename T, int VEC, int LANES, int VPT>
__global__ void __launch_bounds__(kGroupRowThreads)
    SoftmaxKeptGroupKernel(T* out, const T* x, int64_t rows, int cols) {
  GridDependencyEnter();
  static_assert(VPT * VEC <= 16, "each lane keeps VPT * VEC floats");
  using G = RowGroup<false, LANES, 1>;
  const int nvec = cols / VEC;
  const int lane = G::Lane();
  for (int64_t base = G::FirstStep(); base < rows; base += G::StepStride()) {
    // Rows past the end are masked, not skipped: the shuffles need the whole warp.
    const int64_t row = G::Row(base, 0);
    float p[VPT][VEC];
    float m = -INFINITY;
    ForEachSlot<LANES, VPT>(row < rows, lane, nvec, [&](int k, int j) {
      LoadFloats<T, VEC>(x + row * cols + j * VEC, p[k]);
#pragma unroll
      for (int e = 0; e < VEC; ++e) m = fmaxf(m, p[k][e]);
    });
    const float mb = GroupMax<LANES>(m) * kLog2e;
    float s = 0.f;
    ForEachSlot<LANES, VPT>(row < rows, lane, nvec, [&](int k, int) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        p[k][e] = FastExp2(fmaf(p[k][e], kLog2e, -mb));
        s += p[k][e];
      }
    });
    const float inv = 1.f / GroupSum<LANES>(s);
    ForEachSlot<LANES, VPT>(row < rows, lane, nvec, [&](int k, int j) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) p[k][e] *= inv;
      StoreFloats<T, VEC>(out + row * cols + j * VEC, p[k]);
    });
  }
}

/*!
 * \brief RMSNorm of one row per group (RPG 1), the row kept in floats: each
 *        element converted once (SoftmaxKeptGroupKernel's layout), the weight
 *        loaded ahead of the row. Faster than RMSNormCachedKernel for 16-bit
 *        rows of [*, 128] on 8 lanes x 2 vectors, the same outputs bit for
 *        bit (benchmarks/RESULTS.md, "Figures behind the CUDA kernels' choices").
 */
template <typename T, int VEC, int LANES, int VPT>
__global__ void __launch_bounds__(kGroupRowThreads)
    RMSNormKeptGroupKernel(T* out, const T* x, const T* __restrict__ w, int64_t rows, int cols,
                           float eps) {
  GridDependencyEnter();
  static_assert(VPT * VEC <= 16, "each lane keeps VPT * VEC floats");
  using G = RowGroup<false, LANES, 1>;
  const int nvec = cols / VEC;
  const int lane = G::Lane();
  const float inv_cols = 1.f / static_cast<float>(cols);
  for (int64_t base = G::FirstStep(); base < rows; base += G::StepStride()) {
    const int64_t row = G::Row(base, 0);  // masked past the end, as above
    // The weight's packs are loaded first: their latency then overlaps the
    // row's loads and sum instead of following the group's reduction. (Loaded
    // once before the loop instead, fp16 takes 56 registers, not 48.)
    Pack<T, VEC> wp[VPT];
    ForEachSlot<LANES, VPT>(true, lane, nvec,
                            [&](int k, int j) { wp[k] = LoadPack<T, VEC>(w + j * VEC); });
    float f[VPT][VEC];
    float ss = 0.f;
    ForEachSlot<LANES, VPT>(row < rows, lane, nvec, [&](int k, int j) {
      LoadFloats<T, VEC>(x + row * cols + j * VEC, f[k]);
#pragma unroll
      for (int e = 0; e < VEC; ++e) ss = fmaf(f[k][e], f[k][e], ss);
    });
    const float inv_rms = rsqrtf(GroupSum<LANES>(ss) * inv_cols + eps);
    ForEachSlot<LANES, VPT>(row < rows, lane, nvec, [&](int k, int j) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) f[k][e] = f[k][e] * inv_rms * ToFloat(wp[k].v[e]);
      StoreFloats<T, VEC>(out + row * cols + j * VEC, f[k]);
    });
  }
}

// ---------------------------------------------------------------------------
// Streaming kernels: rows too long for registers, one block per row.
// ---------------------------------------------------------------------------

template <typename T, int VEC>
__global__ void __launch_bounds__(kMaxRowThreads)
    RMSNormStreamKernel(T* out, const T* x, const T* __restrict__ w, int64_t rows, int cols,
                        float eps) {
  GridDependencyEnter();
  __shared__ float smem[32];
  const int nvec = cols / VEC;
  const float inv_cols = 1.f / static_cast<float>(cols);
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    T* outr = out + row * cols;
    float ss = 0.f;
    for (int j = threadIdx.x; j < nvec; j += blockDim.x) {
      float f[VEC];
      LoadFloats<T, VEC>(xr + j * VEC, f);
#pragma unroll
      for (int e = 0; e < VEC; ++e) ss = fmaf(f[e], f[e], ss);
    }
    const float inv_rms = rsqrtf(BlockSum(ss, smem) * inv_cols + eps);
    for (int j = threadIdx.x; j < nvec; j += blockDim.x) {
      float f[VEC], wf[VEC];
      LoadFloats<T, VEC>(xr + j * VEC, f);
      LoadFloats<T, VEC>(w + j * VEC, wf);
#pragma unroll
      for (int e = 0; e < VEC; ++e) f[e] = f[e] * inv_rms * wf[e];
      StoreFloats<T, VEC>(outr + j * VEC, f);
    }
  }
}

template <typename T, int VEC>
__global__ void __launch_bounds__(kMaxRowThreads)
    SoftmaxStreamKernel(T* out, const T* x, int64_t rows, int cols) {
  GridDependencyEnter();
  __shared__ float smem[2][32];
  const int nvec = cols / VEC;
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* xr = x + row * cols;
    T* outr = out + row * cols;
    // Pass 1: online max and rescaled sum, one read of the row.
    float m = -INFINITY, s = 0.f;
    for (int j = threadIdx.x; j < nvec; j += blockDim.x) {
      float f[VEC];
      LoadFloats<T, VEC>(xr + j * VEC, f);
      float pm = f[0];
#pragma unroll
      for (int e = 1; e < VEC; ++e) pm = fmaxf(pm, f[e]);
      const float mn = fmaxf(m, pm);
      if (mn == -INFINITY) continue;  // all -inf so far: no mass yet
      s = (m == -INFINITY) ? 0.f : s * FastExp2((m - mn) * kLog2e);
      const float mb = mn * kLog2e;
#pragma unroll
      for (int e = 0; e < VEC; ++e) s += FastExp2(fmaf(f[e], kLog2e, -mb));
      m = mn;
    }
    // Merge (m, s) across the warp, then across the block.
    GroupMergeMaxSum<32>(m, s);
    const int wid = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
    if ((threadIdx.x & 31) == 0) {
      smem[0][wid] = m;
      smem[1][wid] = s;
    }
    __syncthreads();
    const int l = threadIdx.x & 31;
    m = l < nwarps ? smem[0][l] : -INFINITY;
    s = l < nwarps ? smem[1][l] : 0.f;
    GroupMergeMaxSum<32>(m, s);
    __syncthreads();
    const float inv = 1.f / s, mb = m * kLog2e;
    // Pass 2: normalised write.
    for (int j = threadIdx.x; j < nvec; j += blockDim.x) {
      float f[VEC];
      LoadFloats<T, VEC>(xr + j * VEC, f);
#pragma unroll
      for (int e = 0; e < VEC; ++e) f[e] = FastExp2(fmaf(f[e], kLog2e, -mb)) * inv;
      StoreFloats<T, VEC>(outr + j * VEC, f);
    }
  }
}

// ---------------------------------------------------------------------------
// Plans and dispatch
// ---------------------------------------------------------------------------

enum class RowMode : int { kGroup, kBlock, kStream };

/*! \brief Launch geometry of one row-wise launch. */
struct RowPlan {
  RowMode mode;
  int lanes;       // group mode: lanes per row (8, 16 or 32)
  int vpt;         // cached modes: vectors (or scalars) each thread keeps per row
  int rpg;         // group mode: rows each group holds at once
  unsigned grid;   // blocks
  unsigned block;  // threads per block
};

/*! \brief Group mode: blocks of kGroupRowThreads, enough for every row. */
inline void SetGroupGrid(RowPlan& p, int64_t rows) {
  p.block = kGroupRowThreads;
  const int64_t rows_per_block = int64_t{kGroupRowThreads / 32} * (32 / p.lanes) * p.rpg;
  p.grid = static_cast<unsigned>(
      std::min<int64_t>((rows + rows_per_block - 1) / rows_per_block, int64_t{1} << 30));
}

/*!
 * \brief The plan for `rows` rows of `nvec` vectors of `vec` elements.
 *
 * Vector path (vec > 1): groups of 8/16/32 lanes for rows of up to 128
 * vectors, each thread holding 4 vectors in all (4 rows of 1, 2 of 2 or 1 of
 * 4); one block per row up to 1024 threads x 16 elements; streaming beyond.
 * Scalar path (vec == 1): 32 lanes x 16 elements, then blocks of up to 1024 x 16.
 */
inline RowPlan PlanRows(int64_t rows, int nvec, int vec) {
  RowPlan p{};
  const int group_per_thread = vec == 1 ? kRowElemsPerThread : kGroupVecsPerThread;
  if (nvec <= 32 * group_per_thread) {
    p.mode = RowMode::kGroup;
    if (vec == 1) {
      p.lanes = 32, p.vpt = kRowElemsPerThread, p.rpg = 1;
    } else {
      p.lanes = nvec <= 8 ? 8 : nvec <= 16 ? 16 : 32;
      p.vpt = p.lanes < 32 || nvec <= 32 ? 1 : nvec <= 64 ? 2 : 4;
      p.rpg = kGroupVecsPerThread / p.vpt;
    }
    SetGroupGrid(p, rows);
    return p;
  }
  const int block_per_thread = kRowElemsPerThread / vec;
  const bool cached = nvec <= kMaxRowThreads * block_per_thread;
  p.mode = cached ? RowMode::kBlock : RowMode::kStream;
  p.vpt = cached ? block_per_thread : 1;
  p.rpg = 1;
  const int threads = cached ? (nvec + block_per_thread - 1) / block_per_thread : kMaxRowThreads;
  p.block = static_cast<unsigned>(std::min(kMaxRowThreads, std::max(64, (threads + 31) / 32 * 32)));
  // One block per row, all launched: measured faster than a resident-wave
  // grid striding over the rows (benchmarks/RESULTS.md).
  p.grid = static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 30));
  return p;
}

/*!
 * \brief The plan of a RMSNorm or softmax launch on elements of `elem_bytes`
 *        bytes: PlanRows, except that rows of 9-16 vectors of a 16-bit type go
 *        to 8 lanes x 2 vectors x 1 row (32 bytes a thread) instead of 16
 *        lanes x 1 vector x 4 rows. Such rows ([*, 128] in fp16/bf16) are
 *        short launches whose bytes sit in L2, where the shorter shuffle
 *        chains and one row per thread win on both Hoppers measured
 *        (benchmarks/RESULTS.md, "Figures behind the CUDA kernels' choices").
 */
inline RowPlan PlanRowsOf(int64_t rows, int nvec, int vec, int elem_bytes) {
  RowPlan p = PlanRows(rows, nvec, vec);
  if (elem_bytes == 2 && p.mode == RowMode::kGroup && p.lanes == 16) {
    p.lanes = 8, p.vpt = 2, p.rpg = 1;
    SetGroupGrid(p, rows);
  }
  return p;
}

/*!
 * \brief Call f with the kernel (a pointer to the __global__ function) that
 *        runs plan p at vector width VEC; the launcher and the CPU emulation
 *        of the tests share it, so they run the same kernels.
 * \tparam kSoftmax softmax kernels if true, RMSNorm kernels otherwise.
 */
template <bool kSoftmax, typename T, int VEC, typename F>
inline void VisitRowKernel(const RowPlan& p, F&& f) {
  auto cached = [&](auto lanes, auto vpt, auto rpg, auto block) {
    constexpr int L = decltype(lanes)::value, V = decltype(vpt)::value, R = decltype(rpg)::value;
    constexpr bool B = decltype(block)::value;
    if constexpr (kSoftmax) {
      f(&SoftmaxCachedKernel<T, VEC, L, V, R, B>);
    } else {
      f(&RMSNormCachedKernel<T, VEC, L, V, R, B>);
    }
  };
  using std::integral_constant;
  using Yes = std::true_type;
  using No = std::false_type;
  constexpr int kBlockPer = kRowElemsPerThread / VEC;
  if (p.mode == RowMode::kStream) {
    if constexpr (kSoftmax) {
      f(&SoftmaxStreamKernel<T, VEC>);
    } else {
      f(&RMSNormStreamKernel<T, VEC>);
    }
  } else if (p.mode == RowMode::kBlock) {
    cached(integral_constant<int, 32>{}, integral_constant<int, kBlockPer>{},
           integral_constant<int, 1>{}, Yes{});
  } else if constexpr (VEC == 1) {
    cached(integral_constant<int, 32>{}, integral_constant<int, kRowElemsPerThread>{},
           integral_constant<int, 1>{}, No{});
  } else if (p.lanes == 8 && p.vpt == 2) {  // one row per group, kept in floats
    if constexpr (kSoftmax) {
      f(&SoftmaxKeptGroupKernel<T, VEC, 8, 2>);
    } else {
      f(&RMSNormKeptGroupKernel<T, VEC, 8, 2>);
    }
  } else if (p.lanes == 8) {
    cached(integral_constant<int, 8>{}, integral_constant<int, 1>{}, integral_constant<int, 4>{},
           No{});
  } else if (p.lanes == 16) {
    cached(integral_constant<int, 16>{}, integral_constant<int, 1>{}, integral_constant<int, 4>{},
           No{});
  } else if (p.vpt == 1) {
    cached(integral_constant<int, 32>{}, integral_constant<int, 1>{}, integral_constant<int, 4>{},
           No{});
  } else if (p.vpt == 2) {
    cached(integral_constant<int, 32>{}, integral_constant<int, 2>{}, integral_constant<int, 2>{},
           No{});
  } else {
    cached(integral_constant<int, 32>{}, integral_constant<int, 4>{}, integral_constant<int, 1>{},
           No{});
  }
}

/*!
 * \brief The vector width of a row launch: 16 bytes when cols is a multiple of
 *        it and every base pointer is 16-byte aligned (then so is every row), else 1.
 */
template <typename T>
inline int RowVecWidth(int cols, std::initializer_list<const void*> ptrs) {
  constexpr int V = VecWidth<T>();
  if (V <= 1 || cols % V != 0) return 1;
  for (const void* p : ptrs) {
    if (reinterpret_cast<uintptr_t>(p) % kVecBytes != 0) return 1;
  }
  return V;
}

/*!
 * \brief Plan a row launch and call f(plan, kernel) with its kernel.
 * \tparam kSoftmax as in VisitRowKernel.
 */
template <bool kSoftmax, typename T, typename F>
inline void WithRowKernel(int64_t rows, int cols, std::initializer_list<const void*> ptrs, F&& f) {
  constexpr int V = VecWidth<T>();
  const int vec = RowVecWidth<T>(cols, ptrs);
  const RowPlan p = PlanRowsOf(rows, cols / vec, vec, static_cast<int>(sizeof(T)));
  auto g = [&](auto kernel) { f(p, kernel); };
  if (vec == V) {
    VisitRowKernel<kSoftmax, T, V>(p, g);
  } else {
    VisitRowKernel<kSoftmax, T, 1>(p, g);
  }
}

#if defined(__CUDACC__)  // launching needs the kernels compiled by nvcc
/*!
 * \brief RMSNorm over the last dimension of [rows, cols] on `stream` of the
 *        current device `device_id`. Nothing launched when empty.
 * \return The launch's error code.
 */
template <typename T>
inline cudaError_t LaunchRMSNorm(T* out, const T* x, const T* w, int64_t rows, int cols, float eps,
                                 int device_id, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  cudaError_t e = cudaSuccess;
  WithRowKernel<false, T>(rows, cols, {out, x, w}, [&](const RowPlan& p, auto kernel) {
    e = LaunchKernel(kernel, dim3(p.grid), dim3(p.block), stream, device_id, out, x, w, rows, cols,
                     eps);
  });
  return e;
}

/*!
 * \brief Softmax over the last dimension of [rows, cols] on `stream` of the
 *        current device `device_id`. Nothing launched when empty.
 * \return The launch's error code.
 */
template <typename T>
inline cudaError_t LaunchSoftmax(T* out, const T* x, int64_t rows, int cols, int device_id,
                                 cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  cudaError_t e = cudaSuccess;
  WithRowKernel<true, T>(rows, cols, {out, x}, [&](const RowPlan& p, auto kernel) {
    e = LaunchKernel(kernel, dim3(p.grid), dim3(p.block), stream, device_id, out, x, rows, cols);
  });
  return e;
}
#endif  // __CUDACC__

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_ROWWISE_CUH_

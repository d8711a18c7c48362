// Row-wise kernels over the last dimension of a contiguous [rows, cols]
// tensor: RMSNorm and softmax, fp32 accumulation for every element type.
//
// Geometry (chosen by the launchers below):
//   * warp per row   when a row fits in one warp's registers (cols <= 32 * kElemsPerThread),
//   * block per row  otherwise; the row is cached in registers when it fits
//     (cols <= 1024 * kElemsPerThread): one read and one write of memory,
//   * longer rows stream through twice (RMSNorm: sum of squares, then scale;
//     softmax: online max/sum in one pass, then the normalised write).
// Vector width VEC is 16 bytes when cols is a multiple of it and every base
// pointer is 16-byte aligned (then every row start is too), 1 element otherwise.
// `out` may be `x` (in-place): each element is written by the thread that read
// it, after its last read. Hence no __restrict__ on `out` and `x`.
#ifndef TVMFFI_KERNELS_CUDA_ROWWISE_CUH_
#define TVMFFI_KERNELS_CUDA_ROWWISE_CUH_

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "common.cuh"

namespace tvmffi_kernels {

/*! \brief Row elements each thread keeps in registers on the cached paths. */
constexpr int kElemsPerThread = 16;
constexpr int kMaxRowThreads = 1024;
constexpr int kWarpRowThreads = 128;  // 4 rows per block in warp-per-row mode
constexpr float kLog2e = 1.4426950408889634f;

/*! \brief Where one thread group (a warp or the block) works inside a row. */
template <bool kWarp>
struct RowGroup {
  __device__ __forceinline__ static int Lane() { return kWarp ? (threadIdx.x & 31) : threadIdx.x; }
  __device__ __forceinline__ static int Size() { return kWarp ? 32 : blockDim.x; }
  __device__ __forceinline__ static int64_t FirstRow() {
    return kWarp ? static_cast<int64_t>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5)
                 : static_cast<int64_t>(blockIdx.x);
  }
  __device__ __forceinline__ static int64_t RowStride() {
    return kWarp ? static_cast<int64_t>(gridDim.x) * (blockDim.x >> 5)
                 : static_cast<int64_t>(gridDim.x);
  }
  __device__ __forceinline__ static float Sum(float v, float* smem) {
    return kWarp ? WarpSum(v) : BlockSum(v, smem);
  }
  __device__ __forceinline__ static float Max(float v, float* smem) {
    return kWarp ? WarpMax(v) : BlockMax(v, smem);
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

// Online-softmax state merge: (m, s) stands for s * exp(m - ...). -inf maxima
// carry no mass and must not produce exp(-inf - -inf) = NaN.
__device__ __forceinline__ void MergeMaxSum(float& m, float& s, float m2, float s2) {
  const float mn = fmaxf(m, m2);
  if (mn == -INFINITY) return;
  s = (m == -INFINITY ? 0.f : s * exp2f((m - mn) * kLog2e)) +
      (m2 == -INFINITY ? 0.f : s2 * exp2f((m2 - mn) * kLog2e));
  m = mn;
}

// ---------------------------------------------------------------------------
// RMSNorm: out = x * rsqrt(mean(x^2) + eps) * weight
// ---------------------------------------------------------------------------
template <typename T, int VEC, bool kCached, bool kWarp>
__global__ void __launch_bounds__(kWarp ? kWarpRowThreads : kMaxRowThreads)
    RMSNormKernel(T* out, const T* x, const T* __restrict__ w, int64_t rows, int cols, float eps) {
  using G = RowGroup<kWarp>;
  constexpr int VPT = kCached ? kElemsPerThread / VEC : 1;  // vectors cached per thread
  __shared__ float smem[32];
  const int nvec = cols / VEC;
  const int lane = G::Lane(), gsize = G::Size();
  const float inv_cols = 1.f / static_cast<float>(cols);

  for (int64_t row = G::FirstRow(); row < rows; row += G::RowStride()) {
    const T* xr = x + row * cols;
    T* outr = out + row * cols;
    if constexpr (kCached) {
      float v[VPT][VEC];
      float ss = 0.f;
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (j < nvec) {
          LoadFloats<T, VEC>(xr + j * VEC, v[k]);
#pragma unroll
          for (int e = 0; e < VEC; ++e) ss = fmaf(v[k][e], v[k][e], ss);
        }
      }
      const float inv_rms = rsqrtf(G::Sum(ss, smem) * inv_cols + eps);
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (j < nvec) {
          float wf[VEC];
          LoadFloats<T, VEC>(w + j * VEC, wf);
#pragma unroll
          for (int e = 0; e < VEC; ++e) v[k][e] = v[k][e] * inv_rms * wf[e];
          StoreFloats<T, VEC>(outr + j * VEC, v[k]);
        }
      }
    } else {
      float ss = 0.f;
      for (int j = lane; j < nvec; j += gsize) {
        float f[VEC];
        LoadFloats<T, VEC>(xr + j * VEC, f);
#pragma unroll
        for (int e = 0; e < VEC; ++e) ss = fmaf(f[e], f[e], ss);
      }
      const float inv_rms = rsqrtf(G::Sum(ss, smem) * inv_cols + eps);
      for (int j = lane; j < nvec; j += gsize) {
        float f[VEC], wf[VEC];
        LoadFloats<T, VEC>(xr + j * VEC, f);
        LoadFloats<T, VEC>(w + j * VEC, wf);
#pragma unroll
        for (int e = 0; e < VEC; ++e) f[e] = f[e] * inv_rms * wf[e];
        StoreFloats<T, VEC>(outr + j * VEC, f);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Softmax: out = exp(x - max) / sum(exp(x - max))
// ---------------------------------------------------------------------------
template <typename T, int VEC, bool kCached, bool kWarp>
__global__ void __launch_bounds__(kWarp ? kWarpRowThreads : kMaxRowThreads)
    SoftmaxKernel(T* out, const T* x, int64_t rows, int cols) {
  using G = RowGroup<kWarp>;
  constexpr int VPT = kCached ? kElemsPerThread / VEC : 1;
  __shared__ float smem[2][32];
  const int nvec = cols / VEC;
  const int lane = G::Lane(), gsize = G::Size();

  for (int64_t row = G::FirstRow(); row < rows; row += G::RowStride()) {
    const T* xr = x + row * cols;
    T* outr = out + row * cols;
    if constexpr (kCached) {
      float v[VPT][VEC];
      float m = -INFINITY;
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (j < nvec) {
          LoadFloats<T, VEC>(xr + j * VEC, v[k]);
#pragma unroll
          for (int e = 0; e < VEC; ++e) m = fmaxf(m, v[k][e]);
        }
      }
      m = G::Max(m, smem[0]);
      const float mb = m * kLog2e;
      float s = 0.f;
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (j < nvec) {
#pragma unroll
          for (int e = 0; e < VEC; ++e) {
            v[k][e] = exp2f(fmaf(v[k][e], kLog2e, -mb));
            s += v[k][e];
          }
        }
      }
      const float inv = 1.f / G::Sum(s, smem[1]);
#pragma unroll
      for (int k = 0; k < VPT; ++k) {
        const int j = lane + k * gsize;
        if (j < nvec) {
#pragma unroll
          for (int e = 0; e < VEC; ++e) v[k][e] *= inv;
          StoreFloats<T, VEC>(outr + j * VEC, v[k]);
        }
      }
    } else {
      // Pass 1: online max and rescaled sum, one read of the row.
      float m = -INFINITY, s = 0.f;
      for (int j = lane; j < nvec; j += gsize) {
        float f[VEC];
        LoadFloats<T, VEC>(xr + j * VEC, f);
        float pm = f[0];
#pragma unroll
        for (int e = 1; e < VEC; ++e) pm = fmaxf(pm, f[e]);
        const float mn = fmaxf(m, pm);
        if (mn == -INFINITY) continue;  // all -inf so far: no mass yet
        s = (m == -INFINITY) ? 0.f : s * exp2f((m - mn) * kLog2e);
        const float mb = mn * kLog2e;
#pragma unroll
        for (int e = 0; e < VEC; ++e) s += exp2f(fmaf(f[e], kLog2e, -mb));
        m = mn;
      }
      // Merge (m, s) across the group.
#pragma unroll
      for (int o = 16; o > 0; o >>= 1) {
        const float m2 = __shfl_xor_sync(kFullMask, m, o);
        const float s2 = __shfl_xor_sync(kFullMask, s, o);
        MergeMaxSum(m, s, m2, s2);
      }
      if constexpr (!kWarp) {
        const int wid = threadIdx.x >> 5, nwarps = (blockDim.x + 31) >> 5;
        if ((threadIdx.x & 31) == 0) {
          smem[0][wid] = m;
          smem[1][wid] = s;
        }
        __syncthreads();
        const int l = threadIdx.x & 31;
        m = l < nwarps ? smem[0][l] : -INFINITY;
        s = l < nwarps ? smem[1][l] : 0.f;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) {
          const float m2 = __shfl_xor_sync(kFullMask, m, o);
          const float s2 = __shfl_xor_sync(kFullMask, s, o);
          MergeMaxSum(m, s, m2, s2);
        }
        __syncthreads();
      }
      const float inv = 1.f / s, mb = m * kLog2e;
      // Pass 2: normalised write.
      for (int j = lane; j < nvec; j += gsize) {
        float f[VEC];
        LoadFloats<T, VEC>(xr + j * VEC, f);
#pragma unroll
        for (int e = 0; e < VEC; ++e) f[e] = exp2f(fmaf(f[e], kLog2e, -mb)) * inv;
        StoreFloats<T, VEC>(outr + j * VEC, f);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Launchers
// ---------------------------------------------------------------------------

/*! \brief Launch geometry of one row-wise launch. */
struct RowPlan {
  bool warp;       // warp per row
  bool cached;     // row kept in registers
  unsigned grid;   // blocks
  unsigned block;  // threads per block
};

inline RowPlan PlanRows(int64_t rows, int nvec, int vec) {
  const int vpt = kElemsPerThread / vec;
  RowPlan p{};
  if (nvec <= 32 * vpt) {
    p.warp = true;
    p.cached = true;
    p.block = kWarpRowThreads;
    const int64_t rows_per_block = kWarpRowThreads / 32;
    p.grid = static_cast<unsigned>(
        std::min<int64_t>((rows + rows_per_block - 1) / rows_per_block, int64_t{1} << 30));
    return p;
  }
  p.warp = false;
  p.cached = nvec <= kMaxRowThreads * vpt;
  const int threads = p.cached ? (nvec + vpt - 1) / vpt : kMaxRowThreads;
  p.block = static_cast<unsigned>(std::min(kMaxRowThreads, std::max(64, (threads + 31) / 32 * 32)));
  p.grid = static_cast<unsigned>(std::min<int64_t>(rows, int64_t{1} << 30));
  return p;
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

#if defined(__CUDACC__)  // launching needs nvcc's <<<>>>
template <typename T, int VEC>
inline void LaunchRMSNormPlan(const RowPlan& p, T* out, const T* x, const T* w, int64_t rows,
                              int cols, float eps, cudaStream_t stream) {
  if (p.warp) {
    RMSNormKernel<T, VEC, true, true><<<p.grid, p.block, 0, stream>>>(out, x, w, rows, cols, eps);
  } else if (p.cached) {
    RMSNormKernel<T, VEC, true, false><<<p.grid, p.block, 0, stream>>>(out, x, w, rows, cols, eps);
  } else {
    RMSNormKernel<T, VEC, false, false><<<p.grid, p.block, 0, stream>>>(out, x, w, rows, cols, eps);
  }
}

template <typename T, int VEC>
inline void LaunchSoftmaxPlan(const RowPlan& p, T* out, const T* x, int64_t rows, int cols,
                              cudaStream_t stream) {
  if (p.warp) {
    SoftmaxKernel<T, VEC, true, true><<<p.grid, p.block, 0, stream>>>(out, x, rows, cols);
  } else if (p.cached) {
    SoftmaxKernel<T, VEC, true, false><<<p.grid, p.block, 0, stream>>>(out, x, rows, cols);
  } else {
    SoftmaxKernel<T, VEC, false, false><<<p.grid, p.block, 0, stream>>>(out, x, rows, cols);
  }
}

/*!
 * \brief RMSNorm over the last dimension of [rows, cols]. Nothing launched when empty.
 * \return The launch's error code.
 */
template <typename T>
inline cudaError_t LaunchRMSNorm(T* out, const T* x, const T* w, int64_t rows, int cols, float eps,
                                 cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  constexpr int V = VecWidth<T>();
  const int vec = RowVecWidth<T>(cols, {out, x, w});
  const RowPlan p = PlanRows(rows, cols / vec, vec);
  if (vec == V) {
    LaunchRMSNormPlan<T, V>(p, out, x, w, rows, cols, eps, stream);
  } else {
    LaunchRMSNormPlan<T, 1>(p, out, x, w, rows, cols, eps, stream);
  }
  return cudaGetLastError();
}

/*!
 * \brief Softmax over the last dimension of [rows, cols]. Nothing launched when empty.
 * \return The launch's error code.
 */
template <typename T>
inline cudaError_t LaunchSoftmax(T* out, const T* x, int64_t rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaSuccess;
  constexpr int V = VecWidth<T>();
  const int vec = RowVecWidth<T>(cols, {out, x});
  const RowPlan p = PlanRows(rows, cols / vec, vec);
  if (vec == V) {
    LaunchSoftmaxPlan<T, V>(p, out, x, rows, cols, stream);
  } else {
    LaunchSoftmaxPlan<T, 1>(p, out, x, rows, cols, stream);
  }
  return cudaGetLastError();
}
#endif  // __CUDACC__

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_ROWWISE_CUH_

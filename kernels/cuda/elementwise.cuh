// Elementwise kernels: out[i] = op(in0[i], ..., in{N-1}[i]).
//
// Layout of the index space [0, n) for one launch:
//   [0, head)                  scalar edge, peeled so that the body is aligned
//   [head, head + nvec * VEC)  the body: packs of VEC elements
//   [head + nvec * VEC, n)     scalar edge (tail)
// VEC is 16 bytes of elements when every pointer has the same misalignment
// (then head < VEC and the tail < VEC). When they disagree ("shifted"), the
// head aligns `out`, and each input pack is cut from the two aligned 16-byte
// words it straddles (the neighbouring thread loads the same words: L1 hits,
// no extra DRAM traffic), the last pack going to the tail so that no load
// reaches past an input. Pointers not aligned to their own element size get
// VEC 1, head 0 and a scalar body over all of [0, n).
//
// The body is cut into tiles of blockDim.x * U packs, one per block (the grid
// covers every tile; past 2^31 - 1 blocks they stride), thread t of a tile
// taking packs t, t + blockDim.x, ...: a block's bytes are contiguous, all U
// loads are issued before the first store, and the edge elements go to the
// otherwise idle threads of the last tile, so that no thread waits on two
// round trips to memory. PlanElementwise picks U and the block size by size
// (measured on an H100 and an H200; the figures behind every choice in this
// file: benchmarks/RESULTS.md, "Figures behind the CUDA kernels' choices"):
//   small  (up to ~2 packs per resident thread): U 1, 256 threads, so that
//          every SM gets many warps and latency hides;
//   mid    (operands fit in L2): U 2, 256 threads, fewer blocks to
//          schedule, evict-first stores (kMidHints);
//   large  (operands past L2): U 1, kLargeThreads, evict-first stores, and
//          loads too with one input (LargeHints).
// A one-wave grid striding over the whole range, each thread's packs a grid
// apart, was slower than a copy on both: it is gone.
//
// Indices are 32-bit when n < 2^31 (chosen at launch) and 64-bit otherwise,
// so large tensors are correct and small ones pay no 64-bit arithmetic.
//
// `out` may alias an input exactly (in-place): every element is read and then
// written by the same thread, once. Hence no __restrict__ on `out`.
#ifndef TVMFFI_KERNELS_CUDA_ELEMENTWISE_CUH_
#define TVMFFI_KERNELS_CUDA_ELEMENTWISE_CUH_

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "common.cuh"

namespace tvmffi_kernels {

/*! \brief N read-only input pointers, passed by value to the kernel. */
template <typename T, int N>
struct Inputs {
  const T* p[N];
};

// Ops work on Acc<T> values. Each carries its own scalar parameters.
template <typename T>
struct AddOneOp {
  __device__ __forceinline__ Acc<T> operator()(Acc<T> a) const { return a + Acc<T>(1); }
};
template <typename T>
struct ScaleOp {
  Acc<T> factor;
  __device__ __forceinline__ Acc<T> operator()(Acc<T> a) const { return a * factor; }
};
template <typename T>
struct AddOp {
  __device__ __forceinline__ Acc<T> operator()(Acc<T> a, Acc<T> b) const { return a + b; }
};
template <typename T>
struct AxpyOp {
  Acc<T> alpha;
  __device__ __forceinline__ Acc<T> operator()(Acc<T> x, Acc<T> y) const { return alpha * x + y; }
};

template <typename T, int N, typename Op>
__device__ __forceinline__ T ApplyAt(const Op& op, const Inputs<T, N>& in, int64_t i) {
  if constexpr (N == 1) {
    return FromAcc<T>(op(ToAcc(in.p[0][i])));
  } else {
    static_assert(N == 2, "elementwise ops take one or two inputs");
    return FromAcc<T>(op(ToAcc(in.p[0][i]), ToAcc(in.p[1][i])));
  }
}

template <typename T, int N, typename Op, int VEC>
__device__ __forceinline__ Pack<T, VEC> ApplyPack(const Op& op, const Pack<T, VEC> (&x)[N]) {
  Pack<T, VEC> r;
#pragma unroll
  for (int e = 0; e < VEC; ++e) {
    if constexpr (N == 1) {
      r.v[e] = FromAcc<T>(op(ToAcc(x[0].v[e])));
    } else {
      r.v[e] = FromAcc<T>(op(ToAcc(x[0].v[e]), ToAcc(x[1].v[e])));
    }
  }
  return r;
}

// Geometry of the three size classes (see the file comment). The TVMFFI_KERNELS_*
// macros below override a choice at build time (-D...), for sweeps on a new GPU.
constexpr int kElementwiseThreads = 256;  // the most threads per block (launch bound)
constexpr int kSmallThreads = 256;
// "small": at most this many packs per SM; above it a mid grid still has at
// least 4 blocks of kMidUnroll x 256 packs per SM (fewer left SMs idle for
// much of the launch).
constexpr int kSmallPacksPerSM = 4096;
// "mid": the operands' bytes are at most this fraction (in quarters) of L2.
// Operands that fit stay in L2 from one launch to the next where nothing
// else evicts them, so the mid class reaches L2's whole size (it stopped at
// 3/4 of it before).
constexpr int kMidL2Quarters = 4;
#ifndef TVMFFI_KERNELS_MID_UNROLL
#define TVMFFI_KERNELS_MID_UNROLL 2
#endif
constexpr int kMidUnroll = TVMFFI_KERNELS_MID_UNROLL;
constexpr int kLargeUnroll = 1;
// One input: one pack a thread as well. It was slow only while every block
// triggered the next launch (GridDependencyEnter); with the last wave alone
// triggering, one pack beats two.
#ifndef TVMFFI_KERNELS_LARGE_UNROLL_ONE_INPUT
#define TVMFFI_KERNELS_LARGE_UNROLL_ONE_INPUT 1
#endif
constexpr int kLargeUnrollOneInput = TVMFFI_KERNELS_LARGE_UNROLL_ONE_INPUT;
/*! \brief Packs per thread and tile of the large class for N inputs. */
template <int N>
constexpr int LargeUnroll() {
  return N == 1 ? kLargeUnrollOneInput : kLargeUnroll;
}
constexpr int kLargeThreads = 128;
/*! \brief The plan's `streaming`: a launch of the large class. */
constexpr bool kLargeStreaming = true;
// Cache hints of a body's loads and stores (a bit set: evict-first,
// ld/st.global.cs; clear: plain).
constexpr int kStreamStores = 1;
constexpr int kStreamLoads = 2;
// The mid class stores evict-first: the operands are read again by the next
// launch more often than the result is (never worse from 8 to 24 MiB).
constexpr int kMidHints = kStreamStores;
/*!
 * \brief Hints of the large class for N inputs. Two inputs load plainly
 *        (a little faster than evict-first); stores stay evict-first (plain
 *        stores there are slower).
 */
template <int N>
constexpr int LargeHints() {
  return N == 1 ? kStreamStores | kStreamLoads : kStreamStores;
}
/*! \brief Elements per thread and tile on the scalar path (VEC 1): 16 or 32 bytes. */
#ifndef TVMFFI_KERNELS_SCALAR_UNROLL_16BIT
#define TVMFFI_KERNELS_SCALAR_UNROLL_16BIT 8
#endif
template <typename T>
constexpr int ScalarUnroll() {
  return sizeof(T) <= 2 ? TVMFFI_KERNELS_SCALAR_UNROLL_16BIT : 4;
}

// Loads and stores of a body pack: streaming (ld/st.global.cs, evict-first)
// or plain.
template <bool kStreaming, typename P>
__device__ __forceinline__ P LoadBody(const P* p) {
#if defined(__CUDA_ARCH__)
  if constexpr (kStreaming && sizeof(P) == 16) {
    const int4 v = __ldcs(reinterpret_cast<const int4*>(p));
    P r;
    memcpy(&r, &v, sizeof(P));
    return r;
  }
#endif
  return *p;
}
template <bool kStreaming, typename P>
__device__ __forceinline__ void StoreBody(P* p, const P& v) {
#if defined(__CUDA_ARCH__)
  if constexpr (kStreaming && sizeof(P) == 16) {
    int4 w;
    memcpy(&w, &v, sizeof(P));
    __stcs(reinterpret_cast<int4*>(p), w);
    return;
  }
#endif
  *p = v;
}

/*! \brief Bits [r, r + 32) of the 64-bit value hi:lo, 0 <= r < 32 (SHF on the GPU). */
__host__ __device__ __forceinline__ uint32_t FunnelRight(uint32_t lo, uint32_t hi, uint32_t r) {
#if defined(__CUDA_ARCH__)
  return __funnelshift_r(lo, hi, r);
#else
  return r == 0 ? lo : (lo >> r) | (hi << (32 - r));
#endif
}

/*!
 * \brief The 16 bytes at `aligned + j` shifted by `shift` bytes (0 <= shift <
 *        16, the same for every thread): from the aligned words j and j + 1.
 */
template <bool kStreaming, typename P, typename Idx>
__device__ __forceinline__ P LoadShifted(const P* aligned, Idx j, uint32_t shift) {
  static_assert(sizeof(P) == 16, "shifted loads cut 16-byte packs");
  if (shift == 0) return LoadBody<kStreaming>(aligned + j);
  const P a = LoadBody<kStreaming>(aligned + j);
  const P b = LoadBody<kStreaming>(aligned + j + 1);
  uint32_t w[8];
  memcpy(w, &a, 16);
  memcpy(w + 4, &b, 16);
  const uint32_t r = (shift & 3u) * 8u;
  uint32_t o[4];
  // The word offset is uniform; a switch keeps w in registers (constant indices).
  switch (shift >> 2) {
#define TVMFFI_KERNELS_SHIFT_CASE(Q)                                           \
  case Q:                                                                      \
    for (int k = 0; k < 4; ++k) o[k] = FunnelRight(w[Q + k], w[Q + k + 1], r); \
    break;
    TVMFFI_KERNELS_SHIFT_CASE(0)
    TVMFFI_KERNELS_SHIFT_CASE(1)
    TVMFFI_KERNELS_SHIFT_CASE(2)
    default:
      TVMFFI_KERNELS_SHIFT_CASE(3)
#undef TVMFFI_KERNELS_SHIFT_CASE
  }
  P out;
  memcpy(&out, o, 16);
  return out;
}

/*!
 * \brief The elementwise kernel; see the file comment for the layout.
 * \tparam Idx uint32_t when n < 2^31, int64_t otherwise.
 * \tparam VEC Elements per body pack (VecWidth<T>() or 1).
 * \tparam U Packs per thread and tile.
 * \tparam kShifted Inputs need not share out's alignment (LoadShifted).
 */
template <typename T, int N, typename Op, typename Idx, int VEC, int U, int kHints,
          bool kShifted = false>
__global__ void __launch_bounds__(kElementwiseThreads)
    ElementwiseKernel(T* out, Inputs<T, N> in, Idx head, Idx nvec, Idx n, Op op) {
  // Up to GridDependencyEnter only parameters and special registers are read:
  // no global memory, so this part may overlap the grid before.
  using P = Pack<T, VEC>;
  constexpr bool kStreamingLoads = (kHints & kStreamLoads) != 0;
  constexpr bool kStreamingStores = (kHints & kStreamStores) != 0;
  P* vout = reinterpret_cast<P*>(out + head);
  const P* vin[N];
  uint32_t shift[N];  // bytes from vin[k]'s aligned words to input k's packs
#pragma unroll
  for (int k = 0; k < N; ++k) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(in.p[k] + head);
    shift[k] = kShifted ? static_cast<uint32_t>(a % sizeof(P)) : 0u;
    vin[k] = reinterpret_cast<const P*>(a - shift[k]);
  }
  auto load = [&](int k, Idx j) {
    if constexpr (kShifted) {
      return LoadShifted<kStreamingLoads>(vin[k], j, shift[k]);
    } else {
      return LoadBody<kStreamingLoads>(vin[k] + j);
    }
  };
  // Slots [0, nvec) are packs, [nvec, nvec + edges) the scalar edge elements.
  const Idx edges = VEC > 1 ? n - nvec * VEC : 0;
  const Idx slots = nvec + edges;
  // One slot: a pack, or an edge element (head first, then tail).
  auto slot = [&](Idx j) {
    if (j < nvec) {
      P x[N];
#pragma unroll
      for (int k = 0; k < N; ++k) x[k] = load(k, j);
      StoreBody<kStreamingStores>(vout + j, ApplyPack<T, N, Op, VEC>(op, x));
    } else if (VEC > 1 && j < slots) {
      const Idx e = j - nvec;
      const Idx i = e < head ? e : head + nvec * VEC + (e - head);
      out[i] = ApplyAt<T, N>(op, in, i);
    }
  };
  const Idx tile = static_cast<Idx>(blockDim.x) * U;
  const Idx stride = static_cast<Idx>(gridDim.x) * tile;
  Idx base = static_cast<Idx>(blockIdx.x) * tile;
  GridDependencyEnter();
  for (; base < slots; base += stride) {
    const Idx i = base + threadIdx.x;
    if (U > 1 && base + tile <= nvec) {  // a whole tile of packs: loads first
      P x[U][N];
#pragma unroll
      for (int u = 0; u < U; ++u) {
#pragma unroll
        for (int k = 0; k < N; ++k) x[u][k] = load(k, i + u * blockDim.x);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        StoreBody<kStreamingStores>(vout + (i + u * blockDim.x),
                                    ApplyPack<T, N, Op, VEC>(op, x[u]));
      }
    } else {
#pragma unroll
      for (int u = 0; u < U; ++u) slot(i + u * blockDim.x);
    }
  }
}

/*! \brief Where one launch's body lies and the launch geometry. */
struct ElementwisePlan {
  int64_t head;      // scalar elements before the body
  int64_t nvec;      // packs in the body
  int vec;           // elements per pack: VecWidth<T>() or 1
  bool shifted;      // inputs misaligned against out: LoadShifted packs
  bool wide;         // 64-bit indices (n >= 2^31)
  int unroll;        // packs per thread and tile
  bool streaming;    // the large class (hints: LargeHints; the mid class: kMidHints)
  unsigned threads;  // per block
  unsigned blocks;
};

/*!
 * \brief Plan one launch over n > 0 elements: split [0, n) into scalar head,
 *        body and scalar tail, then pick the size class and its geometry
 *        (see the file comment); one block per tile, at most 2^31 - 1.
 * \param ptrs The output and input pointers (byte offsets already applied).
 * \param num_sms, l2_bytes Of the device (0 when unknown: no class by them).
 */
template <typename T, int NP>
inline ElementwisePlan PlanElementwise(const void* const (&ptrs)[NP], int64_t n, int num_sms,
                                       int64_t l2_bytes) {
  constexpr int VEC = VecWidth<T>();
  ElementwisePlan p{
      0, n, 1, false, n > int64_t{0x7fffffff}, ScalarUnroll<T>(), false, kElementwiseThreads, 1};
  const uintptr_t mis = reinterpret_cast<uintptr_t>(ptrs[0]) % kVecBytes;
  bool same = mis % sizeof(T) == 0, natural = same;
  for (int k = 1; k < NP; ++k) {
    const uintptr_t m = reinterpret_cast<uintptr_t>(ptrs[k]) % kVecBytes;
    same = same && m == mis;
    natural = natural && m % sizeof(T) == 0;
  }
  const bool shifted = !same && natural;
  if (VEC > 1 && (same || shifted)) {
    const int64_t h = static_cast<int64_t>(((kVecBytes - mis) % kVecBytes) / sizeof(T));
    p.vec = VEC;
    p.shifted = shifted;
    p.head = h < n ? h : 0;
    p.nvec = h < n ? (n - h) / VEC : 0;  // nvec 0: all of n is edge
    // Shifted: the last pack would load the aligned word past it; it goes to the tail.
    if (shifted && p.nvec > 0) --p.nvec;
    const int64_t bytes = n * static_cast<int64_t>(sizeof(T)) * NP;
    if (p.wide || (l2_bytes > 0 && bytes > l2_bytes / 4 * kMidL2Quarters)) {
      p.unroll = LargeUnroll<NP - 1>(), p.threads = kLargeThreads, p.streaming = kLargeStreaming;
    } else if (p.nvec <= int64_t{kSmallPacksPerSM} * num_sms) {
      p.unroll = 1, p.threads = kSmallThreads;
    } else {
      p.unroll = kMidUnroll, p.threads = kElementwiseThreads;
    }
  }
  const int64_t slots = p.vec > 1 ? p.nvec + (n - p.nvec * p.vec) : n;
  const int64_t tile = int64_t{p.threads} * p.unroll;
  p.blocks = static_cast<unsigned>(std::min<int64_t>((slots + tile - 1) / tile, 0x7fffffff));
  return p;
}

template <typename T, int N>
inline ElementwisePlan PlanElementwise(const T* out, const Inputs<T, N>& in, int64_t n, int num_sms,
                                       int64_t l2_bytes) {
  if constexpr (N == 1) {
    const void* const ptrs[2] = {out, in.p[0]};
    return PlanElementwise<T>(ptrs, n, num_sms, l2_bytes);
  } else {
    const void* const ptrs[3] = {out, in.p[0], in.p[1]};
    return PlanElementwise<T>(ptrs, n, num_sms, l2_bytes);
  }
}

/*! \brief VisitElementwiseKernel's choice among the kernels of 16-byte packs. */
template <typename T, int N, typename Op, bool kShifted, typename F>
inline void VisitPackKernel(const ElementwisePlan& p, F&& f) {
  constexpr int VEC = VecWidth<T>();
  if (p.wide) {
    f(&ElementwiseKernel<T, N, Op, int64_t, VEC, LargeUnroll<N>(), LargeHints<N>(), kShifted>);
  } else if (p.streaming) {
    f(&ElementwiseKernel<T, N, Op, uint32_t, VEC, LargeUnroll<N>(), LargeHints<N>(), kShifted>);
  } else if (p.unroll == kMidUnroll) {
    f(&ElementwiseKernel<T, N, Op, uint32_t, VEC, kMidUnroll, kMidHints, kShifted>);
  } else {
    f(&ElementwiseKernel<T, N, Op, uint32_t, VEC, 1, 0, kShifted>);
  }
}

/*!
 * \brief Call f with the kernel (a pointer to the __global__ function) that
 *        runs plan p; the launcher and the CPU emulation of the tests share it.
 *        A plan of another unroll or streaming choice than the planner makes
 *        runs the nearest instantiated kernel.
 */
template <typename T, int N, typename Op, typename F>
inline void VisitElementwiseKernel(const ElementwisePlan& p, F&& f) {
  constexpr int VEC = VecWidth<T>(), US = ScalarUnroll<T>();
  if (p.vec > 1) {
    if constexpr (VEC > 1) {
      if (p.shifted) {
        VisitPackKernel<T, N, Op, true>(p, f);
      } else {
        VisitPackKernel<T, N, Op, false>(p, f);
      }
    }
  } else if (p.wide) {
    f(&ElementwiseKernel<T, N, Op, int64_t, 1, US, 0>);
  } else {
    f(&ElementwiseKernel<T, N, Op, uint32_t, 1, US, 0>);
  }
}

#if defined(__CUDACC__)  // launching needs the kernels compiled by nvcc
/*!
 * \brief Launch one elementwise op on `stream` of the current device
 *        `device_id`. n == 0 launches nothing.
 * \return The launch's error code (cudaSuccess when nothing was launched).
 */
template <typename T, int N, typename Op>
inline cudaError_t LaunchElementwise(T* out, const Inputs<T, N>& in, int64_t n, Op op,
                                     int device_id, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  const ElementwisePlan p =
      PlanElementwise<T, N>(out, in, n, NumSMs(device_id), L2Bytes(device_id));
  cudaError_t e = cudaSuccess;
  VisitElementwiseKernel<T, N, Op>(p, [&](auto kernel) {
    e = LaunchKernel(kernel, dim3(p.blocks), dim3(p.threads), stream, device_id, out, in, p.head,
                     p.nvec, n, op);
  });
  return e;
}
#endif  // __CUDACC__

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_ELEMENTWISE_CUH_

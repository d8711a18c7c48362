// Elementwise kernels: out[i] = op(in0[i], ..., in{N-1}[i]).
//
// Layout of the index space [0, n) for one launch:
//   [0, head)                 scalar: peeled so that the vector part is aligned
//   [head, head + nvec * VEC) 16-byte vectors, grid-stride, kElementwiseUnroll per trip
//   [head + nvec * VEC, n)    scalar tail
// head is 0 when every pointer is already 16-byte aligned; when the pointers
// disagree on their misalignment no vector path exists and the whole range is
// the scalar "tail" (nvec = 0).
//
// `out` may alias an input exactly (in-place): every element is read and then
// written by the same thread, once. Hence no __restrict__ on `out`.
#ifndef TVMFFI_KERNELS_CUDA_ELEMENTWISE_CUH_
#define TVMFFI_KERNELS_CUDA_ELEMENTWISE_CUH_

#include <algorithm>
#include <cstdint>

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

constexpr int kElementwiseThreads = 256;
constexpr int kElementwiseUnroll = 4;

template <typename T, int N, typename Op>
__global__ void __launch_bounds__(kElementwiseThreads)
    ElementwiseKernel(T* out, Inputs<T, N> in, int64_t head, int64_t nvec, int64_t n, Op op) {
  constexpr int VEC = VecWidth<T>();
  using P = Pack<T, VEC>;
  const int64_t tid = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t nthreads = static_cast<int64_t>(gridDim.x) * blockDim.x;

  // Scalar edges: the peeled head and the tail, one element per thread.
  const int64_t body_end = head + nvec * VEC;
  const int64_t tail = n - body_end;
  for (int64_t t = tid; t < head + tail; t += nthreads) {
    const int64_t i = t < head ? t : body_end + (t - head);
    out[i] = ApplyAt<T, N>(op, in, i);
  }
  if (nvec == 0) return;

  P* vout = reinterpret_cast<P*>(out + head);
  const P* vin[N];
#pragma unroll
  for (int k = 0; k < N; ++k) vin[k] = reinterpret_cast<const P*>(in.p[k] + head);

  int64_t i = tid;
  // Main loop: kElementwiseUnroll independent vectors per operand in flight.
  for (; i + (kElementwiseUnroll - 1) * nthreads < nvec; i += kElementwiseUnroll * nthreads) {
    P x[kElementwiseUnroll][N];
#pragma unroll
    for (int u = 0; u < kElementwiseUnroll; ++u) {
#pragma unroll
      for (int k = 0; k < N; ++k) x[u][k] = vin[k][i + u * nthreads];
    }
#pragma unroll
    for (int u = 0; u < kElementwiseUnroll; ++u) {
      vout[i + u * nthreads] = ApplyPack<T, N, Op, VEC>(op, x[u]);
    }
  }
  for (; i < nvec; i += nthreads) {
    P x[N];
#pragma unroll
    for (int k = 0; k < N; ++k) x[k] = vin[k][i];
    vout[i] = ApplyPack<T, N, Op, VEC>(op, x);
  }
}

/*! \brief Where one launch's vector body lies, and how many blocks it gets. */
struct ElementwisePlan {
  int64_t head;     // scalar elements before the vector body
  int64_t nvec;     // 16-byte vectors in the body (0: all scalar)
  unsigned blocks;  // grid size (threads per block: kElementwiseThreads)
};

/*!
 * \brief Plan one launch over n > 0 elements: split [0, n) into scalar head,
 *        vector body and scalar tail (see the file comment) and size the grid
 *        to the work, at most max_blocks (one full wave of the device).
 * \param ptrs The output and input pointers (byte offsets already applied).
 */
template <typename T, int NP>
inline ElementwisePlan PlanElementwise(const void* const (&ptrs)[NP], int64_t n,
                                       int64_t max_blocks) {
  constexpr int VEC = VecWidth<T>();
  ElementwisePlan p{0, 0, 1};
  const uintptr_t mis = reinterpret_cast<uintptr_t>(ptrs[0]) % kVecBytes;
  bool same = mis % sizeof(T) == 0;
  for (int k = 1; k < NP; ++k) {
    same = same && reinterpret_cast<uintptr_t>(ptrs[k]) % kVecBytes == mis;
  }
  const int64_t h = static_cast<int64_t>(((kVecBytes - mis) % kVecBytes) / sizeof(T));
  if (VEC > 1 && same && h < n) {
    p.head = h;
    p.nvec = (n - h) / VEC;
  }
  // Work items: vectors of the body, plus the scalar edges (all of n when no body).
  const int64_t edges = n - p.nvec * VEC;
  const int64_t items = std::max(p.nvec, edges);
  const int64_t wanted = (items + kElementwiseThreads - 1) / kElementwiseThreads;
  p.blocks = static_cast<unsigned>(std::max<int64_t>(1, std::min(wanted, max_blocks)));
  return p;
}

template <typename T, int N>
inline ElementwisePlan PlanElementwise(const T* out, const Inputs<T, N>& in, int64_t n,
                                       int64_t max_blocks) {
  if constexpr (N == 1) {
    const void* const ptrs[2] = {out, in.p[0]};
    return PlanElementwise<T>(ptrs, n, max_blocks);
  } else {
    const void* const ptrs[3] = {out, in.p[0], in.p[1]};
    return PlanElementwise<T>(ptrs, n, max_blocks);
  }
}

#if defined(__CUDACC__)  // launching needs nvcc's <<<>>>
/*!
 * \brief Launch one elementwise op on `stream`. n == 0 launches nothing.
 * \return The launch's error code (cudaSuccess when nothing was launched).
 */
template <typename T, int N, typename Op>
inline cudaError_t LaunchElementwise(T* out, const Inputs<T, N>& in, int64_t n, Op op,
                                     int device_id, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  // Resident blocks per SM of this instantiation (its register use decides),
  // asked once per instantiation; a grid of one full wave avoids a tail wave.
  static const int blocks_per_sm =
      ResidentBlocksPerSM(ElementwiseKernel<T, N, Op>, kElementwiseThreads);
  const ElementwisePlan p =
      PlanElementwise<T, N>(out, in, n, static_cast<int64_t>(NumSMs(device_id)) * blocks_per_sm);
  ElementwiseKernel<T, N, Op>
      <<<p.blocks, kElementwiseThreads, 0, stream>>>(out, in, p.head, p.nvec, n, op);
  return cudaGetLastError();
}
#endif  // __CUDACC__

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_ELEMENTWISE_CUH_

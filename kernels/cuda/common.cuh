// Device-side building blocks shared by the tvmffi CUDA kernels: 16-byte
// packs, float conversion for every element type we compute on, warp and
// block reductions, and the per-device launch geometry cache.
//
// Needs only the CUDA toolkit headers, so the kernels can be compiled (and
// timed) without the FFI layer. Everything but the <<<>>> launchers (guarded
// by __CUDACC__) also compiles as host C++: tests/cuda/test_cuda_emulated.cc
// runs the kernel bodies on CPU threads to check their index and reduction
// logic where no GPU is available.
#ifndef TVMFFI_KERNELS_CUDA_COMMON_CUH_
#define TVMFFI_KERNELS_CUDA_COMMON_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cmath>
#include <cstdint>

namespace tvmffi_kernels {

/*! \brief Bytes moved by one vector load or store. */
constexpr int kVecBytes = 16;

/*! \brief Elements of T in one 16-byte vector. */
template <typename T>
__host__ __device__ constexpr int VecWidth() {
  return kVecBytes / static_cast<int>(sizeof(T));
}

/*! \brief N elements of T loaded/stored as one unit (16 bytes for the vector path). */
template <typename T, int N>
struct alignas(sizeof(T) * N) Pack {
  T v[N];
};

/*! \brief The type arithmetic is done in: float for every 16-bit float, the type itself otherwise.
 */
template <typename T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<__half> {
  using type = float;
};
template <>
struct AccOf<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using Acc = typename AccOf<T>::type;

template <typename T>
__device__ __forceinline__ Acc<T> ToAcc(T x) {
  return x;
}
template <>
__device__ __forceinline__ float ToAcc<__half>(__half x) {
  return __half2float(x);
}
template <>
__device__ __forceinline__ float ToAcc<__nv_bfloat16>(__nv_bfloat16 x) {
  return __bfloat162float(x);
}

template <typename T>
__device__ __forceinline__ T FromAcc(Acc<T> x) {
  return x;
}
template <>
__device__ __forceinline__ __half FromAcc<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 FromAcc<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

/*! \brief Float conversion used by the row kernels (always fp32 accumulation). */
template <typename T>
__device__ __forceinline__ float ToFloat(T x) {
  return static_cast<float>(ToAcc<T>(x));
}
template <typename T>
__device__ __forceinline__ T FromFloat(float x) {
  return FromAcc<T>(static_cast<Acc<T>>(x));
}

// ---------------------------------------------------------------------------
// Reductions
// ---------------------------------------------------------------------------
constexpr unsigned kFullMask = 0xffffffffu;

/*! \brief Sum over aligned groups of LANES lanes (a power of two <= 32); the whole warp must call. */
template <int LANES>
__device__ __forceinline__ float GroupSum(float v) {
#pragma unroll
  for (int o = LANES / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFullMask, v, o);
  return v;
}

/*! \brief Max over aligned groups of LANES lanes; same contract as GroupSum. */
template <int LANES>
__device__ __forceinline__ float GroupMax(float v) {
#pragma unroll
  for (int o = LANES / 2; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, o));
  return v;
}

__device__ __forceinline__ float WarpSum(float v) { return GroupSum<32>(v); }
__device__ __forceinline__ float WarpMax(float v) { return GroupMax<32>(v); }

/*!
 * \brief Sum over the whole block; every thread gets the result.
 * \param smem At least 32 floats of shared memory, free on entry; free again on exit.
 */
__device__ __forceinline__ float BlockSum(float v, float* smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = (blockDim.x + 31) >> 5;
  v = WarpSum(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < nwarps ? smem[lane] : 0.f;
  v = WarpSum(v);
  __syncthreads();  // smem may be reused by the caller's next reduction
  return v;
}

/*! \brief Max over the whole block; same contract as BlockSum. */
__device__ __forceinline__ float BlockMax(float v, float* smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int nwarps = (blockDim.x + 31) >> 5;
  v = WarpMax(v);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  v = lane < nwarps ? smem[lane] : -INFINITY;
  v = WarpMax(v);
  __syncthreads();
  return v;
}

// ---------------------------------------------------------------------------
// Launch geometry
// ---------------------------------------------------------------------------

/*!
 * \brief Streaming-multiprocessor count of a device, looked up once per device.
 *
 * Lock-free: a racing first lookup just asks the driver twice. Returns 0 when
 * the attribute query fails, leaving the error to the caller's launch check.
 */
inline int NumSMs(int device_id) {
  constexpr int kMaxCachedDevices = 64;
  static std::atomic<int> cache[kMaxCachedDevices];
  if (device_id >= 0 && device_id < kMaxCachedDevices) {
    int n = cache[device_id].load(std::memory_order_relaxed);
    if (n > 0) return n;
  }
  int n = 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device_id) != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: keep it from blaming the next launch
    return 0;
  }
  if (device_id >= 0 && device_id < kMaxCachedDevices) {
    cache[device_id].store(n, std::memory_order_relaxed);
  }
  return n;
}

/*!
 * \brief How many blocks of `kernel` fit on one SM of the current device at
 *        `threads` per block; 1 if the runtime cannot say (the launch then
 *        reports the real problem).
 */
template <typename Kernel>
inline int ResidentBlocksPerSM(Kernel kernel, int threads) {
  int n = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, threads, 0) != cudaSuccess) {
    (void)cudaGetLastError();
    return 1;
  }
  return n > 0 ? n : 1;
}

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_COMMON_CUH_

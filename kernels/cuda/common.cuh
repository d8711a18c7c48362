// Device-side building blocks shared by the tvmffi CUDA kernels: 16-byte
// packs, float conversion for every element type we compute on, warp and
// block reductions, and the per-device launch geometry cache.
//
// Needs only the CUDA toolkit headers, so the kernels can be compiled (and
// timed) without the FFI layer. Everything but the launchers (guarded by
// __CUDACC__) also compiles as host C++: tests/cuda/test_cuda_emulated.cc
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
#if defined(__CUDACC__)
#include <cuda.h>  // driver API types only: the entry point is looked up, not linked

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <tuple>
#include <type_traits>
#include <utility>
#endif

namespace tvmffi_kernels {

/*!
 * \brief Called by every kernel here before its first access to global
 *        memory (first of all in the row kernels; after the index and
 *        pointer arithmetic in the elementwise ones): wait until the grids
 *        this one depends on have finished and their writes are visible, then,
 *        in the blocks of the grid's last wave, let the next kernel on the
 *        stream start launching.
 *
 * The library launches with programmatic stream serialization where the code
 * has this wait (compute capability 9.0 and newer, FunctionTable): the next
 * launch's block scheduling and prologue then overlap this kernel's tail
 * instead of following it. Nothing here touches global memory before the
 * wait, so reads and writes stay ordered after every earlier kernel exactly
 * as without it.
 *
 * The next grid may launch once every block has triggered or exited. Blocks
 * start in index order, so by the time the last wave (the last SMs x 2048
 * threads, one wave at full occupancy) has started, the earlier blocks have
 * mostly exited: the last wave's triggers are the ones that matter. The
 * trigger only decides when the next grid may start to wait, never what it
 * reads. Triggering in every block costs time in big grids, programmatic
 * launch or not (figures: RESULTS.md, "Figures behind the CUDA kernels'
 * choices").
 */
__device__ __forceinline__ void GridDependencyEnter() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  unsigned sms;  // %nsmid: at least the number of SMs
  asm("mov.u32 %0, %%nsmid;" : "=r"(sms));
  // Threads from this block to the grid's end within one full wave. Computed
  // before the wait (no memory involved), so that a small grid's trigger
  // follows the wait as closely as an unconditional one.
  const bool last_wave =
      static_cast<uint64_t>(gridDim.x - blockIdx.x) * blockDim.x <= uint64_t{sms} * 2048u;
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (last_wave) asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

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

/*! \brief Sum over aligned groups of LANES lanes (a power of two <= 32); the whole warp must call.
 */
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

__device__ __forceinline__ float WarpSum(float v) {
  return GroupSum<32>(v);
}
__device__ __forceinline__ float WarpMax(float v) {
  return GroupMax<32>(v);
}

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

/*!
 * \brief L2 cache bytes of a device, looked up once per device (as NumSMs);
 *        0 when the query fails.
 */
inline int L2Bytes(int device_id) {
  constexpr int kMaxCachedDevices = 64;
  static std::atomic<int> cache[kMaxCachedDevices];
  if (device_id >= 0 && device_id < kMaxCachedDevices) {
    const int n = cache[device_id].load(std::memory_order_relaxed);
    if (n > 0) return n;
  }
  int n = 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrL2CacheSize, device_id) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  if (n > 0 && device_id >= 0 && device_id < kMaxCachedDevices) {
    cache[device_id].store(n, std::memory_order_relaxed);
  }
  return n;
}

#if defined(__CUDACC__)
// ---------------------------------------------------------------------------
// Launching
// ---------------------------------------------------------------------------
//
// A <<<>>> launch goes through cudaLaunchKernel, which looks the kernel up by
// its host stub and checks the context and lazy module loading on every call.
// The kernels here are launched with cuLaunchKernel on a CUfunction looked up
// once per (kernel, device); the driver's entry point comes from the runtime
// (cudaGetDriverEntryPointByVersion), so the library does not link libcuda
// and still loads where no driver is installed. Any failure of that path
// (no driver entry point, a lookup or a launch that fails) is retried through
// cudaLaunchKernel, which then reports the error as a cudaError_t.

using CuLaunchKernelFn = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, CUstream, void**, void**);
using CuLaunchKernelExFn = CUresult (*)(const CUlaunchConfig*, CUfunction, void**, void**);

/*! \brief A driver API entry point (as of CUDA 12.0) from the runtime; nullptr where unavailable.
 */
inline void* DriverEntryPoint(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &q);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &q);
#endif
  if (e != cudaSuccess || q != cudaDriverEntryPointSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return p;
}

/*! \brief The driver's cuLaunchKernel, looked up once; nullptr where unavailable. */
inline CuLaunchKernelFn DriverLaunchKernel() {
  static const auto fn = reinterpret_cast<CuLaunchKernelFn>(DriverEntryPoint("cuLaunchKernel"));
  return fn;
}

/*! \brief The driver's cuLaunchKernelEx, looked up once; nullptr where unavailable. */
inline CuLaunchKernelExFn DriverLaunchKernelEx() {
  static const auto fn = reinterpret_cast<CuLaunchKernelExFn>(DriverEntryPoint("cuLaunchKernelEx"));
  return fn;
}

/*!
 * \brief Whether launches may use programmatic dependent launch (see
 *        GridDependencyEnter); on unless the environment sets
 *        TVMFFI_KERNELS_PDL=0 when the library first launches.
 */
inline std::atomic<bool>& ProgrammaticLaunchEnabled() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("TVMFFI_KERNELS_PDL");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }()};
  return on;
}

/*! \brief A kernel's CUfunction on one device, and whether it may launch programmatically. */
struct DeviceFunction {
  CUfunction fn = nullptr;
  bool pdl = false;
};

/*!
 * \brief CUfunction of each (kernel, device) pair seen, in a fixed open-addressed
 *        table: lock-free lookups, inserts under a mutex. Entries are only
 *        added; a full table makes lookups miss (the runtime path then serves).
 */
class FunctionTable {
 public:
  static FunctionTable& Global() {
    static FunctionTable t;
    return t;
  }

  /*! \brief The kernel's CUfunction on `device` (the current device); fn nullptr if none. */
  DeviceFunction Get(const void* kernel, int device) {
    const size_t h = Hash(kernel, device);
    for (size_t k = 0; k < kSlots; ++k) {
      const Slot& s = slots_[(h + k) & (kSlots - 1)];
      CUfunction f = s.fn.load(std::memory_order_acquire);
      if (f == nullptr) return Insert(kernel, device);
      if (s.kernel == kernel && s.device == device) return {f, s.pdl};
    }
    return {};
  }

 private:
  static constexpr size_t kSlots = 1024;  // power of two; ~150 kernels x a few devices
  struct Slot {
    std::atomic<CUfunction> fn{nullptr};  // published last (release)
    const void* kernel = nullptr;
    int device = -1;
    bool pdl = false;  // the code running on this device waits on its prerequisite grids
  };

  static size_t Hash(const void* kernel, int device) {
    uint64_t x = reinterpret_cast<uintptr_t>(kernel) ^ (static_cast<uint64_t>(device) << 48);
    x *= 0x9E3779B97F4A7C15ull;
    return static_cast<size_t>(x >> 40);
  }

  DeviceFunction Insert(const void* kernel, int device) {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t h = Hash(kernel, device);
    for (size_t k = 0; k < kSlots; ++k) {
      Slot& s = slots_[(h + k) & (kSlots - 1)];
      CUfunction f = s.fn.load(std::memory_order_acquire);
      if (f != nullptr) {
        if (s.kernel == kernel && s.device == device) return {f, s.pdl};
        continue;
      }
      cudaFunction_t rf = nullptr;
      if (cudaGetFuncBySymbol(&rf, kernel) != cudaSuccess || rf == nullptr) {
        (void)cudaGetLastError();
        return {};
      }
      s.kernel = kernel;
      s.device = device;
      s.pdl = WaitsOnPriorGrids(kernel, device);
      s.fn.store(reinterpret_cast<CUfunction>(rf), std::memory_order_release);
      return {s.fn.load(std::memory_order_relaxed), s.pdl};
    }
    return {};
  }

  // Programmatic launch is safe only where the code that runs was compiled
  // for compute capability 9.0 or newer (GridDependencyEnter waits there;
  // code JIT-compiled from older PTX has no wait) on a device that has it.
  static bool WaitsOnPriorGrids(const void* kernel, int device) {
    int major = 0;
    cudaFuncAttributes a{};
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaFuncGetAttributes(&a, kernel) != cudaSuccess) {
      (void)cudaGetLastError();
      return false;
    }
    return major >= 9 && a.ptxVersion >= 90 && a.binaryVersion >= 90;
  }

  Slot slots_[kSlots];
  std::mutex mu_;
};

template <typename Tuple, size_t... I>
inline void ParamPointers(Tuple& t, void** out, std::index_sequence<I...>) {
  ((out[I] = static_cast<void*>(&std::get<I>(t))), ...);
}

/*!
 * \brief Launch `kernel` on `stream` of the current device `device` with no
 *        dynamic shared memory; arguments are converted to the kernel's
 *        parameter types, as <<<>>> does.
 * \return cudaSuccess, or the launch's error (also left for cudaGetLastError
 *         by the runtime path, as after <<<>>>).
 */
template <typename... P, typename... A>
inline cudaError_t LaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, cudaStream_t stream,
                                int device, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "one argument per kernel parameter");
  std::tuple<std::decay_t<P>...> params(static_cast<std::decay_t<P>>(std::forward<A>(args))...);
  void* ptrs[sizeof...(P) > 0 ? sizeof...(P) : 1];
  ParamPointers(params, ptrs, std::index_sequence_for<P...>{});
  const void* key = reinterpret_cast<const void*>(kernel);
  if (CuLaunchKernelFn launch = DriverLaunchKernel()) {
    const DeviceFunction df = FunctionTable::Global().Get(key, device);
    if (df.fn != nullptr) {
      CuLaunchKernelExFn launch_ex = DriverLaunchKernelEx();
      if (df.pdl && launch_ex != nullptr &&
          ProgrammaticLaunchEnabled().load(std::memory_order_relaxed)) {
        CUlaunchAttribute attr{};
        attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        attr.value.programmaticStreamSerializationAllowed = 1;
        CUlaunchConfig cfg{};
        cfg.gridDimX = grid.x, cfg.gridDimY = grid.y, cfg.gridDimZ = grid.z;
        cfg.blockDimX = block.x, cfg.blockDimY = block.y, cfg.blockDimZ = block.z;
        cfg.hStream = reinterpret_cast<CUstream>(stream);
        cfg.attrs = &attr;
        cfg.numAttrs = 1;
        if (launch_ex(&cfg, df.fn, ptrs, nullptr) == CUDA_SUCCESS) return cudaSuccess;
      } else if (launch(df.fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0,
                        reinterpret_cast<CUstream>(stream), ptrs, nullptr) == CUDA_SUCCESS) {
        return cudaSuccess;
      }
    }
  }
  const cudaError_t e = cudaLaunchKernel(key, grid, block, ptrs, 0, stream);
  return e != cudaSuccess ? e : cudaGetLastError();
}
#endif  // __CUDACC__

}  // namespace tvmffi_kernels

#endif  // TVMFFI_KERNELS_CUDA_COMMON_CUH_

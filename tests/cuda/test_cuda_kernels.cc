// GPU tests of libtvmffi_kernels.so, called through the FFI ABI (dlopen +
// dlsym("__tvm_ffi_<name>"), DLTensor* arguments over cudaMalloc'd memory).
// Every test case skips itself when no CUDA device is present.
//
// Host-only C++ (CUDA runtime API and the host side of cuda_fp16.h /
// cuda_bf16.h): built by the C++ compiler, no nvcc needed.
//
// Tolerances (|got - ref| <= atol + rtol * |ref|, ref in double from the
// dtype-rounded inputs): float32 rtol 1e-5, float16 1e-3, bfloat16 1e-2
// (about twice the rounding step of the output type); float64 1e-12; integers
// exact. float32 softmax: rtol 3e-7 * sqrt(columns) when that is larger.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <tvm/ffi/extra/cuda/device_guard.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuda_test_util.h"
#include "ffi_call.h"

using Catch::Matchers::ContainsSubstring;
using namespace tvmffi_test;

namespace {

// ---------------------------------------------------------------------------
// Harness
// ---------------------------------------------------------------------------

using tvmffi_cuda_test::DeviceCount;

#define REQUIRE_GPU()                               \
  do {                                              \
    if (DeviceCount() == 0) SKIP("no CUDA device"); \
    INFO("dlopen: " << KernelLibError());           \
    REQUIRE(KernelLib() != nullptr);                \
    REQUIRE(cudaSetDevice(0) == cudaSuccess);       \
  } while (0)

/*! \brief cudaMalloc'd bytes, freed on scope exit (the test, not the kernels, allocates). */
struct DevBuf {
  void* p = nullptr;
  size_t bytes = 0;
  explicit DevBuf(size_t n) : bytes(n) { CUDA_REQUIRE(cudaMalloc(&p, std::max<size_t>(n, 1))); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
  ~DevBuf() {
    if (p) cudaFree(p);
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

template <typename T>
void Upload(const DevBuf& d, const std::vector<T>& h) {
  REQUIRE(h.size() * sizeof(T) <= d.bytes);
  CUDA_REQUIRE(cudaMemcpy(d.p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before its DMA lands, and work
  // on a non-blocking stream does not wait for it: the graph test's replay
  // once read part of its old input (H100, 2026-11-27).
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

template <typename T>
std::vector<T> Download(const DevBuf& d, size_t n) {
  std::vector<T> h(n);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CUDA_REQUIRE(cudaMemcpy(h.data(), d.p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// ---------------------------------------------------------------------------
// Element types on the host
// ---------------------------------------------------------------------------
template <typename T>
struct HostType;

template <>
struct HostType<float> {
  static constexpr DLDataType dtype = kF32;
  static constexpr const char* name = "float32";
  static constexpr double rtol = 1e-5, atol = 1e-6;
  static double ToD(float v) { return v; }
  static float FromD(double v) { return static_cast<float>(v); }
};
template <>
struct HostType<__half> {
  static constexpr DLDataType dtype = kF16;
  static constexpr const char* name = "float16";
  static constexpr double rtol = 1e-3, atol = 1e-3;
  static double ToD(__half v) { return __half2float(v); }
  static __half FromD(double v) { return __float2half(static_cast<float>(v)); }
};
template <>
struct HostType<__nv_bfloat16> {
  static constexpr DLDataType dtype = kBF16;
  static constexpr const char* name = "bfloat16";
  static constexpr double rtol = 1e-2, atol = 1e-2;
  static double ToD(__nv_bfloat16 v) { return __bfloat162float(v); }
  static __nv_bfloat16 FromD(double v) { return __float2bfloat16(static_cast<float>(v)); }
};
template <>
struct HostType<double> {
  static constexpr DLDataType dtype = kF64;
  static constexpr const char* name = "float64";
  static constexpr double rtol = 1e-12, atol = 1e-12;
  static double ToD(double v) { return v; }
  static double FromD(double v) { return v; }
};
template <typename I>
struct IntHostType {
  static constexpr const char* name = "int";
  static constexpr double rtol = 0, atol = 0;
  static double ToD(I v) { return static_cast<double>(v); }
  static I FromD(double v) { return static_cast<I>(v); }
};
template <>
struct HostType<int32_t> : IntHostType<int32_t> {
  static constexpr DLDataType dtype = kI32;
};
template <>
struct HostType<int64_t> : IntHostType<int64_t> {
  static constexpr DLDataType dtype = kI64;
};
template <>
struct HostType<int8_t> : IntHostType<int8_t> {
  static constexpr DLDataType dtype = kI8;
};
template <>
struct HostType<uint8_t> : IntHostType<uint8_t> {
  static constexpr DLDataType dtype = kU8;
};

template <typename T>
std::vector<T> RandomVec(size_t n, double lo, double hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v)
    x = HostType<T>::FromD(std::is_integral<T>::value ? std::floor(dist(rng)) : dist(rng));
  return v;
}

/*!
 * \brief Compare got[off, off + ref.size()) with ref; elements outside that
 *        window must still hold `guard` (no out-of-bounds writes).
 */
template <typename T>
void CheckClose(const std::vector<T>& got, size_t off, const std::vector<double>& ref, T guard,
                double rtol, double atol) {
  using H = HostType<T>;
  size_t bad = 0, first = 0;
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    const double g = H::ToD(got[off + i]);
    const double err = std::fabs(g - ref[i]);
    const bool ok = err <= atol + rtol * std::fabs(ref[i]);  // NaN fails
    if (!ok) {
      if (bad == 0) first = i;
      ++bad;
    }
    if (err > worst) worst = err;
  }
  size_t clobbered = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (i >= off && i < off + ref.size()) continue;
    if (std::memcmp(&got[i], &guard, sizeof(T)) != 0) ++clobbered;
  }
  INFO("dtype " << H::name << ", n " << ref.size() << ", worst abs err " << worst);
  if (bad) {
    INFO("first mismatch at " << first << ": got " << H::ToD(got[off + first]) << ", want "
                              << ref[first]);
    CHECK(bad == 0);
  }
  CHECK(clobbered == 0);
}

// ---------------------------------------------------------------------------
// Elementwise runner
// ---------------------------------------------------------------------------
enum class EwOp { kAddOne, kScale, kAxpy, kAdd };
const char* OpName(EwOp op) {
  switch (op) {
    case EwOp::kAddOne:
      return "add_one";
    case EwOp::kScale:
      return "scale";
    case EwOp::kAxpy:
      return "axpy";
    case EwOp::kAdd:
      return "add";
  }
  return "?";
}
constexpr double kFactor = -2.5;  // exactly representable in every float type
constexpr double kAlpha = 0.75;

/*!
 * \brief Run one elementwise op over n elements with the given element offsets
 *        (DLTensor::byte_offset) and check it against the CPU.
 */
template <typename T>
void RunElementwise(EwOp op, int64_t n, int64_t off_out, int64_t off_a, int64_t off_b) {
  using H = HostType<T>;
  INFO(OpName(op) << " " << H::name << " n=" << n << " offsets out/a/b " << off_out << "/" << off_a
                  << "/" << off_b);
  constexpr int64_t kPad = 16;
  const size_t total = static_cast<size_t>(n + kPad);
  const bool integral = std::is_integral<T>::value;
  const double lo = std::is_unsigned<T>::value ? 0 : integral ? -50 : -2;
  const double hi = integral ? 50 : 2;
  std::vector<T> a = RandomVec<T>(total, lo, hi, static_cast<uint32_t>(1 + n));
  std::vector<T> b = RandomVec<T>(total, lo, hi, static_cast<uint32_t>(7 + n));
  const T guard = H::FromD(integral ? 42 : 7.0);
  std::vector<T> out_init(total, guard);
  DevBuf da(total * sizeof(T)), db(total * sizeof(T)), dout(total * sizeof(T));
  Upload(da, a);
  Upload(db, b);
  Upload(dout, out_init);

  const DLDevice dev = CUDADev(0);
  TestTensor to(dout.p, {n}, H::dtype, dev, off_out * sizeof(T));
  TestTensor ta(da.p, {n}, H::dtype, dev, off_a * sizeof(T));
  TestTensor tb(db.p, {n}, H::dtype, dev, off_b * sizeof(T));
  std::vector<double> ref(static_cast<size_t>(n));
  CallResult r;
  switch (op) {
    case EwOp::kAddOne:
      r = Call("add_one", {to.any(), ta.any()});
      for (int64_t i = 0; i < n; ++i) ref[i] = H::ToD(H::FromD(H::ToD(a[off_a + i]) + 1));
      break;
    case EwOp::kScale:
      r = Call("scale", {to.any(), ta.any(), AnyFloat(kFactor)});
      for (int64_t i = 0; i < n; ++i) ref[i] = H::ToD(a[off_a + i]) * kFactor;
      break;
    case EwOp::kAxpy:
      r = Call("axpy", {to.any(), ta.any(), tb.any(), AnyFloat(kAlpha)});
      for (int64_t i = 0; i < n; ++i) ref[i] = kAlpha * H::ToD(a[off_a + i]) + H::ToD(b[off_b + i]);
      break;
    case EwOp::kAdd:
      r = Call("add", {to.any(), ta.any(), tb.any()});
      for (int64_t i = 0; i < n; ++i) ref[i] = H::ToD(a[off_a + i]) + H::ToD(b[off_b + i]);
      break;
  }
  INFO(r.Describe());
  REQUIRE(r.rc == 0);
  CheckClose<T>(Download<T>(dout, total), static_cast<size_t>(off_out), ref, guard, H::rtol,
                H::atol);
}

const int64_t kOddSizes[] = {0, 1, 7, 1023, (int64_t{1} << 20) + 3};

template <typename T>
void ElementwiseAllSizes(EwOp op) {
  for (int64_t n : kOddSizes) RunElementwise<T>(op, n, 0, 0, 0);
}

// ---------------------------------------------------------------------------
// Row-wise references and runner
// ---------------------------------------------------------------------------
template <typename T>
void RunRows(bool softmax, std::vector<int64_t> shape, int64_t elem_offset, double lo, double hi) {
  using H = HostType<T>;
  const int64_t cols = shape.empty() ? 1 : shape.back();
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  const int64_t rows = cols == 0 ? 0 : numel / cols;
  std::string shape_str;
  for (int64_t s : shape) shape_str += std::to_string(s) + " ";
  INFO((softmax ? "softmax " : "rmsnorm ")
       << H::name << " shape " << shape_str << "offset " << elem_offset);
  const size_t total = static_cast<size_t>(numel + elem_offset + 8);
  std::vector<T> x = RandomVec<T>(total, lo, hi, static_cast<uint32_t>(numel + cols));
  std::vector<T> w = RandomVec<T>(static_cast<size_t>(cols + elem_offset + 8), 0.5, 1.5, 99);
  const T guard = H::FromD(7.0);
  DevBuf dx(total * sizeof(T)), dout(total * sizeof(T)), dw(w.size() * sizeof(T));
  Upload(dx, x);
  Upload(dw, w);
  Upload(dout, std::vector<T>(total, guard));
  const uint64_t boff = static_cast<uint64_t>(elem_offset) * sizeof(T);
  TestTensor tx(dx.p, shape, H::dtype, CUDADev(), boff);
  TestTensor tout(dout.p, shape, H::dtype, CUDADev(), boff);
  TestTensor tw(dw.p, {cols}, H::dtype, CUDADev(), boff);

  std::vector<double> ref(static_cast<size_t>(numel));
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x.data() + elem_offset + r * cols;
    double* o = ref.data() + r * cols;
    if (softmax) {
      double m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::max(m, H::ToD(xr[c]));
      for (int64_t c = 0; c < cols; ++c) s += std::exp(H::ToD(xr[c]) - m);
      for (int64_t c = 0; c < cols; ++c) o[c] = std::exp(H::ToD(xr[c]) - m) / s;
    } else {
      double ss = 0;
      for (int64_t c = 0; c < cols; ++c) ss += H::ToD(xr[c]) * H::ToD(xr[c]);
      const double inv = 1.0 / std::sqrt(ss / cols + 1e-6);
      for (int64_t c = 0; c < cols; ++c) o[c] = H::ToD(xr[c]) * inv * H::ToD(w[elem_offset + c]);
    }
  }
  CallResult r = softmax ? Call("softmax", {tout.any(), tx.any()})
                         : Call("rmsnorm", {tout.any(), tx.any(), tw.any(), AnyFloat(1e-6)});
  INFO(r.Describe());
  REQUIRE(r.rc == 0);
  // Softmax outputs shrink with the row length: scale the absolute floor with
  // them; float16 additionally rounds tiny probabilities to subnormals.
  double atol = H::atol;
  double rtol = H::rtol;
  if (softmax) {
    // The normaliser is an fp32 sum over the whole row: its rounding grows
    // with the row length (1.5e-5 relative seen at 30000 columns).
    if (std::is_same<T, float>::value) rtol = std::max(rtol, 3e-7 * std::sqrt(double(cols)));
    atol = H::rtol * 1e-2 / std::max<int64_t>(cols, 1);
    if (std::is_same<T, __half>::value) atol = std::max(atol, 6e-8);
  }
  std::vector<T> got = Download<T>(dout, total);
  CheckClose<T>(got, static_cast<size_t>(elem_offset), ref, guard, rtol, atol);
  if (softmax && rows > 0) {
    // Each row sums to one.
    double worst = 0;
    for (int64_t r2 = 0; r2 < rows; ++r2) {
      double s = 0;
      for (int64_t c = 0; c < cols; ++c) s += H::ToD(got[elem_offset + r2 * cols + c]);
      worst = std::max(worst, std::fabs(s - 1));
    }
    CHECK(worst <= 1e-4 + 5 * H::rtol);
  }
}

// Shapes that hit every launch plan: warp per row (cols <= 512), cached block
// per row (<= 16384), streaming block per row (longer), vector and scalar widths.
const std::vector<std::vector<int64_t>> kRowShapes = {
    {1, 1},     {3, 7},     {5, 33},    {4, 512},    {3, 513}, {2, 3, 64}, {7, 4096},
    {2, 16384}, {3, 16392}, {2, 20001}, {1, 100000}, {0, 16},  {33, 96},   {16}};

template <typename T>
void RowsAllShapes(bool softmax) {
  for (const auto& shape : kRowShapes) RunRows<T>(softmax, shape, 0, -2, 2);
}

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------
struct StreamGuard {
  cudaStream_t s = nullptr;
  StreamGuard() { CUDA_REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~StreamGuard() {
    if (s) cudaStreamDestroy(s);
  }
};

/*! \brief Make `s` the environment stream of cuda:`dev` for a scope. */
struct EnvStream {
  int dev;
  TVMFFIStreamHandle prev = nullptr;
  EnvStream(int dev_id, cudaStream_t s) : dev(dev_id) {
    REQUIRE(TVMFFIEnvSetStream(kDLCUDA, dev, s, &prev) == 0);
  }
  ~EnvStream() { TVMFFIEnvSetStream(kDLCUDA, dev, prev, nullptr); }
};

/*!
 * \brief Hold a stream at a host function until Release() (or a watchdog
 *        timeout, so that a kernel that synchronises fails instead of hanging).
 */
struct StreamGate {
  std::atomic<int> open{0};
  std::atomic<bool> timed_out{false};
  std::thread watchdog;

  explicit StreamGate(cudaStream_t s) {
    CUDA_REQUIRE(cudaLaunchHostFunc(
        s,
        [](void* p) {
          auto* g = static_cast<StreamGate*>(p);
          while (!g->open.load()) std::this_thread::sleep_for(std::chrono::microseconds(50));
        },
        this));
    watchdog = std::thread([this] {
      for (int i = 0; i < 2000 && !open.load(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
      if (!open.exchange(1)) timed_out = true;
    });
  }
  void Release() { open = 1; }
  ~StreamGate() {
    open = 1;
    watchdog.join();
  }
};

}  // namespace

// ===========================================================================
// Numerics
// ===========================================================================

TEST_CASE("elementwise kernels match a CPU reference at odd sizes", "[cuda][elementwise]") {
  REQUIRE_GPU();
  for (EwOp op : {EwOp::kAddOne, EwOp::kScale, EwOp::kAxpy, EwOp::kAdd}) {
    ElementwiseAllSizes<float>(op);
    ElementwiseAllSizes<__half>(op);
    ElementwiseAllSizes<__nv_bfloat16>(op);
  }
}

TEST_CASE("add_one covers float64 and integer dtypes", "[cuda][elementwise]") {
  REQUIRE_GPU();
  for (int64_t n : kOddSizes) {
    RunElementwise<double>(EwOp::kAddOne, n, 0, 0, 0);
    RunElementwise<int32_t>(EwOp::kAddOne, n, 0, 0, 0);
    RunElementwise<int64_t>(EwOp::kAddOne, n, 0, 0, 0);
    RunElementwise<int8_t>(EwOp::kAddOne, n, 0, 0, 0);
    RunElementwise<uint8_t>(EwOp::kAddOne, n, 0, 0, 0);
  }
}

TEST_CASE("elementwise kernels handle misaligned pointers", "[cuda][elementwise]") {
  REQUIRE_GPU();
  for (int64_t n : {int64_t{1}, int64_t{5}, int64_t{1023}, (int64_t{1} << 20) + 3}) {
    for (EwOp op : {EwOp::kScale, EwOp::kAdd, EwOp::kAxpy}) {
      // Same misalignment everywhere: scalar head, then the vector body.
      RunElementwise<float>(op, n, 1, 1, 1);
      RunElementwise<__half>(op, n, 3, 3, 3);
      RunElementwise<__nv_bfloat16>(op, n, 7, 7, 7);
      // Different misalignments: the all-scalar fallback.
      RunElementwise<float>(op, n, 0, 1, 2);
      RunElementwise<__half>(op, n, 1, 0, 0);
      RunElementwise<__nv_bfloat16>(op, n, 0, 0, 5);
    }
    RunElementwise<double>(EwOp::kAddOne, n, 1, 0, 0);
  }
}

TEST_CASE("rmsnorm matches a CPU reference", "[cuda][rowwise]") {
  REQUIRE_GPU();
  RowsAllShapes<float>(false);
  RowsAllShapes<__half>(false);
  RowsAllShapes<__nv_bfloat16>(false);
}

TEST_CASE("softmax matches a CPU reference", "[cuda][rowwise]") {
  REQUIRE_GPU();
  RowsAllShapes<float>(true);
  RowsAllShapes<__half>(true);
  RowsAllShapes<__nv_bfloat16>(true);
}

TEST_CASE("softmax is numerically stable for large inputs", "[cuda][rowwise]") {
  REQUIRE_GPU();
  // exp(1000) overflows: only a max-subtracting softmax gets these right.
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{4, 64}, {3, 4096}, {2, 30000}}) {
    RunRows<float>(true, shape, 0, 990, 1010);
    RunRows<__nv_bfloat16>(true, shape, 0, -1010, -990);
  }
}

TEST_CASE("row kernels handle misaligned rows", "[cuda][rowwise]") {
  REQUIRE_GPU();
  // An element offset breaks the 16-byte alignment of every row: scalar path.
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{3, 64}, {5, 4096}, {2, 20000}}) {
    RunRows<float>(false, shape, 1, -2, 2);
    RunRows<__half>(true, shape, 3, -2, 2);
    RunRows<__nv_bfloat16>(false, shape, 5, -2, 2);
    RunRows<float>(true, shape, 2, -2, 2);
  }
}

TEST_CASE("block-mode row kernels fill every SM and spill nothing", "[cuda][rowwise]") {
  REQUIRE_GPU();
  using InfoFn = int (*)(int, int, int, int64_t, int, int*);
  auto info_fn = reinterpret_cast<InfoFn>(dlsym(KernelLib(), "tvmffi_kernels_row_kernel_info"));
  REQUIRE(info_fn != nullptr);
  int max_threads = 0;
  CUDA_REQUIRE(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
  struct DT {
    int code, bits;
    const char* name;
  };
  for (DT dt :
       {DT{kDLFloat, 32, "float32"}, DT{kDLFloat, 16, "float16"}, DT{kDLBfloat, 16, "bfloat16"}}) {
    for (int softmax : {0, 1}) {
      INFO(dt.name << (softmax ? " softmax" : " rmsnorm"));
      // [8192, 4096]: one block of 256 threads per row. At 33+ registers a
      // thread (bf16 softmax and fp32 rmsnorm, uncapped) only 5-6 such blocks
      // fit on an SM, and the H200's copy bandwidth is out of reach.
      int info[5] = {-1, -1, -1, -1, -1};
      REQUIRE(info_fn(softmax, dt.code, dt.bits, 8192, 4096, info) == 0);
      INFO("registers " << info[2] << ", blocks/SM " << info[3] << ", local " << info[4]);
      CHECK(info[0] == 1);
      CHECK(info[1] == 256);
      CHECK(info[3] * info[1] == max_threads);
      CHECK(info[4] == 0);
      // [65536, 128]: group mode, no spills either.
      REQUIRE(info_fn(softmax, dt.code, dt.bits, 65536, 128, info) == 0);
      CHECK(info[0] == 0);
      CHECK(info[4] == 0);
    }
  }
  int untouched[5] = {7, 7, 7, 7, 7};
  CHECK(info_fn(1, kDLInt, 32, 8192, 4096, untouched) == -1);  // no row kernel for int32
  CHECK(info_fn(1, kDLFloat, 32, 0, 4096, untouched) == -1);
  CHECK(untouched[0] == 7);
  CHECK(info_fn(1, kDLFloat, 32, 8, 8, nullptr) == -1);
}

TEST_CASE("kernels work in place", "[cuda][inplace]") {
  REQUIRE_GPU();
  const int64_t rows = 5, cols = 4100;  // vector rows; 20500 elements (odd tail)
  const int64_t n = rows * cols;
  std::vector<float> x = RandomVec<float>(n, -2, 2, 41);
  std::vector<float> y = RandomVec<float>(n, -2, 2, 42);
  std::vector<float> w = RandomVec<float>(cols, 0.5, 1.5, 43);
  DevBuf dx(n * 4), dy(n * 4), dw(cols * 4);
  Upload(dw, w);
  TestTensor tx(dx.p, {n}, kF32, CUDADev()), ty(dy.p, {n}, kF32, CUDADev());
  TestTensor tx2(dx.p, {rows, cols}, kF32, CUDADev()), tw(dw.p, {cols}, kF32, CUDADev());
  auto expect = [&](const std::vector<double>& ref) {
    CheckClose<float>(Download<float>(dx, n), 0, ref, 0.f, 1e-5, 1e-6);
  };
  std::vector<double> ref(n);

  Upload(dx, x);
  REQUIRE(Call("scale", {tx.any(), tx.any(), AnyFloat(kFactor)}).rc == 0);
  for (int64_t i = 0; i < n; ++i) ref[i] = double(x[i]) * kFactor;
  expect(ref);

  Upload(dx, x);
  Upload(dy, y);
  REQUIRE(Call("axpy", {tx.any(), tx.any(), ty.any(), AnyFloat(kAlpha)}).rc == 0);
  for (int64_t i = 0; i < n; ++i) ref[i] = kAlpha * x[i] + y[i];
  expect(ref);

  Upload(dx, x);
  REQUIRE(Call("add", {tx.any(), tx.any(), tx.any()}).rc == 0);
  for (int64_t i = 0; i < n; ++i) ref[i] = 2.0 * x[i];
  expect(ref);

  Upload(dx, x);
  REQUIRE(Call("softmax", {tx2.any(), tx2.any()}).rc == 0);
  for (int64_t r = 0; r < rows; ++r) {
    double m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::max(m, double(x[r * cols + c]));
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) ref[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  CheckClose<float>(Download<float>(dx, n), 0, ref, 0.f, 1e-5, 1e-12);

  Upload(dx, x);
  REQUIRE(Call("rmsnorm", {tx2.any(), tx2.any(), tw.any(), AnyFloat(1e-6)}).rc == 0);
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t c = 0; c < cols; ++c) ss += double(x[r * cols + c]) * x[r * cols + c];
    const double inv = 1 / std::sqrt(ss / cols + 1e-6);
    for (int64_t c = 0; c < cols; ++c) ref[r * cols + c] = x[r * cols + c] * inv * w[c];
  }
  expect(ref);
}

// ===========================================================================
// Streams, graphs, devices
// ===========================================================================

TEST_CASE("kernels run on the stream set in the environment", "[cuda][stream]") {
  REQUIRE_GPU();
  const int64_t n = 4099;
  std::vector<float> in = RandomVec<float>(n, -1, 1, 5);
  DevBuf din(n * sizeof(float)), dout(n * sizeof(float)), dsm(n * sizeof(float));
  Upload(din, in);
  CUDA_REQUIRE(cudaMemset(dout.p, 0, n * sizeof(float)));
  CUDA_REQUIRE(cudaMemset(dsm.p, 0, n * sizeof(float)));
  float* host = nullptr;
  CUDA_REQUIRE(cudaMallocHost(&host, n * sizeof(float)));
  StreamGuard work, reader;

  TestTensor tin(din.p, {n}, kF32, CUDADev());
  TestTensor tout(dout.p, {n}, kF32, CUDADev());
  TestTensor tsm(dsm.p, {1, n}, kF32, CUDADev());
  TestTensor tin2(din.p, {1, n}, kF32, CUDADev());
  // Warm up on the default stream: with lazy module loading the first launch
  // of a kernel loads it, which may wait for busy streams (a held stream here).
  {
    EnvStream default_stream(0, nullptr);
    REQUIRE(Call("scale", {tout.any(), tin.any(), AnyFloat(0.0)}).rc == 0);
    REQUIRE(Call("softmax", {tsm.any(), tin2.any()}).rc == 0);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CUDA_REQUIRE(cudaMemset(dout.p, 0, n * sizeof(float)));
    CUDA_REQUIRE(cudaMemset(dsm.p, 0, n * sizeof(float)));
  }
  EnvStream env(0, work.s);
  REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 0) == work.s);
  auto read = [&](const DevBuf& b) {
    CUDA_REQUIRE(cudaMemcpyAsync(host, b.p, n * sizeof(float), cudaMemcpyDeviceToHost, reader.s));
    CUDA_REQUIRE(cudaStreamSynchronize(reader.s));
    return std::vector<float>(host, host + n);
  };
  {
    StreamGate gate(work.s);
    CallResult r1 = Call("scale", {tout.any(), tin.any(), AnyFloat(2.0)});
    CallResult r2 = Call("softmax", {tsm.any(), tin2.any()});
    INFO(r1.Describe() << " / " << r2.Describe());
    REQUIRE(r1.rc == 0);
    REQUIRE(r2.rc == 0);
    // The calls returned while the stream is held: nothing ran yet.
    const std::vector<float> before = read(dout);
    const std::vector<float> before_sm = read(dsm);
    CHECK(std::all_of(before.begin(), before.end(), [](float v) { return v == 0.f; }));
    CHECK(std::all_of(before_sm.begin(), before_sm.end(), [](float v) { return v == 0.f; }));
    gate.Release();
    CUDA_REQUIRE(cudaStreamSynchronize(work.s));
    CHECK_FALSE(gate.timed_out.load());
  }
  const std::vector<float> after = read(dout);
  size_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += after[i] != in[i] * 2.f;
  CHECK(bad == 0);
  CUDA_REQUIRE(cudaFreeHost(host));
}

TEST_CASE("FFI calls can be captured into a CUDA graph", "[cuda][graph]") {
  REQUIRE_GPU();
  const int64_t n = (int64_t{1} << 16) + 5;
  const int64_t rows = 8, cols = 1000;
  std::vector<float> in = RandomVec<float>(n, -1, 1, 11);
  std::vector<float> x = RandomVec<float>(rows * cols, -1, 1, 12);
  std::vector<float> w(cols, 1.0f);
  DevBuf din(n * 4), dmid(n * 4), dout(n * 4), dx(rows * cols * 4), dy(rows * cols * 4),
      dz(rows * cols * 4), dw(cols * 4);
  Upload(din, in);
  Upload(dx, x);
  Upload(dw, w);
  TestTensor tin(din.p, {n}, kF32, CUDADev()), tmid(dmid.p, {n}, kF32, CUDADev()),
      tout(dout.p, {n}, kF32, CUDADev());
  TestTensor tx(dx.p, {rows, cols}, kF32, CUDADev()), ty(dy.p, {rows, cols}, kF32, CUDADev()),
      tz(dz.p, {rows, cols}, kF32, CUDADev()), tw(dw.p, {cols}, kF32, CUDADev());

  StreamGuard s;
  EnvStream env(0, s.s);
  // One eager round first, as frameworks do before capturing: kernels are
  // loaded (lazy module loading) and per-kernel caches filled outside the capture.
  REQUIRE(Call("scale", {tmid.any(), tin.any(), AnyFloat(2.0)}).rc == 0);
  REQUIRE(Call("softmax", {ty.any(), tx.any()}).rc == 0);
  REQUIRE(Call("rmsnorm", {tz.any(), ty.any(), tw.any(), AnyFloat(1e-6)}).rc == 0);
  CUDA_REQUIRE(cudaStreamSynchronize(s.s));
  for (const DevBuf* b : {&dmid, &dout, &dy, &dz}) CUDA_REQUIRE(cudaMemset(b->p, 0, b->bytes));
  cudaGraph_t graph = nullptr;
  // Global mode: any synchronising or allocating call inside a kernel entry
  // would invalidate the capture and fail the calls below.
  CUDA_REQUIRE(cudaStreamBeginCapture(s.s, cudaStreamCaptureModeGlobal));
  CallResult r1 = Call("scale", {tmid.any(), tin.any(), AnyFloat(2.0)});
  CallResult r2 = Call("scale", {tout.any(), tmid.any(), AnyFloat(3.0)});
  CallResult r3 = Call("softmax", {ty.any(), tx.any()});
  CallResult r4 = Call("rmsnorm", {tz.any(), ty.any(), tw.any(), AnyFloat(1e-6)});
  const cudaError_t end = cudaStreamEndCapture(s.s, &graph);
  INFO(r1.Describe() << " | " << r2.Describe() << " | " << r3.Describe() << " | " << r4.Describe());
  REQUIRE(r1.rc == 0);
  REQUIRE(r2.rc == 0);
  REQUIRE(r3.rc == 0);
  REQUIRE(r4.rc == 0);
  CUDA_REQUIRE(end);
  size_t nodes = 0;
  CUDA_REQUIRE(cudaGraphGetNodes(graph, nullptr, &nodes));
  CHECK(nodes == 4);
  // Captured, not executed.
  std::vector<float> zero = Download<float>(dout, n);
  CHECK(std::all_of(zero.begin(), zero.end(), [](float v) { return v == 0.f; }));

  cudaGraphExec_t exec = nullptr;
  CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    INFO("replay " << replay);
    if (replay == 1) {
      in = RandomVec<float>(n, -1, 1, 13);  // new data, same graph
      Upload(din, in);
    }
    CUDA_REQUIRE(cudaGraphLaunch(exec, s.s));
    CUDA_REQUIRE(cudaStreamSynchronize(s.s));
    std::vector<float> out = Download<float>(dout, n);
    size_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += std::fabs(out[i] - in[i] * 6.f) > 1e-6f * 6;
    CHECK(bad == 0);
    // rmsnorm(softmax(x)) with unit weight: a row whose input has mean
    // square m comes out with mean square m / (m + eps) (eps = 1e-6 is not
    // negligible against softmax outputs of about 1e-3).
    std::vector<float> y = Download<float>(dy, rows * cols);
    std::vector<float> z = Download<float>(dz, rows * cols);
    for (int64_t r = 0; r < rows; ++r) {
      double m = 0, ss = 0, sum = 0;
      for (int64_t c = 0; c < cols; ++c) {
        m += double(y[r * cols + c]) * y[r * cols + c];
        ss += double(z[r * cols + c]) * z[r * cols + c];
        sum += y[r * cols + c];
      }
      m /= cols;
      CHECK(std::fabs(sum - 1) < 1e-4);
      CHECK(std::fabs(ss / cols - m / (m + 1e-6)) < 1e-3);
    }
  }
  CUDA_REQUIRE(cudaGraphExecDestroy(exec));
  CUDA_REQUIRE(cudaGraphDestroy(graph));
}

/*! \brief The library's programmatic-launch switch (returns the old setting). */
int SetProgrammaticLaunch(int on) {
  using SetFn = int (*)(int);
  auto set = reinterpret_cast<SetFn>(dlsym(KernelLib(), "tvmffi_kernels_set_programmatic_launch"));
  REQUIRE(set != nullptr);
  return set(on);
}

/*! \brief Edges of a graph whose dependency type is programmatic. */
size_t ProgrammaticEdges(cudaGraph_t graph) {
  size_t n = 0;
#if CUDART_VERSION >= 13000
  CUDA_REQUIRE(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &n));
  std::vector<cudaGraphNode_t> from(n), to(n);
  std::vector<cudaGraphEdgeData> data(n);
  CUDA_REQUIRE(cudaGraphGetEdges(graph, from.data(), to.data(), data.data(), &n));
#else
  CUDA_REQUIRE(cudaGraphGetEdges_v2(graph, nullptr, nullptr, nullptr, &n));
  std::vector<cudaGraphNode_t> from(n), to(n);
  std::vector<cudaGraphEdgeData> data(n);
  CUDA_REQUIRE(cudaGraphGetEdges_v2(graph, from.data(), to.data(), data.data(), &n));
#endif
  return static_cast<size_t>(std::count_if(
      data.begin(), data.end(),
      [](const cudaGraphEdgeData& d) { return d.type == cudaGraphDependencyTypeProgrammatic; }));
}

// Each launch may start while the previous kernel on the stream still runs
// (programmatic dependent launch on compute capability 9.0+); every kernel
// waits for it before touching memory. A chain in which each step reads what
// the one before wrote, in place and ping-pong, at sizes of one block, of one
// wave and of 31 waves (where only the last wave's blocks let the next launch
// start early), with a memset in between, must give exactly the sequential
// result.
TEST_CASE("dependent launches see every earlier write", "[cuda][pdl]") {
  REQUIRE_GPU();
  int major = 0;
  CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  const bool capable = major >= 9;
  for (int pdl : {1, 0}) {
    const int before = SetProgrammaticLaunch(pdl);
    for (const int64_t n : {int64_t{1000}, (int64_t{1} << 22) + 3, (int64_t{1} << 25) + 3}) {
      INFO("programmatic " << pdl << ", n " << n);
      DevBuf da(n * 4), db(n * 4);
      CUDA_REQUIRE(cudaMemset(da.p, 0, n * 4));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      TestTensor ta(da.p, {n}, kF32, CUDADev()), tb(db.p, {n}, kF32, CUDADev());
      StreamGuard s;
      EnvStream env(0, s.s);
      auto chain = [&] {
        // a: 0 -> 50 by add_one in place; b = 2a; a = a + b (150); memset b;
        // b = a + 1, a = 2b (302); 20 rounds of b = a + 1, a = b (322).
        for (int i = 0; i < 50; ++i) REQUIRE(Call("add_one", {ta.any(), ta.any()}).rc == 0);
        REQUIRE(Call("scale", {tb.any(), ta.any(), AnyFloat(2.0)}).rc == 0);
        REQUIRE(Call("add", {ta.any(), ta.any(), tb.any()}).rc == 0);
        CUDA_REQUIRE(cudaMemsetAsync(db.p, 0, n * 4, s.s));
        REQUIRE(Call("add_one", {tb.any(), ta.any()}).rc == 0);
        REQUIRE(Call("scale", {ta.any(), tb.any(), AnyFloat(2.0)}).rc == 0);
        for (int i = 0; i < 20; ++i) {
          REQUIRE(Call("add_one", {tb.any(), ta.any()}).rc == 0);
          REQUIRE(Call("scale", {ta.any(), tb.any(), AnyFloat(1.0)}).rc == 0);
        }
      };
      auto check = [&](float want) {
        CUDA_REQUIRE(cudaStreamSynchronize(s.s));
        const std::vector<float> a = Download<float>(da, n);
        size_t bad = 0;
        for (int64_t i = 0; i < n; ++i) bad += a[i] != want;
        CHECK(bad == 0);
      };
      chain();
      check(322.f);
      // The same chain in a graph, replayed twice from a = 0.
      CUDA_REQUIRE(cudaMemsetAsync(da.p, 0, n * 4, s.s));
      CUDA_REQUIRE(cudaStreamSynchronize(s.s));
      cudaGraph_t graph = nullptr;
      CUDA_REQUIRE(cudaStreamBeginCapture(s.s, cudaStreamCaptureModeGlobal));
      chain();
      CUDA_REQUIRE(cudaStreamEndCapture(s.s, &graph));
      // 94 kernels and a memset in one line: the kernel-to-kernel edges are
      // programmatic exactly when the library launches so (92 of the 94;
      // the memset's two are ordinary).
      CHECK(ProgrammaticEdges(graph) == (pdl && capable ? 92u : 0u));
      cudaGraphExec_t exec = nullptr;
      CUDA_REQUIRE(cudaGraphInstantiate(&exec, graph, 0));
      for (int replay = 0; replay < 2; ++replay) {
        CUDA_REQUIRE(cudaMemsetAsync(da.p, 0, n * 4, s.s));
        CUDA_REQUIRE(cudaGraphLaunch(exec, s.s));
        check(322.f);
      }
      CUDA_REQUIRE(cudaGraphExecDestroy(exec));
      CUDA_REQUIRE(cudaGraphDestroy(graph));
    }
    SetProgrammaticLaunch(before);
  }
}

TEST_CASE("CUDADeviceGuard switches only when needed and reports CUDA errors", "[cuda][device]") {
  REQUIRE_GPU();
  int cur = -1;
  {
    tvm::ffi::CUDADeviceGuard g(0);
    CUDA_REQUIRE(cudaGetDevice(&cur));
    CHECK(cur == 0);
  }
  CUDA_REQUIRE(cudaGetDevice(&cur));
  CHECK(cur == 0);
  bool threw = false;
  try {
    tvm::ffi::CUDADeviceGuard g(DeviceCount() + 3);
  } catch (const tvm::ffi::Error& e) {
    threw = true;
    CHECK(e.kind() == "RuntimeError");
    CHECK_THAT(e.message(), ContainsSubstring("cudaErrorInvalidDevice"));
  }
  CHECK(threw);
  (void)cudaGetLastError();
  CUDA_REQUIRE(cudaGetDevice(&cur));
  CHECK(cur == 0);
}

TEST_CASE("kernels run on a second GPU and restore the current device", "[cuda][device]") {
  REQUIRE_GPU();
  if (DeviceCount() < 2) SKIP("only one CUDA device");
  const int64_t n = 100003;
  std::vector<__nv_bfloat16> in = RandomVec<__nv_bfloat16>(n, -1, 1, 21);
  CUDA_REQUIRE(cudaSetDevice(1));
  DevBuf din(n * 2), dout(n * 2);
  Upload(din, in);
  {
    // The guard must also make device 1 current inside the FFI call.
    tvm::ffi::CUDADeviceGuard g(1);
    int cur = -1;
    CUDA_REQUIRE(cudaGetDevice(&cur));
    CHECK(cur == 1);
  }
  CUDA_REQUIRE(cudaSetDevice(0));
  TestTensor tin(din.p, {n}, kBF16, CUDADev(1));
  TestTensor tout(dout.p, {n}, kBF16, CUDADev(1));
  CallResult r = Call("scale", {tout.any(), tin.any(), AnyFloat(kFactor)});
  INFO(r.Describe());
  REQUIRE(r.rc == 0);
  int cur = -1;
  CUDA_REQUIRE(cudaGetDevice(&cur));
  CHECK(cur == 0);  // restored
  CUDA_REQUIRE(cudaSetDevice(1));
  std::vector<__nv_bfloat16> got = Download<__nv_bfloat16>(dout, n);
  CUDA_REQUIRE(cudaSetDevice(0));
  std::vector<double> ref(n);
  for (int64_t i = 0; i < n; ++i) ref[i] = HostType<__nv_bfloat16>::ToD(in[i]) * kFactor;
  CheckClose<__nv_bfloat16>(got, 0, ref, __nv_bfloat16(), 1e-2, 1e-2);
}

// ===========================================================================
// Bad inputs with real memory: the error comes back, nothing is written.
// ===========================================================================

TEST_CASE("rejected calls leave the output untouched", "[cuda][args]") {
  REQUIRE_GPU();
  const int64_t n = 256;
  DevBuf din(n * 8), dout(n * 8);
  CUDA_REQUIRE(cudaMemset(din.p, 0, n * 8));
  CUDA_REQUIRE(cudaMemset(dout.p, 0x7f, n * 8));
  std::vector<float> host(n);
  TestTensor out(dout.p, {n}, kF32, CUDADev());
  TestTensor cpu(host.data(), {n}, kF32, CPUDev());
  TestTensor f16(din.p, {n}, kF16, CUDADev());
  TestTensor shorter(din.p, {n - 1}, kF32, CUDADev());
  for (auto& [in, kind] : std::vector<std::pair<TestTensor*, const char*>>{
           {&cpu, "ValueError"}, {&f16, "TypeError"}, {&shorter, "ValueError"}}) {
    CallResult r = Call("scale", {out.any(), in->any(), AnyFloat(2.0)});
    INFO(r.Describe());
    CHECK(r.rc == -1);
    CHECK(r.kind == kind);
  }
  TestTensor o64(dout.p, {n}, kF64, CUDADev());
  TestTensor i64(din.p, {n}, kF64, CUDADev());
  CallResult r = Call("scale", {o64.any(), i64.any(), AnyFloat(2.0)});
  CHECK(r.kind == "TypeError");
  CHECK_THAT(r.message, ContainsSubstring("Unsupported dtype float64 for `scale`"));
  std::vector<uint8_t> bytes = Download<uint8_t>(dout, n * 8);
  CHECK(std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0x7f; }));
}

// ===========================================================================
// scale_alloc through a host-installed allocator
// ===========================================================================
namespace {

struct TestAllocStats {
  std::atomic<int> allocs{0}, frees{0};
};
TestAllocStats g_alloc;

struct TestManaged {
  DLManagedTensorVersioned managed;
  std::vector<int64_t> shape;
  int device;
};

void TestAllocDeleter(DLManagedTensorVersioned* self) {
  auto* m = static_cast<TestManaged*>(self->manager_ctx);
  int prev = 0;
  cudaGetDevice(&prev);
  cudaSetDevice(m->device);
  cudaFree(self->dl_tensor.data);
  cudaSetDevice(prev);
  ++g_alloc.frees;
  delete m;
}

/*! \brief A framework-style allocator: cudaMalloc on the prototype's device. */
int TestCudaAlloc(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                  void (*set_error)(void*, const char*, const char*)) {
  size_t bytes = (prototype->dtype.bits * prototype->dtype.lanes + 7) / 8;
  for (int i = 0; i < prototype->ndim; ++i) bytes *= static_cast<size_t>(prototype->shape[i]);
  int prev = 0;
  cudaGetDevice(&prev);
  cudaSetDevice(prototype->device.device_id);
  void* data = nullptr;
  const cudaError_t e = cudaMalloc(&data, std::max<size_t>(bytes, 1));
  cudaSetDevice(prev);
  if (e != cudaSuccess) {
    set_error(error_ctx, "MemoryError", cudaGetErrorString(e));
    *out = nullptr;
    return -1;
  }
  auto* m = new TestManaged();
  m->device = prototype->device.device_id;
  tvmffi_test::FillFromPrototype(&m->managed, prototype, data, &m->shape, m, TestAllocDeleter);
  ++g_alloc.allocs;
  *out = &m->managed;
  return 0;
}

}  // namespace

TEST_CASE("scale_alloc returns a tensor from the host's allocator", "[cuda][alloc]") {
  REQUIRE_GPU();
  DLPackManagedTensorAllocator prev = nullptr;
  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(TestCudaAlloc, 0, &prev) == 0);
  const int allocs0 = g_alloc.allocs, frees0 = g_alloc.frees;
  {
    const int64_t rows = 3, cols = 1001;
    std::vector<__half> x = RandomVec<__half>(rows * cols, -3, 3, 31);
    DevBuf dx(x.size() * 2);
    Upload(dx, x);
    TestTensor tx(dx.p, {rows, cols}, kF16, CUDADev());
    CallResult r = Call("scale_alloc", {tx.any(), AnyFloat(kFactor)});
    INFO(r.Describe());
    REQUIRE(r.rc == 0);
    REQUIRE(r.tensor() != nullptr);
    const DLTensor* t = r.tensor();
    CHECK(g_alloc.allocs == allocs0 + 1);
    CHECK(t->ndim == 2);
    CHECK(t->shape[0] == rows);
    CHECK(t->shape[1] == cols);
    CHECK(t->dtype.code == kDLFloat);
    CHECK(t->dtype.bits == 16);
    CHECK(t->device.device_type == kDLCUDA);
    CHECK(t->device.device_id == 0);
    std::vector<__half> got(x.size());
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CUDA_REQUIRE(cudaMemcpy(got.data(), static_cast<char*>(t->data) + t->byte_offset,
                            got.size() * 2, cudaMemcpyDeviceToHost));
    std::vector<double> ref(x.size());
    for (size_t i = 0; i < x.size(); ++i) ref[i] = HostType<__half>::ToD(x[i]) * kFactor;
    CheckClose<__half>(got, 0, ref, __half(), 1e-3, 1e-3);
    CHECK(g_alloc.frees == frees0);
  }
  CHECK(g_alloc.frees == frees0 + 1);  // the result's death freed it through the allocator
  TVMFFIEnvSetDLPackManagedTensorAllocator(prev, 0, nullptr);
}

// ===========================================================================
// More than 2^31 elements
// ===========================================================================
//
// Inputs repeat a random tile of a prime number of elements (rows), so that an
// index that wrapped at 2^31 or 2^32 reads or writes the wrong value. The
// expected output is the same kernel's output for the tile alone (a small
// launch, 32-bit indices, checked against the CPU by the cases above), repeated:
// every kernel computes each element (row) from that element (row) alone, so
// the two must agree bit for bit.
namespace {

/*! \brief Fill n elements of esize bytes at dst with `tile` repeated. */
void FillPeriodic(char* dst, const std::vector<char>& tile, size_t esize, size_t n) {
  const size_t period = tile.size() / esize;
  size_t have = std::min(n, period);
  CUDA_REQUIRE(cudaMemcpy(dst, tile.data(), have * esize, cudaMemcpyHostToDevice));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  while (have < n) {  // have stays a multiple of the period until the last copy
    const size_t len = std::min(have, n - have);
    CUDA_REQUIRE(cudaMemcpy(dst + have * esize, dst, len * esize, cudaMemcpyDeviceToDevice));
    have += len;
  }
  CUDA_REQUIRE(cudaDeviceSynchronize());
}

/*! \brief Elements of src[0, n) that differ (bitwise) from `tile` repeated; the first in *first. */
size_t PeriodicMismatches(const char* src, const std::vector<char>& tile, size_t esize, size_t n,
                          size_t* first) {
  const size_t period = tile.size() / esize;
  const size_t chunk = period * std::max<size_t>(1, (size_t{256} << 20) / tile.size());
  char* host = nullptr;
  CUDA_REQUIRE(cudaMallocHost(&host, chunk * esize));
  size_t bad = 0;
  for (size_t pos = 0; pos < n; pos += chunk) {  // pos: a multiple of the period
    const size_t len = std::min(chunk, n - pos);
    CUDA_REQUIRE(cudaMemcpy(host, src + pos * esize, len * esize, cudaMemcpyDeviceToHost));
    for (size_t p = 0; p < len; p += period) {
      const size_t m = std::min(period, len - p);
      if (std::memcmp(host + p * esize, tile.data(), m * esize) == 0) continue;
      for (size_t e = 0; e < m; ++e) {
        if (std::memcmp(host + (p + e) * esize, tile.data() + e * esize, esize) != 0) {
          if (bad++ == 0) *first = pos + p + e;
        }
      }
    }
  }
  cudaFreeHost(host);
  return bad;
}

/*! \brief Bytes of dst[off, off + len) that are not `byte`. */
size_t BytesNot(const char* dst, size_t off, size_t len, unsigned char byte) {
  if (len == 0) return 0;
  std::vector<unsigned char> h(len);
  CUDA_REQUIRE(cudaMemcpy(h.data(), dst + off, len, cudaMemcpyDeviceToHost));
  return static_cast<size_t>(
      std::count_if(h.begin(), h.end(), [&](unsigned char c) { return c != byte; }));
}

template <typename T>
std::vector<char> RandomTile(size_t n, double lo, double hi, uint32_t seed) {
  const std::vector<T> v = RandomVec<T>(n, lo, hi, seed);
  std::vector<char> bytes(n * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

CallResult CallOp(EwOp op, TVMFFIAny out, TVMFFIAny a, TVMFFIAny b) {
  switch (op) {
    case EwOp::kAddOne:
      return Call("add_one", {out, a});
    case EwOp::kScale:
      return Call("scale", {out, a, AnyFloat(kFactor)});
    case EwOp::kAxpy:
      return Call("axpy", {out, a, b, AnyFloat(kAlpha)});
    case EwOp::kAdd:
      break;
  }
  return Call("add", {out, a, b});
}

}  // namespace

TEST_CASE("every kernel is correct past 2^31 elements", "[cuda][large]") {
  REQUIRE_GPU();
  // Elementwise tensors of 2^31 + 37 elements; rows up to 2^31 + 32768.
  constexpr size_t kBig = (size_t{1} << 31) + 37, kMaxElems = (size_t{1} << 31) + 32768 + 64;
  constexpr unsigned char kGuard = 0x7b;
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_REQUIRE(cudaMemGetInfo(&free_bytes, &total_bytes));
  const size_t need = 3 * kMaxElems * 2 + (size_t{1} << 30);
  if (free_bytes < need) {
    SKIP("needs " << (need >> 20) << " MiB of free GPU memory, " << (free_bytes >> 20)
                  << " MiB free");
  }
  DevBuf da(kMaxElems * 2), db(kMaxElems * 2), dout(kMaxElems * 2);
  char* a = da.as<char>();
  char* b = db.as<char>();
  char* out = dout.as<char>();
  const DLDevice dev = CUDADev(0);

  struct EwCase {
    EwOp op;
    DLDataType dtype;
    size_t esize;
    size_t off_out, off_a, off_b;  // elements
  };
  // 16-byte body with 64-bit indices; the same with scalar head and tail;
  // pointers that disagree (the scalar body, 64-bit); int8 (16 elements a pack).
  for (const EwCase& c :
       {EwCase{EwOp::kScale, kF16, 2, 0, 0, 0}, EwCase{EwOp::kAdd, kF16, 2, 3, 3, 3},
        EwCase{EwOp::kAxpy, kF16, 2, 0, 1, 0}, EwCase{EwOp::kAddOne, kI8, 1, 0, 0, 0}}) {
    INFO(OpName(c.op) << " esize " << c.esize << " offsets " << c.off_out << "/" << c.off_a << "/"
                      << c.off_b << ", n " << kBig);
    constexpr size_t kPeriod = 65521;  // prime
    const bool i8 = c.esize == 1;
    const std::vector<char> ta =
        i8 ? RandomTile<int8_t>(kPeriod, -50, 50, 11) : RandomTile<__half>(kPeriod, -2, 2, 11);
    const std::vector<char> tb =
        i8 ? RandomTile<int8_t>(kPeriod, -50, 50, 12) : RandomTile<__half>(kPeriod, -2, 2, 12);
    // The tile alone: the expected period of the output.
    std::vector<char> want(ta.size());
    {
      DevBuf sa(ta.size()), sb(tb.size()), so(ta.size());
      CUDA_REQUIRE(cudaMemcpy(sa.p, ta.data(), ta.size(), cudaMemcpyHostToDevice));
      CUDA_REQUIRE(cudaMemcpy(sb.p, tb.data(), tb.size(), cudaMemcpyHostToDevice));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const int64_t p = static_cast<int64_t>(kPeriod);
      TestTensor to(so.p, {p}, c.dtype, dev), t1(sa.p, {p}, c.dtype, dev),
          t2(sb.p, {p}, c.dtype, dev);
      const CallResult r = CallOp(c.op, to.any(), t1.any(), t2.any());
      INFO(r.Describe());
      REQUIRE(r.rc == 0);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      CUDA_REQUIRE(cudaMemcpy(want.data(), so.p, want.size(), cudaMemcpyDeviceToHost));
    }
    FillPeriodic(a + c.off_a * c.esize, ta, c.esize, kBig);
    FillPeriodic(b + c.off_b * c.esize, tb, c.esize, kBig);
    CUDA_REQUIRE(cudaMemset(out, kGuard, kMaxElems * 2));
    const int64_t n = static_cast<int64_t>(kBig);
    TestTensor to(out, {n}, c.dtype, dev, c.off_out * c.esize);
    TestTensor t1(a, {n}, c.dtype, dev, c.off_a * c.esize);
    TestTensor t2(b, {n}, c.dtype, dev, c.off_b * c.esize);
    const CallResult r = CallOp(c.op, to.any(), t1.any(), t2.any());
    INFO(r.Describe());
    REQUIRE(r.rc == 0);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    size_t first = 0;
    const size_t bad = PeriodicMismatches(out + c.off_out * c.esize, want, c.esize, kBig, &first);
    INFO("first wrong element " << first);
    CHECK(bad == 0);
    // Nothing written outside [off_out, off_out + n).
    CHECK(BytesNot(out, 0, c.off_out * c.esize, kGuard) == 0);
    CHECK(BytesNot(out, (c.off_out + kBig) * c.esize, 4096, kGuard) == 0);
  }

  struct RowCase {
    bool softmax;
    int64_t rows, cols, period_rows;  // period_rows: prime
  };
  // Group mode ([*, 128]), a block per row ([*, 4096]), streaming rows ([*, 32768]); fp16.
  for (const RowCase& c : {RowCase{false, (int64_t{1} << 24) + 3, 128, 509},
                           RowCase{true, (int64_t{1} << 19) + 1, 4096, 61},
                           RowCase{false, (int64_t{1} << 16) + 1, 32768, 7}}) {
    const size_t numel = static_cast<size_t>(c.rows * c.cols);
    INFO((c.softmax ? "softmax" : "rmsnorm")
         << " [" << c.rows << ", " << c.cols << "], " << numel << " elements");
    REQUIRE(numel > (size_t{1} << 31));
    REQUIRE(numel + 64 <= kMaxElems);
    const size_t period = static_cast<size_t>(c.period_rows * c.cols);
    const std::vector<char> tx = RandomTile<__half>(period, -3, 3, 21);
    const std::vector<char> tw = RandomTile<__half>(static_cast<size_t>(c.cols), 0.5, 1.5, 22);
    DevBuf w(tw.size());
    CUDA_REQUIRE(cudaMemcpy(w.p, tw.data(), tw.size(), cudaMemcpyHostToDevice));
    TestTensor twt(w.p, {c.cols}, kF16, dev);
    auto call = [&](void* o, void* x, int64_t rows) {
      TestTensor tot(o, {rows, c.cols}, kF16, dev), txt(x, {rows, c.cols}, kF16, dev);
      return c.softmax ? Call("softmax", {tot.any(), txt.any()})
                       : Call("rmsnorm", {tot.any(), txt.any(), twt.any(), AnyFloat(1e-6)});
    };
    std::vector<char> want(tx.size());
    {
      DevBuf sx(tx.size()), so(tx.size());
      CUDA_REQUIRE(cudaMemcpy(sx.p, tx.data(), tx.size(), cudaMemcpyHostToDevice));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const CallResult r = call(so.p, sx.p, c.period_rows);
      INFO(r.Describe());
      REQUIRE(r.rc == 0);
      CUDA_REQUIRE(cudaDeviceSynchronize());
      CUDA_REQUIRE(cudaMemcpy(want.data(), so.p, want.size(), cudaMemcpyDeviceToHost));
    }
    FillPeriodic(a, tx, 2, numel);
    CUDA_REQUIRE(cudaMemset(out, kGuard, kMaxElems * 2));
    const CallResult r = call(out, a, c.rows);
    INFO(r.Describe());
    REQUIRE(r.rc == 0);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    size_t first = 0;
    const size_t bad = PeriodicMismatches(out, want, 2, numel, &first);
    INFO("first wrong element " << first << " (row " << first / static_cast<size_t>(c.cols) << ")");
    CHECK(bad == 0);
    CHECK(BytesNot(out, numel * 2, 64 * 2, kGuard) == 0);
  }
}

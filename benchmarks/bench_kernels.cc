// bench_kernels: the CUDA kernel library measured through the FFI.
//
//   1. Bandwidth. A device-to-device cudaMemcpyAsync of 256 MiB is the floor
//      (bytes read + bytes written). scale, add and axpy at 256 MiB per
//      operand, rmsnorm and softmax at [8192, 4096] and [65536, 128] in
//      float32, float16 and bfloat16, all called through __tvm_ffi_<name> on
//      the environment stream; GB/s counts the bytes each kernel must move at
//      least. Row kernels are also set against a copy of their own bytes.
//      Target: >= 0.90 of copy for every op.
//   2. Host cost of one call. scale on a 1-element float32 tensor through the
//      FFI (function pointer cached, stream from the environment) against the
//      library's plain C launcher of the same kernel (a direct launch).
//      Target: at most +0.3 us per call, read off the median of the
//      per-batch differences (each FFI batch is followed by a direct one).
//
// Timing: cudaEvents around repeated launches after warmups, median of
// several samples; host cost with steady_clock over batches small enough not
// to fill the launch queue. Prints "no CUDA device; skipping" without a GPU.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

#define BENCH_CUDA(call)                                                   \
  do {                                                                     \
    const cudaError_t e_ = (call);                                         \
    if (e_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "%s:%d: %s -> %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(e_));                                \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

using ScaleLaunch = int (*)(float*, const float*, float, int64_t, int, cudaStream_t);
using RowInfoFn = int (*)(int, int, int, int64_t, int, int*);

TVMFFISafeCallType g_fns[8];
enum Fn { kScale, kAdd, kAxpy, kRMSNorm, kSoftmax, kNumFns };
const char* kFnNames[kNumFns] = {"scale", "add", "axpy", "rmsnorm", "softmax"};

TVMFFIAny Tensor(DLTensor* t) {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIDLTensorPtr;
  a.v_ptr = t;
  return a;
}
TVMFFIAny Float(double v) {
  TVMFFIAny a;
  std::memset(&a, 0, sizeof(a));
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}

void CallOrDie(Fn fn, std::vector<TVMFFIAny>& args) {
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  result.zero_padding = 0;
  result.v_int64 = 0;
  if (g_fns[fn](nullptr, args.data(), static_cast<int32_t>(args.size()), &result) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    std::string msg = "?";
    if (err) {
      const auto* cell =
          reinterpret_cast<const TVMFFIErrorCell*>(static_cast<char*>(err) + sizeof(TVMFFIObject));
      msg = std::string(cell->kind.data, cell->kind.size) + ": " +
            std::string(cell->message.data, cell->message.size);
      TVMFFIObjectDecRef(err);
    }
    std::fprintf(stderr, "%s failed: %s\n", kFnNames[fn], msg.c_str());
    std::exit(1);
  }
}

struct DLT {
  std::vector<int64_t> shape;
  DLTensor t;
  DLT(void* data, std::vector<int64_t> s, DLDataType dt) : shape(std::move(s)) {
    std::memset(&t, 0, sizeof(t));
    t.data = data;
    t.device = DLDevice{kDLCUDA, 0};
    t.dtype = dt;
    t.ndim = static_cast<int32_t>(shape.size());
    t.shape = shape.data();
  }
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/*! \brief Median milliseconds per run of `body` on `s`. */
double TimeMs(cudaStream_t s, const std::function<void()>& body, int iters = 10, int samples = 9,
              int warmup = 3) {
  cudaEvent_t a, b;
  BENCH_CUDA(cudaEventCreate(&a));
  BENCH_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < warmup; ++i) body();
  BENCH_CUDA(cudaStreamSynchronize(s));
  std::vector<double> ms;
  for (int k = 0; k < samples; ++k) {
    BENCH_CUDA(cudaEventRecord(a, s));
    for (int i = 0; i < iters; ++i) body();
    BENCH_CUDA(cudaEventRecord(b, s));
    BENCH_CUDA(cudaEventSynchronize(b));
    float t = 0;
    BENCH_CUDA(cudaEventElapsedTime(&t, a, b));
    ms.push_back(static_cast<double>(t) / iters);
  }
  BENCH_CUDA(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return Median(ms);
}

void Row(const char* op, const char* dtype, const char* size, double ms, double bytes,
         double copy_gbs, double target) {
  const double gbs = bytes / (ms * 1e-3) / 1e9;
  if (copy_gbs <= 0) {
    std::printf("%-12s %-9s %-22s %10.1f %9.1f %8s %8s\n", op, dtype, size, ms * 1e3, gbs, "1.00",
                "");
    return;
  }
  const double ratio = gbs / copy_gbs;
  std::printf("%-12s %-9s %-22s %10.1f %9.1f %8.3f %5s%.2f %s\n", op, dtype, size, ms * 1e3, gbs,
              ratio, ">=", target, ratio >= target ? "ok" : "MISS");
}

}  // namespace

int main() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no CUDA device; skipping\n");
    return 0;
  }
  void* lib = dlopen(TVMFFI_CUDA_KERNELS_LIB, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "dlopen(%s): %s\n", TVMFFI_CUDA_KERNELS_LIB, dlerror());
    return 1;
  }
  for (int i = 0; i < kNumFns; ++i) {
    g_fns[i] = reinterpret_cast<TVMFFISafeCallType>(
        dlsym(lib, (std::string("__tvm_ffi_") + kFnNames[i]).c_str()));
    if (g_fns[i] == nullptr) {
      std::fprintf(stderr, "missing __tvm_ffi_%s\n", kFnNames[i]);
      return 1;
    }
  }
  auto direct = reinterpret_cast<ScaleLaunch>(dlsym(lib, "tvmffi_kernels_scale_f32_launch"));
  auto row_info = reinterpret_cast<RowInfoFn>(dlsym(lib, "tvmffi_kernels_row_kernel_info"));
  if (direct == nullptr || row_info == nullptr) {
    std::fprintf(stderr, "missing tvmffi_kernels_scale_f32_launch or _row_kernel_info\n");
    return 1;
  }

  BENCH_CUDA(cudaSetDevice(0));
  cudaDeviceProp prop;
  BENCH_CUDA(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, %d SMs, CUDA runtime %d\n", prop.name, prop.multiProcessorCount,
              CUDART_VERSION);
  cudaStream_t s;
  BENCH_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  if (TVMFFIEnvSetStream(kDLCUDA, 0, s, nullptr) != 0) {
    std::fprintf(stderr, "TVMFFIEnvSetStream failed\n");
    return 1;
  }

  // ------------------------------------------------------------ bandwidth ---
  const size_t kBytes = size_t{256} << 20;
  void* buf[4];
  for (auto& p : buf) {
    BENCH_CUDA(cudaMalloc(&p, kBytes));
    BENCH_CUDA(cudaMemset(p, 0, kBytes));
  }
  BENCH_CUDA(cudaDeviceSynchronize());

  std::printf("\n%-12s %-9s %-22s %10s %9s %8s %s\n", "op", "dtype", "size", "time_us", "GB/s",
              "vs_copy", "target");
  const double copy_ms = TimeMs(
      s, [&] { BENCH_CUDA(cudaMemcpyAsync(buf[1], buf[0], kBytes, cudaMemcpyDeviceToDevice, s)); });
  const double copy_gbs = 2.0 * kBytes / (copy_ms * 1e-3) / 1e9;
  Row("copy (D2D)", "-", "256 MiB", copy_ms, 2.0 * kBytes, 0, 0);

  const DLDataType f32{kDLFloat, 32, 1}, bf16{kDLBfloat, 16, 1};
  for (DLDataType dt : {f32, bf16}) {
    const char* dname = dt.code == kDLFloat ? "float32" : "bfloat16";
    const int64_t n = static_cast<int64_t>(kBytes / (dt.bits / 8));
    DLT a(buf[0], {n}, dt), b(buf[1], {n}, dt), c(buf[2], {n}, dt);
    std::vector<TVMFFIAny> scale_args{Tensor(&c.t), Tensor(&a.t), Float(2.0)};
    std::vector<TVMFFIAny> add_args{Tensor(&c.t), Tensor(&a.t), Tensor(&b.t)};
    std::vector<TVMFFIAny> axpy_args{Tensor(&c.t), Tensor(&a.t), Tensor(&b.t), Float(0.5)};
    Row("scale", dname, "256 MiB/operand", TimeMs(s, [&] { CallOrDie(kScale, scale_args); }),
        2.0 * kBytes, copy_gbs, 0.90);
    Row("add", dname, "256 MiB/operand", TimeMs(s, [&] { CallOrDie(kAdd, add_args); }),
        3.0 * kBytes, copy_gbs, 0.90);
    Row("axpy", dname, "256 MiB/operand", TimeMs(s, [&] { CallOrDie(kAxpy, axpy_args); }),
        3.0 * kBytes, copy_gbs, 0.90);
  }
  // Row kernels at a wide and a narrow row, every float dtype. Their floor is
  // a copy of the same bytes: a [65536, 128] tensor is 16-32 MiB, so launch
  // overhead and L2 residency weigh on it as on the kernels (both ratios shown).
  const DLDataType f16{kDLFloat, 16, 1};
  struct RowShape {
    int64_t rows, cols;
    const char* name;
  };
  for (RowShape rs : {RowShape{8192, 4096, "[8192, 4096]"}, RowShape{65536, 128, "[65536, 128]"}}) {
    for (DLDataType dt : {f32, f16, bf16}) {
      const char* dname = dt.code == kDLBfloat ? "bfloat16" : dt.bits == 16 ? "float16" : "float32";
      const double esize = dt.bits / 8;
      const double elems = static_cast<double>(rs.rows) * static_cast<double>(rs.cols);
      const size_t nbytes = static_cast<size_t>(elems * esize);
      const double same_ms = TimeMs(s, [&] {
        BENCH_CUDA(cudaMemcpyAsync(buf[1], buf[0], nbytes, cudaMemcpyDeviceToDevice, s));
      });
      const double same_gbs = 2.0 * nbytes / (same_ms * 1e-3) / 1e9;
      Row("copy (D2D)", dname, rs.name, same_ms, 2.0 * nbytes, 0, 0);
      DLT x(buf[0], {rs.rows, rs.cols}, dt), y(buf[1], {rs.rows, rs.cols}, dt),
          w(buf[2], {rs.cols}, dt);
      std::vector<TVMFFIAny> rms_args{Tensor(&y.t), Tensor(&x.t), Tensor(&w.t), Float(1e-6)};
      std::vector<TVMFFIAny> sm_args{Tensor(&y.t), Tensor(&x.t)};
      const double rms_ms = TimeMs(s, [&] { CallOrDie(kRMSNorm, rms_args); });
      const double sm_ms = TimeMs(s, [&] { CallOrDie(kSoftmax, sm_args); });
      Row("rmsnorm", dname, rs.name, rms_ms, (2.0 * elems + rs.cols) * esize, same_gbs, 0.90);
      Row("softmax", dname, rs.name, sm_ms, 2.0 * elems * esize, same_gbs, 0.90);
      std::printf("%-12s %-9s %-22s vs 256 MiB copy: rmsnorm %.3f, softmax %.3f\n", "", dname,
                  rs.name, (2.0 * elems + rs.cols) * esize / (rms_ms * 1e-3) / 1e9 / copy_gbs,
                  2.0 * elems * esize / (sm_ms * 1e-3) / 1e9 / copy_gbs);
      // Resident threads per SM: what keeps a memory-bound kernel's loads in flight.
      int ri[2][5] = {};
      for (int op = 0; op < 2; ++op) {
        if (row_info(op, dt.code, dt.bits, rs.rows, static_cast<int>(rs.cols), ri[op]) != 0) {
          std::fprintf(stderr, "tvmffi_kernels_row_kernel_info failed\n");
          return 1;
        }
      }
      std::printf("%-12s %-9s %-22s threads/SM (registers): rmsnorm %d (%d), softmax %d (%d)\n", "",
                  dname, rs.name, ri[0][1] * ri[0][3], ri[0][2], ri[1][1] * ri[1][3], ri[1][2]);
    }
  }

  // ------------------------------------------------------ host call cost ---
  DLT one_in(buf[0], {1}, f32), one_out(buf[1], {1}, f32);
  std::vector<TVMFFIAny> one_args{Tensor(&one_out.t), Tensor(&one_in.t), Float(2.0)};
  float* out1 = static_cast<float*>(buf[1]);
  const float* in1 = static_cast<const float*>(buf[0]);
  constexpr int kBatch = 200;  // well under the launch queue depth
  constexpr int kBatches = 300;
  std::vector<double> ffi_ns, direct_ns;
  using Clock = std::chrono::steady_clock;
  for (int k = 0; k < kBatches + 20; ++k) {
    // Alternate the two so that clock or power drift hits both alike.
    for (int which = 0; which < 2; ++which) {
      BENCH_CUDA(cudaStreamSynchronize(s));
      const auto t0 = Clock::now();
      if (which == 0) {
        for (int i = 0; i < kBatch; ++i) CallOrDie(kScale, one_args);
      } else {
        for (int i = 0; i < kBatch; ++i) {
          if (direct(out1, in1, 2.0f, 1, 0, s) != 0) {
            std::fprintf(stderr, "direct launch failed\n");
            return 1;
          }
        }
      }
      const auto t1 = Clock::now();
      const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / kBatch;
      if (k >= 20) (which == 0 ? ffi_ns : direct_ns).push_back(ns);  // first 20: warmup
    }
  }
  BENCH_CUDA(cudaStreamSynchronize(s));
  const double f = Median(ffi_ns), d = Median(direct_ns);
  // Batch k's two halves ran back to back, so their difference cancels the
  // clock and queue drift that moves both medians; its quartiles show the noise.
  std::vector<double> diff(ffi_ns.size());
  for (size_t k = 0; k < diff.size(); ++k) diff[k] = ffi_ns[k] - direct_ns[k];
  std::sort(diff.begin(), diff.end());
  const double q1 = diff[diff.size() / 4], q2 = diff[diff.size() / 2],
               q3 = diff[diff.size() * 3 / 4];
  std::printf("\nhost cost of one call, scale on a 1-element float32 tensor (median of %d x %d)\n",
              kBatches, kBatch);
  std::printf("  direct launch         %8.1f ns/call\n", d);
  std::printf("  FFI call (__tvm_ffi_)  %8.1f ns/call\n", f);
  std::printf("  difference of medians  %+8.3f us/call\n", (f - d) / 1e3);
  std::printf(
      "  paired difference      %+8.3f us/call  (quartiles %+.3f .. %+.3f; target <= +0.300 us: "
      "%s)\n",
      q2 / 1e3, q1 / 1e3, q3 / 1e3, q2 <= 300 ? "ok" : "MISS");

  TVMFFIEnvSetStream(kDLCUDA, 0, nullptr, nullptr);
  for (void* p : buf) cudaFree(p);
  cudaStreamDestroy(s);
  return 0;
}

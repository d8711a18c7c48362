// Tests of tvm/ffi/extra/cuda/cubin_launcher.h over the kernels of
// cubin_kernels.cu, which CMake compiles to a fatbin (embedded into this
// executable by tvm_ffi_embed_bin_into as `tvmffi_test_kernels`, and read from
// its file) and to an sm_90 cubin (read from its file).
//
// Built twice: with the CUDA runtime API (test_cubin_launcher) and with
// TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API=1 (test_cubin_launcher_driver). Tags:
//   [embed]     no GPU needed: the embedded bytes, launch configurations,
//               argument errors;
//   [nodevice]  only without a GPU: the error a load reports then;
//   [gpu]       loads and launches; each skips itself without a GPU.
#include <cuda_runtime.h>
#include <tvm/ffi/extra/cuda/cubin_launcher.h>

#include <atomic>
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cuda_test_util.h"

using Catch::Matchers::ContainsSubstring;
namespace ffi = tvm::ffi;

TVM_FFI_EMBED_CUBIN(tvmffi_test_kernels);
// The same bytes, through the pointer form (what bin2c or #embed arrays use).
TVM_FFI_EMBED_CUBIN_FROM_BYTES(tvmffi_test_again, __tvm_ffi__cubin_tvmffi_test_kernels);

namespace {

#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
constexpr const char* kLoadCall = "cuLibraryLoadData";
constexpr const char* kGetKernelCall = "cuLibraryGetKernel";
constexpr const char* kErrorKind = "CUDA Driver Error: ";
#else
constexpr const char* kLoadCall = "cudaLibraryLoadData";
constexpr const char* kGetKernelCall = "cudaLibraryGetKernel";
constexpr const char* kErrorKind = "CUDA Runtime Error: ";
#endif

using tvmffi_cuda_test::DeviceCount;

#define REQUIRE_GPU()                               \
  do {                                              \
    if (DeviceCount() == 0) SKIP("no CUDA device"); \
    REQUIRE(cudaSetDevice(0) == cudaSuccess);       \
  } while (0)

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  INFO("reading " << path);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/*! \brief The embedded bytes, from the two symbols. */
std::string EmbeddedBytes() {
  const char* begin = __tvm_ffi__cubin_tvmffi_test_kernels;
  const char* end = __tvm_ffi__cubin_tvmffi_test_kernels_end;
  return std::string(begin, static_cast<size_t>(end - begin));
}

/*! \brief n floats on the current device, freed on scope exit. */
struct DevFloats {
  float* p = nullptr;
  size_t n;
  explicit DevFloats(size_t count) : n(count) {
    CUDA_REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)));
  }
  DevFloats(const DevFloats&) = delete;
  DevFloats& operator=(const DevFloats&) = delete;
  ~DevFloats() {
    if (p) (void)cudaFree(p);
  }
  void Upload(const std::vector<float>& v) {
    CUDA_REQUIRE(cudaMemcpy(p, v.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  }
  std::vector<float> Download() const {
    std::vector<float> v(n);
    CUDA_REQUIRE(cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
    return v;
  }
};

std::vector<float> Iota(size_t n, float scale = 1.0f) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i) * scale;
  return v;
}

/*! \brief y = kernel(x) over n = 1000 floats (not a multiple of the block), launched by Launch. */
void CheckElementwise(ffi::CubinKernel& kernel, float (*expect)(float)) {
  const int64_t n = 1000;
  DevFloats x(n), y(n);
  x.Upload(Iota(n, 0.5f));
  void* px = x.p;
  void* py = y.p;
  int64_t count = n;
  void* args[] = {&px, &py, &count};
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(kernel.Launch(
      args, ffi::dim3(static_cast<unsigned>((n + 255) / 256)), ffi::dim3(256), nullptr));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<float> got = y.Download();
  for (int64_t i = 0; i < n; ++i) {
    INFO("i = " << i);
    REQUIRE(got[static_cast<size_t>(i)] == expect(static_cast<float>(i) * 0.5f));
  }
}

float PlusOne(float v) {
  return v + 1.0f;
}
float TimesTwo(float v) {
  return v * 2.0f;
}

/*! \brief The kind and the message of the tvm::ffi::Error that `fn` throws ("" if none). */
template <typename F>
std::pair<std::string, std::string> ErrorOf(F&& fn) {
  try {
    fn();
  } catch (const ffi::Error& err) {
    return {err.kind(), err.message()};
  }
  return {"", ""};
}

}  // namespace

// ---------------------------------------------------------------------------
// [embed]: no GPU needed
// ---------------------------------------------------------------------------

TEST_CASE("the embedded fatbin is the file's bytes, aligned and followed by a zero", "[embed]") {
  const std::string file = ReadFile(TVMFFI_TEST_FATBIN_PATH);
  const std::string embedded = EmbeddedBytes();
  REQUIRE(file.size() > 16);
  REQUIRE(embedded.size() == file.size());
  REQUIRE(embedded == file);
  // A fatbin starts with the magic 0xBA55ED50 (little-endian).
  uint32_t magic = 0;
  std::memcpy(&magic, embedded.data(), sizeof(magic));
  REQUIRE(magic == 0xBA55ED50u);
  REQUIRE(reinterpret_cast<uintptr_t>(__tvm_ffi__cubin_tvmffi_test_kernels) % 64 == 0);
  REQUIRE(__tvm_ffi__cubin_tvmffi_test_kernels_end[0] == '\0');
  // The cubin is an ELF file.
  const std::string cubin = ReadFile(TVMFFI_TEST_CUBIN_PATH);
  REQUIRE(cubin.compare(0, 4,
                        "\x7f"
                        "ELF") == 0);
}

TEST_CASE("dim3 takes 1 to 3 extents and CUDA's own dim3", "[embed]") {
  ffi::dim3 d;
  REQUIRE((d.x == 1 && d.y == 1 && d.z == 1));
  ffi::dim3 a(7);
  REQUIRE((a.x == 7 && a.y == 1 && a.z == 1));
  ffi::dim3 b(2, 3);
  REQUIRE((b.x == 2 && b.y == 3 && b.z == 1));
  ffi::dim3 c = ::dim3(4, 5, 6);
  REQUIRE((c.x == 4 && c.y == 5 && c.z == 6));
}

TEST_CASE("ConstructLaunchConfig fills the configuration and a cluster attribute", "[embed]") {
  namespace api = ffi::cuda_api;
  api::LaunchConfig config;
  api::LaunchAttrType attr;
  auto stream = reinterpret_cast<api::StreamHandle>(uintptr_t{0x1000});
  REQUIRE(api::ConstructLaunchConfig(nullptr, stream, 128, ffi::dim3(8, 2), ffi::dim3(64), 1,
                                     config, attr) == api::kSuccess);
  REQUIRE(config.numAttrs == 0);
  REQUIRE(config.attrs == nullptr);
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  REQUIRE((config.gridDimX == 8 && config.gridDimY == 2 && config.gridDimZ == 1));
  REQUIRE((config.blockDimX == 64 && config.blockDimY == 1 && config.blockDimZ == 1));
  REQUIRE(config.sharedMemBytes == 128);
  REQUIRE(config.hStream == stream);
#else
  REQUIRE((config.gridDim.x == 8 && config.gridDim.y == 2 && config.gridDim.z == 1));
  REQUIRE((config.blockDim.x == 64 && config.blockDim.y == 1 && config.blockDim.z == 1));
  REQUIRE(config.dynamicSmemBytes == 128);
  REQUIRE(config.stream == stream);
#endif

  REQUIRE(api::ConstructLaunchConfig(nullptr, stream, 0, ffi::dim3(8), ffi::dim3(64), 4, config,
                                     attr) == api::kSuccess);
  REQUIRE(config.numAttrs == 1);
  REQUIRE(config.attrs == &attr);
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  REQUIRE(attr.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION);
  REQUIRE((attr.value.clusterDim.x == 4 && attr.value.clusterDim.y == 1));
#else
  REQUIRE(attr.id == cudaLaunchAttributeClusterDimension);
  REQUIRE((attr.val.clusterDim.x == 4 && attr.val.clusterDim.y == 1));
#endif
  // A cluster must divide the grid.
  REQUIRE(api::ConstructLaunchConfig(nullptr, stream, 0, ffi::dim3(6), ffi::dim3(64), 4, config,
                                     attr) != api::kSuccess);
}

TEST_CASE("an empty or null binary is a ValueError before any CUDA call", "[embed]") {
  auto empty = ErrorOf([] { ffi::CubinModule m{ffi::Bytes()}; });
  REQUIRE(empty.first == "ValueError");
  REQUIRE_THAT(empty.second, ContainsSubstring("empty"));
  auto null = ErrorOf([] { ffi::CubinModule m{static_cast<const char*>(nullptr)}; });
  REQUIRE(null.first == "ValueError");
  REQUIRE_THAT(null.second, ContainsSubstring("null"));
}

TEST_CASE("the check macro names the CUDA error", "[embed]") {
#if TVM_FFI_CUBIN_LAUNCHER_USE_DRIVER_API
  const ffi::cuda_api::ResultType invalid = CUDA_ERROR_INVALID_VALUE;
  const char* name = "CUDA_ERROR_INVALID_VALUE";
#else
  const ffi::cuda_api::ResultType invalid = cudaErrorInvalidValue;
  const char* name = "cudaErrorInvalidValue";
#endif
  auto err = ErrorOf([&] { TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(invalid); });
  REQUIRE(err.first == "RuntimeError");
  REQUIRE_THAT(err.second, ContainsSubstring(kErrorKind));
  REQUIRE_THAT(err.second, ContainsSubstring(name));
  REQUIRE_THAT(err.second, ContainsSubstring("(1)"));
  auto none = ErrorOf([] { TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(ffi::cuda_api::kSuccess); });
  REQUIRE(none.first.empty());
}

// ---------------------------------------------------------------------------
// [nodevice]: what a machine without a GPU reports
// ---------------------------------------------------------------------------

TEST_CASE("without a GPU, loading is a RuntimeError naming the CUDA call", "[nodevice]") {
  if (DeviceCount() != 0) SKIP("a CUDA device is present");
  auto err = ErrorOf([] { ffi::CubinModule m{ffi::Bytes(EmbeddedBytes())}; });
  REQUIRE(err.first == "RuntimeError");
  REQUIRE_THAT(err.second, ContainsSubstring("CubinModule"));
  REQUIRE_THAT(err.second, ContainsSubstring(kLoadCall));
  // The embedded module fails the same way at each use (a failed load is retried).
  for (int i = 0; i < 2; ++i) {
    auto again = ErrorOf([] { (void)TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_kernels, "x"); });
    REQUIRE(again.first == "RuntimeError");
    REQUIRE_THAT(again.second, ContainsSubstring(kLoadCall));
  }
}

// ---------------------------------------------------------------------------
// [gpu]
// ---------------------------------------------------------------------------

TEST_CASE("TVM_FFI_EMBED_CUBIN: kernels of the embedded fatbin launch", "[gpu]") {
  REQUIRE_GPU();
  static auto add_one = TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_kernels, "add_one_cuda");
  static auto mul_two = TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_kernels, "mul_two_cuda");
  REQUIRE(add_one.GetHandle() != nullptr);
  CheckElementwise(add_one, PlusOne);
  CheckElementwise(mul_two, TimesTwo);
  // One module per name, loaded once.
  auto again = TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_kernels, "add_one_cuda");
  REQUIRE(again.GetHandle() == add_one.GetHandle());
}

TEST_CASE("CubinModule from Bytes and from a pointer; Launch on a stream", "[gpu]") {
  REQUIRE_GPU();
  ffi::CubinModule from_bytes(ffi::Bytes(ReadFile(TVMFFI_TEST_FATBIN_PATH)));
  REQUIRE(from_bytes.GetHandle() != nullptr);
  ffi::CubinKernel add_one = from_bytes["add_one_cuda"];
  CheckElementwise(add_one, PlusOne);

  ffi::CubinModule from_uchar(
      reinterpret_cast<const unsigned char*>(__tvm_ffi__cubin_tvmffi_test_kernels));
  ffi::CubinKernel mul_two = from_uchar.GetKernel("mul_two_cuda");
  CheckElementwise(mul_two, TimesTwo);

  // On a stream of our own.
  cudaStream_t stream = nullptr;
  CUDA_REQUIRE(cudaStreamCreate(&stream));
  const int64_t n = 300;
  DevFloats x(n), y(n);
  x.Upload(Iota(n));
  void* px = x.p;
  void* py = y.p;
  int64_t count = n;
  void* args[] = {&px, &py, &count};
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
      add_one.Launch(args, ffi::dim3(2), ffi::dim3(256), stream));
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  CUDA_REQUIRE(cudaStreamDestroy(stream));
  std::vector<float> got = y.Download();
  for (int64_t i = 0; i < n; ++i) REQUIRE(got[static_cast<size_t>(i)] == static_cast<float>(i) + 1);
}

TEST_CASE("TVM_FFI_EMBED_CUBIN_FROM_BYTES: first use from many threads at once", "[gpu]") {
  REQUIRE_GPU();
  constexpr int kThreads = 8;
  std::vector<ffi::cuda_api::KernelHandle> handles(kThreads, nullptr);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      (void)cudaSetDevice(0);
      ready.fetch_add(1);
      while (ready.load() < kThreads) {
      }
      handles[static_cast<size_t>(t)] =
          TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_again, "mul_two_cuda").GetHandle();
    });
  }
  for (auto& th : threads) th.join();
  for (auto h : handles) {
    REQUIRE(h != nullptr);
    REQUIRE(h == handles[0]);
  }
  auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_again, "mul_two_cuda");
  CheckElementwise(kernel, TimesTwo);
}

TEST_CASE("LaunchEx with ConstructLaunchConfig, and with a cluster on sm_90", "[gpu]") {
  REQUIRE_GPU();
  int major = 0;
  int minor = 0;
  CUDA_REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_REQUIRE(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  // The sm_90 cubin (an ELF image, not a fatbin) runs on compute capability 9.0 only.
  const bool sm90 = major == 9 && minor == 0;
  ffi::CubinModule module = sm90 ? ffi::CubinModule(ffi::Bytes(ReadFile(TVMFFI_TEST_CUBIN_PATH)))
                                 : ffi::CubinModule(__tvm_ffi__cubin_tvmffi_test_kernels);
  ffi::CubinKernel add_one = module["add_one_cuda"];

  const int64_t n = 1024;
  for (int cluster : {1, 2}) {
    if (cluster > 1 && major < 9) continue;  // thread block clusters need sm_90
    DYNAMIC_SECTION("cluster_dim " << cluster) {
      DevFloats x(n), y(n);
      x.Upload(Iota(n));
      CUDA_REQUIRE(cudaMemset(y.p, 0, n * sizeof(float)));
      void* px = x.p;
      void* py = y.p;
      int64_t count = n;
      void* args[] = {&px, &py, &count};
      ffi::cuda_api::LaunchConfig config;
      ffi::cuda_api::LaunchAttrType attr;
      TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(ffi::cuda_api::ConstructLaunchConfig(
          add_one.GetHandle(), nullptr, 0, ffi::dim3(4), ffi::dim3(256), cluster, config, attr));
      TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(add_one.LaunchEx(args, config));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<float> got = y.Download();
      for (int64_t i = 0; i < n; ++i) {
        REQUIRE(got[static_cast<size_t>(i)] == static_cast<float>(i) + 1);
      }
    }
  }
}

TEST_CASE("dynamic shared memory beyond 48 KiB after raising the limit", "[gpu]") {
  REQUIRE_GPU();
  int optin = 0;
  CUDA_REQUIRE(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  const int threads = 256;
  const int per_thread = 64;  // 256 * 64 floats = 64 KiB per block
  const uint32_t smem = threads * per_thread * sizeof(float);
  if (optin < static_cast<int>(smem)) SKIP("the device allows only " << optin << " bytes");
  const unsigned blocks = 3;
  const size_t n = size_t{blocks} * threads * per_thread;
  DevFloats x(n), y(n);
  x.Upload(Iota(n));
  void* px = x.p;
  void* py = y.p;
  int pt = per_thread;
  void* args[] = {&px, &py, &pt};

  ffi::CubinModule module(__tvm_ffi__cubin_tvmffi_test_kernels);
  {
    // Within the default 48 KiB: fine without raising (a quarter of the chunk).
    ffi::CubinKernel small = module.GetKernel("reverse_chunks");
    int quarter = per_thread / 4;
    void* small_args[] = {&px, &py, &quarter};
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
        small.Launch(small_args, ffi::dim3(1), ffi::dim3(threads), nullptr, smem / 4));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    // 64 KiB without raising the limit: refused.
    auto refused = small.Launch(args, ffi::dim3(blocks), ffi::dim3(threads), nullptr, smem);
    REQUIRE(refused != ffi::cuda_api::kSuccess);
    (void)cudaGetLastError();
  }
  SECTION("GetKernelWithMaxDynamicSharedMemory, -1: the device's maximum") {
    ffi::CubinKernel big = module.GetKernelWithMaxDynamicSharedMemory("reverse_chunks", -1);
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
        big.Launch(args, ffi::dim3(blocks), ffi::dim3(threads), nullptr, smem));
  }
  SECTION("SetMaxDynamicSharedMemory with the size needed") {
    ffi::CubinModule fresh(__tvm_ffi__cubin_tvmffi_test_kernels);
    ffi::CubinKernel big = fresh["reverse_chunks"];
    big.SetMaxDynamicSharedMemory(smem);
    TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(
        big.Launch(args, ffi::dim3(blocks), ffi::dim3(threads), nullptr, smem));
  }
  CUDA_REQUIRE(cudaDeviceSynchronize());
  std::vector<float> got = y.Download();
  const size_t len = size_t{threads} * per_thread;
  for (size_t b = 0; b < blocks; ++b) {
    for (size_t i = 0; i < len; ++i) {
      REQUIRE(got[b * len + i] == static_cast<float>(b * len + (len - 1 - i)));
    }
  }
}

TEST_CASE("an unknown kernel name is a RuntimeError naming the kernel and the call", "[gpu]") {
  REQUIRE_GPU();
  ffi::CubinModule module(__tvm_ffi__cubin_tvmffi_test_kernels);
  auto err = ErrorOf([&] { (void)module["no_such_kernel"]; });
  REQUIRE(err.first == "RuntimeError");
  REQUIRE_THAT(err.second, ContainsSubstring("no kernel named 'no_such_kernel'"));
  REQUIRE_THAT(err.second, ContainsSubstring(kGetKernelCall));
  auto embedded =
      ErrorOf([] { (void)TVM_FFI_EMBED_CUBIN_GET_KERNEL(tvmffi_test_kernels, "nope"); });
  REQUIRE(embedded.first == "RuntimeError");
  REQUIRE_THAT(embedded.second, ContainsSubstring("'nope'"));
  // The failure is reported once, not left for a later cudaGetLastError.
  REQUIRE(cudaGetLastError() == cudaSuccess);
  // The module still works.
  ffi::CubinKernel add_one = module["add_one_cuda"];
  CheckElementwise(add_one, PlusOne);
}

TEST_CASE("bytes that are no CUDA binary are a RuntimeError naming the CUDA call", "[gpu]") {
  REQUIRE_GPU();
  // Text is taken for PTX, which the driver may compile only when a kernel is
  // first asked for (lazy loading, the default on CUDA 13): the failure comes
  // from the load or from that first lookup, never as a crash or a kernel.
  auto text = ErrorOf([] {
    ffi::CubinModule m{ffi::Bytes("this is not a CUDA binary\n")};
    (void)m["add_one_cuda"];
  });
  REQUIRE(text.first == "RuntimeError");
  const bool at_load =
      text.second.find("CubinModule: cannot load the CUDA binary") != std::string::npos &&
      text.second.find(kLoadCall) != std::string::npos;
  const bool at_lookup = text.second.find("'add_one_cuda'") != std::string::npos &&
                         text.second.find(kGetKernelCall) != std::string::npos;
  INFO(text.second);
  REQUIRE((at_load || at_lookup));
  // (No truncated image: the loader, given no size, could read past its end.)
  REQUIRE(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("CubinModule and CubinKernel move; a moved-from module unloads nothing", "[gpu]") {
  REQUIRE_GPU();
  ffi::CubinModule a(__tvm_ffi__cubin_tvmffi_test_kernels);
  auto handle = a.GetHandle();
  ffi::CubinModule b(std::move(a));
  REQUIRE(a.GetHandle() == nullptr);  // NOLINT(bugprone-use-after-move)
  REQUIRE(b.GetHandle() == handle);
  ffi::CubinModule c(__tvm_ffi__cubin_tvmffi_test_kernels);
  c = std::move(b);  // unloads c's own binary
  REQUIRE(c.GetHandle() == handle);
  ffi::CubinKernel k = c["add_one_cuda"];
  auto kh = k.GetHandle();
  ffi::CubinKernel k2(std::move(k));
  REQUIRE(k.GetHandle() == nullptr);  // NOLINT(bugprone-use-after-move)
  REQUIRE(k2.GetHandle() == kh);
  CheckElementwise(k2, PlusOne);
}

TEST_CASE("one loaded binary launches on every device", "[gpu]") {
  REQUIRE_GPU();
  ffi::CubinModule module(__tvm_ffi__cubin_tvmffi_test_kernels);
  ffi::CubinKernel add_one = module["add_one_cuda"];
  const int count = DeviceCount();
  for (int dev = 0; dev < count; ++dev) {
    DYNAMIC_SECTION("device " << dev) {
      CUDA_REQUIRE(cudaSetDevice(dev));
      CheckElementwise(add_one, PlusOne);
    }
  }
  CUDA_REQUIRE(cudaSetDevice(0));
}

// Argument validation of libtvmffi_kernels.so through the FFI ABI.
//
// Every check runs before the first CUDA call, so these tests need the library
// but no GPU: the device pointers are fake and never dereferenced.
#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "ffi_call.h"

using Catch::Matchers::ContainsSubstring;
using namespace tvmffi_test;

namespace {

// Never dereferenced: every call below fails validation or has nothing to do.
void* const kFakeDevPtr = reinterpret_cast<void*>(uintptr_t{0x7f0000001000});

void RequireLib() {
  INFO("dlopen(" TVMFFI_CUDA_KERNELS_LIB "): " << KernelLibError());
  REQUIRE(KernelLib() != nullptr);
}

void RequireError(const CallResult& r, const char* kind, const std::vector<std::string>& parts) {
  INFO(r.Describe());
  REQUIRE(r.rc == -1);
  CHECK(r.kind == kind);
  for (const std::string& p : parts) CHECK_THAT(r.message, ContainsSubstring(p));
}

}  // namespace

TEST_CASE("kernel library exports every entry point", "[cuda][args]") {
  RequireLib();
  for (const char* name :
       {"add_one", "scale", "axpy", "add", "rmsnorm", "softmax", "scale_alloc"}) {
    INFO(name);
    CHECK(KernelFn(name) != nullptr);
  }
  CHECK(dlsym(KernelLib(), "tvmffi_kernels_scale_f32_launch") != nullptr);
  CHECK(dlsym(KernelLib(), "tvmffi_kernels_row_kernel_info") != nullptr);
  // Kernel templates and helpers stay hidden.
  CHECK(dlsym(KernelLib(), "__tvm_ffi_not_a_kernel") == nullptr);
}

TEST_CASE("a CPU tensor is a ValueError naming the argument", "[cuda][args]") {
  RequireLib();
  std::vector<float> host(16);
  auto cuda = [&] { return TestTensor(kFakeDevPtr, {16}, kF32, CUDADev()); };
  auto cpu = [&] { return TestTensor(host.data(), {16}, kF32, CPUDev()); };

  SECTION("unary kernels, each position") {
    for (const char* name : {"scale", "add_one"}) {
      INFO(name);
      for (int pos = 0; pos < 2; ++pos) {
        TestTensor a = pos == 0 ? cpu() : cuda();
        TestTensor b = pos == 1 ? cpu() : cuda();
        std::vector<TVMFFIAny> args{a.any(), b.any()};
        if (std::string(name) == "scale") args.push_back(AnyFloat(2.0));
        RequireError(Call(name, args), "ValueError", {pos == 0 ? "`out`" : "`in`", "CUDA tensor"});
      }
    }
  }
  SECTION("binary kernels, each position") {
    for (const char* name : {"add", "axpy"}) {
      const bool axpy = std::string(name) == "axpy";
      const char* names[3] = {"`out`", axpy ? "`x`" : "`a`", axpy ? "`y`" : "`b`"};
      for (int pos = 0; pos < 3; ++pos) {
        INFO(name << " position " << pos);
        TestTensor t0 = pos == 0 ? cpu() : cuda();
        TestTensor t1 = pos == 1 ? cpu() : cuda();
        TestTensor t2 = pos == 2 ? cpu() : cuda();
        std::vector<TVMFFIAny> args{t0.any(), t1.any(), t2.any()};
        if (axpy) args.push_back(AnyFloat(0.5));
        RequireError(Call(name, args), "ValueError", {names[pos], "CUDA tensor"});
      }
    }
  }
  SECTION("row kernels") {
    TestTensor x(host.data(), {4, 4}, kF32, CPUDev());
    TestTensor out(kFakeDevPtr, {4, 4}, kF32, CUDADev());
    TestTensor w(kFakeDevPtr, {4}, kF32, CUDADev());
    RequireError(Call("softmax", {out.any(), x.any()}), "ValueError", {"`x`", "CUDA tensor"});
    RequireError(Call("rmsnorm", {out.any(), x.any(), w.any(), AnyFloat(1e-6)}), "ValueError",
                 {"`x`"});
    TestTensor xc(kFakeDevPtr, {4, 4}, kF32, CUDADev());
    TestTensor wc(host.data(), {4}, kF32, CPUDev());
    RequireError(Call("rmsnorm", {out.any(), xc.any(), wc.any(), AnyFloat(1e-6)}), "ValueError",
                 {"`weight`"});
  }
  SECTION("scale_alloc") {
    TestTensor x = cpu();
    RequireError(Call("scale_alloc", {x.any(), AnyFloat(2.0)}), "ValueError", {"`x`"});
  }
}

TEST_CASE("tensors on different devices are a ValueError", "[cuda][args]") {
  RequireLib();
  TestTensor out(kFakeDevPtr, {8}, kF32, CUDADev(0));
  TestTensor in(kFakeDevPtr, {8}, kF32, CUDADev(1));
  RequireError(Call("scale", {out.any(), in.any(), AnyFloat(2.0)}), "ValueError",
               {"`in`", "same device"});
  TestTensor a(kFakeDevPtr, {8}, kF32, CUDADev(0));
  TestTensor b(kFakeDevPtr, {8}, kF32, CUDADev(2));
  RequireError(Call("add", {out.any(), a.any(), b.any()}), "ValueError", {"`b`"});
  TestTensor x(kFakeDevPtr, {2, 4}, kF32, CUDADev(0));
  TestTensor y(kFakeDevPtr, {2, 4}, kF32, CUDADev(0));
  TestTensor w(kFakeDevPtr, {4}, kF32, CUDADev(1));
  RequireError(Call("rmsnorm", {y.any(), x.any(), w.any(), AnyFloat(1e-6)}), "ValueError",
               {"`weight`"});
}

TEST_CASE("a dtype mismatch is a TypeError", "[cuda][args]") {
  RequireLib();
  TestTensor out(kFakeDevPtr, {8}, kF32, CUDADev());
  TestTensor in(kFakeDevPtr, {8}, kF16, CUDADev());
  RequireError(Call("scale", {out.any(), in.any(), AnyFloat(2.0)}), "TypeError",
               {"`in`", "float16", "float32"});
  TestTensor b(kFakeDevPtr, {8}, kBF16, CUDADev());
  TestTensor a(kFakeDevPtr, {8}, kF32, CUDADev());
  RequireError(Call("axpy", {out.any(), a.any(), b.any(), AnyFloat(1.0)}), "TypeError",
               {"`y`", "bfloat16"});
  TestTensor x(kFakeDevPtr, {2, 4}, kF16, CUDADev());
  TestTensor y(kFakeDevPtr, {2, 4}, kF16, CUDADev());
  TestTensor w(kFakeDevPtr, {4}, kF32, CUDADev());
  RequireError(Call("rmsnorm", {y.any(), x.any(), w.any(), AnyFloat(1e-6)}), "TypeError",
               {"`weight`"});
  TestTensor y32(kFakeDevPtr, {2, 4}, kF32, CUDADev());
  RequireError(Call("softmax", {y32.any(), x.any()}), "TypeError", {"`out`"});
}

TEST_CASE("a shape mismatch is a ValueError", "[cuda][args]") {
  RequireLib();
  TestTensor out(kFakeDevPtr, {8}, kF32, CUDADev());
  TestTensor in(kFakeDevPtr, {9}, kF32, CUDADev());
  RequireError(Call("scale", {out.any(), in.any(), AnyFloat(2.0)}), "ValueError",
               {"`in`", "[9]", "[8]"});
  // Same element count, different shape: no silent reshape.
  TestTensor o2(kFakeDevPtr, {2, 4}, kF32, CUDADev());
  TestTensor a2(kFakeDevPtr, {2, 4}, kF32, CUDADev());
  TestTensor b2(kFakeDevPtr, {4, 2}, kF32, CUDADev());
  RequireError(Call("add", {o2.any(), a2.any(), b2.any()}), "ValueError", {"`b`", "[4, 2]"});
  // No broadcasting either.
  TestTensor b3(kFakeDevPtr, {4}, kF32, CUDADev());
  RequireError(Call("add", {o2.any(), a2.any(), b3.any()}), "ValueError", {"`b`"});

  TestTensor x(kFakeDevPtr, {2, 4}, kF32, CUDADev());
  TestTensor y(kFakeDevPtr, {2, 5}, kF32, CUDADev());
  RequireError(Call("softmax", {y.any(), x.any()}), "ValueError", {"`out`"});
  TestTensor y_ok(kFakeDevPtr, {2, 4}, kF32, CUDADev());
  TestTensor w5(kFakeDevPtr, {5}, kF32, CUDADev());
  RequireError(Call("rmsnorm", {y_ok.any(), x.any(), w5.any(), AnyFloat(1e-6)}), "ValueError",
               {"`weight`", "5"});
  TestTensor w2d(kFakeDevPtr, {1, 4}, kF32, CUDADev());
  RequireError(Call("rmsnorm", {y_ok.any(), x.any(), w2d.any(), AnyFloat(1e-6)}), "ValueError",
               {"`weight`", "dimension"});
  TestTensor s(kFakeDevPtr, {}, kF32, CUDADev());
  TestTensor s_out(kFakeDevPtr, {}, kF32, CUDADev());
  RequireError(Call("softmax", {s_out.any(), s.any()}), "ValueError", {"`x`", "dimension"});
}

TEST_CASE("a non-contiguous tensor is a ValueError", "[cuda][args]") {
  RequireLib();
  TestTensor out(kFakeDevPtr, {4, 4}, kF32, CUDADev());
  TestTensor in(kFakeDevPtr, {4, 4}, kF32, CUDADev());
  in.SetStrides({1, 4});  // a transposed view
  RequireError(Call("scale", {out.any(), in.any(), AnyFloat(2.0)}), "ValueError",
               {"`in`", "contiguous"});
  TestTensor x(kFakeDevPtr, {4, 4}, kF32, CUDADev());
  x.SetStrides({8, 1});  // rows with gaps
  TestTensor y(kFakeDevPtr, {4, 4}, kF32, CUDADev());
  RequireError(Call("softmax", {y.any(), x.any()}), "ValueError", {"`x`", "contiguous"});
  // Explicit compact strides are fine: the call then fails only on the dtype.
  TestTensor xi(kFakeDevPtr, {4, 4}, kI32, CUDADev());
  xi.SetStrides({4, 1});
  TestTensor yi(kFakeDevPtr, {4, 4}, kI32, CUDADev());
  RequireError(Call("softmax", {yi.any(), xi.any()}), "TypeError", {"int32"});
}

TEST_CASE("an unsupported dtype is a TypeError naming the dtype and the kernel", "[cuda][args]") {
  RequireLib();
  auto pair = [](DLDataType dt, const char* name, std::vector<TVMFFIAny> extra = {}) {
    TestTensor out(kFakeDevPtr, {8}, dt, CUDADev());
    TestTensor in(kFakeDevPtr, {8}, dt, CUDADev());
    std::vector<TVMFFIAny> args{out.any(), in.any()};
    args.insert(args.end(), extra.begin(), extra.end());
    return Call(name, args);
  };
  RequireError(pair(kF64, "scale", {AnyFloat(2.0)}), "TypeError",
               {"Unsupported dtype float64 for `scale`"});
  RequireError(pair(kI32, "scale", {AnyFloat(2.0)}), "TypeError", {"int32", "`scale`"});
  RequireError(pair(kF64, "softmax"), "TypeError", {"float64", "`softmax`"});
  // add_one takes every numeric dtype but not bool, uint16 or vector lanes.
  RequireError(pair(DLDataType{kDLBool, 8, 1}, "add_one"), "TypeError", {"`add_one`"});
  RequireError(pair(DLDataType{kDLUInt, 16, 1}, "add_one"), "TypeError", {"uint16", "`add_one`"});
  RequireError(pair(DLDataType{kDLFloat, 32, 4}, "add_one"), "TypeError", {"`add_one`"});
  {
    TestTensor out(kFakeDevPtr, {8}, kI64, CUDADev());
    TestTensor a(kFakeDevPtr, {8}, kI64, CUDADev());
    TestTensor b(kFakeDevPtr, {8}, kI64, CUDADev());
    RequireError(Call("add", {out.any(), a.any(), b.any()}), "TypeError", {"int64", "`add`"});
    RequireError(Call("axpy", {out.any(), a.any(), b.any(), AnyFloat(1.0)}), "TypeError",
                 {"int64", "`axpy`"});
  }
  {
    TestTensor x(kFakeDevPtr, {2, 4}, kF64, CUDADev());
    TestTensor y(kFakeDevPtr, {2, 4}, kF64, CUDADev());
    TestTensor w(kFakeDevPtr, {4}, kF64, CUDADev());
    RequireError(Call("rmsnorm", {y.any(), x.any(), w.any(), AnyFloat(1e-6)}), "TypeError",
                 {"float64", "`rmsnorm`"});
    RequireError(Call("scale_alloc", {x.any(), AnyFloat(1.0)}), "TypeError",
                 {"float64", "`scale_alloc`"});
  }
}

TEST_CASE("empty tensors succeed without touching the device", "[cuda][args]") {
  RequireLib();
  // A null data pointer is legal for an empty tensor; nothing may be launched.
  TestTensor out(nullptr, {0}, kF32, CUDADev());
  TestTensor in(nullptr, {0}, kF32, CUDADev());
  TestTensor in2(nullptr, {0}, kF32, CUDADev());
  for (const char* name : {"add_one", "scale"}) {
    INFO(name);
    std::vector<TVMFFIAny> args{out.any(), in.any()};
    if (std::string(name) == "scale") args.push_back(AnyFloat(2.0));
    CallResult r = Call(name, args);
    INFO(r.Describe());
    CHECK(r.rc == 0);
    CHECK(r.value.type_index == kTVMFFINone);
  }
  CHECK(Call("add", {out.any(), in.any(), in2.any()}).rc == 0);
  CHECK(Call("axpy", {out.any(), in.any(), in2.any(), AnyFloat(3.0)}).rc == 0);
  TestTensor x(nullptr, {0, 16}, kBF16, CUDADev());
  TestTensor y(nullptr, {0, 16}, kBF16, CUDADev());
  TestTensor w(kFakeDevPtr, {16}, kBF16, CUDADev());
  CHECK(Call("rmsnorm", {y.any(), x.any(), w.any(), AnyFloat(1e-6)}).rc == 0);
  CHECK(Call("softmax", {y.any(), x.any()}).rc == 0);
  TestTensor xz(nullptr, {3, 0}, kF16, CUDADev());
  TestTensor yz(nullptr, {3, 0}, kF16, CUDADev());
  TestTensor wz(nullptr, {0}, kF16, CUDADev());
  CHECK(Call("rmsnorm", {yz.any(), xz.any(), wz.any(), AnyFloat(1e-6)}).rc == 0);
  CHECK(Call("softmax", {yz.any(), xz.any()}).rc == 0);
}

namespace {

struct FakeAllocStats {
  int allocs = 0;
  int frees = 0;
  DLTensor last_prototype{};
  std::vector<int64_t> last_shape;
};
FakeAllocStats g_fake;

struct FakeManaged {
  DLManagedTensorVersioned managed;
  std::vector<int64_t> shape;
};

void FakeDeleter(DLManagedTensorVersioned* self) {
  ++g_fake.frees;
  delete static_cast<FakeManaged*>(self->manager_ctx);
}

// A host-side stand-in for a framework allocator: a CUDA tensor description
// with no memory behind it (only used for empty tensors).
int FakeAlloc(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
              void (*set_error)(void*, const char*, const char*)) {
  (void)error_ctx;
  (void)set_error;
  ++g_fake.allocs;
  g_fake.last_prototype = *prototype;
  g_fake.last_shape.assign(prototype->shape, prototype->shape + prototype->ndim);
  auto* m = new FakeManaged();
  tvmffi_test::FillFromPrototype(&m->managed, prototype, nullptr, &m->shape, m, FakeDeleter);
  *out = &m->managed;
  return 0;
}

int FailingAlloc(DLTensor*, DLManagedTensorVersioned** out, void* error_ctx,
                 void (*set_error)(void*, const char*, const char*)) {
  *out = nullptr;
  set_error(error_ctx, "MemoryError", "test allocator is out of memory");
  return -1;
}

/*! \brief Install an allocator for this thread for a scope. */
struct ScopedAllocator {
  explicit ScopedAllocator(DLPackManagedTensorAllocator a) {
    TVMFFIEnvSetDLPackManagedTensorAllocator(a, 0, &prev);
  }
  ~ScopedAllocator() { TVMFFIEnvSetDLPackManagedTensorAllocator(prev, 0, nullptr); }
  DLPackManagedTensorAllocator prev = nullptr;
};

}  // namespace

TEST_CASE("scale_alloc asks the environment allocator for its output", "[cuda][args]") {
  RequireLib();
  SECTION("empty input: allocation only, no launch") {
    ScopedAllocator scope(FakeAlloc);
    g_fake = FakeAllocStats{};
    TestTensor x(nullptr, {0, 5}, kBF16, CUDADev(3));
    {
      CallResult r = Call("scale_alloc", {x.any(), AnyFloat(2.0)});
      INFO(r.Describe());
      REQUIRE(r.rc == 0);
      REQUIRE(r.tensor() != nullptr);
      const DLTensor* t = r.tensor();
      CHECK(t->ndim == 2);
      CHECK(t->shape[0] == 0);
      CHECK(t->shape[1] == 5);
      CHECK(t->dtype.code == kDLBfloat);
      CHECK(t->dtype.bits == 16);
      CHECK(t->device.device_type == kDLCUDA);
      CHECK(t->device.device_id == 3);
      CHECK(g_fake.allocs == 1);
      CHECK(g_fake.last_prototype.device.device_id == 3);
      CHECK(g_fake.last_shape == std::vector<int64_t>{0, 5});
      CHECK(g_fake.frees == 0);
    }
    CHECK(g_fake.frees == 1);  // the Tensor's death returned the memory to the allocator
  }
  SECTION("the allocator's error comes back with its kind") {
    ScopedAllocator scope(FailingAlloc);
    TestTensor x(nullptr, {0}, kF32, CUDADev());
    RequireError(Call("scale_alloc", {x.any(), AnyFloat(2.0)}), "MemoryError",
                 {"test allocator is out of memory"});
  }
  SECTION("no allocator installed") {
    ScopedAllocator scope(nullptr);
    DLPackManagedTensorAllocator global = TVMFFIEnvGetDLPackManagedTensorAllocator();
    if (global != nullptr) SKIP("a process-wide allocator is installed");
    TestTensor x(nullptr, {0}, kF32, CUDADev());
    CallResult r = Call("scale_alloc", {x.any(), AnyFloat(2.0)});
    INFO(r.Describe());
    CHECK(r.rc == -1);
    CHECK(r.kind == "RuntimeError");
  }
}

// Tests of tvm/ffi/extra/env.h: the RAII stream and allocator setters, the
// ready CPU allocator, and the per-thread stream and allocator tables seen
// through them (two threads at once).
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/env.h>

#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tensor_test_util.h"

namespace {

using namespace tvm::ffi;

void* Stream(uintptr_t v) {
  return reinterpret_cast<void*>(v);
}

// Both threads reach the same point before either goes on.
class Barrier {
 public:
  explicit Barrier(int n) : count_(n) {}
  void Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    int gen = generation_;
    if (--count_ == 0) {
      ++generation_;
      count_ = total_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return gen != generation_; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_;
  int total_{count_};
  int generation_{0};
};

// ---------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------

TEST_CASE("EnvStreamGuard sets the stream for a scope and restores the previous one", "[env]") {
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr);
  {
    EnvStreamGuard outer(DLDevice{kDLCUDA, 0}, Stream(0x100));
    CHECK(outer.previous_stream() == nullptr);
    CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == Stream(0x100));
    CHECK(TVMFFIEnvGetStream(kDLCUDA, 1) == nullptr);  // other devices untouched
    {
      EnvStreamGuard inner(kDLCUDA, 0, Stream(0x200));
      CHECK(inner.previous_stream() == Stream(0x100));
      CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == Stream(0x200));
    }
    CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == Stream(0x100));
  }
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr);

  // Any device id works, not only small ones.
  {
    EnvStreamGuard far(DLDevice{kDLROCM, 4096}, Stream(0x300));
    CHECK(TVMFFIEnvGetStream(kDLROCM, 4096) == Stream(0x300));
  }
  CHECK(TVMFFIEnvGetStream(kDLROCM, 4096) == nullptr);

  // A stream set without the guard is restored to what it was.
  TVMFFIEnvSetStream(kDLCUDA, 2, Stream(0x400), nullptr);
  {
    EnvStreamGuard g(DLDevice{kDLCUDA, 2}, nullptr);
    CHECK(TVMFFIEnvGetStream(kDLCUDA, 2) == nullptr);
  }
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 2) == Stream(0x400));
  TVMFFIEnvSetStream(kDLCUDA, 2, nullptr, nullptr);
}

TEST_CASE("EnvStreamGuard: a negative device id is a ValueError", "[env]") {
  REQUIRE_FFI_ERROR(EnvStreamGuard(DLDevice{kDLCUDA, -1}, Stream(1)), "ValueError", "device_id");
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr);
}

TEST_CASE("streams: two threads at once each see their own", "[env]") {
  Barrier set(2), checked(2);
  std::atomic<int> failures{0};
  auto worker = [&](uintptr_t value) {
    {
      EnvStreamGuard guard(DLDevice{kDLCUDA, 0}, Stream(value));
      set.Wait();  // both have set their stream
      if (TVMFFIEnvGetStream(kDLCUDA, 0) != Stream(value)) ++failures;
      checked.Wait();
    }
    if (TVMFFIEnvGetStream(kDLCUDA, 0) != nullptr) ++failures;
  };
  std::thread a(worker, 0xA0), b(worker, 0xB0);
  a.join();
  b.join();
  CHECK(failures == 0);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr);  // nor did they touch this thread's
}

// ---------------------------------------------------------------------------
// Allocators
// ---------------------------------------------------------------------------

std::atomic<int> g_alloc_a{0}, g_alloc_b{0};
int AllocA(DLTensor* p, DLManagedTensorVersioned** out, void* ctx,
           void (*SetError)(void*, const char*, const char*)) {
  ++g_alloc_a;
  return CPUTensorAllocator(p, out, ctx, SetError);
}
int AllocB(DLTensor* p, DLManagedTensorVersioned** out, void* ctx,
           void (*SetError)(void*, const char*, const char*)) {
  ++g_alloc_b;
  return CPUTensorAllocator(p, out, ctx, SetError);
}

TEST_CASE("EnvTensorAllocatorGuard nests and restores the thread's setting", "[env]") {
  DLPackManagedTensorAllocator global_before = nullptr;
  {
    EnvTensorAllocatorGuard clear(nullptr);
    global_before = TVMFFIEnvGetDLPackManagedTensorAllocator();
  }
  {
    EnvTensorAllocatorGuard a(AllocA);
    CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &AllocA);
    {
      EnvTensorAllocatorGuard b(AllocB);
      CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &AllocB);
    }
    CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &AllocA);
  }
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == global_before);
}

TEST_CASE("EnvTensorAllocatorGuard over a global allocator", "[env]") {
  DLPackManagedTensorAllocator saved_global = nullptr;
  {
    EnvTensorAllocatorGuard clear(nullptr);
    TVMFFIEnvSetDLPackManagedTensorAllocator(AllocA, 1, &saved_global);
  }
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &AllocA);
  {
    EnvTensorAllocatorGuard b(AllocB);  // the thread's setting wins over the global one
    CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &AllocB);
    g_alloc_a = g_alloc_b = 0;
    Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2}, dl_float32, DLDevice{kDLCPU, 0});
    CHECK(g_alloc_b == 1);
    CHECK(g_alloc_a == 0);
  }
  // Back to following the global allocator, including later changes of it.
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &AllocA);
  TVMFFIEnvSetDLPackManagedTensorAllocator(CPUTensorAllocator, 1, nullptr);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == &CPUTensorAllocator);
  TVMFFIEnvSetDLPackManagedTensorAllocator(saved_global, 1, nullptr);
}

TEST_CASE("allocators: two threads at once each use their own", "[env]") {
  Barrier set(2), done(2);
  std::atomic<int> failures{0};
  g_alloc_a = g_alloc_b = 0;
  auto worker = [&](DLPackManagedTensorAllocator mine) {
    EnvTensorAllocatorGuard guard(mine);
    set.Wait();
    for (int i = 0; i < 50; ++i) {
      if (TVMFFIEnvGetDLPackManagedTensorAllocator() != mine) ++failures;
      Tensor t =
          Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {4, 4}, dl_float32, DLDevice{kDLCPU, 0});
      static_cast<float*>(t.data_ptr())[15] = 1.0f;
    }
    done.Wait();
  };
  std::thread a(worker, &AllocA), b(worker, &AllocB);
  a.join();
  b.join();
  CHECK(failures == 0);
  CHECK(g_alloc_a == 50);
  CHECK(g_alloc_b == 50);
}

// ---------------------------------------------------------------------------
// CPUTensorAllocator
// ---------------------------------------------------------------------------

struct ErrorSink {
  std::string kind;
  std::string message;
  static void Set(void* ctx, const char* kind, const char* message) {
    auto* self = static_cast<ErrorSink*>(ctx);
    self->kind = kind;
    self->message = message;
  }
};

TEST_CASE("CPUTensorAllocator makes compact, 64-byte aligned CPU tensors", "[env]") {
  EnvTensorAllocatorGuard guard(CPUTensorAllocator);
  Tensor t = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {3, 5}, dl_float64, DLDevice{kDLCPU, 0});
  CHECK(t.IsAligned(64));
  CHECK(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64 == 0);
  CHECK(t.shape() == ShapeView(std::vector<int64_t>{3, 5}));
  CHECK(t.strides() == ShapeView(std::vector<int64_t>{5, 1}));
  CHECK(t.is_contiguous());
  double* data = static_cast<double*>(t.data_ptr());
  for (int i = 0; i < 15; ++i) data[i] = i;  // the whole buffer is writable (ASan)
  CHECK(data[14] == 14.0);

  Tensor empty =
      Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {0, 3}, dl_float32, DLDevice{kDLCPU, 0});
  CHECK(empty.data_ptr() != nullptr);
  CHECK(empty.numel() == 0);
  Tensor scalar = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {}, dl_int64, DLDevice{kDLCPU, 0});
  CHECK(scalar.ndim() == 0);
  *static_cast<int64_t*>(scalar.data_ptr()) = 42;

  // The tensor outlives the allocator setting: its deleter is the allocator's.
  Tensor survivor;
  {
    EnvTensorAllocatorGuard inner(CPUTensorAllocator);
    survivor = Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {8}, dl_uint8, DLDevice{kDLCPU, 0});
  }
  static_cast<uint8_t*>(survivor.data_ptr())[7] = 1;
}

TEST_CASE("CPUTensorAllocator reports bad prototypes through SetError", "[env]") {
  ErrorSink sink;
  DLManagedTensorVersioned* out = nullptr;
  int64_t shape[3] = {2, 3, 4};
  DLTensor proto{};
  proto.device = DLDevice{kDLCPU, 0};
  proto.dtype = dl_float32;
  proto.ndim = 3;
  proto.shape = shape;

  SECTION("success, called directly") {
    REQUIRE(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == 0);
    CHECK(out->version.major == DLPACK_MAJOR_VERSION);
    CHECK(out->flags == 0);
    CHECK(out->dl_tensor.shape != shape);  // its own copy
    CHECK(out->dl_tensor.shape[2] == 4);
    CHECK(out->dl_tensor.strides[0] == 12);
    CHECK(GetDataSize(out->dl_tensor) == 96);
    out->deleter(out);
    CHECK(sink.kind.empty());
  }
  SECTION("not a CPU device") {
    proto.device = DLDevice{kDLCUDA, 0};
    CHECK(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == -1);
    CHECK(sink.kind == "ValueError");
    CHECK(sink.message.find("not on cuda:0") != std::string::npos);
  }
  SECTION("negative extent") {
    shape[1] = -3;
    CHECK(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == -1);
    CHECK(sink.kind == "ValueError");
    CHECK(sink.message.find("negative extent -3 in dimension 1") != std::string::npos);
  }
  SECTION("NULL shape") {
    proto.shape = nullptr;
    CHECK(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == -1);
    CHECK(sink.message.find("NULL shape") != std::string::npos);
  }
  SECTION("too large") {
    shape[0] = int64_t{1} << 40;
    shape[1] = int64_t{1} << 40;
    CHECK(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == -1);
    CHECK(sink.kind == "MemoryError");
  }
  SECTION("non-compact strides") {
    int64_t strides[3] = {1, 2, 6};
    proto.strides = strides;
    CHECK(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == -1);
    CHECK(sink.message.find("only compact tensors") != std::string::npos);
  }
  SECTION("compact strides given explicitly") {
    int64_t strides[3] = {12, 4, 1};
    proto.strides = strides;
    REQUIRE(CPUTensorAllocator(&proto, &out, &sink, ErrorSink::Set) == 0);
    out->deleter(out);
  }
  SECTION("through TVMFFIEnvTensorAlloc: the kind and message pass through") {
    EnvTensorAllocatorGuard guard(CPUTensorAllocator);
    proto.device = DLDevice{kDLMetal, 0};
    TVMFFIObjectHandle handle = nullptr;
    CHECK(TVMFFIEnvTensorAlloc(&proto, &handle) == -1);
    auto err = tensor_test::CaptureError([] { detail::ThrowRaisedError(-1); });
    REQUIRE(err.has_value());
    CHECK(err->kind() == "ValueError");
    CHECK(err->message().find("not on metal:0") != std::string::npos);
  }
}

}  // namespace

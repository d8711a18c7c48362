// The environment API: streams, the tensor allocator, host hooks, module symbols.
#include <catch2/catch_test_macros.hpp>

#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "runtime_test_util.h"

using namespace rt_test;

namespace {
void* P(uintptr_t v) {
  return reinterpret_cast<void*>(v);
}
}  // namespace

TEST_CASE("Streams are per thread and per device", "[runtime][env]") {
  OnNewThread([] {
    // A fresh thread starts with every stream unset.
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr);
    TVMFFIStreamHandle orig = P(99);
    REQUIRE(TVMFFIEnvSetStream(kDLCUDA, 0, P(0x10), &orig) == 0);
    REQUIRE(orig == nullptr);
    REQUIRE(TVMFFIEnvSetStream(kDLCUDA, 1, P(0x11), nullptr) == 0);
    REQUIRE(TVMFFIEnvSetStream(kDLROCM, 0, P(0x20), nullptr) == 0);
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 0) == P(0x10));
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 1) == P(0x11));
    REQUIRE(TVMFFIEnvGetStream(kDLROCM, 0) == P(0x20));
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 2) == nullptr);

    std::atomic<bool> other_ok{false};
    std::thread([&] {
      bool ok = TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr;
      ok = ok && TVMFFIEnvSetStream(kDLCUDA, 0, P(0x30), nullptr) == 0;
      ok = ok && TVMFFIEnvGetStream(kDLCUDA, 0) == P(0x30);
      other_ok = ok;
    }).join();
    REQUIRE(other_ok);
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 0) == P(0x10));

    REQUIRE(TVMFFIEnvSetStream(kDLCUDA, 0, nullptr, &orig) == 0);
    REQUIRE(orig == P(0x10));
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, 0) == nullptr);
  });
}

TEST_CASE("Streams work for any device type and id", "[runtime][env]") {
  OnNewThread([] {
    const std::pair<int32_t, int32_t> keys[] = {
        {kDLCUDA, 15}, {kDLCUDA, 16}, {kDLCUDA, 1 << 20},  {31, 0},
        {32, 0},       {1000, 7},     {kDLCPU, INT32_MAX}, {65535, INT32_MAX}};
    uintptr_t v = 0x100;
    for (const auto& [type, id] : keys) {
      INFO(type << ":" << id);
      REQUIRE(TVMFFIEnvGetStream(type, id) == nullptr);
      TVMFFIStreamHandle orig = P(1);
      REQUIRE(TVMFFIEnvSetStream(type, id, P(v), &orig) == 0);
      REQUIRE(orig == nullptr);
      REQUIRE(TVMFFIEnvGetStream(type, id) == P(v));
      v += 0x10;
    }
    v = 0x100;
    for (const auto& [type, id] : keys) {
      REQUIRE(TVMFFIEnvGetStream(type, id) == P(v));
      v += 0x10;
    }
    // Neighbours of huge ids stay unset.
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, (1 << 20) - 1) == nullptr);

    REQUIRE(TVMFFIEnvSetStream(kDLCUDA, -1, P(5), nullptr) == -1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "ValueError");
    REQUIRE(e.message.find("device_id") != std::string::npos);
    REQUIRE(TVMFFIEnvSetStream(-2, 0, P(5), nullptr) == -1);
    REQUIRE(TakeRaised().kind == "ValueError");
    // Issue #25: a device type no device can have is refused, not stored.
    for (int32_t type : {65536, 99999, INT32_MAX}) {
      INFO(type);
      REQUIRE(TVMFFIEnvSetStream(type, 0, P(5), nullptr) == -1);
      e = TakeRaised();
      REQUIRE(e.kind == "ValueError");
      REQUIRE(e.message == "TVMFFIEnvSetStream: device_type " + std::to_string(type) +
                               " is out of range (a DLDeviceType, with TVM's RPC session bits at "
                               "most, is below 65536)");
      REQUIRE(TVMFFIEnvGetStream(type, 0) == nullptr);
    }
    REQUIRE(TVMFFIEnvGetStream(kDLCUDA, -1) == nullptr);
    REQUIRE(TVMFFIEnvGetStream(-1, 0) == nullptr);
    REQUIRE_FALSE(TakeRaised().present);
  });
}

// ---------------------------------------------------------------------------
// Allocator
// ---------------------------------------------------------------------------

namespace {

struct Allocated {
  DLManagedTensorVersioned managed;
  std::vector<int64_t> shape;
  void* data;
};

std::atomic<int> g_allocs{0};
std::atomic<int> g_frees{0};

void FreeAllocated(DLManagedTensorVersioned* self) {
  auto* a = static_cast<Allocated*>(self->manager_ctx);
  std::free(a->data);
  delete a;
  g_frees.fetch_add(1);
}

// A CPU allocator; a tensor with dims[0] == 13 fails on purpose.
int CpuAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
             void (*SetError)(void*, const char*, const char*)) {
  if (proto->ndim > 0 && proto->shape[0] == 13) {
    SetError(ctx, "MemoryError", "13 is unlucky");
    *out = nullptr;
    return -1;
  }
  auto* a = new Allocated();
  a->shape.assign(proto->shape, proto->shape + proto->ndim);
  size_t n = 1;
  for (int64_t d : a->shape) n *= static_cast<size_t>(d);
  a->data = std::calloc(n == 0 ? 1 : n, (proto->dtype.bits * proto->dtype.lanes + 7) / 8);
  a->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  a->managed.manager_ctx = a;
  a->managed.deleter = FreeAllocated;
  a->managed.flags = 0;
  a->managed.dl_tensor = *proto;
  a->managed.dl_tensor.data = a->data;
  a->managed.dl_tensor.shape = a->shape.data();
  a->managed.dl_tensor.strides = nullptr;
  a->managed.dl_tensor.byte_offset = 0;
  *out = &a->managed;
  g_allocs.fetch_add(1);
  return 0;
}

int OtherAlloc(DLTensor*, DLManagedTensorVersioned**, void*,
               void (*)(void*, const char*, const char*)) {
  return -1;  // fails without saying why
}

int LyingAlloc(DLTensor*, DLManagedTensorVersioned** out, void*,
               void (*)(void*, const char*, const char*)) {
  *out = nullptr;
  return 0;  // claims success, returns nothing
}

int WrongVersionAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                      void (*SetError)(void*, const char*, const char*)) {
  int rc = CpuAlloc(proto, out, ctx, SetError);
  if (rc == 0) (*out)->version.major = 7;
  return rc;
}

// Succeeds with a tensor other than the one asked for (issue #25): the
// mode picks what differs.
int g_liar_mode = 0;
int MismatchAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                  void (*SetError)(void*, const char*, const char*)) {
  DLTensor p = *proto;
  std::vector<int64_t> shape(proto->shape, proto->shape + proto->ndim);
  switch (g_liar_mode) {
    case 0:
      shape[0] += 1;  // another extent
      break;
    case 1:
      shape.pop_back();  // another rank
      p.ndim -= 1;
      break;
    case 2:
      p.dtype = DLDataType{kDLInt, 32, 1};  // another dtype of the same width
      break;
    default:
      p.device = DLDevice{kDLCPU, 3};  // another device
      break;
  }
  p.shape = shape.data();
  return CpuAlloc(&p, out, ctx, SetError);
}

// Reports an error twice, then succeeds anyway (shape[0] == 7) or fails.
int ChattyAlloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                void (*SetError)(void*, const char*, const char*)) {
  SetError(ctx, "ValueError", "first report");
  SetError(ctx, "TypeError", "second report");
  if (proto->ndim > 0 && proto->shape[0] == 7) return CpuAlloc(proto, out, ctx, SetError);
  *out = nullptr;
  return -1;
}

// Restores "no allocator anywhere" when a test ends.
struct AllocatorReset {
  ~AllocatorReset() {
    TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 1, nullptr);
    TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, nullptr);
  }
};

DLTensor Prototype(std::vector<int64_t>* shape) {
  DLTensor p;
  std::memset(&p, 0, sizeof(p));
  p.device = DLDevice{kDLCPU, 0};
  p.ndim = static_cast<int32_t>(shape->size());
  p.shape = shape->data();
  p.dtype = DLDataType{kDLFloat, 32, 1};
  return p;
}

DLPackManagedTensorAllocator OtherThreadSees() {
  DLPackManagedTensorAllocator seen = nullptr;
  std::thread([&] { seen = TVMFFIEnvGetDLPackManagedTensorAllocator(); }).join();
  return seen;
}

}  // namespace

TEST_CASE("Allocator: thread-local setting wins over the global one", "[runtime][env]") {
  AllocatorReset reset;
  REQUIRE(TVMFFIEnvGetDLPackManagedTensorAllocator() == nullptr);
  DLPackManagedTensorAllocator orig = OtherAlloc;

  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(CpuAlloc, 1, &orig) == 0);
  REQUIRE(orig == nullptr);
  REQUIRE(TVMFFIEnvGetDLPackManagedTensorAllocator() == CpuAlloc);
  REQUIRE(OtherThreadSees() == CpuAlloc);

  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(OtherAlloc, 0, &orig) == 0);
  REQUIRE(orig == CpuAlloc);  // what was in effect for this thread
  REQUIRE(TVMFFIEnvGetDLPackManagedTensorAllocator() == OtherAlloc);
  REQUIRE(OtherThreadSees() == CpuAlloc);

  // A new global value does not override this thread's own setting.
  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(LyingAlloc, 1, &orig) == 0);
  REQUIRE(orig == OtherAlloc);
  REQUIRE(TVMFFIEnvGetDLPackManagedTensorAllocator() == OtherAlloc);
  REQUIRE(OtherThreadSees() == LyingAlloc);

  // Clearing the thread's setting falls back to the global one.
  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, &orig) == 0);
  REQUIRE(orig == OtherAlloc);
  REQUIRE(TVMFFIEnvGetDLPackManagedTensorAllocator() == LyingAlloc);
  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 1, nullptr) == 0);
  REQUIRE(TVMFFIEnvGetDLPackManagedTensorAllocator() == nullptr);
}

TEST_CASE("TVMFFIEnvTensorAlloc", "[runtime][env]") {
  AllocatorReset reset;
  std::vector<int64_t> shape = {4, 5};
  DLTensor proto = Prototype(&shape);
  TVMFFIObjectHandle out = nullptr;

  REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "RuntimeError");
  REQUIRE(e.message ==
          "TVMFFIEnvTensorAlloc: no tensor allocator is set (install one with "
          "TVMFFIEnvSetDLPackManagedTensorAllocator)");

  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(CpuAlloc, 0, nullptr) == 0);
  int frees_before = g_frees.load();
  {
    Handle t;
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, t.out()) == 0);
    REQUIRE(TVMFFIObjectGetTypeIndex(t.get()) == kTVMFFITensor);
    const DLTensor* dl = TVMFFITensorGetDLTensorPtr(t.get());
    REQUIRE(dl->ndim == 2);
    REQUIRE(dl->shape[0] == 4);
    REQUIRE(dl->shape[1] == 5);
    REQUIRE(dl->shape != shape.data());  // the allocator's own copy
    REQUIRE(dl->strides != nullptr);     // synthesised compact strides
    REQUIRE(dl->strides[0] == 5);
    REQUIRE(dl->strides[1] == 1);
    REQUIRE(dl->data != nullptr);
    static_cast<float*>(dl->data)[19] = 1.0f;
    REQUIRE(g_frees.load() == frees_before);
  }
  REQUIRE(g_frees.load() == frees_before + 1);

  SECTION("the allocator's SetError kind and message come through") {
    shape[0] = 13;
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
    e = TakeRaised();
    REQUIRE(e.kind == "MemoryError");
    REQUIRE(e.message == "13 is unlucky");
  }
  SECTION("a failure without SetError is a RuntimeError") {
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(OtherAlloc, 0, nullptr) == 0);
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
    e = TakeRaised();
    REQUIRE(e.kind == "RuntimeError");
    REQUIRE(e.message.find("without reporting") != std::string::npos);
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(LyingAlloc, 0, nullptr) == 0);
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
    REQUIRE(TakeRaised().kind == "RuntimeError");
  }
  SECTION("the last report of a failure wins; a success's reports are dropped") {
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(ChattyAlloc, 0, nullptr) == 0);
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
    e = TakeRaised();
    REQUIRE(e.kind == "TypeError");
    REQUIRE(e.message == "second report");
    shape[0] = 7;
    int before = g_frees.load();
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == 0);
    REQUIRE(TVMFFITensorGetDLTensorPtr(out)->shape[0] == 7);
    REQUIRE(TVMFFIObjectDecRef(out) == 0);
    out = nullptr;
    REQUIRE(g_frees.load() == before + 1);
  }
  SECTION("a malformed result is rejected and freed") {
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(WrongVersionAlloc, 0, nullptr) == 0);
    int before = g_frees.load();
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
    REQUIRE(TakeRaised().kind == "ValueError");
    REQUIRE(g_frees.load() == before + 1);
  }
  SECTION("a tensor other than the one asked for is refused and freed") {
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(MismatchAlloc, 0, nullptr) == 0);
    const char* got[] = {"[5, 5] dtype (code 2, bits 32, lanes 1) on device 1:0",
                         "[4] dtype (code 2, bits 32, lanes 1) on device 1:0",
                         "[4, 5] dtype (code 0, bits 32, lanes 1) on device 1:0",
                         "[4, 5] dtype (code 2, bits 32, lanes 1) on device 1:3"};
    for (g_liar_mode = 0; g_liar_mode < 4; ++g_liar_mode) {
      INFO(g_liar_mode);
      int before = g_frees.load();
      REQUIRE(TVMFFIEnvTensorAlloc(&proto, &out) == -1);
      e = TakeRaised();
      REQUIRE(e.kind == "RuntimeError");
      REQUIRE(e.message == std::string("TVMFFIEnvTensorAlloc: the allocator returned a tensor of "
                                       "shape ") +
                               got[g_liar_mode] +
                               ", not the requested [4, 5] dtype (code 2, bits 32, lanes 1) on "
                               "device 1:0");
      REQUIRE(g_frees.load() == before + 1);  // what it got is released
    }
    // A prototype without a shape is refused before the allocator runs.
    DLTensor no_shape = proto;
    no_shape.shape = nullptr;
    REQUIRE(TVMFFIEnvTensorAlloc(&no_shape, &out) == -1);
    e = TakeRaised();
    REQUIRE(e.kind == "ValueError");
    REQUIRE(e.message == "TVMFFIEnvTensorAlloc: prototype has ndim 2 but no shape");
  }
  SECTION("the global allocator is used when the thread has none") {
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(nullptr, 0, nullptr) == 0);
    REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(CpuAlloc, 1, nullptr) == 0);
    std::atomic<bool> ok{false};
    std::thread([&] {
      TVMFFIObjectHandle h = nullptr;
      ok = TVMFFIEnvTensorAlloc(&proto, &h) == 0 && h != nullptr;
      TVMFFIObjectDecRef(h);
    }).join();
    REQUIRE(ok);
  }
  SECTION("NULL arguments") {
    REQUIRE(TVMFFIEnvTensorAlloc(nullptr, &out) == -1);
    REQUIRE(TakeRaised().message == "TVMFFIEnvTensorAlloc: argument `prototype` is NULL");
    REQUIRE(TVMFFIEnvTensorAlloc(&proto, nullptr) == -1);
    REQUIRE(TakeRaised().message == "TVMFFIEnvTensorAlloc: argument `out` is NULL");
  }
  REQUIRE(out == nullptr);
}

// ---------------------------------------------------------------------------
// Host hooks and module symbols
// ---------------------------------------------------------------------------

namespace {
std::atomic<int> g_signal_polls{0};
int PollOk() {
  g_signal_polls.fetch_add(1);
  return 0;
}
int PollInterrupted() {
  TVMFFIErrorSetRaisedFromCStr("KeyboardInterrupt", "");
  return -1;
}
void* AsPtr(int (*f)()) {
  return reinterpret_cast<void*>(f);
}
}  // namespace

TEST_CASE("CheckSignals calls the registered host hook", "[runtime][env]") {
  REQUIRE(TVMFFIEnvCheckSignals() == 0);
  REQUIRE(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", AsPtr(PollOk)) == 0);
  REQUIRE(TVMFFIEnvCheckSignals() == 0);
  REQUIRE(TVMFFIEnvCheckSignals() == 0);
  REQUIRE(g_signal_polls == 2);
  REQUIRE(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", AsPtr(PollInterrupted)) == 0);
  REQUIRE(TVMFFIEnvCheckSignals() == -1);
  REQUIRE(TakeRaised().kind == "KeyboardInterrupt");
  REQUIRE(TVMFFIEnvRegisterCAPI("TVMFFIEnvCheckSignals", nullptr) == 0);
  REQUIRE(TVMFFIEnvCheckSignals() == 0);
  REQUIRE(g_signal_polls == 2);
  // Other names are simply stored.
  REQUIRE(TVMFFIEnvRegisterCAPI("test.runtime.SomeHook", AsPtr(PollOk)) == 0);
  REQUIRE(TVMFFIEnvRegisterCAPI("test.runtime.SomeHook", nullptr) == 0);
  REQUIRE(TVMFFIEnvRegisterCAPI(nullptr, AsPtr(PollOk)) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIEnvRegisterCAPI: argument `name` is NULL");
}

TEST_CASE("Module symbol registration and import lookup", "[runtime][env]") {
  int value = 0;
  REQUIRE(TVMFFIEnvModRegisterContextSymbol("__TVMFFITestHook", &value) == 0);
  REQUIRE(TVMFFIEnvModRegisterContextSymbol("__TVMFFITestHook", nullptr) == 0);
  REQUIRE(TVMFFIEnvModRegisterContextSymbol(nullptr, &value) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIEnvModRegisterContextSymbol: argument `name` is NULL");
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol("__tvm_ffi_test_fn", &value) == 0);
  REQUIRE(TVMFFIEnvModRegisterSystemLibSymbol(nullptr, &value) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIEnvModRegisterSystemLibSymbol: argument `name` is NULL");

  // Lookups through something that is not a loaded library's module fail
  // cleanly (the module loader decides the kind: TypeError for a non-Module).
  Handle not_a_module;
  REQUIRE(TVMFFIObjectCreateOpaque(nullptr, kTVMFFIOpaquePyObject, nullptr, not_a_module.out()) ==
          0);
  TVMFFIObjectHandle out = nullptr;
  REQUIRE(TVMFFIEnvModLookupFromImports(not_a_module.get(), "no_such_function", &out) == -1);
  RaisedError e = TakeRaised();
  REQUIRE((e.kind == "TypeError" || e.kind == "AttributeError"));
  REQUIRE(TVMFFIEnvModLookupFromImports(nullptr, "f", &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIEnvModLookupFromImports: argument `library_ctx` is NULL");
  REQUIRE(TVMFFIEnvModLookupFromImports(not_a_module.get(), nullptr, &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIEnvModLookupFromImports: argument `func_name` is NULL");
  REQUIRE(TVMFFIEnvModLookupFromImports(not_a_module.get(), "f", nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFIEnvModLookupFromImports: argument `out` is NULL");
  REQUIRE(out == nullptr);
}

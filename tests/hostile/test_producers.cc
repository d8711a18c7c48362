// Producers at the runtime boundary and the shipped CPU kernels (issue #43,
// classes 3, 6 and 9): an allocator's tensor must be the compact tensor asked
// for (a negative or padded stride is refused before a kernel writes through
// it); a read-only tensor is never exported as legacy DLPack (no flag to say
// so); the kernels refuse misaligned data and define int64 overflow.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace {
using namespace tvm::ffi;

// What the hostile allocator hands back: a float32 [4, 3] block whose strides
// are `g_strides` (set per case).
int64_t g_strides[2] = {3, 1};

struct Block {
  DLManagedTensorVersioned managed{};
  int64_t shape[2];
  int64_t strides[2];
  float data[12];
};

void FreeBlock(DLManagedTensorVersioned* self) {
  delete static_cast<Block*>(self->manager_ctx);
}

int HostileAlloc(DLTensor* prototype, DLManagedTensorVersioned** out, void*,
                 void (*)(void*, const char*, const char*)) {
  auto* b = new Block();
  b->shape[0] = prototype->shape[0];
  b->shape[1] = prototype->shape[1];
  b->strides[0] = g_strides[0];
  b->strides[1] = g_strides[1];
  b->managed.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  b->managed.manager_ctx = b;
  b->managed.deleter = FreeBlock;
  DLTensor& t = b->managed.dl_tensor;
  t.data = b->data;
  t.device = prototype->device;
  t.ndim = 2;
  t.dtype = prototype->dtype;
  t.shape = b->shape;
  t.strides = b->strides;
  *out = &b->managed;
  return 0;
}

std::string AllocKind() {
  int64_t shape[2] = {4, 3};
  DLTensor proto{};
  proto.ndim = 2;
  proto.shape = shape;
  proto.dtype = DLDataType{kDLFloat, 32, 1};
  proto.device = DLDevice{kDLCPU, 0};
  DLPackManagedTensorAllocator before = nullptr;
  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(HostileAlloc, 0, &before) == 0);
  TVMFFIObjectHandle out = nullptr;
  int rc = TVMFFIEnvTensorAlloc(&proto, &out);
  REQUIRE(TVMFFIEnvSetDLPackManagedTensorAllocator(before, 0, nullptr) == 0);
  if (rc == 0) {
    TVMFFIObjectDecRef(out);
    return "";
  }
  TVMFFIObjectHandle err = nullptr;
  TVMFFIErrorMoveFromRaised(&err);
  REQUIRE(err != nullptr);
  const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
  std::string kind(cell->kind.data, cell->kind.size);
  TVMFFIObjectDecRef(err);
  return kind;
}

Module Kernels() {
  return Module::LoadFromFile(TVMFFI_TEST_CPU_KERNELS);
}

template <typename... Args>
std::string CallKind(const Function& f, Args&&... args) {
  try {
    f(std::forward<Args>(args)...);
    return "";
  } catch (const Error& e) {
    return e.kind();
  }
}

}  // namespace

TEST_CASE("Producers: the allocator's tensor must be compact", "[hostile][producers]") {
  g_strides[0] = 3;
  g_strides[1] = 1;
  CHECK(AllocKind().empty());
  g_strides[0] = -3;  // rows run backwards, below the block
  CHECK(AllocKind() == "RuntimeError");
  g_strides[0] = 6;  // padded rows, past the block's end
  CHECK(AllocKind() == "RuntimeError");
  g_strides[0] = std::numeric_limits<int64_t>::max();  // overflowing
  CHECK(AllocKind() == "ValueError");
}

TEST_CASE("Kernels: add_int refuses int64 overflow", "[hostile][kernels]") {
  Function add_int = *Kernels()->GetFunction("add_int");
  CHECK(add_int(40, 2).cast<int64_t>() == 42);
  CHECK(CallKind(add_int, std::numeric_limits<int64_t>::max(), 1) == "ValueError");
  CHECK(CallKind(add_int, std::numeric_limits<int64_t>::min(), -1) == "ValueError");
  CHECK(add_int(std::numeric_limits<int64_t>::min(), 0).cast<int64_t>() ==
        std::numeric_limits<int64_t>::min());
}

TEST_CASE("Kernels: misaligned float data is refused", "[hostile][kernels]") {
  Function sum = *Kernels()->GetFunction("sum");
  std::vector<double> storage(8, 1.0);
  int64_t shape[1] = {4};
  DLTensor t{};
  t.ndim = 1;
  t.shape = shape;
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.device = DLDevice{kDLCPU, 0};
  t.data = storage.data();
  CHECK(CallKind(sum, &t).empty());
  t.data = reinterpret_cast<char*>(storage.data()) + 1;  // off by one byte
  CHECK(CallKind(sum, &t) == "ValueError");
  t.data = storage.data();
  t.byte_offset = 2;  // misaligned through the offset
  CHECK(CallKind(sum, &t) == "ValueError");
}

TEST_CASE("Modules: a writes declaration belongs to the function beside it",
          "[hostile][producers]") {
  Module a = Module::LoadFromFile(TVMFFI_TEST_LIB_A);
  Module b = Module::LoadFromFile(TVMFFI_TEST_LIB_B);
  if (b->imports().empty()) b->ImportModule(a);
  // Both have `whoami`; only a's declares what it writes (nothing). b's own
  // function must not be paired with a's declaration.
  REQUIRE(a->GetFunctionWrites("whoami").has_value());
  CHECK_FALSE(b->GetFunctionWrites("whoami", true).has_value());
  // A function only a has is found through b's imports, with its declaration.
  Optional<Array<int64_t>> echo = b->GetFunctionWrites("echo_optional", true);
  REQUIRE(echo.has_value());
  CHECK(echo.value().size() == 2);
}

namespace {
int g_ro_deleted = 0;
void CountDelete(DLManagedTensorVersioned*) {
  ++g_ro_deleted;
}
}  // namespace

TEST_CASE("Exports: a read-only tensor is never exported as legacy DLPack",
          "[hostile][producers]") {
  float data[4] = {1, 2, 3, 4};
  int64_t shape[1] = {4};
  for (const bool read_only : {true, false}) {
    g_ro_deleted = 0;
    DLManagedTensorVersioned m{};
    m.version = DLPackVersion{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    m.deleter = CountDelete;
    m.flags = read_only ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    m.dl_tensor.data = data;
    m.dl_tensor.device = DLDevice{kDLCPU, 0};
    m.dl_tensor.ndim = 1;
    m.dl_tensor.dtype = DLDataType{kDLFloat, 32, 1};
    m.dl_tensor.shape = shape;
    TVMFFIObjectHandle t = nullptr;
    REQUIRE(TVMFFITensorFromDLPackVersioned(&m, 0, 0, &t) == 0);
    // The C door: refused (ValueError), *out untouched, the tensor intact.
    DLManagedTensor* legacy = nullptr;
    const int rc = TVMFFITensorToDLPack(t, &legacy);
    if (read_only) {
      CHECK(rc == -1);
      CHECK(legacy == nullptr);
      TVMFFIObjectHandle err = nullptr;
      TVMFFIErrorMoveFromRaised(&err);
      REQUIRE(err != nullptr);
      const TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
      CHECK(std::string(cell->kind.data, cell->kind.size) == "ValueError");
      TVMFFIObjectDecRef(err);
    } else {
      REQUIRE(rc == 0);
      REQUIRE(legacy != nullptr);
      CHECK(legacy->dl_tensor.data == data);
      legacy->deleter(legacy);
    }
    // The versioned export carries the flag and works either way.
    DLManagedTensorVersioned* v = nullptr;
    REQUIRE(TVMFFITensorToDLPackVersioned(t, &v) == 0);
    CHECK(((v->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) == read_only);
    v->deleter(v);
    // The C++ door goes through the C one: ValueError for a read-only tensor.
    {
      Tensor cxx = detail::ObjectUnsafe::ObjectRefFromObjectPtr<Tensor>(
          detail::ObjectUnsafe::ObjectPtrFromOwned<Object>(static_cast<TVMFFIObject*>(t)));
      if (read_only) {
        bool refused = false;
        try {
          cxx.ToDLPack();
        } catch (const Error& e) {
          refused = e.kind() == "ValueError";
        }
        CHECK(refused);
      }
    }
    CHECK(g_ro_deleted == 1);  // the producer's deleter ran once, when the tensor died
  }
}

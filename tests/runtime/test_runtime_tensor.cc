// DLPack import/export and unsafe views, through the C ABI.
#include <catch2/catch_test_macros.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "runtime_test_util.h"

using namespace rt_test;

namespace {

// A producer's tensor: owns its metadata and data, counts deleter calls.
template <typename M>
struct Produced {
  M managed;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  std::vector<float> data;
  int* deleted;
};

template <typename M>
void ProducedDeleter(M* self) {
  auto* p = static_cast<Produced<M>*>(self->manager_ctx);
  ++*p->deleted;
  delete p;
}

template <typename M>
M* Produce(int* deleted, std::vector<int64_t> shape, std::vector<int64_t> strides = {},
           uint64_t flags = 0) {
  auto* p = new Produced<M>();
  p->deleted = deleted;
  p->shape = std::move(shape);
  p->strides = std::move(strides);
  // Real storage for small shapes; huge ones only exist to be rejected.
  size_t n = 1;
  for (int64_t d : p->shape) n = std::min<size_t>(n * (d > 0 ? static_cast<size_t>(d) : 1), 4096);
  p->data.assign(n + 16, 0.0f);
  for (size_t i = 0; i < p->data.size(); ++i) p->data[i] = static_cast<float>(i);
  DLTensor& t = p->managed.dl_tensor;
  t.data = p->data.data();
  t.device = DLDevice{kDLCPU, 0};
  t.ndim = static_cast<int32_t>(p->shape.size());
  t.dtype = DLDataType{kDLFloat, 32, 1};
  t.shape = p->shape.empty() ? nullptr : p->shape.data();
  t.strides = p->strides.empty() ? nullptr : p->strides.data();
  t.byte_offset = 0;
  p->managed.manager_ctx = p;
  p->managed.deleter = ProducedDeleter<M>;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    p->managed.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
    p->managed.flags = flags;
  }
  return &p->managed;
}

Handle ImportV(DLManagedTensorVersioned* m, int32_t align = 0, int32_t contig = 0) {
  Handle h;
  REQUIRE(TVMFFITensorFromDLPackVersioned(m, align, contig, h.out()) == 0);
  return h;
}

const DLTensor* DL(const Handle& h) {
  return TVMFFITensorGetDLTensorPtr(h.get());
}

}  // namespace

TEST_CASE("Versioned import wraps without copying", "[runtime][tensor]") {
  int deleted = 0;
  {
    DLManagedTensorVersioned* m = Produce<DLManagedTensorVersioned>(&deleted, {2, 3});
    void* data = m->dl_tensor.data;
    int64_t* shape = m->dl_tensor.shape;
    Handle t = ImportV(m, 4, 1);
    REQUIRE(TVMFFIObjectGetTypeIndex(t.get()) == kTVMFFITensor);
    REQUIRE(reinterpret_cast<char*>(TVMFFITensorGetDLTensorPtr(t.get())) ==
            static_cast<char*>(t.get()) + 24);
    REQUIRE(DL(t)->data == data);
    REQUIRE(DL(t)->shape == shape);
    REQUIRE(DL(t)->ndim == 2);
    REQUIRE(DL(t)->dtype.bits == 32);
    // The producer gave no strides; compact ones are provided.
    REQUIRE(DL(t)->strides != nullptr);
    REQUIRE(DL(t)->strides[0] == 3);
    REQUIRE(DL(t)->strides[1] == 1);
    TVMFFIObjectIncRef(t.get());
    TVMFFIObjectDecRef(t.get());
    REQUIRE(deleted == 0);
  }
  REQUIRE(deleted == 1);
}

TEST_CASE("Legacy import keeps given strides and calls the deleter once", "[runtime][tensor]") {
  int deleted = 0;
  {
    DLManagedTensor* m = Produce<DLManagedTensor>(&deleted, {3, 2}, {1, 3});
    int64_t* strides = m->dl_tensor.strides;
    Handle t;
    REQUIRE(TVMFFITensorFromDLPack(m, 0, 0, t.out()) == 0);
    REQUIRE(DL(t)->strides == strides);
  }
  REQUIRE(deleted == 1);

  SECTION("0-d tensors") {
    DLManagedTensor* m = Produce<DLManagedTensor>(&deleted, {});
    Handle t;
    REQUIRE(TVMFFITensorFromDLPack(m, 0, 1, t.out()) == 0);
    REQUIRE(DL(t)->ndim == 0);
  }
}

TEST_CASE("Malformed imports are ValueErrors and the deleter runs exactly once",
          "[runtime][tensor]") {
  struct Case {
    const char* name;
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
    int32_t align;
    int32_t contig;
    void (*tweak)(DLManagedTensorVersioned*);
    const char* message_part;
  };
  const Case cases[] = {
      {"major version",
       {2},
       {},
       0,
       0,
       [](DLManagedTensorVersioned* m) { m->version.major = 2; },
       "major version 2"},
      {"major version 0",
       {2},
       {},
       0,
       0,
       [](DLManagedTensorVersioned* m) { m->version.major = 0; },
       "major version 0"},
      {"negative ndim",
       {2},
       {},
       0,
       0,
       [](DLManagedTensorVersioned* m) { m->dl_tensor.ndim = -1; },
       "ndim -1"},
      {"ndim too large",
       {2},
       {},
       0,
       0,
       [](DLManagedTensorVersioned* m) { m->dl_tensor.ndim = 65; },
       "ndim 65"},
      {"NULL shape",
       {2, 2},
       {},
       0,
       0,
       [](DLManagedTensorVersioned* m) { m->dl_tensor.shape = nullptr; },
       "NULL shape"},
      {"negative extent", {2, -3}, {}, 0, 0, nullptr, "negative extent -3"},
      {"element count overflow",
       {int64_t{1} << 40, int64_t{1} << 40},
       {},
       0,
       0,
       nullptr,
       "overflows"},
      {"byte size overflow", {int64_t{1} << 61}, {}, 0, 0, nullptr, "overflows"},
      {"misaligned",
       {4},
       {},
       64,
       0,
       [](DLManagedTensorVersioned* m) { m->dl_tensor.byte_offset = 4; },
       "not aligned to 64"},
      {"column-major", {2, 3}, {1, 2}, 0, 1, nullptr, "not contiguous"},
      {"gap between rows", {2, 3}, {4, 1}, 0, 1, nullptr, "not contiguous"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    int deleted = 0;
    DLManagedTensorVersioned* m = Produce<DLManagedTensorVersioned>(&deleted, c.shape, c.strides);
    if (c.tweak) c.tweak(m);
    TVMFFIObjectHandle out = nullptr;
    REQUIRE(TVMFFITensorFromDLPackVersioned(m, c.align, c.contig, &out) == -1);
    REQUIRE(out == nullptr);
    REQUIRE(deleted == 1);
    RaisedError e = TakeRaised();
    REQUIRE(e.kind == "ValueError");
    INFO(e.message);
    REQUIRE(e.message.find("TVMFFITensorFromDLPackVersioned") == 0);
    REQUIRE(e.message.find(c.message_part) != std::string::npos);
  }

  SECTION("legacy imports validate the same way") {
    int deleted = 0;
    DLManagedTensor* m = Produce<DLManagedTensor>(&deleted, {2, -1});
    TVMFFIObjectHandle out = nullptr;
    REQUIRE(TVMFFITensorFromDLPack(m, 0, 0, &out) == -1);
    REQUIRE(deleted == 1);
    REQUIRE(TakeRaised().message.find("TVMFFITensorFromDLPack:") == 0);
  }
  SECTION("a NULL out still consumes the tensor") {
    int deleted = 0;
    REQUIRE(TVMFFITensorFromDLPackVersioned(Produce<DLManagedTensorVersioned>(&deleted, {1}), 0, 0,
                                            nullptr) == -1);
    REQUIRE(deleted == 1);
    REQUIRE(TakeRaised().message == "TVMFFITensorFromDLPackVersioned: argument `out` is NULL");
    REQUIRE(TVMFFITensorFromDLPack(Produce<DLManagedTensor>(&deleted, {1}), 0, 0, nullptr) == -1);
    REQUIRE(deleted == 2);
    REQUIRE(TakeRaised().message == "TVMFFITensorFromDLPack: argument `out` is NULL");
  }
  SECTION("NULL from") {
    TVMFFIObjectHandle out = nullptr;
    REQUIRE(TVMFFITensorFromDLPack(nullptr, 0, 0, &out) == -1);
    REQUIRE(TakeRaised().message == "TVMFFITensorFromDLPack: argument `from` is NULL");
    REQUIRE(TVMFFITensorFromDLPackVersioned(nullptr, 0, 0, &out) == -1);
    REQUIRE(TakeRaised().message == "TVMFFITensorFromDLPackVersioned: argument `from` is NULL");
  }
  SECTION("a NULL producer deleter is allowed") {
    int deleted = 0;
    DLManagedTensorVersioned* m = Produce<DLManagedTensorVersioned>(&deleted, {2});
    auto* owner = static_cast<Produced<DLManagedTensorVersioned>*>(m->manager_ctx);
    m->deleter = nullptr;
    m->version.major = 9;
    TVMFFIObjectHandle out = nullptr;
    REQUIRE(TVMFFITensorFromDLPackVersioned(m, 0, 0, &out) == -1);
    TakeRaised();
    delete owner;
  }
}

TEST_CASE("Accepted layouts", "[runtime][tensor]") {
  int deleted = 0;
  SECTION("unit dimensions never break contiguity") {
    {
      Handle t = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {1, 3, 1}, {99, 1, 42}), 0, 1);
    }
    REQUIRE(deleted == 1);  // the producer deleter ran when the Tensor died
  }
  SECTION("zero-size tensors are contiguous") {
    { Handle t = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {0, 3}, {7, 9}), 0, 1); }
    REQUIRE(deleted == 1);  // the producer deleter ran when the Tensor died
  }
  SECTION("row-major with explicit strides") {
    { Handle t = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {2, 3}, {3, 1}), 16, 1); }
    REQUIRE(deleted == 1);  // the producer deleter ran when the Tensor died
  }
  SECTION("alignment counts byte_offset") {
    {
      DLManagedTensorVersioned* m = Produce<DLManagedTensorVersioned>(&deleted, {4});
      m->dl_tensor.data = static_cast<char*>(m->dl_tensor.data) + 4;
      m->dl_tensor.byte_offset = 0;
      uintptr_t addr = reinterpret_cast<uintptr_t>(m->dl_tensor.data);
      m->dl_tensor.byte_offset = (64 - addr % 64) % 64;
      Handle t = ImportV(m, 64, 0);
    }
    REQUIRE(deleted == 1);  // the producer deleter ran when the Tensor died
  }
  SECTION("opaque-address devices check byte_offset only") {
    {
      DLManagedTensorVersioned* m = Produce<DLManagedTensorVersioned>(&deleted, {4});
      m->dl_tensor.device = DLDevice{kDLVulkan, 0};
      m->dl_tensor.data = reinterpret_cast<void*>(uintptr_t{0x1003});
      m->dl_tensor.byte_offset = 128;
      Handle t = ImportV(m, 64, 0);
    }
    REQUIRE(deleted == 1);  // the producer deleter ran when the Tensor died
  }
  SECTION("no alignment check when require_alignment <= 0") {
    {
      DLManagedTensorVersioned* m = Produce<DLManagedTensorVersioned>(&deleted, {4});
      m->dl_tensor.byte_offset = 3;
      Handle t = ImportV(m, -8, 0);
    }
    REQUIRE(deleted == 1);  // the producer deleter ran when the Tensor died
  }
}

TEST_CASE("Export shares memory, holds the tensor, carries flags", "[runtime][tensor]") {
  int deleted = 0;
  DLManagedTensorVersioned* exported = nullptr;
  {
    Handle t = ImportV(
        Produce<DLManagedTensorVersioned>(&deleted, {2, 3}, {}, DLPACK_FLAG_BITMASK_READ_ONLY));
    REQUIRE(TVMFFITensorToDLPackVersioned(t.get(), &exported) == 0);
    REQUIRE(exported->version.major == DLPACK_MAJOR_VERSION);
    REQUIRE(exported->version.minor == DLPACK_MINOR_VERSION);
    REQUIRE(exported->flags == DLPACK_FLAG_BITMASK_READ_ONLY);
    REQUIRE(exported->dl_tensor.data == DL(t)->data);
    REQUIRE(exported->dl_tensor.shape == DL(t)->shape);
    REQUIRE(exported->dl_tensor.strides == DL(t)->strides);
    REQUIRE(exported->dl_tensor.ndim == 2);
    REQUIRE(exported->deleter != nullptr);
    REQUIRE(StrongCount(t.get()) == 2);
  }
  REQUIRE(deleted == 0);  // the export keeps the tensor alive
  REQUIRE(static_cast<float*>(exported->dl_tensor.data)[5] == 5.0f);
  exported->deleter(exported);
  REQUIRE(deleted == 1);

  SECTION("legacy export") {
    DLManagedTensor* legacy = nullptr;
    {
      Handle t = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {4}));
      REQUIRE(TVMFFITensorToDLPack(t.get(), &legacy) == 0);
      REQUIRE(legacy->dl_tensor.data == DL(t)->data);
    }
    REQUIRE(deleted == 1);
    legacy->deleter(legacy);
    REQUIRE(deleted == 2);
  }
  SECTION("a legacy import exports with no flags") {
    Handle t;
    REQUIRE(TVMFFITensorFromDLPack(Produce<DLManagedTensor>(&deleted, {4}), 0, 0, t.out()) == 0);
    REQUIRE(TVMFFITensorToDLPackVersioned(t.get(), &exported) == 0);
    REQUIRE(exported->flags == 0);
    exported->deleter(exported);
  }
}

TEST_CASE("Export then re-import is the same memory, with flags", "[runtime][tensor]") {
  int deleted = 0;
  {
    Handle t = ImportV(Produce<DLManagedTensorVersioned>(
        &deleted, {5}, {}, DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED));
    DLManagedTensorVersioned* v = nullptr;
    REQUIRE(TVMFFITensorToDLPackVersioned(t.get(), &v) == 0);
    Handle t2 = ImportV(v);
    REQUIRE(DL(t2)->data == DL(t)->data);
    DLManagedTensorVersioned* v2 = nullptr;
    REQUIRE(TVMFFITensorToDLPackVersioned(t2.get(), &v2) == 0);
    REQUIRE(v2->flags == (DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED));
    v2->deleter(v2);

    // Legacy DLPack cannot carry the read-only flag: that export is refused.
    DLManagedTensor* l = nullptr;
    REQUIRE(TVMFFITensorToDLPack(t2.get(), &l) == -1);
    REQUIRE(l == nullptr);
    REQUIRE(TakeRaised().kind == "ValueError");
  }
  REQUIRE(deleted == 1);
}

TEST_CASE("Export argument errors", "[runtime][tensor]") {
  DLManagedTensor* l = nullptr;
  DLManagedTensorVersioned* v = nullptr;
  int deleted = 0;
  Handle t = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {1}));
  REQUIRE(TVMFFITensorToDLPack(nullptr, &l) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorToDLPack: argument `from` is NULL");
  REQUIRE(TVMFFITensorToDLPack(t.get(), nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorToDLPack: argument `out` is NULL");
  REQUIRE(TVMFFITensorToDLPackVersioned(nullptr, &v) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorToDLPackVersioned: argument `from` is NULL");
  REQUIRE(TVMFFITensorToDLPackVersioned(t.get(), nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorToDLPackVersioned: argument `out` is NULL");
  Handle opaque;
  REQUIRE(TVMFFIObjectCreateOpaque(nullptr, kTVMFFIOpaquePyObject, nullptr, opaque.out()) == 0);
  REQUIRE(TVMFFITensorToDLPack(opaque.get(), &l) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "TypeError");
  REQUIRE(e.message.find("ffi.OpaquePyObject") != std::string::npos);
  REQUIRE(TVMFFITensorToDLPackVersioned(opaque.get(), &v) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
  REQUIRE(StrongCount(t.get()) == 1);
}

namespace {
// A Tensor object made by another binary: header + DLTensor, its own deleter.
struct ForeignTensor {
  TVMFFIObject header;
  DLTensor dl;
  int64_t shape[2];
  float data[6];
  int* freed;
};
void ForeignDeleter(void* self, int flags) {
  auto* t = static_cast<ForeignTensor*>(self);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) {
    ++*t->freed;
    delete t;
  }
}
TVMFFIObjectHandle MakeForeign(int* freed) {
  auto* t = new ForeignTensor();
  t->header.combined_ref_count = (uint64_t{1} << 32) | 1;
  t->header.type_index = kTVMFFITensor;
  t->header.deleter = ForeignDeleter;
  t->shape[0] = 2;
  t->shape[1] = 3;
  t->dl.data = t->data;
  t->dl.device = DLDevice{kDLCPU, 0};
  t->dl.ndim = 2;
  t->dl.dtype = DLDataType{kDLFloat, 32, 1};
  t->dl.shape = t->shape;
  t->dl.strides = nullptr;  // an old-style producer
  t->freed = freed;
  return t;
}
}  // namespace

TEST_CASE("Tensors created by other binaries export too", "[runtime][tensor]") {
  int freed = 0;
  Handle t(MakeForeign(&freed));
  DLManagedTensorVersioned* v = nullptr;
  REQUIRE(TVMFFITensorToDLPackVersioned(t.get(), &v) == 0);
  REQUIRE(v->flags == 0);
  REQUIRE(v->dl_tensor.strides != nullptr);  // DLPack >= 1.2 wants strides
  REQUIRE(v->dl_tensor.strides[0] == 3);
  REQUIRE(v->dl_tensor.strides[1] == 1);
  DLManagedTensor* l = nullptr;
  REQUIRE(TVMFFITensorToDLPack(t.get(), &l) == 0);
  REQUIRE(l->dl_tensor.strides != nullptr);
  TVMFFIObjectDecRef(t.release());
  REQUIRE(freed == 0);
  v->deleter(v);
  REQUIRE(freed == 0);
  l->deleter(l);
  REQUIRE(freed == 1);
}

TEST_CASE("Unsafe views copy metadata and keep the source alive", "[runtime][tensor]") {
  int deleted = 0;
  Handle view;
  {
    Handle src = ImportV(
        Produce<DLManagedTensorVersioned>(&deleted, {4, 4}, {}, DLPACK_FLAG_BITMASK_READ_ONLY));
    std::vector<int64_t> shape = {2, 2};
    std::vector<int64_t> strides = {4, 1};
    DLTensor proto = *DL(src);
    proto.ndim = 2;
    proto.shape = shape.data();
    proto.strides = strides.data();
    proto.byte_offset = 5 * sizeof(float);  // element [1][1]
    REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &proto, view.out()) == 0);
    REQUIRE(StrongCount(src.get()) == 2);
    shape.assign({9, 9});
    strides.assign({9, 9});
    REQUIRE(DL(view)->shape[0] == 2);
    REQUIRE(DL(view)->strides[0] == 4);
    REQUIRE(DL(view)->data == DL(src)->data);
  }
  REQUIRE(deleted == 0);
  const DLTensor* dl = DL(view);
  auto at = [&](int i, int j) {
    return reinterpret_cast<const float*>(static_cast<const char*>(dl->data) +
                                          dl->byte_offset)[i * dl->strides[0] + j];
  };
  REQUIRE(at(0, 0) == 5.0f);
  REQUIRE(at(1, 1) == 10.0f);

  // A view of a read-only tensor exports as read-only.
  DLManagedTensorVersioned* v = nullptr;
  REQUIRE(TVMFFITensorToDLPackVersioned(view.get(), &v) == 0);
  REQUIRE(v->flags == DLPACK_FLAG_BITMASK_READ_ONLY);
  v->deleter(v);

  // A view of a view; the strides default to compact.
  Handle view2;
  int64_t shape1[1] = {3};
  DLTensor proto = *DL(view);
  proto.ndim = 1;
  proto.shape = shape1;
  proto.strides = nullptr;
  REQUIRE(TVMFFITensorCreateUnsafeView(view.get(), &proto, view2.out()) == 0);
  REQUIRE(DL(view2)->strides[0] == 1);
  TVMFFIObjectDecRef(view.release());
  REQUIRE(deleted == 0);
  TVMFFIObjectDecRef(view2.release());
  REQUIRE(deleted == 1);
}

TEST_CASE("Unsafe view argument errors", "[runtime][tensor]") {
  int deleted = 0;
  Handle src = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {4}));
  DLTensor proto = *DL(src);
  TVMFFIObjectHandle out = nullptr;
  REQUIRE(TVMFFITensorCreateUnsafeView(nullptr, &proto, &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorCreateUnsafeView: argument `source` is NULL");
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), nullptr, &out) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorCreateUnsafeView: argument `prototype` is NULL");
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &proto, nullptr) == -1);
  REQUIRE(TakeRaised().message == "TVMFFITensorCreateUnsafeView: argument `out` is NULL");
  Handle fn;
  REQUIRE(TVMFFIFunctionCreate(
              nullptr, [](void*, const TVMFFIAny*, int32_t, TVMFFIAny*) { return 0; }, nullptr,
              fn.out()) == 0);
  REQUIRE(TVMFFITensorCreateUnsafeView(fn.get(), &proto, &out) == -1);
  REQUIRE(TakeRaised().kind == "TypeError");
  DLTensor bad = proto;
  bad.ndim = -2;
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &bad, &out) == -1);
  REQUIRE(TakeRaised().kind == "ValueError");
  bad = proto;
  bad.shape = nullptr;
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &bad, &out) == -1);
  REQUIRE(TakeRaised().kind == "ValueError");
  int64_t neg[1] = {-1};
  bad = proto;
  bad.shape = neg;
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &bad, &out) == -1);
  REQUIRE(TakeRaised().message.find("negative extent") != std::string::npos);
  REQUIRE(out == nullptr);
  REQUIRE(StrongCount(src.get()) == 1);
}

// ---------------------------------------------------------------------------
// Malformed DLPack input (RELIABILITY.md, defects 7 and 12)
// ---------------------------------------------------------------------------

namespace {

// Imports m (legacy when !versioned) and returns the error kind + message ("" on success).
template <typename M>
std::string ImportError(M* m, int32_t align = 0) {
  Handle h;
  int rc = 0;
  if constexpr (std::is_same_v<M, DLManagedTensorVersioned>) {
    rc = TVMFFITensorFromDLPackVersioned(m, align, 0, h.out());
  } else {
    rc = TVMFFITensorFromDLPack(m, align, 0, h.out());
  }
  if (rc == 0) return "";
  RaisedError e = TakeRaised();
  return e.kind + ": " + e.message;
}

template <typename M>
void CheckMalformedImports() {
  constexpr int64_t kMax = INT64_MAX;
  struct Case {
    const char* what;
    std::vector<int64_t> shape, strides;
    void (*edit)(DLTensor*);
    const char* expect;  // substring of the ValueError; nullptr: accepted
  };
  auto none = [](DLTensor*) {};
  std::vector<Case> cases = {
      {"zero-size with huge extents", {0, kMax, kMax}, {}, none, "overflows int64"},
      {"huge extents", {kMax, 2}, {}, none, "overflows int64"},
      {"overflowing strides", {3, 2}, {kMax, 1}, none, "overflows int64"},
      {"negative overflowing strides", {3, 2}, {-kMax, 1}, none, "overflows int64"},
      {"negative strides", {3}, {-1}, [](DLTensor* t) { t->byte_offset = 8; }, nullptr},
      {"byte_offset UINT64_MAX",
       {2},
       {},
       [](DLTensor* t) { t->byte_offset = UINT64_MAX; },
       "byte_offset"},
      {"NULL data with elements", {2}, {}, [](DLTensor* t) { t->data = nullptr; }, "NULL data"},
      {"NULL data, no elements", {0, 3}, {}, [](DLTensor* t) { t->data = nullptr; }, nullptr},
      {"zero bits", {2}, {}, [](DLTensor* t) { t->dtype.bits = 0; }, "bits"},
      {"zero lanes", {2}, {}, [](DLTensor* t) { t->dtype.lanes = 0; }, "lanes"},
      {"unassigned type code", {2}, {}, [](DLTensor* t) { t->dtype.code = 50; }, "type code 50"},
      {"custom type code", {2}, {}, [](DLTensor* t) { t->dtype.code = 250; }, nullptr},
      {"device type 99999",
       {2},
       {},
       [](DLTensor* t) { t->device.device_type = static_cast<DLDeviceType>(99999); },
       "device type 99999"},
      {"negative device id",
       {2},
       {},
       [](DLTensor* t) { t->device.device_id = -1; },
       "device id -1"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.what);
    int deleted = 0;
    M* m = Produce<M>(&deleted, c.shape, c.strides);
    c.edit(&m->dl_tensor);
    std::string err = ImportError(m);
    if (c.expect == nullptr) {
      REQUIRE(err.empty());
    } else {
      REQUIRE(err.rfind("ValueError: ", 0) == 0);
      REQUIRE(err.find(c.expect) != std::string::npos);
    }
    REQUIRE(deleted == 1);  // exactly once: on refusal, or when the imported handle died
  }
}

}  // namespace

TEST_CASE("DLPack import refuses overflowing and malformed tensors",
          "[runtime][tensor][regression]") {
  SECTION("versioned") {
    CheckMalformedImports<DLManagedTensorVersioned>();
  }
  SECTION("legacy") {
    CheckMalformedImports<DLManagedTensor>();
  }
}

TEST_CASE("Unsafe views refuse overflowing shapes and strides", "[runtime][tensor][regression]") {
  int deleted = 0;
  Handle src = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {4}));
  int64_t shape[3] = {0, INT64_MAX, INT64_MAX};
  DLTensor proto = *DL(src);
  proto.ndim = 3;
  proto.shape = shape;
  proto.strides = nullptr;
  Handle view;
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &proto, view.out()) == -1);
  RaisedError e = TakeRaised();
  REQUIRE(e.kind == "ValueError");
  REQUIRE(e.message.find("overflows int64") != std::string::npos);
  int64_t shape2[2] = {3, 2}, strides2[2] = {INT64_MAX / 2, 1};
  proto.ndim = 2;
  proto.shape = shape2;
  proto.strides = strides2;
  REQUIRE(TVMFFITensorCreateUnsafeView(src.get(), &proto, view.out()) == -1);
  e = TakeRaised();
  REQUIRE(e.kind == "ValueError");
  REQUIRE(e.message.find("overflows int64") != std::string::npos);
}

TEST_CASE("Repeated imports: every layout, recycled blocks, deleters exactly once",
          "[runtime][tensor]") {
  // More imports than the per-thread pool holds, alive at once and one by
  // one, in the layouts the import's fast path takes (NULL and compact
  // strides) and the ones it leaves to the full checks (other strides) or to
  // a block of their own (5-d and 9-d with strides filled in: larger than a
  // pooled one, while 4-d is the largest whose strides the check fills in).
  struct Layout {
    std::vector<int64_t> shape;
    std::vector<int64_t> strides;
  };
  const Layout layouts[] = {{{4, 4}, {4, 1}},
                            {{4, 4}, {}},
                            {{4, 4}, {1, 4}},
                            {{2, 1, 3}, {3, 3, 1}},
                            {{1, 1, 1, 1, 1, 1, 1, 1, 2}, {}},
                            {{}, {}},
                            {{2, 3, 4, 5}, {}},
                            {{2, 1, 3, 1, 2}, {}}};
  int deleted = 0;
  int imported = 0;
  for (int round = 0; round < 2; ++round) {
    std::vector<Handle> alive;
    for (int i = 0; i < 150; ++i) {
      const Layout& l = layouts[i % (sizeof(layouts) / sizeof(layouts[0]))];
      Handle h;
      if (i % 2 == 0) {
        REQUIRE(TVMFFITensorFromDLPackVersioned(
                    Produce<DLManagedTensorVersioned>(&deleted, l.shape, l.strides), 0, 0,
                    h.out()) == 0);
      } else {
        REQUIRE(TVMFFITensorFromDLPack(Produce<DLManagedTensor>(&deleted, l.shape, l.strides), 0, 0,
                                       h.out()) == 0);
      }
      ++imported;
      const DLTensor* t = DL(h);
      REQUIRE(t->ndim == static_cast<int32_t>(l.shape.size()));
      for (size_t d = 0; d < l.shape.size(); ++d) {
        REQUIRE(t->shape[d] == l.shape[d]);
        // Strides as given, or compact ones filled in.
        int64_t compact = 1;
        for (size_t k = d + 1; k < l.shape.size(); ++k) compact *= l.shape[k];
        REQUIRE(t->strides[d] == (l.strides.empty() ? compact : l.strides[d]));
      }
      if (round == 0) alive.push_back(std::move(h));  // round 1 drops each at once
    }
    alive.clear();
    REQUIRE(deleted == imported);
  }
}

TEST_CASE("A weak reference keeps the block, not the producer's tensor", "[runtime][tensor]") {
  // The ABI's protocol, by hand: strong count to 0 with a weak one left runs
  // the deleter's strong part (the producer's deleter), the last weak one the
  // weak part (the block).
  for (int i = 0; i < 3; ++i) {
    int deleted = 0;
    Handle h = ImportV(Produce<DLManagedTensorVersioned>(&deleted, {4, 4}, {4, 1}));
    auto* obj = static_cast<TVMFFIObject*>(h.get());
    __atomic_fetch_add(&obj->combined_ref_count, uint64_t{1} << 32, __ATOMIC_RELAXED);
    TVMFFIObjectDecRef(h.release());
    REQUIRE(deleted == 1);
    REQUIRE(__atomic_load_n(&obj->combined_ref_count, __ATOMIC_RELAXED) == (uint64_t{1} << 32));
    __atomic_fetch_sub(&obj->combined_ref_count, uint64_t{1} << 32, __ATOMIC_ACQ_REL);
    obj->deleter(obj, kTVMFFIObjectDeleterFlagBitMaskWeak);
    REQUIRE(deleted == 1);
  }
}

// The ffi.* globals apache/tvm-ffi 0.1.15 registers that the runtime gained for
// issue #39 (runtime/upstream_globals.cc, runtime/module.cc).
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>

#include <catch2/catch_test_macros.hpp>

#include <cstdlib>
#include <string>

namespace {

using namespace tvm::ffi;
namespace refl = tvm::ffi::reflection;

class Up39PointObj : public Object {
 public:
  int64_t x = 0;
  int64_t y = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.upstream39.Point", Up39PointObj, Object);
};

void RegisterOnce() {
  static bool done = [] {
    refl::ObjectDef<Up39PointObj>()
        .def_ro("x", &Up39PointObj::x)
        .def_ro("y", &Up39PointObj::y, refl::default_value(7));
    return true;
  }();
  (void)done;
}

// Host memory labelled with whatever device the tensor names (never dereferenced).
struct HostAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

std::string KindOf(const Function& f, const Any& a0, const Any& a1) {
  try {
    f(a0, a1);
  } catch (const Error& e) {
    return e.kind();
  }
  return "";
}

Function Global(const char* name) {
  return Function::GetGlobalRequired(name);
}

TEST_CASE("ffi.GetRegisteredTypeKeys lists every type key, by type index") {
  RegisterOnce();
  auto keys = Global("ffi.GetRegisteredTypeKeys")().cast<Array<String>>();
  bool string = false, array = false, point = false;
  int32_t prev = -1;
  for (const String& key : keys) {
    string |= key == "ffi.String";
    array |= key == "ffi.Array";
    point |= key == "test.upstream39.Point";
    int32_t index = -1;
    TVMFFIByteArray bytes{key.data(), key.size()};
    REQUIRE(TVMFFITypeKeyToIndex(&bytes, &index) == 0);
    CHECK(index > prev);
    prev = index;
  }
  CHECK(string);
  CHECK(array);
  CHECK(point);
}

TEST_CASE("ffi.GetInvalidObject is the sentinel of ffi.MapGetItemOrMissing") {
  ObjectRef invalid = Global("ffi.GetInvalidObject")().cast<ObjectRef>();
  CHECK(invalid.same_as(Global("ffi.MapGetMissingObject")().cast<ObjectRef>()));
  Map<String, int64_t> m{{"a", 1}};
  CHECK(Global("ffi.MapGetItemOrMissing")(m, "b").cast<ObjectRef>().same_as(invalid));
}

TEST_CASE("ffi.ListReserve keeps the list's items and refuses a negative capacity") {
  List<Any> list{1, 2};
  Global("ffi.ListReserve")(list, 100);
  CHECK(list.size() == 2);
  CHECK(list[1].cast<int64_t>() == 2);
  CHECK(KindOf(Global("ffi.ListReserve"), list, -1) == "ValueError");
}

TEST_CASE("ffi.ContainerFindFirstNonCPUDevice searches nested containers depth first") {
  Function find = Global("ffi.ContainerFindFirstNonCPUDevice");
  DLDataType f32{kDLFloat, 32, 1};
  Tensor cpu = Tensor::FromNDAlloc(HostAlloc(), {2}, f32, DLDevice{kDLCPU, 0});
  Tensor gpu = Tensor::FromNDAlloc(HostAlloc(), {2}, f32, DLDevice{kDLCUDA, 3});
  DLDevice none = find(Array<Any>{cpu, 1}).cast<DLDevice>();
  CHECK(none.device_type == kDLCPU);
  CHECK(none.device_id == 0);
  Map<String, Any> inner{{"t", gpu}};
  DLDevice found = find(Array<Any>{cpu, List<Any>{inner}}).cast<DLDevice>();
  CHECK(found.device_type == kDLCUDA);
  CHECK(found.device_id == 3);
  CHECK(find(gpu).cast<DLDevice>().device_id == 3);
  CHECK(find(42).cast<DLDevice>().device_type == kDLCPU);
}

TEST_CASE("ffi.MakeObjectFromPackedArgs sets named fields and defaults") {
  RegisterOnce();
  Function make = Global("ffi.MakeObjectFromPackedArgs");
  auto p = make("test.upstream39.Point", "x", 3).cast<ObjectRef>();
  REQUIRE(p.as<Up39PointObj>() != nullptr);
  CHECK(p.as<Up39PointObj>()->x == 3);
  CHECK(p.as<Up39PointObj>()->y == 7);
  auto q = make(Up39PointObj::RuntimeTypeIndex(), "y", 1, "x", 2).cast<ObjectRef>();
  CHECK(q.as<Up39PointObj>()->x == 2);
  CHECK(q.as<Up39PointObj>()->y == 1);
  CHECK(KindOf(make, "test.upstream39.Point", "y") == "TypeError");  // no value for y
  try {
    make("test.upstream39.Point", "y", 1);  // x has no default
    FAIL("expected TypeError");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
  }
  try {
    make("test.upstream39.Point", "x", 1, "z", 2);
    FAIL("expected TypeError");
  } catch (const Error& e) {
    CHECK(e.kind() == "TypeError");
  }
}

TEST_CASE("Module globals: property mask, formats, source, write, imports, keep-alive") {
  Module sys = Global("ffi.SystemLib")(Optional<String>()).cast<Module>();
  CHECK(Global("ffi.ModuleGetPropertyMask")(sys).cast<int64_t>() == 0b010);
  CHECK(Global("ffi.ModuleGetWriteFormats")(sys).cast<Array<String>>().empty());
  CHECK(Global("ffi.ModuleInspectSource")(sys, "c").cast<String>().empty());
  try {
    Global("ffi.ModuleWriteToFile")(sys, "out.so", "so");
    FAIL("expected RuntimeError");
  } catch (const Error& e) {
    CHECK(e.kind() == "RuntimeError");
  }
  Module other = Global("ffi.SystemLib")(Optional<String>("up39_")).cast<Module>();
  Global("ffi.ModuleImportModule")(other, sys);
  CHECK(Global("ffi.ModuleGetImports")(other).cast<Array<Module>>().size() == 1);
  Global("ffi.ModuleClearImports")(other);
  CHECK(Global("ffi.ModuleGetImports")(other).cast<Array<Module>>().empty());
  // Kept alive while added (the count of references grows), released on removal.
  int before = other.use_count();
  Global("ffi.ModuleGlobalsAdd")(other);
  Global("ffi.ModuleGlobalsAdd")(other);  // once only
  CHECK(other.use_count() == before + 1);
  Global("ffi.ModuleGlobalsRemove")(other);
  CHECK(other.use_count() == before);
}

}  // namespace

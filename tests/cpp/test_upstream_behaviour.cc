// Behaviour aligned with upstream (issue #13's list of differences): devices
// and data types from text, uint64 overflow, std::string from bytes, nested
// Optional collapse, packed sub-byte sizes, the global-names functor; a
// reflected member before the Object header (TileLang's compiler has one).
// (InitOnce is in test_runtime_functions.cc, strided views in test_tensor.cc.)
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/memory.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/registry.h>

#include "api_test_util.h"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {
using namespace tvm::ffi;
using Catch::Matchers::ContainsSubstring;

using api_test::ErrorOf;

TEST_CASE("devices convert from their names", "[upstream_behaviour]") {
  struct Case {
    const char* name;
    int type;
  };
  const Case cases[] = {{"cpu", kDLCPU},       {"cuda", kDLCUDA},   {"opencl", kDLOpenCL},
                        {"vulkan", kDLVulkan}, {"metal", kDLMetal}, {"mps", kDLMetal},
                        {"vpi", kDLVPI},       {"rocm", kDLROCM},   {"ext_dev", kDLExtDev},
                        {"hexagon", 16},       {"wgpu", 15},        {"webgpu", 15},
                        {"maia", 17},          {"trn", 18}};
  for (const Case& c : cases) {
    INFO(c.name);
    DLDevice d = AnyView(c.name).cast<DLDevice>();
    CHECK(static_cast<int>(d.device_type) == c.type);
    CHECK(d.device_id == 0);
  }
  DLDevice cuda3 = Any(String("cuda:3")).cast<DLDevice>();
  CHECK(cuda3 == DLDevice{kDLCUDA, 3});
  CHECK(AnyView("opencl:2").cast<DLDevice>() == DLDevice{kDLOpenCL, 2});
  CHECK(AnyView("cuda:2147483647").cast<DLDevice>().device_id == 2147483647);
  // A long String object (not the small form) converts the same way.
  CHECK(Any(String("cuda:12 (the big one)")).cast<DLDevice>() == DLDevice{kDLCUDA, 12});
  for (const char* bad : {"unknown", "llvm", "c", "nvptx", "cl", "cuda:", "cuda:-1", "cuda:1:2",
                          "cuda:2147483648", ":0", "", "CUDA", "cuda_host", "cuda:x"}) {
    INFO(bad);
    CHECK_FALSE(AnyView(bad).try_cast<DLDevice>().has_value());
  }
  Error err = ErrorOf([] { (void)AnyView("tpu:0").cast<DLDevice>(); });
  CHECK(err.kind() == "TypeError");
  CHECK_THAT(err.message(), ContainsSubstring("to `Device`"));
  // Typed functions take the text too.
  Function f = Function::FromTyped([](DLDevice d) { return static_cast<int64_t>(d.device_id); });
  CHECK(f("rocm:5").cast<int64_t>() == 5);
}

TEST_CASE("data type short forms parse as upstream's", "[upstream_behaviour]") {
  struct Case {
    const char* text;
    const char* canonical;
  };
  const Case cases[] = {{"i32", "int32"},
                        {"i8", "int8"},
                        {"u8", "uint8"},
                        {"u1", "uint1"},
                        {"f16", "float16"},
                        {"f32x4", "float32x4"},
                        {"bf16", "bfloat16"},
                        {"i64x2", "int64x2"},
                        {"f8_e4m3fn", "float8_e4m3fn"},
                        {"fp8_e5m2", "float8_e5m2"},
                        {"fp6_e2m3fn", "float6_e2m3fn"},
                        {"fp4_e2m1fn", "float4_e2m1fn"},
                        {"f8_e8m0fnu", "float8_e8m0fnu"}};
  for (const Case& c : cases) {
    INFO(c.text);
    DLDataType got = StringToDLDataType(c.text);
    DLDataType want = StringToDLDataType(c.canonical);
    CHECK(got.code == want.code);
    CHECK(got.bits == want.bits);
    CHECK(got.lanes == want.lanes);
    // Through Any, as a typed function argument would.
    DLDataType via_any = AnyView(c.text).cast<DLDataType>();
    CHECK(via_any.code == want.code);
    CHECK(via_any.bits == want.bits);
  }
  CHECK(std::string(DLDataTypeToString(StringToDLDataType("bf16"))) == "bfloat16");
  // Not short forms: errors name the text as given.
  for (const char* bad : {"i", "f", "u", "bf", "ix4", "fp8_e9", "i0", "fp16", "x32"}) {
    INFO(bad);
    Error err = ErrorOf([&] { (void)StringToDLDataType(bad); });
    CHECK(err.kind() == "ValueError");
    CHECK_THAT(err.message(), ContainsSubstring(std::string("`") + bad + "`"));
  }
}

TEST_CASE("unsigned 64-bit values above INT64_MAX raise OverflowError", "[upstream_behaviour]") {
  uint64_t max_ok = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  CHECK(Any(max_ok).cast<int64_t>() == std::numeric_limits<int64_t>::max());
  CHECK(AnyView(max_ok).cast<uint64_t>() == max_ok);
  uint64_t too_big = max_ok + 1;
  Error err = ErrorOf([&] { Any a(too_big); });
  CHECK(err.kind() == "OverflowError");
  CHECK_THAT(err.message(), ContainsSubstring("9223372036854775808"));
  CHECK_THAT(err.message(), ContainsSubstring("is too large to fit in int64_t"));
  CHECK(ErrorOf([&] { AnyView v(too_big); }).kind() == "OverflowError");
  unsigned long long ull = std::numeric_limits<unsigned long long>::max();
  CHECK(ErrorOf([&] { Any a(ull); }).kind() == "OverflowError");
  // Smaller unsigned types always fit.
  CHECK(Any(std::numeric_limits<uint32_t>::max()).cast<int64_t>() == 4294967295LL);
  // A typed function returning a too-large value reports it to the caller.
  Function f = Function::FromTyped([](int64_t x) { return static_cast<uint64_t>(x) * 4; });
  CHECK(f(3).cast<int64_t>() == 12);
  CHECK(ErrorOf([&] { (void)f(std::numeric_limits<int64_t>::max()); }).kind() == "OverflowError");
}

TEST_CASE("bytes convert to std::string", "[upstream_behaviour]") {
  std::string raw("a\0b", 3);
  Any small = Bytes(raw);
  CHECK(small.cast<std::string>() == raw);
  REQUIRE(small.try_cast<std::string>().has_value());
  CHECK(*small.try_cast<std::string>() == raw);
  std::string long_raw = "bytes long enough for a heap object \xff\xfe";
  Any big = Bytes(long_raw);
  CHECK(big.type_index() == TypeIndex::kTVMFFIBytes);
  CHECK(big.cast<std::string>() == long_raw);
  // A borrowed byte array too, e.g. as a typed function argument.
  TVMFFIByteArray view{long_raw.data(), long_raw.size()};
  Function size_of =
      Function::FromTyped([](std::string s) { return static_cast<int64_t>(s.size()); });
  CHECK(size_of(Bytes(long_raw)).cast<int64_t>() == static_cast<int64_t>(long_raw.size()));
  CHECK(size_of(&view).cast<int64_t>() == static_cast<int64_t>(long_raw.size()));
  // Strings still convert; other types still do not.
  CHECK(Any(String("text")).cast<std::string>() == "text");
  CHECK_FALSE(Any(3).try_cast<std::string>().has_value());
}

TEST_CASE("an Optional holding an empty Optional is empty", "[upstream_behaviour]") {
  Optional<Optional<int>> none;
  CHECK_FALSE(none.has_value());
  Optional<Optional<int>> collapsed = Optional<int>(std::nullopt);
  CHECK_FALSE(collapsed.has_value());
  Optional<Optional<int>> nested = Optional<int>(7);
  REQUIRE(nested.has_value());
  CHECK(nested.value().value() == 7);
  nested = Optional<int>(std::nullopt);
  CHECK_FALSE(nested.has_value());
  Optional<Optional<String>> s = Optional<String>(std::nullopt);
  CHECK_FALSE(s.has_value());
  Optional<Optional<Function>> fn = Optional<Function>(std::nullopt);
  CHECK_FALSE(fn.has_value());
  Optional<Optional<int>> from_std = std::optional<Optional<int>>(Optional<int>());
  CHECK_FALSE(from_std.has_value());
  // Consistent with the round trip through Any, where both are None.
  Any any = Optional<Optional<int>>(Optional<int>(5));
  CHECK(any.cast<Optional<Optional<int>>>().value().value() == 5);
  CHECK_FALSE(Any().cast<Optional<Optional<int>>>().has_value());
}

TEST_CASE("GetDataSize packs every sub-byte type", "[upstream_behaviour]") {
  DLDataType u1{kDLUInt, 1, 1};
  CHECK(GetDataSize(8, u1) == 1);
  CHECK(GetDataSize(9, u1) == 2);
  CHECK(GetDataSize(0, u1) == 0);
  CHECK(GetDataSize(3, DLDataType{kDLInt, 4, 1}) == 2);
  CHECK(GetDataSize(4, DLDataType{kDLFloat, 4, 2}) == 4);
  CHECK(GetDataSize(5, dl_float32) == 20);
  CHECK(GetDataSize(2, DLDataType{kDLFloat, 32, 4}) == 32);
  int64_t shape[] = {2, 4};
  DLTensor t{};
  t.ndim = 2;
  t.shape = shape;
  t.dtype = u1;
  CHECK(GetDataSize(t) == 1);
}

TEST_CASE("ffi.FunctionListGlobalNamesFunctor as upstream's Python uses it",
          "[upstream_behaviour]") {
  Function::SetGlobal("testing.upstream_behaviour.listed", Function::FromTyped([]() { return 1; }),
                      true);
  Function functor =
      Function::GetGlobalRequired("ffi.FunctionListGlobalNamesFunctor")().cast<Function>();
  int64_t n = functor(-1).cast<int64_t>();
  REQUIRE(n > 0);
  std::vector<std::string> names;
  for (int64_t i = 0; i < n; ++i) names.push_back(functor(i).cast<std::string>());
  CHECK(std::find(names.begin(), names.end(), "testing.upstream_behaviour.listed") != names.end());
  CHECK(std::find(names.begin(), names.end(), "ffi.FunctionListGlobalNamesFunctor") != names.end());
  CHECK(ErrorOf([&] { (void)functor(n); }).kind() == "IndexError");
  std::vector<String> listed = Function::ListGlobalNames();
  CHECK(static_cast<int64_t>(listed.size()) >= n);
}

// A class whose first base is not Object: that base (here with a vtable)
// comes first, so its members lie before the Object header and are reflected
// at a negative offset from it, as upstream's registry computes and accepts.
struct LeadingBuilder {
  virtual ~LeadingBuilder() = default;
  int64_t depth = 0;
};

class LeadingBaseObj : public LeadingBuilder, public Object {
 public:
  int64_t count = 0;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_behaviour.LeadingBase", LeadingBaseObj, Object);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  reflection::ObjectDef<LeadingBaseObj>()
      .def_ro("depth", &LeadingBaseObj::depth)
      .def_ro("count", &LeadingBaseObj::count);
}

TEST_CASE("a member before the Object header is reflected at a negative offset",
          "[upstream_behaviour]") {
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(LeadingBaseObj::RuntimeTypeIndex());
  REQUIRE(info != nullptr);
  REQUIRE(info->num_fields == 2);
  const TVMFFIFieldInfo& depth = info->fields[0];
  const TVMFFIFieldInfo& count = info->fields[1];
  CHECK(depth.offset < 0);
  CHECK(count.offset > 0);
  auto obj = make_object<LeadingBaseObj>();
  obj->depth = 41;
  obj->count = 7;
  // The getters read each member at header + offset, on both sides of it.
  char* header = reinterpret_cast<char*>(static_cast<Object*>(obj.get()));
  for (auto [field, want] : {std::pair{&depth, 41}, std::pair{&count, 7}}) {
    TVMFFIAny out{};
    REQUIRE(field->getter(header + field->offset, &out) == 0);
    CHECK(out.type_index == kTVMFFIInt);
    CHECK(out.v_int64 == want);
  }
  CHECK(header + depth.offset == reinterpret_cast<char*>(&obj->depth));
  // reflection::FieldGetter, by name and by field, on the ObjectRef.
  ObjectRef ref(obj);
  reflection::FieldGetter get_depth("test_upstream_behaviour.LeadingBase", "depth");
  CHECK(get_depth(ref).cast<int64_t>() == 41);
  CHECK(reflection::FieldGetter(&count)(ref).cast<int64_t>() == 7);
}

}  // namespace

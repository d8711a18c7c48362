// Upstream 0.1.15 names that its testing library (src/ffi/testing) uses:
// typed attribute keys (reflection::AttrKey and the tvm::ffi::type_attr hook
// keys), the Pattern / Simple names of the def-region field flags,
// AnyView::as_or_throw, and `os << std::endl` next to dataclass.h. The
// headers upstream 0.1.15 added or renamed: endian.h, extra/base.h,
// extra/base64.h, extra/dtype.h, *_detail.h (the 0.1.14 *_details.h still work).
#include <tvm/ffi/any.h>
#include <tvm/ffi/base_detail.h>
#include <tvm/ffi/base_details.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/container/container_detail.h>
#include <tvm/ffi/container/container_details.h>
#include <tvm/ffi/dtype.h>
#include <tvm/ffi/endian.h>
#include <tvm/ffi/enum.h>
#include <tvm/ffi/extra/base.h>
#include <tvm/ffi/extra/base64.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/dtype.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/function_detail.h>
#include <tvm/ffi/function_details.h>
#include <tvm/ffi/reflection/accessor.h>
#include <tvm/ffi/reflection/enum_def.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <catch2/catch_test_macros.hpp>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "containers_test_util.h"

namespace {

using namespace tvm::ffi;
namespace refl = tvm::ffi::reflection;

constexpr refl::AttrKey<int64_t> kWeight{"test_upstream_names.weight"};
constexpr refl::AttrKey<String> kUnsetColumn{"test_upstream_names.unset"};

class WeightedObj : public Object {
 public:
  int64_t key = 0;
  int64_t pattern = 0;
  int64_t simple = 0;
  String label;
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_names.Weighted", WeightedObj, Object);
};

class PlainObj : public Object {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_names.Plain", PlainObj, Object);
};

class ShadeObj : public EnumObj {
 public:
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test_upstream_names.Shade", ShadeObj, EnumObj);
};

TVM_FFI_STATIC_INIT_BLOCK() {
  refl::ObjectDef<WeightedObj>()
      .def_ro("key", &WeightedObj::key)
      .def_ro("pattern", &WeightedObj::pattern, refl::AttachFieldFlag::SEqHashDefPattern())
      .def_ro("simple", &WeightedObj::simple, refl::AttachFieldFlag::SEqHashDefSimple())
      .def_ro("label", &WeightedObj::label);
  // A double converts to the key's declared type (int64_t) before it is stored.
  refl::TypeAttrDef<WeightedObj>().attr(kWeight, 7.0);
  refl::TypeAttrDef<PlainObj>().attr("test_upstream_names.weight", String("not an int"));
  // The typed hash hook: only `key` counts.
  refl::TypeAttrDef<WeightedObj>().attr(
      type_attr::kHash, [](const Object* self, const TypedFunction<int64_t(AnyView)>& hash) {
        return hash(static_cast<const WeightedObj*>(self)->key);
      });
  refl::EnsureTypeAttrColumn(kUnsetColumn);
  refl::ObjectDef<ShadeObj>(refl::init(false));
  refl::EnumDef<ShadeObj>("Dark").set_attr(kWeight, 3.0);
}

const TVMFFIFieldInfo& FieldOf(const TVMFFITypeInfo* info, std::string_view name) {
  for (int32_t i = 0; i < info->num_fields; ++i) {
    if (std::string_view(info->fields[i].name.data, info->fields[i].name.size) == name) {
      return info->fields[i];
    }
  }
  FAIL("no field " << name);
  return info->fields[0];
}

ObjectRef MakeWeighted(int64_t key, String label) {
  auto n = make_object<WeightedObj>();
  n->key = key;
  n->label = std::move(label);
  return ObjectRef(n);
}

TEST_CASE("AttrKey stores and reads a type attribute of its declared type", "[upstream_names]") {
  refl::TypeAttrColumn column(kWeight);
  std::optional<int64_t> weight = kWeight.ValueFrom(column[WeightedObj::RuntimeTypeIndex()]);
  REQUIRE(weight.has_value());
  CHECK(*weight == 7);
  CHECK(column[WeightedObj::RuntimeTypeIndex()].type_index() == kTVMFFIInt);
  // A type without the attribute reads as no value.
  CHECK_FALSE(kWeight.ValueFrom(column[ShadeObj::RuntimeTypeIndex()]).has_value());
  // A value of another type is a TypeError: ValueFrom converts nothing.
  AnyView wrong = column[PlainObj::RuntimeTypeIndex()];
  CHECK(containers_test::ErrorOf([&] { (void)kWeight.ValueFrom(wrong); }).first == "TypeError");
}

TEST_CASE("EnsureTypeAttrColumn(AttrKey) creates an empty column", "[upstream_names]") {
  refl::TypeAttrColumn column(kUnsetColumn);
  CHECK_FALSE(kUnsetColumn.ValueFrom(column[WeightedObj::RuntimeTypeIndex()]).has_value());
  CHECK(containers_test::ErrorOf([] { refl::TypeAttrColumn("test_upstream_names.never"); }).first ==
        "RuntimeError");
}

TEST_CASE("EnumDef::set_attr takes an AttrKey", "[upstream_names]") {
  EnumState state = refl::TypeAttrColumn(refl::type_attr::kEnumState)[ShadeObj::RuntimeTypeIndex()]
                        .cast<EnumState>();
  Any value = state->attrs.at(kWeight.name).at(EnumObj::_GetByStrIndex<ShadeObj>("Dark"));
  CHECK(value.type_index() == kTVMFFIInt);
  CHECK(value.cast<int64_t>() == 3);
}

TEST_CASE("type_attr::kHash registers a typed hash hook", "[upstream_names]") {
  CHECK(std::string_view(type_attr::kHash.name) == "__ffi_hash__");
  CHECK(std::string_view(type_attr::kEq.name) == "__ffi_eq__");
  CHECK(std::string_view(type_attr::kCompare.name) == "__ffi_compare__");
  CHECK(std::string_view(type_attr::kRepr.name) == "__ffi_repr__");
  // The hook ignores `label`: equal keys hash alike, other keys (almost surely) not.
  CHECK(RecursiveHash(MakeWeighted(1, "a")) == RecursiveHash(MakeWeighted(1, "b")));
  CHECK(RecursiveHash(MakeWeighted(1, "a")) != RecursiveHash(MakeWeighted(2, "a")));
}

TEST_CASE("SEqHashDefPattern / SEqHashDefSimple set the def-region bits", "[upstream_names]") {
  static_assert(kTVMFFIFieldFlagBitMaskSEqHashDefPattern ==
                kTVMFFIFieldFlagBitMaskSEqHashDefRecursive);
  static_assert(kTVMFFIFieldFlagBitMaskSEqHashDefSimple ==
                kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive);
  static_assert(kTVMFFIDefRegionKindPattern == kTVMFFIDefRegionKindRecursive);
  static_assert(kTVMFFIDefRegionKindSimple == kTVMFFIDefRegionKindNonRecursive);
  const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(WeightedObj::RuntimeTypeIndex());
  int32_t both = kTVMFFIFieldFlagBitMaskSEqHashDefPattern | kTVMFFIFieldFlagBitMaskSEqHashDefSimple;
  CHECK((FieldOf(info, "pattern").flags & both) == kTVMFFIFieldFlagBitMaskSEqHashDefPattern);
  CHECK((FieldOf(info, "simple").flags & both) == kTVMFFIFieldFlagBitMaskSEqHashDefSimple);
  CHECK((FieldOf(info, "key").flags & both) == 0);
}

TEST_CASE("AnyView::as_or_throw gives the stored type or a TypeError", "[upstream_names]") {
  ObjectRef obj = MakeWeighted(5, "x");
  AnyView view(obj);
  CHECK(view.as_or_throw<const WeightedObj*>()->key == 5);
  CHECK(AnyView(int64_t{4}).as_or_throw<int64_t>() == 4);
  // No conversion: an int is not a float here, nor an object of another type.
  CHECK(containers_test::ErrorOf([] { (void)AnyView(int64_t{4}).as_or_throw<double>(); }).first ==
        "TypeError");
  CHECK(containers_test::ErrorOf([&] { (void)view.as_or_throw<const PlainObj*>(); }).first ==
        "TypeError");
}

TEST_CASE("os << std::endl compiles and works next to dataclass.h", "[upstream_names]") {
  std::ostringstream os;
  os << "a" << std::endl;
  CHECK(os.str() == "a\n");
}

// ---- the headers upstream 0.1.15 added ------------------------------------

#ifndef TVM_FFI_EXTRA_CXX_API
#error "extra/base.h defines TVM_FFI_EXTRA_CXX_API"
#endif
}  // namespace

// A function declared the way upstream declares the extra API's exports.
TVM_FFI_EXTRA_CXX_API int64_t TestUpstreamNamesExtraApi(int64_t x);
TVM_FFI_EXTRA_CXX_API int64_t TestUpstreamNamesExtraApi(int64_t x) {
  return x + 1;
}

namespace {

TEST_CASE("extra/base.h: TVM_FFI_EXTRA_CXX_API declares an exported function", "[upstream_names]") {
  CHECK(TestUpstreamNamesExtraApi(1) == 2);
}

Bytes BytesOf(std::string_view text) {
  return Bytes(text.data(), text.size());
}

TEST_CASE("Base64Encode / Base64Decode: RFC 4648's vectors", "[upstream_names]") {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CAPTURE(plain);
    CHECK(Base64Encode(BytesOf(plain)) == encoded);
    CHECK(Base64Encode(TVMFFIByteArray{plain, std::strlen(plain)}) == encoded);
    Bytes back = Base64Decode(String(encoded));
    CHECK(std::string_view(back.data(), back.size()) == plain);
    TVMFFIByteArray text{encoded, std::strlen(encoded)};
    Bytes back2 = Base64Decode(text);
    CHECK(std::string_view(back2.data(), back2.size()) == plain);
  }
  // Both ends of the alphabet, and bytes that are not text (NUL, 0xff).
  CHECK(Base64Encode(BytesOf(std::string_view("\x00\xff", 2))) == "AP8=");
  CHECK(Base64Encode(BytesOf("\xfb\xff\xbf")) == "+/+/");
}

TEST_CASE("Base64 round-trips every byte value at every length mod 3", "[upstream_names]") {
  for (size_t len = 0; len <= 300; ++len) {
    CAPTURE(len);
    std::string plain;
    for (size_t k = 0; k < len; ++k) plain.push_back(static_cast<char>((k * 37 + len) & 0xffu));
    String text = Base64Encode(BytesOf(plain));
    REQUIRE(text.size() == (len + 2) / 3 * 4);
    Bytes back = Base64Decode(text);
    REQUIRE(std::string_view(back.data(), back.size()) == plain);
  }
}

TEST_CASE("Base64Decode refuses what is not base64 with a ValueError", "[upstream_names]") {
  const char* bad[] = {
      "Zg=",       // length not a multiple of 4
      "Zm9",       // likewise
      "Zm9v!A==",  // a character outside the alphabet
      "Zm 9",      // whitespace is not skipped
      "Z===",      // three '='
      "====",      // nothing but padding
      "Zg=a",      // '=' before the last place
      "Zg==Zm9v",  // padding in the middle of the text
  };
  for (const char* text : bad) {
    CAPTURE(text);
    CHECK(containers_test::ErrorOf([&] { (void)Base64Decode(String(text)); }).first ==
          "ValueError");
  }
  std::string nul("Zm\0v", 4);  // a NUL inside the text is a bad character, not its end
  CHECK(containers_test::ErrorOf([&] { (void)Base64Decode(String(nul)); }).first == "ValueError");
}

TEST_CASE("endian.h: the host's byte order and ByteSwap", "[upstream_names]") {
  const uint32_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  CHECK(TVM_FFI_LITTLE_ENDIAN == (first == 1 ? 1 : 0));
  CHECK(TVM_FFI_IO_USE_LITTLE_ENDIAN == 1);
  CHECK(TVM_FFI_IO_NO_ENDIAN_SWAP == TVM_FFI_LITTLE_ENDIAN);

  uint16_t h[] = {0x0102, 0xa0b0};
  ByteSwap(h, sizeof(uint16_t), 2);
  CHECK(h[0] == 0x0201);
  CHECK(h[1] == 0xb0a0);
  uint32_t w[] = {0x01020304u, 0xdeadbeefu, 0u};
  ByteSwap(w, sizeof(uint32_t), 2);  // the third is not touched
  CHECK(w[0] == 0x04030201u);
  CHECK(w[1] == 0xefbeaddeu);
  uint64_t d[] = {0x0102030405060708ull};
  ByteSwap(d, sizeof(uint64_t), 1);
  CHECK(d[0] == 0x0807060504030201ull);
  ByteSwap(d, sizeof(uint64_t), 1);  // twice is the identity
  CHECK(d[0] == 0x0102030405060708ull);
  // An odd size keeps its middle byte; size 1 and zero elements change nothing.
  unsigned char odd[] = {1, 2, 3, 4, 5, 6};
  ByteSwap(odd, 3, 2);
  CHECK(std::vector<int>(odd, odd + 6) == std::vector<int>{3, 2, 1, 6, 5, 4});
  ByteSwap(odd, 1, 6);
  ByteSwap(odd, 6, 0);
  CHECK(std::vector<int>(odd, odd + 6) == std::vector<int>{3, 2, 1, 6, 5, 4});
  // A little-endian file's uint32 read on this host.
  const unsigned char file[] = {0x78, 0x56, 0x34, 0x12};
  uint32_t value = 0;
  std::memcpy(&value, file, 4);
  if (!TVM_FFI_IO_NO_ENDIAN_SWAP) ByteSwap(&value, sizeof(value), 1);
  CHECK(value == 0x12345678u);
}

template <typename T, typename = void>
struct HasDtypeTrait : std::false_type {};
template <typename T>
struct HasDtypeTrait<T, std::void_t<decltype(dtype_trait<T>::value)>> : std::true_type {};

constexpr bool SameDtype(DLDataType a, DLDataType b) {
  return a.code == b.code && a.bits == b.bits && a.lanes == b.lanes;
}

TEST_CASE("extra/dtype.h: dtype_trait<T>::value", "[upstream_names]") {
  static_assert(SameDtype(dtype_trait<int8_t>::value, DLDataType{kDLInt, 8, 1}));
  static_assert(SameDtype(dtype_trait<uint8_t>::value, DLDataType{kDLUInt, 8, 1}));
  static_assert(SameDtype(dtype_trait<int16_t>::value, DLDataType{kDLInt, 16, 1}));
  static_assert(SameDtype(dtype_trait<uint32_t>::value, DLDataType{kDLUInt, 32, 1}));
  static_assert(SameDtype(dtype_trait<int64_t>::value, DLDataType{kDLInt, 64, 1}));
  static_assert(SameDtype(dtype_trait<long long>::value, DLDataType{kDLInt, 64, 1}));
  static_assert(SameDtype(dtype_trait<unsigned long>::value,
                          DLDataType{kDLUInt, static_cast<uint8_t>(sizeof(long) * 8), 1}));
  static_assert(SameDtype(dtype_trait<bool>::value, DLDataType{kDLBool, 8, 1}));
  static_assert(SameDtype(dtype_trait<__half>::value, DLDataType{kDLFloat, 16, 1}));
  static_assert(SameDtype(dtype_trait<__nv_bfloat16>::value, DLDataType{kDLBfloat, 16, 1}));
  static_assert(SameDtype(dtype_trait<__nv_fp4x2_e2m1>::value, DLDataType{kDLFloat4_e2m1fn, 4, 2}));
  static_assert(
      SameDtype(dtype_trait<__hip_fp8_e5m2_fnuz>::value, DLDataType{kDLFloat8_e5m2fnuz, 8, 1}));
  // The integer and float helpers under upstream's name for the namespace.
  static_assert(SameDtype(detail::dtypes::integer_trait<int>::value, DLDataType{kDLInt, 32, 1}));
  static_assert(SameDtype(detail::dtypes::float_trait<double>::value, DLDataType{kDLFloat, 64, 1}));
  // No value for a type that has no dtype: a kernel's check does not compile.
  static_assert(!HasDtypeTrait<char16_t>::value);
  static_assert(!HasDtypeTrait<std::string>::value);
  static_assert(HasDtypeTrait<float>::value);
  // The names agree with the runtime's parser.
  const std::pair<DLDataType, const char*> named[] = {
      {dtype_trait<float>::value, "float32"},
      {dtype_trait<double>::value, "float64"},
      {dtype_trait<uint16_t>::value, "uint16"},
      {dtype_trait<bool>::value, "bool"},
      {dtype_trait<__nv_fp8_e4m3>::value, "float8_e4m3fn"},
      {dtype_trait<__nv_fp8_e8m0>::value, "float8_e8m0fnu"},
      {dtype_trait<__hip_fp4_e2m1>::value, "float4_e2m1fn"}};
  for (const auto& [dtype, name] : named) {
    CAPTURE(name);
    CHECK(SameDtype(dtype, StringToDLDataType(name)));
  }
}

TEST_CASE("*_detail.h: upstream 0.1.15's names of the *_details.h headers", "[upstream_names]") {
  // One namespace under both names; both header names give the same declarations.
  static_assert(std::is_same_v<detail::FunctionInfo<int(double)>::RetType,
                               detail::FunctionInfo<int(double)>::RetType>);
  static_assert(std::is_same_v<detail::FunctionInfo<int(double)>::RetType, int>);
  CHECK(detail::FunctionInfo<int64_t(int64_t, String)>::num_args == 2);
  // reflection has its own, likewise under both names.
  CHECK(&refl::detail::ByteArrayEquals == &refl::detail::ByteArrayEquals);
}

}  // namespace

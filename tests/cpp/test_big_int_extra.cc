// BigInt in the runtime's value machinery: structural equality and hashing,
// the recursive comparisons, DeepCopy, ReprPrint and the JSON object graph
// treat an ffi.BigInt as a number, never by object identity.
#include <tvm/ffi/any.h>
#include <tvm/ffi/big_int.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>
#include <tvm/ffi/extra/structural_equal.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/structural_mutate.h>

#include <catch2/catch_test_macros.hpp>

#include <limits>
#include <string>

namespace {

using namespace tvm::ffi;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

TEST_CASE("BigInt extras: structural and recursive equality by value", "[big_int]") {
  BigInt a = BigInt(3) << 100;
  BigInt b = BigInt(6) << 99;  // the same number, another object
  REQUIRE_FALSE(Any(a).same_as(Any(b)));
  CHECK(StructuralEqual()(a, b));
  CHECK(StructuralHash()(a) == StructuralHash()(b));
  CHECK_FALSE(StructuralEqual()(a, a + 1));
  CHECK(StructuralHash()(Array<Any>{a, 1}) == StructuralHash()(Array<Any>{b, 1}));
  Map<Any, Any> ma{{a, 1}, {-a, 2}}, mb{{-b, 2}, {b, 1}};
  CHECK(StructuralEqual()(ma, mb));
  CHECK(StructuralHash()(ma) == StructuralHash()(mb));
  CHECK(RecursiveEq(a, b));
  CHECK(RecursiveHash(a) == RecursiveHash(b));
  CHECK(RecursiveLt(-a, a));
  CHECK(RecursiveLt(BigInt(kMax), BigInt(kMax) + 1));  // int below BigInt
  CHECK(RecursiveGt(BigInt(kMax) + 1, 5));
  CHECK(RecursiveLt(-(BigInt(kMax) + 2), -7));
  CHECK_THROWS_AS(RecursiveLt(a, 1.5), Error);
  CHECK(DeepCopy(a).same_as(Any(a)));
  CHECK(std::string(ReprPrint(-a)) == "-3802951800684688204490109616128");
}

TEST_CASE("BigInt extras: an immutable leaf of structural mutation", "[big_int]") {
  // BigInt has no copy (so no __ffi_shallow_copy__): the runtime's leaf hook
  // keeps it, in both modes, alone or inside a container that does change.
  BigInt value = BigInt(1) << 200;
  auto plus_one = [](int64_t x) -> Expected<Any> { return Any(x + 1); };
  CHECK(StructuralMap<WalkOrder::kPostOrder>(Any(value), plus_one).same_as(Any(value)));
  CHECK(StructuralMap<WalkOrder::kPreOrder>(Any(value), plus_one).same_as(Any(value)));
  Array<Any> nested{value, 1};
  Array<Any> mapped = StructuralMap<WalkOrder::kPostOrder>(nested, plus_one).cast<Array<Any>>();
  CHECK(mapped[0].same_as(Any(value)));
  CHECK(mapped[1].cast<int64_t>() == 2);
  // Handed over (unique, so in place allowed): still the same object.
  Array<Any> unique{BigInt(value)};
  Array<Any> in_place =
      StructuralMap<WalkOrder::kPostOrder>(std::move(unique), plus_one).cast<Array<Any>>();
  CHECK(in_place[0].same_as(Any(value)));
}

TEST_CASE("BigInt extras: JSON object graph as decimal text", "[big_int]") {
  BigInt a = -(BigInt(1) << 70);
  json::Value graph = ToJSONGraph(a);
  CHECK(std::string(json::Stringify(graph)).find("\"-1180591620717411303424\"") !=
        std::string::npos);
  Any back = FromJSONGraph(json::Parse(json::Stringify(graph)));
  CHECK(back.type_index() == TypeIndex::kTVMFFIBigInt);
  CHECK(back.cast<BigInt>() == a);
  // A node whose number fits int64 comes back as an int (the canonical form).
  auto node = [](Any data) {
    return json::Object{
        {"root_index", 0},
        {"nodes", json::Array{json::Object{{"type", "ffi.BigInt"}, {"data", data}}}}};
  };
  Any small = FromJSONGraph(node(String("-42")));
  CHECK(small.type_index() == TypeIndex::kTVMFFIInt);
  CHECK(small.cast<int64_t>() == -42);
  for (const char* bad : {"", "-", "1e5", " 7", "7 ", "0x10"}) {
    INFO(bad);
    CHECK_THROWS_AS(FromJSONGraph(node(String(bad))), Error);
  }
  CHECK_THROWS_AS(FromJSONGraph(node(7)), Error);
}

}  // namespace

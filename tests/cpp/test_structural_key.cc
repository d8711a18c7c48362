// Tests of tvm/ffi/extra/structural_key.h: equality by structure, the stored
// hash, use as an unordered_map key, and libtvmffi's ffi.StructuralKey globals.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/extra/structural_hash.h>
#include <tvm/ffi/extra/structural_key.h>
#include <tvm/ffi/reflection/accessor.h>

#include <catch2/catch_test_macros.hpp>

#include <unordered_map>

namespace {

using namespace tvm::ffi;

TEST_CASE("Keys compare by structure and carry the structural hash", "[structural_key]") {
  StructuralKey k1(Array<int64_t>{1, 2, 3});
  StructuralKey k2(Array<int64_t>{1, 2, 3});
  StructuralKey k3(Array<int64_t>{1, 2, 4});
  CHECK(!k1.same_as(k2));
  CHECK(k1->hash_i64 == static_cast<int64_t>(StructuralHash::Hash(k1->key)));
  CHECK(k1 == k2);
  CHECK(!(k1 != k2));
  CHECK(k1 != k3);
  CHECK(std::hash<StructuralKey>()(k1) == std::hash<StructuralKey>()(k2));
  CHECK(std::hash<StructuralKey>()(k1) != std::hash<StructuralKey>()(k3));
  CHECK(StructuralKeyObj().hash_i64 == 0);
}

TEST_CASE("Keys index an unordered_map by structure", "[structural_key]") {
  std::unordered_map<StructuralKey, int> map;
  map.emplace(StructuralKey(Array<int64_t>{1, 2}), 10);
  map[StructuralKey(Array<int64_t>{1, 2})] = 20;
  map[StructuralKey(Array<int64_t>{2, 1})] = 30;
  CHECK(map.size() == 2);
  CHECK(map.at(StructuralKey(Array<int64_t>{1, 2})) == 20);
}

TEST_CASE("Keys in a Map<Any, Any> compare by structure (__any_hash__ / __any_equal__)",
          "[structural_key]") {
  StructuralKey ab(Array<String>{"a", "b"}), ab_again(Array<String>{"a", "b"});
  StructuralKey ba(Array<String>{"b", "a"});
  CHECK(AnyHash()(Any(ab)) == AnyHash()(Any(ab_again)));
  CHECK(AnyEqual()(Any(ab), Any(ab_again)));
  CHECK_FALSE(AnyEqual()(Any(ab), Any(ba)));
  Map<Any, Any> seen;
  for (const StructuralKey& k : {ab, ba, ab_again}) {
    seen.Set(k, seen.count(k) ? seen.at(k).cast<int64_t>() + 1 : int64_t{1});
  }
  CHECK(seen.size() == 2);
  CHECK(seen.at(ab_again).cast<int64_t>() == 2);
  CHECK(seen.at(ba).cast<int64_t>() == 1);
}

TEST_CASE("libtvmffi registers ffi.StructuralKey and its reflection", "[structural_key]") {
  StructuralKey k =
      Function::GetGlobalRequired("ffi.StructuralKey")(Array<int64_t>{5}).cast<StructuralKey>();
  CHECK(k == StructuralKey(Array<int64_t>{5}));
  Function eq = Function::GetGlobalRequired("ffi.StructuralKeyEqual");
  CHECK(eq(k, StructuralKey(Array<int64_t>{5})).cast<bool>());
  CHECK(!eq(k, StructuralKey(Array<int64_t>{6})).cast<bool>());
  CHECK(reflection::FieldGetter("ffi.StructuralKey", "hash_i64")(k).cast<int64_t>() == k->hash_i64);
  StructuralKey made = reflection::GetMethod("ffi.StructuralKey", "__ffi_init__")(Array<int64_t>{5})
                           .cast<StructuralKey>();
  CHECK(made == k);
}

}  // namespace

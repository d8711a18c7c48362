// Dict<K, V>: the mutable map (type index 76). Lookups and errors, sharing
// (every reference sees every change, growth keeps the object), iteration
// order, erase/clear, a randomized comparison against std containers through
// both forms, reference counts, and conversions to and from Map through Any.
#include <tvm/ffi/container/dict.h>

#include <algorithm>
#include <random>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::Counter;
using containers_test::ErrorOf;

namespace {
template <typename K, typename V>
std::vector<K> KeysOf(const Dict<K, V>& d) {
  std::vector<K> keys;
  for (const auto& kv : d) keys.push_back(kv.first);
  return keys;
}
}  // namespace

TEST_CASE("Dict basic operations", "[dict]") {
  Dict<String, int64_t> d;
  CHECK(d.empty());
  d.Set("one", 1);
  d.Set("a key longer than seven bytes", 2);
  CHECK(d.size() == 2);
  CHECK(d.at("one") == 1);
  CHECK(d["a key longer than seven bytes"] == 2);
  CHECK(d.count("one") == 1);
  CHECK(d.contains("one"));
  CHECK(d.count("two") == 0);
  CHECK(d.Get("one").value() == 1);
  CHECK_FALSE(d.Get("two").has_value());
  CHECK(d.find("one") != d.end());
  CHECK((*d.find("one")).second == 1);
  CHECK(d.find("two") == d.end());
  auto [kind, message] = ErrorOf([&] { d.at("zz"); });
  CHECK(kind == "KeyError");
  CHECK(message == "key \"zz\" is not in the Dict");
  d.erase("one");
  d.erase("absent");
  CHECK(d.size() == 1);
  CHECK(d.count("one") == 0);
  d.clear();
  CHECK(d.empty());
  d.Set("again", 3);
  CHECK(d.at("again") == 3);
  CHECK(d->GetTypeKey() == std::string("ffi.Dict"));
  CHECK(d->type_index() == TypeIndex::kTVMFFIDict);
}

TEST_CASE("Dict is shared: every reference sees changes, growth keeps the object", "[dict]") {
  Dict<int64_t, int64_t> d;
  Dict<int64_t, int64_t> alias = d;
  const Object* obj = d.get();
  CHECK(d.GetDictObj()->IsSmallMap());
  for (int64_t i = 0; i < 1000; ++i) alias.Set(i, i * i);
  CHECK(d.get() == obj);  // small -> small -> dense -> bigger dense, in place
  CHECK_FALSE(d.GetDictObj()->IsSmallMap());
  CHECK(d.size() == 1000);
  for (int64_t i = 0; i < 1000; ++i) REQUIRE(d.at(i) == i * i);
  for (int64_t i = 0; i < 1000; i += 2) d.erase(i);
  CHECK(alias.size() == 500);
  CHECK(alias.count(4) == 0);
  CHECK(alias.at(5) == 25);
  alias.clear();
  CHECK(d.empty());
  d.Set(7, 8);
  CHECK(alias.at(7) == 8);
  CHECK(d.get() == obj);
}

TEST_CASE("Dict iteration order", "[dict]") {
  Dict<String, int64_t> d = {{"c", 0}, {"a", 1}, {"b", 2}};
  CHECK(KeysOf(d) == std::vector<String>{"c", "a", "b"});
  d.Set("c", 5);  // small form: keeps its place
  CHECK(KeysOf(d) == std::vector<String>{"c", "a", "b"});
  d.Set("d", 3);
  d.Set("e", 4);  // 5 entries: dense
  CHECK_FALSE(d.GetDictObj()->IsSmallMap());
  d.Set("a", 6);  // dense form: moves to the end
  CHECK(KeysOf(d) == std::vector<String>{"c", "b", "d", "e", "a"});
  auto it = d.end();
  --it;
  CHECK((*it).first == "a");
  CHECK((*it).second == 6);
}

TEST_CASE("Dict agrees with std containers under random operations", "[dict]") {
  std::mt19937_64 rng(777);
  for (int64_t key_range : {3, 6, 40, 3000}) {
    Dict<int64_t, int64_t> d;
    std::unordered_map<int64_t, int64_t> ref;
    std::vector<int64_t> order;
    for (int step = 0; step < 20000; ++step) {
      int64_t key = static_cast<int64_t>(rng() % key_range) * 1000003;
      if (rng() % 3 != 2) {
        int64_t value = static_cast<int64_t>(rng() % 1000);
        if (ref.count(key) == 0) {
          order.push_back(key);
        } else if (!d.GetDictObj()->IsSmallMap()) {
          order.erase(std::find(order.begin(), order.end(), key));
          order.push_back(key);
        }
        ref[key] = value;
        d.Set(key, value);
      } else {
        if (ref.erase(key) != 0) order.erase(std::find(order.begin(), order.end(), key));
        d.erase(key);
      }
      if (step % 1999 == 0) REQUIRE(KeysOf(d) == order);
    }
    REQUIRE(d.size() == ref.size());
    REQUIRE(KeysOf(d) == order);
    for (const auto& kv : ref) REQUIRE(d.at(kv.first) == kv.second);
  }
}

TEST_CASE("Dict releases keys and values", "[dict]") {
  int live = 0;
  {
    Counter k(&live), v(&live);
    Dict<Counter, Counter> d;
    d.Set(k, v);
    CHECK(k.use_count() == 2);
    for (int i = 0; i < 20; ++i) d.Set(Counter(&live), v);  // grows through both forms
    CHECK(live == 22);
    CHECK(v.use_count() == 22);
    d.erase(k);
    CHECK(k.use_count() == 1);
    d.clear();
    CHECK(v.use_count() == 1);
    CHECK(live == 2);
    d.Set(k, v);
  }
  CHECK(live == 0);
}

TEST_CASE("Dict converts through Any", "[dict]") {
  Dict<String, int64_t> d = {{"x", 1}, {"y", 2}};
  Any any = d;
  CHECK(any.type_index() == TypeIndex::kTVMFFIDict);
  // Same type: the same object.
  Dict<String, int64_t> back = any.cast<Dict<String, int64_t>>();
  CHECK(back.same_as(d));
  Dict<Any, Any> loose = any.cast<Dict<Any, Any>>();
  CHECK(loose.same_as(d));
  // Dict -> Map and Map -> Dict copy.
  Map<String, int64_t> as_map = any.cast<Map<String, int64_t>>();
  CHECK(as_map->type_index() == TypeIndex::kTVMFFIMap);
  CHECK(as_map.size() == 2);
  CHECK(as_map.at("y") == 2);
  d.Set("z", 3);
  CHECK(as_map.size() == 2);
  Map<String, int64_t> m = {{"p", 7}};
  Dict<String, int64_t> from_map = Any(m).cast<Dict<String, int64_t>>();
  CHECK(from_map->type_index() == TypeIndex::kTVMFFIDict);
  CHECK(from_map.at("p") == 7);
  // Entries that do not convert: a TypeError naming the entry.
  auto [kind, message] = ErrorOf([&] { any.cast<Dict<String, String>>(); });
  CHECK(kind == "TypeError");
  CHECK(message.find("Dict[K, some value is int]") != std::string::npos);
  CHECK(message.find("Dict<str, str>") != std::string::npos);
  CHECK_FALSE(Any(1).try_cast<Dict<String, int64_t>>().has_value());
  // Nested in a Map, dicts compare by content.
  Map<String, Dict<String, int64_t>> x = {{"d", Dict<String, int64_t>{{"a", 1}}}};
  Map<String, Dict<String, int64_t>> y = {{"d", Dict<String, int64_t>{{"a", 1}}}};
  CHECK(x == y);
  y.at("d").Set("a", 2);
  CHECK(x != y);
  CHECK_FALSE(Any(Array<int64_t>{1}).try_cast<Dict<Any, Any>>().has_value());
}

TEST_CASE("Dict passes through a typed function", "[dict]") {
  Function add = Function::FromTyped([](Dict<String, int64_t> d, String key) {
    d.Set(key, static_cast<int64_t>(d.size()));
    return d;
  });
  Dict<String, int64_t> d;
  Dict<String, int64_t> out = add(d, String("k")).cast<Dict<String, int64_t>>();
  CHECK(out.same_as(d));
  CHECK(d.at("k") == 0);
}

namespace {
class DictBaseTestObj : public Object {
 public:
  explicit DictBaseTestObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO("test.dict.Base", DictBaseTestObj, Object);
};
class DictDerivedTestObj : public DictBaseTestObj {
 public:
  explicit DictDerivedTestObj(int v) : DictBaseTestObj(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.dict.Derived", DictDerivedTestObj, DictBaseTestObj);
};
}  // namespace

TEST_CASE("Dict<Any, Any> shares a Dict<String, int>; wrong entries read back as TypeError",
          "[dict]") {
  Dict<String, int64_t> typed = {{"a", 1}};
  Dict<Any, Any> wide = typed;
  CHECK(wide.GetDictObj() == typed.GetDictObj());
  wide.Set(String("b"), 2);
  CHECK(typed.at("b") == 2);
  Dict<Any, Any> assigned;
  assigned = typed;
  CHECK(assigned.GetDictObj() == typed.GetDictObj());

  wide.Set(String("c"), String("three"));
  auto err = ErrorOf([&] { (void)typed.at("c"); });
  CHECK(err.first == "TypeError");
  CHECK(err.second.find("`int`") != std::string::npos);
  CHECK(ErrorOf([&] { (void)typed.Get("c"); }).first == "TypeError");
  CHECK(ErrorOf([&] {
          for (const auto& kv : typed) (void)kv;
        }).first == "TypeError");
  wide.Set(int64_t{5}, 5);  // a key that is no String
  wide.erase(String("c"));
  CHECK(ErrorOf([&] {
          for (const auto& kv : typed) (void)kv;
        }).first == "TypeError");
  CHECK(typed.at("a") == 1);

  Dict<String, ObjectPtr<DictDerivedTestObj>> derived;
  derived.Set("k", make_object<DictDerivedTestObj>(4));
  Dict<String, ObjectPtr<DictBaseTestObj>> base = std::move(derived);
  CHECK(base.at("k")->value == 4);
  STATIC_CHECK(!std::is_convertible_v<Dict<String, ObjectPtr<DictBaseTestObj>>,
                                      Dict<String, ObjectPtr<DictDerivedTestObj>>>);
  STATIC_CHECK(!std::is_convertible_v<Dict<Any, Any>, Dict<String, int64_t>>);
  STATIC_CHECK(!Dict<String, int64_t>::_type_container_is_exact);
}

TEST_CASE("ffi.Dict globals from C++", "[dict]") {
  Function make = Function::GetGlobalRequired("ffi.Dict");
  Function size = Function::GetGlobalRequired("ffi.DictSize");
  Function get = Function::GetGlobalRequired("ffi.DictGetItem");
  Function set = Function::GetGlobalRequired("ffi.DictSetItem");
  Function count = Function::GetGlobalRequired("ffi.DictCount");
  Function erase = Function::GetGlobalRequired("ffi.DictErase");
  Function clear = Function::GetGlobalRequired("ffi.DictClear");
  Function iter = Function::GetGlobalRequired("ffi.DictForwardIterFunctor");
  Function get_or_missing = Function::GetGlobalRequired("ffi.DictGetItemOrMissing");
  Any sentinel = Function::GetGlobalRequired("ffi.MapGetMissingObject")();

  Dict<Any, Any> d = make("a", 1, 2, "two").cast<Dict<Any, Any>>();
  CHECK(d->type_index() == TypeIndex::kTVMFFIDict);
  CHECK(size(d).cast<int64_t>() == 2);
  CHECK(get(d, "a").cast<int64_t>() == 1);
  CHECK(get(d, 2).cast<String>() == "two");
  CHECK(count(d, "a").cast<int64_t>() == 1);
  CHECK(count(d, "b").cast<int64_t>() == 0);
  CHECK(get_or_missing(d, "b").same_as(sentinel.cast<ObjectRef>()));

  // Every operation edits the caller's dict in place.
  Dict<Any, Any> alias = d;
  for (int64_t i = 0; i < 20; ++i) set(d, i + 100, i);  // grows past the small table
  set(d, "a", 5);
  CHECK(alias.size() == 22);
  CHECK(alias.at("a").cast<int64_t>() == 5);
  CHECK(alias.at(119).cast<int64_t>() == 19);
  erase(d, "a");
  erase(d, "not there");
  erase(d, 2);
  CHECK(alias.size() == 20);
  CHECK(!alias.count("a"));

  // The forward-iteration protocol: 0 key, 1 value, 2 advance.
  Function step = iter(d).cast<Function>();
  int64_t n = 0;
  do {
    Any key = step(0);
    CHECK(get(d, key).cast<int64_t>() == step(1).cast<int64_t>());
    ++n;
  } while (step(2).cast<bool>());
  CHECK(n == 20);
  auto [kind, message] = ErrorOf([&] { step(0); });
  CHECK(kind == "IndexError");

  Function step2 = iter(d).cast<Function>();
  set(d, "new", 1);
  std::tie(kind, message) = ErrorOf([&] { step2(0); });
  CHECK(kind == "RuntimeError");

  clear(d);
  CHECK(alias.empty());
  std::tie(kind, message) = ErrorOf([&] { get(d, "a"); });
  CHECK(kind == "KeyError");
  std::tie(kind, message) = ErrorOf([&] { make("a"); });
  CHECK(kind == "ValueError");
  CHECK(message ==
        "ffi.Dict expects key, value pairs (an even number of arguments), got 1 arguments");
  std::tie(kind, message) = ErrorOf([&] { set(Map<Any, Any>(), "a", 1); });
  CHECK(kind == "TypeError");
}

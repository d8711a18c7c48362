// Map<K, V>: lookups and errors, key equality (strings by content, ints by
// value, objects by identity), insertion-ordered iteration, copy-on-write,
// 100k entries, a randomized comparison against std containers, casts with
// entry checks, typed-function round trips, the ffi.Map* globals, and growth
// (references, colliding keys, tables laid out by another binary).
#include <tvm/ffi/reflection/registry.h>

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::Counter;
using containers_test::ErrorOf;

namespace {

template <typename K, typename V>
std::vector<K> KeysOf(const Map<K, V>& m) {
  std::vector<K> keys;
  for (const auto& kv : m) keys.push_back(kv.first);
  return keys;
}

/*! \brief A String object (type index 65) even for a short text, as another binary might make. */
Any HeapString(const char* text) {
  ObjectPtr<detail::StringObj> obj = make_object<detail::StringObj>();
  obj->data = text;
  obj->size = std::char_traits<char>::length(text);
  return Any(ObjectRef(ObjectPtr<Object>(std::move(obj))));
}

}  // namespace

TEST_CASE("Map basic operations", "[map]") {
  Map<String, int64_t> m;
  CHECK(m.empty());
  m.Set("one", 1);
  m.Set("two", 2);
  m.Set("a key longer than seven bytes", 3);
  CHECK(m.size() == 3);
  CHECK_FALSE(m.empty());
  CHECK(m.at("one") == 1);
  CHECK(m["two"] == 2);
  CHECK(m.at("a key longer than seven bytes") == 3);
  CHECK(m.count("two") == 1);
  CHECK(m.count("three") == 0);
  CHECK(m.Get("two").value() == 2);
  CHECK_FALSE(m.Get("three").has_value());
  CHECK(m.find("one") != m.end());
  CHECK((*m.find("one")).second == 1);
  CHECK(m.find("zzz") == m.end());

  m.Set("two", 22);  // assignment keeps the size
  CHECK(m.size() == 3);
  CHECK(m.at("two") == 22);
  m.erase("two");
  CHECK(m.size() == 2);
  CHECK(m.count("two") == 0);
  m.erase("not there");  // no-op
  CHECK(m.size() == 2);
  m.clear();
  CHECK(m.empty());
  CHECK(m.begin() == m.end());

  Map<String, int64_t> init = {{"x", 1}, {"y", 2}, {"x", 3}};
  CHECK(init.size() == 2);
  CHECK(init.at("x") == 3);                              // a repeated key keeps the last value...
  CHECK(KeysOf(init) == std::vector<String>{"x", "y"});  // ...and its first place
}

TEST_CASE("Map::at raises KeyError naming the key", "[map]") {
  Map<String, int64_t> m = {{"a", 1}};
  auto [kind, message] = ErrorOf([&] { (void)m.at("zz"); });
  CHECK(kind == "KeyError");
  CHECK(message == "key \"zz\" is not in the Map");
  Map<int64_t, String> ints = {{1, "one"}};
  std::tie(kind, message) = ErrorOf([&] { (void)ints.at(42); });
  CHECK(kind == "KeyError");
  CHECK(message == "key 42 is not in the Map");
  std::tie(kind, message) = ErrorOf([&] { (void)ints[-7]; });
  CHECK(message == "key -7 is not in the Map");
  Map<Any, Any> anys;
  std::tie(kind, message) = ErrorOf([&] { (void)anys.at(Bytes("b\x01", 2)); });
  CHECK(message == "key b\"b\x01\" is not in the Map");
}

TEST_CASE("Map key equality", "[map]") {
  Map<Any, int64_t> m;
  // Strings by content: small and heap forms of the same text are one key.
  m.Set(String("abc"), 1);
  Any heap_abc = HeapString("abc");
  REQUIRE(heap_abc.type_index() == kTVMFFIStr);
  CHECK(m.count(heap_abc) == 1);
  CHECK(m.at(heap_abc) == 1);
  m.Set(heap_abc, 2);
  CHECK(m.size() == 1);
  CHECK(m.at(String("abc")) == 2);
  // Long strings: two separate objects, same text.
  m.Set(String("a long string key number one"), 3);
  CHECK(m.at(String(std::string("a long string key ") + "number one")) == 3);
  // str and bytes with the same bytes are different keys.
  m.Set(Bytes("abc", 3), 4);
  CHECK(m.size() == 3);
  CHECK(m.at(String("abc")) == 2);
  CHECK(m.at(Bytes("abc", 3)) == 4);
  // Ints by value; bool, int and float are distinct key types.
  m.Set(int64_t{1}, 10);
  m.Set(true, 11);
  m.Set(1.0, 12);
  CHECK(m.at(int64_t{1}) == 10);
  CHECK(m.at(true) == 11);
  CHECK(m.at(1.0) == 12);
  CHECK(m.at(int32_t{1}) == 10);  // any integer type is an Int key
  // Objects by identity.
  Array<int64_t> k1 = {1, 2};
  Array<int64_t> k2 = {1, 2};
  m.Set(k1, 20);
  CHECK(m.count(k1) == 1);
  CHECK(m.count(k2) == 0);
  m.Set(k2, 21);
  CHECK(m.at(k1) == 20);
  CHECK(m.at(k2) == 21);
  // None is a key too; so are DataType and Device values.
  m.Set(nullptr, 30);
  m.Set(DLDataType{kDLFloat, 32, 1}, 31);
  m.Set(DLDevice{kDLCUDA, 1}, 32);
  CHECK(m.at(nullptr) == 30);
  CHECK(m.at(DLDataType{kDLFloat, 32, 1}) == 31);
  CHECK(m.count(DLDataType{kDLFloat, 16, 1}) == 0);
  CHECK(m.at(DLDevice{kDLCUDA, 1}) == 32);
  CHECK(m.count(DLDevice{kDLCUDA, 0}) == 0);
}

TEST_CASE("Map iterates in insertion order", "[map]") {
  Map<String, int64_t> m;
  for (const char* k : {"delta", "alpha", "charlie", "bravo"}) m.Set(k, 0);
  CHECK(KeysOf(m) == std::vector<String>{"delta", "alpha", "charlie", "bravo"});
  m.Set("alpha", 5);  // assignment keeps the place
  CHECK(KeysOf(m) == std::vector<String>{"delta", "alpha", "charlie", "bravo"});
  m.erase("alpha");
  m.Set("alpha", 6);  // erase + set moves to the end
  CHECK(KeysOf(m) == std::vector<String>{"delta", "charlie", "bravo", "alpha"});
  // Iterators are bidirectional.
  auto it = m.end();
  --it;
  CHECK((*it).first == "alpha");
  CHECK((*it).second == 6);
  // Past 4 entries the map is dense: there, assigning a present key moves it
  // to the end (the standard layout's rule; the small form keeps its place).
  CHECK(m.GetMapObj()->IsSmallMap());
  m.Set("echo", 7);
  CHECK_FALSE(m.GetMapObj()->IsSmallMap());
  CHECK(KeysOf(m) == std::vector<String>{"delta", "charlie", "bravo", "alpha", "echo"});
  m.Set("charlie", 8);
  CHECK(KeysOf(m) == std::vector<String>{"delta", "bravo", "alpha", "echo", "charlie"});
  CHECK(m.at("charlie") == 8);
  auto last = m.end();
  --last;
  CHECK((*last).first == "charlie");
  --last;
  CHECK((*last).first == "echo");
}

TEST_CASE("Map copy-on-write", "[map]") {
  Map<String, int64_t> a = {{"x", 1}, {"y", 2}};
  Map<String, int64_t> b = a;
  CHECK(a.same_as(b));
  b.Set("z", 3);
  CHECK_FALSE(a.same_as(b));
  CHECK(a.size() == 2);
  CHECK(a.count("z") == 0);
  CHECK(b.size() == 3);

  Map<String, int64_t> c = a;
  c.erase("x");
  CHECK(a.count("x") == 1);
  CHECK(c.count("x") == 0);
  Map<String, int64_t> d = a;
  d.erase("absent");  // nothing to erase: no copy
  CHECK(d.same_as(a));
  Map<String, int64_t> e = a;
  e.clear();
  CHECK(a.size() == 2);
  CHECK(e.empty());

  // Unique: in place (no growth needed for an existing key or an erase).
  const Object* before = b.get();
  b.Set("x", 100);
  b.erase("y");
  CHECK(b.get() == before);
  CHECK(b.at("x") == 100);
}

TEST_CASE("Map releases keys and values", "[map]") {
  int live = 0;
  {
    Counter k(&live), v(&live);
    {
      Map<Counter, Counter> m;
      m.Set(k, v);
      CHECK(k.use_count() == 2);
      CHECK(v.use_count() == 2);
      Map<Counter, Counter> copy = m;
      copy.Set(v, k);  // copies: k and v each gain 2 (copy) + 1 (new entry)
      CHECK(k.use_count() == 4);
      copy.erase(v);
      CHECK(k.use_count() == 3);
      CHECK(v.use_count() == 3);
    }
    CHECK(k.use_count() == 1);
    CHECK(v.use_count() == 1);
  }
  CHECK(live == 0);
}

TEST_CASE("Map with 100k entries: insert, lookup, erase, iteration order", "[map]") {
  constexpr int64_t kN = 100000;
  Map<int64_t, int64_t> ints;
  Map<String, int64_t> strs;
  for (int64_t i = 0; i < kN; ++i) {
    ints.Set(i * 7919 % 1000003, i);
    strs.Set("key-" + std::to_string(i), i);
  }
  REQUIRE(ints.size() == static_cast<size_t>(kN));
  REQUIRE(strs.size() == static_cast<size_t>(kN));
  for (int64_t i = 0; i < kN; ++i) {
    REQUIRE(ints.at(i * 7919 % 1000003) == i);
    REQUIRE(strs.at("key-" + std::to_string(i)) == i);
  }
  CHECK(strs.count("key-100000") == 0);

  // Iteration is in insertion order.
  int64_t expect = 0;
  for (const auto& kv : strs) {
    REQUIRE(kv.second == expect);
    ++expect;
  }
  CHECK(expect == kN);

  // Erase 90%: every entry whose index is not a multiple of 10.
  for (int64_t i = 0; i < kN; ++i) {
    if (i % 10 != 0) strs.erase("key-" + std::to_string(i));
  }
  REQUIRE(strs.size() == static_cast<size_t>(kN / 10));
  expect = 0;
  for (const auto& kv : strs) {
    REQUIRE(kv.second == expect);
    expect += 10;
  }
  CHECK(expect == kN);
  for (int64_t i = 0; i < kN; ++i) {
    REQUIRE(strs.count("key-" + std::to_string(i)) == (i % 10 == 0 ? 1u : 0u));
  }
  // Set keys 1..19: the erased ones are new and go after the survivors; key-10
  // is present, and in the dense form assigning it moves it to the end too.
  for (int64_t i = 1; i < 20; ++i) strs.Set("key-" + std::to_string(i), -i);
  std::vector<String> keys = KeysOf(strs);
  REQUIRE(keys.size() == static_cast<size_t>(kN / 10 + 18));
  CHECK(keys[kN / 10 - 2] == "key-99990");
  for (int64_t i = 1; i < 20; ++i) {
    CHECK(keys[kN / 10 - 2 + i] == "key-" + std::to_string(i));
  }

  // A copy of a big shared map is independent.
  Map<int64_t, int64_t> copy = ints;
  copy.Set(-1, -1);
  CHECK(ints.size() == static_cast<size_t>(kN));
  CHECK(copy.size() == static_cast<size_t>(kN + 1));
  CHECK(copy.at(7919) == 1);
}

TEST_CASE("Map agrees with std containers under random operations", "[map]") {
  std::mt19937_64 rng(12345);
  Map<int64_t, int64_t> m;
  std::unordered_map<int64_t, int64_t> ref;
  std::vector<int64_t> order;  // iteration order of live keys
  for (int step = 0; step < 30000; ++step) {
    int64_t key = static_cast<int64_t>(rng() % 2000);
    switch (rng() % 3) {
      case 0:
      case 1: {
        int64_t value = static_cast<int64_t>(rng() % 1000);
        if (ref.count(key) == 0) {
          order.push_back(key);
        } else if (!m.GetMapObj()->IsSmallMap()) {
          // Dense form: assigning a present key moves it to the end.
          order.erase(std::find(order.begin(), order.end(), key));
          order.push_back(key);
        }
        ref[key] = value;
        m.Set(key, value);
        break;
      }
      default: {
        if (ref.erase(key) != 0) order.erase(std::find(order.begin(), order.end(), key));
        m.erase(key);
        break;
      }
    }
    if (step % 997 == 0) {
      // Snapshot semantics: a copy taken now is unaffected by later steps.
      Map<int64_t, int64_t> snapshot = m;
      REQUIRE(KeysOf(snapshot) == order);
    }
  }
  REQUIRE(m.size() == ref.size());
  REQUIRE(KeysOf(m) == order);
  for (const auto& kv : ref) REQUIRE(m.at(kv.first) == kv.second);
}

TEST_CASE("Map comparison is by content", "[map]") {
  Map<String, Array<int64_t>> a = {{"x", {1, 2}}, {"y", {}}};
  Map<String, Array<int64_t>> b = {{"y", {}}, {"x", {1, 2}}};
  CHECK(a == b);  // order does not matter, values compare deeply
  b.Set("y", Array<int64_t>{0});
  CHECK(a != b);
  CHECK(Map<String, int64_t>() == Map<String, int64_t>());
  CHECK(Map<String, int64_t>{{"a", 1}} != Map<String, int64_t>{{"b", 1}});
  // Maps nested in arrays compare by content too.
  Array<Map<String, int64_t>> n1 = {{{"k", 1}}};
  Array<Map<String, int64_t>> n2 = {{{"k", 1}}};
  CHECK(n1 == n2);
}

TEST_CASE("Map casts check every entry", "[map]") {
  Any held = Map<String, int64_t>{{"a", 1}, {"b", 2}};
  auto [kind, message] = ErrorOf([&] { (void)held.cast<Map<String, String>>(); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `Map[K, some value is int]` to `Map<str, str>`");
  std::tie(kind, message) = ErrorOf([&] { (void)held.cast<Map<int64_t, int64_t>>(); });
  CHECK(message == "Cannot convert from type `Map[some key is str, V]` to `Map<int, int>`");
  CHECK_FALSE(held.try_cast<Map<String, String>>().has_value());
  std::tie(kind, message) =
      ErrorOf([&] { (void)Any(Array<int64_t>{}).cast<Map<String, int64_t>>(); });
  CHECK(message == "Cannot convert from type `ffi.Array` to `Map<str, int>`");

  // Exact types share; convertible ones build a new map (same order).
  Map<String, int64_t> same = held.cast<Map<String, int64_t>>();
  CHECK(same.same_as(held.cast<Map<Any, Any>>()));
  Map<String, double> doubles = held.cast<Map<String, double>>();
  CHECK(doubles.at("b") == 2.0);
  CHECK(KeysOf(doubles) == std::vector<String>{"a", "b"});
  Map<Any, Any> erased = same;  // a typed map is a valid Map<Any, Any>
  CHECK(erased.same_as(same));
}

TEST_CASE("Map through a typed function and back", "[map]") {
  Function invert = Function::FromTyped(
      [](Map<String, Array<int64_t>> groups) -> Map<int64_t, String> {
        Map<int64_t, String> out;
        for (const auto& kv : groups) {
          for (int64_t v : kv.second) out.Set(v, kv.first);
        }
        return out;
      },
      "invert");
  Map<String, Array<int64_t>> groups = {{"even", {0, 2}}, {"odd", {1, 3}}};
  Map<int64_t, String> inv = invert(groups).cast<Map<int64_t, String>>();
  CHECK(inv.size() == 4);
  CHECK(inv.at(2) == "even");
  CHECK(inv.at(3) == "odd");
  CHECK(KeysOf(inv) == std::vector<int64_t>{0, 2, 1, 3});

  auto [kind, message] = ErrorOf([&] {
    invert(Map<Any, Any>{{String("x"), Array<Any>{String("y")}}});
  });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `invert(0: Map<str, Array<int>>) -> "
        "Map<int, str>`. Expected `Map<str, Array<int>>` but got `Map[K, some value is "
        "Array[index 0: str]]`");
}

TEST_CASE("Map from std containers and Merge", "[map]") {
  std::unordered_map<String, int64_t> um = {{"p", 1}, {"q", 2}};
  Map<String, int64_t> from_um(um);
  CHECK(from_um.size() == 2);
  CHECK(from_um.at("q") == 2);
  Map<String, int64_t> from_iters(um.begin(), um.end());
  CHECK(from_iters == from_um);
  Map<String, int64_t> merged = Merge(Map<String, int64_t>{{"p", 0}, {"r", 3}}, from_um);
  CHECK(merged.size() == 3);
  CHECK(merged.at("p") == 1);
  CHECK(merged.at("r") == 3);
}

TEST_CASE("ffi.Map globals from C++", "[map]") {
  Function make = Function::GetGlobalRequired("ffi.Map");
  Function size = Function::GetGlobalRequired("ffi.MapSize");
  Function get = Function::GetGlobalRequired("ffi.MapGetItem");
  Function count = Function::GetGlobalRequired("ffi.MapCount");
  Function items = Function::GetGlobalRequired("ffi.MapItems");
  Function iter = Function::GetGlobalRequired("ffi.MapForwardIterFunctor");

  Any m = make("a", 1, "a key that is long", 2.5, 3, "three");
  REQUIRE(m.type_index() == kTVMFFIMap);
  CHECK(size(m).cast<int64_t>() == 3);
  CHECK(get(m, "a").cast<int64_t>() == 1);
  CHECK(get(m, String("a key that is long")).cast<double>() == 2.5);
  CHECK(get(m, 3).cast<String>() == "three");
  CHECK(count(m, "b").cast<int64_t>() == 0);
  CHECK(count(m, "a").cast<int64_t>() == 1);
  auto [kind, message] = ErrorOf([&] { get(m, "b"); });
  CHECK(kind == "KeyError");
  CHECK(message == "key \"b\" is not in the Map");
  std::tie(kind, message) = ErrorOf([&] { make("a"); });
  CHECK(kind == "ValueError");
  CHECK(message ==
        "ffi.Map expects key, value pairs (an even number of arguments), got 1 arguments");
  std::tie(kind, message) = ErrorOf([&] { size(Array<int64_t>{}); });
  CHECK(kind == "TypeError");

  Array<Any> flat = items(m).cast<Array<Any>>();
  REQUIRE(flat.size() == 6);
  CHECK(flat[0].cast<String>() == "a");
  CHECK(flat[3].cast<double>() == 2.5);
  CHECK(flat[4].cast<int64_t>() == 3);

  // The forward-iteration protocol: 0 key, 1 value, 2 advance.
  Function step = iter(m).cast<Function>();
  std::vector<Any> keys, values;
  do {
    keys.push_back(step(0));
    values.push_back(step(1));
  } while (step(2).cast<bool>());
  REQUIRE(keys.size() == 3);
  CHECK(keys[0].cast<String>() == "a");
  CHECK(keys[1].cast<String>() == "a key that is long");
  CHECK(keys[2].cast<int64_t>() == 3);
  CHECK(values[2].cast<String>() == "three");
  std::tie(kind, message) = ErrorOf([&] { step(0); });
  CHECK(kind == "IndexError");

  Function missing_obj = Function::GetGlobalRequired("ffi.MapGetMissingObject");
  Function get_or_missing = Function::GetGlobalRequired("ffi.MapGetItemOrMissing");
  Any sentinel = missing_obj();
  CHECK(get_or_missing(m, "zz").same_as(sentinel.cast<ObjectRef>()));
  CHECK(get_or_missing(m, "a").cast<int64_t>() == 1);
}

namespace {
class MapBaseTestObj : public Object {
 public:
  explicit MapBaseTestObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO("test.map.Base", MapBaseTestObj, Object);
};
class MapDerivedTestObj : public MapBaseTestObj {
 public:
  explicit MapDerivedTestObj(int v) : MapBaseTestObj(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.map.Derived", MapDerivedTestObj, MapBaseTestObj);
};
}  // namespace

TEST_CASE("Map widens covariantly and shares the map", "[map]") {
  Map<String, Array<int64_t>> typed = {{"a", {1, 2}}, {"b", {3}}};
  Map<String, Array<Any>> wide = typed;
  CHECK(wide.GetMapObj() == typed.GetMapObj());
  CHECK(wide.at("a").size() == 2);
  CHECK(wide.at("a")[1].cast<int64_t>() == 2);
  Map<Any, Any> widest(typed);
  CHECK(widest.GetMapObj() == typed.GetMapObj());
  Map<String, Array<Any>> moved = std::move(typed);
  CHECK(moved.GetMapObj() == wide.GetMapObj());
  // Copy-on-write still protects the narrower map.
  wide.Set("c", Array<Any>{String("x")});
  CHECK(moved.size() == 2);
  CHECK(wide.size() == 3);

  Map<String, ObjectPtr<MapDerivedTestObj>> derived = {{"k", make_object<MapDerivedTestObj>(4)}};
  Map<String, ObjectPtr<MapBaseTestObj>> base = derived;
  CHECK(base.at("k")->value == 4);
  STATIC_CHECK(!std::is_convertible_v<Map<String, ObjectPtr<MapBaseTestObj>>,
                                      Map<String, ObjectPtr<MapDerivedTestObj>>>);
  STATIC_CHECK(!std::is_convertible_v<Map<String, Array<Any>>, Map<String, Array<int64_t>>>);
  STATIC_CHECK(!std::is_convertible_v<Map<String, int64_t>, Map<int64_t, int64_t>>);
  STATIC_CHECK(!Map<String, int64_t>::_type_container_is_exact);
}

TEST_CASE("Map copies and releases objects among plain entries", "[map]") {
  // Copy-on-write copies a dense table a block at a time and takes references
  // only in blocks that hold objects; the destructor skips plain blocks the
  // same way. Erasing (which moves entries around chains) must leave nothing
  // that looks like a reference in the emptied slots.
  int live = 0;
  {
    Counter obj(&live);
    Map<int64_t, Any> m;
    const int64_t kN = 3000;
    for (int64_t i = 0; i < kN; ++i) {
      if (i % 97 == 5) {
        m.Set(i * 2654435761LL % 1000003, obj);
      } else {
        m.Set(i * 2654435761LL % 1000003, i);
      }
    }
    int64_t holders = 0;
    for (int64_t i = 0; i < kN; ++i) holders += (i % 97 == 5) ? 1 : 0;
    CHECK(obj.use_count() == 1 + holders);
    // Erase half of the object entries and many plain ones.
    for (int64_t i = 0; i < kN; i += 2) {
      if (i % 97 == 5) --holders;
      m.erase(i * 2654435761LL % 1000003);
    }
    CHECK(obj.use_count() == 1 + holders);
    {
      Map<int64_t, Any> copy = m;
      copy.Set(-1, int64_t{-1});  // copy-on-write
      CHECK(obj.use_count() == 1 + 2 * holders);
      CHECK(copy.size() == m.size() + 1);
      CHECK(copy.at(5 * 2654435761LL % 1000003).as<containers_test::CounterObj>() == obj.get());
    }
    CHECK(obj.use_count() == 1 + holders);
    // A map of plain entries only copies and drops without references.
    Map<int64_t, int64_t> plain;
    for (int64_t i = 0; i < 100; ++i) plain.Set(i, i);
    Map<int64_t, int64_t> plain_copy = plain;
    plain_copy.Set(0, 7);
    CHECK(plain.at(0) == 0);
    CHECK(plain_copy.at(0) == 7);
    CHECK(plain_copy.at(99) == 99);
  }
  CHECK(live == 0);
}

namespace {

// A key type whose `__any_hash__` puts every key into one of 8 chains, so
// tables fill with long chains and evictions.
class CollidingKeyObj : public Object {
 public:
  int64_t value = 0;
  explicit CollidingKeyObj(int64_t v) : value(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.map.CollidingKey", CollidingKeyObj, Object);
};

int64_t CollidingKeyHash(const Any& key) {
  return key.as<CollidingKeyObj>()->value % 8;
}
bool CollidingKeyEqual(const Any& a, const Any& b) {
  return a.as<CollidingKeyObj>()->value == b.as<CollidingKeyObj>()->value;
}

Any CollidingKey(int64_t v) {
  static const bool registered = [] {
    namespace refl = tvm::ffi::reflection;
    refl::TypeAttrDef<CollidingKeyObj>()
        .native_fn_attr<&CollidingKeyHash>(tvm::ffi::type_attr::kAnyHash)
        .native_fn_attr<&CollidingKeyEqual>(tvm::ffi::type_attr::kAnyEqual);
    return true;
  }();
  (void)registered;
  return ObjectRef(make_object<CollidingKeyObj>(v));
}

// The standard layout, read and written as another binary would (map_base.h).
struct RawMap {
  char* obj;
  explicit RawMap(const ObjectRef& m)
      : obj(reinterpret_cast<char*>(detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(m))) {}
  template <typename T>
  T& At(size_t offset) const {
    return *reinterpret_cast<T*>(obj + offset);
  }
  void*& data() const { return At<void*>(24); }
  uint64_t& size() const { return At<uint64_t>(32); }
  uint64_t& slots() const { return At<uint64_t>(40); }
  void (*&deleter() const)(void*) { return At<void (*)(void*)>(48); }
  uint8_t* meta(uint64_t slot) const {
    return static_cast<uint8_t*>(data()) + slot / 16 * 784 + slot % 16;
  }
  TVMFFIAny* item(uint64_t slot) const {  // key, value (then prev, next)
    return reinterpret_cast<TVMFFIAny*>(static_cast<char*>(data()) + slot / 16 * 784 + 16 +
                                        slot % 16 * 48);
  }
  // Every empty slot's key and value made to read as an object, as another
  // binary may leave them (the layout does not promise None there).
  void PoisonEmptySlots() const {
    for (uint64_t s = 0; s < slots(); ++s) {
      if (*meta(s) != 0xFF) continue;
      TVMFFIAny* cells = item(s);
      for (int c = 0; c < 2; ++c) {
        cells[c].type_index = TypeIndex::kTVMFFIStaticObjectBegin + 7;
        cells[c].zero_padding = 0;
        cells[c].v_int64 = 0x10;  // not an object: touching it would crash
      }
    }
  }
};

}  // namespace

TEST_CASE("Map growth moves objects among plain entries without touching references", "[map]") {
  // 20000 entries: the table grows from the small form through every dense
  // size up to 32768 slots; tables of 8192 slots and more move by a scan of
  // their blocks, smaller ones along the iteration list. Keys and values mix
  // ints, heap strings and objects.
  int live = 0;
  {
    constexpr int64_t kN = 20000;
    Counter shared(&live);
    std::vector<Counter> key_objs;
    std::vector<Any> keys;
    int64_t shared_uses = 0;
    Map<Any, Any> m;
    for (int64_t i = 0; i < kN; ++i) {
      Any key;
      if (i % 5 == 0) {
        key_objs.emplace_back(&live);
        key = key_objs.back();
      } else if (i % 5 == 1) {
        key = String("a key long enough for the heap #" + std::to_string(i));
      } else {
        key = i * 2654435761LL % 1000003;
      }
      keys.push_back(key);
      if (i % 7 == 0) {
        m.Set(key, shared);
        ++shared_uses;
      } else {
        m.Set(key, i);
      }
      if (i == 4) CHECK_FALSE(m.GetMapObj()->IsSmallMap());
    }
    REQUIRE(m.size() == static_cast<size_t>(kN));
    // Each key object: key_objs, keys and the map.
    CHECK(shared.use_count() == 1 + shared_uses);
    for (const Counter& k : key_objs) REQUIRE(k.use_count() == 3);
    // Every key found, iteration in insertion order.
    int64_t i = 0;
    for (const auto& kv : m) {
      REQUIRE(detail::AnyCellEqual(detail::AnyUnsafe::TVMFFIAnyPtrFromAny(kv.first),
                                   detail::AnyUnsafe::TVMFFIAnyPtrFromAny(keys[i])));
      if (i % 7 == 0) {
        REQUIRE(kv.second.as<containers_test::CounterObj>() == shared.get());
      } else {
        REQUIRE(kv.second.cast<int64_t>() == i);
      }
      ++i;
    }
    REQUIRE(i == kN);
    for (int64_t j = 0; j < kN; j += 13) {
      REQUIRE(m.count(keys[j]) == 1);
      if (j % 7 != 0) REQUIRE(m.at(keys[j]).cast<int64_t>() == j);
    }
    CHECK(m.count(int64_t{-5}) == 0);

    // A present key: the value changes, the key keeps its one reference, the
    // old value is released and the entry moves to the end.
    m.Set(key_objs[0], -1);  // key 0: its value was `shared`
    --shared_uses;
    CHECK(key_objs[0].use_count() == 3);
    CHECK(shared.use_count() == 1 + shared_uses);
    CHECK(m.size() == static_cast<size_t>(kN));
    CHECK((*std::prev(m.end())).first.as<containers_test::CounterObj>() == key_objs[0].get());
    CHECK(m.at(key_objs[0]).cast<int64_t>() == -1);
    // The last entry assigned again stays where it is.
    m.Set(key_objs[0], -2);
    CHECK((*std::prev(m.end())).first.as<containers_test::CounterObj>() == key_objs[0].get());
    CHECK(key_objs[0].use_count() == 3);
    // A present key in a shared map: the copy takes it, the original keeps its value.
    {
      Map<Any, Any> copy = m;
      copy.Set(key_objs[1], shared);
      CHECK(key_objs[1].use_count() == 4);
      CHECK(shared.use_count() == 2 + 2 * shared_uses);  // the copy holds its own references
      CHECK(m.at(key_objs[1]).cast<int64_t>() == 5);
    }
    CHECK(key_objs[1].use_count() == 3);
    CHECK(shared.use_count() == 1 + shared_uses);

    m = Map<Any, Any>();
    CHECK(shared.use_count() == 1);
    for (const Counter& k : key_objs) REQUIRE(k.use_count() == 2);
  }
  CHECK(live == 0);
}

TEST_CASE("Map growth with long chains of colliding keys", "[map]") {
  // 9000 keys in 8 chains: placing them needs many jumps and evictions, in
  // tables small enough to move along the list and big enough to move by scan.
  constexpr int64_t kN = 9000;
  Map<Any, int64_t> m;
  std::vector<Any> keys;
  for (int64_t i = 0; i < kN; ++i) {
    keys.push_back(CollidingKey(i * 31 % kN));
    m.Set(keys.back(), i);
    // A new object with the same value is the same key.
    if (i % 1000 == 999) m.Set(CollidingKey(keys[i - 500].as<CollidingKeyObj>()->value), -i);
  }
  REQUIRE(m.size() == static_cast<size_t>(kN));
  for (int64_t i = 0; i < kN; ++i) {
    int64_t expect = (i + 500) % 1000 == 999 ? -(i + 500) : i;
    REQUIRE(m.at(CollidingKey(i * 31 % kN)) == expect);
  }
  // Insertion order, except the reassigned keys, which moved to the end when assigned.
  std::vector<int64_t> order;
  for (const auto& kv : m) order.push_back(kv.second);
  std::vector<int64_t> expect;
  for (int64_t i = 0; i < kN; ++i) {
    if ((i + 500) % 1000 != 999) expect.push_back(i);
    if (i % 1000 == 999) expect.push_back(-i);
  }
  CHECK(order == expect);
  CHECK(m.count(CollidingKey(kN + 8)) == 0);
  // Erase every other key, then set them again: they go to the end.
  for (int64_t i = 0; i < kN; i += 2) m.erase(CollidingKey(i * 31 % kN));
  REQUIRE(m.size() == static_cast<size_t>(kN / 2));
  for (int64_t i = 0; i < kN; i += 2) m.Set(CollidingKey(i * 31 % kN), i);
  REQUIRE(m.size() == static_cast<size_t>(kN));
  for (int64_t i = 0; i < kN; i += 2) REQUIRE(m.at(CollidingKey(i * 31 % kN)) == i);
}

TEST_CASE("Map copies a table past 16 MiB with streaming stores", "[map]") {
  // 270000 entries fill a table of 2^19 slots (25 MB): copy-on-write writes
  // such tables with non-temporal stores where the compiler has them, taking
  // each block's type scan from the words it moves. Objects among the keys
  // and values, and garbage left in empty slots (as another binary may),
  // must come out with exact references, the same order and the same slots.
  int live = 0;
  {
    Counter obj(&live);
    Map<Any, Any> m;
    const int64_t kN = 270000;
    int64_t uses = 0;
    for (int64_t i = 0; i < kN; ++i) {
      Any key = i;
      if (i % 1013 == 7) key = String(std::string(40, 'a') + std::to_string(i));
      if (i % 977 == 3) {
        m.Set(key, obj);
        ++uses;
      } else {
        m.Set(key, i);
      }
    }
    RawMap raw(m);
    REQUIRE(raw.slots() == (uint64_t{1} << 19));
    raw.PoisonEmptySlots();
    const String probe(std::string(40, 'a') + "7");
    {
      Map<Any, Any> copy = m;
      copy.Set(int64_t{-1}, obj);  // copy-on-write
      CHECK(obj.use_count() == 2 + 2 * uses);
      RawMap raw_copy(copy);
      CHECK(raw_copy.slots() == raw.slots());
      CHECK(raw_copy.data() != raw.data());
      REQUIRE(copy.size() == m.size() + 1);
      auto a = m.begin();
      auto b = copy.begin();
      int64_t i = 0;
      for (; a != m.end(); ++a, ++b, ++i) {
        REQUIRE((*a).first.same_as((*b).first));
        REQUIRE((*a).second.same_as((*b).second));
        if (i % 977 != 3) REQUIRE((*b).second.cast<int64_t>() == i);
      }
      CHECK((*b).first.cast<int64_t>() == -1);
      CHECK(copy.at(probe).cast<int64_t>() == 7);
      CHECK(copy.at(int64_t{3}).same_as(obj));
      copy.Set(int64_t{3}, int64_t{0});
      CHECK(m.at(int64_t{3}).same_as(obj));
      CHECK(obj.use_count() == 1 + 2 * uses);
    }
    CHECK(obj.use_count() == 1 + uses);
    CHECK(m.size() == static_cast<size_t>(kN));
  }
  CHECK(live == 0);
}

TEST_CASE("Map grows a table laid out by another binary", "[map]") {
  int live = 0;
  SECTION("dense: empty slots hold whatever that binary left there") {
    // Our tables keep empty slots None; the standard layout does not promise
    // that, so growth must go by the metadata alone. Poison every empty
    // slot, then grow through both ways of moving (list: 1024 slots; scan:
    // 8192 slots).
    Counter obj(&live);
    auto poison = [](const Map<int64_t, Any>& m) {
      RawMap raw(m);
      REQUIRE((raw.slots() >> 63) == 0);
      raw.PoisonEmptySlots();
    };
    Map<int64_t, Any> m;
    int64_t uses = 0;
    auto fill = [&](int64_t from, int64_t to) {
      for (int64_t i = from; i < to; ++i) {
        if (i % 11 == 0) {
          m.Set(i * 7919, obj);
          ++uses;
        } else {
          m.Set(i * 7919, i);
        }
      }
    };
    fill(0, 1000);  // 1024 slots
    poison(m);
    fill(1000, 8000);  // 1024 -> 2048 -> ... -> 8192 slots
    poison(m);
    fill(8000, 9000);  // 8192 -> 16384: by scan
    CHECK(obj.use_count() == 1 + uses);
    REQUIRE(m.size() == 9000u);
    int64_t i = 0;
    for (const auto& kv : m) {
      REQUIRE(kv.first == i * 7919);
      if (i % 11 != 0) REQUIRE(kv.second.cast<int64_t>() == i);
      ++i;
    }
    poison(m);
    {
      Map<int64_t, Any> copy = m;  // copied with the garbage; no reference from it
      copy.Set(-1, obj);
      CHECK(obj.use_count() == 2 + 2 * uses);
    }
    CHECK(obj.use_count() == 1 + uses);
  }
  SECTION("small: entries stored outside the object") {
    Counter key(&live), value(&live);
    Map<Any, Any> m;
    {
      RawMap raw(m);
      REQUIRE(raw.size() == 0);
      REQUIRE(raw.slots() == ((uint64_t{1} << 63) | 2));
      // The entries move to a block of their own, freed by its deleter.
      TVMFFIAny* cells = static_cast<TVMFFIAny*>(std::malloc(2 * 2 * sizeof(TVMFFIAny)));
      cells[0] = detail::MakeOwnedCell(ObjectRef(key));
      cells[1] = detail::MakeOwnedCell(int64_t{1});
      cells[2] = detail::MakeOwnedCell(int64_t{2});
      cells[3] = detail::MakeOwnedCell(ObjectRef(value));
      raw.data() = cells;
      raw.size() = 2;
      raw.deleter() = &std::free;
    }
    CHECK(m.at(key).cast<int64_t>() == 1);
    m.Set(3, 3);  // 2 -> 4 slots
    CHECK(key.use_count() == 2);
    CHECK(value.use_count() == 2);
    CHECK(m.GetMapObj()->IsSmallMap());
    m.Set(key, 10);
    m.Set(4, 4);
    m.Set(5, 5);  // dense
    CHECK_FALSE(m.GetMapObj()->IsSmallMap());
    CHECK(key.use_count() == 2);
    CHECK(value.use_count() == 2);
    {
      std::vector<Any> order;
      for (const auto& kv : m) order.push_back(kv.first);
      REQUIRE(order.size() == 5u);
      CHECK(order[0].as<containers_test::CounterObj>() == key.get());
      CHECK(order[1].cast<int64_t>() == 2);
      CHECK(order[4].cast<int64_t>() == 5);
    }
    CHECK(m.at(2).as<containers_test::CounterObj>() == value.get());
    CHECK(m.at(key).cast<int64_t>() == 10);
    m = Map<Any, Any>();
    CHECK(key.use_count() == 1);
    CHECK(value.use_count() == 1);
  }
  CHECK(live == 0);
}

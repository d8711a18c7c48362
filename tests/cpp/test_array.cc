// Array<T>: construction, copy-on-write, element access and errors, iteration,
// mutation, content comparison, casts with element checks, nested arrays
// through typed functions, Shape interop and the ABI layout of ArrayObj.
#include <tvm/ffi/container/shape.h>
#include <tvm/ffi/container/tensor.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::Counter;
using containers_test::ErrorOf;

namespace {

std::vector<int64_t> ToVec(const Array<int64_t>& arr) {
  return std::vector<int64_t>(arr.begin(), arr.end());
}

struct CPUNDAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(64); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

}  // namespace

TEST_CASE("Array construction and reading", "[array]") {
  Array<int64_t> empty;
  CHECK(empty.empty());
  CHECK(empty.size() == 0);
  CHECK(empty.begin() == empty.end());

  Array<int64_t> a = {1, 2, 3};
  CHECK(a.size() == 3);
  CHECK_FALSE(a.empty());
  CHECK(a[0] == 1);
  CHECK(a.at(2) == 3);
  CHECK(a.front() == 1);
  CHECK(a.back() == 3);

  std::vector<int64_t> source = {4, 5, 6, 7};
  Array<int64_t> from_vector(source);
  CHECK(ToVec(from_vector) == source);
  Array<int64_t> from_range(source.begin() + 1, source.end());
  CHECK(ToVec(from_range) == std::vector<int64_t>{5, 6, 7});
  Array<String> repeated(3, String("ab"));
  REQUIRE(repeated.size() == 3);
  for (const String& s : repeated) CHECK(s == "ab");

  // Iteration yields T by value; iterators are random access.
  Array<String> words = {"alpha", "beta", "a longer string than seven bytes"};
  std::string joined;
  for (String w : words) joined += std::string(w) + ";";
  CHECK(joined == "alpha;beta;a longer string than seven bytes;");
  CHECK(std::distance(words.begin(), words.end()) == 3);
  CHECK((words.begin() + 2)[0] == "a longer string than seven bytes");
  std::vector<String> reversed(words.rbegin(), words.rend());
  REQUIRE(reversed.size() == 3);
  CHECK(reversed[0] == "a longer string than seven bytes");
  CHECK(reversed[2] == "alpha");
  CHECK(std::accumulate(a.begin(), a.end(), int64_t{0}) == 6);
}

TEST_CASE("Array index errors name the index and the size", "[array]") {
  Array<int64_t> a = {1, 2, 3};
  auto [kind, message] = ErrorOf([&] { (void)a.at(5); });
  CHECK(kind == "IndexError");
  CHECK(message == "Array index 5 out of range for an Array of size 3");
  std::tie(kind, message) = ErrorOf([&] { (void)a[-1]; });
  CHECK(kind == "IndexError");
  CHECK(message == "Array index -1 out of range for an Array of size 3");
  Array<int64_t> empty;
  std::tie(kind, message) = ErrorOf([&] { (void)empty.front(); });
  CHECK(kind == "IndexError");
  CHECK(message == "Array index 0 out of range for an Array of size 0");
  std::tie(kind, message) = ErrorOf([&] { (void)empty.back(); });
  CHECK(message == "Array index -1 out of range for an Array of size 0");
  std::tie(kind, message) = ErrorOf([&] { a.Set(3, 9); });
  CHECK(kind == "IndexError");
  CHECK(message == "Array index 3 out of range for an Array of size 3");
  std::tie(kind, message) = ErrorOf([&] { empty.pop_back(); });
  CHECK(kind == "IndexError");
  // Through the object as well.
  std::tie(kind, message) = ErrorOf([&] { (void)a.GetArrayObj()->at(3); });
  CHECK(message == "Array index 3 out of range for an Array of size 3");
}

TEST_CASE("Array copy-on-write: a shared array is never mutated through another holder",
          "[array]") {
  Array<int64_t> a = {1, 2, 3};
  Array<int64_t> b = a;
  CHECK(a.same_as(b));
  CHECK(a.use_count() == 2);

  b.push_back(4);
  CHECK_FALSE(a.same_as(b));
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 3});
  CHECK(ToVec(b) == std::vector<int64_t>{1, 2, 3, 4});
  CHECK(a.use_count() == 1);

  Array<int64_t> c = a;
  c.Set(0, 100);
  CHECK(a[0] == 1);
  CHECK(c[0] == 100);

  Array<int64_t> d = a;
  d.erase(d.begin());
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 3});
  CHECK(ToVec(d) == std::vector<int64_t>{2, 3});

  Array<int64_t> e = a;
  e.insert(e.begin() + 1, 42);
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 3});
  CHECK(ToVec(e) == std::vector<int64_t>{1, 42, 2, 3});

  Array<int64_t> f = a;
  f.resize(1);
  f.clear();
  CHECK(f.empty());
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 3});

  Array<int64_t> g = a;
  g.MutateByApply([](int64_t x) { return x * 10; });
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 3});
  CHECK(ToVec(g) == std::vector<int64_t>{10, 20, 30});
}

TEST_CASE("Array mutates in place when unique", "[array]") {
  Array<int64_t> a = {1, 2, 3};
  a.reserve(16);
  const Object* before = a.get();
  CHECK(a.capacity() >= 16);
  a.push_back(4);
  a.Set(0, 7);
  a.insert(a.begin(), 0);
  a.erase(a.end() - 1);
  a.MutateByApply([](int64_t x) { return x + 1; });
  CHECK(a.get() == before);
  CHECK(ToVec(a) == std::vector<int64_t>{1, 8, 3, 4});
  // Growth past the capacity moves to a new object, keeping the content.
  for (int64_t i = 0; i < 100; ++i) a.push_back(i);
  CHECK(a.size() == 104);
  CHECK(a[103] == 99);
}

TEST_CASE("Array mutation: insert, erase, resize, pop_back, clear", "[array]") {
  Array<int64_t> a = {1, 2, 3, 4, 5};
  std::vector<int64_t> extra = {10, 11};
  a.insert(a.begin() + 2, extra.begin(), extra.end());
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 10, 11, 3, 4, 5});
  a.erase(a.begin() + 1, a.begin() + 4);
  CHECK(ToVec(a) == std::vector<int64_t>{1, 3, 4, 5});
  a.pop_back();
  CHECK(ToVec(a) == std::vector<int64_t>{1, 3, 4});
  a.resize(5);
  CHECK(ToVec(a) == std::vector<int64_t>{1, 3, 4, 0, 0});
  a.resize(2);
  CHECK(ToVec(a) == std::vector<int64_t>{1, 3});
  a.emplace_back(9);
  CHECK(a.back() == 9);
  a.clear();
  CHECK(a.empty());

  Array<Any> anys;
  anys.resize(2);
  CHECK(anys[0] == nullptr);
  auto [kind, message] = ErrorOf([&] { anys.resize(-1); });
  CHECK(kind == "ValueError");

  CHECK(ToVec(Concat(Array<int64_t>{1, 2}, Array<int64_t>{3})) == std::vector<int64_t>{1, 2, 3});
  CHECK(ToVec(Array<int64_t>::Agregate(int64_t{1}, Array<int64_t>{2, 3}, int64_t{4})) ==
        std::vector<int64_t>{1, 2, 3, 4});
}

TEST_CASE("Array of raw object pointers owns its elements and lends pointers", "[array]") {
  int live = 0;
  {
    Array<const containers_test::CounterObj*> arr;
    const containers_test::CounterObj* raw = nullptr;
    {
      Counter obj(&live);
      raw = obj.get();
      arr = {raw, raw};
      CHECK(obj.use_count() == 3);  // each element is an owning reference
      CHECK(arr[0] == raw);
      CHECK(arr.back() == raw);
    }
    CHECK(live == 1);  // the array keeps it alive
    CHECK(arr[1]->use_count() == 2);
    Any as_any = arr;
    auto back = as_any.try_cast<Array<const containers_test::CounterObj*>>();
    REQUIRE(back.has_value());
    CHECK((*back)[0] == raw);
  }
  CHECK(live == 0);
}

TEST_CASE("Array releases its elements", "[array]") {
  int live = 0;
  {
    Counter obj(&live);
    CHECK(obj.use_count() == 1);
    {
      Array<Counter> arr = {obj, obj};
      CHECK(obj.use_count() == 3);
      Array<Counter> shared = arr;
      shared.push_back(obj);  // copies the array: 2 more references (copy) + 1 (new element)
      CHECK(obj.use_count() == 6);
      shared.pop_back();
      CHECK(obj.use_count() == 5);
      arr.clear();
      CHECK(obj.use_count() == 3);
    }
    CHECK(obj.use_count() == 1);
    CHECK(live == 1);
  }
  CHECK(live == 0);
}

TEST_CASE("Array Map transforms into a new array", "[array]") {
  Array<int64_t> a = {1, 2, 3};
  Array<String> s = a.Map([](int64_t x) { return String(std::to_string(x * 2)); });
  REQUIRE(s.size() == 3);
  CHECK(s[0] == "2");
  CHECK(s[2] == "6");
  Array<double> halves = a.Map([](int64_t x) { return x / 2.0; });
  CHECK(halves[0] == 0.5);
  CHECK(ToVec(a) == std::vector<int64_t>{1, 2, 3});
}

TEST_CASE("Array comparison is by content", "[array]") {
  Array<int64_t> a = {1, 2, 3};
  Array<int64_t> b = {1, 2, 3};
  CHECK_FALSE(a.same_as(b));
  CHECK(a == b);
  CHECK_FALSE(a != b);
  b.Set(2, 4);
  CHECK(a != b);
  CHECK(Array<int64_t>{1, 2} != Array<int64_t>{1, 2, 3});
  CHECK(Array<int64_t>{} == Array<int64_t>{});

  // Strings by content (separate heap objects), nested arrays element-wise.
  Array<String> s1 = {"a string longer than seven", "x"};
  Array<String> s2 = {"a string longer than seven", "x"};
  CHECK(s1 == s2);
  Array<Array<int64_t>> n1 = {{1, 2}, {3}};
  Array<Array<int64_t>> n2 = {{1, 2}, {3}};
  CHECK(n1 == n2);
  n2.Set(1, Array<int64_t>{4});
  CHECK(n1 != n2);
  // Different element types never compare equal.
  CHECK(Array<Any>{int64_t{1}} != Array<Any>{1.0});
  CHECK(Array<Any>{String("x")} != Array<Any>{Bytes("x", 1)});
}

TEST_CASE("Array of Any, Tensor and nested arrays", "[array]") {
  Array<Any> mixed = {int64_t{1}, 2.5, String("text"), nullptr, Array<int64_t>{1, 2}};
  REQUIRE(mixed.size() == 5);
  CHECK(mixed[0].cast<int64_t>() == 1);
  CHECK(mixed[1].cast<double>() == 2.5);
  CHECK(mixed[2].cast<String>() == "text");
  CHECK(mixed[3] == nullptr);
  CHECK(mixed[4].cast<Array<int64_t>>()[1] == 2);

  DLDataType f32{kDLFloat, 32, 1};
  Tensor t0 = Tensor::FromNDAlloc(CPUNDAlloc(), {2, 3}, f32, DLDevice{kDLCPU, 0});
  Tensor t1 = Tensor::FromNDAlloc(CPUNDAlloc(), {4}, f32, DLDevice{kDLCPU, 0});
  Array<Tensor> tensors = {t0, t1};
  CHECK(tensors[0].same_as(t0));
  CHECK(tensors[1]->shape[0] == 4);
  CHECK(t0.use_count() == 2);
  Array<ObjectRef> as_objects = tensors;  // shares: every Tensor is an ObjectRef
  CHECK(as_objects.same_as(tensors));
  Array<Any> as_any = tensors;
  CHECK(as_any.same_as(tensors));
  CHECK(Any(as_any).cast<Array<Tensor>>().same_as(tensors));

  Array<Array<String>> nested = {{"a", "b"}, {}, {"c"}};
  CHECK(nested.size() == 3);
  CHECK(nested[0][1] == "b");
  CHECK(nested[1].empty());
  Array<Array<String>> alias = nested;
  Array<String> inner = alias[2];
  inner.push_back("d");  // the inner array is shared too: copy-on-write there as well
  alias.Set(2, inner);
  CHECK(nested[2].size() == 1);
  CHECK(alias[2].size() == 2);
}

TEST_CASE("Array casts check every element", "[array]") {
  Any ints = Array<int64_t>{1, 2};
  auto [kind, message] = ErrorOf([&] { (void)ints.cast<Array<String>>(); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `Array[index 0: int]` to `Array<str>`");
  CHECK_FALSE(ints.try_cast<Array<String>>().has_value());
  CHECK_FALSE(ints.as<Array<String>>().has_value());

  Any mixed = Array<Any>{int64_t{1}, String("two"), int64_t{3}};
  std::tie(kind, message) = ErrorOf([&] { (void)mixed.cast<Array<int64_t>>(); });
  CHECK(kind == "TypeError");
  CHECK(message == "Cannot convert from type `Array[index 1: str]` to `Array<int>`");

  Any nested = Array<Any>{Array<int64_t>{1}, Array<Any>{String("x")}};
  std::tie(kind, message) = ErrorOf([&] { (void)nested.cast<Array<Array<int64_t>>>(); });
  CHECK(message ==
        "Cannot convert from type `Array[index 1: Array[index 0: str]]` to `Array<Array<int>>`");

  std::tie(kind, message) = ErrorOf([&] { (void)Any(int64_t{3}).cast<Array<int64_t>>(); });
  CHECK(message == "Cannot convert from type `int` to `Array<int>`");

  // Exact element type: the same object comes back.
  Array<int64_t> original = {1, 2};
  Any held = original;
  CHECK(held.cast<Array<int64_t>>().same_as(original));
  CHECK(held.as<Array<int64_t>>().has_value());
  // Convertible elements: a new array of converted values.
  Array<double> doubles = held.cast<Array<double>>();
  CHECK_FALSE(doubles.same_as(original));
  CHECK(doubles[1] == 2.0);
  CHECK_FALSE(held.as<Array<double>>().has_value());  // as<> never converts
  // Array<Any> of ints converts to Array<int64_t> (and shares, since the cells already match).
  Any any_ints = Array<Any>{int64_t{5}, int64_t{6}};
  CHECK(any_ints.cast<Array<int64_t>>()[1] == 6);
  CHECK(any_ints.cast<Array<int64_t>>().same_as(any_ints.cast<Array<Any>>()));
  // Optional elements accept None.
  Any with_none = Array<Any>{int64_t{1}, nullptr};
  Array<Optional<int64_t>> opts = with_none.cast<Array<Optional<int64_t>>>();
  CHECK(opts[0].value() == 1);
  CHECK_FALSE(opts[1].has_value());
}

TEST_CASE("Nested containers through a typed function and back", "[array]") {
  Function transpose = Function::FromTyped(
      [](Array<Array<int64_t>> rows) -> Array<Array<int64_t>> {
        Array<Array<int64_t>> cols;
        if (rows.empty()) return cols;
        for (size_t j = 0; j < rows[0].size(); ++j) {
          Array<int64_t> col;
          for (const Array<int64_t>& row : rows) col.push_back(row[j]);
          cols.push_back(col);
        }
        return cols;
      },
      "transpose");
  Array<Array<int64_t>> m = {{1, 2, 3}, {4, 5, 6}};
  Array<Array<int64_t>> t = transpose(m).cast<Array<Array<int64_t>>>();
  CHECK(t == Array<Array<int64_t>>{{1, 4}, {2, 5}, {3, 6}});
  CHECK(m == Array<Array<int64_t>>{{1, 2, 3}, {4, 5, 6}});

  // Elements convert on the way in (bool -> int).
  Array<Any> with_bool = {Array<Any>{true, int64_t{2}}};
  CHECK(transpose(with_bool).cast<Array<Array<int64_t>>>() == Array<Array<int64_t>>{{1}, {2}});

  auto [kind, message] = ErrorOf([&] { transpose(Array<Any>{Array<Any>{String("x")}}); });
  CHECK(kind == "TypeError");
  CHECK(message ==
        "Mismatched type on argument #0 when calling: `transpose(0: Array<Array<int>>) -> "
        "Array<Array<int>>`. Expected `Array<Array<int>>` but got `Array[index 0: Array[index 0: "
        "str]]`");
}

TEST_CASE("Array and Shape convert both ways", "[array]") {
  Shape shape = {2, 3, 4};
  Array<int64_t> from_shape = Any(shape).cast<Array<int64_t>>();
  CHECK(ToVec(from_shape) == std::vector<int64_t>{2, 3, 4});
  Array<int64_t> from_iters(shape.begin(), shape.end());
  CHECK(from_iters == from_shape);
  Shape back(from_shape.begin(), from_shape.end());
  CHECK(back == shape);
  CHECK(back.Product() == 24);
  // A Shape is not an Array of strings.
  CHECK_FALSE(Any(shape).try_cast<Array<String>>().has_value());
  // Typed functions taking Array<int64_t> accept a Shape.
  Function prod = Function::FromTyped([](Array<int64_t> dims) {
    int64_t p = 1;
    for (int64_t d : dims) p *= d;
    return p;
  });
  CHECK(prod(shape).cast<int64_t>() == 24);
}

TEST_CASE("ArrayObj layout is the ABI's TVMFFISeqCell", "[array]") {
  Array<Any> arr = {int64_t{7}, String("a string that is not small"), nullptr};
  const ArrayObj* obj = arr.GetArrayObj();
  TVMFFIObject* header = detail::ObjectUnsafe::TVMFFIObjectPtrFromObjectRef(arr);
  CHECK(header->type_index == kTVMFFIArray);
  const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(header);
  CHECK(static_cast<const void*>(cell) == static_cast<const TVMFFISeqCell*>(obj));
  CHECK(cell->size == 3);
  CHECK(cell->capacity >= 3);
  CHECK(cell->data_deleter == nullptr);
  // Elements live inline, right after the cell.
  CHECK(cell->data ==
        reinterpret_cast<char*>(header) + sizeof(TVMFFIObject) + sizeof(TVMFFISeqCell));
  const TVMFFIAny* items = static_cast<const TVMFFIAny*>(cell->data);
  CHECK(items[0].type_index == kTVMFFIInt);
  CHECK(items[0].v_int64 == 7);
  CHECK(items[1].type_index == kTVMFFIStr);
  CHECK(items[2].type_index == kTVMFFINone);
  CHECK(Any(arr).type_index() == kTVMFFIArray);
  CHECK(Any(arr).GetTypeKey() == "ffi.Array");
}

TEST_CASE("Array reads a foreign array whose elements live apart", "[array]") {
  // An array made by another binary may keep its cells in a separate buffer
  // freed by data_deleter; reading, copying and destroying go through `data`.
  static int deleter_calls = 0;
  deleter_calls = 0;
  ObjectPtr<ArrayObj> p = make_object<ArrayObj>();
  TVMFFIAny* buffer = static_cast<TVMFFIAny*>(std::malloc(sizeof(TVMFFIAny) * 2));
  buffer[0] = detail::MakeOwnedCell(String("foreign element, heap-allocated"));
  buffer[1] = detail::MakeOwnedCell(int64_t{5});
  p->data = buffer;
  p->TVMFFISeqCell::size = 2;
  p->TVMFFISeqCell::capacity = 2;
  p->data_deleter = [](void* data) {
    ++deleter_calls;
    std::free(data);
  };
  {
    Array<Any> foreign(ObjectPtr<Object>(std::move(p)));
    CHECK(foreign[0].cast<String>() == "foreign element, heap-allocated");
    Array<Any> copy = foreign;
    copy.push_back(int64_t{6});  // copies into an inline array
    CHECK(copy.size() == 3);
    CHECK(copy.GetArrayObj()->data_deleter == nullptr);
    CHECK(foreign.size() == 2);
  }
  CHECK(deleter_calls == 1);
}

TEST_CASE("Nested containers widen covariantly and share storage", "[array]") {
  static_assert(type_subsumes_v<Array<Any>, Array<int>>);
  static_assert(!type_subsumes_v<Array<int>, Array<Any>>);
  static_assert(type_subsumes_v<Any, Array<double>>);
  static_assert(type_subsumes_v<Array<Array<Any>>, Array<Array<int>>>);
  static_assert(type_subsumes_v<Map<Any, Any>, Map<String, int>>);
  static_assert(!type_subsumes_v<Map<String, int>, Map<Any, Any>>);
  Array<Array<int>> inner{{1, 2}, {3}};
  Array<Array<Any>> wide = inner;
  REQUIRE(wide.same_as(inner));
  REQUIRE(wide[0][1].cast<int>() == 2);
  // Narrowing is not implicit.
  static_assert(!std::is_convertible_v<Array<Array<Any>>, Array<Array<int>>>);
}

TEST_CASE("Typed containers are not exact references: object_ref_contains_v says no", "[array]") {
  STATIC_CHECK(!Array<int64_t>::_type_container_is_exact);
  STATIC_CHECK(!Tuple<int64_t, String>::_type_container_is_exact);
  STATIC_CHECK(!Variant<int64_t, String>::_type_container_is_exact);
  // An ArrayObj may hold anything, so Array<int64_t> does not contain every one.
  STATIC_CHECK(!object_ref_contains_v<Array<int64_t>, ArrayObj>);
  STATIC_CHECK(!object_ref_contains_v<Tuple<int64_t>, ArrayObj>);
  // Arrays of derived pointers still share as arrays of base pointers.
  Array<ObjectPtr<Object>> objs = Array<ObjectPtr<ArrayObj>>{ArrayObj::Empty(0)};
  CHECK(objs.size() == 1);
}

TEST_CASE("ArrayObj in-place edits and erase range errors", "[array]") {
  Array<int64_t> a = {1, 2, 3, 4};
  Array<int64_t> shared = a;
  // A reversed range throws before any copy: the shared array is untouched.
  auto reversed = ErrorOf([&] { a.erase(a.begin() + 3, a.begin() + 1); });
  CHECK(reversed.first == "IndexError");
  CHECK(reversed.second == "Array::erase: range [3, 1) is not within an Array of size 4");
  CHECK(a.get() == shared.get());
  a.erase(a.begin() + 1, a.begin() + 3);
  CHECK(std::vector<int64_t>(a.begin(), a.end()) == std::vector<int64_t>{1, 4});
  CHECK(std::vector<int64_t>(shared.begin(), shared.end()) == std::vector<int64_t>{1, 2, 3, 4});
  // a is unique now: edits on its object are seen through it.
  a.GetArrayObj()->erase(0);
  a.GetArrayObj()->pop_back();
  CHECK(a.empty());
  CHECK(ErrorOf([&] { a.GetArrayObj()->pop_back(); }).second ==
        "Array index -1 out of range for an Array of size 0");
}

// Issue #25: releasing a chain of containers 200,000 deep (each holding the
// next) overflowed the stack; the release is bounded (ContainerReleaseScope)
// and still frees everything before the last reference's DecRef returns.
TEST_CASE("Releasing a 200,000-deep chain of containers does not overflow the stack",
          "[array][hostile]") {
  int live = 0;
  {
    Any chain = Counter(&live);
    for (int i = 0; i < 200000; ++i) {
      switch (i % 4) {
        case 0:
          chain = Array<Any>{chain, i};
          break;
        case 1:
          chain = List<Any>{i, chain};
          break;
        case 2:
          chain = Map<Any, Any>{{String("next"), chain}};
          break;
        default:
          chain = Dict<Any, Any>{{chain, i}};  // as a key, too
          break;
      }
    }
    REQUIRE(live == 1);
  }
  CHECK(live == 0);  // everything freed, in order, on this thread
  {
    Array<Any> deep{Counter(&live)};
    for (int i = 0; i < 200000; ++i) deep = Array<Any>{deep};
    deep = Array<Any>{};  // the old chain goes on assignment too
    CHECK(live == 0);
  }
}

TEST_CASE("Array growth, copies and release with objects among plain values", "[array]") {
  // Growth past a few hundred elements goes through realloc; copies and the
  // destructor skip runs of plain cells a block at a time. Objects placed
  // after long plain runs, in a block's tail and at the very end must still
  // gain and lose exactly one reference per holder.
  int live = 0;
  {
    Counter obj(&live);
    Array<Any> arr;
    const int kN = 1000;
    for (int i = 0; i < kN; ++i) {
      if (i == 17 || i == 500 || i == kN - 1) {
        arr.push_back(obj);
      } else {
        arr.push_back(int64_t{i});
      }
    }
    CHECK(obj.use_count() == 4);
    CHECK(arr.size() == static_cast<size_t>(kN));
    CHECK(arr[16].cast<int64_t>() == 16);
    CHECK(arr[998].cast<int64_t>() == 998);
    {
      Array<Any> copy = arr;
      copy.Set(0, int64_t{-1});  // copy-on-write: every object gains a reference
      CHECK(obj.use_count() == 7);
      CHECK(arr[0].cast<int64_t>() == 0);
      CHECK(copy[0].cast<int64_t>() == -1);
      CHECK(copy[500].as<containers_test::CounterObj>() == obj.get());
    }
    CHECK(obj.use_count() == 4);
    // Plain only: nothing to count, everything copied.
    Array<int64_t> plain;
    for (int64_t i = 0; i < 37; ++i) plain.push_back(i);
    Array<int64_t> plain_copy = plain;
    plain_copy.Set(36, 0);
    CHECK(plain[36] == 36);
    CHECK(plain_copy[35] == 35);
  }
  CHECK(live == 0);
}

TEST_CASE("Array grows while a weak reference watches it", "[array]") {
  // A weak reference pins the object's address: growth must move the
  // elements to a new object instead of resizing the block in place.
  int live = 0;
  {
    Counter obj(&live);
    Array<Any> arr;
    for (int i = 0; i < 100; ++i) arr.push_back(int64_t{i});
    arr.push_back(obj);
    ObjectPtr<Object> strong = detail::ObjectUnsafe::ObjectPtrFromObjectRef<Object>(arr);
    WeakObjectPtr<Object> weak(strong);
    strong.reset();
    const Object* before = arr.get();
    for (int i = 0; i < 200; ++i) arr.push_back(int64_t{i});
    CHECK(arr.get() != before);
    CHECK(weak.expired());  // the old object is gone, its memory kept by `weak`
    CHECK(arr.size() == 301);
    CHECK(arr[100].as<containers_test::CounterObj>() == obj.get());
    CHECK(obj.use_count() == 2);
  }
  CHECK(live == 0);
}

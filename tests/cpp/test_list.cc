// List<T>: the mutable sequence (type index 75). Element access and errors,
// sharing (every reference sees every change), growth, insert/erase/resize,
// reference counts, and conversions to and from Array through Any.
#include <tvm/ffi/container/list.h>

#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "containers_test_util.h"

using namespace tvm::ffi;
using containers_test::Counter;
using containers_test::ErrorOf;

namespace {
template <typename T>
std::vector<T> Items(const List<T>& l) {
  return std::vector<T>(l.begin(), l.end());
}
}  // namespace

TEST_CASE("List basic operations", "[list]") {
  List<int64_t> l;
  CHECK(l.empty());
  CHECK(l->type_index() == TypeIndex::kTVMFFIList);
  for (int64_t i = 0; i < 10; ++i) l.push_back(i);
  CHECK(l.size() == 10);
  CHECK(l.capacity() >= 10);
  CHECK(l[3] == 3);
  CHECK(l.at(9) == 9);
  CHECK(l.front() == 0);
  CHECK(l.back() == 9);
  l.Set(0, 100);
  CHECK(l[0] == 100);
  l.insert(l.begin() + 1, 50);
  CHECK(Items(l) == std::vector<int64_t>{100, 50, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  std::vector<int64_t> more = {-1, -2};
  l.insert(l.end(), more.begin(), more.end());
  CHECK(l.back() == -2);
  l.erase(l.begin());
  l.erase(l.begin() + 1, l.begin() + 9);
  CHECK(Items(l) == std::vector<int64_t>{50, 9, -1, -2});
  l.pop_back();
  l.resize(5);
  CHECK(Items(l) == std::vector<int64_t>{50, 9, -1, 0, 0});
  l.resize(1);
  CHECK(Items(l) == std::vector<int64_t>{50});
  l.emplace_back(7);
  CHECK(l.back() == 7);
  l.reserve(100);
  CHECK(l.capacity() >= 100);
  l.clear();
  CHECK(l.empty());
  CHECK(List<String>(3, String("ab")).at(2) == "ab");
  CHECK(Items(List<int64_t>{4, 5}) == std::vector<int64_t>{4, 5});
}

TEST_CASE("List errors name the index and the size", "[list]") {
  List<int64_t> l = {1, 2};
  auto [kind, message] = ErrorOf([&] { l.at(2); });
  CHECK(kind == "IndexError");
  CHECK(message == "List index 2 out of range for a List of size 2");
  CHECK(ErrorOf([&] { l.Set(-1, 0); }).first == "IndexError");
  CHECK(ErrorOf([&] { List<int64_t>().pop_back(); }).first == "IndexError");
  CHECK(ErrorOf([&] { l.resize(-1); }).first == "ValueError");
}

TEST_CASE("List is shared: every reference sees changes", "[list]") {
  List<String> a;
  List<String> b = a;
  const Object* obj = a.get();
  for (int i = 0; i < 100; ++i) b.push_back(std::to_string(i));
  CHECK(a.get() == obj);
  CHECK(a.size() == 100);
  CHECK(a[42] == "42");
  a.Set(42, "x");
  CHECK(b[42] == "x");
  // The cells live apart, with a deleter another binary can call when it grows the list.
  const TVMFFISeqCell* cell = TVMFFISeqGetCellPtr(const_cast<Object*>(a.get()));
  CHECK(cell->data_deleter != nullptr);
  CHECK(cell->data != static_cast<const void*>(reinterpret_cast<const char*>(a.get()) + 56));
}

TEST_CASE("List releases its elements", "[list]") {
  int live = 0;
  {
    List<Counter> l;
    Counter c(&live);
    for (int i = 0; i < 10; ++i) l.push_back(c);
    CHECK(c.use_count() == 11);
    l.erase(l.begin(), l.begin() + 5);
    CHECK(c.use_count() == 6);
    l.push_back(Counter(&live));
    CHECK(live == 2);
  }
  CHECK(live == 0);
}

TEST_CASE("List converts through Any", "[list]") {
  List<int64_t> l = {1, 2, 3};
  Any any = l;
  CHECK(any.type_index() == TypeIndex::kTVMFFIList);
  CHECK(any.cast<List<int64_t>>().same_as(l));
  CHECK(any.cast<List<Any>>().same_as(l));
  Array<int64_t> arr = any.cast<Array<int64_t>>();  // List -> Array copies
  CHECK(arr->type_index() == TypeIndex::kTVMFFIArray);
  CHECK(arr.size() == 3);
  l.push_back(4);
  CHECK(arr.size() == 3);
  List<int64_t> from_array = Any(Array<int64_t>{7, 8}).cast<List<int64_t>>();
  CHECK(from_array->type_index() == TypeIndex::kTVMFFIList);
  CHECK(Items(from_array) == std::vector<int64_t>{7, 8});
  auto [kind, message] = ErrorOf([&] { any.cast<List<String>>(); });
  CHECK(kind == "TypeError");
  CHECK(message.find("List[index 0: int]") != std::string::npos);
  CHECK(message.find("List<str>") != std::string::npos);
  CHECK_FALSE(Any(1).try_cast<List<int64_t>>().has_value());
  // Nested in a Map, lists compare by content.
  Map<String, List<int64_t>> x = {{"l", List<int64_t>{1, 2}}};
  Map<String, List<int64_t>> y = {{"l", List<int64_t>{1, 2}}};
  CHECK(x == y);
  y.at("l").push_back(3);
  CHECK(x != y);
  Function push = Function::FromTyped([](List<int64_t> xs) { xs.push_back(9); });
  push(l);
  CHECK(l.back() == 9);
}

namespace {
class ListBaseObj : public Object {
 public:
  explicit ListBaseObj(int v) : value(v) {}
  int value;
  TVM_FFI_DECLARE_OBJECT_INFO("test.list.Base", ListBaseObj, Object);
};
class ListDerivedObj : public ListBaseObj {
 public:
  explicit ListDerivedObj(int v) : ListBaseObj(v) {}
  TVM_FFI_DECLARE_OBJECT_INFO_FINAL("test.list.Derived", ListDerivedObj, ListBaseObj);
};
}  // namespace

TEST_CASE("ListObj edits in place: pop_back, erase, insert, resize", "[list]") {
  List<int64_t> l = {10, 20, 30, 40, 50};
  List<int64_t> alias = l;
  ListObj* obj = l.GetListObj();
  obj->erase(2);
  CHECK(Items(alias) == std::vector<int64_t>{10, 20, 40, 50});
  obj->erase(int64_t{1}, int64_t{3});
  CHECK(Items(alias) == std::vector<int64_t>{10, 50});
  obj->erase(int64_t{1}, int64_t{1});
  CHECK(l.size() == 2);
  obj->pop_back();
  CHECK(Items(alias) == std::vector<int64_t>{10});

  auto bad_index = ErrorOf([&] { obj->erase(1); });
  CHECK(bad_index.first == "IndexError");
  CHECK(bad_index.second == "List index 1 out of range for a List of size 1");
  auto reversed = ErrorOf([&] { obj->erase(int64_t{1}, int64_t{0}); });
  CHECK(reversed.first == "IndexError");
  CHECK(reversed.second == "List::erase: range [1, 0) is not within a List of size 1");
  CHECK(ErrorOf([&] { obj->erase(int64_t{-1}, int64_t{1}); }).first == "IndexError");
  CHECK(ErrorOf([&] { obj->erase(int64_t{0}, int64_t{2}); }).first == "IndexError");

  l.reserve(4);
  obj = l.GetListObj();
  obj->insert(0, Any(int64_t{5}));
  obj->insert(2, Any(int64_t{60}));
  CHECK(Items(l) == std::vector<int64_t>{5, 10, 60});
  CHECK(ErrorOf([&] { obj->insert(4, Any(int64_t{0})); }).first == "IndexError");
  CHECK(ErrorOf([&] { obj->insert(-1, Any(int64_t{0})); }).first == "IndexError");
  while (l.size() < l.capacity()) obj->insert(static_cast<int64_t>(l.size()), Any(int64_t{70}));
  const std::string cap = std::to_string(l.capacity());
  auto full = ErrorOf([&] { obj->insert(0, Any(int64_t{0})); });
  CHECK(full.first == "ValueError");
  CHECK(full.second == "List: no room for 1 more element(s) (size " + cap + ", capacity " + cap +
                           "); reserve first");
  CHECK(l.size() == l.capacity());
  CHECK(l[2] == 60);

  obj->resize(2);
  CHECK(Items(l) == std::vector<int64_t>{5, 10});
  CHECK(ErrorOf([&] { obj->resize(-1); }).first == "ValueError");
  CHECK(ErrorOf([&] { obj->resize(static_cast<int64_t>(l.capacity()) + 1); }).first ==
        "ValueError");
  obj->resize(4);  // grows with None
  List<Any> as_any(l);
  CHECK(as_any[3] == nullptr);
  obj->pop_back();
  obj->pop_back();
  obj->pop_back();
  obj->pop_back();
  CHECK(l.empty());
  CHECK(ErrorOf([&] { obj->pop_back(); }).first == "IndexError");
}

TEST_CASE("ListObj erase releases the removed elements", "[list]") {
  int live = 0;
  {
    List<Counter> l;
    for (int i = 0; i < 5; ++i) l.push_back(Counter(&live));
    CHECK(live == 5);
    l.GetListObj()->erase(int64_t{0}, int64_t{3});
    CHECK(live == 2);
    l.GetListObj()->pop_back();
    CHECK(live == 1);
  }
  CHECK(live == 0);
}

TEST_CASE("List<Any> shares a List<int>; wrong elements read back as TypeError", "[list]") {
  List<int64_t> ints = {1, 2};
  List<Any> any = ints;  // the same list, no copy
  CHECK(any.GetListObj() == ints.GetListObj());
  any.push_back(3);
  CHECK(Items(ints) == std::vector<int64_t>{1, 2, 3});
  List<Any> assigned;
  assigned = ints;
  CHECK(assigned.GetListObj() == ints.GetListObj());

  any.push_back(String("four"));
  CHECK(ints.size() == 4);
  CHECK(ints[2] == 3);
  auto err = ErrorOf([&] { (void)ints[3]; });
  CHECK(err.first == "TypeError");
  CHECK(err.second.find("`int`") != std::string::npos);
  CHECK(ErrorOf([&] {
          for (int64_t v : ints) (void)v;
        }).first == "TypeError");

  List<Any> moved = std::move(ints);
  CHECK(moved.size() == 4);
  // Only subsuming conversions share.
  STATIC_CHECK(std::is_convertible_v<List<int64_t>, List<Any>>);
  STATIC_CHECK(!std::is_convertible_v<List<Any>, List<int64_t>>);
  STATIC_CHECK(!std::is_convertible_v<List<int64_t>, List<String>>);
}

TEST_CASE("List of ObjectPtr<Derived> converts to List of ObjectPtr<Base>", "[list]") {
  List<ObjectPtr<ListDerivedObj>> derived;
  derived.push_back(make_object<ListDerivedObj>(7));
  List<ObjectPtr<ListBaseObj>> base = derived;
  CHECK(base.GetListObj() == derived.GetListObj());
  CHECK(base[0]->value == 7);
  STATIC_CHECK(
      !std::is_convertible_v<List<ObjectPtr<ListBaseObj>>, List<ObjectPtr<ListDerivedObj>>>);
  // A Base stored through the wider list is no Derived: reading it as one throws.
  base.push_back(make_object<ListBaseObj>(8));
  CHECK(ErrorOf([&] { (void)derived[1]; }).first == "TypeError");
  CHECK(derived[0]->value == 7);
  STATIC_CHECK(!List<int64_t>::_type_container_is_exact);
  STATIC_CHECK(!object_ref_contains_v<List<int64_t>, ListObj>);
}

TEST_CASE("ffi.List globals from C++", "[list]") {
  Function make = Function::GetGlobalRequired("ffi.List");
  Function size = Function::GetGlobalRequired("ffi.ListSize");
  Function get = Function::GetGlobalRequired("ffi.ListGetItem");
  Function set = Function::GetGlobalRequired("ffi.ListSetItem");
  Function contains = Function::GetGlobalRequired("ffi.ListContains");
  Function append = Function::GetGlobalRequired("ffi.ListAppend");
  Function insert = Function::GetGlobalRequired("ffi.ListInsert");
  Function pop = Function::GetGlobalRequired("ffi.ListPop");
  Function erase = Function::GetGlobalRequired("ffi.ListErase");
  Function erase_range = Function::GetGlobalRequired("ffi.ListEraseRange");
  Function replace = Function::GetGlobalRequired("ffi.ListReplaceSlice");
  Function reverse = Function::GetGlobalRequired("ffi.ListReverse");
  Function clear = Function::GetGlobalRequired("ffi.ListClear");

  List<Any> l = make(1, "two", 3.5).cast<List<Any>>();
  CHECK(l->type_index() == TypeIndex::kTVMFFIList);
  CHECK(size(l).cast<int64_t>() == 3);
  CHECK(get(l, 1).cast<String>() == "two");
  CHECK(contains(l, "two").cast<bool>());
  CHECK(!contains(l, "three").cast<bool>());

  // Every operation edits the caller's list in place.
  List<Any> alias = l;
  append(l, 4);
  set(l, 0, "one");
  insert(l, 1, 10);  // one, 10, two, 3.5, 4
  insert(l, 5, 20);  // appends at size
  CHECK(alias.size() == 6);
  CHECK(alias[0].cast<String>() == "one");
  CHECK(alias[1].cast<int64_t>() == 10);
  CHECK(alias[5].cast<int64_t>() == 20);
  CHECK(pop(l, 2).cast<String>() == "two");  // one, 10, 3.5, 4, 20
  erase(l, 0);                               // 10, 3.5, 4, 20
  CHECK(alias.size() == 4);
  CHECK(alias[0].cast<int64_t>() == 10);
  erase_range(l, 1, 3);  // 10, 20
  REQUIRE(alias.size() == 2);
  CHECK(alias[1].cast<int64_t>() == 20);
  replace(l, 1, 1, List<Any>{7, 8});  // 10, 7, 8, 20
  replace(l, 0, 2, l);                // the list itself: 10, 7, 8, 20, 8, 20
  REQUIRE(alias.size() == 6);
  CHECK(alias[1].cast<int64_t>() == 7);
  CHECK(alias[3].cast<int64_t>() == 20);
  reverse(l);  // 20, 8, 20, 8, 7, 10
  CHECK(alias[0].cast<int64_t>() == 20);
  CHECK(alias[5].cast<int64_t>() == 10);
  clear(l);
  CHECK(alias.empty());

  auto [kind, message] = ErrorOf([&] { get(l, 0); });
  CHECK(kind == "IndexError");
  CHECK(message == "ffi.ListGetItem: index 0 out of range for a List of size 0");
  std::tie(kind, message) = ErrorOf([&] { insert(l, 2, 1); });
  CHECK(kind == "IndexError");
  CHECK(message == "ffi.ListInsert: index 2 is not within [0, 0]");
  std::tie(kind, message) = ErrorOf([&] { erase_range(l, 0, 1); });
  CHECK(kind == "IndexError");
  // An Array is no List: the edit would be lost on a copy.
  std::tie(kind, message) = ErrorOf([&] { append(Array<Any>{1}, 2); });
  CHECK(kind == "TypeError");
}

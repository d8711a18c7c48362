// List<T>: the mutable sequence (type index 75). Element access and errors,
// sharing (every reference sees every change), growth, insert/erase/resize,
// reference counts, and conversions to and from Array through Any.
#include <tvm/ffi/container/list.h>

#include <string>
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

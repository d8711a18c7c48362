// Runs the strict-C11 container checks of test_containers_c.c under Catch2.
#include <catch2/catch_test_macros.hpp>

extern "C" int tvmffi_containers_c_array(void);
extern "C" int tvmffi_containers_c_map(void);

TEST_CASE("Array built and read from C", "[containers_c][array]") {
  CHECK(tvmffi_containers_c_array() == 0);
}

TEST_CASE("Map built and read from C", "[containers_c][map]") {
  CHECK(tvmffi_containers_c_map() == 0);
}

// ---- test_map_layout_c.c: containers made here, read from C by layout alone ----
#include <tvm/ffi/container/dict.h>
#include <tvm/ffi/container/list.h>
#include <tvm/ffi/container/map.h>

#include <string>

extern "C" int tvmffi_map_layout_c_read(TVMFFIObjectHandle map, int n, int32_t type_index);
extern "C" int tvmffi_list_layout_c_read(TVMFFIObjectHandle list, int n);

namespace {
std::string LayoutKey(int i) {
  return (i % 2 == 0 ? "key-" : "a longer key ") + std::to_string(i);
}
TVMFFIObjectHandle HandleOf(const tvm::ffi::ObjectRef& ref) {
  return const_cast<tvm::ffi::Object*>(ref.get());
}
}  // namespace

TEST_CASE("Map and Dict read from C by the documented layout", "[containers_c][map][layout]") {
  using namespace tvm::ffi;
  for (int n : {0, 1, 3, 4, 5, 12, 100, 2000}) {
    CAPTURE(n);
    Map<String, int64_t> grown;
    Dict<String, int64_t> dict;
    std::vector<std::pair<String, int64_t>> pairs;
    for (int i = 0; i < n; ++i) {
      grown.Set(LayoutKey(i), i);
      dict.Set(LayoutKey(i), i);
      pairs.emplace_back(LayoutKey(i), i);
    }
    Map<String, int64_t> at_once(pairs.begin(), pairs.end());
    CHECK(tvmffi_map_layout_c_read(HandleOf(grown), n, TypeIndex::kTVMFFIMap) == 0);
    CHECK(tvmffi_map_layout_c_read(HandleOf(at_once), n, TypeIndex::kTVMFFIMap) == 0);
    CHECK(tvmffi_map_layout_c_read(HandleOf(dict), n, TypeIndex::kTVMFFIDict) == 0);
  }
}

TEST_CASE("List read from C by the documented layout", "[containers_c][list][layout]") {
  tvm::ffi::List<int64_t> list;
  CHECK(tvmffi_list_layout_c_read(HandleOf(list), 0) == 0);
  for (int64_t i = 0; i < 37; ++i) list.push_back(i);
  CHECK(tvmffi_list_layout_c_read(HandleOf(list), 37) == 0);
}

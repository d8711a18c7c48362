// Containers and standard types across the FFI.
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>
#include <tvm/ffi/container/variant.h>
#include <tvm/ffi/extra/stl.h>  // std::vector, std::map, ... as arguments and results
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ffi = tvm::ffi;

int main() {
  ffi::Array<int64_t> a{1, 2, 3};
  ffi::Array<int64_t> b = a;  // shares the data; copy on write
  b.push_back(4);
  std::printf("a: %zu items, b: %zu items\n", a.size(), b.size());  // 3, 4

  ffi::Map<ffi::String, int64_t> m{{"one", 1}, {"two", 2}};
  m.Set("three", 3);
  for (const auto& kv : m) {
    std::printf("%s=%lld ", kv.first.c_str(), static_cast<long long>(kv.second));
  }
  std::printf("\n");  // one=1 two=2 three=3: insertion order

  ffi::Optional<ffi::String> none;
  ffi::Variant<int64_t, ffi::String> v = ffi::String("text");
  std::printf("%s, %s\n", none.value_or("empty").c_str(), v.get<ffi::String>().c_str());

  // Casting checks every element; a mismatch names the index and the type.
  ffi::Any any = a;
  try {
    any.cast<ffi::Array<ffi::String>>();
  } catch (const ffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());  // TypeError: ...
  }

  // With extra/stl.h, typed functions take and return standard containers (copied).
  ffi::Function count_words = ffi::Function::FromTyped(
      [](std::vector<std::string> words) {
        std::map<std::string, int64_t> counts;
        for (const std::string& w : words) ++counts[w];
        return counts;
      },
      "count_words");
  ffi::Map<ffi::String, int64_t> counts =
      count_words(ffi::Array<ffi::String>{"a", "b", "a"}).cast<ffi::Map<ffi::String, int64_t>>();
  std::printf("a: %lld, b: %lld\n", static_cast<long long>(counts["a"]),
              static_cast<long long>(counts["b"]));  // a: 2, b: 1
  return 0;
}

// JSON text <-> ffi values.
#include <tvm/ffi/any.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/string.h>

#include <cstdio>

namespace ffi = tvm::ffi;
namespace json = tvm::ffi::json;

int main() {
  json::Value v = json::Parse(R"({"op": "relu", "shape": [2, 3], "eps": 1e-5})");
  json::Object obj = v.cast<json::Object>();  // a Map<Any, Any>, keys in document order
  int64_t rows = obj["shape"].cast<json::Array>()[0].cast<int64_t>();
  std::printf("op %s, rows %lld\n", obj["op"].cast<ffi::String>().c_str(),
              static_cast<long long>(rows));           // op relu, rows 2
  std::printf("%s\n", json::Stringify(v).c_str());     // {"op":"relu","shape":[2,3],"eps":1e-05}
  std::printf("%s\n", json::Stringify(v, 2).c_str());  // indented by two spaces

  ffi::String error;
  json::Parse("[1, 2", &error);        // with an error string: no exception, a None result
  std::printf("%s\n", error.c_str());  // Expecting ',' delimiter: line 1 column 6 (char 5)
  try {
    json::Parse("{\"a\": }");
  } catch (const ffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());  // ValueError: ...
  }
  return 0;
}

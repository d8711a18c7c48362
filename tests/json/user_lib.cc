// A shared library built with our <tvm/ffi/extra/json.h>, dataclass.h
// and serialization.h (test_json_no_interposition): it must not export
// json::Parse, json::Stringify, ReprPrint, ToJSONGraph or FromJSONGraph under
// upstream's mangled names.
#include <tvm/ffi/extra/dataclass.h>
#include <tvm/ffi/extra/json.h>
#include <tvm/ffi/extra/serialization.h>

// Taking the addresses makes the compiler emit the inline functions.
extern "C" __attribute__((visibility("default"))) void* tvmffi_test_json_user_parse() {
  return reinterpret_cast<void*>(&tvm::ffi::json::Parse);
}
extern "C" __attribute__((visibility("default"))) void* tvmffi_test_json_user_stringify() {
  return reinterpret_cast<void*>(&tvm::ffi::json::Stringify);
}
extern "C" __attribute__((visibility("default"))) void* tvmffi_test_json_user_repr() {
  return reinterpret_cast<void*>(&tvm::ffi::ReprPrint);
}
extern "C" __attribute__((visibility("default"))) void* tvmffi_test_json_user_to_graph() {
  return reinterpret_cast<void*>(&tvm::ffi::ToJSONGraph);
}
extern "C" __attribute__((visibility("default"))) void* tvmffi_test_json_user_from_graph() {
  return reinterpret_cast<void*>(&tvm::ffi::FromJSONGraph);
}

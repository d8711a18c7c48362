// Functions and the global registry, in C++.
#include <tvm/ffi/any.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/reflection/registry.h>
#include <tvm/ffi/string.h>

#include <cstdio>

namespace ffi = tvm::ffi;

// Registered when the program (or library) is loaded.
TVM_FFI_STATIC_INIT_BLOCK() {
  ffi::reflection::GlobalDef().def("example.add", [](int64_t a, int64_t b) { return a + b; });
}

int main() {
  // A typed function: arguments are converted and checked, the result is an ffi::Any.
  ffi::Function mul = ffi::Function::FromTyped([](int64_t a, int64_t b) { return a * b; }, "mul");
  std::printf("mul(6, 7) = %lld\n", static_cast<long long>(mul(6, 7).cast<int64_t>()));

  // A packed function sees the arguments as they come.
  ffi::Function count = ffi::Function::FromPacked(
      [](ffi::PackedArgs args, ffi::Any* ret) { *ret = static_cast<int64_t>(args.size()); });
  std::printf("count(1, \"two\", 3.0) = %lld\n",
              static_cast<long long>(count(1, "two", 3.0).cast<int64_t>()));

  // The global registry: any binary in the process can look the function up by name.
  ffi::Function::SetGlobal("example.mul", mul, /*override=*/true);
  ffi::Optional<ffi::Function> found = ffi::Function::GetGlobal("example.mul");
  std::printf("example.mul is %s\n", found.has_value() ? "registered" : "missing");

  // TypedFunction: a Function with a C++ signature.
  ffi::TypedFunction<int64_t(int64_t, int64_t)> add =
      ffi::Function::GetGlobalRequired("example.add");
  std::printf("example.add(40, 2) = %lld\n", static_cast<long long>(add(40, 2)));

  try {
    mul(6, "seven");
  } catch (const ffi::Error& e) {  // TypeError: Mismatched type on argument #1 when calling: ...
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());
  }
  return 0;
}

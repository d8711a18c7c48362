// A C++ host: load a kernel library and call one of its functions.
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <cstdio>

namespace ffi = tvm::ffi;

int main(int argc, char** argv) {
  float xs[4] = {1, 2, 3, 4}, ys[4];
  int64_t shape[1] = {4};
  DLTensor x{xs, DLDevice{kDLCPU, 0}, 1, ffi::dl_float32, shape, nullptr, 0};
  DLTensor y{ys, DLDevice{kDLCPU, 0}, 1, ffi::dl_float32, shape, nullptr, 0};
  try {
    ffi::Module mod = ffi::Module::LoadFromFile(argc > 1 ? argv[1] : "./libadd_one.so");
    ffi::Function add_one = mod->GetFunctionRequired("add_one");  // AttributeError if missing
    add_one(&x, &y);               // DLTensor*, ffi::TensorView or ffi::Tensor arguments
  } catch (const ffi::Error& e) {  // what the loader or the kernel raised, e.g. a TypeError
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());
    return 1;
  }
  std::printf("y = %g %g %g %g\n", ys[0], ys[1], ys[2], ys[3]);  // y = 2 3 4 5
  return 0;
}

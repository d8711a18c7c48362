// A C++ host: load mykernels (docs/examples/kernel), inspect it, call it, allocate for it.
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/env.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>

namespace ffi = tvm::ffi;

// Memory for the tensors this host makes: Tensor::FromNDAlloc calls AllocData / FreeData.
struct HostAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

int main(int argc, char** argv) {
  ffi::Module mod = ffi::Module::LoadFromFile(argc > 1 ? argv[1] : "build/libmykernels.so");
  for (const ffi::String& name : mod->ListFunctions()) std::printf("%s ", name.c_str());
  std::printf("\n");  // add greet scale scale_alloc sum
  if (ffi::Optional<ffi::String> meta = mod->GetFunctionMetadata("scale")) {
    std::printf("scale: %s\n", meta->c_str());  // {"name":"scale","args":[...],...}
  }
  if (!mod->GetFunction("no_such_function").has_value()) std::printf("no no_such_function\n");

  ffi::Tensor x = ffi::Tensor::FromNDAlloc(HostAlloc(), {2, 2}, ffi::dl_float32, {kDLCPU, 0});
  ffi::Tensor y = ffi::Tensor::FromNDAlloc(HostAlloc(), {2, 2}, ffi::dl_float32, {kDLCPU, 0});
  for (int i = 0; i < 4; ++i) static_cast<float*>(x.data_ptr())[i] = static_cast<float>(i);
  mod->GetFunctionRequired("scale")(y, x, 10.0);
  std::printf("y[3] = %g\n", static_cast<float*>(y.data_ptr())[3]);  // y[3] = 30

  // scale_alloc allocates its result with the host's allocator: install one.
  ffi::EnvTensorAllocatorGuard guard(ffi::CPUTensorAllocator);
  ffi::Tensor z = mod->GetFunctionRequired("scale_alloc")(x, 0.5).cast<ffi::Tensor>();
  std::printf("z: %d elements, z[3] = %g\n", static_cast<int>(z.numel()),
              static_cast<float*>(z.data_ptr())[3]);  // z: 4 elements, z[3] = 1.5

  try {
    mod->GetFunctionRequired("greet")("");
  } catch (const ffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());  // ValueError: ...
  }
  return 0;
}

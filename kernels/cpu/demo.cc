/*
 * tvmffi_demo: a C++ host in a few steps.
 *
 *  1. Make a Function from a C++ lambda, register it as a global, and call it
 *     through the plain C ABI (TVMFFIFunctionGetGlobal + TVMFFIFunctionCall).
 *  2. Catch the error a bad call raises (kind + message).
 *  3. Load the CPU kernel library with Module::LoadFromFile, read a function's
 *     signature from its metadata, call add_one on a tensor and print it.
 *  4. Call add_one with a wrong argument and print the caught error.
 *  5. Let the library allocate a tensor with the host's allocator (FromEnvAlloc).
 *
 * Usage: tvmffi_demo [path/to/libtvmffi_cpu_kernels.so]
 */
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/env.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/function.h>

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace ffi = tvm::ffi;

namespace {

// Host memory for the tensors this program creates.
struct CPUAlloc {
  void AllocData(DLTensor* t) { t->data = std::malloc(ffi::GetDataSize(*t)); }
  void FreeData(DLTensor* t) { std::free(t->data); }
};

ffi::Tensor MakeTensor(std::initializer_list<float> values) {
  ffi::Tensor t = ffi::Tensor::FromNDAlloc(CPUAlloc(), {static_cast<int64_t>(values.size())},
                                           DLDataType{kDLFloat, 32, 1}, DLDevice{kDLCPU, 0});
  float* p = static_cast<float*>(t.data_ptr());
  for (float v : values) *p++ = v;
  return t;
}

std::string Show(ffi::TensorView t) {
  std::string s = "[";
  const float* p = static_cast<const float*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%s%g", i ? ", " : "", p[i]);
    s += buf;
  }
  return s + "]";
}

}  // namespace

int main(int argc, char** argv) {
  const char* lib_path = argc > 1 ? argv[1] : TVMFFI_DEMO_KERNELS_PATH;

  // 1. A typed C++ function, registered globally, called through the C ABI.
  ffi::Function::SetGlobal(
      "demo.mul", ffi::Function::FromTyped([](int64_t a, int64_t b) { return a * b; }, "demo.mul"),
      /*override=*/true);
  TVMFFIByteArray name{"demo.mul", 8};
  TVMFFIObjectHandle mul = nullptr;
  if (TVMFFIFunctionGetGlobal(&name, &mul) != 0 || mul == nullptr) return 1;
  TVMFFIAny args[2];
  args[0].type_index = kTVMFFIInt;
  args[0].zero_padding = 0;
  args[0].v_int64 = 6;
  args[1].type_index = kTVMFFIInt;
  args[1].zero_padding = 0;
  args[1].v_int64 = 7;
  TVMFFIAny result;
  result.type_index = kTVMFFINone;
  if (TVMFFIFunctionCall(mul, args, 2, &result) == 0) {
    std::printf("[1] demo.mul(6, 7) through the C ABI = %lld\n",
                static_cast<long long>(result.v_int64));
  }

  // 2. A bad call: the error comes back as -1 plus a raised Error object.
  args[1].type_index = kTVMFFIRawStr;
  args[1].v_c_str = "seven";
  result.type_index = kTVMFFINone;
  if (TVMFFIFunctionCall(mul, args, 2, &result) != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    std::printf("[2] demo.mul(6, \"seven\") raised %.*s: %.*s\n", static_cast<int>(cell->kind.size),
                cell->kind.data, static_cast<int>(cell->message.size), cell->message.data);
    TVMFFIObjectDecRef(err);
  }
  TVMFFIObjectDecRef(mul);

  try {
    // 3. Load the kernel library and call add_one.
    ffi::Module mod = ffi::Module::LoadFromFile(lib_path);
    std::printf("[3] loaded %s\n", lib_path);
    if (ffi::Optional<ffi::String> meta = mod->GetFunctionMetadata("add_one")) {
      std::printf("    add_one metadata: %s\n", meta->c_str());
    }
    ffi::Function add_one = mod->GetFunctionRequired("add_one");
    ffi::Tensor x = MakeTensor({1, 2, 3, 4});
    ffi::Tensor y = MakeTensor({0, 0, 0, 0});
    add_one(x, y);
    std::printf("    add_one(x=%s, y) -> y = %s\n", Show(x).c_str(), Show(y).c_str());

    // 4. A wrong argument: the kernel's checks raise, the host catches.
    try {
      add_one(x, 42);
    } catch (const ffi::Error& e) {
      std::printf("[4] add_one(x, 42) raised %s: %s\n", e.kind().c_str(), e.message().c_str());
    }
    try {
      add_one(x, MakeTensor({0, 0}));
    } catch (const ffi::Error& e) {
      std::printf("    add_one(x, <2 elements>) raised %s: %s\n", e.kind().c_str(),
                  e.message().c_str());
    }

    // 5. The library allocates its result with the host's allocator (a
    //    framework installs its own; this host uses the ready CPU one).
    ffi::EnvTensorAllocatorGuard allocator(ffi::CPUTensorAllocator);
    ffi::Tensor z = mod->GetFunctionRequired("scale_alloc")(x, 2.5).cast<ffi::Tensor>();
    std::printf("[5] scale_alloc(x, 2.5) = %s\n", Show(z).c_str());
    std::printf("    greet(\"tvmffi\") = %s\n",
                mod->GetFunctionRequired("greet")("tvmffi").cast<ffi::String>().c_str());
  } catch (const ffi::Error& e) {
    std::fprintf(stderr, "demo failed: %s: %s\n", e.kind().c_str(), e.message().c_str());
    return 1;
  }
  return 0;
}

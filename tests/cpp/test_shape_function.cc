// TVM_FFI_DLL_EXPORT_SHAPE: the exported C symbol `__tvm_ffi__shape_<name>`
// answers from metadata-only tensors (data NULL), with the function's error
// kinds; the CPU kernel library declares it for scale_alloc.
#include <dlfcn.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/module.h>
#include <tvm/ffi/extra/shape_function.h>
#include <tvm/ffi/function.h>
#include <catch2/catch_test_macros.hpp>

#include <string>
#include <vector>

namespace ffi = tvm::ffi;

namespace {

// The macro needs only the function's arity; the body is not run here.
int64_t RowSums(ffi::TensorView x, int64_t keep) {
  return x.ndim() + keep;
}

std::vector<ffi::TensorSpec> RowSumsShape(ffi::TensorView x, int64_t keep) {
  TVM_FFI_CHECK(x.ndim() == 2, ValueError) << "row_sums: `x` must be 2-D, got " << x.ndim() << "-D";
  TVM_FFI_CHECK(keep >= 0, ValueError) << "row_sums: `keep` must be >= 0";
  return {ffi::TensorSpec({x.shape()[0], keep}, x.dtype(), x.device()),
          ffi::TensorSpec({x.ndim()}, DLDataType{kDLInt, 64, 1}, DLDevice{kDLCPU, 0})};
}

}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(row_sums, RowSums);
TVM_FFI_DLL_EXPORT_SHAPE(row_sums, RowSumsShape);
// A lambda, returning one spec.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(same, [](ffi::TensorView x) { return x.shape().size(); });
TVM_FFI_DLL_EXPORT_SHAPE(same, [](ffi::TensorView x) { return ffi::TensorSpec::Like(x); });

namespace {

// A metadata-only tensor: no data, no strides.
struct MetaTensor {
  std::vector<int64_t> shape;
  DLTensor dl{};
  MetaTensor(std::vector<int64_t> s, DLDataType dtype, DLDevice device) : shape(std::move(s)) {
    dl.data = nullptr;
    dl.device = device;
    dl.ndim = static_cast<int32_t>(shape.size());
    dl.dtype = dtype;
    dl.shape = shape.data();
    dl.strides = nullptr;
  }
  TVMFFIAny Any() {
    TVMFFIAny a{};
    a.type_index = kTVMFFIDLTensorPtr;
    a.v_ptr = &dl;
    return a;
  }
};

TVMFFIAny Int(int64_t v) {
  TVMFFIAny a{};
  a.type_index = kTVMFFIInt;
  a.v_int64 = v;
  return a;
}

TVMFFIAny Float(double v) {
  TVMFFIAny a{};
  a.type_index = kTVMFFIFloat;
  a.v_float64 = v;
  return a;
}

// Calls a shape symbol as a C host would; the JSON on success, else the error's kind.
struct Answer {
  int rc;
  std::string text;  // the JSON, or the error kind
  std::string message;
};

Answer CallShape(TVMFFISafeCallType fn, std::vector<TVMFFIAny> args) {
  TVMFFIAny out{};
  int rc = fn(nullptr, args.data(), static_cast<int32_t>(args.size()), &out);
  if (rc != 0) {
    TVMFFIObjectHandle err = nullptr;
    TVMFFIErrorMoveFromRaised(&err);
    REQUIRE(err != nullptr);
    TVMFFIErrorCell* cell = TVMFFIErrorGetCellPtr(err);
    Answer a{rc, std::string(cell->kind.data, cell->kind.size),
             std::string(cell->message.data, cell->message.size)};
    TVMFFIObjectDecRef(err);
    return a;
  }
  ffi::String s = ffi::detail::AnyUnsafe::MoveTVMFFIAnyToAny(&out).cast<ffi::String>();
  return {0, std::string(s), ""};
}

constexpr DLDataType kF32{kDLFloat, 32, 1};
constexpr DLDataType kI32{kDLInt, 32, 1};

}  // namespace

TEST_CASE("TVM_FFI_DLL_EXPORT_SHAPE exports a C-callable shape function", "[shape]") {
  MetaTensor x({3, 5}, kF32, DLDevice{kDLCUDA, 1});
  Answer a = CallShape(__tvm_ffi__shape_row_sums, {x.Any(), Int(7)});
  REQUIRE(a.rc == 0);
  REQUIRE(a.text == R"([{"shape":[3,7],"dtype":"float32","device":[2,1]},)"
                    R"({"shape":[2],"dtype":"int64","device":[1,0]}])");

  MetaTensor y({4}, kI32, DLDevice{kDLCPU, 0});
  a = CallShape(__tvm_ffi__shape_same, {y.Any()});
  REQUIRE(a.rc == 0);
  REQUIRE(a.text == R"([{"shape":[4],"dtype":"int32","device":[1,0]}])");
}

TEST_CASE("A shape function fails with the function's error kinds", "[shape]") {
  MetaTensor x3({3, 5, 2}, kF32, DLDevice{kDLCPU, 0});
  Answer a = CallShape(__tvm_ffi__shape_row_sums, {x3.Any(), Int(1)});
  REQUIRE(a.rc == -1);
  REQUIRE(a.text == "ValueError");

  MetaTensor x({3, 5}, kF32, DLDevice{kDLCPU, 0});
  a = CallShape(__tvm_ffi__shape_row_sums, {x.Any(), Int(-1)});
  REQUIRE(a.text == "ValueError");
  // Argument conversion errors are those of the exported function: a float
  // where a tensor goes, and a wrong argument count.
  a = CallShape(__tvm_ffi__shape_row_sums, {Float(1.0), Int(1)});
  REQUIRE(a.text == "TypeError");
  a = CallShape(__tvm_ffi__shape_row_sums, {x.Any()});
  REQUIRE(a.text == "TypeError");
}

TEST_CASE("The CPU kernels export scale_alloc's shape function", "[shape]") {
  ffi::Module mod = ffi::Module::LoadFromFile(TVMFFI_TEST_CPU_KERNELS);
  void* lib = dlopen(TVMFFI_TEST_CPU_KERNELS, RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib != nullptr);
  auto fn = reinterpret_cast<TVMFFISafeCallType>(dlsym(lib, "__tvm_ffi__shape_scale_alloc"));
  REQUIRE(fn != nullptr);
  MetaTensor x({2, 3}, DLDataType{kDLFloat, 64, 1}, DLDevice{kDLCPU, 0});
  Answer a = CallShape(fn, {x.Any(), Float(2.0)});
  REQUIRE(a.rc == 0);
  REQUIRE(a.text == R"([{"shape":[2,3],"dtype":"float64","device":[1,0]}])");
  // The kernel's own checks, without data: an int32 tensor is a TypeError,
  // a CUDA tensor a ValueError.
  MetaTensor xi({2}, kI32, DLDevice{kDLCPU, 0});
  REQUIRE(CallShape(fn, {xi.Any(), Float(2.0)}).text == "TypeError");
  MetaTensor xc({2}, kF32, DLDevice{kDLCUDA, 0});
  REQUIRE(CallShape(fn, {xc.Any(), Float(2.0)}).text == "ValueError");
  // scale(out, in, factor) fills `out`: with None for it, the output's spec.
  auto scale = reinterpret_cast<TVMFFISafeCallType>(dlsym(lib, "__tvm_ffi__shape_scale"));
  REQUIRE(scale != nullptr);
  TVMFFIAny none{};
  none.type_index = kTVMFFINone;
  a = CallShape(scale, {none, x.Any(), Float(2.0)});
  REQUIRE(a.rc == 0);
  REQUIRE(a.text == R"([{"shape":[2,3],"dtype":"float64","device":[1,0]}])");
  REQUIRE(CallShape(scale, {none, xi.Any(), Float(2.0)}).text == "TypeError");
  // A function that returns no tensor it allocates declares none.
  REQUIRE(dlsym(lib, "__tvm_ffi__shape_add") == nullptr);
  // Reserved for the loader, like the metadata symbols: not a module function.
  REQUIRE_FALSE(mod->GetFunction("_shape_scale_alloc").has_value());
  dlclose(lib);
}

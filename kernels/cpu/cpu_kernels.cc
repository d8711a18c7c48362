/*
 * libtvmffi_cpu_kernels.so: a small CPU kernel library written the way the
 * kernel library guide describes (TensorView arguments, pre-allocated
 * outputs, Optional for optional inputs, TVM_FFI_CHECK for user errors,
 * FromEnvAlloc for tensors the library allocates), exported with
 * TVM_FFI_DLL_EXPORT_TYPED_FUNC. Load it with Module::LoadFromFile or
 * `tvmffi call build/release/kernels/libtvmffi_cpu_kernels.so add_int 2 3`.
 */
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/error.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/shape_function.h>
#include <tvm/ffi/function.h>
#include <tvm/ffi/optional.h>
#include <tvm/ffi/string.h>

#include <cstdint>

namespace ffi = tvm::ffi;

namespace {

constexpr DLDataType dl_float32{kDLFloat, 32, 1};
constexpr DLDataType dl_float64{kDLFloat, 64, 1};

// [check_macros] Reusable input checks on top of TVM_FFI_CHECK: the kind tells
// the caller what was wrong, the message names the argument.
#define CHECK_CPU(x)                                            \
  TVM_FFI_CHECK((x).device().device_type == kDLCPU, ValueError) \
      << "`" #x "` must be a CPU tensor, got a tensor on " << (x).device()
#define CHECK_CONTIGUOUS(x) \
  TVM_FFI_CHECK((x).is_contiguous(), ValueError) << "`" #x "` must be contiguous"
// The loops read elements through typed pointers: a tensor whose data is not
// aligned to its element size (a DLPack producer may hand one in) is refused.
#define CHECK_ALIGNED(x)                                                                \
  TVM_FFI_CHECK(IsElementAligned(x), ValueError)                                        \
      << "`" #x "` must be aligned to its element size, got data at " << (x).data_ptr() \
      << " for dtype " << (x).dtype()
#define CHECK_INPUT(x) \
  CHECK_CPU(x);        \
  CHECK_CONTIGUOUS(x); \
  CHECK_ALIGNED(x)
#define CHECK_SAME_SHAPE(x, y)                                                            \
  TVM_FFI_CHECK((x).shape() == (y).shape(), ValueError)                                   \
      << "`" #x "` and `" #y "` must have the same shape, got " << (x).shape() << " and " \
      << (y).shape()
#define CHECK_SAME_DTYPE(x, y)                                                            \
  TVM_FFI_CHECK((x).dtype() == (y).dtype(), TypeError)                                    \
      << "`" #x "` and `" #y "` must have the same dtype, got " << (x).dtype() << " and " \
      << (y).dtype()

// Runs body with `scalar_t` bound to the C type of `dtype` (float32 / float64).
#define DISPATCH_FLOAT(dtype, name, ...)                                  \
  [&] {                                                                   \
    if ((dtype) == dl_float32) {                                          \
      using scalar_t = float;                                             \
      return __VA_ARGS__();                                               \
    } else if ((dtype) == dl_float64) {                                   \
      using scalar_t = double;                                            \
      return __VA_ARGS__();                                               \
    }                                                                     \
    TVM_FFI_THROW(TypeError) << name << ": unsupported dtype " << (dtype) \
                             << " (expected float32 or float64)";         \
  }()

template <typename TensorLike>
bool IsElementAligned(const TensorLike& t) {
  const DLDataType dt = t.dtype();
  const uintptr_t size = (static_cast<uintptr_t>(dt.bits) * dt.lanes + 7) / 8;
  if (size == 0 || (size & (size - 1)) != 0) return true;  // no alignment to ask for
  return reinterpret_cast<uintptr_t>(t.data_ptr()) % size == 0;
}

template <typename T>
T* Data(ffi::TensorView t) {
  return static_cast<T*>(t.data_ptr());
}

// y = x + 1
void AddOne(ffi::TensorView x, ffi::TensorView y) {
  CHECK_INPUT(x);
  CHECK_INPUT(y);
  CHECK_SAME_DTYPE(x, y);
  CHECK_SAME_SHAPE(x, y);
  const int64_t n = x.numel();
  DISPATCH_FLOAT(x.dtype(), "add_one", [&] {
    const scalar_t* in = Data<scalar_t>(x);
    scalar_t* out = Data<scalar_t>(y);
    for (int64_t i = 0; i < n; ++i) out[i] = in[i] + scalar_t(1);
  });
}

// out = in * factor (the guide's Scale kernel, on the CPU)
void Scale(ffi::TensorView out, ffi::TensorView in, double factor) {
  CHECK_INPUT(in);
  CHECK_INPUT(out);
  CHECK_SAME_DTYPE(in, out);
  CHECK_SAME_SHAPE(in, out);
  const int64_t n = in.numel();
  DISPATCH_FLOAT(in.dtype(), "scale", [&] {
    const scalar_t* src = Data<scalar_t>(in);
    scalar_t* dst = Data<scalar_t>(out);
    for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<scalar_t>(src[i] * factor);
  });
}

// out = a + b, where b is optional (out = a when it is None)
void Add(ffi::TensorView out, ffi::TensorView a, ffi::Optional<ffi::TensorView> b) {
  CHECK_INPUT(a);
  CHECK_INPUT(out);
  CHECK_SAME_DTYPE(a, out);
  CHECK_SAME_SHAPE(a, out);
  if (b.has_value()) {
    ffi::TensorView bv = *b;
    CHECK_INPUT(bv);
    CHECK_SAME_DTYPE(a, bv);
    CHECK_SAME_SHAPE(a, bv);
  }
  const int64_t n = a.numel();
  DISPATCH_FLOAT(a.dtype(), "add", [&] {
    const scalar_t* pa = Data<scalar_t>(a);
    const scalar_t* pb = b.has_value() ? Data<scalar_t>(*b) : nullptr;
    scalar_t* po = Data<scalar_t>(out);
    for (int64_t i = 0; i < n; ++i) po[i] = pb != nullptr ? pa[i] + pb[i] : pa[i];
  });
}

// A new tensor x * factor, allocated by the host's allocator (FromEnvAlloc):
// its memory belongs to the host framework, not to this library.
ffi::Tensor ScaleAlloc(ffi::TensorView x, double factor) {
  CHECK_INPUT(x);
  ffi::Tensor out =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  Scale(out, x, factor);
  return out;
}

// scale_alloc's shape function: the result is like x. It checks what the
// kernel checks before allocating, so a host learns the error without running it.
ffi::TensorSpec LikeFloatCPU(ffi::TensorView x, const char* name) {
  CHECK_CPU(x);
  TVM_FFI_CHECK(x.dtype() == dl_float32 || x.dtype() == dl_float64, TypeError)
      << name << ": unsupported dtype " << x.dtype() << " (expected float32 or float64)";
  return ffi::TensorSpec::Like(x);
}
ffi::TensorSpec ScaleAllocShape(ffi::TensorView x, double /*factor*/) {
  return LikeFloatCPU(x, "scale_alloc");
}

// The outputs scale and add_one fill, for hosts that allocate them (JAX):
// None stands for the output (see tvm/ffi/extra/shape_function.h).
ffi::TensorSpec ScaleShape(ffi::Optional<ffi::TensorView> /*out*/, ffi::TensorView in,
                           double /*factor*/) {
  return LikeFloatCPU(in, "scale");
}
ffi::TensorSpec AddOneShape(ffi::TensorView x, ffi::Optional<ffi::TensorView> /*y*/) {
  return LikeFloatCPU(x, "add_one");
}

// Does nothing with three tensors: the call overhead benchmarks time it.
void Nop3(ffi::TensorView, ffi::TensorView, ffi::TensorView) {}

// Scalars, so that `tvmffi call` and the demo have something simple to call.
// Overflow is an error (signed overflow would be undefined behaviour).
int64_t AddInt(int64_t a, int64_t b) {
  int64_t sum = 0;
  TVM_FFI_CHECK(!__builtin_add_overflow(a, b, &sum), ValueError)
      << "add_int: " << a << " + " << b << " overflows int64";
  return sum;
}

ffi::String Greet(ffi::String name) {
  TVM_FFI_CHECK(!name.empty(), ValueError) << "greet: `name` must not be empty";
  return "Hello, " + name + "!";
}

double Sum(ffi::TensorView x) {
  CHECK_INPUT(x);
  const int64_t n = x.numel();
  double s = 0;
  DISPATCH_FLOAT(x.dtype(), "sum", [&] {
    const scalar_t* p = Data<scalar_t>(x);
    for (int64_t i = 0; i < n; ++i) s += static_cast<double>(p[i]);
  });
  return s;
}

// Owning parameters (ffi::Tensor): the kernel may keep the tensor past the
// call, so a caller must hand over a reference, not a borrowed DLTensor*.

// x[:] = value, then x itself: the returned tensor is the caller's tensor.
ffi::Tensor Fill(ffi::Tensor x, double value) {
  CHECK_INPUT(x);
  const int64_t n = x.numel();
  DISPATCH_FLOAT(x.dtype(), "fill", [&] {
    scalar_t* p = static_cast<scalar_t*>(x.data_ptr());
    for (int64_t i = 0; i < n; ++i) p[i] = static_cast<scalar_t>(value);
  });
  return x;
}

// out = x + bias, or out = x when bias is None (the guide's optional-input signature).
void AddBias(ffi::TensorView x, ffi::Optional<ffi::Tensor> bias, ffi::TensorView out) {
  CHECK_INPUT(x);
  CHECK_INPUT(out);
  CHECK_SAME_DTYPE(x, out);
  CHECK_SAME_SHAPE(x, out);
  if (bias.has_value()) {
    const ffi::Tensor& b = *bias;
    CHECK_INPUT(b);
    CHECK_SAME_DTYPE(x, b);
    CHECK_SAME_SHAPE(x, b);
  }
  const int64_t n = x.numel();
  DISPATCH_FLOAT(x.dtype(), "add_bias", [&] {
    const scalar_t* px = Data<scalar_t>(x);
    const scalar_t* pb =
        bias.has_value() ? static_cast<const scalar_t*>((*bias).data_ptr()) : nullptr;
    scalar_t* po = Data<scalar_t>(out);
    for (int64_t i = 0; i < n; ++i) po[i] = pb != nullptr ? px[i] + pb[i] : px[i];
  });
}

// The sum of the elements of every tensor of `xs`.
double SumAll(ffi::Array<ffi::Tensor> xs) {
  double s = 0;
  for (const ffi::Tensor& x : xs) s += Sum(x);
  return s;
}

// Every tensor of `xs` set to `value`; returns how many were filled.
int64_t FillAll(ffi::Array<ffi::Tensor> xs, double value) {
  for (const ffi::Tensor& x : xs) Fill(x, value);
  return static_cast<int64_t>(xs.size());
}

}  // namespace

// [export] One symbol `__tvm_ffi_<name>` per function, plus `__tvm_ffi__metadata_<name>`.
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, AddOne);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale, Scale);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add, Add);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(scale_alloc, ScaleAlloc);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(greet, Greet);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum, Sum);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(nop3, Nop3);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fill, Fill);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_bias, AddBias);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(sum_all, SumAll);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(fill_all, FillAll);

// [writes] The arguments each function writes: read-only arrays may go to the others
// without a private copy (TVM_FFI_DLL_EXPORT_WRITES, tvmffi extension).
TVM_FFI_DLL_EXPORT_WRITES(add_one, 1);
TVM_FFI_DLL_EXPORT_WRITES(scale, 0);
TVM_FFI_DLL_EXPORT_WRITES(add, 0);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(scale_alloc);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(add_int);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(greet);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(sum);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(nop3);
TVM_FFI_DLL_EXPORT_WRITES(fill, 0);
TVM_FFI_DLL_EXPORT_WRITES(add_bias, 2);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(sum_all);
TVM_FFI_DLL_EXPORT_WRITES(fill_all, 0);

// [shape] What scale_alloc returns, from its arguments' metadata
// (TVM_FFI_DLL_EXPORT_SHAPE, tvmffi extension); for scale and add_one, the
// output they write when the host passes None for it.
TVM_FFI_DLL_EXPORT_SHAPE(scale_alloc, ScaleAllocShape);
TVM_FFI_DLL_EXPORT_SHAPE(scale, ScaleShape);
TVM_FFI_DLL_EXPORT_SHAPE(add_one, AddOneShape);

TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_one, "y = x + 1 (float32/float64, CPU, same shape)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(scale, "out = in * factor (float32/float64, CPU)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add, "out = a + b; b may be None (then out = a)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(scale_alloc,
                                  "A new tensor x * factor, allocated with the host's allocator");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_int, "a + b on 64-bit integers");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(greet, "\"Hello, <name>!\"");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(sum, "The sum of the elements, as a float");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(nop3, "Does nothing with three tensors (call overhead)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(fill, "x[:] = value; returns x itself (an owning ffi.Tensor)");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(add_bias, "out = x + bias; bias (owning, optional) may be None");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(sum_all, "The sum of the elements of every tensor of xs");
TVM_FFI_DLL_EXPORT_TYPED_FUNC_DOC(fill_all, "Every tensor of xs set to value; returns their count");

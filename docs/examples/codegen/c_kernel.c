/* A kernel library in plain C, as a compiler would emit it. */
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

/* The loader writes this library's module here (needed to reach its imports). */
TVM_FFI_DLL_EXPORT void* __tvm_ffi__library_ctx = NULL;

/* A tensor argument: a borrowed DLTensor* or a tensor object; NULL otherwise. */
static DLTensor* as_tensor(const TVMFFIAny* arg) {
  if (arg->type_index == kTVMFFIDLTensorPtr) return (DLTensor*)arg->v_ptr;
  if (arg->type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(arg->v_obj);
  return NULL;
}

/* A compact float32 CPU tensor (strides NULL, or the compact ones)? */
static int is_compact_f32(const DLTensor* t) {
  int64_t expected = 1;
  int32_t i;
  if (t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->dtype.lanes != 1 ||
      t->device.device_type != kDLCPU) {
    return 0;
  }
  for (i = t->ndim - 1; t->strides != NULL && i >= 0; --i) {
    if (t->shape[i] != 1 && t->strides[i] != expected) return 0;
    expected *= t->shape[i];
  }
  return 1;
}

/* c_scale(out, in, factor): out = in * factor, compact float32 CPU tensors. */
TVM_FFI_DLL_EXPORT int __tvm_ffi_c_scale(void* self, const TVMFFIAny* args, int32_t num_args,
                                         TVMFFIAny* result) {
  DLTensor *out, *in;
  float* dst;
  const float* src;
  double factor;
  int64_t i, n = 1;
  (void)self;
  if (num_args != 3) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "c_scale: expected 3 arguments");
    return -1;
  }
  out = as_tensor(&args[0]);
  in = as_tensor(&args[1]);
  if (out == NULL || in == NULL || !is_compact_f32(out) || !is_compact_f32(in) ||
      out->ndim != in->ndim) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "c_scale: out, in: compact float32 CPU tensors");
    return -1;
  }
  if (args[2].type_index == kTVMFFIFloat) {
    factor = args[2].v_float64;
  } else if (args[2].type_index == kTVMFFIInt) {
    factor = (double)args[2].v_int64;
  } else {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "c_scale: factor must be a number");
    return -1;
  }
  for (i = 0; i < in->ndim; ++i) {
    if (in->shape[i] != out->shape[i]) {
      TVMFFIErrorSetRaisedFromCStr("ValueError", "c_scale: out and in differ in shape");
      return -1;
    }
    n *= in->shape[i];
  }
  dst = (float*)((char*)out->data + out->byte_offset);
  src = (const float*)((const char*)in->data + in->byte_offset);
  for (i = 0; i < n; ++i) dst[i] = (float)(src[i] * factor);
  result->type_index = kTVMFFINone;
  return 0;
}

/* scale_by_ten(out, in): calls `scale` of an imported library (see ImportModule). */
TVM_FFI_DLL_EXPORT int __tvm_ffi_scale_by_ten(void* self, const TVMFFIAny* args, int32_t num_args,
                                              TVMFFIAny* result) {
  static TVMFFIObjectHandle scale = NULL; /* borrowed from the module, cached */
  TVMFFIAny call_args[3];
  (void)self;
  if (num_args != 2) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "scale_by_ten: expected 2 arguments");
    return -1;
  }
  if (scale == NULL &&
      TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "scale", &scale) != 0) {
    return -1; /* AttributeError: no import has `scale` */
  }
  call_args[0] = args[0];
  call_args[1] = args[1];
  call_args[2].type_index = kTVMFFIFloat;
  call_args[2].zero_padding = 0;
  call_args[2].v_float64 = 10.0;
  return TVMFFIFunctionCall(scale, call_args, 3, result);
}

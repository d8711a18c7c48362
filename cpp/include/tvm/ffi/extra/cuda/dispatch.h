/*
 * tvmffi C++ layer: dtype dispatch for CUDA kernels.
 *
 * Maps a run-time DLDataType to a compile-time element type and runs a body
 * with that type bound to a name of the caller's choice; any other dtype is a
 * TypeError naming the dtype and the operation:
 *
 * \code
 * TVM_FFI_DISPATCH_FLOAT_TYPES(x.dtype(), "scale", scalar_t, {
 *   ScaleKernel<scalar_t><<<grid, block, 0, stream>>>(...);
 * });
 * // dtype float64 -> TypeError: Unsupported dtype float64 for `scale`
 * \endcode
 *
 * The body is a statement (braces recommended; commas are fine). `return`
 * inside it returns from the enclosing function.
 */
#ifndef TVM_FFI_EXTRA_CUDA_DISPATCH_H_
#define TVM_FFI_EXTRA_CUDA_DISPATCH_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <tvm/ffi/error.h>

#include <cstdint>

namespace tvm {
namespace ffi {
namespace detail {

/*! \brief Throw the dispatch TypeError; out of line to keep dispatch sites small. */
[[noreturn]] TVM_FFI_COLD_CODE inline void ThrowUnsupportedDType(DLDataType dtype, const char* op) {
  TVM_FFI_THROW(TypeError) << "Unsupported dtype " << dtype << " for `" << op << "`";
  TVM_FFI_UNREACHABLE();
}

}  // namespace detail
}  // namespace ffi
}  // namespace tvm

/*!
 * \brief One arm of a dispatch chain: if DT is (CODE, BITS, lanes 1), run the body
 *        with SCALAR_T = CPP_TYPE; otherwise fall through to what follows.
 *
 * Arms chain with a final statement (usually the throw), so custom dtype sets
 * can be built from them:
 * \code
 * TVM_FFI_DISPATCH_CASE(dt, kDLFloat, 32, float, T, body)
 * TVM_FFI_DISPATCH_CASE(dt, kDLInt, 32, int32_t, T, body)
 * { ::tvm::ffi::detail::ThrowUnsupportedDType(dt, "my_op"); }
 * \endcode
 */
#define TVM_FFI_DISPATCH_CASE(DT, CODE, BITS, CPP_TYPE, SCALAR_T, ...)                     \
  if ((DT).code == static_cast<uint8_t>(CODE) && (DT).bits == (BITS) && (DT).lanes == 1) { \
    using SCALAR_T = CPP_TYPE;                                                             \
    __VA_ARGS__;                                                                           \
  } else /* NOLINT */

/*!
 * \brief Dispatch over float32 (float), float16 (__half) and bfloat16 (__nv_bfloat16).
 * \param DTYPE The run-time DLDataType.
 * \param NAME The operation's name (const char*), used in the TypeError.
 * \param SCALAR_T The name bound to the element type inside the body.
 */
#define TVM_FFI_DISPATCH_FLOAT_TYPES(DTYPE, NAME, SCALAR_T, ...)                             \
  do {                                                                                       \
    const DLDataType tvm_ffi_dispatch_dt_ = (DTYPE);                                         \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLFloat, 32, float, SCALAR_T, __VA_ARGS__)  \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLFloat, 16, __half, SCALAR_T, __VA_ARGS__) \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLBfloat, 16, __nv_bfloat16, SCALAR_T,      \
                          __VA_ARGS__) {                                                     \
      ::tvm::ffi::detail::ThrowUnsupportedDType(tvm_ffi_dispatch_dt_, (NAME));               \
    }                                                                                        \
  } while (0)

/*!
 * \brief Dispatch over the float types of TVM_FFI_DISPATCH_FLOAT_TYPES plus
 *        float64 (double), int8, int16, int32, int64 and uint8.
 */
#define TVM_FFI_DISPATCH_NUMERIC_TYPES(DTYPE, NAME, SCALAR_T, ...)                            \
  do {                                                                                        \
    const DLDataType tvm_ffi_dispatch_dt_ = (DTYPE);                                          \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLFloat, 32, float, SCALAR_T, __VA_ARGS__)   \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLFloat, 16, __half, SCALAR_T, __VA_ARGS__)  \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLBfloat, 16, __nv_bfloat16, SCALAR_T,       \
                          __VA_ARGS__)                                                        \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLFloat, 64, double, SCALAR_T, __VA_ARGS__)  \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLInt, 8, int8_t, SCALAR_T, __VA_ARGS__)     \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLInt, 16, int16_t, SCALAR_T, __VA_ARGS__)   \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLInt, 32, int32_t, SCALAR_T, __VA_ARGS__)   \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLInt, 64, int64_t, SCALAR_T, __VA_ARGS__)   \
    TVM_FFI_DISPATCH_CASE(tvm_ffi_dispatch_dt_, kDLUInt, 8, uint8_t, SCALAR_T, __VA_ARGS__) { \
      ::tvm::ffi::detail::ThrowUnsupportedDType(tvm_ffi_dispatch_dt_, (NAME));                \
    }                                                                                         \
  } while (0)

#endif  // TVM_FFI_EXTRA_CUDA_DISPATCH_H_

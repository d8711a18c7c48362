/*
 * tvmffi C++ layer: everything a CUDA kernel entry point usually needs, in
 * one include: error checking and the environment stream (base.h), the
 * device guard, argument checks and dtype dispatch.
 */
#ifndef TVM_FFI_EXTRA_CUDA_UTILS_H_
#define TVM_FFI_EXTRA_CUDA_UTILS_H_

#include <tvm/ffi/extra/cuda/base.h>
#include <tvm/ffi/extra/cuda/check.h>
#include <tvm/ffi/extra/cuda/device_guard.h>
#include <tvm/ffi/extra/cuda/dispatch.h>

#endif  // TVM_FFI_EXTRA_CUDA_UTILS_H_

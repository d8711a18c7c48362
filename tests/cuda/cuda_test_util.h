// Shared by the CUDA tests: the device count (0 where the runtime or driver
// is missing) and a REQUIRE that names a failing CUDA runtime call.
#ifndef TVMFFI_TESTS_CUDA_CUDA_TEST_UTIL_H_
#define TVMFFI_TESTS_CUDA_CUDA_TEST_UTIL_H_

#include <cuda_runtime.h>

#include <catch2/catch_test_macros.hpp>

namespace tvmffi_cuda_test {

/*! \brief CUDA devices visible here; 0 (with the error cleared) where none can be counted. */
inline int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n;
}

}  // namespace tvmffi_cuda_test

/*! \brief REQUIRE that a CUDA runtime call succeeded, naming the call and its error. */
#define CUDA_REQUIRE(call)                                                           \
  do {                                                                               \
    const cudaError_t e_ = (call);                                                   \
    INFO(#call << " -> " << cudaGetErrorName(e_) << ": " << cudaGetErrorString(e_)); \
    REQUIRE(e_ == cudaSuccess);                                                      \
  } while (0)

#endif  // TVMFFI_TESTS_CUDA_CUDA_TEST_UTIL_H_

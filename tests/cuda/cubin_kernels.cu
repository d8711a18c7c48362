// Device code for test_cubin_launcher: compiled by nvcc to a fatbin (sm_80 and
// sm_90 code, compute_90 PTX) and to an sm_90 cubin, which the test loads
// through the cubin launcher. extern "C": the kernels' symbols are their names.
#include <cstdint>

extern "C" __global__ void add_one_cuda(const float* x, float* y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}

extern "C" __global__ void mul_two_cuda(const float* x, float* y, int64_t n) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * 2.0f;
}

// Each block reverses its chunk of blockDim.x * per_thread floats through
// dynamic shared memory (blockDim.x * per_thread * 4 bytes of it).
extern "C" __global__ void reverse_chunks(const float* x, float* y, int per_thread) {
  extern __shared__ float chunk[];
  const int64_t len = static_cast<int64_t>(blockDim.x) * per_thread;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * len;
  for (int64_t i = threadIdx.x; i < len; i += blockDim.x) chunk[i] = x[base + i];
  __syncthreads();
  for (int64_t i = threadIdx.x; i < len; i += blockDim.x) y[base + i] = chunk[len - 1 - i];
}

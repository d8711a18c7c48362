// What a host sets up for its kernels: the current stream per device, and a tensor allocator.
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>
#include <tvm/ffi/extra/env.h>

#include <cstdio>

namespace ffi = tvm::ffi;

// What a kernel does: read the stream of its tensors' device, allocate through the host.
void Kernel(DLDevice device) {
  void* stream = TVMFFIEnvGetStream(device.device_type, device.device_id);
  std::printf("kernel sees stream %p\n", stream);
  ffi::Tensor t =
      ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, {2, 3}, ffi::dl_float32, DLDevice{kDLCPU, 0});
  std::printf("allocated %lld floats\n", static_cast<long long>(t.numel()));
}

int main() {
  int fake_stream = 0;  // a host passes its cudaStream_t (any pointer works for the table)
  DLDevice gpu0{kDLCUDA, 0};
  {
    // Per thread, per device; the guards put back what was there before.
    ffi::EnvStreamGuard stream(gpu0, &fake_stream);
    ffi::EnvTensorAllocatorGuard alloc(ffi::CPUTensorAllocator);  // a ready CPU allocator
    Kernel(gpu0);  // kernel sees stream 0x...; allocated 6 floats
  }
  std::printf("after the guards: %p\n", TVMFFIEnvGetStream(kDLCUDA, 0));  // (nil)

  // Without an allocator, FromEnvAlloc fails with a clear error.
  try {
    Kernel(gpu0);
  } catch (const ffi::Error& e) {
    std::printf("%s: %s\n", e.kind().c_str(), e.message().c_str());  // RuntimeError: ...
  }
  // For the whole process: the global allocator (a thread's own setting overrides it).
  TVMFFIEnvSetDLPackManagedTensorAllocator(ffi::CPUTensorAllocator, /*global=*/1, nullptr);
  Kernel(gpu0);
  return 0;
}

# bench_tensor: DLPack import, NDAlloc allocation, three-TensorView calls and
# TVMFFIEnvGetStream, each as a ratio to the floor measured in the same run.
tvmffi_add_bench(bench_tensor ${CMAKE_CURRENT_LIST_DIR}/bench_tensor.cc)

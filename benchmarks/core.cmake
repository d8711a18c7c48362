# Call-path benchmark of the core C++ layer.
tvmffi_add_bench(bench_call bench_call.cc)

# Container benchmark: Array through a typed call, Map lookups (ns/op, ratio to floor).
tvmffi_add_bench(bench_containers bench_containers.cc)

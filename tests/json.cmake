# JSON (tvm/ffi/extra/json.h; parser and writer in runtime/json.cc).
tvmffi_add_test(test_json test_json.cc)

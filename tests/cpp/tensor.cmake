# Tensor topic: Tensor/TensorView (container/tensor.h), Shape (container/shape.h)
# and the host environment helpers (extra/env.h).

tvmffi_add_test(test_tensor ${CMAKE_CURRENT_LIST_DIR}/test_tensor.cc)
tvmffi_add_test(test_shape ${CMAKE_CURRENT_LIST_DIR}/test_shape.cc)
tvmffi_add_test(test_env ${CMAKE_CURRENT_LIST_DIR}/test_env.cc)

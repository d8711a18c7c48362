import numpy as np

import tvmffi


# Python functions become FFI functions: register one globally, call it back.
@tvmffi.register_global_func("example.describe")
def describe(value):
    return f"{type(value).__name__}: {value}"


describe_ffi = tvmffi.get_global_func("example.describe")
for value in [None, True, 42, 1.5, "text", b"bytes", [1, 2], {"k": 3}]:
    print(describe_ffi(value))  # lists arrive as tvmffi.Array, dicts as tvmffi.Map

# Any callable converts to a Function; FFI functions are callable.
twice = tvmffi.Function(lambda x: 2 * x)
print(twice(21))  # 42
print("example.describe" in tvmffi.list_global_func_names())  # True

# Values with FFI types: dtype (a str), device, Shape (a tuple), Array, Map.
print(tvmffi.dtype("float32"), tvmffi.device("cuda:1"))  # float32 cuda:1
shape, array, mapping = tvmffi.Shape([2, 3]), tvmffi.Array([1, 2, 3]), tvmffi.Map({"a": 1})
print(shape, array[1], mapping["a"])  # Shape((2, 3)) 2 1

# Tensors: from_dlpack wraps anything with __dlpack__ without a copy.
x = np.arange(6, dtype=np.float32).reshape(2, 3)
t = tvmffi.from_dlpack(x)
print(t.shape, t.dtype, t.device)  # Shape((2, 3)) float32 cpu:0
print(np.from_dlpack(t)[1, 2])  # 5.0: the same memory, back in numpy

import sys

import numpy as np

import tvmffi

lib = tvmffi.load_module("./libc_kernel.so")
x = np.arange(3, dtype=np.float32)
out = np.empty_like(x)
lib.c_scale(out, x, 2)
print(out)  # [0. 2. 4.]

try:
    lib.c_scale(out, x, "two")
except TypeError as err:  # the kind and message the C code raised
    print("TypeError:", err)  # TypeError: c_scale: factor must be a number

# scale_by_ten calls `scale` from the library's imports: import mykernels first.
lib.import_module(tvmffi.load_module(sys.argv[1]))
lib.scale_by_ten(out, x)
print(out)  # [ 0. 10. 20.]

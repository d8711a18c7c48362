import numpy as np
import torch

import tvmffi

mod = tvmffi.load_module("build/libmykernels.so")
print(mod.list_functions())  # ['add', 'greet', 'scale', 'scale_alloc', 'sum']
print(mod.get_function_doc("add"))  # out = a + b; b may be None (then out = a)
print(mod.get_function_metadata("scale")["args"])  # [{'index': 0, 'type': 'DLTensor*'}, ...]

x = np.arange(4, dtype=np.float32)
out = np.empty_like(x)
mod.scale(out, x, 2.0)  # the caller allocates the output
mod.add(out, out, None)  # None for an Optional argument
print(out)  # [0. 2. 4. 6.]

y = mod.scale_alloc(x, 3.0)  # the library allocates, with numpy's allocator
print(type(y).__name__, y)  # ndarray [0. 3. 6. 9.]
t = mod.scale_alloc(torch.ones(2), 3.0)  # torch in: a torch tensor out
print(type(t).__name__, t)  # Tensor tensor([3., 3.])

print(mod.sum(x), mod.greet("tvmffi"))  # 6.0 Hello, tvmffi!
try:
    mod.scale(out, x[:2], 2.0)
except ValueError as err:
    print("ValueError:", err)  # ...: shapes differ: [4] and [2]

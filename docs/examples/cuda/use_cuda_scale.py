import torch

import tvmffi

mod = tvmffi.load_module("./libcuda_scale.so")

try:  # the checks run before any CUDA call: this part needs no GPU
    mod.scale(torch.empty(4), torch.ones(4), 2.0)
except ValueError as err:
    print("ValueError:", err)  # `in` must be a CUDA tensor ...

if torch.cuda.is_available():
    x = torch.randn(1 << 20, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        mod.scale(y, x, 2.0)  # launched on `stream`, torch's current stream during the call
    stream.synchronize()
    print("on the GPU:", torch.equal(y, x * 2))  # on the GPU: True

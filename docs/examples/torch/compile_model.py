# The kernels of rowops.cc as torch custom ops, in a model torch.compile sees through.
import sys

import torch

import tvmffi
import tvmffi.torch

if not hasattr(torch.library, "register_fake"):
    print(f"SKIP: torch {torch.__version__} has no torch.library.register_fake (needs >= 2.4)")
    sys.exit(0)

mod = tvmffi.load_module("./librowops.so")
ops = tvmffi.torch.register(mod, namespace="rowops")  # torch.ops.rowops.*
print(torch.ops.rowops.scaled_relu.default._schema)
# rowops::scaled_relu(Tensor(a0!) arg0, Tensor arg1, float arg2) -> ()


def model(x, w):
    h = torch.nn.functional.layer_norm(x, x.shape[-1:])
    h = ops.add_one(h)  # a new tensor: its fake comes from the shape function
    h = h @ w
    out = torch.empty_like(h)
    ops.scaled_relu(out, h, 0.5)  # writes out: a mutation torch.compile tracks
    return out


x, w = torch.randn(8, 16), torch.randn(16, 4)
explained = torch._dynamo.explain(model)(x, w)
print("graph breaks:", explained.graph_break_count)  # graph breaks: 0
compiled = torch.compile(model, fullgraph=True)
print("matches eager:", torch.allclose(compiled(x, w), model(x, w), atol=1e-6))

for op in (torch.ops.rowops.scaled_relu, torch.ops.rowops.add_one):
    args = (torch.empty_like(x), x, 2.0) if op is torch.ops.rowops.scaled_relu else (x,)
    torch.library.opcheck(op.default, args)  # schema, fake tensor, autograd, AOT
print("opcheck: passed")

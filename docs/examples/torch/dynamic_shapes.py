# One compile for every batch size: our ops' fake tensors get symbolic sizes.
import sys

import torch

import tvmffi
import tvmffi.torch

if not hasattr(torch.library, "register_fake"):
    print(f"SKIP: torch {torch.__version__} has no torch.library.register_fake (needs >= 2.4)")
    sys.exit(0)

from torch._dynamo.testing import CompileCounterWithBackend

mod = tvmffi.load_module("./librowops.so")
ops = tvmffi.torch.register(mod, namespace="rowops")


def model(x):
    h = ops.add_one(x)  # rows -> rows: the argument's size
    return ops.repeat_rows(h).relu()  # rows -> 2 * rows: learned from the shape function


counter = CompileCounterWithBackend("inductor")  # counts the graphs torch compiles
compiled = torch.compile(model, backend=counter, dynamic=True, fullgraph=True)
for rows in (3, 5, 9):
    x = torch.randn(rows, 4)
    assert torch.equal(compiled(x), model(x))
print("compiles:", counter.frame_count)  # compiles: 1

torch._dynamo.reset()  # forget the graph above
counter = CompileCounterWithBackend("inductor")
compiled = torch.compile(model, backend=counter, fullgraph=True)
for rows in (3, 5, 9):
    x = torch.randn(rows, 4)
    torch._dynamo.mark_dynamic(x, 0)  # only the rows vary
    assert torch.equal(compiled(x), model(x))
print("compiles with mark_dynamic:", counter.frame_count)  # compiles with mark_dynamic: 1

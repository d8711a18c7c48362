"""Torch tensors written by a declared writer behave as under torch's own in-place ops (issue #43).

A function whose library declares what it writes (TVM_FFI_DLL_EXPORT_WRITES)
bumps the autograd version counter of every torch tensor it writes, at every
door (a direct argument, an ffi.Tensor parameter, a tensor inside a list), so
that backward() through a graph that saved it raises torch's "modified by an
inplace operation" instead of returning wrong gradients; while grad mode is on
it refuses to write a tensor that requires grad (RuntimeError naming the
argument), before the call. Each test failed before the fix (the version
stayed, the gradient was silently wrong, the leaf was written). The CPU
kernels: add_one(x, out) writes #1, fill(x, v) #0 (an ffi.Tensor parameter),
fill_all(xs, v) the tensors of list #0, nop3 and sum write nothing. A function
that declares nothing may write any argument: its tensors that require grad
meet the same rules (the tests at the end).
"""

from __future__ import annotations

from types import ModuleType

import pytest

import tvmffi


def test_written_tensor_version_bumped(cpu_kernels: tvmffi.Module, torch: ModuleType) -> None:
    x, out = torch.ones(3), torch.zeros(3)
    v = out._version
    cpu_kernels.add_one(x, out)  # the DLTensor* door
    assert out.tolist() == [2.0, 2.0, 2.0]
    assert out._version > v
    assert x._version == 0  # read only: untouched
    v = out._version
    cpu_kernels.fill(out, 5.0)  # the ffi.Tensor door
    assert out._version > v
    a, b = torch.zeros(2), torch.zeros(2)
    cpu_kernels.fill_all([a, b], 7.0)  # tensors inside a list argument
    assert a._version > 0 and b._version > 0
    c = torch.zeros(2)
    cpu_kernels.nop3(c, c, c)  # declares it writes nothing
    assert c._version == 0


def test_backward_through_written_tensor_raises(
    cpu_kernels: tvmffi.Module, torch: ModuleType
) -> None:
    w = torch.ones(3, requires_grad=True)
    out = torch.zeros(3)
    z = (out * w).sum()  # saves `out` for w's gradient
    cpu_kernels.add_one(torch.ones(3), out)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    # The same through a list argument.
    w2 = torch.ones(2, requires_grad=True)
    xs = [torch.zeros(2)]
    z2 = (xs[0] * w2).sum()
    cpu_kernels.fill_all(xs, 3.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z2.backward()
    # Unwritten arguments keep the graph valid.
    w3 = torch.ones(3, requires_grad=True)
    x3 = torch.full((3,), 2.0)
    z3 = (x3 * w3).sum()
    cpu_kernels.add_one(x3, torch.zeros(3))
    z3.backward()
    assert w3.grad is not None and w3.grad.tolist() == [2.0, 2.0, 2.0]


def test_writes_to_tensors_requiring_grad_refused(
    cpu_kernels: tvmffi.Module, torch: ModuleType
) -> None:
    leaf = torch.zeros(3, requires_grad=True)
    param = torch.nn.Parameter(torch.zeros(3))
    nonleaf = torch.ones(3, requires_grad=True) * 2
    view = leaf[:2]
    for target in (leaf, param, nonleaf):
        before = target.detach().clone()
        with pytest.raises(RuntimeError, match="argument #1"):
            cpu_kernels.add_one(torch.ones(target.shape[0]), target)
        assert torch.equal(target.detach(), before)  # refused before the call
    with pytest.raises(RuntimeError, match="argument #1"):
        cpu_kernels.add_one(torch.ones(2), view)
    with pytest.raises(RuntimeError, match="argument #0"):
        cpu_kernels.fill(leaf, 1.0)
    with pytest.raises(RuntimeError, match="argument #0"):
        cpu_kernels.fill_all([torch.zeros(2), param], 1.0)
    assert leaf.detach().tolist() == [0.0, 0.0, 0.0]
    assert param.detach().tolist() == [0.0, 0.0, 0.0]
    # Read, not written: a tensor that requires grad is passed as before.
    out = torch.zeros(3)
    cpu_kernels.add_one(param, out)
    assert out.tolist() == [1.0, 1.0, 1.0]
    assert cpu_kernels.sum(param) == 0.0


def test_writes_without_grad_mode_allowed(cpu_kernels: tvmffi.Module, torch: ModuleType) -> None:
    # As torch's own in-place ops: allowed under no_grad (an optimizer's update), bumped.
    param = torch.nn.Parameter(torch.zeros(3))
    with torch.no_grad():
        v = param._version
        cpu_kernels.add_one(torch.ones(3), param)
        assert param._version > v
    assert param.detach().tolist() == [2.0, 2.0, 2.0]
    # A detached alias shares the version counter: the write is seen by the graph.
    w = torch.ones(3, requires_grad=True)
    x = torch.zeros(3, requires_grad=True)
    z = (x * w).sum()
    cpu_kernels.add_one(torch.ones(3), x.detach())
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()
    # Inference tensors have no version counter: written, nothing to bump.
    with torch.inference_mode():
        t = torch.zeros(3)
        cpu_kernels.add_one(torch.ones(3), t)
    assert t.tolist() == [2.0, 2.0, 2.0]


# ---- Functions that do not declare what they write (no TVM_FFI_DLL_EXPORT_WRITES) ----
# Any argument may be written: a tensor that requires grad meets the rules of a
# written one (refused in grad mode, bumped under no_grad); other tensors are
# passed as before (bumping what may only be read would break valid graphs).


def _undeclared(cpu_kernels: tvmffi.Module, name: str) -> tvmffi.Function:
    f = cpu_kernels.get_function(name)
    tvmffi._core._set_writes(f, None)  # as a library without the declaration
    assert tvmffi._core._writes_masks(f) == (0, 0)
    return f


def test_undeclared_refuses_tensors_requiring_grad(
    cpu_kernels: tvmffi.Module, torch: ModuleType
) -> None:
    add_one, fill_all = _undeclared(cpu_kernels, "add_one"), _undeclared(cpu_kernels, "fill_all")
    leaf = torch.zeros(3, requires_grad=True)
    param = torch.nn.Parameter(torch.zeros(3))
    nonleaf = torch.ones(3, requires_grad=True) * 2
    for target in (leaf, param, nonleaf):
        before = target.detach().clone()
        for i in (0, 1):  # read or written: nothing says which
            args = [torch.ones(3), torch.zeros(3)]
            args[i] = target
            with pytest.raises(RuntimeError, match=rf"argument #{i}.*does not declare"):
                add_one(*args)
        assert torch.equal(target.detach(), before)  # refused before the call
    with pytest.raises(RuntimeError, match=r"argument #0.*TVM_FFI_DLL_EXPORT_WRITES\(fill_all"):
        fill_all([torch.zeros(2), param], 1.0)  # inside a list
    assert param.detach().tolist() == [0.0, 0.0, 0.0]
    # A Python callback declares nothing either: it could write the tensor in place.
    with pytest.raises(RuntimeError, match="argument #0"):
        tvmffi.Function(lambda t: t.add_(1))(param)
    assert param.detach().tolist() == [0.0, 0.0, 0.0]
    # The same function, declared, reads a tensor that requires grad.
    out = torch.zeros(3)
    cpu_kernels.add_one(param, out)
    assert out.tolist() == [1.0, 1.0, 1.0]


def test_undeclared_under_no_grad_bumps_tensors_requiring_grad(
    cpu_kernels: tvmffi.Module, torch: ModuleType
) -> None:
    add_one = _undeclared(cpu_kernels, "add_one")
    param = torch.nn.Parameter(torch.zeros(3))
    x = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    z = (param * w).sum()  # saves `param` for w's gradient
    with torch.no_grad():
        add_one(x, param)  # an optimizer-style update
    assert param.detach().tolist() == [2.0, 2.0, 2.0]
    assert param._version > 0 and x._version == 0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()  # not a silently wrong gradient


def test_undeclared_leaves_other_tensors_alone(
    cpu_kernels: tvmffi.Module, torch: ModuleType
) -> None:
    add_one = _undeclared(cpu_kernels, "add_one")
    w = torch.ones(3, requires_grad=True)
    x = torch.full((3,), 2.0)
    z = (x * w).sum()  # saves `x`
    out = torch.zeros(3)
    add_one(x, out)  # only read x: the graph stays valid
    assert x._version == 0 and out.tolist() == [3.0, 3.0, 3.0]
    z.backward()
    assert w.grad is not None and w.grad.tolist() == [2.0, 2.0, 2.0]

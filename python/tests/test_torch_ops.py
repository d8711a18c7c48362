"""tvmffi.torch.register: the CPU kernels as torch custom ops (issue #42).

Needs torch >= 2.4 (torch.library.custom_op, opcheck); older torch (Debian's
1.13) skips every case, visibly. .ci/torch.sh runs these in a venv with the
pinned torch from PyPI.
"""

from __future__ import annotations

from typing import Any

import pytest

import tvmffi
import tvmffi.shape_function as sf

torch = pytest.importorskip("torch", reason="torch is not installed")
if not hasattr(torch.library, "custom_op") or not hasattr(torch.library, "opcheck"):
    pytest.skip(
        f"torch {torch.__version__} has no torch.library.custom_op/opcheck (needs >= 2.4)",
        allow_module_level=True,
    )

import tvmffi.torch as tt  # noqa: E402

OPS = ("add", "add_bias", "add_one", "nop3", "scale", "scale_alloc")


@pytest.fixture(scope="module")
def ops(cpu_kernels: tvmffi.Module) -> Any:
    return tt.register(cpu_kernels, namespace="tvmffi_test_cpu")


def test_register_every_function_it_can(ops: Any) -> None:
    assert sorted(n for n in vars(ops) if n != "skipped") == list(OPS)
    # The others, each with its reason (scalar or string results, a returned argument).
    assert sorted(ops.skipped) == ["add_int", "fill", "fill_all", "greet", "sum", "sum_all"]
    assert ops.scale_alloc is torch.ops.tvmffi_test_cpu.scale_alloc


def test_schema_from_metadata_and_writes(cpu_kernels: tvmffi.Module, ops: Any) -> None:
    schema = str(torch.ops.tvmffi_test_cpu.scale.default._schema)
    assert schema == "tvmffi_test_cpu::scale(Tensor(a0!) arg0, Tensor arg1, float arg2) -> ()"
    schema = str(torch.ops.tvmffi_test_cpu.add.default._schema)
    assert schema == "tvmffi_test_cpu::add(Tensor(a0!) arg0, Tensor arg1, Tensor? arg2) -> ()"
    schema = str(torch.ops.tvmffi_test_cpu.scale_alloc.default._schema)
    assert schema == "tvmffi_test_cpu::scale_alloc(Tensor arg0, float arg1) -> Tensor"
    assert tt.op_schema(cpu_kernels, "add_bias")[1] == ("arg2",)


def test_explicit_names_raise_with_the_reason(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(tt.Skipped):
        tt.register(cpu_kernels, namespace="tvmffi_test_cpu2", names=["sum"])
    with pytest.raises(ValueError):
        tt.register(cpu_kernels, namespace="not an identifier")
    only = tt.register(cpu_kernels, namespace="tvmffi_test_cpu3", names=["scale"])
    assert [n for n in vars(only) if n != "skipped"] == ["scale"]


def test_eager_calls_match_and_mutate(ops: Any) -> None:
    x = torch.randn(4, 5)
    assert torch.equal(ops.scale_alloc(x, 2.0), x * 2.0)
    out = torch.empty_like(x)
    ops.scale(out, x, 3.0)
    assert torch.allclose(out, x * 3.0)
    out = torch.empty_like(x)
    ops.add(out, x, None)
    assert torch.equal(out, x)


def test_errors_keep_their_kind(cpu_kernels: tvmffi.Module, ops: Any) -> None:
    x = torch.randn(4, 5)
    with pytest.raises(ValueError) as direct:
        cpu_kernels.scale(torch.empty(3), x, 1.0)  # shapes differ
    with pytest.raises(ValueError) as via_op:
        ops.scale(torch.empty(3), x, 1.0)
    assert str(via_op.value) == str(direct.value)
    # Raised by the kernel inside a compiled graph too.
    compiled = torch.compile(lambda o, x: ops.scale(o, x, 1.0), fullgraph=True)
    with pytest.raises(ValueError) as in_graph:
        compiled(torch.empty(3), x)
    assert str(in_graph.value) == str(direct.value)
    with pytest.raises(TypeError):
        ops.scale_alloc(torch.ones(3, dtype=torch.int32), 1.0)  # dtype
    # The shape function gives the kernel's error while tracing, without data.
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        with pytest.raises(TypeError):
            ops.scale_alloc(torch.empty(3, dtype=torch.int32), 1.0)


def test_fake_tensor_shapes(ops: Any) -> None:
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(7, 3, dtype=torch.float64)
        y = ops.scale_alloc(x, 2.0)
        assert isinstance(y, FakeTensor)
        assert (tuple(y.shape), y.dtype, y.device.type) == ((7, 3), torch.float64, "cpu")


def test_shape_function_direct(cpu_kernels: tvmffi.Module) -> None:
    specs = sf.result_specs(cpu_kernels, "scale_alloc", (torch.empty(2, 3), 2.0))
    assert specs == [sf.TensorSpec((2, 3), "float32", (1, 0))]
    meta = sf.TensorMeta((5,), "float64")
    assert sf.result_specs(cpu_kernels, "scale_alloc", (meta, 1.0))[0].shape == (5,)
    assert not sf.has_shape_function(cpu_kernels, "add")
    with pytest.raises(LookupError):
        sf.result_specs(cpu_kernels, "add", ())


def _model(ops: Any) -> Any:
    def model(x: Any, w: Any) -> Any:
        h = torch.nn.functional.layer_norm(x, x.shape[-1:])
        h = ops.scale_alloc(h, 0.5)
        h = h @ w
        y = torch.empty_like(h)
        ops.add_one(h, y)
        z = torch.empty_like(y)
        ops.add(z, y, h)
        return z.relu()

    return model


def test_compile_fullgraph_no_graph_break(ops: Any) -> None:
    model = _model(ops)
    x, w = torch.randn(8, 16), torch.randn(16, 4)
    eager = model(x, w)
    torch._dynamo.reset()
    explained = torch._dynamo.explain(model)(x, w)
    assert explained.graph_break_count == 0
    assert explained.graph_count == 1
    compiled = torch.compile(model, fullgraph=True)
    assert torch.allclose(compiled(x, w), eager, atol=1e-6)
    x2 = torch.randn(8, 16)
    assert torch.allclose(compiled(x2, w), model(x2, w), atol=1e-6)


def _opcheck_args() -> dict[str, tuple]:
    x = torch.randn(4, 5)
    e = torch.empty_like
    return {
        "add": (e(x), x, x.clone()),
        "add_bias": (x, x.clone(), e(x)),
        "add_one": (x, e(x)),
        "nop3": (x, x.clone(), x.clone()),
        "scale": (e(x), x, 2.0),
        "scale_alloc": (x, 2.0),
    }


@pytest.mark.parametrize("name", OPS)
def test_opcheck(ops: Any, name: str) -> None:
    result = torch.library.opcheck(
        getattr(torch.ops.tvmffi_test_cpu, name).default, _opcheck_args()[name]
    )
    assert result and all(v == "SUCCESS" for v in result.values()), result

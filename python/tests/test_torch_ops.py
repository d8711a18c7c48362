"""tvmffi.torch.register: the CPU kernels as torch custom ops (issue #42).

Needs torch >= 2.4 (torch.library.register_fake, opcheck); older torch (Debian's
1.13) skips every case, visibly. .ci/torch.sh runs these in a venv with the
pinned torch from PyPI.
"""

from __future__ import annotations

from typing import Any

import pytest

import tvmffi
import tvmffi.shape_function as sf

torch = pytest.importorskip("torch", reason="torch is not installed")
if not hasattr(torch.library, "register_fake") or not hasattr(torch.library, "opcheck"):
    pytest.skip(
        f"torch {torch.__version__} has no torch.library.register_fake/opcheck (needs >= 2.4)",
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


def test_no_derivative_is_never_silent(ops: Any) -> None:
    # The library declares no derivative: backward() through a result raises;
    # under no_grad, or with nothing that requires grad, the op just runs.
    x = torch.randn(4, requires_grad=True)
    y = ops.scale_alloc(x, 2.0)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match="no autograd formula"):
        y.sum().backward()
    with torch.no_grad():
        assert torch.equal(ops.scale_alloc(x, 2.0), x.detach() * 2.0)
    z = ops.scale_alloc(x.detach(), 2.0)
    assert not z.requires_grad and z.grad_fn is None
    # A written argument's version is bumped once per call, as torch's in-place ops do.
    out = torch.empty(4)
    before = out._version
    ops.scale(out, x.detach(), 3.0)
    assert out._version == before + 1


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


# --- dynamic shapes: symbolic result sizes, one compile for every size ---


def _compiles(fn: Any, shapes: list, **kwargs: Any) -> int:
    """How many graphs torch.compile builds for ``fn`` over inputs of ``shapes``, checked against eager."""
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    counter = CompileCounterWithBackend("inductor")
    compiled = torch.compile(fn, backend=counter, fullgraph=True, **kwargs)
    w = torch.randn(16, 4)
    for rows in shapes:
        x = torch.randn(rows, 16)
        if kwargs.get("dynamic") is None:
            torch._dynamo.mark_dynamic(x, 0)
        assert torch.allclose(compiled(x, w), fn(x, w), atol=1e-6), rows
    return counter.frame_count


def test_dynamic_true_compiles_once(ops: Any) -> None:
    assert _compiles(_model(ops), [8, 12, 20], dynamic=True) == 1


def test_mark_dynamic_compiles_once(ops: Any) -> None:
    assert _compiles(_model(ops), [6, 10, 33]) == 1


def test_static_shapes_still_recompile(ops: Any, cpu_kernels: tvmffi.Module) -> None:
    # The controls: without dynamic shapes each size is its own graph, and so
    # it is with ops whose fake tensors take the current sizes.
    assert _compiles(_model(ops), [8, 12, 20], dynamic=False) == 3
    fixed = tt.register(cpu_kernels, namespace="tvmffi_test_cpu4", symbolic_sizes=False)
    assert _compiles(_model(fixed), [8, 12, 20], dynamic=True) == 3


def _results(module: Any, rows: int, cols: int) -> tuple[Any, Any]:
    """``_symbolic_results`` for a ``rows`` x ``cols`` tensor whose sizes are symbols, and that tensor."""
    from torch.fx.experimental.proxy_tensor import make_fx

    seen: dict = {}

    def trace(x: Any) -> Any:
        seen["x"] = x
        seen["results"] = tt._symbolic_results(torch, module, "scale_alloc", (x, 1.0))
        return x

    make_fx(trace, tracing_mode="symbolic")(torch.empty(rows, cols))
    assert all(isinstance(d, torch.SymInt) for d in seen["x"].shape)
    return seen["results"], seen["x"]


def _same(a: Any, b: Any) -> bool:
    """Whether ``a`` is the symbolic size ``b``."""
    return isinstance(a, torch.SymInt) and a.node.expr == b.node.expr


def _with_rule(monkeypatch: Any, rule: Any) -> list:
    """Replace the shape function's answer by ``rule(shape)`` (None: refuse); returns the calls."""
    calls: list = []

    def result_specs(module: Any, name: str, args: Any) -> list:
        shape = args[0].shape
        calls.append(shape)
        out = rule(shape)
        if out is None:
            raise ValueError(f"refused {shape}")
        return [sf.TensorSpec(tuple(out), "float32", (1, 0))]

    monkeypatch.setattr(tt._shape, "result_specs", result_specs)
    return calls


def test_result_size_is_the_argument_size(cpu_kernels: tvmffi.Module, monkeypatch: Any) -> None:
    _with_rule(monkeypatch, lambda s: (s[1], 5, s[0]))  # a transpose, a constant
    ((shape, spec),), x = _results(cpu_kernels, 6, 4)
    assert _same(shape[0], x.shape[1]) and shape[1] == 5 and _same(shape[2], x.shape[0])
    assert spec.shape == (4, 5, 6)
    assert x.shape[0].node.expr.free_symbols  # not specialized


def test_result_size_linear_in_the_sizes(cpu_kernels: tvmffi.Module, monkeypatch: Any) -> None:
    _with_rule(monkeypatch, lambda s: (2 * s[0] + 1, s[0] + s[1] - 2))
    ((shape, _),), x = _results(cpu_kernels, 6, 4)
    s0, s1 = (d.node.expr for d in x.shape)
    assert shape[0].node.expr == 2 * s0 + 1
    assert shape[1].node.expr == s0 + s1 - 2
    assert s0.free_symbols and s1.free_symbols


def test_rounded_up_size_specializes(cpu_kernels: tvmffi.Module, monkeypatch: Any) -> None:
    # 8 rounds to 8 and 16 to 16, but 9 to 16: not the argument's size.
    _with_rule(monkeypatch, lambda s: (-(-s[0] // 8) * 8, s[1]))
    ((shape, _),), x = _results(cpu_kernels, 8, 4)
    assert shape[0] == 8 and _same(shape[1], x.shape[1])
    assert x.shape[0].node.expr == 8


def test_nonlinear_size_specializes(cpu_kernels: tvmffi.Module, monkeypatch: Any) -> None:
    _with_rule(monkeypatch, lambda s: (s[0] * s[0], s[1]))
    ((shape, _),), x = _results(cpu_kernels, 6, 4)
    assert shape[0] == 36 and _same(shape[1], x.shape[1])
    assert x.shape[0].node.expr == 6  # guarded: torch recompiles for another size
    assert x.shape[1].node.expr.free_symbols


def test_refused_probe_specializes(cpu_kernels: tvmffi.Module, monkeypatch: Any) -> None:
    calls = _with_rule(monkeypatch, lambda s: s if s[0] == 6 else None)
    ((shape, _),), x = _results(cpu_kernels, 6, 4)
    assert shape[0] == 6 and _same(shape[1], x.shape[1])
    assert {c[0] for c in calls} == {6, 12, 7}  # the hint, then x2 and +1 refused
    assert x.shape[0].node.expr == 6
    # A size accepted at +1 only (an upper bound) stays symbolic.
    _with_rule(monkeypatch, lambda s: s if s[0] <= 7 else None)
    ((shape, _),), x = _results(cpu_kernels, 6, 4)
    assert _same(shape[0], x.shape[0])

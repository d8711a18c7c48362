"""What a function says about itself: __name__, __doc__, __signature__, repr, help()."""

from __future__ import annotations

import inspect
import json
import pydoc

import pytest

import tvmffi
from tvmffi import _core
from tvmffi.registry import _describe

P = inspect.Parameter


def test_module_function(cpu_kernels: tvmffi.Module) -> None:
    f = cpu_kernels.add_one
    assert f.__name__ == "add_one"
    assert f.__doc__ == cpu_kernels.get_function_doc("add_one")
    assert f.__doc__ == "y = x + 1 (float32/float64, CPU, same shape)"
    sig = inspect.signature(f)
    assert [(p.name, p.kind, p.annotation) for p in sig.parameters.values()] == [
        ("arg0", P.POSITIONAL_ONLY, "DLTensor*"),
        ("arg1", P.POSITIONAL_ONLY, "DLTensor*"),
    ]
    assert sig.return_annotation is None
    assert repr(f) == "<tvmffi.Function add_one(arg0: 'DLTensor*', arg1: 'DLTensor*', /) -> None>"


def test_signature_types(cpu_kernels: tvmffi.Module) -> None:
    assert str(inspect.signature(cpu_kernels.add_int)) == "(arg0: int, arg1: int, /) -> int"
    assert str(inspect.signature(cpu_kernels["greet"])) == "(arg0: str, /) -> str"
    sig = inspect.signature(cpu_kernels.get_function("add_bias"))
    assert [p.annotation for p in sig.parameters.values()] == [
        "DLTensor*",
        "Optional<ffi.Tensor>",
        "DLTensor*",
    ]
    assert inspect.signature(cpu_kernels.fill).return_annotation == "ffi.Tensor"


def test_help_shows_name_doc_and_signature(cpu_kernels: tvmffi.Module) -> None:
    text = pydoc.render_doc(cpu_kernels.scale, renderer=pydoc.plaintext)
    assert (
        "scale = <tvmffi.Function scale(arg0: 'DLTensor*', arg1: 'DLTensor*', arg2: float" in text
    )
    assert "out = in * factor (float32/float64, CPU)" in text


def test_keyword_arguments(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(
        TypeError,
        match=r"add_int\(\) takes positional arguments only: FFI "
        r"functions have no parameter names \(got keyword "
        r"argument 'b'\)",
    ):
        cpu_kernels.add_int(1, b=2)
    with pytest.raises(TypeError, match=r"tvmffi.Function\(\) takes positional arguments only"):
        tvmffi.Function(lambda x: x)(x=1)
    f = cpu_kernels.add_int
    with pytest.raises(TypeError, match="positional arguments only"):
        f(*(1, 2), **{"c": 3})


def test_global_function() -> None:
    f = tvmffi.get_global_func("ffi.Array")
    assert f.__name__ == "ffi.Array"
    assert f.__doc__ is None
    # no type schema: any arguments
    assert str(inspect.signature(f)) == "(*args)"
    assert repr(f) == "<tvmffi.Function ffi.Array(*args)>"
    assert tvmffi.get_global_func("no.such.function", allow_missing=True) is None


def test_registered_python_function() -> None:
    def twice(x: int) -> int:
        """Twice x."""
        return 2 * x

    name = "testing.function_info.twice"
    f = tvmffi.register_global_func(name, twice, override=True)
    try:
        assert f.__name__ == name and f.__doc__ == "Twice x."
        g = tvmffi.get_global_func(name)
        assert g.__name__ == name and g(21) == 42
    finally:
        tvmffi.remove_global_func(name)


def test_type_schema_of_a_global() -> None:
    # The registry's metadata: {"type_schema": ...} without "args" (reflection GlobalDef).
    schema = {
        "type": "ffi.Function",
        "args": [
            {"type": "int"},
            {"type": "ffi.Tensor"},
            {"type": "DLTensor*"},
            {"type": "Optional", "args": [{"type": "ffi.Tensor"}]},
            {"type": "Variant", "args": [{"type": "DLTensor*"}, {"type": "ffi.Tensor"}]},
            {"type": "Variant", "args": [{"type": "int"}, {"type": "ffi.Tensor"}]},
            {"type": "Any"},
            {"type": "ffi.Array", "args": [{"type": "ffi.Tensor"}]},
        ],
    }
    # Upstream 0.1.15's form (what our headers write now) and the older flat one.
    named = {
        "type": "ffi.Function",
        "named_args": {"return": schema["args"][:1], "params": schema["args"][1:]},
    }
    for form in (named, schema):
        f = _describe(
            tvmffi.Function(lambda *a: 0),
            "testing.schema",
            json.dumps({"type_schema": json.dumps(form)}),
            "Doc.",
        )
        assert _core._tensor_args(f) == (0b110101, True)  # arguments 0, 2, 4, 5
        assert f.__doc__ == "Doc."
        assert str(inspect.signature(f)) == (
            "(arg0: 'ffi.Tensor', arg1: 'DLTensor*', arg2: 'Optional[ffi.Tensor]', "
            "arg3: 'Variant[DLTensor*, ffi.Tensor]', arg4: 'Variant[int, ffi.Tensor]', "
            "arg5: 'Any', arg6: 'ffi.Array[ffi.Tensor]', /) -> int"
        )


def test_unnamed_function_repr() -> None:
    f = tvmffi.Function(lambda: 1)
    assert repr(f).startswith("<tvmffi.Function at 0x")
    assert f() == 1

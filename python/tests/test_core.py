"""tvmffi._core: Function calls, Python callables as Functions, values both ways."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest

import tvmffi


def identity() -> tvmffi.Function:
    # A Function made from a Python callable: every value crosses the FFI twice.
    return tvmffi.Function(lambda x: x)


@pytest.mark.parametrize("value", [None, True, False, 0, -7, 2**62, 1.5, -0.25, "", "héllo",
                                   "a" * 100, b"", b"\x00\x01bytes", b"x" * 50])
def test_value_round_trip(value: Any) -> None:
    out = identity()(value)
    assert out == value
    assert type(out) is type(value)


def test_str_with_inner_nul() -> None:
    assert identity()("a\x00b") == "a\x00b"


def test_int_subclasses_and_index() -> None:
    class MyInt(int):
        pass

    class Index:
        def __index__(self) -> int:
            return 11

    assert identity()(MyInt(5)) == 5
    assert identity()(Index()) == 11


def test_int_overflow_names_argument() -> None:
    with pytest.raises(OverflowError, match="argument #1"):
        tvmffi.Function(lambda a, b: a)(1, 2**70)


def test_dtype_and_device_values() -> None:
    dt = identity()(tvmffi.dtype("float16"))
    assert isinstance(dt, tvmffi.dtype)
    assert dt == "float16"
    dev = identity()(tvmffi.device("cuda:1"))
    assert isinstance(dev, tvmffi.Device)
    assert dev == tvmffi.device("cuda", 1)
    assert str(dev) == "cuda:1"


def test_containers_cross_as_ffi_containers() -> None:
    arr = identity()([1, "two", 3.0])
    assert isinstance(arr, tvmffi.Array)
    assert list(arr) == [1, "two", 3.0]
    mapping = identity()({"a": 1, "b": [2]})
    assert isinstance(mapping, tvmffi.Map)
    assert mapping["a"] == 1
    assert list(mapping["b"]) == [2]
    shape = identity()(tvmffi.Shape((2, 3)))
    assert isinstance(shape, tvmffi.Shape)
    assert shape == (2, 3)


def test_function_wraps_python_callable() -> None:
    calls: list[tuple[Any, ...]] = []

    def record(*args: Any) -> int:
        calls.append(args)
        return len(args)

    f = tvmffi.Function(record)
    assert f(1, "x", None) == 3
    assert calls == [(1, "x", None)]


def test_function_passes_functions() -> None:
    apply = tvmffi.Function(lambda fn, x: fn(x))
    assert apply(lambda v: v * 2, 21) == 42
    inner = tvmffi.Function(lambda v: v + 1)
    assert apply(inner, 1) == 2
    returned = tvmffi.Function(lambda: (lambda y: y * 3))()
    assert isinstance(returned, tvmffi.Function)
    assert returned(5) == 15


def test_function_rejects_non_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        tvmffi.Function(3)  # type: ignore[arg-type]


def test_no_keyword_arguments(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(TypeError, match="keyword"):
        cpu_kernels.add_int(a=1, b=2)


def test_scalar_kernels(cpu_kernels: tvmffi.Module) -> None:
    assert cpu_kernels.add_int(2, 3) == 5
    assert cpu_kernels.add_int(True, 1) == 2
    assert cpu_kernels.greet("world") == "Hello, world!"


def test_wrong_argument_count(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(TypeError, match="add_int.*Expected 2 but got 1"):
        cpu_kernels.add_int(1)
    with pytest.raises(TypeError, match="Expected 2 but got 3"):
        cpu_kernels.add_int(1, 2, 3)


def test_wrong_argument_type_names_argument(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(TypeError, match=r"argument.*1") as info:
        cpu_kernels.add_int(1, "two")
    assert "int" in str(info.value)
    with pytest.raises(TypeError, match="greet"):
        cpu_kernels.greet(3)


def test_protocol_values_cross_as_ffi_values() -> None:
    import ctypes

    class IntLike:
        def __tvm_ffi_int__(self) -> int:
            return 7

    class FloatLike:
        def __tvm_ffi_float__(self) -> float:
            return 2.5

    class ObjectLike:
        def __tvm_ffi_object__(self) -> tvmffi.Object:
            return tvmffi.Array([1, 2])

    class ValueLike:
        def __tvm_ffi_value__(self) -> Any:
            return "text"

    echo = identity()
    assert echo(IntLike()) == 7
    assert echo(FloatLike()) == 2.5
    assert list(echo(ObjectLike())) == [1, 2]
    assert echo(ValueLike()) == "text"
    assert echo(ctypes.c_void_p(4096)) == 4096
    assert list(tvmffi.Array([IntLike(), ValueLike()])) == [7, "text"]
    err = tvmffi.convert(ValueError("boom"))
    assert err.kind == "ValueError" and err.message == "boom"


def test_opaque_arguments_switch() -> None:
    from tvmffi import _reflection

    class Thing:
        pass

    thing = Thing()
    echo = identity()
    old = _reflection.set_opaque_arguments(False)
    try:
        with pytest.raises(TypeError, match="neither an FFI value"):
            echo(thing)
        _reflection.set_opaque_arguments(True)  # upstream's behaviour (the tvm_ffi name)
        assert echo(thing) is thing  # calls give the Python object itself
        held = tvmffi.Array([thing, 1])
        assert held[0] is thing
        wrapped = tvmffi.convert(thing)  # convert gives its ffi.OpaquePyObject
        assert isinstance(wrapped, tvmffi.core.OpaquePyObject)
        assert wrapped.pyobject() is thing
        assert echo(wrapped) is thing
    finally:
        _reflection.set_opaque_arguments(old)


def test_unsupported_object_names_argument(cpu_kernels: tvmffi.Module) -> None:
    class Opaque:
        pass

    with pytest.raises(TypeError, match=r"argument #1 \(type 'Opaque'\).*neither an FFI value "
                                        r".* nor a DLPack tensor"):
        cpu_kernels.add_int(1, Opaque())


def test_kernel_user_error(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(ValueError, match="`name` must not be empty"):
        cpu_kernels.greet("")


def test_numpy_scalar_values(np: ModuleType, cpu_kernels: tvmffi.Module) -> None:
    assert cpu_kernels.add_int(np.int64(4), np.int32(5)) == 9
    assert identity()(np.float64(0.5)) == 0.5


def test_object_identity_and_repr() -> None:
    f = tvmffi.get_global_func("ffi.ArraySize")
    g = tvmffi.get_global_func("ffi.ArraySize")
    assert f.same_as(g)
    assert f == g
    assert hash(f) == hash(g)
    assert f.type_key == "ffi.Function"
    assert "ffi.Function" in repr(f)


def test_convert() -> None:
    assert isinstance(tvmffi.convert([1, 2]), tvmffi.Array)
    assert isinstance(tvmffi.convert(lambda: 1), tvmffi.Function)
    assert tvmffi.convert(3) == 3
    with pytest.raises(TypeError, match="neither an FFI value"):
        tvmffi.convert(object())


def test_empty_object_is_rejected(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(TypeError, match=r"argument #0 .*not initialised"):
        cpu_kernels.add_int(tvmffi.Object(), 1)
    with pytest.raises(TypeError, match="not initialised"):
        tvmffi.convert([tvmffi.Object()])


def test_trainium_device_name() -> None:
    dev = tvmffi.Device("trn", 1)
    assert dev.dlpack_device_type() == 18  # kDLTrn
    assert tvmffi.get_global_func("ffi.ReprPrint")(dev) == "trn:1"

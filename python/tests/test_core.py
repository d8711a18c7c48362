"""tvmffi._core: Function calls, Python callables as Functions, values both ways."""

from __future__ import annotations

import ctypes
import gc
import sys
from types import ModuleType
from typing import Any

import pytest

import tvmffi


def identity() -> tvmffi.Function:
    # A Function made from a Python callable: every value crosses the FFI twice.
    return tvmffi.Function(lambda x: x)


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        False,
        0,
        -7,
        2**62,
        1.5,
        -0.25,
        "",
        "héllo",
        "a" * 100,
        b"",
        b"\x00\x01bytes",
        b"x" * 50,
    ],
)
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


def test_int_past_int64_names_argument_where_int64_is_required() -> None:
    # An int past int64 crosses as ffi.BigInt (test_big_int.py); a parameter
    # that takes int64 refuses it with a TypeError naming the argument.
    assert tvmffi.Function(lambda a, b: b)(1, 2**70) == 2**70
    get_item = tvmffi.get_global_func("ffi.ArrayGetItem")
    with pytest.raises(TypeError, match="argument #1"):
        get_item(tvmffi.convert([1]), 2**70)


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
    returned = tvmffi.Function(lambda: lambda y: y * 3)()
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


def test_scalar_arguments_keep_their_values() -> None:
    """Calls whose arguments are all int/float/bool/None take a path of their own
    (no frame); every value crosses as it does on the general path."""
    echo = tvmffi.Function(lambda x: x)  # a callback: it sees what crossed
    ints = [
        0,
        1,
        -1,
        -5,
        -6,
        256,
        257,
        2**30 - 1,
        2**30,
        -(2**30) + 1,
        -(2**30),
        2**31,
        2**63 - 1,
        -(2**63),
    ]
    for v in ints:
        got = echo(v)
        assert type(got) is int and got == v
        for released in (True, False):
            f = tvmffi.Function(lambda x: x)
            f.release_gil = released
            assert f(v) == v
    assert echo(2**64) == 2**64  # past int64: an ffi.BigInt, on the general path
    assert echo(1.5) == 1.5 and type(echo(1.5)) is float
    assert echo(True) is True and echo(False) is False
    assert echo(None) is None
    # A scalar next to a non-scalar: the whole call goes the general way.
    seen = tvmffi.Function(lambda *a: a[:3])(7, -(2**30), "x", 2.5, None)
    assert list(seen) == [7, -(2**30), "x"]


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
    ptr = echo(ctypes.c_void_p(4096))
    assert isinstance(ptr, ctypes.c_void_p) and ptr.value == 4096
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

    with pytest.raises(
        TypeError,
        match=r"argument #1 \(type 'Opaque'\).*neither an FFI value "
        r".* nor a DLPack tensor",
    ):
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


def test_opaque_pointers_come_back_as_c_void_p() -> None:
    # As upstream's package: a ctypes.c_void_p, NULL included (c_void_p(None), not None).
    echo = identity()
    ptr = echo(ctypes.c_void_p(0x1234))
    assert type(ptr) is ctypes.c_void_p and ptr.value == 0x1234
    null = echo(ctypes.c_void_p(0))
    assert type(null) is ctypes.c_void_p and null.value is None
    seen = []
    tvmffi.Function(seen.append)(ctypes.c_void_p(8))  # a callback's argument, likewise
    assert type(seen[0]) is ctypes.c_void_p and seen[0].value == 8
    assert tvmffi.Array([ctypes.c_void_p(16)])[0].value == 16


def test_cuda_python_stream_passes_as_opaque_pointer() -> None:
    # cuda-python's driver CUstream has no __cuda_stream__; its int() is the handle.
    class CUstream:
        def __init__(self, handle: int) -> None:
            self.handle = handle

        def __int__(self) -> int:
            return self.handle

        __index__ = __int__  # as cuda-python's: must not make it an int argument

    CUstream.__module__ = "cuda.bindings.driver"
    echo = identity()
    z = echo(CUstream(1))
    assert type(z) is ctypes.c_void_p and z.value == 1
    assert echo(CUstream(0)).value is None


def test_convert() -> None:
    assert isinstance(tvmffi.convert([1, 2]), tvmffi.Array)
    assert isinstance(tvmffi.convert(lambda: 1), tvmffi.Function)
    assert tvmffi.convert(3) == 3
    # str and bytes give core.String / core.Bytes (as upstream's); those stay as they are.
    s, b, ba = tvmffi.convert("hi"), tvmffi.convert(b"hi"), tvmffi.convert(bytearray(b"hi"))
    assert isinstance(s, tvmffi.core.String) and s == "hi"
    assert isinstance(b, tvmffi.core.Bytes) and b == b"hi"
    assert isinstance(ba, tvmffi.core.Bytes) and ba == b"hi"
    assert tvmffi.convert(s) is s and tvmffi.convert(b) is b
    shape = tvmffi.Shape((2, 3))
    assert tvmffi.convert(shape) is shape
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


# -- C functions as Functions (Function.__from_extern_c__ and friends) ---------

_K_INT = 1  # kTVMFFIInt


class _AnyValue(ctypes.Union):
    _fields_ = [("v_int64", ctypes.c_int64), ("v_ptr", ctypes.c_void_p)]


class AnyCell(ctypes.Structure):
    """The C ABI's TVMFFIAny, as a foreign C caller sees it (the package declares none)."""

    _fields_ = [("type_index", ctypes.c_int32), ("zero_padding", ctypes.c_uint32), ("v", _AnyValue)]


_SAFE_CALL = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AnyCell), ctypes.c_int32, ctypes.POINTER(AnyCell)
)
_PACKED_CALL = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))


def _add_one_impl(args: Any, num_args: int, result: Any) -> int:
    if num_args != 1 or args[0].type_index != _K_INT:
        tvmffi._LIB.TVMFFIErrorSetRaisedFromCStr(b"TypeError", b"add_one expects one int")
        return -1
    result[0].type_index = _K_INT
    result[0].v.v_int64 = args[0].v.v_int64 + 1
    return 0


@_SAFE_CALL
def _add_one(handle: Any, args: Any, num_args: int, result: Any) -> int:
    return _add_one_impl(args, num_args, result)


@_PACKED_CALL
def _mlir_add_one(packed: Any) -> None:
    # packed: pointers to (handle, args, num_args, result, return code).
    args = ctypes.cast(ctypes.c_void_p.from_address(packed[1]).value, ctypes.POINTER(AnyCell))
    num_args = ctypes.c_int32.from_address(packed[2]).value
    result = ctypes.cast(ctypes.c_void_p.from_address(packed[3]).value, ctypes.POINTER(AnyCell))
    ctypes.c_int.from_address(packed[4]).value = _add_one_impl(args, num_args, result)


def _address(cfunc: Any) -> int:
    return ctypes.cast(cfunc, ctypes.c_void_p).value


@pytest.mark.parametrize(
    "make", [tvmffi.Function.__from_extern_c__, tvmffi.Function.__from_mlir_packed_safe_call__]
)
def test_function_from_c_address(make: Any) -> None:
    target = _add_one if make is tvmffi.Function.__from_extern_c__ else _mlir_add_one
    f = make(_address(target))
    assert isinstance(f, tvmffi.Function)
    assert f(1) == 2 and f(41) == 42
    with pytest.raises(TypeError, match="add_one expects one int"):
        f(None)
    # The keep-alive object lives as long as the function.
    engine = [1, 2, 3]
    before = sys.getrefcount(engine)
    f = make(_address(target), keep_alive_object=engine)
    assert f(2) == 3
    assert sys.getrefcount(engine) == before + 1
    del f
    gc.collect()
    assert sys.getrefcount(engine) == before
    with pytest.raises(ValueError, match="NULL"):
        make(0)
    with pytest.raises(TypeError, match="int address"):
        make("not an address")
    with pytest.raises(TypeError):
        make(_address(target), engine)  # keep_alive_object is keyword-only


def test_function_from_extern_c_global() -> None:
    make = tvmffi.get_global_func("ffi.FunctionFromExternC")
    f = make(None, ctypes.c_void_p(_address(_add_one)), None)
    assert isinstance(f, tvmffi.Function) and f(9) == 10
    with pytest.raises(ValueError, match="safe_call is NULL"):
        make(None, None, None)


# -- convert_func ---------------------------------------------------------------


def test_convert_func_plain_and_errors() -> None:
    f = tvmffi.convert_func(lambda x: x + 1)
    assert isinstance(f, tvmffi.Function) and f(1) == 2
    assert tvmffi.convert_func(f) is f

    def boom(x: int) -> None:
        raise ValueError(f"boom {x}")

    with pytest.raises(ValueError, match="boom 42"):
        tvmffi.convert_func(boom)(42)

    class NotATensor:
        pass

    for cls in (NotATensor, object):
        with pytest.raises(TypeError, match="__dlpack_c_exchange_api__"):
            tvmffi.convert_func(lambda x: x, tensor_cls=cls)


def test_convert_func_delivers_tensor_cls(np: ModuleType) -> None:
    wrapper_cls = tvmffi.core.DLTensorTestWrapper
    seen = []

    class Delivered:
        # A tensor class whose exchange API is the wrapper's: arguments arrive
        # as what that API makes (tvmffi.Tensor for the test wrapper).
        __dlpack_c_exchange_api__ = wrapper_cls.__dlpack_c_exchange_api__

    def callback(a: Any, n: int) -> Any:
        seen.append((type(a), n))
        return a

    f = tvmffi.convert_func(callback, tensor_cls=Delivered)
    t = tvmffi.from_dlpack(np.arange(3, dtype="int32"))
    out = f(t, 5)
    assert seen == [(tvmffi.Tensor, 5)] and out.shape == (3,)


# -- obj._move() ------------------------------------------------------------------


def _strong_count(obj: tvmffi.Object) -> int:
    # The low 32 bits of the object header's combined reference count.
    return ctypes.c_uint64.from_address(obj.__chandle__()).value & 0xFFFFFFFF


def test_move_hands_the_reference_over() -> None:
    counts = []

    def callback(x: Any) -> Any:
        counts.append(_strong_count(x))
        return x._move()  # the result takes the callback's reference

    f = tvmffi.Function(callback)
    x = tvmffi.convert([1, 2])
    assert _strong_count(x) == 1
    kept = f(x)  # borrowed: the callback's wrapper holds a second reference
    assert kept.same_as(x) and _strong_count(x) == 2
    del kept
    f(x._move())  # handed over: the callback's wrapper holds the only one
    assert counts == [2, 1]
    assert x.__ctypes_handle__().value is None
    with pytest.raises(ValueError, match="no reference to hand over"):
        f(x._move())
    with pytest.raises(TypeError, match="not initialised"):
        f(x)


def test_move_into_a_reader_and_into_containers() -> None:
    # A C++ parameter that is not an RValueRef refuses the rvalue (as
    # upstream's); the object stays with its owner.
    size = tvmffi.get_global_func("ffi.ArraySize")
    x = tvmffi.convert([1, 2, 3])
    with pytest.raises(TypeError, match="ObjectRValueRef"):
        size(x._move())
    assert size(x) == 3 and _strong_count(x) == 1
    y = tvmffi.convert([4])
    holder = tvmffi.convert([y._move()])  # the list takes y's reference
    assert y.__ctypes_handle__().value is None
    assert _strong_count(holder[0]) == 2  # the list's and the wrapper just made
    # The same object borrowed and moved in one call stays alive throughout.
    z = tvmffi.convert([5])
    same = tvmffi.Function(lambda a, b: bool(a.same_as(b)) and len(a) == 1)
    assert same(z, z._move())
    assert z.__ctypes_handle__().value is None

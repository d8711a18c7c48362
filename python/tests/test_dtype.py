"""tvmffi.dtype and tvmffi.device values."""

from __future__ import annotations

import pickle
from types import ModuleType

import pytest

import tvmffi


def test_dtype_is_its_name() -> None:
    d = tvmffi.dtype("float32")
    assert d == "float32"
    assert isinstance(d, str)
    assert (d.type_code, d.bits, d.lanes) == (2, 32, 1)
    assert tvmffi.dtype("int8x4").lanes == 4
    assert repr(d) == "dtype('float32')"


def test_dtype_from_frameworks(np: ModuleType, torch: ModuleType) -> None:
    assert tvmffi.dtype(np.float16) == "float16"
    assert tvmffi.dtype(np.dtype("int64")) == "int64"
    assert tvmffi.dtype(torch.bfloat16) == "bfloat16"


def test_bad_dtype() -> None:
    with pytest.raises(ValueError, match="floaty"):
        tvmffi.dtype("floaty")


def test_void_dtype_comes_back_as_void() -> None:
    # The void type prints as "" (upstream's spelling), which no dtype parses
    # (issue #25); a void value from C++ (TVM's DataType::Void() as a field
    # default, in TileLang's compiler) comes to Python as dtype("void").
    seen = []
    echo = tvmffi.Function(lambda x: seen.append(x) or x)
    back = echo(tvmffi.dtype("void"))
    assert back == "void" and isinstance(back, tvmffi.dtype)
    assert seen == ["void"] and isinstance(seen[0], tvmffi.dtype)
    assert (back.type_code, back.bits, back.lanes) == (3, 0, 0)
    with pytest.raises(ValueError):
        tvmffi.dtype("")


def test_device_values() -> None:
    d = tvmffi.device("cuda:1")
    assert d.type == "cuda" and d.index == 1
    assert d.dlpack_device_type() == 2
    assert d.__dlpack_device__() == (2, 1)
    assert str(d) == "cuda:1"
    assert repr(d) == "device(type='cuda', index=1)"  # upstream's repr
    assert pickle.loads(pickle.dumps(d)) == d
    with pytest.raises(ValueError, match="^Unknown device: llvm$"):
        tvmffi.device("llvm")
    assert tvmffi.device("cpu") == tvmffi.device("cpu", 0) == "cpu:0"
    assert tvmffi.device("gpu:0") == tvmffi.device("cuda:0")
    assert tvmffi.device(d) == d
    assert len({tvmffi.device("cuda:0"), tvmffi.device("cuda", 0)}) == 1
    assert tvmffi.device("cuda:0") != tvmffi.device("cuda:1")


def test_bad_device() -> None:
    with pytest.raises(ValueError, match="^Unknown device: tpu:0$"):  # upstream's text
        tvmffi.device("tpu:0")
    with pytest.raises(ValueError, match="index"):
        tvmffi.device("cuda:x")
    with pytest.raises(TypeError):
        tvmffi.device(1.5)  # type: ignore[arg-type]


def test_dtype_properties_and_constants() -> None:
    f32x4 = tvmffi.dtype("float32").with_lanes(4)
    assert f32x4 == "float32x4" and isinstance(f32x4, tvmffi.dtype)
    assert f32x4.itemsize == 16 and tvmffi.dtype("float4_e2m1fnx4").itemsize == 2
    assert tvmffi.dtype("bool").with_lanes(2) == "boolx2"
    with pytest.raises(ValueError, match="scalable"):
        tvmffi.dtype("int32xvscalex4").itemsize
    with pytest.raises(ValueError, match="at least 1"):
        tvmffi.dtype("int8").with_lanes(0)
    kinds = {
        name: (d.is_bool, d.is_integer, d.is_float, d.is_handle)
        for name in ("bool", "uint8", "bfloat16", "float8_e4m3fn", "handle", "complex64")
        for d in [tvmffi.dtype(name)]
    }
    assert kinds == {
        "bool": (True, False, False, False),
        "uint8": (False, True, False, False),
        "bfloat16": (False, False, True, False),
        "float8_e4m3fn": (False, False, True, False),
        "handle": (False, False, False, True),
        "complex64": (False, False, False, False),
    }
    assert tvmffi.dtype.from_dlpack_data_type((0, 8, 1)) == "int8"
    assert tvmffi.dtype.from_dlpack_data_type((17, 4, 2)) == "float4_e2m1fnx2"
    with pytest.raises(ValueError, match="no dtype name"):
        tvmffi.dtype.from_dlpack_data_type((99, 8, 1))
    assert tvmffi.float32 == "float32" and isinstance(tvmffi.bool, tvmffi.dtype)
    assert tvmffi.bfloat16.type_code == 4 and tvmffi.float4_e2m1fnx2.lanes == 2

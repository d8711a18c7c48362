"""tvmffi.dtype and tvmffi.device values."""

from __future__ import annotations

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


def test_device_values() -> None:
    d = tvmffi.device("cuda:1")
    assert d.type == "cuda" and d.index == 1
    assert d.dlpack_device_type() == 2
    assert d.__dlpack_device__() == (2, 1)
    assert str(d) == "cuda:1"
    assert repr(d) == 'device("cuda:1")'
    assert tvmffi.device("cpu") == tvmffi.device("cpu", 0) == "cpu:0"
    assert tvmffi.device("gpu:0") == tvmffi.device("cuda:0")
    assert tvmffi.device(d) == d
    assert len({tvmffi.device("cuda:0"), tvmffi.device("cuda", 0)}) == 1
    assert tvmffi.device("cuda:0") != tvmffi.device("cuda:1")


def test_bad_device() -> None:
    with pytest.raises(ValueError, match="unknown device type 'tpu'"):
        tvmffi.device("tpu:0")
    with pytest.raises(ValueError, match="index"):
        tvmffi.device("cuda:x")
    with pytest.raises(TypeError):
        tvmffi.device(1.5)  # type: ignore[arg-type]

"""Upstream Python names that kernel projects use (found by .ci/clients.sh)."""

from __future__ import annotations

import pytest

import tvmffi
from tvmffi import _dtype


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("int32", "INT"),
        ("uint8", "UINT"),
        ("float16", "FLOAT"),
        ("bfloat16", "BFLOAT"),
        ("bool", "BOOL"),
        ("handle", "HANDLE"),
        ("float8_e4m3fn", "Float8E4M3FN"),
        ("float8_e5m2", "Float8E5M2"),
        ("float4_e2m1fn", "Float4E2M1FN"),
    ],
)
def test_data_type_code_is_the_dtype_type_code(name: str, code: str) -> None:
    # CuTe DSL compares tvm_ffi.dtype(...).type_code with tvm_ffi._dtype.DataTypeCode.
    member = _dtype.DataTypeCode[code]
    assert tvmffi.dtype(name).type_code == member
    assert isinstance(member, int)


def test_data_type_code_values_are_dlpacks() -> None:
    codes = {m.name: int(m) for m in _dtype.DataTypeCode}
    assert codes["INT"] == 0 and codes["UINT"] == 1 and codes["FLOAT"] == 2
    assert codes["HANDLE"] == 3 and codes["BFLOAT"] == 4 and codes["BOOL"] == 6
    assert [codes[n] for n in ("Float8E3M4", "Float6E2M3FN", "Float4E2M1FN")] == [7, 15, 17]
    assert len(codes) == len(set(codes.values()))

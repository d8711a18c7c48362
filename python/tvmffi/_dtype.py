"""tvmffi.dtype: a data type value that is also its name (a str)."""

from __future__ import annotations

import builtins
from enum import IntEnum
from typing import Any

from . import _core

# DLPack type codes (dlpack.h) of the kinds upstream's properties test.
_INT_CODES = (0, 1)  # kDLInt, kDLUInt
_FLOAT_CODES = (2, 4, *range(7, 18))  # kDLFloat, kDLBfloat, the float8/6/4 formats
_BOOL_CODE = 6
_HANDLE_CODE = 3
# Names of the codes whose name does not carry the bit width.
_FIXED_NAMES = {
    7: "float8_e3m4",
    8: "float8_e4m3",
    9: "float8_e4m3b11fnuz",
    10: "float8_e4m3fn",
    11: "float8_e4m3fnuz",
    12: "float8_e5m2",
    13: "float8_e5m2fnuz",
    14: "float8_e8m0fnu",
    15: "float6_e2m3fn",
    16: "float6_e3m2fn",
    17: "float4_e2m1fn",
}
_WIDTH_NAMES = {0: "int", 1: "uint", 2: "float", 4: "bfloat", 5: "complex"}


class DataTypeCode(IntEnum):
    """The DLPack type codes (``DLDataTypeCode`` of dlpack.h), by upstream's names.

    ``tvm_ffi._dtype.DataTypeCode`` is what CuTe DSL compares ``dtype.type_code``
    with; the values are DLPack's.
    """

    INT = 0
    UINT = 1
    FLOAT = 2
    HANDLE = 3
    BFLOAT = 4
    BOOL = 6
    Float8E3M4 = 7
    Float8E4M3 = 8
    Float8E4M3B11FNUZ = 9
    Float8E4M3FN = 10
    Float8E4M3FNUZ = 11
    Float8E5M2 = 12
    Float8E5M2FNUZ = 13
    Float8E8M0FNU = 14
    Float6E2M3FN = 15
    Float6E3M2FN = 16
    Float4E2M1FN = 17


class dtype(str):
    """A data type such as ``dtype("float32")``; compares equal to its name.

    Also accepts numpy and torch dtypes (``dtype(numpy.float32)``,
    ``dtype(torch.float16)``). ValueError for a name that is not a data type.
    """

    __slots__ = ()

    def __new__(cls, value: Any) -> dtype:
        if isinstance(value, str):
            text = value
        elif isinstance(value, type) and hasattr(value, "__name__"):
            text = value.__name__  # numpy scalar types: numpy.float32
        else:
            text = str(value)
        if text.startswith("torch."):
            text = text[len("torch.") :]
        _core._dtype_fields(text)
        return super().__new__(cls, text)

    @property
    def type_code(self) -> int:
        """The DLPack type code (kDLInt = 0, kDLUInt = 1, kDLFloat = 2, ...)."""
        return _core._dtype_fields(self)[0]

    @property
    def bits(self) -> int:
        """Bits per lane."""
        return _core._dtype_fields(self)[1]

    @property
    def lanes(self) -> int:
        """Number of lanes (1 for scalars)."""
        return _core._dtype_fields(self)[2]

    @property
    def itemsize(self) -> int:
        """Bytes of one element (all lanes, sub-byte formats packed); ValueError when scalable."""
        code, bits, lanes = _core._dtype_fields(self)
        if lanes >= 1 << 15:  # a negative int16: -n is "vscale x n"
            raise ValueError(
                f"dtype {str(self)!r} is a scalable vector: its size is not known before run time"
            )
        return (bits * lanes + 7) // 8

    @property
    def is_bool(self) -> builtins.bool:
        """Whether this is the boolean type (``bool``, any lanes)."""
        return self.type_code == _BOOL_CODE

    @property
    def is_integer(self) -> builtins.bool:
        """Whether this is a signed or unsigned integer type."""
        return self.type_code in _INT_CODES

    @property
    def is_float(self) -> builtins.bool:
        """Whether this is a floating-point type (IEEE, bfloat16 or a float8/6/4 format)."""
        return self.type_code in _FLOAT_CODES

    @property
    def is_handle(self) -> builtins.bool:
        """Whether this is the opaque pointer type ``handle``."""
        return self.type_code == _HANDLE_CODE

    def with_lanes(self, lanes: int) -> dtype:
        """The same element type with ``lanes`` lanes (``float32`` -> ``float32x4``)."""
        if int(lanes) < 1:
            raise ValueError(f"with_lanes: lanes must be at least 1, got {lanes}")
        code, bits, _ = _core._dtype_fields(self)
        return dtype.from_dlpack_data_type((code, bits, int(lanes)))

    @staticmethod
    def from_dlpack_data_type(dltype: tuple[int, int, int]) -> dtype:
        """The dtype of a DLPack ``(code, bits, lanes)`` triple.

        ValueError for a code this package has no name for.
        """
        code, bits, lanes = (int(v) for v in dltype)
        if code in _FIXED_NAMES:
            name = _FIXED_NAMES[code]
        elif code in _WIDTH_NAMES:
            name = f"{_WIDTH_NAMES[code]}{bits}"
        elif code == _BOOL_CODE and bits == 8:
            name = "bool"
        elif code == _HANDLE_CODE and bits == 64:
            name = "handle"
        else:
            raise ValueError(
                f"no dtype name for the DLPack data type (code={code}, bits={bits}, lanes={lanes})"
            )
        result = dtype(name if lanes == 1 else f"{name}x{lanes}")
        if _core._dtype_fields(result) != (code, bits, lanes):
            raise ValueError(
                f"no dtype name for the DLPack data type (code={code}, bits={bits}, lanes={lanes})"
            )
        return result

    def __repr__(self) -> str:
        return f"dtype('{str(self)}')"


# Upstream's module-level dtype constants (tvm_ffi.float32, tvm_ffi.bool, ...).
bool = dtype("bool")
int8 = dtype("int8")
int16 = dtype("int16")
int32 = dtype("int32")
int64 = dtype("int64")
uint8 = dtype("uint8")
uint16 = dtype("uint16")
uint32 = dtype("uint32")
uint64 = dtype("uint64")
float16 = dtype("float16")
float32 = dtype("float32")
float64 = dtype("float64")
bfloat16 = dtype("bfloat16")
float8_e3m4 = dtype("float8_e3m4")
float8_e4m3 = dtype("float8_e4m3")
float8_e4m3b11fnuz = dtype("float8_e4m3b11fnuz")
float8_e4m3fn = dtype("float8_e4m3fn")
float8_e4m3fnuz = dtype("float8_e4m3fnuz")
float8_e5m2 = dtype("float8_e5m2")
float8_e5m2fnuz = dtype("float8_e5m2fnuz")
float8_e8m0fnu = dtype("float8_e8m0fnu")
float6_e2m3fn = dtype("float6_e2m3fn")
float6_e3m2fn = dtype("float6_e3m2fn")
float4_e2m1fn = dtype("float4_e2m1fn")
float4_e2m1fnx2 = dtype("float4_e2m1fnx2")

DTYPE_CONSTANTS = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
    "bfloat16",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float4_e2m1fn",
    "float4_e2m1fnx2",
)

"""tvmffi.dtype: a data type value that is also its name (a str)."""

from __future__ import annotations

from typing import Any

from . import _core


class dtype(str):  # noqa: N801  (upstream's name)
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
            text = text[len("torch."):]
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

    def __repr__(self) -> str:
        return f"dtype('{str(self)}')"

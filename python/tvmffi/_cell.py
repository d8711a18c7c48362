"""Owned ``TVMFFIAny`` cells: :class:`AnyCell`, the extension's 16-byte tagged value.

What still handles raw values in Python (:class:`CAny` and the schema
converters, the argument packing's protocol values) does so through
:class:`AnyCell` and the functions here, each one entry of the extension
(``python/src/cells.cc``): no C struct is declared in Python. A cell owns the
value it holds; what is left in it is released with it. Type records, fields,
methods, attributes, object creation and the memory of Python-defined types go
through the extension and the runtime too (:mod:`tvmffi._typeinfo`,
:mod:`tvmffi._pyclass`).
"""

from __future__ import annotations

from typing import Any, Sequence

from . import _core

AnyCell = _core.AnyCell


def take_any(cell: AnyCell) -> Any:
    """The Python value of an owned TVMFFIAny, which this consumes.

    An ``ffi.OpaquePyObject`` comes back as its wrapper (:class:`OpaquePyObject`),
    where a call's result gives the Python object it holds.
    """
    return _core._cell_take(cell)


def view_to_py(cell: AnyCell) -> Any:
    """The Python value of a borrowed TVMFFIAny (left untouched)."""
    return _core._cell_view_to_py(cell)


def object_from_handle(handle: int) -> Any:
    """A new Python reference to the FFI object at ``handle`` (None for 0)."""
    return _core._cell_from_handle(handle)


def to_owned_any(value: Any) -> AnyCell:
    """``value`` converted as the package converts arguments, as an owned TVMFFIAny."""
    return _core._cell_from_value(value)


def release_any(cell: AnyCell) -> None:
    """Drop the reference an owned TVMFFIAny holds (the cell is left None)."""
    _core._cell_release(cell)


def copy_cell(cell: AnyCell) -> AnyCell:
    """A new owned copy of a TVMFFIAny (one more reference to its object)."""
    return _core._cell_copy(cell)


def raise_last_error() -> None:
    """Raise (as the package's call path does) the error a failed C call left parked."""
    _core._raise_last_error()


def call_cells(func: Any, cells: Sequence[AnyCell]) -> AnyCell:
    """Call an FFI function (a Function or a handle) on borrowed cells; the owned result."""
    return _core._cell_call(func, list(cells))


def opaque_cell(value: Any) -> AnyCell:
    """An owned ``ffi.OpaquePyObject`` holding a reference to ``value``."""
    return _core._cell_opaque(value)


def error_cell(exc: BaseException) -> AnyCell:
    """An owned ``ffi.Error`` made from a Python exception (its kind, message, traceback)."""
    from ._error import error_info

    return make_error_cell(*error_info(exc))


def make_error_cell(kind: str, message: str, backtrace: str) -> AnyCell:
    """An owned ``ffi.Error`` of ``kind`` with ``message`` and ``backtrace``."""
    return to_owned_any(_core._error_new(kind, message, backtrace))


def _ptr_cell(addr: int | None) -> AnyCell:
    return _core._cell_ptr(addr or None)


def cell_to_py(cell: AnyCell) -> Any:
    """The Python value of an owned TVMFFIAny (consumed); opaque Python objects unwrapped."""
    return _core._cell_unwrap(cell)

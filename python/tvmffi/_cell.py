"""Owned ``TVMFFIAny`` cells in Python memory: the package's last ctypes binding.

What still handles raw 16-byte values in Python (:class:`CAny` and the schema
converters, the argument packing's protocol values, the shape functions) does
so through :class:`AnyCell` and the few C functions declared here. Type
records, fields, methods, attributes, object creation and the memory of
Python-defined types go through the extension and the runtime instead
(:mod:`tvmffi._typeinfo`, :mod:`tvmffi._pyclass`).
"""

from __future__ import annotations

import ctypes
from typing import Any, Sequence

from . import _core
from ._abi import K_NONE, K_OPAQUE_PTR, K_OPAQUE_PY_OBJECT, K_STATIC_OBJECT_BEGIN
from ._runtime import LIB as _LIB


class _AnyValue(ctypes.Union):
    _fields_ = [
        ("v_int64", ctypes.c_int64),
        ("v_float64", ctypes.c_double),
        ("v_ptr", ctypes.c_void_p),
        ("v_bytes", ctypes.c_char * 8),
    ]


class AnyCell(ctypes.Structure):
    """TVMFFIAny: a 16-byte tagged value."""

    _fields_ = [("type_index", ctypes.c_int32), ("zero_padding", ctypes.c_uint32), ("v", _AnyValue)]


_SafeCall = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AnyCell), ctypes.c_int32, ctypes.POINTER(AnyCell)
)
_OpaqueDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _proto(name: str, restype: Any, *argtypes: Any) -> Any:
    f = getattr(_LIB, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_IncRef = _proto("TVMFFIObjectIncRef", ctypes.c_int, ctypes.c_void_p)
_DecRef = _proto("TVMFFIObjectDecRef", ctypes.c_int, ctypes.c_void_p)
_FunctionCall = _proto(
    "TVMFFIFunctionCall",
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.POINTER(AnyCell),
    ctypes.c_int32,
    ctypes.POINTER(AnyCell),
)
_AnyViewToOwnedAny = _proto(
    "TVMFFIAnyViewToOwnedAny", ctypes.c_int, ctypes.POINTER(AnyCell), ctypes.POINTER(AnyCell)
)
_CreateOpaque = _proto(
    "TVMFFIObjectCreateOpaque",
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_int32,
    _OpaqueDeleter,
    ctypes.POINTER(ctypes.c_void_p),
)
_Py_IncRef = ctypes.pythonapi.Py_IncRef
_Py_IncRef.argtypes = [ctypes.py_object]
_Py_IncRef.restype = None
_Py_DecRef = ctypes.pythonapi.Py_DecRef
_Py_DecRef.argtypes = [ctypes.c_void_p]
_Py_DecRef.restype = None


def take_any(cell: AnyCell) -> Any:
    """The Python value of an owned TVMFFIAny, which this consumes.

    An ``ffi.OpaquePyObject`` comes back as its wrapper (:class:`OpaquePyObject`),
    where a call's result gives the Python object it holds.
    """
    if cell.type_index == K_OPAQUE_PY_OBJECT and cell.v.v_ptr:
        handle = cell.v.v_ptr
        cell.type_index = K_NONE
        cell.v.v_int64 = 0
        return _core._wrap_owned(handle)
    return _core._take_any(ctypes.addressof(cell))


def view_to_py(cell: AnyCell) -> Any:
    """The Python value of a borrowed TVMFFIAny (left untouched)."""
    owned = AnyCell()
    if _AnyViewToOwnedAny(ctypes.byref(cell), ctypes.byref(owned)) != 0:
        raise_last_error()
    return take_any(owned)


def object_from_handle(handle: int) -> Any:
    """A new Python reference to the FFI object at ``handle`` (None for 0)."""
    if not handle:
        return None
    cell = AnyCell()
    cell.type_index = _core._object_type_index(handle)
    cell.v.v_ptr = handle
    _IncRef(handle)
    return take_any(cell)


def to_owned_any(value: Any) -> AnyCell:
    """``value`` converted as the package converts arguments, as an owned TVMFFIAny."""
    cell = AnyCell()
    _core._give_any(value, ctypes.addressof(cell))
    return cell


def release_any(cell: AnyCell) -> None:
    """Drop the reference an owned TVMFFIAny holds."""
    if cell.type_index >= K_STATIC_OBJECT_BEGIN and cell.v.v_ptr:
        _DecRef(cell.v.v_ptr)
    cell.type_index = K_NONE
    cell.v.v_int64 = 0


def copy_cell(cell: AnyCell) -> AnyCell:
    """A new owned copy of a TVMFFIAny (one more reference to its object)."""
    out = AnyCell()
    if _AnyViewToOwnedAny(ctypes.byref(cell), ctypes.byref(out)) != 0:
        raise_last_error()
    return out


def raise_last_error() -> None:
    """Raise (as the package's call path does) the error a failed C call left parked."""
    _core._raise_last_error()


def call_cells(func: Any, cells: Sequence[AnyCell]) -> AnyCell:
    """Call an FFI function (a Function or a handle) on borrowed cells; the owned result."""
    handle = func if isinstance(func, int) else _core._handle_address(func)
    args = (AnyCell * max(len(cells), 1))()
    for i, c in enumerate(cells):
        ctypes.memmove(ctypes.byref(args[i]), ctypes.byref(c), ctypes.sizeof(AnyCell))
    out = AnyCell()
    if _FunctionCall(ctypes.c_void_p(handle), args, len(cells), ctypes.byref(out)) != 0:
        raise_last_error()
    return out


# The extension's C deleter of the Python object an ffi.OpaquePyObject holds: C, so
# it may run while a Python exception is pending (a failed call), on any thread.
_OPAQUE_DELETER = _OpaqueDeleter(_core._opaque_deleter())


def opaque_cell(value: Any) -> AnyCell:
    """An owned ``ffi.OpaquePyObject`` holding a reference to ``value``."""
    out = ctypes.c_void_p()
    _Py_IncRef(value)
    if (
        _CreateOpaque(
            ctypes.c_void_p(id(value)), K_OPAQUE_PY_OBJECT, _OPAQUE_DELETER, ctypes.byref(out)
        )
        != 0
    ):
        _Py_DecRef(id(value))
        raise_last_error()
    cell = AnyCell()
    cell.type_index = K_OPAQUE_PY_OBJECT
    cell.v.v_ptr = out.value
    return cell


def error_cell(exc: BaseException) -> AnyCell:
    """An owned ``ffi.Error`` made from a Python exception (its kind, message, traceback)."""
    from ._error import error_info

    return make_error_cell(*error_info(exc))


def make_error_cell(kind: str, message: str, backtrace: str) -> AnyCell:
    """An owned ``ffi.Error`` of ``kind`` with ``message`` and ``backtrace``."""
    return to_owned_any(_core._error_new(kind, message, backtrace))


def _ptr_cell(addr: int | None) -> AnyCell:
    cell = AnyCell()
    cell.type_index = K_OPAQUE_PTR
    cell.v.v_ptr = addr or None
    return cell


def cell_to_py(cell: AnyCell) -> Any:
    """The Python value of an owned TVMFFIAny (consumed); opaque Python objects unwrapped."""
    if cell.type_index == K_OPAQUE_PY_OBJECT:
        handle = cell.v.v_ptr
        value = _core._opaque_pyobject(handle)
        _DecRef(handle)
        return value
    if cell.type_index == K_OPAQUE_PTR:
        return ctypes.c_void_p(cell.v.v_ptr)
    return take_any(cell)

"""Error kinds <-> Python exceptions, in both directions."""

from __future__ import annotations

import traceback
from typing import Callable, TypeVar

_E = TypeVar("_E", bound=type)


class Error(Exception):
    """Base of FFI errors whose kind has no Python built-in counterpart.

    The class of such an error is named after its kind (``tvmffi.Error``
    subclasses are made on first sight); ``kind`` holds the kind string.
    """

    kind = "Error"


_BUILTIN: dict[str, type[BaseException]] = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "RuntimeError": RuntimeError,
    "AttributeError": AttributeError,
    "IndexError": IndexError,
    "KeyError": KeyError,
    "NotImplementedError": NotImplementedError,
    "MemoryError": MemoryError,
    "AssertionError": AssertionError,
    # Ctrl-C seen by a long call through TVMFFIEnvCheckSignals comes back as itself.
    "KeyboardInterrupt": KeyboardInterrupt,
}

_KIND_TO_CLASS: dict[str, type[BaseException]] = dict(_BUILTIN)
_CLASS_TO_KIND: dict[type[BaseException], str] = {v: k for k, v in _BUILTIN.items()}


def register_error(
    kind: str | type[BaseException] | None = None,
    cls: type[BaseException] | None = None,
) -> Callable[[_E], _E] | type[BaseException]:
    """Map the FFI error kind ``kind`` to the exception class ``cls``, both ways.

    Usable as ``register_error("MyKind", MyError)``, ``@register_error("MyKind")``
    or ``@register_error`` (the kind is then the class name).
    """
    if isinstance(kind, type):
        cls, kind = kind, kind.__name__

    def register(c: _E) -> _E:
        name = kind if kind is not None else c.__name__
        _KIND_TO_CLASS[name] = c
        _CLASS_TO_KIND[c] = name
        return c

    return register(cls) if cls is not None else register


def _class_for_kind(kind: str) -> type[BaseException]:
    cls = _KIND_TO_CLASS.get(kind)
    if cls is None:
        cls = type(kind, (Error,), {"kind": kind, "__module__": "tvmffi"})
        _KIND_TO_CLASS[kind] = cls
        _CLASS_TO_KIND[cls] = kind
    return cls


def make_error(kind: str, message: str, backtrace: str) -> BaseException:
    """The Python exception for an FFI error (called by the native core)."""
    exc = _class_for_kind(kind)(message)
    exc.kind = kind  # type: ignore[attr-defined]
    exc.backtrace = backtrace  # type: ignore[attr-defined]
    if backtrace and hasattr(exc, "add_note"):
        exc.add_note("native backtrace (most recent call first):\n" + backtrace.rstrip())
    return exc


def error_info(exc: BaseException) -> tuple[str, str, str]:
    """(kind, message, backtrace) of a Python exception crossing into the FFI."""
    kind = None
    for base in type(exc).__mro__:
        kind = _CLASS_TO_KIND.get(base)
        if kind is not None:
            break
    if kind is None or (kind == "Error" and not isinstance(exc, Error)):
        kind = type(exc).__name__
    if isinstance(exc, Error) and type(exc).kind != "Error":
        kind = type(exc).kind
    if len(exc.args) == 1 and isinstance(exc.args[0], str):
        message = exc.args[0]
    else:
        message = str(exc)
    py_bt = "".join(traceback.format_tb(exc.__traceback__))
    native_bt = getattr(exc, "backtrace", "")
    if not isinstance(native_bt, str):
        native_bt = ""
    return kind, message, py_bt + native_bt


# -- the native core's hooks: the same ffi.Error on both sides ------------------


def error_from_ffi(kind: str, message: str, backtrace: str, handle: int = 0) -> BaseException:
    """The Python exception of a raised FFI error (the native core's hook).

    ``handle`` is the ``ffi.Error`` itself, one reference given to this
    function: the exception keeps it as ``__tvm_ffi_error__`` (upstream's
    attribute), so that the exception crossing back into the FFI is raised
    there as the very same error.
    """
    err = None
    if handle:
        from . import _reflection as _r

        cell = _r.AnyCell()
        cell.type_index = _r.K_ERROR
        cell.v_ptr = handle
        err = _r.take_any(cell)
    exc = make_error(kind, message, backtrace)
    if err is not None:
        try:
            exc.__tvm_ffi_error__ = err  # type: ignore[attr-defined]
        except AttributeError:  # an exception class that takes no attributes
            pass
    return exc


def error_to_ffi(exc: BaseException) -> tuple:
    """(kind, message, backtrace[, handle]) of an exception crossing into the FFI (hook).

    An exception that came from an FFI error and still has its kind and
    message goes back as that error: ``handle`` (one reference for the
    caller) and the Python frames it crossed, which are appended to the
    error's backtrace.
    """
    kind, message, backtrace = error_info(exc)
    err = getattr(exc, "__tvm_ffi_error__", None)
    if err is not None:
        from . import _core
        from . import _reflection as _r
        from .core import Error

        handle = _r.chandle_of(err) if isinstance(err, Error) else 0
        if handle and err.kind == kind and err.message == message:
            _core._object_inc_ref(handle)
            return kind, message, "".join(traceback.format_tb(exc.__traceback__)), handle
    return kind, message, backtrace

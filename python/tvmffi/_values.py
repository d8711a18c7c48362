"""Python values in FFI form: object handles, and upstream's argument setters.

* :func:`chandle_of` / :func:`ensure_constructed`: the handle of a
  :class:`tvmffi.Object` and its construction state (asked of the extension).
* :func:`pack` converts a Python value as upstream's argument setters do
  (protocols such as ``__tvm_ffi_object__`` / ``__tvm_ffi_value__``, ctypes
  pointers, and any other Python object as an ``ffi.OpaquePyObject``); the
  extension calls it (``_core._set_pack_fallback``) for values it does not
  classify itself.
"""

from __future__ import annotations

import ctypes
from numbers import Integral, Real
from typing import Any, Callable, Sequence

from . import _core
from ._abi import K_OPAQUE_PY_OBJECT
from ._cell import (
    AnyCell,
    _ptr_cell,
    call_cells,
    error_cell,
    opaque_cell,
    release_any,
    take_any,
    to_owned_any,
)
from ._core import Device, Function, Object

_ADDR = _core._handle_address
_STATE = _core._inst_state
_NB_OBJECT_INIT = Object.__dict__["__init__"]
# Kept for callers that asked whether the state could be read (it always can now).
_NB_STATE_KNOWN = True


def handle_of(obj: Object) -> int:
    """The address of the FFI object ``obj`` refers to (0 for a null reference)."""
    return _ADDR(obj)


def chandle_of(obj: Any) -> int:
    """The handle of a tvmffi.Object (0 when it has none, e.g. made by ``__new__``)."""
    if not isinstance(obj, Object):  # an unbound call: its memory is not an Object's
        raise TypeError(f"expected a tvmffi.Object, got an object of type {type(obj).__name__!r}")
    return _ADDR(obj)


# nanobind runs an instance's C++ destructor (here: the release of its handle)
# only for instances it constructed. A Python subclass instance made by
# ``cls.__new__`` and bound to a handle by ``_core._init_from`` is not, so
# :func:`ensure_constructed` first runs the extension's ``Object.__init__``
# (a null handle) on it. The extension says which state an instance is in.


def _nb_state(obj: Any) -> int:
    return _STATE(obj)


def is_constructed(obj: Any) -> bool:
    """Whether the extension considers ``obj`` constructed (its handle is released with it)."""
    return _STATE(obj) == 2


def ensure_constructed(obj: Any) -> None:
    """Construct (null handle) an Object instance that was only allocated (``cls.__new__``)."""
    if _STATE(obj) == 0:
        _NB_OBJECT_INIT(obj)


# -- Python values in FFI form (upstream's argument setters) ------------------


class ObjectRValueRef:
    """``obj._move()``: ``obj``'s reference, handed to whatever it is passed to.

    As a function argument it travels as an rvalue reference: a callee that
    takes the object over leaves ``obj`` empty (its handle None), one that only
    reads it leaves it as it was. Returned from a callback, or put in a
    container being converted, it always hands the reference over.
    """

    __slots__ = ["obj"]

    def __init__(self, obj: Any) -> None:
        self.obj = obj


_core._set_rvalue_ref_class(ObjectRValueRef)


class ObjectConvertible:
    """Base of Python classes that convert to an FFI object through :meth:`asobject`."""

    def asobject(self) -> Object:
        """The :class:`Object` this value stands for across the FFI."""
        raise NotImplementedError()


class OpaquePyObject(Object):
    """An ``ffi.OpaquePyObject``: a Python object carried across the FFI as it is."""

    __slots__ = ()

    def pyobject(self) -> Any:
        """The Python object this holds."""
        handle = chandle_of(self)
        if not handle:
            raise ValueError("OpaquePyObject: null reference")
        return _core._opaque_pyobject(handle)


_FFI_FUNCS: dict[str, Function] = {}


def ffi_func(name: str) -> Function:
    """The global function ``name`` (looked up once; the runtime's own as of import)."""
    f = _FFI_FUNCS.get(name)
    if f is None:
        f = _FFI_FUNCS[name] = _core._builtin_func(name)
    return f


def _dtype_cls() -> Any:
    from ._dtype import dtype

    return dtype


def _foreign_dtype(value: Any) -> Any:
    """tvmffi.dtype of a torch / numpy dtype, or of a ``__dlpack_data_type__`` value."""
    dtype = _dtype_cls()
    if hasattr(type(value), "__dlpack_data_type__"):
        code, bits, lanes = value.__dlpack_data_type__()
        names = {0: "int", 1: "uint", 2: "float", 3: "handle", 4: "bfloat", 5: "complex", 6: "bool"}
        base = names.get(int(code))
        if base is None:
            raise TypeError(f"unsupported DLPack type code {code}")
        text = "bool" if base == "bool" and bits == 8 else f"{base}{bits}"
        return dtype(text if lanes == 1 else f"{text}x{lanes}")
    return dtype(value)


def _is_torch_or_numpy_dtype(value: Any) -> bool:
    mod = type(value).__module__ or ""
    return (mod.startswith("torch") and type(value).__name__ == "dtype") or (
        mod.startswith("numpy") and "dtype" in type(value).__name__.lower()
    )


def pack(value: Any) -> AnyCell:
    """``value`` as an owned TVMFFIAny, converted as upstream converts arguments.

    Beyond what the extension converts (numbers, strings, objects, devices,
    dtypes, tensors, lists, dicts, callables): the ``__tvm_ffi_object__``,
    ``__tvm_ffi_value__``, ``__tvm_ffi_int__``, ``__tvm_ffi_float__``,
    ``__tvm_ffi_opaque_ptr__``, ``__cuda_stream__``, ``__dlpack_device__`` and
    dtype protocols, :class:`ObjectConvertible`, ``ctypes.c_void_p``, and any
    other Python object as an ``ffi.OpaquePyObject``.
    """
    cell = _pack(value, True)
    assert cell is not None
    return cell


# Whether a call argument (or container element) that is no FFI value and
# follows none of the protocols :func:`pack` knows passes as an
# ``ffi.OpaquePyObject`` (upstream's behaviour) instead of being a TypeError.
# Off for ``tvmffi``; the ``tvm_ffi`` drop-in name (python/compat) turns it on.
_OPAQUE_ARGUMENTS = [False]


def set_opaque_arguments(enabled: bool) -> bool:
    """Let any Python object pass to FFI functions as an ``ffi.OpaquePyObject``; the old setting."""
    old = _OPAQUE_ARGUMENTS[0]
    _OPAQUE_ARGUMENTS[0] = bool(enabled)
    return old


def _pack_fallback(value: Any) -> AnyCell | None:
    """The extension's converter of values it does not classify (``_core._set_pack_fallback``).

    The cell holding the owned TVMFFIAny of ``value`` (the extension takes its
    value over); None when ``value`` is no protocol value and opaque arguments
    are off.
    """
    return _pack(value, _OPAQUE_ARGUMENTS[0])


#: Exact Python class -> a function giving an instance's address: such instances
#: pass to FFI functions as opaque pointers (upstream's ``core._OPAQUE_PTR_HANDLERS``,
#: for classes that cannot grow ``__tvm_ffi_opaque_ptr__``). Fill it while setting
#: up, before such values are passed; not for use while calls run.
OPAQUE_PTR_HANDLERS: dict[type, Callable[[Any], int]] = {}


def _is_cuda_python_stream(cls: type) -> bool:
    """cuda-python's ``CUstream`` (``int()`` gives the handle; it has no ``__cuda_stream__``).

    Known by name, so that cuda-python is never imported here.
    """
    return cls.__name__ == "CUstream" and cls.__module__.startswith("cuda.")


def _pack(value: Any, opaque: bool) -> AnyCell | None:
    """:func:`pack`; a value it would make an ``ffi.OpaquePyObject`` is None unless ``opaque``."""
    for _ in range(64):
        if value is None or isinstance(value, (bool, int, float, str, bytes, Object, Device)):
            return to_owned_any(value)
        if isinstance(value, ObjectRValueRef):
            value = value.obj
            continue
        cls = type(value)
        if hasattr(cls, "__tvm_ffi_object__"):
            value = value.__tvm_ffi_object__()
            if not isinstance(value, Object):
                raise TypeError("__tvm_ffi_object__() must return a tvm_ffi.Object")
            continue
        if hasattr(cls, "__dlpack_c_exchange_api__") or hasattr(cls, "__dlpack__"):
            return to_owned_any(_core.from_dlpack(value))
        if hasattr(cls, "__cuda_stream__"):
            return _ptr_cell(int(value.__cuda_stream__()[1]))
        if _is_cuda_python_stream(cls):
            return _ptr_cell(int(value))
        if isinstance(value, Integral):
            return to_owned_any(int(value))
        if isinstance(value, Real):
            return to_owned_any(float(value))
        if isinstance(value, (tuple, list)):
            try:
                return to_owned_any(value)
            except TypeError:
                return _pack_sequence(value)
        if isinstance(value, dict):
            try:
                return to_owned_any(value)
            except TypeError:
                return _pack_mapping(value)
        if isinstance(value, bytearray):
            return to_owned_any(bytes(value))
        if isinstance(value, ctypes.c_void_p):
            return _ptr_cell(value.value)
        if hasattr(cls, "__tvm_ffi_opaque_ptr__"):
            return _ptr_cell(int(value.__tvm_ffi_opaque_ptr__()))
        handler = OPAQUE_PTR_HANDLERS.get(cls)
        if handler is not None:
            return _ptr_cell(int(handler(value)))
        if callable(value):
            return to_owned_any(value)
        if _is_torch_or_numpy_dtype(value) or hasattr(cls, "__dlpack_data_type__"):
            return to_owned_any(_foreign_dtype(value))
        if hasattr(cls, "__dlpack_device__") and not hasattr(cls, "__dlpack__"):
            dev_type, dev_id = value.__dlpack_device__()
            return to_owned_any(Device(int(dev_type), int(dev_id)))
        if hasattr(cls, "__tvm_ffi_int__"):
            return to_owned_any(int(value.__tvm_ffi_int__()))
        if hasattr(cls, "__tvm_ffi_float__"):
            return to_owned_any(float(value.__tvm_ffi_float__()))
        if hasattr(cls, "__tvm_ffi_value__"):
            inner = value.__tvm_ffi_value__()
            if inner is value:
                return opaque_cell(value) if opaque else None
            value = inner
            continue
        if isinstance(value, BaseException):
            return error_cell(value)
        if isinstance(value, ObjectConvertible):
            value = value.asobject()
            continue
        return opaque_cell(value) if opaque else None
    raise TypeError("infinite __tvm_ffi_value__ cycle detected")


_core._set_pack_fallback(_pack_fallback)


def _pack_sequence(items: Sequence[Any]) -> AnyCell:
    cells = [pack(x) for x in items]
    try:
        return call_cells(ffi_func("ffi.Array"), cells)
    finally:
        for c in cells:
            release_any(c)


def _pack_mapping(items: dict[Any, Any]) -> AnyCell:
    cells: list[AnyCell] = []
    try:
        for k, v in items.items():
            cells.append(pack(k))
            cells.append(pack(v))
        return call_cells(ffi_func("ffi.Map"), cells)
    finally:
        for c in cells:
            release_any(c)


def to_ffi_value(value: Any) -> Any:
    """``value`` in a form every FFI call of the extension accepts (see :func:`pack`)."""
    if value is None or type(value) in (bool, int, float, str, bytes) or isinstance(value, Object):
        return value
    return take_any(pack(value))


def unwrap_opaque(value: Any) -> Any:
    """The Python object an ``ffi.OpaquePyObject`` holds; other values as they are."""
    if (
        isinstance(value, Object)
        and chandle_of(value)
        and _core._object_type_index(chandle_of(value)) == K_OPAQUE_PY_OBJECT
    ):
        return OpaquePyObject.pyobject(value)
    return value

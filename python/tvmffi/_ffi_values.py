"""Python values of FFI values: String, Bytes, CObject, CAny, and the origin tables.

The first layer of :mod:`tvmffi._type_schema`: ``str`` / ``bytes`` subclasses
that may keep their FFI object, upstream's ``CObject`` and ``CAny`` (an owned
FFI value), and the tables between schema origins and type indices.
"""

from __future__ import annotations

from typing import Any

from . import _reflection as _r
from ._core import Device, Object

try:
    from types import UnionType as _UnionType
except ImportError:  # Python < 3.10
    _UnionType = None  # type: ignore[assignment,misc]

# Origins the runtime writes that are spelled differently in Python.
_ORIGIN_ALIASES = {
    "Variant": "Union",
    "Optional": "Optional",
    "Tuple": "tuple",
    "ffi.Function": "Callable",
    "ffi.Array": "Array",
    "ffi.List": "List",
    "ffi.Map": "Map",
    "ffi.Dict": "Dict",
    "ffi.OpaquePyObject": "Any",
    "ffi.Object": "Object",
    "ffi.Tensor": "Tensor",
    "DLTensor*": "Tensor",
    "void*": "ctypes.c_void_p",
    "TVMFFIByteArray*": "bytes",
    "ffi.SmallBytes": "bytes",
    "ffi.Bytes": "bytes",
    "std::string": "str",
    "const char*": "str",
    "ffi.SmallStr": "str",
    "ffi.String": "str",
    "DataType": "dtype",
    "std::vector": "Array",
    "std::optional": "Optional",
    "std::variant": "Union",
    "std::tuple": "tuple",
    "std::map": "Map",
    "std::unordered_map": "Map",
    "std::function": "Callable",
    "ObjectRValueRef": "Object",
    "ffi.BigInt": "int",
}

# Aliases that lose information (``int`` is also a native type): a schema parsed
# from one keeps the key it came from in ``TypeSchema.type_key``.
_RETAINED_TYPE_KEYS = frozenset({"ffi.BigInt"})

ORIGIN_TYPE_INDEX_STRUCTURAL = -2
ORIGIN_TYPE_INDEX_UNKNOWN = -3

_ORIGIN_TO_TYPE_INDEX = {
    "None": _r.K_NONE,
    "int": _r.K_INT,
    "bool": _r.K_BOOL,
    "float": _r.K_FLOAT,
    "str": _r.K_STR,
    "bytes": _r.K_BYTES,
    "Device": _r.K_DEVICE,
    "dtype": _r.K_DATA_TYPE,
    "ctypes.c_void_p": _r.K_OPAQUE_PTR,
    "Tensor": _r.K_TENSOR,
    "Object": _r.K_OBJECT,
    "Callable": _r.K_FUNCTION,
    "Array": _r.K_ARRAY,
    "List": _r.K_LIST,
    "Map": _r.K_MAP,
    "Dict": _r.K_DICT,
    "Any": _r.K_ANY,
}
_TYPE_INDEX_TO_ORIGIN = {v: k for k, v in _ORIGIN_TO_TYPE_INDEX.items()}
_TYPE_INDEX_TO_ORIGIN.update(
    {
        _r.K_DLTENSOR_PTR: "Tensor",
        _r.K_RAW_STR: "str",
        _r.K_BYTE_ARRAY_PTR: "bytes",
        _r.K_SMALL_STR: "str",
        _r.K_SMALL_BYTES: "bytes",
        _r.K_OBJECT_RVALUE_REF: "Object",
    }
)

# The class of devices the converters make (core._set_class_device replaces it).
_DEVICE_CLS: list[type] = [Device]

_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1
_PROTOCOL_MAX_DEPTH = 64


# -- String / Bytes: str and bytes that may keep their FFI object -------------


class PyNativeObject:
    """Base of FFI values that are also Python builtins (:class:`String`, :class:`Bytes`)."""

    __slots__: list[str] = []

    def __init_cached_object_by_constructor__(self, fconstructor: Any, *args: Any) -> None:
        """Keep the object ``fconstructor(*args)`` returns as the cached FFI object."""
        obj = Object.__new__(Object)
        _r.init_handle_by_constructor(obj, fconstructor, *args)
        self._tvm_ffi_cached_object = obj  # type: ignore[attr-defined]


class String(str, PyNativeObject):
    """An ``ffi.String`` as a Python ``str`` (``_tvm_ffi_cached_object``: its FFI object, if kept)."""

    __slots__ = ["_tvm_ffi_cached_object"]

    def __new__(cls, value: str) -> String:
        self = super().__new__(cls, value)
        self._tvm_ffi_cached_object = None
        return self

    def __from_tvm_ffi_object__(cls, obj: Any) -> String:
        self = String(str(_r.take_any(_r.to_owned_any(obj))))
        self._tvm_ffi_cached_object = obj
        return self

    def __reduce__(self) -> Any:
        return (str, (str(self),))


class Bytes(bytes, PyNativeObject):
    """An ``ffi.Bytes`` as Python ``bytes`` (``_tvm_ffi_cached_object``: its FFI object, if kept)."""

    # bytes subclasses cannot have non-empty __slots__: the attribute lives in __dict__.

    def __new__(cls, value: bytes) -> Bytes:
        self = super().__new__(cls, value)
        self._tvm_ffi_cached_object = None
        return self

    def __from_tvm_ffi_object__(cls, obj: Any) -> Bytes:
        self = Bytes(bytes(_r.take_any(_r.to_owned_any(obj))))
        self._tvm_ffi_cached_object = obj
        return self

    def __reduce__(self) -> Any:
        return (bytes, (bytes(self),))


class _CObjectMeta(type):
    """The metaclass of :class:`CObject`: its checks are those of :class:`Object`."""

    def __new__(
        mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> type:
        """A class deriving from CObject derives from Object instead."""
        if any(b is CObject for b in bases if "CObject" in globals()):
            bases = tuple(Object if b is CObject else b for b in bases)
            return type(Object)(name, bases, namespace, **kwargs)
        return super().__new__(mcs, name, bases, namespace, **kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        """Whether ``instance`` is an FFI object (an :class:`Object`)."""
        return isinstance(instance, Object)

    def __subclasscheck__(cls, subclass: type) -> bool:
        """Whether ``subclass`` is an :class:`Object` class."""
        return isinstance(subclass, type) and issubclass(subclass, Object)


class CObject(metaclass=_CObjectMeta):
    """Upstream's ``core.CObject``, the base of every FFI object class.

    ``isinstance(x, CObject)`` is ``isinstance(x, Object)``, and a class
    deriving from it derives from :class:`Object`. Unlike ``Object`` (ffi.Object)
    it is no registered type: as an annotation it is a TypeError, as upstream's.
    """


# -- CAny ----------------------------------------------------------------------


class CAny:
    """An owned FFI value (a ``TVMFFIAny`` holding its reference).

    ``CAny(value)`` packs a Python value as a call argument would be;
    :func:`_to_py_class_value` gives the Python value back.
    """

    __slots__ = ("_cell",)

    def __init__(self, value: Any = None) -> None:
        self._cell = _r.AnyCell() if value is None else _r.pack(value)

    @classmethod
    def _from_cell(cls, cell: _r.AnyCell) -> CAny:
        """Adopt an owned cell."""
        self = cls.__new__(cls)
        self._cell = cell
        return self

    def __del__(self) -> None:
        cell = getattr(self, "_cell", None)
        if cell is not None:
            _r.release_any(cell)

    @property
    def type_index(self) -> int:
        """The type index of the value."""
        return int(self._cell.type_index)

    def __repr__(self) -> str:
        ti = self.type_index
        c = self._cell
        if ti == _r.K_NONE:
            return "CAny(None)"
        if ti == _r.K_INT:
            return f"CAny(int={c.v_int64})"
        if ti == _r.K_FLOAT:
            return f"CAny(float={c.v_float64})"
        if ti == _r.K_BOOL:
            return f"CAny(bool={bool(c.v_int64)})"
        if ti >= _r.K_STATIC_OBJECT_BEGIN:
            return f"CAny(object, type_index={ti})"
        return f"CAny(type_index={ti})"


def _to_py_class_value(value: CAny) -> Any:
    """The Python value of a :class:`CAny` (strings as :class:`String`, bytes as :class:`Bytes`)."""
    result = _r.cell_to_py(_r.copy_cell(value._cell))
    device_cls = _DEVICE_CLS[0]
    if (
        isinstance(result, Device)
        and device_cls is not Device
        and not isinstance(result, device_cls)
    ):
        return device_cls(str(result))
    if isinstance(result, str) and not isinstance(result, (String, _r._dtype_cls())):
        return String(result)
    if isinstance(result, bytes) and not isinstance(result, Bytes):
        return Bytes(result)
    return result

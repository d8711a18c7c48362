"""TypeSchema: the FFI type of a value, and converting Python values to it.

A :class:`TypeSchema` is an origin (``"int"``, ``"Array"``, ``"Optional"``,
an object type key, ...) with argument schemas. It is read from the JSON the
runtime publishes in function and field metadata (``from_json_str``), built
from Python annotations (``from_annotation``), printed as Python typing text
(``repr``), and converts a Python value to its FFI form as a C++ function
taking that type would (``convert`` gives a :class:`CAny`; ``check_value``
only checks), with the implicit conversions of ``TryCastFromAnyView``
(bool -> int, int -> float, str -> Device / dtype, element-wise containers,
the ``__tvm_ffi_*__`` protocols, a type's ``__ffi_convert__`` attribute).

This is upstream's ``tvm_ffi.core.TypeSchema`` / ``CAny`` in pure Python over
:mod:`tvmffi._reflection`.
"""

from __future__ import annotations

import collections.abc
import ctypes
import dataclasses
import json
import os
import typing
from collections.abc import Mapping
from numbers import Integral, Real
from typing import Any, Callable, Optional

from . import _core
from . import _reflection as _r
from ._core import Device, Function, Object, Tensor

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
}

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
            return f"CAny(int={c.v.v_int64})"
        if ti == _r.K_FLOAT:
            return f"CAny(float={c.v.v_float64})"
        if ti == _r.K_BOOL:
            return f"CAny(bool={bool(c.v.v_int64)})"
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


# -- the converters ------------------------------------------------------------


class _ConvertError(Exception):
    """A value does not convert (turned into TypeError by TypeSchema)."""

    @property
    def message(self) -> str:
        return self.args[0]


def _indent(message: Any, prefix: str) -> str:
    return prefix + str(message).replace("\n", "\n" + prefix)


def _describe(value: Any) -> str:
    """The type of ``value`` as the error messages name it."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (bytes, bytearray)):
        return "bytes"
    if isinstance(value, Object):
        info = getattr(type(value), "__tvm_ffi_type_info__", None)
        if info is not None:
            return info.type_key
        handle = _r.chandle_of(value)
        return _r.type_index_to_key(_object_type_index(handle)) if handle else "None"
    return type(value).__qualname__


def _object_type_index(handle: int) -> int:
    return _core._object_type_index(handle)


def _is_instance_index(actual: int, target: int) -> bool:
    """Whether type ``actual`` is ``target`` or derives from it."""
    return actual == target or _core._is_subtype(actual, target)


def _packed(value: Any, expected: str, original: Any) -> CAny:
    """``CAny(value)``, a packing failure reported as a conversion error."""
    try:
        return CAny(value)
    except _ConvertError:
        raise
    except Exception as err:
        raise _ConvertError(f"expected {expected}, got {_describe(original)}: {err}") from None


def _dtype_cls() -> Any:
    return _r._dtype_cls()


def _is_framework_dtype(value: Any) -> bool:
    return _r._is_torch_or_numpy_dtype(value)


class _Converter:
    """A built converter: ``dispatch(value) -> (CAny, changed)`` or _ConvertError."""

    __slots__ = ("dispatch", "err_hint", "subs", "type_index", "_fn_convert")

    def __init__(
        self,
        dispatch: Callable[[Any, Any], tuple[CAny, bool]],
        err_hint: str,
        subs: tuple[Any, ...] | None = None,
        type_index: int = _r.K_NONE,
    ) -> None:
        self.dispatch = lambda value: dispatch(self, value)
        self.err_hint = err_hint
        self.subs = subs
        self.type_index = type_index
        self._fn_convert: Any = _r._UNSET

    @property
    def fn_convert(self) -> Any:
        if self._fn_convert is _r._UNSET:
            self._fn_convert = _r.type_attr(self.type_index, "__ffi_convert__")
        return self._fn_convert


def _c_any(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    packed = _packed(value, "Any", value)
    plain = (
        type(None),
        bool,
        int,
        float,
        ctypes.c_void_p,
        String,
        Bytes,
        Tensor,
        Device,
        Object,
        _dtype_cls(),
    )
    return packed, not isinstance(value, plain)


def _c_none(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if value is None:
        return CAny(None), False
    raise _ConvertError(f"expected None, got {_describe(value)}")


def _check_int64(value: int) -> None:
    if not _INT64_MIN <= value <= _INT64_MAX:
        raise _ConvertError(f"integer {value} out of int64 range [{_INT64_MIN}, {_INT64_MAX}]")


def _c_int(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if isinstance(value, bool):
        return CAny(int(value)), True
    if isinstance(value, int):
        _check_int64(value)
        return CAny(value), False
    if isinstance(value, Integral):
        try:
            ivalue = int(value)
        except Exception as err:
            raise _ConvertError(f"int() failed for {type(value).__qualname__}: {err}") from None
        _check_int64(ivalue)
        return CAny(ivalue), True
    if hasattr(type(value), "__tvm_ffi_int__"):
        return _packed(value, "int", value), True
    raise _ConvertError(f"expected int, got {_describe(value)}")


def _c_float(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if isinstance(value, float):
        return CAny(value), False
    if isinstance(value, (int, bool)):
        return CAny(float(value)), True
    if isinstance(value, (Integral, Real)):
        try:
            fvalue = float(value)  # type: ignore[arg-type]
        except Exception as err:
            raise _ConvertError(f"float() failed for {type(value).__qualname__}: {err}") from None
        return CAny(fvalue), True
    if hasattr(type(value), "__tvm_ffi_float__"):
        return _packed(value, "float", value), True
    raise _ConvertError(f"expected float, got {_describe(value)}")


def _c_bool(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if isinstance(value, bool):
        return CAny(value), False
    if isinstance(value, Integral):
        try:
            bvalue = bool(value)
        except Exception as err:
            raise _ConvertError(f"bool() failed for {type(value).__qualname__}: {err}") from None
        return CAny(bvalue), True
    raise _ConvertError(f"expected bool, got {_describe(value)}")


def _c_str(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if isinstance(value, String):
        return CAny(str(value)), False
    if isinstance(value, str):
        return CAny(str(value)), True
    raise _ConvertError(f"expected str, got {_describe(value)}")


def _c_bytes(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if isinstance(value, Bytes):
        return CAny(bytes(value)), False
    if isinstance(value, bytes):
        return CAny(bytes(value)), True
    if isinstance(value, bytearray):
        return CAny(bytes(value)), True
    raise _ConvertError(f"expected bytes, got {_describe(value)}")


def _c_device(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    cls = type(value)
    if isinstance(value, Device):
        return CAny(value), False
    if isinstance(value, str):
        try:
            dev = _DEVICE_CLS[0](value)
        except Exception:
            raise _ConvertError(f"expected Device, got invalid device string {value!r}") from None
        return CAny(dev), True
    if hasattr(cls, "__dlpack_device__") and not hasattr(cls, "__dlpack__"):
        return _packed(value, "Device", value), True
    raise _ConvertError(f"expected Device, got {_describe(value)}")


def _c_dtype(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    dtype = _dtype_cls()
    if isinstance(value, dtype):
        return CAny(value), False
    if isinstance(value, str):
        try:
            d = dtype(value)
        except Exception:
            raise _ConvertError(f"expected dtype, got invalid dtype string {value!r}") from None
        return CAny(d), True
    if _is_framework_dtype(value) or hasattr(value, "__dlpack_data_type__"):
        return _packed(value, "dtype", value), True
    raise _ConvertError(f"expected dtype, got {_describe(value)}")


def _c_opaque_ptr(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    cls = type(value)
    if isinstance(value, ctypes.c_void_p):
        return CAny(value), False
    if value is None:
        return CAny._from_cell(_r._ptr_cell(None)), True
    if hasattr(cls, "__tvm_ffi_opaque_ptr__") or hasattr(cls, "__cuda_stream__"):
        return _packed(value, "ctypes.c_void_p", value), True
    raise _ConvertError(f"expected ctypes.c_void_p, got {_describe(value)}")


def _c_tensor(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    cls = type(value)
    if isinstance(value, Tensor):
        return CAny(value), False
    if hasattr(cls, "__dlpack__"):
        return _packed(value, "Tensor", value), True
    if os.environ.get("TVM_FFI_SKIP_DLPACK_C_EXCHANGE_API", "0") != "1" and hasattr(
        cls, "__dlpack_c_exchange_api__"
    ):
        return _packed(value, "Tensor", value), True
    raise _ConvertError(f"expected Tensor, got {_describe(value)}")


def _c_callable(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if isinstance(value, Function):
        return CAny(value), False
    if callable(value):
        if isinstance(value, Object):
            raise _ConvertError(f"expected Callable, got {_describe(value)}")
        return _packed(value, "Callable", value), True
    raise _ConvertError(f"expected Callable, got {_describe(value)}")


def _array_cls() -> Any:
    from .container import Array

    return Array


def _map_cls() -> Any:
    from .container import Map

    return Map


def _container_cls(name: str) -> Any:
    """tvmffi.List / tvmffi.Dict when the package has them (else None)."""
    from . import container

    return getattr(container, name, None)


def _is_type_index(value: Any, index: int) -> bool:
    if not isinstance(value, Object):
        return False
    h = _r.chandle_of(value)
    return bool(h) and _object_type_index(h) == index


def _new_container(ctor: str, cells: list[CAny], expected: str, original: Any) -> CAny:
    try:
        return CAny._from_cell(_r.call_cells(_r.ffi_func(ctor), [c._cell for c in cells]))
    except _ConvertError:
        raise
    except Exception as err:
        raise _ConvertError(f"expected {expected}, got {_describe(original)}: {err}") from None


def _seq_types() -> tuple[Any, ...]:
    out: list[Any] = [list, tuple, _array_cls()]
    lst = _container_cls("List")
    if lst is not None:
        out.append(lst)
    return tuple(out)


def _convert_seq(conv: _Converter, value: Any, kind: str) -> tuple[CAny, bool]:
    target_index = _r.K_ARRAY if kind == "Array" else _r.K_LIST
    is_seq = (
        isinstance(value, (list, tuple))
        or _is_type_index(value, _r.K_ARRAY)
        or _is_type_index(value, _r.K_LIST)
    )
    if not is_seq:
        raise _ConvertError(f"expected {kind}, got {_describe(value)}")
    elem = conv.subs[0] if conv.subs else None
    same_kind = _is_type_index(value, target_index)
    if elem is None and same_kind:
        return CAny(value), False
    changed = False
    items: list[CAny] = []
    for i, raw in enumerate(value):
        if elem is not None:
            try:
                item, item_changed = _dispatch(elem, raw)
            except _ConvertError as err:
                raise _ConvertError(f"element [{i}]: {err.message}") from None
            changed = changed or item_changed
            items.append(item)
        else:
            items.append(_packed(raw, kind, raw))
    if same_kind and not changed:
        return CAny(value), False
    ctor = "ffi.Array" if kind == "Array" else "ffi.List"
    return _new_container(ctor, items, kind, value), True


def _c_array(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    return _convert_seq(conv, value, "Array")


def _c_list(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    return _convert_seq(conv, value, "List")


def _c_tuple(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    is_seq = (
        isinstance(value, (list, tuple))
        or _is_type_index(value, _r.K_ARRAY)
        or _is_type_index(value, _r.K_LIST)
    )
    if not is_seq:
        raise _ConvertError(f"expected tuple, got {_describe(value)}")
    is_array = _is_type_index(value, _r.K_ARRAY)
    if conv.subs is None:
        if is_array:
            return CAny(value), False
        return _new_container(
            "ffi.Array", [_packed(x, "tuple", value) for x in value], "tuple", value
        ), True
    n = len(conv.subs)
    if len(value) != n:
        raise _ConvertError(
            f"expected tuple of length {n}, got {type(value).__name__} of length {len(value)}"
        )
    changed = False
    items: list[CAny] = []
    for i in range(n):
        raw = value[i]
        try:
            item, item_changed = _dispatch(conv.subs[i], raw)
        except _ConvertError as err:
            raise _ConvertError(f"element [{i}]: {err.message}") from None
        changed = changed or item_changed
        items.append(item)
    if is_array and not changed:
        return CAny(value), False
    return _new_container("ffi.Array", items, "tuple", value), True


def _convert_mapping(conv: _Converter, value: Any, kind: str) -> tuple[CAny, bool]:
    target_index = _r.K_MAP if kind == "Map" else _r.K_DICT
    if (
        not isinstance(value, Mapping)
        and not _is_type_index(value, _r.K_MAP)
        and not _is_type_index(value, _r.K_DICT)
    ):
        raise _ConvertError(f"expected {kind}, got {_describe(value)}")
    key_conv = conv.subs[0] if conv.subs else None
    val_conv = conv.subs[1] if conv.subs else None
    same_kind = _is_type_index(value, target_index)
    if key_conv is None and val_conv is None and same_kind:
        return CAny(value), False
    changed = False
    kvs: list[CAny] = []
    for raw_key, raw_val in value.items():
        if key_conv is not None:
            try:
                key, c = _dispatch(key_conv, raw_key)
            except _ConvertError as err:
                raise _ConvertError(f"key {raw_key!r}: {err.message}") from None
            changed = changed or c
        else:
            key = _packed(raw_key, kind, raw_key)
        if val_conv is not None:
            try:
                val, c = _dispatch(val_conv, raw_val)
            except _ConvertError as err:
                raise _ConvertError(f"value for key {raw_key!r}: {err.message}") from None
            changed = changed or c
        else:
            val = _packed(raw_val, kind, raw_val)
        kvs.append(key)
        kvs.append(val)
    if same_kind and not changed:
        return CAny(value), False
    return _new_container("ffi.Map" if kind == "Map" else "ffi.Dict", kvs, kind, value), True


def _c_map(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    return _convert_mapping(conv, value, "Map")


def _c_dict(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    return _convert_mapping(conv, value, "Dict")


def _c_optional(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if value is None:
        return CAny(None), False
    return _dispatch(conv.subs[0], value)  # type: ignore[index]


def _c_union(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    for alt in conv.subs or ():
        try:
            return alt.dispatch(value)
        except _ConvertError:
            pass
    raise _ConvertError(f"expected {conv.err_hint}, got {_describe(value)}")


def _registered_cls_has_base(type_index: int, base_name: str) -> bool:
    cls = _r.TYPE_INDEX_TO_CLS.get(type_index)
    if cls is None:
        return False
    return any(
        getattr(b, "__module__", None) in ("tvm_ffi.dataclasses.enum", "tvmffi.dataclasses.enum")
        and b.__name__ == base_name
        for b in cls.__mro__
    )


def _enum_variant(type_index: int, payload: Any) -> Any:
    """The entry of an IntEnum / StrEnum type at a payload (from its ``__ffi_enum__`` registry)."""
    cls = _r.TYPE_INDEX_TO_CLS.get(type_index)
    if cls is None:
        return None
    from .dataclasses.enum import _state

    state = _state(cls)
    if state is None:
        return None
    try:
        return state.indexes.get(payload)
    except TypeError:  # an unhashable payload
        return None


def _marshaled_object(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    packed = _packed(value, conv.err_hint, value)
    error: BaseException | None = None
    converted: CAny | None = None
    try:
        fn = conv.fn_convert
        if fn is not None:
            converted = CAny._from_cell(_r.call_cells(fn, [packed._cell]))
        else:
            converted = packed
    except Exception as err:
        error = err
    else:
        actual = converted.type_index
        if actual >= _r.K_STATIC_OBJECT_BEGIN and _is_instance_index(actual, conv.type_index):
            return converted, True
    if error is not None:
        raise _ConvertError(
            f"expected {conv.err_hint}, got {_describe(value)}\n"
            f"  __ffi_convert__ failed:\n{_indent(error, '    ')}"
        ) from None
    raise _ConvertError(f"expected {conv.err_hint}, got {_describe(value)}")


def _passthrough(conv: _Converter, value: Any) -> bool:
    if isinstance(value, Object):
        h = _r.chandle_of(value)
        return bool(h) and _is_instance_index(_object_type_index(h), conv.type_index)
    return False


def _c_object(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if _passthrough(conv, value):
        return CAny(value), False
    return _marshaled_object(conv, value)


def _c_int_enum(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if _passthrough(conv, value):
        return CAny(value), False
    if _r.TYPE_INDEX_TO_CLS.get(conv.type_index) is not None:
        payload: Any = None
        if isinstance(value, bool):
            payload = int(value)
        elif isinstance(value, int):
            _check_int64(value)
            payload = value
        elif isinstance(value, Integral):
            try:
                payload = int(value)
            except Exception as err:
                raise _ConvertError(f"int() failed for {type(value).__qualname__}: {err}") from None
            _check_int64(payload)
        if payload is not None:
            variant = _enum_variant(conv.type_index, payload)
            if variant is not None:
                return CAny(variant), True
    return _marshaled_object(conv, value)


def _c_str_enum(conv: _Converter, value: Any) -> tuple[CAny, bool]:
    if _passthrough(conv, value):
        return CAny(value), False
    if _r.TYPE_INDEX_TO_CLS.get(conv.type_index) is not None and isinstance(value, str):
        variant = _enum_variant(conv.type_index, value)
        if variant is not None:
            return CAny(variant), True
    return _marshaled_object(conv, value)


def _object_converter(origin: str, type_index: int) -> _Converter:
    if _registered_cls_has_base(type_index, "IntEnum"):
        fn = _c_int_enum
    elif _registered_cls_has_base(type_index, "StrEnum"):
        fn = _c_str_enum
    else:
        fn = _c_object
    return _Converter(fn, origin, type_index=type_index)


_SIMPLE = {
    "int": _c_int,
    "float": _c_float,
    "bool": _c_bool,
    "None": _c_none,
    "str": _c_str,
    "bytes": _c_bytes,
    "Device": _c_device,
    "dtype": _c_dtype,
    "ctypes.c_void_p": _c_opaque_ptr,
    "Tensor": _c_tensor,
    "Callable": _c_callable,
}


def _build_converter(schema: TypeSchema) -> _Converter:
    origin = schema.origin
    args = schema.args or ()
    if schema.origin_type_index == _r.K_ANY or origin == "Any":
        return _Converter(_c_any, "Any")
    if origin == "Optional":
        return _Converter(_c_optional, origin, (args[0]._converter,))
    if origin == "Union":
        return _Converter(
            _c_union, " | ".join(repr(a) for a in args), tuple(a._converter for a in args)
        )
    simple = _SIMPLE.get(origin)
    if simple is not None:
        return _Converter(simple, origin)

    def sub(a: TypeSchema) -> _Converter | None:
        return None if a.origin == "Any" else a._converter

    if origin in ("Array", "List", "list"):
        hint = "Array" if origin == "Array" else "List"
        s = sub(args[0]) if args else None
        return _Converter(
            _c_array if origin == "Array" else _c_list, hint, (s,) if s is not None else None
        )
    if origin in ("Map", "Dict", "dict"):
        hint = "Map" if origin == "Map" else "Dict"
        subs = None
        if len(args) == 2:
            k, v = sub(args[0]), sub(args[1])
            if k is not None or v is not None:
                subs = (k, v)
        conv = _Converter(_c_map if origin == "Map" else _c_dict, hint, subs)
        return conv
    if origin == "tuple":
        subs_t = tuple(a._converter for a in schema.args) if schema.args is not None else None
        return _Converter(_c_tuple, "tuple", subs_t)
    if origin == "Object":
        return _Converter(_c_object, "Object", type_index=_r.K_OBJECT)
    if schema.origin_type_index >= _r.K_STATIC_OBJECT_BEGIN:
        return _object_converter(origin, schema.origin_type_index)
    index = _r.type_key_to_index(origin)
    if index is not None:
        return _object_converter(origin, index)
    raise TypeError(f"unknown TypeSchema origin: {origin!r}")


# Containers accept their item converters lazily: _dispatch resolves None subs as "Any".
def _dispatch(conv: _Converter | None, value: Any) -> tuple[CAny, bool]:
    """Normalize the value protocols, then convert (``changed`` is True when it was)."""
    if conv is None:
        return _packed(value, "Any", value), False
    used_protocol = False
    for depth in range(_PROTOCOL_MAX_DEPTH + 1):
        inner, stalled = _protocol_step(value)
        if stalled:
            _raise_protocol_error(conv, value)
        if inner is value:
            break
        if depth >= _PROTOCOL_MAX_DEPTH:
            raise _ConvertError("infinite __tvm_ffi_value__ cycle detected")
        used_protocol = True
        value = inner
    result, changed = conv.dispatch(value)
    return result, changed or used_protocol


def _raise_protocol_error(conv: _Converter, value: Any) -> None:
    if conv.dispatch is not None and conv.subs and conv.err_hint == "Optional":
        _raise_protocol_error(conv.subs[0], value)
    if conv.err_hint == "Any":
        raise _ConvertError(f"failed to convert Any from {_describe(value)}")
    raise _ConvertError(f"expected {conv.err_hint}, got {_describe(value)}")


def _protocol_step(value: Any) -> tuple[Any, bool]:
    if isinstance(value, (Tensor, Object, _r.ObjectRValueRef, PyNativeObject)):
        return value, False
    cls = type(value)
    if hasattr(cls, "__tvm_ffi_object__"):
        try:
            return value.__tvm_ffi_object__(), False
        except Exception:
            raise _ConvertError(f"__tvm_ffi_object__() failed for {_describe(value)}") from None
    if hasattr(cls, "__tvm_ffi_value__"):
        try:
            inner = value.__tvm_ffi_value__()
        except Exception:
            return value, True
        return inner, inner is value
    if isinstance(value, _r.ObjectConvertible):
        try:
            inner = value.asobject()
        except Exception:
            raise _ConvertError(f"asobject() failed for {_describe(value)}") from None
        if not isinstance(inner, Object):
            raise _ConvertError(f"asobject() returned {_describe(inner)} for {_describe(value)}")
        return inner, False
    return value, False


# -- TypeSchema ------------------------------------------------------------------


@dataclasses.dataclass(repr=False)
class TypeSchema:
    """The FFI type of a value: an origin and its argument schemas.

    ``TypeSchema("Array", (TypeSchema("int"),))`` prints as ``Array[int]``.
    ``origin_type_index`` is the type index of the origin (-2 for Optional /
    Union, -3 when unknown).
    """

    origin: str
    args: Optional[tuple[TypeSchema, ...]] = None
    origin_type_index: int = dataclasses.field(default=ORIGIN_TYPE_INDEX_UNKNOWN, repr=False)

    def __post_init__(self) -> None:
        origin = self.origin
        args = self.args
        if args is not None and not isinstance(args, tuple):
            args = self.args = tuple(args)
        if origin != "tuple" and args is None:
            args = self.args = ()
        if origin == "Union":
            if len(args) < 2:  # type: ignore[arg-type]
                raise ValueError("Union must have at least two arguments")
        elif origin == "Optional":
            if len(args) != 1:  # type: ignore[arg-type]
                raise ValueError("Optional must have exactly one argument")
        elif origin in ("list", "Array", "List"):
            if len(args) not in (0, 1):  # type: ignore[arg-type]
                raise ValueError(f"{origin} must have 0 or 1 argument")
            if args == ():
                self.args = (TypeSchema("Any"),)
        elif origin in ("dict", "Map", "Dict"):
            if len(args) not in (0, 2):  # type: ignore[arg-type]
                raise ValueError(f"{origin} must have 0 or 2 arguments")
            if args == ():
                self.args = (TypeSchema("Any"), TypeSchema("Any"))
        if self.origin_type_index == ORIGIN_TYPE_INDEX_UNKNOWN:
            if origin in ("Optional", "Union"):
                self.origin_type_index = ORIGIN_TYPE_INDEX_STRUCTURAL
            elif origin in _ORIGIN_TO_TYPE_INDEX:
                self.origin_type_index = _ORIGIN_TO_TYPE_INDEX[origin]
            else:
                index = _r.type_key_to_index(origin)
                if index is not None:
                    self.origin_type_index = index

    # dataclasses with eq=True are unhashable; the converter is cached per instance.
    @property
    def _converter(self) -> _Converter:
        conv = self.__dict__.get("_conv")
        if conv is None:
            conv = self.__dict__["_conv"] = _build_converter(self)
        return conv

    def is_subtype_of(self, target_cls: type) -> bool:
        """Whether this schema's origin is an FFI object type derived from ``target_cls``'s."""
        info = getattr(target_cls, "__tvm_ffi_type_info__", None)
        if info is None:
            try:
                target = TypeSchema.from_annotation(target_cls).origin_type_index
            except TypeError:
                return False
            if target == _r.K_OBJECT:
                return self.origin_type_index >= _r.K_STATIC_OBJECT_BEGIN
            return False
        if self.origin_type_index == info.type_index:
            return True
        source = _r.type_info(self.origin_type_index) if self.origin_type_index >= 0 else None
        return source is not None and info.type_index in source.type_ancestors

    def __repr__(self) -> str:
        return self.repr(None)

    @staticmethod
    def _from_maybe_json(raw: object) -> TypeSchema:
        if isinstance(raw, TypeSchema):
            return raw
        if isinstance(raw, str):
            return TypeSchema.from_json_str(raw)
        if isinstance(raw, dict):
            return TypeSchema.from_json_obj(raw)
        if isinstance(raw, Mapping):
            return TypeSchema.from_json_obj(dict(raw))
        raise TypeError(f"expected TypeSchema, JSON string, or JSON dict, got {type(raw).__name__}")

    @staticmethod
    def from_json_obj(obj: dict[str, Any]) -> TypeSchema:
        """The schema of a parsed JSON object ``{"type": ..., "args": [...]}``."""
        if not isinstance(obj, dict) or "type" not in obj:
            raise TypeError(f"expected schema dict with 'type' key, got {type(obj).__name__}")
        origin = _ORIGIN_ALIASES.get(obj["type"], obj["type"])
        if "args" not in obj:
            return TypeSchema(origin)
        raw_args = obj["args"]
        if not isinstance(raw_args, (list, tuple)):
            raw_args = ()
        return TypeSchema(
            origin, tuple(TypeSchema.from_json_obj(a) for a in raw_args if isinstance(a, dict))
        )

    @staticmethod
    def from_json_str(s: str) -> TypeSchema:
        """The schema of a JSON string."""
        return TypeSchema.from_json_obj(json.loads(s))

    @staticmethod
    def from_type_index(type_index: int, args: tuple[TypeSchema, ...] = ()) -> TypeSchema:
        """The schema of a type index (and argument schemas)."""
        origin = _TYPE_INDEX_TO_ORIGIN.get(type_index)
        if origin is None:
            origin = _r.type_index_to_key(type_index)
        return TypeSchema(origin, args, origin_type_index=type_index)

    @staticmethod
    def from_annotation(annotation: object) -> TypeSchema:
        """The schema of a Python annotation (``int``, ``list[int]``, ``Optional[str]``,
        ``Callable[[int], str]``, a registered Object class, ...); TypeError if none."""
        return _from_annotation(annotation)

    def check_value(self, value: object) -> None:
        """TypeError (with what did not match) unless ``value`` converts to this type."""
        try:
            _dispatch(self._converter, value)
        except RecursionError:
            raise TypeError(
                f"type check failed for {self!r}: infinite __tvm_ffi_value__ cycle detected"
            ) from None
        except _ConvertError as err:
            raise TypeError(f"type check failed for {self!r}: {err.message}") from None

    def convert(self, value: object) -> CAny:
        """``value`` converted to this type, as a :class:`CAny` (TypeError if it does not)."""
        try:
            return _dispatch(self._converter, value)[0]
        except RecursionError:
            raise TypeError(
                f"type conversion failed for {self!r}: infinite __tvm_ffi_value__ cycle detected"
            ) from None
        except _ConvertError as err:
            raise TypeError(f"type conversion failed for {self!r}: {err.message}") from None

    def repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The schema as Python typing text (``int | None``, ``Callable[[str], int]``,
        ``Map[str, int]``); ``ty_map`` renames origins."""
        return self.output_repr(ty_map)

    def input_repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The annotation of what this type accepts (following ``__ffi_convert_type_schema__``)."""
        return self._repr_impl(ty_map, True, frozenset())

    def output_repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The annotation of what this type produces."""
        return self._repr_impl(ty_map, False, frozenset())

    def _repr_impl(
        self, ty_map: Callable[[str], str] | None, input_mode: bool, expanded: frozenset[int]
    ) -> str:
        if (
            input_mode
            and self.origin_type_index >= _r.K_STATIC_OBJECT_BEGIN
            and self.origin_type_index not in expanded
        ):
            raw = _r.type_attr(self.origin_type_index, "__ffi_convert_type_schema__")
            if raw is not None:
                return TypeSchema._from_maybe_json(raw)._repr_impl(
                    ty_map, True, expanded | {self.origin_type_index}
                )
        origin = self.origin if ty_map is None else ty_map(self.origin)
        args = [a._repr_impl(ty_map, input_mode, expanded) for a in (self.args or ())]
        if origin == "Union":
            return " | ".join(args)
        if origin == "Optional":
            return args[0] + " | None"
        if origin == "Callable":
            if not args:
                return "Callable[..., Any]"
            return f"Callable[[{', '.join(args[1:])}], {args[0]}]"
        if origin == "tuple" and self.args == ():
            return "tuple[()]"
        if not args:
            return origin
        return f"{origin}[{', '.join(args)}]"

    def to_json(self) -> dict[str, Any]:
        """The schema as a JSON-compatible dict."""
        if self.args is not None and (self.args or self.origin == "tuple"):
            return {"type": self.origin, "args": [a.to_json() for a in self.args]}
        return {"type": self.origin}


def _annotation_union(args: tuple[Any, ...]) -> TypeSchema:
    non_none = tuple(a for a in args if a is not type(None))
    converted = tuple(TypeSchema.from_annotation(a) for a in non_none)
    if len(non_none) < len(args):
        if len(non_none) == 1:
            return TypeSchema("Optional", converted)
        return TypeSchema("Optional", (TypeSchema("Union", converted),))
    return TypeSchema("Union", converted)


def _annotation_object(cls: type, targs: tuple[Any, ...]) -> TypeSchema:
    info = _r.TYPE_CLS_TO_INFO.get(cls)
    if info is None:
        info = cls.__dict__.get("__tvm_ffi_type_info__") if isinstance(cls, type) else None
    if info is None:
        raise TypeError(
            f"CObject subclass {cls!r} is not registered in TYPE_CLS_TO_INFO; use "
            "@register_object to register it"
        )
    origin = _TYPE_INDEX_TO_ORIGIN.get(info.type_index, info.type_key)
    n = len(targs)
    if n > 0:
        if origin in ("Array", "List") and n != 1:
            raise TypeError(f"{origin} requires 1 type argument, got {n}")
        if origin in ("Map", "Dict") and n != 2:
            raise TypeError(f"{origin} requires 2 type arguments, got {n}")
        return TypeSchema(
            origin,
            tuple(TypeSchema.from_annotation(a) for a in targs),
            origin_type_index=info.type_index,
        )
    return TypeSchema(origin, origin_type_index=info.type_index)


def _from_annotation(annotation: Any) -> TypeSchema:
    if annotation is type(None) or annotation is None:
        return TypeSchema("None")
    if annotation is typing.Any:
        return TypeSchema("Any")
    for py, name in (
        (bool, "bool"),
        (int, "int"),
        (float, "float"),
        (str, "str"),
        (bytes, "bytes"),
        (list, "List"),
        (dict, "Dict"),
        (tuple, "tuple"),
    ):
        if annotation is py:
            return TypeSchema(name)
    if annotation is collections.abc.Callable:
        return TypeSchema("Callable")
    if _UnionType is not None and isinstance(annotation, _UnionType):
        return _annotation_union(typing.get_args(annotation))
    origin = typing.get_origin(annotation)
    targs = typing.get_args(annotation)
    if origin is typing.Union:
        return _annotation_union(targs)
    if origin is list:
        if len(targs) > 1:
            raise TypeError(f"list takes at most 1 type argument, got {len(targs)}")
        return (
            TypeSchema("List", (TypeSchema.from_annotation(targs[0]),))
            if targs
            else TypeSchema("List")
        )
    if origin is dict:
        if len(targs) == 1 or len(targs) > 2:
            raise TypeError(f"dict requires 0 or 2 type arguments, got {len(targs)}")
        if len(targs) == 2:
            return TypeSchema(
                "Dict", (TypeSchema.from_annotation(targs[0]), TypeSchema.from_annotation(targs[1]))
            )
        return TypeSchema("Dict")
    if origin is tuple:
        if len(targs) == 2 and targs[1] is Ellipsis:
            return TypeSchema("Array", (TypeSchema.from_annotation(targs[0]),))
        if targs:
            return TypeSchema("tuple", tuple(TypeSchema.from_annotation(a) for a in targs))
        return TypeSchema("tuple", ()) if annotation is not tuple else TypeSchema("tuple")
    if origin is collections.abc.Callable:
        if len(targs) == 2:
            params, ret = targs
            ret_schema = TypeSchema.from_annotation(ret)
            if isinstance(params, list):
                return TypeSchema(
                    "Callable", (ret_schema,) + tuple(TypeSchema.from_annotation(p) for p in params)
                )
            return TypeSchema("Callable", (ret_schema,))
        return TypeSchema("Callable")
    if isinstance(origin, type) and issubclass(origin, Object):
        return _annotation_object(origin, targs)
    if isinstance(annotation, type) and issubclass(annotation, Object):
        return _annotation_object(annotation, ())
    if annotation is CObject:
        return _annotation_object(annotation, ())  # TypeError: not registered
    if isinstance(annotation, type) and issubclass(annotation, PyNativeObject):
        if issubclass(annotation, str):
            return TypeSchema("str")
        if issubclass(annotation, bytes):
            return TypeSchema("bytes")
    if annotation is _dtype_cls():
        return TypeSchema("dtype")
    if annotation is Device:
        return TypeSchema("Device")
    if annotation is ctypes.c_void_p:
        return TypeSchema("ctypes.c_void_p")
    if isinstance(annotation, type) and hasattr(annotation, "__dlpack__"):
        return TypeSchema("Tensor")
    raise TypeError(f"Cannot convert {annotation!r} to TypeSchema")


__all__ = ["Bytes", "CAny", "PyNativeObject", "String", "TypeSchema", "_to_py_class_value"]

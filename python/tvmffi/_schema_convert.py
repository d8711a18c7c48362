"""The converters of :class:`TypeSchema`: a Python value to its FFI form.

Each origin has a converter (``_c_int``, ``_c_array``, ``_c_object``, ...)
that converts as a C++ function taking that type would, with the implicit
conversions of ``TryCastFromAnyView`` and the ``__tvm_ffi_*__`` protocols;
:func:`_build_converter` composes them for a schema and :func:`_dispatch`
runs one. The second layer of :mod:`tvmffi._type_schema`.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Mapping
from numbers import Integral, Real
from typing import TYPE_CHECKING, Any, Callable

from . import _core
from . import _reflection as _r
from ._core import Device, Function, Object, Tensor

if TYPE_CHECKING:
    from ._type_schema import TypeSchema
from ._ffi_values import (
    _DEVICE_CLS,
    _INT64_MAX,
    _INT64_MIN,
    _PROTOCOL_MAX_DEPTH,
    Bytes,
    CAny,
    PyNativeObject,
    String,
)

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
    if (
        hasattr(cls, "__tvm_ffi_opaque_ptr__")
        or cls in _r.OPAQUE_PTR_HANDLERS
        or hasattr(cls, "__cuda_stream__")
    ):
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

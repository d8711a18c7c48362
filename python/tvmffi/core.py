"""Upstream's ``tvm_ffi.core`` names (the Cython core of apache/tvm-ffi), over tvmffi.

Upstream's core is a compiled module; tvmffi's native core is
:mod:`tvmffi._core` (nanobind). This module gathers, under upstream's names,
what the rest of the Python API and upstream's tests reach for:

* the classes: :class:`Object` (also ``CObject``), :class:`Function`,
  :class:`Tensor`, :class:`Device`, ``DataType`` (:class:`tvmffi.dtype`),
  :class:`OpaquePyObject`, :class:`String` / :class:`Bytes` (str / bytes
  keeping an FFI object), :class:`ObjectConvertible`, :class:`ObjectRValueRef`;
* the error tables ``ERROR_NAME_TO_TYPE`` / ``ERROR_TYPE_TO_NAME``;
* the sentinels :data:`MISSING` (the runtime's "missing" object) and
  :data:`KWARGS` (the marker before keyword arguments);
* reflection: :class:`TypeInfo`, :class:`TypeField`, :class:`TypeMethod`,
  :class:`TypeSchema`, :class:`FFIProperty`, :class:`CAny`, and the registry
  functions (``_lookup_type_attr``, ``_type_cls_to_type_info``,
  ``_register_py_class``, ...).
"""

from __future__ import annotations

from typing import Any, Callable

from . import _core, _error
from . import _reflection as _r
from ._core import Device, DLTensorTestWrapper, Function, Object, Tensor, from_dlpack
from ._device_type import DLDeviceType
from ._dtype import dtype as DataType
from ._reflection import (
    FFIProperty,
    FieldGetter,
    FieldSetter,
    ObjectConvertible,
    ObjectRValueRef,
    OpaquePyObject,
    TypeField,
    TypeInfo,
    TypeMethod,
    object_repr,
)
from ._type_schema import (
    Bytes,
    CAny,
    CObject,
    PyNativeObject,
    String,
    TypeSchema,
    _to_py_class_value,
)

CContainerBase = Object

# ffi.String / ffi.Bytes results too long for the small form keep their object.
_core._set_result_classes(String, Bytes)

#: Error kind -> exception class, the table ``register_error`` fills (upstream's
#: name; the very dict of :mod:`tvmffi._error`).
ERROR_NAME_TO_TYPE: dict[str, type[BaseException]] = _error._KIND_TO_CLASS
#: Exception class -> error kind, the reverse table (upstream's name).
ERROR_TYPE_TO_NAME: dict[type[BaseException], str] = _error._CLASS_TO_KIND

#: The runtime's "missing" sentinel (a field or a map entry that is absent).
MISSING: Object = _r.missing()
#: The marker that starts the name, value pairs of keyword arguments.
KWARGS: Object = _r.kwargs_marker()
#: Exact class -> function giving an instance's address: such values pass as
#: opaque pointers (see :data:`tvmffi._reflection.OPAQUE_PTR_HANDLERS`).
_OPAQUE_PTR_HANDLERS = _r.OPAQUE_PTR_HANDLERS

_CLASS_DEVICE: type = Device
_CLASS_TENSOR: type = Tensor
_CLASS_DTYPE: type = DataType
_CLASS_OBJECT: type = Object


def _set_class_device(cls: type) -> None:
    """Use ``cls`` (a Device subclass) for the devices that ``tvmffi.device``, calls
    and the type converters make."""
    from . import _type_schema

    _core._set_device_class(cls)
    global _CLASS_DEVICE
    _CLASS_DEVICE = cls
    _type_schema._DEVICE_CLS[0] = cls


def _set_class_tensor(cls: type) -> None:
    """Use ``cls`` (a Tensor subclass) for the tensors that calls return."""
    _core._register_object_class("ffi.Tensor", cls)
    global _CLASS_TENSOR
    _CLASS_TENSOR = cls


def _set_class_dtype(cls: type) -> None:
    """Record ``cls`` as the dtype class."""
    global _CLASS_DTYPE
    _CLASS_DTYPE = cls


def _set_class_object(cls: type) -> None:
    global _CLASS_OBJECT
    _CLASS_OBJECT = cls


# -- the type registry ------------------------------------------------------


def _object_type_key_to_index(type_key: str) -> int | None:
    """The type index of ``type_key``; None when no such type is registered."""
    return _r.type_key_to_index(type_key)


def _type_index_to_key(type_index: int) -> str:
    return _r.type_index_to_key(type_index)


def _lookup_or_register_type_info_from_type_key(type_key: str) -> TypeInfo:
    """The :class:`TypeInfo` of a registered type key (ValueError when unknown)."""
    info = _r.type_info(type_key)
    if info is None:
        raise ValueError(f"Cannot find type key: {type_key}")
    return info


def _register_object_by_index(type_index: int, type_cls: type) -> TypeInfo:
    """A fresh :class:`TypeInfo` of the type, with ``type_cls`` as its class."""
    return _r.register_by_index(type_index, type_cls)


def _set_type_cls(type_info: TypeInfo, type_cls: type) -> None:
    """Make ``type_cls`` the class of a type whose :class:`TypeInfo` has none yet."""
    assert type_info.type_cls is None, f"Type already registered for {type_info.type_key}"
    _r.set_type_cls(type_info, type_cls)


def _type_cls_to_type_info(type_cls: type) -> TypeInfo | None:
    """The :class:`TypeInfo` a class is bound to (None when it is not)."""
    return _r.TYPE_CLS_TO_INFO.get(type_cls)


def _type_index_to_type_info(type_index: int) -> TypeInfo | None:
    """The :class:`TypeInfo` of a type index (None when no such type)."""
    return _r.type_info(type_index) if type_index >= 0 else None


def _lookup_type_attr(type_index: int, attr_key: str, ancestor: bool = False) -> Any:
    """The type attribute ``attr_key`` of a type (None when unset); ``ancestor``: or the
    nearest ancestor's."""
    return _r.type_attr(type_index, attr_key, ancestor)


def _register_type_attr(type_index: int, attr_key: str, value: Any) -> None:
    """Set the type attribute ``attr_key`` of a type (once: a second set is an error)."""
    _r.register_type_attr(type_index, attr_key, value)


def _register_py_class(parent_type_info: TypeInfo, type_key: str, type_cls: type) -> TypeInfo:
    """Allocate a type for a Python-defined class (its fields come with ``_register_fields``)."""
    from . import _pyclass

    return _pyclass.register_py_class(parent_type_info, type_key, type_cls)


def _rollback_py_class(type_info: TypeInfo) -> None:
    """Forget a Python-defined type whose class failed to build (its index stays taken)."""
    from . import _pyclass

    _pyclass.rollback_py_class(type_info)


def _register_fields(
    type_info: TypeInfo, fields: list[Any], structure_kind: int | None = None
) -> list[TypeField]:
    """Register the fields of a Python-defined type; its :class:`TypeField` list."""
    type_info._register_fields(fields, structure_kind)
    return list(type_info.fields or ())


# -- functions --------------------------------------------------------------


def _register_global_func(
    name: str, pyfunc: Callable[..., Any] | Function, override: bool
) -> Function:
    """Register ``pyfunc`` as the global function ``name``."""
    return _core._register_global_func(name, pyfunc, override)


def _get_global_func(name: str, allow_missing: bool) -> Function | None:
    """The global function ``name`` (None or ValueError when there is none)."""
    return _core.get_global_func(name, allow_missing)


def _convert_to_ffi_func(pyfunc: Callable[..., Any], tensor_cls: type | None = None) -> Function:
    """A Python callable as an FFI :class:`Function` (see :func:`convert_func`)."""
    if tensor_cls is None:
        return pyfunc if isinstance(pyfunc, Function) else Function(pyfunc)
    to_cls = _tensor_converter(tensor_cls)

    def callback(*args: Any) -> Any:
        return pyfunc(*[to_cls(a) if isinstance(a, Tensor) else a for a in args])

    return Function(callback)


def _tensor_converter(tensor_cls: type) -> Callable[[Tensor], Any]:
    """How a :class:`Tensor` becomes an instance of ``tensor_cls`` (sharing memory)."""
    api = getattr(tensor_cls, "__dlpack_c_exchange_api__", None)
    if api is not None and type(api).__name__ == "PyCapsule":
        return lambda t: _core._tensor_to_exchange(api, t)
    framework = (getattr(tensor_cls, "__module__", None) or "").split(".")[0]
    if api is None and framework:
        from . import _framework

        # torch before 2.10 has no capsule of its own: tvmffi may provide one.
        if _framework.exchange_api(framework) is not None:
            return lambda t: _framework.from_tensor(framework, t)
    name = getattr(tensor_cls, "__name__", repr(tensor_cls))
    raise TypeError(
        f"convert_func: tensor_cls {name} has no __dlpack_c_exchange_api__ (a DLPack "
        "C exchange API capsule): tensor arguments cannot be delivered as its "
        "instances"
    )


def convert_func(pyfunc: Callable[..., Any], tensor_cls: type | None = None) -> Function:
    """``pyfunc`` as an FFI :class:`Function`, like :func:`tvmffi.convert` for callables.

    With ``tensor_cls`` (a tensor class exposing ``__dlpack_c_exchange_api__``,
    such as ``torch.Tensor``), the tensor arguments the function is called with
    reach ``pyfunc`` as instances of that class (sharing memory) instead of
    :class:`Tensor`; TypeError for a class without the attribute. Exceptions
    ``pyfunc`` raises reach the caller as they do for any callback.
    """
    return _convert_to_ffi_func(pyfunc, tensor_cls=tensor_cls)


def _convert_to_opaque_object(pyobject: Any) -> OpaquePyObject:
    """``pyobject`` wrapped (not converted) in an ``ffi.OpaquePyObject``."""
    return _r.take_any(_r.opaque_cell(pyobject))


def _env_set_current_stream(device_type: int, device_id: int, stream: Any) -> int:
    """Set the current stream of a device; the previous one."""
    value = getattr(stream, "value", stream)
    return _core._env_set_stream(device_type, device_id, int(value or 0))


def _env_get_current_stream(device_type: int, device_id: int) -> int:
    """The current stream of a device (0 when none is set)."""
    return _core._env_get_stream(device_type, device_id)


def _shape_obj_get_py_tuple(obj: Any) -> tuple[int, ...]:
    return tuple(obj)


class Error(Object):
    """An ``ffi.Error`` object held as a value (raised errors are Python exceptions:
    :class:`tvmffi.Error` and its subclasses)."""

    __slots__ = ()

    def __init__(self, kind: str, message: str, backtrace: str) -> None:
        """A new error of ``kind`` with ``message`` and ``backtrace`` (most recent call last)."""
        for what, value in (("kind", kind), ("message", message), ("backtrace", backtrace)):
            if not isinstance(value, str):
                raise TypeError(f"Error(): {what} must be a str, got {type(value).__name__}")
        made = _r.cell_to_py(_r.make_error_cell(kind, message, backtrace))
        _r._core._init_from(self, made)

    def __reduce__(self) -> Any:
        # By value: an error is its three strings (it has no JSON-graph form). The
        # extra context is dropped: it may hold any native object.
        if not _r.chandle_of(self):
            return (_r._object_new, (Error,))
        return (Error, (self.kind, self.message, self.backtrace))

    def update_backtrace(self, backtrace: str) -> None:
        """Replace the stored backtrace with ``backtrace`` (through the cell's own function)."""
        handle = _r.chandle_of(self)
        if not handle:
            raise ValueError("null ffi.Error")
        if not isinstance(backtrace, str):
            raise TypeError(f"backtrace must be a str, got {type(backtrace).__name__}")
        _core._error_update_backtrace(handle, backtrace, 0)  # kTVMFFIBacktraceUpdateModeReplace

    @property
    def extra_context(self) -> Any:
        """The object attached to the error as extra context; None when there is none."""
        handle = _r.chandle_of(self)
        if not handle:
            raise ValueError("null ffi.Error")
        return _core._error_extra_context(handle)

    @property
    def kind(self) -> str:
        """The error kind, e.g. ``"ValueError"``."""
        return self._cell_field(0)

    @property
    def message(self) -> str:
        """The error message, without the kind."""
        return self._cell_field(1)

    @property
    def backtrace(self) -> str:
        """The backtrace recorded where the error was raised (most recent call last)."""
        return self._cell_field(2)

    def _cell_field(self, i: int) -> str:
        handle = _r.chandle_of(self)
        if not handle:
            raise ValueError("null ffi.Error")
        return _core._error_fields(handle)[i]

    def py_error(self) -> BaseException:
        """The Python exception of this error."""
        from ._error import make_error

        return make_error(self.kind, self.message, self.backtrace)


def _bind_package_classes() -> None:
    """Type records for the package's classes of builtin types (the extension keeps its own
    conversions for these: only the records are set here)."""
    from .container import Array, Dict, List, Map, Shape
    from .module import Module

    pairs = (
        (Array, _r.K_ARRAY),
        (Map, _r.K_MAP),
        (List, _r.K_LIST),
        (Dict, _r.K_DICT),
        (Module, _r.K_MODULE),
        (Shape, _r.K_SHAPE),
        (String, _r.K_STR),
        (Bytes, _r.K_BYTES),
        (Error, _r.K_ERROR),
        (DataType, _r.K_DATA_TYPE),
        (Device, _r.K_DEVICE),
    )
    for cls, index in pairs:
        info = _r.type_info(index)
        if info is not None and cls not in _r.TYPE_CLS_TO_INFO:
            _r._update_registry(info, cls)
            if "__tvm_ffi_type_info__" not in vars(cls):
                try:
                    cls.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
                except (AttributeError, TypeError):  # a class that takes no attributes
                    pass


_bind_package_classes()
# An ffi.Error held as a value (tvmffi.convert(exception), an Error returned or
# stored) comes back as Error, with its kind, message and backtrace.
_core._register_object_class("ffi.Error", Error)


def _tensor_numel(self: Tensor) -> int:
    """The number of elements (the product of the shape)."""
    n = 1
    for d in self.shape:
        n *= d
    return n


def _tensor_size(self: Tensor, dim: int) -> int:
    """The extent of dimension ``dim`` (negative counts from the end); IndexError when out of range."""
    shape = self.shape
    if not -len(shape) <= dim < len(shape):
        raise IndexError(f"dimension {dim} out of range for a tensor of {len(shape)} dimensions")
    return shape[dim]


def _tensor_is_contiguous(self: Tensor) -> bool:
    """Whether the elements are dense in row-major order (an empty tensor always is)."""
    shape, strides = self.shape, self.strides
    if any(d == 0 for d in shape):
        return True
    expected = 1
    for d, st in zip(reversed(shape), reversed(strides)):
        if d != 1 and st != expected:
            return False
        expected *= d
    return True


# Upstream's Tensor methods that need only its shape and strides.
Tensor.numel = _tensor_numel  # type: ignore[attr-defined]
Tensor.size = _tensor_size  # type: ignore[attr-defined]
Tensor.is_contiguous = _tensor_is_contiguous  # type: ignore[attr-defined]
_r.sync_type_table()

__all__ = [
    "ERROR_NAME_TO_TYPE",
    "ERROR_TYPE_TO_NAME",
    "KWARGS",
    "MISSING",
    "Bytes",
    "CAny",
    "CContainerBase",
    "CObject",
    "DLDeviceType",
    "DLTensorTestWrapper",
    "DataType",
    "Device",
    "Error",
    "FFIProperty",
    "FieldGetter",
    "FieldSetter",
    "Function",
    "Object",
    "ObjectConvertible",
    "ObjectRValueRef",
    "OpaquePyObject",
    "PyNativeObject",
    "String",
    "Tensor",
    "TypeField",
    "TypeInfo",
    "TypeMethod",
    "TypeSchema",
    "_to_py_class_value",
    "convert_func",
    "from_dlpack",
    "object_repr",
]

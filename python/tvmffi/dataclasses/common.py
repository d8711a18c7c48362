"""``dataclasses``-style helpers for ``@c_class`` / ``@py_class`` types: :func:`fields`,
:func:`asdict`, :func:`astuple`, :func:`replace`, :func:`is_dataclass`."""

from __future__ import annotations

import copy
import functools
from collections import namedtuple
from typing import Any, Callable, Iterable, TypeVar

from ..core import TypeSchema, _to_py_class_value
from .field import Field

__all__ = ["asdict", "astuple", "fields", "is_dataclass", "replace"]

_T = TypeVar("_T")
_ATOMIC_TYPES = frozenset(
    {bool, bytes, complex, float, int, str, type(None), type(Ellipsis), type(NotImplemented)}
)


def _seq_types() -> tuple[type, ...]:
    from .. import container

    return tuple(
        c
        for c in (getattr(container, "Array", None), getattr(container, "List", None))
        if c is not None
    )


def _map_types() -> tuple[type, ...]:
    from .. import container

    return tuple(
        c
        for c in (getattr(container, "Map", None), getattr(container, "Dict", None))
        if c is not None
    )


def is_dataclass(obj: Any) -> bool:
    """Whether ``obj`` is a ``@c_class`` / ``@py_class`` class or instance (FFI containers,
    which also carry type information, are not)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return getattr(cls, "__ffi_is_dataclass__", False) is True


def fields(obj_or_cls: Any) -> tuple[Field, ...]:
    """The :class:`Field` of each field of a ``@c_class`` / ``@py_class`` class or instance,
    inherited ones first (the order of ``__init__``); TypeError for anything else."""
    if not is_dataclass(obj_or_cls):
        raise TypeError(
            "fields() argument must be a c_class or py_class type or instance, got "
            f"{type(obj_or_cls).__name__}"
        )
    cls = obj_or_cls if isinstance(obj_or_cls, type) else type(obj_or_cls)
    chain = []
    ti = getattr(cls, "__tvm_ffi_type_info__", None)
    while ti is not None:
        chain.append(ti)
        ti = ti.parent_type_info
    return tuple(
        tf.dataclass_field
        for info in reversed(chain)
        for tf in (info.fields or ())
        if tf.dataclass_field is not None
    )


def _make_namedtuple(typename: str, fields: tuple[Field, ...]) -> Any:
    """A plain ``collections.namedtuple`` class named ``typename`` with one item per Field
    (in the given order, all required, ``init=False`` ones too), whose construction,
    ``_make`` and ``_replace`` convert each item as assigning that field would.

    Defaults and ``__post_init__`` of the source class play no part; the Fields are not
    changed (their schemas are resolved once, here, and kept in the constructor).
    """
    cls: Any = namedtuple(typename, [f.name for f in fields])
    names = cls._fields
    schemas = tuple(
        f._ty_schema if f._ty_schema is not None else TypeSchema.from_annotation(f.type)
        for f in fields
    )
    cls.__annotations__ = {f.name: f.type for f in fields if f.type is not None}
    plain_new = cls.__new__
    plain_make = cls._make.__func__

    @functools.wraps(plain_new)
    def __new__(klass: type, /, *args: Any, **kwargs: Any) -> Any:
        raw = plain_new(klass, *args, **kwargs)  # the arity and keyword checks
        items = []
        for name, schema, value in zip(names, schemas, raw):
            try:
                items.append(_to_py_class_value(schema.convert(value)))
            except TypeError as err:
                raise TypeError(f"{typename}.{name}: {err}") from err
        return plain_new(klass, *items)

    def _make(klass: Any, iterable: Iterable[Any]) -> Any:
        # the plain _make skips __new__: keep its length check, then convert
        return klass(*plain_make(klass, iterable))

    cls.__new__ = staticmethod(__new__)
    cls._make = classmethod(_make)
    return cls


def replace(obj: _T, /, **changes: Any) -> _T:
    """A copy of ``obj`` with some fields replaced (frozen ones too)."""
    return obj.__replace__(**changes)  # type: ignore[attr-defined]


def _is_instance(obj: Any) -> bool:
    return not isinstance(obj, type) and is_dataclass(obj)


def _asdict_inner(obj: Any, dict_factory: Callable[..., Any]) -> Any:
    t = type(obj)
    if t in _ATOMIC_TYPES:
        return obj
    if isinstance(obj, _seq_types()):
        return [_asdict_inner(v, dict_factory) for v in obj]
    if isinstance(obj, _map_types()):
        return dict_factory(
            [
                (_asdict_inner(k, dict_factory), _asdict_inner(v, dict_factory))
                for k, v in obj.items()
            ]
        )
    if _is_instance(obj):
        pairs = [(f.name, _asdict_inner(getattr(obj, f.name), dict_factory)) for f in fields(obj)]
        return dict(pairs) if dict_factory is dict else dict_factory(pairs)
    if t is list:
        return [_asdict_inner(v, dict_factory) for v in obj]
    if t is dict:
        return {
            _asdict_inner(k, dict_factory): _asdict_inner(v, dict_factory) for k, v in obj.items()
        }
    if t is tuple:
        return tuple(_asdict_inner(v, dict_factory) for v in obj)
    if issubclass(t, tuple):
        items = [_asdict_inner(v, dict_factory) for v in obj]
        return t(*items) if hasattr(obj, "_fields") else t(items)
    if issubclass(t, dict):
        if hasattr(t, "default_factory"):
            out = t(obj.default_factory)
            for k, v in obj.items():
                out[_asdict_inner(k, dict_factory)] = _asdict_inner(v, dict_factory)
            return out
        return t(
            (_asdict_inner(k, dict_factory), _asdict_inner(v, dict_factory)) for k, v in obj.items()
        )
    if issubclass(t, list):
        return t(_asdict_inner(v, dict_factory) for v in obj)
    return copy.deepcopy(obj)


def _astuple_inner(obj: Any, tuple_factory: Callable[..., Any]) -> Any:
    t = type(obj)
    if t in _ATOMIC_TYPES:
        return obj
    if isinstance(obj, _seq_types()):
        return [_astuple_inner(v, tuple_factory) for v in obj]
    if isinstance(obj, _map_types()):
        return {
            _astuple_inner(k, tuple_factory): _astuple_inner(v, tuple_factory)
            for k, v in obj.items()
        }
    if _is_instance(obj):
        return tuple_factory(
            [_astuple_inner(getattr(obj, f.name), tuple_factory) for f in fields(obj)]
        )
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return t(*[_astuple_inner(v, tuple_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return t(_astuple_inner(v, tuple_factory) for v in obj)
    if isinstance(obj, dict):
        if hasattr(t, "default_factory"):
            out = t(obj.default_factory)
            for k, v in obj.items():
                out[_astuple_inner(k, tuple_factory)] = _astuple_inner(v, tuple_factory)
            return out
        return t(
            (_astuple_inner(k, tuple_factory), _astuple_inner(v, tuple_factory))
            for k, v in obj.items()
        )
    return copy.deepcopy(obj)


def asdict(obj: Any, *, dict_factory: Callable[..., Any] = dict) -> Any:
    """The fields of a ``@c_class`` / ``@py_class`` instance as a dict, recursively
    (FFI sequences as lists, FFI maps as dicts; other values deep-copied)."""
    if not _is_instance(obj):
        raise TypeError("asdict() should be called on c_class / py_class instances")
    return _asdict_inner(obj, dict_factory)


def astuple(obj: Any, *, tuple_factory: Callable[..., Any] = tuple) -> Any:
    """The fields of a ``@c_class`` / ``@py_class`` instance as a tuple, recursively."""
    if not _is_instance(obj):
        raise TypeError("astuple() should be called on c_class / py_class instances")
    return _astuple_inner(obj, tuple_factory)

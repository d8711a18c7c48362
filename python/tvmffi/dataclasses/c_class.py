"""``@c_class``: a Python view of a C++ reflected class, with dataclass methods."""

from __future__ import annotations

import typing
from typing import Any, Callable, TypeVar

from .field import Field, _field_converter, field

try:
    from typing_extensions import dataclass_transform
except ImportError:  # pragma: no cover

    def dataclass_transform(**kwargs: Any) -> Callable[[Any], Any]:  # type: ignore[misc]
        return lambda f: f


_T = TypeVar("_T", bound=type)


def _attach_field_objects(cls: type, type_info: Any, *, frozen: bool = False) -> None:
    """Give each reflected field of the type its :class:`Field` (``TypeField.dataclass_field``),
    so :func:`~tvm_ffi.dataclasses.fields` lists C++ fields too."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:
        hints = {}
    for tf in type_info.fields or ():
        if frozen:
            tf.frozen = True
        f = Field(
            name=tf.name,
            _ty_schema=tf.ty,
            default=tf.c_default,
            default_factory=tf.c_default_factory,
            frozen=tf.frozen,
            init=tf.c_init,
            repr=tf.c_repr,
            hash=tf.c_hash,
            compare=tf.c_compare,
            kw_only=tf.c_kw_only,
            structural_eq=tf.c_structural_eq,
            doc=tf.doc,
        )
        f.type = hints.get(tf.name)
        tf.dataclass_field = f


def _reinstall_field_properties(cls: type, type_info: Any, shadowed_names: set[str]) -> None:
    """Make the field properties again (after their ``frozen`` changed), except shadowed ones."""
    for tf in type_info.fields or ():
        if tf.name not in shadowed_names:
            setattr(cls, tf.name, tf.as_property(cls))


@dataclass_transform(
    eq_default=False,
    order_default=False,
    field_specifiers=(Field, field),
    converter=_field_converter,
)
def c_class(
    type_key: str,
    *,
    frozen: bool = False,
    init: bool = True,
    repr: bool = True,
    eq: bool = False,
    order: bool = False,
    unsafe_hash: bool = False,
    match_args: bool = True,
) -> Callable[[_T], _T]:
    """Bind a class to the C++ reflected type ``type_key`` and give it dataclass methods.

    ``register_object`` plus: ``__init__`` from the type's ``__ffi_init__``
    (``init``), ``__repr__`` via ``ffi.ReprPrint`` (``repr``), ``__eq__`` /
    ``__ne__`` (``eq``), ordering (``order``) and ``__hash__`` (``unsafe_hash``)
    from the runtime's recursive comparisons, ``__copy__`` / ``__deepcopy__`` /
    ``__replace__``, ``__match_args__``. ``frozen``: the type's own fields are
    read-only from Python (``type(obj).f.set(obj, v)`` still writes). Methods
    the class body defines are kept.
    """
    from .. import _reflection as _r
    from .._dunder import _install_dataclass_dunders
    from .._registry_ext import _add_type_attr_class_attrs, _warn_missing_field_annotations
    from .py_class import _FFI_TYPE_ATTR_NAMES

    def decorator(cls: _T) -> _T:
        for name, value in list(cls.__dict__.items()):
            if isinstance(value, Field):
                try:
                    delattr(cls, name)
                except AttributeError:
                    pass
        cls = _r.register_object(type_key, init=False)(cls)
        info = cls.__tvm_ffi_type_info__  # type: ignore[attr-defined]
        _warn_missing_field_annotations(cls, info, stacklevel=2)
        if frozen:
            shadowed = {
                tf.name
                for tf in info.fields or ()
                if tf.name in cls.__dict__ and not isinstance(cls.__dict__[tf.name], _r.FFIProperty)
            }
            for tf in info.fields or ():
                tf.frozen = True
            _reinstall_field_properties(cls, info, shadowed)
        _attach_field_objects(cls, info)
        _add_type_attr_class_attrs(cls, info, _FFI_TYPE_ATTR_NAMES)
        _install_dataclass_dunders(
            cls,
            init=init,
            repr=repr,
            eq=eq,
            order=order,
            unsafe_hash=unsafe_hash,
            match_args=match_args,
        )
        cls.__ffi_is_dataclass__ = True  # type: ignore[attr-defined]
        return cls

    return decorator


__all__ = ["c_class"]

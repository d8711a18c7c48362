"""Upstream's ``tvm_ffi.registry`` helpers for classes of reflected types.

``registry.py`` re-exports these (upstream has them there): the class
attributes of a type (``_add_class_attrs``, ``_add_type_attr_class_attrs``),
the ``__init__`` / ``__ffi_init__`` installers, the warning for C++ fields a
``@c_class`` body does not annotate, and the metadata / type-key queries.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Collection, Sequence
from typing import Any

from . import _reflection as _r
from ._reflection import TypeInfo


def _add_class_attrs(
    type_cls: type, type_info: TypeInfo, type_attr_names: Collection[str] = ()
) -> type:
    """Give ``type_cls`` the type's fields (properties), methods, ``__ffi_init__``, and the
    listed type attributes (those the class body does not define)."""
    return _r.add_class_attrs(type_cls, type_info, type_attr_names, ancestors=False)


def _add_type_attr_class_attrs(
    type_cls: type, type_info: TypeInfo, type_attr_names: Collection[str]
) -> None:
    """Set the listed type attributes of the type as class attributes (unless defined)."""
    for name in type_attr_names:
        value = _r.type_attr(type_info.type_index, name)
        if value is not None and name not in type_cls.__dict__:
            setattr(type_cls, name, value)


def _install_init(cls: type, type_info: TypeInfo) -> None:
    """``__init__`` through the type's ``__ffi_init__`` (a TypeError guard if it has none)."""
    _r.install_init(cls, type_info)


def _install_ffi_init_attr(cls: type, type_info: TypeInfo, ffi_init: Any) -> None:
    """``self.__ffi_init__(*args, **kwargs)`` for custom ``__init__`` methods."""
    _r._install_ffi_init_attr(cls, type_info, ffi_init)


def _warn_missing_field_annotations(cls: type, type_info: TypeInfo, *, stacklevel: int) -> None:
    """Warn (UserWarning) about the type's own reflected fields that ``cls`` does not annotate."""
    names = {f.name for f in type_info.fields or ()}
    if not names:
        return
    own = cls.__dict__.get("__annotations__", {})
    missing = sorted(names - set(own))
    if missing:
        warnings.warn(
            f"@c_class({type_info.type_key!r}): class `{cls.__qualname__}` does not annotate the "
            f"following reflected field(s): {', '.join(missing)}. Add type annotations (e.g. "
            "`field_name: type`) to the class body for IDE support and documentation.",
            UserWarning,
            stacklevel=stacklevel,
        )


def get_global_func_metadata(name: str) -> dict[str, Any]:
    """The metadata of the global function ``name`` (its ``type_schema``, ...), as a dict."""
    text = _r.ffi_func("ffi.GetGlobalFuncMetadata")(name)
    return json.loads(text) if text else {}


def get_registered_type_keys() -> Sequence[str]:
    """The keys of all registered object types."""
    return _r.registered_type_keys()


__all__ = ["get_global_func_metadata", "get_registered_type_keys"]

"""Dataclass values as nested tuples, for passing them to FFI functions.

``unpack_dataclass_to_tuple(x)``: a dataclass instance becomes the tuple of its
fields' values (in field order), each unpacked again; lists, tuples and dict
values are unpacked item by item; anything else is returned as is (the same
object, not a copy).
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["unpack_dataclass_to_tuple"]

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_LEAF_TYPES = (int, float, str, bytes, bool, type(None), complex)


def _field_names(cls: type) -> tuple[str, ...]:
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def unpack_dataclass_to_tuple(x: Any) -> Any:
    """``x`` with every dataclass instance in it replaced by the tuple of its fields."""
    if isinstance(x, _LEAF_TYPES):
        return x
    cls = type(x)
    if dataclasses.is_dataclass(cls):
        return tuple(unpack_dataclass_to_tuple(getattr(x, n)) for n in _field_names(cls))
    if cls is list:
        return [unpack_dataclass_to_tuple(v) for v in x]
    if cls is tuple:
        return tuple(unpack_dataclass_to_tuple(v) for v in x)
    if cls is dict:
        return {k: unpack_dataclass_to_tuple(v) for k, v in x.items()}
    return x

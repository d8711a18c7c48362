"""What the loaded runtime's registry holds: global functions and object types, by prefix."""

from __future__ import annotations

import functools
from typing import Iterable

from .._type_schema import TypeSchema
from ..core import _lookup_or_register_type_info_from_type_key
from ..registry import get_global_func_metadata, get_registered_type_keys, list_global_func_names
from .utils import FuncInfo, NamedTypeSchema, ObjectInfo, schema_of

__all__ = [
    "collect_global_funcs",
    "collect_type_keys",
    "func_info_from_global_name",
    "object_info_from_type_key",
    "toposort_objects",
]


def func_info_from_global_name(name: str) -> FuncInfo:
    """The global function ``name`` with the type schema of its metadata.

    A function registered without one (from Python, or by a library that
    gives no metadata) gets the bare ``Callable``, written as
    ``def f(*args: Any) -> Any``.
    """
    try:
        raw = get_global_func_metadata(name).get("type_schema")
    except (ValueError, TypeError, KeyError):
        raw = None
    return FuncInfo(NamedTypeSchema(name, schema_of(raw, TypeSchema("Callable"))), False)


def collect_global_funcs(names: Iterable[str] | None = None) -> dict[str, list[FuncInfo]]:
    """The global functions (default: all registered), by prefix (the name up to its last
    dot), each list sorted by name. Names without a dot have no prefix and are left out."""
    funcs: dict[str, list[FuncInfo]] = {}
    for name in sorted(list_global_func_names() if names is None else names):
        prefix, dot, _ = name.rpartition(".")
        if not dot or not prefix:
            continue
        funcs.setdefault(prefix, []).append(func_info_from_global_name(name))
    return funcs


def collect_type_keys() -> dict[str, list[str]]:
    """The registered type keys by prefix (the key up to its last dot), each list sorted."""
    keys: dict[str, list[str]] = {}
    for key in sorted(get_registered_type_keys()):
        prefix, dot, _ = key.rpartition(".")
        if dot and prefix:
            keys.setdefault(prefix, []).append(key)
    return keys


@functools.lru_cache(maxsize=None)
def _cached_object_info(type_key: str) -> ObjectInfo:
    try:
        info = _lookup_or_register_type_info_from_type_key(type_key)
    except (ValueError, KeyError) as e:
        raise ValueError(
            f"object/{type_key}: no type is registered under this key (load the library or "
            "module that defines it with --dlls or --imports)"
        ) from e
    return ObjectInfo.from_type_info(info)


def object_info_from_type_key(type_key: str) -> ObjectInfo:
    """What reflection has on the type ``type_key`` (ValueError when none is registered)."""
    return _cached_object_info(str(type_key))


def toposort_objects(type_keys: Iterable[str]) -> list[ObjectInfo]:
    """The types ``type_keys`` (duplicates dropped), each after its parent when the parent
    is among them; otherwise in key order."""
    infos = {key: object_info_from_type_key(key) for key in sorted(set(type_keys))}
    ordered: list[ObjectInfo] = []
    placed: set[str] = set()

    def place(key: str) -> None:
        if key in placed:
            return
        placed.add(key)
        parent = infos[key].parent_type_key
        if parent is not None and parent in infos:
            place(parent)
        ordered.append(infos[key])

    for key in infos:
        place(key)
    return ordered

"""Shape, Array, Map, List and Dict: FFI containers as Python sequence and mapping types."""

from __future__ import annotations

import operator
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from . import _core
from ._core import Function, Object

_FUNCS: dict[str, Function] = {}


def _func(name: str) -> Function:
    f = _FUNCS.get(name)
    if f is None:
        f = _FUNCS[name] = _core.get_global_func(name)
    return f


class Shape(tuple):
    """An ffi.Shape: an immutable tuple of ints (a tensor's shape or strides)."""

    __slots__ = ()

    def __new__(cls, dims: Iterable[int] = ()) -> Shape:
        return super().__new__(cls, (operator.index(d) for d in dims))

    def __repr__(self) -> str:
        return f"Shape({tuple(self)!r})"


class Array(Object):
    """An ffi.Array: an immutable sequence of FFI values.

    ``Array([1, "a", x])`` converts each item; ``list(arr)`` gives them back.
    """

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__()
        _core._init_from(self, _core.convert(list(items)))

    def __len__(self) -> int:
        return _func("ffi.ArraySize")(self)

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = operator.index(index)
        n = len(self)
        if i < -n or i >= n:
            raise IndexError(f"Array index {i} out of range for an Array of size {n}")
        return _func("ffi.ArrayGetItem")(self, i + n if i < 0 else i)

    def __iter__(self) -> Iterator[Any]:
        get = _func("ffi.ArrayGetItem")
        for i in range(len(self)):
            yield get(self, i)

    def __reversed__(self) -> Iterator[Any]:
        for i in range(len(self) - 1, -1, -1):
            yield self[i]

    def __contains__(self, value: Any) -> bool:
        return any(v == value for v in self)

    def index(self, value: Any) -> int:
        for i, v in enumerate(self):
            if v == value:
                return i
        raise ValueError(f"{value!r} is not in the Array")

    def count(self, value: Any) -> int:
        return sum(1 for v in self if v == value)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Array) and self.same_as(other):
            return True
        if isinstance(other, (Array, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = Object.__hash__

    def __repr__(self) -> str:
        return f"Array({list(self)!r})"


class Map(Object):
    """An ffi.Map: an immutable mapping between FFI values.

    ``Map({"a": 1})`` converts keys and values; ``dict(m)`` gives them back.
    """

    def __init__(self, items: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> None:
        super().__init__()
        _core._init_from(self, _core.convert(dict(items)))

    def __len__(self) -> int:
        return _func("ffi.MapSize")(self)

    def __getitem__(self, key: Any) -> Any:
        value = _func("ffi.MapGetItemOrMissing")(self, key)
        if isinstance(value, Object) and value.same_as(_missing()):
            raise KeyError(key)
        return value

    def __contains__(self, key: Any) -> bool:
        return bool(_func("ffi.MapCount")(self, key))

    def get(self, key: Any, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def items(self) -> list[tuple[Any, Any]]:
        flat = list(_func("ffi.MapItems")(self))
        return list(zip(flat[0::2], flat[1::2]))

    def keys(self) -> list[Any]:
        return [k for k, _ in self.items()]

    def values(self) -> list[Any]:
        return [v for _, v in self.items()]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Map) and self.same_as(other):
            return True
        if isinstance(other, (Map, dict)):
            return len(self) == len(other) and all(
                k in other and other[k] == v for k, v in self.items())
        return NotImplemented

    __hash__ = Object.__hash__

    def __repr__(self) -> str:
        return f"Map({dict(self.items())!r})"


_MISSING: list[Object] = []


def _missing() -> Object:
    if not _MISSING:
        _MISSING.append(_func("ffi.MapGetMissingObject")())
    return _MISSING[0]


Sequence.register(Array)
Mapping.register(Map)


class List(Object):
    """An ffi.List (upstream's mutable sequence); objects of that type come back as it.

    The runtime has no List constructor or operations yet (issue #23).
    """

    __slots__ = ()


class Dict(Object):
    """An ffi.Dict (upstream's mutable mapping); objects of that type come back as it.

    The runtime has no Dict constructor or operations yet (issue #23).
    """

    __slots__ = ()


_core._register_object_class("ffi.List", List)
_core._register_object_class("ffi.Dict", Dict)

# The runtime's "no value" marker (a missing Map key), under upstream's name.
MISSING = _missing()

# Array[int], Map[str, int], ...: the containers serve as generic annotations.
for _cls in (Array, Map, List, Dict):
    _cls.__class_getitem__ = classmethod(types.GenericAlias)  # type: ignore[attr-defined]

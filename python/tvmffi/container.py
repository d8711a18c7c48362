"""Shape, Array, Map, List and Dict: FFI containers as Python sequence and mapping types."""

from __future__ import annotations

import operator
import types
from collections.abc import (
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    Mapping,
    MutableMapping,
    MutableSequence,
    Sequence,
    ValuesView,
)
from typing import Any

from . import _core
from ._core import Function, Object

_FUNCS: dict[str, Function] = {}


def _func(name: str) -> Function:
    f = _FUNCS.get(name)
    if f is None:
        # The runtime's own "ffi.*" function as of import: overriding or removing
        # that global later does not change the package (_core._builtin_func).
        f = _FUNCS[name] = _core._builtin_func(name)
    return f


class Shape(tuple):
    """An ffi.Shape: an immutable tuple of ints (a tensor's shape or strides).

    ``_tvm_ffi_cached_object`` is the ffi.Shape object it stands for, passed to
    calls as it is: ``Shape(...)`` makes one, a call's ffi.Shape result keeps
    its own; a tensor's ``shape`` and ``strides`` have none (None).
    """

    # No __slots__: a tuple subclass cannot have any, so the object goes in __dict__.
    _tvm_ffi_cached_object: Object | None = None

    def __new__(cls, dims: Iterable[int] = ()) -> Shape:
        made = _func("ffi.Shape")(*(operator.index(d) for d in dims))  # a Shape keeping it
        if cls is Shape:
            return made
        self = super().__new__(cls, made)
        self._tvm_ffi_cached_object = made._tvm_ffi_cached_object
        return self

    def __repr__(self) -> str:
        return f"Shape({tuple(self)!r})"

    def __reduce__(self) -> tuple[type, tuple[tuple[int, ...]]]:
        # The values only: the FFI object is not pickled.
        return type(self), (tuple(self),)


def _lift(owner: Any, value: Any) -> Any:
    """An element read from ``owner``, in the framework of the call that returned ``owner``.

    A container returned by a call whose tensor arguments came from a framework
    (torch, numpy, ...) carries that framework's name (the call sets
    ``_tvm_ffi_framework``): its tensors come out as the framework's tensors
    (sharing memory), and the containers inside it carry the name too.
    """
    framework = getattr(owner, "_tvm_ffi_framework", None)
    if framework is None or not isinstance(value, Object):
        return value
    if isinstance(value, _core.Tensor):
        from . import _framework

        return _framework.from_tensor(framework, value)
    if isinstance(value, (Array, Map, List, Dict)):
        try:
            value._tvm_ffi_framework = framework
        except AttributeError:  # a subclass without the slot
            pass
    return value


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
        return _lift(self, _func("ffi.ArrayGetItem")(self, i + n if i < 0 else i))

    def __iter__(self) -> Iterator[Any]:
        get = _func("ffi.ArrayGetItem")
        for i in range(len(self)):
            yield _lift(self, get(self, i))

    def __reversed__(self) -> Iterator[Any]:
        for i in range(len(self) - 1, -1, -1):
            yield self[i]

    def __contains__(self, value: Any) -> bool:
        return any(v == value for v in self)

    def index(self, value: Any) -> int:
        """The index of the first element equal to ``value``; ValueError when there is none."""
        for i, v in enumerate(self):
            if v == value:
                return i
        raise ValueError(f"{value!r} is not in the Array")

    def count(self, value: Any) -> int:
        """The number of elements equal to ``value``."""
        return sum(1 for v in self if v == value)

    def __eq__(self, other: object) -> Any:
        return _sequence_eq(self, other)

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return _func("ffi.RecursiveHash")(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __add__(self, other: Iterable[Any]) -> Array:
        return type(self)([*self, *other])

    def __radd__(self, other: Iterable[Any]) -> Array:
        return type(self)([*other, *self])

    def __deepcopy__(self, memo: Any = None) -> Any:
        return _func("ffi.DeepCopy")(self)

    def __repr__(self) -> str:
        return _repr(self)


class Map(Object):
    """An ffi.Map: an immutable mapping between FFI values.

    ``Map({"a": 1})`` converts keys and values; ``dict(m)`` gives them back.
    """

    def __init__(self, items: Mapping[Any, Any] | Iterable[tuple[Any, Any]] = ()) -> None:
        super().__init__()
        _core._init_from(self, _core.convert(dict(_mapping_pairs(items, "Map"))))

    def __len__(self) -> int:
        return _func("ffi.MapSize")(self)

    def __getitem__(self, key: Any) -> Any:
        value = _func("ffi.MapGetItemOrMissing")(self, key)
        if isinstance(value, Object) and value.same_as(_missing()):
            raise KeyError(key)
        return _lift(self, value)

    def __contains__(self, key: Any) -> bool:
        return bool(_func("ffi.MapCount")(self, key))

    def get(self, key: Any, default: Any = None) -> Any:
        """The value at ``key``, or ``default`` when the map has no such key."""
        try:
            return self[key]
        except KeyError:
            return default

    def items(self) -> list[tuple[Any, Any]]:
        """The (key, value) pairs, in the map's iteration order."""
        flat = [_lift(self, v) for v in _func("ffi.MapItems")(self)]
        return list(zip(flat[0::2], flat[1::2]))

    def keys(self) -> list[Any]:
        """The keys, in the map's iteration order."""
        return [k for k, _ in self.items()]

    def values(self) -> list[Any]:
        """The values, in the map's iteration order."""
        return [v for _, v in self.items()]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def __eq__(self, other: object) -> Any:
        return _mapping_eq(self, other)

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return _func("ffi.RecursiveHash")(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __deepcopy__(self, memo: Any = None) -> Any:
        return _func("ffi.DeepCopy")(self)

    def __repr__(self) -> str:
        return _repr(self)


def _mapping_pairs(items: Any, kind: str) -> Iterable[Any]:
    """The (key, value) pairs of a mapping or an iterable of pairs.

    AttributeError (upstream's kind: it reads ``items()``) for anything else.
    """
    if hasattr(items, "items"):
        return items.items()
    if isinstance(items, Iterable) and not isinstance(items, (str, bytes)):
        return items
    raise AttributeError(
        f"{kind} expects a mapping (an object with items()), got {type(items).__name__}"
    )


def _repr(obj: Object) -> str:
    """The runtime's text of a container (upstream's): (1, 2) Array, [1, 2] List, {...} maps."""
    try:
        return str(_func("ffi.ReprPrint")(obj))
    except Exception:
        return f"{type(obj).__name__}(<unprintable>)"


def _mapping_eq(this: Any, other: object) -> Any:
    """Structural equality with another Map or Dict (a Python dict is not compared)."""
    if isinstance(other, Object) and this.same_as(other):
        return True
    if isinstance(other, (Map, Dict)):
        return _func("ffi.RecursiveEq")(this, other)
    return NotImplemented


_MISSING: list[Object] = []


def _missing() -> Object:
    if not _MISSING:
        _MISSING.append(_func("ffi.MapGetMissingObject")())
    return _MISSING[0]


Sequence.register(Array)
Mapping.register(Map)


def _normalize_index(length: int, index: Any) -> int:
    """A Python index into [0, length); IndexError naming both when out of range."""
    i = operator.index(index)
    if i < -length or i >= length:
        raise IndexError(f"index {i} out of range for a container of size {length}")
    return i + length if i < 0 else i


def _sequence_eq(this: Any, other: object) -> Any:
    """Structural equality of an Array or List with an Array, List, list or tuple."""
    if isinstance(other, Object) and this.same_as(other):
        return True
    if isinstance(other, (List, Array)):
        return _func("ffi.RecursiveEq")(this, other)
    if isinstance(other, (list, tuple)):
        try:
            return _func("ffi.RecursiveEq")(this, type(this)(other))
        except (TypeError, ValueError):
            return NotImplemented
    return NotImplemented


class List(Object):
    """An ffi.List: a mutable sequence shared by reference.

    Every holder (Python or C++) of the same list sees a change made through
    any of them; ``List([1, 2])`` converts each item.
    """

    __slots__ = ("_tvm_ffi_framework",)  # see _lift

    def __init__(self, items: Iterable[Any] = ()) -> None:
        super().__init__()
        _core._init_from(self, _func("ffi.List")(*items))

    def __len__(self) -> int:
        return _func("ffi.ListSize")(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, index: Any) -> Any:
        n = len(self)
        get = _func("ffi.ListGetItem")
        if isinstance(index, slice):
            return [_lift(self, get(self, i)) for i in range(*index.indices(n))]
        return _lift(self, get(self, _normalize_index(n, index)))

    def __setitem__(self, index: Any, value: Any) -> None:
        n = len(self)
        if not isinstance(index, slice):
            _func("ffi.ListSetItem")(self, _normalize_index(n, index), value)
            return
        items = list(value)
        start, stop, step = index.indices(n)
        if step == 1:
            _func("ffi.ListReplaceSlice")(self, start, max(start, stop), List(items))
            return
        targets = range(start, stop, step)
        if len(items) != len(targets):
            raise ValueError(
                f"attempt to assign sequence of size {len(items)} to extended "
                f"slice of size {len(targets)}"
            )
        for i, item in zip(targets, items):
            _func("ffi.ListSetItem")(self, i, item)

    def __delitem__(self, index: Any) -> None:
        n = len(self)
        if not isinstance(index, slice):
            _func("ffi.ListErase")(self, _normalize_index(n, index))
            return
        start, stop, step = index.indices(n)
        if step == 1:
            _func("ffi.ListEraseRange")(self, start, max(start, stop))
            return
        # Highest index first, so each erase leaves the ones still to come in place.
        for i in sorted(range(start, stop, step), reverse=True):
            _func("ffi.ListErase")(self, i)

    def insert(self, index: int, value: Any) -> None:
        """Insert ``value`` before position ``index`` (clamped to the list, as ``list.insert``)."""
        n = len(self)
        i = operator.index(index)
        i = max(0, i + n) if i < 0 else min(i, n)
        _func("ffi.ListInsert")(self, i, value)

    def append(self, value: Any) -> None:
        """Add ``value`` at the end."""
        _func("ffi.ListAppend")(self, value)

    def extend(self, values: Iterable[Any]) -> None:
        """Add every element of ``values`` at the end."""
        n = len(self)
        self[n:n] = list(values)

    def pop(self, index: int = -1) -> Any:
        """Remove and return the element at ``index`` (default: the last); IndexError if none."""
        n = len(self)
        if n == 0:
            raise IndexError("pop from an empty List")
        return _lift(self, _func("ffi.ListPop")(self, _normalize_index(n, index)))

    def clear(self) -> None:
        """Remove every element."""
        _func("ffi.ListClear")(self)

    def reverse(self) -> None:
        """Reverse the elements in place."""
        _func("ffi.ListReverse")(self)

    def __iter__(self) -> Iterator[Any]:
        get = _func("ffi.ListGetItem")
        for i in range(len(self)):
            yield _lift(self, get(self, i))

    def __contains__(self, value: Any) -> bool:
        if _func("ffi.ListContains")(self, value):
            return True
        if isinstance(value, (list, tuple)):
            # A nested Python sequence matches an element structurally.
            return any(v == value for v in self if isinstance(v, (List, Array)))
        return False

    def __eq__(self, other: object) -> Any:
        return _sequence_eq(self, other)

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return _func("ffi.RecursiveHash")(self)

    def __add__(self, other: Iterable[Any]) -> List:
        return type(self)([*self, *other])

    def __radd__(self, other: Iterable[Any]) -> List:
        return type(self)([*other, *self])

    def __iadd__(self, other: Iterable[Any]) -> List:
        self.extend(other)
        return self

    def __reversed__(self) -> Iterator[Any]:
        for i in range(len(self) - 1, -1, -1):
            yield self[i]

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        """The index of the first element equal to ``value`` in ``[start, stop)``; else ValueError."""
        n = len(self)
        for i in range(*slice(start, stop).indices(n)):
            if self[i] == value:
                return i
        raise ValueError(f"{value!r} is not in the List")

    def count(self, value: Any) -> int:
        """The number of elements equal to ``value``."""
        return sum(1 for v in self if v == value)

    def remove(self, value: Any) -> None:
        """Remove the first element equal to ``value``; ValueError when there is none."""
        del self[self.index(value)]

    def __deepcopy__(self, memo: Any = None) -> Any:
        return _func("ffi.DeepCopy")(self)

    def __repr__(self) -> str:
        return _repr(self)


def _dict_walk(d: Dict, command: int) -> Iterator[Any]:
    """Keys (0), values (1) or (key, value) pairs (2) of a Dict, in its order."""
    n = len(d)
    if n == 0:
        return
    step = _func("ffi.DictForwardIterFunctor")(d)
    for _ in range(n):
        if command == 2:
            yield _lift(d, step(0)), _lift(d, step(1))
        else:
            yield _lift(d, step(command))
        if not step(2):
            break


class _DictKeys(KeysView):
    def __iter__(self) -> Iterator[Any]:
        return _dict_walk(self._mapping, 0)


class _DictValues(ValuesView):
    def __iter__(self) -> Iterator[Any]:
        return _dict_walk(self._mapping, 1)


class _DictItems(ItemsView):
    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        return _dict_walk(self._mapping, 2)


class Dict(Object):
    """An ffi.Dict: a mutable mapping shared by reference.

    ``Dict({"a": 1})`` converts keys and values; every holder of the same dict
    sees a change made through any of them.
    """

    __slots__ = ("_tvm_ffi_framework",)  # see _lift

    def __init__(self, items: Mapping[Any, Any] | Iterable[tuple[Any, Any]] | None = None) -> None:
        super().__init__()
        pairs = dict(_mapping_pairs(items, "Dict")).items() if items is not None else ()
        flat: list[Any] = []
        for k, v in pairs:
            flat += (k, v)
        _core._init_from(self, _func("ffi.Dict")(*flat))

    def __len__(self) -> int:
        return _func("ffi.DictSize")(self)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __getitem__(self, key: Any) -> Any:
        value = _func("ffi.DictGetItemOrMissing")(self, key)
        if isinstance(value, Object) and value.same_as(_missing()):
            raise KeyError(key)
        return _lift(self, value)

    def __setitem__(self, key: Any, value: Any) -> None:
        _func("ffi.DictSetItem")(self, key, value)

    def __delitem__(self, key: Any) -> None:
        if not _func("ffi.DictCount")(self, key):
            raise KeyError(key)
        _func("ffi.DictErase")(self, key)

    def __contains__(self, key: Any) -> bool:
        return bool(_func("ffi.DictCount")(self, key))

    def __iter__(self) -> Iterator[Any]:
        return _dict_walk(self, 0)

    def keys(self) -> KeysView:
        """A live view of the keys."""
        return _DictKeys(self)

    def values(self) -> ValuesView:
        """A live view of the values."""
        return _DictValues(self)

    def items(self) -> ItemsView:
        """A live view of the (key, value) pairs."""
        return _DictItems(self)

    def get(self, key: Any, default: Any = None) -> Any:
        """The value at ``key``, or ``default`` when the dict has no such key."""
        value = _func("ffi.DictGetItemOrMissing")(self, key)
        if isinstance(value, Object) and value.same_as(_missing()):
            return default
        return _lift(self, value)

    def pop(self, key: Any, *default: Any) -> Any:
        """Remove ``key`` and return its value; ``default`` (or KeyError) when it is absent."""
        if len(default) > 1:
            raise TypeError(f"pop expected at most 2 arguments, got {1 + len(default)}")
        value = _func("ffi.DictGetItemOrMissing")(self, key)
        if isinstance(value, Object) and value.same_as(_missing()):
            if default:
                return default[0]
            raise KeyError(key)
        _func("ffi.DictErase")(self, key)
        return _lift(self, value)

    def clear(self) -> None:
        """Remove every entry."""
        _func("ffi.DictClear")(self)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        """The value at ``key``, first setting it to ``default`` when absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self) -> tuple[Any, Any]:
        """Remove and return one (key, value) pair; KeyError when the dict is empty."""
        for key, value in self.items():
            _func("ffi.DictErase")(self, key)
            return key, value
        raise KeyError("popitem(): the Dict is empty")

    def update(self, other: Any = (), /, **kwargs: Any) -> None:
        """Set the entries of ``other`` (a mapping or pairs) and of ``kwargs``."""
        pairs = other.items() if hasattr(other, "items") else other
        for k, v in pairs:
            self[k] = v
        for k, v in kwargs.items():
            self[k] = v

    def __eq__(self, other: object) -> Any:
        return _mapping_eq(self, other)

    def __ne__(self, other: object) -> Any:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return _func("ffi.RecursiveHash")(self)

    def __deepcopy__(self, memo: Any = None) -> Any:
        return _func("ffi.DeepCopy")(self)

    def __repr__(self) -> str:
        return _repr(self)


MutableSequence.register(List)
MutableMapping.register(Dict)
_core._register_object_class("ffi.List", List)
_core._register_object_class("ffi.Dict", Dict)

#: The runtime's "no value" marker (a missing Map key), under upstream's name.
MISSING = _missing()

# Array[int], Map[str, int], ...: the containers serve as generic annotations.
for _cls in (Array, Map, List, Dict):
    _cls.__class_getitem__ = classmethod(types.GenericAlias)  # type: ignore[attr-defined]

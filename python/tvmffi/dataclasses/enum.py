"""Enums whose entries are FFI singletons (upstream's ``tvm_ffi.dataclasses.enum``).

``class Color(IntEnum, type_key="my.Color"): red = entry(value=1)`` makes an
FFI object type (``@py_class``, or ``@c_class`` when C++ registered the key:
its entries then come from the C++ registry) whose entries are singleton
objects with ``_int_index`` / ``_str_index`` (and, for IntEnum / StrEnum, a
``value``). ``Color.get(1)``, ``Color(1)``, ``Color("red")`` give the entry;
``Color.all_entries()`` iterates them; ``Color.def_attr("x")`` is a
per-entry attribute map.

Differences from upstream, while the runtime lacks ``ffi.List`` / ``ffi.Dict``
operations and the extension's metaclass cannot be subclassed: the registry of
a Python-defined enum is kept in Python (the ``__ffi_enum__`` type attribute
the C++ side reads, e.g. for JSON, is not filled), and iterating the class
itself (``list(Color)``, ``len(Color)``) is not available (use
``Color.all_entries()``).
"""

from __future__ import annotations

import ctypes
import sys
import typing
from typing import Any, Callable, ClassVar, Iterator

from .. import _reflection as _r
from ..core import MISSING, Object
from .c_class import c_class

#: The type attribute under which C++ registers an enum type's entries (its EnumState).
ENUM_STATE_ATTR = "__ffi_enum__"
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1

__all__ = ["ENUM_STATE_ATTR", "Enum", "EnumAttrMap", "EnumState", "IntEnum", "StrEnum", "auto",
           "entry"]


@c_class("ffi.EnumState")
class EnumState(Object):
    """The C++ registry of an enum type: its entries, their indices, their attributes."""

    __slots__ = ()
    entries: Any
    indexes: Any
    attrs: Any


class _EnumEntry:
    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"entry({', '.join(parts)})"


def entry(*args: Any, **kwargs: Any) -> Any:
    """An enum entry, with values of the enum's declared fields."""
    return _EnumEntry(*args, **kwargs)


def auto() -> Any:
    """An enum entry whose indices come from its position and name."""
    return _EnumEntry()


class _PyState:
    """The registry of an enum type, kept in Python."""

    __slots__ = ("attrs", "entries", "indexes")

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.indexes: dict[Any, Any] = {}
        self.attrs: dict[str, dict[int, Any]] = {}


class _ClassProperty:
    # A read-only property of the class itself; it carries its getter's docstring.
    __slots__ = ("fget", "__doc__")

    def __init__(self, fget: Callable[[type], Any]) -> None:
        self.fget = fget
        self.__doc__ = fget.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self.fget(owner if owner is not None else type(instance))


def _normalize_index(index: Any) -> int | str:
    if isinstance(index, bool):
        return int(index)
    if isinstance(index, int):
        if not _INT64_MIN <= index <= _INT64_MAX:
            raise OverflowError(f"enum integer index {index} is outside int64")
        return index
    if isinstance(index, str):
        return index
    raise TypeError(f"enum index must be int or str, got {type(index).__name__}")


class _LazyEntry:
    """A class attribute standing for an entry until the entries are made."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        cls = owner if owner is not None else type(instance)
        _ensure_resolved(cls)
        value = cls.__dict__.get(self.name)
        if isinstance(value, _LazyEntry):
            raise AttributeError(self.name)
        return value


def _ensure_resolved(cls: type) -> None:
    """Make the entries of the enum classes in ``cls``'s MRO that have not made theirs yet."""
    for klass in reversed(cls.__mro__):
        pending = klass.__dict__.get("__ffi_enum_pending__")
        if pending is not None:
            del klass.__ffi_enum_pending__
            _resolve(klass, *pending)


def _state(cls: type) -> _PyState | None:
    _ensure_resolved(cls)
    for klass in cls.__mro__:
        state = klass.__dict__.get("__ffi_enum_state__")
        if state is not None:
            return state
    return None


def _seq_items(obj: Any) -> list[Any]:
    """The items of an ffi.Array / ffi.List (read through the C ABI's sequence cell)."""
    handle = _r.chandle_of(obj)
    if not handle:
        return []
    data = ctypes.c_void_p.from_address(handle + _r.OBJECT_HEADER_SIZE).value
    size = ctypes.c_int64.from_address(handle + _r.OBJECT_HEADER_SIZE + 8).value
    return [_r.cell_to_py(_r.copy_cell(_r.AnyCell.from_address(data + 16 * i)))
            for i in range(size)]


def _cxx_state(cls: type) -> _PyState:
    """The entries C++ registered for the type (its ``__ffi_enum__`` EnumState)."""
    state = _PyState()
    info = cls.__tvm_ffi_type_info__  # type: ignore[attr-defined]
    cxx = _r.type_attr(info.type_index, ENUM_STATE_ATTR)
    if cxx is not None:
        entries_field = EnumState.__tvm_ffi_type_info__.find_field("entries")
        for item in _seq_items(entries_field.get(cxx)):
            _register(state, item)
    return state


def _register(state: _PyState, instance: Any) -> None:
    state.entries.append(instance)
    state.indexes[instance._int_index] = instance
    state.indexes[str(instance._str_index)] = instance


class Enum(Object):
    """Base of enums whose entries are FFI singletons (``class E(Enum, type_key=...)``)."""

    __slots__ = ()
    _int_index: int
    _str_index: str

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        if not kwargs and len(args) == 1:
            value = args[0]
            if isinstance(value, cls):
                return value
            if isinstance(value, (int, str)) and _state(cls) is not None:
                try:
                    return cls.get(value)
                except KeyError:
                    raise ValueError(f"{value!r} is not a valid {cls.__name__}") from None
        return super().__new__(cls)

    def __init_subclass__(cls, *, type_key: str | None = None, frozen: bool = True,
                          init: bool = True, repr: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if type_key is None:
            return
        payload = int if issubclass(cls, IntEnum) else str if issubclass(cls, StrEnum) else None
        user_repr = "__repr__" in cls.__dict__
        binders, declarations = _collect_declarations(cls, payload)
        cxx_backed = _r.type_key_to_index(type_key) is not None
        if cxx_backed:
            c_class(type_key, init=init, repr=repr)(cls)
        else:
            from .py_class import py_class  # noqa: PLC0415

            py_class(type_key, frozen=frozen, structural_eq="singleton")(cls)
        _guard_init(cls)
        if payload is not None:
            _install_payload_behavior(cls, payload, user_repr)
        # The entries are objects of the class, which the extension can only make once the
        # class statement is complete: they are made on first use.
        cls.__ffi_enum_pending__ = (binders, declarations, type_key, cxx_backed, payload)
        for alias in list(binders) + list(declarations):
            setattr(cls, alias, _LazyEntry(alias))

    @classmethod
    def get(cls, index: int | str) -> Any:
        """The entry at an integer or string index (KeyError if none)."""
        index = _normalize_index(index)
        state = _state(cls)
        if state is not None and index in state.indexes:
            return state.indexes[index]
        raise KeyError(index)

    @classmethod
    def all_entries(cls) -> Iterator[Any]:
        """The entries, in registration order."""
        state = _state(cls)
        return iter(list(state.entries) if state is not None else [])

    @_ClassProperty
    def attr_dict(cls: type) -> dict[str, dict[int, Any]]:  # noqa: N805
        """The per-entry attributes: name -> {entry's integer index: value}."""
        state = _state(cls)
        return {} if state is None else state.attrs

    @classmethod
    def def_attr(cls, name: str, *, default: Any = MISSING) -> EnumAttrMap:
        """A per-entry attribute map (``attr[entry] = value``)."""
        return EnumAttrMap(cls, name, default=default)


class EnumAttrMap:
    """One per-entry attribute of an enum: ``attr[entry]``, ``attr[entry] = value``."""

    __slots__ = ("_default", "_enum_cls", "_name")

    def __init__(self, enum_cls: type, name: str, *, default: Any = MISSING) -> None:
        self._enum_cls = enum_cls
        self._name = name
        self._default = default

    def _check(self, variant: object) -> None:
        if not isinstance(variant, self._enum_cls):
            raise TypeError(f"expected {self._enum_cls.__name__}, got {type(variant).__name__}")

    def _column(self, create: bool) -> dict[int, Any] | None:
        state = _state(self._enum_cls)
        if state is None:
            return None
        column = state.attrs.get(self._name)
        if column is None and create:
            column = state.attrs[self._name] = {}
        return column

    def __setitem__(self, variant: object, value: Any) -> None:
        self._check(variant)
        self._column(True)[variant._int_index] = value  # type: ignore[index,attr-defined]

    def __getitem__(self, variant: object) -> Any:
        self._check(variant)
        column = self._column(False)
        key = variant._int_index  # type: ignore[attr-defined]
        if column is not None and key in column:
            return column[key]
        if self._default is not MISSING:
            return self._default
        raise KeyError(f"{variant!r} has no extensible attribute {self._name!r}")

    def __contains__(self, variant: object) -> bool:
        if not isinstance(variant, self._enum_cls):
            return False
        column = self._column(False)
        return column is not None and variant._int_index in column  # type: ignore[attr-defined]

    def get(self, variant: object, default: Any = None) -> Any:
        """The value for ``variant``, or ``default``."""
        return self[variant] if variant in self else default

    @property
    def name(self) -> str:
        """The attribute's name."""
        return self._name


class IntEnum(Enum):
    """An enum whose ``value`` is its integer index."""

    __slots__ = ()
    value: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _reject_value_field(cls, "IntEnum")
        super().__init_subclass__(**kwargs)


class StrEnum(Enum):
    """An enum whose ``value`` (and ``name``) is its string index."""

    __slots__ = ()
    value: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _reject_value_field(cls, "StrEnum")
        super().__init_subclass__(**kwargs)


# The bases are bound to the runtime's types (their fields: _int_index, _str_index, value).
for _base, _key in ((Enum, "ffi.Enum"), (IntEnum, "ffi.IntEnum"), (StrEnum, "ffi.StrEnum")):
    c_class(_key, init=False)(_base)
del _base, _key


def _guard_init(cls: type) -> None:
    """``cls(entry)`` / ``cls(index)`` return an existing entry: its __init__ must then do nothing."""
    init = cls.__dict__.get("__init__")
    if init is None:
        return

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if _r.chandle_of(self):
            return
        init(self, *args, **kwargs)

    __init__.__qualname__ = getattr(init, "__qualname__", "__init__")
    cls.__init__ = __init__  # type: ignore[misc]


def _install_payload_behavior(cls: type, payload: type, user_repr: bool) -> None:
    def eq(self: Any, other: object) -> Any:
        if isinstance(other, type(self)):
            return self.value == other.value
        if isinstance(other, payload):
            return self.value == other
        return NotImplemented

    def ne(self: Any, other: object) -> Any:
        result = eq(self, other)
        return NotImplemented if result is NotImplemented else not result

    defaults: dict[str, Any] = {"__eq__": eq, "__ne__": ne,
                                "__str__": lambda self: str(self.value),
                                "__hash__": lambda self: hash(self.value)}
    for key, value in defaults.items():
        if key not in cls.__dict__:
            setattr(cls, key, value)
    if "name" not in cls.__dict__:
        cls.name = property(lambda self: str(self._str_index))  # type: ignore[attr-defined]
    if not user_repr:
        cls.__repr__ = lambda self: f"{type(self).__name__}.{self.name}"  # type: ignore[assignment]


def _own_annotations(cls: type) -> dict[str, Any]:
    if sys.version_info >= (3, 14):  # pragma: no cover
        return dict(getattr(cls, "__annotations__", {}) or {})
    return dict(cls.__dict__.get("__annotations__", {}))


def _is_class_var(annotation: Any) -> bool:
    if annotation is ClassVar or typing.get_origin(annotation) is ClassVar:
        return True
    return isinstance(annotation, str) and \
        annotation.replace(" ", "").startswith(("ClassVar", "typing.ClassVar"))


def _reject_value_field(cls: type, base: str) -> None:
    if "value" in cls.__dict__ or "value" in _own_annotations(cls):
        raise TypeError(f"{base} reserves `value` as its canonical index alias")


def _collect_declarations(cls: type, payload: type | None) -> tuple[list[str],
                                                                    dict[str, _EnumEntry]]:
    annotations = _own_annotations(cls)
    binders = [n for n, a in annotations.items()
               if not n.startswith("_") and _is_class_var(a) and n not in cls.__dict__]
    fields = {n for n, a in annotations.items() if not _is_class_var(a)}
    declarations: dict[str, _EnumEntry] = {}
    for name, value in list(cls.__dict__.items()):
        if name.startswith("_") or name in fields:
            continue
        if isinstance(value, _EnumEntry):
            declarations[name] = value
        elif payload is not None and not (
                isinstance(value, (staticmethod, classmethod, property)) or callable(value)):
            declarations[name] = _EnumEntry(value=value)
        else:
            continue
        delattr(cls, name)
    # ClassVar-annotated entries (``relu: ClassVar[E] = entry(...)``) are not fields either.
    for name in list(annotations):
        if name in declarations and _is_class_var(annotations[name]):
            del cls.__annotations__[name]
    return binders, declarations


def _indices(cls: type, alias: str, ordinal: int, declaration: _EnumEntry,
             payload: type | None) -> tuple[int, str, _EnumEntry]:
    kwargs = dict(declaration.kwargs)
    if "_int_index" in kwargs or "_str_index" in kwargs:
        raise TypeError(f"{cls.__name__}.{alias}: enum indices are inferred")
    if payload is None:
        return ordinal, alias, declaration
    if "value" not in kwargs:
        raise TypeError(f"{cls.__name__}.{alias} requires a {payload.__name__} value")
    value = kwargs.pop("value")
    if type(value) is not payload:
        raise TypeError(f"{cls.__name__}.{alias} value must be {payload.__name__}")
    rest = _EnumEntry(*declaration.args, **kwargs)
    if payload is int:
        _normalize_index(value)
        return value, alias, rest
    return ordinal, value, rest


def _create(cls: type, int_index: int, str_index: str, declaration: _EnumEntry,
            cxx_backed: bool) -> Any:
    try:
        if not cxx_backed:
            return cls(*declaration.args, _int_index=int_index, _str_index=str_index,
                       **declaration.kwargs)
        if declaration.args:
            raise TypeError("C++-backed enum entries require keyword fields")
        info = cls.__tvm_ffi_type_info__  # type: ignore[attr-defined]
        new = _r.type_attr(info.type_index, "__ffi_new__")
        if new is not None:
            instance = new()
        elif info.creator is not None:
            handle = ctypes.c_void_p()
            if _r._Creator(info.creator)(ctypes.byref(handle)) != 0:
                _r.raise_last_error()
            instance = _r.take_any(_r._owned_object_cell(handle.value))
        else:
            raise TypeError("enum type has no allocator")
        values = {"_int_index": int_index, "_str_index": str_index, **declaration.kwargs}
        for name, value in values.items():
            descriptor = getattr(cls, name, None)
            if descriptor is None or not hasattr(descriptor, "set"):
                raise TypeError(f"field {name!r} has no reflected setter")
            descriptor.set(instance, value)
        return instance
    except Exception as err:  # noqa: BLE001
        raise TypeError(f"{cls.__name__}.{str_index}: invalid enum entry: {err}") from None


def _resolve(cls: type, binders: list[str], declarations: dict[str, _EnumEntry], type_key: str,
             cxx_backed: bool, payload: type | None) -> None:
    state = _cxx_state(cls) if cxx_backed else _PyState()
    cls.__ffi_enum_state__ = state  # type: ignore[attr-defined]
    for alias in binders:
        instance = state.indexes.get(alias)
        if instance is None:
            if cxx_backed:
                raise RuntimeError(f"{type_key!r} has no enum at string index {alias!r}")
            if payload is int:
                raise TypeError(f"{cls.__name__}.{alias} requires an integer value")
            instance = _create(cls, len(state.entries), alias, _EnumEntry(), cxx_backed)
            _register(state, instance)
        setattr(cls, alias, instance)
    for alias, declaration in declarations.items():
        int_index, str_index, rest = _indices(cls, alias, len(state.entries), declaration, payload)
        instance = state.indexes.get(int_index if payload is int else str_index)
        if instance is None:
            if int_index in state.indexes or str_index in state.indexes:
                raise ValueError(f"duplicate enum index in {cls.__name__}.{alias}")
            instance = _create(cls, int_index, str_index, rest, cxx_backed)
            _register(state, instance)
        setattr(cls, alias, instance)

"""Enums whose entries are FFI singletons (upstream's ``tvm_ffi.dataclasses.enum``).

``class Color(IntEnum, type_key="my.Color"): red = entry(value=1)`` makes an
FFI object type (``@py_class``, or ``@c_class`` when C++ registered the key:
its entries then come from the C++ registry) whose entries are singleton
objects with ``_int_index`` / ``_str_index`` (and, for IntEnum / StrEnum, a
``value``). The entries are made when the class statement completes, so an
invalid declaration is reported there.

The class itself behaves like a Python enum: ``list(Color)``, ``len(Color)``,
``Color.red in Color``, ``Color["red"]`` (by alias or string index),
``Color(1)`` / ``Color("red")`` / ``Color.get(1)`` (by index). Per-entry
attributes: ``Color.def_attr("x")``. The registry is the type attribute
``__ffi_enum__`` (an :class:`EnumState`), shared with C++: C++ finds the
entries of a Python-defined enum (JSON, ``EnumObj::_GetByStrIndex``) and
Python those a C++ ``EnumDef`` registered.
"""

from __future__ import annotations

import sys
import typing
from typing import Any, Callable, ClassVar, Iterator

from .. import _core
from .. import _reflection as _r
from .._core import ObjectMeta
from ..container import Dict
from ..core import MISSING, Object
from .c_class import c_class

#: The type attribute under which an enum type's registry (its EnumState) lives.
ENUM_STATE_ATTR = "__ffi_enum__"
_INT64_MIN = -(1 << 63)
_INT64_MAX = (1 << 63) - 1

__all__ = [
    "ENUM_STATE_ATTR",
    "Enum",
    "EnumAttrMap",
    "EnumState",
    "IntEnum",
    "StrEnum",
    "auto",
    "entry",
]


@c_class("ffi.EnumState")
class EnumState(Object):
    """The registry of an enum type: its entries, their indices, their attributes.

    ``entries``: the entries in registration order (an ``ffi.List``);
    ``indexes``: integer and string index -> entry (an ``ffi.Dict``);
    ``attrs``: attribute name -> (entry -> value).
    """

    __slots__ = ()
    entries: Any
    indexes: Any
    attrs: Any


class _EnumEntry:
    """A declared entry of an enum class body: the values of the enum's fields."""

    __slots__ = ("args", "kwargs")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        shown = [repr(a) for a in self.args]
        shown.extend(f"{k}={v!r}" for k, v in self.kwargs.items())
        return "entry(" + ", ".join(shown) + ")"


def entry(*args: Any, **kwargs: Any) -> Any:
    """An enum entry, with values of the enum's declared fields (``value=`` for payload enums)."""
    return _EnumEntry(*args, **kwargs)


def auto() -> Any:
    """An enum entry whose indices come from its position and its name."""
    return _EnumEntry()


class _ClassProperty:
    # A read-only property of the class itself; it carries its getter's docstring.
    __slots__ = ("__doc__", "fget")

    def __init__(self, fget: Callable[[type], Any]) -> None:
        self.fget = fget
        self.__doc__ = fget.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        return self.fget(owner if owner is not None else type(instance))


def _normalize_index(index: Any) -> int | str:
    """``index`` as a registry key: an int64 (bools are ints) or a str."""
    if isinstance(index, bool):
        return int(index)
    if isinstance(index, int):
        if index < _INT64_MIN or index > _INT64_MAX:
            raise OverflowError(f"enum integer index {index} is outside int64")
        return index
    if isinstance(index, str):
        return index
    raise TypeError(f"enum index must be int or str, got {type(index).__name__}")


# type index -> its EnumState (a state, once made, is only ever added to).
_STATES: dict[int, Any] = {}


# apache-tvm-ffi 0.1.12's C++ EnumDef kept an enum's entries in these type
# attributes (name -> entry, attribute -> (entry -> value)); 0.1.13 replaced
# them by ENUM_STATE_ATTR. Libraries built against 0.1.12 (TileLang 0.1.15's
# compiler) still set them: their entries are read into an EnumState once.
_LEGACY_ENTRIES_ATTR = "__ffi_enum_entries__"
_LEGACY_ATTRS_ATTR = "__ffi_enum_attrs__"


def _registered_state(type_index: int) -> Any:
    """The type's EnumState, made from 0.1.12's attributes when only those are set."""
    state = _r.type_attr(type_index, ENUM_STATE_ATTR)
    if state is not None:
        return state
    legacy = _r.type_attr(type_index, _LEGACY_ENTRIES_ATTR)
    if legacy is None or not hasattr(legacy, "items"):
        return None
    _r.register_type_attr(type_index, ENUM_STATE_ATTR, EnumState())
    state = _r.type_attr(type_index, ENUM_STATE_ATTR)
    for entry in legacy.values():
        state.entries.append(entry)
        state.indexes[entry._int_index] = entry
        state.indexes[entry._str_index] = entry
    attrs = _r.type_attr(type_index, _LEGACY_ATTRS_ATTR)
    for name, values in attrs.items() if hasattr(attrs, "items") else ():
        state.attrs[name] = values
    return state


def _state(cls: type, *, create: bool = False) -> Any:
    """The registry of an enum class (None when it has none and ``create`` is false)."""
    info = getattr(cls, "__tvm_ffi_type_info__", None)
    if info is None:
        return None
    state = _STATES.get(info.type_index)
    if state is None:
        state = _registered_state(info.type_index)
        if state is None and create:
            _r.register_type_attr(info.type_index, ENUM_STATE_ATTR, EnumState())
            state = _r.type_attr(info.type_index, ENUM_STATE_ATTR)
        if state is not None:
            _STATES[info.type_index] = state
    return state


def _entries(cls: type) -> list[Any]:
    state = _state(cls)
    return [] if state is None else list(state.entries)


class _EnumMeta(ObjectMeta):
    """The metaclass of enums: the class is the collection of its entries."""

    def __init__(
        cls, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any
    ) -> None:
        super().__init__(name, bases, namespace, **kwargs)
        # Entries are objects of the class: the extension can make them only now,
        # once its part of the class is set up (after __init_subclass__).
        plan = cls.__dict__.get("__ffi_enum_plan__")
        if plan is not None:
            delattr(cls, "__ffi_enum_plan__")
            _make_entries(cls, *plan)

    def __iter__(cls) -> Iterator[Any]:
        return iter(_entries(cls))

    def __reversed__(cls) -> Iterator[Any]:
        return reversed(_entries(cls))

    def __len__(cls) -> int:
        state = _state(cls)
        return 0 if state is None else len(state.entries)

    def __bool__(cls) -> bool:
        # A class is true even without entries (len() would say otherwise).
        return True

    def __contains__(cls, value: object) -> bool:
        if isinstance(value, cls):
            return any(value.same_as(e) for e in _entries(cls))  # type: ignore[attr-defined]
        if isinstance(value, (int, str)):
            try:
                cls.get(value)  # type: ignore[attr-defined]
            except (KeyError, OverflowError):
                return False
            return True
        return False

    def __getitem__(cls, name: str) -> Any:
        # A class alias first (``Opcode["ADD"]`` for ``ADD = "+"``), then a string index.
        if isinstance(name, str):
            for klass in cls.__mro__:
                value = klass.__dict__.get(name)
                if isinstance(value, cls):
                    return value
            state = _state(cls)
            found = None if state is None else state.indexes.get(name)
            if found is not None:
                return found
        raise KeyError(name)

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        # ``E(entry)`` and ``E(index)`` give the entry; any other call constructs.
        if len(args) == 1 and not kwargs:
            value = args[0]
            if isinstance(value, cls):
                return value
            if isinstance(value, (int, str)):
                try:
                    return cls.get(value)  # type: ignore[attr-defined]
                except KeyError:
                    raise ValueError(f"{value!r} is not a valid {cls.__name__}") from None
        return super().__call__(*args, **kwargs)


class Enum(Object, metaclass=_EnumMeta):
    """Base of enums whose entries are FFI singletons (``class E(Enum, type_key=...)``).

    ``type_key`` names the FFI type; ``frozen`` (default True), ``init`` and
    ``repr`` are passed to ``@py_class`` / ``@c_class``.
    """

    __slots__ = ()
    _int_index: int
    _str_index: str

    def __init_subclass__(
        cls,
        *,
        type_key: str | None = None,
        frozen: bool = True,
        init: bool = True,
        repr: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if type_key is None:
            return
        payload = int if issubclass(cls, IntEnum) else str if issubclass(cls, StrEnum) else None
        user_repr = "__repr__" in cls.__dict__
        binders, declarations = _collect_declarations(cls, payload)
        cxx_backed = _r.type_key_to_index(type_key) is not None
        # Declarations are checked before the type is bound (or, for a new key,
        # registered): a bad one leaves nothing behind.
        _check_declarations(cls, binders, declarations, type_key, cxx_backed, payload)
        if cxx_backed:
            c_class(type_key, init=init, repr=repr)(cls)
        else:
            from .py_class import py_class

            py_class(type_key, frozen=frozen, structural_eq="singleton")(cls)
        if payload is not None:
            _install_payload_behavior(cls, payload, user_repr)
        # Made by the metaclass once the class is complete.
        cls.__ffi_enum_plan__ = (binders, declarations, type_key, cxx_backed, payload)

    @classmethod
    def get(cls, index: int | str) -> Any:
        """The entry at an integer or string index (KeyError if none)."""
        index = _normalize_index(index)
        state = _state(cls)
        found = None if state is None else state.indexes.get(index)
        if found is None:
            raise KeyError(index)
        return found

    @classmethod
    def all_entries(cls) -> Iterator[Any]:
        """The entries, in registration order (also ``iter(cls)``)."""
        return iter(_entries(cls))

    @_ClassProperty
    def attr_dict(cls: type) -> Any:
        """The per-entry attributes, live: name -> (entry -> value), an ``ffi.Dict``."""
        state = _state(cls)
        return Dict() if state is None else state.attrs

    @classmethod
    def def_attr(cls, name: str, *, default: Any = MISSING) -> EnumAttrMap:
        """A per-entry attribute map (``attr[entry] = value``), kept in the registry."""
        return EnumAttrMap(cls, name, default=default)


class EnumAttrMap:
    """One per-entry attribute of an enum: ``attr[entry]``, ``attr[entry] = value``.

    The values live in the enum's registry (``attrs[name]``, keyed by entry),
    where C++ ``EnumDef::set_attr`` puts its values too.
    """

    __slots__ = ("_default", "_enum_cls", "_name")

    def __init__(self, enum_cls: type, name: str, *, default: Any = MISSING) -> None:
        self._enum_cls = enum_cls
        self._name = name
        self._default = default

    def _check(self, variant: object) -> None:
        if not isinstance(variant, self._enum_cls):
            raise TypeError(f"expected {self._enum_cls.__name__}, got {type(variant).__name__}")

    def _column(self, create: bool) -> Any:
        state = _state(self._enum_cls, create=create)
        if state is None:
            return None
        attrs = state.attrs
        column = attrs.get(self._name)
        if column is None and create:
            attrs[self._name] = Dict()
            column = attrs[self._name]
        return column

    def __setitem__(self, variant: object, value: Any) -> None:
        self._check(variant)
        self._column(True)[variant] = value

    def __getitem__(self, variant: object) -> Any:
        self._check(variant)
        column = self._column(False)
        if column is not None and variant in column:
            return column[variant]
        if self._default is not MISSING:
            return self._default
        raise KeyError(f"{variant!r} has no extensible attribute {self._name!r}")

    def __contains__(self, variant: object) -> bool:
        if not isinstance(variant, self._enum_cls):
            return False
        column = self._column(False)
        return column is not None and variant in column

    def get(self, variant: object, default: Any = None) -> Any:
        """The value for ``variant``, or ``default``."""
        return self[variant] if variant in self else default

    @property
    def name(self) -> str:
        """The attribute's name."""
        return self._name


class IntEnum(Enum):
    """An enum whose ``value`` is its integer index (an int64, declared: ``LOW = 1``)."""

    __slots__ = ()
    value: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _reject_value_field(cls, "IntEnum")
        super().__init_subclass__(**kwargs)


class StrEnum(Enum):
    """An enum whose ``value`` (and ``name``) is its string index (``ADD = "+"``)."""

    __slots__ = ()
    value: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        _reject_value_field(cls, "StrEnum")
        super().__init_subclass__(**kwargs)


# The bases are bound to the runtime's types (their fields: _int_index, _str_index, value).
for _base, _key in ((Enum, "ffi.Enum"), (IntEnum, "ffi.IntEnum"), (StrEnum, "ffi.StrEnum")):
    c_class(_key, init=False)(_base)
del _base, _key


def _install_payload_behavior(cls: type, payload: type, user_repr: bool) -> None:
    """IntEnum / StrEnum entries compare and hash as their value; ``name``, ``str``, ``repr``."""

    def eq(self: Any, other: object) -> Any:
        if isinstance(other, type(self)):
            return self.value == other.value
        if isinstance(other, payload):
            return self.value == other
        return NotImplemented

    def ne(self: Any, other: object) -> Any:
        result = eq(self, other)
        return NotImplemented if result is NotImplemented else not result

    defaults: dict[str, Any] = {
        "__eq__": eq,
        "__ne__": ne,
        "__str__": lambda self: str(self.value),
        "__hash__": lambda self: hash(self.value),
    }
    for key, value in defaults.items():
        if key not in cls.__dict__:
            setattr(cls, key, value)
    if "name" not in cls.__dict__:
        cls.name = property(
            lambda self: str(self._str_index),  # type: ignore[attr-defined]
            doc="The entry's string index.",
        )
    if not user_repr:
        cls.__repr__ = lambda self: f"{type(self).__name__}.{self.name}"  # type: ignore[assignment]


def _own_annotations(cls: type) -> dict[str, Any]:
    if sys.version_info >= (3, 14):  # pragma: no cover
        return dict(getattr(cls, "__annotations__", {}) or {})
    return dict(cls.__dict__.get("__annotations__", {}))


def _is_class_var(annotation: Any) -> bool:
    if annotation is ClassVar or typing.get_origin(annotation) is ClassVar:
        return True
    return isinstance(annotation, str) and annotation.replace(" ", "").startswith(
        ("ClassVar", "typing.ClassVar")
    )


def _reject_value_field(cls: type, base: str) -> None:
    if "value" in cls.__dict__ or "value" in _own_annotations(cls):
        raise TypeError(f"{base} reserves `value` as its canonical index alias")


def _collect_declarations(
    cls: type, payload: type | None
) -> tuple[list[str], dict[str, _EnumEntry]]:
    """The class body's entries, taken out of it: binders (``x: ClassVar[E]``) and declarations.

    A declaration is an ``entry(...)`` / ``auto()``, or for payload enums any
    plain value (``LOW = 1``): its ``value``.
    """
    annotations = _own_annotations(cls)
    binders = [
        n
        for n, a in annotations.items()
        if not n.startswith("_") and _is_class_var(a) and n not in cls.__dict__
    ]
    fields = {n for n, a in annotations.items() if not _is_class_var(a)}
    declarations: dict[str, _EnumEntry] = {}
    for name, value in list(cls.__dict__.items()):
        if name.startswith("_") or name in fields:
            continue
        if isinstance(value, _EnumEntry):
            declarations[name] = value
        elif payload is not None and not (
            isinstance(value, (staticmethod, classmethod, property)) or callable(value)
        ):
            declarations[name] = _EnumEntry(value=value)
        else:
            continue
        delattr(cls, name)
    # ClassVar-annotated entries (``relu: ClassVar[E] = entry(...)``) are not fields either.
    for name in list(annotations):
        if name in declarations and _is_class_var(annotations[name]):
            del cls.__annotations__[name]
    return binders, declarations


def _payload_of(
    cls: type, alias: str, declaration: _EnumEntry, payload: type
) -> tuple[Any, _EnumEntry]:
    """A payload declaration's value (checked) and its other field values."""
    kwargs = dict(declaration.kwargs)
    if "value" not in kwargs:
        raise TypeError(f"{cls.__name__}.{alias} requires a {payload.__name__} value")
    value = kwargs.pop("value")
    if type(value) is not payload:
        raise TypeError(
            f"{cls.__name__}.{alias} value must be {payload.__name__}, got {type(value).__name__}"
        )
    if payload is int:
        _normalize_index(value)
    return value, _EnumEntry(*declaration.args, **kwargs)


def _check_declarations(
    cls: type,
    binders: list[str],
    declarations: dict[str, _EnumEntry],
    type_key: str,
    cxx_backed: bool,
    payload: type | None,
) -> None:
    """Reject, at the class statement, what :func:`_make_entries` would."""
    for alias, declaration in declarations.items():
        if "_int_index" in declaration.kwargs or "_str_index" in declaration.kwargs:
            raise TypeError(f"{cls.__name__}.{alias}: enum indices are inferred")
        if payload is not None:
            _payload_of(cls, alias, declaration, payload)
    if not binders:
        return
    known: Any = None
    if cxx_backed:
        state = _registered_state(_r.type_key_to_index(type_key))
        known = () if state is None else state.indexes
    for alias in binders:
        if known is not None:
            if alias not in known:
                raise RuntimeError(f"{type_key!r} has no enum at string index {alias!r}")
        elif payload is int:
            raise TypeError(f"{cls.__name__}.{alias} requires an integer value")


def _indices(
    cls: type, alias: str, ordinal: int, declaration: _EnumEntry, payload: type | None
) -> tuple[int, str, _EnumEntry]:
    """An entry's integer and string index, and its other field values."""
    if payload is None:
        return ordinal, alias, declaration
    value, rest = _payload_of(cls, alias, declaration, payload)
    if payload is int:
        return value, alias, rest
    return ordinal, value, rest


def _create(
    cls: type, int_index: int, str_index: str, declaration: _EnumEntry, cxx_backed: bool
) -> Any:
    """A new entry of ``cls``."""
    try:
        if not cxx_backed:
            return cls(
                *declaration.args, _int_index=int_index, _str_index=str_index, **declaration.kwargs
            )
        if declaration.args:
            raise TypeError("C++-backed enum entries require keyword fields")
        info = cls.__tvm_ffi_type_info__  # type: ignore[attr-defined]
        new = _r.type_attr(info.type_index, "__ffi_new__")
        if new is not None:
            instance = new()
        elif info.creator is not None:
            instance = _core._create_object(info.creator)
        else:
            raise TypeError("enum type has no allocator")
        values = {"_int_index": int_index, "_str_index": str_index, **declaration.kwargs}
        for name, value in values.items():
            descriptor = getattr(cls, name, None)
            if descriptor is None or not hasattr(descriptor, "set"):
                raise TypeError(f"field {name!r} has no reflected setter")
            descriptor.set(instance, value)
        return instance
    except Exception as err:
        raise TypeError(f"{cls.__name__}.{str_index}: invalid enum entry: {err}") from None


def _make_entries(
    cls: type,
    binders: list[str],
    declarations: dict[str, _EnumEntry],
    type_key: str,
    cxx_backed: bool,
    payload: type | None,
) -> None:
    """Find or make the entries of a new enum class and set them as its attributes."""
    state = _state(cls, create=True)
    entries, indexes = state.entries, state.indexes

    def register(instance: Any) -> None:
        entries.append(instance)
        indexes[instance._int_index] = instance
        indexes[instance._str_index] = instance

    for alias in binders:
        instance = indexes.get(alias)
        if instance is None:
            if cxx_backed:
                raise RuntimeError(f"{type_key!r} has no enum at string index {alias!r}")
            instance = _create(cls, len(entries), alias, _EnumEntry(), cxx_backed)
            register(instance)
        setattr(cls, alias, instance)
    for alias, declaration in declarations.items():
        int_index, str_index, rest = _indices(cls, alias, len(entries), declaration, payload)
        instance = indexes.get(int_index if payload is int else str_index)
        if instance is None:
            if int_index in indexes or str_index in indexes:
                raise ValueError(f"duplicate enum index in {cls.__name__}.{alias}")
            instance = _create(cls, int_index, str_index, rest, cxx_backed)
            register(instance)
        setattr(cls, alias, instance)

"""Type records: what the runtime knows of each registered object type.

:func:`type_info` gives a :class:`TypeInfo` (upstream's ``tvm_ffi.core.TypeInfo``:
``fields`` of :class:`TypeField`, ``methods`` of :class:`TypeMethod`, the
parent); :func:`type_attr` reads per-type attributes (``__ffi_init__``, ...).
The runtime's records are read by the extension (``_core._type_info``, plain
tuples), fields are read and written through their own getter / setter by it
(``_core._field_get`` / ``_core._field_set``).
"""

from __future__ import annotations

import json
import threading
from typing import Any

from . import _core
from ._abi import (
    FLAG_COMPARE_OFF,
    FLAG_DEFAULT_FROM_FACTORY,
    FLAG_HAS_DEFAULT,
    FLAG_HASH_OFF,
    FLAG_INIT_OFF,
    FLAG_KW_ONLY,
    FLAG_REPR_OFF,
    FLAG_SEQ_HASH_DEF,
    FLAG_SEQ_HASH_DEF_NON_RECURSIVE,
    FLAG_SEQ_HASH_IGNORE,
    FLAG_STATIC_METHOD,
    FLAG_WRITABLE,
    K_ANY,
    K_STATIC_OBJECT_BEGIN,
    OBJECT_HEADER_SIZE,
)
from ._core import Object
from ._values import chandle_of, ffi_func, to_ffi_value

# -- type records ------------------------------------------------------------


def type_key_to_index(type_key: str) -> int | None:
    """The type index of ``type_key``; None when no such type is registered."""
    return _core._type_key_to_index(type_key)


def type_index_to_key(type_index: int) -> str:
    """The type key of a type index ("<unknown>" when there is none)."""
    key = _core._type_key_of(type_index)
    return "<unknown>" if key is None else key


_UNSET: Any = object()  # "argument not given" (MISSING itself may be a legal value)


def missing() -> Object:
    """The runtime's "missing" sentinel object (upstream's ``core.MISSING``)."""
    if not _MISSING:
        _MISSING.append(ffi_func("ffi.MapGetMissingObject")())
    return _MISSING[0]


_MISSING: list[Object] = []


class FFIProperty(property):
    """The property of a reflected field.

    A frozen field has no public setter (assignment raises AttributeError);
    :meth:`set` writes it anyway (for construction and translation code).
    """

    def __init__(
        self, fget: Any, fset: Any, frozen: bool, fdel: Any = None, doc: str | None = None
    ) -> None:
        super().__init__(fget, None if frozen else fset, fdel, doc)
        self._fset = fset

    def set(self, obj: Any, value: Any) -> None:
        """Write the field, frozen or not."""
        self._fset(obj, value)


class FieldGetter:
    """Reads a reflected field of an object (callable as ``getter(obj)``)."""

    def __init__(self, field: TypeField) -> None:
        self.field = field

    def __call__(self, obj: Any) -> Any:
        return self.field.get(obj)


class FieldSetter:
    """Writes a reflected field of an object (callable as ``setter(obj, value)``)."""

    def __init__(self, field: TypeField) -> None:
        self.field = field

    def __call__(self, obj: Any, value: Any) -> None:
        self.field.set(obj, value)


class TypeField:
    """A reflected field (upstream's ``tvm_ffi.core.TypeField``).

    ``name``, ``doc``, ``size``, ``alignment``, ``offset``,
    ``field_static_type_index``, ``frozen``, ``metadata`` (a dict: its
    ``type_schema``, ...), ``getter`` / ``setter`` (callables on an object),
    ``ty`` (the :class:`TypeSchema`, or None), and the dataclass traits
    ``c_init``, ``c_kw_only``, ``c_has_default``, ``c_default``,
    ``c_default_factory``, ``c_repr``, ``c_compare``, ``c_hash``,
    ``c_structural_eq``; ``dataclass_field`` is the Python ``Field`` of a
    ``@c_class`` / ``@py_class``.
    """

    def __init__(
        self,
        name: str,
        doc: str | None = None,
        size: int = 0,
        alignment: int = 0,
        offset: int = 0,
        field_static_type_index: int = K_ANY,
        frozen: bool = False,
        metadata: dict[str, Any] | None = None,
        getter: Any = None,
        setter: Any = None,
        ty: Any = None,
        c_init: bool = True,
        c_kw_only: bool = False,
        c_has_default: bool = False,
        c_default: Any = _UNSET,
        c_default_factory: Any = _UNSET,
        c_repr: bool = True,
        c_compare: bool = True,
        c_hash: bool = True,
        c_structural_eq: str | None = None,
        dataclass_field: Any = None,
    ) -> None:
        self.name = name
        self.doc = doc
        self.size = size
        self.alignment = alignment
        self.offset = offset
        self.field_static_type_index = field_static_type_index
        self.frozen = frozen
        self.metadata = {} if metadata is None else metadata
        self.ty = ty
        self.c_init = c_init
        self.c_kw_only = c_kw_only
        self.c_has_default = c_has_default
        self.c_default = missing() if c_default is _UNSET else c_default
        self.c_default_factory = missing() if c_default_factory is _UNSET else c_default_factory
        self.c_repr = c_repr
        self.c_compare = c_compare
        self.c_hash = c_hash
        self.c_structural_eq = c_structural_eq
        self.dataclass_field = dataclass_field
        self.flags = 0
        self.type_info: TypeInfo | None = None
        self._getter_addr = 0
        self._setter_addr = 0
        self._owner_index = -1  # the record the field was read from: (type index, position)
        self._position = -1
        self._io: Any = None  # the Python-side reader / writer of a Python-defined type's field
        self.getter = getter if getter is not None else FieldGetter(self)
        self.setter = setter if setter is not None else FieldSetter(self)

    @classmethod
    def _from_record(cls, rec: tuple[Any, ...], owner: TypeInfo, position: int) -> TypeField:
        """The field of one ``_core._type_info`` field tuple (position ``position`` in ``owner``)."""
        name, doc, raw, flags, size, alignment, offset, getter, setter, static_index = rec
        metadata: dict[str, Any] = {}
        if raw:
            try:
                metadata = json.loads(raw)
            except ValueError:
                metadata = {}
        ty = None
        schema = metadata.get("type_schema") if isinstance(metadata, dict) else None
        if schema is not None:
            try:
                from ._type_schema import TypeSchema

                ty = TypeSchema._from_maybe_json(schema)
            except Exception:
                ty = None
        default: Any = _UNSET
        factory: Any = _UNSET
        if flags & FLAG_HAS_DEFAULT:
            value = _core._field_default(owner.type_index, position)
            if flags & FLAG_DEFAULT_FROM_FACTORY:
                factory = value
            else:
                default = value
        if flags & FLAG_SEQ_HASH_IGNORE:
            structural = "ignore"
        elif flags & FLAG_SEQ_HASH_DEF:
            structural = "def-pattern"  # upstream 0.1.15's names
        elif flags & FLAG_SEQ_HASH_DEF_NON_RECURSIVE:
            structural = "def-simple"
        else:
            structural = None
        f = cls(
            name=name,
            doc=doc or None,
            size=size,
            alignment=alignment,
            offset=offset,
            field_static_type_index=static_index,
            frozen=not flags & FLAG_WRITABLE,
            metadata=metadata,
            ty=ty,
            c_init=not flags & FLAG_INIT_OFF,
            c_kw_only=bool(flags & FLAG_KW_ONLY),
            c_has_default=bool(flags & FLAG_HAS_DEFAULT),
            c_default=default,
            c_default_factory=factory,
            c_repr=not flags & FLAG_REPR_OFF,
            c_compare=not flags & FLAG_COMPARE_OFF,
            c_hash=not flags & FLAG_HASH_OFF,
            c_structural_eq=structural,
        )
        f.flags = flags
        f.type_info = owner
        f._getter_addr = getter
        f._setter_addr = setter
        f._owner_index = owner.type_index
        f._position = position
        return f

    # The old names, kept for the package's own callers.
    @property
    def static_type_index(self) -> int:
        """The static type index of the field's declared type (``field_static_type_index``)."""
        return self.field_static_type_index

    writable = property(
        lambda self: bool(self.flags & FLAG_WRITABLE),
        doc="Whether the field has a setter (it is not read-only).",
    )
    has_default = property(
        lambda self: bool(self.flags & FLAG_HAS_DEFAULT),
        doc="Whether the field has a default value or factory.",
    )
    kw_only = property(
        lambda self: bool(self.flags & FLAG_KW_ONLY),
        doc="Whether the constructor takes the field by keyword only.",
    )
    init = property(
        lambda self: not self.flags & FLAG_INIT_OFF,
        doc="Whether the constructor takes the field at all.",
    )

    def _checked_handle(self, obj: Any) -> int:
        """``obj``'s handle, if it is an object of the field's type (or a subtype).

        A property called unbound, or an object bound to another type's handle,
        would otherwise be read at this field's offset: TypeError instead.
        """
        handle = chandle_of(obj)
        owner = self.type_info
        if handle and owner is not None:
            info = type_info(obj.type_index)
            if info is None or not info.is_subtype_of(owner):
                raise TypeError(
                    f"field `{self.name}` of {owner.type_key} cannot be read or "
                    f"written on an object of type "
                    f"{info.type_key if info is not None else obj.type_index}"
                )
        return handle

    def get(self, obj: Any) -> Any:
        """The field's value in ``obj``."""
        return self.get_at(self._checked_handle(obj))

    def get_at(self, handle: int) -> Any:
        """The field's value in the object at ``handle`` (no type check; ValueError on NULL)."""
        if not handle:
            raise ValueError(f"cannot read field `{self.name}` of a null object")
        if self._io is not None:
            return self._io.read(handle + self.offset)
        if not self._getter_addr:
            raise AttributeError(f"field `{self.name}` has no getter")
        return _core._field_get(self._getter_addr, handle, self.offset)

    def set(self, obj: Any, value: Any) -> None:
        """Write ``value`` into the field of ``obj`` (converted and checked by the setter)."""
        self.set_at(self._checked_handle(obj), value)

    def set_at(self, handle: int, value: Any) -> None:
        """Write ``value`` into the field of the object at ``handle`` (no type check)."""
        if not handle:
            raise ValueError(f"cannot write field `{self.name}` of a null object")
        if self._io is not None:
            self._io.write(handle + self.offset, value)
            return
        if not self._setter_addr:
            raise AttributeError(f"field `{self.name}` is read-only")
        _core._field_set(self._setter_addr, self.flags, handle, self.offset, to_ffi_value(value))

    def set_default(self, handle: int) -> None:
        """Write the field's default (or its factory's value) into the object at ``handle``."""
        if not self.flags & FLAG_HAS_DEFAULT or self._position < 0:
            raise TypeError(f"field `{self.name}` has no default")
        if not handle:
            raise ValueError(f"cannot write field `{self.name}` of a null object")
        if self.flags & FLAG_DEFAULT_FROM_FACTORY:
            factory = _core._field_default(self._owner_index, self._position)
            self.set_at(handle, factory())
            return
        if not self._setter_addr:
            raise AttributeError(f"field `{self.name}` is read-only")
        _core._field_set_default(self._owner_index, self._position, handle)

    def _is_payload_enum_field(self) -> bool:
        ty = self.ty
        if ty is None or ty.origin_type_index < K_STATIC_OBJECT_BEGIN:
            return False
        cls = TYPE_INDEX_TO_CLS.get(ty.origin_type_index)
        if cls is None:
            return False
        # Asked on every write: the answer is kept for the class now registered
        # for the field's type (an enum class may be bound after this field's).
        known = getattr(self, "_payload_enum_of", None)
        if known is not None and known[0] is cls:
            return known[1]
        result = any(
            getattr(b, "__module__", None)
            in ("tvm_ffi.dataclasses.enum", "tvmffi.dataclasses.enum")
            and b.__name__ in ("IntEnum", "StrEnum")
            for b in cls.__mro__
        )
        self._payload_enum_of = (cls, result)
        return result

    def normalize_value(self, value: Any) -> Any:
        """An IntEnum / StrEnum field's payload (``1``, ``"+"``) as its entry; others as they are."""
        if not self._is_payload_enum_field():
            return value
        from ._type_schema import _to_py_class_value

        return _to_py_class_value(self.ty.convert(value))

    def as_property(self, cls: type) -> FFIProperty:
        """The :class:`FFIProperty` of this field on ``cls``."""
        field = self
        name = self.name

        def fget(obj: Any) -> Any:
            return field.get(obj)

        def fset(obj: Any, value: Any) -> None:
            # IntEnum / StrEnum fields take payloads (``obj.priority = 20``).
            field.set(obj, field.normalize_value(value))

        for fn in (fget, fset):
            fn.__name__ = name
            fn.__module__ = cls.__module__
            fn.__qualname__ = f"{cls.__qualname__}.{name}"
            fn.__doc__ = self.doc
        prop = FFIProperty(fget, fset, self.frozen, doc=self.doc)
        prop.__doc__ = self.doc  # (a property subclass would show its class docstring)
        return prop

    def __repr__(self) -> str:
        owner = self.type_info.type_key if self.type_info is not None else "?"
        return f"TypeField({owner}.{self.name})"


class TypeMethod:
    """A reflected method (upstream's ``tvm_ffi.core.TypeMethod``)."""

    def __init__(
        self,
        name: str,
        doc: str | None = None,
        func: Any = None,
        metadata: dict[str, Any] | None = None,
        is_static: bool = False,
    ) -> None:
        self.name = name
        self.doc = doc
        self._func = func
        self.metadata = {} if metadata is None else metadata
        self.is_static = is_static
        self.flags = FLAG_STATIC_METHOD if is_static else 0
        self.type_info: TypeInfo | None = None
        self._record: tuple[int, int] | None = None  # (type index, position) in the runtime

    @classmethod
    def _from_record(cls, rec: tuple[Any, ...], owner: TypeInfo, position: int) -> TypeMethod:
        """The method of one ``_core._type_info`` method tuple (position ``position`` in ``owner``)."""
        name, doc, raw, flags = rec
        try:
            metadata = json.loads(raw) if raw else {}
        except ValueError:
            metadata = {}
        m = cls(
            name=name,
            doc=doc or None,
            metadata=metadata,
            is_static=bool(flags & FLAG_STATIC_METHOD),
        )
        m.flags = flags
        m.type_info = owner
        m._record = (owner.type_index, position)
        return m

    @property
    def func(self) -> Any:
        """The method as a callable ffi Function (converted on first use)."""
        if self._func is None and self._record is not None:
            self._func = _core._type_method(*self._record)
        return self._func

    @func.setter
    def func(self, value: Any) -> None:
        self._func = value

    def as_callable(self, cls: type) -> Any:
        """The Python method (or staticmethod) of this method on ``cls``."""
        m = self

        if self.is_static:

            def static(*args: Any) -> Any:
                return m.func(*args)

            fn = static
        else:

            def method(self: Any, *args: Any) -> Any:
                return m.func(self, *args)

            fn = method
        fn.__name__ = self.name
        fn.__module__ = cls.__module__
        fn.__qualname__ = f"{cls.__qualname__}.{self.name}"
        fn.__doc__ = self.doc
        return staticmethod(fn) if self.is_static else fn

    def __repr__(self) -> str:
        owner = self.type_info.type_key if self.type_info is not None else "?"
        return f"TypeMethod({owner}.{self.name})"


# The old names.
FieldInfo = TypeField
MethodInfo = TypeMethod


class TypeInfo:
    """What the runtime records about a registered object type (upstream's ``core.TypeInfo``)."""

    def __init__(
        self,
        type_cls: type | None,
        type_index: int,
        type_key: str,
        type_ancestors: list[int],
        fields: list[TypeField] | None,
        methods: list[TypeMethod],
        parent_type_info: TypeInfo | None,
    ) -> None:
        self.type_cls = type_cls
        self.type_index = type_index
        self.type_key = type_key
        self.type_ancestors = list(type_ancestors)
        self.fields = fields
        self.methods = methods
        self.parent_type_info = parent_type_info
        self._decorator_args: dict[str, Any] = {}
        self.type_depth = len(self.type_ancestors)
        self.doc: str | None = None
        for f in fields or ():
            f.type_info = self
        for m in methods:
            m.type_info = self

    @classmethod
    def _from_record(cls, rec: tuple[Any, ...], type_cls: type | None = None) -> TypeInfo:
        """The TypeInfo of a ``_core._type_info`` record."""
        index, key, ancestors, fields, methods, meta = rec
        info = cls(type_cls, index, key, list(ancestors), [], [], None)
        info.fields = [TypeField._from_record(f, info, i) for i, f in enumerate(fields)]
        info.methods = [TypeMethod._from_record(m, info, i) for i, m in enumerate(methods)]
        info.doc = (meta[0] or None) if meta is not None else None
        if ancestors:
            info.parent_type_info = type_info(ancestors[-1])
        return info

    def _metadata(self) -> tuple[str, int, int, int] | None:
        """(doc, creator, total_size, structural_eq_hash_kind) as registered now, or None."""
        return _core._type_metadata(self.type_index)

    def all_fields(self) -> list[TypeField]:
        """The fields of the type's ancestors first, then its own."""
        out = self.parent_type_info.all_fields() if self.parent_type_info is not None else []
        return out + list(self.fields or ())

    def find_field(self, name: str) -> TypeField | None:
        """The field ``name`` of this type or its ancestors (the most derived wins), or None."""
        for f in reversed(self.all_fields()):
            if f.name == name:
                return f
        return None

    def find_method(self, name: str) -> TypeMethod | None:
        """The method ``name`` of this type, else of the nearest ancestor that has it, or None."""
        info: TypeInfo | None = self
        while info is not None:
            for m in info.methods:
                if m.name == name:
                    return m
            info = info.parent_type_info
        return None

    def is_subtype_of(self, other: TypeInfo) -> bool:
        """Whether this type is ``other`` or derives from it."""
        return other.type_index == self.type_index or other.type_index in self.type_ancestors

    @property
    def creator(self) -> int | None:
        """The address of the type's C creator function (from its metadata), or None."""
        meta = self._metadata()
        return meta[1] if meta is not None and meta[1] else None

    @property
    def structural_eq_hash_kind(self) -> int:
        """How structural equality and hashing treat the type (the runtime enumerator; 0: unset)."""
        meta = self._metadata()
        return meta[3] if meta is not None else 0

    @property
    def _has_type_metadata(self) -> bool:
        return self._metadata() is not None

    @property
    def total_size(self) -> int:
        """The object's size in bytes (header and fields)."""
        meta = self._metadata()
        if meta is not None and meta[2]:
            return meta[2]
        if self.parent_type_info is None:
            return OBJECT_HEADER_SIZE
        end = self.parent_type_info.total_size
        for f in self.fields or ():
            end = max(end, f.offset + f.size)
        return (end + 7) & ~7

    def _register_fields(self, fields: list[Any], structure_kind: int | None = None) -> None:
        """Register the fields of a Python-defined type (see :mod:`tvmffi._pyclass`)."""
        assert self.fields is None, f"_register_fields already called for {self.type_key!r}"
        from . import _pyclass

        self.fields = _pyclass.register_fields(self, fields, structure_kind)
        self._read_back_methods()

    def _register_py_methods(
        self,
        py_methods: list[tuple[Any, ...]] | None = None,
        type_attr_names: frozenset[str] = frozenset(),
    ) -> None:
        """Register methods (or type attributes) defined in Python, then re-read the methods."""
        if py_methods:
            from . import _pyclass

            _pyclass.register_py_methods(self.type_index, py_methods, type_attr_names)
        self._read_back_methods()

    def _read_back_methods(self) -> None:
        rec = _core._type_info(self.type_index)
        if rec is None:
            self.methods = []
            return
        self.methods = [TypeMethod._from_record(m, self, i) for i, m in enumerate(rec[4])]

    def prototype_py(self) -> str:
        """A Python class outline of the type (its fields and methods)."""
        lines = [f"class {self.type_key.split('.')[-1]}:  # {self.type_key}"]
        for f in self.fields or ():
            ty = f.ty.repr() if f.ty is not None else "Any"
            lines.append(f"    {f.name}: {ty}")
        for m in self.methods:
            lines.append(f"    def {m.name}(...): ...")
        if len(lines) == 1:
            lines.append("    ...")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"TypeInfo({self.type_key!r}, index={self.type_index})"


# -- the registry of type records and classes -------------------------------

TYPE_INDEX_TO_INFO: dict[int, TypeInfo] = {}
TYPE_INDEX_TO_CLS: dict[int, type] = {}
TYPE_KEY_TO_INFO: dict[str, TypeInfo] = {}
TYPE_CLS_TO_INFO: dict[type, TypeInfo] = {}
_lock = threading.RLock()


def type_info(key: str | int) -> TypeInfo | None:
    """The :class:`TypeInfo` of a type key or type index; None when there is no such type."""
    if isinstance(key, str):
        info = TYPE_KEY_TO_INFO.get(key)
        if info is not None:
            return info
        index = type_key_to_index(key)
    else:
        index = int(key)
    if index is None or index < 0:
        return None
    info = TYPE_INDEX_TO_INFO.get(index)
    if info is None:
        with _lock:
            info = TYPE_INDEX_TO_INFO.get(index)
            if info is None:
                rec = _core._type_info(index)
                if rec is None:
                    return None
                info = TypeInfo._from_record(rec)
                _update_registry(info, None)
    return info


def _update_registry(info: TypeInfo, cls: type | None) -> None:
    TYPE_INDEX_TO_INFO[info.type_index] = info
    TYPE_KEY_TO_INFO[info.type_key] = info
    if cls is not None:
        TYPE_INDEX_TO_CLS[info.type_index] = cls
        TYPE_CLS_TO_INFO[cls] = info
        info.type_cls = cls


_FALLBACK: set[type] = set()


def _drop_fallbacks_below(type_index: int) -> None:
    """Forget the generated classes derived from the generated class of ``type_index``.

    A real class is about to replace it: the next :func:`sync_type_table`
    generates those again, on top of the real class.
    """
    old = TYPE_INDEX_TO_CLS.get(type_index)
    if old is None or old not in _FALLBACK:
        return
    for index, cls in list(TYPE_INDEX_TO_CLS.items()):
        if cls in _FALLBACK and issubclass(cls, old):
            del TYPE_INDEX_TO_CLS[index]
            TYPE_CLS_TO_INFO.pop(cls, None)
            _FALLBACK.discard(cls)
            info = TYPE_INDEX_TO_INFO.get(index)
            if info is not None and info.type_cls is cls:
                info.type_cls = None


def set_type_cls(info: TypeInfo, cls: type) -> None:
    """Make ``cls`` the class of ``info``'s type (for its objects too)."""
    _update_registry(info, cls)
    _core._register_object_class(info.type_key, cls)


def register_by_index(type_index: int, cls: type) -> TypeInfo:
    """A fresh :class:`TypeInfo` of the type, with ``cls`` as its class."""
    rec = _core._type_info(type_index)
    if rec is None:
        raise ValueError(f"Cannot find type index {type_index}")
    with _lock:
        _drop_fallbacks_below(type_index)
        info = TypeInfo._from_record(rec, cls)
        old = TYPE_INDEX_TO_INFO.get(type_index)
        if old is not None and old.type_cls is not None and old.type_cls is not cls:
            TYPE_CLS_TO_INFO.pop(old.type_cls, None)
        set_type_cls(info, cls)
    return info


def registered_type_keys() -> list[str]:
    """The keys of all registered types (a scan of the type table)."""
    # Indices have gaps (child slots reserved for subclasses): scan to the
    # runtime's end of the table, or, on a runtime without ffi._TypeIndexEnd,
    # until 512 free indices in a row.
    end_fn = _core.get_global_func("ffi._TypeIndexEnd", True)
    end = int(end_fn()) if end_fn is not None else None
    keys = []
    misses = 0
    index = 0
    while (index < end) if end is not None else (misses < 512):
        key = _core._type_key_of(index)
        if key is not None:
            keys.append(key)
            misses = 0
        else:
            misses += 1
        index += 1
    return keys


def type_attr(type_index: int, name: str, ancestor: bool = False) -> Any:
    """The type attribute ``name`` of a type (e.g. ``__ffi_init__``); None when unset.

    ``ancestor``: when the type has none, the nearest ancestor's.
    """
    return _core._type_attr(type_index, name, ancestor)


def register_type_attr(type_index: int, name: str, value: Any) -> None:
    """Set the type attribute ``name`` of a type (TVMFFITypeRegisterAttr)."""
    _core._type_register_attr(type_index, name, to_ffi_value(value))

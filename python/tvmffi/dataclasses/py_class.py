"""``@py_class``: a class defined in Python that is an FFI object type (C++ sees it too)."""

from __future__ import annotations

import copy
import inspect
import json
import sys
import typing
from typing import Any, Callable, ClassVar, TypeVar

from .. import _reflection as _r
from .._dunder import _install_dataclass_dunders
from .._registry_ext import _add_class_attrs
from .._type_schema import TypeSchema
from . import _resolve_fields
from .field import KW_ONLY, MISSING, Field, _field_converter, field
from .field import init_property as _InitProperty

try:
    from typing_extensions import dataclass_transform
except ImportError:  # pragma: no cover

    def dataclass_transform(**kwargs: Any) -> Callable[[Any], Any]:  # type: ignore[misc]
        return lambda f: f


_T = TypeVar("_T", bound=type)

#: ``structural_eq`` of the decorator -> TVMFFISEqHashKind.
_STRUCTURE_KIND_MAP: dict[str | None, int] = {
    None: 0,
    "tree": 1,
    "var": 2,
    "dag": 3,
    "const-tree": 4,
    "singleton": 5,
}

#: Names a class body may define that are registered as type attributes (the
#: runtime's hooks), not as methods.
_FFI_TYPE_ATTR_NAMES: frozenset[str] = frozenset(
    {
        "__ffi_repr__",
        "__ffi_hash__",
        "__ffi_eq__",
        "__ffi_compare__",
        "__ffi_convert__",
        "__ffi_convert_type_schema__",
        "__any_hash__",
        "__any_equal__",
        "__s_equal__",
        "__s_hash__",
        "__s_visit__",
        "__s_mutate__",
        "__s_maybe_inplace_mutate__",
        "__data_to_json__",
        "__data_from_json__",
    }
)
_FFI_RECOGNIZED_METHODS: frozenset[str] = _FFI_TYPE_ATTR_NAMES

#: The parent's type attributes a ``@py_class`` copies when its body does not say
#: (``__ffi_inherit_type_attrs__`` replaces the list): the runtime's table is flat,
#: a subtype sees no entry of its parent by itself.
_DEFAULT_INHERIT_TYPE_ATTRS = (
    "__s_equal__",
    "__s_hash__",
    "__s_visit__",
    "__data_to_json__",
    "__data_from_json__",
)


def _type_attr_options(cls: type) -> tuple[frozenset[str], tuple[str, ...]]:
    """The names registered as type attributes for ``cls`` and those copied from its parent.

    ``__ffi_type_attr_names__`` (read through the MRO, so an extension's base class
    may declare it) adds names of the class's own; ``__ffi_inherit_type_attrs__``
    replaces :data:`_DEFAULT_INHERIT_TYPE_ATTRS` (``()``: copy none). A value in the
    class body, None included, always wins over the parent's.
    """
    extra = getattr(cls, "__ffi_type_attr_names__", ())
    inherited = getattr(cls, "__ffi_inherit_type_attrs__", _DEFAULT_INHERIT_TYPE_ATTRS)
    for what, names in (
        ("__ffi_type_attr_names__", extra),
        ("__ffi_inherit_type_attrs__", inherited),
    ):
        if not isinstance(names, (tuple, list)) or not all(isinstance(n, str) for n in names):
            raise TypeError(f"{cls.__name__}.{what} must be a tuple or list of names (str)")
    return _FFI_TYPE_ATTR_NAMES | frozenset(extra) | frozenset(inherited), tuple(inherited)


def _inherited_type_attrs(type_info: Any, names: tuple[str, ...]) -> list[tuple[Any, ...]]:
    """``(name, value, is_static, None)`` for each of ``names`` the nearest ancestor registered
    and the class body does not define (an ancestor's body None stops the search)."""
    cls = type_info.type_cls
    out: list[tuple[Any, ...]] = []
    for name in names:
        if name in cls.__dict__:
            continue
        parent = type_info.parent_type_info
        while parent is not None:
            value = _r.type_attr(parent.type_index, name)
            if value is not None:
                out.append((name, value, True, None))
                break
            if parent.type_cls is not None and name in parent.type_cls.__dict__:
                break  # the ancestor set it to None: no hook for its subtypes either
            parent = parent.parent_type_info
    return out


def method(fn: Any) -> Any:
    """Mark a method of a ``@py_class`` body for registration as an FFI method.

    The type's method table then has it (``TypeInfo.methods``; callable by
    name from C++ and other languages). Names of the runtime's hooks
    (``__ffi_repr__``, ...) become type attributes instead. Plain functions
    and ``staticmethod`` are accepted; ``classmethod`` is a TypeError.
    """
    if isinstance(fn, staticmethod):
        fn.__func__.__ffi_method__ = True  # type: ignore[attr-defined]
        return fn
    if isinstance(fn, classmethod):
        raise TypeError(
            "@tvm_ffi.method: @classmethod is not supported for FFI TypeMethod "
            "registration — the classmethod's ``cls`` first arg does not match the "
            "packed-call convention. Use @staticmethod or a plain instance method "
            "instead."
        )
    if not callable(fn):
        raise TypeError(f"@tvm_ffi.method: expected a callable, got {type(fn).__name__}.")
    fn.__ffi_method__ = True
    return fn


def _is_method_marked(value: Any) -> bool:
    if isinstance(value, (staticmethod, classmethod)):
        return getattr(value.__func__, "__ffi_method__", False) is True
    return callable(value) and getattr(value, "__ffi_method__", False) is True


def _callable_type_schema_json() -> str:
    return json.dumps({"type_schema": TypeSchema("Callable").to_json()})


def _method_type_schema_json(
    cls: type, func: Any, is_static: bool, globalns: dict[str, Any]
) -> str:
    """The metadata (a ``Callable`` type schema) of a method defined in Python."""
    kwargs: dict[str, Any] = {"globalns": globalns, "localns": _resolve_fields._build_localns(cls)}
    if sys.version_info >= (3, 11):
        kwargs["include_extras"] = True
    try:
        hints = typing.get_type_hints(func, **kwargs)
    except (NameError, AttributeError):
        kwargs["localns"] = _resolve_fields._build_localns(cls, cross_module=True)
        try:
            hints = typing.get_type_hints(func, **kwargs)
        except (NameError, AttributeError):
            return _callable_type_schema_json()
    params = list(inspect.signature(func).parameters.values())
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return _callable_type_schema_json()
    schemas: list[TypeSchema] = []
    if not is_static:
        schemas.append(TypeSchema.from_annotation(cls))
        params = params[1:]
    for p in params:
        if p.kind is p.KEYWORD_ONLY:
            return _callable_type_schema_json()
        schemas.append(TypeSchema.from_annotation(hints.get(p.name, Any)))
    ret = TypeSchema.from_annotation(hints.get("return", Any))
    return json.dumps({"type_schema": TypeSchema("Callable", (ret, *schemas)).to_json()})


def _collect_py_methods(
    cls: type, globalns: dict[str, Any] | None = None
) -> list[tuple[Any, ...]] | None:
    """The hooks (type-attribute names) and ``@method``-marked functions of a class body:
    ``(name, value, is_static)``, or with ``globalns`` ``(name, value, is_static, metadata)``."""
    legacy = globalns is None
    if globalns is None:
        globalns = vars(sys.modules[cls.__module__])
    attr_names, _ = _type_attr_options(cls)
    out: list[tuple[Any, ...]] = []
    for name, value in cls.__dict__.items():
        marked = _is_method_marked(value)
        if name not in attr_names and not marked:
            continue
        if isinstance(value, classmethod):
            raise TypeError(
                f"@py_class({cls.__name__!r}): {name!r} is wrapped by @classmethod, which is "
                "incompatible with FFI registration — the cls-first arg breaks the packed-call "
                "convention. Use @staticmethod or a plain instance method. If you wrote "
                "``@classmethod @method``, swap to ``@staticmethod @method`` (or drop "
                "@classmethod)."
            )
        is_static = isinstance(value, staticmethod)
        func = value.__func__ if is_static else value
        metadata = None
        if marked and name not in attr_names:
            metadata = _method_type_schema_json(cls, func, is_static, globalns)
        out.append((name, func, is_static) if legacy else (name, func, is_static, metadata))
    return out or None


def on_fields_resolved(type_info: Any, resolved: _resolve_fields.ResolvedFields) -> None:
    """Finish a ``@py_class`` once its annotations resolve: make the Fields, register them
    (and the hooks and methods), and install the dataclass methods."""
    cls = type_info.type_cls
    params = type_info._decorator_args
    owners, hints_by_owner = resolved
    fields_map: dict[str, Field] = {}
    init_props: dict[str, Any] = {}
    kw_only_active = params["kw_only"]
    # Extensions: functions of the class bodies (through the MRO) marked
    # ``__ffi_on_fields_resolved__`` run over the class's own Fields before they
    # are registered; annotations whose type is one of ``__ffi_field_markers__``
    # make no field but are recorded, with the field position they stand at.
    hooks = [
        hook
        for base in reversed(cls.__mro__)
        for hook in base.__dict__.values()
        if callable(hook) and getattr(hook, "__ffi_on_fields_resolved__", False) is True
    ]
    marker_types = getattr(cls, "__ffi_field_markers__", ())
    if not isinstance(marker_types, (tuple, list)) or not all(
        isinstance(m, type) for m in marker_types
    ):
        raise TypeError(f"{cls.__name__}.__ffi_field_markers__ must be a tuple or list of types")
    parent = type_info.parent_type_info
    markers = list(getattr(parent, "_decorator_args", {}).get("field_markers", ()))
    inherited_count = 0
    while parent is not None:
        inherited_count += len(parent.fields or ())
        parent = parent.parent_type_info
    for owner in owners:
        for name in _resolve_fields.own_annotations(owner):
            hint = hints_by_owner[owner].get(name)
            if hint is None or hint is ClassVar or typing.get_origin(hint) is ClassVar:
                continue
            if any(hint is m for m in marker_types):
                markers.append((hint, owner, name, inherited_count + len(fields_map)))
                continue
            if hint is KW_ONLY:
                kw_only_active = True
                if owner is cls and name in cls.__dict__:
                    try:
                        delattr(cls, name)
                    except AttributeError:
                        pass
                continue
            value = owner.__dict__.get(name, MISSING)
            if isinstance(value, Field):
                f = value if owner is cls else copy.copy(value)
            elif isinstance(value, _InitProperty):
                f = field(init=False, structural_eq="ignore", repr=False, hash=False, compare=False)
                init_props[name] = value.func
            elif value is not MISSING:
                f = field(default=value)
            else:
                f = field()
            if owner is cls and value is not MISSING:
                try:
                    delattr(cls, name)
                except AttributeError:
                    pass
            f.name = name
            f._ty_schema = TypeSchema.from_annotation(hint)
            f.type = hint
            if f.kw_only is None:
                f.kw_only = kw_only_active
            if params["frozen"] and not f.frozen:
                f.frozen = True
            if f.hash is None:
                f.hash = f.compare
            fields_map[name] = f
    own_fields = list(fields_map.values())
    globalns = getattr(sys.modules.get(cls.__module__), "__dict__", {})
    if init_props:
        cls.__ffi_init_property_funcs__ = init_props
    params["field_markers"] = tuple(markers)
    for hook in hooks:
        hook(type_info, own_fields)
    for f in own_fields:
        if f.extra_kwargs:
            raise TypeError(
                f"{cls.__name__}.{f.name}: unrecognized field options: "
                + ", ".join(sorted(f.extra_kwargs))
            )
    attr_names, inherit = _type_attr_options(cls)
    py_methods = (_collect_py_methods(cls, globalns) or []) + _inherited_type_attrs(
        type_info, inherit
    )
    type_info._register_fields(own_fields, _STRUCTURE_KIND_MAP.get(params.get("structural_eq")))
    for py_field, type_field in zip(own_fields, type_info.fields):
        type_field.dataclass_field = py_field
    type_info._register_py_methods(py_methods or None, type_attr_names=attr_names)
    _add_class_attrs(cls, type_info, type_attr_names=attr_names)
    if "__ffi_py_class_is_deferred_init__" in cls.__dict__:
        if "__init__" in cls.__dict__:
            delattr(cls, "__init__")
        try:
            delattr(cls, "__ffi_py_class_is_deferred_init__")
        except AttributeError:
            pass
        user_init = cls.__dict__.get("_py_class_user_init")
        if user_init is not None:
            cls.__init__ = user_init
            delattr(cls, "_py_class_user_init")
    _install_dataclass_dunders(
        cls,
        init=params["init"],
        repr=params["repr"],
        eq=params["eq"],
        order=params["order"],
        unsafe_hash=params["unsafe_hash"],
        match_args=params["match_args"],
        py_class_mode=True,
    )


@dataclass_transform(
    eq_default=False,
    order_default=False,
    field_specifiers=(Field, field),
    converter=_field_converter,
)
def py_class(
    cls_or_type_key: type | str | None = None,
    /,
    *,
    type_key: str | None = None,
    frozen: bool = False,
    init: bool = True,
    repr: bool = True,
    eq: bool = False,
    order: bool = False,
    unsafe_hash: bool = False,
    match_args: bool = True,
    kw_only: bool = False,
    structural_eq: str | None = "tree",
    slots: bool = True,
) -> Any:
    """Define an FFI object type in Python, with dataclass semantics.

    ``@py_class``, ``@py_class("my.Point")``, ``@py_class(eq=True)``: the
    annotated attributes of the class body are the fields (``field(...)``
    customizes one; ``_: KW_ONLY`` makes the following keyword-only). The
    type key defaults to ``{module}.{qualname}``. ``frozen``: fields are
    read-only after ``__init__``; ``init`` / ``repr`` / ``eq`` / ``order`` /
    ``unsafe_hash`` / ``match_args``: which dataclass methods are generated
    (``eq`` and ``unsafe_hash`` use the runtime's recursive comparison and
    hashing; without them ``==`` and ``hash`` are by identity);
    ``structural_eq``: how ``structural_equal`` / ``structural_hash`` treat the
    type (None, ``"tree"``, ``"var"``, ``"dag"``, ``"const-tree"``,
    ``"singleton"``). ``slots`` is accepted for ``dataclass_transform``.
    """
    if order and not eq:
        raise ValueError("order=True requires eq=True")
    if structural_eq not in _STRUCTURE_KIND_MAP:
        kinds = sorted(k for k in _STRUCTURE_KIND_MAP if k is not None)
        raise ValueError(f"structural_eq must be one of {kinds} or None, got {structural_eq!r}")
    params = {
        "frozen": frozen,
        "init": init,
        "repr": repr,
        "eq": eq,
        "order": order,
        "unsafe_hash": unsafe_hash,
        "match_args": match_args,
        "kw_only": kw_only,
        "structural_eq": structural_eq,
    }
    key_holder = [type_key]

    def decorator(cls: _T) -> _T:
        globalns = getattr(sys.modules.get(cls.__module__), "__dict__", {})
        info = _resolve_fields.register_type_without_fields(cls, key_holder[0])
        info._decorator_args = dict(params)  # per class: it also records field_markers
        try:
            resolved = _resolve_fields.resolve_type_hints_by_owner(cls, globalns)
            if resolved is not None:
                on_fields_resolved(info, resolved)
                _resolve_fields.flush_pending()
            else:
                _resolve_fields.defer_field_registration(cls, info, globalns)
        except Exception:
            _resolve_fields.rollback_registration(cls, info)
            raise
        cls.__ffi_is_dataclass__ = True  # type: ignore[attr-defined]
        return cls

    if cls_or_type_key is None:
        return decorator
    if isinstance(cls_or_type_key, str):
        key_holder[0] = cls_or_type_key
        return decorator
    if isinstance(cls_or_type_key, type):
        return decorator(cls_or_type_key)
    raise TypeError(f"py_class: expected str or type, got {type(cls_or_type_key)}")


_ = _r

__all__ = ["method", "py_class"]

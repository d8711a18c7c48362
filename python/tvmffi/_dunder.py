"""The dataclass methods of ``@c_class`` and ``@py_class`` classes (upstream's ``tvm_ffi._dunder``).

``__init__`` goes through the type's ``__ffi_init__`` (positional fields,
then the kwargs marker and name, value pairs); ``__repr__`` is the runtime's
``ffi.ReprPrint``; ``__eq__`` / ``__lt__`` / ... / ``__hash__`` are the
runtime's recursive comparisons (``ffi.RecursiveEq``, ...); ``__copy__`` is
the type's ``__ffi_shallow_copy__``, ``__deepcopy__`` is ``ffi.DeepCopy``,
``__replace__`` copies and sets fields. A method the class body defines is
kept (for ``__eq__`` / ``__ne__`` and the ordering methods: the whole family).
"""

from __future__ import annotations

import copy as _copy
import functools
import inspect
from typing import Any, Callable

from . import _reflection as _r
from ._reflection import TypeInfo, object_repr


def _chain(type_info: TypeInfo) -> list[TypeInfo]:
    """The type and its ancestors, the root first."""
    out: list[TypeInfo] = []
    ti: TypeInfo | None = type_info
    while ti is not None:
        out.append(ti)
        ti = ti.parent_type_info
    return out[::-1]


def _all_fields(type_info: TypeInfo) -> list[Any]:
    return [f for ti in _chain(type_info) for f in (ti.fields or ())]


def _init_fields(type_info: TypeInfo) -> tuple[list[Any], dict[str, Any]]:
    """The positional ``__init__`` fields (required first) and the init fields by name."""
    fields = _all_fields(type_info)
    positional = [f for f in fields if f.c_init and not f.c_kw_only]
    ordered = [f for f in positional if not f.c_has_default] + [
        f for f in positional if f.c_has_default
    ]
    return ordered, {f.name: f for f in fields if f.c_init}


def _make_init_signature(type_info: TypeInfo) -> inspect.Signature:
    """The signature of the generated ``__init__`` (for introspection)."""
    missing = _r.missing()
    fields = _all_fields(type_info)
    pos = [f for f in fields if f.c_init and not f.c_kw_only]
    kw = [f for f in fields if f.c_init and f.c_kw_only]
    P = inspect.Parameter
    params = [P("self", P.POSITIONAL_OR_KEYWORD)]
    params += [P(f.name, P.POSITIONAL_OR_KEYWORD) for f in pos if not f.c_has_default]
    params += [P(f.name, P.POSITIONAL_OR_KEYWORD, default=missing) for f in pos if f.c_has_default]
    params += [P(f.name, P.KEYWORD_ONLY) for f in kw if not f.c_has_default]
    params += [P(f.name, P.KEYWORD_ONLY, default=missing) for f in kw if f.c_has_default]
    return inspect.Signature(params)


def _collect_init_property_funcs(type_cls: type) -> list[tuple[str, Callable[..., Any]]]:
    """``init_property`` functions of the class and its bases (bases first, overrides replace)."""
    funcs: dict[str, Callable[..., Any]] = {}
    for cls in reversed(type_cls.__mro__):
        funcs.update(cls.__dict__.get("__ffi_init_property_funcs__", {}))
    return list(funcs.items())


def _normalize(field: Any, value: Any) -> Any:
    normalize = getattr(field, "normalize_value", None)
    return value if normalize is None else normalize(value)


def _make_init(
    type_cls: type, type_info: TypeInfo, ffi_init: Any, py_class_mode: bool = False
) -> Callable[..., None]:
    """``__init__`` that constructs the object with ``ffi_init``.

    For a ``@py_class`` (``py_class_mode``) a second call (``super().__init__()``
    once the object exists) does nothing; for a ``@c_class`` calling it for a
    subclass of another type is a TypeError.
    """
    kwargs_marker = _r.kwargs_marker()
    missing = _r.missing()
    has_post_init = hasattr(type_cls, "__post_init__")
    positional, by_name = _init_fields(type_info)
    init_props = _collect_init_property_funcs(type_cls)
    type_name = type_cls.__name__

    def ffi_args(args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        out = list(args)
        for i in range(min(len(out), len(positional))):
            out[i] = _normalize(positional[i], out[i])
        if kwargs:
            out.append(kwargs_marker)
            for key, value in kwargs.items():
                if value is missing:
                    continue
                field = by_name.get(key)
                out.append(key)
                out.append(_normalize(field, value) if field is not None else value)
        return out

    def construct(self: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        _r.init_handle_by_constructor(self, ffi_init, *ffi_args(args, kwargs))
        if init_props:
            t = type(self)
            for name, func in init_props:
                getattr(t, name).set(self, func(self))
        if has_post_init:
            self.__post_init__()

    if py_class_mode:

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if _r.chandle_of(self) != 0:
                return
            construct(self, args, kwargs)
    else:

        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if type_info is not getattr(type(self), "__tvm_ffi_type_info__", None):
                raise TypeError(
                    f"Calling `super().__init__()` is not supported for @c_class `{type_name}`. "
                    f"Use @py_class for inheritance with manual __init__, or define "
                    f"`{type(self).__name__}` with init=True."
                )
            construct(self, args, kwargs)

    __init__.__signature__ = _make_init_signature(type_info)  # type: ignore[attr-defined]
    __init__.__qualname__ = f"{type_cls.__qualname__}.__init__"
    __init__.__module__ = type_cls.__module__
    return __init__


def _make_copy(type_info: TypeInfo, shallow_copy: Any) -> Callable[..., Any]:
    if shallow_copy is not None:

        def __copy__(self: Any) -> Any:
            return shallow_copy(self)
    else:

        def __copy__(self: Any) -> Any:
            raise TypeError(
                f"Type `{type(self).__name__}` does not support copy. "
                "The underlying C++ type is not copy-constructible."
            )

    return __copy__


def _make_deepcopy(type_info: TypeInfo) -> Callable[..., Any]:
    deep_copy = _r.ffi_func("ffi.DeepCopy")

    def __deepcopy__(self: Any, memo: Any = None) -> Any:
        return deep_copy(self)

    return __deepcopy__


def _make_replace(type_info: TypeInfo) -> Callable[..., Any]:
    def __replace__(self: Any, **kwargs: Any) -> Any:
        obj = _copy.copy(self)
        cls = type(obj)
        for key, value in kwargs.items():
            getattr(cls, key).set(obj, value)
        return obj

    return __replace__


def _set_match_args(cls: type, type_info: TypeInfo) -> None:
    """``__match_args__``: the positional ``__init__`` fields (unless the class sets it)."""
    if "__match_args__" in cls.__dict__:
        return
    names = []
    for ti in _chain(type_info):
        for tf in ti.fields or ():
            df = tf.dataclass_field
            if df is not None and df.init and not df.kw_only:
                names.append(tf.name)
    cls.__match_args__ = tuple(names)  # type: ignore[attr-defined]


def _comparable(a: Any, b: Any) -> bool:
    return isinstance(b, type(a)) or isinstance(a, type(b))


def _install_dataclass_dunders(
    cls: type,
    *,
    init: bool,
    repr: bool,
    eq: bool,
    order: bool,
    unsafe_hash: bool,
    match_args: bool = True,
    py_class_mode: bool = False,
) -> None:
    """Install the dataclass methods on ``cls`` (see the module's doc)."""
    info: TypeInfo = cls.__tvm_ffi_type_info__  # type: ignore[attr-defined]
    ffi_init = _r.find_ffi_init(info)
    ffi_new = _r.type_attr(info.type_index, "__ffi_new__")
    shallow_copy = _r.type_attr(info.type_index, "__ffi_shallow_copy__")
    body = cls.__dict__

    if "__init__" not in body:
        if init and ffi_init is not None:
            cls.__init__ = _make_init(cls, info, ffi_init, py_class_mode)  # type: ignore[misc]
        elif not init:
            msg = (
                f"`{cls.__name__}` cannot be constructed directly. "
                "Define a custom __init__ or use a factory method."
            )

            def guard(self: Any, *args: Any, **kwargs: Any) -> None:
                raise TypeError(msg)

            guard.__name__ = "__init__"
            guard.__qualname__ = f"{cls.__qualname__}.__init__"
            guard.__module__ = cls.__module__
            cls.__init__ = guard  # type: ignore[misc]
    elif py_class_mode and ffi_new is not None:
        user_init = body["__init__"]

        @functools.wraps(user_init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if _r.chandle_of(self) == 0:
                _r.init_handle_by_constructor(self, ffi_new)
            user_init(self, *args, **kwargs)

        cls.__init__ = __init__  # type: ignore[misc]

    if repr and "__repr__" not in body:
        cls.__repr__ = object_repr  # type: ignore[assignment]

    if eq and not ({"__eq__", "__ne__"} & set(body)):
        recursive_eq = _r.ffi_func("ffi.RecursiveEq")

        def __eq__(self: Any, other: Any) -> Any:
            if not _comparable(self, other):
                return NotImplemented
            return bool(recursive_eq(self, other))

        def __ne__(self: Any, other: Any) -> Any:
            if not _comparable(self, other):
                return NotImplemented
            return not recursive_eq(self, other)

        cls.__eq__ = __eq__  # type: ignore[assignment]
        cls.__ne__ = __ne__  # type: ignore[assignment]

    if order and not ({"__lt__", "__le__", "__gt__", "__ge__"} & set(body)):

        def make(name: str) -> Callable[[Any, Any], Any]:
            fn = _r.ffi_func(name)

            def compare(self: Any, other: Any) -> Any:
                if not _comparable(self, other):
                    return NotImplemented
                return bool(fn(self, other))

            return compare

        cls.__lt__ = make("ffi.RecursiveLt")  # type: ignore[assignment]
        cls.__le__ = make("ffi.RecursiveLe")  # type: ignore[assignment]
        cls.__gt__ = make("ffi.RecursiveGt")  # type: ignore[assignment]
        cls.__ge__ = make("ffi.RecursiveGe")  # type: ignore[assignment]

    if unsafe_hash and "__hash__" not in body:
        recursive_hash = _r.ffi_func("ffi.RecursiveHash")

        def __hash__(self: Any) -> int:
            return int(recursive_hash(self))

        cls.__hash__ = __hash__  # type: ignore[assignment]

    if "__copy__" not in body:
        cls.__copy__ = _make_copy(info, shallow_copy)  # type: ignore[attr-defined]
    if "__deepcopy__" not in body:
        cls.__deepcopy__ = _make_deepcopy(info)  # type: ignore[attr-defined]
    if "__replace__" not in body:
        cls.__replace__ = _make_replace(info)  # type: ignore[attr-defined]
    if match_args:
        _set_match_args(cls, info)


__all__ = ["_install_dataclass_dunders", "_make_init"]

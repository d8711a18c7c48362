"""Resolving the field annotations of a ``@py_class`` (forward references included).

The class is registered (a type index, its key, its class) before its
annotations are evaluated, so an annotation may name the class itself or a
sibling defined later. Annotations that cannot be evaluated yet put the
class on a pending list: every later ``@py_class`` retries them, and the
first construction of the class finishes (or fails with the names that
are still unknown).
"""

from __future__ import annotations

import sys
import typing
from dataclasses import dataclass
from typing import Any, Callable

from .. import core
from .field import KW_ONLY

ResolvedFields = tuple[list[type], dict[type, dict[str, Any]]]


@dataclass
class _PendingClass:
    cls: type
    type_info: Any
    globalns: dict[str, Any]


_PENDING_CLASSES: list[_PendingClass] = []
_PY_CLASS_BY_MODULE: dict[str, dict[str, type]] = {}


class _KWOnlyAnnotation:
    """Stands in for KW_ONLY while typing.get_type_hints runs (it wants a type)."""


def _is_kw_only_annotation(annotation: Any) -> bool:
    if annotation is KW_ONLY or annotation is _KWOnlyAnnotation:
        return True
    text = (
        annotation if isinstance(annotation, str) else getattr(annotation, "__forward_arg__", None)
    )
    return isinstance(text, str) and (text == "KW_ONLY" or text.endswith(".KW_ONLY"))


def _registered_type_info(cls: type) -> Any:
    """The TypeInfo bound to ``cls`` itself (not one it inherits)."""
    info = core._type_cls_to_type_info(cls)
    return info if info is not None else cls.__dict__.get("__tvm_ffi_type_info__")


def register_type_without_fields(cls: type, type_key: str | None) -> Any:
    """Register ``cls`` (under the nearest registered base) before its fields are known."""
    parent = None
    for base in cls.__mro__[1:]:
        parent = _registered_type_info(base)
        if parent is not None:
            break
    if parent is None:
        raise TypeError(
            f"{cls.__name__} must inherit from a registered FFI Object type (e.g. tvm_ffi.Object)"
        )
    key = type_key if type_key is not None else f"{cls.__module__}.{cls.__qualname__}"
    info = core._register_py_class(parent, key, cls)
    cls.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
    _PY_CLASS_BY_MODULE.setdefault(cls.__module__, {})[cls.__name__] = cls
    return info


def rollback_registration(cls: type, type_info: Any) -> None:
    """Undo :func:`register_type_without_fields` in Python (the type index stays taken)."""
    core._rollback_py_class(type_info)
    _PY_CLASS_BY_MODULE.get(cls.__module__, {}).pop(cls.__name__, None)
    for attr in ("__tvm_ffi_type_info__", "__ffi_is_dataclass__"):
        try:
            delattr(cls, attr)
        except AttributeError:
            pass


def own_annotations(cls: type) -> dict[str, Any]:
    """The annotations ``cls`` itself declares (not its bases')."""
    if sys.version_info >= (3, 14):  # pragma: no cover
        return getattr(cls, "__annotations__", {})
    return cls.__dict__.get("__annotations__", {})


def _field_owner_classes(cls: type) -> list[type]:
    """``cls`` and its unregistered bases (mixins) after the nearest registered one, root first,
    that declare annotations: their annotations are the new type's fields."""
    registered = next((b for b in cls.__mro__[1:] if _registered_type_info(b) is not None), object)
    represented = set(registered.__mro__)
    return [
        b
        for b in reversed(cls.__mro__)
        if b is not object and b not in represented and own_annotations(b)
    ]


def _build_localns(cls: type, *, cross_module: bool = False) -> dict[str, Any]:
    """Names for evaluating annotations: the ``@py_class`` classes of the module (and, with
    ``cross_module``, those of every module, the module's own first)."""
    ns = dict(_PY_CLASS_BY_MODULE.get(cls.__module__, {}))
    ns[cls.__name__] = cls
    if cross_module:
        for module, classes in list(_PY_CLASS_BY_MODULE.items()):
            if module != cls.__module__:
                for name, klass in classes.items():
                    ns.setdefault(name, klass)
    return ns


def _resolve_own_type_hints(
    owner: type, globalns: dict[str, Any], localns: dict[str, Any]
) -> dict[str, Any]:
    annotations = own_annotations(owner)
    if not annotations:
        return {}
    shim_annotations = dict(annotations)
    kw_only = [n for n, a in annotations.items() if _is_kw_only_annotation(a)]
    for name in kw_only:
        shim_annotations[name] = _KWOnlyAnnotation
    shim = type(
        f"_{owner.__name__}OwnAnnotations",
        (),
        {"__annotations__": shim_annotations, "__module__": owner.__module__},
    )
    kwargs: dict[str, Any] = {"globalns": globalns, "localns": localns}
    if sys.version_info >= (3, 11):
        kwargs["include_extras"] = True
    hints = typing.get_type_hints(shim, **kwargs)
    for name in kw_only:
        hints[name] = KW_ONLY
    return hints


def resolve_type_hints_by_owner(cls: type, globalns: dict[str, Any]) -> ResolvedFields | None:
    """``(owners, hints by owner)``; None while a forward reference cannot be resolved, or
    while an ancestor's fields are still pending (a child's fields follow its parent's)."""
    info = cls.__dict__.get("__tvm_ffi_type_info__")
    parent = getattr(info, "parent_type_info", None)
    while parent is not None:
        if parent.fields is None:
            return None
        parent = parent.parent_type_info
    owners = _field_owner_classes(cls)
    for cross in (False, True):
        localns = _build_localns(cls, cross_module=cross)
        localns.update({o.__name__: o for o in owners})
        try:
            hints = {
                o: _resolve_own_type_hints(
                    o, getattr(sys.modules.get(o.__module__), "__dict__", globalns), localns
                )
                for o in owners
            }
            return owners, hints
        except (NameError, AttributeError):
            continue
    return None


def flush_pending() -> None:
    """Finish the pending classes whose annotations now resolve (until none does)."""
    from .py_class import on_fields_resolved

    changed = True
    while changed:
        changed = False
        remaining = []
        for entry in list(_PENDING_CLASSES):
            resolved = resolve_type_hints_by_owner(entry.cls, entry.globalns)
            if resolved is None:
                remaining.append(entry)
            else:
                on_fields_resolved(entry.type_info, resolved)
                changed = True
        _PENDING_CLASSES[:] = remaining


def _raise_unresolved_forward_reference(cls: type, globalns: dict[str, Any]) -> None:
    localns = _build_localns(cls, cross_module=True)
    owners = _field_owner_classes(cls)
    localns.update({o.__name__: o for o in owners})
    unresolved = []
    for owner in owners:
        for name, text in own_annotations(owner).items():
            if isinstance(text, str):
                try:
                    eval(text, globalns, localns)
                except Exception as err:
                    unresolved.append(f"{name}: {text} ({err})")
    raise TypeError(
        f"Cannot instantiate {cls.__name__}: unresolved forward references: {unresolved}"
    )


def _remove_from_pending(cls: type) -> None:
    _PENDING_CLASSES[:] = [p for p in _PENDING_CLASSES if p.cls is not cls]


def _make_temporary_init(
    cls: type, type_info: Any, globalns: dict[str, Any]
) -> Callable[..., None]:
    """``__init__`` of a pending class: finish its registration, then construct."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if type_info.fields is None:
            try:
                from .py_class import on_fields_resolved

                resolved = resolve_type_hints_by_owner(cls, globalns)
                if resolved is None:
                    _raise_unresolved_forward_reference(cls, globalns)
                on_fields_resolved(type_info, resolved)  # type: ignore[arg-type]
                _remove_from_pending(cls)
                flush_pending()
            except Exception:
                _remove_from_pending(cls)
                rollback_registration(cls, type_info)
                raise
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    return __init__


def defer_field_registration(cls: type, type_info: Any, globalns: dict[str, Any]) -> None:
    """Put ``cls`` on the pending list; its first construction finishes the registration."""
    _PENDING_CLASSES.append(_PendingClass(cls, type_info, globalns))
    user_init = cls.__dict__.get("__init__")
    if user_init is not None:
        cls._py_class_user_init = user_init  # type: ignore[attr-defined]
    cls.__init__ = _make_temporary_init(cls, type_info, globalns)  # type: ignore[misc]
    cls.__ffi_py_class_is_deferred_init__ = True  # type: ignore[attr-defined]

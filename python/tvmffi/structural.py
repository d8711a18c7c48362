"""Structural equality, hashing and walks over FFI values.

Two values are structurally equal when they have the same shape: the same
types, and equal contents field by field (through reflection), item by item
(arrays) and key by key (maps, in any order). Free variables (types declared
as such in C++) may be mapped onto each other with ``map_free_vars``::

    tvmffi.structural_equal({"a": [1, 2]}, {"a": [1, 2]})   # True
    tvmffi.structural_hash([1, 2]) == tvmffi.structural_hash([1, 2])
    lhs_path, rhs_path = tvmffi.get_first_structural_mismatch([1, 2], [1, 3])

The work is the runtime's (``ffi.StructuralEqual``, ``ffi.StructuralHash``,
``ffi.GetFirstStructuralMismatch``, ``ffi.StructuralWalk``, ...); this module
gives it upstream ``tvm_ffi``'s Python names.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any

from ._core import Function, Object
from ._reflection import bind_class, init_handle_by_constructor, type_info
from .module import _func  # the cached global-function lookup

if typing.TYPE_CHECKING:
    from .access_path import AccessPath

__all__ = [
    "DefRegionKind",
    "InplaceMode",
    "StructuralKey",
    "StructuralMutator",
    "StructuralVisitor",
    "VisitInterrupt",
    "WalkOrder",
    "WalkResult",
    "get_first_structural_mismatch",
    "structural_equal",
    "structural_hash",
    "structural_map",
    "structural_mutate",
    "structural_walk",
]


class WalkOrder(IntEnum):
    """Whether :func:`structural_walk` calls back before (pre) or after (post) the children."""

    PREORDER = 0
    POSTORDER = 1


class WalkResult(IntEnum):
    """What a walk callback may return: go on into the children, or skip them."""

    ADVANCE = 0
    SKIP = 1


class DefRegionKind(IntEnum):
    """Where a walk stands: outside a definition site, or in a (non-)recursive one."""

    NONE = 0
    RECURSIVE = 1
    NON_RECURSIVE = 2


def structural_equal(
    lhs: Any, rhs: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> bool:
    """Whether ``lhs`` and ``rhs`` are structurally equal.

    ``map_free_vars``: free variables (no definition site) of the two sides
    may be mapped onto each other. ``skip_tensor_content``: tensors compare by
    their shape, dtype and device only.
    """
    return bool(_func("ffi.StructuralEqual")(lhs, rhs, map_free_vars, skip_tensor_content))


def structural_hash(
    value: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> int:
    """A hash that agrees with :func:`structural_equal` (an unsigned 64-bit int)."""
    return (
        int(_func("ffi.StructuralHash")(value, map_free_vars, skip_tensor_content))
        & 0xFFFFFFFFFFFFFFFF
    )


def get_first_structural_mismatch(
    lhs: Any, rhs: Any, map_free_vars: bool = False, skip_tensor_content: bool = False
) -> tuple[AccessPath, AccessPath] | None:
    """None when ``lhs`` and ``rhs`` are structurally equal; else the pair of
    :class:`~tvmffi.access_path.AccessPath` to the first difference, one into each."""
    from . import access_path  # noqa: F401  (binds the path classes)

    result = _func("ffi.GetFirstStructuralMismatch")(lhs, rhs, map_free_vars, skip_tensor_content)
    if result is None:
        return None
    lhs_path, rhs_path = result
    return lhs_path, rhs_path


class StructuralKey(Object):
    """A value as a key by structure: equal and hashed with :func:`structural_equal` /
    :func:`structural_hash` (in Python dicts and in ``tvmffi.Map``)::

        d = {StructuralKey([1, 2]): "x"}
        d[StructuralKey([1, 2])]   # "x"

    ``key`` is the value, ``hash_i64`` its structural hash (signed).
    """

    __slots__ = ()

    def __init__(self, key: Any) -> None:
        init_handle_by_constructor(self, _func("ffi.StructuralKey"), key)

    def __hash__(self) -> int:
        return int(self.hash_i64) & 0xFFFFFFFFFFFFFFFF  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StructuralKey) and bool(
            _func("ffi.StructuralKeyEqual")(self, other)
        )

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __repr__(self) -> str:
        return f"StructuralKey({self.key!r})"  # type: ignore[attr-defined]


class VisitInterrupt(Object):
    """Returned by a walk callback, it stops the walk; the walk returns it, ``value`` holds
    the payload."""

    __slots__ = ()

    def __init__(self, value: Any = None) -> None:
        init_handle_by_constructor(self, _func("ffi.VisitInterrupt"), value)

    def __repr__(self) -> str:
        return f"VisitInterrupt({self.value!r})"  # type: ignore[attr-defined]


class StructuralVisitor(Object):
    """The visitor a running walk passes to hooks written in C++ (``ffi.StructuralVisitor``)."""

    __slots__ = ()

    def __init__(self) -> None:
        raise TypeError("StructuralVisitor is made by the runtime during a walk")

    def visit(self, value: Any) -> VisitInterrupt | None:
        """Walk into ``value`` (a VisitInterrupt when a callback stopped the walk)."""
        return _func("ffi.StructuralVisitorVisit")(self, value)

    def default_visit(self, value: Any) -> VisitInterrupt | None:
        """Visit the children of ``value`` its own way: its ``__s_visit__``, else its fields."""
        return _func("ffi.StructuralVisitorDefaultVisit")(self, value)

    def def_region_kind(self) -> DefRegionKind:
        """The def region the walk is in now."""
        return DefRegionKind(_func("ffi.StructuralVisitorDefRegionKind")(self))

    def with_def_region_kind(self, kind: DefRegionKind | int, callback: Callable[[], Any]) -> Any:
        """Run ``callback()`` with the walk in def region ``kind``; its result."""
        return _func("ffi.StructuralVisitorWithDefRegionKind")(self, int(kind), callback)


# Python types a walk callback may name, and the type index the runtime matches.
_BUILTIN_TYPE_INDEX: dict[Any, int] = {
    type(None): 0,
    int: 1,
    bool: 2,
    float: 3,
    str: 65,
    bytes: 66,
}


def _callback_type_index(t: Any) -> int:
    if t is Any or t is object:
        return -1
    if t is None:
        return 0
    if t in _BUILTIN_TYPE_INDEX:
        return _BUILTIN_TYPE_INDEX[t]
    info = getattr(t, "__tvm_ffi_type_info__", None)
    if info is not None:
        return int(info.type_index)
    if isinstance(t, type):
        from . import _dtype
        from ._core import Device, Tensor
        from .container import Array, Map

        known: dict[type, str] = {
            Object: "ffi.Object",
            Function: "ffi.Function",
            Tensor: "ffi.Tensor",
            Array: "ffi.Array",
            Map: "ffi.Map",
        }
        for cls, key in known.items():
            if t is cls:
                ti = type_info(key)
                if ti is not None:
                    return ti.type_index
        if t is Device:
            return 6
        if t is _dtype.dtype:
            return 5
    raise TypeError(
        "structural_walk callback type must be a supported builtin, typing.Any/object, "
        f"or an FFI-registered object class; got {t!r}"
    )


def _normalize_callbacks(callbacks: Any) -> list[tuple[Any, Callable[..., Any]]]:
    entries: list[tuple[Any, Callable[..., Any]]] = []

    def add(entry: tuple[Any, Callable[..., Any]]) -> None:
        types, fn = entry
        for t in types if isinstance(types, tuple) else (types,):
            entries.append((t, fn))

    if callable(callbacks) and not isinstance(callbacks, tuple):
        entries.append((Any, callbacks))
    elif isinstance(callbacks, tuple) and len(callbacks) == 2 and callable(callbacks[1]):
        add(callbacks)
    elif isinstance(callbacks, Sequence) and not isinstance(callbacks, (str, bytes)):
        for entry in callbacks:
            if not (isinstance(entry, tuple) and len(entry) == 2 and callable(entry[1])):
                raise TypeError(
                    "structural_walk: the entries of a callback sequence must be "
                    "(type, callback) tuples"
                )
            add(entry)
    else:
        raise TypeError(
            "structural_walk: callbacks must be a callback, a (type, callback) entry, "
            "a ((type, ...), callback) entry, or a sequence of entries"
        )
    return entries


def structural_walk(
    root: Any,
    callbacks: tuple | Sequence | Callable = (),
    with_def_region_kind: tuple | Sequence | Callable = (),
    order: str | WalkOrder = "post",
) -> VisitInterrupt | None:
    """Walk ``root`` structurally, calling the first callback whose type matches each value.

    ``callbacks`` take ``(value)``, ``with_def_region_kind`` callbacks take
    ``(value, DefRegionKind)``. Either may be one callable (matches anything), a
    ``(type, fn)`` or ``((type, ...), fn)`` entry, or a sequence of entries,
    tried in order; types are int, float, str, ..., FFI classes, or
    ``typing.Any``/``object``. A callback may return :class:`WalkResult`
    (``SKIP`` skips the children in pre-order) or a :class:`VisitInterrupt`,
    which stops the walk and is returned. ``order``: ``"post"`` (the default, as
    upstream 0.1.15 has it: children before their container) or ``"pre"``.
    """
    if isinstance(order, WalkOrder):
        order_int = int(order)
    elif order in ("pre", "post"):
        order_int = int(WalkOrder.PREORDER if order == "pre" else WalkOrder.POSTORDER)
    else:
        raise ValueError(f"Unknown structural walk order: {order!r}")
    entries = [(_callback_type_index(t), fn) for t, fn in _normalize_callbacks(callbacks)]
    entries_kind = [
        (_callback_type_index(t), (lambda f: lambda value, kind: f(value, DefRegionKind(kind)))(fn))
        for t, fn in _normalize_callbacks(with_def_region_kind)
    ]
    return _func("ffi.StructuralWalk")(root, entries, entries_kind, order_int)


class InplaceMode(IntEnum):
    """Whether a mutation may change a uniquely owned value in place (ALLOW) or must copy."""

    DISALLOW = 0
    ALLOW = 1


class StructuralMutator(Object):
    """The mutator a running :func:`structural_mutate` passes to its callbacks."""

    __slots__ = ()

    def __init__(self) -> None:
        raise TypeError("StructuralMutator is made by the runtime during a mutation")

    def mutate(self, value: Any) -> Any:
        """Mutate ``value`` (callbacks included, never in place); the result."""
        return _func("ffi.StructuralMutatorMutate")(self, value)

    def default_mutate(self, value: Any) -> Any:
        """Mutate ``value``'s children the standard way (its hook or reflected fields)."""
        return _func("ffi.StructuralMutatorDefaultMutate")(self, value)

    def var_remap_get(self, var: Object) -> Any | None:
        """What ``var`` maps to in this mutation (None when unmapped)."""
        return _func("ffi.StructuralMutatorVarRemapGet")(self, var)

    def var_remap_set(self, var: Object, mapped_value: Any) -> None:
        """Map ``var`` to ``mapped_value`` for the rest of this mutation."""
        _func("ffi.StructuralMutatorVarRemapSet")(self, var, mapped_value)

    def def_region_kind(self) -> DefRegionKind:
        """The def region the mutation is in now."""
        return DefRegionKind(_func("ffi.StructuralMutatorDefRegionKind")(self))

    def with_def_region_kind(self, kind: DefRegionKind | int, callback: Callable[[], Any]) -> Any:
        """Run ``callback()`` with the mutation in def region ``kind``; its result."""
        return _func("ffi.StructuralMutatorWithDefRegionKind")(self, int(kind), callback)


def _accepts_inplace_mode(fn: Callable[..., Any]) -> bool:
    """Whether a structural_mutate callback takes a third (inplace_mode) argument."""
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in params):
        return True
    positional = [
        p
        for p in params
        if p.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    return len(positional) >= 3


def structural_map(
    root: Any,
    callbacks: tuple | Sequence | Callable = (),
    with_def_region_kind: tuple | Sequence | Callable = (),
    order: str | WalkOrder = "post",
) -> Any:
    """Map ``root`` structurally: the first callback whose type matches a value replaces it.

    Callbacks are given as for :func:`structural_walk` and return the value
    itself (keep) or a replacement; they must not change their input. Pre-order
    callbacks run before the children are mapped (the children of a
    replacement are mapped too), post-order ones on what mapping the children
    made. Parts of ``root`` that did not change are shared with the result;
    ``root`` itself is never changed unless passed as ``root._move()``.
    """
    if isinstance(order, WalkOrder):
        order_int = int(order)
    elif order in ("pre", "post"):
        order_int = int(WalkOrder.PREORDER if order == "pre" else WalkOrder.POSTORDER)
    else:
        raise ValueError(f"Unknown structural map order: {order!r}")
    entries = [(_callback_type_index(t), fn) for t, fn in _normalize_callbacks(callbacks)]
    entries_kind = [
        (_callback_type_index(t), (lambda f: lambda value, kind: f(value, DefRegionKind(kind)))(fn))
        for t, fn in _normalize_callbacks(with_def_region_kind)
    ]
    return _func("ffi.StructuralMap")(root, entries, entries_kind, order_int)


def structural_mutate(root: Any, callbacks: tuple | Sequence | Callable = ()) -> Any:
    """Mutate ``root`` with callbacks that own the values they match.

    Each callback takes ``(value, mutator)`` or ``(value, mutator,
    inplace_mode)`` (an :class:`InplaceMode` value) and returns the result for
    ``value``; it calls ``mutator.mutate(child)`` on the children it wants
    mutated, or ``mutator.default_mutate(value)`` for the standard mutation.
    Values no callback matches are mutated the standard way.
    """
    entries = [
        (_callback_type_index(t), fn, _accepts_inplace_mode(fn))
        for t, fn in _normalize_callbacks(callbacks)
    ]
    return _func("ffi.StructuralMutate")(root, entries)


def structural_visit(
    root: Any,
    callbacks: tuple | Sequence | Callable = (),
) -> VisitInterrupt | None:
    """Visit ``root`` structurally; a callback whose type matches a value owns its descent.

    Each callback takes ``(value, visitor)`` (a :class:`StructuralVisitor`) and
    visits what it wants of the value with ``visitor.visit(child)`` or
    ``visitor.default_visit(value)``; returning without either skips the value's
    children. It returns None, or a :class:`VisitInterrupt` that stops the
    visit and is returned. A value no callback matches is visited the default
    way. ``callbacks`` takes the forms of :func:`structural_walk`'s.
    """
    entries = [(_callback_type_index(t), fn) for t, fn in _normalize_callbacks(callbacks)]
    return _func("ffi.StructuralVisit")(root, entries)


for _cls, _key in (
    (StructuralKey, "ffi.StructuralKey"),
    (VisitInterrupt, "ffi.VisitInterrupt"),
    (StructuralVisitor, "ffi.StructuralVisitor"),
    (StructuralMutator, "ffi.StructuralMutator"),
):
    _info = type_info(_key)
    if _info is not None:
        bind_class(_cls, _info, init=False)
del _cls, _key, _info

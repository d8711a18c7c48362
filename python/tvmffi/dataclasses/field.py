"""Field descriptors of ``@py_class`` / ``@c_class`` types: :class:`Field`, :func:`field`,
:data:`KW_ONLY`, :class:`init_property`."""

from __future__ import annotations

import sys
from typing import Any, Callable, ClassVar, Generic, Mapping, TypeVar

from .._reflection import missing as _missing

_T = TypeVar("_T")
MISSING = _missing()

if sys.version_info >= (3, 10):
    import dataclasses as _dataclasses

    #: Marker annotation: the fields after ``_: KW_ONLY`` are keyword-only.
    KW_ONLY = _dataclasses.KW_ONLY
else:  # pragma: no cover

    class KW_ONLY:
        """Marker annotation: the fields after ``_: KW_ONLY`` are keyword-only."""


def _field_converter(value: Any) -> Any:
    """Marker for static analysis (``dataclass_transform``): FFI converts field values."""
    return value


def _annotations_of(obj: Any) -> dict[str, Any]:
    if sys.version_info >= (3, 14):  # pragma: no cover  (PEP 749: annotations are lazy)
        import annotationlib

        return annotationlib.get_annotations(obj, format=annotationlib.Format.FORWARDREF)
    return dict(getattr(obj, "__annotations__", {}) or {})


class init_property(Generic[_T]):
    """A field computed once by ``func(self)`` right after construction.

    ``@py_class`` registers it as ``field(init=False, repr=False, compare=False,
    hash=False, structural_eq="ignore")`` typed by the function's return
    annotation (``Any`` without one), so the value lives in the object and
    other languages see it.
    """

    def __init__(self, func: Callable[[Any], _T]) -> None:
        self.func = func
        self.name: str | None = None
        self._return_annotation: Any = _annotations_of(func).get("return")

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        return self

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name
        annotation = self._return_annotation if self._return_annotation is not None else Any
        if sys.version_info >= (3, 14):  # pragma: no cover
            anns = _annotations_of(owner)
            anns[name] = annotation
            owner.__annotations__ = anns
            return
        if "__annotations__" not in owner.__dict__:
            owner.__annotations__ = {}
        owner.__annotations__[name] = annotation


class Field:
    """One field of an FFI dataclass.

    Made by :func:`field` in a ``@py_class`` body (``name`` and the schema are
    filled in by the decorator), or directly with a name and a
    :class:`~tvm_ffi.core.TypeSchema` for low-level registration. ``type`` is
    the resolved annotation; ``default`` / ``default_factory`` are
    :data:`MISSING` when not given; ``hash=None`` follows ``compare``;
    ``kw_only=None`` follows the decorator; ``structural_eq`` is None,
    ``"ignore"``, ``"def-pattern"`` (also ``"def"``, or the older
    ``"def-recursive"``) or ``"def-simple"`` (older: ``"def-non-recursive"``).
    ``metadata`` is a dict of the field's own (copied from the argument);
    ``extra_kwargs`` holds keyword options no core parameter names, for
    ``__ffi_on_fields_resolved__`` hooks of an extension to consume (what is
    left when the class registers is a TypeError). ``copy.copy`` gives a field
    with its own ``metadata`` and ``extra_kwargs`` dicts.
    """

    __slots__ = (
        "_ty_schema",
        "compare",
        "converter",
        "default",
        "default_factory",
        "doc",
        "extra_kwargs",
        "frozen",
        "hash",
        "init",
        "kw_only",
        "metadata",
        "name",
        "repr",
        "structural_eq",
        "type",
    )

    _VALID_STRUCTURAL_EQ_VALUES: ClassVar[frozenset[str | None]] = frozenset(
        {None, "ignore", "def", "def-pattern", "def-simple", "def-recursive", "def-non-recursive"}
    )

    def __init__(
        self,
        name: str | None = None,
        _ty_schema: Any = None,
        *,
        default: object = MISSING,
        default_factory: Any = MISSING,
        frozen: bool = False,
        init: bool = True,
        repr: bool = True,
        hash: bool | None = True,
        compare: bool = False,
        kw_only: bool | None = False,
        metadata: Mapping[str, Any] | None = None,
        structural_eq: str | None = None,
        doc: str | None = None,
        converter: Callable[[Any], Any] = _field_converter,
        **extra_kwargs: Any,
    ) -> None:
        if default_factory is not MISSING:
            if default is not MISSING:
                raise ValueError("cannot specify both default and default_factory")
            if not callable(default_factory):
                raise TypeError(
                    f"default_factory must be a callable, got {type(default_factory).__name__}"
                )
        if structural_eq not in Field._VALID_STRUCTURAL_EQ_VALUES:
            valid = sorted(Field._VALID_STRUCTURAL_EQ_VALUES, key=str)
            raise ValueError(f"structural_eq must be one of {valid}, got {structural_eq!r}")
        self.name = name  # type: ignore[assignment]
        self._ty_schema = _ty_schema
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.frozen = frozen
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.converter = converter
        self.kw_only = kw_only
        self.structural_eq = structural_eq
        self.doc = doc
        self.metadata = dict(metadata) if metadata is not None else {}
        self.extra_kwargs = dict(extra_kwargs)

    def __copy__(self) -> Field:
        twin = object.__new__(type(self))
        for klass in type(self).__mro__:
            slots = klass.__dict__.get("__slots__", ())
            for name in (slots,) if isinstance(slots, str) else slots:
                if name not in ("__dict__", "__weakref__") and hasattr(self, name):
                    setattr(twin, name, getattr(self, name))
        if hasattr(self, "__dict__"):
            twin.__dict__.update(self.__dict__)
        twin.metadata = dict(self.metadata)
        twin.extra_kwargs = dict(self.extra_kwargs)
        return twin

    def __repr__(self) -> str:
        return (
            f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r}, "
            f"default_factory={self.default_factory!r}, init={self.init!r}, "
            f"repr={self.repr!r}, hash={self.hash!r}, compare={self.compare!r}, "
            f"kw_only={self.kw_only!r}, frozen={self.frozen!r})"
        )


def field(
    *,
    default: object = MISSING,
    default_factory: Any = MISSING,
    frozen: bool = False,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    kw_only: bool | None = None,
    metadata: Mapping[str, Any] | None = None,
    structural_eq: str | None = None,
    doc: str | None = None,
    converter: Callable[[Any], Any] = _field_converter,
    **extra_kwargs: Any,
) -> Any:
    """Customize a field of a ``@py_class`` (``x: int = field(default=0, repr=False)``).

    ``frozen``: read-only after ``__init__`` (``type(obj).x.set(obj, v)`` still
    writes); ``init`` / ``repr`` / ``compare`` / ``hash`` (None: as ``compare``):
    whether the field takes part in ``__init__``, ``__repr__``, the recursive
    comparisons and hashing; ``kw_only`` (None: the decorator's);
    ``structural_eq``: None, ``"ignore"``, ``"def-pattern"`` (``"def"``) or
    ``"def-simple"``; ``doc``: the field's docstring; ``metadata``: a dict kept
    (copied) on the Field; other keywords land in ``Field.extra_kwargs`` for an
    extension's hook to consume (TypeError at registration if none does).
    """
    return Field(
        default=default,
        default_factory=default_factory,
        frozen=frozen,
        init=init,
        repr=repr,
        hash=hash,
        compare=compare,
        kw_only=kw_only,
        metadata=metadata,
        structural_eq=structural_eq,
        doc=doc,
        converter=converter,
        **extra_kwargs,
    )


__all__ = ["KW_ONLY", "MISSING", "Field", "field", "init_property"]

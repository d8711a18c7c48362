"""Dataclass values as nested tuples, for passing them to FFI functions.

``unpack_dataclass_to_tuple(x)``: a dataclass instance becomes the tuple of its
fields' values (in field order), each unpacked again; lists, tuples and dict
values are unpacked item by item (a named tuple stays of its type); anything
else is returned as is (the same object, not a copy).

Per dataclass a *schema* is read once from its type annotations
(``_extract_dataclass_to_tuple_schema``): a field whose declared type cannot
hold a dataclass, a list or a tuple of them (``int``, ``str``, ``dict[str, int]``,
``int | None``, ...) is copied as it is without being looked at, every other
field is unpacked by its value's type.  A value that does not match its field's
annotation (an ``int`` field holding a dataclass) is therefore passed through.
"""

from __future__ import annotations

import dataclasses
import keyword
import operator
import sys
import typing
from typing import Any, Callable, Dict, Union

__all__ = ["unpack_dataclass_to_tuple"]

#: Schema entry of a field that is unpacked by its value's type when it is read.
UNPACK = "unpack"

#: A field name to ``None`` (copied as is), ``UNPACK``, or the nested schema
#: of a field whose declared type is itself a dataclass.
DataclassToTupleSchema = Dict[str, Union[None, str, "DataclassToTupleSchema"]]

_LEAF_TYPES = (int, float, str, bytes, bool, type(None), complex)
_LEAF_TYPE_SET = frozenset(_LEAF_TYPES)

# Generic origins whose values stay as they are when every type argument is a
# leaf (dict[str, int] needs no work); list is absent: unpacking copies lists.
_PASSTHROUGH_ORIGINS: set[Any] = {tuple, dict, set, frozenset, Union}
if sys.version_info >= (3, 10):
    import types

    _PASSTHROUGH_ORIGINS.add(types.UnionType)

# dataclass type -> function turning one of its instances into a tuple.
_UNPACKERS: dict[type, Callable[[Any], tuple]] = {}


def _is_leaf_annotation(tp: Any) -> bool:
    """Whether a value of annotation ``tp`` is certain to come out unchanged."""
    if isinstance(tp, type):
        return tp in _LEAF_TYPE_SET
    if tp is Ellipsis:  # tuple[int, ...]
        return True
    if typing.get_origin(tp) in _PASSTHROUGH_ORIGINS:
        args = typing.get_args(tp)
        return bool(args) and all(_is_leaf_annotation(a) for a in args)
    return False


def _field_schema(tp: Any, memo: set[type]) -> None | str | DataclassToTupleSchema:
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        # A class met again further down (a linked list's ``next: Node``)
        # is unpacked at run time, which also ends the recursion here.
        if tp in memo:
            return UNPACK
        return _extract_dataclass_to_tuple_schema(tp, memo=memo)
    return None if _is_leaf_annotation(tp) else UNPACK


def _extract_dataclass_to_tuple_schema(
    cls: type, *, memo: set[type] | None = None
) -> DataclassToTupleSchema:
    """The schema of dataclass ``cls``: per field, ``None``, ``"unpack"`` or a nested schema.

    ``None``: the declared type holds no dataclass, list or tuple of them
    (``int``, ``dict[str, float]``, ``int | None``); a nested schema: the
    declared type is a dataclass; ``"unpack"`` otherwise (``Any``, ``list[int]``,
    unknown classes, and every field when the annotations cannot be resolved,
    e.g. a local class naming another local class under PEP 563).

    Raises
    ------
    TypeError
        ``cls`` is not a dataclass type.
    """
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise TypeError(f"Expected a dataclass class, got {cls!r}")
    memo = set() if memo is None else memo
    memo.add(cls)
    try:
        hints = typing.get_type_hints(cls)
    except (NameError, TypeError, AttributeError):
        hints = None
    schema: DataclassToTupleSchema = {}
    for field in dataclasses.fields(cls):
        if hints is None or field.name not in hints:
            schema[field.name] = UNPACK
        else:
            schema[field.name] = _field_schema(hints[field.name], memo)
    return schema


def _validate_dataclass_to_tuple_schema(schema: DataclassToTupleSchema) -> None:
    """Check that ``schema`` names fields by Python identifiers (recursively).

    Raises
    ------
    TypeError
        ``schema`` (or a nested one) is not a dict, or a key is not a string.
    ValueError
        A key is not an identifier, or is a keyword.
    """
    if not isinstance(schema, dict):
        raise TypeError(f"DataclassToTupleSchema must be a dict, got {type(schema).__name__}")
    for name, entry in schema.items():
        if not isinstance(name, str):
            raise TypeError(f"Schema field name must be a string, got {type(name).__name__}")
        if not name.isidentifier():
            raise ValueError(f"Schema field name {name!r} is not a valid Python identifier")
        if keyword.iskeyword(name):
            raise ValueError(f"Schema field name {name!r} is a Python keyword")
        if entry is not None and entry != UNPACK:
            _validate_dataclass_to_tuple_schema(entry)  # type: ignore[arg-type]


def _make_unpacker(schema: DataclassToTupleSchema) -> Callable[[Any], tuple]:
    """A function turning an instance with fields ``schema`` into its tuple."""
    names = list(schema)
    if all(entry is None for entry in schema.values()):
        # Only leaves: attrgetter builds the tuple in C.
        if len(names) >= 2:
            return operator.attrgetter(*names)
        if len(names) == 1:
            get_one = operator.attrgetter(names[0])
            return lambda x: (get_one(x),)
        return lambda x: ()
    # A nested schema is unpacked by its value's type too: the value may be a
    # subclass with more fields, or None.
    steps = [(operator.attrgetter(n), schema[n] is not None) for n in names]

    def unpack(x: Any) -> tuple:
        return tuple([unpack_dataclass_to_tuple(g(x)) if deep else g(x) for g, deep in steps])

    return unpack


def unpack_dataclass_to_tuple(x: Any) -> Any:
    """``x`` with every dataclass instance in it replaced by the tuple of its fields.

    Dataclass instances become tuples of their unpacked fields; lists and
    tuples (named tuples too) are unpacked item by item (keeping their type), dicts value by
    value; anything else is ``x`` itself.  Fields annotated with a type that
    holds no dataclass (see the module's doc) are copied without a look.
    """
    cls = type(x)
    unpacker = _UNPACKERS.get(cls)
    if unpacker is not None:
        return unpacker(x)
    if cls in _LEAF_TYPE_SET:
        return x
    if dataclasses.is_dataclass(cls):
        schema = _extract_dataclass_to_tuple_schema(cls)
        _validate_dataclass_to_tuple_schema(schema)
        unpacker = _UNPACKERS[cls] = _make_unpacker(schema)
        return unpacker(x)
    if cls is list:
        return [unpack_dataclass_to_tuple(v) for v in x]
    if cls is tuple:
        return tuple([unpack_dataclass_to_tuple(v) for v in x])
    if cls is dict:
        return {k: unpack_dataclass_to_tuple(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(cls, "_fields"):  # a named tuple keeps its type
        return cls(*[unpack_dataclass_to_tuple(v) for v in x])
    return x

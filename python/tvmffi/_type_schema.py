"""TypeSchema: the FFI type of a value, and converting Python values to it.

A :class:`TypeSchema` is an origin (``"int"``, ``"Array"``, ``"Optional"``,
an object type key, ...) with argument schemas. It is read from the JSON the
runtime publishes in function and field metadata (``from_json_str``), built
from Python annotations (``from_annotation``), printed as Python typing text
(``repr``), and converts a Python value to its FFI form as a C++ function
taking that type would (``convert`` gives a :class:`CAny`; ``check_value``
only checks), with the implicit conversions of ``TryCastFromAnyView``
(bool -> int, int -> float, str -> Device / dtype, element-wise containers,
the ``__tvm_ffi_*__`` protocols, a type's ``__ffi_convert__`` attribute).

This is upstream's ``tvm_ffi.core.TypeSchema`` / ``CAny`` in pure Python over
:mod:`tvmffi._reflection`.
"""

from __future__ import annotations

import collections.abc
import ctypes
import dataclasses
import json
import typing
from collections.abc import Mapping
from typing import Any, Callable, Optional

from . import _reflection as _r
from ._core import Device, Object
from ._ffi_values import (  # noqa: F401  (re-exported)
    _DEVICE_CLS,
    _ORIGIN_ALIASES,
    _ORIGIN_TO_TYPE_INDEX,
    _RETAINED_TYPE_KEYS,
    _TYPE_INDEX_TO_ORIGIN,
    ORIGIN_TYPE_INDEX_STRUCTURAL,
    ORIGIN_TYPE_INDEX_UNKNOWN,
    Bytes,
    CAny,
    CObject,
    PyNativeObject,
    String,
    _to_py_class_value,
    _UnionType,
)
from ._schema_convert import (  # noqa: F401  (re-exported)
    _build_converter,
    _Converter,
    _ConvertError,
    _describe,
    _dispatch,
    _dtype_cls,
)

# -- TypeSchema ------------------------------------------------------------------


@dataclasses.dataclass(repr=False)
class TypeSchema:
    """The FFI type of a value: an origin and its argument schemas.

    ``TypeSchema("Array", (TypeSchema("int"),))`` prints as ``Array[int]``.
    ``origin_type_index`` is the type index of the origin (-2 for Optional /
    Union, -3 when unknown). ``named_args`` holds named groups of argument
    schemas: a Callable has ``return`` (one schema) and, when its parameters
    are known, ``params`` (the legacy flat form ``Callable[ret, *params]`` is
    turned into these). ``fallback`` is the schema an annotation shows when the
    origin is not a type this process knows. ``type_key`` is the key a schema
    was parsed from when the origin folds it away with a loss (``ffi.BigInt``
    gives origin ``int``); it takes no part in equality.
    """

    origin: str
    args: Optional[tuple[TypeSchema, ...]] = None
    origin_type_index: int = dataclasses.field(default=ORIGIN_TYPE_INDEX_UNKNOWN, repr=False)
    fallback: Optional[TypeSchema] = None
    named_args: Optional[dict[str, tuple[TypeSchema, ...]]] = None
    type_key: Optional[str] = dataclasses.field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        origin = self.origin
        args = self.args
        if args is not None and not isinstance(args, tuple):
            args = self.args = tuple(args)
        if not isinstance(origin, str) or not origin:
            raise ValueError("schema type must be a nonempty string")
        if origin != "tuple" and args is None:
            args = self.args = ()
        if args is not None and any(not isinstance(a, TypeSchema) for a in args):
            raise TypeError("schema arguments must be TypeSchema instances")
        if self.fallback is not None and not isinstance(self.fallback, TypeSchema):
            raise TypeError("fallback must be a TypeSchema")
        named = self.named_args
        if named is not None:
            named = self.named_args = _normalize_named_args(named)
        if origin == "Callable":
            if args and named is None:  # the legacy flat form: return type, then parameters
                named = self.named_args = {"return": (args[0],)}
                if len(args) > 1:
                    named["params"] = args[1:]
                args = self.args = ()
            if named is not None:
                if args or set(named) - {"return", "params"}:
                    raise ValueError("Callable takes only the named groups return and params")
                if len(named.get("return", ())) != 1:
                    raise ValueError("Callable's return group must hold exactly one type")
        if origin == "Union":
            if len(args) < 2:  # type: ignore[arg-type]
                raise ValueError("Union must have at least two arguments")
        elif origin == "Optional":
            if len(args) != 1:  # type: ignore[arg-type]
                raise ValueError("Optional must have exactly one argument")
        elif origin in ("list", "Array", "List"):
            if len(args) not in (0, 1):  # type: ignore[arg-type]
                raise ValueError(f"{origin} must have 0 or 1 argument")
            if args == ():
                self.args = (TypeSchema("Any"),)
        elif origin in ("dict", "Map", "Dict"):
            if len(args) not in (0, 2):  # type: ignore[arg-type]
                raise ValueError(f"{origin} must have 0 or 2 arguments")
            if args == ():
                self.args = (TypeSchema("Any"), TypeSchema("Any"))
        if self.origin_type_index == ORIGIN_TYPE_INDEX_UNKNOWN:
            if origin in ("Optional", "Union"):
                self.origin_type_index = ORIGIN_TYPE_INDEX_STRUCTURAL
            elif origin in _ORIGIN_TO_TYPE_INDEX:
                self.origin_type_index = _ORIGIN_TO_TYPE_INDEX[origin]
            else:
                index = _r.type_key_to_index(origin)
                if index is not None:
                    self.origin_type_index = index

    # dataclasses with eq=True are unhashable; the converter is cached per instance.
    @property
    def _converter(self) -> _Converter:
        conv = self.__dict__.get("_conv")
        if conv is None:
            conv = self.__dict__["_conv"] = _build_converter(self)
        return conv

    def is_subtype_of(self, target_cls: type) -> bool:
        """Whether this schema's origin is an FFI object type derived from ``target_cls``'s."""
        info = getattr(target_cls, "__tvm_ffi_type_info__", None)
        if info is None:
            try:
                target = TypeSchema.from_annotation(target_cls).origin_type_index
            except TypeError:
                return False
            if target == _r.K_OBJECT:
                return self.origin_type_index >= _r.K_STATIC_OBJECT_BEGIN
            return False
        if self.origin_type_index == info.type_index:
            return True
        source = _r.type_info(self.origin_type_index) if self.origin_type_index >= 0 else None
        return source is not None and info.type_index in source.type_ancestors

    def __repr__(self) -> str:
        return self.repr(None)

    @staticmethod
    def _from_maybe_json(raw: object) -> TypeSchema:
        if isinstance(raw, TypeSchema):
            return raw
        if isinstance(raw, str):
            return TypeSchema.from_json_str(raw)
        if isinstance(raw, dict):
            return TypeSchema.from_json_obj(raw)
        if isinstance(raw, Mapping):
            return TypeSchema.from_json_obj(dict(raw))
        raise TypeError(f"expected TypeSchema, JSON string, or JSON dict, got {type(raw).__name__}")

    @staticmethod
    def from_json_obj(obj: dict[str, Any]) -> TypeSchema:
        """The schema of a parsed JSON object ``{"type": ..., "args": [...]}``."""
        if not isinstance(obj, dict) or "type" not in obj:
            raise TypeError(f"expected schema dict with 'type' key, got {type(obj).__name__}")
        raw_origin = obj["type"]
        if not isinstance(raw_origin, str):
            raise TypeError("schema type must be a string")
        origin = _ORIGIN_ALIASES.get(raw_origin, raw_origin)
        extra: dict[str, Any] = {
            "type_key": raw_origin if raw_origin in _RETAINED_TYPE_KEYS else None,
            "fallback": TypeSchema.from_json_obj(obj["fallback"]) if "fallback" in obj else None,
        }
        if "named_args" in obj:
            raw_named = obj["named_args"]
            if not isinstance(raw_named, dict) or any(
                not isinstance(v, list) or any(not isinstance(x, dict) for x in v)
                for v in raw_named.values()
            ):
                raise TypeError("named_args must map names to lists of type schemas")
            extra["named_args"] = {
                name: tuple(TypeSchema.from_json_obj(x) for x in values)
                for name, values in raw_named.items()
            }
        if "args" not in obj:
            return TypeSchema(origin, **extra)
        raw_args = obj["args"]
        if (
            raw_origin == "std::function"
            and isinstance(raw_args, (list, tuple))
            and len(raw_args) == 2
            and isinstance(raw_args[1], (list, tuple))
        ):  # std::function's older form: [return, [params...]]
            extra["named_args"] = {
                "return": (TypeSchema.from_json_obj(raw_args[0]),),
                "params": tuple(TypeSchema.from_json_obj(x) for x in raw_args[1]),
            }
            return TypeSchema(origin, **extra)
        if not isinstance(raw_args, (list, tuple)):
            raw_args = ()
        return TypeSchema(
            origin,
            tuple(TypeSchema.from_json_obj(a) for a in raw_args if isinstance(a, dict)),
            **extra,
        )

    @staticmethod
    def from_json_str(s: str) -> TypeSchema:
        """The schema of a JSON string."""
        return TypeSchema.from_json_obj(json.loads(s))

    @staticmethod
    def from_type_index(type_index: int, args: tuple[TypeSchema, ...] = ()) -> TypeSchema:
        """The schema of a type index (and argument schemas)."""
        origin = _TYPE_INDEX_TO_ORIGIN.get(type_index)
        type_key = None
        if origin is None:
            origin = _r.type_index_to_key(type_index)
            if origin in _RETAINED_TYPE_KEYS:
                type_key, origin = origin, _ORIGIN_ALIASES[origin]
        return TypeSchema(origin, args, origin_type_index=type_index, type_key=type_key)

    @staticmethod
    def from_annotation(annotation: object) -> TypeSchema:
        """The schema of a Python annotation (``int``, ``list[int]``, ``Optional[str]``,
        ``Callable[[int], str]``, a registered Object class, ...); TypeError if none."""
        return _from_annotation(annotation)

    def check_value(self, value: object) -> None:
        """TypeError (with what did not match) unless ``value`` converts to this type."""
        try:
            _dispatch(self._converter, value)
        except RecursionError:
            raise TypeError(
                f"type check failed for {self!r}: infinite __tvm_ffi_value__ cycle detected"
            ) from None
        except _ConvertError as err:
            raise TypeError(f"type check failed for {self!r}: {err.message}") from None

    def convert(self, value: object) -> CAny:
        """``value`` converted to this type, as a :class:`CAny` (TypeError if it does not)."""
        try:
            return _dispatch(self._converter, value)[0]
        except RecursionError:
            raise TypeError(
                f"type conversion failed for {self!r}: infinite __tvm_ffi_value__ cycle detected"
            ) from None
        except _ConvertError as err:
            raise TypeError(f"type conversion failed for {self!r}: {err.message}") from None

    def repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The schema as Python typing text (``int | None``, ``Callable[[str], int]``,
        ``Map[str, int]``); ``ty_map`` renames origins."""
        return self.output_repr(ty_map)

    def input_repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The annotation of what this type accepts (following ``__ffi_convert_type_schema__``)."""
        return self._repr_impl(ty_map, True, frozenset())

    def output_repr(self, ty_map: Callable[[str], str] | None = None) -> str:
        """The annotation of what this type produces."""
        return self._repr_impl(ty_map, False, frozenset())

    def _repr_impl(
        self, ty_map: Callable[[str], str] | None, input_mode: bool, expanded: frozenset[int]
    ) -> str:
        if (
            self.fallback is not None
            and self.origin_type_index == ORIGIN_TYPE_INDEX_UNKNOWN
            and self.origin not in ("tuple", "list", "dict")
        ):  # an origin this process does not know: show what it stands for
            return self.fallback._repr_impl(ty_map, input_mode, expanded)
        if (
            input_mode
            and self.origin_type_index >= _r.K_STATIC_OBJECT_BEGIN
            and self.origin_type_index not in expanded
        ):
            raw = _r.type_attr(self.origin_type_index, "__ffi_convert_type_schema__")
            if raw is not None:
                return TypeSchema._from_maybe_json(raw)._repr_impl(
                    ty_map, True, expanded | {self.origin_type_index}
                )
        origin = self.origin if ty_map is None else ty_map(self.origin)
        if origin == "Callable":
            named = self.named_args
            if not named:
                return "Callable[..., Any]"
            ret = named["return"][0]._repr_impl(ty_map, input_mode, expanded)
            if "params" not in named:
                return f"Callable[..., {ret}]"
            params = [p._repr_impl(ty_map, input_mode, expanded) for p in named["params"]]
            return f"Callable[[{', '.join(params)}], {ret}]"
        args = [a._repr_impl(ty_map, input_mode, expanded) for a in (self.args or ())]
        if origin == "Union":
            return " | ".join(args)
        if origin == "Optional":
            return args[0] + " | None"
        if origin == "tuple" and self.args == ():
            return "tuple[()]"
        if not args:
            return origin
        return f"{origin}[{', '.join(args)}]"

    def to_json(self) -> dict[str, Any]:
        """The schema as a JSON-compatible dict (a retained ``type_key`` in place of the
        origin it folded into, so that parsing the result keeps it)."""
        out: dict[str, Any] = {"type": self.type_key or self.origin}
        if self.args is not None and (self.args or self.origin == "tuple"):
            out["args"] = [a.to_json() for a in self.args]
        if self.named_args is not None:
            out["named_args"] = {
                name: [v.to_json() for v in values] for name, values in self.named_args.items()
            }
        if self.fallback is not None:
            out["fallback"] = self.fallback.to_json()
        return out


def _normalize_named_args(named: Any) -> dict[str, tuple[TypeSchema, ...]]:
    if not isinstance(named, dict):
        raise TypeError("named_args must be a dict of names to type lists")
    out = {}
    for name, values in named.items():
        if not isinstance(name, str) or not name:
            raise ValueError("named_args keys must be nonempty strings")
        if not isinstance(values, (list, tuple)):
            raise TypeError(f"named_args[{name!r}] must be a list of type schemas")
        if any(not isinstance(v, TypeSchema) for v in values):
            raise TypeError(f"named_args[{name!r}] must hold TypeSchema instances only")
        out[name] = tuple(values)
    return out


def _annotation_union(args: tuple[Any, ...]) -> TypeSchema:
    non_none = tuple(a for a in args if a is not type(None))
    converted = tuple(TypeSchema.from_annotation(a) for a in non_none)
    if len(non_none) < len(args):
        if len(non_none) == 1:
            return TypeSchema("Optional", converted)
        return TypeSchema("Optional", (TypeSchema("Union", converted),))
    return TypeSchema("Union", converted)


def _annotation_object(cls: type, targs: tuple[Any, ...]) -> TypeSchema:
    info = _r.TYPE_CLS_TO_INFO.get(cls)
    if info is None:
        info = cls.__dict__.get("__tvm_ffi_type_info__") if isinstance(cls, type) else None
    if info is None:
        raise TypeError(
            f"CObject subclass {cls!r} is not registered in TYPE_CLS_TO_INFO; use "
            "@register_object to register it"
        )
    origin = _TYPE_INDEX_TO_ORIGIN.get(info.type_index, info.type_key)
    n = len(targs)
    if n > 0:
        if origin in ("Array", "List") and n != 1:
            raise TypeError(f"{origin} requires 1 type argument, got {n}")
        if origin in ("Map", "Dict") and n != 2:
            raise TypeError(f"{origin} requires 2 type arguments, got {n}")
        return TypeSchema(
            origin,
            tuple(TypeSchema.from_annotation(a) for a in targs),
            origin_type_index=info.type_index,
        )
    return TypeSchema(origin, origin_type_index=info.type_index)


def _from_annotation(annotation: Any) -> TypeSchema:
    if annotation is type(None) or annotation is None:
        return TypeSchema("None")
    if annotation is typing.Any:
        return TypeSchema("Any")
    for py, name in (
        (bool, "bool"),
        (int, "int"),
        (float, "float"),
        (str, "str"),
        (bytes, "bytes"),
        (list, "List"),
        (dict, "Dict"),
        (tuple, "tuple"),
    ):
        if annotation is py:
            return TypeSchema(name)
    if annotation is collections.abc.Callable:
        return TypeSchema("Callable")
    if _UnionType is not None and isinstance(annotation, _UnionType):
        return _annotation_union(typing.get_args(annotation))
    origin = typing.get_origin(annotation)
    targs = typing.get_args(annotation)
    if origin is typing.Union:
        return _annotation_union(targs)
    if origin is list:
        if len(targs) > 1:
            raise TypeError(f"list takes at most 1 type argument, got {len(targs)}")
        return (
            TypeSchema("List", (TypeSchema.from_annotation(targs[0]),))
            if targs
            else TypeSchema("List")
        )
    if origin is dict:
        if len(targs) == 1 or len(targs) > 2:
            raise TypeError(f"dict requires 0 or 2 type arguments, got {len(targs)}")
        if len(targs) == 2:
            return TypeSchema(
                "Dict", (TypeSchema.from_annotation(targs[0]), TypeSchema.from_annotation(targs[1]))
            )
        return TypeSchema("Dict")
    if origin is tuple:
        if len(targs) == 2 and targs[1] is Ellipsis:
            return TypeSchema("Array", (TypeSchema.from_annotation(targs[0]),))
        if targs:
            return TypeSchema("tuple", tuple(TypeSchema.from_annotation(a) for a in targs))
        return TypeSchema("tuple", ()) if annotation is not tuple else TypeSchema("tuple")
    if origin is collections.abc.Callable:
        if len(targs) == 2:
            params, ret = targs
            ret_schema = TypeSchema.from_annotation(ret)
            named = {"return": (ret_schema,)}
            if isinstance(params, list):
                named["params"] = tuple(TypeSchema.from_annotation(p) for p in params)
            return TypeSchema("Callable", named_args=named)
        return TypeSchema("Callable")
    if isinstance(origin, type) and issubclass(origin, Object):
        return _annotation_object(origin, targs)
    if isinstance(annotation, type) and issubclass(annotation, Object):
        return _annotation_object(annotation, ())
    if annotation is CObject:
        return _annotation_object(annotation, ())  # TypeError: not registered
    if isinstance(annotation, type) and issubclass(annotation, PyNativeObject):
        if issubclass(annotation, str):
            return TypeSchema("str")
        if issubclass(annotation, bytes):
            return TypeSchema("bytes")
    if annotation is _dtype_cls():
        return TypeSchema("dtype")
    if annotation is Device:
        return TypeSchema("Device")
    if annotation is ctypes.c_void_p:
        return TypeSchema("ctypes.c_void_p")
    if isinstance(annotation, type) and hasattr(annotation, "__dlpack__"):
        return TypeSchema("Tensor")
    raise TypeError(f"Cannot convert {annotation!r} to TypeSchema")


__all__ = ["Bytes", "CAny", "PyNativeObject", "String", "TypeSchema", "_to_py_class_value"]

"""What the stub generator knows of functions and types, apart from any target language.

:class:`FuncInfo` is a function with its type schema, :class:`ObjectInfo` a
reflected type with its fields, methods and constructor parameters;
:class:`Options` and :class:`InitConfig` hold the command line. The
``python_generator`` package turns these into Python text.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Optional

from .._type_schema import TypeSchema
from ..core import MISSING, TypeInfo, _lookup_type_attr

__all__ = [
    "FuncInfo",
    "InitConfig",
    "InitFieldInfo",
    "NamedTypeSchema",
    "ObjectInfo",
    "Options",
    "schema_of",
]


def schema_of(raw: Any, fallback: TypeSchema | None = None) -> TypeSchema:
    """A type schema from metadata: a TypeSchema, a JSON text or a parsed JSON dict.

    ``fallback`` (default ``Any``) when ``raw`` is None or empty.
    """
    if raw is None or raw == "" or raw == {}:
        return fallback if fallback is not None else TypeSchema("Any")
    if isinstance(raw, TypeSchema):
        return raw
    if isinstance(raw, str):
        return TypeSchema.from_json_str(raw)
    return TypeSchema.from_json_obj(dict(raw))


@dataclasses.dataclass
class InitConfig:
    """What ``--init`` writes new ``_ffi_api.py`` / ``__init__.py`` files for.

    ``pkg`` is the distribution that ships the library (``my-ext``),
    ``shared_target`` the library's CMake target (``my_ext``: the file is
    ``libmy_ext.so``), ``prefix`` the registry prefix to cover (``my_ext.``:
    functions and types named ``my_ext.*``).
    """

    pkg: str
    shared_target: str
    prefix: str


@dataclasses.dataclass
class Options:
    """The command-line options of ``tvm-ffi-stubgen``.

    ``ffi_package`` is the module the generated imports name for the FFI
    package itself (upstream spells it ``tvm_ffi``: generated text names it
    ``tvm_ffi...`` internally, and the import section writes it as this).
    ``check``: change no file, fail when one would change. ``coverage_out``:
    where to write the native-layout report (:mod:`.layout`), or None.
    """

    imports: list[str] = dataclasses.field(default_factory=list)
    dlls: list[str] = dataclasses.field(default_factory=list)
    init: Optional[InitConfig] = None
    indent: int = 4
    files: list[str] = dataclasses.field(default_factory=list)
    verbose: bool = False
    dry_run: bool = False
    target: str = "python"
    ffi_package: str = "tvmffi"
    check: bool = False
    coverage_out: Optional[str] = None


@dataclasses.dataclass(init=False, repr=False)
class NamedTypeSchema(TypeSchema):
    """A type schema with a name: a field's, or a function's (its full dotted name).

    A reflected field's schema also carries what the registry records of the
    native field: ``size``, ``alignment`` and ``offset`` in bytes (the offset
    from the start of the object header, as the C ABI getters count it; all
    None for parameters and made-up schemas), its static ``default``
    (:data:`MISSING` when none; ``default_is_factory`` when it is a factory to
    call), ``structural_eq`` (``"ignore"``, ``"def-pattern"``, ``"def-simple"``
    or None) and ``frozen`` (read-only).
    """

    name: str = ""
    size: Optional[int] = None
    alignment: Optional[int] = None
    offset: Optional[int] = None
    default: Any = MISSING
    default_is_factory: bool = False
    structural_eq: Optional[str] = None
    frozen: bool = False

    def __init__(
        self,
        name: str,
        schema: TypeSchema,
        *,
        size: Optional[int] = None,
        alignment: Optional[int] = None,
        offset: Optional[int] = None,
        default: Any = MISSING,
        default_is_factory: bool = False,
        structural_eq: Optional[str] = None,
        frozen: bool = False,
    ) -> None:
        """The schema ``schema`` named ``name``, with the native field's facts."""
        super().__init__(
            schema.origin,
            schema.args,
            schema.origin_type_index,
            fallback=schema.fallback,
            named_args=schema.named_args,
            type_key=schema.type_key,
        )
        self.name = name
        self.size = size
        self.alignment = alignment
        self.offset = offset
        self.default = default
        self.default_is_factory = default_is_factory
        self.structural_eq = structural_eq
        self.frozen = frozen

    @staticmethod
    def from_type_field(field: Any) -> NamedTypeSchema:
        """The schema of a reflected :class:`~tvmffi.core.TypeField`, with its facts."""
        factory = getattr(field, "c_default_factory", MISSING)
        is_factory = factory is not MISSING and factory is not None
        return NamedTypeSchema(
            field.name,
            _field_schema(field),
            size=field.size,
            alignment=field.alignment,
            offset=field.offset,
            default=factory if is_factory else getattr(field, "c_default", MISSING),
            default_is_factory=is_factory,
            structural_eq=getattr(field, "c_structural_eq", None),
            frozen=bool(field.frozen),
        )

    def __repr__(self) -> str:
        """``name: schema``."""
        return f"{self.name}: {self.repr()}"


@dataclasses.dataclass
class FuncInfo:
    """A function: its schema is ``Callable`` with the return type first, then the parameters.

    ``is_member``: a method whose first parameter is the object (``self``).
    """

    schema: NamedTypeSchema
    is_member: bool

    @staticmethod
    def from_schema(name: str, schema: TypeSchema, *, is_member: bool = False) -> FuncInfo:
        """The function ``name`` of type ``schema``."""
        return FuncInfo(NamedTypeSchema(name, schema), is_member)

    @property
    def short_name(self) -> str:
        """The name after the last dot."""
        return self.schema.name.rsplit(".", 1)[-1]


@dataclasses.dataclass
class InitFieldInfo:
    """A parameter of a type's generated constructor (one per field that takes part)."""

    name: str
    schema: NamedTypeSchema
    kw_only: bool
    has_default: bool


@dataclasses.dataclass
class ObjectInfo:
    """A reflected type: its own fields and methods, its key and its parent's key.

    ``has_init``: it can be constructed (an ``__ffi_init__`` method or type
    attribute); ``init_fields`` are then the constructor's parameters, the
    ancestors' fields first. ``fields`` are the type's own; ``ancestors`` the
    keys of all its ancestors, the root first. ``total_size`` is the native
    ``sizeof`` (header included) when the type registered metadata of its
    own, else None (it would be the parent's). ``is_final`` is the type's
    ``__ffi_type_final__`` attribute (None when it registered none).
    """

    fields: list[NamedTypeSchema]
    methods: list[FuncInfo]
    type_key: Optional[str] = None
    parent_type_key: Optional[str] = None
    init_fields: list[InitFieldInfo] = dataclasses.field(default_factory=list)
    has_init: bool = False
    ancestors: list[str] = dataclasses.field(default_factory=list)
    total_size: Optional[int] = None
    is_final: Optional[bool] = None

    def has_overloaded_methods(self) -> bool:
        """Whether some method name (static or not) comes more than once."""
        keys = [(m.schema.name, m.is_member) for m in self.methods]
        return len(set(keys)) != len(keys)

    @staticmethod
    def from_type_info(type_info: TypeInfo) -> ObjectInfo:
        """The information the runtime's reflection has on a type."""
        parent = type_info.parent_type_info
        ancestors: list[str] = []
        up = parent
        while up is not None:
            ancestors.append(up.type_key)
            up = up.parent_type_info
        ancestors.reverse()
        methods = [
            FuncInfo(
                NamedTypeSchema(
                    m.name, schema_of(m.metadata.get("type_schema"), TypeSchema("Callable"))
                ),
                not m.is_static,
            )
            for m in type_info.methods or ()
        ]
        has_init = (
            any(m.name == "__ffi_init__" for m in type_info.methods or ())
            or _lookup_type_attr(type_info.type_index, "__ffi_init__") is not None
        )
        init_fields: list[InitFieldInfo] = []
        if has_init:
            chain: list[TypeInfo] = []
            info: TypeInfo | None = type_info
            while info is not None:
                chain.append(info)
                info = info.parent_type_info
            for ancestor in reversed(chain):
                for f in ancestor.fields or ():
                    if f.c_init:
                        init_fields.append(
                            InitFieldInfo(
                                f.name,
                                NamedTypeSchema.from_type_field(f),
                                bool(f.c_kw_only),
                                bool(f.c_has_default),
                            )
                        )
        return ObjectInfo(
            fields=[NamedTypeSchema.from_type_field(f) for f in type_info.fields or ()],
            methods=methods,
            type_key=type_info.type_key,
            parent_type_key=parent.type_key if parent is not None else None,
            init_fields=init_fields,
            has_init=has_init,
            ancestors=ancestors,
            # the root is the C ABI object header, whose size is fixed whether or not
            # the runtime registered metadata for it
            total_size=(
                type_info.total_size if type_info._has_type_metadata or parent is None else None
            ),
            is_final=_lookup_type_attr(type_info.type_index, "__ffi_type_final__"),
        )


def _field_schema(field: Any) -> TypeSchema:
    raw = field.metadata.get("type_schema") if isinstance(field.metadata, dict) else None
    if raw is None and isinstance(getattr(field, "ty", None), TypeSchema):
        return field.ty
    return schema_of(raw)

"""Rust names: ``use`` items and the per-file collector, type spelling, identifiers, modules."""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Optional

from . import consts as RC
from .directives import Directives

if TYPE_CHECKING:
    from ...core import TypeSchema

__all__ = [
    "RustImports",
    "RustUse",
    "check_tokens",
    "render_rust_type",
    "rust_ident",
    "rust_module_path",
]


@dataclasses.dataclass(frozen=True, init=False)
class RustUse:
    """One ``use <path>;``. A dotted FFI name is taken as a path (``ffi.String`` is
    ``tvm_ffi::String``); a name without ``::`` (``i64``) is in scope already."""

    path: str

    def __init__(self, name: str) -> None:
        if "::" not in name and "." in name:
            head, _, rest = name.partition(".")
            name = "::".join([RC.MODULE_OF_NAMESPACE.get(head, head), *rest.split(".")])
        object.__setattr__(self, "path", name)

    @property
    def leaf(self) -> str:
        """The name the item brings into scope."""
        return self.path.split("::")[-1]

    def as_use_line(self) -> str:
        """``use <path>;``, or ``""`` when nothing needs importing."""
        return f"use {self.path};" if "::" in self.path else ""


def is_crate_type_key(type_key: str) -> bool:
    """Whether the ``tvm_ffi`` crate itself binds ``type_key`` (its namespace is ``ffi``)."""
    return type_key.split(".", 1)[0] in RC.MODULE_OF_NAMESPACE


def builtin_mirror_name(type_key: str) -> str:
    """The struct standing in for a builtin ancestor: ``ffi.IntEnum`` -> ``FfiIntEnumObj``."""
    namespace, _, name = type_key.rpartition(".")
    return namespace.replace(".", "_").capitalize() + name + "Obj"


@dataclasses.dataclass
class RustImports:
    """What the blocks of one file need: ``use`` items, directives, builtin stand-ins.

    ``builtin_mirrors`` maps each builtin ancestor a block embeds (root side
    first) to the struct its stand-in embeds; ``reserved`` holds the names the
    file's blocks define, which no ``use`` may bring in.
    """

    items: list[RustUse] = dataclasses.field(default_factory=list)
    directives: Directives = dataclasses.field(default_factory=Directives)
    builtin_mirrors: dict[str, str] = dataclasses.field(default_factory=dict)
    reserved: set[str] = dataclasses.field(default_factory=set)

    def record(self, name: str) -> str:
        """Import ``name`` once; return how code spells it: its leaf, or the whole
        path when that leaf already names something else in the file."""
        item = RustUse(name)
        if not item.as_use_line():
            return item.leaf
        if item in self.items:
            return item.leaf
        if item.leaf in self.reserved or any(i.leaf == item.leaf for i in self.items):
            return item.path
        self.items.append(item)
        return item.leaf

    def record_builtin_base(self, chain: Iterable[str]) -> str:
        """The struct to embed under the builtin ancestors ``chain`` (root side first):
        ``tvm_ffi::Object`` when empty, else the stand-in of the last one."""
        base = self.record(f"{RC.MODULE_OF_NAMESPACE['ffi']}::Object")
        for key in chain:
            self.builtin_mirrors.setdefault(key, base)
            base = builtin_mirror_name(key)
        return base


Renderer = Callable[[str, Optional[str]], Optional[str]]


def render_rust_type(schema: TypeSchema, ty_render: Renderer) -> str | None:
    """``schema`` as a Rust type, or None when the crate has no type for some part.

    ``ty_render(origin, type_key)`` names one leaf type (``type_key``: the key the
    schema was read from when it differs from the origin, as ``ffi.BigInt`` for ``int``).
    """
    origin = schema.origin
    if origin in RC.NO_RUST_TYPE:
        return None
    if origin == "Callable":
        return ty_render(origin, None)
    if origin in ("Array", "List", "Map"):
        return _apply(
            ty_render(origin, None), [render_rust_type(a, ty_render) for a in schema.args]
        )
    if origin == "Optional":
        return _apply("Option", [render_rust_type(schema.args[0], ty_render)])
    return ty_render(origin, schema.type_key)


def _apply(generic: str | None, params: list[str | None]) -> str | None:
    if generic is None or None in params:
        return None
    return f"{generic}<{', '.join(p for p in params if p is not None)}>"


# A run of lower-case module segments, each followed by `::`, before a name (an
# optional leading `::` too): `crate::ir::`, `super::super::`, `::core::mem::`.
_QUALIFIER = re.compile(r"(?<![\w:])(?:::)?(?:[a-z_][a-z0-9_]*::)+(?=[A-Za-z_])")
_TOKEN = re.compile(r"\w+|\S")


def check_tokens(lines: Iterable[str]) -> tuple[str, ...]:
    """The tokens of Rust ``lines`` that say what they define, not how they are spelled.

    ``use`` and comment lines, module qualifiers and a comma before a closing
    bracket are left out: where a name is imported from and how a long line is
    wrapped do not count.
    """
    kept = [s for s in (line.strip() for line in lines) if not s.startswith(("use ", "//"))]
    tokens = _TOKEN.findall(_QUALIFIER.sub("", " ".join(kept)))
    return tuple(
        t
        for i, t in enumerate(tokens)
        if not (t == "," and i + 1 < len(tokens) and tokens[i + 1] in ")]}")
    )


def rust_ident(name: str) -> str:
    """A reflected field name as a Rust identifier.

    A C++ member's one trailing underscore (``body_``) and a dunder's underscores
    (``__dict__``) are dropped; a keyword becomes ``r#name``, or ``name_`` when it
    has no raw form; ``base`` (the generated parent slot) becomes ``base_``.
    """
    if len(name) > 4 and name[:2] == "__" and name[-2:] == "__":
        name = name[2:-2]
    elif len(name) > 1 and name.endswith("_") and not name.endswith("__"):
        name = name[:-1]
    if name in RC.NO_RAW_FORM or name in RC.OWN_MEMBERS:
        return name + "_"
    return f"r#{name}" if name in RC.RUST_KEYWORDS else name


@functools.lru_cache(maxsize=None)
def rust_module_path(path: Path) -> tuple[str, ...]:
    """The module a ``.rs`` file is, from where it lies under its crate's ``src``.

    The crate is the closest directory above with a ``Cargo.toml``; ``src/lib.rs``
    and ``src/main.rs`` are ``("crate",)``, ``src/a/b.rs`` and ``src/a/b/mod.rs``
    are ``("crate", "a", "b")``. ValueError for a file in no crate or outside ``src``.
    """
    path = Path(path).resolve()
    crate = next((d for d in path.parents if (d / "Cargo.toml").is_file()), None)
    if crate is None:
        raise ValueError(f"{path} is in no Cargo crate (no Cargo.toml in a folder above it)")
    src = crate / "src"
    if src not in path.parents:
        raise ValueError(f"{path} is not under {src}: no module of the crate holds it")
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "mod" or (len(parts) == 1 and parts[0] in ("lib", "main")):
        parts.pop()
    return ("crate", *(f"r#{p}" if p in RC.RUST_KEYWORDS else p for p in parts))

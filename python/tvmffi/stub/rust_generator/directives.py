"""The one-line directives of a ``.rs`` file, parsed and kept per file.

A field is addressed as ``<type_key>.<field>``, a type as ``<type_key>``::

    // tvm-ffi-stubgen(field): tirx.Add.a -> PrimExpr      the field's Rust type
    // tvm-ffi-stubgen(nullable): ir.Expr.span             the field may be None
    // tvm-ffi-stubgen(enum): tirx.For.kind -> ForKind(i32) { Serial=0 }
    // tvm-ffi-stubgen(opaque): ir.SourceName              never mirror its bytes
    // tvm-ffi-stubgen(upcast): tirx.Add -> PrimExpr       one more typed view
    // tvm-ffi-stubgen(custom-new): tirx.Add               ``new`` is hand-written
"""

from __future__ import annotations

import dataclasses
import re

__all__ = ["Directives", "EnumSpec"]

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_ENUM = re.compile(
    rf"(?P<target>\S+)\s*->\s*(?P<name>{_IDENT})\((?P<repr>[iu](?:8|16|32|64))\)"
    r"\s*(?:\{(?P<members>[^{}]*)\})?"
)
_MEMBER = re.compile(rf"(?P<name>{_IDENT})\s*=\s*(?P<value>-?[0-9]+)")

_FIELD = "<type_key>.<field>"
_TYPE = "<type_key>"
_ENUM_FORM = f"{_FIELD} -> Name(i32) {{ A=0, B=1 }}"


@dataclasses.dataclass(frozen=True)
class EnumSpec:
    """An integer newtype for one field: its name, its integer type, its named values."""

    name: str
    repr: str
    members: tuple[tuple[str, int], ...]


class _Malformed(ValueError):
    def __init__(self, name: str, lineno: int, form: str, payload: str) -> None:
        super().__init__(
            f"Malformed `{name}` directive at line {lineno}: {payload.strip()!r} is not "
            f"of the form `{form}`"
        )


@dataclasses.dataclass
class Directives:
    """One file's directives, each keyed by the field or type it addresses."""

    field_types: dict[str, str] = dataclasses.field(default_factory=dict)
    nullable: set[str] = dataclasses.field(default_factory=set)
    enums: dict[str, EnumSpec] = dataclasses.field(default_factory=dict)
    opaque: set[str] = dataclasses.field(default_factory=set)
    upcasts: dict[str, list[str]] = dataclasses.field(default_factory=dict)
    custom_new: set[str] = dataclasses.field(default_factory=set)

    def add(self, name: str, payload: str, lineno: int) -> None:
        """Parse the directive ``name`` with ``payload`` (line ``lineno``) and keep it.

        ValueError, naming the line and the expected form, for a malformed payload
        or an unknown ``name``.
        """
        if name == "field":
            lhs, rust_type = _arrow(name, payload, lineno, f"{_FIELD} -> <RustType>")
            self.field_types[_target(name, lhs, lineno, payload, field=True)] = rust_type
        elif name == "nullable":
            self.nullable.add(_target(name, payload, lineno, payload, field=True))
        elif name == "enum":
            match = _ENUM.fullmatch(payload.strip())
            if match is None:
                raise _Malformed(name, lineno, _ENUM_FORM, payload)
            members = []
            for item in (match["members"] or "").split(","):
                if item.strip():
                    member = _MEMBER.fullmatch(item.strip())
                    if member is None:
                        raise _Malformed(name, lineno, _ENUM_FORM, payload)
                    members.append((member["name"], int(member["value"])))
            target = _target(name, match["target"], lineno, payload, field=True)
            self.enums[target] = EnumSpec(match["name"], match["repr"], tuple(members))
        elif name == "opaque":
            self.opaque.add(_target(name, payload, lineno, payload, field=False))
        elif name == "upcast":
            lhs, rust_type = _arrow(name, payload, lineno, f"{_TYPE} -> <RustType>")
            key = _target(name, lhs, lineno, payload, field=False)
            self.upcasts.setdefault(key, []).append(rust_type)
        elif name == "custom-new":
            self.custom_new.add(_target(name, payload, lineno, payload, field=False))
        else:
            raise ValueError(f"Unknown directive `{name}` at line {lineno}")


def _arrow(name: str, payload: str, lineno: int, form: str) -> tuple[str, str]:
    lhs, arrow, rhs = payload.partition("->")
    if not arrow or not rhs.strip():
        raise _Malformed(name, lineno, form, payload)
    return lhs, rhs.strip()


def _target(name: str, text: str, lineno: int, payload: str, *, field: bool) -> str:
    """A ``<type_key>`` (or, with ``field``, ``<type_key>.<field>``) without spaces."""
    target = text.strip()
    if not target or any(c.isspace() for c in target) or (field and "." not in target.strip(".")):
        raise _Malformed(name, lineno, _FIELD if field else _TYPE, payload)
    return target

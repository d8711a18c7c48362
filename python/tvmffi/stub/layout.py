"""Whether a reflected type's memory layout is known byte for byte (``tvm-ffi-stubgen``).

A stub generator for a language with native structs may hold an object by
value only when it can lay the struct out exactly as C++ did. The registry
records each type's ``sizeof`` (:attr:`.ObjectInfo.total_size`, None when the
type registered no metadata of its own) and every field's size, alignment and
offset (from the start of the object header). :func:`classify` decides, per
type, with one rule:

    the type's own fields, by offset, fill ``[parent's total_size,
    total_size)``, leaving only the gaps that alignment forces.

A cursor starts at the parent's size; each field must start at the cursor
rounded up to the field's alignment; at the end, the cursor rounded up to the
largest alignment along the chain (the header's at least) must be the
``total_size``. The type's parent must itself be complete. Anything else is
``opaque`` (a normal outcome: the generator then reaches the fields through
the C ABI), with a reason and a sentence saying which bytes failed.

Two target rules come from the caller: ``field_renderable`` (can the target
write this field's type at all) and ``forced_opaque`` (types a directive keeps
opaque); ``unmirrored`` types have no struct in the target at all.
:func:`coverage_report` gives the verdicts as JSON-ready data.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, Callable, Iterable, Literal, Mapping, Optional

from .utils import NamedTypeSchema, ObjectInfo

__all__ = [
    "OBJECT_HEADER_ALIGNMENT",
    "ByteRange",
    "FieldBytes",
    "OpaqueReason",
    "Verdict",
    "align_up",
    "classify",
    "coverage_report",
    "write_coverage_report",
]

#: The ``TVMFFIObject`` header's alignment (its 64-bit counters): the least any object has.
OBJECT_HEADER_ALIGNMENT = 8

#: Why a type is opaque: ``layout-unknown`` (no metadata of its own, or a field
#: without byte facts), ``parent-opaque``, ``field-overlap`` (a field starts
#: before the cursor or ends past ``total_size``), ``uncovered-bytes`` (bytes no
#: field and no alignment explains: a hidden member, a vptr), ``unrenderable-field``
#: (the target cannot write a field's type), ``by-directive``, ``no-mirror``.
OpaqueReason = Literal[
    "layout-unknown",
    "parent-opaque",
    "field-overlap",
    "uncovered-bytes",
    "unrenderable-field",
    "by-directive",
    "no-mirror",
]


def align_up(value: int, alignment: int) -> int:
    """``value`` rounded up to a multiple of ``alignment`` (a positive integer)."""
    return -(-value // alignment) * alignment


@dataclasses.dataclass(frozen=True)
class ByteRange:
    """The bytes ``[start, end)`` of an object, counted from the start of its header."""

    start: int
    end: int

    def __str__(self) -> str:
        return f"[{self.start}, {self.end})"


@dataclasses.dataclass(frozen=True)
class FieldBytes:
    """Where a field lies: ``[offset, offset + size)``, aligned to ``alignment``."""

    name: str
    offset: int
    size: int
    alignment: int

    @property
    def end(self) -> int:
        """The first byte after the field."""
        return self.offset + self.size


@dataclasses.dataclass
class Verdict:
    """The outcome for one type: ``complete`` or ``opaque`` (with ``reason``) and the evidence.

    ``own_bytes`` is the region the type's fields must fill (None when it is
    not known); ``fields`` the type's own fields by offset; ``padding`` the
    gaps alignment explains, ``uncovered`` those it does not; ``alignment``
    the largest alignment along the chain; ``detail`` one readable sentence.
    ``target`` holds a generator's own facts for the coverage report.
    """

    type_key: str
    verdict: Literal["complete", "opaque"]
    reason: Optional[OpaqueReason]
    detail: str
    parent: Optional[str] = None
    ancestors: list[str] = dataclasses.field(default_factory=list)
    total_size: Optional[int] = None
    is_final: Optional[bool] = None
    own_bytes: Optional[ByteRange] = None
    alignment: Optional[int] = None
    fields: list[FieldBytes] = dataclasses.field(default_factory=list)
    uncovered: list[ByteRange] = dataclasses.field(default_factory=list)
    padding: list[ByteRange] = dataclasses.field(default_factory=list)
    target: Optional[dict[str, Any]] = None

    @property
    def is_complete(self) -> bool:
        """Whether the layout is known byte for byte (and no rule made it opaque)."""
        return self.verdict == "complete"

    def _demote(self, reason: OpaqueReason, detail: str) -> None:
        self.verdict, self.reason, self.detail = "opaque", reason, detail


def classify(
    infos: Mapping[str, ObjectInfo],
    *,
    field_renderable: Callable[[NamedTypeSchema], bool] | None = None,
    forced_opaque: Iterable[str] = (),
    unmirrored: Iterable[str] = (),
) -> dict[str, Verdict]:
    """A :class:`Verdict` for every type of ``infos`` (type key -> :class:`ObjectInfo`).

    Every ancestor of a type must be in ``infos`` too (KeyError naming the
    missing key otherwise); the order does not matter. ``field_renderable`` is
    asked about the fields of types whose bytes are complete, in offset order;
    ``forced_opaque`` demotes complete types only (a layout reason wins);
    ``unmirrored`` types are opaque whatever their bytes, and so are the
    descendants of any opaque type.
    """
    forced = frozenset(forced_opaque)
    no_mirror = frozenset(unmirrored)
    out: dict[str, Verdict] = {}

    def visit(key: str) -> Verdict:
        done = out.get(key)
        if done is not None:
            return done
        info = infos[key]  # KeyError: a missing ancestor
        parent = visit(info.parent_type_key) if info.parent_type_key is not None else None
        verdict = _verdict(info, parent, key in no_mirror)
        if verdict.is_complete and field_renderable is not None:
            for f in sorted(info.fields, key=lambda f: f.offset or 0):
                if not field_renderable(f):
                    verdict._demote(
                        "unrenderable-field", f"field {f.name!r} ({f}) has no native mirror"
                    )
                    break
        if verdict.is_complete and key in forced:
            verdict._demote(
                "by-directive", "vetoed by directive although the layout is reproducible"
            )
        out[key] = verdict
        return verdict

    for key in infos:
        visit(key)
    return out


def _verdict(info: ObjectInfo, parent: Verdict | None, unmirrored: bool) -> Verdict:
    key = info.type_key or "?"
    v = Verdict(
        type_key=key,
        verdict="opaque",
        reason=None,
        detail="",
        parent=info.parent_type_key,
        ancestors=list(info.ancestors),
        total_size=info.total_size,
        is_final=info.is_final,
    )
    # The order of the checks decides which reason a type with several gets.
    if unmirrored:
        v.reason = "no-mirror"
        v.detail = "its bytes are owned by the target's runtime and never mirrored"
        return v
    facts = _field_bytes(info)
    if isinstance(facts, list):
        v.fields = facts
    if info.total_size is None:
        v.reason, v.detail = "layout-unknown", "no metadata of its own: total_size is unknown"
        return v
    if isinstance(facts, str):
        v.reason, v.detail = "layout-unknown", f"field {facts!r} carries no native layout facts"
        return v
    if parent is None:
        # the root: the C ABI object header, nothing of its own to fill
        v.verdict = "complete"
        v.detail = f"object header [0, {info.total_size}): owned by the C ABI"
        v.own_bytes = ByteRange(info.total_size, info.total_size)
        v.alignment = OBJECT_HEADER_ALIGNMENT
        return v
    if not parent.is_complete:
        v.reason = "parent-opaque"
        v.detail = f"parent {parent.type_key!r} is opaque ({parent.reason})"
        return v
    assert parent is not None and parent.own_bytes is not None and parent.alignment is not None
    start = parent.own_bytes.end
    v.own_bytes = ByteRange(start, info.total_size)
    v.alignment = max([parent.alignment] + [f.alignment for f in facts])
    failure = _fill(v, start, info.total_size)
    if failure is None:
        v.verdict = "complete"
        v.detail = f"reflected fields fill {v.own_bytes} exactly" + (
            f" (alignment padding {', '.join(map(str, v.padding))})" if v.padding else ""
        )
    else:
        v.reason, v.detail = failure
    return v


def _field_bytes(info: ObjectInfo) -> list[FieldBytes] | str:
    """The fields by offset, or the name of the first one that lacks a byte fact."""
    out = []
    for f in info.fields:
        if f.offset is None or f.size is None or f.alignment is None:
            return f.name
        out.append(FieldBytes(f.name, f.offset, f.size, f.alignment))
    return sorted(out, key=lambda f: f.offset)


def _fill(v: Verdict, start: int, total: int) -> tuple[OpaqueReason, str] | None:
    """Walk the fields over ``[start, total)``: padding and uncovered gaps into ``v``."""
    cursor = start
    for f in v.fields:
        if f.offset < cursor:
            return (
                "field-overlap",
                f"field {f.name!r} at {ByteRange(f.offset, f.end)} starts before byte {cursor}",
            )
        if f.end > total:
            return (
                "field-overlap",
                f"field {f.name!r} at {ByteRange(f.offset, f.end)} ends past total_size {total}",
            )
        _gap(v, cursor, f.offset, align_up(cursor, f.alignment))
        cursor = f.end
    assert v.alignment is not None
    _gap(v, cursor, total, align_up(cursor, v.alignment))
    if v.uncovered:
        return (
            "uncovered-bytes",
            f"bytes {', '.join(map(str, v.uncovered))} of {v.own_bytes} are not accounted "
            "for by reflected fields",
        )
    return None


def _gap(v: Verdict, cursor: int, actual: int, aligned: int) -> None:
    """Bytes ``[cursor, actual)``: padding when alignment puts the next thing there."""
    if actual == cursor:
        return
    (v.padding if actual == aligned else v.uncovered).append(ByteRange(cursor, actual))


def coverage_report(verdicts: Mapping[str, Verdict]) -> dict[str, Any]:
    """The verdicts as JSON-ready data, by type key in sorted order."""
    report: dict[str, Any] = {}
    for key in sorted(verdicts):
        v = verdicts[key]
        entry: dict[str, Any] = {
            "verdict": v.verdict,
            "reason": v.reason,
            "detail": v.detail,
            "parent": v.parent,
            "ancestors": list(v.ancestors),
            "total_size": v.total_size,
            "is_final": v.is_final,
            "own_bytes": None if v.own_bytes is None else [v.own_bytes.start, v.own_bytes.end],
            "fields": [
                {"name": f.name, "offset": f.offset, "size": f.size, "alignment": f.alignment}
                for f in v.fields
            ],
            "uncovered": [[r.start, r.end] for r in v.uncovered],
            "padding": [[r.start, r.end] for r in v.padding],
        }
        if v.target is not None:
            entry["target"] = v.target
        report[key] = entry
    return report


def write_coverage_report(path: Path, verdicts: Mapping[str, Verdict]) -> None:
    """Write :func:`coverage_report` to ``path`` as indented JSON."""
    Path(path).write_text(
        json.dumps(coverage_report(verdicts), indent=2, sort_keys=False) + "\n", encoding="utf-8"
    )

"""tvmffi.stub.layout: which reflected types have a layout known byte for byte."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tvmffi
from tvmffi.core import TypeSchema
from tvmffi.stub import cli
from tvmffi.stub.layout import ByteRange, FieldBytes, align_up, classify, coverage_report
from tvmffi.stub.utils import NamedTypeSchema, ObjectInfo

HEADER = 24


def _f(
    name: str, offset: int | None, size: int | None, align: int | None = None
) -> NamedTypeSchema:
    return NamedTypeSchema(
        name,
        TypeSchema("int"),
        size=size,
        alignment=size if align is None else align,
        offset=offset,
    )


def _obj(key: str, parent: str | None, total: int | None, *fields: NamedTypeSchema) -> ObjectInfo:
    return ObjectInfo(
        fields=list(fields), methods=[], type_key=key, parent_type_key=parent, total_size=total
    )


ROOT = _obj("ffi.Object", None, HEADER)


def test_align_up() -> None:
    assert [align_up(v, 8) for v in (0, 1, 8, 9)] == [0, 8, 8, 16]


def test_complete_padding_and_gaps() -> None:
    infos = {
        "ffi.Object": ROOT,
        "a.Pair": _obj("a.Pair", "ffi.Object", 40, _f("i32", 32, 4), _f("i64", 24, 8)),
        "a.Gap": _obj("a.Gap", "ffi.Object", 48, _f("x", 24, 8), _f("y", 40, 4)),
        "a.Tail": _obj("a.Tail", "a.Pair", 40, _f("z", 36, 4)),
        "a.Leaf": _obj("a.Leaf", "a.Pair", 48, _f("w", 40, 8)),
    }
    v = classify(infos)
    assert v["ffi.Object"].is_complete and v["ffi.Object"].own_bytes == ByteRange(24, 24)
    pair = v["a.Pair"]
    assert pair.is_complete and pair.own_bytes == ByteRange(24, 40)
    assert pair.fields == [FieldBytes("i64", 24, 8, 8), FieldBytes("i32", 32, 4, 4)]
    assert pair.padding == [ByteRange(36, 40)] and pair.uncovered == []
    gap = v["a.Gap"]
    assert (gap.reason, gap.uncovered, gap.padding) == (
        "uncovered-bytes",
        [ByteRange(32, 40)],
        [ByteRange(44, 48)],
    )
    assert v["a.Tail"].reason == "field-overlap"  # placed in the parent's tail padding
    assert v["a.Leaf"].is_complete
    # a directive keeps a complete type opaque, and its children with it
    forced = classify(infos, forced_opaque={"a.Pair"})
    assert forced["a.Pair"].reason == "by-directive"
    assert forced["a.Leaf"].reason == "parent-opaque" and "by-directive" in forced["a.Leaf"].detail
    with pytest.raises(KeyError, match="a.Pair"):
        classify({"a.Leaf": infos["a.Leaf"]})


def test_unknown_layouts() -> None:
    infos = {
        "ffi.Object": ROOT,
        "b.NoMeta": _obj("b.NoMeta", "ffi.Object", None),
        "b.Child": _obj("b.Child", "b.NoMeta", 40, _f("x", 32, 8)),
        "b.NoFacts": _obj("b.NoFacts", "ffi.Object", 32, _f("x", None, None)),
    }
    v = classify(infos, unmirrored={"ffi.Object"})
    assert v["ffi.Object"].reason == "no-mirror"
    v = classify(infos)
    assert v["b.NoMeta"].reason == "layout-unknown" and v["b.NoMeta"].own_bytes is None
    assert v["b.Child"].reason == "parent-opaque"
    assert v["b.Child"].fields == [FieldBytes("x", 32, 8, 8)]  # the evidence is kept
    assert v["b.NoFacts"].reason == "layout-unknown" and "'x'" in v["b.NoFacts"].detail


def test_report_and_cli(tmp_path: Path) -> None:
    v = classify({"ffi.Object": ROOT})
    report = coverage_report(v)
    assert report["ffi.Object"]["verdict"] == "complete"
    assert report["ffi.Object"]["own_bytes"] == [24, 24]
    out = tmp_path / "layout.json"
    assert cli.main(["--coverage-out", str(out)]) == 0
    real = json.loads(out.read_text(encoding="utf-8"))
    assert real["ffi.Object"]["verdict"] == "complete"
    # ffi.Function registers no metadata of its own: its size is not known
    assert real["ffi.Function"]["reason"] == "layout-unknown"
    assert list(real) == sorted(real)
    with pytest.raises(SystemExit):
        cli.main([])  # neither a path nor --coverage-out
    assert tvmffi.Object.__tvm_ffi_type_info__.type_key == "ffi.Object"

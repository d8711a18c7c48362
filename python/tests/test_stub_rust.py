"""tvmffi.stub.rust_generator: Rust bindings for the tvm_ffi crate (``--target rust``)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

import tvmffi.testing  # noqa: F401  (registers testing.TestCxxIntEnum / TestCxxStrEnum)
from tvmffi.core import TypeSchema
from tvmffi.stub import cli
from tvmffi.stub import consts as C
from tvmffi.stub.file_utils import CodeBlock
from tvmffi.stub.generator import generator_names, get_generator
from tvmffi.stub.lib_state import object_info_from_type_key
from tvmffi.stub.rust_generator import codegen
from tvmffi.stub.rust_generator.directives import Directives, EnumSpec
from tvmffi.stub.rust_generator.utils import (
    RustImports,
    check_tokens,
    render_rust_type,
    rust_ident,
    rust_module_path,
)
from tvmffi.stub.utils import NamedTypeSchema, ObjectInfo, Options

RUST = get_generator("rust")
S = C.RUST_SYNTAX


def _field(name: str, origin: str | TypeSchema, at: int | None = None, size: int | None = None):
    schema = TypeSchema(origin) if isinstance(origin, str) else origin
    align = None if size is None else min(size, 8)
    return NamedTypeSchema(name, schema, offset=at, size=size, alignment=align)


def _type(key: str, *fields: NamedTypeSchema, parent: str = "ffi.Object", **kw) -> ObjectInfo:
    ancestors = ["ffi.Object"] if parent == "ffi.Object" else ["ffi.Object", parent]
    return ObjectInfo(
        fields=list(fields),
        methods=[],
        type_key=key,
        parent_type_key=parent,
        ancestors=kw.pop("ancestors", ancestors),
        **kw,
    )


# Types a test defines; the rest come from the registry, or are unknown (no metadata).
_DEFINED: dict[str, ObjectInfo] = {}


@pytest.fixture(autouse=True)
def _registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def lookup(key: str) -> ObjectInfo:
        if key in _DEFINED:
            return _DEFINED[key]
        if key.startswith(("ffi.", "testing.")):
            return object_info_from_type_key(key)
        return _type(key)

    monkeypatch.setattr(codegen, "object_info_from_type_key", lookup)
    yield
    _DEFINED.clear()


class _All(dict):
    """Every type key has a block, in the module of its namespace."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> tuple[str, ...]:
        return ("crate", *key.split(".")[:-1])


def _render(info: ObjectInfo, imports: RustImports | None = None, declared=None) -> str:
    imports = imports if imports is not None else RustImports()
    begin = f"{S.begin} object/{info.type_key}"
    block = CodeBlock("object", str(info.type_key), 1, 2, [begin, S.end])
    codegen.generate_rust_object(
        block, RUST.default_ty_map(), imports, Options(), info, declared or _All()
    )
    return "\n".join(block.lines[1:-1])


def test_registered_as_a_target() -> None:
    assert generator_names() == ["python", "rust"]
    assert RUST.source_exts == {".rs"}
    assert RUST.is_builtin("ffi.Array") and not RUST.is_builtin("my.Array")


def test_types_and_imports() -> None:
    imports = RustImports()

    def name(origin: str, key: str | None) -> str | None:
        table = RUST.default_ty_map()
        hit = key if key in table else origin
        return imports.record(table[hit]) if hit in table else None

    nested = TypeSchema("Map", (TypeSchema("str"), TypeSchema("List", (TypeSchema("float"),))))
    assert render_rust_type(nested, name) == "Map<String, List<f64>>"
    assert render_rust_type(TypeSchema("Optional", (TypeSchema("int"),)), name) == "Option<i64>"
    assert (
        render_rust_type(TypeSchema("Union", (TypeSchema("int"), TypeSchema("str"))), name) is None
    )
    assert [u.path for u in imports.items] == ["tvm_ffi::Map", "tvm_ffi::String", "tvm_ffi::List"]
    # A second type with a leaf already in scope is spelled in full and not imported.
    assert imports.record("other::String") == "other::String"
    assert len(imports.items) == 3


def test_identifiers_and_modules(tmp_path: Path) -> None:
    spelled = [rust_ident(n) for n in ("body_", "__dict__", "type", "self", "base", "x__")]
    assert spelled == ["body", "dict", "r#type", "self_", "base_", "x__"]
    (tmp_path / "Cargo.toml").write_text("[package]\n", encoding="utf-8")
    (tmp_path / "src" / "ir").mkdir(parents=True)
    for rel, module in {
        "src/lib.rs": ("crate",),
        "src/ir/mod.rs": ("crate", "ir"),
        "src/ir/match.rs": ("crate", "ir", "r#match"),
    }.items():
        (tmp_path / rel).write_text("", encoding="utf-8")
        assert rust_module_path(tmp_path / rel) == module
    (tmp_path / "build.rs").write_text("", encoding="utf-8")
    with pytest.raises(ValueError):
        rust_module_path(tmp_path / "build.rs")  # in the crate, but in no module


def test_directives() -> None:
    d = Directives()
    d.add("field", "a.B.c -> crate::x::C", 1)
    d.add("enum", "a.B.k -> K(u8) { X=1, Y = -2 }", 2)
    d.add("upcast", "a.B -> View", 3)
    d.add("upcast", "a.B -> Other", 4)
    assert d.field_types == {"a.B.c": "crate::x::C"}
    assert d.enums == {"a.B.k": EnumSpec("K", "u8", (("X", 1), ("Y", -2)))}
    assert d.upcasts == {"a.B": ["View", "Other"]}
    for name, payload in [
        ("field", "a.B.c"),  # no type
        ("nullable", "B"),  # no field
        ("enum", "a.B.k -> K(i128)"),
        ("opaque", "a.B a.C"),
        ("no-such", "a.B"),
    ]:
        with pytest.raises(ValueError, match="line 9"):
            d.add(name, payload, 9)


def test_complete_chain() -> None:
    base = _type("m.Base", _field("n", "int", 24, 8), _field("k", "int", 32, 4), total_size=40)
    _DEFINED["m.Base"] = base
    leaf = _type(
        "m.Leaf", _field("name", "str", 40, 16), parent="m.Base", total_size=56, is_final=True
    )
    imports = RustImports()
    text = _render(leaf, imports)
    assert "/// Complete: reflected fields fill [40, 56) exactly." in text
    assert "pub struct LeafObj {\n    base: BaseObj,\n    pub name: String,\n}" in text
    assert "assert!(::core::mem::size_of::<LeafObj>() == 56);" in text
    # The allocators take the chain's fields root first; the wrapper's converts non-scalars.
    assert "pub(crate) fn new(n: i64, k: i32, name: String) -> Self {" in text
    assert "let base = BaseObj::new(n, k);" in text
    assert "pub fn new(n: i64, k: i32, name: impl Into<String>) -> Self {" in text
    assert text.endswith("tvm_ffi::impl_object_upcast!(Leaf => Base);")
    assert "FieldGetter" not in text and "ShallowCopy" not in text  # final
    # The parent is not final and has generated ancestors only: a Rust subtype may extend it.
    parent_text = _render(base)
    assert "impl ShallowCopy for BaseObj {" in parent_text
    assert "unsafe impl UnsafeInit for BaseObj {" in parent_text
    # --check compares definitions, not how they are spelled or wrapped.
    respelled = [line.replace("BaseObj", "crate::m::BaseObj") for line in text.splitlines()]
    assert check_tokens(text.splitlines()) == check_tokens(respelled)
    assert check_tokens(text.splitlines()) != check_tokens(text.replace("56", "48").splitlines())


def test_opaque_type_reads_fields_through_getters() -> None:
    hole = _type("m.Hole", _field("a", "int", 24, 8), _field("t", "int", 40, 4), total_size=48)
    imports = RustImports()
    RUST.add_directive(imports, "enum", "m.Hole.t -> Tag(i32) { A=0 }", 1)
    text = _render(hole, imports)
    assert "/// Opaque: bytes [32, 40) of [24, 48) are not accounted for" in text
    assert "pub struct HoleObj {\n    base: Object,\n}" in text
    assert 'FieldGetter::new(Self::type_index(), "a")?.get(self)' in text
    assert "pub struct Tag(i32);" in text and "pub fn t(&self) -> Result<Tag> {" in text
    assert "fn new(" not in text


def test_directive_against_the_bytes_is_an_error() -> None:
    info = _type("m.P", _field("k", "int", 24, 4), total_size=32)
    imports = RustImports()
    RUST.add_directive(imports, "field", "m.P.k -> u64", 1)
    with pytest.raises(ValueError, match="4-byte"):
        _render(info, imports)


def test_missing_dependency_is_an_error() -> None:
    info = _type("m.Add", _field("lhs", "m.Expr"), parent="p.Base")
    with pytest.raises(ValueError, match="`m.Expr`, `p.Base`"):
        _render(info, declared={"m.Add": ("crate", "m")})
    text = _render(
        info, declared={"m.Add": ("crate", "m"), "m.Expr": ("crate", "m"), "p.Base": ("crate",)}
    )
    assert "    base: BaseObj," in text and "Result<Expr>" in text


def test_builtin_parents_get_header_only_stand_ins() -> None:
    imports = RustImports()
    for key in ("testing.TestCxxIntEnum", "testing.TestCxxStrEnum"):
        text = _render(object_info_from_type_key(key), imports)
        assert "parent 'ffi." in text and "is opaque (no-mirror)" in text
    begin = f"{S.begin} import-section"
    block = CodeBlock("import-section", "", 1, 2, [begin, S.end])
    codegen.generate_rust_import_section(block, imports, Options(), set())
    section = "\n".join(block.lines)
    assert section.count("struct FfiEnumObj {\n    base: Object,\n}") == 1
    assert "struct FfiIntEnumObj {\n    base: FfiEnumObj,\n}" in section
    assert "struct FfiStrEnumObj {\n    base: FfiEnumObj,\n}" in section


def _crate(tmp_path: Path) -> Path:
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "t"\n', encoding="utf-8")
    (tmp_path / "src").mkdir()
    return tmp_path / "src"


def test_cli_init_check_and_prefix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = _crate(tmp_path)
    init = ["--init-pypkg", "t", "--init-lib", "t", "--init-prefix", "testing."]
    assert cli.main(["--target", "rust", *init, str(src)]) == 0
    assert (src / "mod.rs").read_text(encoding="utf-8") == "pub mod testing;\n"
    mod_rs = src / "testing" / "mod.rs"
    text = mod_rs.read_text(encoding="utf-8")
    assert '#[type_key = "testing.TestCxxIntEnum"]' in text
    assert cli.main(["--target", "rust", "--check", str(src)]) == 0
    mod_rs.write_text(text.replace("base: FfiIntEnumObj", "base: FfiStrEnumObj"), "utf-8")
    assert cli.main(["--target", "rust", "--check", str(src)]) == 1
    assert f"[Stale] {mod_rs.resolve()}" in capsys.readouterr().out
    # A `prefix` directive asks for every type of the namespace but the skipped ones.
    mod_rs.write_text(
        f"{S.directive('prefix')} testing\n{S.directive('skip')} testing.TestCxxStrEnum\n", "utf-8"
    )
    assert cli.main(["--target", "rust", str(src)]) == 0
    text = mod_rs.read_text(encoding="utf-8")
    assert "object/testing.TestCxxIntEnum" in text
    assert "object/testing.TestCxxStrEnum" not in text
    assert cli.main(["--target", "rust", "--check", str(src)]) == 0

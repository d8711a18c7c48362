"""tvmffi.stub: type stubs written into the marked blocks of Python files (tvm-ffi-stubgen)."""

from __future__ import annotations

import importlib.util
import itertools
import os
import subprocess
import sys
import textwrap
import typing
from pathlib import Path

import pytest

import tvmffi
from tvmffi import Object, method
from tvmffi.core import TypeSchema
from tvmffi.dataclasses import field, py_class
from tvmffi.stub import cli, lib_state
from tvmffi.stub.consts import PYTHON_SYNTAX as S
from tvmffi.stub.file_utils import CodeBlock, FileInfo, StubSyntaxError
from tvmffi.stub.python_generator.codegen import (
    generate_python_global_funcs,
    generate_python_import_section,
    generate_python_object,
    render_func_signature,
)
from tvmffi.stub.python_generator.consts import TY_MAP_DEFAULTS
from tvmffi.stub.python_generator.utils import ImportItem
from tvmffi.stub.utils import ObjectInfo, Options

_ids = itertools.count()

# Array<float> (Array<float> values, float factor): the schema the C++ registry writes.
_SCALE_SCHEMA = {
    "type": "Callable",
    "args": [
        {"type": "ffi.Array", "args": [{"type": "float"}]},
        {"type": "ffi.Array", "args": [{"type": "float"}]},
        {"type": "float"},
    ],
}


def _block(spec: str, indent: str = "") -> CodeBlock:
    block = CodeBlock.from_begin_line(1, f"{S.begin} {spec}", S)
    block.lines = [f"{indent}{S.begin} {spec}", f"{indent}{S.end}"]
    block.lineno_end = 2
    return block


@pytest.fixture
def typed_global(monkeypatch: pytest.MonkeyPatch) -> str:
    """A global function registered from Python, given a C++-style type schema."""
    prefix = f"stubtest{next(_ids)}"
    name = f"{prefix}.scale"
    tvmffi.register_global_func(name, lambda values, factor: [v * factor for v in values])
    real = lib_state.get_global_func_metadata
    monkeypatch.setattr(
        lib_state,
        "get_global_func_metadata",
        lambda n: {"type_schema": _SCALE_SCHEMA} if n == name else real(n),
    )
    yield prefix
    tvmffi.registry.remove_global_func(name)


def test_global_function_stub(typed_global: str) -> None:
    funcs = lib_state.collect_global_funcs([f"{typed_global}.scale"])
    assert list(funcs) == [typed_global]
    code = _block(f"global/{typed_global}", indent="  ")
    imports: list[ImportItem] = []
    generate_python_global_funcs(
        code, funcs[typed_global], dict(TY_MAP_DEFAULTS), imports, Options()
    )
    assert code.lines == [
        f"  {S.begin} global/{typed_global}",
        "  # fmt: off",
        f'  _FFI_INIT_FUNC("{typed_global}", __name__)',
        "  if TYPE_CHECKING:",
        # A parameter accepts any sequence; the result is the FFI Array.
        "      def scale(_0: Sequence[float], _1: float, /) -> Sequence[float]: ...",
        "  # fmt: on",
        f"  {S.end}",
    ]
    assert imports == [
        ImportItem("tvm_ffi.init_ffi_api", alias="_FFI_INIT_FUNC"),
        ImportItem("typing.TYPE_CHECKING"),
        ImportItem("collections.abc.Sequence", type_checking_only=True),
    ]
    section = _block("import-section")
    generate_python_import_section(section, imports, Options())
    assert section.lines[1:-1] == [
        "# fmt: off",
        "# isort: off",
        "from __future__ import annotations",
        "from tvmffi import init_ffi_api as _FFI_INIT_FUNC",
        "from typing import TYPE_CHECKING",
        "if TYPE_CHECKING:",
        "    from collections.abc import Sequence",
        "# isort: on",
        "# fmt: on",
    ]
    # Upstream's spelling of the package, on request.
    generate_python_import_section(section, imports, Options(ffi_package="tvm_ffi"))
    assert "from tvm_ffi import init_ffi_api as _FFI_INIT_FUNC" in section.lines


def test_global_function_without_schema_is_untyped() -> None:
    name = f"stubtest{next(_ids)}.untyped"
    tvmffi.register_global_func(name, lambda *a: None)
    try:
        (info,) = lib_state.collect_global_funcs([name]).values()
        code = _block("global/x")
        generate_python_global_funcs(code, info, dict(TY_MAP_DEFAULTS), [], Options())
        assert "    def untyped(*args: Any) -> Any: ..." in code.lines
    finally:
        tvmffi.registry.remove_global_func(name)


def test_registered_type_stub() -> None:
    key = f"stubtest.Shape{next(_ids)}"

    @py_class(key)
    class Shape(Object):
        name: str
        dims: typing.List[int]
        label: typing.Optional[str] = field(default=None, kw_only=True)

        @method
        def area(self, scale: float) -> float:
            return 0.0

        @method
        @staticmethod
        def unit(n: int) -> typing.Dict[str, int]:
            return {}

    info = ObjectInfo.from_type_info(Shape.__tvm_ffi_type_info__)
    assert info.type_key == key and info.parent_type_key == "ffi.Object"
    assert info.has_init
    code = _block(f"object/{key}", indent="    ")
    imports: list[ImportItem] = []
    generate_python_object(code, dict(TY_MAP_DEFAULTS), imports, Options(), info)
    assert code.lines[1:-1] == [
        "    # fmt: off",
        "    name: str",
        "    dims: MutableSequence[int]",
        "    label: str | None",
        "    if TYPE_CHECKING:",
        "        def __init__(self, name: str, dims: Sequence[int], *, label: str | None = ...)"
        " -> None: ...",
        "        def __ffi_init__(self, name: str, dims: Sequence[int], *, label: str | None = ...)"
        " -> None: ...",
        "        def area(self, _1: float, /) -> float: ...",
        "        @staticmethod",
        "        def unit(_0: int, /) -> MutableMapping[str, int]: ...",
        "    # fmt: on",
    ]
    assert ImportItem("typing.TYPE_CHECKING") in imports
    assert ImportItem("collections.abc.MutableSequence", type_checking_only=True) in imports
    assert ImportItem("collections.abc.Sequence", type_checking_only=True) in imports


_SOURCE = f'''\
"""A module with stub blocks."""
{S.begin} import-section
{S.end}

{S.begin} global/{{prefix}}
old line, replaced
{S.end}

__all__ = [
    {S.begin} __all__
    {S.end}
]
'''


def _load(path: Path, name: str) -> typing.Any:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[name]
    return module


def test_cli_fills_a_file(
    typed_global: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "api.py"
    path.write_text(_SOURCE.format(prefix=typed_global), encoding="utf-8")
    plain = tmp_path / "plain.py"
    plain.write_text("x = 1\n", encoding="utf-8")

    assert cli.main(["--check", str(tmp_path)]) == 1
    assert f"[Stale] {path.resolve()}" in capsys.readouterr().out
    assert cli.main([str(tmp_path)]) == 0
    text = path.read_text(encoding="utf-8")
    assert "old line, replaced" not in text
    assert "    def scale(_0: Sequence[float], _1: float, /) -> Sequence[float]: ..." in text
    assert '    "scale",\n' in text
    assert plain.read_text(encoding="utf-8") == "x = 1\n"  # no markers: untouched
    # Up to date now; a second run changes nothing.
    assert cli.main(["--check", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == text

    # The generated module runs: the global block binds the function.
    module = _load(path, f"stubtest_api{next(_ids)}")
    assert list(module.scale([1.0, 2.0], 3.0)) == [3.0, 6.0]
    assert module.__all__ == ["scale"]


def test_cli_subprocess_with_imports(tmp_path: Path) -> None:
    key = f"stubsub.Pair{next(_ids)}"
    (tmp_path / "stubsub_defs.py").write_text(
        textwrap.dedent(f"""\
        import tvmffi
        from tvmffi import Object
        from tvmffi.dataclasses import py_class

        @py_class("{key}")
        class Pair(Object):
            a: int
            b: float

        tvmffi.register_global_func("stubsub.twice", lambda x: 2 * x)
    """),
        encoding="utf-8",
    )
    target = tmp_path / "out.py"
    target.write_text(f"class Pair:\n    {S.begin} object/{key}\n    {S.end}\n", encoding="utf-8")
    # Keep the caller's path: a build tree's package is found through it.
    paths = [str(tmp_path), *filter(None, [os.environ.get("PYTHONPATH")])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
    run = subprocess.run(
        [sys.executable, "-m", "tvmffi.stub", "--imports", "stubsub_defs", str(target)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    assert target.read_text(encoding="utf-8").splitlines() == [
        "class Pair:",
        f"    {S.begin} object/{key}",
        "    # fmt: off",
        "    a: int",
        "    b: float",
        "    if TYPE_CHECKING:",
        "        def __init__(self, a: int, b: float) -> None: ...",
        "        def __ffi_init__(self, a: int, b: float) -> None: ...",
        "    # fmt: on",
        f"    {S.end}",
    ]


@pytest.mark.parametrize(
    ("text", "lineno", "message"),
    [
        (
            f"x = 1\n{S.begin} global/a\n{S.begin} global/b\n{S.end}\n",
            3,
            "Nested stub not permitted",
        ),
        (f"x = 1\n{S.end}\n", 2, "Unmatched"),
        (f"{S.begin} global/a\nx = 1\n", 1, "Unclosed stub block"),
        (f"x = 1\n\n{S.begin} functions/a\n{S.end}\n", 3, "unknown stub block `functions/a`"),
        (f"{S.prefix}bogus)\n", 1, "Unknown stub type at line 1"),
    ],
)
def test_malformed_block_is_reported(tmp_path: Path, text: str, lineno: int, message: str) -> None:
    path = tmp_path / "bad.py"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StubSyntaxError, match=message) as info:
        FileInfo.from_file(path)
    assert info.value.lineno == lineno
    assert str(info.value).startswith(f"{path.resolve()}:{lineno}: ")


def test_cli_reports_errors_and_goes_on(
    typed_global: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "a_bad.py"
    bad.write_text(f"{S.begin} global/{typed_global}\n", encoding="utf-8")
    bad_map = tmp_path / "b_map.py"
    bad_map.write_text(f"{S.ty_map} no arrow here\n", encoding="utf-8")
    unknown = tmp_path / "c_unknown.py"
    unknown.write_text(
        f"class A:\n    {S.begin} object/stubtest.NoSuchType\n    {S.end}\n", encoding="utf-8"
    )
    good = tmp_path / "d_good.py"
    good.write_text(_SOURCE.format(prefix=typed_global), encoding="utf-8")

    assert cli.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{bad.resolve()}:1: Unclosed stub block" in err
    assert f"{bad_map.resolve()}:1: ty-map expects `<from> -> <to>`" in err
    assert f"{unknown.resolve()}:2: `object/stubtest.NoSuchType` (line 2): the type is no" in err
    assert "def scale(" in good.read_text(encoding="utf-8")  # the good file is still done
    assert bad.read_text(encoding="utf-8") == f"{S.begin} global/{typed_global}\n"


def test_ty_map_and_skip_file(typed_global: str, tmp_path: Path) -> None:
    path = tmp_path / "mapped.py"
    path.write_text(
        f"{S.ty_map} Array -> mypkg.containers.FrozenList\n" + _SOURCE.format(prefix=typed_global),
        encoding="utf-8",
    )
    skipped = tmp_path / "skipped.py"
    skipped.write_text(f"{S.skip_file}\n" + _SOURCE.format(prefix=typed_global), encoding="utf-8")
    before = skipped.read_text(encoding="utf-8")
    assert cli.main([str(tmp_path)]) == 0
    text = path.read_text(encoding="utf-8")
    # A renamed container is used for parameters too, and imported.
    assert "def scale(_0: FrozenList[float], _1: float, /) -> FrozenList[float]: ..." in text
    assert "    from mypkg.containers import FrozenList" in text
    assert skipped.read_text(encoding="utf-8") == before


def test_cli_init_writes_package_files(typed_global: str, tmp_path: Path) -> None:
    assert (
        cli.main(
            [
                "--init-pypkg",
                "demo-pkg",
                "--init-lib",
                "demo",
                "--init-prefix",
                typed_global,
                str(tmp_path),
            ]
        )
        == 0
    )
    api = tmp_path / typed_global / "_ffi_api.py"
    init = tmp_path / typed_global / "__init__.py"
    text = api.read_text(encoding="utf-8")
    assert 'LIB = _FFI_LOAD_LIB("demo-pkg", "demo")' in text
    assert "from tvmffi.libinfo import load_lib_module as _FFI_LOAD_LIB" in text
    assert "def scale(_0: Sequence[float], _1: float, /) -> Sequence[float]: ..." in text
    assert "from ._ffi_api import *" in init.read_text(encoding="utf-8")
    compile(text, str(api), "exec")
    # Run again: the blocks exist now, nothing is appended.
    assert (
        cli.main(
            [
                "--init-pypkg",
                "demo-pkg",
                "--init-lib",
                "demo",
                "--init-prefix",
                typed_global,
                str(tmp_path),
            ]
        )
        == 0
    )
    assert api.read_text(encoding="utf-8") == text


def test_command_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--dlls", str(tmp_path / "libmissing.so"), str(tmp_path)]) == 2
    assert "cannot load what --imports/--dlls name" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.parse_args(["--init-pypkg", "x", "file.py"])
    assert "go together" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.parse_args(["--dry-run", "--check", "file.py"])
    with pytest.raises(SystemExit):
        cli.parse_args([])


def test_renderer_rejects_non_callable() -> None:
    from tvmffi.stub.utils import FuncInfo

    with pytest.raises(ValueError, match="Callable"):
        generate_python_global_funcs(
            _block("global/x"),
            [FuncInfo.from_schema("x.f", TypeSchema("int"))],
            dict(TY_MAP_DEFAULTS),
            [],
            Options(),
        )


def test_generator_names_and_field_facts() -> None:
    from tvmffi.core import MISSING
    from tvmffi.stub.generator import generator_names, get_generator
    from tvmffi.stub.utils import FuncInfo, NamedTypeSchema

    assert "python" in generator_names()
    assert generator_names() == sorted(generator_names())
    assert get_generator("python") is get_generator("python")
    plain = NamedTypeSchema("x", TypeSchema("int"))
    assert (plain.size, plain.alignment, plain.offset, plain.default) == (None, None, None, MISSING)
    root = ObjectInfo.from_type_info(tvmffi.Object.__tvm_ffi_type_info__)
    assert root.ancestors == [] and root.parent_type_key is None
    func = ObjectInfo.from_type_info(tvmffi.Function.__tvm_ffi_type_info__)
    assert func.ancestors == ["ffi.Object"] and func.total_size is None
    # a return type without parameters: the parameters stay open
    only_ret = FuncInfo.from_schema("m.f", TypeSchema("Callable", (TypeSchema("int"),)))
    assert render_func_signature(only_ret, str, 0) == "def f(*args: Any) -> int: ..."


def test_directives_are_routed_by_name(tmp_path: Path) -> None:
    from tvmffi.stub.consts import PIPELINE_DIRECTIVE_KINDS, RUST_SYNTAX
    from tvmffi.stub.file_utils import collect_files
    from tvmffi.stub.generator import get_generator

    block = CodeBlock.from_begin_line(3, f"{S.directive('import-object')} a.b;True;c ", S)
    assert (block.kind, block.param, block.lineno_end) == (
        "directive",
        ("import-object", "a.b;True;c"),
        3,
    )
    with pytest.raises(StubSyntaxError, match="Unknown stub type at line 2"):
        CodeBlock.from_begin_line(2, f"{S.prefix}two words): x", S)
    assert "ty-map" in PIPELINE_DIRECTIVE_KINDS
    python = get_generator("python")
    assert python.directive_kinds == frozenset({"import-object"})
    # a directive no one takes is an error naming it; the file is left alone
    path = tmp_path / "mod.py"
    path.write_text(f"{S.directive('nullable')} x.y\n{S.begin} __all__\n{S.end}\n")
    (info,) = collect_files([tmp_path], python.source_exts)
    with pytest.raises(StubSyntaxError, match="Unknown directive `nullable` at line 1"):
        cli._stage_3(info, Options(dry_run=True), {}, {}, python)
    with pytest.raises(StubSyntaxError, match="import-object expects"):
        path.write_text(f"{S.directive('import-object')} ;;;\n")
        cli._stage_3(FileInfo.from_file(path), Options(dry_run=True), {}, {}, python)
    # .rs files parse with // markers; a directory scan for Python skips them
    rs = tmp_path / "lib.rs"
    rs.write_text(f"{RUST_SYNTAX.directive('ty-map')} a -> b\n")
    assert [f.path for f in collect_files([tmp_path], python.source_exts)] == [path.resolve()]
    (rs_info,) = collect_files([rs])
    assert rs_info.code_blocks[0].param == ("ty-map", "a -> b")

"""The ``tvm-ffi-stubgen`` command (also ``python -m tvmffi.stub``).

::

    tvm-ffi-stubgen [--target python|rust] [--imports MODS] [--dlls LIBS]
                    [--check | --dry-run] PATH...

loads the given modules and libraries (so that their functions and types are
registered), then fills the marked blocks of each source file of the target
(``.py``/``.pyi``, or ``.rs`` for ``--target rust``) under ``PATH`` (see
:mod:`tvmffi.stub.file_utils`). With ``--init-pypkg``, ``--init-lib`` and
``--init-prefix`` it first writes files (``_ffi_api.py`` and ``__init__.py``,
or ``mod.rs``), under the first ``PATH``, for registry prefixes that no file
covers yet.

The work goes in stages: (1) read the ``ty-map`` directives of all files,
(2) with ``--init``, write the missing files, (3) add the blocks ``prefix``
directives ask for, (4) fill each file's blocks and write it back when it
changed. Exit status: 0; 1 when ``--check`` finds a file not up to date; 2
when a file could not be done.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import sys
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..core import _object_type_key_to_index
from . import consts as C
from .file_utils import CodeBlock, FileInfo, StubSyntaxError, collect_files, syntax_for
from .generator import Generator, generator_names, get_generator
from .layout import classify, write_coverage_report
from .lib_state import (
    collect_global_funcs,
    collect_type_keys,
    object_info_from_type_key,
    toposort_objects,
)
from .utils import FuncInfo, InitConfig, Options

__all__ = ["main", "parse_args"]


def _error(message: str) -> None:
    print(f"{C.TOOL_NAME}: error: {message}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command with ``argv`` (default ``sys.argv[1:]``).

    Returns 0; 2 when a file could not be read or filled (each problem is
    reported on stderr as ``path:line: message``, and the other files are
    still done); else 1 when, with ``--check``, a file is not up to date
    (``[Stale] <path>`` on stdout).
    """
    opt = parse_args(argv)
    generator = get_generator(opt.target)
    failed = False
    # Libraries are kept referenced to the end: unloading would drop their registrations.
    libs: list[ctypes.CDLL] = []
    try:
        for module in opt.imports:
            importlib.import_module(module)
        for path in opt.dlls:
            libs.append(ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL))
    except (ImportError, OSError) as e:
        _error(f"cannot load what --imports/--dlls name: {e}")
        return 2

    def on_error(path: Path, e: Exception) -> None:
        nonlocal failed
        failed = True
        _error(str(e) if isinstance(e, StubSyntaxError) else f"{path}: {e}")

    if opt.coverage_out is not None:
        try:
            _write_coverage(Path(opt.coverage_out))
        except OSError as e:
            on_error(Path(opt.coverage_out), e)
    if not opt.files:  # --coverage-out alone
        del libs
        return 2 if failed else 0
    files = collect_files([Path(f) for f in opt.files], generator.source_exts, on_error)
    global_funcs = collect_global_funcs()

    ty_map = generator.default_ty_map()
    good: list[FileInfo] = []
    for file in files:
        try:
            _stage_1(file, ty_map)
        except ValueError as e:
            on_error(file.path, e)
        else:
            good.append(file)
    files = good

    root = Path(opt.files[0]).resolve()
    if root.is_file():
        root = root.parent
    prefixes: set[str] = set()
    if opt.init is not None:
        prefixes = _stage_2(files, ty_map, opt.init, root, global_funcs, generator)
    # --check compares what the generator says counts, before any block is added or filled.
    before = {id(file): generator.check_view(file.code_blocks) for file in files}
    if _roll_out_prefixes(files, generator, on_error):
        failed = True
    declared = _declared_objects(files)
    changed: list[Path] = []
    stale: list[Path] = []
    for file in files:
        try:
            if _stage_3(file, opt, ty_map, global_funcs, generator, declared):
                changed.append(file.path)
                if generator.check_view(file.code_blocks) != before[id(file)]:
                    stale.append(file.path)
        except (ValueError, OSError) as e:
            on_error(file.path, e)
    if prefixes:
        generator.finish_init(root, prefixes)
    del libs
    if opt.verbose:
        print(
            f"{len(files)} file(s) with stub blocks, {len(changed)} "
            f"{'would change' if opt.dry_run or opt.check else 'changed'}"
        )
    if failed:
        return 2
    if opt.check and stale:
        for path in stale:
            print(f"[Stale] {path}")
        return 1
    return 0


def _stage_1(file: FileInfo, ty_map: dict[str, str]) -> None:
    """Add the file's ``ty-map`` directives (``A.B -> C.D``) to ``ty_map``."""
    for code in file.code_blocks:
        if code.kind == "ty-map":  # the begin-block form
            text = str(code.param)
        elif code.kind == "directive" and code.param[0] == "ty-map":
            text = code.param[1]
        else:
            continue
        lhs, arrow, rhs = text.partition("->")
        if not arrow or not lhs.strip() or not rhs.strip() or "->" in rhs:
            raise StubSyntaxError(
                f"ty-map expects `<from> -> <to>` (e.g. `mylib.Foo -> "
                f"mypkg.Foo`), got {code.param!r}",
                code.lineno_start,
                file.path,
            )
        ty_map[lhs.strip()] = rhs.strip()


def _stage_2(
    files: list[FileInfo],
    ty_map: dict[str, str],
    init_cfg: InitConfig,
    init_path: Path,
    global_funcs: dict[str, list[FuncInfo]],
    generator: Generator,
) -> set[str]:
    """``--init``: for each registry prefix under ``init_cfg.prefix`` with functions or
    types that no file's block covers, append their blocks to ``<prefix path>/_ffi_api.py``
    and an export block to ``__init__.py`` under ``init_path`` (creating them), and add
    those files to ``files``. Returns the prefixes written."""

    def file_for(path: Path) -> FileInfo:
        if path.exists():
            for f in files:
                if f.path.exists() and path.samefile(f.path):
                    return f
            info = FileInfo.from_file(path, include_empty=True)
            if info is None:  # skip-file: leave it alone, write nothing into it
                raise ValueError(f"{path}: has a skip-file marker; --init cannot add to it")
        else:
            info = FileInfo(path=path.resolve(), lines=(), code_blocks=[], syntax=syntax_for(path))
        files.append(info)
        return info

    covered_funcs = {c.param[0] for f in files for c in f.code_blocks if c.kind == "global"}
    covered_types = {str(c.param) for f in files for c in f.code_blocks if c.kind == "object"}
    covered_types |= _skipped(files)
    filt = init_cfg.prefix.strip()
    if filt and not filt.endswith("."):
        filt += "."
    root_prefix = filt.rstrip(".")

    type_keys = collect_type_keys()
    prefixes = sorted(set(type_keys) | set(global_funcs))
    written: set[str] = set()
    for prefix in prefixes:
        if prefix != root_prefix and not prefix.startswith(filt):
            continue
        funcs = [] if prefix in covered_funcs else global_funcs.get(prefix, [])
        keys = set(type_keys.get(prefix, [])) - covered_types
        objects = toposort_objects(sorted(k for k in keys if not generator.is_builtin(k)))
        if not funcs and not objects:
            continue
        directory = init_path.joinpath(*prefix.split("."))
        directory.mkdir(parents=True, exist_ok=True)
        api = file_for(directory / generator.api_filename())
        _append(
            api,
            generator.api_file_text(
                api.code_blocks, ty_map, prefix, objects, init_cfg, prefix == root_prefix
            ),
        )
        entry = file_for(directory / generator.init_filename())
        submodule = generator.api_filename().rsplit(".", 1)[0]
        _append(entry, generator.init_file_text(entry.code_blocks, prefix, submodule))
        written.add(prefix)
    return written


def _skipped(files: list[FileInfo]) -> set[str]:
    """The type keys the ``skip`` directives of ``files`` name."""
    return {
        c.param[1].strip()
        for f in files
        for c in f.code_blocks
        if c.kind == "directive" and c.param[0] == "skip"
    }


def _roll_out_prefixes(
    files: list[FileInfo],
    generator: Generator,
    on_error: Callable[[Path, Exception], None] | None = None,
) -> int:
    """Give each file with a ``prefix <namespace>`` directive a block for every type
    registered directly under the namespace that no file has a block for (parents
    first, after the file's last block; an import section after the directive when
    there is none), less ``skip``'d and builtin types; drop its blocks of types under
    the namespace no longer registered. Returns how many files were refused (a
    second ``prefix`` in a file, or a namespace two files declare)."""
    have = set(_declared_objects(files))
    skipped = _skipped(files)
    registry = collect_type_keys()
    owner: dict[str, Path] = {}
    refused = 0
    for file in files:
        heads = [c for c in file.code_blocks if c.kind == "directive" and c.param[0] == "prefix"]
        if not heads:
            continue
        namespace = heads[0].param[1].strip().rstrip(".")
        problem = None
        if len(heads) > 1:
            problem = f"a second `prefix` directive at line {heads[1].lineno_start}"
        elif owner.setdefault(namespace, file.path) != file.path:
            problem = f"the namespace `{namespace}` is already the prefix of {owner[namespace]}"
        if problem is not None:
            refused += 1
            error = StubSyntaxError(problem, heads[-1].lineno_start, file.path)
            if on_error is not None:
                on_error(file.path, error)
            else:
                _error(str(error))
            continue
        registered = registry.get(namespace, [])
        _drop_unregistered(file, namespace, registered)
        if not registered:
            print(f"[Skipped] {file.path}: no type is registered under `{namespace}`")
            continue
        blocks = file.code_blocks
        lineno = heads[0].lineno_start
        if all(c.kind != "import-section" for c in blocks):
            at = blocks.index(heads[0]) + 1
            blocks[at:at] = _empty_block(file.syntax, lineno, "import-section")
        keys = [
            k
            for k in registered
            if k not in have and k not in skipped and not generator.is_builtin(k)
        ]
        at = 1 + max(i for i, c in enumerate(blocks) if c.kind in ("object", "import-section"))
        blocks[at:at] = [
            block
            for info in toposort_objects(keys)
            for block in _empty_block(file.syntax, lineno, f"object/{info.type_key}")
        ]
    return refused


def _drop_unregistered(file: FileInfo, namespace: str, registered: list[str]) -> None:
    """Remove the file's blocks of types directly under ``namespace`` not in ``registered``
    (with the blank line before each), saying so on stdout."""
    kept: list[CodeBlock] = []
    for code in file.code_blocks:
        key = str(code.param)
        if code.kind == "object" and key.rpartition(".")[0] == namespace and key not in registered:
            print(
                f"[Removed] {file.path}: `object/{key}` (line {code.lineno_start}): "
                "the type is no longer registered"
            )
            if kept and kept[-1].kind is None and kept[-1].lines == [""]:
                kept.pop()
            continue
        kept.append(code)
    file.code_blocks[:] = kept


def _empty_block(syntax: C.MarkerSyntax, lineno: int, spec: str) -> list[CodeBlock]:
    """A blank line and an empty ``begin``/``end`` block for ``spec``."""
    begin = f"{syntax.begin} {spec}"
    block = CodeBlock.from_begin_line(lineno, begin, syntax)
    block.lineno_end = lineno
    block.lines = [begin, syntax.end]
    return [CodeBlock(None, "", lineno, lineno, [""]), block]


def _append(file: FileInfo, text: str) -> None:
    if text:
        with file.path.open("a", encoding="utf-8") as f:
            f.write(text)
    if file.path.exists():
        file.reload()


def _declared_objects(files: list[FileInfo]) -> dict[str, Path]:
    """The type key of every ``object/`` block of ``files``, to the file holding it."""
    declared: dict[str, Path] = {}
    for file in files:
        for code in file.code_blocks:
            if code.kind == "object":
                declared.setdefault(str(code.param), file.path)
    return declared


def _stage_3(
    file: FileInfo,
    opt: Options,
    ty_map: dict[str, str],
    global_funcs: dict[str, list[FuncInfo]],
    generator: Generator,
    declared: Mapping[str, Path] | None = None,
) -> bool:
    """Fill the blocks of one file and write it back (unless ``opt.dry_run`` or
    ``opt.check``). Returns whether its text changed.

    ``declared``: the ``object/`` blocks of the run, type key to file (default:
    this file's). Blocks of types no longer registered are left as they are;
    once the rest is written, one StubSyntaxError names them all.
    """
    if declared is None:
        declared = _declared_objects([file])
    imports = generator.new_imports()
    exported: set[str] = set()
    defined_types: set[str] = set()
    blocks = file.code_blocks
    for code in blocks:
        if code.kind != "directive":
            continue
        name, payload = code.param
        if name in C.PIPELINE_DIRECTIVE_KINDS:
            continue  # consumed by _stage_1
        if name not in generator.directive_kinds:
            raise StubSyntaxError(
                f"Unknown directive `{name}` at line {code.lineno_start} (the {generator.name} "
                f"generator takes: {', '.join(sorted(generator.directive_kinds)) or 'none'})",
                code.lineno_start,
                file.path,
            )
        try:
            generator.add_directive(imports, name, payload, code.lineno_start)
        except StubSyntaxError as e:
            if e.path is not None:
                raise
            raise StubSyntaxError(e.message, e.lineno, file.path) from None
    for code in blocks:
        if code.kind == "global":
            funcs = global_funcs.get(code.param[0], [])
            exported.update(f.schema.name for f in funcs)
            generator.global_funcs_block(code, funcs, ty_map, imports, opt)
    unregistered: list[CodeBlock] = []
    for code in blocks:
        if code.kind == "object":
            type_key = str(code.param)
            if _object_type_key_to_index(type_key) is None:
                unregistered.append(code)
                continue
            info = object_info_from_type_key(type_key)
            defined_types.add(generator.type_name(ty_map.get(type_key, type_key)))
            try:
                generator.object_block(code, ty_map, imports, opt, info, declared)
            except StubSyntaxError:
                raise
            except ValueError as e:
                raise StubSyntaxError(str(e), code.lineno_start, file.path) from None
    sections = [code for code in blocks if code.kind == "import-section"]
    if sections:
        generator.import_section_block(sections[0], imports, opt, defined_types)
    alls = [code for code in blocks if code.kind == "__all__"]
    if alls:
        names = exported | defined_types | generator.extra_exports(imports)
        generator.all_block(alls[0], names, opt)
    for code in blocks:
        if code.kind == "export":
            generator.export_block(code)
    changed = file.update(verbose=opt.verbose, dry_run=opt.dry_run or opt.check)
    if unregistered:
        names = ", ".join(f"`object/{c.param}` (line {c.lineno_start})" for c in unregistered)
        raise StubSyntaxError(
            f"{names}: the type is no longer registered (delete the block, or load the "
            "library or module that registers it with --dlls or --imports)",
            unregistered[0].lineno_start,
            file.path,
        )
    return changed


def __main__() -> int:
    """Upstream's entry point name: :func:`main` with the process's command line."""
    return main()


def _write_coverage(path: Path) -> None:
    """The native-layout report (:mod:`.layout`) of every registered object type."""
    infos = {
        key: object_info_from_type_key(key) for keys in collect_type_keys().values() for key in keys
    }
    write_coverage_report(path, classify(infos))


def parse_args(argv: Sequence[str] | None = None) -> Options:
    """The :class:`~tvmffi.stub.utils.Options` of a command line (exits on a bad one)."""
    parser = argparse.ArgumentParser(
        prog=C.TOOL_NAME,
        description="Fill the `# tvm-ffi-stubgen(begin): ...` blocks of Python files with "
        "type stubs of the registered FFI global functions and object types.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument(
        "files",
        nargs="*",
        metavar="PATH",
        help="files, or directories to search for .py/.pyi files (at least one, unless "
        "--coverage-out is given)",
    )
    parser.add_argument(
        "--coverage-out",
        default=None,
        metavar="JSON",
        help="write a JSON report of whether each registered object type's native layout "
        "is known byte for byte (complete) or not (opaque), with the byte evidence",
    )
    parser.add_argument(
        "--imports",
        default="",
        metavar="MODS",
        help="';'-separated Python modules to import first (they register functions and types)",
    )
    parser.add_argument(
        "--dlls", default="", metavar="LIBS", help="';'-separated shared libraries to load first"
    )
    parser.add_argument(
        "--init-pypkg",
        default="",
        metavar="PKG",
        help="--init: the distribution that ships the library",
    )
    parser.add_argument(
        "--init-lib",
        default="",
        metavar="TARGET",
        help="--init: the library's CMake target (libTARGET.so)",
    )
    parser.add_argument(
        "--init-prefix",
        default="",
        metavar="PREFIX",
        help="--init: the registry prefix to write files for (e.g. mypkg.)",
    )
    parser.add_argument(
        "--indent", type=int, default=4, help="spaces per indentation level inside generated blocks"
    )
    parser.add_argument(
        "--target",
        default="python",
        choices=generator_names(),
        help="the language to generate (rust: bindings for the tvm_ffi crate in .rs files)",
    )
    parser.add_argument(
        "--ffi-package",
        default="tvmffi",
        metavar="MODULE",
        help="the module generated imports name for the FFI package "
        "(tvm_ffi: upstream's name, also served by tvmffi-as-tvm-ffi)",
    )
    parser.add_argument("--verbose", action="store_true", help="print a diff of each change")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--dry-run", action="store_true", help="write no file")
    mode.add_argument(
        "--check", action="store_true", help="write no file; exit 1 when a file is not up to date"
    )
    args = parser.parse_args(argv)

    init = None
    init_args = (args.init_pypkg, args.init_lib, args.init_prefix)
    if any(init_args):
        if not all(init_args):
            parser.error("--init-pypkg, --init-lib and --init-prefix go together")
        init = InitConfig(pkg=args.init_pypkg, shared_target=args.init_lib, prefix=args.init_prefix)
        if args.dry_run or args.check:
            parser.error("--init-* writes files: it cannot go with --dry-run or --check")
    if args.indent < 0:
        parser.error("--indent must not be negative")
    if not args.files and args.coverage_out is None:
        parser.error("name at least one PATH (or --coverage-out)")

    def split(text: str) -> list[str]:
        return [part.strip() for part in text.split(";") if part.strip()]

    return Options(
        imports=split(args.imports),
        dlls=split(args.dlls),
        init=init,
        indent=args.indent,
        files=list(args.files),
        verbose=args.verbose,
        dry_run=args.dry_run,
        target=args.target,
        ffi_package=args.ffi_package,
        check=args.check,
        coverage_out=args.coverage_out,
    )


if __name__ == "__main__":
    sys.exit(main())

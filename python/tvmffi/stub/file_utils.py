"""Reading a source file as a sequence of blocks, and writing it back.

A file is cut into :class:`CodeBlock` s: each plain line is a block of its own
(kind None), a ``begin`` ... ``end`` pair of markers and the lines between
them are one block, and each one-line directive
(``<comment> tvm-ffi-stubgen(<name>): <payload>``: ``ty-map``,
``import-object``, ...) is one block of kind ``directive``. Joining the lines of all blocks gives the
file again; the generator rewrites only the lines of the marked blocks.

Block kinds (the text after ``# tvm-ffi-stubgen(begin):``):

``global/<prefix>[@<module>]``
    the global functions ``<prefix>.*``, bound by ``<module>.init_ffi_api``
    (default: the FFI package's own);
``object/<type key>``
    the fields and methods of a reflected type, inside its class body;
``import-section``
    the imports the other blocks need;
``__all__``
    the names the file defines, inside an ``__all__ = [...]`` list;
``export/<submodule>``
    re-exports ``from .<submodule> import *`` and extends ``__all__``;
``ty-map/<from> -> <to>``
    a type renaming, like the one-line ``ty-map`` directive.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import sys
from pathlib import Path
from typing import Callable, Iterable, Iterator, Union

from . import consts as C

__all__ = ["CodeBlock", "FileInfo", "StubSyntaxError", "collect_files", "syntax_for"]


class StubSyntaxError(ValueError):
    """A malformed marker comment: the message names the file (when known) and the line."""

    def __init__(self, message: str, lineno: int | None = None, path: Path | None = None) -> None:
        self.message = message
        self.lineno = lineno
        self.path = path
        where = ""
        if path is not None:
            where = f"{path}:{lineno}: " if lineno is not None else f"{path}: "
        elif lineno is not None:
            where = f"line {lineno}: "
        super().__init__(where + message)


def syntax_for(path: Path) -> C.MarkerSyntax:
    """The marker syntax of a file, by its suffix (Python's for an unknown one)."""
    return C.SYNTAX_BY_EXT.get(path.suffix.lower(), C.PYTHON_SYNTAX)


def _split_once(text: str, sep: str) -> tuple[str, str]:
    head, _, tail = text.partition(sep)
    return head.strip(), tail.strip()


@dataclasses.dataclass
class CodeBlock:
    """A run of lines of a file: a plain line, a marked block or a one-line directive.

    ``param`` is the block's argument: for ``global``, the pair
    ``(prefix, module)`` (module "" when not given); for a ``directive``, the
    pair ``(name, payload)`` (the payload as written, stripped: its meaning is
    its consumer's); for the others, a string. ``lineno_end`` is None until
    the ``end`` marker is read.
    """

    kind: C.BlockKind
    param: Union[str, tuple[str, ...]]
    lineno_start: int
    lineno_end: int | None
    lines: list[str]

    def __post_init__(self) -> None:
        """Reject an unknown kind."""
        if self.kind is not None and self.kind not in C.BLOCK_KINDS:
            raise ValueError(f"unknown stub block kind {self.kind!r}")

    @property
    def indent(self) -> int:
        """The indentation (in spaces) of the block's first line; generated lines get it too."""
        if not self.lines:
            return 0
        first = self.lines[0]
        return len(first) - len(first.lstrip(" "))

    @staticmethod
    def from_begin_line(lineno: int, line: str, syntax: C.MarkerSyntax) -> CodeBlock:
        """The block a marker line opens (its ``lines`` left empty).

        ``line`` is a ``begin`` marker, or a one-line directive
        ``<comment> tvm-ffi-stubgen(<name>): <payload>`` (a block of kind
        ``directive`` that ends on the same line). StubSyntaxError (a
        ValueError) for an unknown block kind or a malformed marker.
        """
        line = line.strip()
        if not line.startswith(syntax.begin):
            name, sep, payload = line[len(syntax.prefix) :].partition("):")
            if (
                not line.startswith(syntax.prefix)
                or not sep
                or not name.replace("-", "_").isidentifier()
            ):
                raise StubSyntaxError(f"Unknown stub type at line {lineno}: {line}", lineno)
            return CodeBlock("directive", (name, payload.strip()), lineno, lineno, [])
        spec = line[len(syntax.begin) :].strip()
        kind, _, arg = spec.partition("/")
        kind, arg = kind.strip(), arg.strip()
        param: str | tuple[str, ...]
        if kind == "global" and arg:
            prefix, module = _split_once(arg, "@") if "@" in arg else (arg, "")
            param = (prefix, module)
        elif kind in ("object", "ty-map", "export") and arg:
            param = arg
        elif kind in ("import-section", "__all__") and not arg:
            param = ""
        else:
            raise StubSyntaxError(
                f"unknown stub block `{spec}`; expected one of global/<prefix>[@<module>], "
                "object/<type key>, ty-map/<from> -> <to>, import-section, export/<module>, "
                "__all__",
                lineno,
            )
        return CodeBlock(kind, param, lineno, None, [])  # type: ignore[arg-type]


@dataclasses.dataclass
class FileInfo:
    """A source file cut into blocks; ``lines`` is its text as last read or written."""

    path: Path
    lines: tuple[str, ...]
    code_blocks: list[CodeBlock]
    syntax: C.MarkerSyntax

    @staticmethod
    def from_file(
        path: Path, include_empty: bool = False, syntax: C.MarkerSyntax | None = None
    ) -> FileInfo | None:
        """Read and cut a file into blocks.

        None when the file has a ``skip-file`` marker, or no marker at all
        (unless ``include_empty``). StubSyntaxError (a ValueError) naming the
        file and line for a malformed marker: a ``begin`` inside a block, an
        ``end`` without ``begin``, a block left open, an unknown directive.
        """
        path = Path(path).resolve()
        if syntax is None:
            syntax = syntax_for(path)
        lines = path.read_text(encoding="utf-8").splitlines()
        stripped = [line.strip() for line in lines]
        if any(s.startswith(syntax.skip_file) for s in stripped):
            return None
        if not include_empty and not any(s.startswith(syntax.prefix) for s in stripped):
            return None
        try:
            blocks = _cut_blocks(lines, stripped, syntax)
        except StubSyntaxError as e:
            raise StubSyntaxError(e.message, e.lineno, path) from None
        return FileInfo(path=path, lines=tuple(lines), code_blocks=blocks, syntax=syntax)

    def reload(self) -> None:
        """Cut the file on disk into blocks again (``lines`` keeps the text read before)."""
        fresh = FileInfo.from_file(self.path, include_empty=True, syntax=self.syntax)
        assert fresh is not None  # include_empty: None only for skip-file
        self.code_blocks = fresh.code_blocks

    def new_lines(self) -> tuple[str, ...]:
        """The file's text as its blocks now hold it."""
        return tuple(line for block in self.code_blocks for line in block.lines)

    def update(self, verbose: bool = False, dry_run: bool = False) -> bool:
        """Write the blocks' lines to the file when they differ from ``lines``.

        ``verbose`` prints a unified diff of the change; ``dry_run`` writes
        nothing. Returns whether the text changed.
        """
        new = self.new_lines()
        if new == self.lines:
            if verbose:
                print(f"{self.path}: unchanged")
            return False
        if verbose:
            _print_diff(self.path, self.lines, new)
        self.lines = new
        if not dry_run:
            self.path.write_text("\n".join(new) + "\n", encoding="utf-8")
        return True


def _cut_blocks(lines: list[str], stripped: list[str], syntax: C.MarkerSyntax) -> list[CodeBlock]:
    blocks: list[CodeBlock] = []
    open_block: CodeBlock | None = None
    for lineno, (line, s) in enumerate(zip(lines, stripped), start=1):
        if s.startswith(syntax.begin):
            if open_block is not None:
                raise StubSyntaxError(
                    "Nested stub not permitted: a begin marker inside the block opened at line "
                    f"{open_block.lineno_start} (close it with `{syntax.end}` first)",
                    lineno,
                )
            open_block = CodeBlock.from_begin_line(lineno, s, syntax)
            open_block.lines.append(line)
        elif s.startswith(syntax.end):
            if open_block is None:
                raise StubSyntaxError(f"Unmatched `{syntax.end}`: no block is open", lineno)
            open_block.lines.append(line)
            open_block.lineno_end = lineno
            blocks.append(open_block)
            open_block = None
        elif s.startswith(syntax.prefix):
            if s.startswith(syntax.skip_file):
                continue  # not reached: from_file returns None first
            if open_block is not None:
                raise StubSyntaxError(
                    "Nested stub not permitted: a directive inside the block opened at line "
                    f"{open_block.lineno_start}",
                    lineno,
                )
            block = CodeBlock.from_begin_line(lineno, s, syntax)
            block.lines.append(line)
            blocks.append(block)
        elif open_block is not None:
            open_block.lines.append(line)
        else:
            blocks.append(CodeBlock(None, "", lineno, lineno, [line]))
    if open_block is not None:
        raise StubSyntaxError(
            f"Unclosed stub block at end of file: the block opened at line "
            f"{open_block.lineno_start} has no `{syntax.end}`",
            open_block.lineno_start,
        )
    return blocks


def _print_diff(path: Path, old: tuple[str, ...], new: tuple[str, ...]) -> None:
    color = sys.stdout.isatty()
    colors = {"+": "\033[32m", "-": "\033[31m", "@": "\033[36m"}
    for line in difflib.unified_diff(old, new, f"{path} (before)", f"{path} (after)", lineterm=""):
        code = colors.get(line[:1]) if color else None
        print(f"{code}{line}\033[0m" if code else line)


def collect_files(
    paths: Iterable[Path],
    source_exts: Iterable[str] = C.DEFAULT_SOURCE_EXTS,
    on_error: Callable[[Path, Exception], None] | None = None,
) -> list[FileInfo]:
    """The files under ``paths`` that have markers, sorted by path: a file named is
    always read; a directory is walked for files whose suffix (any case) is in
    ``source_exts`` (the generator's: ``.py`` and ``.pyi`` for Python).

    A file that cannot be read or cut goes to ``on_error`` (default: raise).
    """
    exts = frozenset(e.lower() for e in source_exts)
    found: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found.extend(_walk_sources(p, exts))
        else:
            found.append(p)
    files: list[FileInfo] = []
    for path in sorted(dict.fromkeys(found), key=str):
        try:
            info = FileInfo.from_file(path)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            if on_error is None:
                raise
            on_error(path, e)
            continue
        if info is not None:
            files.append(info)
    return files


def _walk_sources(root: Path, exts: frozenset[str]) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.suffix.lower() in exts:
                yield path

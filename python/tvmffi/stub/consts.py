"""The marker comments of the stub generator, and the names it treats specially."""

from __future__ import annotations

import dataclasses
from typing import Literal, Optional

__all__ = [
    "BLOCK_KINDS",
    "BUILTIN_TYPE_KEYS",
    "DEFAULT_SOURCE_EXTS",
    "PYTHON_SYNTAX",
    "SYNTAX_BY_EXT",
    "TOOL_NAME",
    "BlockKind",
    "MarkerSyntax",
]

#: The command name, and the word every marker comment carries.
TOOL_NAME = "tvm-ffi-stubgen"


@dataclasses.dataclass(frozen=True)
class MarkerSyntax:
    """The marker comments of one source language, built on its line-comment token.

    A marker is ``<comment> tvm-ffi-stubgen(<directive>)``, followed by ``:``
    and an argument for the directives that take one; a line is a marker when,
    stripped of its indentation, it starts with one of these texts.
    """

    comment: str

    @property
    def prefix(self) -> str:
        """What every marker starts with (a line starting so is a marker, or an error)."""
        return f"{self.comment} {TOOL_NAME}("

    @property
    def begin(self) -> str:
        """Opens a generated block; the block kind and its argument follow."""
        return self.prefix + "begin):"

    @property
    def end(self) -> str:
        """Closes the generated block opened last."""
        return self.prefix + "end)"

    @property
    def ty_map(self) -> str:
        """A one-line type renaming, ``<from> -> <to>`` (``ffi.Foo -> mypkg.Foo``)."""
        return self.prefix + "ty-map):"

    @property
    def import_object(self) -> str:
        """A one-line import for the import section: ``<dotted name>;<True|False>;<alias>``."""
        return self.prefix + "import-object):"

    def directive(self, name: str) -> str:
        """A one-line directive ``<comment> tvm-ffi-stubgen(<name>):``, a payload after it."""
        return f"{self.prefix}{name}):"

    @property
    def skip_file(self) -> str:
        """Anywhere in a file: leave the whole file alone."""
        return self.prefix + "skip-file)"


#: The markers of Python sources (``# tvm-ffi-stubgen(...)``).
PYTHON_SYNTAX = MarkerSyntax("#")
#: The markers of Rust sources (``// tvm-ffi-stubgen(...)``, ``--target rust``).
RUST_SYNTAX = MarkerSyntax("//")

#: The marker syntax of each file suffix (which suffixes a directory scan visits
#: is the generator's ``source_exts``).
SYNTAX_BY_EXT: dict[str, MarkerSyntax] = {
    ".py": PYTHON_SYNTAX,
    ".pyi": PYTHON_SYNTAX,
    ".rs": RUST_SYNTAX,
}

#: The file suffixes a directory scan visits by default (the Python generator's).
DEFAULT_SOURCE_EXTS = frozenset({".py", ".pyi"})

#: One-line directives the language-neutral pipeline consumes itself; a generator
#: declares the others it takes (``Generator.directive_kinds``), and any other
#: name is an error.
#: ``prefix <namespace>``: the file holds a block for every type registered
#: directly under the namespace (blocks are added, and removed for types no
#: longer registered); ``skip <type key>``: but not this one.
PIPELINE_DIRECTIVE_KINDS: frozenset[str] = frozenset({"ty-map", "prefix", "skip"})

#: The kind of a block; None is a plain line of the file, outside any block.
#: ``directive`` is a one-line ``<comment> tvm-ffi-stubgen(<name>): <payload>``
#: (param: ``(name, payload)``).
BlockKind = Optional[
    Literal["global", "object", "ty-map", "import-section", "directive", "export", "__all__"]
]

#: Every block kind but None.
BLOCK_KINDS = frozenset(
    {"global", "object", "ty-map", "import-section", "directive", "export", "__all__"}
)

#: Types the package itself binds: ``--init`` writes no class for them.
BUILTIN_TYPE_KEYS = frozenset(
    {
        "ffi.Bytes",
        "ffi.Error",
        "ffi.Function",
        "ffi.Object",
        "ffi.OpaquePyObject",
        "ffi.SmallBytes",
        "ffi.SmallStr",
        "ffi.String",
        "ffi.Tensor",
    }
)

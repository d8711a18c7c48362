"""The target-language side of the stub generator, and the registry of targets.

:mod:`tvmffi.stub.cli` reads files and the FFI registry; a :class:`Generator`
writes the text of each block. The import collector it makes
(:meth:`Generator.new_imports`) is its own business: the driver only passes
it from block to block of one file.
"""

from __future__ import annotations

import abc
from pathlib import Path
from typing import Any, Mapping

from . import consts as C
from .file_utils import CodeBlock
from .utils import FuncInfo, InitConfig, ObjectInfo, Options

__all__ = ["Generator", "get_generator"]


class Generator(abc.ABC):
    """Writes stub blocks in one target language.

    The ``*_block`` methods rewrite ``code.lines`` between the markers; the
    ``*_file_text`` methods give the text ``--init`` appends to new files.
    """

    #: The target's name (``--target``).
    name: str
    #: The marker comments of the target's sources.
    syntax: C.MarkerSyntax

    @abc.abstractmethod
    def default_ty_map(self) -> dict[str, str]:
        """The starting map of schema origins to the target's type names (a fresh copy)."""

    @abc.abstractmethod
    def new_imports(self) -> Any:
        """An empty import collector for one file."""

    #: The suffixes of the files a directory scan visits for this target.
    source_exts: frozenset[str] = C.DEFAULT_SOURCE_EXTS
    #: The one-line directive names this target consumes (besides the pipeline's,
    #: :data:`~tvmffi.stub.consts.PIPELINE_DIRECTIVE_KINDS`); any other is an error.
    directive_kinds: frozenset[str] = frozenset()

    @abc.abstractmethod
    def add_directive(self, imports: Any, name: str, payload: str, lineno: int) -> None:
        """Record a directive of one of :attr:`directive_kinds` (its payload as written)
        into the file's import collector; StubSyntaxError for a malformed payload."""

    @abc.abstractmethod
    def type_name(self, type_key: str) -> str:
        """The name under which imports refer to a type the file defines (to drop those
        imports, and to export the type)."""

    @abc.abstractmethod
    def extra_exports(self, imports: Any) -> set[str]:
        """Names besides the file's functions and types that it exports."""

    @abc.abstractmethod
    def global_funcs_block(
        self,
        code: CodeBlock,
        funcs: list[FuncInfo],
        ty_map: dict[str, str],
        imports: Any,
        opt: Options,
    ) -> None:
        """Fill a ``global/<prefix>`` block with the functions ``funcs``."""

    @abc.abstractmethod
    def object_block(
        self,
        code: CodeBlock,
        ty_map: dict[str, str],
        imports: Any,
        opt: Options,
        info: ObjectInfo,
        declared: Mapping[str, Path] | None = None,
    ) -> None:
        """Fill an ``object/<type key>`` block with the type's members (``declared``: the
        type keys with a block in the run, each to its file)."""

    def is_builtin(self, type_key: str) -> bool:
        """Whether the target's own library binds ``type_key`` (no block is written for it)."""
        return type_key in C.BUILTIN_TYPE_KEYS

    def check_view(self, code_blocks: list[CodeBlock]) -> object:
        """What ``--check`` compares before and after a run: the blocks' text by default."""
        return [list(code.lines) for code in code_blocks if code.kind is not None]

    @abc.abstractmethod
    def import_section_block(
        self, code: CodeBlock, imports: Any, opt: Options, defined: set[str]
    ) -> None:
        """Fill an ``import-section`` block (``defined``: :meth:`type_name` of the file's
        own types, not to be imported)."""

    @abc.abstractmethod
    def all_block(self, code: CodeBlock, names: set[str], opt: Options) -> None:
        """Fill an ``__all__`` block with ``names``."""

    @abc.abstractmethod
    def export_block(self, code: CodeBlock) -> None:
        """Fill an ``export/<submodule>`` block."""

    @abc.abstractmethod
    def api_filename(self) -> str:
        """The file name of a package's generated API file."""

    @abc.abstractmethod
    def init_filename(self) -> str:
        """The file name of a package's entry file."""

    @abc.abstractmethod
    def api_file_text(
        self,
        code_blocks: list[CodeBlock],
        ty_map: dict[str, str],
        module_name: str,
        object_infos: list[ObjectInfo],
        init_cfg: InitConfig,
        is_root: bool,
    ) -> str:
        """The text ``--init`` appends to the API file of ``module_name``."""

    @abc.abstractmethod
    def init_file_text(self, code_blocks: list[CodeBlock], module_name: str, submodule: str) -> str:
        """The text ``--init`` appends to the entry file of ``module_name``."""

    def finish_init(self, root: Path, prefixes: set[str]) -> None:
        """Called once after ``--init`` wrote and filled the files of ``prefixes``."""

    # Upstream's names of the --init methods.
    def generate_api_file(self, *args: Any, **kwargs: Any) -> str:
        """:meth:`api_file_text`."""
        return self.api_file_text(*args, **kwargs)

    def generate_init_file(
        self, code_blocks: list[CodeBlock], module_name: str, submodule: str
    ) -> str:
        """:meth:`init_file_text`."""
        return self.init_file_text(code_blocks, module_name, submodule)

    def finalize_init(self, root: Path, prefixes: set[str]) -> None:
        """:meth:`finish_init`."""
        self.finish_init(root, prefixes)


_GENERATORS: dict[str, Generator] = {}


def _registered() -> dict[str, Generator]:
    if not _GENERATORS:
        from .python_generator import PythonGenerator
        from .rust_generator import RustGenerator

        _GENERATORS["python"] = PythonGenerator()
        _GENERATORS["rust"] = RustGenerator()
    return _GENERATORS


def generator_names() -> list[str]:
    """The targets ``--target`` accepts, sorted (``python``, ``rust``)."""
    return sorted(_registered())


def get_generator(target: str) -> Generator:
    """The generator of the target ``target`` (``python`` or ``rust``); ValueError for another."""
    _registered()
    try:
        return _GENERATORS[target]
    except KeyError:
        raise ValueError(
            f"Unknown generator {target!r}. Known generators: {', '.join(generator_names())}"
        ) from None

"""The Rust target of the stub generator: bindings for the ``tvm_ffi`` crate in ``.rs`` files.

``--target rust`` fills the ``object/<type key>`` blocks of a Cargo crate's
sources with the binding of each reflected type (see :mod:`.codegen`) and the
``import-section`` block with the ``use`` lines they need. Global functions get
no text (Rust reaches them through the crate at run time).
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Mapping

from .. import consts as C
from ..file_utils import CodeBlock
from ..generator import Generator
from ..utils import FuncInfo, InitConfig, ObjectInfo, Options
from . import codegen as G
from . import consts as RC
from .utils import RustImports, RustUse, check_tokens, is_crate_type_key, rust_module_path

__all__ = ["RustGenerator"]


class _Modules(Mapping[str, tuple]):
    """Type key -> the module of the file holding its block, found when first asked."""

    def __init__(self, files: Mapping[str, Path]) -> None:
        self._files = files

    def __getitem__(self, key: str) -> tuple:
        return rust_module_path(Path(self._files[key]))

    def __contains__(self, key: object) -> bool:
        return key in self._files

    def __iter__(self) -> Iterator[str]:
        return iter(self._files)

    def __len__(self) -> int:
        return len(self._files)


class RustGenerator(Generator):
    """Writes Rust: object structs, reference wrappers and their ``use`` lines; ``--init``
    writes one ``mod.rs`` per registry prefix and declares the modules."""

    name = "rust"
    syntax = C.RUST_SYNTAX
    source_exts = frozenset({".rs"})
    directive_kinds = RC.RUST_DIRECTIVE_KINDS

    def default_ty_map(self) -> dict[str, str]:
        """A copy of :data:`~.consts.RUST_TY_MAP_DEFAULTS`."""
        return dict(RC.RUST_TY_MAP_DEFAULTS)

    def new_imports(self) -> RustImports:
        """An empty :class:`~.utils.RustImports`."""
        return RustImports()

    def add_directive(self, imports: RustImports, name: str, payload: str, lineno: int) -> None:
        """``import-object`` is a ``use`` of its first ``;`` field; the others are kept
        in ``imports.directives`` (:class:`~.directives.Directives`)."""
        if name == "import-object":
            imports.record(payload.split(";", 1)[0].strip())
        else:
            imports.directives.add(name, payload, lineno)

    def type_name(self, type_key: str) -> str:
        """The ``use`` path a type key reads as."""
        return RustUse(type_key).path

    def extra_exports(self, imports: RustImports) -> set[str]:
        """None: a Rust module exports with ``pub``."""
        return set()

    def is_builtin(self, type_key: str) -> bool:
        """The crate binds every ``ffi.*`` type itself."""
        return is_crate_type_key(type_key)

    def check_view(self, code_blocks: list[CodeBlock]) -> object:
        """The definitions of the generated blocks (:func:`~.utils.check_tokens`):
        imports, comments, module paths and wrapping do not count."""
        view = {}
        for code in code_blocks:
            if code.kind in ("object", "import-section"):
                tokens = check_tokens(code.lines[1:-1])
                if tokens:
                    view[code.kind, code.param] = tokens
        return view

    def global_funcs_block(
        self,
        code: CodeBlock,
        funcs: list[FuncInfo],
        ty_map: dict[str, str],
        imports: RustImports,
        opt: Options,
    ) -> None:
        """Nothing: the crate looks global functions up at run time."""

    def object_block(
        self,
        code: CodeBlock,
        ty_map: dict[str, str],
        imports: RustImports,
        opt: Options,
        info: ObjectInfo,
        declared: Mapping[str, Path] | None = None,
    ) -> None:
        """See :func:`~.codegen.generate_rust_object` (``declared``: type key -> the
        file of its block)."""
        if declared is None or info.type_key not in declared:
            raise ValueError(
                f"object/{info.type_key}: the Rust generator names types by the file of "
                "their block, and was not told which file holds this one"
            )
        G.generate_rust_object(code, ty_map, imports, opt, info, _Modules(declared))

    def import_section_block(
        self, code: CodeBlock, imports: RustImports, opt: Options, defined: set[str]
    ) -> None:
        """See :func:`~.codegen.generate_rust_import_section`."""
        G.generate_rust_import_section(code, imports, opt, defined)

    def all_block(self, code: CodeBlock, names: set[str], opt: Options) -> None:
        """Nothing: Rust has no ``__all__``."""

    def export_block(self, code: CodeBlock) -> None:
        """Nothing: modules are declared by ``--init`` (:meth:`finish_init`)."""

    def api_filename(self) -> str:
        """``mod.rs``: one file a module."""
        return "mod.rs"

    def init_filename(self) -> str:
        """``mod.rs`` too: the bindings are the module."""
        return "mod.rs"

    def api_file_text(
        self,
        code_blocks: list[CodeBlock],
        ty_map: dict[str, str],
        module_name: str,
        object_infos: list[ObjectInfo],
        init_cfg: InitConfig,
        is_root: bool,
    ) -> str:
        """See :func:`~.codegen.generate_rust_api_file`."""
        return G.generate_rust_api_file(
            code_blocks, ty_map, module_name, object_infos, init_cfg, is_root, self.syntax
        )

    def init_file_text(self, code_blocks: list[CodeBlock], module_name: str, submodule: str) -> str:
        """Nothing: :meth:`api_file_text` wrote the module."""
        return ""

    def finish_init(self, root: Path, prefixes: set[str]) -> None:
        """Declare the new modules (:func:`~.codegen.finalize_rust_module_tree`)."""
        G.finalize_rust_module_tree(root, prefixes)

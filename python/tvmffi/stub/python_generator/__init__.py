"""The Python target of the stub generator: type stubs inside ``.py`` files."""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

from .. import consts as C
from ..file_utils import CodeBlock, StubSyntaxError
from ..generator import Generator
from ..utils import FuncInfo, InitConfig, ObjectInfo, Options
from . import codegen as G
from . import consts as PC
from .utils import ImportItem, PythonImports

__all__ = ["PythonGenerator"]


class PythonGenerator(Generator):
    """Writes Python: ``def`` stubs under ``if TYPE_CHECKING:``, class-body annotations,
    import lines and ``__all__`` lists; ``--init`` writes ``_ffi_api.py`` and
    ``__init__.py``."""

    name = "python"
    syntax = C.PYTHON_SYNTAX

    def default_ty_map(self) -> dict[str, str]:
        """A copy of :data:`~tvmffi.stub.python_generator.consts.TY_MAP_DEFAULTS`."""
        return dict(PC.TY_MAP_DEFAULTS)

    def new_imports(self) -> PythonImports:
        """An empty :class:`~tvmffi.stub.python_generator.utils.PythonImports`."""
        return PythonImports()

    directive_kinds = frozenset({"import-object"})

    def add_directive(self, imports: PythonImports, name: str, payload: str, lineno: int) -> None:
        """``import-object``: ``<dotted.name>[;<True|False>[;<alias>]]``, an import of the
        import section (True: under ``if TYPE_CHECKING:`` only)."""
        if name != "import-object":
            raise StubSyntaxError(f"the python generator takes no `{name}` directive", lineno)
        fields = [part.strip() for part in payload.split(";")]
        if len(fields) > 3 or not fields[0]:
            raise StubSyntaxError(
                f"import-object expects `<dotted.name>[;<True|False>[;<alias>]]`, got {payload!r}",
                lineno,
            )
        fields += [""] * (3 - len(fields))
        self.add_import_object(imports, *fields)

    def add_import_object(
        self, imports: PythonImports, name: str, type_checking_only: str, alias: str
    ) -> None:
        """Add the import of an ``import-object`` directive (``type_checking_only`` is
        its text, ``True`` or ``False``)."""
        imports.add(ImportItem(name, type_checking_only.strip().lower() == "true", alias))
        if alias == "_FFI_LOAD_LIB" or name.endswith("libinfo.load_lib_module"):
            imports.loads_library = True

    def type_name(self, type_key: str) -> str:
        """The import path of a type the file defines (as imports of it are spelled)."""
        return ImportItem(type_key).full_name

    def extra_exports(self, imports: PythonImports) -> set[str]:
        """``LIB`` when the file loads its library."""
        return {"LIB"} if imports.loads_library else set()

    def global_funcs_block(
        self,
        code: CodeBlock,
        funcs: list[FuncInfo],
        ty_map: dict[str, str],
        imports: PythonImports,
        opt: Options,
    ) -> None:
        """See :func:`~tvmffi.stub.python_generator.codegen.generate_python_global_funcs`."""
        G.generate_python_global_funcs(code, funcs, ty_map, imports.items, opt)

    def object_block(
        self,
        code: CodeBlock,
        ty_map: dict[str, str],
        imports: PythonImports,
        opt: Options,
        info: ObjectInfo,
        declared: Mapping[str, Path] | None = None,
    ) -> None:
        """See :func:`~tvmffi.stub.python_generator.codegen.generate_python_object`
        (Python names a type by its key: ``declared`` does not matter)."""
        G.generate_python_object(code, ty_map, imports.items, opt, info)

    def import_section_block(
        self, code: CodeBlock, imports: PythonImports, opt: Options, defined: set[str]
    ) -> None:
        """The imports, less those of the types the file defines itself."""
        items = [i for i in imports.items if i.full_name not in defined]
        G.generate_python_import_section(code, items, opt)

    def all_block(self, code: CodeBlock, names: set[str], opt: Options) -> None:
        """See :func:`~tvmffi.stub.python_generator.codegen.generate_python_all`."""
        G.generate_python_all(code, names, opt)

    def export_block(self, code: CodeBlock) -> None:
        """See :func:`~tvmffi.stub.python_generator.codegen.generate_python_export`."""
        G.generate_python_export(code)

    def api_filename(self) -> str:
        """``_ffi_api.py``."""
        return "_ffi_api.py"

    def init_filename(self) -> str:
        """``__init__.py``."""
        return "__init__.py"

    def api_file_text(
        self,
        code_blocks: list[CodeBlock],
        ty_map: dict[str, str],
        module_name: str,
        object_infos: list[ObjectInfo],
        init_cfg: InitConfig,
        is_root: bool,
    ) -> str:
        """See :func:`~tvmffi.stub.python_generator.codegen.generate_python_ffi_api`."""
        return G.generate_python_ffi_api(
            code_blocks, ty_map, module_name, object_infos, init_cfg, is_root, self.syntax
        )

    def init_file_text(self, code_blocks: list[CodeBlock], module_name: str, submodule: str) -> str:
        """See :func:`~tvmffi.stub.python_generator.codegen.generate_python_init`."""
        return G.generate_python_init(code_blocks, module_name, submodule, self.syntax)

    def finish_init(self, root: Path, prefixes: set[str]) -> None:
        """Nothing: a Python package needs no more than its files."""

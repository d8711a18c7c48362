"""Python text for stub blocks: signatures, class bodies, imports, ``__all__``, new files.

The ``render_*`` functions turn one function or type into lines; a
``ty_map`` argument is called with each origin name of a schema and returns
the name to write (the block generators pass one that also records the
import the name needs). The ``generate_python_*`` functions rewrite the
lines of a :class:`~tvmffi.stub.file_utils.CodeBlock` between its markers.
"""

from __future__ import annotations

from typing import Callable

from .. import consts as C
from ..file_utils import CodeBlock
from ..utils import FuncInfo, InitConfig, ObjectInfo, Options
from . import consts as PC
from .utils import ImportItem, render_import_lines

__all__ = [
    "generate_python_all",
    "generate_python_export",
    "generate_python_ffi_api",
    "generate_python_global_funcs",
    "generate_python_import_section",
    "generate_python_init",
    "generate_python_object",
    "input_ty_map_for",
    "recording_ty_map",
    "render_func_signature",
    "render_object_ffi_init",
    "render_object_fields",
    "render_object_init",
    "render_object_methods",
]

TyMap = Callable[[str], str]

_FFI_INIT = "__ffi_init__"


# -- rendering ------------------------------------------------------------------------


def render_func_signature(
    func: FuncInfo, ty_map: TyMap, indent: int, input_ty_map: TyMap | None = None
) -> str:
    """``def name(<params>) -> <ret>: ...`` for ``func``, indented ``indent`` spaces.

    Parameters are positional-only and named by position (``_0``, ``_1``;
    FFI functions have no parameter names); a member's first one is
    ``self``. Parameter types are written with ``input_ty_map`` (default
    ``ty_map``), the return type with ``ty_map``. A schema without
    ``named_args`` gives ``(*args: Any) -> Any``, one with a return type but
    no ``params`` ``(*args: Any) -> <ret>``; ValueError when the schema is not
    a ``Callable``.
    """
    schema = func.schema
    if schema.origin != "Callable":
        raise ValueError(
            f"{schema.name}: a function needs a Callable type schema, got {schema.repr()}"
        )
    pad = " " * indent
    name = func.short_name
    named = schema.named_args
    if not named:
        any_name = ty_map("Any")
        return f"{pad}def {name}(*args: {any_name}) -> {any_name}: ..."
    ret = named["return"][0]
    if "params" not in named:  # the return type alone is known
        any_name = ty_map("Any")
        return f"{pad}def {name}(*args: {any_name}) -> {ret.output_repr(ty_map)}: ..."
    in_map = ty_map if input_ty_map is None else input_ty_map
    parts: list[str] = []
    for i, param in enumerate(named["params"]):
        if i == 0 and func.is_member:
            parts.append("self")
        else:
            parts.append(f"_{i}: {param.input_repr(in_map)}")
    if parts:
        parts.append("/")
    return f"{pad}def {name}({', '.join(parts)}) -> {ret.output_repr(ty_map)}: ..."


def render_object_fields(info: ObjectInfo, ty_map: TyMap, indent: int) -> list[str]:
    """One ``name: <type>`` line per field of ``info`` (the type as the field returns it)."""
    pad = " " * indent
    return [f"{pad}{f.name}: {f.output_repr(ty_map)}" for f in info.fields]


def _ffi_init_from_schema(func: FuncInfo, ty_map: TyMap, indent: int, in_map: TyMap) -> str:
    # The runtime registers __ffi_init__ as a function of the constructor's
    # arguments; Python calls it on the new object, so it reads as a method.
    pad = " " * indent
    named = func.schema.named_args
    if func.schema.origin != "Callable" or not named or "params" not in named:
        return f"{pad}def {_FFI_INIT}(self, *args: {ty_map('Any')}) -> None: ..."
    params = [f"_{i}: {a.input_repr(in_map)}" for i, a in enumerate(named["params"])]
    if not params:
        return f"{pad}def {_FFI_INIT}(self) -> None: ..."
    return f"{pad}def {_FFI_INIT}(self, {', '.join(params)}, /) -> None: ..."


def render_object_methods(
    info: ObjectInfo, ty_map: TyMap, indent: int, input_ty_map: TyMap | None = None
) -> list[str]:
    """The method stubs of ``info``; static methods get ``@staticmethod``.

    Methods registered more than once under one name become ``@overload`` s,
    kept together where the name first comes. ``__ffi_init__`` is written as
    the instance method Python makes of it.
    """
    in_map = ty_map if input_ty_map is None else input_ty_map
    pad = " " * indent
    groups: dict[tuple[str, bool], list[FuncInfo]] = {}
    for method in info.methods:
        groups.setdefault((method.schema.name, method.is_member), []).append(method)
    lines: list[str] = []
    for group in groups.values():
        for method in group:
            if len(group) > 1:
                lines.append(f"{pad}@overload")
            if method.short_name == _FFI_INIT:
                lines.append(_ffi_init_from_schema(method, ty_map, indent, in_map))
                continue
            if not method.is_member:
                lines.append(f"{pad}@staticmethod")
            lines.append(render_func_signature(method, ty_map, indent, in_map))
    return lines


def _init_params(info: ObjectInfo, in_map: TyMap) -> str:
    """The constructor's parameters: positional ones (required first), then keyword-only."""
    positional = [f for f in info.init_fields if not f.kw_only]
    keyword = [f for f in info.init_fields if f.kw_only]
    parts: list[str] = []
    for group in (positional, keyword):
        if group is keyword and keyword:
            parts.append("*")
        for f in sorted(group, key=lambda f: f.has_default):  # stable: required first
            default = " = ..." if f.has_default else ""
            parts.append(f"{f.name}: {f.schema.input_repr(in_map)}{default}")
    return ", ".join(parts)


def _constructor_stub(name: str, info: ObjectInfo, indent: int, in_map: TyMap) -> list[str]:
    params = _init_params(info, in_map)
    sep = ", " if params else ""
    return [f"{' ' * indent}def {name}(self{sep}{params}) -> None: ..."]


def render_object_init(
    info: ObjectInfo, ty_map: TyMap, indent: int, input_ty_map: TyMap | None = None
) -> list[str]:
    """The ``__init__`` stub of a constructible type (its init fields as parameters);
    none otherwise."""
    if not info.has_init:
        return []
    return _constructor_stub(
        "__init__", info, indent, ty_map if input_ty_map is None else input_ty_map
    )


def render_object_ffi_init(
    info: ObjectInfo, ty_map: TyMap, indent: int, input_ty_map: TyMap | None = None
) -> list[str]:
    """The ``__ffi_init__`` stub of a type constructed through a type attribute (from its
    init fields); none when it is a registered method (:func:`render_object_methods`
    writes it) or the type cannot be constructed."""
    if not info.has_init or any(m.short_name == _FFI_INIT for m in info.methods):
        return []
    return _constructor_stub(
        _FFI_INIT, info, indent, ty_map if input_ty_map is None else input_ty_map
    )


# -- type maps that record imports ----------------------------------------------------


def recording_ty_map(
    ty_map: dict[str, str], imports: list[ImportItem], taken: set[str] | None = None
) -> TyMap:
    """A name function for the ``render_*`` functions: maps an origin through ``ty_map``,
    records the import a dotted result needs (type-checking only) and returns the
    name to write.

    A name in ``taken`` (the block's own function names) is imported as
    ``_<name>`` so that it does not shadow the function.
    """

    def name_of(origin: str) -> str:
        target = ty_map.get(origin, origin)
        short = target.rsplit(".", 1)[-1]
        if "." not in target:
            return short
        alias = f"_{short}" if taken and short in taken else None
        item = ImportItem(target, type_checking_only=True, alias=alias)
        if item not in imports:
            imports.append(item)
        return alias or short

    return name_of


def input_ty_map_for(ty_map: dict[str, str]) -> dict[str, str]:
    """``ty_map`` for parameter types: containers accept the wider input types
    (:data:`~.consts.TY_MAP_INPUT_DEFAULTS`) unless ``ty_map`` renames them itself."""
    result = dict(ty_map)
    for origin, wide in PC.TY_MAP_INPUT_DEFAULTS.items():
        if ty_map.get(origin, PC.TY_MAP_DEFAULTS.get(origin)) == PC.TY_MAP_DEFAULTS.get(origin):
            result[origin] = wide
    return result


def _add(imports: list[ImportItem], *items: ImportItem) -> None:
    for item in items:
        if item not in imports:
            imports.append(item)


def _replace_body(code: CodeBlock, body: list[str]) -> None:
    pad = " " * code.indent
    code.lines = [code.lines[0], *(pad + line if line else line for line in body), code.lines[-1]]


# -- blocks ---------------------------------------------------------------------------


def generate_python_global_funcs(
    code: CodeBlock,
    global_funcs: list[FuncInfo],
    ty_map: dict[str, str],
    imports: list[ImportItem],
    opt: Options,
) -> None:
    """Fill a ``global/<prefix>[@<module>]`` block: the ``init_ffi_api`` call that binds
    the functions at run time, and their signatures for type checkers.

    Left unchanged when there are no functions.
    """
    if not global_funcs:
        return
    assert isinstance(code.param, tuple), "a global block's param is (prefix, module)"
    prefix, module = code.param
    _add(
        imports,
        ImportItem(f"{module or PC.FFI_PACKAGE}.init_ffi_api", alias="_FFI_INIT_FUNC"),
        ImportItem("typing.TYPE_CHECKING"),
    )
    taken = {f.short_name for f in global_funcs}
    out_map = recording_ty_map(ty_map, imports, taken)
    in_map = recording_ty_map(input_ty_map_for(ty_map), imports, taken)
    _replace_body(
        code,
        [
            "# fmt: off",
            f'_FFI_INIT_FUNC("{prefix}", __name__)',
            "if TYPE_CHECKING:",
            *(render_func_signature(f, out_map, opt.indent, in_map) for f in global_funcs),
            "# fmt: on",
        ],
    )


def generate_python_object(
    code: CodeBlock,
    ty_map: dict[str, str],
    imports: list[ImportItem],
    opt: Options,
    obj_info: ObjectInfo,
) -> None:
    """Fill an ``object/<type key>`` block (inside the class body): the field
    annotations, and under ``if TYPE_CHECKING:`` the constructor and method stubs."""
    taken = {m.short_name for m in obj_info.methods}
    out_map = recording_ty_map(ty_map, imports, taken)
    in_map = recording_ty_map(input_ty_map_for(ty_map), imports, taken)
    if obj_info.has_overloaded_methods():
        _add(imports, ImportItem("typing.overload", type_checking_only=True))
    checking = [
        *render_object_init(obj_info, out_map, opt.indent, in_map),
        *render_object_ffi_init(obj_info, out_map, opt.indent, in_map),
        *render_object_methods(obj_info, out_map, opt.indent, in_map),
    ]
    body = ["# fmt: off", *render_object_fields(obj_info, out_map, 0)]
    if checking:
        _add(imports, ImportItem("typing.TYPE_CHECKING"))
        body += ["if TYPE_CHECKING:", *checking]
    body.append("# fmt: on")
    _replace_body(code, body)


def generate_python_import_section(
    code: CodeBlock, imports: list[ImportItem], opt: Options
) -> None:
    """Fill an ``import-section`` block with ``imports`` (left unchanged when there are
    none). It starts with ``from __future__ import annotations``, so the block must come
    before any other statement of the file (after the docstring)."""
    lines = render_import_lines(imports, opt.indent, opt.ffi_package)
    if not lines:
        return
    _replace_body(
        code,
        [
            "# fmt: off",
            "# isort: off",
            "from __future__ import annotations",
            *lines,
            "# isort: on",
            "# fmt: on",
        ],
    )


def _all_sort_key(name: str) -> tuple[int, str]:
    # isort's order: CONSTANTS, then Classes, then the rest.
    if name.isupper() and len(name) > 1:
        return (0, name)
    if name[:1].isupper():
        return (1, name)
    return (2, name)


def generate_python_all(code: CodeBlock, names: set[str], opt: Options) -> None:
    """Fill an ``__all__`` block with the last dotted part of each of ``names``, one
    quoted name a line, in isort's order (left unchanged when there are none)."""
    if not names:
        return
    short = {n.rsplit(".", 1)[-1] for n in names}
    _replace_body(code, [f'"{n}",' for n in sorted(short, key=_all_sort_key)])


def generate_python_export(code: CodeBlock) -> None:
    """Fill an ``export/<submodule>`` block (in a package's ``__init__.py``): import
    everything of ``.<submodule>`` and add its ``__all__`` to the package's."""
    mod = code.param
    _replace_body(
        code,
        [
            "# fmt: off",
            "# isort: off",
            f"from .{mod} import *  # noqa: F403",
            f"from .{mod} import __all__ as {mod}__all__",
            'if "__all__" not in globals():',
            "    __all__ = []",
            f"__all__.extend({mod}__all__)",
            "# isort: on",
            "# fmt: on",
        ],
    )


# -- new files (--init) -----------------------------------------------------------------


def _block(syntax: C.MarkerSyntax, spec: str, indent: str = "") -> str:
    return f"{indent}{syntax.begin} {spec}\n{indent}{syntax.end}\n"


def _import_directive(syntax: C.MarkerSyntax, name: str, alias: str) -> str:
    return f"{syntax.import_object} {name};False;{alias}\n"


def generate_python_ffi_api(
    code_blocks: list[CodeBlock],
    ty_map: dict[str, str],
    module_name: str,
    object_infos: list[ObjectInfo],
    init_cfg: InitConfig,
    is_root: bool,
    syntax: C.MarkerSyntax,
) -> str:
    """The text to append to a package's ``_ffi_api.py`` (``code_blocks``: what the file
    has already) for the functions and types of the prefix ``module_name``.

    It adds what is missing of: a docstring (new file), the import section,
    the library loading (``LIB``, root package only), the ``global`` block, a
    class with an ``object`` block per type of ``object_infos`` (parents
    first), and ``__all__``. The stub generator fills the blocks afterwards.
    """
    kinds = {code.kind for code in code_blocks}
    text = ""
    if not code_blocks:
        text += f'"""FFI bindings of `{module_name}`."""\n'
    if "import-section" not in kinds:
        text += "\n" + _block(syntax, "import-section")
    if is_root:
        text += _import_directive(
            syntax, f"{PC.FFI_PACKAGE}.libinfo.load_lib_module", "_FFI_LOAD_LIB"
        )
        text += f'LIB = _FFI_LOAD_LIB("{init_cfg.pkg}", "{init_cfg.shared_target}")\n'
    if "global" not in kinds:
        text += _block(syntax, f"global/{module_name}")
    if object_infos:
        text += _import_directive(syntax, f"{PC.FFI_PACKAGE}.register_object", "_FFI_REG_OBJ")
    defined = {ty_map.get(i.type_key, i.type_key) for i in object_infos if i.type_key}
    imported_parents: set[str] = set()
    for info in object_infos:
        if info.type_key is None:
            continue
        key = ty_map.get(info.type_key, info.type_key)
        parent_name = "Object"
        if info.parent_type_key:
            parent = ty_map.get(info.parent_type_key, info.parent_type_key)
            if parent in defined:
                parent_name = parent.rsplit(".", 1)[-1]
            else:
                parent_name = "_" + parent.replace(".", "_")
                if parent not in imported_parents:
                    imported_parents.add(parent)
                    text += _import_directive(syntax, parent, parent_name)
        text += (
            f'\n\n@_FFI_REG_OBJ("{info.type_key}")\n'
            f"class {key.rsplit('.', 1)[-1]}({parent_name}):\n"
            f'    """The FFI type `{info.type_key}`."""\n\n'
            + _block(syntax, f"object/{info.type_key}", "    ")
        )
    if "__all__" not in kinds:
        text += "\n\n__all__ = [\n" + _block(syntax, "__all__", "    ") + "]\n"
    return text


def generate_python_init(
    code_blocks: list[CodeBlock], module_name: str, submodule: str, syntax: C.MarkerSyntax
) -> str:
    """The text to append to a package's ``__init__.py`` (``code_blocks``: what it has
    already): an ``export/<submodule>`` block, and a docstring for a new file; empty when
    the file has an export block."""
    if any(code.kind == "export" for code in code_blocks):
        return ""
    block = "\n" + _block(syntax, f"export/{submodule}")
    if not code_blocks:
        return f'"""Package {module_name}."""\n' + block
    return block

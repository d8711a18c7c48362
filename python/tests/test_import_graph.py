"""The package's modules import in one direction: no module imports, while it is
being imported, one that imports it back (read from the sources with ast)."""

from __future__ import annotations

import ast
from pathlib import Path

import tvmffi

_PKG = Path(tvmffi.__file__).resolve().parent
_EXTENSIONS = ("tvmffi._core", "tvmffi._torch_exchange")  # native: import nothing of ours


def _modules() -> dict[str, Path | None]:
    mods: dict[str, Path | None] = dict.fromkeys(_EXTENSIONS)
    for path in _PKG.rglob("*.py"):
        parts = list(path.relative_to(_PKG.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _import_time_targets(node: ast.AST) -> list[ast.AST]:
    """Import statements run when the module is imported: not those in a
    function body (run when called) or under ``if TYPE_CHECKING:``."""
    found: list[ast.AST] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test):
            stack.extend(n.orelse)
            continue
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            found.append(n)
        stack.extend(ast.iter_child_nodes(n))
    return found


def import_graph() -> dict[str, set[str]]:
    """module -> the package's modules it imports at import time."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        if path is None:
            continue
        is_pkg = path.name == "__init__.py"
        for node in _import_time_targets(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                assert isinstance(node, ast.ImportFrom)
                if node.level:
                    base = name.split(".") if is_pkg else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    parent = ".".join(base + ([node.module] if node.module else []))
                else:
                    parent = node.module or ""
                targets = [
                    f"{parent}.{a.name}" if f"{parent}.{a.name}" in mods else parent
                    for a in node.names
                ]
            # A submodule named is the edge; the package itself only when its
            # attributes are read (`from . import NAME` of a non-module NAME):
            # a parent already being imported is not run again for its children.
            graph[name].update(t for t in targets if t in mods and t != name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        path.append(v)
        for w in sorted(graph[v]):
            if state.get(w) == 1:
                return path[path.index(w) :] + [w]
            if w not in state and (found := visit(w)) is not None:
                return found
        state[v] = 2
        path.pop()
        return None

    for v in sorted(graph):
        if v not in state and (found := visit(v)) is not None:
            return found
    return None


def test_the_checker_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_the_graph_sees_the_package() -> None:
    graph = import_graph()
    assert "tvmffi._runtime" in graph["tvmffi"]  # the package loads the runtime first
    assert "tvmffi._core" in graph["tvmffi._cell"]  # the cells are the extension's
    # _reflection's parts, one concern each, below it in one direction.
    assert {"tvmffi._abi", "tvmffi._cell", "tvmffi._values", "tvmffi._typeinfo"} <= graph[
        "tvmffi._reflection"
    ]
    assert "tvmffi._reflection" not in graph["tvmffi._typeinfo"] | graph["tvmffi._values"]
    assert graph["tvmffi._runtime"] == set()  # a leaf


def test_no_import_cycle() -> None:
    cycle = _cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


# What the package uses ctypes for (module -> why); every other module imports
# none. No C struct of the ABI is declared in Python: TVMFFIAny cells, type
# records, fields, methods, metadata and DLPack's structs of the shape functions
# are the extension's (python/src/cells.cc, reflection.cc).
_CTYPES_USERS = {
    "tvmffi._runtime": "loads libtvm_ffi.so RTLD_GLOBAL before the extension, which binds to it",
    "tvmffi.libinfo": "load_lib_ctypes: upstream's loader, which returns a ctypes.CDLL",
    "tvmffi.testing": "loads the test fixture library RTLD_GLOBAL",
    "tvmffi.stub.cli": "loads the libraries whose functions the stub generator reads",
    "tvmffi.jax": "loads the JAX FFI handler library and calls its C entries",
    "tvmffi._optional_torch_c_dlpack": "loads the library built for torch's exchange API",
    "tvmffi.cpp.extension": "asks the CUDA driver for the GPUs' architectures",
    "tvmffi.cpp.nvrtc": "calls NVRTC and the CUDA driver (no Python bindings of them needed)",
    "tvmffi._reflection": "Object.__ctypes_handle__ returns a ctypes.c_void_p (upstream's API)",
    "tvmffi._values": "a ctypes.c_void_p argument passes as an opaque pointer (upstream's)",
    "tvmffi._schema_convert": "a ctypes.c_void_p value converts to an opaque pointer (upstream's)",
    "tvmffi._type_schema": "the ctypes.c_void_p annotation names the opaque pointer type",
}

# ctypes' means of declaring C structs, C function types, or reading and
# writing raw memory: none of them appears in the package.
_RAW_CTYPES = {
    "Structure",
    "Union",
    "BigEndianStructure",
    "LittleEndianStructure",
    "CFUNCTYPE",
    "PYFUNCTYPE",
    "POINTER",
    "pointer",
    "memmove",
    "memset",
    "addressof",
    "cast",
    "sizeof",
    "string_at",
    "from_address",
    "from_buffer",
}


def _ctypes_structs() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name, path in _modules().items():
        if path is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(b).split(".")[-1] in _RAW_CTYPES for b in node.bases
            ):
                found.setdefault(name, set()).add(node.name)
    return found


def test_no_c_struct_declared_twice() -> None:
    """No module of the package declares a C struct through ctypes (the
    extension holds them all, so none is declared twice): a new one fails here."""
    assert _ctypes_structs() == {}


def _imports_ctypes(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "ctypes" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ctypes":
            return True
    return False


def _raw_ctypes_uses(path: Path) -> set[str]:
    """The names of _RAW_CTYPES a module reaches (``ctypes.X``, ``from ctypes import X``,
    ``x.from_address``)."""
    used: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Attribute) and node.attr in _RAW_CTYPES:
            base = ast.unparse(node.value)
            if base.split(".")[0] == "ctypes" or node.attr.startswith("from_"):
                used.add(node.attr)
        if isinstance(node, ast.ImportFrom) and (node.module or "") == "ctypes":
            used |= {a.name for a in node.names if a.name in _RAW_CTYPES}
    return used


def test_reflection_needs_no_ctypes() -> None:
    """Only the modules of _CTYPES_USERS import ctypes (each for the reason given),
    and none of the package declares C types or touches raw memory through it."""
    mods = {name: path for name, path in _modules().items() if path is not None}
    users = {name for name, path in mods.items() if _imports_ctypes(path)}
    assert users == set(_CTYPES_USERS)
    for name in ("tvmffi._abi", "tvmffi._cell", "tvmffi._typeinfo", "tvmffi._pyclass"):
        assert not _imports_ctypes(mods[name]), name
    raw = {name: uses for name, path in mods.items() if (uses := _raw_ctypes_uses(path))}
    assert raw == {}


def test_the_ctypes_checks_see_what_they_look_for(tmp_path: Path) -> None:
    """The checks above find a declaration, a raw-memory use and an import."""
    src = tmp_path / "m.py"
    src.write_text(
        "import ctypes\n"
        "class S(ctypes.Structure):\n    _fields_ = []\n"
        "def f(a, b):\n    ctypes.memmove(a, b, 16)\n    return ctypes.c_int.from_address(a)\n"
    )
    assert _imports_ctypes(src)
    assert _raw_ctypes_uses(src) == {"Structure", "memmove", "from_address"}
    tree = ast.parse(src.read_text())
    classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    assert [ast.unparse(b).split(".")[-1] in _RAW_CTYPES for b in classes[0].bases] == [True]

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
    assert "tvmffi._runtime" in graph["tvmffi._cell"]
    # _reflection's parts, one concern each, below it in one direction.
    assert {"tvmffi._abi", "tvmffi._cell", "tvmffi._values", "tvmffi._typeinfo"} <= graph[
        "tvmffi._reflection"
    ]
    assert "tvmffi._reflection" not in graph["tvmffi._typeinfo"] | graph["tvmffi._values"]
    assert graph["tvmffi._runtime"] == set()  # a leaf


def test_no_import_cycle() -> None:
    cycle = _cycle(import_graph())
    assert cycle is None, " -> ".join(cycle or [])


# The C structs Python still declares with ctypes (module -> class names): the
# 16-byte TVMFFIAny of CAny and the packing of protocol values, DLPack's
# structs of the shape functions.
# Type records, fields, methods and metadata are read by the extension.
_CTYPES_STRUCTS = {
    "tvmffi._cell": {"_AnyValue", "AnyCell"},
    "tvmffi.shape_function": {"_DLDevice", "_DLDataType", "_DLTensor"},
}


def _ctypes_structs() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name, path in _modules().items():
        if path is None:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(b) in ("ctypes.Structure", "ctypes.Union", "Structure", "Union")
                for b in node.bases
            ):
                found.setdefault(name, set()).add(node.name)
    return found


def test_no_c_struct_declared_twice() -> None:
    """No module declares a C ABI struct through ctypes beyond the known few (and
    no two declare the same one): a new declaration fails here."""
    assert _ctypes_structs() == _CTYPES_STRUCTS


def _imports_ctypes(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and any(
            a.name.split(".")[0] == "ctypes" for a in node.names
        ):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "ctypes":
            return True
    return False


def test_reflection_needs_no_ctypes() -> None:
    """Type records and Python-defined types go through the extension: these
    modules do not import ctypes at all."""
    mods = _modules()
    for name in ("tvmffi._abi", "tvmffi._typeinfo", "tvmffi._pyclass"):
        path = mods[name]
        assert path is not None and not _imports_ctypes(path), name

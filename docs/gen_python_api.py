#!/usr/bin/env python3
"""The Python API reference: every public name of the tvmffi package, from its docstrings.

Imports the tvmffi found on sys.path (the installed package, or a build
tree's through PYTHONPATH) and writes one Markdown (MyST) page of Sphinx
autodoc directives, one section per public module.

Public modules: tvmffi and its submodules and subpackages whose dotted names
have no part starting with "_". Public names of a module: its __all__; without
one, the classes and functions it defines and the names it assigns at top
level, except those starting with "_". Each object is documented once, where
it is defined (else in the first module that lists it); the other modules
that list it link there.

A public name without documentation is a problem: a class, function or module
needs a docstring, a constant a `#:` comment (or docstring) at its assignment.
The docs build (docs/conf.py) turns each problem into a warning, and -W into a
failure.

Usage: python3 docs/gen_python_api.py [--check]
  (no argument)  print the page
  --check        print only the problems; exit 1 if there are any
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import pkgutil
import sys
import types
from dataclasses import dataclass


@dataclass
class Entry:
    module: str
    name: str
    obj: object
    kind: str  # module, class, function, data


def public_modules(package: str = "tvmffi") -> list[str]:
    """The package and its public submodules (Python sources only), package first."""
    pkg = importlib.import_module(package)
    names = []
    for info in pkgutil.walk_packages(pkg.__path__, package + ".", onerror=lambda _: None):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        spec = importlib.util.find_spec(info.name)
        # Only Python modules and packages: a shared library in the package
        # folder (libtvmffi.so) is no module.
        if spec is None or not (spec.origin or "").endswith(".py"):
            continue
        names.append(info.name)
    return [package] + sorted(names)


def assigned_names(module: types.ModuleType) -> list[str]:
    """Names assigned at the top level of a module's source."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError):
        return []
    names = []
    for node in tree.body:
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        names += [t.id for t in targets if isinstance(t, ast.Name)]
    return names


def kind_of(obj: object) -> str:
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    # Typing constructs (aliases such as Callable[...]) are callable but are constants.
    typing_made = type(obj).__module__ == "typing" or isinstance(obj, types.GenericAlias)
    if callable(obj) and not typing_made:
        return "function"
    return "data"


def public_names(module: types.ModuleType) -> list[str]:
    if hasattr(module, "__all__"):
        return list(module.__all__)
    names = [
        n
        for n, v in vars(module).items()
        if (inspect.isclass(v) or inspect.isroutine(v))
        and getattr(v, "__module__", None) == module.__name__
    ]
    names += [n for n in assigned_names(module) if not inspect.ismodule(getattr(module, n, None))]
    return list(dict.fromkeys(n for n in names if not n.startswith("_")))


_ATTR_DOCS: dict[str, dict] = {}


def attr_docs(modname: str) -> dict:
    """`#:` comments and docstrings of a module's top-level assignments."""
    if modname not in _ATTR_DOCS:
        from sphinx.pycode import ModuleAnalyzer  # only the constants need Sphinx

        try:
            docs = ModuleAnalyzer.for_module(modname).find_attr_docs()
        except Exception:
            docs = {}
        _ATTR_DOCS[modname] = {
            name: "\n".join(lines).strip() for (scope, name), lines in docs.items() if scope == ""
        }
    return _ATTR_DOCS[modname]


def data_doc(modname: str, name: str, obj: object, all_modules: list[str]) -> str:
    """A constant's documentation: at its assignment here, or where the same object is assigned."""
    doc = attr_docs(modname).get(name, "")
    if doc:
        return doc
    for other in all_modules:
        mod = sys.modules.get(other)
        for n, d in attr_docs(other).items():
            if d and mod is not None and getattr(mod, n, None) is obj:
                return d
    return ""


def undocumented_members(qualname: str, cls: type) -> list[str]:
    """Public methods and properties a class defines itself that have no docstring."""
    problems = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if not (isinstance(value, property) or inspect.isroutine(value)):
            continue
        if not (inspect.getdoc(value) or "").strip():
            problems.append(f"{qualname}.{name}: public member without a docstring")
    return problems


_REPORTED_MEMBERS: set[str] = set()


def collect(package: str = "tvmffi") -> tuple[list[str], dict[str, list[Entry]], list[str]]:
    """The public modules, their entries, and the problems found."""
    modules = public_modules(package)
    # Where a constant's comment may sit: any module of the package, private ones too.
    everywhere = sorted(n for n in sys.modules if n == package or n.startswith(package + "."))
    entries: dict[str, list[Entry]] = {}
    problems: list[str] = []
    for modname in modules:
        module = importlib.import_module(modname)
        if not (module.__doc__ or "").strip():
            problems.append(f"{modname}: module without a docstring")
        entries[modname] = []
        for name in public_names(module):
            if not hasattr(module, name):
                problems.append(f"{modname}.{name}: listed in __all__ but not defined")
                continue
            obj = getattr(module, name)
            kind = kind_of(obj)
            if kind == "data":
                doc = data_doc(modname, name, obj, everywhere)
                hint = "a `#:` comment before its assignment"
            else:
                doc = inspect.getdoc(obj) or ""
                hint = "a docstring"
            if not doc.strip():
                problems.append(f"{modname}.{name}: public {kind} without documentation ({hint})")
            qualname = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', name)}"
            if (
                kind == "class"
                and qualname.startswith(package + ".")
                and qualname not in _REPORTED_MEMBERS
            ):
                _REPORTED_MEMBERS.add(qualname)  # a class listed by several modules: once
                problems += undocumented_members(qualname, obj)
            entries[modname].append(Entry(modname, name, obj, kind))
    return modules, entries, problems


def canonical(entries: dict[str, list[Entry]], modules: list[str]) -> dict[int, str]:
    """For each object (by id): the dotted name it is documented under."""
    where: dict[int, str] = {}
    listed = {(e.module, e.name) for es in entries.values() for e in es}
    for es in entries.values():
        for e in es:
            home = getattr(e.obj, "__module__", None)
            qual = getattr(e.obj, "__qualname__", e.name)
            if e.kind in ("class", "function") and (home, qual) in listed:
                where[id(e.obj)] = f"{home}.{qual}"
    for modname in modules:
        for e in entries[modname]:
            if e.kind == "module":
                where.setdefault(id(e.obj), e.obj.__name__)
            where.setdefault(id(e.obj), f"{modname}.{e.name}")
    return where


def markdown(package: str = "tvmffi") -> tuple[str, list[str]]:
    """The reference page and the problems found."""
    modules, entries, problems = collect(package)
    where = canonical(entries, modules)
    out = [
        "# Python API reference",
        "",
        f"Generated from the docstrings of the `{package}` package by "
        "`docs/gen_python_api.py`: every public name of every public module.",
        "",
    ]
    out += ["| Module | Summary |", "|---|---|"]
    for modname in modules:
        doc = (inspect.getdoc(sys.modules[modname]) or "").split("\n", 1)[0]
        out.append(f"| {{py:mod}}`{modname}` | {doc.replace('|', '/')} |")
    out.append("")
    for modname in modules:
        out += [f"## `{modname}`", "", "```{eval-rst}", f".. automodule:: {modname}", ""]
        same = []
        for e in entries[modname]:
            target = where[id(e.obj)]
            if e.kind == "module":
                same.append(f"* ``{e.name}``: the module :py:mod:`{target}`")
                continue
            if target != f"{modname}.{e.name}":
                same.append(f"* ``{e.name}``: :py:obj:`{target}`")
                continue
            directive = {"class": "autoclass", "function": "autofunction", "data": "autodata"}[
                e.kind
            ]
            out.append(f".. {directive}:: {modname}.{e.name}")
            if e.kind == "class":
                out += ["   :members:", "   :undoc-members:", "   :show-inheritance:"]
            if e.kind == "data":
                out += ["   :no-value:"]
            out.append("")
        if same:
            out += [".. rubric:: Also here", "", *same, ""]
        out += ["```", ""]
    return "\n".join(out) + "\n", problems


def main(argv: list[str]) -> int:
    if argv not in ([], ["--check"]):
        print(__doc__.split("Usage:")[1], file=sys.stderr)
        return 2
    text, problems = markdown()
    if argv == ["--check"]:
        for p in problems:
            print(p)
        modules, entries, _ = collect()
        count = sum(len(es) for es in entries.values())
        print(
            f"gen_python_api: {len(modules)} modules, {count} public names, "
            f"{len(problems)} problem(s)"
        )
    else:
        sys.stdout.write(text)
        for p in problems:
            print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

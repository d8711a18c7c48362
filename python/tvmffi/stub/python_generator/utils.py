"""Python imports as the generator collects them, and their rendering as import lines."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional

from . import consts as PC

__all__ = ["ImportItem", "PythonImports", "render_import_lines", "rename_package"]


def _map_module(module: str) -> str:
    """``module`` with a :data:`~.consts.MOD_MAP` prefix (whole dotted parts) replaced."""
    for prefix, target in PC.MOD_MAP.items():
        if module == prefix or module.startswith(prefix + "."):
            return target + module[len(prefix) :]
    return module


def rename_package(module: str, package: str) -> str:
    """``module`` with a leading ``tvm_ffi`` (the FFI package, as generated text names it)
    spelled ``package``."""
    old = PC.FFI_PACKAGE
    if package != old and (module == old or module.startswith(old + ".")):
        return package + module[len(old) :]
    return module


@dataclasses.dataclass(frozen=True)
class ImportItem:
    """One imported name: ``from <mod> import <name> [as <alias>]`` (``import <name>``
    when ``mod`` is empty).

    Built from a dotted name (``ImportItem("typing.Any")``); a registry prefix
    of :data:`~.consts.MOD_MAP` is turned into its module (``ffi.Object`` is
    imported from ``tvm_ffi``). ``type_checking_only`` imports go under
    ``if TYPE_CHECKING:``.
    """

    mod: str
    name: str
    type_checking_only: bool = False
    alias: Optional[str] = None

    def __init__(
        self, full_name: str, type_checking_only: bool = False, alias: str | None = None
    ) -> None:
        """The import of the dotted name ``full_name``."""
        mod, _, name = full_name.rpartition(".")
        object.__setattr__(self, "mod", _map_module(mod) if mod else "")
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "type_checking_only", bool(type_checking_only))
        object.__setattr__(self, "alias", alias or None)

    @property
    def full_name(self) -> str:
        """``mod.name`` (after the module mapping), or ``name`` without a module."""
        return f"{self.mod}.{self.name}" if self.mod else self.name

    @property
    def name_with_alias(self) -> str:
        """``name as alias``, or ``name``."""
        return f"{self.name} as {self.alias}" if self.alias else self.name

    @property
    def bound_name(self) -> str:
        """The name the import binds in the importing module."""
        return self.alias or self.name

    def __str__(self) -> str:
        """The import statement."""
        if self.mod:
            return f"from {self.mod} import {self.name_with_alias}"
        return f"import {self.name_with_alias}"


@dataclasses.dataclass
class PythonImports:
    """The imports one file's blocks need, in the order first asked for (no duplicates).

    ``loads_library``: an ``import-object`` brought the library loader, so
    the file defines ``LIB`` (it goes into ``__all__``).
    """

    items: list[ImportItem] = dataclasses.field(default_factory=list)
    loads_library: bool = False

    def add(self, item: ImportItem) -> None:
        """Add ``item`` unless it is there already."""
        if item not in self.items:
            self.items.append(item)


def render_import_lines(items: Iterable[ImportItem], indent: int, package: str) -> list[str]:
    """The import lines of ``items``: runtime imports, then ``if TYPE_CHECKING:`` and the
    others (indented ``indent``); one line per module, modules and names sorted.

    Modules under ``tvm_ffi`` are written under ``package``. Empty when
    ``items`` is.
    """
    runtime: dict[str, set[str]] = {}
    checking: dict[str, set[str]] = {}
    for item in items:
        mod = rename_package(item.mod, package)
        target = checking if item.type_checking_only else runtime
        target.setdefault(mod, set()).add(item.name_with_alias)
    # An import made at run time serves the type checker too.
    for mod, names in list(checking.items()):
        names -= runtime.get(mod, set())
        if not names:
            del checking[mod]
    if checking:
        runtime.setdefault("typing", set()).add("TYPE_CHECKING")

    def line(mod: str, names: set[str], pad: str) -> str:
        joined = ", ".join(sorted(names))
        return f"{pad}from {mod} import {joined}" if mod else f"{pad}import {joined}"

    lines = [line(mod, runtime[mod], "") for mod in sorted(runtime)]
    if checking:
        lines.append("if TYPE_CHECKING:")
        lines += [line(mod, checking[mod], " " * indent) for mod in sorted(checking)]
    return lines

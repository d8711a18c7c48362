"""The import name ``tvm_ffi`` for tvmffi, so code written for apache/tvm-ffi runs on it.

``import tvm_ffi`` gives the ``tvmffi`` package itself (this module puts it in
``sys.modules["tvm_ffi"]`` in its own place), and every submodule of tvmffi
can be imported under ``tvm_ffi`` as well: ``import tvm_ffi.libinfo``,
``from tvm_ffi.module import Module``, ``python -m tvm_ffi.config --cmakedir``.
Both names give the very same module objects, hence the same classes and
functions (``tvm_ffi.Tensor is tvmffi.Tensor``).

The submodules are aliased by a finder at the front of ``sys.meta_path``: it
answers ``tvm_ffi.<name>`` with the module ``tvmffi.<name>`` (imported under
its own name, once), and gives ``runpy`` the code of tvmffi's file for
``python -m tvm_ffi.<name>``.  Only names tvmffi has exist; upstream modules
tvmffi does not implement raise ModuleNotFoundError as usual.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import CodeType, ModuleType
from typing import Sequence

import tvmffi

_ALIAS = __name__  # "tvm_ffi"
_TARGET = tvmffi.__name__  # "tvmffi"


class _AliasLoader(importlib.abc.Loader):
    """Loads ``tvm_ffi.<name>`` as the module object ``tvmffi.<name>``."""

    def __init__(self, target_name: str, target_spec: importlib.machinery.ModuleSpec) -> None:
        self._target_name = target_name
        self._target_spec = target_spec
        self._saved_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self._target_name)
        # The import system sets __spec__ of whatever create_module returns to
        # the alias's spec; exec_module puts the module's own spec back.
        self._saved_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        if self._saved_spec is not None:
            module.__spec__ = self._saved_spec

    def is_package(self, fullname: str) -> bool:
        return self._target_spec.submodule_search_locations is not None

    def get_code(self, fullname: str) -> CodeType | None:
        """The code of tvmffi's module, for ``python -m tvm_ffi.<name>`` (runpy)."""
        get_code = getattr(self._target_spec.loader, "get_code", None)
        return None if get_code is None else get_code(self._target_name)

    def get_source(self, fullname: str) -> str | None:
        get_source = getattr(self._target_spec.loader, "get_source", None)
        return None if get_source is None else get_source(self._target_name)


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``tvm_ffi.<name>`` where tvmffi has ``tvmffi.<name>``."""

    tvmffi_alias = _ALIAS  # marks the finder, however often this file runs

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(_ALIAS + "."):
            return None
        target_name = _TARGET + fullname[len(_ALIAS) :]
        try:
            target_spec = importlib.util.find_spec(target_name)
        except (ImportError, ValueError):
            return None
        if target_spec is None:
            return None
        spec = importlib.machinery.ModuleSpec(
            fullname,
            _AliasLoader(target_name, target_spec),
            origin=target_spec.origin,
            is_package=target_spec.submodule_search_locations is not None,
        )
        spec.has_location = target_spec.has_location
        return spec


def _install() -> None:
    if not any(getattr(f, "tvmffi_alias", None) == _ALIAS for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder())
    # The import statement that runs this file returns sys.modules["tvm_ffi"].
    sys.modules[_ALIAS] = tvmffi
    # Upstream's calls take any Python object (as an ffi.OpaquePyObject);
    # tvmffi's own name refuses one that is no FFI value (a TypeError).
    from tvmffi import _reflection

    _reflection.set_opaque_arguments(True)


_install()

"""Modules: kernel libraries loaded from files, and the system library."""

from __future__ import annotations

import json
import os
from enum import IntEnum
from typing import Any

from . import _core
from ._core import Function, Object
from .registry import _describe

_FUNCS: dict[str, Function] = {}


def _func(name: str) -> Function:
    f = _FUNCS.get(name)
    if f is None:
        # The runtime's own "ffi.*" function as of import: overriding or removing
        # that global later does not change the package (_core._builtin_func).
        f = _FUNCS[name] = _core._builtin_func(name)
    return f


class ModulePropertyMask(IntEnum):
    """The bits of :meth:`Module.get_property_mask` (upstream's names)."""

    BINARY_SERIALIZABLE = 0b001
    RUNNABLE = 0b010
    COMPILATION_EXPORTABLE = 0b100


class Module(Object):
    """A loaded library: ``mod.name`` / ``mod["name"]`` are its functions.

    A missing function raises AttributeError. Functions are looked up once
    and cached on the module object.
    """

    def __getattr__(self, name: str) -> Function:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        f = self.get_function(name)
        self.__dict__[name] = f
        return f

    def __getitem__(self, name: str) -> Function:
        if not isinstance(name, str):
            raise TypeError(f"Module[...] takes a function name (str), got {type(name).__name__}")
        return self.get_function(name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.implements_function(name)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.list_functions()))

    def get_function(self, name: str, query_imports: bool = False) -> Function:
        """The function ``name``; AttributeError naming the module when it has none.

        It carries ``__name__``, ``__doc__`` (the exported doc) and
        ``__signature__`` (from the exported metadata), and its type schema
        tells the call which arguments are owning ``ffi.Tensor`` parameters.
        The arguments it declares it writes (``get_function_writes``) tell the
        call where read-only arrays may go without a copy.
        """
        f = _func("ffi.ModuleGetFunctionRequired")(self, name, query_imports)
        try:
            metadata = self.get_function_metadata(name, query_imports)
        except ValueError:  # malformed JSON: the function works without it
            metadata = None
        try:
            writes = self.get_function_writes(name, query_imports)
        except ValueError:  # a malformed declaration counts as none: copies, as before
            writes = None
        _core._set_writes(f, writes)
        return _describe(f, name, metadata, self.get_function_doc(name, query_imports))

    def implements_function(self, name: str, query_imports: bool = False) -> bool:
        """Whether the module (or, with query_imports, an import) has ``name``."""
        return _func("ffi.ModuleImplementsFunction")(self, name, query_imports)

    def list_functions(self) -> list[str]:
        """Names of the functions the module exports."""
        return list(_func("ffi.ModuleListFunctions")(self))

    def get_function_metadata(
        self, name: str, query_imports: bool = False
    ) -> dict[str, Any] | None:
        """The function's metadata (parsed JSON: type schema, arg names...), or None."""
        text = _func("ffi.ModuleGetFunctionMetadata")(self, name, query_imports)
        return None if text is None else json.loads(text)

    def get_function_writes(self, name: str, query_imports: bool = False) -> tuple[int, ...] | None:
        """The indices of the arguments the function writes, ascending (``()``: none).

        None when its library does not say (TVM_FFI_DLL_EXPORT_WRITES); then a
        read-only array passed to it is lent as a private copy. Declared: a
        read-only array goes as is to an argument it does not write, and is a
        ValueError for one it writes. ValueError for a malformed declaration.
        """
        writes = _func("ffi.ModuleGetFunctionWrites")(self, name, query_imports)
        return None if writes is None else tuple(int(i) for i in writes)

    def get_function_doc(self, name: str, query_imports: bool = False) -> str | None:
        """The function's doc string, or None when it has none."""
        return _func("ffi.ModuleGetFunctionDoc")(self, name, query_imports)

    @property
    def kind(self) -> str:
        """ "library" for a loaded file, "system" for the system library, else the module's own."""
        return _func("ffi.ModuleGetKind")(self)

    @property
    def path(self) -> str:
        """The file the module was loaded from ("" for the system library)."""
        return _func("ffi.ModuleGetLibraryPath")(self)

    @property
    def imports(self) -> list[Module]:
        """Modules imported by this one."""
        return list(self.imports_)

    @property
    def imports_(self) -> Any:
        """ffi.Module's reflected field (upstream's name): the imported modules
        as an ``Array``, read under the runtime's import lock."""
        return _func("ffi.ModuleGetImports")(self)

    def import_module(self, other: Module) -> None:
        """Make ``other``'s functions reachable with query_imports=True."""
        _func("ffi.ModuleImportModule")(self, other)

    def clear_imports(self) -> None:
        """Drop every imported module."""
        _func("ffi.ModuleClearImports")(self)

    def inspect_source(self, fmt: str = "") -> str:
        """The module's source in format ``fmt`` ("" when it keeps none: a loaded library)."""
        return _func("ffi.ModuleInspectSource")(self, fmt)

    def get_write_formats(self) -> list[str]:
        """The formats ``write_to_file`` accepts (none for a loaded library)."""
        return list(_func("ffi.ModuleGetWriteFormats")(self))

    def write_to_file(self, file_name: str, fmt: str = "") -> None:
        """Write the module to ``file_name``; RuntimeError unless its kind supports it."""
        _func("ffi.ModuleWriteToFile")(self, file_name, fmt)

    def get_property_mask(self) -> int:
        """The module's :class:`ModulePropertyMask` bits."""
        return int(_func("ffi.ModuleGetPropertyMask")(self))

    def is_binary_serializable(self) -> bool:
        """Whether the module can be saved to bytes."""
        return bool(self.get_property_mask() & ModulePropertyMask.BINARY_SERIALIZABLE)

    def is_runnable(self) -> bool:
        """Whether ``get_function`` gives callable functions (a loaded library: True)."""
        return bool(self.get_property_mask() & ModulePropertyMask.RUNNABLE)

    def is_compilation_exportable(self) -> bool:
        """Whether ``write_to_file`` can export it for compilation into a library."""
        return bool(self.get_property_mask() & ModulePropertyMask.COMPILATION_EXPORTABLE)

    def __repr__(self) -> str:
        return f"<tvmffi.Module kind={self.kind!r} path={self.path!r}>"


# Modules loaded with keep_module_alive=True: referenced until the process exits.
_KEPT_ALIVE: list[Module] = []


def load_module(path: str | os.PathLike[str], keep_module_alive: bool = True) -> Module:
    """Load a kernel library (a shared library exporting ``__tvm_ffi_<name>`` symbols).

    With ``keep_module_alive`` (the default, as upstream's) the module stays
    loaded until the process exits, whatever references remain; without it the
    library may be unloaded once the module and everything from it are gone.
    FileNotFoundError when there is no such file; RuntimeError when it does not
    load (the message carries the loader's reason).
    """
    p = os.fspath(path)
    if not isinstance(p, str):
        raise TypeError(
            f"load_module: path must be a str or os.PathLike, got {type(path).__name__}"
        )
    if not os.path.exists(p):
        raise FileNotFoundError(f"load_module: no such file: {p}")
    mod = _func("ffi.ModuleLoadFromFile")(os.path.abspath(p))
    if keep_module_alive:
        _KEPT_ALIVE.append(mod)
    return mod


def system_lib(symbol_prefix: str = "") -> Module:
    """The system library: functions registered with TVMFFIEnvModRegisterSystemLibSymbol."""
    return _func("ffi.SystemLib")(symbol_prefix)

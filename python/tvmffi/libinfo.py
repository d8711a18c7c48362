"""Locate the files of the tvmffi SDK and load libraries shipped by Python packages.

The functions carry the names of upstream's ``tvm_ffi.libinfo`` and answer the
same questions, for tvmffi's layout.  An installed tvmffi (the wheel) is one
package folder holding the whole SDK::

    tvmffi/lib/libtvm_ffi.so            the runtime (its SONAME)
    tvmffi/include/                     tvm/ffi/... headers and dlpack/dlpack.h
    tvmffi/lib/cmake/tvm_ffi/           find_package(tvm_ffi) (find_cmake_path)
    tvmffi/lib/cmake/tvmffi/            find_package(tvmffi)

A build-tree package (``PYTHONPATH=<build>/python``) has only ``lib/``.  There
:func:`find_libtvm_ffi` works as installed; :func:`find_include_path` and
:func:`find_cmake_path` raise RuntimeError (the headers are split over the
source tree's ``c_api/include`` and ``cpp/include``, and a build tree holds no
CMake package); :func:`find_dlpack_include_path` and :func:`include_paths`
fall back to the source tree and the DLPack folder the build was configured
with (both read from ``<build>/CMakeCache.txt``), for development use.

tvmffi ships no sources and no Cython module: :func:`find_source_path`,
:func:`find_cython_lib` and :func:`find_python_helper_include_path` raise
RuntimeError.
"""

from __future__ import annotations

import ctypes
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from .module import Module

__all__ = [
    "find_cmake_path",
    "find_cython_lib",
    "find_dlpack_include_path",
    "find_include_path",
    "find_libtvm_ffi",
    "find_python_helper_include_path",
    "find_source_path",
    "find_windows_implib",
    "include_paths",
    "load_lib_ctypes",
    "load_lib_module",
]

# Distributions whose runtime library is tvmffi's own: upstream's name (code
# written for apache/tvm-ffi asks for it), ours, and the drop-in `tvm_ffi`.
_OWN_DISTRIBUTIONS = frozenset({"apache-tvm-ffi", "tvmffi", "tvmffi-as-tvm-ffi"})
# Library targets of those distributions that live in the package's lib/.
# -ltvmffi is a linker script in the wheel: loading it means loading tvm_ffi.
_OWN_TARGETS = {
    "tvm_ffi": "tvm_ffi",
    "tvmffi": "tvm_ffi",
    "tvmffi_upstream_cxx": "tvmffi_upstream_cxx",
}


def _package_dir() -> Path:
    """The tvmffi package folder (site-packages/tvmffi or <build>/python/tvmffi)."""
    return Path(__file__).parent


def _build_dir() -> Path | None:
    """The build tree holding this package (<build>/python/tvmffi), or None when installed."""
    build = _package_dir().parent.parent
    return build if (build / "CMakeCache.txt").is_file() else None


def _cmake_cache_value(key: str) -> str | None:
    """A value of the build tree's CMakeCache.txt (``KEY:TYPE=VALUE``), or None."""
    build = _build_dir()
    if build is None:
        return None
    prefix = key + ":"
    try:
        with open(build / "CMakeCache.txt", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(prefix) and "=" in line:
                    return line.split("=", 1)[1].rstrip("\n")
    except OSError:
        return None
    return None


def _source_dir() -> Path | None:
    """The source tree (for a build-tree package), or None.

    Read from the build's CMakeCache.txt (CMAKE_HOME_DIRECTORY), else taken
    relative to this file (python/tvmffi/libinfo.py in the source tree).
    """
    candidates = []
    home = _cmake_cache_value("CMAKE_HOME_DIRECTORY")
    if home:
        candidates.append(Path(home))
    candidates.append(_package_dir().parent.parent)
    for path in candidates:
        if _is_file(path / "c_api" / "include" / "tvm" / "ffi" / "c_api.h"):
            return path.resolve()
    return None


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _first(paths: list[Path], cond: Callable[[Path], bool]) -> str | None:
    """The first path (resolved) meeting ``cond``; broken paths are skipped."""
    for path in paths:
        try:
            resolved = path.resolve()
            if cond(resolved):
                return str(resolved)
        except OSError:
            continue
    return None


def _build_tree_note() -> str:
    build = _build_dir()
    if build is None:
        return ""
    return (
        f" ({_package_dir()} is a build-tree package: it holds lib/ only; "
        f"install the tvmffi wheel for the whole SDK)"
    )


def find_libtvm_ffi() -> str:
    """The full path of the runtime library, ``<package>/lib/libtvm_ffi.so``."""
    path = _package_dir() / "lib" / "libtvm_ffi.so"
    if ret := _first([path], _is_file):
        return ret
    raise RuntimeError(f"Cannot find libtvm_ffi: {path} is missing")


def find_windows_implib() -> str:
    """Upstream's Windows import library: tvmffi has none (it builds for Linux)."""
    raise RuntimeError("Cannot find implib tvm_ffi.lib: tvmffi does not build for Windows")


def find_include_path() -> str:
    """The include directory of the SDK (tvm/ffi/... and dlpack/dlpack.h).

    RuntimeError in a build-tree package, whose headers are in two folders of
    the source tree: :func:`include_paths` lists them.
    """
    path = _package_dir() / "include"
    if ret := _first([path], lambda p: (p / "tvm" / "ffi" / "c_api.h").is_file()):
        return ret
    raise RuntimeError(
        f"Cannot find include path: {path} is missing{_build_tree_note()}; "
        f"include_paths() lists the source tree's header folders"
    )


def find_dlpack_include_path() -> str:
    """The directory holding ``dlpack/dlpack.h``.

    Installed, the SDK's include directory; in a build tree, the DLPack folder
    the build was configured with (TVMFFI_DLPACK_INCLUDE_DIR).
    """
    candidates = [_package_dir() / "include"]
    configured = _cmake_cache_value("TVMFFI_DLPACK_INCLUDE_DIR")
    if configured:
        candidates.append(Path(configured))
    if ret := _first(candidates, lambda p: (p / "dlpack" / "dlpack.h").is_file()):
        return ret
    raise RuntimeError(
        "Cannot find dlpack include path: no dlpack/dlpack.h in "
        + ", ".join(str(p) for p in candidates)
    )


def find_cmake_path() -> str:
    """The CMake package directory for ``find_package(tvm_ffi)``: ``<package>/lib/cmake/tvm_ffi``.

    Point ``tvm_ffi_ROOT`` (or ``tvm_ffi_DIR``) at it; ``find_package(tvmffi)``
    is in the folder beside it.
    """
    path = _package_dir() / "lib" / "cmake" / "tvm_ffi"
    if ret := _first([path], lambda p: (p / "tvm_ffi-config.cmake").is_file()):
        return ret
    raise RuntimeError(f"Cannot find cmake path: {path} is missing{_build_tree_note()}")


def find_source_path() -> str:
    """Upstream's packaged source tree: tvmffi ships none, so this raises RuntimeError."""
    raise RuntimeError(
        "Cannot find source path: tvmffi packages no source tree "
        "(headers: find_include_path(), CMake package: find_cmake_path())"
    )


def find_cython_lib() -> str:
    """Upstream's Cython core module: tvmffi has none (its extension is nanobind's _core)."""
    raise RuntimeError("Cannot find cython lib: tvmffi has no Cython module")


def find_python_helper_include_path() -> str:
    """Upstream's Cython helper header: tvmffi has none, so this raises RuntimeError."""
    raise RuntimeError("Cannot find python helper include path: tvmffi has no Cython helpers")


def include_paths() -> list[str]:
    """Every include directory needed to compile against tvmffi (sorted, no duplicates).

    Installed, the SDK's include directory (DLPack is in it).  In a build
    tree, the source tree's ``c_api/include`` and ``cpp/include`` and the
    configured DLPack folder.
    """
    try:
        return sorted({find_include_path(), find_dlpack_include_path()})
    except RuntimeError:
        source = _source_dir()
        if source is None:
            raise
    dirs = {str(source / "c_api" / "include"), str(source / "cpp" / "include")}
    dirs.add(find_dlpack_include_path())
    return sorted(dirs)


def load_lib_ctypes(
    package: str,
    target_name: str,
    mode: str,
    extra_lib_paths: list[Path] | None = None,
) -> ctypes.CDLL:
    """Load ``lib<target_name>.so`` of the distribution ``package`` with ctypes.

    Parameters
    ----------
    package
        The distribution shipping the library (e.g. ``"my-ffi-extension"``).
        ``"apache-tvm-ffi"`` (and ``"tvmffi"``) with target ``"tvm_ffi"``
        give tvmffi's own runtime.
    target_name
        The library's CMake target name: ``"foo"`` means ``libfoo.so``.
    mode
        The name of a ctypes mode: ``"RTLD_LOCAL"`` or ``"RTLD_GLOBAL"``.
    extra_lib_paths
        Directories (:class:`pathlib.Path`) searched when the distribution's
        file list does not name the library, before the built-in fallbacks.

    Returns
    -------
    The loaded library.
    """
    if not isinstance(mode, str) or not mode.startswith("RTLD_") or not hasattr(ctypes, mode):
        raise ValueError(
            f"load_lib_ctypes: mode must name a ctypes mode such as "
            f"'RTLD_LOCAL' or 'RTLD_GLOBAL', got {mode!r}"
        )
    path = _find_library_by_basename(package, target_name, extra_lib_paths)
    return ctypes.CDLL(str(path), getattr(ctypes, mode))


def load_lib_module(
    package: str,
    target_name: str,
    keep_module_alive: bool = True,
    extra_lib_paths: list[Path] | None = None,
) -> Module:
    """Load ``lib<target_name>.so`` of the distribution ``package`` as a :class:`tvmffi.Module`.

    Found as :func:`load_lib_ctypes` finds it.  ``keep_module_alive`` is
    passed to :func:`tvmffi.load_module` when it takes that argument, and
    ignored otherwise (tvmffi does not unload kernel libraries).
    """
    import inspect  # here, not at the top: `import tvmffi` imports this module

    from .module import load_module

    path = _find_library_by_basename(package, target_name, extra_lib_paths)
    kwargs: dict[str, bool] = {}
    try:
        if "keep_module_alive" in inspect.signature(load_module).parameters:
            kwargs["keep_module_alive"] = keep_module_alive
    except (TypeError, ValueError):
        pass
    return load_module(path, **kwargs)


def _normalize_distribution(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _library_names(target_name: str) -> tuple[str, ...]:
    if sys.platform.startswith("win32"):
        return (f"{target_name}.dll",)
    if sys.platform.startswith("darwin"):
        return (f"lib{target_name}.dylib", f"lib{target_name}.so")
    return (f"lib{target_name}.so",)


def _env_dirs(name: str) -> list[Path]:
    value = os.environ.get(name, "")
    return [Path(p.strip()) for p in value.split(os.pathsep) if p.strip()]


def _from_distribution(package: str, names: tuple[str, ...]) -> Path | None:
    """The library among the files the installed distribution ``package`` records."""
    import importlib.metadata  # here, not at the top: it costs ~40 ms at `import tvmffi`

    try:
        dist = importlib.metadata.distribution(package)
        files = dist.files or []
    except (importlib.metadata.PackageNotFoundError, OSError, ValueError):
        return None
    for file in files:
        if file.name not in names:
            continue
        try:
            path = Path(dist.locate_file(file)).resolve()
        except OSError:
            continue
        if path.is_file():
            return path
    return None


def _find_library_by_basename(
    package: str,
    target_name: str,
    extra_lib_paths: list[Path] | None = None,
) -> Path:
    """Find ``lib<target_name>.so`` shipped by the distribution ``package``.

    Searched in order: tvmffi's own lib/ for its own libraries (including
    ``apache-tvm-ffi``'s ``tvm_ffi``); the files recorded by the installed
    distribution (importlib.metadata); ``extra_lib_paths``; tvmffi's lib/;
    the directories of LD_LIBRARY_PATH and PATH.  RuntimeError, naming every
    directory searched, when none has it.
    """
    if extra_lib_paths is not None:
        for i, p in enumerate(extra_lib_paths):
            if not isinstance(p, Path):
                raise TypeError(
                    f"extra_lib_paths[{i}] must be a pathlib.Path, got {type(p).__name__}: {p!r}"
                )
    own_lib = _package_dir() / "lib"
    if _normalize_distribution(package) in _OWN_DISTRIBUTIONS and target_name in _OWN_TARGETS:
        path = own_lib / f"lib{_OWN_TARGETS[target_name]}.so"
        if _is_file(path):
            return path.resolve()

    names = _library_names(target_name)
    found = _from_distribution(package, names)
    if found is not None:
        return found

    dirs: list[Path] = list(extra_lib_paths or [])
    dirs.append(own_lib)
    dirs.extend(_env_dirs("DYLD_LIBRARY_PATH" if sys.platform == "darwin" else "LD_LIBRARY_PATH"))
    dirs.extend(_env_dirs("PATH"))
    for directory in dirs:
        for name in names:
            try:
                path = (directory / name).resolve()
            except OSError:
                continue
            if _is_file(path):
                return path
    raise RuntimeError(
        f"Cannot find library {', '.join(names)} of distribution {package!r}: not in its "
        f"installed files; searched directories:\n  " + "\n  ".join(str(d) for d in dirs)
    )

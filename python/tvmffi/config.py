"""Compile and link flags for building against tvmffi: ``python -m tvmffi.config``.

The options and output are those of upstream's ``python -m tvm_ffi.config``
(and its ``tvm-ffi-config`` console script, which :func:`main` serves here),
so that build recipes written for apache/tvm-ffi work unchanged::

    g++ -shared -fPIC kernel.cc $(tvm-ffi-config --cxxflags) \\
        $(tvm-ffi-config --ldflags) $(tvm-ffi-config --libs) -o kernel.so
    cmake -Dtvm_ffi_ROOT="$(python -m tvmffi.config --cmakedir)" ...

Each requested item is printed on its own line, in a fixed order whatever
the order of the options; with no option the help is printed.  ``--version``
(tvmffi's addition) prints the version and exits.  An item that cannot be
answered (``--sourcedir``, ``--cython-lib-path``: tvmffi ships neither; the
include and CMake directories in a build-tree package) prints an error on
stderr, nothing on stdout, and exits with status 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Sequence

from . import __version__, libinfo

__all__ = ["main"]


def _libdir() -> str:
    return str(Path(libinfo.find_libtvm_ffi()).parent)


def _cxxflags() -> str:
    return f"-I{libinfo.find_include_path()} -I{libinfo.find_dlpack_include_path()} -std=c++17"


def _cflags() -> str:
    return f"-I{libinfo.find_include_path()} -I{libinfo.find_dlpack_include_path()}"


# (option, help, answer), in the order the answers are printed.
_ITEMS: list[tuple[str, str, Callable[[], str]]] = [
    ("--includedir", "print the include directory", libinfo.find_include_path),
    (
        "--dlpack-includedir",
        "print the directory holding dlpack/dlpack.h",
        libinfo.find_dlpack_include_path,
    ),
    (
        "--cmakedir",
        "print the CMake package directory (find_package(tvm_ffi))",
        libinfo.find_cmake_path,
    ),
    ("--libdir", "print the library directory", _libdir),
    ("--libfiles", "print the full path of the runtime library", libinfo.find_libtvm_ffi),
    (
        "--sourcedir",
        "print the source directory (tvmffi ships none: an error)",
        libinfo.find_source_path,
    ),
    (
        "--cython-lib-path",
        "print the Cython module's path (tvmffi has none: an error)",
        libinfo.find_cython_lib,
    ),
    ("--cxxflags", "print the C++ compiler flags", _cxxflags),
    ("--cflags", "print the C compiler flags", _cflags),
    ("--libs", "print the libraries to link", lambda: "-ltvm_ffi"),
    ("--ldflags", "print the linker flags", lambda: f"-L{_libdir()}"),
]


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Print the paths and flags needed to compile and link against "
        f"tvm-ffi (tvmffi {__version__}).",
    )
    # Options in upstream's help order; printing order is _ITEMS's.
    for option in (
        "--includedir",
        "--dlpack-includedir",
        "--cmakedir",
        "--sourcedir",
        "--libfiles",
        "--libdir",
        "--libs",
        "--cython-lib-path",
        "--cxxflags",
        "--cflags",
        "--ldflags",
    ):
        help_text = next(h for o, h, _ in _ITEMS if o == option)
        parser.add_argument(option, action="store_true", help=help_text)
    parser.add_argument(
        "--version", action="version", version=__version__, help="print the tvmffi version and exit"
    )
    return parser


def main(argv: Sequence[str] | None = None, prog: str = "tvm-ffi-config") -> int:
    """Run the command line ``argv`` (default: ``sys.argv[1:]``); the exit status.

    The entry point of the ``tvm-ffi-config`` console script.
    """
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = _parser(prog)
    args = parser.parse_args(args_list)
    if not args_list:
        parser.print_help()
        return 0
    lines = []
    try:
        for option, _, answer in _ITEMS:
            if getattr(args, option[2:].replace("-", "_")):
                lines.append(answer())
    except RuntimeError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    return 0


# Upstream's console script names its entry point ``__main__``.
__main__ = main

if __name__ == "__main__":
    sys.exit(main(prog=f"python -m {__spec__.name if __spec__ else 'tvmffi.config'}"))

"""Build the DLPack C exchange API for the running torch as a plain shared library.

    python .../tvmffi/utils/_build_optional_torch_c_dlpack.py --output-dir DIR
        --libname libtorch_c_dlpack_addon.so [--build-with-cuda | --build-with-rocm]

compiles ``tvmffi/_torch_exchange.cc`` (shipped in the wheel; the source of
``tvmffi._torch_exchange``) against the C++ headers and libraries of the torch
this interpreter imports, into ``DIR/LIBNAME``.  The library exports
``int64_t TorchDLPackExchangeAPIPtr()``, the address of a ``DLPackExchangeAPI``
for ``torch.Tensor``; it is loaded into a process that has already imported
torch (ctypes), which provides the Python and torch symbols.

This is for a torch without ``torch.Tensor.__dlpack_c_exchange_api__`` (before
2.10) other than the one the wheel was built against; for that one the wheel
has ``tvmffi._torch_exchange`` already.  The same source serves CPU and CUDA
builds of torch (it only names CUDA devices), so ``--build-with-cuda`` changes
nothing; ROCm builds are refused.

Several processes may build the same library at once: they take turns under a
lock file, and one that finds the library built from the same source and
flags keeps it.  Exit status 0 on success, 1 with the reason on stderr.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import os
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Sequence

_PACKAGE = Path(__file__).resolve().parent.parent
SOURCE = _PACKAGE / "_torch_exchange.cc"


def _torch_flags() -> tuple[list[str], list[str]]:
    """(compile flags, link flags) for the torch this interpreter imports."""
    import torch

    root = Path(torch.__file__).resolve().parent
    include, lib = root / "include", root / "lib"
    if not (include / "ATen" / "DLConvertor.h").is_file():
        raise RuntimeError(
            f"torch {torch.__version__} has no C++ headers in {include} (Debian: libtorch-dev)"
        )
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    cflags = [
        f'-DTVMFFI_TORCH_VERSION="{torch.__version__}"',
        f"-D_GLIBCXX_USE_CXX11_ABI={abi}",
        f"-isystem{include}",
    ]
    libs = [f"-L{lib}", f"-Wl,-rpath,{lib}", "-ltorch_python", "-ltorch_cpu", "-lc10"]
    return cflags, libs


def _dlpack_include() -> list[str]:
    """The DLPack header: the package's own include folder, else the system's."""
    own = _PACKAGE / "include"
    return [f"-I{own}"] if (own / "dlpack" / "dlpack.h").is_file() else []


def build(output_dir: Path, libname: str, verbose: bool = False) -> Path:
    """Build ``output_dir/libname`` unless the same build is there already; returns its path."""
    if not SOURCE.is_file():
        raise RuntimeError(
            f"this tvmffi ships no {SOURCE.name} (a build tree has none; install the wheel)"
        )
    cflags, libs = _torch_flags()
    cxx = os.environ.get("CXX") or "c++"
    python_include = sysconfig.get_paths()["include"]
    output_dir.mkdir(parents=True, exist_ok=True)
    target = output_dir / libname
    flags = [
        "-shared",
        "-fPIC",
        "-O2",
        "-std=c++17",
        "-fvisibility=hidden",
        f"-I{python_include}",
        *_dlpack_include(),
        *cflags,
    ]
    # Written under another name, then renamed: a failed build leaves no library.
    tmp = output_dir / f".{libname}.{os.getpid()}.tmp"
    cmd = [cxx, *flags, str(SOURCE), "-o", str(tmp), *libs]
    digest = hashlib.sha256(SOURCE.read_bytes() + "\0".join([cxx, *flags, *libs]).encode())
    stamp = output_dir / f".{libname}.hash"
    with open(output_dir / f".{libname}.lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if target.is_file() and stamp.is_file() and stamp.read_text() == digest.hexdigest():
            return target
        if verbose:
            print(shlex.join(cmd), flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            tmp.unlink(missing_ok=True)
            raise RuntimeError(
                f"the build failed (exit {proc.returncode}):\n$ {shlex.join(cmd)}\n"
                f"{proc.stdout}{proc.stderr}"
            )
        os.replace(tmp, target)  # a reader never sees half a library
        stamp.write_text(digest.hexdigest())
    return target


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (see the module's doc); returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output-dir", required=True, help="folder of the library")
    parser.add_argument("--libname", required=True, help="file name of the library")
    parser.add_argument(
        "--build-with-cuda",
        action="store_true",
        help="torch is a CUDA build (the same source serves it)",
    )
    parser.add_argument(
        "--build-with-rocm", action="store_true", help="torch is a ROCm build (not supported)"
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="print the command")
    args = parser.parse_args(argv)
    try:
        if args.build_with_rocm:
            raise RuntimeError("ROCm builds of torch are not supported")
        path = build(Path(args.output_dir), args.libname, verbose=args.verbose)
    except (OSError, RuntimeError, ImportError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The runtime library, loaded once: the module every other one may import first.

A leaf of the package's import graph (it imports nothing of tvmffi), so that
the modules using the ctypes handle need not import the package itself.
"""

from __future__ import annotations

import ctypes
import os


def load_runtime() -> ctypes.CDLL:
    """Load the package's runtime once, RTLD_GLOBAL, so kernel libraries bind to it.

    The file is ``lib/libtvm_ffi.so`` inside the package (its SONAME, the name
    kernel libraries record); ``lib/libtvmffi_upstream_cxx.so`` sits beside it.
    """
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libtvm_ffi.so")
    try:
        return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    except OSError as err:
        raise ImportError(f"tvmffi: cannot load the runtime library {path}: {err}") from err


def runtime_version(lib: ctypes.CDLL | None = None) -> str:
    """The runtime's version (TVMFFIGetVersion): the one version, from c_api.h.

    Asked of the extension (imported here, at call time: this module stays a
    leaf); ``lib`` is the runtime it binds to, kept for the callers' signature.
    """
    from . import _core

    return "{}.{}.{}".format(*_core._runtime_version())


LIB = load_runtime()

"""pytest plugin of tests/upstream_python/run.sh (loaded with ``-p tvmffi_upstream_plugin``).

Upstream's package has its testing library (the ``testing.*`` globals and
fixture types) loaded whenever ``tvm_ffi`` is imported, and its tests rely on
that: ``tvm_ffi.get_global_func("testing.echo")`` in files that never import
``tvm_ffi.testing``. Ours loads no such library by itself, so this plugin
loads the one run.sh built (``TVMFFI_TESTING_LIB``) before any test file is
imported, and names the package under test in pytest's header.
"""

from __future__ import annotations

import ctypes
import os

import tvm_ffi

_TESTING_LIB = os.environ.get("TVMFFI_TESTING_LIB", "")
_LOADED: str | None = None
if _TESTING_LIB:
    # RTLD_GLOBAL, after the runtime: it binds to the runtime the package loaded.
    ctypes.CDLL(_TESTING_LIB, mode=ctypes.RTLD_GLOBAL)
    _LOADED = _TESTING_LIB


def pytest_report_header(config: object) -> list[str]:
    return [
        f"tvm_ffi: {tvm_ffi.__name__} {getattr(tvm_ffi, '__version__', '?')} from {tvm_ffi.__file__}",
        f"testing library: {_LOADED or 'not loaded'}",
    ]

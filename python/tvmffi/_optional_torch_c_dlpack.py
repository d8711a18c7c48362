"""The DLPack C exchange API for a torch that has none, under upstream's names.

torch before 2.10 has no ``torch.Tensor.__dlpack_c_exchange_api__``.  tvmffi
itself needs nothing from here: ``tvmffi._torch_exchange`` (built with the
wheel against the torch found then) serves its calls.  Code written for
upstream calls ``load_torch_c_dlpack_extension()`` to put the API on
``torch.Tensor``, where any library finds it:

* torch has the attribute already (2.10 on, or set before): nothing is done,
  None is returned;
* ``tvmffi._torch_exchange`` matches the running torch: its capsule is set
  and returned;
* otherwise the API is built for this torch into the cache
  (``$TVM_FFI_CACHE_DIR``, else ``~/.cache/tvm-ffi``) by
  ``tvmffi/utils/_build_optional_torch_c_dlpack.py`` (once: seconds to
  minutes, torch's headers are large), loaded, and its capsule set; the
  loaded library is returned.  A failure is a warning and None.

Unlike upstream's package, importing tvmffi does not run this.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

from . import _core

__all__ = ["load_torch_c_dlpack_extension"]

_ATTR = "__dlpack_c_exchange_api__"
_LIBS: list[ctypes.CDLL] = []  # built libraries stay loaded: torch.Tensor points into them


def _torch_extension_device(torch_module: Any) -> str:
    """ "cpu" without a usable GPU, else "rocm" for a HIP build of torch, else "cuda"."""
    if not torch_module.cuda.is_available():
        return "cpu"
    version = getattr(torch_module, "version", None)
    if getattr(version, "cuda", None) is None and getattr(version, "hip", None) is not None:
        return "rocm"
    return "cuda"


def _capsule(address: int) -> Any:
    """A PyCapsule named "dlpack_exchange_api" holding ``address`` (made by the extension)."""
    return _core._exchange_api_capsule(address)


def _has_api(tensor_cls: Any) -> bool:
    """Whether ``tensor_cls`` offers the API (an older spelling is copied to the current one)."""
    if hasattr(tensor_cls, _ATTR):
        return True
    legacy = getattr(tensor_cls, "__c_dlpack_exchange_api__", None)
    if legacy is None:
        return False
    setattr(tensor_cls, _ATTR, _capsule(legacy) if isinstance(legacy, int) else legacy)
    return True


def _addon_path(torch: Any) -> Path:
    """Where the built library for this torch goes: its version, device and C++ ABI in the name."""
    cache = Path(os.environ.get("TVM_FFI_CACHE_DIR") or "~/.cache/tvm-ffi").expanduser()
    identity = f"{torch.__version__}|cxx11abi={int(torch._C._GLIBCXX_USE_CXX11_ABI)}"
    tag = hashlib.sha256(identity.encode()).hexdigest()[:8]
    major, minor = torch.__version__.split(".")[:2]
    device = _torch_extension_device(torch)
    return cache / f"libtorch_c_dlpack_addon_torch{major}{minor}-{device}-{tag}.so"


def _build_and_load(torch: Any) -> ctypes.CDLL:
    path = _addon_path(torch)
    if not path.is_file():
        script = Path(__file__).resolve().parent / "utils" / "_build_optional_torch_c_dlpack.py"
        cmd = [
            sys.executable,
            str(script),
            "--output-dir",
            str(path.parent),
            "--libname",
            path.name,
        ]
        if _torch_extension_device(torch) == "cuda":
            cmd.append("--build-with-cuda")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"building {path.name} failed:\n{proc.stdout}{proc.stderr}")
    lib = ctypes.CDLL(str(path))
    lib.TorchDLPackExchangeAPIPtr.restype = ctypes.c_int64
    lib.TorchDLPackExchangeAPIPtr.argtypes = []
    return lib


def load_torch_c_dlpack_extension() -> Any:
    """Put the DLPack C exchange API on ``torch.Tensor`` where it is missing.

    Returns None when torch is not importable or has the API already (nothing
    is changed then), the capsule set when tvmffi's built-in module serves
    this torch, the loaded library when one was built for it, and None with a
    warning when that build fails.
    """
    try:
        import torch
    except ImportError:
        return None
    if _has_api(torch.Tensor):
        return None
    from . import _framework

    capsule = _framework.exchange_api("torch")
    if capsule is not None:
        setattr(torch.Tensor, _ATTR, capsule)
        return capsule
    try:
        lib = _build_and_load(torch)
    except (OSError, RuntimeError, AttributeError) as err:
        warnings.warn(
            f"tvmffi: no DLPack C exchange API for torch {torch.__version__}: {err}", stacklevel=2
        )
        return None
    _LIBS.append(lib)
    setattr(torch.Tensor, _ATTR, _capsule(lib.TorchDLPackExchangeAPIPtr()))
    return lib

"""``tvmffi.cpp.nvrtc``: CUDA C++ source -> CUBIN at run time, with NVIDIA's NVRTC.

:func:`nvrtc_compile` (upstream's name and signature) calls NVRTC's C library
(``libnvrtc``) directly through ctypes, so it needs the CUDA toolkit's runtime
libraries but no Python bindings; the CUBIN it returns loads with
``cuModuleLoadData`` (or ``tvmffi.utils.embed_cubin`` / ``TVM_FFI_EMBED_CUBIN``).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from typing import Sequence

__all__ = ["nvrtc_compile"]

_NVRTC_SUCCESS = 0
_CU_ATTR_CC_MAJOR, _CU_ATTR_CC_MINOR = 75, 76  # CUdevice_attribute


def _load(names: Sequence[str], what: str) -> ctypes.CDLL:
    tried = []
    for name in names:
        if not name:
            continue
        try:
            return ctypes.CDLL(name)
        except OSError as err:
            tried.append(f"{name}: {err}")
    raise RuntimeError(f"nvrtc_compile: cannot load {what} ({'; '.join(tried) or 'not found'})")


def _nvrtc() -> ctypes.CDLL:
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    names = [ctypes.util.find_library("nvrtc") or ""]
    names += ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"]
    names += [os.path.join(home, "lib64", "libnvrtc.so")]
    lib = _load(names, "the NVRTC library (libnvrtc, from the CUDA toolkit)")
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    return lib


def _detect_arch() -> str:
    """sm_XY of the current CUDA context's device (else device 0)."""
    cuda = _load(["libcuda.so.1", "libcuda.so"], "the CUDA driver (libcuda)")
    dev = ctypes.c_int(0)
    if cuda.cuInit(0) != 0:
        raise RuntimeError("nvrtc_compile: cuInit failed; pass arch= explicitly")
    if cuda.cuCtxGetDevice(ctypes.byref(dev)) != 0 and cuda.cuDeviceGet(ctypes.byref(dev), 0) != 0:
        raise RuntimeError("nvrtc_compile: no CUDA device; pass arch= explicitly")
    major, minor = ctypes.c_int(0), ctypes.c_int(0)
    for out, attr in ((major, _CU_ATTR_CC_MAJOR), (minor, _CU_ATTR_CC_MINOR)):
        if cuda.cuDeviceGetAttribute(ctypes.byref(out), attr, dev) != 0:
            raise RuntimeError("nvrtc_compile: cannot read the compute capability; pass arch=")
    return f"sm_{major.value}{minor.value}"


def nvrtc_compile(
    source: str,
    *,
    name: str = "kernel.cu",
    arch: str | None = None,
    extra_opts: Sequence[str] | None = None,
) -> bytes:
    """Compile CUDA C++ ``source`` to a CUBIN for ``arch`` (e.g. ``"sm_90"``).

    Without ``arch`` the current GPU's architecture is used. ``extra_opts`` are
    more NVRTC options (``-I...``, ``-D...``). RuntimeError when NVRTC is not
    available or the source does not compile (the message carries NVRTC's log).
    """
    lib = _nvrtc()
    if arch is None:
        arch = _detect_arch()

    def check(rc: int, what: str) -> None:
        if rc != _NVRTC_SUCCESS:
            msg = lib.nvrtcGetErrorString(rc).decode(errors="replace")
            raise RuntimeError(f"nvrtc_compile: {what} failed: {msg}")

    prog = ctypes.c_void_p()
    check(
        lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None, None),
        "nvrtcCreateProgram",
    )
    try:
        opts = [f"--gpu-architecture={arch}".encode(), b"-default-device"]
        opts += [o.encode() if isinstance(o, str) else bytes(o) for o in extra_opts or ()]
        argv = (ctypes.c_char_p * len(opts))(*opts)
        rc = lib.nvrtcCompileProgram(prog, len(opts), argv)
        if rc != _NVRTC_SUCCESS:
            size = ctypes.c_size_t(0)
            log = ""
            if lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)) == _NVRTC_SUCCESS:
                buf = ctypes.create_string_buffer(size.value)
                if lib.nvrtcGetProgramLog(prog, buf) == _NVRTC_SUCCESS:
                    log = buf.value.decode(errors="replace")
            msg = lib.nvrtcGetErrorString(rc).decode(errors="replace")
            raise RuntimeError(f"nvrtc_compile: {name} does not compile ({msg}):\n{log}")
        size = ctypes.c_size_t(0)
        check(lib.nvrtcGetCUBINSize(prog, ctypes.byref(size)), "nvrtcGetCUBINSize")
        buf = ctypes.create_string_buffer(size.value)
        check(lib.nvrtcGetCUBIN(prog, buf), "nvrtcGetCUBIN")
        return buf.raw
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))

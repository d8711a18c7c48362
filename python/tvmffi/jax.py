"""TVM-FFI functions as XLA FFI targets: one kernel library called from ``jax.jit``.

::

    import jax, jax.numpy as jnp, tvmffi, tvmffi.jax

    mod = tvmffi.load_module("libtvmffi_kernels.so")
    tvmffi.jax.register_ffi_target("tvmffi.scale", mod.scale, platform="CUDA",
                                   outputs_first=True)          # scale(out, in, factor)

    @jax.jit
    def f(x):
        y = jax.ffi.ffi_call("tvmffi.scale", jax.ShapeDtypeStruct(x.shape, x.dtype))(
            x, factor=2.0)
        return y + 1

The handler XLA calls is C++ (``_jax_handler.cc``, shipped in the package),
compiled at first use against the XLA FFI C API header of the installed
jaxlib (``jax.ffi.include_dir()``) and the package's runtime, and cached per
user (``$TVMFFI_CACHE_DIR``, else ``$XDG_CACHE_HOME/tvmffi``, else
``~/.cache/tvmffi``), keyed by the source, jaxlib's version and the runtime.
For each call it passes every XLA buffer as a ``DLTensor*`` view (no copy),
XLA's attributes as TVM-FFI scalars/strings, runs the function with XLA's
stream for the device in the environment stream table (restored after), and
turns a raised error into an XLA error ``"<kind>: <message>"``.

Without JAX this module imports; its functions raise ImportError.
"""

from __future__ import annotations

import ctypes
import hashlib
import inspect
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Sequence

from . import _core, _framework, libinfo
from ._lockfile import FileLock
from ._reflection import handle_of

__all__ = ["handler_library", "is_available", "register_ffi_target", "registered_targets"]

_SOURCE = Path(__file__).with_name("_jax_handler.cc")
_LOCK = threading.Lock()
_LIB: ctypes.CDLL | None = None
# name -> (slot, platform); slots are never reused (XLA keeps the handler).
_TARGETS: dict[str, tuple[int, str]] = {}
_FUNCTIONS: dict[str, Any] = {}  # keeps the Python Function objects of each target alive
_TENSOR_TYPES = ("DLTensor*", "ffi.Tensor", "Tensor")


def _jax() -> Any:
    try:
        import jax
        import jax.ffi
    except ImportError as err:
        raise ImportError(
            f"tvmffi.jax needs JAX with jax.ffi (jax >= 0.4.38) installed: {err}"
        ) from err
    return jax


def is_available() -> bool:
    """Whether JAX (with jax.ffi) can be imported."""
    try:
        _jax()
    except ImportError:
        return False
    return True


def _cache_dir() -> Path:
    base = os.environ.get("TVMFFI_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tvmffi"


def _compiler() -> str:
    for name in (os.environ.get("CXX"), "c++", "g++", "clang++"):
        if name and shutil.which(name):
            return name
    raise RuntimeError(
        "tvmffi.jax: no C++ compiler found to build the XLA FFI handler (set CXX, or install g++)"
    )


def _build(jax: Any) -> Path:
    xla_include = jax.ffi.include_dir()
    header = Path(xla_include) / "xla" / "ffi" / "api" / "c_api.h"
    if not header.is_file():
        raise RuntimeError(f"tvmffi.jax: jaxlib ships no XLA FFI C API header ({header} missing)")
    import jaxlib

    runtime = Path(libinfo.find_libtvm_ffi())
    source = _SOURCE.read_bytes()
    header_text = header.read_bytes()
    defines = []
    if b"XLA_FFI_DeviceOrdinal_Get_Args" in header_text:
        defines.append("-DTVMFFI_XLA_HAS_DEVICE_ORDINAL")
    key = hashlib.sha256(
        b"\0".join(
            [
                source,
                header_text,
                getattr(jaxlib, "__version__", "?").encode(),
                str(runtime).encode(),
                " ".join(defines).encode(),
            ]
        )
    ).hexdigest()[:20]
    out_dir = _cache_dir() / "jax"
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / f"tvmffi_jax_handler_{key}.so"
    if out.is_file():
        return out
    with FileLock(out_dir / f"tvmffi_jax_handler_{key}.lock"):
        if out.is_file():  # built by another process meanwhile
            return out
        includes = [f"-I{p}" for p in libinfo.include_paths()] + [f"-I{xla_include}"]
        fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)
        os.close(fd)
        cmd = [
            _compiler(),
            "-std=c++17",
            "-O2",
            "-shared",
            "-fPIC",
            "-fvisibility=hidden",
            *defines,
            *includes,
            str(_SOURCE),
            "-o",
            tmp,
            f"-L{runtime.parent}",
            "-l:libtvm_ffi.so",
            f"-Wl,-rpath,{runtime.parent}",
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            os.unlink(tmp)
            raise RuntimeError(
                "tvmffi.jax: building the XLA FFI handler failed:\n"
                f"{' '.join(cmd)}\n{proc.stdout}{proc.stderr}"
            )
        os.replace(tmp, out)
    return out


def handler_library() -> ctypes.CDLL:
    """The compiled handler library (built and loaded on first use)."""
    global _LIB
    with _LOCK:
        if _LIB is None:
            path = _build(_jax())
            lib = ctypes.CDLL(str(path))
            lib.tvmffi_jax_handler.restype = ctypes.c_void_p
            lib.tvmffi_jax_handler.argtypes = [ctypes.c_int]
            lib.tvmffi_jax_bind.restype = ctypes.c_int
            lib.tvmffi_jax_bind.argtypes = [
                ctypes.c_int,
                ctypes.c_void_p,
                ctypes.c_int,
                ctypes.c_int,
                ctypes.c_char_p,
                ctypes.c_char_p,
            ]
            lib.tvmffi_jax_num_slots.restype = ctypes.c_int
            _LIB = lib
        return _LIB


def _is_tensor(annotation: Any) -> bool:
    if not isinstance(annotation, str):
        return False
    inner = annotation
    for left, right in (("Optional<", ">"), ("Optional[", "]")):  # 0.1.15's spelling, then 0.1.14's
        if annotation.startswith(left) and annotation.endswith(right):
            inner = annotation[len(left) : -1]
    return inner in _TENSOR_TYPES


def _plan(function: Any, attrs: Sequence[str] | None) -> list[str]:
    """One token per parameter: B (a buffer), * (all buffers), @name, ? (the one attribute)."""
    try:
        sig = inspect.signature(function)
    except (TypeError, ValueError):
        sig = None
    params = list(sig.parameters.values()) if sig is not None else []
    known = bool(params) and all(p.kind == p.POSITIONAL_ONLY for p in params)
    if not known:  # no metadata: all buffers, then the attributes in the order given
        return ["*"] + (["@" + a for a in attrs] if attrs is not None else ["?"])
    scalars = [p for p in params if not _is_tensor(p.annotation)]
    if attrs is not None and len(attrs) != len(scalars):
        raise ValueError(
            f"register_ffi_target: attrs names {len(attrs)} attribute(s), but the function "
            f"takes {len(scalars)} non-tensor parameter(s) "
            f"({', '.join(f'{p.name}: {p.annotation}' for p in scalars) or 'none'})"
        )
    named = all(not (p.name.startswith("arg") and p.name[3:].isdigit()) for p in scalars)
    if attrs is None and len(scalars) > 1 and not named:
        raise ValueError(
            f"register_ffi_target: the function takes {len(scalars)} non-tensor parameters and "
            "its metadata names none of them: pass attrs=[attribute names in parameter order]"
        )
    names = iter(attrs if attrs is not None else [p.name for p in scalars])
    plan = []
    for p in params:
        if _is_tensor(p.annotation):
            plan.append("B")
        elif attrs is None and not named:
            plan.append("?")  # the only non-tensor parameter: whatever the attribute's name
        else:
            plan.append("@" + next(names))
    return plan


def _platform(platform: str) -> tuple[str, bool]:
    p = platform.lower()
    if p in ("cuda", "gpu"):
        return "CUDA", True
    if p in ("cpu", "host"):
        return "cpu", False
    raise ValueError(f"register_ffi_target: platform must be 'CUDA' or 'cpu', got {platform!r}")


def register_ffi_target(
    name: str,
    function: Any,
    platform: str = "CUDA",
    *,
    attrs: Sequence[str] | None = None,
    outputs_first: bool = False,
) -> None:
    """Register ``function`` as the XLA FFI target ``name`` for ``platform`` ("CUDA" or "cpu").

    Then ``jax.ffi.ffi_call(name, result_shape_dtypes)(*args, **attributes)``
    runs it, eagerly and inside ``jax.jit``. ``function`` is a tvmffi.Function
    (a module's function, a global function) or a Python callable (wrapped in
    one). Its tensor parameters get the XLA buffers as ``DLTensor*`` views:
    the arguments, then the results (``outputs_first=True``: the results
    first, as in this repository's kernels ``scale(out, in, factor)``); the
    results must be written by the function. Its other parameters get the
    call's attributes: by name when ``attrs`` lists them in parameter order
    or the function's metadata names its parameters; a function with a single
    non-tensor parameter takes the one attribute whatever its name. A function
    without metadata takes all buffers first, then the attributes in ``attrs``
    order (at most one attribute when ``attrs`` is not given). A value the
    function returns is dropped. Registering a name again rebinds it.
    """
    jax = _jax()
    if not isinstance(name, str) or not name:
        raise ValueError("register_ffi_target: name must be a non-empty str")
    jax_platform, cuda = _platform(platform)
    if not isinstance(function, _core.Function):
        if not callable(function):
            raise TypeError(
                "register_ffi_target: function must be a tvmffi.Function or a "
                f"callable, got {type(function).__name__}"
            )
        function = _core.Function(function)
    plan = _plan(function, attrs)
    lib = handler_library()
    with _LOCK:
        if name in _TARGETS:
            slot, registered = _TARGETS[name]
            if registered != jax_platform:
                raise ValueError(
                    f"register_ffi_target: {name!r} is registered for "
                    f"{registered}; use another name for {jax_platform}"
                )
            new = False
        else:
            slot = len(_TARGETS)
            if slot >= lib.tvmffi_jax_num_slots():
                raise RuntimeError(f"tvmffi.jax: at most {slot} targets can be registered")
            new = True
        if (
            lib.tvmffi_jax_bind(
                slot,
                handle_of(function),
                int(cuda),
                int(outputs_first),
                "\n".join(plan).encode(),
                name.encode(),
            )
            != 0
        ):
            raise ValueError(f"register_ffi_target: cannot bind {name!r} (plan {plan})")
        _FUNCTIONS[name] = function
        if new:
            capsule = jax.ffi.pycapsule(ctypes.c_void_p(lib.tvmffi_jax_handler(slot)))
            jax.ffi.register_ffi_target(name, capsule, platform=jax_platform)
            _TARGETS[name] = (slot, jax_platform)


def registered_targets() -> dict[str, str]:
    """The targets registered through tvmffi.jax: name -> platform."""
    return {n: p for n, (_, p) in _TARGETS.items()}


# ---------------------------------------------------------------------------
# Eager calls of tvmffi functions with JAX arrays (no jax.ffi): JAX arrays are
# immutable, so the call path lends a function copies (python/src/readonly.cc:
# host copies it checks itself; on a GPU copies JAX makes, checked here after
# the call); a kernel that allocates gets a JAX array.
# ---------------------------------------------------------------------------
def _jax_device(device_type: int, device_id: int) -> Any:
    jax = _jax()
    if device_type == _framework._CPU:
        return jax.devices("cpu")[0]
    if device_type == _framework._CUDA:
        for d in jax.devices("gpu"):
            if getattr(d, "local_hardware_id", d.id) == device_id:
                return d
    raise ValueError(f"JAX has no device of DLPack type {device_type}, id {device_id}")


def _jax_alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
    import jax.numpy as jnp

    # A fresh buffer that nothing else refers to: the kernel fills it.
    return jnp.empty(shape, dtype=dtype, device=_jax_device(device_type, device_id))


def _sync_default_stream() -> None:
    # Eager kernels run on the legacy default stream; JAX reads on its own
    # (non-blocking) streams, so the result must be complete first.
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return
    cuda.cuStreamSynchronize(ctypes.c_void_p(0))


def _immutable_copy(array: Any) -> Any:
    import jax.numpy as jnp

    return jnp.array(array, copy=True)


def _bits(x: Any) -> Any:
    import jax
    import jax.numpy as jnp

    size = x.dtype.itemsize
    if (
        x.dtype == jnp.bool_
        or jnp.issubdtype(x.dtype, jnp.complexfloating)
        or size not in (1, 2, 4, 8)
    ):
        return None
    return jax.lax.bitcast_convert_type(x, jnp.dtype(f"uint{8 * size}"))


def _immutable_verify(copies: list) -> None:
    import numpy as np

    # The function ran on the default stream; JAX reads on its own.
    _sync_default_stream()
    for arg, orig, copy in copies:
        a, b = _bits(orig), _bits(copy)
        same = (
            bool((a == b).all())
            if a is not None
            else np.asarray(orig).tobytes() == np.asarray(copy).tobytes()
        )
        if not same:
            raise ValueError(
                f"argument #{arg} is a JAX array, but the function wrote to it: JAX arrays are "
                "immutable, so a function is given a copy, and the original is unchanged and "
                "the result discarded; to get results in JAX arrays, register the function "
                "with tvmffi.jax.register_ffi_target and call it with jax.ffi.ffi_call"
            )


def _jax_from_tensor(tensor: Any) -> Any:
    import jax.dlpack

    if tensor.device.dlpack_device_type() != _framework._CPU:
        _sync_default_stream()
    return jax.dlpack.from_dlpack(tensor)


from ._jax_shape import ffi_function  # noqa: E402, F401  (issue #42: result specs from the library)

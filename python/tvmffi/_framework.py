"""What the native core asks of tensor frameworks that have no DLPack C exchange API.

The core calls these with the framework's top-level module name ("numpy",
"torch", "cupy", ...), taken from the type of the tensor arguments. Each
table maps that name to the framework's function; ``register_framework``
adds one.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any, Callable

_CPU = 1
_CUDA = 2
_ROCM = 10

AllocFn = Callable[[tuple, str, int, int], Any]
StreamFn = Callable[[int, int], "int | None"]
FromTensorFn = Callable[[Any], Any]


def _module(framework: str) -> Any:
    mod = sys.modules.get(framework)
    if mod is None:
        mod = __import__(framework)
    return mod


def _torch_alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
    torch = _module("torch")
    if device_type == _CPU:
        dev = "cpu"
    elif device_type in (_CUDA, _ROCM):
        dev = f"cuda:{device_id}"
    else:
        raise ValueError(f"torch cannot allocate on DLPack device type {device_type}")
    torch_dtype = getattr(torch, dtype, None)
    if not isinstance(torch_dtype, torch.dtype):
        raise TypeError(f"torch has no dtype {dtype}")
    return torch.empty(shape, dtype=torch_dtype, device=dev)


# Arrays numpy allocated for kernels, by data address: a returned tensor that
# is one of them comes back as that very array (numpy < 2 would make a
# read-only view of it through from_dlpack).
_NUMPY_ALLOCATED: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _numpy_alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
    numpy = _module("numpy")
    if device_type != _CPU:
        raise ValueError(
            f"numpy allocates CPU tensors only; the kernel asked for DLPack device type "
            f"{device_type}"
        )
    arr = numpy.empty(shape, dtype=numpy.dtype(dtype))
    if arr.size > 0:
        _NUMPY_ALLOCATED[arr.ctypes.data] = arr
    return arr


class _ReadOnlyKeptView:
    """A tensor for numpy's from_dlpack, which keeps read-only memory read-only.

    A read-only tvmffi.Tensor exports itself through ``__dlpack__`` only as a
    copy (a consumer may ignore DLPack's read-only flag: python/src/export.cc);
    numpy honours the flag (numpy >= 2) or makes a read-only view of every
    legacy capsule (numpy < 2), so it gets the memory itself.
    """

    def __init__(self, tensor: Any) -> None:
        self._tensor = tensor

    def __dlpack__(self, *, max_version: Any = None, copy: Any = None, **kwargs: Any) -> Any:
        from . import _core

        if copy:
            return self._tensor.__dlpack__(max_version=max_version, copy=copy, **kwargs)
        return _core._dlpack_keeping_read_only(
            self._tensor, versioned=max_version is not None and max_version[0] >= 1
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._tensor.__dlpack_device__()


def _numpy_from_tensor(tensor: Any) -> Any:
    arr = _NUMPY_ALLOCATED.pop(tensor.data_ptr(), None)
    if arr is not None and arr.shape == tuple(tensor.shape) and str(arr.dtype) == tensor.dtype:
        return arr
    return _module("numpy").from_dlpack(_ReadOnlyKeptView(tensor))


def _cupy_alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
    cupy = _module("cupy")
    if device_type != _CUDA:
        raise ValueError(f"cupy allocates CUDA tensors only; got DLPack device type {device_type}")
    with cupy.cuda.Device(device_id):
        return cupy.empty(shape, dtype=dtype)


def _torch_stream(device_type: int, device_id: int) -> int | None:
    return int(_module("torch").cuda.current_stream(device_id).cuda_stream)


def _cupy_stream(device_type: int, device_id: int) -> int | None:
    cupy = _module("cupy")
    with cupy.cuda.Device(device_id):
        return int(cupy.cuda.get_current_stream().ptr)


def _jax_alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
    from .jax import _jax_alloc as alloc  # JAX arrays: see tvmffi/jax.py

    return alloc(shape, dtype, device_type, device_id)


def _jax_from_tensor(tensor: Any) -> Any:
    from .jax import _jax_from_tensor as from_tensor

    return from_tensor(tensor)


def immutable_copy(array: Any) -> Any:
    """A copy of a JAX array on a GPU, lent to a function in its place (python/src/readonly.cc)."""
    from .jax import _immutable_copy

    return _immutable_copy(array)


def immutable_verify(copies: list) -> None:
    """After the call: ValueError when the function wrote one of the copies [(arg, orig, copy)]."""
    from .jax import _immutable_verify

    _immutable_verify(copies)


ALLOCATORS: dict[str, AllocFn] = {
    "torch": _torch_alloc,
    "numpy": _numpy_alloc,
    "cupy": _cupy_alloc,
    "jax": _jax_alloc,
    "jaxlib": _jax_alloc,
}
STREAMS: dict[str, StreamFn] = {"torch": _torch_stream, "cupy": _cupy_stream}
FROM_TENSOR: dict[str, FromTensorFn] = {
    "torch": lambda t: _module("torch").utils.dlpack.from_dlpack(t),
    "numpy": _numpy_from_tensor,
    "jax": _jax_from_tensor,
    "jaxlib": _jax_from_tensor,
}


def exchange_api(framework: str) -> Any:
    """A DLPack C exchange API capsule tvmffi provides for a framework lacking one, or None.

    torch < 2.10 has none: tvmffi._torch_exchange (built against the torch
    found at build time) provides it when the running torch is that version.
    TVMFFI_NO_TORCH_EXCHANGE=1 turns it off (then torch goes through DLPack
    capsules).
    """
    if framework != "torch":
        return None
    ext = _torch_exchange()
    return ext.exchange_api() if ext is not None else None


def _torch_exchange() -> Any:
    """tvmffi._torch_exchange when it was built for the running torch and is not turned off."""
    if os.environ.get("TVMFFI_NO_TORCH_EXCHANGE") == "1":
        return None
    try:  # the version first: the extension is never loaded beside another torch
        from ._torch_exchange_for import TORCH_VERSION  # type: ignore[import-not-found]
    except ImportError:
        return None
    if TORCH_VERSION != _module("torch").__version__:
        return None
    try:
        from . import _torch_exchange as ext  # type: ignore[attr-defined]
    except ImportError:
        return None
    return ext


def increment_version() -> Any:
    """The function that bumps the autograd version of each torch tensor in a list, or None.

    torch >= 2.1 has torch._C._increment_version; an older torch gets
    tvmffi._torch_exchange's when that was built for it (else None: tvmffi
    then bumps each tensor through a metadata-only in-place op).
    """
    fn = getattr(_module("torch")._C, "_increment_version", None)
    if fn is not None:
        return fn
    ext = _torch_exchange()
    return ext.increment_version if ext is not None else None


def register_framework(
    name: str,
    alloc: AllocFn | None = None,
    stream: StreamFn | None = None,
    from_tensor: FromTensorFn | None = None,
) -> None:
    """Teach tvmffi a tensor framework (by top-level module name) without an exchange API."""
    if alloc is not None:
        ALLOCATORS[name] = alloc
    if stream is not None:
        STREAMS[name] = stream
    if from_tensor is not None:
        FROM_TENSOR[name] = from_tensor


def alloc(framework: str, shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
    """An empty tensor of the framework (TVMFFIEnvTensorAlloc during a call)."""
    fn = ALLOCATORS.get(framework)
    if fn is None:
        empty = getattr(_module(framework), "empty", None)
        if empty is None:
            raise NotImplementedError(f"tvmffi cannot allocate tensors with {framework}")
        return empty(shape, dtype=dtype)
    return fn(shape, dtype, device_type, device_id)


def current_stream(framework: str, device_type: int, device_id: int) -> int | None:
    """The framework's current stream on a device, as an int (None: no notion of one)."""
    if device_type not in (_CUDA, _ROCM):
        return None
    fn = STREAMS.get(framework)
    return None if fn is None else fn(device_type, device_id)


def from_tensor(framework: str, tensor: Any) -> Any:
    """A tensor a kernel returned, as a tensor of the framework of the arguments."""
    fn = FROM_TENSOR.get(framework)
    if fn is not None:
        return fn(tensor)
    from_dlpack = getattr(_module(framework), "from_dlpack", None)
    return tensor if from_dlpack is None else from_dlpack(tensor)


def copy_lent(view: Any) -> tuple[Any, Callable[[], None]]:
    """An owning copy of a device tensor lent to a Python callback, and its write-back.

    A ``DLTensor*`` argument of a callback is valid only during the call, so
    the callback gets a tensor that owns its memory (python/src/lent.cc,
    "Tensors lent to Python callbacks"). On the host the core copies; off the
    host a framework already imported (torch, then cupy) copies ``view`` (a
    tvmffi.Tensor over the lent memory, used only here) on its current stream.
    ``write_back()``, called when the callback returns, writes the elements the
    callback changed back to the lent memory and drops ``view``.
    """
    from . import _core

    device_type, device_id = view.__dlpack_device__()
    torch = sys.modules.get("torch")
    if torch is not None and device_type in (_CUDA, _ROCM):
        src = torch.utils.dlpack.from_dlpack(view)
        own, snap = src.clone(), src.clone()

        def torch_write_back() -> None:
            src.copy_(torch.where(own != snap, own, src))

        return _core.from_dlpack(own), torch_write_back
    cupy = sys.modules.get("cupy")
    if cupy is not None and device_type == _CUDA:
        with cupy.cuda.Device(device_id):
            src = cupy.from_dlpack(view)
            own, snap = src.copy(), src.copy()

        def cupy_write_back() -> None:
            with cupy.cuda.Device(device_id):
                cupy.copyto(src, own, where=own != snap)

        return _core.from_dlpack(own), cupy_write_back
    raise ValueError(
        f"tvmffi: a Python callback was lent a tensor on DLPack device type {device_type} "
        f"(id {device_id}) as DLTensor*, valid only during the call; tvmffi gives callbacks "
        "an owning copy, and copies device memory through torch or cupy, neither of which "
        "is imported (or supports the device)"
    )

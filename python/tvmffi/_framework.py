"""What the native core asks of tensor frameworks that have no DLPack C exchange API.

The core calls these with the framework's top-level module name ("numpy",
"torch", "cupy", ...), taken from the type of the tensor arguments.
"""

from __future__ import annotations

import sys
from typing import Any

_CPU = 1
_CUDA = 2
_ROCM = 10


def _module(framework: str) -> Any:
    mod = sys.modules.get(framework)
    if mod is None:
        mod = __import__(framework)
    return mod


def alloc(framework: str, shape: tuple[int, ...], dtype: str, device_type: int,
          device_id: int) -> Any:
    """An empty tensor of the framework (TVMFFIEnvTensorAlloc during a call)."""
    mod = _module(framework)
    if framework == "torch":
        if device_type == _CPU:
            dev = "cpu"
        elif device_type in (_CUDA, _ROCM):
            dev = f"cuda:{device_id}"
        else:
            raise ValueError(f"torch cannot allocate on DLPack device type {device_type}")
        torch_dtype = getattr(mod, dtype, None)
        if not isinstance(torch_dtype, mod.dtype):
            raise TypeError(f"torch has no dtype {dtype}")
        return mod.empty(shape, dtype=torch_dtype, device=dev)
    if framework == "numpy":
        if device_type != _CPU:
            raise ValueError(
                f"numpy allocates CPU tensors only, the kernel asked for DLPack device type "
                f"{device_type}")
        return mod.empty(shape, dtype=mod.dtype(dtype))
    if framework == "cupy":
        if device_type != _CUDA:
            raise ValueError(f"cupy allocates CUDA tensors only, got device type {device_type}")
        with mod.cuda.Device(device_id):
            return mod.empty(shape, dtype=dtype)
    empty = getattr(mod, "empty", None)
    if empty is None:
        raise NotImplementedError(f"tvmffi cannot allocate tensors with {framework}")
    return empty(shape, dtype=dtype)


def current_stream(framework: str, device_type: int, device_id: int) -> int | None:
    """The framework's current stream on a device, as an int (None: no notion of one)."""
    if device_type not in (_CUDA, _ROCM):
        return None
    mod = _module(framework)
    if framework == "torch":
        return int(mod.cuda.current_stream(device_id).cuda_stream)
    if framework == "cupy":
        with mod.cuda.Device(device_id):
            return int(mod.cuda.get_current_stream().ptr)
    return None


def from_tensor(framework: str, tensor: Any) -> Any:
    """A tensor a kernel returned, as a tensor of the framework of the arguments."""
    mod = _module(framework)
    if framework == "torch":
        return mod.utils.dlpack.from_dlpack(tensor)
    from_dlpack = getattr(mod, "from_dlpack", None)
    if from_dlpack is None:
        return tensor
    return from_dlpack(tensor)

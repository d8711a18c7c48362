"""The tensor allocator of calls that have no framework tensor among their arguments.

A kernel that allocates (``ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, ...)``)
asks the environment's allocator. During a call with a numpy/torch/cupy tensor
among the arguments that framework allocates; when every tensor argument is a
``tvmffi.Tensor`` there is none, unless one is set for a scope::

    with tvmffi.use_allocator("numpy"):
        out = mod.scale_alloc(tvmffi.from_dlpack(x), 2.0)   # numpy allocates

The scope is per thread (the environment's allocator is thread-local), and
calls with framework tensors still use their framework.
"""

from __future__ import annotations

import contextlib
import importlib
from typing import Any, Callable, Iterator

from . import _core, _framework
from ._core import Device

#: (shape, dtype, device) -> a new tensor (numpy array, torch tensor, anything
#: DLPack-capable) of exactly that shape, dtype and device.
AllocatorFn = Callable[[tuple[int, ...], str, Device], Any]


def _framework_allocator(name: str) -> Callable[[tuple, str, int, int], Any]:
    if name not in _framework.ALLOCATORS:
        try:
            mod = importlib.import_module(name)
        except ImportError as err:
            raise ValueError(f"use_allocator: no tensor framework named {name!r} ({err})") from err
        if not callable(getattr(mod, "empty", None)):
            raise ValueError(
                f"use_allocator: {name!r} has no empty(shape, dtype=...) to allocate "
                "with; pass a callable (shape, dtype, device) -> tensor"
            )

    def alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
        return _framework.alloc(name, shape, dtype, device_type, device_id)

    return alloc


def _callable_allocator(fn: AllocatorFn) -> Callable[[tuple, str, int, int], Any]:
    def alloc(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
        return fn(shape, dtype, Device(device_type, device_id))

    return alloc


@contextlib.contextmanager
def use_allocator(allocator: str | AllocatorFn) -> Iterator[None]:
    """Allocate kernels' tensors with ``allocator`` in calls that have no framework tensor.

    ``allocator`` is a framework name (``"numpy"``, ``"torch"``, ``"cupy"``, or
    one given to ``register_framework``), or a callable ``(shape, dtype, device)
    -> tensor`` (``dtype`` a str such as ``"float32"``, ``device`` a
    ``tvmffi.Device``) returning a writable DLPack-capable tensor of exactly
    that shape, dtype and device (anything else is a ValueError in the call).
    Tensors so allocated come back as ``tvmffi.Tensor``. Works as a decorator
    too; scopes nest, per thread.
    """
    if isinstance(allocator, str):
        fn = _framework_allocator(allocator)
    elif callable(allocator):
        fn = _callable_allocator(allocator)
    else:
        raise TypeError(
            "use_allocator: expected a framework name (str) or a callable "
            f"(shape, dtype, device) -> tensor, got {type(allocator).__name__}"
        )
    previous, env_allocator = _core._swap_scoped_allocator(fn)
    try:
        yield
    finally:
        _core._restore_scoped_allocator(previous, env_allocator)

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
import functools
import importlib
import threading
from typing import Any, Callable

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


class _ThreadScopes:
    """One thread's open scopes, innermost last (the extension reads the last)."""

    def __init__(self) -> None:
        self.stack: list[Callable[..., Any]] = []
        self.base: tuple[Any, int] | None = None  # what the first scope replaced
        self.owner = threading.get_ident()


_local = threading.local()


def _thread_scopes() -> _ThreadScopes:
    state = getattr(_local, "scopes", None)
    if state is None:
        state = _local.scopes = _ThreadScopes()
    return state


class _AllocatorScope(contextlib.ContextDecorator):
    """One ``use_allocator`` scope. Scopes may end in any order, on any
    thread, or late (a generator closed after its caller's scope began): each
    removes only its own entry from the thread that entered it, so the
    innermost scope still open there is what calls get, and once none is
    open, whatever was set before them."""

    def __init__(self, fn: Callable[[tuple, str, int, int], Any]) -> None:
        self._fn = fn
        self._open: tuple[_ThreadScopes, Callable[..., Any]] | None = None

    def _recreate_cm(self) -> _AllocatorScope:
        return _AllocatorScope(self._fn)  # a decorated function may recurse or run on threads

    def __enter__(self) -> None:
        if self._open is not None:
            raise RuntimeError("use_allocator: this scope is already open; make a new one")
        state = _thread_scopes()
        entry = functools.partial(self._fn)  # its own identity, even for a shared allocator
        state.stack.append(entry)
        if state.base is None:
            state.base = _core._swap_scoped_allocator(state.stack)
        self._open = (state, entry)

    def __exit__(self, *exc: object) -> None:
        if self._open is None:
            return
        state, entry = self._open
        self._open = None
        for k in range(len(state.stack) - 1, -1, -1):
            if state.stack[k] is entry:
                del state.stack[k]
                break
        # The thread-local allocator can be put back only on its own thread;
        # elsewhere the emptied stack already gives no allocator there.
        if not state.stack and state.base is not None and state.owner == threading.get_ident():
            base, state.base = state.base, None
            _core._restore_scoped_allocator(*base)


def use_allocator(allocator: str | AllocatorFn) -> _AllocatorScope:
    """Allocate kernels' tensors with ``allocator`` in calls that have no framework tensor.

    ``allocator`` is a framework name (``"numpy"``, ``"torch"``, ``"cupy"``, or
    one given to ``register_framework``), or a callable ``(shape, dtype, device)
    -> tensor`` (``dtype`` a str such as ``"float32"``, ``device`` a
    ``tvmffi.Device``) returning a writable DLPack-capable tensor of exactly
    that shape, dtype and device (anything else is a ValueError in the call).
    Tensors so allocated come back as ``tvmffi.Tensor``. Works as a decorator
    too; scopes nest, per thread, and may end in any order (each removes only
    itself). A generator suspended inside a scope leaves it open meanwhile, as
    ``decimal.localcontext`` does.
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
    return _AllocatorScope(fn)

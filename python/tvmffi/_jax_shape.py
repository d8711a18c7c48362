"""tvmffi.jax.ffi_function: a kernel as a JAX function, result shapes from the library.

A function that fills outputs it is given (``TVM_FFI_DLL_EXPORT_WRITES``) and
declares a shape function (``TVM_FFI_DLL_EXPORT_SHAPE``) becomes a callable
taking its other arguments; the result spec of ``jax.ffi.ffi_call`` comes
from the shape function (called with None for each output), so none is
written by hand, inside ``jax.jit`` too::

    scale = tvmffi.jax.ffi_function(mod, "scale", platform="cpu")   # scale(out, in, factor)
    y = jax.jit(lambda x: scale(x, 2.0) + 1)(x)
"""

from __future__ import annotations

import os
from typing import Any, Callable

from . import shape_function as _shape


def _device(platform: str) -> tuple[int, int]:
    return (1, 0) if platform.lower() in ("cpu", "host") else (2, 0)


def _attr(value: Any) -> Any:
    import numpy as np

    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        return np.int64(value)
    if isinstance(value, float):
        return np.float64(value)
    return value


def ffi_function(
    module: Any, name: str, platform: str = "CUDA", *, target: str | None = None
) -> Callable[..., Any]:
    """``module``'s function ``name`` as a JAX-callable (eager and in ``jax.jit``).

    The callable takes the function's arguments without the ones it writes, in
    order (arrays and scalars), and returns the written arguments as new JAX
    arrays (one array, or a tuple of them), shaped by the library's shape
    function. The written arguments must all come before the other tensors or
    all after them (``scale(out, in, factor)``, ``add_one(x, out)``). The XLA
    FFI target is ``target`` (default ``tvmffi.<library>.<name>``), registered
    once for ``platform`` with :func:`tvmffi.jax.register_ffi_target`.
    Raises ValueError for a function without a writes declaration or whose
    outputs sit among its inputs, LookupError without a shape function.
    """
    from . import jax as tj

    jax = tj._jax()
    meta = module.get_function_metadata(name)
    writes = module.get_function_writes(name)
    if meta is None or writes is None:
        raise ValueError(
            f"{name}: needs export metadata and a writes declaration (TVM_FFI_DLL_EXPORT_WRITES)"
        )
    if not writes:
        raise ValueError(f"{name}: writes none of its arguments, so it has no result for JAX")
    if not _shape.has_shape_function(module, name):
        raise LookupError(
            f"{name}: the library declares no shape function (TVM_FFI_DLL_EXPORT_SHAPE)"
        )
    types = [a["type"] for a in meta["args"]]
    tensors = [i for i, t in enumerate(types) if tj._is_tensor(t)]
    inputs = [i for i in tensors if i not in writes]
    if all(w < i for w in writes for i in inputs):
        outputs_first = True
    elif all(w > i for w in writes for i in inputs):
        outputs_first = False
    else:
        raise ValueError(f"{name}: its outputs {list(writes)} sit among its inputs {inputs}")
    scalars = [i for i, t in enumerate(types) if i not in tensors]
    lib = os.path.basename(getattr(module, "path", "") or "lib").split(".")[0]
    target = target or f"tvmffi.{lib}.{name}"
    if target not in tj.registered_targets():
        tj.register_ffi_target(
            target,
            module.get_function(name),
            platform,
            attrs=[f"arg{i}" for i in scalars],
            outputs_first=outputs_first,
        )
    device = _device(platform)
    n_args = len(types) - len(writes)

    def call(*args: Any) -> Any:
        if len(args) != n_args:
            raise TypeError(
                f"{name}: expected {n_args} arguments (its outputs excluded), got {len(args)}"
            )
        full: list[Any] = []
        given = iter(args)
        for i in range(len(types)):
            if i in writes:
                full.append(None)
                continue
            a = next(given)
            if i in tensors:
                a = _shape.TensorMeta(tuple(int(d) for d in a.shape), str(a.dtype), device)
            full.append(a)
        specs = _shape.result_specs(module, name, full)
        outs = [jax.ShapeDtypeStruct(s.shape, s.dtype) for s in specs]
        attrs = {f"arg{i}": _attr(full[i]) for i in scalars}
        arrays = [
            args[k]
            for k, i in enumerate(j for j in range(len(types)) if j not in writes)
            if i in tensors
        ]
        result = jax.ffi.ffi_call(target, outs if len(outs) != 1 else outs[0])(*arrays, **attrs)
        return tuple(result) if len(outs) != 1 else result

    call.__name__ = name
    return call

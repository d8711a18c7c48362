"""Shape functions (TVM_FFI_DLL_EXPORT_SHAPE, tvm/ffi/extra/shape_function.h).

A library that exports ``__tvm_ffi__shape_<name>`` next to ``__tvm_ffi_<name>``
says, from its arguments' metadata alone, what tensors ``name`` returns: their
shapes, dtypes and devices. :func:`result_specs` calls it with metadata-only
tensors (``data`` is NULL): torch's fake tensors (:mod:`tvmffi.torch`) and
JAX's abstract values (:mod:`tvmffi.jax`) go in as they are.

    >>> mod = tvmffi.load_module("libtvmffi_cpu_kernels.so")
    >>> tvmffi.shape_function.result_specs(mod, "scale_alloc", (torch.empty(2, 3), 2.0))
    [TensorSpec(shape=(2, 3), dtype='float32', device=(1, 0))]
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple, Sequence

from . import _core

__all__ = ["TensorSpec", "TensorMeta", "has_shape_function", "result_specs"]


class TensorSpec(NamedTuple):
    """One result of a shape function: ``device`` is ``(device_type, device_id)`` (DLDevice)."""

    shape: tuple[int, ...]
    dtype: str
    device: tuple[int, int]


class TensorMeta(NamedTuple):
    """A tensor's metadata, for hosts whose tensors have no ``shape``/``dtype``/``device``.

    ``dtype`` is a name (``"float32"``); ``device`` a ``(device_type, device_id)``
    pair; ``strides`` None for a compact (row-major) tensor.
    """

    shape: tuple[int, ...]
    dtype: str
    device: tuple[int, int] = (1, 0)
    strides: tuple[int, ...] | None = None


def _symbol(module: Any, name: str) -> int:
    """The address of the library's ``__tvm_ffi__shape_<name>``, or 0."""
    path = getattr(module, "path", "")
    if not path:
        return 0
    return _core._shape_function(str(path), name)


def has_shape_function(module: Any, name: str) -> bool:
    """Whether ``module``'s library exports a shape function for ``name``."""
    return _symbol(module, name) != 0


def _device_pair(device: Any) -> tuple[int, int]:
    if isinstance(device, tuple):
        return int(device[0]), int(device[1])
    if device == "cpu":  # numpy 2's ndarray.device
        return 1, 0
    kind = getattr(device, "type", None)
    if isinstance(kind, str):  # torch.device
        if kind == "cpu":
            return 1, 0
        if kind == "cuda":
            import torch

            index = device.index if device.index is not None else torch.cuda.current_device()
            return (10 if getattr(torch.version, "hip", None) else 2), int(index)
        if kind == "meta":
            raise ValueError("a shape function needs the tensor's real device, got 'meta'")
    dlpack = getattr(device, "__dlpack_device__", None)
    if dlpack is not None:
        t, i = dlpack()
        return int(t), int(i)
    platform = getattr(device, "platform", None)  # a jax Device
    if platform == "cpu":
        return 1, 0
    if platform in ("gpu", "cuda"):
        return 2, int(getattr(device, "local_hardware_id", 0) or 0)
    raise TypeError(f"cannot tell the DLDevice of {device!r}")


def _dtype_name(dtype: Any) -> str:
    text = str(dtype)
    return text[6:] if text.startswith("torch.") else text


def _meta_of(value: Any) -> TensorMeta | None:
    """The metadata of a tensor-like value, or None for a scalar."""
    if isinstance(value, TensorMeta):
        return value
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is None or dtype is None or isinstance(value, (int, float, bool, str)):
        return None
    device = getattr(value, "device", None)
    if callable(device):  # jax.Array.device() in older JAX
        device = device()
    if device is None:  # an abstract value (jax.ShapeDtypeStruct): the caller's default
        device = (1, 0)
    strides = None
    stride = getattr(value, "stride", None)
    if callable(stride):  # torch: element strides (int() specializes symbolic sizes)
        strides = tuple(int(s) for s in stride())
    return TensorMeta(
        tuple(int(d) for d in shape), _dtype_name(dtype), _device_pair(device), strides
    )


def _tensor_meta(meta: TensorMeta) -> tuple:
    """What the extension makes a data-less DLTensor of (``_core._call_shape_function``)."""
    from . import dtype as _dtype

    dt = _dtype(meta.dtype)
    return (
        tuple(meta.shape),
        (dt.type_code, dt.bits, dt.lanes),
        tuple(meta.device),
        None if meta.strides is None else tuple(meta.strides),
    )


def result_specs(module: Any, name: str, args: Sequence[Any]) -> list[TensorSpec]:
    """What ``module.<name>(*args)`` would return, from the arguments' metadata.

    Tensor arguments are anything with ``shape``, ``dtype`` and ``device``
    (torch tensors, fake tensors, numpy arrays, jax arrays and abstract values)
    or :class:`TensorMeta`; no data is read. Other arguments go as in a call.
    Raises LookupError when the library declares no shape function for
    ``name``, and the shape function's own error (its kind kept) for bad
    arguments.
    """
    fn = _symbol(module, name)
    if not fn:
        raise LookupError(
            f"{name}: the library declares no shape function (TVM_FFI_DLL_EXPORT_SHAPE)"
        )
    values: list[Any] = []
    metas: list[tuple | None] = []
    for a in args:
        meta = _meta_of(a)
        values.append(None if meta is not None else a)
        metas.append(None if meta is None else _tensor_meta(meta))
    text = _core._call_shape_function(fn, values, metas)
    return [
        TensorSpec(tuple(e["shape"]), e["dtype"], (e["device"][0], e["device"][1]))
        for e in json.loads(str(text))
    ]

"""A library's exported functions as torch custom ops, which torch.compile sees through.

:func:`register` turns each function of a loaded module into a
``torch.library`` custom op (``torch.ops.<namespace>.<name>``) from what the
library itself declares:

* the schema from the export metadata (``TVM_FFI_DLL_EXPORT_TYPED_FUNC``):
  tensors (``DLTensor*``, ``ffi.Tensor``, optional or in an ``Array``), ``int``,
  ``float``, ``bool``, ``str``;
* ``mutates_args`` from the writes declaration (``TVM_FFI_DLL_EXPORT_WRITES``);
  without one, every tensor argument counts as written;
* the fake (meta) implementation from the shape function
  (``TVM_FFI_DLL_EXPORT_SHAPE``) for a function that returns tensors; a
  function that returns nothing (it writes its outputs) needs none.

The op calls the function as a plain call does (torch's current CUDA stream,
torch's allocator for tensors the library allocates), so errors keep their
kind and message. Needs torch >= 2.4 (``torch.library.custom_op``).

    >>> mod = tvmffi.load_module("libtvmffi_cpu_kernels.so")
    >>> ops = tvmffi.torch.register(mod, namespace="cpu_kernels")
    >>> torch.compile(lambda x: ops.scale_alloc(x, 2.0) + 1, fullgraph=True)(x)

Symbolic sizes (dynamic shapes) go to a shape function as their current
values: torch guards on them, so a new size recompiles.
"""

from __future__ import annotations

import keyword
import types
from typing import Any, Iterable

from . import shape_function as _shape

__all__ = ["register", "op_schema", "Skipped"]

# Export metadata type names -> torch schema types (tensors handled apart).
_SCALARS = {"int": "int", "float": "float", "bool": "bool", "str": "str"}
_TENSORS = ("DLTensor*", "ffi.Tensor")


class Skipped(ValueError):
    """Why a function cannot be a custom op (raised for a function named explicitly)."""


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("tvmffi.torch needs PyTorch") from e
    if not hasattr(torch.library, "custom_op"):
        raise ImportError(
            f"tvmffi.torch needs torch >= 2.4 (torch.library.custom_op); this is torch {torch.__version__}"
        )
    return torch


def _inner(type_name: str, prefix: str) -> str | None:
    if type_name.startswith(prefix + "[") and type_name.endswith("]"):
        return type_name[len(prefix) + 1 : -1]
    if type_name.startswith(prefix + "<") and type_name.endswith(">"):
        return type_name[len(prefix) + 1 : -1]
    return None


def _arg_type(type_name: str, alias: str | None) -> str | None:
    """The schema type of one parameter (``alias`` for a written tensor), or None."""
    mark = f"({alias}!)" if alias else ""
    if type_name in _TENSORS:
        return "Tensor" + mark
    opt = _inner(type_name, "Optional")
    if opt in _TENSORS:
        return "Tensor" + mark + "?"
    if opt in _SCALARS and not alias:
        return _SCALARS[opt] + "?"
    arr = _inner(type_name, "Array")
    if arr in _TENSORS:
        return "Tensor" + mark + "[]"
    if type_name in _SCALARS and not alias:
        return _SCALARS[type_name]
    return None


def _is_tensorish(type_name: str) -> bool:
    return _arg_type(type_name, None) is not None and _arg_type(type_name, "a") is not None


def op_schema(module: Any, name: str) -> tuple[str, tuple[str, ...], int]:
    """``(schema, mutates_args, num_tensor_results)`` of ``name`` as a custom op.

    Parameters are named ``arg0``, ``arg1``, ... (the metadata has no names).
    Raises :class:`Skipped` when the function cannot be an op.
    """
    meta = module.get_function_metadata(name)
    if meta is None:
        raise Skipped(f"{name}: no export metadata (TVM_FFI_DLL_EXPORT_TYPED_FUNC)")
    writes = module.get_function_writes(name)
    arg_types = [a["type"] for a in meta["args"]]
    if writes is None:  # undeclared: any tensor may be written
        writes = tuple(i for i, t in enumerate(arg_types) if _is_tensorish(t))
    params, mutated = [], []
    for i, t in enumerate(arg_types):
        alias = None
        if i in writes:
            if not _is_tensorish(t):
                raise Skipped(f"{name}: argument {i} ({t}) is declared written but is not a tensor")
            alias = f"a{i}"
            mutated.append(f"arg{i}")
        st = _arg_type(t, alias)
        if st is None:
            raise Skipped(f"{name}: argument {i} has type {t}, which a torch schema cannot carry")
        params.append(f"{st} arg{i}")
    ret = meta["ret"]
    if ret == "None":
        ret_schema, n_out = "()", 0
    elif ret in _TENSORS or _inner(ret, "Array") in _TENSORS:
        if mutated:
            raise Skipped(
                f"{name}: returns a tensor and writes an argument (it may return that argument)"
            )
        if not _shape.has_shape_function(module, name):
            raise Skipped(
                f"{name}: returns a tensor but declares no shape function (TVM_FFI_DLL_EXPORT_SHAPE)"
            )
        ret_schema, n_out = ("Tensor", 1) if ret in _TENSORS else ("Tensor[]", -1)
    else:
        raise Skipped(
            f"{name}: returns {ret}; a custom op traced by torch.compile returns tensors or nothing"
        )
    return f"({', '.join(params)}) -> {ret_schema}", tuple(mutated), n_out


def _torch_device(torch: Any, device: tuple[int, int]) -> Any:
    kind, index = device
    if kind == 1:
        return torch.device("cpu")
    if kind in (2, 10):  # kDLCUDA, kDLROCM
        return torch.device("cuda", index)
    raise ValueError(f"a shape function returned a device torch has no name for: {device}")


def _torch_dtype(torch: Any, name: str) -> Any:
    dt = getattr(torch, name, None)
    if not isinstance(dt, torch.dtype):
        raise TypeError(f"a shape function returned a dtype torch has no name for: {name}")
    return dt


def _define(torch: Any, module: Any, name: str, namespace: str) -> Any:
    schema, mutated, n_out = op_schema(module, name)
    func = module.get_function(name)

    def impl(*args: Any) -> Any:
        out = func(*args)
        if n_out == 0:
            return None
        if n_out == 1:
            return out if isinstance(out, torch.Tensor) else torch.from_dlpack(out)
        return [t if isinstance(t, torch.Tensor) else torch.from_dlpack(t) for t in out]

    op = torch.library.custom_op(f"{namespace}::{name}", impl, mutates_args=mutated, schema=schema)
    if n_out == 0:  # it returns nothing: tracing has nothing to make up
        op.register_fake(lambda *args: None)
    else:

        def fake(*args: Any) -> Any:
            specs = _shape.result_specs(module, name, args)
            outs = [
                torch.empty(
                    s.shape,
                    dtype=_torch_dtype(torch, s.dtype),
                    device=_torch_device(torch, s.device),
                )
                for s in specs
            ]
            if n_out == 1:
                if len(outs) != 1:
                    raise ValueError(
                        f"{name}: the shape function describes {len(outs)} results, the function returns 1"
                    )
                return outs[0]
            return outs

        op.register_fake(fake)
    return op


def register(
    module: Any,
    namespace: str,
    names: Iterable[str] | None = None,
) -> types.SimpleNamespace:
    """Register ``module``'s functions as ``torch.ops.<namespace>.<name>`` custom ops.

    ``module`` is a loaded :class:`tvmffi.Module` or a library path. With
    ``names``, exactly those functions (one that cannot be an op raises
    :class:`Skipped`, saying why); without, every function that can be one,
    and the others are listed in the result's ``skipped`` (name -> reason).
    Returns a namespace of the ops (``ops.scale_alloc(x, 2.0)``).
    Registering again replaces the ops.
    """
    torch = _torch()
    if isinstance(module, (str, bytes)) or hasattr(module, "__fspath__"):
        from .module import load_module

        module = load_module(module)
    if not namespace.isidentifier() or keyword.iskeyword(namespace):
        raise ValueError(f"namespace must be a Python identifier, got {namespace!r}")
    explicit = names is not None
    todo = list(names) if explicit else module.list_functions()
    ops: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    for name in todo:
        try:
            ops[name] = _define(torch, module, name, namespace)
        except Skipped as e:
            if explicit:
                raise
            skipped[name] = str(e)
    result = types.SimpleNamespace(**{n: getattr(getattr(torch.ops, namespace), n) for n in ops})
    result.skipped = skipped
    return result

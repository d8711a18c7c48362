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
kind and message. Needs torch >= 2.4 (``torch.library.register_fake``).

    >>> mod = tvmffi.load_module("libtvmffi_cpu_kernels.so")
    >>> ops = tvmffi.torch.register(mod, namespace="cpu_kernels")
    >>> torch.compile(lambda x: ops.scale_alloc(x, 2.0) + 1, fullgraph=True)(x)

Dynamic shapes: symbolic sizes go to the shape function at their current
values and the fake tensors get symbolic sizes back (an argument's size, or a
linear function of the sizes, learned by calling the shape function at other
sizes), so ``torch.compile(dynamic=True)`` and ``mark_dynamic`` compile once
for every size; a size the shape function computes otherwise is specialized.
"""

from __future__ import annotations

import keyword
import types
from typing import Any, Callable, Iterable, Iterator, Sequence

from . import shape_function as _shape

__all__ = ["register", "op_schema", "Skipped"]

# Export metadata type names -> torch schema types (tensors handled apart).
_SCALARS = {"int": "int", "float": "float", "bool": "bool", "str": "str"}
_TENSORS = ("DLTensor*", "ffi.Tensor")


# The Library defining each registered op, by (namespace, name): dropping one
# removes its op, so registering again replaces it.
_LIBRARIES: dict[tuple[str, str], Any] = {}


class Skipped(ValueError):
    """Why a function cannot be a custom op (raised for a function named explicitly)."""


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError("tvmffi.torch needs PyTorch") from e
    if not hasattr(torch.library, "register_fake"):
        raise ImportError(
            f"tvmffi.torch needs torch >= 2.4 (torch.library.register_fake); this is torch {torch.__version__}"
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


def _sym_exprs(torch: Any, args: Sequence[Any]) -> Iterator[Any]:
    """The symbolic sizes and strides of the tensor arguments."""
    for a in args:
        if isinstance(a, torch.Tensor):
            for d in (*a.shape, *a.stride()):
                if isinstance(d, torch.SymInt):
                    yield d


def _metas(torch: Any, args: Sequence[Any], dim: Callable[[Any], int]) -> list[Any]:
    """``args`` with each tensor as a TensorMeta, its sizes and strides mapped by ``dim``."""
    return [
        _shape.TensorMeta(
            tuple(dim(d) for d in a.shape),
            _shape._dtype_name(a.dtype),
            _shape._device_pair(a.device),
            tuple(dim(d) for d in a.stride()),
        )
        if isinstance(a, torch.Tensor)
        else a
        for a in args
    ]


def _metas_at(torch: Any, args: Sequence[Any], values: dict) -> list[Any]:
    """``args`` with each tensor as a TensorMeta whose sizes take ``values`` (symbol -> int)."""

    def at(d: Any) -> int:
        return int(d.node.expr.xreplace(values)) if isinstance(d, torch.SymInt) else int(d)

    return _metas(torch, args, at)


def _symbolic_results(
    torch: Any, module: Any, name: str, args: Sequence[Any]
) -> list[tuple[tuple[Any, ...], _shape.TensorSpec]]:
    """Each result's shape (ints and SymInts of the arguments' sizes) with its spec.

    The shape function takes concrete sizes, so symbolic ones (dynamic shapes)
    go in at their current values (hints), without a guard, and it is called
    again with each symbol moved (x2 and +1) to learn how each result size
    follows them: as a constant, an argument's size, or ``b + sum(a_i * s_i)``
    with integer coefficients (checked at a third value). A size that follows
    none, or a symbol the shape function refuses at both other values, is
    specialized: torch guards on its current value, so a new value recompiles.
    """
    syms = list(_sym_exprs(torch, args))
    if not syms:
        return [(s.shape, s) for s in _shape.result_specs(module, name, args)]
    env = syms[0].node.shape_env
    known = getattr(env, "backed_var_to_val", None)
    if known is None:  # torch < 2.10
        known = env.var_to_val
    free = sorted({f for d in syms for f in d.node.expr.free_symbols}, key=str)
    if any(f not in known for f in free):  # data-dependent (unbacked): torch's own error
        return [(s.shape, s) for s in _shape.result_specs(module, name, _concretes(torch, args))]
    hints = {f: int(known[f]) for f in free}
    base = _shape.result_specs(module, name, _metas_at(torch, args, hints))

    def specs_at(values: dict) -> list | None:
        try:
            got = _shape.result_specs(module, name, _metas_at(torch, args, values))
        except Exception:  # the shape function refuses these sizes
            return None
        same = len(got) == len(base) and all(
            (len(x.shape), x.dtype, x.device) == (len(y.shape), y.dtype, y.device)
            for x, y in zip(got, base)
        )
        return got if same else None

    # Samples: (values, specs there) with one symbol moved, then all of them.
    samples: list[tuple[dict, list]] = []
    moves: dict[Any, list[int]] = {}  # symbol -> indices of its samples
    for f in free:
        for v in (2 * hints[f], hints[f] + 1):
            got = specs_at({**hints, f: v})
            if got is not None:
                moves.setdefault(f, []).append(len(samples))
                samples.append(({**hints, f: v}, got))
    specialize = {f for f in free if f not in moves}
    joint: list = []  # [(values, specs)] with every symbol moved, once a linear size needs it

    def follows(pred: Any, j: int, k: int, r: int, extra: list) -> bool:
        return pred(hints) == r and all(pred(vs) == got[j].shape[k] for vs, got in samples + extra)

    sizes = [d for a in args if isinstance(a, torch.Tensor) for d in a.shape]
    sizes = [d for d in sizes if isinstance(d, torch.SymInt)]
    results = []
    for j, spec in enumerate(base):
        shape: list[Any] = []
        for k, r in enumerate(spec.shape):
            if follows(lambda vs: r, j, k, r, []):  # moves with no symbol
                shape.append(r)
                continue
            size = next(
                (
                    d
                    for d in sizes
                    if follows(lambda vs, d=d: int(d.node.expr.xreplace(vs)), j, k, r, [])
                ),
                None,
            )
            if size is not None:  # an argument's size
                shape.append(size)
                continue
            coeff = {}
            for f, idx in moves.items():
                vs, got = samples[idx[0]]
                coeff[f], rem = divmod(got[j].shape[k] - r, vs[f] - hints[f])
                if rem:
                    break
            else:
                coeff = {f: c for f, c in coeff.items() if c}
                const = r - sum(c * hints[f] for f, c in coeff.items())

                def line(vs: dict, coeff: dict = coeff, const: int = const) -> int:
                    return const + sum(c * vs[f] for f, c in coeff.items())

                if joint == []:
                    joint.append(None)  # tried
                    for far in (
                        {f: 3 * h for f, h in hints.items()},
                        {f: h + 2 for f, h in hints.items()},
                    ):
                        far.update((f, hints[f]) for f in specialize)
                        got = specs_at(far)
                        if got is not None:
                            joint[:] = [(far, got)]
                            break
                if joint[0] is not None and follows(line, j, k, r, joint):  # b + sum(a_i * s_i)
                    expr: Any = const
                    for f, c in coeff.items():
                        expr = expr + c * env.create_symintnode(f, hint=hints[f])
                    shape.append(expr)
                    continue
            shape.append(r)  # follows its sizes some other way: they are fixed
            specialize.update(
                f for f, idx in moves.items() if any(samples[i][1][j].shape[k] != r for i in idx)
            )
        results.append((tuple(shape), spec))
    for f in sorted(specialize, key=str):  # a guard: f == its current value
        int(env.create_symintnode(f, hint=hints[f]))
    return results


def _concretes(torch: Any, args: Sequence[Any]) -> list[Any]:
    """``args`` with tensors as TensorMeta of their sizes (int() guards on symbolic ones)."""
    return _metas(torch, args, int)


def _autograd_kernel(torch: Any, op: Any, n_out: int) -> Callable[..., Any]:
    """The op's Autograd kernel: below autograd when nothing needs a gradient;
    else results whose backward() raises (the library declares no derivative),
    never silently missing gradients."""

    class NoDerivative(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, *args: Any) -> Any:
            out = op(*args)  # grad mode is off here: the kernel below runs
            return tuple(out) if n_out < 0 else out

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            raise RuntimeError(
                f"Trying to backward through {op} but no autograd formula was registered: "
                "tvmffi.torch.register gives the op none (its library declares no derivative)"
            )

    def needs_grad(args: Sequence[Any]) -> bool:
        for a in args:
            if isinstance(a, torch.Tensor):
                if a.requires_grad:
                    return True
            elif isinstance(a, (list, tuple)) and needs_grad(a):
                return True
        return False

    def kernel(*args: Any) -> Any:
        if torch.is_grad_enabled() and needs_grad(args):
            out = NoDerivative.apply(*args)
            return list(out) if n_out < 0 else out
        with torch._C._AutoDispatchBelowAutograd():
            return op(*args)

    return kernel


def _define(torch: Any, module: Any, name: str, namespace: str, symbolic_sizes: bool) -> None:
    schema, mutated, n_out = op_schema(module, name)
    func = module.get_function(name)

    def impl(*args: Any) -> Any:
        out = func(*args)
        if n_out == 0:
            return None
        if n_out == 1:
            return out if isinstance(out, torch.Tensor) else torch.from_dlpack(out)
        return [t if isinstance(t, torch.Tensor) else torch.from_dlpack(t) for t in out]

    # A function that returns nothing is the kernel itself: one Python frame
    # less per eager call. The op is defined on a Library of its own with the
    # kernel on the CPU and CUDA keys, not through torch.library.custom_op,
    # whose Python layers cost about three times a call's whole time. The
    # call itself bumps the versions of the arguments it writes; an op that
    # returns tensors gets an Autograd kernel that refuses backward() through it.
    kernel = func if n_out == 0 else impl
    _LIBRARIES.pop((namespace, name), None)  # registering again replaces the op
    lib = torch.library.Library(namespace, "FRAGMENT")
    lib.define(f"{name}{schema}")
    for key in ("CPU", "CUDA"):
        lib.impl(name, kernel, key)
    _LIBRARIES[(namespace, name)] = lib
    qualname = f"{namespace}::{name}"
    if n_out == 0:  # it returns nothing: tracing has nothing to make up
        torch.library.register_fake(qualname, lambda *args: None, lib=lib)
    else:
        overload = getattr(getattr(torch.ops, namespace), name).default
        lib.impl(name, _autograd_kernel(torch, overload, n_out), "Autograd")

        def fake(*args: Any) -> Any:
            outs = [
                torch.empty(
                    shape,
                    dtype=_torch_dtype(torch, s.dtype),
                    device=_torch_device(torch, s.device),
                )
                for shape, s in (
                    _symbolic_results(torch, module, name, args)
                    if symbolic_sizes
                    else [
                        (s.shape, s)
                        for s in _shape.result_specs(module, name, _concretes(torch, args))
                    ]
                )
            ]
            if n_out == 1:
                if len(outs) != 1:
                    raise ValueError(
                        f"{name}: the shape function describes {len(outs)} results, the function returns 1"
                    )
                return outs[0]
            return outs

        torch.library.register_fake(qualname, fake, lib=lib)


def register(
    module: Any,
    namespace: str,
    names: Iterable[str] | None = None,
    *,
    symbolic_sizes: bool = True,
) -> types.SimpleNamespace:
    """Register ``module``'s functions as ``torch.ops.<namespace>.<name>`` custom ops.

    ``module`` is a loaded :class:`tvmffi.Module` or a library path. With
    ``names``, exactly those functions (one that cannot be an op raises
    :class:`Skipped`, saying why); without, every function that can be one,
    and the others are listed in the result's ``skipped`` (name -> reason).
    Returns a namespace of the ops (``ops.scale_alloc(x, 2.0)``).
    ``symbolic_sizes=False`` gives fake tensors the current sizes and guards
    on the arguments' sizes (a new size recompiles), for a shape function
    whose sizes the dynamic-shape rules would misread (see
    ``_symbolic_results``). Registering again replaces the ops.
    """
    torch = _torch()
    if isinstance(module, (str, bytes)) or hasattr(module, "__fspath__"):
        from .module import load_module

        module = load_module(module)
    if not namespace.isidentifier() or keyword.iskeyword(namespace):
        raise ValueError(f"namespace must be a Python identifier, got {namespace!r}")
    explicit = names is not None
    todo = list(names) if explicit else module.list_functions()
    defined: list[str] = []
    skipped: dict[str, str] = {}
    for name in todo:
        try:
            _define(torch, module, name, namespace, symbolic_sizes)
            defined.append(name)
        except Skipped as e:
            if explicit:
                raise
            skipped[name] = str(e)
    result = types.SimpleNamespace(
        **{n: getattr(getattr(torch.ops, namespace), n) for n in defined}
    )
    result.skipped = skipped
    return result

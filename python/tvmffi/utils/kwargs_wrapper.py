"""Keyword arguments for functions that take positional arguments only (FFI functions).

``make_kwargs_wrapper(f, ["a", "b", "c"], arg_defaults=(10,))`` returns a Python
function ``wrapper(a, b, c=10)`` that calls ``f(a, b, c)``: callers may pass
arguments by name and leave defaults out, while ``f`` (e.g. a
``tvmffi.Function``) sees them in order. The wrapper is generated code with a
real signature, so binding the arguments costs what a Python call costs.
``make_kwargs_wrapper_from_signature`` takes the names and defaults from an
``inspect.Signature``.
"""

from __future__ import annotations

import inspect
import keyword
from typing import Any, Callable, Iterable, Mapping, Sequence

from .unpack_dataclass import unpack_dataclass_to_tuple

__all__ = ["make_kwargs_wrapper", "make_kwargs_wrapper_from_signature"]

# Names of the generated code's own globals start with this prefix.
_INTERNAL_PREFIX = "__i_"


def _check_names(names: Sequence[str], what: str) -> None:
    seen: set[str] = set()
    duplicates: list[str] = []
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"Argument name must be a string, got {type(name).__name__}: {name!r}")
        if not name.isidentifier():
            raise ValueError(f"Argument name {name!r} is not a valid Python identifier")
        if keyword.iskeyword(name):
            raise ValueError(
                f"Argument name {name!r} is a Python keyword and cannot be used as a parameter name"
            )
        if name.startswith(_INTERNAL_PREFIX):
            raise ValueError(
                f"Argument name {name!r} would conflict with internal names of the "
                f"generated wrapper (prefix {_INTERNAL_PREFIX!r})"
            )
        if name in seen:
            duplicates.append(name)
        seen.add(name)
    if duplicates:
        label = (
            "Duplicate keyword-only argument names found"
            if what == "kwonly"
            else "Duplicate argument names found"
        )
        raise ValueError(f"{label}: {sorted(set(duplicates))}")


def make_kwargs_wrapper(
    target_func: Callable[..., Any],
    arg_names: Sequence[str],
    arg_defaults: tuple[Any, ...] = (),
    kwonly_names: Sequence[str] | None = None,
    kwonly_defaults: Mapping[str, Any] | None = None,
    prototype: Callable[..., Any] | None = None,
    map_dataclass_to_tuple: Iterable[str] | None = None,
) -> Callable[..., Any]:
    """A function with named parameters that calls ``target_func`` positionally.

    ``arg_names``: the positional-or-keyword parameters, in call order;
    ``arg_defaults``: defaults of the last ``len(arg_defaults)`` of them (as in
    ``def f(a, b=1)``). ``kwonly_names``: keyword-only parameters, passed to
    ``target_func`` after the others, in this order; ``kwonly_defaults``: their
    defaults (the others are required). ``prototype``: a function whose
    ``__name__``, ``__qualname__``, ``__doc__``, ``__module__`` and
    ``__annotations__`` the wrapper takes. ``map_dataclass_to_tuple``:
    parameters whose values go through ``unpack_dataclass_to_tuple`` first.
    """
    arg_names = list(arg_names)
    kwonly_names = list(kwonly_names or ())
    kwonly_defaults = dict(kwonly_defaults or {})
    _check_names(arg_names, "positional")
    _check_names(kwonly_names, "kwonly")
    if not isinstance(arg_defaults, tuple):
        raise TypeError(f"arg_defaults must be a tuple, got {type(arg_defaults).__name__}")
    if len(arg_defaults) > len(arg_names):
        raise ValueError(
            f"arg_defaults has {len(arg_defaults)} values but only "
            f"{len(arg_names)} positional arguments"
        )
    overlap = sorted(set(arg_names) & set(kwonly_names))
    if overlap:
        raise ValueError(f"Arguments {overlap} cannot be both positional and keyword-only")
    stray = sorted(set(kwonly_defaults) - set(kwonly_names))
    if stray:
        raise ValueError(f"kwonly_defaults keys {stray} are not in kwonly_names")
    mapped = set(map_dataclass_to_tuple or ())

    namespace: dict[str, Any] = {
        f"{_INTERNAL_PREFIX}target_func": target_func,
        f"{_INTERNAL_PREFIX}unpack": unpack_dataclass_to_tuple,
    }
    params: list[str] = []
    first_default = len(arg_names) - len(arg_defaults)

    def default_expr(name: str, value: Any) -> str:
        # None and bools are written into the signature; other values are
        # referenced through the namespace (so the very object is the default).
        if value is None or isinstance(value, bool):
            return repr(value)
        slot = f"{_INTERNAL_PREFIX}default_{name}"
        namespace[slot] = value
        return slot

    for i, name in enumerate(arg_names):
        if i >= first_default:
            params.append(f"{name}={default_expr(name, arg_defaults[i - first_default])}")
        else:
            params.append(name)
    if kwonly_names:
        params.append("*")
        for name in kwonly_names:
            if name in kwonly_defaults:
                params.append(f"{name}={default_expr(name, kwonly_defaults[name])}")
            else:
                params.append(name)
    call = [
        f"{_INTERNAL_PREFIX}unpack({n})" if n in mapped else n for n in arg_names + kwonly_names
    ]
    source = (
        f"def wrapper({', '.join(params)}):\n"
        f"    return {_INTERNAL_PREFIX}target_func({', '.join(call)})\n"
    )
    exec(
        compile(
            source, f"<kwargs wrapper of {getattr(target_func, '__name__', 'function')}>", "exec"
        ),
        namespace,
    )
    wrapper = namespace["wrapper"]
    if prototype is not None:
        for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
            if hasattr(prototype, attr):
                setattr(wrapper, attr, getattr(prototype, attr))
        wrapper.__annotations__ = dict(getattr(prototype, "__annotations__", {}))
        wrapper.__wrapped__ = prototype
    return wrapper


def make_kwargs_wrapper_from_signature(
    target_func: Callable[..., Any],
    signature: inspect.Signature,
    prototype: Callable[..., Any] | None = None,
    exclude_arg_names: Iterable[str] | None = None,
    map_dataclass_to_tuple: Iterable[str] | None = None,
) -> Callable[..., Any]:
    """:func:`make_kwargs_wrapper` with the parameters of ``signature``.

    Positional(-or-keyword) parameters stay positional, keyword-only ones stay
    keyword-only, defaults carry over. ``exclude_arg_names``: parameters to
    leave out (names the signature lacks are ignored). ValueError for
    ``*args`` or ``**kwargs`` in the signature.
    """
    excluded = set(exclude_arg_names or ())
    arg_names: list[str] = []
    arg_defaults: list[Any] = []
    kwonly_names: list[str] = []
    kwonly_defaults: dict[str, Any] = {}
    for p in signature.parameters.values():
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            raise ValueError(f"*args not supported (parameter *{p.name})")
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            raise ValueError(f"**kwargs not supported (parameter **{p.name})")
        if p.name in excluded:
            continue
        if p.kind is inspect.Parameter.KEYWORD_ONLY:
            kwonly_names.append(p.name)
            if p.default is not inspect.Parameter.empty:
                kwonly_defaults[p.name] = p.default
        else:
            arg_names.append(p.name)
            if p.default is not inspect.Parameter.empty:
                arg_defaults.append(p.default)
            elif arg_defaults:
                raise ValueError(
                    f"parameter {p.name!r} without a default follows one with a default"
                )
    return make_kwargs_wrapper(
        target_func,
        arg_names,
        tuple(arg_defaults),
        kwonly_names,
        kwonly_defaults,
        prototype,
        map_dataclass_to_tuple,
    )

"""Global functions: look up, register, list."""

from __future__ import annotations

from typing import Any, Callable, overload

from . import _core
from ._core import Function

get_global_func = _core.get_global_func
list_global_func_names = _core.list_global_func_names
remove_global_func = _core.remove_global_func


@overload
def register_global_func(name: str, f: Callable[..., Any], override: bool = ...) -> Function: ...


@overload
def register_global_func(
    name: str, f: None = ..., override: bool = ...
) -> Callable[[Callable[..., Any]], Function]: ...


def register_global_func(
    name: str, f: Callable[..., Any] | None = None, override: bool = False
) -> Function | Callable[[Callable[..., Any]], Function]:
    """Register ``f`` (a Python callable or a Function) as the global function ``name``.

    Without ``f`` it is a decorator: ``@register_global_func("my.add")``.
    Returns the registered Function. ValueError (from the runtime) when the
    name is taken and ``override`` is False.
    """
    if not isinstance(name, str):
        raise TypeError(f"register_global_func: name must be a str, got {type(name).__name__}")

    def register(func: Callable[..., Any]) -> Function:
        return _core._register_global_func(name, func, override)

    if f is None:
        return register
    return register(f)

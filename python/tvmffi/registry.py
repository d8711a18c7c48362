"""Global functions: look up, register, list; what a function says about itself."""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable, Literal, overload

from . import _core
from ._core import Function

list_global_func_names = _core.list_global_func_names
remove_global_func = _core.remove_global_func

# Readable FFI type names that are Python types, for __signature__'s annotations.
_PY_TYPES: dict[str, Any] = {
    "int": int,
    "float": float,
    "bool": bool,
    "str": str,
    "ffi.String": str,
    "bytes": bytes,
    "ffi.Bytes": bytes,
    "None": None,
}
# A parameter of these types cannot take a borrowed DLTensor*: it keeps (or
# may keep) the tensor past the call. "DLTensor*" is TensorView's name.
_OWNING = frozenset({"ffi.Tensor", "Any", "ffi.Any"})


def _takes_owning_tensor(schema: Any) -> bool:
    """Whether a parameter of this type schema needs an owning ffi.Tensor."""
    if not isinstance(schema, dict):
        return False
    kind = schema.get("type")
    if kind in _OWNING:
        return True
    alternatives = schema.get("args") or []
    if kind == "Optional":
        return any(_takes_owning_tensor(a) for a in alternatives)
    if kind == "Variant":
        # A Variant that also takes a TensorView converts from a DLTensor*.
        types = [a.get("type") for a in alternatives if isinstance(a, dict)]
        return "DLTensor*" not in types and any(_takes_owning_tensor(a) for a in alternatives)
    return False


def _callable_types(schema: Any) -> list[Any] | None:
    """A function schema's types, the return type first, then the parameters.

    Reads both forms: upstream 0.1.15's ``{"type":"ffi.Function","named_args":
    {"return":[R],"params":[...]}}`` and the older flat ``{"args":[R, ...]}``.
    """
    if not isinstance(schema, dict):
        return None
    named = schema.get("named_args")
    if isinstance(named, dict):
        ret = named.get("return")
        params = named.get("params")
        if isinstance(ret, list) and len(ret) == 1 and isinstance(params, list):
            return [ret[0], *params]
        return None
    args = schema.get("args")
    return args if isinstance(args, list) else None


def _schema_text(schema: Any) -> str:
    """A type schema as text: {"type":"Optional","args":[{"type":"int"}]} -> Optional[int]."""
    if not isinstance(schema, dict):
        return "Any"
    kind = str(schema.get("type", "Any"))
    args = schema.get("args") or []
    return f"{kind}[{', '.join(_schema_text(a) for a in args)}]" if args else kind


def _annotation(type_name: str) -> Any:
    return _PY_TYPES.get(type_name, type_name)


def _parse_metadata(metadata: str | dict[str, Any] | None) -> dict[str, Any] | None:
    if isinstance(metadata, str):
        if not metadata:
            return None
        try:
            metadata = json.loads(metadata)
        except ValueError:
            return None
    return metadata if isinstance(metadata, dict) else None


def _signature(metadata: dict[str, Any], params: list[Any] | None) -> inspect.Signature | None:
    """Positional-only parameters (FFI functions have no parameter names: arg0, arg1, ...)."""
    entries: list[tuple[str, Any]] = []
    ret: Any = inspect.Signature.empty
    if isinstance(metadata.get("args"), list):
        for i, a in enumerate(metadata["args"]):
            a = a if isinstance(a, dict) else {}
            entries.append(
                (
                    str(a.get("name") or f"arg{a.get('index', i)}"),
                    _annotation(str(a.get("type", "Any"))),
                )
            )
        if "ret" in metadata:
            ret = _annotation(str(metadata["ret"]))
    elif params is not None:
        entries = [(f"arg{i}", _annotation(_schema_text(p))) for i, p in enumerate(params[1:])]
        if params:
            ret = _annotation(_schema_text(params[0]))
    else:
        return None
    try:
        return inspect.Signature(
            [
                inspect.Parameter(n, inspect.Parameter.POSITIONAL_ONLY, annotation=t)
                for n, t in entries
            ],
            return_annotation=ret,
        )
    except ValueError:  # names that are not identifiers
        return None


def _describe(
    f: Function, name: str, metadata: str | dict[str, Any] | None, doc: str | None
) -> Function:
    """Give ``f`` its name, doc and signature, and tell the call path its tensor parameters.

    The type schema says which arguments are ``ffi.Tensor`` parameters: framework
    tensors go there as owning tensors (kept alive as long as the function keeps
    them), elsewhere as borrowed ``DLTensor*`` (the fast path). Without a schema
    any parameter may keep what it gets: every framework tensor goes as an
    owning tensor (a function is never called twice to find out).
    """
    meta = _parse_metadata(metadata)
    params: list[Any] | None = None
    if meta is not None:
        try:
            schema = json.loads(meta.get("type_schema") or "null")
        except (TypeError, ValueError):
            schema = None
        params = _callable_types(schema)
        if params is not None:
            mask = 0
            for i, p in enumerate(params[1:]):  # params[0] is the return type
                if _takes_owning_tensor(p):
                    mask |= 1 << min(i, 63)
            _core._set_tensor_args(f, mask)
    if not doc and meta is not None:
        doc = meta.get("doc") or None
    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = doc or None
    sig = _signature(meta, params) if meta is not None else None
    f.__signature__ = (
        sig
        if sig is not None
        else inspect.Signature([inspect.Parameter("args", inspect.Parameter.VAR_POSITIONAL)])
    )
    return f


_GLOBAL_METADATA: list[Function] = []


def _global_metadata(name: str) -> str | None:
    if not _GLOBAL_METADATA:
        getter = _core.get_global_func("ffi.GetGlobalFuncMetadata", allow_missing=True)
        if getter is None:
            return None
        _GLOBAL_METADATA.append(getter)
    try:
        return _GLOBAL_METADATA[0](name)
    except (KeyError, ValueError, TypeError):
        return None


@overload
def get_global_func(name: str, allow_missing: Literal[False] = ...) -> Function: ...


@overload
def get_global_func(name: str, allow_missing: bool) -> Function | None: ...


def get_global_func(name: str, allow_missing: bool = False) -> Function | None:
    """The global function ``name``, with its name, doc and signature.

    ValueError when there is none, or None with ``allow_missing``.
    """
    f = _core.get_global_func(name, allow_missing)
    if f is None:
        return None
    return _describe(f, name, _global_metadata(name), None)


@overload
def register_global_func(name: str, f: Callable[..., Any], override: bool = ...) -> Function: ...


@overload
def register_global_func(
    name: str, f: None = ..., override: bool = ...
) -> Callable[[Callable[..., Any]], Function]: ...


@overload
def register_global_func(name: Callable[..., Any]) -> Function: ...


def register_global_func(
    name: str | Callable[..., Any], f: Callable[..., Any] | None = None, override: bool = False
) -> Function | Callable[[Callable[..., Any]], Function]:
    """Register ``f`` (a Python callable or a Function) as the global function ``name``.

    Without ``f`` it is a decorator: ``@register_global_func("my.add")``; used
    bare (``@register_global_func`` on ``def my_func``), as upstream allows,
    the function's ``__name__`` is the name. Returns the registered Function.
    ValueError (from the runtime) when the name is taken and ``override`` is False.
    """
    if f is None and callable(name) and isinstance(getattr(name, "__name__", None), str):
        f, name = name, name.__name__
    if not isinstance(name, str):
        raise TypeError(f"register_global_func: name must be a str, got {type(name).__name__}")

    def register(func: Callable[..., Any]) -> Function:
        registered = _core._register_global_func(name, func, override)
        if registered is not func:  # a fresh Function around a Python callable
            registered.__name__ = registered.__qualname__ = name
            registered.__doc__ = getattr(func, "__doc__", None)
        return registered

    if f is None:
        return register
    return register(f)


def init_ffi_api(namespace: str, target_module_name: str | None = None) -> None:
    """Put the global functions ``<namespace>.<name>`` on a module as ``<name>``.

    ``target_module_name`` defaults to ``namespace``; the module must already be
    imported (a package's ``_ffi_api.py`` calls ``init_ffi_api("mypkg",
    __name__)`` after loading its library). A ``tvm.`` prefix of the namespace
    is dropped, as upstream does; names with a further dot are left out.
    """
    import sys

    module_name = target_module_name or namespace
    module = sys.modules.get(module_name)
    if module is None:
        raise ValueError(f"init_ffi_api: module {module_name!r} is not imported")
    prefix = (namespace[4:] if namespace.startswith("tvm.") else namespace) + "."
    for full in list_global_func_names():
        if not full.startswith(prefix):
            continue
        short = full[len(prefix) :]
        if not short or "." in short:
            continue
        setattr(module, short, get_global_func(full))


# Upstream's registry module also holds the class-binding helpers; they live in
# _reflection and _registry_ext (imported last: both import this package).
from ._reflection import register_object  # noqa: E402,F401
from ._registry_ext import (  # noqa: E402,F401
    _add_class_attrs,
    _add_type_attr_class_attrs,
    _install_ffi_init_attr,
    _install_init,
    _warn_missing_field_annotations,
    get_global_func_metadata,
    get_registered_type_keys,
)

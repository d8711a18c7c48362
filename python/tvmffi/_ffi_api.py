"""The runtime's ``ffi.*`` global functions as module attributes (upstream's ``tvm_ffi._ffi_api``).

``from tvmffi._ffi_api import RecursiveEq, DeepCopy, ReprPrint`` gives the
global functions ``ffi.RecursiveEq``, ... A few that upstream's runtime
registers and this runtime does not are provided in Python over reflection:
``MakeObjectFromPackedArgs(type_key, name0, value0, ...)`` and
``GetRegisteredTypeKeys()``. Globals registered later are looked up on first use.
"""

from __future__ import annotations

import sys
from typing import Any

from . import _reflection
from .registry import get_global_func, list_global_func_names

_PREFIX = "ffi."


def _make_object_from_packed_args(type_key: str | int, *pairs: Any) -> Any:
    """A new object of ``type_key`` with fields set from name, value pairs (others: defaults)."""
    if len(pairs) % 2:
        raise TypeError("MakeObjectFromPackedArgs takes a type key, then name, value pairs")
    fields = {pairs[i]: pairs[i + 1] for i in range(0, len(pairs), 2)}
    return _reflection.make_object(type_key, **fields)


def _get_registered_type_keys() -> list[str]:
    """The keys of every registered object type."""
    return _reflection.registered_type_keys()


_FALLBACKS = {
    "MakeObjectFromPackedArgs": _make_object_from_packed_args,
    "GetRegisteredTypeKeys": _get_registered_type_keys,
}


def _export() -> None:
    module = sys.modules[__name__]
    for full in list_global_func_names():
        if full.startswith(_PREFIX):
            name = full[len(_PREFIX) :]
            if name.isidentifier():
                setattr(module, name, get_global_func(full))
    for name, func in _FALLBACKS.items():
        if not hasattr(module, name):
            setattr(module, name, func)


def __getattr__(name: str) -> Any:
    if not name.startswith("__"):
        f = get_global_func(_PREFIX + name, allow_missing=True)
        if f is not None:
            setattr(sys.modules[__name__], name, f)
            return f
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_export()

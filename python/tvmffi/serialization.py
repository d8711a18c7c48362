"""FFI values to JSON text and back (the runtime's JSON graph format).

Any value the runtime can serialize (None, bool, int, float, str, bytes,
dtype, device, shapes, arrays, maps, reflected objects; shared objects stay
shared) becomes one JSON document::

    text = tvmffi.serialization.to_json_graph_str({"a": [1, 2]})
    tvmffi.serialization.from_json_graph_str(text)   # Map({"a": [1, 2]})

The format is upstream's (``ffi.ToJSONGraphString`` / ``ffi.FromJSONGraphString``),
so documents move between the two implementations.
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._core import Function

__all__ = ["from_json_graph_str", "to_json_graph_str"]

_FUNCS: dict[str, Function] = {}


def _func(name: str) -> Function:
    f = _FUNCS.get(name)
    if f is None:
        f = _FUNCS[name] = _core.get_global_func(name)
    return f


def to_json_graph_str(obj: Any, metadata: dict[str, Any] | None = None) -> str:
    """``obj`` as JSON graph text; ``metadata`` (a dict) is stored beside it."""
    return _func("ffi.ToJSONGraphString")(obj, metadata)


def from_json_graph_str(json_str: str) -> Any:
    """The value a JSON graph text holds (ValueError for text that is not one)."""
    return _func("ffi.FromJSONGraphString")(json_str)

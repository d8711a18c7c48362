"""Access paths: where a value sits inside an object graph (``ffi.reflection.AccessPath``).

A path is a chain of steps from a root: an attribute, an array item, a map
item, or one of those found missing. :func:`tvmffi.get_first_structural_mismatch`
returns a pair of them, one into each operand::

    from tvmffi.access_path import AccessPath

    p = AccessPath.root().attr("body").array_item(2)
    [s.key for s in p.to_steps()]   # ["body", 2]

The path objects are the runtime's; their methods are its reflected methods.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any

from ._core import Object
from ._reflection import bind_class, type_info

__all__ = ["AccessKind", "AccessPath", "AccessStep"]


class AccessKind(IntEnum):
    """What one step of an access path does."""

    ATTR = 0
    ARRAY_ITEM = 1
    MAP_ITEM = 2
    ATTR_MISSING = 3
    ARRAY_ITEM_MISSING = 4
    MAP_ITEM_MISSING = 5


class AccessStep(Object):
    """One step of a path: ``kind`` (an :class:`AccessKind` value) and ``key``
    (an attribute name, an array index or a map key)."""

    __slots__ = ()

    def __repr__(self) -> str:
        try:
            kind = AccessKind(self.kind).name
        except ValueError:
            kind = str(self.kind)
        return f"AccessStep({kind}, {self.key!r})"


class AccessPath(Object):
    """A path from a root value to a value inside it (see the module's doc).

    Build one from :meth:`root` with :meth:`attr`, :meth:`array_item`,
    :meth:`map_item` and their ``*_missing`` forms; each returns a new path.
    ``parent`` is the path one step shorter (None at the root), ``step`` the
    last step (None at the root), ``depth`` the number of steps.
    """

    __slots__ = ()

    def __init__(self) -> None:
        raise ValueError("AccessPath cannot be constructed directly: start from AccessPath.root()")

    @staticmethod
    def root() -> AccessPath:
        """The path of the root value (no steps)."""
        return AccessPath._root()  # type: ignore[attr-defined]

    def attr(self, attr_key: str) -> AccessPath:
        """This path, then the attribute ``attr_key``."""
        return self._attr(attr_key)  # type: ignore[attr-defined]

    def attr_missing(self, attr_key: str) -> AccessPath:
        """This path, then the attribute ``attr_key``, which is missing."""
        return self._attr_missing(attr_key)  # type: ignore[attr-defined]

    def array_item(self, index: int) -> AccessPath:
        """This path, then item ``index`` of an array."""
        return self._array_item(index)  # type: ignore[attr-defined]

    def array_item_missing(self, index: int) -> AccessPath:
        """This path, then item ``index`` of an array, which is missing."""
        return self._array_item_missing(index)  # type: ignore[attr-defined]

    def map_item(self, key: Any) -> AccessPath:
        """This path, then the item of a map under ``key``."""
        return self._map_item(key)  # type: ignore[attr-defined]

    def map_item_missing(self, key: Any) -> AccessPath:
        """This path, then the item of a map under ``key``, which is missing."""
        return self._map_item_missing(key)  # type: ignore[attr-defined]

    def extend(self, step: AccessStep) -> AccessPath:
        """This path, then ``step``."""
        return self._extend(step)  # type: ignore[attr-defined]

    def is_prefix_of(self, other: AccessPath) -> bool:
        """Whether every step of this path starts ``other`` (a path is a prefix of itself)."""
        return self._is_prefix_of(other)  # type: ignore[attr-defined]

    def to_steps(self) -> list[AccessStep]:
        """The steps from the root, in order."""
        return list(self._to_steps())  # type: ignore[attr-defined]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AccessPath):
            return False
        return bool(self._path_equal(other))  # type: ignore[attr-defined]

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(tuple((int(s.kind), _hashable(s.key)) for s in self.to_steps()))

    def __repr__(self) -> str:
        text = "<root>"
        for s in self.to_steps():
            kind = int(s.kind)
            if kind in (AccessKind.ATTR, AccessKind.ATTR_MISSING):
                text += f".{s.key}"
            else:
                text += f"[{s.key!r}]"
            if kind >= AccessKind.ATTR_MISSING:
                text += "<missing>"
        return f"AccessPath({text})"


def _hashable(key: Any) -> Any:
    try:
        hash(key)
        return key
    except TypeError:
        return repr(key)


# The runtime registers both types; bind the classes (their methods come from reflection).
for _cls, _key in (
    (AccessStep, "ffi.reflection.AccessStep"),
    (AccessPath, "ffi.reflection.AccessPath"),
):
    _info = type_info(_key)
    if _info is not None:
        bind_class(_cls, _info, init=False)
del _cls, _key, _info

"""tvmffi.access_path: the runtime's access paths, with upstream's Python names."""

from __future__ import annotations

import pytest

import tvmffi
from tvmffi.access_path import AccessKind, AccessPath, AccessStep


def test_root() -> None:
    root = AccessPath.root()
    assert isinstance(root, AccessPath)
    assert root.to_steps() == []
    assert root.depth == 0
    assert root.parent is None
    assert root.step is None
    assert root == AccessPath.root()


@pytest.mark.parametrize(
    ("build", "kind", "key"),
    [
        (lambda p: p.attr("foo"), AccessKind.ATTR, "foo"),
        (lambda p: p.attr_missing("foo"), AccessKind.ATTR_MISSING, "foo"),
        (lambda p: p.array_item(2), AccessKind.ARRAY_ITEM, 2),
        (lambda p: p.array_item_missing(2), AccessKind.ARRAY_ITEM_MISSING, 2),
        (lambda p: p.map_item("k"), AccessKind.MAP_ITEM, "k"),
        (lambda p: p.map_item_missing("k"), AccessKind.MAP_ITEM_MISSING, "k"),
    ],
)
def test_one_step(build, kind: AccessKind, key: object) -> None:
    path = build(AccessPath.root())
    assert isinstance(path, AccessPath)
    (step,) = path.to_steps()
    assert isinstance(step, AccessStep)
    assert step.kind == kind
    assert step.key == key
    assert path.depth == 1
    assert path.parent == AccessPath.root()
    assert path.step.kind == kind


def test_chain_and_extend() -> None:
    path = AccessPath.root().attr("body").array_item(3).map_item("w")
    assert [(s.kind, s.key) for s in path.to_steps()] == [
        (AccessKind.ATTR, "body"),
        (AccessKind.ARRAY_ITEM, 3),
        (AccessKind.MAP_ITEM, "w"),
    ]
    assert path.depth == 3
    assert path.parent == AccessPath.root().attr("body").array_item(3)
    # extend() appends an existing step.
    step = AccessPath.root().attr("x").step
    assert AccessPath.root().extend(step) == AccessPath.root().attr("x")


def test_prefix_and_equality() -> None:
    root = AccessPath.root()
    foo = root.attr("foo")
    assert root.is_prefix_of(root)
    assert root.is_prefix_of(foo)
    assert not foo.is_prefix_of(root)
    assert foo.is_prefix_of(foo.array_item(2))
    assert not foo.array_item(2).is_prefix_of(foo)
    assert not root.attr("bar").is_prefix_of(foo)
    assert foo == root.attr("foo")
    assert foo != root.attr("bar")
    assert foo != foo.array_item(2)
    assert foo != "foo"
    assert hash(foo) == hash(root.attr("foo"))


def test_not_constructible() -> None:
    with pytest.raises(ValueError, match="root"):
        AccessPath()


def test_repr() -> None:
    path = AccessPath.root().attr("a").array_item(1).map_item_missing("k")
    assert repr(path) == "AccessPath(<root>.a[1]['k']<missing>)"
    assert repr(path.step) == "AccessStep(MAP_ITEM_MISSING, 'k')"


def test_paths_come_back_as_access_paths() -> None:
    # Paths made in C++ come back as the bound class.
    lhs, rhs = tvmffi.get_first_structural_mismatch([1, [2, 3]], [1, [2, 4]])
    assert isinstance(lhs, AccessPath)
    assert lhs == AccessPath.root().array_item(1).array_item(1)
    assert rhs == lhs
    assert tvmffi.access_path is __import__("tvmffi.access_path").access_path

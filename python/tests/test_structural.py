"""tvmffi.structural: structural equality, hashing, keys and walks over FFI values."""

from __future__ import annotations

from typing import Any

import pytest

import tvmffi
from tvmffi.access_path import AccessPath
from tvmffi.structural import DefRegionKind, WalkOrder, WalkResult


def test_equal_and_hash() -> None:
    lhs = {"items": [1, 2, {"k": 3}], "meta": {"tag": "x"}}
    rhs = {"meta": {"tag": "x"}, "items": [1, 2, {"k": 3}]}
    other = {"items": [1, 2, {"k": 4}], "meta": {"tag": "x"}}
    assert tvmffi.structural_equal(lhs, rhs)
    assert not tvmffi.structural_equal(lhs, other)
    assert tvmffi.structural_hash(lhs) == tvmffi.structural_hash(rhs)
    assert tvmffi.structural_hash(lhs) != tvmffi.structural_hash(other)
    assert tvmffi.structural_equal(1, 1) and not tvmffi.structural_equal(1, 2)
    assert tvmffi.structural_equal("ab", "ab")
    assert tvmffi.structural_equal(None, None)


def test_hash_is_unsigned_64_bit() -> None:
    for v in (0, -1, 1.5, "s", [1, 2], {"a": None}):
        h = tvmffi.structural_hash(v)
        assert isinstance(h, int)
        assert 0 <= h < 1 << 64


def test_first_mismatch() -> None:
    assert tvmffi.get_first_structural_mismatch([1, 2], [1, 2]) is None
    lhs, rhs = tvmffi.get_first_structural_mismatch({"a": [1, 2]}, {"a": [1, 5]})
    assert isinstance(lhs, AccessPath) and isinstance(rhs, AccessPath)
    assert lhs == AccessPath.root().map_item("a").array_item(1)
    assert rhs == lhs
    # A shorter array: the item is missing on one side.
    lhs, rhs = tvmffi.get_first_structural_mismatch([1], [1, 2])
    assert lhs == AccessPath.root().array_item_missing(1)
    assert rhs == AccessPath.root().array_item(1)


def test_tensor_content_policy() -> None:
    np = pytest.importorskip("numpy")
    a = tvmffi.from_dlpack(np.arange(4, dtype="float32"))
    b = tvmffi.from_dlpack(np.arange(4, dtype="float32") + 1)
    assert not tvmffi.structural_equal(a, b)
    assert tvmffi.structural_equal(a, b, skip_tensor_content=True)
    assert tvmffi.structural_hash(a, skip_tensor_content=True) == tvmffi.structural_hash(
        b, skip_tensor_content=True
    )


def test_structural_key() -> None:
    k1 = tvmffi.StructuralKey({"a": [1, 2], "b": [3, {"c": 4}]})
    k2 = tvmffi.StructuralKey({"b": [3, {"c": 4}], "a": [1, 2]})
    k3 = tvmffi.StructuralKey({"a": [1, 2], "b": [3, {"c": 5}]})
    assert k1 == k2 and k1 != k3 and k1 != 1
    assert k1.__hash__() == k2.__hash__() == tvmffi.structural_hash(k1.key)
    assert hash(k1) == hash(k2)
    assert tvmffi.structural_equal(k1.key, k2.key)
    d = {k1: "x", k3: "y"}
    assert d[k2] == "x"
    m = tvmffi.Map({k1: 1, k2: 2, k3: 3})
    assert len(m) == 2
    assert m[k1] == 2 and m[k3] == 3


def test_visit_interrupt() -> None:
    assert tvmffi.VisitInterrupt(5).value == 5
    assert tvmffi.VisitInterrupt().value is None


def test_walk_typed_callbacks() -> None:
    ints: list[int] = []
    strs: list[str] = []
    result = tvmffi.structural_walk(
        [1, ["a", 2], {"k": 3}],
        [(int, ints.append), (str, strs.append)],
    )
    assert result is None
    assert sorted(ints) == [1, 2, 3]
    # A Map's values are walked, its keys not (as upstream 0.1.15).
    assert "a" in strs and "k" not in strs


def test_walk_any_and_interrupt() -> None:
    seen: list[Any] = []

    def on_value(v: Any) -> Any:
        seen.append(v)
        if v == 2:
            return tvmffi.VisitInterrupt("stopped")
        return None

    result = tvmffi.structural_walk([1, 2, 3], on_value)
    assert isinstance(result, tvmffi.VisitInterrupt)
    assert result.value == "stopped"
    assert 3 not in seen


def test_walk_skip_and_order() -> None:
    pre: list[Any] = []

    def skip_inner(v: Any) -> Any:
        pre.append(v)
        if isinstance(v, tvmffi.Array) and len(v) == 2:
            return WalkResult.SKIP
        return None

    tvmffi.structural_walk([0, 5, [1, 2]], (object, skip_inner), order="pre")
    assert 0 in pre and 5 in pre and 1 not in pre
    default: list[str] = []
    tvmffi.structural_walk(
        [[1], 2],
        [
            (tvmffi.Array, lambda a: default.append(f"a{len(a)}")),
            (int, lambda i: default.append(str(i))),
        ],
    )
    assert default == ["1", "a1", "2", "a2"]  # post-order unless told

    post: list[Any] = []
    tvmffi.structural_walk([5, [6]], (int, post.append), order=WalkOrder.POSTORDER)
    assert post == [5, 6]
    with pytest.raises(ValueError, match="order"):
        tvmffi.structural_walk([1], (int, post.append), order="sideways")
    with pytest.raises(TypeError):
        tvmffi.structural_walk([1], 42)


def test_walk_with_def_region_kind() -> None:
    kinds: list[DefRegionKind] = []
    tvmffi.structural_walk([1], with_def_region_kind=(int, lambda v, k: kinds.append(k)))
    assert kinds == [DefRegionKind.NONE]


def test_structural_map_copy_on_write() -> None:
    inner = tvmffi.Array([1, "s"])
    root = tvmffi.Array([inner, tvmffi.Map({"k": 2})])
    out = tvmffi.structural_map(root, (int, lambda x: x + 1))
    assert list(out[0]) == [2, "s"]
    assert out[1]["k"] == 3
    assert list(inner) == [1, "s"]  # the input is left as it was
    # Nothing replaced: the root itself comes back.
    assert tvmffi.structural_map(root, (float, lambda x: x)).same_as(root)
    with pytest.raises(ValueError, match="order"):
        tvmffi.structural_map(root, (int, lambda x: x), order="sideways")


def test_structural_map_keeps_str_and_bytes_returned_equal() -> None:
    # Heap-allocated str/bytes (8 bytes and more) reach Python as values of its own:
    # the callback can only hand back an equal copy, which keeps the leaf.
    values = ["short", "a heap string", b"short", b"heap bytes!"]
    for order in ("pre", "post"):
        root = tvmffi.Array(values)
        same = tvmffi.structural_map(root, [(str, lambda v: v), (bytes, lambda v: v)], order=order)
        assert same.same_as(root)
        copies = [(str, lambda v: (v + ".")[:-1]), (bytes, lambda v: bytes(bytearray(v)))]
        assert tvmffi.structural_map(root, copies, order=order).same_as(root)
        changed = tvmffi.structural_map(root, (str, lambda v: v + "!"), order=order)
        assert list(changed) == ["short!", "a heap string!", b"short", b"heap bytes!"]
        bumped = tvmffi.structural_map(root, (bytes, lambda v: v[1:]), order=order)
        assert list(bumped)[2:] == [b"hort", b"eap bytes!"]
    # structural_mutate's callbacks too.
    root = tvmffi.Array(values)
    assert tvmffi.structural_mutate(root, (str, lambda v, m: v)).same_as(root)


def test_structural_map_pre_order_maps_replacements() -> None:
    root = tvmffi.Array([tvmffi.Array([1]), 5])
    out = tvmffi.structural_map(
        root,
        [
            (tvmffi.Array, lambda a: tvmffi.Array([10]) if len(a) == 1 else a),
            (int, lambda x: x + 1),
        ],
        order="pre",
    )
    assert list(out[0]) == [11]  # the replacement's children were mapped too
    assert out[1] == 6


def test_structural_mutate_callbacks_own_values() -> None:
    modes: list[int] = []

    def array(value: Any, mutator: tvmffi.StructuralMutator, mode: int) -> Any:
        assert isinstance(mutator, tvmffi.StructuralMutator)
        modes.append(mode)
        return mutator.default_mutate(value)

    root = tvmffi.Array([1, 2])
    out = tvmffi.structural_mutate(root, [(tvmffi.Array, array), (int, lambda x, m: x * 10)])
    assert list(out) == [10, 20]
    assert list(root) == [1, 2]
    assert modes == [tvmffi.InplaceMode.DISALLOW]  # `root` is still held here

    def fail(value: Any, mutator: tvmffi.StructuralMutator) -> Any:
        raise ValueError("no ints")

    with pytest.raises(ValueError, match="no ints"):
        tvmffi.structural_mutate(root, (int, fail))


def test_structural_visit_callbacks_own_their_descent() -> None:
    root = tvmffi.convert([[1, 2], [3, [4]]])
    seen: list[Any] = []

    def on_array(value: Any, visitor: tvmffi.StructuralVisitor) -> Any:
        seen.append(len(value))
        # Only the first item of each Array: the others are pruned.
        return visitor.visit(value[0])

    def on_int(value: int, visitor: tvmffi.StructuralVisitor) -> Any:
        seen.append(value)
        return None

    assert tvmffi.structural_visit(root, [(tvmffi.Array, on_array), (int, on_int)]) is None
    assert seen == [2, 2, 1]
    # default_visit descends into all children; an interrupt stops the visit.
    ints: list[int] = []

    def default(value: Any, visitor: tvmffi.StructuralVisitor) -> Any:
        return visitor.default_visit(value)

    def stop_at_three(value: int, visitor: tvmffi.StructuralVisitor) -> Any:
        ints.append(value)
        return tvmffi.VisitInterrupt("three") if value == 3 else None

    result = tvmffi.structural_visit(root, [(tvmffi.Array, default), (int, stop_at_three)])
    assert isinstance(result, tvmffi.VisitInterrupt) and result.value == "three"
    assert ints == [1, 2, 3]
    # An error in a callback comes out as that error.
    with pytest.raises(ValueError, match="bad value"):
        tvmffi.structural_visit(
            root, (int, lambda v, visitor: (_ for _ in ()).throw(ValueError("bad value")))
        )

"""tvmffi.container: Shape, Array, Map as sequence and mapping types."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

import tvmffi


def test_shape_is_a_tuple_of_ints() -> None:
    s = tvmffi.Shape([2, 3, 4])
    assert isinstance(s, tuple)
    assert s == (2, 3, 4)
    assert repr(s) == "Shape((2, 3, 4))"
    with pytest.raises(TypeError):
        tvmffi.Shape([1.5])  # type: ignore[list-item]


def test_array_sequence_protocol() -> None:
    a = tvmffi.Array([1, "x", 2.5, None])
    assert isinstance(a, Sequence)
    assert isinstance(a, tvmffi.Object)
    assert a.type_key == "ffi.Array"
    assert len(a) == 4
    assert a[0] == 1 and a[1] == "x" and a[-1] is None
    assert a[1:3] == ["x", 2.5]
    assert list(reversed(a)) == [None, 2.5, "x", 1]
    assert "x" in a and 7 not in a
    assert a.index(2.5) == 2 and a.count(1) == 1
    assert a == [1, "x", 2.5, None]
    with pytest.raises(IndexError, match="out of range"):
        a[4]
    with pytest.raises(IndexError):
        a[-5]


def test_nested_containers() -> None:
    a = tvmffi.Array([[1, 2], {"k": (3,)}])
    assert isinstance(a[0], tvmffi.Array)
    assert isinstance(a[1], tvmffi.Map)
    assert list(a[1]["k"]) == [3]


def test_map_mapping_protocol() -> None:
    m = tvmffi.Map({"a": 1, 2: "b"})
    assert isinstance(m, Mapping)
    assert len(m) == 2
    assert m["a"] == 1 and m[2] == "b"
    assert "a" in m and "z" not in m
    assert m.get("z", 5) == 5
    assert sorted(map(str, m.keys())) == ["2", "a"]
    assert dict(m.items()) == {"a": 1, 2: "b"}
    assert m == {"a": 1, 2: "b"}
    with pytest.raises(KeyError):
        m["missing"]


def test_empty_containers() -> None:
    assert len(tvmffi.Array()) == 0
    assert len(tvmffi.Map()) == 0
    assert list(tvmffi.Array([])) == []


def test_container_passes_tensors_by_value() -> None:
    np = pytest.importorskip("numpy")
    a = tvmffi.Array([np.ones(2, np.float32)])
    assert isinstance(a[0], tvmffi.Tensor)
    assert a[0].shape == (2,)


def test_repr() -> None:
    assert repr(tvmffi.Array([1, 2])) == "Array([1, 2])"
    assert repr(tvmffi.Map({"a": 1})) == "Map({'a': 1})"

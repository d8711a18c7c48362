"""tvmffi.serialization: FFI values to the runtime's JSON graph text and back."""

from __future__ import annotations

import json

import pytest

import tvmffi
from tvmffi.serialization import from_json_graph_str, to_json_graph_str


def roundtrip(value: object) -> object:
    return from_json_graph_str(to_json_graph_str(value))


@pytest.mark.parametrize(
    "value", [None, True, False, 0, -7, 10**15, "", "hello", "ü∂", b"\x00\x01"]
)
def test_scalars(value: object) -> None:
    out = roundtrip(value)
    assert out == value
    assert type(out) is type(value) or isinstance(out, type(value))


def test_float() -> None:
    assert roundtrip(1.5) == pytest.approx(1.5)
    assert isinstance(roundtrip(2.0), float)


def test_containers() -> None:
    arr = roundtrip([1, "a", [2, 3]])
    assert isinstance(arr, tvmffi.Array)
    assert list(arr[2]) == [2, 3]
    m = roundtrip({"x": 1, "y": [1, 2]})
    assert isinstance(m, tvmffi.Map)
    assert m["x"] == 1 and list(m["y"]) == [1, 2]


def test_shared_objects_stay_shared() -> None:
    inner = tvmffi.Array([1, 2])
    out = roundtrip([inner, inner])
    assert out[0].same_as(out[1])


def test_dtype_and_device() -> None:
    assert str(roundtrip(tvmffi.dtype("float32"))) == "float32"
    dev = roundtrip(tvmffi.device("cpu", 0))
    assert dev.type == "cpu" and dev.index == 0


def test_text_is_json_with_metadata() -> None:
    text = to_json_graph_str([1, 2], {"version": "x"})
    doc = json.loads(text)
    assert doc["metadata"] == {"version": "x"}
    assert "root_index" in doc and isinstance(doc["nodes"], list)
    assert "metadata" not in json.loads(to_json_graph_str(1))


def test_reflected_object() -> None:
    # A runtime type with a reflected field: VisitInterrupt(value).
    out = roundtrip(tvmffi.VisitInterrupt([1, "a"]))
    assert isinstance(out, tvmffi.VisitInterrupt)
    assert list(out.value) == [1, "a"]


def test_bad_text() -> None:
    with pytest.raises((ValueError, RuntimeError)):
        from_json_graph_str("{not json")

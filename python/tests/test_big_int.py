"""Python ints past int64 cross the FFI as ``ffi.BigInt`` and come back as ``int``.

Upstream 0.1.15's behaviour: an int in the int64 range is an FFI int, any
other int an ``ffi.BigInt`` object (c_api.h's kTVMFFIBigInt); both return to
Python as a plain ``int``. Upstream's own tests/python/test_big_int.py runs in
the upstream phase (.ci/upstream.sh); these need no compiler.
"""

from __future__ import annotations

import json

import pytest

import tvmffi

# Distinct words and an interior zero word: word order and sign handling show.
WIDE = (1 << 255) | (0x0123456789ABCDEF << 128) | 0xFEDCBA9876543210
EDGES = [-(1 << 63) - 1, -(1 << 63), (1 << 63) - 1, 1 << 63, (1 << 64) - 1, 1 << 64]


def identity() -> tvmffi.Function:
    return tvmffi.Function(lambda x: x)


@pytest.mark.parametrize("value", [0, -1, *EDGES, WIDE, -WIDE, 10**400, -(10**400)])
def test_round_trip_through_a_function(value: int) -> None:
    result = identity()(value)
    assert type(result) is int
    assert result == value


def test_callback_receives_an_int() -> None:
    seen = []

    def callback(x: int) -> int:
        seen.append(x)
        return -x - 1

    f = tvmffi.Function(callback)
    assert f(WIDE) == -WIDE - 1
    assert seen == [WIDE] and type(seen[0]) is int


def test_containers_and_map_keys() -> None:
    values = [WIDE, -WIDE, 1 << 63, 7]
    array = tvmffi.convert(values)
    assert list(array) == values
    mapping = tvmffi.convert({v: -v for v in values})
    for v in values:
        assert mapping[v] == -v  # a new BigInt object finds the key by value
    assert (1 << 200) not in mapping


def test_index_objects_past_int64() -> None:
    class Index:
        def __index__(self) -> int:
            return 1 << 100

    assert identity()(Index()) == 1 << 100
    assert identity()([Index()])[0] == 1 << 100
    np = pytest.importorskip("numpy")
    assert identity()(np.uint64((1 << 64) - 1)) == (1 << 64) - 1


def test_int64_parameter_refuses_a_bigint() -> None:
    get_item = tvmffi.get_global_func("ffi.ArrayGetItem")
    with pytest.raises(TypeError):
        get_item(tvmffi.convert([1]), 1 << 64)


def test_structural_and_json_graph() -> None:
    assert tvmffi.structural_equal([WIDE], [WIDE])
    assert tvmffi.structural_hash([WIDE]) == tvmffi.structural_hash([WIDE])
    assert not tvmffi.structural_equal(WIDE, WIDE + 1)
    from tvmffi import serialization

    text = serialization.to_json_graph_str(-WIDE)
    node = json.loads(text)["nodes"][0]
    assert node == {"type": "ffi.BigInt", "data": str(-WIDE)}
    assert serialization.from_json_graph_str(text) == -WIDE

"""tvmffi.container: Shape, Array, Map, List and Dict as sequence and mapping types."""

from __future__ import annotations

import copy
import pickle
from collections.abc import Mapping, MutableMapping, MutableSequence, Sequence
from types import ModuleType

import pytest

import tvmffi


def test_shape_is_a_tuple_of_ints() -> None:
    s = tvmffi.Shape([2, 3, 4])
    assert isinstance(s, tuple)
    assert s == (2, 3, 4)
    assert repr(s) == "Shape((2, 3, 4))"
    with pytest.raises(TypeError):
        tvmffi.Shape([1.5])  # type: ignore[list-item]


def test_shape_keeps_its_object(np: ModuleType) -> None:
    echo = tvmffi.Function(lambda x: x)
    s = tvmffi.Shape((10, 8))
    obj = s._tvm_ffi_cached_object
    assert isinstance(obj, tvmffi.Object) and obj.type_key == "ffi.Shape"
    back = echo(s)  # passed as its object, which comes back kept by the result
    assert isinstance(back, tvmffi.Shape) and back == (10, 8)
    assert back._tvm_ffi_cached_object.same_as(obj)
    # A tensor's shape has no object; it is converted when passed.
    shape = tvmffi.from_dlpack(np.zeros((2, 3))).shape
    assert shape._tvm_ffi_cached_object is None
    assert echo(shape) == (2, 3) and echo(shape)._tvm_ffi_cached_object is not None

    # A subclass keeps one too; pickling and copying keep the values only.
    class MyShape(tvmffi.Shape):
        pass

    mine = MyShape([4])
    assert type(mine) is MyShape and mine._tvm_ffi_cached_object.type_key == "ffi.Shape"
    for again in (pickle.loads(pickle.dumps(s)), copy.copy(s), copy.deepcopy(s)):
        assert type(again) is tvmffi.Shape and again == (10, 8)


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
    assert m == tvmffi.Map({2: "b", "a": 1}) and hash(m) == hash(tvmffi.Map({"a": 1, 2: "b"}))
    assert m.__eq__({"a": 1, 2: "b"}) is NotImplemented  # upstream: no Python dict equality
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
    # The runtime's text (upstream's): tuples for Array, lists for List, JSON-like maps.
    assert repr(tvmffi.Array([1, 2])) == "(1, 2)"
    assert repr(tvmffi.Map({"a": 1})) == '{"a": 1}'
    assert str(tvmffi.List([1, "a"])) == '[1, "a"]'
    assert repr(tvmffi.Dict({"k": [1]})) == '{"k": (1,)}'


def test_array_concat_eq_and_hash() -> None:
    a = tvmffi.Array([1, 2])
    assert isinstance(a + (3,), tvmffi.Array) and list(a + (3,)) == [1, 2, 3]
    assert isinstance((0,) + a, tvmffi.Array) and list((0,) + a) == [0, 1, 2]
    assert a == [1, 2] and a == (1, 2) and a != [2, 1] and a.__eq__("12") is NotImplemented
    assert {a, tvmffi.Array([1, 2])} == {a}  # structural hash
    assert not tvmffi.Array() and a
    with pytest.raises(TypeError):
        tvmffi.Array(1)  # type: ignore[arg-type]
    with pytest.raises(AttributeError, match="expects a mapping"):
        tvmffi.Map(1)  # type: ignore[arg-type]


def test_list_is_a_shared_mutable_sequence() -> None:
    lst = tvmffi.List([1, "x", 2.5])
    assert isinstance(lst, MutableSequence) and lst.type_key == "ffi.List"
    assert tvmffi.List.__tvm_ffi_type_info__.type_key == "ffi.List"  # a registered class
    assert tvmffi.Dict.__tvm_ffi_type_info__.type_key == "ffi.Dict"
    same = tvmffi.Function(lambda x: x)(lst)  # through the FFI and back: the same list
    assert isinstance(same, tvmffi.List) and same.same_as(lst)
    same.append(4)
    assert list(lst) == [1, "x", 2.5, 4]
    lst[0] = 10
    lst.insert(-1, "y")  # before the last, as list.insert
    lst.insert(100, "end")  # clamped to the end
    assert list(same) == [10, "x", 2.5, "y", 4, "end"]
    assert lst.pop() == "end" and lst.pop(0) == 10
    del lst[1:3]
    assert list(lst) == ["x", 4]
    lst.extend([5, 6, 7])
    lst[1:3] = ["a"]
    assert list(lst) == ["x", "a", 6, 7]
    lst[::2] = [0, 1]
    del lst[::2]
    assert list(lst) == ["a", 7]
    lst.reverse()
    assert lst[-1] == "a" and lst[::-1] == ["a", 7] and 7 in lst and 8 not in lst
    assert lst == [7, "a"] and lst != [7] and lst == tvmffi.List([7, "a"])
    assert hash(lst) == hash(tvmffi.List([7, "a"]))
    assert list(lst + [1]) == [7, "a", 1] and isinstance([1] + lst, tvmffi.List)
    lst.clear()
    assert len(same) == 0 and not lst
    with pytest.raises(IndexError):
        lst.pop()
    with pytest.raises(IndexError):
        lst[0] = 1
    with pytest.raises(ValueError, match="extended slice of size 0"):
        lst[::2] = [1]


def test_list_elements_and_copies() -> None:
    nested = tvmffi.List([[1, 2], {"k": 3}])
    assert isinstance(nested[0], tvmffi.Array) and isinstance(nested[1], tvmffi.Map)
    assert [1, 2] in nested  # a Python sequence matches a nested container
    deep = copy.deepcopy(nested)
    assert not deep.same_as(nested) and deep == nested


def test_deepcopy_of_a_map_in_a_cycle_points_back_at_the_copy() -> None:
    # Through values: Map -> List -> the Map; the List is reached twice.
    back = tvmffi.List()
    root = tvmffi.Map({"a": back, "b": back, "n": 1})
    back.append(root)
    deep = copy.deepcopy(root)
    assert not deep.same_as(root) and list(deep.keys()) == ["a", "b", "n"]
    assert deep["a"].same_as(deep["b"]) and not deep["a"].same_as(back)
    assert deep["a"][0].same_as(deep) and deep["n"] == 1
    # Through a key: Map -> (key) Dict -> the Map.
    key = tvmffi.Dict()
    keyed = tvmffi.Map({key: 1})
    key["self"] = keyed
    deep_keyed = copy.deepcopy(keyed)
    deep_key = next(iter(deep_keyed.keys()))
    assert isinstance(deep_key, tvmffi.Dict) and not deep_key.same_as(key)
    assert deep_key["self"].same_as(deep_keyed) and deep_keyed[deep_key] == 1
    # The root as a key of a Dict inside it.
    inner = tvmffi.Dict()
    rooted = tvmffi.Map({"d": inner})
    inner[rooted] = 2
    deep_rooted = copy.deepcopy(rooted)
    assert next(iter(deep_rooted["d"].keys())).same_as(deep_rooted)
    for cyclic in (back, deep["a"], key, deep_key, inner, deep_rooted["d"]):
        cyclic.clear()  # break the cycles so everything is freed


def test_dict_is_a_shared_mutable_mapping() -> None:
    d = tvmffi.Dict({"a": 1, "b": [1, 2]})
    assert isinstance(d, MutableMapping) and d.type_key == "ffi.Dict"
    same = tvmffi.Function(lambda x: x)(d)
    assert isinstance(same, tvmffi.Dict) and same.same_as(d)
    same["c"] = 3
    assert len(d) == 3 and d["c"] == 3 and "c" in d and "z" not in d
    assert list(d.keys()) == ["a", "b", "c"]
    assert list(d.values())[0] == 1 and list(d.items())[2] == ("c", 3)
    assert list(d) == ["a", "b", "c"] and len(d.keys()) == 3
    assert d.get("z") is None and d.get("z", 7) == 7
    assert d.pop("a") == 1 and d.pop("a", None) is None
    del d["c"]
    with pytest.raises(KeyError):
        del d["c"]
    with pytest.raises(KeyError):
        d["c"]
    with pytest.raises(KeyError):
        d.pop("c")
    d.update({"x": 1}, y=2)
    assert d.setdefault("x", 5) == 1 and d.setdefault("w", 5) == 5
    assert d == tvmffi.Dict({"b": [1, 2], "x": 1, "y": 2, "w": 5})
    assert hash(d) == hash(copy.deepcopy(d))
    d.clear()
    assert len(same) == 0 and not d and tvmffi.Dict() == tvmffi.Dict({})


def test_dict_iteration_sees_changes() -> None:
    d = tvmffi.Dict({i: i * i for i in range(10)})
    assert dict(d.items()) == {i: i * i for i in range(10)}
    with pytest.raises(RuntimeError, match="changed size during iteration"):
        for k in d:
            d[k + 100] = 0


def test_returned_containers_give_tensors_of_the_arguments_framework(np: ModuleType) -> None:
    x = np.arange(4, dtype=np.float32)
    arr = tvmffi.get_global_func("ffi.Array")(x, 5)
    assert isinstance(arr, tvmffi.Array)
    first = arr[0]
    assert isinstance(first, np.ndarray)
    assert first.ctypes.data == x.ctypes.data  # the same memory
    assert arr[1] == 5
    assert isinstance(list(arr)[0], np.ndarray)
    m = tvmffi.get_global_func("ffi.Map")("t", x, "inner", tvmffi.Array([1]))
    assert isinstance(m["t"], np.ndarray)
    assert isinstance(m.get("t"), np.ndarray)
    assert isinstance(dict(m.items())["t"], np.ndarray)
    # Containers made from Python, or returned without framework arguments, keep tvmffi tensors.
    t = tvmffi.from_dlpack(x)
    assert isinstance(tvmffi.Array([t])[0], tvmffi.Tensor)
    assert isinstance(tvmffi.get_global_func("ffi.Array")(t)[0], tvmffi.Tensor)


def test_tagged_container_passed_back_keeps_its_framework(np: ModuleType) -> None:
    x = np.arange(4, dtype=np.float32)
    make = tvmffi.get_global_func("ffi.Array")
    arr = make(x)  # returned by a call with a numpy argument: tagged
    wrapped = make(arr, 1)  # no tensor argument, but a tagged container
    assert isinstance(wrapped[0][0], np.ndarray)
    assert wrapped[0][0].ctypes.data == x.ctypes.data
    same = tvmffi.get_global_func("ffi.Map")("a", arr)
    assert isinstance(same["a"][0], np.ndarray)
    # An untagged container (made from Python) passes nothing on.
    plain = make(tvmffi.Array([tvmffi.from_dlpack(x)]))
    assert isinstance(plain[0][0], tvmffi.Tensor)


def test_returned_containers_give_torch_tensors(torch: ModuleType) -> None:
    x = torch.arange(4, dtype=torch.float32)
    lst = tvmffi.get_global_func("ffi.List")(x, tvmffi.Array([1]))
    assert isinstance(lst, tvmffi.List)
    assert isinstance(lst[0], torch.Tensor) and lst[0].data_ptr() == x.data_ptr()
    d = tvmffi.get_global_func("ffi.Dict")("t", x, "arr", tvmffi.Array([2]))
    assert isinstance(d["t"], torch.Tensor) and d["t"].data_ptr() == x.data_ptr()
    assert isinstance(dict(d.items())["t"], torch.Tensor)

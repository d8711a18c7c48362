"""tvmffi.core: upstream's ``tvm_ffi.core`` names — type records, TypeSchema, CAny, sentinels.

The tests that read the fixture types of the testing library (upstream's
src/ffi/testing, built against tvmffi) run when TVMFFI_TESTING_LIB names it,
and skip otherwise.
"""

from __future__ import annotations

import ctypes
import gc
import pickle
import sys
from typing import Any, Optional, Union

import pytest

import tvmffi
import tvmffi.testing as testing
from tvmffi import core
from tvmffi.core import (
    KWARGS,
    MISSING,
    CAny,
    FFIProperty,
    Object,
    OpaquePyObject,
    TypeInfo,
    TypeSchema,
    _lookup_type_attr,
    _object_type_key_to_index,
    _to_py_class_value,
    _type_cls_to_type_info,
)

needs_fixtures = pytest.mark.skipif(
    testing.fixture_library() is None,
    reason="no fixture library (set TVMFFI_TESTING_LIB to a libtvm_ffi_testing.so)",
)

A = TypeSchema.from_annotation


# -- names and sentinels ------------------------------------------------------


def test_module_names() -> None:
    for name in (
        "Object",
        "CObject",
        "Function",
        "Tensor",
        "Device",
        "DataType",
        "Error",
        "String",
        "Bytes",
        "OpaquePyObject",
        "ObjectConvertible",
        "PyNativeObject",
        "TypeInfo",
        "TypeField",
        "TypeMethod",
        "TypeSchema",
        "FFIProperty",
        "CAny",
        "MISSING",
        "KWARGS",
        "object_repr",
        "_lookup_type_attr",
        "_register_type_attr",
        "_object_type_key_to_index",
        "_type_cls_to_type_info",
        "_type_index_to_type_info",
        "_lookup_or_register_type_info_from_type_key",
        "_register_py_class",
        "_to_py_class_value",
        "_set_class_device",
        "_CLASS_DEVICE",
    ):
        assert hasattr(core, name), name
    assert tvmffi.core is core
    assert core.Object is tvmffi.Object and core.DataType is tvmffi.dtype


def test_sentinels() -> None:
    assert isinstance(MISSING, Object) and isinstance(KWARGS, Object)
    assert not MISSING.same_as(KWARGS)
    assert MISSING.same_as(core.MISSING)


def test_object_handle_methods() -> None:
    arr = tvmffi.convert([1, 2])
    assert arr.__chandle__() != 0
    assert arr.id_ == arr.__chandle__()
    assert arr.is_(arr) and not arr.is_(tvmffi.convert([1, 2])) and not arr.is_(None)
    assert isinstance(arr.__ctypes_handle__(), ctypes.c_void_p)
    bare = Object.__new__(Object)
    assert bare.__chandle__() == 0


def test_type_info_of_builtin_classes() -> None:
    info = _type_cls_to_type_info(tvmffi.Object)
    assert isinstance(info, TypeInfo) and info.type_key == "ffi.Object"
    assert info.parent_type_info is None
    func = _type_cls_to_type_info(tvmffi.Function)
    assert func.type_key == "ffi.Function" and func.parent_type_info.type_cls is tvmffi.Object
    assert _type_cls_to_type_info(tvmffi.Array).type_key == "ffi.Array"
    assert _object_type_key_to_index("ffi.Array") == 71
    assert _object_type_key_to_index("no.such.Type") is None


def test_lookup_type_attr() -> None:
    info = tvmffi.core._lookup_or_register_type_info_from_type_key("ffi.EnumState")
    assert _lookup_type_attr(info.type_index, "__ffi_init__") is not None
    assert _lookup_type_attr(info.type_index, "__no_such_attr__") is None
    with pytest.raises(ValueError, match="Cannot find type key"):
        tvmffi.core._lookup_or_register_type_info_from_type_key("no.such.Type")


def test_opaque_object_roundtrip() -> None:
    class Thing:
        pass

    thing = Thing()
    before = sys.getrefcount(thing)
    wrapped = core._convert_to_opaque_object(thing)
    assert isinstance(wrapped, OpaquePyObject)
    assert wrapped.pyobject() is thing
    assert sys.getrefcount(thing) == before + 1
    del wrapped
    gc.collect()
    assert sys.getrefcount(thing) == before


def test_string_and_bytes() -> None:
    s = core.String("hello")
    assert s == "hello" and isinstance(s, str) and s._tvm_ffi_cached_object is None
    assert type(pickle.loads(pickle.dumps(s))) is str
    b = core.Bytes(b"hi")
    assert b == b"hi" and isinstance(b, bytes)
    assert type(pickle.loads(pickle.dumps(b))) is bytes


def test_long_string_results_keep_their_object() -> None:
    # ffi.String / ffi.Bytes results of 128 bytes or more are core.String /
    # core.Bytes keeping the object, which a call gets back as it is.
    echo = tvmffi.Function(lambda x: x)
    text, data = echo("t" * 200), echo(b"d" * 128)
    assert isinstance(text, core.String) and text == "t" * 200
    assert isinstance(data, core.Bytes) and data == b"d" * 128
    for value, key in ((text, "ffi.String"), (data, "ffi.Bytes")):
        assert value._tvm_ffi_cached_object.type_key == key
        assert echo(value)._tvm_ffi_cached_object.same_as(value._tvm_ffi_cached_object)
        assert type(pickle.loads(pickle.dumps(value))) in (str, bytes)
    # Shorter ones are plain str / bytes.
    assert type(echo("s" * 127)) is str and type(echo("hello")) is str
    assert type(echo(b"b" * 127)) is bytes
    # A cached object of the wrong type is not used: the value converts.
    odd = core.String("x" * 10)
    odd._tvm_ffi_cached_object = tvmffi.Array([1])
    assert echo(odd) == "x" * 10


def test_cobject_is_the_unregistered_base() -> None:
    # isinstance / issubclass as Object; as an annotation it is no registered type.
    assert isinstance(tvmffi.Array([1]), core.CObject)
    assert issubclass(tvmffi.Map, core.CObject) and not issubclass(int, core.CObject)
    assert not isinstance(1, core.CObject)
    with pytest.raises(TypeError, match="not registered"):
        A(core.CObject)
    assert A(Object) == TypeSchema("Object")

    class Derived(core.CObject):  # a class deriving from it derives from Object
        pass

    assert issubclass(Derived, Object)


def test_class_overrides_for_results(np: Any) -> None:
    echo = tvmffi.Function(lambda x: x)

    class MyDevice(tvmffi.Device):
        pass

    class MyTensor(tvmffi.Tensor):
        pass

    core._set_class_device(MyDevice)
    try:
        assert type(tvmffi.device("cuda", 1)) is MyDevice
        assert type(echo(tvmffi.Device("cpu"))) is MyDevice
    finally:
        core._set_class_device(tvmffi.Device)
    assert type(echo(tvmffi.device("cpu"))) is tvmffi.Device
    core._set_class_tensor(MyTensor)
    try:
        assert type(echo(tvmffi.from_dlpack(np.zeros(3)))) is MyTensor
    finally:
        core._set_class_tensor(tvmffi.Tensor)
    assert type(echo(tvmffi.from_dlpack(np.zeros(3)))) is tvmffi.Tensor


def test_object_pickles_through_json_graph() -> None:
    arr = tvmffi.convert([1, "two", 3.0])
    back = pickle.loads(pickle.dumps(arr))
    assert list(back) == [1, "two", 3.0]


# -- TypeSchema ---------------------------------------------------------------


def test_schema_from_annotation() -> None:
    assert A(int) == TypeSchema("int")
    assert repr(A(Optional[int])) == "int | None"
    assert repr(A(Union[int, str])) == "int | str"
    assert repr(A(list[int])) == "List[int]"
    assert repr(A(dict[str, float])) == "Dict[str, float]"
    assert repr(A(tuple[int, ...])) == "Array[int]"
    assert repr(A(tuple[int, str])) == "tuple[int, str]"
    assert repr(A(tvmffi.Device)) == "Device"
    assert repr(A(tvmffi.dtype)) == "dtype"
    assert repr(A(core.String)) == "str"
    from collections.abc import Callable

    assert repr(A(Callable[[int, str], bool])) == "Callable[[int, str], bool]"
    with pytest.raises(TypeError, match="Cannot convert"):
        A(set)


def test_schema_json() -> None:
    s = TypeSchema.from_json_str(
        '{"type":"ffi.Map","args":[{"type":"ffi.String"},'
        '{"type":"Optional","args":[{"type":"int"}]}]}'
    )
    assert repr(s) == "Map[str, int | None]"
    assert s.repr(lambda o: {"Map": "Mapping"}.get(o, o)) == "Mapping[str, int | None]"
    assert TypeSchema.from_json_obj(s.to_json()) == s
    assert repr(TypeSchema.from_json_str('{"type":"ffi.Function"}')) == "Callable[..., Any]"
    assert repr(TypeSchema.from_type_index(1)) == "int"
    with pytest.raises(ValueError):
        TypeSchema("Union", (TypeSchema("int"),))


def test_schema_check_and_convert_scalars() -> None:
    A(int).check_value(True)
    A(float).check_value(3)
    with pytest.raises(TypeError, match="expected int, got str"):
        A(int).check_value("x")
    with pytest.raises(TypeError, match="out of int64 range"):
        A(int).check_value(1 << 70)
    cany = A(float).convert(2)
    assert isinstance(cany, CAny) and cany.type_index == 3
    assert _to_py_class_value(cany) == 2.0 and "float" in repr(cany)
    assert isinstance(_to_py_class_value(A(str).convert("s")), core.String)
    assert _to_py_class_value(A(tvmffi.Device).convert("cpu:0")) == tvmffi.device("cpu:0")
    ptr = _to_py_class_value(A(ctypes.c_void_p).convert(None))
    assert isinstance(ptr, ctypes.c_void_p) and ptr.value is None


def test_schema_convert_containers() -> None:
    arr = _to_py_class_value(A(tuple[float, ...]).convert([1, 2]))
    assert isinstance(arr, tvmffi.Array) and list(arr) == [1.0, 2.0]
    with pytest.raises(TypeError, match=r"element \[1\]: expected int, got str"):
        A(tuple[int, ...]).check_value([1, "x"])
    same = tvmffi.convert([1, 2])
    assert _to_py_class_value(A(tuple[int, ...]).convert(same)).same_as(same)
    with pytest.raises(TypeError, match="expected tuple of length 2"):
        A(tuple[int, int]).check_value([1])
    A(Optional[Union[int, str]]).check_value(None)


def test_core_types_have_ffi_convert() -> None:
    for key in (
        "ffi.Object",
        "ffi.Function",
        "ffi.Error",
        "ffi.String",
        "ffi.Bytes",
        "ffi.Array",
        "ffi.List",
        "ffi.Map",
        "ffi.Dict",
        "ffi.Shape",
        "ffi.Tensor",
    ):
        assert _lookup_type_attr(_object_type_key_to_index(key), "__ffi_convert__") is not None


def test_schema_shape_from_int_sequences() -> None:
    S = TypeSchema.from_json_str if hasattr(TypeSchema, "from_json_str") else None
    schema = A(tvmffi.Shape) if S is None else S('{"type": "ffi.Shape"}')
    for value in ([1, 2, 3], tvmffi.List([1, 2, 3]), tvmffi.Array([1, 2, 3])):
        shape = _to_py_class_value(schema.convert(value))
        assert isinstance(shape, tvmffi.Shape) and tuple(shape) == (1, 2, 3)
    with pytest.raises(TypeError) as info:
        schema.convert([1, "x"])
    text = str(info.value)
    assert "__ffi_convert__ failed" in text
    assert "Cannot cast from `ffi.Array` to `ffi.Shape`" in text


def test_schema_protocols_and_any() -> None:
    class IntLike:
        def __tvm_ffi_int__(self) -> int:
            return 7

    class Wrapper:
        def __init__(self, v: Any) -> None:
            self.v = v

        def __tvm_ffi_value__(self) -> Any:
            return self.v

    assert _to_py_class_value(A(int).convert(IntLike())) == 7
    assert _to_py_class_value(A(int).convert(Wrapper(Wrapper(5)))) == 5
    opaque = object()
    assert _to_py_class_value(A(Any).convert(opaque)) is opaque


# -- the fixture types --------------------------------------------------------


@needs_fixtures
def test_fixture_type_info() -> None:
    info = testing.TestIntPair.__tvm_ffi_type_info__
    assert isinstance(info, TypeInfo) and info.type_key == "testing.TestIntPair"
    assert [f.name for f in info.fields] == ["a", "b"]
    assert all(isinstance(f.metadata, dict) for f in info.fields)
    assert isinstance(testing.TestIntPair.a, FFIProperty)
    assert testing.TestIntPair.a.__doc__ == "Field `a`"
    assert testing.TestObjectBase.v_f64.__doc__ is None
    assert _type_cls_to_type_info(testing.TestIntPair) is info
    derived = _type_cls_to_type_info(testing.TestObjectDerived)
    assert derived.parent_type_info.type_cls is testing.TestObjectBase


@needs_fixtures
def test_fixture_schema_metadata() -> None:
    meta = tvmffi.get_global_func_metadata("testing.schema_id_arr_int")
    assert (
        repr(TypeSchema.from_json_str(meta["type_schema"])) == "Callable[[Array[int]], Array[int]]"
    )


@needs_fixtures
def test_fixture_unregistered_type_gets_a_class() -> None:
    obj = testing.make_unregistered_object()
    cls = type(obj)
    assert cls.__tvm_ffi_type_info__.type_key == "testing.TestUnregisteredObject"
    assert cls.__name__ == "TestUnregisteredObject" and cls.__module__ == "testing"
    assert obj.v1 == 41 and obj.get_v1_plus_one() == 42


@needs_fixtures
def test_fixture_objects_release_their_handles() -> None:
    use_count = tvmffi.get_global_func("testing.object_use_count")
    target = testing.TestObjectBase()
    holder = testing.TestObjectPtrHolder(target)
    assert use_count(target) == 2
    del holder
    gc.collect()
    assert use_count(target) == 1


@needs_fixtures
def test_fixture_object_schema_conversion() -> None:
    pair = testing.TestIntPair(1, 2)
    assert _to_py_class_value(A(testing.TestIntPair).convert(pair)).same_as(pair)
    A(testing.TestObjectBase).check_value(
        testing.create_object(
            "testing.TestObjectDerived", v_map=tvmffi.convert({}), v_array=tvmffi.convert([])
        )
    )
    with pytest.raises(TypeError, match="expected testing.TestIntPair, got int"):
        A(testing.TestIntPair).check_value(3)


def test_type_schema_named_args() -> None:
    from collections.abc import Callable

    # A Callable keeps its return type and parameters as named groups; the flat
    # legacy form (return first) is turned into them.
    typed = A(Callable[[int, str], bool])
    assert typed.args == ()
    assert typed.named_args == {"return": (A(bool),), "params": (A(int), A(str))}
    assert TypeSchema("Callable", (A(bool), A(int), A(str))) == typed
    assert A(Callable[..., int]).named_args == {"return": (A(int),)}
    assert repr(A(Callable[..., int])) == "Callable[..., int]"
    assert A(Callable[[], int]).to_json()["named_args"] == {
        "return": [{"type": "int"}],
        "params": [],
    }
    # to_json / from_json_obj keep named groups of any name, and fallbacks.
    custom = TypeSchema(
        "my.Wrapper", named_args={"items": (typed,), "none": ()}, fallback=TypeSchema("int")
    )
    assert TypeSchema.from_json_obj(custom.to_json()) == custom
    assert repr(custom) == "int"  # an origin nobody registered shows its fallback
    # std::function's older JSON: [return, [params...]]
    f = TypeSchema.from_json_str(
        '{"type":"std::function","args":[{"type":"int"},[{"type":"str"}]]}'
    )
    assert repr(f) == "Callable[[str], int]"
    with pytest.raises(ValueError, match="return"):
        TypeSchema("Callable", named_args={"params": (A(int),)})
    with pytest.raises(ValueError, match="named groups"):
        TypeSchema("Callable", named_args={"return": (A(int),), "extra": ()})
    with pytest.raises(TypeError, match="named_args"):
        TypeSchema("Array", named_args={"x": (1,)})
    with pytest.raises(TypeError, match="named_args"):
        TypeSchema.from_json_obj({"type": "int", "named_args": {"x": {"type": "str"}}})
    with pytest.raises(TypeError, match="TypeSchema"):
        TypeSchema("Array", (1,))  # type: ignore[arg-type]


def test_type_schema_retained_type_key() -> None:
    big = TypeSchema.from_json_str('{"type":"ffi.BigInt"}')
    assert (big.origin, big.type_key) == ("int", "ffi.BigInt")
    assert big == TypeSchema("int")  # the key takes no part in equality
    assert big.to_json() == {"type": "ffi.BigInt"}
    nested = TypeSchema.from_json_obj({"type": "Optional", "args": [{"type": "ffi.BigInt"}]})
    assert nested.type_key is None and nested.args[0].type_key == "ffi.BigInt"
    # a fold that loses nothing keeps no key
    assert TypeSchema.from_json_str('{"type":"ffi.String"}').type_key is None
    assert TypeSchema.from_type_index(1).type_key is None


def test_opaque_ptr_handlers() -> None:
    import ctypes

    class Event:
        __slots__ = ("address",)

        def __init__(self, address: int) -> None:
            self.address = address

    echo = tvmffi.Function(lambda x: x)
    core._OPAQUE_PTR_HANDLERS[Event] = lambda e: e.address
    try:
        out = echo(Event(0xCAFE))
        assert isinstance(out, ctypes.c_void_p) and out.value == 0xCAFE
        TypeSchema.from_annotation(ctypes.c_void_p).check_value(Event(1))
    finally:
        del core._OPAQUE_PTR_HANDLERS[Event]
    with pytest.raises(TypeError, match="ctypes.c_void_p"):
        TypeSchema.from_annotation(ctypes.c_void_p).check_value(Event(1))  # no handler


def test_error_tables() -> None:
    # Upstream's core.ERROR_NAME_TO_TYPE / ERROR_TYPE_TO_NAME: what register_error fills.
    assert core.ERROR_NAME_TO_TYPE["ValueError"] is ValueError
    assert core.ERROR_TYPE_TO_NAME[TypeError] == "TypeError"

    class TablesTestError(Exception):
        pass

    tvmffi.register_error("TablesTestError", TablesTestError)
    assert core.ERROR_NAME_TO_TYPE["TablesTestError"] is TablesTestError
    assert core.ERROR_TYPE_TO_NAME[TablesTestError] == "TablesTestError"
    raise_kind = tvmffi.Function(lambda: (_ for _ in ()).throw(TablesTestError("boom")))
    with pytest.raises(TablesTestError, match="boom"):
        raise_kind()

"""The extension's reflection entries (python/src/reflection.cc) that the package's
type records, fields and objects are read and made through."""

from __future__ import annotations

import pytest

import tvmffi
from tvmffi import _core
from tvmffi import _reflection as r

KEY = "ffi.reflection.AccessStep"


def test_type_record_is_plain_tuples() -> None:
    index = r.type_key_to_index(KEY)
    assert isinstance(index, int)
    rec = _core._type_info(index)
    type_index, key, ancestors, fields, methods, meta = rec
    assert (type_index, key) == (index, KEY)
    assert ancestors == (r.K_OBJECT,)
    assert [f[0] for f in fields] == ["kind", "key"]
    for f in fields:
        assert isinstance(f, tuple) and len(f) == 10
        assert f[6] >= r.OBJECT_HEADER_SIZE  # offset past the header
        assert f[7] != 0  # a getter
    assert all(isinstance(m, tuple) and len(m) == 4 for m in methods)
    assert meta is not None and meta[1] != 0  # a creator
    info = r.type_info(KEY)
    assert [(f.name, f.offset, f.size) for f in info.fields] == [(f[0], f[6], f[4]) for f in fields]


def test_unknown_types_are_none_without_a_parked_error() -> None:
    assert _core._type_info(1 << 30) is None
    assert _core._type_info(-5) is None
    assert _core._type_key_of(1 << 30) is None
    assert _core._type_key_to_index("no.such.Type") is None
    assert r.type_index_to_key(1 << 30) == "<unknown>"
    # Nothing was left parked: the next failing call reports its own error.
    with pytest.raises(ValueError, match="Cannot find global function"):
        tvmffi.get_global_func("no.such.function")


def test_fields_read_and_written_by_address() -> None:
    obj = r.make_object(KEY, kind=1, key="a")
    info = r.type_info(KEY)
    kind = info.find_field("kind")
    assert kind is not None
    handle = r.chandle_of(obj)
    assert _core._field_get(kind._getter_addr, handle, kind.offset) == 1
    kind.set_at(handle, 3)
    assert obj.kind == 3
    with pytest.raises(ValueError):
        _core._field_get(kind._getter_addr, 0, kind.offset)
    with pytest.raises(ValueError, match="null object"):
        kind.set_at(0, 1)
    with pytest.raises(AttributeError):
        _core._field_set(0, 0, handle, kind.offset, 1)
    with pytest.raises(TypeError):  # a value the field's setter refuses
        kind.set_at(handle, "not an int")
    assert obj.kind == 3


def test_make_object_checks_fields() -> None:
    with pytest.raises(TypeError, match="Required field"):
        r.make_object(KEY, kind=1)
    with pytest.raises(TypeError, match="has no field"):
        r.make_object(KEY, kind=1, key="a", nope=2)
    with pytest.raises(ValueError):
        _core._create_object(0)


def test_type_attributes() -> None:
    index = r.type_key_to_index(KEY)
    assert isinstance(r.type_attr(index, "__ffi_init__"), tvmffi.Function)
    assert r.type_attr(index, "no_such_attribute_column") is None
    # An attribute of an ancestor only with ancestor=True.
    r.register_type_attr(r.K_OBJECT, "__test_reflection_records__", 7)
    assert r.type_attr(index, "__test_reflection_records__") is None
    assert r.type_attr(index, "__test_reflection_records__", ancestor=True) == 7


def test_subtypes_and_handles() -> None:
    index = r.type_key_to_index(KEY)
    assert _core._is_subtype(index, r.K_OBJECT)
    assert _core._is_subtype(index, index)
    assert not _core._is_subtype(r.K_OBJECT, index)
    assert not _core._is_subtype(1 << 30, r.K_OBJECT)
    obj = r.make_object(KEY, kind=1, key="a")
    assert _core._object_type_index(r.chandle_of(obj)) == index
    with pytest.raises(ValueError):
        _core._object_type_index(0)


def test_construction_state() -> None:
    fresh = tvmffi.Object.__new__(tvmffi.Object)
    assert _core._inst_state(fresh) == 0 and r.chandle_of(fresh) == 0
    r.ensure_constructed(fresh)
    assert _core._inst_state(fresh) == 2 and r.is_constructed(fresh)
    assert _core._inst_state(object()) == -1
    with pytest.raises(TypeError):
        r.chandle_of(object())


def test_error_fields_and_opaque_objects() -> None:
    err = _core._error_new("ValueError", "bad value", "frame 1\n")
    assert isinstance(err, tvmffi.Object)
    assert _core._error_fields(r.chandle_of(err)) == ("ValueError", "bad value", "frame 1\n")
    assert (err.kind, err.message) == ("ValueError", "bad value")
    not_error = r.make_object(KEY, kind=1, key="a")  # alive while its handle is used
    with pytest.raises(TypeError):
        _core._error_fields(r.chandle_of(not_error))
    payload = object()
    cell = r.opaque_cell(payload)
    try:
        assert _core._opaque_pyobject(cell.v_ptr) is payload
    finally:
        r.release_any(cell)


def test_py_class_needs_the_runtimes_storage(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvmffi import _pyclass
    from tvmffi.dataclasses import py_class

    monkeypatch.setattr(_pyclass, "_SUPPORT_NAMES", (*_pyclass._SUPPORT_NAMES, "ffi.NoSuchHook"))
    monkeypatch.setattr(_pyclass, "_RUNTIME_SUPPORT", [])
    with pytest.raises(RuntimeError, match="ffi.NoSuchHook"):

        @py_class("test_reflection_records.NoStorage")
        class NoStorage(tvmffi.Object):
            x: int

    assert r.type_key_to_index("test_reflection_records.NoStorage") is None


def test_py_class_fields_convert_through_the_extension() -> None:
    from tvmffi.dataclasses import py_class

    @py_class("test_reflection_records.Point")
    class Point(tvmffi.Object):
        x: int
        label: str = "p"

    p = Point(1)
    field = type(p).__tvm_ffi_type_info__.find_field("x")
    assert field._io is None  # no Python-side memory access
    p.x = True  # converted by the field's schema (bool -> int) in the setter's callback
    assert p.x == 1 and type(p.x) is int
    with pytest.raises(TypeError):
        p.x = "one"
    assert p.x == 1
    handle = r.chandle_of(p)
    assert _core._field_get(field._getter_addr, handle, field.offset) == 1


def test_any_cells_are_the_extensions() -> None:
    """AnyCell (tvmffi._core): values in and out, copies, calls on cells, and what
    the pack fallback may return."""
    assert r.AnyCell is _core.AnyCell
    cell = r.to_owned_any(7)
    assert (cell.type_index, cell.v_int64) == (r.K_INT, 7)
    assert r.take_any(cell) == 7 and cell.type_index == r.K_NONE  # taken: left None
    f = r.to_owned_any(2.5)
    assert (f.type_index, f.v_float64) == (r.K_FLOAT, 2.5)
    items = [r.to_owned_any(1), r.to_owned_any("two")]
    arr = r.call_cells(r.ffi_func("ffi.Array"), items)
    assert arr.type_index == r.K_ARRAY
    copy = r.copy_cell(arr)
    assert copy.v_ptr == arr.v_ptr  # the same object, one more reference
    assert list(r.view_to_py(arr)) == [1, "two"] and arr.type_index == r.K_ARRAY
    r.release_any(arr)
    assert arr.type_index == r.K_NONE
    assert list(r.cell_to_py(copy)) == [1, "two"]
    ptr = r._ptr_cell(0x1000)
    assert (ptr.type_index, ptr.v_ptr) == (r.K_OPAQUE_PTR, 0x1000)
    assert r.cell_to_py(ptr).value == 0x1000  # a ctypes.c_void_p, as upstream gives
    obj = r.make_object(KEY, kind=1, key="a")  # alive while its handle is used
    assert r.object_from_handle(0) is None
    assert r.chandle_of(r.object_from_handle(r.chandle_of(obj))) == r.chandle_of(obj)


def test_pack_fallback_must_give_a_cell() -> None:
    from tvmffi import _values

    class Odd:
        pass

    try:
        _core._set_pack_fallback(lambda value: 3)
        with pytest.raises(TypeError, match="AnyCell"):
            tvmffi.convert(Odd())
        _core._set_pack_fallback(lambda value: None)  # declined: unsupported
        with pytest.raises(TypeError, match="neither an FFI value"):
            tvmffi.convert(Odd())
        _core._set_pack_fallback(lambda value: r.to_owned_any(5))
        assert tvmffi.convert(Odd()) == 5
    finally:
        _core._set_pack_fallback(_values._pack_fallback)

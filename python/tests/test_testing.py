"""tvmffi.testing: the Python side of the testing fixture library, and its helpers.

The fixture library (upstream's src/ffi/testing built against tvmffi, e.g. by
tests/upstream_python/run.sh) is not part of tvmffi: the tests that need it
run when TVMFFI_TESTING_LIB names it, and skip otherwise.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import tvmffi
import tvmffi.testing as testing
from tvmffi._lockfile import FileLock

needs_fixtures = pytest.mark.skipif(
    testing.fixture_library() is None,
    reason="no fixture library (set TVMFFI_TESTING_LIB to a libtvm_ffi_testing.so)",
)


# -- without the fixture library ----------------------------------------------


def test_module_names() -> None:
    for name in (
        "TestIntPair",
        "TestObjectBase",
        "TestObjectDerived",
        "create_object",
        "add_one",
        "make_unregistered_object",
        "run_with_gpu_lock",
        "load_fixture_library",
        "fixture_library",
    ):
        assert hasattr(testing, name), name
    assert testing.TestIntPair.__test__ is False
    with pytest.raises(AttributeError):
        testing.no_such_fixture_function


def test_placeholder_classes_without_library() -> None:
    if testing.fixture_library() is not None:
        pytest.skip("the fixture library is loaded")
    with pytest.raises(RuntimeError, match="TVMFFI_TESTING_LIB"):
        testing.TestIntPair(1, 2)


def test_load_missing_library_raises(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        testing.load_fixture_library(tmp_path / "libnothing.so")


def test_create_object_by_reflection() -> None:
    # A type of the runtime itself: ffi.VisitInterrupt has one field, `value`.
    obj = testing.create_object("ffi.VisitInterrupt", value=[1, 2])
    assert isinstance(obj, tvmffi.VisitInterrupt)
    assert list(obj.value) == [1, 2]
    assert testing.create_object("ffi.VisitInterrupt").value is None
    with pytest.raises(TypeError, match="no field"):
        testing.create_object("ffi.VisitInterrupt", nope=1)
    with pytest.raises(ValueError, match="Unknown object type"):
        testing.create_object("tvmffi_test.NoSuchType")


def test_register_object_unknown_key() -> None:
    with pytest.raises(ValueError, match="tvmffi_test.NoSuchType"):

        @tvmffi.register_object("tvmffi_test.NoSuchType")
        class _Nope(tvmffi.Object):
            pass


def test_run_with_gpu_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TVM_FFI_TEST_LOCK_DIR", str(tmp_path / "locks"))
    monkeypatch.setattr(testing, "_gpu_lock_path", [])
    assert testing.run_with_gpu_lock(lambda a, b=0: a + b, 2, b=3) == 5
    assert (tmp_path / "locks" / "gpu.lock").exists()
    # The lock is free again afterwards.
    lock = FileLock(tmp_path / "locks" / "gpu.lock")
    assert lock.acquire()
    lock.release()


def test_filelock(tmp_path: Path) -> None:
    path = tmp_path / "x.lock"
    a, b = FileLock(str(path)), FileLock(str(path))
    assert a.acquire() is True
    assert a._file_descriptor is not None
    assert a.acquire() is False  # already held, by this instance
    assert b.acquire() is False  # held by another
    with pytest.raises(TimeoutError):
        b.blocking_acquire(timeout=0.2, poll_interval=0.05)
    a.release()
    assert a._file_descriptor is None
    a.release()  # harmless
    with b:
        assert b._file_descriptor is not None
    assert b._file_descriptor is None
    with pytest.raises(ValueError, match="boom"):
        with FileLock(str(path)):
            raise ValueError("boom")
    assert a.acquire()
    a.release()


def test_filelock_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "p.lock"
    holder = FileLock(str(path))
    assert holder.acquire()
    code = (
        "import sys; from tvmffi._lockfile import FileLock; "
        "sys.exit(0 if FileLock(sys.argv[1]).acquire() else 3)"
    )
    assert subprocess.run([sys.executable, "-c", code, str(path)], check=False).returncode == 3
    holder.release()
    assert subprocess.run([sys.executable, "-c", code, str(path)], check=False).returncode == 0


def test_utils_lockfile_name() -> None:
    lockfile = pytest.importorskip("tvmffi.utils.lockfile")  # the wheel has it; a build tree not
    assert lockfile.FileLock is FileLock


# -- with the fixture library -------------------------------------------------


@needs_fixtures
def test_fixture_globals() -> None:
    assert testing.add_one(1) == 2
    assert testing.schema_id_int(7) == 7
    assert list(testing.schema_id_arr_int([1, 2])) == [1, 2]
    echo = tvmffi.get_global_func("testing.echo")
    assert echo("x") == "x"
    assert os.path.samefile(
        testing.fixture_library(), testing.load_fixture_library(testing.fixture_library())
    )


@needs_fixtures
def test_fixture_classes() -> None:
    pair = testing.TestIntPair(3, 4)
    assert (pair.a, pair.b, pair.sum()) == (3, 4, 7)
    assert type(pair).a.__doc__ == "Field `a`"
    obj = testing.create_object("testing.TestObjectBase", v_i64=12)
    assert isinstance(obj, testing.TestObjectBase)
    assert (obj.v_i64, obj.v_f64, obj.v_str) == (12, 10.0, "hello")
    assert obj.add_i64(1) == 13
    obj.v_i64 = 11
    assert obj.v_i64 == 11
    with pytest.raises(TypeError):
        obj.v_str = 1
    with pytest.raises(TypeError):
        testing.create_object("testing.TestObjectDerived")
    derived = testing.create_object("testing.TestObjectDerived", v_map={"a": 1}, v_array=[1])
    assert isinstance(derived, testing.TestObjectBase)
    assert derived.v_map["a"] == 1 and derived.v_str == "hello"
    assert testing.TestObjectBase().v_i64 == 10


@needs_fixtures
def test_fixture_constructors() -> None:
    kw = testing._TestCxxKwOnly(x=1, y=2, z=3)
    assert (kw.x, kw.y, kw.z) == (1, 2, 3)
    base = testing._TestCxxClassBase(1, 2)  # the fixture's __init__ adds 1 and 2
    assert (base.v_i64, base.v_i32) == (2, 4)
    with pytest.raises(TypeError):
        testing._TestCxxNoAutoInit(1, 2)
    assert testing.TestIntPair(1, 2) != testing.TestIntPair(1, 2)  # identity, not value


def test_ffi_api_module() -> None:
    from tvmffi import _ffi_api

    assert _ffi_api.RecursiveEq([1, "a"], [1, "a"])
    assert _ffi_api.ArraySize([1, 2, 3]) == 3
    obj = _ffi_api.MakeObjectFromPackedArgs("ffi.VisitInterrupt", "value", 4)
    assert isinstance(obj, tvmffi.VisitInterrupt) and obj.value == 4
    keys = _ffi_api.GetRegisteredTypeKeys()
    assert "ffi.reflection.AccessPath" in keys and "ffi.Array" in keys
    with pytest.raises(AttributeError):
        _ffi_api.NoSuchGlobal

"""tvmffi._error: error kinds <-> Python exceptions, both ways, message and backtrace kept."""

from __future__ import annotations

import pytest

import tvmffi

BUILTIN = [
    ValueError,
    TypeError,
    RuntimeError,
    AttributeError,
    IndexError,
    KeyError,
    NotImplementedError,
    MemoryError,
    AssertionError,
]


def raiser(exc: BaseException) -> tvmffi.Function:
    def fail() -> None:
        raise exc

    return tvmffi.Function(fail)


@pytest.mark.parametrize("cls", BUILTIN)
def test_builtin_kinds_cross_both_ways(cls: type[BaseException]) -> None:
    # Python -> FFI error of kind cls.__name__ -> Python cls again
    with pytest.raises(cls) as info:
        raiser(cls("boom message"))()
    assert type(info.value) is cls
    assert info.value.args[0] == "boom message"
    assert info.value.kind == cls.__name__  # type: ignore[attr-defined]


def test_error_crosses_nested_calls() -> None:
    inner = raiser(KeyError("missing key"))
    outer = tvmffi.Function(lambda: inner())
    with pytest.raises(KeyError, match="missing key"):
        outer()


def test_other_kind_becomes_error_subclass() -> None:
    class QuotaExceeded(Exception):
        pass

    with pytest.raises(tvmffi.Error) as info:
        raiser(QuotaExceeded("too many"))()
    assert type(info.value).__name__ == "QuotaExceeded"
    assert type(info.value) is not QuotaExceeded  # a tvmffi.Error subclass named after the kind
    assert info.value.kind == "QuotaExceeded"  # type: ignore[attr-defined]
    assert str(info.value) == "too many"
    # the same kind maps to the same class every time
    with pytest.raises(type(info.value)):
        raiser(QuotaExceeded("again"))()


def test_subclass_of_builtin_keeps_builtin_kind() -> None:
    class MyValueError(ValueError):
        pass

    with pytest.raises(ValueError, match="sub"):
        raiser(MyValueError("sub"))()


def test_registered_error_class() -> None:
    @tvmffi.register_error("TvmffiTestKind")
    class TestKindError(Exception):
        pass

    with pytest.raises(TestKindError, match="registered"):
        raiser(TestKindError("registered"))()


def test_native_error_keeps_message_and_backtrace(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(ValueError) as info:
        cpu_kernels.greet("")
    exc = info.value
    assert str(exc).endswith("greet: `name` must not be empty")
    bt = exc.backtrace  # type: ignore[attr-defined]
    assert isinstance(bt, str)
    assert bt != ""
    notes = getattr(exc, "__notes__", [])
    assert any("native backtrace" in n for n in notes) or not hasattr(exc, "add_note")


def test_python_traceback_travels_in_backtrace() -> None:
    def deep_failure() -> None:
        raise IndexError("deep")

    with pytest.raises(IndexError) as info:
        tvmffi.Function(deep_failure)()
    assert "deep_failure" in info.value.backtrace  # type: ignore[attr-defined]


def test_python_error_inside_kernel_argument_conversion(cpu_kernels: tvmffi.Module) -> None:
    # an exception in the callback's return conversion still arrives as a Python exception
    with pytest.raises(TypeError, match="neither an FFI value"):
        tvmffi.Function(lambda: object())()


def test_raised_error_carries_its_ffi_error(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(ValueError) as info:
        cpu_kernels.greet("")
    err = info.value.__tvm_ffi_error__  # type: ignore[attr-defined]
    assert isinstance(err, tvmffi.core.Error)
    assert err.kind == "ValueError"
    assert "must not be empty" in err.message


def test_error_crossing_back_is_the_same_ffi_error(cpu_kernels: tvmffi.Module) -> None:
    seen: list = []

    def reraise_kernel_error() -> None:
        try:
            cpu_kernels.greet("")
        except ValueError as e:
            seen.append(e.__tvm_ffi_error__)  # type: ignore[attr-defined]
            raise

    with pytest.raises(ValueError) as info:
        tvmffi.Function(reraise_kernel_error)()
    err = info.value.__tvm_ffi_error__  # type: ignore[attr-defined]
    assert err.same_as(seen[0])
    # The Python frames it crossed are appended to the error's backtrace.
    assert "reraise_kernel_error" in err.backtrace


def test_changed_exception_crosses_as_a_new_error(cpu_kernels: tvmffi.Module) -> None:
    seen: list = []

    def replace_message() -> None:
        try:
            cpu_kernels.greet("")
        except ValueError as e:
            seen.append(e.__tvm_ffi_error__)  # type: ignore[attr-defined]
            raise ValueError("another message") from e

    with pytest.raises(ValueError, match="another message") as info:
        tvmffi.Function(replace_message)()
    assert not info.value.__tvm_ffi_error__.same_as(seen[0])  # type: ignore[attr-defined]


def test_exception_as_a_value_becomes_an_ffi_error() -> None:
    def fail() -> None:
        raise KeyError("missing")

    try:
        fail()
    except KeyError as e:
        err = tvmffi.convert(e)
    assert isinstance(err, tvmffi.core.Error)
    assert err.kind == "KeyError"
    assert "fail" in err.backtrace


def test_parse_backtrace() -> None:
    text = """Traceback (most recent call last):
      File "/a/b.py", line 12, in outer
        outer()
      File "c.py", line 3, in <module>
    ValueError: x
    """
    assert tvmffi.error._parse_backtrace(text) == [
        ("/a/b.py", 12, "outer"),
        ("c.py", 3, "<module>"),
    ]
    assert tvmffi.error._parse_backtrace("") == []
    assert tvmffi.error.register_error is tvmffi.register_error


def test_error_object_made_and_pickled_by_value() -> None:
    import pickle

    from tvmffi import core

    err = core.Error("TypeError", "boom", 'File "a.py", line 1, in f\n')
    back = pickle.loads(pickle.dumps(err))
    assert (back.kind, back.message, back.backtrace) == (err.kind, err.message, err.backtrace)
    assert not back.same_as(err)  # a new object with the same strings
    assert back.extra_context is None
    null = pickle.loads(pickle.dumps(core.Error.__new__(core.Error)))
    assert null.__chandle__() == 0
    err.update_backtrace("replaced\n")
    assert err.backtrace == "replaced\n"
    with pytest.raises(TypeError, match="message must be a str"):
        core.Error("ValueError", 3, "")  # type: ignore[arg-type]

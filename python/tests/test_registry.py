"""tvmffi.registry: global functions."""

from __future__ import annotations

from typing import Iterator

import pytest

import tvmffi


@pytest.fixture()
def name() -> Iterator[str]:
    n = "tvmffi_test.registry_fn"
    yield n
    if tvmffi.get_global_func(n, allow_missing=True) is not None:
        tvmffi.remove_global_func(n)


def test_builtin_globals_are_listed() -> None:
    names = tvmffi.list_global_func_names()
    assert isinstance(names, list)
    assert "ffi.ModuleLoadFromFile" in names
    assert all(isinstance(n, str) for n in names)


def test_get_global_func() -> None:
    f = tvmffi.get_global_func("ffi.ArraySize")
    assert isinstance(f, tvmffi.Function)
    assert f(tvmffi.Array([1, 2, 3])) == 3


def test_missing_global() -> None:
    assert tvmffi.get_global_func("tvmffi_test.missing", allow_missing=True) is None
    with pytest.raises(ValueError, match="tvmffi_test.missing"):
        tvmffi.get_global_func("tvmffi_test.missing")


def test_register_plain(name: str) -> None:
    f = tvmffi.register_global_func(name, lambda a, b: a * b)
    assert isinstance(f, tvmffi.Function)
    assert name in tvmffi.list_global_func_names()
    assert tvmffi.get_global_func(name)(6, 7) == 42


def test_register_decorator(name: str) -> None:
    @tvmffi.register_global_func(name)
    def concat(a: str, b: str) -> str:
        return a + b

    assert isinstance(concat, tvmffi.Function)
    assert tvmffi.get_global_func(name)("ab", "cd") == "abcd"


def test_register_existing_needs_override(name: str) -> None:
    tvmffi.register_global_func(name, lambda: 1)
    with pytest.raises(Exception, match=name.replace(".", r"\.")):
        tvmffi.register_global_func(name, lambda: 2)
    tvmffi.register_global_func(name, lambda: 3, override=True)
    assert tvmffi.get_global_func(name)() == 3


def test_register_function_object(name: str) -> None:
    f = tvmffi.Function(lambda x: x + 1)
    assert tvmffi.register_global_func(name, f).same_as(f)
    assert tvmffi.get_global_func(name)(1) == 2


def test_register_rejects_non_callable(name: str) -> None:
    with pytest.raises(TypeError, match="callable"):
        tvmffi.register_global_func(name, 42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="name must be a str"):
        tvmffi.register_global_func(42, lambda: 0)  # type: ignore[arg-type]


def test_register_bare_decorator_takes_the_function_name() -> None:
    # Upstream's form, used by TVM's contrib/nvcc.py: the name is f.__name__.
    def tvmffi_test_bare_registered(x: int) -> int:
        return x * 3

    try:
        registered = tvmffi.register_global_func(tvmffi_test_bare_registered)
        assert isinstance(registered, tvmffi.Function)
        assert tvmffi.get_global_func("tvmffi_test_bare_registered")(2) == 6
    finally:
        tvmffi.remove_global_func("tvmffi_test_bare_registered")


def test_remove(name: str) -> None:
    tvmffi.register_global_func(name, lambda: 0)
    tvmffi.remove_global_func(name)
    assert tvmffi.get_global_func(name, allow_missing=True) is None


def test_init_ffi_api_puts_namespace_functions_on_a_module() -> None:
    import sys
    import types

    mod = types.ModuleType("tvmffi_test_ffi_api")
    sys.modules[mod.__name__] = mod
    names = ["tvmffi_test_ns.double", "tvmffi_test_ns.inner.skip"]
    try:
        tvmffi.register_global_func(names[0], lambda x: 2 * x)
        tvmffi.register_global_func(names[1], lambda: None)
        tvmffi.init_ffi_api("tvmffi_test_ns", mod.__name__)
        assert mod.double(21) == 42
        assert not hasattr(mod, "inner") and not hasattr(mod, "skip")
        with pytest.raises(ValueError, match="is not imported"):
            tvmffi.init_ffi_api("tvmffi_test_ns", "no_such_module_imported")
    finally:
        for n in names:
            tvmffi.remove_global_func(n)
        del sys.modules[mod.__name__]

"""use_allocator: kernels that allocate, called with tvmffi.Tensor arguments only."""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any

import pytest

import tvmffi


def _tensor(np: ModuleType) -> tvmffi.Tensor:
    return tvmffi.from_dlpack(np.arange(3, dtype=np.float64))


def test_no_allocator_says_what_to_do(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    with pytest.raises(RuntimeError) as info:
        cpu_kernels.scale_alloc(_tensor(np), 2.0)
    msg = str(info.value)
    assert "no tensor allocator is set" in msg
    assert 'tvmffi.use_allocator("numpy")' in msg
    assert "framework tensor" in msg


def test_framework_name(cpu_kernels: tvmffi.Module, np: ModuleType, torch: ModuleType) -> None:
    with tvmffi.use_allocator("numpy"):
        r = cpu_kernels.scale_alloc(_tensor(np), 2.0)
    assert isinstance(r, tvmffi.Tensor)
    assert np.from_dlpack(r).tolist() == [0.0, 2.0, 4.0]
    with tvmffi.use_allocator("torch"):
        r = cpu_kernels.scale_alloc(_tensor(np), 3.0)
    assert torch.utils.dlpack.from_dlpack(r).tolist() == [0.0, 3.0, 6.0]


def test_callable(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    calls: list[tuple[Any, ...]] = []

    def alloc(shape: tuple[int, ...], dtype: str, device: tvmffi.Device) -> Any:
        calls.append((shape, dtype, device))
        return np.empty(shape, dtype=dtype)

    with tvmffi.use_allocator(alloc):
        r = cpu_kernels.scale_alloc(_tensor(np), 0.5)
        # A framework tensor among the arguments: that framework allocates.
        n = cpu_kernels.scale_alloc(np.ones(2), 2.0)
    assert calls == [((3,), "float64", tvmffi.device("cpu"))]
    assert np.from_dlpack(r).tolist() == [0.0, 0.5, 1.0]
    assert isinstance(n, np.ndarray) and n.tolist() == [2.0, 2.0]


def test_scope_ends_and_nests(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    seen: list[str] = []

    def tagged(tag: str) -> Any:
        def alloc(shape: tuple[int, ...], dtype: str, device: tvmffi.Device) -> Any:
            seen.append(tag)
            return np.empty(shape, dtype=dtype)

        return alloc

    with tvmffi.use_allocator(tagged("outer")):
        cpu_kernels.scale_alloc(_tensor(np), 1.0)
        with tvmffi.use_allocator(tagged("inner")):
            cpu_kernels.scale_alloc(_tensor(np), 1.0)
        cpu_kernels.scale_alloc(_tensor(np), 1.0)
    assert seen == ["outer", "inner", "outer"]
    with pytest.raises(ValueError, match="boom"), tvmffi.use_allocator(tagged("x")):
        raise ValueError("boom")
    with pytest.raises(RuntimeError, match="no tensor allocator is set"):
        cpu_kernels.scale_alloc(_tensor(np), 1.0)


def test_decorator(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    @tvmffi.use_allocator("numpy")
    def run() -> Any:
        return cpu_kernels.scale_alloc(_tensor(np), 1.0)

    assert np.from_dlpack(run()).tolist() == [0.0, 1.0, 2.0]


def test_per_thread(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    errors: list[BaseException] = []

    def other_thread() -> None:
        try:
            cpu_kernels.scale_alloc(_tensor(np), 1.0)
        except RuntimeError as err:
            errors.append(err)

    with tvmffi.use_allocator("numpy"):
        t = threading.Thread(target=other_thread)
        t.start()
        t.join()
        cpu_kernels.scale_alloc(_tensor(np), 1.0)  # this thread's scope still holds
    assert len(errors) == 1 and "no tensor allocator is set" in str(errors[0])


def test_bad_allocations(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    with tvmffi.use_allocator(lambda shape, dtype, device: np.empty((7,), dtype=dtype)):
        with pytest.raises(
            ValueError,
            match=r"allocator returned a tensor of shape \(7,\), "
            r"dtype float64, device type 1 \(id 0\) for a "
            r"request of shape \(3,\), dtype float64",
        ):
            cpu_kernels.scale_alloc(_tensor(np), 1.0)

    def readonly(shape: tuple[int, ...], dtype: str, device: tvmffi.Device) -> Any:
        a = np.empty(shape, dtype=dtype)
        a.flags.writeable = False
        return a

    with tvmffi.use_allocator(readonly):
        with pytest.raises(ValueError, match="allocator returned a read-only tensor"):
            cpu_kernels.scale_alloc(_tensor(np), 1.0)

    def failing(shape: tuple[int, ...], dtype: str, device: tvmffi.Device) -> Any:
        raise MemoryError("out of test memory")

    with tvmffi.use_allocator(failing):
        with pytest.raises(MemoryError, match="out of test memory"):
            cpu_kernels.scale_alloc(_tensor(np), 1.0)


def test_bad_arguments() -> None:
    with pytest.raises(TypeError, match="framework name"):
        with tvmffi.use_allocator(3):  # type: ignore[arg-type]
            pass
    with pytest.raises(ValueError, match="no tensor framework named 'no_such_framework_xyz'"):
        with tvmffi.use_allocator("no_such_framework_xyz"):
            pass


def _tagged(np: ModuleType, seen: list[str], tag: str) -> Any:
    def alloc(shape: tuple[int, ...], dtype: str, device: tvmffi.Device) -> Any:
        seen.append(tag)
        return np.empty(shape, dtype=dtype)

    return alloc


def _who(cpu_kernels: tvmffi.Module, np: ModuleType, seen: list[str]) -> str | None:
    """The tag of the allocator a call gets now (None: no allocator)."""
    try:
        cpu_kernels.scale_alloc(_tensor(np), 1.0)
    except RuntimeError:
        return None
    return seen[-1]


def test_scopes_exited_out_of_order(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    # Issue #43: each scope restored what was before it, so exiting the outer
    # first and the inner last left the outer's allocator set for good.
    seen: list[str] = []
    a = tvmffi.use_allocator(_tagged(np, seen, "a"))
    b = tvmffi.use_allocator(_tagged(np, seen, "b"))
    a.__enter__()
    b.__enter__()
    assert _who(cpu_kernels, np, seen) == "b"
    a.__exit__(None, None, None)
    assert _who(cpu_kernels, np, seen) == "b"  # b is still open
    b.__exit__(None, None, None)
    assert _who(cpu_kernels, np, seen) is None  # nothing leaks


def test_scope_in_a_generator_closed_later(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    # A generator suspended inside a scope, closed (GeneratorExit) while the
    # caller's own scope is open: the caller's scope stays, and nothing leaks.
    seen: list[str] = []

    def gen() -> Any:
        with tvmffi.use_allocator(_tagged(np, seen, "gen")):
            yield 1
            yield 2

    g = gen()
    next(g)
    with tvmffi.use_allocator(_tagged(np, seen, "caller")):
        assert _who(cpu_kernels, np, seen) == "caller"
        g.close()
        assert _who(cpu_kernels, np, seen) == "caller"
    assert _who(cpu_kernels, np, seen) is None


def test_scope_exited_on_another_thread(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    seen: list[str] = []
    scope = tvmffi.use_allocator(_tagged(np, seen, "mine"))
    scope.__enter__()
    results: list[str | None] = []

    def other() -> None:
        with tvmffi.use_allocator(_tagged(np, seen, "theirs")):
            scope.__exit__(None, None, None)  # this thread's scope is untouched
            results.append(_who(cpu_kernels, np, seen))
        results.append(_who(cpu_kernels, np, seen))

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert results == ["theirs", None]
    assert _who(cpu_kernels, np, seen) is None  # the scope it closed is gone here too


def test_scope_restored_when_exit_raises(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    # An exception escaping the block (any kind, KeyboardInterrupt included)
    # restores the allocator before it propagates.
    seen: list[str] = []
    for exc in (ValueError("x"), KeyboardInterrupt(), SystemExit(3)):
        with pytest.raises(type(exc)), tvmffi.use_allocator(_tagged(np, seen, "s")):
            assert _who(cpu_kernels, np, seen) == "s"
            raise exc
        assert _who(cpu_kernels, np, seen) is None

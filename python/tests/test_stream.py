"""tvmffi.stream and the call environment: streams in the table, framework allocation."""

from __future__ import annotations

import ctypes
from types import ModuleType
from typing import Any, Iterator

import pytest

import tvmffi
from tvmffi import _framework


def test_use_raw_stream_sets_and_restores() -> None:
    dev = tvmffi.device("cuda:0")
    before = tvmffi.get_raw_stream(dev)
    with tvmffi.use_raw_stream(dev, 0x1000):
        assert tvmffi.get_raw_stream("cuda:0") == 0x1000
        with tvmffi.use_raw_stream("cuda:0", ctypes.c_void_p(0x2000)):
            assert tvmffi.get_raw_stream(dev) == 0x2000
        assert tvmffi.get_raw_stream(dev) == 0x1000
    assert tvmffi.get_raw_stream(dev) == before


def test_use_raw_stream_either_order() -> None:
    with tvmffi.use_raw_stream(0x3000, "cuda:2"):
        assert tvmffi.get_raw_stream("cuda:2") == 0x3000


def test_use_raw_stream_rejects_stream_objects() -> None:
    with pytest.raises(ValueError, match="use_torch_stream"):
        tvmffi.use_raw_stream("cuda:0", object())


def test_stream_visible_to_kernels() -> None:
    seen = tvmffi.Function(lambda: tvmffi.get_raw_stream("cuda:3"))
    with tvmffi.use_raw_stream("cuda:3", 0xABC):
        assert seen() == 0xABC


class FakeCudaArray:
    """A DLPack producer that says it lives on cuda:0 (its capsule is numpy's)."""

    def __init__(self, np: ModuleType) -> None:
        self.data = np.zeros(2, np.float32)
        self.stream_args: list[Any] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, stream: Any = None, max_version: Any = None, **_: Any) -> Any:
        self.stream_args.append(stream)
        return self.data.__dlpack__()


@pytest.fixture()
def fake_framework() -> Iterator[str]:
    name = FakeCudaArray.__module__.split(".")[0]
    _framework.register_framework(name, stream=lambda dev_type, dev_id: 0x5000 + dev_id)
    yield name
    _framework.STREAMS.pop(name, None)


def test_call_runs_on_framework_stream(np: ModuleType, fake_framework: str) -> None:
    # CUDA framework tensors among the arguments: the framework's current
    # stream is in the table during the call and restored after.
    arr = FakeCudaArray(np)
    seen = tvmffi.Function(lambda t: tvmffi.get_raw_stream("cuda:0"))
    before = tvmffi.get_raw_stream("cuda:0")
    assert seen(arr) == 0x5000
    assert tvmffi.get_raw_stream("cuda:0") == before
    assert arr.stream_args == [0x5000]  # the producer was told the consumer's stream


def test_framework_allocator_failure_is_reported(
    cpu_kernels: tvmffi.Module, np: ModuleType
) -> None:
    def refuse(shape: tuple, dtype: str, device_type: int, device_id: int) -> Any:
        raise MemoryError("out of fake memory")

    saved = _framework.ALLOCATORS["numpy"]
    _framework.ALLOCATORS["numpy"] = refuse
    try:
        with pytest.raises(MemoryError, match="out of fake memory"):
            cpu_kernels.scale_alloc(np.ones(2, np.float32), 2.0)
    finally:
        _framework.ALLOCATORS["numpy"] = saved
    assert type(cpu_kernels.scale_alloc(np.ones(2, np.float32), 2.0)) is np.ndarray


def test_use_torch_stream_needs_cuda(cuda_torch: ModuleType) -> None:
    s = cuda_torch.cuda.Stream()
    with tvmffi.use_torch_stream(cuda_torch.cuda.stream(s)):
        assert tvmffi.get_raw_stream("cuda:0") == s.cuda_stream

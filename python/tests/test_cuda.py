"""CUDA: the project's CUDA kernels with torch and cupy tensors, streams, allocation, graphs.

Every test here needs a GPU (torch.cuda.is_available()) and skips with the
reason otherwise; test_cupy_* also need cupy.
"""

from __future__ import annotations

from types import ModuleType

import pytest

import tvmffi

# GPU cycles torch.cuda._sleep spins for: about a second on an H100/H200.
SLEEP_CYCLES = 2_000_000_000


def test_torch_kernels(cuda_kernels: tvmffi.Module, cuda_torch: ModuleType) -> None:
    torch = cuda_torch
    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    y = torch.ones(1000, dtype=torch.float32, device="cuda")
    out = torch.empty_like(x)
    cuda_kernels.scale(out, x, 2.0)
    torch.testing.assert_close(out, x * 2)
    cuda_kernels.add(out, x, y)
    torch.testing.assert_close(out, x + y)
    cuda_kernels.axpy(out, x, y, 3.0)
    torch.testing.assert_close(out, 3 * x + y)
    cuda_kernels.add_one(out, x)
    torch.testing.assert_close(out, x + 1)
    half = x.half()
    out_h = torch.empty_like(half)
    cuda_kernels.scale(out_h, half, 0.5)
    torch.testing.assert_close(out_h, half * 0.5)


def test_cupy_kernels(cuda_kernels: tvmffi.Module, cupy: ModuleType) -> None:
    x = cupy.arange(1000, dtype=cupy.float32)
    out = cupy.empty_like(x)
    cuda_kernels.scale(out, x, 2.0)
    cupy.testing.assert_allclose(out, x * 2)
    y = cupy.ones(1000, dtype=cupy.float32)
    cuda_kernels.add(out, x, y)
    cupy.testing.assert_allclose(out, x + 1)


def test_cupy_stream(cuda_kernels: tvmffi.Module, cupy: ModuleType) -> None:
    x = cupy.arange(256, dtype=cupy.float32)
    out = cupy.zeros_like(x)
    seen = tvmffi.Function(lambda t: tvmffi.get_raw_stream("cuda:0"))
    with cupy.cuda.Stream(non_blocking=True) as s:
        assert seen(x) == s.ptr
        cuda_kernels.scale(out, x, 4.0)
        s.synchronize()
    cupy.testing.assert_allclose(out, x * 4)


def test_cupy_alloc_returns_cupy(cuda_kernels: tvmffi.Module, cupy: ModuleType) -> None:
    x = cupy.arange(8, dtype=cupy.float32)
    y = cuda_kernels.scale_alloc(x, 2.0)
    assert isinstance(y, cupy.ndarray)
    cupy.testing.assert_allclose(y, x * 2)


def test_non_default_stream_is_used(cuda_kernels: tvmffi.Module, cuda_torch: ModuleType) -> None:
    torch = cuda_torch
    x = torch.full((1 << 20,), 3.0, device="cuda")
    out = torch.zeros_like(x)
    # Load this size's kernel before the sleep: with CUDA's lazy loading, the
    # first launch of a kernel may wait for work already queued on the device.
    cuda_kernels.scale(out, x, 1.0)
    out.zero_()
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    before = tvmffi.get_raw_stream("cuda:0")
    with torch.cuda.stream(s):
        torch.cuda._sleep(SLEEP_CYCLES)  # block s
        cuda_kernels.scale(out, x, 2.0)  # queued behind the sleep, on s
        done = torch.cuda.Event()
        done.record(s)
    assert tvmffi.get_raw_stream("cuda:0") == before  # the table is restored after the call
    # Read `out` on the default stream, which does not wait for s: still zeros.
    assert not done.query()
    assert torch.cuda.default_stream().query()
    early = out.cpu()
    assert not done.query(), "the sleep ended too early for the check to mean anything"
    assert torch.count_nonzero(early).item() == 0
    s.synchronize()
    torch.testing.assert_close(out, x * 2)


def test_use_torch_stream(cuda_torch: ModuleType) -> None:
    torch = cuda_torch
    s = torch.cuda.Stream()
    with tvmffi.use_torch_stream(torch.cuda.stream(s)):
        assert tvmffi.get_raw_stream("cuda:0") == s.cuda_stream
    with tvmffi.use_raw_stream("cuda:0", s.cuda_stream):
        assert tvmffi.get_raw_stream(torch.device("cuda:0")) == s.cuda_stream


def test_from_env_alloc_returns_torch(cuda_kernels: tvmffi.Module, cuda_torch: ModuleType) -> None:
    torch = cuda_torch
    x = torch.arange(16, dtype=torch.float32, device="cuda").reshape(4, 4)
    y = cuda_kernels.scale_alloc(x, 1.5)
    assert isinstance(y, torch.Tensor)
    assert y.device == x.device
    assert y.shape == x.shape and y.dtype == x.dtype
    torch.testing.assert_close(y, x * 1.5)


def test_cuda_graph_capture(cuda_kernels: tvmffi.Module, cuda_torch: ModuleType) -> None:
    torch = cuda_torch
    x = torch.ones(4096, device="cuda")
    out = torch.zeros_like(x)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        cuda_kernels.scale(out, x, 2.0)  # warm-up outside the capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        cuda_kernels.scale(out, x, 3.0)  # must go to the capture stream
    x.fill_(5.0)
    out.zero_()
    g.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.full_like(x, 15.0))


def test_cpu_kernel_refuses_cuda_tensor(cpu_kernels: tvmffi.Module, cuda_torch: ModuleType) -> None:
    x = cuda_torch.zeros(4, device="cuda")
    with pytest.raises(ValueError, match="must be a CPU tensor"):
        cpu_kernels.add_one(x, x)


def test_cuda_kernel_refuses_cpu_tensor(
    cuda_kernels: tvmffi.Module, cuda_torch: ModuleType
) -> None:
    x = cuda_torch.zeros(4)
    with pytest.raises(ValueError, match="CUDA"):
        cuda_kernels.scale(x, x, 2.0)


def test_nop3_cuda(cpu_kernels: tvmffi.Module, cuda_torch: ModuleType) -> None:
    x = cuda_torch.zeros(1, device="cuda")
    assert cpu_kernels.nop3(x, x, x) is None  # nop3 looks at nothing: any device passes

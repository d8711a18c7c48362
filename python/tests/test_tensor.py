"""Tensors: tvmffi.Tensor, from_dlpack, kernels called with numpy and torch tensors."""

from __future__ import annotations

import ctypes
from types import ModuleType
from typing import Any

import pytest

import tvmffi


def test_from_dlpack_numpy_shares_memory(np: ModuleType) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tvmffi.from_dlpack(x)
    assert isinstance(t, tvmffi.Tensor)
    assert t.shape == (2, 3)
    assert isinstance(t.shape, tvmffi.Shape)
    assert t.strides == (3, 1)
    assert t.dtype == "float32"
    assert isinstance(t.dtype, tvmffi.dtype)
    assert t.device == tvmffi.device("cpu")
    assert t.ndim == 2
    assert t.__dlpack_device__() == (1, 0)
    assert t.data_ptr() == x.ctypes.data
    back = np.from_dlpack(t)
    x[1, 2] = 42
    assert back[1, 2] == 42  # no copy either way


def test_from_dlpack_torch_shares_memory(torch: ModuleType) -> None:
    x = torch.zeros(4, dtype=torch.float64)
    t = tvmffi.from_dlpack(x)
    assert t.dtype == "float64"
    assert t.data_ptr() == x.data_ptr()
    y = torch.utils.dlpack.from_dlpack(t)
    x[0] = 7
    assert y[0].item() == 7


def test_strided_view(np: ModuleType) -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    t = tvmffi.from_dlpack(x)
    assert t.shape == (3, 2)
    assert t.strides == (4, 2)
    assert t.dtype == "int32"


@pytest.mark.parametrize(
    "dtype",
    ["bool", "int8", "uint8", "int16", "int32", "int64", "uint64", "float16", "float32", "float64"],
)
def test_numpy_dtypes(np: ModuleType, dtype: str) -> None:
    t = tvmffi.from_dlpack(np.zeros(3, dtype=dtype))
    assert t.dtype == dtype


def test_versioned_and_legacy_capsules(np: ModuleType) -> None:
    t = tvmffi.from_dlpack(np.ones(2, dtype=np.float32))
    legacy = t.__dlpack__()
    versioned = t.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(legacy) and "versioned" not in repr(legacy)
    assert "dltensor_versioned" in repr(versioned)
    # copy=True: a copy made on the host (test_hostile_python checks it is one).
    assert "dltensor_versioned" in repr(t.__dlpack__(max_version=(1, 0), copy=True))
    with pytest.raises(BufferError, match="device"):
        t.__dlpack__(dl_device=(2, 0))


def test_from_dlpack_rejects_non_tensor() -> None:
    with pytest.raises(TypeError, match="not a DLPack tensor"):
        tvmffi.from_dlpack(object())


def test_kernel_writes_numpy_in_place(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.arange(5, dtype=np.float64)
    y = np.zeros(5, dtype=np.float64)
    assert cpu_kernels.add_one(x, y) is None
    np.testing.assert_array_equal(y, x + 1)
    out = np.empty(5, dtype=np.float32)
    cpu_kernels.scale(out, x.astype(np.float32), 2.5)
    np.testing.assert_allclose(out, x * 2.5)


def test_kernel_writes_torch_in_place(cpu_kernels: tvmffi.Module, torch: ModuleType) -> None:
    x = torch.arange(5, dtype=torch.float32)
    y = torch.zeros(5)
    cpu_kernels.add_one(x, y)
    assert torch.equal(y, x + 1)
    out = torch.zeros(5)
    cpu_kernels.add(out, x, y)
    assert torch.equal(out, 2 * x + 1)
    cpu_kernels.add(out, x, None)  # Optional argument
    assert torch.equal(out, x)


def test_sum_of_views(cpu_kernels: tvmffi.Module, np: ModuleType, torch: ModuleType) -> None:
    assert cpu_kernels.sum(np.array([1.0, 2.0, 3.5])) == 6.5
    assert cpu_kernels.sum(torch.tensor([1.0, 2.0])) == 3.0
    assert cpu_kernels.sum(tvmffi.from_dlpack(np.ones(4))) == 4.0


def test_alloc_numpy_in_numpy_out(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.arange(4, dtype=np.float32)
    y = cpu_kernels.scale_alloc(x, 3.0)
    assert type(y) is np.ndarray
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y, x * 3)
    assert y.flags.writeable and y.flags.owndata  # the array numpy allocated, not a view
    y[0] = 1  # an ordinary array


def test_alloc_torch_in_torch_out(cpu_kernels: tvmffi.Module, torch: ModuleType) -> None:
    x = torch.arange(6, dtype=torch.float64).reshape(2, 3)
    y = cpu_kernels.scale_alloc(x, 0.5)
    assert isinstance(y, torch.Tensor)
    assert y.dtype == torch.float64
    assert y.shape == (2, 3)
    assert torch.equal(y, x * 0.5)


def test_alloc_tvmffi_tensor_in_tensor_out(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = tvmffi.from_dlpack(np.ones(3, dtype=np.float32))
    with pytest.raises(RuntimeError, match="allocator"):
        # no framework among the arguments: nobody to allocate with
        cpu_kernels.scale_alloc(x, 2.0)


def test_returned_tensor_without_framework(np: ModuleType) -> None:
    t = tvmffi.from_dlpack(np.arange(3, dtype=np.int64))
    out = tvmffi.Function(lambda x: x)(t)
    assert isinstance(out, tvmffi.Tensor)
    assert out.same_as(t)


def test_returned_tensor_follows_argument_framework(np: ModuleType, torch: ModuleType) -> None:
    keep = tvmffi.from_dlpack(np.arange(3, dtype=np.float32))
    give = tvmffi.Function(lambda _: keep)
    assert type(give(np.zeros(1))) is np.ndarray
    assert isinstance(give(torch.zeros(1)), torch.Tensor)


def test_callback_gets_owning_copy_of_lent_tensor(np: ModuleType) -> None:
    seen: dict[str, Any] = {}

    def look(t: tvmffi.Tensor) -> None:
        seen["shape"] = t.shape
        seen["dtype"] = t.dtype
        seen["own"] = t.data_ptr() != x.ctypes.data
        seen["first"] = float(np.from_dlpack(t)[0])
        ctypes.c_float.from_address(t.data_ptr() + 4).value = 7.0  # a write during the callback

    x = np.array([5.0, 6.0], dtype=np.float32)
    tvmffi.Function(look)(x)
    # The callback got a tensor owning a copy of the lent DLTensor* (it may keep
    # it); what it wrote during the call was written back to the caller's memory.
    assert seen == {"shape": (2,), "dtype": "float32", "own": True, "first": 5.0}
    assert x.tolist() == [5.0, 7.0]


@pytest.mark.parametrize(
    "dtype",
    [
        "bool",
        "int8",
        "uint8",
        "int16",
        "uint16",
        "int32",
        "uint32",
        "int64",
        "uint64",
        "longlong",
        "ulonglong",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    ],
)
@pytest.mark.parametrize("layout", ["0-d", "1-d", "2-d", "transposed", "every other", "7-d"])
def test_lent_numpy_argument_as_numpy_describes_it(np: ModuleType, dtype: str, layout: str) -> None:
    # A numpy argument reaches the function as a DLTensor* lent for the call
    # (read from the array's own fields); the callback's copy shows what it saw.
    base = np.zeros(24, dtype=dtype)
    x = {
        "0-d": base[0, ...],
        "1-d": base,
        "2-d": base.reshape(4, 6),
        "transposed": base.reshape(4, 6).T,
        "every other": base.reshape(4, 6)[:, ::2],
        "7-d": base[:16].reshape(2, 2, 2, 2, 1, 1, 1),
    }[layout]
    seen: dict[str, Any] = {}

    def look(t: tvmffi.Tensor) -> None:
        seen.update(dtype=t.dtype, shape=t.shape, strides=t.strides)

    tvmffi.Function(look)(x)
    item = x.dtype.itemsize
    assert seen == {
        "dtype": str(np.dtype(dtype)),
        "shape": x.shape,
        "strides": tuple(s // item for s in x.strides),
    }


def test_lent_numpy_argument_unusual_arrays(np: ModuleType) -> None:
    # Read-only, byte-swapped, a subclass, an odd stride: each still arrives
    # as numpy describes it or is refused with a clear error, never misread.
    seen: list[Any] = []

    def look(t: tvmffi.Tensor) -> None:
        seen.append((t.dtype, t.shape, t.strides))

    f = tvmffi.Function(look)
    ro = np.arange(4, dtype=np.int16)
    ro.setflags(write=False)
    f(ro)
    f(np.arange(6, dtype=np.float32).view(np.matrix))
    assert seen == [("int16", (4,), (1,)), ("float32", (1, 6), (6, 1))]
    with pytest.raises((TypeError, ValueError, BufferError)):
        f(np.zeros(2, dtype=">f4"))  # numpy exports no non-native byte order
    f(np.zeros(9, dtype=np.uint8)[1:].view("<i2"))  # an unaligned address
    assert seen[-1] == ("int16", (4,), (1,))
    with pytest.raises((TypeError, ValueError, BufferError)):  # a stride of 1.5 elements
        f(np.lib.stride_tricks.as_strided(np.zeros(8, np.int16), shape=(3,), strides=(3,)))
    assert len(seen) == 3


def test_dtype_mismatch_is_type_error(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    with pytest.raises(TypeError, match="same dtype"):
        cpu_kernels.add_one(np.zeros(2, np.float32), np.zeros(2, np.float64))


def test_shape_mismatch_is_value_error(cpu_kernels: tvmffi.Module, torch: ModuleType) -> None:
    with pytest.raises(ValueError, match="same shape"):
        cpu_kernels.add_one(torch.zeros(2), torch.zeros(3))


def test_unsupported_dtype(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    with pytest.raises(TypeError, match="unsupported dtype int32"):
        cpu_kernels.sum(np.zeros(2, np.int32))


def test_tensor_where_scalar_expected(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    with pytest.raises(TypeError, match="add_int"):
        cpu_kernels.add_int(np.zeros(1), 1)


def test_non_contiguous_rejected(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.zeros((4, 4), np.float32)[:, ::2]
    with pytest.raises(ValueError, match="contiguous"):
        cpu_kernels.add_one(x, np.zeros((4, 2), np.float32))


def test_byteswapped_numpy_goes_through_dlpack(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.zeros(2, dtype=">f4")
    with pytest.raises(Exception):
        cpu_kernels.sum(x)  # numpy cannot export non-native byte order: a clear error, no crash


def test_read_only_numpy(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.arange(3, dtype=np.float64)
    x.setflags(write=False)
    assert cpu_kernels.sum(x) == 3.0


def test_many_arguments(np: ModuleType) -> None:
    arrays = [np.full(1, i, dtype=np.float32) for i in range(12)]
    total = tvmffi.Function(lambda *ts: sum(float(np.from_dlpack(t)[0]) for t in ts))
    assert total(*arrays) == sum(range(12))


def test_tensor_repr(np: ModuleType) -> None:
    r = repr(tvmffi.from_dlpack(np.zeros((2, 3), np.float16)))
    assert "shape=(2, 3)" in r and "float16" in r and "cpu:0" in r


def test_torch_exchange_api_in_use(torch: ModuleType) -> None:
    from tvmffi import _framework

    has_native = hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
    provided = _framework.exchange_api("torch")
    try:  # not the extension itself: built for another torch, loading it may abort
        from tvmffi._torch_exchange_for import TORCH_VERSION

        built_for_this_torch = TORCH_VERSION == torch.__version__
    except ImportError:
        built_for_this_torch = False
    # a torch without the API gets tvmffi's, when tvmffi was built for this torch
    assert (provided is not None) == (built_for_this_torch and not has_native)
    assert _framework.exchange_api("numpy") is None


def test_torch_through_dlpack_capsules(cpu_kernels_path: Any, torch: ModuleType) -> None:
    # The path for a torch with no exchange API at all: torch's DLPack capsules.
    import os
    import subprocess
    import sys

    code = (
        "import torch, tvmffi\n"
        f"m = tvmffi.load_module({str(cpu_kernels_path)!r})\n"
        "x = torch.arange(4, dtype=torch.float32); y = torch.zeros(4)\n"
        "m.add_one(x, y); assert torch.equal(y, x + 1)\n"
        "z = m.scale_alloc(x, 2.0); assert isinstance(z, torch.Tensor) and torch.equal(z, 2 * x)\n"
        "assert m.nop3(x, y, z) is None\n"
        "print('ok')\n"
    )
    env = dict(os.environ, TVMFFI_NO_TORCH_EXCHANGE="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


def test_numel_size_and_is_contiguous(np: ModuleType) -> None:
    t = tvmffi.from_dlpack(np.zeros((10, 8, 4, 2), np.int16))
    assert t.numel() == 640 and t.size(0) == 10 and t.size(-1) == 2
    assert t.is_contiguous()
    view = tvmffi.from_dlpack(np.zeros((4, 8, 2), np.float32)[::2])
    assert view.numel() == 32 and not view.is_contiguous()
    assert tvmffi.from_dlpack(np.zeros((4, 0, 4), np.float32)).is_contiguous()
    with pytest.raises(IndexError, match="out of range"):
        t.size(4)

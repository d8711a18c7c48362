"""Read-only memory is never written and never crashes the interpreter; it stays usable as input.

A function gets a private copy of a read-only CPU tensor; after the call a
change to the copy is a ValueError naming the argument, and the original is
left unchanged.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import tvmffi


def _readonly(np: ModuleType, values: list[float]) -> Any:
    a = np.array(values, dtype=np.float32)
    a.flags.writeable = False
    return a


class _Producer:
    """A generic DLPack producer (no buffer protocol, no exchange API): versioned capsules."""

    def __init__(self, tensor: tvmffi.Tensor) -> None:
        self.tensor = tensor

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.tensor.__dlpack_device__()


def test_writeable_false_as_output(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    out = _readonly(np, [7, 7, 7])
    x = np.zeros(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"argument #1 is read-only.*original is unchanged"):
        cpu_kernels.add_one(x, out)
    assert out.tolist() == [7, 7, 7]


def test_unchanged_bytes_are_not_a_write(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    # The check compares bytes: a function that stores what was there changed nothing.
    out = _readonly(np, [1, 1])
    cpu_kernels.add_one(np.zeros(2, dtype=np.float32), out)
    assert out.tolist() == [1, 1]


def test_readonly_inputs_work(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = _readonly(np, [1, 2, 3])
    y = np.zeros(3, dtype=np.float32)
    assert cpu_kernels.add_one(x, y) is None
    assert y.tolist() == [2, 3, 4]
    assert cpu_kernels.sum(x) == 6.0
    cpu_kernels.add_bias(x, x, y)  # read-only through an owning Optional[ffi.Tensor] too
    assert y.tolist() == [2, 4, 6]
    assert cpu_kernels.sum_all([x, x]) == 12.0  # and inside a list
    assert x.tolist() == [1, 2, 3]


def test_frombuffer_over_bytes(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    data = bytes(np.arange(4, dtype=np.float32).data)
    ro = np.frombuffer(data, dtype=np.float32)
    assert not ro.flags.writeable
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        cpu_kernels.add_one(np.zeros(4, dtype=np.float32), ro)
    assert ro.tolist() == [0, 1, 2, 3]
    y = np.zeros(4, dtype=np.float32)
    cpu_kernels.add_one(ro, y)
    assert y.tolist() == [1, 2, 3, 4]


def _memmap_file(np: ModuleType, tmp_path: Path) -> Path:
    path = tmp_path / "weights.f32"
    np.arange(8, dtype=np.float32).tofile(path)
    return path


def test_memmap_mode_r(cpu_kernels: tvmffi.Module, np: ModuleType, tmp_path: Path) -> None:
    path = _memmap_file(np, tmp_path)
    mm = np.memmap(path, dtype=np.float32, mode="r")
    y = np.zeros(8, dtype=np.float32)
    cpu_kernels.add_one(mm, y)
    assert y.tolist() == [float(i + 1) for i in range(8)]
    # Writing a PROT_READ mapping would kill the process (SIGSEGV).
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        cpu_kernels.add_one(y, mm)
    with pytest.raises(ValueError, match="argument #0 is read-only"):
        cpu_kernels.fill(mm, 0.0)
    del mm
    assert np.fromfile(path, dtype=np.float32).tolist() == [float(i) for i in range(8)]


def test_memmap_mode_r_in_a_subprocess(cpu_kernels_path: Path, np: ModuleType,
                                       tmp_path: Path) -> None:
    # The same in a fresh interpreter: a crash fails this test instead of killing pytest.
    path = _memmap_file(np, tmp_path)
    code = (
        "import numpy as np, tvmffi\n"
        f"m = tvmffi.load_module({str(cpu_kernels_path)!r})\n"
        f"mm = np.memmap({str(path)!r}, dtype=np.float32, mode='r')\n"
        "y = np.zeros(8, dtype=np.float32)\n"
        "for f, args in ((m.add_one, (y, mm)), (m.fill, (mm, 0.0)), (m.fill_all, ([mm], 0.0))):\n"
        "    try:\n"
        "        f(*args)\n"
        "    except ValueError as e:\n"
        "        assert 'read-only' in str(e), e\n"
        "    else:\n"
        "        raise AssertionError('no ValueError')\n"
        "m.add_one(mm, y)\n"
        "assert y.tolist() == [float(i + 1) for i in range(8)]\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env=dict(os.environ))
    assert out.returncode == 0, f"rc={out.returncode}\n{out.stderr}"
    assert out.stdout.strip() == "ok"
    assert np.fromfile(path, dtype=np.float32).tolist() == [float(i) for i in range(8)]


def test_owning_parameter(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    ro = _readonly(np, [5, 5])
    with pytest.raises(ValueError, match="argument #0 is read-only"):
        cpu_kernels.fill(ro, 1.0)
    assert ro.tolist() == [5, 5]
    out = np.zeros(2, dtype=np.float32)
    with pytest.raises(ValueError, match="argument #2 is read-only"):
        cpu_kernels.add_bias(out, None, ro)
    assert ro.tolist() == [5, 5]


def test_inside_a_list(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    ro = _readonly(np, [3, 3])
    w = np.zeros(2, dtype=np.float32)
    with pytest.raises(ValueError, match=r"argument #0 \(a tensor inside it\) is read-only"):
        cpu_kernels.fill_all([w, ro], 9.0)
    assert ro.tolist() == [3, 3]
    assert w.tolist() == [9, 9]  # writable memory is written as usual


def test_versioned_capsule_with_readonly_flag(cpu_kernels: tvmffi.Module,
                                              np: ModuleType) -> None:
    ro = _readonly(np, [6, 6])
    producer = _Producer(tvmffi.from_dlpack(ro))  # the read-only flag travels in the capsule
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        cpu_kernels.add_one(np.zeros(2, dtype=np.float32), producer)
    with pytest.raises(ValueError, match="argument #0 is read-only"):
        cpu_kernels.fill(producer, 0.0)
    assert ro.tolist() == [6, 6]
    y = np.zeros(2, dtype=np.float32)
    cpu_kernels.add_one(producer, y)
    assert y.tolist() == [7, 7]


def test_readonly_tvmffi_tensor(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    ro = _readonly(np, [4, 4])
    t = tvmffi.from_dlpack(ro)  # no copy: the tensor keeps the read-only flag
    assert t.data_ptr == ro.ctypes.data
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        cpu_kernels.add_one(np.zeros(2, dtype=np.float32), t)
    with pytest.raises(ValueError, match=r"argument #0 \(a tensor inside it\) is read-only"):
        cpu_kernels.fill_all([t], 0.0)
    y = np.zeros(2, dtype=np.float32)
    cpu_kernels.add_one(t, y)
    assert y.tolist() == [5, 5]
    assert ro.tolist() == [4, 4]


def test_convert_makes_a_snapshot(np: ModuleType) -> None:
    # Outside a call there is nothing to compare after: an FFI value built from
    # read-only memory holds a copy (from_dlpack alone keeps the memory).
    ro = _readonly(np, [1, 2])
    converted = tvmffi.convert([ro])
    assert converted[0].data_ptr != ro.ctypes.data
    assert np.from_dlpack(converted[0]).tolist() == [1, 2]


def test_noncontiguous_and_empty(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    base = np.arange(8, dtype=np.float32)
    base.flags.writeable = False
    strided = base[::-2]  # negative strides: the copy spans base[1:8]
    assert not strided.flags.writeable
    assert tvmffi.convert(strided).strides == (-2,)
    assert np.from_dlpack(tvmffi.convert(strided)).tolist() == [7, 5, 3, 1]
    empty = base[:0]
    assert cpu_kernels.sum(empty) == 0.0

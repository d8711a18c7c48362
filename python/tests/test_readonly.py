"""Read-only memory is never written and never crashes the interpreter; it stays usable as input.

A function whose library does not declare what it writes gets a private copy
of a read-only CPU tensor; after the call a change to the copy is a
ValueError naming the argument, and the original is left unchanged. A
function that declares its writes (TVM_FFI_DLL_EXPORT_WRITES, as the CPU
kernels do) gets read-only memory as is where it does not write, and a
ValueError before the call where it does.
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


class _Undeclared:
    """The CPU kernels as a library without writes declarations gives them."""

    def __init__(self, mod: tvmffi.Module) -> None:
        self._mod = mod

    def __getattr__(self, name: str) -> tvmffi.Function:
        f = self._mod[name]  # a Function object of its own: its own call-path state
        tvmffi._core._set_writes(f, None)
        return f


@pytest.fixture
def undeclared(cpu_kernels: tvmffi.Module) -> Any:
    return _Undeclared(cpu_kernels)


class _Producer:
    """A generic DLPack producer (no buffer protocol, no exchange API): versioned capsules.

    It shares read-only memory flagged read-only (as numpy >= 2 does), where
    tvmffi.Tensor.__dlpack__ itself exports read-only memory only as a copy.
    """

    def __init__(self, tensor: tvmffi.Tensor) -> None:
        self.tensor = tensor

    def __dlpack__(self, *, max_version: Any = None, copy: Any = None, **kwargs: Any) -> Any:
        if copy or max_version is None or max_version[0] < 1:
            return self.tensor.__dlpack__(max_version=max_version, copy=copy, **kwargs)
        return tvmffi._core._dlpack_keeping_read_only(self.tensor, versioned=True)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.tensor.__dlpack_device__()


def test_writeable_false_as_output(undeclared: Any, np: ModuleType) -> None:
    out = _readonly(np, [7, 7, 7])
    x = np.zeros(3, dtype=np.float32)
    with pytest.raises(ValueError, match=r"argument #1 is read-only.*original is unchanged"):
        undeclared.add_one(x, out)
    assert out.tolist() == [7, 7, 7]


def test_unchanged_bytes_are_not_a_write(undeclared: Any, np: ModuleType) -> None:
    # The check compares bytes: a function that stores what was there changed nothing.
    out = _readonly(np, [1, 1])
    undeclared.add_one(np.zeros(2, dtype=np.float32), out)
    assert out.tolist() == [1, 1]


def test_readonly_inputs_work(undeclared: Any, np: ModuleType) -> None:
    x = _readonly(np, [1, 2, 3])
    y = np.zeros(3, dtype=np.float32)
    assert undeclared.add_one(x, y) is None
    assert y.tolist() == [2, 3, 4]
    assert undeclared.sum(x) == 6.0
    undeclared.add_bias(x, x, y)  # read-only through an owning Optional<ffi.Tensor> too
    assert y.tolist() == [2, 4, 6]
    assert undeclared.sum_all([x, x]) == 12.0  # and inside a list
    assert x.tolist() == [1, 2, 3]


def test_frombuffer_over_bytes(undeclared: Any, np: ModuleType) -> None:
    data = bytes(np.arange(4, dtype=np.float32).data)
    ro = np.frombuffer(data, dtype=np.float32)
    assert not ro.flags.writeable
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        undeclared.add_one(np.zeros(4, dtype=np.float32), ro)
    assert ro.tolist() == [0, 1, 2, 3]
    y = np.zeros(4, dtype=np.float32)
    undeclared.add_one(ro, y)
    assert y.tolist() == [1, 2, 3, 4]


def _memmap_file(np: ModuleType, tmp_path: Path) -> Path:
    path = tmp_path / "weights.f32"
    np.arange(8, dtype=np.float32).tofile(path)
    return path


def test_memmap_mode_r(undeclared: Any, np: ModuleType, tmp_path: Path) -> None:
    path = _memmap_file(np, tmp_path)
    mm = np.memmap(path, dtype=np.float32, mode="r")
    y = np.zeros(8, dtype=np.float32)
    undeclared.add_one(mm, y)
    assert y.tolist() == [float(i + 1) for i in range(8)]
    # Writing a PROT_READ mapping would kill the process (SIGSEGV).
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        undeclared.add_one(y, mm)
    with pytest.raises(ValueError, match="argument #0 is read-only"):
        undeclared.fill(mm, 0.0)
    del mm
    assert np.fromfile(path, dtype=np.float32).tolist() == [float(i) for i in range(8)]


def test_memmap_mode_r_in_a_subprocess(
    cpu_kernels_path: Path, np: ModuleType, tmp_path: Path
) -> None:
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
        "print('ok')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ),
    )
    assert out.returncode == 0, f"rc={out.returncode}\n{out.stderr}"
    assert out.stdout.strip() == "ok"
    assert np.fromfile(path, dtype=np.float32).tolist() == [float(i) for i in range(8)]


def test_owning_parameter(undeclared: Any, np: ModuleType) -> None:
    ro = _readonly(np, [5, 5])
    with pytest.raises(ValueError, match="argument #0 is read-only"):
        undeclared.fill(ro, 1.0)
    assert ro.tolist() == [5, 5]
    out = np.zeros(2, dtype=np.float32)
    with pytest.raises(ValueError, match="argument #2 is read-only"):
        undeclared.add_bias(out, None, ro)
    assert ro.tolist() == [5, 5]


def test_inside_a_list(undeclared: Any, np: ModuleType) -> None:
    ro = _readonly(np, [3, 3])
    w = np.zeros(2, dtype=np.float32)
    with pytest.raises(ValueError, match=r"argument #0 \(a tensor inside it\) is read-only"):
        undeclared.fill_all([w, ro], 9.0)
    assert ro.tolist() == [3, 3]
    assert w.tolist() == [9, 9]  # writable memory is written as usual


def test_versioned_capsule_with_readonly_flag(undeclared: Any, np: ModuleType) -> None:
    ro = _readonly(np, [6, 6])
    producer = _Producer(tvmffi.from_dlpack(ro))  # the read-only flag travels in the capsule
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        undeclared.add_one(np.zeros(2, dtype=np.float32), producer)
    with pytest.raises(ValueError, match="argument #0 is read-only"):
        undeclared.fill(producer, 0.0)
    assert ro.tolist() == [6, 6]
    y = np.zeros(2, dtype=np.float32)
    undeclared.add_one(producer, y)
    assert y.tolist() == [7, 7]


def test_readonly_tvmffi_tensor(undeclared: Any, np: ModuleType) -> None:
    ro = _readonly(np, [4, 4])
    t = tvmffi.from_dlpack(ro)  # no copy: the tensor keeps the read-only flag
    assert t.data_ptr() == ro.ctypes.data
    with pytest.raises(ValueError, match="argument #1 is read-only"):
        undeclared.add_one(np.zeros(2, dtype=np.float32), t)
    with pytest.raises(ValueError, match=r"argument #0 \(a tensor inside it\) is read-only"):
        undeclared.fill_all([t], 0.0)
    y = np.zeros(2, dtype=np.float32)
    undeclared.add_one(t, y)
    assert y.tolist() == [5, 5]
    assert ro.tolist() == [4, 4]


def test_convert_makes_a_snapshot(np: ModuleType) -> None:
    # Outside a call there is nothing to compare after: an FFI value built from
    # read-only memory holds a copy (from_dlpack alone keeps the memory).
    ro = _readonly(np, [1, 2])
    converted = tvmffi.convert([ro])
    assert converted[0].data_ptr() != ro.ctypes.data
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


# ---------------------------------------------------------------------------
# Functions that declare what they write (TVM_FFI_DLL_EXPORT_WRITES)
# ---------------------------------------------------------------------------

_PROBE_SRC = r"""
#include <atomic>
namespace ffi = tvm::ffi;
namespace {
std::atomic<int64_t> g_calls{0};

// out[:] = x (float32, same size); returns the address the function saw x's data at.
int64_t CopyInto(ffi::TensorView x, ffi::TensorView out) {
  ++g_calls;
  const float* in = static_cast<const float*>(x.data_ptr());
  float* o = static_cast<float*>(out.data_ptr());
  for (int64_t i = 0; i < x.numel(); ++i) o[i] = in[i];
  return static_cast<int64_t>(reinterpret_cast<intptr_t>(x.data_ptr()));
}

ffi::Tensor Identity(ffi::Tensor x) { return x; }

// Whether the tensor the function got carries DLPack's read-only flag.
bool ReadOnlyFlag(ffi::Tensor x) {
  DLManagedTensorVersioned* m = x.ToDLPackVersioned();
  const bool ro = (m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
  m->deleter(m);
  return ro;
}

int64_t Calls() { return g_calls.load(); }
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(copy_into, CopyInto);
TVM_FFI_DLL_EXPORT_WRITES(copy_into, 1);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(identity, Identity);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(identity);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(read_only_flag, ReadOnlyFlag);
TVM_FFI_DLL_EXPORT_WRITES_NOTHING(read_only_flag);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(copy_into_undeclared, CopyInto);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(calls, Calls);
"""


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> tvmffi.Module:
    import shutil

    import tvmffi.cpp

    if shutil.which("c++") is None:
        pytest.skip("needs a C++ compiler")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TVM_FFI_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
        return tvmffi.cpp.load_inline("readonly_probe", cpp_sources=_PROBE_SRC)


def test_declarations_are_read(cpu_kernels: tvmffi.Module, probe: tvmffi.Module) -> None:
    assert cpu_kernels.get_function_writes("scale") == (0,)
    assert cpu_kernels.get_function_writes("add_one") == (1,)
    assert cpu_kernels.get_function_writes("sum") == ()  # declared: writes nothing
    assert probe.get_function_writes("copy_into") == (1,)
    assert probe.get_function_writes("copy_into_undeclared") is None
    w, keep = tvmffi._core._writes_masks(probe.copy_into)
    assert w == 0b10 and keep & 0b11 == 0b01
    assert tvmffi._core._writes_masks(probe.copy_into_undeclared) == (0, 0)


def test_declared_input_is_lent_in_place(
    probe: tvmffi.Module, np: ModuleType, tmp_path: Path
) -> None:
    x = _readonly(np, [1, 2, 3])
    out = np.zeros(3, dtype=np.float32)
    assert probe.copy_into(x, out) == x.ctypes.data  # the array itself: no copy
    assert out.tolist() == [1, 2, 3]
    # Undeclared, the same function gets a private copy.
    assert probe.copy_into_undeclared(x, out) != x.ctypes.data
    # A read-only mapping and a buffer over bytes, in place too.
    path = _memmap_file(np, tmp_path)
    mm = np.memmap(path, dtype=np.float32, mode="r")
    out8 = np.zeros(8, dtype=np.float32)
    assert probe.copy_into(mm, out8) == mm.ctypes.data
    assert out8.tolist() == [float(i) for i in range(8)]
    ro = np.frombuffer(bytes(np.arange(3, dtype=np.float32).data), dtype=np.float32)
    assert probe.copy_into(ro, out) == ro.ctypes.data
    # A read-only tvmffi.Tensor and a versioned capsule with the read-only flag.
    t = tvmffi.from_dlpack(x)
    assert probe.copy_into(t, out) == x.ctypes.data
    assert probe.copy_into(_Producer(t), out) == x.ctypes.data
    assert x.tolist() == [1, 2, 3]


def test_declared_owning_input_keeps_the_flag(probe: tvmffi.Module, np: ModuleType) -> None:
    # An ffi.Tensor parameter gets the memory itself, still flagged read-only.
    x = _readonly(np, [4, 5])
    assert probe.identity(x).ctypes.data == x.ctypes.data
    assert probe.read_only_flag(x) is True
    assert probe.read_only_flag(np.array([4, 5], dtype=np.float32)) is False
    t = tvmffi.from_dlpack(x)  # a read-only tvmffi.Tensor: the same object goes in
    assert probe.read_only_flag(t) is True
    back = probe.identity(t)
    assert back.data_ptr() == x.ctypes.data
    with pytest.raises(ValueError, match="passed to 'copy_into', which writes argument #1"):
        probe.copy_into(np.zeros(2, dtype=np.float32), back)  # still read-only


def test_declared_output_refused_before_the_call(probe: tvmffi.Module, np: ModuleType) -> None:
    x = np.array([1, 2], dtype=np.float32)
    ro = _readonly(np, [7, 7])
    calls = probe.calls()
    with pytest.raises(
        ValueError,
        match=r"^argument #1 \(type 'numpy.ndarray'\): read-only array "
        r"passed to 'copy_into', which writes argument #1",
    ):
        probe.copy_into(x, ro)
    assert probe.calls() == calls  # refused before the function ran
    assert ro.tolist() == [7, 7]
    # Undeclared: the function runs on a private copy, and its write is reported after.
    with pytest.raises(ValueError, match=r"argument #1 is read-only, but the function wrote"):
        probe.copy_into_undeclared(x, ro)
    assert probe.calls() == calls + 1
    assert ro.tolist() == [7, 7]


def test_declared_cpu_kernels(cpu_kernels: tvmffi.Module, np: ModuleType, tmp_path: Path) -> None:
    mm = np.memmap(_memmap_file(np, tmp_path), dtype=np.float32, mode="r")
    y = np.zeros(8, dtype=np.float32)
    cpu_kernels.add_one(mm, y)
    assert y.tolist() == [float(i + 1) for i in range(8)]
    with pytest.raises(ValueError, match="passed to 'add_one', which writes argument #1"):
        cpu_kernels.add_one(y, mm)
    with pytest.raises(ValueError, match="passed to 'fill', which writes argument #0"):
        cpu_kernels.fill(mm, 0.0)  # an owning ffi.Tensor parameter
    x = _readonly(np, [1, 2])
    out = np.zeros(2, dtype=np.float32)
    cpu_kernels.add_bias(x, x, out)  # read-only into an owning Optional<ffi.Tensor> as well
    assert out.tolist() == [2, 4]
    with pytest.raises(ValueError, match="passed to 'add_bias', which writes argument #2"):
        cpu_kernels.add_bias(out, None, x)
    # Tensors inside a list are still copied and checked after the call.
    with pytest.raises(ValueError, match=r"argument #0 \(a tensor inside it\) is read-only"):
        cpu_kernels.fill_all([x], 0.0)
    assert cpu_kernels.sum_all([x, x]) == 6.0
    assert x.tolist() == [1, 2] and mm.tolist() == [float(i) for i in range(8)]

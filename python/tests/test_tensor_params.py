"""ffi::Tensor parameters: framework tensors arrive as owning tensors there, borrowed elsewhere."""

from __future__ import annotations

import gc
import os
import shutil
from types import ModuleType
from typing import Any

import pytest

import tvmffi
from tvmffi import _core


def _undescribed(mod: tvmffi.Module, name: str) -> tvmffi.Function:
    """The module's function without its metadata: what an upstream-built library gives."""
    return _core.get_global_func("ffi.ModuleGetFunction")(mod, name, False)


def test_schema_marks_owning_parameters(cpu_kernels: tvmffi.Module) -> None:
    # (bit mask of ffi.Tensor parameters, whether it comes from the type schema)
    assert _core._tensor_args(cpu_kernels.fill) == (0b1, True)
    assert _core._tensor_args(cpu_kernels.add_bias) == (0b10, True)  # Optional<ffi.Tensor>
    assert _core._tensor_args(cpu_kernels.add_one) == (0, True)  # TensorView: borrowed
    assert _core._tensor_args(cpu_kernels.sum_all) == (0, True)  # a list becomes an ffi.Array


def test_fill_numpy_returns_the_callers_tensor(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.zeros(4, dtype=np.float32)
    r = cpu_kernels.fill(x, 2.5)
    assert isinstance(r, np.ndarray)
    assert np.shares_memory(r, x)  # no copy either way
    assert x.tolist() == [2.5] * 4
    # The owning tensor keeps the array alive past the Python original.
    del x
    gc.collect()
    assert r.tolist() == [2.5] * 4


def test_fill_torch_returns_the_callers_tensor(
    cpu_kernels: tvmffi.Module, torch: ModuleType
) -> None:
    x = torch.zeros(3, dtype=torch.float64)
    ptr = x.data_ptr()
    r = cpu_kernels.fill(x, -1.0)
    assert isinstance(r, torch.Tensor)
    assert r.data_ptr() == ptr
    assert x.tolist() == [-1.0] * 3
    del x
    gc.collect()
    assert r.tolist() == [-1.0] * 3


def test_fill_tvmffi_tensor(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.zeros(2, dtype=np.float64)
    t = tvmffi.from_dlpack(x)
    r = cpu_kernels.fill(t, 4.0)
    assert isinstance(r, tvmffi.Tensor) and r.same_as(t)
    assert x.tolist() == [4.0, 4.0]


def test_optional_tensor_bias(
    cpu_kernels: tvmffi.Module, np: ModuleType, torch: ModuleType
) -> None:
    x = np.arange(4, dtype=np.float32)
    bias = np.full(4, 10, dtype=np.float32)
    out = np.zeros(4, dtype=np.float32)
    assert cpu_kernels.add_bias(x, bias, out) is None
    assert out.tolist() == [10.0, 11.0, 12.0, 13.0]
    cpu_kernels.add_bias(x, None, out)
    assert out.tolist() == [0.0, 1.0, 2.0, 3.0]
    tx, tb, tout = torch.arange(3.0), torch.ones(3), torch.zeros(3)
    cpu_kernels.add_bias(tx, tb, tout)
    assert tout.tolist() == [1.0, 2.0, 3.0]


def test_array_of_tensors(cpu_kernels: tvmffi.Module, np: ModuleType, torch: ModuleType) -> None:
    a, b = np.ones(3, dtype=np.float64), np.full(2, 2.0, dtype=np.float64)
    assert cpu_kernels.sum_all([a, b]) == 7.0
    assert cpu_kernels.sum_all((torch.ones(4), torch.ones(1))) == 5.0
    assert cpu_kernels.fill_all([a, b], 0.5) == 2
    assert a.tolist() == [0.5] * 3 and b.tolist() == [0.5] * 2


def test_without_metadata_every_tensor_is_owning(
    cpu_kernels: tvmffi.Module, np: ModuleType, torch: ModuleType
) -> None:
    # No type schema: any parameter might keep what it gets, so every framework
    # tensor goes as an owning tensor (TensorView parameters take those too).
    fill = _undescribed(cpu_kernels, "fill")
    assert _core._tensor_args(fill) == (2**64 - 1, False)
    x = np.zeros(3, dtype=np.float32)
    r = fill(x, 1.0)
    assert x.tolist() == [1.0] * 3 and np.shares_memory(r, x)
    t = torch.zeros(2)
    assert fill(t, 2.0).tolist() == [2.0, 2.0]

    add_bias = _undescribed(cpu_kernels, "add_bias")
    out = np.zeros(2, dtype=np.float32)
    add_bias(np.ones(2, dtype=np.float32), np.ones(2, dtype=np.float32), out)
    assert out.tolist() == [2.0, 2.0]
    add_one = _undescribed(cpu_kernels, "add_one")  # TensorView parameters
    y = np.zeros(2, dtype=np.float32)
    add_one(np.ones(2, dtype=np.float32), y)
    assert y.tolist() == [2.0, 2.0]
    # A Python callable copies what it is lent (none escapes): borrowed tensors.
    assert _core._tensor_args(tvmffi.Function(lambda a: a)) == (0, True)


def test_type_errors_are_raised_once(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    fill = _undescribed(cpu_kernels, "fill")
    with pytest.raises(TypeError, match="argument #1.*Expected `float` but got `str`"):
        fill(np.zeros(1, dtype=np.float32), "no")
    add_one = _undescribed(cpu_kernels, "add_one")
    with pytest.raises(TypeError, match=r"Expected `DLTensor\*` but got `int`"):
        add_one(1, np.zeros(1, dtype=np.float32))


KEEPER = r"""
#include <tvm/ffi/any.h>
#include <tvm/ffi/container/tensor.h>

namespace ffi = tvm::ffi;

// Counts its runs and keeps what it is given: a body with side effects.
static int64_t g_runs = 0;
static ffi::Any g_kept;
int64_t keep_any(ffi::Any x) {
  ++g_runs;
  g_kept = x;
  return g_runs;
}
int64_t keep_tensor(int64_t tag, ffi::Tensor x) {
  ++g_runs;
  g_kept = x;
  return tag;
}
int64_t runs() { return g_runs; }
double kept_first() {
  ffi::Tensor t = g_kept.cast<ffi::Tensor>();
  return static_cast<const float*>(t.data_ptr())[0];
}
void drop() { g_kept = ffi::Any(); }
"""


@pytest.fixture(scope="module")
def keeper(tmp_path_factory: pytest.TempPathFactory) -> tvmffi.Module:
    if not shutil.which("c++") and not os.environ.get("CXX"):
        pytest.skip("no C++ compiler")
    return tvmffi.cpp.load_inline(
        name="keeper",
        cpp_sources=KEEPER,
        functions=["keep_any", "keep_tensor", "runs", "kept_first", "drop"],
        build_directory=str(tmp_path_factory.mktemp("keeper")),
    )


@pytest.mark.parametrize("described", [True, False])
def test_no_call_runs_a_body_twice(
    keeper: tvmffi.Module, np: ModuleType, torch: ModuleType, described: bool
) -> None:
    def fn(name: str) -> tvmffi.Function:
        return getattr(keeper, name) if described else _undescribed(keeper, name)

    keep_any, keep_tensor = fn("keep_any"), fn("keep_tensor")
    for make in (
        lambda v: np.full(2, v, dtype=np.float32),
        lambda v: torch.full((2,), v, dtype=torch.float32),
    ):
        before = keeper.runs()
        x = make(3.0)
        keep_any(x)
        assert keeper.runs() == before + 1
        assert keep_tensor(7, make(4.0)) == 7
        assert keeper.runs() == before + 2
        keep_any(x)
        del x
        gc.collect()
        assert keeper.kept_first() == 3.0  # the kept tensor owns the memory
        with pytest.raises(TypeError):
            keep_tensor(make(1.0), 7)  # refused while converting: the body never ran
        assert keeper.runs() == before + 3
    keeper.drop()


def test_borrowed_arguments_are_released(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    import sys

    x = np.zeros(2, dtype=np.float32)
    y = np.zeros(2, dtype=np.float32)
    before = sys.getrefcount(x), sys.getrefcount(y)
    for _ in range(10):
        cpu_kernels.add_one(x, y)
        cpu_kernels.add_bias(x, y, y)
    assert (sys.getrefcount(x), sys.getrefcount(y)) == before


NESTED_ALLOC = r"""
#include <tvm/ffi/container/array.h>
#include <tvm/ffi/container/map.h>

namespace ffi = tvm::ffi;

ffi::Tensor add_one_first(ffi::Map<ffi::String, ffi::Array<ffi::Tensor>> kwargs) {
  ffi::Tensor x = kwargs["x"][0];
  ffi::Tensor y = ffi::Tensor::FromEnvAlloc(TVMFFIEnvTensorAlloc, x.shape(), x.dtype(), x.device());
  for (int64_t i = 0; i < x.numel(); ++i) {
    static_cast<double*>(y.data_ptr())[i] = static_cast<const double*>(x.data_ptr())[i] + 1;
  }
  return y;
}
"""


@pytest.mark.skipif(not shutil.which("c++") and not os.environ.get("CXX"), reason="no C++ compiler")
def test_nested_framework_tensor_gives_the_call_its_allocator(
    np: ModuleType, tmp_path: Any
) -> None:
    mod = tvmffi.cpp.load_inline(
        name="nested_alloc",
        cpp_sources=NESTED_ALLOC,
        functions=["add_one_first"],
        build_directory=str(tmp_path),
    )
    x = np.arange(3, dtype=np.float64)
    y = mod.add_one_first({"x": [x]})  # the tensor two levels down: numpy allocates
    assert isinstance(y, np.ndarray)
    assert y.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(RuntimeError, match="no tensor allocator is set"):
        mod.add_one_first({"x": [tvmffi.from_dlpack(x)]})  # no framework tensor anywhere

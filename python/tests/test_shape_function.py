"""tvmffi.shape_function on the CPU kernels' TVM_FFI_DLL_EXPORT_SHAPE functions,
with numpy arrays and TensorMeta (no torch or JAX needed): the extension makes
the data-less DLTensors (python/src/cells.cc)."""

from __future__ import annotations

from types import ModuleType

import pytest

import tvmffi
from tvmffi import shape_function as sf


def test_has_shape_function(cpu_kernels: tvmffi.Module) -> None:
    assert sf.has_shape_function(cpu_kernels, "scale_alloc")
    assert not sf.has_shape_function(cpu_kernels, "add_int")
    assert not sf.has_shape_function(object(), "scale_alloc")  # no library path


def test_result_specs_from_arrays_and_metas(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    x = np.zeros((2, 3), np.float64)
    assert sf.result_specs(cpu_kernels, "scale_alloc", (x, 2.0)) == [
        sf.TensorSpec((2, 3), "float64", (1, 0))
    ]
    # Metadata alone, strided: only shape, dtype and device come back.
    meta = sf.TensorMeta((4, 5), "float32", (1, 0), (1, 4))
    assert sf.result_specs(cpu_kernels, "scale_alloc", [meta, 0.5]) == [
        sf.TensorSpec((4, 5), "float32", (1, 0))
    ]
    scalar = sf.TensorMeta((), "float32")
    assert sf.result_specs(cpu_kernels, "scale_alloc", (scalar, 1.0)) == [
        sf.TensorSpec((), "float32", (1, 0))
    ]


def test_result_specs_errors(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(LookupError, match="no shape function"):
        sf.result_specs(cpu_kernels, "add_int", (1, 2))
    # The shape function's own error, its kind kept: an int where a tensor goes.
    with pytest.raises(TypeError, match="DLTensor"):
        sf.result_specs(cpu_kernels, "scale_alloc", (1, 2.0))
    with pytest.raises(ValueError, match="meta"):
        sf.result_specs(cpu_kernels, "scale_alloc", (_MetaDevice(), 2.0))


class _MetaDevice:
    """A tensor-like value on torch's 'meta' device, which has no real device."""

    shape = (2,)
    dtype = "float32"

    class device:
        type = "meta"
        index = None

"""tvmffi.jax.ffi_function: jax.ffi.ffi_call with the result spec from the
library's shape function (issue #42), on JAX's CPU backend. Skips without JAX."""

from __future__ import annotations

from typing import Any

import pytest

import tvmffi

jax = pytest.importorskip("jax", reason="JAX is not installed")
pytest.importorskip("jax.ffi", reason="this JAX has no jax.ffi")
np = pytest.importorskip("numpy")
import jax.numpy as jnp  # noqa: E402

import tvmffi.jax as tj  # noqa: E402


@pytest.fixture(scope="module")
def cpu() -> Any:
    return jax.devices("cpu")[0]


def test_no_result_spec_eager_and_jit(cpu_kernels: tvmffi.Module, cpu: Any) -> None:
    scale = tj.ffi_function(cpu_kernels, "scale", platform="cpu")  # scale(out, in, factor)
    add_one = tj.ffi_function(cpu_kernels, "add_one", platform="cpu")  # add_one(x, out)
    with jax.default_device(cpu):
        x = jnp.arange(12, dtype=jnp.float32).reshape(3, 4)
        y = scale(x, 2.0)
        assert y.shape == (3, 4) and y.dtype == jnp.float32
        assert np.array_equal(np.asarray(y), np.asarray(x) * 2)
        f = jax.jit(lambda x: add_one(scale(x, 0.5)) * 2)
        got = f(x)
        assert np.allclose(np.asarray(got), (np.asarray(x) * 0.5 + 1) * 2)
        # float64 goes through too (the shape function keeps the dtype).
        jax.config.update("jax_enable_x64", True)
        try:
            x64 = jnp.ones((5,), dtype=jnp.float64)
            assert scale(x64, 3.0).dtype == jnp.float64
        finally:
            jax.config.update("jax_enable_x64", False)


def test_shape_function_errors_while_tracing(cpu_kernels: tvmffi.Module, cpu: Any) -> None:
    scale = tj.ffi_function(cpu_kernels, "scale", platform="cpu")
    with jax.default_device(cpu):
        with pytest.raises(TypeError):  # the kernel's dtype check, before any buffer exists
            jax.jit(lambda x: scale(x, 2.0))(jnp.ones((2,), jnp.int32))
        with pytest.raises(TypeError):
            scale(jnp.ones((2,), jnp.float32))  # the factor is missing


def test_refuses_what_it_cannot_carry(cpu_kernels: tvmffi.Module) -> None:
    with pytest.raises(LookupError):
        tj.ffi_function(cpu_kernels, "add", platform="cpu")  # no shape function
    with pytest.raises(ValueError):
        tj.ffi_function(cpu_kernels, "scale_alloc", platform="cpu")  # writes nothing

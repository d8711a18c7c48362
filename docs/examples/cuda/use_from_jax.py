# The library of use_cuda_scale.py, called from jax.jit through XLA's FFI (tvmffi.jax).
import jax
import jax.numpy as jnp

import tvmffi
import tvmffi.jax

mod = tvmffi.load_module("./libcuda_scale.so")
# scale(out, in, factor): XLA's result first, then its argument, then the one attribute.
tvmffi.jax.register_ffi_target("example.scale", mod.scale, platform="CUDA", outputs_first=True)


@jax.jit
def scale_plus_one(x):
    spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
    y = jax.ffi.ffi_call("example.scale", spec)(x, factor=2.0)  # launched on XLA's stream
    return y + 1  # XLA's own work, ordered after the kernel


x = jnp.arange(8, dtype=jnp.float32)
print("jit:", bool(jnp.array_equal(scale_plus_one(x), x * 2 + 1)))  # jit: True

try:  # an error the kernel raises reaches Python with its kind and message
    jax.block_until_ready(scale_plus_one(jnp.arange(8, dtype=jnp.int32)))
except Exception as err:  # jax's JaxRuntimeError
    print("error:", "TypeError" in str(err))  # error: True

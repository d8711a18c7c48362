# scaled_relu from jax.jit with no hand-written result spec: the shape function gives it.
import sys

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    print("SKIP: JAX is not installed")
    sys.exit(0)

import tvmffi
import tvmffi.jax

mod = tvmffi.load_module("./librowops.so")
scaled_relu = tvmffi.jax.ffi_function(mod, "scaled_relu", platform="cpu")  # (x, gain) -> out

with jax.default_device(jax.devices("cpu")[0]):
    x = jnp.linspace(-1, 1, 8, dtype=jnp.float32)
    f = jax.jit(lambda x: scaled_relu(x, 2.0) + 1)
    print("jit:", bool(jnp.allclose(f(x), jnp.maximum(x, 0) * 2 + 1)))  # jit: True

"""tvmffi.jax: TVM-FFI functions as XLA FFI targets, called from jax.jit (issue #28).

Every case but the first needs JAX and skips without it; the CUDA cases need
the CUDA kernel library (TVMFFI_CUDA_KERNELS) and a GPU visible to JAX.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import tvmffi
import tvmffi.jax as tj


def _has_jax() -> bool:
    try:
        import jax.ffi  # noqa: F401  (only whether it imports)
    except ImportError:
        return False
    return True


def test_without_jax_the_module_imports_and_says_so() -> None:
    if _has_jax():
        pytest.skip("JAX is installed: the no-JAX path cannot be seen here")
    assert tj.is_available() is False
    with pytest.raises(ImportError, match="tvmffi.jax needs JAX"):
        tj.register_ffi_target("x", tvmffi.Function(lambda: None), platform="cpu")


@pytest.fixture(scope="module")
def jax() -> ModuleType:
    jax = pytest.importorskip("jax", reason="JAX is not installed (tvmffi.jax needs it)")
    pytest.importorskip("jax.ffi", reason="this JAX has no jax.ffi")
    return jax


@pytest.fixture(scope="module")
def jnp(jax: ModuleType) -> ModuleType:
    import jax.numpy as jnp

    return jnp


@pytest.fixture(scope="module")
def gpu(jax: ModuleType) -> Any:
    try:
        devices = jax.devices("gpu")
    except RuntimeError:
        devices = []
    if not devices:
        pytest.skip("JAX sees no GPU")
    return devices[0]


@pytest.fixture(scope="module")
def kernels(gpu: Any) -> tvmffi.Module:
    path = os.environ.get("TVMFFI_CUDA_KERNELS")
    if not path:
        build = Path(tvmffi.__file__).resolve().parent.parent.parent
        cand = build / "kernels" / "libtvmffi_kernels.so"
        path = str(cand) if cand.exists() else ""
    if not path:
        pytest.skip("libtvmffi_kernels.so not found (set TVMFFI_CUDA_KERNELS)")
    mod = tvmffi.load_module(path)
    for name in ("scale", "add", "axpy", "rmsnorm", "softmax", "add_one"):
        tj.register_ffi_target(
            f"tvmffi_test.{name}", getattr(mod, name), platform="CUDA", outputs_first=True
        )
    return mod


def _call(jax: ModuleType, name: str, like: Any, *args: Any, **attrs: Any) -> Any:
    out = jax.ShapeDtypeStruct(like.shape, like.dtype)
    return jax.ffi.ffi_call(f"tvmffi_test.{name}", out)(*args, **attrs)


DTYPES = ["float32", "float16", "bfloat16"]
TOL = {"float32": 1e-5, "float16": 2e-3, "bfloat16": 2e-2}


def _close(jnp: ModuleType, got: Any, want: Any, dtype: str) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    g = got.astype(jnp.float32)
    w = want.astype(jnp.float32)
    assert bool(jnp.allclose(g, w, rtol=TOL[dtype], atol=TOL[dtype])), float(jnp.max(abs(g - w)))


# ---------------------------------------------------------------- CUDA kernels ---
@pytest.mark.parametrize("dtype", DTYPES)
def test_every_kernel_from_jit_matches_jax_numpy(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module, dtype: str
) -> None:
    k1, k2, k3 = jax.random.split(jax.random.key(0), 3)
    x = jax.random.normal(k1, (37, 1000), dtype=dtype)
    y = jax.random.normal(k2, (37, 1000), dtype=dtype)
    w = jax.random.normal(k3, (1000,), dtype=dtype)

    @jax.jit
    def ours(x: Any, y: Any, w: Any) -> tuple:
        return (
            _call(jax, "scale", x, x, factor=2.5),
            _call(jax, "add", x, x, y),
            _call(jax, "axpy", x, x, y, alpha=-0.5),
            _call(jax, "rmsnorm", x, x, w, eps=1e-6),
            _call(jax, "softmax", x, x),
            _call(jax, "add_one", x, x),
        )

    def ref(x: Any, y: Any, w: Any) -> tuple:
        f = x.astype(jnp.float32)
        rms = jax.lax.rsqrt(jnp.mean(f * f, axis=-1, keepdims=True) + 1e-6)
        c = lambda v: v.astype(x.dtype)
        return (
            c(f * 2.5),
            c(f + y.astype(jnp.float32)),
            c(-0.5 * f + y.astype(jnp.float32)),
            c(f * rms * w.astype(jnp.float32)),
            c(jax.nn.softmax(f, axis=-1)),
            c(f + 1),
        )

    for got, want in zip(ours(x, y, w), ref(x, y, w)):
        _close(jnp, got, want, dtype)


def test_eager_ffi_call_and_empty_buffer(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module
) -> None:
    x = jnp.arange(10, dtype=jnp.float32)
    assert bool(jnp.array_equal(_call(jax, "scale", x, x, factor=3.0), x * 3))  # no jit
    z = jnp.zeros((0,), jnp.float32)  # an empty buffer: the kernel returns at once
    assert _call(jax, "scale", z, z, factor=3.0).shape == (0,)


def test_launch_lands_on_xla_stream_by_ordering(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module
) -> None:
    # Large buffers, our kernels between XLA's own: a kernel on another stream
    # would read or be read before the neighbouring XLA work finished.
    x = jax.random.normal(jax.random.key(1), (1 << 24,), dtype=jnp.float32)

    @jax.jit
    def chain(x: Any) -> Any:
        for i in range(6):
            x = _call(jax, "scale", x, jnp.sin(x) + i, factor=1.5)
            x = x * 0.5 + 1.0
        return x

    def ref(x: Any) -> Any:
        for i in range(6):
            x = (jnp.sin(x) + i) * 1.5
            x = x * 0.5 + 1.0
        return x

    for _ in range(3):
        assert bool(jnp.allclose(chain(x), ref(x), rtol=1e-5, atol=1e-5))


_NATIVE_RECORDER = r"""
#include <stdint.h>
#include "xla/ffi/api/c_api.h"
static void* g_seen = 0;
extern "C" __attribute__((visibility("default"))) void* recorder_seen(void) { return g_seen; }
extern "C" __attribute__((visibility("default"))) XLA_FFI_Error* recorder(XLA_FFI_CallFrame* f) {
  if (f->extension_start != 0 && f->extension_start->type == XLA_FFI_Extension_Metadata) {
    XLA_FFI_Metadata_Extension* e = (XLA_FFI_Metadata_Extension*)f->extension_start;
    e->metadata->api_version.major_version = XLA_FFI_API_MAJOR;
    e->metadata->api_version.minor_version = XLA_FFI_API_MINOR;
    e->metadata->traits = 0;
    return 0;
  }
  XLA_FFI_Stream_Get_Args a = {XLA_FFI_Stream_Get_Args_STRUCT_SIZE, 0, f->ctx, 0};
  XLA_FFI_Error* err = f->api->XLA_FFI_Stream_Get(&a);
  g_seen = a.stream;
  return err;
}
"""


# A TVM-FFI function in C that records the stream the environment table holds
# for its first tensor's CUDA device: what a kernel's GetCUDAStream returns.
_ENV_RECORDER = r"""
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>
static void* g_env_seen = 0;
static int Record(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* ret) {
  int32_t id = n > 0 && args[0].type_index == kTVMFFIDLTensorPtr
                   ? ((const DLTensor*)args[0].v_ptr)->device.device_id : 0;
  g_env_seen = TVMFFIEnvGetStream(kDLCUDA, id);
  ret->type_index = kTVMFFINone;
  return 0;
}
extern "C" __attribute__((visibility("default"))) void* env_seen(void) { return g_env_seen; }
extern "C" __attribute__((visibility("default"))) int env_install(void) {
  TVMFFIObjectHandle f = 0;
  if (TVMFFIFunctionCreate(0, Record, 0, &f) != 0) return -1;
  TVMFFIByteArray name = {"tvmffi_test.record_env_stream", 29};
  int rc = TVMFFIFunctionSetGlobal(&name, f, 1);
  TVMFFIObjectDecRef(f);
  return rc;
}
"""


def _compile(tmp_path: Path, name: str, source: str, flags: list[str]) -> ctypes.CDLL:
    cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler")
    src = tmp_path / f"{name}.cc"
    src.write_text(source)
    so = tmp_path / f"lib{name}.so"
    subprocess.run([cxx, "-shared", "-fPIC", "-O1", str(src), "-o", str(so), *flags], check=True)
    return ctypes.CDLL(str(so))


def _env_recorder(tmp_path: Path) -> tuple[ctypes.CDLL, tvmffi.Function]:
    runtime = Path(tvmffi.libinfo.find_libtvm_ffi())
    lib = _compile(
        tmp_path,
        "env_recorder",
        _ENV_RECORDER,
        [f"-I{p}" for p in tvmffi.libinfo.include_paths()]
        + [f"-L{runtime.parent}", "-l:libtvm_ffi.so", f"-Wl,-rpath,{runtime.parent}"],
    )
    lib.env_seen.restype = ctypes.c_void_p
    assert lib.env_install() == 0
    return lib, tvmffi.get_global_func("tvmffi_test.record_env_stream")


def test_env_recorder_reads_the_stream_table(tmp_path: Path) -> None:
    # The recorder itself, without JAX: it sees what the table holds.
    np = pytest.importorskip("numpy")
    lib, record = _env_recorder(tmp_path)
    with tvmffi.use_raw_stream("cuda:0", 0x1234):
        record(np.zeros(1, np.float32))
    assert lib.env_seen() == 0x1234


def test_kernel_sees_the_stream_xla_passes(
    jax: ModuleType, jnp: ModuleType, gpu: Any, tmp_path: Path
) -> None:
    # What XLA passes, read by a minimal native handler, against what a
    # TVM-FFI function called through tvmffi.jax reads from the stream table.
    native = _compile(tmp_path, "recorder", _NATIVE_RECORDER, [f"-I{jax.ffi.include_dir()}"])
    native.recorder_seen.restype = ctypes.c_void_p
    jax.ffi.register_ffi_target(
        "tvmffi_test.native_recorder", jax.ffi.pycapsule(native.recorder), platform="CUDA"
    )
    env, record = _env_recorder(tmp_path)
    tj.register_ffi_target("tvmffi_test.record", record, platform="CUDA")
    x = jnp.ones((4,), jnp.float32)
    spec = jax.ShapeDtypeStruct(x.shape, x.dtype)

    @jax.jit
    def both(x: Any) -> tuple:
        return (
            jax.ffi.ffi_call("tvmffi_test.native_recorder", spec)(x),
            jax.ffi.ffi_call("tvmffi_test.record", spec)(x),
        )

    jax.block_until_ready(both(x))
    assert env.env_seen() not in (None, 0)
    assert env.env_seen() == native.recorder_seen()
    assert tvmffi.get_raw_stream("cuda:0") == 0  # restored (this thread's table untouched)


def test_kernel_error_reaches_python_with_its_message(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module
) -> None:
    x = jnp.ones((8,), jnp.int32)  # scale takes floating dtypes only
    with pytest.raises(Exception, match=r"TypeError: .*int32.*scale"):
        jax.block_until_ready(jax.jit(lambda x: _call(jax, "scale", x, x, factor=2.0))(x))
    x = jnp.ones((8,), jnp.float32)
    out = jax.ShapeDtypeStruct((8,), jnp.float16)  # out and in differ in dtype
    with pytest.raises(Exception, match=r"TypeError: .*out"):
        jax.block_until_ready(jax.ffi.ffi_call("tvmffi_test.scale", out)(x, factor=2.0))


def test_bad_argument_count_is_clear(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module
) -> None:
    x = jnp.ones((8,), jnp.float32)
    with pytest.raises(Exception, match="takes 2 tensors, but the call has 2 arguments and 1"):
        jax.block_until_ready(_call(jax, "scale", x, x, x, factor=2.0))
    with pytest.raises(Exception, match="missing|attributes"):
        jax.block_until_ready(_call(jax, "scale", x, x, factor=2.0, other=1))


def test_same_library_serves_torch_and_jax(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module
) -> None:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    xt = torch.arange(1000, dtype=torch.float32, device="cuda")
    yt = torch.empty_like(xt)
    kernels.scale(yt, xt, 4.0)  # torch caller
    xj = jnp.arange(1000, dtype=jnp.float32)
    yj = jax.jit(lambda x: _call(jax, "scale", x, x, factor=4.0))(xj)  # JAX caller
    assert torch.equal(yt, xt * 4)
    assert yj.tolist() == yt.cpu().tolist()


def test_eager_jax_arrays_are_never_written_and_alloc_returns_jax(
    jax: ModuleType, jnp: ModuleType, kernels: tvmffi.Module
) -> None:
    x = jnp.arange(16, dtype=jnp.float32)
    y = jnp.zeros(16, jnp.float32)
    alias = y  # an immutable array: another name for the same buffer
    # The library declares that scale writes argument #0: refused before the call.
    with pytest.raises(
        ValueError,
        match=r"argument #0 .*read-only array passed to 'scale', "
        r"which writes argument #0.*JAX arrays are immutable.*tvmffi.jax",
    ):
        kernels.scale(y, x, 3.0)
    assert bool(jnp.all(alias == 0)) and bool(jnp.all(y == 0))
    with pytest.raises(ValueError, match="JAX arrays are immutable"):
        kernels.add(jnp.zeros(16, jnp.float32), x, -x)  # even a write of what is there
    # Undeclared, the same function gets a copy, compared after the call.
    scale = kernels["scale"]  # a Function object of its own
    tvmffi._core._set_writes(scale, None)
    with pytest.raises(ValueError, match=r"argument #0 is a JAX array.*tvmffi.jax"):
        scale(y, x, 3.0)
    assert bool(jnp.all(alias == 0)) and bool(jnp.all(y == 0))
    add = kernels["add"]
    tvmffi._core._set_writes(add, None)
    add(jnp.zeros(16, jnp.float32), x, -x)  # writes 0 over 0: no change, accepted
    out = kernels.scale_alloc(x, 2.0)
    assert isinstance(out, jax.Array)
    assert bool(jnp.array_equal(out, x * 2))


# ------------------------------------------------------------------ host (cpu) ---
def test_cpu_target_buffers_attrs_and_order(jax: ModuleType, jnp: ModuleType) -> None:
    np = pytest.importorskip("numpy")
    seen: dict[str, Any] = {}

    def f(a: Any, b: Any, out: Any, first: Any, second: Any, label: Any) -> None:
        seen.update(first=first, second=second, label=label)
        np.from_dlpack(out)[...] = np.from_dlpack(a) * first + np.from_dlpack(b) * second

    tj.register_ffi_target(
        "tvmffi_test.cpu_mix", f, platform="cpu", attrs=["first", "second", "label"]
    )
    a = jnp.arange(6, dtype=jnp.float32).reshape(2, 3)
    b = jnp.ones((2, 3), jnp.float32)
    call = jax.ffi.ffi_call("tvmffi_test.cpu_mix", jax.ShapeDtypeStruct(a.shape, a.dtype))
    cpu = jax.devices("cpu")[0]
    with jax.default_device(cpu):
        a, b = jax.device_put(a, cpu), jax.device_put(b, cpu)
        got = jax.jit(
            lambda a, b: call(a, b, second=np.float32(10), first=np.int64(2), label="hi")
        )(a, b)
    assert got.tolist() == (a * 2 + b * 10).tolist()
    assert seen == {"first": 2, "second": 10.0, "label": "hi"}


def test_cpu_error_kind_and_message(jax: ModuleType, jnp: ModuleType) -> None:
    def fail(x: Any, out: Any) -> None:
        raise ValueError("boom: the kernel refused this input")

    tj.register_ffi_target("tvmffi_test.cpu_fail", fail, platform="cpu")
    cpu = jax.devices("cpu")[0]
    x = jax.device_put(jnp.ones((3,), jnp.float32), cpu)
    call = jax.ffi.ffi_call("tvmffi_test.cpu_fail", jax.ShapeDtypeStruct(x.shape, x.dtype))
    with pytest.raises(Exception, match="ValueError: boom: the kernel refused this input"):
        jax.block_until_ready(jax.jit(call)(x))


def test_eager_cpu_jax_array_refused_as_output(jax: ModuleType, jnp: ModuleType) -> None:
    np = pytest.importorskip("numpy")

    def fill(out: Any) -> None:
        np.from_dlpack(out)[...] = 7

    f = tvmffi.Function(fill)
    y = jax.device_put(jnp.zeros((4,), jnp.float32), jax.devices("cpu")[0])
    with pytest.raises(ValueError, match="JAX arrays are immutable.*tvmffi.jax"):
        f(y)
    assert y.tolist() == [0, 0, 0, 0]


def test_registration_errors(jax: ModuleType) -> None:
    with pytest.raises(ValueError, match="platform"):
        tj.register_ffi_target("tvmffi_test.bad", lambda: None, platform="tpu")
    with pytest.raises(TypeError, match="callable"):
        tj.register_ffi_target("tvmffi_test.bad", 3, platform="cpu")


def test_handler_source_is_shipped_with_the_package() -> None:
    src = Path(tj.__file__).with_name("_jax_handler.cc")
    assert src.is_file()
    text = src.read_text()
    assert "xla/ffi/api/c_api.h" in text and "TVMFFIEnvSetStream" in text
    # Nothing of XLA's is copied: the header comes from the installed jaxlib.
    assert "struct XLA_FFI_CallFrame {" not in text

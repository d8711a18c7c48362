"""Upstream names added for issues #39 and #41: __version_tuple__, load_module's
keep_module_alive, tvmffi.cpp.to_cpp_dtype and its tables, core's field accessors."""

from __future__ import annotations

import gc
from pathlib import Path
from types import ModuleType

import pytest

import tvmffi
import tvmffi.cpp
from tvmffi import module as module_py


def test_version_tuple_matches_version() -> None:
    vt = tvmffi.__version_tuple__
    assert isinstance(vt, tuple) and len(vt) >= 3
    assert all(isinstance(p, int) for p in vt[:3])
    assert ".".join(str(p) for p in vt) == tvmffi.__version__


def test_keep_module_alive(cpu_kernels_path: Path) -> None:
    kept = tvmffi.load_module(cpu_kernels_path)  # the default: kept for the process
    assert any(m.same_as(kept) for m in module_py._KEPT_ALIVE)
    n = len(module_py._KEPT_ALIVE)
    free = tvmffi.load_module(cpu_kernels_path, keep_module_alive=False)
    assert len(module_py._KEPT_ALIVE) == n
    add = free.add_int
    del free
    gc.collect()
    assert add(2, 3) == 5  # a function keeps what it needs of its library


def test_to_cpp_dtype(torch: ModuleType) -> None:
    assert tvmffi.cpp.to_cpp_dtype("float32") == "float"
    assert tvmffi.cpp.to_cpp_dtype("float64") == "double"
    assert tvmffi.cpp.to_cpp_dtype("int8") == "int8_t"
    assert tvmffi.cpp.to_cpp_dtype("uint64") == "uint64_t"
    assert tvmffi.cpp.to_cpp_dtype("bool") == "bool"
    assert tvmffi.cpp.to_cpp_dtype(torch.int32) == "int32_t"  # str(torch.int32): "torch.int32"
    if torch.cuda.is_available() and torch.version.cuda:
        assert tvmffi.cpp.to_cpp_dtype(torch.bfloat16) == "__nv_bfloat16"
        assert tvmffi.cpp.to_cpp_dtype("float16") == "__half"
    elif not torch.cuda.is_available():
        with pytest.raises(ValueError, match="float16"):
            tvmffi.cpp.to_cpp_dtype("float16")  # a GPU toolkit's type: none on the CPU
    with pytest.raises(ValueError, match="complex64"):
        tvmffi.cpp.to_cpp_dtype("complex64")


def test_cpp_dtype_tables() -> None:
    from tvmffi.cpp import dtype

    assert dtype.CPU_DTYPE_MAP["float32"] == "float"
    assert dtype.CUDA_DTYPE_MAP["bfloat16"] == "__nv_bfloat16"
    assert dtype.ROCM_DTYPE_MAP["bfloat16"] == "__hip_bfloat16"
    for name, cpp in dtype.CPU_DTYPE_MAP.items():
        assert tvmffi.cpp.to_cpp_dtype(name) == cpp  # the table to_cpp_dtype reads


def test_core_field_accessors() -> None:
    info = tvmffi.core._lookup_or_register_type_info_from_type_key("ffi.Module")
    (field,) = info.fields
    assert isinstance(field.getter, tvmffi.core.FieldGetter)
    assert tvmffi.core.FieldSetter.__name__ == "FieldSetter"


_STREAM_SRC = r"""
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/extra/c_env_api.h>

// The stream current for CUDA device 0 while this runs (an int handle).
int64_t cuda_stream(tvm::ffi::TensorView x) {
  return reinterpret_cast<int64_t>(TVMFFIEnvGetStream(kDLCUDA, 0));
}
"""


class _OnGpu:
    """A DLPack producer that says it is on CUDA device 0 and which stream it wants
    (the bytes are a host array's: the kernel below reads only the stream)."""

    def __init__(self, np: ModuleType, stream: int | None) -> None:
        self.array = np.zeros(1, np.float32)
        self.stream = stream

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)

    def __dlpack__(self, **kwargs: object) -> object:
        return self.array.__dlpack__()

    def __getattr__(self, name: str) -> object:
        if name == "__tvm_ffi_env_stream__" and self.stream is not None:
            return lambda: self.stream
        raise AttributeError(name)


def test_tvm_ffi_env_stream_sets_the_calls_stream(
    np: ModuleType, tmp_path_factory: pytest.TempPathFactory
) -> None:
    import shutil

    if shutil.which("c++") is None:
        pytest.skip("needs a C++ compiler")
    mod = tvmffi.cpp.load_inline(
        "env_stream",
        cpp_sources=_STREAM_SRC,
        functions=["cuda_stream"],
        build_directory=str(tmp_path_factory.mktemp("env_stream")),
    )
    assert mod.cuda_stream(_OnGpu(np, 0x1234)) == 0x1234
    assert mod.cuda_stream(_OnGpu(np, None)) == 0  # restored after the call; none asked


def _has_nvrtc() -> bool:
    try:
        from tvmffi.cpp import nvrtc

        nvrtc._nvrtc()
    except RuntimeError:
        return False
    return True


def test_nvrtc_without_the_library_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvmffi.cpp import nvrtc

    monkeypatch.setattr(nvrtc.ctypes.util, "find_library", lambda name: None)
    monkeypatch.setenv("CUDA_HOME", "/nonexistent")
    real = nvrtc.ctypes.CDLL

    def no_nvrtc(name: str, *args: object, **kwargs: object) -> object:
        if "nvrtc" in name:
            raise OSError(f"{name}: cannot open shared object file")
        return real(name, *args, **kwargs)

    monkeypatch.setattr(nvrtc.ctypes, "CDLL", no_nvrtc)
    with pytest.raises(RuntimeError, match="cannot load the NVRTC library"):
        nvrtc.nvrtc_compile("__global__ void k() {}", arch="sm_80")


@pytest.mark.skipif(not _has_nvrtc(), reason="no NVRTC library (CUDA toolkit)")
def test_nvrtc_compiles_to_a_cubin() -> None:
    from tvmffi.cpp import nvrtc

    cubin = nvrtc.nvrtc_compile(
        'extern "C" __global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }', arch="sm_80"
    )
    assert cubin[:4] == b"\x7fELF"  # a CUBIN is an ELF image
    with pytest.raises(RuntimeError, match="does not compile"):
        nvrtc.nvrtc_compile("__global__ void k( {", arch="sm_80")

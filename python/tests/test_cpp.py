"""tvmffi.cpp: build_inline / load_inline / build / load with the system compiler."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

import tvmffi
import tvmffi.cpp
from tvmffi.cpp.extension import _cuda_home

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")

_SRC = "int64_t add_one(int64_t x) { return x + 1; }"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_load_inline_builds_once_and_caches(_cache: Path) -> None:
    mod = tvmffi.cpp.load_inline("jit_add", cpp_sources=_SRC, functions={"add_one": "Adds one."})
    assert mod.add_one(41) == 42
    assert mod.get_function_doc("add_one") == "Adds one."
    path = tvmffi.cpp.build_inline("jit_add", cpp_sources=_SRC, functions={"add_one": "Adds one."})
    assert Path(path).parent.parent == _cache
    mtime = Path(path).stat().st_mtime_ns
    again = tvmffi.cpp.build_inline("jit_add", cpp_sources=_SRC, functions={"add_one": "Adds one."})
    assert again == path and Path(path).stat().st_mtime_ns == mtime  # cached, not rebuilt
    other = tvmffi.cpp.build_inline(
        "jit_add", cpp_sources=_SRC, functions=["add_one"], extra_cflags=["-O0"]
    )
    assert other != path  # flags are part of the key


def test_compiler_errors_show_the_output() -> None:
    with pytest.raises(RuntimeError, match=r"(?s)the build failed.*error"):
        tvmffi.cpp.load_inline("jit_bad", cpp_sources="int f( {", functions=["f"])
    with pytest.raises(ValueError, match="cpp_sources or cuda_sources"):
        tvmffi.cpp.build_inline("jit_empty")
    with pytest.raises(ValueError, match="invalid module name"):
        tvmffi.cpp.build_inline("../x", cpp_sources=_SRC)


def test_build_and_load_files_and_objects(tmp_path: Path) -> None:
    src = tmp_path / "lib.cc"
    src.write_text(
        "#include <tvm/ffi/function.h>\n"
        + _SRC
        + "\nTVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);\n"
    )
    assert tvmffi.cpp.load("jit_file", sources=[str(src)]).add_one(1) == 2
    obj = tvmffi.cpp.build("jit_obj", cpp_files=str(src), output="lib.o")
    assert obj.endswith("lib.o") and Path(obj).is_file()
    lib = tvmffi.cpp.build("jit_from_obj", sources=[obj], build_directory=str(tmp_path / "b"))
    assert Path(lib).parent == tmp_path / "b"
    assert tvmffi.load_module(lib).add_one(2) == 3
    with pytest.raises(FileNotFoundError):
        tvmffi.cpp.build("jit_missing", sources=[str(tmp_path / "none.cc")])
    with pytest.raises(ValueError, match="unknown kind of source"):
        (tmp_path / "x.txt").write_text("")
        tvmffi.cpp.build("jit_txt", sources=[str(tmp_path / "x.txt")])


def test_cuda_sources_target_the_listed_or_detected_gpus(monkeypatch: pytest.MonkeyPatch) -> None:
    from tvmffi.cpp import extension

    monkeypatch.setenv("TVM_FFI_CUDA_ARCH_LIST", "8.0;9.0a")
    arches = extension._listed_arches(["-O3"])
    assert arches == ["80", "90a"]
    assert extension._cuda_arch_flags(arches) == [
        "-gencode",
        "arch=compute_80,code=[sm_80,compute_80]",
        "-gencode",
        "arch=compute_90a,code=[sm_90a,compute_90a]",
    ]
    # The caller's own target flags win: nothing is added.
    assert extension._listed_arches(["-arch=sm_89"]) is None
    assert extension._listed_arches(["-gencode", "arch=compute_75,code=sm_75"]) is None
    assert extension._cuda_arch_flags(None) == []
    # Unset: this machine's GPUs, asked from the driver only when a build runs.
    monkeypatch.delenv("TVM_FFI_CUDA_ARCH_LIST")
    assert extension._listed_arches([]) == []
    monkeypatch.setattr(extension, "_detected_arches", lambda: ["90"])
    assert extension._cuda_arch_flags([]) == ["-gencode", "arch=compute_90,code=[sm_90,compute_90]"]
    monkeypatch.setattr(extension, "_detected_arches", lambda: [])
    assert extension._cuda_arch_flags([]) == []  # no GPU: nvcc's default


# ---------------------------------------------------------------------------
# embed_cubin=: CUDA binaries carried by the built library
# ---------------------------------------------------------------------------

# Reads the embedded bytes back through the symbols that TVM_FFI_EMBED_CUBIN
# declares (declared by hand here: no CUDA headers needed).
_EMBEDDED_SRC = r"""
extern "C" const char __tvm_ffi__cubin_first[];
extern "C" const char __tvm_ffi__cubin_first_end[];
extern "C" const char __tvm_ffi__cubin_second[];
extern "C" const char __tvm_ffi__cubin_second_end[];
tvm::ffi::Bytes first() {
  return tvm::ffi::Bytes(__tvm_ffi__cubin_first,
                         static_cast<size_t>(__tvm_ffi__cubin_first_end - __tvm_ffi__cubin_first));
}
tvm::ffi::Bytes second() {
  const char* begin = __tvm_ffi__cubin_second;
  return tvm::ffi::Bytes(begin, static_cast<size_t>(__tvm_ffi__cubin_second_end - begin));
}
int64_t first_alignment() { return reinterpret_cast<uintptr_t>(__tvm_ffi__cubin_first) % 64; }
"""

_needs_binutils = pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in ("as", "ld", "objcopy", "nm")),
    reason="embed_cubin needs GNU binutils (as, ld, objcopy) and nm",
)


def _symbols(path: str, *flags: str) -> dict[str, str]:
    """nm's symbol types by name ("r": local read-only data, "R": global)."""
    out = subprocess.run(["nm", *flags, path], capture_output=True, text=True, check=True).stdout
    return {
        parts[-1]: parts[-2]
        for parts in (line.split() for line in out.splitlines())
        if len(parts) >= 2
    }


@_needs_binutils
def test_embed_cubin_puts_each_binary_between_its_symbols(tmp_path: Path) -> None:
    first = bytes(range(256)) * 5 + b"\x00tail"
    second = b"another binary"
    mod = tvmffi.cpp.load_inline(
        "jit_embed",
        cpp_sources=_EMBEDDED_SRC,
        functions=["first", "second", "first_alignment"],
        embed_cubin={"first": first, "second": second},
    )
    assert mod.first() == first
    assert mod.second() == second
    assert mod.first_alignment() == 0
    path = tvmffi.cpp.build_inline(
        "jit_embed",
        cpp_sources=_EMBEDDED_SRC,
        functions=["first", "second", "first_alignment"],
        embed_cubin={"first": first, "second": second},
    )
    # Local to the library: not exported, so libraries may reuse a name.
    symbols = _symbols(path)
    assert symbols["__tvm_ffi__cubin_first"] == "r"
    assert symbols["__tvm_ffi__cubin_second_end"] == "r"
    assert "__tvm_ffi__cubin_first" not in _symbols(path, "-D")
    # The binaries are part of the cache key.
    other = tvmffi.cpp.build_inline(
        "jit_embed",
        cpp_sources=_EMBEDDED_SRC,
        functions=["first", "second", "first_alignment"],
        embed_cubin={"first": first + b"!", "second": second},
    )
    assert other != path
    assert tvmffi.load_module(other).first() == first + b"!"
    # An object file output carries them too.
    obj = tvmffi.cpp.build_inline(
        "jit_embed_obj",
        cpp_sources=_EMBEDDED_SRC,
        functions=["first", "second"],
        output="embed.o",
        embed_cubin={"first": first, "second": second},
        build_directory=str(tmp_path / "obj"),
    )
    assert sorted(p.name for p in (tmp_path / "obj").glob("*.o")) == ["embed.o"]
    assert not list((tmp_path / "obj").glob("*.tmp"))
    assert _symbols(obj)["__tvm_ffi__cubin_second"] == "r"
    # build() takes them as well.
    src = tmp_path / "embedded.cc"
    src.write_text(
        "#include <tvm/ffi/function.h>\n"
        + _EMBEDDED_SRC
        + "TVM_FFI_DLL_EXPORT_TYPED_FUNC(second, second);\n"
    )
    built = tvmffi.cpp.load(
        "jit_embed_files", sources=[str(src)], embed_cubin={"first": b"1", "second": b"22"}
    )
    assert built.second() == b"22"


def test_embed_cubin_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="not a C identifier"):
        tvmffi.cpp.build_inline("jit_embed_bad", cpp_sources=_SRC, embed_cubin={"a-b": b"x"})
    with pytest.raises(TypeError, match="must be bytes"):
        tvmffi.cpp.build_inline("jit_embed_bad", cpp_sources=_SRC, embed_cubin={"a": "text"})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="is empty"):
        tvmffi.cpp.build_inline("jit_embed_bad", cpp_sources=_SRC, embed_cubin={"a": b""})


_LAUNCHER_SRC = r"""
#include <tvm/ffi/extra/cuda/cubin_launcher.h>

TVM_FFI_EMBED_CUBIN(kernels);

void add_one(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  static auto kernel = TVM_FFI_EMBED_CUBIN_GET_KERNEL(kernels, "add_one_cuda");
  void* px = x.data_ptr();
  void* py = y.data_ptr();
  int64_t n = x.size(0);
  void* args[] = {&px, &py, &n};
  auto stream = static_cast<tvm::ffi::cuda_api::StreamHandle>(
      TVMFFIEnvGetStream(x.device().device_type, x.device().device_id));
  TVM_FFI_CHECK_CUBIN_LAUNCHER_CUDA_ERROR(kernel.Launch(
      args, tvm::ffi::dim3(static_cast<unsigned>((n + 127) / 128)), tvm::ffi::dim3(128), stream));
}

int64_t load_kernel(const tvm::ffi::String& name) {
  return TVM_FFI_EMBED_CUBIN_GET_KERNEL(kernels, name.c_str()).GetHandle() != nullptr;
}
"""

_KERNEL_CU = r"""
#include <cstdint>
extern "C" __global__ void add_one_cuda(const float* x, float* y, int64_t n) {
  int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] + 1.0f;
}
"""

_needs_cuda_toolkit = pytest.mark.skipif(
    _cuda_home() is None, reason="needs the CUDA toolkit's headers (cuda.h)"
)


@_needs_binutils
@_needs_cuda_toolkit
def test_embed_cubin_load_errors_name_the_cuda_call() -> None:
    # Bytes that are no CUDA binary: without a GPU the runtime refuses for
    # lack of a driver or device; with one, text is taken for PTX, which lazy
    # loading (CUDA 13's default) compiles only when the kernel is first asked
    # for. Either way that first use raises, naming the call (and again at the
    # next use).
    mod = tvmffi.cpp.load_inline(
        "jit_cubin_bad",
        cpp_sources=_LAUNCHER_SRC,
        functions=["load_kernel"],
        embed_cubin={"kernels": b"not a CUDA binary\n"},
    )
    for _ in range(2):
        with pytest.raises(
            RuntimeError,
            match=r"CubinModule: cannot load.*cudaLibraryLoadData"
            r"|CubinKernel: cannot get the kernel 'add_one_cuda'.*"
            r"cudaLibraryGetKernel",
        ):
            mod.load_kernel("add_one_cuda")


def _gpu_cubin(tmp_path: Path) -> bytes:
    """_KERNEL_CU compiled by nvcc for this machine's GPU."""
    nvcc = shutil.which("nvcc") or str(Path(_cuda_home() or "/usr/local/cuda") / "bin" / "nvcc")
    (tmp_path / "k.cu").write_text(_KERNEL_CU)
    subprocess.run(
        [nvcc, "--cubin", "-arch=native", "-o", str(tmp_path / "k.cubin"), str(tmp_path / "k.cu")],
        check=True,
        capture_output=True,
    )
    return (tmp_path / "k.cubin").read_bytes()


@_needs_binutils
@_needs_cuda_toolkit
def test_embed_cubin_launches_on_torch_tensors(cuda_torch: ModuleType, tmp_path: Path) -> None:
    torch = cuda_torch
    cubin = _gpu_cubin(tmp_path)
    mod = tvmffi.cpp.load_inline(
        "jit_cubin_gpu",
        cpp_sources=_LAUNCHER_SRC,
        functions=["add_one", "load_kernel"],
        embed_cubin={"kernels": cubin},
    )
    x = torch.arange(1000, dtype=torch.float32, device="cuda") * 0.5
    y = torch.empty_like(x)
    mod.add_one(x, y)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x + 1)
    # On a torch stream (the stream is handed to the library through the environment).
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        z = torch.empty_like(x)
        mod.add_one(y, z)
    stream.synchronize()
    torch.testing.assert_close(z, x + 2)
    with pytest.raises(RuntimeError, match="no kernel named 'missing'.*cudaLibraryGetKernel"):
        mod.load_kernel("missing")

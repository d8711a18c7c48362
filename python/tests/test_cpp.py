"""tvmffi.cpp: build_inline / load_inline / build / load with the system compiler."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import tvmffi
import tvmffi.cpp

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")

_SRC = "int64_t add_one(int64_t x) { return x + 1; }"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_load_inline_builds_once_and_caches(_cache: Path) -> None:
    mod = tvmffi.cpp.load_inline("jit_add", cpp_sources=_SRC,
                                 functions={"add_one": "Adds one."})
    assert mod.add_one(41) == 42
    assert mod.get_function_doc("add_one") == "Adds one."
    path = tvmffi.cpp.build_inline("jit_add", cpp_sources=_SRC, functions={"add_one": "Adds one."})
    assert Path(path).parent.parent == _cache
    mtime = Path(path).stat().st_mtime_ns
    again = tvmffi.cpp.build_inline("jit_add", cpp_sources=_SRC,
                                    functions={"add_one": "Adds one."})
    assert again == path and Path(path).stat().st_mtime_ns == mtime  # cached, not rebuilt
    other = tvmffi.cpp.build_inline("jit_add", cpp_sources=_SRC, functions=["add_one"],
                                    extra_cflags=["-O0"])
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
    src.write_text("#include <tvm/ffi/function.h>\n" + _SRC +
                   "\nTVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);\n")
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
        "-gencode", "arch=compute_80,code=[sm_80,compute_80]",
        "-gencode", "arch=compute_90a,code=[sm_90a,compute_90a]"]
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

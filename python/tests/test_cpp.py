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

"""tvmffi.libinfo: the SDK's paths, and loading libraries shipped by distributions.

Runs on an installed tvmffi (the wheel: the whole SDK in the package folder)
and on a build-tree package (<build>/python/tvmffi, lib/ only); what only one
of them has is skipped on the other, with the reason.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import tvmffi
from tvmffi import libinfo

PKG = Path(tvmffi.__file__).resolve().parent
INSTALLED = (PKG / "include").is_dir()
BUILD_TREE = (PKG.parent.parent / "CMakeCache.txt").is_file()

needs_sdk = pytest.mark.skipif(
    not INSTALLED, reason="build-tree package: no include/ or lib/cmake in it (wheel only)"
)
needs_build_tree = pytest.mark.skipif(
    INSTALLED or not BUILD_TREE, reason="installed package: build-tree behaviour does not apply"
)

KERNEL_SOURCE = """\
#include <tvm/ffi/function.h>
#include <dlpack/dlpack.h>

namespace {
int64_t AddInt(int64_t a, int64_t b) { return a + b; }
int64_t DLPackMajor() { return DLPACK_MAJOR_VERSION; }
}  // namespace

TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_int, AddInt);
TVM_FFI_DLL_EXPORT_TYPED_FUNC(dlpack_major, DLPackMajor);
"""


@pytest.fixture(scope="module")
def kernel_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding libtestkernel.so, compiled with include_paths() and -ltvm_ffi."""
    cxx = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if cxx is None:
        pytest.skip("no C++ compiler (set CXX)")
    out = tmp_path_factory.mktemp("kernel")
    src = out / "kernel.cc"
    src.write_text(KERNEL_SOURCE)
    libdir = str(Path(libinfo.find_libtvm_ffi()).parent)
    cmd = [
        cxx,
        "-std=c++17",
        "-O1",
        "-shared",
        "-fPIC",
        "-fvisibility=hidden",
        str(src),
        *(f"-I{d}" for d in libinfo.include_paths()),
        f"-L{libdir}",
        "-ltvm_ffi",
        f"-Wl,-rpath,{libdir}",
        "-o",
        str(out / "libtestkernel.so"),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, f"{' '.join(cmd)}\n{proc.stderr}"
    return out


def _fake_distribution(site: Path, lib: Path) -> None:
    """An installed distribution 'fake-kernels' in ``site`` whose RECORD lists lib."""
    pkg = site / "fake_kernels"
    pkg.mkdir(parents=True)
    shutil.copy(lib, pkg / "libfake.so")
    info = site / "fake_kernels-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-kernels\nVersion: 1.0\n")
    (info / "RECORD").write_text(
        "fake_kernels/libfake.so,,\n"
        "fake_kernels-1.0.dist-info/METADATA,,\n"
        "fake_kernels-1.0.dist-info/RECORD,,\n"
    )


# -- the runtime --------------------------------------------------------------


def test_module_is_exported() -> None:
    assert tvmffi.libinfo is libinfo
    assert "libinfo" in tvmffi.__all__


def test_find_libtvm_ffi_is_the_loaded_runtime() -> None:
    path = Path(libinfo.find_libtvm_ffi())
    assert path.is_absolute() and path.is_file()
    assert path.name == "libtvm_ffi.so"
    assert path == (PKG / "lib" / "libtvm_ffi.so").resolve()
    assert Path(tvmffi._LIB._name).resolve() == path
    assert hasattr(ctypes.CDLL(str(path)), "TVMFFIGetVersion")


@pytest.mark.parametrize("package", ["apache-tvm-ffi", "apache_tvm_ffi", "tvmffi"])
@pytest.mark.parametrize("target", ["tvm_ffi", "tvmffi"])
def test_upstream_runtime_name_resolves_to_ours(package: str, target: str) -> None:
    lib = libinfo.load_lib_ctypes(package, target, "RTLD_GLOBAL")
    assert Path(lib._name) == Path(libinfo.find_libtvm_ffi())
    assert hasattr(lib, "TVMFFIGetVersion")


def test_upstream_cxx_library_found() -> None:
    lib = libinfo.load_lib_ctypes("apache-tvm-ffi", "tvmffi_upstream_cxx", "RTLD_GLOBAL")
    assert Path(lib._name).name == "libtvmffi_upstream_cxx.so"
    assert Path(lib._name).parent == Path(libinfo.find_libtvm_ffi()).parent


# -- headers and CMake ------------------------------------------------------------


@needs_sdk
def test_find_include_path() -> None:
    inc = Path(libinfo.find_include_path())
    assert inc == (PKG / "include").resolve()
    assert (inc / "tvm" / "ffi" / "c_api.h").is_file()
    assert (inc / "tvm" / "ffi" / "function.h").is_file()


def test_find_dlpack_include_path() -> None:
    inc = Path(libinfo.find_dlpack_include_path())
    assert (inc / "dlpack" / "dlpack.h").is_file()
    if INSTALLED:
        assert inc == (PKG / "include").resolve()


@needs_sdk
def test_find_cmake_path() -> None:
    cmake = Path(libinfo.find_cmake_path())
    assert cmake == (PKG / "lib" / "cmake" / "tvm_ffi").resolve()
    assert (cmake / "tvm_ffi-config.cmake").is_file()
    assert (cmake.parent / "tvmffi" / "tvmffiConfig.cmake").is_file()


def test_include_paths() -> None:
    paths = libinfo.include_paths()
    assert paths == sorted(set(paths))
    assert all(isinstance(p, str) and Path(p).is_dir() for p in paths)
    for header in ("tvm/ffi/c_api.h", "tvm/ffi/function.h", "dlpack/dlpack.h"):
        assert any((Path(p) / header).is_file() for p in paths), header
    if INSTALLED:
        assert paths == [libinfo.find_include_path()]


@needs_build_tree
def test_build_tree_has_no_single_include_or_cmake_dir() -> None:
    with pytest.raises(RuntimeError, match="build-tree package"):
        libinfo.find_include_path()
    with pytest.raises(RuntimeError, match="build-tree package"):
        libinfo.find_cmake_path()


@pytest.mark.parametrize(
    "func",
    [
        libinfo.find_source_path,
        libinfo.find_cython_lib,
        libinfo.find_python_helper_include_path,
        libinfo.find_windows_implib,
    ],
)
def test_not_shipped_raise(func) -> None:
    with pytest.raises(RuntimeError, match="tvmffi"):
        func()


# -- loading libraries ------------------------------------------------------------


def test_compile_with_include_paths_and_load(kernel_dir: Path) -> None:
    mod = libinfo.load_lib_module(
        "no-such-distribution", "testkernel", extra_lib_paths=[kernel_dir]
    )
    assert isinstance(mod, tvmffi.Module)
    assert Path(mod.path).resolve() == (kernel_dir / "libtestkernel.so").resolve()
    assert mod.add_int(40, 2) == 42
    with open(os.path.join(libinfo.find_dlpack_include_path(), "dlpack", "dlpack.h")) as f:
        text = f.read()
    assert f"#define DLPACK_MAJOR_VERSION {mod.dlpack_major()}" in text


def test_load_lib_module_keep_module_alive(kernel_dir: Path) -> None:
    mod = libinfo.load_lib_module(
        "no-such-distribution", "testkernel", keep_module_alive=False, extra_lib_paths=[kernel_dir]
    )
    assert mod.add_int(1, 2) == 3


def test_load_from_installed_distribution(
    kernel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_distribution(tmp_path / "site", kernel_dir / "libtestkernel.so")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    expected = (tmp_path / "site" / "fake_kernels" / "libfake.so").resolve()
    for name in ("fake-kernels", "fake_kernels", "Fake.Kernels"):
        assert libinfo._find_library_by_basename(name, "fake") == expected
    mod = libinfo.load_lib_module("fake-kernels", "fake")
    assert Path(mod.path).resolve() == expected
    assert mod.add_int(2, 3) == 5
    lib = libinfo.load_lib_ctypes("fake-kernels", "fake", "RTLD_LOCAL")
    assert Path(lib._name) == expected
    assert hasattr(lib, "__tvm_ffi_add_int")


def test_distribution_files_come_before_extra_paths(
    kernel_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_distribution(tmp_path / "site", kernel_dir / "libtestkernel.so")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(kernel_dir / "libtestkernel.so", other / "libfake.so")
    found = libinfo._find_library_by_basename("fake-kernels", "fake", [other])
    assert found.parent == (tmp_path / "site" / "fake_kernels").resolve()


def test_extra_lib_paths_searched_in_order(kernel_dir: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for d in (first, second):
        d.mkdir()
        shutil.copy(kernel_dir / "libtestkernel.so", d / "libk.so")
    assert libinfo._find_library_by_basename("nope", "k", [second, first]).parent == second
    assert libinfo._find_library_by_basename("nope", "k", [tmp_path, first]).parent == first


def test_ld_library_path_searched(kernel_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LD_LIBRARY_PATH", f"/nonexistent{os.pathsep}{kernel_dir}")
    assert (
        libinfo._find_library_by_basename("nope", "testkernel")
        == (kernel_dir / "libtestkernel.so").resolve()
    )


def test_missing_library_names_searched_dirs(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError) as info:
        libinfo.load_lib_module(
            "no-such-distribution", "no_such_target", extra_lib_paths=[tmp_path]
        )
    message = str(info.value)
    assert "libno_such_target.so" in message
    assert str(tmp_path) in message
    assert str(PKG / "lib") in message


def test_extra_lib_paths_must_be_paths(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"extra_lib_paths\[1\]"):
        libinfo.load_lib_ctypes("nope", "x", "RTLD_LOCAL", [tmp_path, str(tmp_path)])


@pytest.mark.parametrize("mode", ["RTLD_NOPE", "rtld_global", "", "CDLL"])
def test_bad_mode(mode: str) -> None:
    with pytest.raises(ValueError, match="mode"):
        libinfo.load_lib_ctypes("apache-tvm-ffi", "tvm_ffi", mode)

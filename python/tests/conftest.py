"""Shared fixtures: the kernel libraries of the build tree, optional frameworks."""

from __future__ import annotations

import os
from pathlib import Path
from types import ModuleType

import pytest

import tvmffi

# The wheel phase of CI (.ci/wheel.sh) tests the installed package: make sure
# it is not the repository's or a build tree's that got imported.
if os.environ.get("TVMFFI_EXPECT_INSTALLED") == "1":
    _repo = Path(__file__).resolve().parents[2]
    _pkg = Path(tvmffi.__file__).resolve()
    if _repo in _pkg.parents or (_pkg.parent.parent.parent / "CMakeCache.txt").exists():
        raise RuntimeError(f"TVMFFI_EXPECT_INSTALLED=1 but tvmffi was imported from {_pkg}")


def _build_dir() -> Path | None:
    # The build-tree package lives in <build>/python/tvmffi.
    pkg = Path(tvmffi.__file__).resolve().parent
    build = pkg.parent.parent
    return build if (build / "CMakeCache.txt").exists() else None


def _library(env: str, name: str) -> Path | None:
    if os.environ.get(env):
        return Path(os.environ[env])
    build = _build_dir()
    if build is None:
        return None
    path = build / "kernels" / name
    return path if path.exists() else None


@pytest.fixture(scope="session")
def cpu_kernels_path() -> Path:
    path = _library("TVMFFI_CPU_KERNELS", "libtvmffi_cpu_kernels.so")
    if path is None:
        pytest.skip("libtvmffi_cpu_kernels.so not found (set TVMFFI_CPU_KERNELS)")
    return path


@pytest.fixture(scope="session")
def cpu_kernels(cpu_kernels_path: Path) -> tvmffi.Module:
    return tvmffi.load_module(cpu_kernels_path)


@pytest.fixture(scope="session")
def np() -> ModuleType:
    return pytest.importorskip("numpy")


@pytest.fixture(scope="session")
def torch() -> ModuleType:
    return pytest.importorskip("torch")


def _cuda_torch() -> ModuleType:
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device (torch.cuda.is_available() is False)")
    return torch


@pytest.fixture(scope="session")
def cuda_torch() -> ModuleType:
    return _cuda_torch()


@pytest.fixture(scope="session")
def cupy() -> ModuleType:
    _cuda_torch()
    return pytest.importorskip("cupy")


@pytest.fixture(scope="session")
def cuda_kernels(cuda_torch: ModuleType) -> tvmffi.Module:
    path = _library("TVMFFI_CUDA_KERNELS", "libtvmffi_kernels.so")
    if path is None:
        pytest.skip(
            "libtvmffi_kernels.so not built (TVMFFI_BUILD_CUDA_KERNELS=ON, or set "
            "TVMFFI_CUDA_KERNELS)"
        )
    return tvmffi.load_module(path)

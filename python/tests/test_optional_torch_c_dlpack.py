"""tvmffi._optional_torch_c_dlpack: the exchange API put on torch.Tensor; its build script."""

from __future__ import annotations

import ctypes
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import tvmffi
from tvmffi import _optional_torch_c_dlpack as opt

SCRIPT = Path(tvmffi.__file__).parent / "utils" / "_build_optional_torch_c_dlpack.py"
_ATTR = "__dlpack_c_exchange_api__"


def _fake_torch(available: bool, **version: Any) -> Any:
    return SimpleNamespace(
        cuda=SimpleNamespace(is_available=lambda: available), version=SimpleNamespace(**version)
    )


def test_extension_device() -> None:
    assert opt._torch_extension_device(_fake_torch(False, cuda="12.8")) == "cpu"
    assert opt._torch_extension_device(_fake_torch(True, cuda="12.8", hip=None)) == "cuda"
    assert opt._torch_extension_device(_fake_torch(True, cuda=None, hip="6.2")) == "rocm"
    assert opt._torch_extension_device(_fake_torch(True)) == "cuda"


def test_existing_api_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    api = object()
    fake = _fake_torch(True, cuda="12.8")
    fake.Tensor = SimpleNamespace(**{_ATTR: api})
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert opt.load_torch_c_dlpack_extension() is None
    assert getattr(fake.Tensor, _ATTR) is api
    # The older spelling, an address, becomes a capsule under the current name.
    fake.Tensor = SimpleNamespace(__c_dlpack_exchange_api__=1234)
    assert opt.load_torch_c_dlpack_extension() is None
    capsule = getattr(fake.Tensor, _ATTR)
    # A prototype of our own: the shared ctypes.pythonapi function keeps its argtypes.
    get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi)
    )
    assert get(capsule, b"dlpack_exchange_api") == 1234


def test_null_exchange_api_address_is_refused() -> None:
    with pytest.raises(ValueError, match="null address"):
        opt._capsule(0)


def test_without_torch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch raises ImportError
    assert opt.load_torch_c_dlpack_extension() is None


def test_builtin_module_serves_its_torch() -> None:
    torch = pytest.importorskip("torch")
    if hasattr(torch.Tensor, _ATTR):
        pytest.skip("this torch has the exchange API itself")
    from tvmffi import _framework

    if _framework.exchange_api("torch") is None:
        pytest.skip("no tvmffi._torch_exchange for this torch")
    try:
        capsule = opt.load_torch_c_dlpack_extension()
        assert type(capsule).__name__ == "PyCapsule"
        assert getattr(torch.Tensor, _ATTR) is capsule
        # tvmffi still converts torch tensors through it.
        x = torch.arange(4, dtype=torch.float32)
        assert tvmffi.from_dlpack(x).shape == (4,)
        # A second call finds the API and changes nothing.
        assert opt.load_torch_c_dlpack_extension() is None
    finally:
        if _ATTR in vars(torch.Tensor):
            delattr(torch.Tensor, _ATTR)


def test_builtin_module_export_keeps_its_own_metadata() -> None:
    # An owning export made through tvmffi._torch_exchange keeps the shape,
    # strides and memory it was made with when the caller's tensor is later
    # re-stored or resized (a shallow copy of the tensor, as torch's view).
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    if hasattr(torch.Tensor, _ATTR):
        pytest.skip("this torch has the exchange API itself")
    from tvmffi import _framework

    if _framework.exchange_api("torch") is None:
        pytest.skip("no tvmffi._torch_exchange for this torch")
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    t = tvmffi.from_dlpack(x)
    x.set_(torch.zeros(100))
    x.resize_(5, 7)
    assert (t.shape, t.strides) == ((2, 3), (3, 1))
    assert np.from_dlpack(t).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


def test_version_bump_for_this_torch() -> None:
    # The function tvmffi bumps written tensors' autograd versions with:
    # torch's own (torch >= 2.1) or tvmffi._torch_exchange's.
    torch = pytest.importorskip("torch")
    from tvmffi import _framework

    bump = _framework.increment_version()
    if bump is None:
        pytest.skip("neither torch._C._increment_version nor tvmffi._torch_exchange")
    x, y = torch.zeros(2), torch.zeros(2)
    before = (x._version, y._version)
    bump([x, y, x])
    assert (x._version, y._version) == (before[0] + 2, before[1] + 1)


class _ApiHeader(ctypes.Structure):
    # DLPackExchangeAPIHeader, then the DLPackExchangeAPI's function pointers.
    _fields_ = [
        ("major", ctypes.c_uint32),
        ("minor", ctypes.c_uint32),
        ("prev_api", ctypes.c_void_p),
        ("allocator", ctypes.c_void_p),
        ("from_py", ctypes.c_void_p),
        ("to_py", ctypes.c_void_p),
        ("dltensor_from_py", ctypes.c_void_p),
        ("stream", ctypes.c_void_p),
    ]


@pytest.fixture(scope="module")
def built_addon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    if not (Path(torch.__file__).parent / "include" / "ATen" / "DLConvertor.h").is_file():
        pytest.skip("torch has no C++ headers")
    if not (SCRIPT.parent.parent / "_torch_exchange.cc").is_file():
        pytest.skip("this tvmffi ships no _torch_exchange.cc (a build tree)")
    out = tmp_path_factory.mktemp("addon")
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--output-dir", str(out), "--libname", "libaddon.so"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out / "libaddon.so")
    return out / "libaddon.so"


def test_build_script_library(built_addon: Path) -> None:
    import torch  # noqa: F401  (the library binds to the loaded torch)

    lib = ctypes.CDLL(str(built_addon))
    lib.TorchDLPackExchangeAPIPtr.restype = ctypes.c_int64
    address = lib.TorchDLPackExchangeAPIPtr()
    assert address != 0 and address == lib.TorchDLPackExchangeAPIPtr()
    api = _ApiHeader.from_address(address)
    assert api.major >= 1 and api.prev_api is None
    assert api.allocator and api.from_py and api.to_py and api.dltensor_from_py


def test_build_script_reuses_and_refuses(built_addon: Path) -> None:
    before = built_addon.stat().st_mtime_ns
    args = [
        sys.executable,
        str(SCRIPT),
        "--output-dir",
        str(built_addon.parent),
        "--libname",
        built_addon.name,
    ]
    # The same build again: the library is kept, not rebuilt.
    assert subprocess.run(args, capture_output=True).returncode == 0
    assert built_addon.stat().st_mtime_ns == before
    proc = subprocess.run([*args, "--build-with-rocm"], capture_output=True, text=True)
    assert proc.returncode == 1 and "ROCm" in proc.stderr

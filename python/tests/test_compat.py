"""The drop-in import name ``tvm_ffi`` (python/compat, distribution tvmffi-as-tvm-ffi).

Three ways in, each skipped with its reason where it cannot apply:

- the compat sources of this checkout on PYTHONPATH (any tvmffi, also a
  build tree): the aliasing mechanism, in a subprocess;
- a ``tvm_ffi`` already importable here: when it is ours, the identity of
  objects and ``python -m tvm_ffi.config``;
- otherwise, with an installed tvmffi, python/compat installed by pip into a
  throwaway venv, then the same checks there.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import tvmffi
from tvmffi import libinfo

PKG = Path(tvmffi.__file__).resolve().parent
INSTALLED = (PKG / "include").is_dir()
COMPAT_SRC = Path(__file__).resolve().parent.parent / "compat"

# Run by a Python that has tvm_ffi: prints OK, or fails an assertion.
CHECK = """
import importlib, subprocess, sys, warnings
warnings.simplefilter("error")
import tvm_ffi
import tvmffi
assert tvm_ffi is tvmffi, tvm_ffi
assert sys.modules["tvm_ffi"] is tvmffi
assert tvm_ffi.Tensor is tvmffi.Tensor and tvm_ffi.Module is tvmffi.Module
assert tvm_ffi.load_module is tvmffi.load_module
import tvm_ffi.libinfo
import tvm_ffi.module
import tvm_ffi.config
from tvm_ffi.container import Array
from tvm_ffi import registry
import tvmffi.container, tvmffi.module, tvmffi.registry, tvmffi.config
assert Array is tvmffi.container.Array
assert registry is tvmffi.registry
for name in ("libinfo", "module", "config", "container", "registry", "_core", "_dtype"):
    alias = importlib.import_module("tvm_ffi." + name)
    real = importlib.import_module("tvmffi." + name)
    assert alias is real, name
    assert sys.modules["tvm_ffi." + name] is real, name
    assert real.__name__ == real.__spec__.name == "tvmffi." + name, real.__spec__
assert tvm_ffi.libinfo.load_lib_ctypes("apache-tvm-ffi", "tvm_ffi", "RTLD_GLOBAL")._name \\
    == tvmffi.libinfo.find_libtvm_ffi()
assert importlib.util.find_spec("tvm_ffi.no_such_module") is None
try:
    import tvm_ffi.no_such_module
except ModuleNotFoundError as err:
    assert err.name == "tvm_ffi.no_such_module", err.name
else:
    raise AssertionError("tvm_ffi.no_such_module imported")
print("OK")
"""


def _env(*paths: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(p) for p in paths] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    )
    return env


def _check(python: str, env: dict[str, str] | None = None) -> None:
    """The identity checks, and ``python -m tvm_ffi.config``, run by ``python``."""
    proc = subprocess.run(
        [python, "-c", CHECK], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "OK", proc.stdout + proc.stderr

    # -W error: runpy warns when the module is in sys.modules before it runs.
    option = "--cmakedir" if INSTALLED else "--libfiles"
    proc = subprocess.run(
        [python, "-W", "error", "-m", "tvm_ffi.config", option, "--libs"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    path, libs = proc.stdout.splitlines()
    assert libs == "-ltvm_ffi"
    if INSTALLED:
        assert (Path(path) / "tvm_ffi-config.cmake").is_file()
    else:
        assert Path(path).is_file()

    proc = subprocess.run(
        [python, "-m", "tvm_ffi.config"], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: python -m tvm_ffi.config")


def _ours_installed() -> bool | None:
    """Whether ``import tvm_ffi`` here gives tvmffi: None when there is no tvm_ffi."""
    if importlib.util.find_spec("tvm_ffi") is None:
        return None
    # In a subprocess: an upstream tvm_ffi would load a second runtime here.
    proc = subprocess.run(
        [sys.executable, "-c", "import tvm_ffi, tvmffi; print(tvm_ffi is tvmffi)"],
        capture_output=True,
        text=True,
        env=_env(PKG.parent),
        timeout=120,
    )
    return proc.stdout.strip() == "True"


def test_alias_from_the_source_tree() -> None:
    if not (COMPAT_SRC / "tvm_ffi" / "__init__.py").is_file():
        pytest.skip(f"no compat sources at {COMPAT_SRC} (not run from a checkout)")
    _check(sys.executable, _env(COMPAT_SRC, PKG.parent))


def test_installed_tvm_ffi_is_ours() -> None:
    ours = _ours_installed()
    if ours is None:
        pytest.skip("no tvm_ffi installed here (test_install_into_venv covers installing it)")
    if not ours:
        pytest.skip("the installed tvm_ffi is not tvmffi's (upstream's apache-tvm-ffi?)")
    from tvmffi import _reflection

    before = _reflection.set_opaque_arguments(False)
    import tvm_ffi

    # Under the tvm_ffi name any Python object passes as an ffi.OpaquePyObject
    # (upstream's behaviour); the rest of this session tests tvmffi's own.
    _reflection.set_opaque_arguments(before)
    assert tvm_ffi is tvmffi
    assert tvm_ffi.Tensor is tvmffi.Tensor
    assert tvm_ffi.libinfo.find_libtvm_ffi() == libinfo.find_libtvm_ffi()
    _check(sys.executable, _env(PKG.parent))


def test_install_into_venv(tmp_path: Path) -> None:
    if _ours_installed() is not None:
        pytest.skip("a tvm_ffi is installed here already (test_installed_tvm_ffi_is_ours)")
    if not INSTALLED:
        pytest.skip("tvmffi is a build-tree package, not an installed distribution")
    if not (COMPAT_SRC / "pyproject.toml").is_file():
        pytest.skip(f"no compat sources at {COMPAT_SRC} (not run from a checkout)")
    venv = tmp_path / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
        timeout=120,
    )
    python = str(venv / "bin" / "python")
    # The venv sees the base interpreter's site-packages, not those of a venv
    # this test may run in: point it at the folder tvmffi is installed in.
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    )
    site = Path(purelib.stdout.strip())
    site.mkdir(parents=True, exist_ok=True)
    (site / "tvmffi_under_test.pth").write_text(f"{PKG.parent}\n")
    if subprocess.run([python, "-c", "import pip"], capture_output=True).returncode != 0:
        pytest.skip("pip is not importable in a --system-site-packages venv")
    if subprocess.run([python, "-c", "import setuptools"], capture_output=True).returncode:
        pytest.skip("setuptools is not importable (needed to build python/compat)")
    # Build from a copy: setuptools writes build/ and *.egg-info beside the sources.
    src = tmp_path / "compat"
    shutil.copytree(COMPAT_SRC, src, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    proc = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    _check(python, env)
    meta = subprocess.run(
        [
            python,
            "-c",
            "import importlib.metadata as m; d = m.distribution('tvmffi-as-tvm-ffi');"
            "print(d.version); print(d.requires)",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert meta.returncode == 0, meta.stderr
    version, requires = meta.stdout.splitlines()
    assert version == tvmffi.__version__
    assert "tvmffi" in requires
    assert (site / "tvm_ffi" / "__init__.py").is_file()

"""``python -m tvmffi.config`` (tvm-ffi-config) and the ``tvmffi`` console script.

The command line runs in a subprocess with this interpreter.  Runs on an
installed tvmffi and on a build-tree package; what only the installed SDK
has (include/, the CMake package, bin/) is skipped in a build tree.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import tvmffi
from tvmffi import _cli, config, libinfo

PKG = Path(tvmffi.__file__).resolve().parent
INSTALLED = (PKG / "include").is_dir()
BUILD_TREE = (PKG.parent.parent / "CMakeCache.txt").is_file()

needs_sdk = pytest.mark.skipif(
    not INSTALLED, reason="build-tree package: no include/ or lib/cmake in it (wheel only)"
)
needs_build_tree = pytest.mark.skipif(
    INSTALLED or not BUILD_TREE, reason="installed package: build-tree behaviour does not apply"
)

OPTIONS = [
    "--includedir",
    "--dlpack-includedir",
    "--cmakedir",
    "--sourcedir",
    "--libfiles",
    "--libdir",
    "--libs",
    "--cython-lib-path",
    "--cxxflags",
    "--cflags",
    "--ldflags",
    "--version",
]


def _env() -> dict[str, str]:
    # The subprocess imports this tvmffi, also when it came from PYTHONPATH.
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(PKG.parent), env.get("PYTHONPATH", "")) if p
    )
    return env


def run(*args: str, module: str = "tvmffi.config") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=120,
    )


def lines(*args: str) -> list[str]:
    proc = run(*args)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout.splitlines()


def include_flags(flags: str) -> list[Path]:
    return [Path(f[2:]) for f in flags.split() if f.startswith("-I")]


# -- the options both layouts answer ---------------------------------------------------


def test_no_argument_prints_help() -> None:
    proc = run()
    assert proc.returncode == 0
    assert proc.stdout.startswith("usage: python -m tvmffi.config")
    for option in OPTIONS:
        assert option in proc.stdout


def test_version() -> None:
    (version,) = lines("--version")
    assert version == tvmffi.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version)


def test_libs() -> None:
    assert lines("--libs") == ["-ltvm_ffi"]


def test_library_paths() -> None:
    libdir, libfile, ldflags = lines("--ldflags", "--libfiles", "--libdir")
    assert Path(libfile).is_file()
    assert libfile == libinfo.find_libtvm_ffi()
    assert Path(libdir) == Path(libfile).parent
    assert (Path(libdir) / "libtvm_ffi.so").is_file()
    assert ldflags == f"-L{libdir}"


def test_dlpack_includedir() -> None:
    (inc,) = lines("--dlpack-includedir")
    assert (Path(inc) / "dlpack" / "dlpack.h").is_file()


def test_output_order_is_fixed() -> None:
    assert lines("--ldflags", "--libs", "--libdir") == lines("--libdir", "--libs", "--ldflags")
    assert lines("--libs", "--libs") == ["-ltvm_ffi"]


@pytest.mark.parametrize("option", ["--sourcedir", "--cython-lib-path"])
def test_not_shipped_is_an_error(option: str) -> None:
    proc = run("--libs", option)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "error:" in proc.stderr and "tvmffi" in proc.stderr


def test_unknown_option() -> None:
    proc = run("--no-such-option")
    assert proc.returncode == 2
    assert "unrecognized arguments" in proc.stderr


def test_main_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    assert config.main(["--libs"]) == 0
    assert capsys.readouterr().out == "-ltvm_ffi\n"
    assert config.main([]) == 0
    assert capsys.readouterr().out.startswith("usage: tvm-ffi-config")
    assert config.__main__ is config.main  # upstream's entry point name
    with pytest.raises(SystemExit) as info:
        config.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == tvmffi.__version__


# -- the installed SDK -------------------------------------------------------------------


@needs_sdk
def test_includedir_and_libs() -> None:
    inc, libs = lines("--includedir", "--libs")
    assert (Path(inc) / "tvm" / "ffi" / "c_api.h").is_file()
    assert (Path(inc) / "dlpack" / "dlpack.h").is_file()
    assert libs == "-ltvm_ffi"


@needs_sdk
def test_cmakedir() -> None:
    (cmake,) = lines("--cmakedir")
    assert (Path(cmake) / "tvm_ffi-config.cmake").is_file()
    assert Path(cmake) == PKG / "lib" / "cmake" / "tvm_ffi"


@needs_sdk
def test_compiler_flags() -> None:
    cxxflags, cflags = lines("--cflags", "--cxxflags")
    assert cxxflags.endswith(" -std=c++17")
    assert cflags == cxxflags[: -len(" -std=c++17")]
    dirs = include_flags(cxxflags)
    assert len(dirs) == 2 and all(d.is_dir() for d in dirs)
    assert (dirs[0] / "tvm" / "ffi" / "c_api.h").is_file()
    assert (dirs[1] / "dlpack" / "dlpack.h").is_file()


@needs_sdk
@pytest.mark.parametrize(
    "option", [o for o in OPTIONS if o not in ("--sourcedir", "--cython-lib-path")] + [None]
)
def test_same_output_as_shell_tvm_ffi_config(option: str | None) -> None:
    script = PKG / "bin" / "tvm-ffi-config"
    if not script.is_file():
        pytest.skip(f"{script} not in this package")
    args = OPTIONS[:-1] if option is None else [option]
    args = [a for a in args if a not in ("--sourcedir", "--cython-lib-path")]
    shell = subprocess.run([str(script), *args], capture_output=True, text=True, timeout=60)
    assert shell.returncode == 0, shell.stderr
    assert lines(*args) == shell.stdout.splitlines()


@needs_sdk
def test_console_script() -> None:
    script = Path(sysconfig.get_path("scripts")) / "tvm-ffi-config"
    if not script.is_file():
        pytest.skip(f"no console script {script} (tvmffi not installed by pip here)")
    proc = subprocess.run(
        [str(script), "--libfiles", "--cmakedir"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [libinfo.find_cmake_path(), libinfo.find_libtvm_ffi()]


# -- the build tree ----------------------------------------------------------------------


@needs_build_tree
@pytest.mark.parametrize("option", ["--includedir", "--cmakedir", "--cxxflags", "--cflags"])
def test_build_tree_cannot_answer(option: str) -> None:
    proc = run("--libs", option)
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "build-tree package" in proc.stderr


# -- the tvmffi console script (tvmffi._cli) -----------------------------------------


def test_cli_runs_the_executable() -> None:
    exe = _cli.find_cli()
    if exe is None:
        pytest.skip("no tvmffi executable: neither bin/tvmffi in the package nor <build>/tvmffi")
    if INSTALLED:
        assert exe == PKG / "bin" / "tvmffi"
    proc = run("--version", module="tvmffi._cli")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"tvmffi {tvmffi.__version__}")
    # The runtime exports no kernels (inspect says so and fails), but its ELF facts print.
    proc = run("inspect", libinfo.find_libtvm_ffi(), module="tvmffi._cli")
    assert re.search(r"soname:\s+libtvm_ffi\.so", proc.stdout), proc.stdout + proc.stderr


def test_cli_missing_executable(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(_cli, "find_cli", lambda: None)
    assert _cli.main(["--version"]) == 127
    err = capsys.readouterr().err
    assert "command-line tool is not in this package" in err
    assert str(PKG / "bin" / "tvmffi") in err

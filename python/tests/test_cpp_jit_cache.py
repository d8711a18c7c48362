"""tvmffi.cpp's cache under reuse and concurrency (issue #43, class 8).

A rebuild into the same build folder with new sources must load the new
library (a process keeps one copy of a library per path), and builds from
several threads into one folder must neither collide on temporary files nor
mix their sources.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

import tvmffi
import tvmffi.cpp

pytestmark = pytest.mark.skipif(shutil.which("c++") is None, reason="needs a C++ compiler")


def _source(value: int) -> str:
    return f"int64_t which(int64_t x) {{ return x * 0 + {value}; }}"


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TVM_FFI_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_load_inline_same_folder_new_sources_loads_the_new_library(tmp_path: Path) -> None:
    folder = str(tmp_path / "b")
    first = tvmffi.cpp.load_inline(
        "jit_reuse", cpp_sources=_source(1), functions=["which"], build_directory=folder
    )
    assert first.which(0) == 1
    second = tvmffi.cpp.load_inline(
        "jit_reuse", cpp_sources=_source(2), functions=["which"], build_directory=folder
    )
    assert second.which(0) == 2
    assert first.which(0) == 1  # the first library stays loaded and unchanged
    # Back to the first sources: rebuilt, and the library of those sources runs.
    again = tvmffi.cpp.load_inline(
        "jit_reuse", cpp_sources=_source(1), functions=["which"], build_directory=folder
    )
    assert again.which(0) == 1
    # build_inline still names the plain library, which holds the last build.
    path = tvmffi.cpp.build_inline(
        "jit_reuse", cpp_sources=_source(1), functions=["which"], build_directory=folder
    )
    assert Path(path).name == "jit_reuse.so"


def test_build_inline_from_threads_into_one_folder(tmp_path: Path) -> None:
    folder = str(tmp_path / "shared")
    results: dict[int, int] = {}
    errors: list[BaseException] = []

    def work(value: int) -> None:
        try:
            mod = tvmffi.cpp.load_inline(
                "jit_threads",
                cpp_sources=_source(value),
                functions=["which"],
                build_directory=folder,
            )
            results[value] = int(mod.which(0))
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(v,)) for v in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == {v: v for v in range(4)}  # each thread ran its own sources
    assert not list(Path(folder).glob("*.tmp"))


def test_build_inline_from_threads_same_sources_cached_folder(_cache: Path) -> None:
    paths: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            paths.append(
                tvmffi.cpp.build_inline("jit_same", cpp_sources=_source(7), functions=["which"])
            )
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(set(paths)) == 1
    assert tvmffi.load_module(paths[0]).which(0) == 7

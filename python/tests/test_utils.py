"""tvmffi.utils: embed_cubin (a CUDA binary in an object file) and unpack_dataclass."""

from __future__ import annotations

import collections
import ctypes
import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import pytest

from tvmffi.utils import embed_cubin as embed_cubin_module
from tvmffi.utils.embed_cubin import embed_cubin
from tvmffi.utils.unpack_dataclass import (
    _extract_dataclass_to_tuple_schema,
    _validate_dataclass_to_tuple_schema,
    unpack_dataclass_to_tuple,
)

_HAVE_TOOLS = all(shutil.which(t) for t in ("g++", "as", "ld", "objcopy", "nm"))
needs_binutils = pytest.mark.skipif(
    sys.platform != "linux" or not _HAVE_TOOLS, reason="needs Linux, g++ and GNU binutils"
)

# Code that reads an embedded binary through the two symbols, as a kernel
# library does; NAME is replaced per test.
_READER_CC = r"""
#include <cstddef>
extern "C" {
extern const unsigned char __tvm_ffi__cubin_NAME[];
extern const unsigned char __tvm_ffi__cubin_NAME_end[];
const unsigned char* FUNC_data() { return __tvm_ffi__cubin_NAME; }
size_t FUNC_size() {
  return static_cast<size_t>(__tvm_ffi__cubin_NAME_end - __tvm_ffi__cubin_NAME);
}
}
"""


def _compile_reader(folder: Path, name: str, func: str) -> Path:
    src = folder / f"{func}.cc"
    src.write_text(_READER_CC.replace("NAME", name).replace("FUNC", func))
    obj = folder / f"{func}.o"
    subprocess.run(["g++", "-c", "-fPIC", "-O1", "-o", str(obj), str(src)], check=True)
    return obj


def _symbols(obj: Path) -> dict[str, str]:
    """Symbol name -> nm's type letter (lower case: local)."""
    out = subprocess.run(["nm", str(obj)], check=True, capture_output=True, text=True).stdout
    return {parts[-1]: parts[-2] for parts in map(str.split, out.splitlines()) if len(parts) >= 2}


def _read_embedded(lib: ctypes.CDLL, func: str) -> bytes:
    data, size = getattr(lib, f"{func}_data"), getattr(lib, f"{func}_size")
    data.restype, size.restype = ctypes.c_void_p, ctypes.c_size_t
    return ctypes.string_at(data(), size())


@needs_binutils
def test_embed_cubin_bytes_reach_the_library(tmp_path: Path) -> None:
    # Two objects embed different binaries under the same name: the symbols
    # are local, so both link into one library and each reads its own bytes.
    payloads = {"first": bytes(range(256)) * 3 + b"\x00tail", "second": b"PTX text .version 8.0"}
    objs = []
    for func, payload in payloads.items():
        (tmp_path / f"{func}.cubin").write_bytes(payload)
        obj = _compile_reader(tmp_path, "kernels", func)
        out = tmp_path / f"{func}_embedded.o"
        embed_cubin(tmp_path / f"{func}.cubin", obj, out, "kernels")
        syms = _symbols(out)
        assert syms["__tvm_ffi__cubin_kernels"] in ("r", "d")
        assert syms["__tvm_ffi__cubin_kernels_end"] in ("r", "d")
        assert out.stat().st_size > obj.stat().st_size + len(payload)
        objs.append(str(out))
    lib_path = tmp_path / "libkernels.so"
    subprocess.run(["g++", "-shared", "-o", str(lib_path), *objs], check=True)
    lib = ctypes.CDLL(str(lib_path))
    for func, payload in payloads.items():
        assert _read_embedded(lib, func) == payload
        # A zero byte follows the end symbol, so PTX text is a C string.
        data = getattr(lib, f"{func}_data")
        assert ctypes.string_at(data() + len(payload), 1) == b"\x00"
        # 64-byte aligned for cubins read in place.
        assert data() % 64 == 0


@needs_binutils
def test_embed_cubin_in_place_and_command_line(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "k.cubin").write_bytes(b"\x7fELF-not-really" * 8)
    obj = _compile_reader(tmp_path, "k", "reader")
    # The output may be the input.
    embed_cubin(str(tmp_path / "k.cubin"), str(obj), str(obj), "k", verbose=True)
    printed = capsys.readouterr().out
    assert "ld -r" in printed and "__tvm_ffi__cubin_k_end" in printed
    assert _symbols(obj)["__tvm_ffi__cubin_k"] == "r"
    # python -m tvmffi.utils.embed_cubin makes the output's folder.
    out = tmp_path / "sub" / "dir" / "reader2.o"
    obj2 = _compile_reader(tmp_path, "k", "reader2")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tvmffi.utils.embed_cubin",
            "--input-obj",
            str(obj2),
            "--cubin",
            str(tmp_path / "k.cubin"),
            "--name",
            "k",
            "--output-obj",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert _symbols(out)["__tvm_ffi__cubin_k_end"] == "r"
    # Errors are one line on stderr and exit status 1.
    assert (
        embed_cubin_module.main(
            [
                "--input-obj",
                str(obj2),
                "--cubin",
                str(tmp_path / "none"),
                "--name",
                "k",
                "--output-obj",
                str(out),
            ]
        )
        == 1
    )
    assert "CUDA binary not found" in capsys.readouterr().err


def test_embed_cubin_bad_arguments(tmp_path: Path) -> None:
    cubin = tmp_path / "k.cubin"
    with pytest.raises(FileNotFoundError, match="CUDA binary not found"):
        embed_cubin(cubin, tmp_path / "a.o", tmp_path / "b.o", "k")
    cubin.write_bytes(b"x")
    with pytest.raises(FileNotFoundError, match="input object file not found"):
        embed_cubin(cubin, tmp_path / "a.o", tmp_path / "b.o", "k")
    (tmp_path / "a.o").write_bytes(b"not an object")
    for bad in ("my-kernels", "1st", "k\u00e9", ""):
        with pytest.raises(ValueError, match="not a C identifier"):
            embed_cubin(cubin, tmp_path / "a.o", tmp_path / "b.o", bad)
    if _HAVE_TOOLS:
        # ld's own complaint reaches the message.
        with pytest.raises(RuntimeError, match=r"ld -r\) failed"):
            embed_cubin(cubin, tmp_path / "a.o", tmp_path / "b.o", "k")
        assert not (tmp_path / "b.o").exists()


def _cuda_driver() -> Optional[ctypes.CDLL]:
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or not count.value:
        return None
    return cuda


@needs_binutils
@pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")
def test_embed_cubin_loads_in_the_driver(tmp_path: Path) -> None:
    """A real cubin, embedded and linked, loads with cuModuleLoadData and has its kernel."""
    cuda = _cuda_driver()
    if cuda is None:
        pytest.skip("needs a CUDA GPU and driver")
    (tmp_path / "k.cu").write_text(
        'extern "C" __global__ void add_one(float* x, int n) {\n'
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] += 1.0f;\n}\n"
    )
    # PTX rather than a cubin for one architecture: the driver JIT-compiles it for any GPU.
    subprocess.run(
        ["nvcc", "-ptx", "-o", str(tmp_path / "k.ptx"), str(tmp_path / "k.cu")], check=True
    )
    obj = _compile_reader(tmp_path, "add", "reader")
    embed_cubin(tmp_path / "k.ptx", obj, obj, "add")
    lib_path = tmp_path / "libadd.so"
    subprocess.run(["g++", "-shared", "-o", str(lib_path), str(obj)], check=True)
    lib = ctypes.CDLL(str(lib_path))
    lib.reader_data.restype = ctypes.c_void_p
    device, ctx = ctypes.c_int(0), ctypes.c_void_p()
    assert cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
    assert cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), device) == 0
    try:
        assert cuda.cuCtxPushCurrent_v2(ctx) == 0
        module, func = ctypes.c_void_p(), ctypes.c_void_p()
        assert cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_void_p(lib.reader_data())) == 0
        assert cuda.cuModuleGetFunction(ctypes.byref(func), module, b"add_one") == 0
        assert func.value
        assert cuda.cuModuleUnload(module) == 0
        cuda.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    finally:
        cuda.cuDevicePrimaryCtxRelease_v2(device)


# Module-level classes: typing.get_type_hints resolves them (PEP 563 strings).
@dataclasses.dataclass
class Point:
    """Two leaf fields."""

    x: int
    y: float


@dataclasses.dataclass
class Shape3D(Point):
    """A subclass with one more field."""

    z: int


@dataclasses.dataclass
class Scene:
    """One field of each kind of schema entry."""

    origin: Point
    name: str
    labels: dict[str, int]
    points: list[Point]
    extra: Any
    maybe: Optional[int]
    pair: tuple[int, ...]


@dataclasses.dataclass
class Chain:
    """Self-referential: the nested field is dispatched at run time."""

    value: int
    next: Optional[Chain]


@dataclasses.dataclass
class Single:
    """One leaf field."""

    only: str


@dataclasses.dataclass
class Empty:
    """No fields."""


def test_extract_schema() -> None:
    assert _extract_dataclass_to_tuple_schema(Scene) == {
        "origin": {"x": None, "y": None},
        "name": None,
        "labels": None,
        "points": "unpack",
        "extra": "unpack",
        "maybe": None,
        "pair": None,
    }
    assert _extract_dataclass_to_tuple_schema(Chain) == {"value": None, "next": "unpack"}
    assert _extract_dataclass_to_tuple_schema(Empty) == {}
    with pytest.raises(TypeError, match="Expected a dataclass class"):
        _extract_dataclass_to_tuple_schema(Point(1, 2.0))  # an instance, not the class

    @dataclasses.dataclass
    class Local:
        p: Point  # a module-level name: resolvable

    @dataclasses.dataclass
    class Unresolvable:
        inner: Local  # a local name: get_type_hints fails, every field unpacks
        n: int

    assert _extract_dataclass_to_tuple_schema(Local) == {"p": {"x": None, "y": None}}
    assert _extract_dataclass_to_tuple_schema(Unresolvable) == {"inner": "unpack", "n": "unpack"}


def test_validate_schema() -> None:
    _validate_dataclass_to_tuple_schema({"a": None, "b": "unpack", "c": {"d": None}})
    with pytest.raises(TypeError, match="must be a dict"):
        _validate_dataclass_to_tuple_schema({"a": ["x"]})  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="must be a string"):
        _validate_dataclass_to_tuple_schema({1: None})  # type: ignore[dict-item]
    with pytest.raises(ValueError, match="not a valid Python identifier"):
        _validate_dataclass_to_tuple_schema({"a": {"x)": None}})
    with pytest.raises(ValueError, match="is a Python keyword"):
        _validate_dataclass_to_tuple_schema({"lambda": None})


def test_unpack_values() -> None:
    holder = object()
    labels = {"a": 1}
    scene = Scene(
        origin=Point(1, 2.0),
        name="s",
        labels=labels,
        points=[Point(3, 4.0), Point(5, 6.0)],
        extra=[Single("q"), holder],
        maybe=None,
        pair=(7, 8),
    )
    out = unpack_dataclass_to_tuple(scene)
    assert out == ((1, 2.0), "s", {"a": 1}, [(3, 4.0), (5, 6.0)], [("q",), holder], None, (7, 8))
    assert out[2] is labels  # a leaf-typed field is not copied
    assert out[4][1] is holder
    # A subclass instance in a field declared as the base keeps its own fields.
    scene.origin = Shape3D(1, 2.0, 3)
    assert unpack_dataclass_to_tuple(scene)[0] == (1, 2.0, 3)
    # None where a dataclass is declared passes through.
    scene.origin = None  # type: ignore[assignment]
    assert unpack_dataclass_to_tuple(scene)[0] is None
    assert unpack_dataclass_to_tuple(Chain(1, Chain(2, Chain(3, None)))) == (1, (2, (3, None)))
    assert unpack_dataclass_to_tuple(Single("z")) == ("z",)
    assert unpack_dataclass_to_tuple(Empty()) == ()
    # Containers at the top level, and leaves.
    assert unpack_dataclass_to_tuple({"k": (Point(0, 0.5), [Empty()])}) == {"k": ((0, 0.5), [()])}
    for leaf in (3, 2.5, "s", b"b", None, True, 1j):
        assert unpack_dataclass_to_tuple(leaf) is leaf
    # The same class unpacks the same way again (cached per class).
    assert unpack_dataclass_to_tuple(Point(9, 1.0)) == (9, 1.0)
    assert unpack_dataclass_to_tuple(Point(9, 1.0)) == (9, 1.0)


def test_unpack_is_available_as_tvm_ffi() -> None:
    """Code written for upstream imports the same functions under tvm_ffi.utils."""
    pytest.importorskip("tvm_ffi")
    from tvm_ffi.utils.embed_cubin import embed_cubin as upstream_name
    from tvm_ffi.utils.unpack_dataclass import unpack_dataclass_to_tuple as unpack

    assert upstream_name is embed_cubin
    assert unpack is unpack_dataclass_to_tuple


def test_unpack_named_tuple_keeps_its_type() -> None:
    pair = collections.namedtuple("Pair", "point leaf")
    leaf = object()
    out = unpack_dataclass_to_tuple([pair(Point(1, 2.0), leaf)])
    assert out == [pair((1, 2.0), leaf)]
    assert type(out[0]) is pair and out[0].leaf is leaf

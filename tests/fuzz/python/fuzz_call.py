"""Atheris fuzz target: the Python conversion and call path (issue #43).

Each input becomes a few Python values (None, bools, ints past int64, NaN and
infinities, str with lone surrogates, bytes, numpy arrays of several dtypes
and layouts -- strided, reversed, read-only, 0-d, empty --, tvmffi.Tensors,
devices, dtypes, objects with a hostile __index__, callables, and lists,
tuples and dicts of them, nested), then goes through tvmffi.convert, a Python
callback called through the FFI (Python -> FFI -> Python), and a CPU kernel
picked by the input with the values as arguments. Property: each returns or
raises an exception of a kind the call path documents; anything else, and
any crash or sanitizer report, is a finding. Run by .ci/fuzz-python.sh.

Usage: python fuzz_call.py KERNELS_SO [libFuzzer flags...]
"""

from __future__ import annotations

import sys
from typing import Any

import atheris

with atheris.instrument_imports():
    import tvmffi

import numpy as np

# What the call path may raise for bad input (a MemoryError only for a huge request).
KNOWN = (
    TypeError,
    ValueError,
    OverflowError,
    RuntimeError,
    IndexError,
    KeyError,
    BufferError,
    UnicodeError,
    RecursionError,
    AttributeError,
    NotImplementedError,
    MemoryError,
)

DTYPES = ["float32", "float64", "int8", "int32", "int64", "uint8", "bool", "float16", ">f4"]
KERNELS = [
    "add_one",
    "scale",
    "add",
    "scale_alloc",
    "add_int",
    "greet",
    "sum",
    "nop3",
    "fill",
    "add_bias",
    "sum_all",
    "fill_all",
]


class HostileIndex:
    """An object whose __index__ raises, lies about its type, or overflows."""

    def __init__(self, mode: int) -> None:
        self.mode = mode

    def __index__(self) -> Any:
        if self.mode == 0:
            raise ValueError("hostile __index__")
        if self.mode == 1:
            return "not an int"  # noqa: PLE0305 (hostile on purpose)
        return 2**70


@atheris.instrument_func
def make_array(fdp: atheris.FuzzedDataProvider) -> Any:
    dtype = DTYPES[fdp.ConsumeIntInRange(0, len(DTYPES) - 1)]
    ndim = fdp.ConsumeIntInRange(0, 3)
    shape = tuple(fdp.ConsumeIntInRange(0, 4) for _ in range(ndim))
    a = np.arange(int(np.prod(shape)) if shape else 1).astype(dtype).reshape(shape)
    layout = fdp.ConsumeIntInRange(0, 4)
    if layout == 1 and ndim >= 1:
        a = a[::-1]
    elif layout == 2 and ndim >= 2:
        a = a.T
    elif layout == 3 and ndim >= 1:
        a = a[::2]
    if fdp.ConsumeBool():
        a.flags.writeable = False
    return a


@atheris.instrument_func
def make_value(fdp: atheris.FuzzedDataProvider, depth: int = 0) -> Any:
    kind = fdp.ConsumeIntInRange(0, 15 if depth < 4 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return fdp.ConsumeBool()
    if kind == 2:
        return fdp.ConsumeInt(fdp.ConsumeIntInRange(1, 10))
    if kind == 3:
        return fdp.ConsumeFloat()
    if kind == 4:
        return fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 12))
    if kind == 5:
        return fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 12))
    if kind == 6:
        return make_array(fdp)
    if kind == 7:
        return tvmffi.from_dlpack(make_array(fdp))
    if kind == 8:
        return HostileIndex(fdp.ConsumeIntInRange(0, 2))
    if kind == 9:
        return [make_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4))]
    if kind == 10:
        return tuple(make_value(fdp, depth + 1) for _ in range(fdp.ConsumeIntInRange(0, 4)))
    if kind == 11:
        n = fdp.ConsumeIntInRange(0, 3)
        return {fdp.ConsumeUnicode(4): make_value(fdp, depth + 1) for _ in range(n)}
    if kind == 12:
        v = make_value(fdp, depth + 1)
        return lambda *args: v
    if kind == 13:
        return tvmffi.device(fdp.ConsumeIntInRange(-2, 20), fdp.ConsumeIntInRange(-2, 3))
    if kind == 14:
        return tvmffi.dtype(fdp.ConsumeUnicode(8))
    # A list that contains itself.
    cyc: list[Any] = [make_value(fdp, depth + 1)]
    cyc.append(cyc)
    return cyc


def checked(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except KNOWN:
        return None


def main() -> None:
    mod = tvmffi.load_module(sys.argv[1])
    kernels = [mod.get_function(name) for name in KERNELS]
    echo = tvmffi.Function(lambda *args: args)

    @atheris.instrument_func
    def one_input(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        try:
            values = [make_value(fdp) for _ in range(fdp.ConsumeIntInRange(0, 4))]
        except KNOWN:
            return  # a value the fuzzer asked for cannot be made (a bad dtype, device)
        for v in values:
            checked(tvmffi.convert, v)
        checked(echo, *values)
        kernel = kernels[fdp.ConsumeIntInRange(0, len(kernels) - 1)]
        checked(kernel, *values)

    atheris.Setup([sys.argv[0], *sys.argv[2:]], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

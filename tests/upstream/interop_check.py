#!/usr/bin/env python3
"""One cell of the interop matrix of tests/upstream/interop.sh.

    python interop_check.py LIB

Run by the python of a venv where `tvm_ffi` is either upstream's package (its
wheel) or ours (the tvmffi wheel and the drop-in), it loads LIB (tests/upstream/
xlib.cc built against either side's headers) and checks every object type both
ways: Array, Map, String, Function, Tensor (through DLPack) and errors. Last,
it checks that the process holds one TVM-FFI runtime: exactly one
libtvm_ffi.so is mapped, the host package's own.
Prints PASS/FAIL lines and "interop: N passed, N failed"; exits 1 on a failure.
"""

from __future__ import annotations

import os
import sys

import numpy as np

import tvm_ffi

results: list[tuple[str, bool, str]] = []


def check(name, fn):
    try:
        ok = bool(fn())
        results.append((name, ok, "" if ok else "returned False"))
    except Exception as err:
        results.append((name, False, f"{type(err).__name__}: {err}"))


def raises_value_error(fn):
    try:
        fn()
    except ValueError:
        return True
    return False


def mapped_runtimes():
    paths = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if os.path.basename(path).startswith("libtvm_ffi.so"):
                paths.add(os.path.realpath(path))
    return paths


def main() -> int:
    lib = sys.argv[1]
    mod = tvm_ffi.load_module(lib)
    x = np.arange(4, dtype="float32")
    y = np.zeros(4, dtype="float32")

    def bad():
        raise ValueError("from the host")

    check("call: add_int", lambda: mod.add_int(40, 2) == 42)
    check("Array host->lib", lambda: mod.array_sum(tvm_ffi.convert([1, 2, 3])) == 6)
    check("Array lib->host", lambda: list(mod.make_array(4)) == [0, 1, 4, 9])
    check("Map host->lib", lambda: mod.map_get(tvm_ffi.convert({"a": 1, "b": 2}), "b") == 2)
    check("Map lib->host", lambda: (m := mod.make_map(3))["k2"] == 2 and len(m) == 3)
    check("String host->lib", lambda: mod.str_len("a string of 24 bytes....") == 24)
    check("String lib->host", lambda: mod.make_str(20) == "x" * 20)
    check("Function host->lib", lambda: mod.call_fn(lambda v: v * 2, 5) == 11)
    check("Function lib->host", lambda: mod.make_fn(3)(4) == 12)
    check("Tensor host->lib", lambda: mod.tensor_sum(tvm_ffi.from_dlpack(x)) == 6.0)
    check(
        "Tensor written by lib",
        lambda: (
            mod.add_one(tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(y)) is None
            and (y == x + 1).all()
        ),
    )
    check("error lib->host", lambda: raises_value_error(lambda: mod.raise_value_error("boom")))
    check("error host->lib", lambda: mod.catch_kind(bad) == "ValueError")
    big = (1 << 100) + 7
    check("BigInt host->lib->host", lambda: mod.bigint_mul(big, -big) == -big * big)
    xmod = mod.make_module()
    check(
        "Module lib->host: kind, get_function, inspect_source",
        lambda: (
            xmod.kind == "xmod"
            and xmod.get_function("twice")(21) == 42
            and xmod.inspect_source("cuda") == "// xmod source, format=cuda"
            and list(xmod.get_write_formats()) == ["cc"]
            and xmod.get_property_mask() == 0b100
        ),
    )

    def imported():
        mod.import_module(xmod)
        try:
            return (
                mod.get_function("twice", query_imports=True)(4) == 8
                and mod.get_function_doc("twice", query_imports=True) == "Twice its argument."
                and len(mod.imports) == 1
            )
        finally:
            mod.clear_imports()

    check("Module lib->host: imported into the loaded library", imported)
    check(
        "Module host->lib: the library calls the runtime's module",
        lambda: mod.probe_module(mod) == "library|yes|42|0|none",
    )
    host_root = os.path.dirname(os.path.realpath(tvm_ffi.__file__))
    runtimes = mapped_runtimes()
    check(
        "one runtime in the process (the host's)",
        lambda: len(runtimes) == 1 and next(iter(runtimes)).startswith(host_root),
    )
    for name, ok, why in results:
        print(f"{'PASS' if ok else 'FAIL'}: {name}{'' if ok else ' (' + why + ')'}")
    if len(runtimes) != 1:
        print(f"runtimes mapped: {sorted(runtimes)}")
    passed = sum(ok for _, ok, _ in results)
    print(f"interop: {passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())

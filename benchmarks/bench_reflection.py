#!/usr/bin/env python3
"""Cost of the package's reflection paths, two builds of tvmffi side by side.

Compares two package folders (each a folder holding ``tvmffi/``, such as a
build tree's ``<build>/python``): ``import tvmffi`` in a fresh interpreter, and,
after the import, the paths that read the runtime's type records and fields:

* ``type_info``: a type's record read again (the registry's entry dropped);
* ``field_get`` / ``field_set``: a reflected field read / written by address;
* ``prop_get``: the same field through its property on an object;
* ``make_object``: an object made by its type's creator, fields set;
* ``type_attr``: a type attribute (``__ffi_init__``) looked up;
* ``chandle_of``: the handle of an object;
* ``type_key_to_index``: a type key's index;
* ``py_field_get`` / ``py_field_set``: an ``int`` field of a ``@py_class`` type
  read / written through its property (the write converts with its schema);
* ``py_object``: a ``@py_class`` object constructed (two fields).

Every case runs in child processes, the two builds alternating round by round
(``-n`` rounds), so both see the same machine load; each child reports the
best of a few repeats per operation. Prints the median per build and the ratio
after / before (below 1: the second build is faster). Speed is reported, never
asserted.

    python3 benchmarks/bench_reflection.py --before OLD/python --after NEW/python [-n 9]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

IMPORT_CHILD = (
    "import time, json\n"
    "t0 = time.perf_counter()\n"
    "import tvmffi\n"
    "print(json.dumps({'import': time.perf_counter() - t0}))\n"
)

PATHS_CHILD = r"""
import json, timeit
import tvmffi
from tvmffi import _reflection as r

KEY = "ffi.reflection.AccessStep"
obj = r.make_object(KEY, kind=1, key="a")
info = r.type_info(KEY)
index = info.type_index
field = info.find_field("kind")
handle = r.chandle_of(obj)
cls = r.fallback_class(index)
prop = getattr(cls, "kind")


from tvmffi.core import Object
from tvmffi.dataclasses import py_class


@py_class("bench_reflection.Point")
class Point(Object):
    x: int
    y: float = 1.5


point = Point(1)


def py_set():
    point.x = 2


def again():
    r.TYPE_INDEX_TO_INFO.pop(index, None)
    r.TYPE_KEY_TO_INFO.pop(KEY, None)
    r.type_info(index)


cases = {
    "type_info": again,
    "field_get": lambda: field.get_at(handle),
    "field_set": lambda: field.set_at(handle, 2),
    "prop_get": lambda: prop.fget(obj),
    "make_object": lambda: r.make_object(KEY, kind=1, key="a"),
    "type_attr": lambda: r.type_attr(index, "__ffi_init__"),
    "chandle_of": lambda: r.chandle_of(obj),
    "type_key_to_index": lambda: r.type_key_to_index(KEY),
    "py_field_get": lambda: point.x,
    "py_field_set": py_set,
    "py_object": lambda: Point(1, 2.5),
}
out = {}
for name, fn in cases.items():
    number = 2000
    best = min(timeit.repeat(fn, number=number, repeat=5)) / number
    out[name] = best
print(json.dumps(out))
"""


def child(pythonpath: str, code: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, env=env
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="folder holding the old tvmffi/")
    ap.add_argument("--after", required=True, help="folder holding the new tvmffi/")
    ap.add_argument("-n", type=int, default=9, help="rounds (default 9)")
    args = ap.parse_args()
    sides = {"before": args.before, "after": args.after}
    samples: dict[str, dict[str, list[float]]] = {s: {} for s in sides}
    for r in range(args.n):
        order = list(sides) if r % 2 == 0 else list(reversed(sides))
        for side in order:
            for code in (IMPORT_CHILD, PATHS_CHILD):
                for name, value in child(sides[side], code).items():
                    samples[side].setdefault(name, []).append(value)
    print(f"{'case':<20}{'before':>14}{'after':>14}{'after/before':>14}")
    for name in samples["before"]:
        b = statistics.median(samples["before"][name])
        a = statistics.median(samples["after"][name])
        unit, scale = ("ms", 1e3) if name == "import" else ("us", 1e6)
        print(f"{name:<20}{b * scale:>11.2f} {unit}{a * scale:>11.2f} {unit}{a / b:>14.2f}")


if __name__ == "__main__":
    main()

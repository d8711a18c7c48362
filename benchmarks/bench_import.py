#!/usr/bin/env python3
"""Import time of the package, side by side with upstream's `tvm_ffi`.

Each case runs N times, each time in a fresh interpreter process, the cases
alternating (round r runs them all, starting at a different one each round).
The child measures its own import with time.perf_counter() around the import
statement, so the interpreter's start-up is not in the number; the wall time
of the whole child process is reported too.

    python3 benchmarks/bench_import.py --ours VENV/bin/python \\
        [--upstream UPSTREAM_VENV/bin/python] [-n 30] [--importtime]

--ours names an interpreter where tvmffi and the drop-in `tvm_ffi` distribution
(python/compat) are installed; --upstream one where apache/tvm-ffi's package is
installed. Use interpreters made from the same base (e.g. two
`/usr/bin/python3 -m venv --system-site-packages` venvs), so that only the
package differs. Cases: `import tvmffi` and `import tvm_ffi` (the drop-in name)
with --ours, `import tvm_ffi` with --upstream, and `pass` (the empty import:
what the timing itself costs) with --ours; with --block-torch, the imports
again with torch made unimportable (upstream's package imports torch first
when it can).

--importtime also runs each case once under `python -X importtime` and prints
the modules with the largest cumulative import time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time

CHILD = (
    "import time, json\n"
    "t0 = time.perf_counter()\n"
    "{stmt}\n"
    "t1 = time.perf_counter()\n"
    "print(json.dumps({{'import_s': t1 - t0}}))\n"
)


def run_once(python: str, stmt: str, env: dict | None) -> tuple[float, float]:
    """(import seconds measured in the child, wall seconds of the child)."""
    start = time.perf_counter()
    out = subprocess.run(
        [python, "-c", CHILD.format(stmt=stmt)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    wall = time.perf_counter() - start
    line = out.stdout.strip().splitlines()[-1]
    return json.loads(line)["import_s"], wall


def importtime(python: str, stmt: str, top: int, env: dict | None) -> list[tuple[int, int, str]]:
    """The `top` largest (cumulative us, self us, module) of `python -X importtime`."""
    out = subprocess.run(
        [python, "-X", "importtime", "-c", stmt],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    rows = []
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        parts = line[len("import time:") :].split("|")
        if len(parts) != 3:
            continue
        rows.append((int(parts[1]), int(parts[0]), parts[2].rstrip()))
    rows.sort(reverse=True)
    return rows[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ours", required=True, help="python with tvmffi and the drop-in tvm_ffi")
    parser.add_argument("--upstream", help="python with apache/tvm-ffi's tvm_ffi package")
    parser.add_argument("-n", type=int, default=30, help="processes per case (default 30)")
    parser.add_argument(
        "--importtime", action="store_true", help="print -X importtime's top modules"
    )
    parser.add_argument("--top", type=int, default=15, help="rows of the -X importtime breakdown")
    parser.add_argument(
        "--block-torch",
        action="store_true",
        help="also run the imports with torch made unimportable",
    )
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()

    cases = [
        ("empty (pass)", args.ours, "pass"),
        ("tvmffi: import tvmffi", args.ours, "import tvmffi"),
        ("tvmffi: import tvm_ffi (drop-in)", args.ours, "import tvm_ffi"),
    ]
    if args.upstream:
        cases.append(("upstream: import tvm_ffi", args.upstream, "import tvm_ffi"))
    if args.block_torch:
        # Upstream's package imports torch first when it can; with torch made
        # unimportable (sys.modules["torch"] = None) the comparison is of the
        # packages alone.
        block = "import sys; sys.modules['torch'] = None; "
        cases.append(("tvmffi: import tvmffi, torch blocked", args.ours, block + "import tvmffi"))
        if args.upstream:
            cases.append(
                ("upstream: import tvm_ffi, torch blocked", args.upstream, block + "import tvm_ffi")
            )
    # The drop-in must really be ours, and upstream's really upstream's.
    check = "import tvm_ffi, sys; print(getattr(tvm_ffi, '__file__', ''))"
    for name, python, _ in cases[1:3] + [c for c in cases if c[0] == "upstream: import tvm_ffi"]:
        where = subprocess.run([python, "-c", check], check=True, capture_output=True, text=True)
        print(f"# {name}: {python} -> {where.stdout.strip()}")

    samples: dict[str, list[tuple[float, float]]] = {name: [] for name, _, _ in cases}
    for name, python, stmt in cases:  # warm the OS page cache and .pyc files
        run_once(python, stmt, None)
    for r in range(args.n):
        k = r % len(cases)
        for name, python, stmt in cases[k:] + cases[:k]:
            samples[name].append(run_once(python, stmt, None))

    def stat(name: str, idx: int, fn) -> float:
        return fn([s[idx] for s in samples[name]]) * 1e3

    print(
        f"\nimport time, ms ({args.n} fresh processes per case, alternating; "
        f"python {sys.version.split()[0]})"
    )
    header = f"{'case':40s} {'median':>8s} {'min':>8s} {'wall med':>9s} {'wall min':>9s}"
    print(header)
    results = {}
    for name, _, _ in cases:
        row = {
            "median_ms": stat(name, 0, statistics.median),
            "min_ms": stat(name, 0, min),
            "wall_median_ms": stat(name, 1, statistics.median),
            "wall_min_ms": stat(name, 1, min),
        }
        results[name] = row
        print(
            f"{name:40s} {row['median_ms']:8.1f} {row['min_ms']:8.1f} "
            f"{row['wall_median_ms']:9.1f} {row['wall_min_ms']:9.1f}"
        )
    if args.upstream:
        up = results["upstream: import tvm_ffi"]
        print("\nratio to upstream's `import tvm_ffi` (median / min):")
        pairs = [
            (name, up) for name in ("tvmffi: import tvmffi", "tvmffi: import tvm_ffi (drop-in)")
        ]
        if args.block_torch:
            pairs.append(
                (
                    "tvmffi: import tvmffi, torch blocked",
                    results["upstream: import tvm_ffi, torch blocked"],
                )
            )
        for name, base in pairs:
            ours = results[name]
            print(
                f"  {name:40s} {ours['median_ms'] / base['median_ms']:.2f} / "
                f"{ours['min_ms'] / base['min_ms']:.2f}"
            )
    if args.importtime:
        for name, python, stmt in cases[1:]:
            print(f"\n-X importtime, {name}: cumulative us, self us, module")
            for cum, own, mod in importtime(python, stmt, args.top, None):
                print(f"  {cum:9d} {own:9d} {mod}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"n": args.n, "python": sys.version, "results": results}, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

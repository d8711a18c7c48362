#!/usr/bin/env python3
"""Per-call cost of tvmffi from Python, next to baselines timed in the same run.

Cases (each the best of --repeat batches of --number calls, in microseconds):
  add_int(1, 2)                  an exported scalar function
  nop3(x, y, z)                  three 1-element tensors: numpy, torch CPU, torch CUDA
  scale(out, x, 2.0)             the CUDA kernel library, torch CUDA tensors (host time)
Baselines: numpy.add(x, y, out=z), torch.add(x, y, out=z), torch.mul(x, 2.0, out=y).

Run with the package on PYTHONPATH (e.g. build/release/python):
  PYTHONPATH=build/release/python /usr/bin/python3 benchmarks/bench_python.py
CUDA cases are skipped (and say so) without a GPU or without --cuda-kernels.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit
from typing import Any, Callable

import tvmffi

# Upstream tvm_ffi's ratios to the same baselines (H200 machine, one run):
# the ratio is what compares across machines. Targets: 0.8x upstream's
# ratio, and 0.3x torch for the CUDA scale kernel.
UPSTREAM_RATIO = {"nop3 numpy": 0.715 / 0.354, "nop3 torch CPU": 0.544 / 1.029,
                  "nop3 torch CUDA": 0.573 / 5.76}
TARGET = {name: 0.8 * ratio for name, ratio in UPSTREAM_RATIO.items()}
TARGET["scale torch CUDA (host)"] = 0.3


def per_call_us(stmts: list[str], env: dict[str, Any], number: int, repeat: int,
                setup: str = "pass") -> list[float]:
    """Best per-call time of each statement; batches alternate, so that a busy
    (shared) machine slows the case and its baseline alike."""
    timers = [timeit.Timer(s, setup=setup, globals=env) for s in stmts]
    best = [float("inf")] * len(stmts)
    for _ in range(repeat):
        for i, t in enumerate(timers):
            best[i] = min(best[i], t.repeat(repeat=1, number=number)[0])
    return [b / number * 1e6 for b in best]


def default_library(name: str) -> str | None:
    pkg = os.path.dirname(os.path.abspath(tvmffi.__file__))
    path = os.path.join(os.path.dirname(os.path.dirname(pkg)), "kernels", name)
    return path if os.path.exists(path) else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cpu-kernels", default=default_library("libtvmffi_cpu_kernels.so"),
                        help="libtvmffi_cpu_kernels.so (default: next to the build-tree package)")
    parser.add_argument("--cuda-kernels", default=default_library("libtvmffi_kernels.so"),
                        help="libtvmffi_kernels.so (CUDA cases)")
    parser.add_argument("--number", type=int, default=10000, help="calls per batch")
    parser.add_argument("--repeat", type=int, default=25, help="batches (the best one counts)")
    args = parser.parse_args()
    if args.cpu_kernels is None:
        print("error: libtvmffi_cpu_kernels.so not found; pass --cpu-kernels", file=sys.stderr)
        return 2

    mod = tvmffi.load_module(args.cpu_kernels)
    rows: list[tuple[str, float, str, float | None]] = []
    n, r = args.number, args.repeat

    def row(name: str, stmt: str, env: dict[str, Any], base_name: str = "",
            base_stmt: str = "", setup: str = "pass", scale: int = 1) -> None:
        times = per_call_us([stmt] + ([base_stmt] if base_stmt else []), env,
                            max(n // scale, 100), r, setup)
        rows.append((name, times[0], base_name, times[1] if base_stmt else None))

    row("add_int(1, 2)", "f(1, 2)", {"f": mod.add_int})

    import numpy

    x, y, z = (numpy.zeros(1, numpy.float32) for _ in range(3))
    row("nop3 numpy", "f(x, y, z)", {"f": mod.nop3, "x": x, "y": y, "z": z, "np": numpy},
        "numpy.add(x, y, out=z)", "np.add(x, y, out=z)")

    skipped: list[str] = []
    try:
        import torch
    except ImportError:
        torch = None
        skipped.append("torch cases: torch is not installed")
    if torch is not None:
        tx, ty, tz = (torch.zeros(1) for _ in range(3))
        env = {"f": mod.nop3, "x": tx, "y": ty, "z": tz, "torch": torch}
        row("nop3 torch CPU", "f(x, y, z)", env, "torch.add(x, y, out=z)",
            "torch.add(x, y, out=z)")
        if not torch.cuda.is_available():
            skipped.append("torch CUDA cases: no GPU (torch.cuda.is_available() is False)")
        else:
            cx, cy, cz = (torch.zeros(1, device="cuda") for _ in range(3))
            env = {"f": mod.nop3, "x": cx, "y": cy, "z": cz, "torch": torch}
            sync = "torch.cuda.synchronize()"
            row("nop3 torch CUDA", "f(x, y, z)", env, "torch.add(x, y, out=z)",
                "torch.add(x, y, out=z)", setup=sync, scale=4)
            if args.cuda_kernels is None:
                skipped.append("scale on CUDA: libtvmffi_kernels.so not found (--cuda-kernels)")
            else:
                cuda = tvmffi.load_module(args.cuda_kernels)
                big = torch.zeros(1 << 10, device="cuda")
                out = torch.zeros_like(big)
                env = {"f": cuda.scale, "x": big, "y": out, "torch": torch}
                row("scale torch CUDA (host)", "f(y, x, 2.0)", env, "torch.mul(x, 2.0, out=y)",
                    "torch.mul(x, 2.0, out=y)", setup=sync, scale=4)

    print(f"tvmffi {tvmffi.__version__}, Python {sys.version.split()[0]}, numpy {numpy.__version__}"
          + (f", torch {torch.__version__}" if torch is not None else ""))
    print(f"best of {r} batches; microseconds per call")
    print(f"{'case':26} {'tvmffi':>9}  {'baseline':26} {'base':>9} {'ratio':>7}")
    for name, ours, base_name, base in rows:
        if base is None:
            print(f"{name:26} {ours:9.3f}")
            continue
        ratio = ours / base
        note = ""
        if name in TARGET:
            up = UPSTREAM_RATIO.get(name)
            note = "  (" + (f"upstream {up:.2f}x, " if up is not None else "")
            note += f"target <= {TARGET[name]:.2f}x: "
            note += ("met" if ratio <= TARGET[name] else "NOT met") + ")"
        print(f"{name:26} {ours:9.3f}  {base_name:26} {base:9.3f} {ratio:6.2f}x{note}")
    for s in skipped:
        print(f"skipped: {s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The project's CUDA kernels against torch's own ops, side by side in one run.

GPU time: every kernel x dtype x size, ours and torch's on the same tensors,
each captured N times into a CUDA graph and replayed (CUDA events around the
replays), so that launch cost does not hide the kernel; the two sides
alternate for several rounds and each keeps its median. A device-to-device
copy of the same bytes (torch's copy_, a cudaMemcpyAsync) is the floor.
Columns: time per launch (us) for ours and torch, ours/torch (below 1: ours
faster), ours as a fraction of the copy's bandwidth, then ours again with
programmatic dependent launch off ("no PDL": each launch waits for the one
before to finish, as torch's do) and that against torch. With it on (the
library's default on compute capability 9.0+) the next of our launches starts
while the previous kernel drains, which is what back-to-back graph nodes of
ours measure; a launch after a kernel of torch's gains nothing from it.

  elementwise  scale (torch.mul), add (torch.add), axpy (torch.add with alpha),
               add_one (torch.add(x, 1)); float32, float16, bfloat16; 4 KiB to
               1 GiB per operand, an odd size, views at an element offset
               (the same for every operand: "+1"), and views whose offsets
               differ ("mixed": no 16-byte body for either side)
  rows         rmsnorm (torch.nn.functional.rms_norm), softmax (torch.softmax)
               at [8192, 4096] and [65536, 128]

Host time: `scale` on a 1024-element float32 tensor from Python, per call
(batches of calls, synchronized at the end of each), against
torch.mul(x, 2.0, out=y), and a direct launch of the same kernel through
ctypes (tvmffi_kernels_scale_f32_launch) with the bare ctypes call (n = 0).

Run with the package on PYTHONPATH and the kernel library given:
  PYTHONPATH=<build>/python python3 benchmarks/bench_kernels_torch.py \\
      --cuda-kernels <build>/kernels/libtvmffi_kernels.so
Without a GPU (or torch) it prints why and exits 0.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import statistics
import sys
import time
from typing import Any, Callable

KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


def default_library() -> str | None:
    import tvmffi

    pkg = os.path.dirname(os.path.abspath(tvmffi.__file__))
    path = os.path.join(os.path.dirname(os.path.dirname(pkg)), "kernels", "libtvmffi_kernels.so")
    return path if os.path.exists(path) else None


class Timer:
    """Per-launch GPU time of a callable, captured `reps` times into one CUDA graph."""

    def __init__(self, torch: Any, fn: Callable[[], Any], reps: int) -> None:
        self.torch = torch
        self.reps = reps
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up outside the capture
            fn()
        torch.cuda.current_stream().wait_stream(s)
        self.graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self.graph):
            for _ in range(reps):
                fn()
        self.graph.replay()
        torch.cuda.synchronize()

    def sample(self, replays: int) -> float:
        torch = self.torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(replays):
            self.graph.replay()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) * 1e3 / (replays * self.reps)  # us per launch


def side_by_side(
    torch: Any, fns: dict[str, Callable[[], Any]], nbytes: int, rounds: int
) -> dict[str, float]:
    """Median per-launch time (us) of each callable, rounds alternating between them."""
    # About 2 ms of work per replay, at least 1 and at most 100 launches a graph.
    reps = max(1, min(100, int(2e-3 * 3e12 / max(nbytes, 1))))
    timers = {k: Timer(torch, f, reps) for k, f in fns.items()}
    replays = max(2, min(20, int(20e-3 * 3e12 / max(nbytes * reps, 1))))
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(rounds):
        for k, t in timers.items():
            samples[k].append(t.sample(replays))
    del timers
    return {k: statistics.median(v) for k, v in samples.items()}


def copy_floor(torch: Any, cache: dict[int, float], nbytes: int, rounds: int) -> float:
    """Per-launch time (us) of a D2D copy that moves nbytes (read + write), cached by size."""
    if nbytes not in cache:
        n = max(1, nbytes // 2)
        src = torch.empty(n, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        t = side_by_side(torch, {"copy": lambda: dst.copy_(src)}, nbytes, rounds)
        cache[nbytes] = t["copy"]
        del src, dst
    return cache[nbytes]


def elementwise_cases(quick: bool) -> list[tuple[str, ...]]:
    sizes = [4 * KIB, 64 * KIB, 1 * MIB, 16 * MIB, 64 * MIB, 256 * MIB, 1 * GIB]
    if quick:
        sizes = [4 * KIB, 1 * MIB, 64 * MIB, 256 * MIB]
    # (label, bytes per operand or -elements, element offset of out, of the inputs)
    shapes: list[tuple[str, int, int, int]] = []
    for s in sizes:
        shapes.append((fmt_bytes(s), s, 0, 0))
    shapes.append(("odd 1000003", -1000003, 0, 0))
    shapes.append(("64 MiB +1", 64 * MIB, 1, 1))
    shapes.append(("odd 1000003 +1", -1000003, 1, 1))
    shapes.append(("64 MiB mixed", 64 * MIB, 0, 1))
    return [
        (op, dt, *shape)
        for op in ("scale", "add", "axpy", "add_one")
        for dt in ("float32", "float16", "bfloat16")
        for shape in shapes
    ]


class Programmatic:
    """The kernel library's programmatic-launch switch (tvmffi_kernels_set_programmatic_launch)."""

    def __init__(self, lib_path: str) -> None:
        lib = ctypes.CDLL(lib_path)  # the handle of the library tvmffi already loaded
        self.set = getattr(lib, "tvmffi_kernels_set_programmatic_launch", None)
        if self.set is not None:
            self.set.argtypes = [ctypes.c_int]
            self.set.restype = ctypes.c_int

    def without(self, fn: Callable[[], Any]) -> Callable[[], Any] | None:
        """fn launched with the switch off (graphs keep what was launched at capture)."""
        if self.set is None:
            return None

        def call() -> Any:
            old = self.set(0)
            try:
                return fn()
            finally:
                self.set(old)

        return call


def timed_sides(
    ours: Callable[[], Any], theirs: Callable[[], Any], pdl: Programmatic
) -> dict[str, Callable[[], Any]]:
    fns = {"ours": ours, "torch": theirs}
    off = pdl.without(ours)
    if off is not None:
        fns["ours_nopdl"] = off
    return fns


def fmt_bytes(b: int) -> str:
    return f"{b // GIB} GiB" if b >= GIB else f"{b // MIB} MiB" if b >= MIB else f"{b // KIB} KiB"


def run_elementwise(
    torch: Any, mod: Any, case: tuple, copies: dict[int, float], rounds: int, pdl: Programmatic
) -> dict[str, Any]:
    op, dt, label, size, off_out, off_in = case
    dtype = getattr(torch, dt)
    esize = torch.empty(0, dtype=dtype).element_size()
    n = -size if size < 0 else size // esize
    pad = 8
    x_full = torch.randn(n + pad, device="cuda").to(dtype)
    y_full = torch.randn(n + pad, device="cuda").to(dtype)
    o_full = torch.empty(n + pad, dtype=dtype, device="cuda")
    x, y, o = (
        x_full[off_in : off_in + n],
        y_full[off_in : off_in + n],
        o_full[off_out : off_out + n],
    )
    inputs = 2 if op in ("add", "axpy") else 1
    if op == "scale":
        ours, theirs = (lambda: mod.scale(o, x, 2.0)), (lambda: torch.mul(x, 2.0, out=o))
        ref = lambda: x.float() * 2.0
    elif op == "add":
        ours, theirs = (lambda: mod.add(o, x, y)), (lambda: torch.add(x, y, out=o))
        ref = lambda: x.float() + y.float()
    elif op == "axpy":
        ours = lambda: mod.axpy(o, x, y, 0.5)
        theirs = lambda: torch.add(y, x, alpha=0.5, out=o)
        ref = lambda: 0.5 * x.float() + y.float()
    else:
        ours, theirs = (lambda: mod.add_one(o, x)), (lambda: torch.add(x, 1, out=o))
        ref = lambda: x.float() + 1
    ours()  # correctness of what is timed, on these exact views
    torch.testing.assert_close(o.float(), ref(), rtol=1e-2 if esize == 2 else 1e-5, atol=1e-2)
    nbytes = (inputs + 1) * n * esize
    t = side_by_side(torch, timed_sides(ours, theirs, pdl), nbytes, rounds)
    copy = copy_floor(torch, copies, nbytes, rounds)
    del x_full, y_full, o_full, x, y, o
    return {
        "kernel": op,
        "dtype": dt,
        "size": label,
        "n": n,
        "bytes": nbytes,
        "ours_us": t["ours"],
        "torch_us": t["torch"],
        "copy_us": copy,
        "ours_nopdl_us": t.get("ours_nopdl"),
    }


def run_rows(
    torch: Any,
    mod: Any,
    op: str,
    dt: str,
    rows: int,
    cols: int,
    copies: dict[int, float],
    rounds: int,
    pdl: Programmatic,
) -> dict[str, Any]:
    dtype = getattr(torch, dt)
    x = torch.randn(rows, cols, device="cuda").to(dtype)
    w = (torch.rand(cols, device="cuda") + 0.5).to(dtype)
    o = torch.empty_like(x)
    if op == "rmsnorm":
        ours = lambda: mod.rmsnorm(o, x, w, 1e-6)
        theirs = lambda: torch.nn.functional.rms_norm(x, (cols,), w, 1e-6)
    else:
        ours = lambda: mod.softmax(o, x)
        theirs = lambda: torch.softmax(x, -1)
    ours()
    torch.testing.assert_close(o.float(), theirs().float(), rtol=2e-2, atol=2e-3)
    nbytes = 2 * x.numel() * x.element_size()
    t = side_by_side(torch, timed_sides(ours, theirs, pdl), nbytes, rounds)
    copy = copy_floor(torch, copies, nbytes, rounds)
    return {
        "kernel": op,
        "dtype": dt,
        "size": f"[{rows}, {cols}]",
        "n": x.numel(),
        "bytes": nbytes,
        "ours_us": t["ours"],
        "torch_us": t["torch"],
        "copy_us": copy,
        "ours_nopdl_us": t.get("ours_nopdl"),
    }


def print_row(r: dict[str, Any]) -> None:
    ratio = r["ours_us"] / r["torch_us"]
    of_copy = r["copy_us"] / r["ours_us"]
    tb = lambda us: r["bytes"] / (us * 1e-6) / 1e12
    flag = "" if ratio <= 1.0 else "  <-- slower than torch"
    nopdl = ""
    if r.get("ours_nopdl_us"):
        nopdl = f" {r['ours_nopdl_us']:10.2f} {r['ours_nopdl_us'] / r['torch_us']:7.3f}"
    if r["bytes"] >= 2 * 64 * MIB and r["kernel"] not in ("rmsnorm", "softmax") and of_copy < 0.95:
        flag += "  <-- under 0.95 of copy"
    print(
        f"{r['kernel']:8} {r['dtype']:9} {r['size']:>15} {r['ours_us']:10.2f} "
        f"{r['torch_us']:10.2f} "
        f"{ratio:7.3f} {tb(r['ours_us']):7.2f} {tb(r['torch_us']):7.2f} {tb(r['copy_us']):7.2f} "
        f"{of_copy:7.3f}{nopdl}{flag}",
        flush=True,
    )


def host_cost(
    torch: Any, mod: Any, lib_path: str, batches: int, pdl: Programmatic
) -> dict[str, float]:
    """Best per-call host time (us) over batches of 200 calls, each batch synchronized."""
    x = torch.ones(1024, device="cuda")
    y = torch.empty_like(x)
    lib = ctypes.CDLL(lib_path)
    direct = lib.tvmffi_kernels_scale_f32_launch
    direct.argtypes = [
        ctypes.c_void_p,
        ctypes.c_void_p,
        ctypes.c_float,
        ctypes.c_int64,
        ctypes.c_int,
        ctypes.c_void_p,
    ]
    direct.restype = ctypes.c_int
    stream = torch.cuda.current_stream().cuda_stream
    args = (y.data_ptr(), x.data_ptr(), 2.0, x.numel(), x.device.index or 0, stream)
    bare = args[:3] + (0,) + args[4:]
    scale = mod.scale
    cases: dict[str, Callable[[], Any]] = {
        "tvmffi scale(y, x, 2.0)": lambda: scale(y, x, 2.0),
        "torch.mul(x, 2.0, out=y)": lambda: torch.mul(x, 2.0, out=y),
        "ctypes direct launch": lambda: direct(*args),
        "ctypes call, n = 0": lambda: direct(*bare),
    }
    nopdl = "tvmffi scale, no PDL"
    if pdl.set is not None:
        # The same call launching through cuLaunchKernel, without the attribute
        # (the switch is flipped around its batches, not inside the timed calls).
        cases[nopdl] = lambda: scale(y, x, 2.0)
    per_batch = 200
    best = {k: float("inf") for k in cases}
    for f in cases.values():
        for _ in range(50):
            f()
    torch.cuda.synchronize()
    for _ in range(batches):
        for k, f in cases.items():
            old = pdl.set(0) if k == nopdl else None
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(per_batch):
                f()
            t1 = time.perf_counter()
            if old is not None:
                pdl.set(old)
            best[k] = min(best[k], (t1 - t0) / per_batch * 1e6)
    torch.cuda.synchronize()
    torch.testing.assert_close(y, x * 2)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cuda-kernels", help="libtvmffi_kernels.so (default: the build tree's)")
    parser.add_argument("--quick", action="store_true", help="fewer sizes, fewer rounds")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds per case")
    parser.add_argument("--only", default="", help="comma-separated kernels to run (default all)")
    parser.add_argument(
        "--json", default=os.environ.get("TVMFFI_BENCH_JSON"), help="write the rows here as JSON"
    )
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        print("torch is not installed; skipping")
        return 0
    if not torch.cuda.is_available():
        print("no CUDA device (torch.cuda.is_available() is False); skipping")
        return 0
    import tvmffi

    lib_path = args.cuda_kernels or default_library()
    if lib_path is None:
        print("error: libtvmffi_kernels.so not found; pass --cuda-kernels", file=sys.stderr)
        return 2
    mod = tvmffi.load_module(lib_path)
    rounds = 3 if args.quick else args.rounds
    only = {s for s in args.only.split(",") if s}
    props = torch.cuda.get_device_properties(0)
    print(
        f"{props.name}, {props.multi_processor_count} SMs; torch {torch.__version__}, "
        f"CUDA {torch.version.cuda}; tvmffi {tvmffi.__version__}; {time.strftime('%Y-%m-%d')}",
        flush=True,
    )
    print(
        f"GPU time per launch in CUDA graphs, median of {rounds} alternating rounds; TB/s counts "
        f"bytes read + written; copy = D2D copy of the same bytes",
        flush=True,
    )
    print(
        f"{'kernel':8} {'dtype':9} {'size/operand':>15} {'ours us':>10} {'torch us':>10} "
        f"{'o/t':>7} {'ours':>7} {'torch':>7} {'copy':>7} {'o/copy':>7} "
        f"{'noPDL us':>10} {'nP/t':>7}",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    copies: dict[int, float] = {}
    pdl = Programmatic(lib_path)
    for case in elementwise_cases(args.quick):
        if only and case[0] not in only:
            continue
        r = run_elementwise(torch, mod, case, copies, rounds, pdl)
        rows.append(r)
        print_row(r)
        torch.cuda.empty_cache()
    for op in ("rmsnorm", "softmax"):
        if only and op not in only:
            continue
        for dt in ("float32", "float16", "bfloat16"):
            for shape in ((8192, 4096), (65536, 128)):
                r = run_rows(torch, mod, op, dt, *shape, copies, rounds, pdl)
                rows.append(r)
                print_row(r)
    worst = max((r["ours_us"] / r["torch_us"] for r in rows), default=0.0)
    print(f"worst ours/torch: {worst:.3f}", flush=True)
    nopdl = [r["ours_nopdl_us"] / r["torch_us"] for r in rows if r.get("ours_nopdl_us")]
    if nopdl:
        print(f"worst ours/torch without programmatic launch: {max(nopdl):.3f}", flush=True)

    host = host_cost(torch, mod, lib_path, 10 if args.quick else 40, pdl)
    print("\nHost time per call, best of batches of 200 (synchronized after each), us:")
    for k, v in host.items():
        print(f"  {k:28} {v:7.3f}")
    ratio = host["tvmffi scale(y, x, 2.0)"] / host["torch.mul(x, 2.0, out=y)"]
    launch = host["ctypes direct launch"] - host["ctypes call, n = 0"]
    print(
        f"  scale / torch.mul: {ratio:.3f}x (goal <= 0.4x); a direct launch costs "
        f"~{launch:.3f} us here",
        flush=True,
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": props.name, "rows": rows, "host": host}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())

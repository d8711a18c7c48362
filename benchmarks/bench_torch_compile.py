"""Our kernels inside torch.compile and CUDA graphs (issue #42), by size.

A small model, an nn.Sequential of blocks (--layers, default 1) with frozen
weights (parameters w, W; inference), norm -> our kernel -> matmul -> our
kernel; on CUDA (libtvmffi_kernels.so):

    h = layer_norm(x); h = rmsnorm(h, w) [ours]; h = h @ W; y = softmax(h) [ours]

on the CPU (libtvmffi_cpu_kernels.so, --device cpu: CI's check that this
script runs; its times say little):

    h = layer_norm(x); h = scale_alloc(h, 0.5) [ours]; h = h @ W; y = h + 1 [ours]

At each size (small: launch-bound; medium; large: bandwidth- and
compute-bound), the time per step (CUDA events or the CPU clock, median of
repeats) of the same model written
  * in torch's own ops, eager and torch.compile(mode="reduce-overhead");
  * with our kernels through tvmffi.torch ops, eager, torch.compile (default)
    and torch.compile(mode="reduce-overhead": CUDA graphs on CUDA);
  * on CUDA, both models (eager, our ops included) captured once in a
    torch.cuda.CUDAGraph and replayed: what a graph saves without the per-call
    work of inductor's CUDA-graph trees;
with graph breaks counted (torch._dynamo.explain), the reduce-overhead
compiles that fell back from CUDA graphs counted (inductor's cudagraph_skips;
on the CPU, all of them), every compiled result checked against eager, and the ratios of issue #42's goals: ours
reduce-overhead against torch reduce-overhead (<= 1.0) and against ours eager
(<= 0.8 where launches dominate). Then the eager path's cost per call: our
function called directly against the same function through its torch op, on a
tiny tensor. On CUDA, a jitted JAX function calls rmsnorm and softmax through
tvmffi.jax.ffi_function (no hand-written result spec) and is checked.

Usage: bench_torch_compile.py --cuda-kernels libtvmffi_kernels.so [--quick] [--sizes small,...]
           [--layers 1,4]
       bench_torch_compile.py --device cpu --cpu-kernels libtvmffi_cpu_kernels.so [--quick]
           [--sizes ...] [--threads 1]
Exits non-zero on a graph break, a wrong result or a failed JAX check; never
on a time.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any, Callable

import torch
from torch._dynamo.utils import counters

import tvmffi
import tvmffi.torch

# (name, rows, dim) per device: small is launch-bound, large is not.
SIZES = {
    "cuda": [("small", 8, 512), ("medium", 1024, 2048), ("large", 32768, 2048)],
    "cpu": [("small", 4, 64), ("medium", 64, 256), ("large", 512, 1024)],
}


def step_times_us(
    variants: dict[str, Callable], args: tuple, iters: int, repeats: int, cuda: bool
) -> dict[str, float]:
    """Per variant, the median over ``repeats`` of the mean time of ``iters``
    back-to-back steps; the variants take turns, so a slow spell of the
    machine (or of inductor's compile workers) falls on all of them."""
    # Enough warm-up that CUDA-graph trees have recorded and replayed, and the
    # first model measured pays no more of the process's start than the last.
    for fn in variants.values():
        for _ in range(max(3, iters // 10)):
            fn(*args)
    times: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(repeats):
        for k, fn in variants.items():
            if cuda:
                torch.cuda.synchronize()
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                start.record()
                for _ in range(iters):
                    fn(*args)
                end.record()
                torch.cuda.synchronize()
                times[k].append(start.elapsed_time(end) * 1000 / iters)
            else:
                t0 = time.perf_counter()
                for _ in range(iters):
                    fn(*args)
                times[k].append((time.perf_counter() - t0) * 1e6 / iters)
    return {k: statistics.median(v) for k, v in times.items()}


class Block(torch.nn.Module):
    """One block of the model; ``ops`` None: torch's own ops, else ours."""

    def __init__(self, ops: Any, dim: int, cuda: bool, dtype: torch.dtype) -> None:
        super().__init__()
        self.ops, self.cuda = ops, cuda
        dev = "cuda" if cuda else "cpu"
        # Frozen weights (inference): parameters, so CUDA-graph trees keep them in place.
        self.w = torch.nn.Parameter(torch.randn(dim, device=dev, dtype=dtype), requires_grad=False)
        self.W = torch.nn.Parameter(
            torch.randn(dim, dim, device=dev, dtype=dtype) / dim**0.5, requires_grad=False
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ops, eps = self.ops, 1e-6
        h = torch.nn.functional.layer_norm(x, x.shape[-1:])
        if self.cuda:
            if ops is None:
                h = torch.nn.functional.rms_norm(h, h.shape[-1:], self.w, eps)
                return torch.softmax(h @ self.W, dim=-1)
            n = torch.empty_like(h)
            ops.rmsnorm(n, h, self.w, eps)
            h = n @ self.W
            y = torch.empty_like(h)
            ops.softmax(y, h)
            return y
        if ops is None:
            return (h * 0.5) @ self.W + 1
        h = ops.scale_alloc(h, 0.5) @ self.W
        y = torch.empty_like(h)
        ops.add_one(h, y)
        return y


def models(ops: Any, cuda: bool, dim: int, layers: int, dtype: torch.dtype) -> tuple[Any, Any]:
    """(ours, theirs): ``layers`` blocks with our kernels and in torch's ops, same weights."""
    torch.manual_seed(0)
    ours = torch.nn.Sequential(*(Block(ops, dim, cuda, dtype) for _ in range(layers)))
    theirs = torch.nn.Sequential(*(Block(None, dim, cuda, dtype) for _ in range(layers)))
    theirs.load_state_dict(ours.state_dict())
    return ours, theirs


def bench_size(ops: Any, label: str, rows: int, dim: int, layers: int, a: Any) -> int:
    cuda = a.device == "cuda"
    dt = torch.bfloat16 if cuda else torch.float32
    ours, theirs = models(ops, cuda, dim, layers, dt)
    x = torch.randn(rows, dim, device=a.device, dtype=dt)
    args = (x,)
    ref = theirs(*args)
    torch._dynamo.reset()
    counters.clear()
    breaks = torch._dynamo.explain(ours)(*args).graph_break_count
    variants = {
        "torch eager": theirs,
        "torch reduce-overhead": torch.compile(theirs, fullgraph=True, mode="reduce-overhead"),
        "ours eager": ours,
        "ours compiled (default)": torch.compile(ours, fullgraph=True),
        "ours reduce-overhead": torch.compile(ours, fullgraph=True, mode="reduce-overhead"),
    }
    captured = True
    if cuda:  # the replay alone, without the per-call work of inductor's CUDA-graph trees
        for k, f in (("torch CUDA graph replay", theirs), ("ours CUDA graph replay", ours)):
            try:
                variants[k] = graph_replay(f, args)
            except Exception as e:  # counted as a failure; the other variants still run
                print(f"  {k}: capture FAILED: {type(e).__name__}: {e}")
                captured = False
    tol = 2e-2 if cuda else 1e-4
    ok = all(
        torch.allclose(f(*args).float(), ref.float(), atol=tol, rtol=tol) for f in variants.values()
    )
    skips = counters["inductor"]["cudagraph_skips"]  # compiles that run without CUDA graphs
    iters, reps = (10, 3) if a.quick else ((200, 7) if cuda else (50, 7))
    t = step_times_us(variants, args, iters, reps, cuda)
    mine = t["ours reduce-overhead"]
    print(
        f"\n[{label}: {rows} x {dim} {str(dt)[6:]}, {layers} block(s)] graph breaks {breaks}, all match torch eager: {ok},"
        f" reduce-overhead compiles without CUDA graphs: {skips}"
    )
    for k, v in t.items():
        print(f"  {k:28s} {v:10.1f} us/step")
    print(
        f"  ours reduce-overhead / torch reduce-overhead = {mine / t['torch reduce-overhead']:.2f}x"
        f" (goal <= 1.0); / ours eager = {mine / t['ours eager']:.2f}x (goal <= 0.8 launch-bound);"
        f" torch reduce-overhead / torch eager = {t['torch reduce-overhead'] / t['torch eager']:.2f}x"
    )
    if cuda and captured:
        print(
            f"  ours CUDA graph replay / ours eager = {t['ours CUDA graph replay'] / t['ours eager']:.2f}x;"
            f" / torch CUDA graph replay = "
            f"{t['ours CUDA graph replay'] / t['torch CUDA graph replay']:.2f}x"
        )
    return int(breaks != 0 or not ok or not captured)


def graph_replay(fn: Callable, args: tuple) -> Callable:
    """``fn(*args)`` captured once in a torch.cuda.CUDAGraph: the step replays it
    (on the captured inputs) and returns the captured output."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up outside the capture, as torch asks
        for _ in range(3):
            fn(*args)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn(*args)

    def replay(*_: Any) -> Any:
        graph.replay()
        return out

    return replay


def call_overhead(mod: Any, ops: Any, a: Any) -> None:
    """Eager cost per call: our function directly, and through its torch custom op."""
    x = torch.randn(4, device=a.device)
    out = torch.empty_like(x)
    ns = getattr(torch.ops, ops.namespace)
    cases = {  # name: (our arguments, torch's own op doing the same)
        "scale": ((out, x, 2.0), lambda: torch.mul(x, 2.0, out=out)),  # writes out
        "scale_alloc": ((x, 2.0), lambda: x * 2.0),  # returns a new tensor
    }
    n = 200 if a.quick else 20000
    print(f"\neager cost per call on a 4-element tensor ({a.device}; CPU clock, best of repeats):")
    for name, (args, theirs) in cases.items():
        direct, op, overload = mod.get_function(name), getattr(ops, name), getattr(ns, name).default
        calls = {
            "function directly": lambda f=direct, args=args: f(*args),
            "torch op (ops.<name>)": lambda f=op, args=args: f(*args),
            "torch op overload (.default)": lambda f=overload, args=args: f(*args),
            "torch's own op": theirs,
        }
        for k, f in calls.items():
            for _ in range(10):
                f()
            best = []
            for _ in range(3 if a.quick else 5):
                t0 = time.perf_counter()
                for _ in range(n):
                    f()
                best.append((time.perf_counter() - t0) * 1e6 / n)
            if a.device == "cuda":
                torch.cuda.synchronize()
            print(f"  {name:12s} {k:30s} {min(best):7.2f} us")


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    p.add_argument("--cuda-kernels", help="libtvmffi_kernels.so (--device cuda)")
    p.add_argument("--cpu-kernels", help="libtvmffi_cpu_kernels.so (--device cpu)")
    p.add_argument("--quick", action="store_true", help="fewer iterations (CI)")
    p.add_argument("--sizes", help="comma-separated subset of small,medium,large")
    p.add_argument("--threads", type=int, default=1, help="torch's CPU threads (--device cpu)")
    p.add_argument("--layers", default="1", help="comma-separated block counts (default 1)")
    a = p.parse_args()
    cuda = a.device == "cuda"
    if cuda and not torch.cuda.is_available():
        print("SKIP: torch sees no GPU")
        return 0
    path = a.cuda_kernels if cuda else a.cpu_kernels
    if not path:
        p.error(f"--device {a.device} needs --{a.device}-kernels")
    if not cuda:  # one thread: the shared CI machine makes OpenMP's spin-waits noisy
        torch.set_num_threads(a.threads)
    mod = tvmffi.load_module(path)
    ops = tvmffi.torch.register(mod, namespace=f"tvmffi_bench_{a.device}")
    ops.namespace = f"tvmffi_bench_{a.device}"
    where = torch.cuda.get_device_name() if cuda else f"CPU, {torch.get_num_threads()} threads"
    print(
        f"torch {torch.__version__} on {where}; ops:",
        sorted(vars(ops).keys() - {"skipped", "namespace"}),
    )
    wanted = set(a.sizes.split(",")) if a.sizes else None
    failed = 0
    for layers in (int(n) for n in a.layers.split(",")):
        for label, rows, dim in SIZES[a.device]:
            if wanted is None or label in wanted:
                failed += bench_size(ops, label, rows, dim, layers, a)
    call_overhead(mod, ops, a)
    if cuda:
        failed += jax_part(mod)
    print("\nbench_torch_compile:", "FAILED" if failed else "ok")
    return 1 if failed else 0


def jax_part(mod: Any) -> int:
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np

        import tvmffi.jax
    except ImportError as e:
        print(f"\nJAX: SKIP ({e})")
        return 0
    try:
        jax.devices("gpu")
    except RuntimeError:
        print("\nJAX: SKIP (no GPU backend)")
        return 0
    rmsnorm = tvmffi.jax.ffi_function(mod, "rmsnorm", platform="CUDA")  # (x, weight, eps) -> out
    softmax = tvmffi.jax.ffi_function(mod, "softmax", platform="CUDA")
    x = jax.random.normal(jax.random.PRNGKey(0), (256, 1024), jnp.float32)
    w = jnp.ones((1024,), jnp.float32) * 0.5
    f = jax.jit(lambda x, w: softmax(rmsnorm(x, w, 1e-6) * 2.0))
    got = np.asarray(f(x, w))
    xs = np.asarray(x)
    n = xs / np.sqrt((xs**2).mean(-1, keepdims=True) + 1e-6) * 0.5 * 2.0
    e = np.exp(n - n.max(-1, keepdims=True))
    ok = np.allclose(got, e / e.sum(-1, keepdims=True), atol=1e-5)
    print(
        f"\nJAX {jax.__version__}: jitted rmsnorm -> softmax via ffi_call, no result spec: matches numpy: {ok}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""Our CUDA kernels inside torch.compile and jax.jit (issue #42), on a GPU.

A small model, norm -> our kernel -> matmul -> our kernel:

    h = layer_norm(x); h = rmsnorm(h, w)  [ours]; h = h @ W; y = softmax(h)  [ours]

timed per step (CUDA events, median of repeats) as
  * torch: the same model in torch's own ops, eager and compiled (reduce-overhead);
  * ours eager: our kernels through tvmffi.torch ops, no compile;
  * ours compiled: torch.compile(fullgraph=True), default mode and reduce-overhead
    (CUDA graphs);
with graph breaks counted (torch._dynamo.explain) and results checked against
eager. Then a jitted JAX function calls rmsnorm through
tvmffi.jax.ffi_function (no hand-written result spec) and is checked.

Usage: bench_torch_compile.py --cuda-kernels libtvmffi_kernels.so [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys

import torch

import tvmffi
import tvmffi.torch


def step_time_us(fn, args, iters: int, repeats: int) -> float:
    for _ in range(3):
        fn(*args)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn(*args)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000 / iters)
    return statistics.median(times)


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--cuda-kernels", required=True)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: torch sees no GPU")
        return 0
    mod = tvmffi.load_module(a.cuda_kernels)
    ops = tvmffi.torch.register(mod, namespace="tvmffi_cuda")
    print(
        "torch",
        torch.__version__,
        torch.cuda.get_device_name(),
        "ops:",
        sorted(n for n in vars(ops) if n != "skipped"),
    )
    eps = 1e-6

    def ours(x, w, W):
        h = torch.nn.functional.layer_norm(x, x.shape[-1:])
        n = torch.empty_like(h)
        ops.rmsnorm(n, h, w, eps)
        h = n @ W
        y = torch.empty_like(h)
        ops.softmax(y, h)
        return y

    def theirs(x, w, W):
        h = torch.nn.functional.layer_norm(x, x.shape[-1:])
        h = torch.nn.functional.rms_norm(h, h.shape[-1:], w, eps)
        h = h @ W
        return torch.softmax(h, dim=-1)

    sizes = [(64, 1024), (512, 2048)] if a.quick else [(64, 1024), (512, 2048), (4096, 4096)]
    failed = 0
    for rows, dim in sizes:
        dt = torch.bfloat16
        x = torch.randn(rows, dim, device="cuda", dtype=dt)
        w = torch.randn(dim, device="cuda", dtype=dt)
        W = torch.randn(dim, dim, device="cuda", dtype=dt) / dim**0.5
        args = (x, w, W)
        ref = theirs(*args)
        torch._dynamo.reset()
        breaks = torch._dynamo.explain(ours)(*args).graph_break_count
        c_default = torch.compile(ours, fullgraph=True)
        c_graphs = torch.compile(ours, fullgraph=True, mode="reduce-overhead")
        t_graphs = torch.compile(theirs, fullgraph=True, mode="reduce-overhead")
        ok = all(
            torch.allclose(f(*args).float(), ref.float(), atol=2e-2, rtol=2e-2)
            for f in (ours, c_default, c_graphs)
        )
        iters, reps = (50, 5) if a.quick else (200, 7)
        t = {
            "torch eager": step_time_us(theirs, args, iters, reps),
            "torch compiled (reduce-overhead)": step_time_us(t_graphs, args, iters, reps),
            "ours eager": step_time_us(ours, args, iters, reps),
            "ours compiled (default)": step_time_us(c_default, args, iters, reps),
            "ours compiled (reduce-overhead)": step_time_us(c_graphs, args, iters, reps),
        }
        mine = t["ours compiled (reduce-overhead)"]
        print(f"\n[{rows} x {dim}] bf16: graph breaks {breaks}, matches torch: {ok}")
        for k, v in t.items():
            print(f"  {k:34s} {v:9.1f} us/step")
        print(
            f"  ours reduce-overhead / torch reduce-overhead = {mine / t['torch compiled (reduce-overhead)']:.2f}x, "
            f"/ torch eager = {mine / t['torch eager']:.2f}x, / ours eager = {mine / t['ours eager']:.2f}x"
        )
        failed += int(breaks != 0 or not ok)

    failed += jax_part(mod)
    print("\nbench_torch_compile:", "FAILED" if failed else "ok")
    return 1 if failed else 0


def jax_part(mod) -> int:
    try:
        import jax
        import jax.numpy as jnp
        import numpy as np

        import tvmffi.jax
    except ImportError as e:
        print(f"\nJAX: SKIP ({e})")
        return 0
    if not jax.devices("gpu"):
        print("\nJAX: SKIP (no GPU)")
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

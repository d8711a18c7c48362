#!/usr/bin/env python3
"""`tvm_ffi.cpp.load_inline` of a small kernel, cold and cached, side by side with upstream's.

Each round, for each side (ours, then upstream; the order alternates per
round) and each case (a C++ kernel from `cpp_sources`; the same as CUDA from
`cuda_sources` when nvcc is found), two fresh interpreter processes run
`load_inline` with the same `TVM_FFI_CACHE_DIR`, new for the round: the first
builds (cold), the second finds the library in the cache (cached). The child
times the `load_inline` call alone (its import is timed apart), in wall time
and in CPU time (its own and that of the compilers it waited for: steadier
than wall time on a busy machine); the C++ case then calls the kernel on a
numpy array and checks the result.

    python3 benchmarks/bench_load_inline.py --ours VENV/bin/python \\
        [--upstream-python UPSTREAM_VENV/bin/python] [-n 5] [--no-cuda] [--explain]

--ours names an interpreter where tvmffi and the drop-in `tvm_ffi` are
installed (default: this one); --upstream-python one where apache/tvm-ffi's
package is (optional: without it, ours alone). Both sides compile with the
same compilers (`$CXX`, else `c++`; nvcc from `$CUDA_HOME`, else
/usr/local/cuda, else PATH). The children get
`TVM_FFI_DISABLE_TORCH_C_DLPACK=1` unless it is set: upstream's import
otherwise tries to JIT a torch extension.

CUDA: upstream compiles for `$TVM_FFI_CUDA_ARCH_LIST` (e.g. "9.0"), else for
the GPU nvidia-smi reports, and fails without either. The script sets the
variable (from nvidia-smi, else "7.5") for both sides, and gives ours the same
`-gencode` flags through `extra_cuda_cflags`, so that both build the same
code. A module that links cudart loads without a GPU; the CUDA kernel is not
called.

--explain: each translation unit a side generated (found in the cache of its
first cold build; upstream writes a separate C++ file for the exports of a
CUDA build), preprocessed (`-E`: bytes, lines, headers) and compiled by hand
with that side's flags (C++: `-fsyntax-only`, then `-c -O2`), each run once
and timed in CPU seconds: what a cold build spends its time on.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MODULE_NAME = "bench_add_one"

CPP_SOURCE = r"""
void add_one(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  const float* in = static_cast<const float*>(x.data_ptr());
  float* out = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) out[i] = in[i] + 1.0f;
}
"""

CUDA_SOURCE = r"""
__global__ void add_one_kernel(const float* in, float* out, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

void add_one(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  int64_t n = x.size(0);
  add_one_kernel<<<(n + 255) / 256, 256>>>(static_cast<const float*>(x.data_ptr()),
                                           static_cast<float*>(y.data_ptr()), n);
}
"""

# Run by each side's interpreter: argv[1] is the case ("cpp" or "cuda").
CHILD = r'''
import json, os, resource, sys, time


def cpu_s():
    """CPU seconds of this process and its waited-for descendants (the compilers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


t0 = time.perf_counter()
import tvm_ffi
import tvm_ffi.cpp
t1 = time.perf_counter()
kind = sys.argv[1]
kwargs = {"cpp_sources": CPP_SOURCE} if kind == "cpp" else {"cuda_sources": CUDA_SOURCE}
arch = os.environ.get("TVM_FFI_CUDA_ARCH_LIST", "")
if kind == "cuda" and tvm_ffi.__name__ == "tvmffi" and arch:
    # Ours does not read TVM_FFI_CUDA_ARCH_LIST: the same targets as flags.
    kwargs["extra_cuda_cflags"] = [
        "-gencode=arch=compute_{0},code=sm_{0}".format(a.replace(".", "")) for a in arch.split()]
c2, t2 = cpu_s(), time.perf_counter()
mod = tvm_ffi.cpp.load_inline(MODULE_NAME, functions=["add_one"], **kwargs)
t3, c3 = time.perf_counter(), cpu_s()
if kind == "cpp":
    import numpy as np
    x = np.arange(8, dtype=np.float32)
    y = np.zeros_like(x)
    mod.add_one(tvm_ffi.from_dlpack(x), tvm_ffi.from_dlpack(y))
    assert (y == x + 1).all(), y
print(json.dumps({"import_s": t1 - t0, "load_s": t3 - t2, "load_cpu_s": c3 - c2,
                  "package": tvm_ffi.__file__,
                  "includes": list(tvm_ffi.libinfo.include_paths())}))
'''


def child_script() -> str:
    return (
        f"MODULE_NAME = {MODULE_NAME!r}\nCPP_SOURCE = {CPP_SOURCE!r}\n"
        f"CUDA_SOURCE = {CUDA_SOURCE!r}\n" + CHILD
    )


def find_nvcc() -> str | None:
    """nvcc as both packages look for it: $CUDA_HOME, /usr/local/cuda, then PATH."""
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if home and (Path(home) / "bin" / "nvcc").is_file():
            return str(Path(home) / "bin" / "nvcc")
    return shutil.which("nvcc")


def cuda_arch() -> str:
    """$TVM_FFI_CUDA_ARCH_LIST, else the first GPU's compute capability, else 7.5."""
    if os.environ.get("TVM_FFI_CUDA_ARCH_LIST"):
        return os.environ["TVM_FFI_CUDA_ARCH_LIST"]
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            check=True,
            timeout=30,
        ).stdout
        if out.strip():
            return out.split()[0]
    except (OSError, subprocess.SubprocessError):
        pass
    return "7.5"


def run_child(python: str, script: Path, kind: str, env: dict[str, str]) -> dict:
    """One fresh process: its JSON line, plus its wall time."""
    start = time.perf_counter()
    proc = subprocess.run(
        [python, str(script), kind], capture_output=True, text=True, env=env, check=False
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"{python} {kind}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}")
    row = json.loads(proc.stdout.strip().splitlines()[-1])
    row["wall_s"] = wall
    return row


def generated_sources(cache: Path) -> list[Path]:
    """The translation units a side wrote into its cache (C++ and CUDA)."""
    return sorted(p for p in cache.rglob("*") if p.suffix in (".cc", ".cpp", ".cu") and p.is_file())


def timed(cmd: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """Run ``cmd``; (its CPU seconds, user and system, with its children; the result)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), proc


def explain(source: Path, includes: list[str], nvcc: str | None, arch: str) -> dict:
    """Preprocessed size and CPU time of the steps of one generated translation unit."""
    inc = [f"-I{p}" for p in includes]
    if source.suffix == ".cu":
        gencode = [
            f"-gencode=arch=compute_{a.replace('.', '')},code=sm_{a.replace('.', '')}"
            for a in arch.split()
        ]
        base = [str(nvcc), "-std=c++17", "-O2", "-Xcompiler", "-fPIC", *gencode, *inc, str(source)]
    else:
        base = [os.environ.get("CXX") or "c++", "-std=c++17", "-fPIC", "-O2", *inc, str(source)]
    with tempfile.TemporaryDirectory() as tmp:
        e_s, pre = timed([*base, "-E"])
        _, deps = timed([*base, "-M"])
        # nvcc has no -fsyntax-only: its host and device passes each parse the file.
        syntax_s = None if source.suffix == ".cu" else timed([*base, "-fsyntax-only"])[0]
        compile_s, _ = timed([*base, "-c", "-o", f"{tmp}/x.o"])
    headers = {t for t in deps.stdout.replace("\\\n", " ").split() if not t.endswith((":", "\\"))}
    headers.discard(str(source))
    return {
        "source": str(source),
        "pre_bytes": len(pre.stdout.encode()),
        "pre_lines": pre.stdout.count("\n"),
        "headers": len(headers),
        "preprocess_s": e_s,
        "syntax_s": syntax_s,
        "compile_s": compile_s,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--ours",
        default=sys.executable,
        help="python with tvmffi and the drop-in tvm_ffi (default: this one)",
    )
    parser.add_argument(
        "--upstream-python",
        metavar="PATH",
        help="python with apache/tvm-ffi's tvm_ffi package (optional)",
    )
    parser.add_argument("-n", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--no-cuda", action="store_true", help="skip the CUDA case")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="preprocessed size and compile steps of the generated C++ source",
    )
    parser.add_argument("--workdir", help="keep the caches here (default: a temporary folder)")
    parser.add_argument("--json", help="also write the raw samples here")
    args = parser.parse_args()

    sides = [("ours", args.ours)]
    if args.upstream_python:
        sides.append(("upstream", args.upstream_python))
    nvcc = None if args.no_cuda else find_nvcc()
    kinds = ["cpp"] + (["cuda"] if nvcc else [])
    env = dict(os.environ)
    # Upstream tries to JIT a torch extension at import unless told not to.
    env.setdefault("TVM_FFI_DISABLE_TORCH_C_DLPACK", "1")
    if nvcc:
        env["TVM_FFI_CUDA_ARCH_LIST"] = cuda_arch()
        env["PATH"] = str(Path(nvcc).parent) + os.pathsep + env.get("PATH", "")

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-load-inline-"))
    work.mkdir(parents=True, exist_ok=True)
    script = work / "child.py"
    script.write_text(child_script())

    cxx = os.environ.get("CXX") or "c++"
    print(
        f"# {cxx}: "
        + subprocess.run([cxx, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    )
    if nvcc:
        print(
            f"# {nvcc}: "
            + subprocess.run([nvcc, "--version"], capture_output=True, text=True)
            .stdout.strip()
            .splitlines()[-1]
            + f"; TVM_FFI_CUDA_ARCH_LIST={env['TVM_FFI_CUDA_ARCH_LIST']}"
        )
    else:
        print("# no nvcc: C++ case only")

    samples: dict[tuple[str, str, str], list[dict]] = {}
    first_cache: dict[tuple[str, str], tuple[Path, list[str]]] = {}
    for r in range(args.n):
        order = sides if r % 2 == 0 else sides[::-1]
        for side, python in order:
            for kind in kinds:
                cache = work / f"cache-{side}-{kind}-{r}"
                shutil.rmtree(cache, ignore_errors=True)
                child_env = dict(env, TVM_FFI_CACHE_DIR=str(cache))
                cold = run_child(python, script, kind, child_env)
                cached = run_child(python, script, kind, child_env)
                samples.setdefault((side, kind, "cold"), []).append(cold)
                samples.setdefault((side, kind, "cached"), []).append(cached)
                first_cache.setdefault((side, kind), (cache, cold["includes"]))
                print(
                    f"round {r}: {side:8s} {kind:4s} cold {cold['load_s']:7.3f} s, "
                    f"cached {cached['load_s'] * 1e3:6.1f} ms",
                    flush=True,
                )
    for side, python in sides:
        print(f"# {side}: {python} -> {samples[(side, 'cpp', 'cold')][0]['package']}")

    def stat(side: str, kind: str, mode: str, fn, key: str = "load_s") -> float:
        return fn([s[key] for s in samples[(side, kind, mode)]])

    print(
        f"\nload_inline of one small kernel, {args.n} rounds, fresh processes "
        f"(cold: empty cache; cached: the next process)"
    )
    print(
        f"{'case':5s} {'side':9s} {'cold med s':>10s} {'cold min s':>10s} "
        f"{'cold cpu med s':>14s} {'cached med ms':>13s} {'cached min ms':>13s} "
        f"{'import med ms':>13s}"
    )
    results: dict = {}
    for kind in kinds:
        for side, _ in sides:
            row = {
                "cold_median_s": stat(side, kind, "cold", statistics.median),
                "cold_min_s": stat(side, kind, "cold", min),
                "cold_cpu_median_s": stat(side, kind, "cold", statistics.median, "load_cpu_s"),
                "cached_median_ms": stat(side, kind, "cached", statistics.median) * 1e3,
                "cached_min_ms": stat(side, kind, "cached", min) * 1e3,
                "import_median_ms": stat(side, kind, "cached", statistics.median, "import_s") * 1e3,
            }
            results[f"{kind}/{side}"] = row
            print(
                f"{kind:5s} {side:9s} {row['cold_median_s']:10.3f} {row['cold_min_s']:10.3f} "
                f"{row['cold_cpu_median_s']:14.3f} {row['cached_median_ms']:13.1f} "
                f"{row['cached_min_ms']:13.1f} {row['import_median_ms']:13.1f}"
            )
        if len(sides) == 2:
            ours, up = results[f"{kind}/ours"], results[f"{kind}/upstream"]
            print(
                f"{kind:5s} {'ours/up':9s} {ours['cold_median_s'] / up['cold_median_s']:10.2f} "
                f"{ours['cold_min_s'] / up['cold_min_s']:10.2f} "
                f"{ours['cold_cpu_median_s'] / up['cold_cpu_median_s']:14.2f} "
                f"{ours['cached_median_ms'] / up['cached_median_ms']:13.2f} "
                f"{ours['cached_min_ms'] / up['cached_min_ms']:13.2f} "
                f"{ours['import_median_ms'] / up['import_median_ms']:13.2f}"
            )

    if args.explain:
        print(
            "\ngenerated translation units, compiled by hand with each side's flags "
            "(CPU seconds of one run each)"
        )
        print(
            f"{'case':5s} {'side':9s} {'file':18s} {'-E bytes':>10s} {'-E lines':>9s} "
            f"{'headers':>8s} {'-E s':>7s} {'syntax s':>9s} {'-c -O2 s':>9s}"
        )
        for kind in kinds:
            for side, _ in sides:
                cache, includes = first_cache[(side, kind)]
                for source in generated_sources(cache):
                    info = explain(source, includes, nvcc, env.get("TVM_FFI_CUDA_ARCH_LIST", ""))
                    results.setdefault(f"explain/{kind}/{side}", []).append(info)
                    syntax = "-" if info["syntax_s"] is None else f"{info['syntax_s']:.3f}"
                    print(
                        f"{kind:5s} {side:9s} {source.name:18s} {info['pre_bytes']:10d} "
                        f"{info['pre_lines']:9d} {info['headers']:8d} "
                        f"{info['preprocess_s']:7.3f} {syntax:>9s} {info['compile_s']:9.3f}"
                    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "n": args.n,
                    "results": results,
                    "samples": {"/".join(k): v for k, v in samples.items()},
                },
                indent=2,
            )
        )
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

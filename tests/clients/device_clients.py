"""Call FlashInfer's JIT-built modules on torch CUDA tensors through `tvm_ffi`.

Usage: python device_clients.py MODULE_DIR LABEL

MODULE_DIR holds the modules .ci/clients.sh built (norm.so, silu_and_mul.so,
gelu_tanh_and_mul.so, ...). `tvm_ffi` is whichever runtime this interpreter
has (tvmffi's drop-in, or upstream's apache-tvm-ffi): .ci/device-clients.sh
runs this once with each. For each kernel: the result against a torch
reference at FlashInfer's own test tolerances, called eagerly and replayed from
a CUDA graph; then the host time per call (Python, eager) and the kernel time
per call inside a graph. Lines: "PASS LABEL kernel mode ...", "FAIL ...",
"TIME LABEL kernel host_us=... graph_us=...". Exits with the failure count.
"""

from __future__ import annotations

import os
import sys
import time

import torch

import tvm_ffi


def _rmsnorm_ref(x, w, eps):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(x.dtype)


def _gelu_tanh(x):
    return torch.nn.functional.gelu(x, approximate="tanh")


def _cases(module_dir: str):
    """(name, library, function, make_args, reference, atol, rtol) for each kernel."""
    dev = "cuda"
    eps = 1e-6
    cases = []
    if os.path.exists(os.path.join(module_dir, "norm.so")):

        def rms_args(n=128, d=4096):
            x = torch.randn(n, d, device=dev, dtype=torch.float16)
            w = torch.randn(d, device=dev, dtype=torch.float16)
            out = torch.empty_like(x)
            return (out, x, w, eps, False), out, lambda: _rmsnorm_ref(x, w, eps)

        # FlashInfer's tests/utils/test_norm.py: rtol=1e-3, atol=1e-3 (fp16).
        cases.append(("norm.rmsnorm", "norm.so", "rmsnorm", rms_args, 1e-3, 1e-3))
    for act, ref in (("silu", torch.nn.functional.silu), ("gelu_tanh", _gelu_tanh)):
        lib = f"{act}_and_mul.so"
        if not os.path.exists(os.path.join(module_dir, lib)):
            continue

        def act_args(n=128, d=4096, ref=ref):
            x = torch.randn(n, 2 * d, device=dev, dtype=torch.float16)
            out = torch.empty(n, d, device=dev, dtype=torch.float16)
            return (out, x, False), out, lambda: ref(x[..., :d]) * x[..., d:]

        # FlashInfer's tests/utils/test_activation.py: rtol=1e-3, atol=1e-3.
        cases.append((f"activation.{act}_and_mul", lib, f"{act}_and_mul", act_args, 1e-3, 1e-3))
    return cases


def main(argv: list[str]) -> int:
    module_dir, label = argv[1], argv[2]
    print(f"{label}: tvm_ffi {tvm_ffi.__version__} from {os.path.dirname(tvm_ffi.__file__)}")
    failed = 0
    for name, lib, fn_name, make, atol, rtol in _cases(module_dir):
        fn = getattr(tvm_ffi.load_module(os.path.join(module_dir, lib)), fn_name)
        try:
            args, out, ref = make()
            fn(*args)
            torch.cuda.synchronize()
            torch.testing.assert_close(out, ref(), atol=atol, rtol=rtol)
            print(f"PASS {label} {name} eager")
            # Captured into a CUDA graph (the runtime must launch on torch's
            # capturing stream), replayed on fresh inputs.
            args, out, ref = make()
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                fn(*args)  # warm-up outside the capture
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                fn(*args)
            args[1].copy_(torch.randn_like(args[1]))
            graph.replay()
            torch.cuda.synchronize()
            torch.testing.assert_close(out, ref(), atol=atol, rtol=rtol)
            print(f"PASS {label} {name} graph")
            # Host time per call: small inputs, so the call, not the kernel, counts.
            small_args, _, _ = make(n=1, d=128)
            for _ in range(200):
                fn(*small_args)
            torch.cuda.synchronize()
            calls = 20000
            t0 = time.perf_counter()
            for _ in range(calls):
                fn(*small_args)
            host_us = (time.perf_counter() - t0) / calls * 1e6
            torch.cuda.synchronize()
            # Kernel time per call: 100 calls in one graph.
            big_graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(big_graph):
                for _ in range(100):
                    fn(*args)
            big_graph.replay()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(20):
                big_graph.replay()
            end.record()
            torch.cuda.synchronize()
            graph_us = start.elapsed_time(end) * 1e3 / (20 * 100)
            print(f"TIME {label} {name} host_us={host_us:.2f} graph_us={graph_us:.2f}")
        except Exception as err:  # report every kernel
            failed += 1
            print(f"FAIL {label} {name}: {type(err).__name__}: {str(err)[:300]}")
        sys.stdout.flush()
    return failed


if __name__ == "__main__":
    sys.exit(main(sys.argv))

"""Call the client kernels .ci/clients.sh built on torch CUDA tensors through `tvm_ffi`.

Usage: python device_clients.py MODULE_DIR LABEL

MODULE_DIR holds the modules .ci/clients.sh built: FlashInfer's (norm.so,
silu_and_mul.so, gelu_tanh_and_mul.so, rope.so, sampling.so,
single_prefill_with_kv_cache_*.so, ...) and CuTe DSL's exported add kernel
(cute_add.so, beside the libcute_dsl_runtime.so it links); a kernel whose
module is absent is left out. `tvm_ffi` is whichever runtime this interpreter
has (tvmffi's drop-in, or upstream's apache-tvm-ffi): .ci/device-clients.sh
runs this once with each. For each kernel: the result against a torch
reference at FlashInfer's own test tolerances, called eagerly and replayed from
a CUDA graph; then the host time per call (Python, eager) and the kernel time
per call inside a graph. Lines: "PASS LABEL kernel mode ...", "FAIL ...",
"TIME LABEL kernel host_us=... graph_us=...". Exits with the failure count.
"""

from __future__ import annotations

import ctypes
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


def _rope_ref(x, pos, theta):
    """Llama-style (non-interleaved) RoPE over the whole head dim, in fp32."""
    d = x.size(-1)
    inv = theta ** (-torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d)
    ang = pos.float()[:, None] * inv[None, :]  # (nnz, d/2)
    cos = torch.cat([ang.cos(), ang.cos()], -1)[:, None, :]
    sin = torch.cat([ang.sin(), ang.sin()], -1)[:, None, :]
    xf = x.float()
    rot = torch.cat([-xf[..., d // 2 :], xf[..., : d // 2]], -1)
    return (xf * cos + rot * sin).to(x.dtype)


def _causal_attention_ref(q, k, v, sm_scale):
    """Causal attention, query i sees keys 0..i (qo_len == kv_len), GQA by repeat."""
    group = q.size(1) // k.size(1)
    kf = k.float().repeat_interleave(group, dim=1)
    vf = v.float().repeat_interleave(group, dim=1)
    s = torch.einsum("qhd,khd->hqk", q.float(), kf) * sm_scale
    n = q.size(0)
    mask = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    s = s.masked_fill(~mask, float("-inf"))
    return torch.einsum("hqk,khd->qhd", s.softmax(-1), vf).to(q.dtype)


def _close(atol, rtol, pairs):
    def check():
        for got, want in pairs():
            torch.testing.assert_close(got, want, atol=atol, rtol=rtol)

    return check


def _cases(module_dir: str):
    """(name, library, function, make) for each kernel whose library is there.

    make(small) returns (args, check, refresh): the call's arguments (inputs
    and outputs on the GPU), a check of the outputs against a torch reference
    at FlashInfer's own test tolerances, and a refresh of the inputs in place
    (for a graph replay on new data). small: shapes where the call, not the
    kernel, costs (the host time).
    """
    dev = "cuda"
    eps = 1e-6
    cases = []

    def have(lib):
        return os.path.exists(os.path.join(module_dir, lib))

    def randn_(*tensors):
        return lambda: [t.copy_(torch.randn_like(t)) for t in tensors]

    if have("norm.so"):

        def rms_args(small):
            n, d = (1, 128) if small else (128, 4096)
            x = torch.randn(n, d, device=dev, dtype=torch.float16)
            w = torch.randn(d, device=dev, dtype=torch.float16)
            out = torch.empty_like(x)
            # FlashInfer's tests/utils/test_norm.py: rtol=1e-3, atol=1e-3 (fp16).
            check = _close(1e-3, 1e-3, lambda: [(out, _rmsnorm_ref(x, w, eps))])
            return (out, x, w, eps, False), check, randn_(x)

        cases.append(("norm.rmsnorm", "norm.so", "rmsnorm", rms_args))
    for act, ref in (("silu", torch.nn.functional.silu), ("gelu_tanh", _gelu_tanh)):
        lib = f"{act}_and_mul.so"
        if not have(lib):
            continue

        def act_args(small, ref=ref):
            n, d = (1, 128) if small else (128, 4096)
            x = torch.randn(n, 2 * d, device=dev, dtype=torch.float16)
            out = torch.empty(n, d, device=dev, dtype=torch.float16)
            # FlashInfer's tests/utils/test_activation.py: rtol=1e-3, atol=1e-3.
            check = _close(1e-3, 1e-3, lambda: [(out, ref(x[..., :d]) * x[..., d:])])
            return (out, x, False), check, randn_(x)

        cases.append((f"activation.{act}_and_mul", lib, f"{act}_and_mul", act_args))
    if have("rope.so"):

        def rope_args(small):
            nnz, hq, hk, d = (1, 1, 1, 128) if small else (1024, 32, 8, 128)
            q = torch.randn(nnz, hq, d, device=dev, dtype=torch.float16)
            k = torch.randn(nnz, hk, d, device=dev, dtype=torch.float16)
            pos = torch.randint(0, 256, (nnz,), device=dev, dtype=torch.int32)
            q_rope, k_rope = torch.empty_like(q), torch.empty_like(k)
            theta = 1e4
            # FlashInfer's tests/attention/test_rope.py: rtol=1e-3, atol=1e-3.
            check = _close(
                1e-3,
                1e-3,
                lambda: [(q_rope, _rope_ref(q, pos, theta)), (k_rope, _rope_ref(k, pos, theta))],
            )
            return (q, k, q_rope, k_rope, pos, d, False, 1.0, theta), check, randn_(q, k)

        cases.append(("rope.apply_rope_pos_ids", "rope.so", "apply_rope_pos_ids", rope_args))
    if have("sampling.so"):

        def sampling_args(small):
            b, vocab = (1, 128) if small else (64, 32000)
            probs = torch.empty(b, vocab, device=dev, dtype=torch.float32)
            samples = torch.empty(b, device=dev, dtype=torch.int32)
            valid = torch.empty(b, device=dev, dtype=torch.bool)

            def refresh():
                # About half the tokens have probability 0 (FlashInfer's
                # tests/utils/test_sampling.py draws its masks likewise).
                p = torch.rand(b, vocab, device=dev) * (torch.rand(b, vocab, device=dev) < 0.5)
                p[:, 0] += 1e-3  # no empty row
                probs.copy_(p / p.sum(-1, keepdim=True))

            def check():
                # FlashInfer's check: every sample is a token of nonzero probability.
                rows = torch.arange(b, device=dev)
                assert bool(valid.all()), "a row reported no valid sample"
                assert bool(((samples >= 0) & (samples < vocab)).all()), "sample out of range"
                assert bool((probs[rows, samples.long()] > 0).all()), "a zero-probability sample"

            refresh()
            # deterministic, a fixed seed and offset (no per-row arrays).
            return (probs, samples, valid, None, True, None, 42, None, 0), check, refresh

        cases.append(
            ("sampling.sampling_from_probs", "sampling.so", "sampling_from_probs", sampling_args)
        )
    single = [
        f
        for f in sorted(os.listdir(module_dir))
        if f.startswith("single_prefill_with_kv_cache_dtype_q_f16_") and "head_dim_qk_128" in f
    ]
    if single:

        def prefill_args(small):
            n, hq, hk, d = (1, 1, 1, 128) if small else (512, 32, 8, 128)
            q = torch.randn(n, hq, d, device=dev, dtype=torch.float16)
            k = torch.randn(n, hk, d, device=dev, dtype=torch.float16)
            v = torch.randn(n, hk, d, device=dev, dtype=torch.float16)
            o = torch.empty_like(q)
            tmp = torch.empty(32 << 20, device=dev, dtype=torch.uint8)
            sm_scale = d**-0.5
            # FlashInfer's prefill tests (fp16): rtol=1e-3, atol=1e-3.
            check = _close(1e-3, 1e-3, lambda: [(o, _causal_attention_ref(q, k, v, sm_scale))])
            # mask 1 = causal, layout 0 = NHD, window_left -1 (none); the fa2
            # variant's extras: custom mask, ALiBi slopes, two KV scale tensors
            # (none), logits soft cap 0, sm_scale, 1/rope_scale, 1/rope_theta.
            args = (
                q,
                k,
                v,
                tmp,
                o,
                None,
                1,
                0,
                -1,
                None,
                None,
                None,
                None,
                0.0,
                sm_scale,
                1.0,
                1e-4,
            )
            return args, check, randn_(q, k, v)

        cases.append(("prefill.single_prefill_with_kv_cache", single[0], "run", prefill_args))
    if have("cute_add.so") and have("libcute_dsl_runtime.so"):
        # cute_add.so needs libcute_dsl_runtime.so by name: loaded first, the
        # dynamic loader finds it among the loaded libraries.
        ctypes.CDLL(os.path.join(module_dir, "libcute_dsl_runtime.so"), mode=ctypes.RTLD_GLOBAL)

        def cute_args(small):
            n = 128 if small else 1 << 20
            a = torch.randn(n, device=dev, dtype=torch.float32)
            b = torch.randn(n, device=dev, dtype=torch.float32)
            c = torch.empty_like(a)
            check = _close(0.0, 0.0, lambda: [(c, a + b)])  # one float add: exact
            return (a, b, c), check, randn_(a, b)

        cases.append(("cute_dsl.add", "cute_add.so", "cute_add", cute_args))
    return cases


def main(argv: list[str]) -> int:
    module_dir, label = argv[1], argv[2]
    print(f"{label}: tvm_ffi {tvm_ffi.__version__} from {os.path.dirname(tvm_ffi.__file__)}")
    failed = 0
    for name, lib, fn_name, make in _cases(module_dir):
        fn = getattr(tvm_ffi.load_module(os.path.join(module_dir, lib)), fn_name)
        try:
            args, check, _ = make(False)
            fn(*args)
            torch.cuda.synchronize()
            check()
            print(f"PASS {label} {name} eager")
            # Captured into a CUDA graph (the runtime must launch on torch's
            # capturing stream), replayed on fresh inputs.
            args, check, refresh = make(False)
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                fn(*args)  # warm-up outside the capture
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                fn(*args)
            refresh()
            graph.replay()
            torch.cuda.synchronize()
            check()
            print(f"PASS {label} {name} graph")
            # Host time per call: small inputs, so the call, not the kernel, counts.
            small_args, _, _ = make(True)
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

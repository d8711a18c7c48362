"""``tvmffi.cpp.to_cpp_dtype``: the C++ type name of a dtype, for generated sources."""

from __future__ import annotations

import functools
from typing import Any

#: Types whose C++ name is the same on every backend (upstream's names for these tables).
CPU_DTYPE_MAP = {
    **{f"int{b}": f"int{b}_t" for b in (8, 16, 32, 64)},
    **{f"uint{b}": f"uint{b}_t" for b in (8, 16, 32, 64)},
    "float32": "float",
    "float64": "double",
    "bool": "bool",
}
#: Narrow floating-point types: the CUDA toolkit's own types (cuda_fp16.h,
#: cuda_bf16.h, cuda_fp8.h, cuda_fp4.h).
CUDA_DTYPE_MAP = {
    "float16": "__half",
    "bfloat16": "__nv_bfloat16",
    "float8_e4m3fn": "__nv_fp8_e4m3",
    "float8_e5m2": "__nv_fp8_e5m2",
    "float8_e8m0fnu": "__nv_fp8_e8m0",
    "float4_e2m1": "__nv_fp4_e2m1",
    "float4_e2m1fn_x2": "__nv_fp4x2_e2m1",
}
#: Their HIP counterparts.
ROCM_DTYPE_MAP = {
    "float16": "__half",
    "bfloat16": "__hip_bfloat16",
    "float8_e4m3fn": "__hip_fp8_e4m3",
    "float8_e4m3fnuz": "__hip_fp8_e4m3_fnuz",
    "float8_e5m2": "__hip_fp8_e5m2",
    "float8_e5m2fnuz": "__hip_fp8_e5m2_fnuz",
    "float4_e2m1": "__hip_fp4_e2m1",
    "float4_e2m1fn_x2": "__hip_fp4x2_e2m1",
}
_GPU = {"cuda": CUDA_DTYPE_MAP, "rocm": ROCM_DTYPE_MAP}


@functools.lru_cache(maxsize=None)
def _gpu_backend() -> str:
    """ "cuda" or "rocm" when torch sees such a GPU, else "cpu" (asked once)."""
    try:
        import torch
    except ImportError:
        return "cpu"
    if not torch.cuda.is_available():
        return "cpu"
    if getattr(torch.version, "hip", None):
        return "rocm"
    return "cuda" if getattr(torch.version, "cuda", None) else "cpu"


def to_cpp_dtype(dtype: str | Any) -> str:
    """The C++ type of ``dtype`` (a name such as ``"float32"``, or ``torch.float32``).

    Integer, bool, float32 and float64 have one name everywhere; the narrow
    floating-point types have the GPU toolkit's names, for the backend torch
    sees (CUDA or ROCm). ValueError for a dtype with no C++ type here.
    """
    name = dtype if isinstance(dtype, str) else str(dtype)
    name = name.removeprefix("torch.")
    if name in CPU_DTYPE_MAP:
        return CPU_DTYPE_MAP[name]
    backend = _gpu_backend()
    cpp = _GPU.get(backend, {}).get(name)
    if cpp is None:
        raise ValueError(f"to_cpp_dtype: no C++ type for dtype {name!r} (backend {backend!r})")
    return cpp

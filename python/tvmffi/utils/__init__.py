"""Helpers that code written for upstream ``tvm_ffi`` imports from ``tvm_ffi.utils``.

``FileLock`` (``utils.lockfile``): an inter-process file lock;
``utils.kwargs_wrapper``: keyword arguments for positional-only functions;
``utils.unpack_dataclass``: dataclass values as nested tuples;
``utils.embed_cubin``: a CUDA binary put into an object file (also a command,
``python -m tvmffi.utils.embed_cubin``).
"""

from . import kwargs_wrapper
from .lockfile import FileLock

__all__ = ["FileLock", "kwargs_wrapper"]

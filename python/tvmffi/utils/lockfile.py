"""``tvm_ffi.utils.lockfile``: the inter-process file lock (see tvmffi._lockfile)."""

from .._lockfile import FileLock

__all__ = ["FileLock"]

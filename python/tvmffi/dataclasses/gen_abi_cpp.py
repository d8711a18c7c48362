"""``gen_abi_cpp``: C++ declarations mirroring the layout of ``@py_class`` types (not yet
available in tvmffi)."""

from __future__ import annotations

from typing import Any


class _Generator:
    """Placeholder of upstream's generator (tvmffi does not generate C++ mirrors yet)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("tvmffi.dataclasses.gen_abi_cpp is not implemented")


def gen_abi_cpp(*args: Any, **kwargs: Any) -> str:
    """C++ mirror declarations of ``@py_class`` types (not implemented in tvmffi)."""
    raise NotImplementedError("tvmffi.dataclasses.gen_abi_cpp is not implemented")


__all__ = ["gen_abi_cpp"]

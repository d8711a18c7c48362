"""The stream table by hand: use_raw_stream, use_torch_stream."""

from __future__ import annotations

from types import TracebackType
from typing import Any

from . import _core
from ._core import Device


def _as_device(dev: Any) -> Device:
    if isinstance(dev, Device):
        return dev
    if isinstance(dev, str):
        return Device(dev)
    if hasattr(dev, "type") and hasattr(dev, "index"):  # torch.device
        return Device(f"{dev.type}:{dev.index or 0}")
    raise TypeError(f"expected a device such as 'cuda:0', got {type(dev).__name__}")


def _as_stream(stream: Any) -> int:
    if isinstance(stream, int):
        return stream
    value = getattr(stream, "value", None)  # ctypes.c_void_p
    if value is not None or type(stream).__name__ == "c_void_p":
        return int(value or 0)
    raise ValueError(
        "use_raw_stream takes the stream as an int (or ctypes.c_void_p); use use_torch_stream "
        "for torch.cuda.Stream and torch.cuda.graph"
    )


class StreamContext:
    """Sets a device's stream in the FFI stream table for a ``with`` block, then restores it."""

    def __init__(self, device: Any, stream: Any) -> None:
        dev = _as_device(device)
        self.device_type = dev.dlpack_device_type()
        self.device_id = dev.index
        self.stream = _as_stream(stream)
        self._prev: list[int] = []

    def __enter__(self) -> StreamContext:
        self._prev.append(_core._env_set_stream(self.device_type, self.device_id, self.stream))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _core._env_set_stream(self.device_type, self.device_id, self._prev.pop())


def use_raw_stream(device: Any, stream: Any) -> StreamContext:
    """``with use_raw_stream("cuda:0", ptr):`` calls in the block run on ``ptr``.

    ``device`` is a tvmffi.Device, a string like "cuda:0" or a torch.device;
    ``stream`` an int (cudaStream_t) or ctypes.c_void_p. The two may also be
    given the other way round (stream first).
    """
    if isinstance(device, int) and not isinstance(stream, int):
        device, stream = stream, device
    return StreamContext(device, stream)


def get_raw_stream(device: Any) -> int:
    """The stream currently set in the FFI stream table for ``device`` (0: none)."""
    dev = _as_device(device)
    return _core._env_get_stream(dev.dlpack_device_type(), dev.index)


class TorchStreamContext:
    """Enters a torch stream or graph context and sets torch's current stream in the table."""

    def __init__(self, context: Any) -> None:
        self.torch_context = context
        self._ffi: StreamContext | None = None

    def __enter__(self) -> TorchStreamContext:
        import torch

        if self.torch_context is not None:
            self.torch_context.__enter__()
        s = torch.cuda.current_stream()
        self._ffi = StreamContext(f"cuda:{s.device.index or 0}", int(s.cuda_stream))
        self._ffi.__enter__()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        assert self._ffi is not None
        self._ffi.__exit__(exc_type, exc, tb)
        if self.torch_context is not None:
            self.torch_context.__exit__(exc_type, exc, tb)


def use_torch_stream(context: Any = None) -> TorchStreamContext:
    """``with use_torch_stream(torch.cuda.stream(s)):`` or ``(torch.cuda.graph(g))``.

    Enters the torch context (if given), then puts torch's current CUDA
    stream in the FFI stream table until the block ends.
    """
    return TorchStreamContext(context)

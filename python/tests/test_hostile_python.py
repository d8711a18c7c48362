"""Hostile DLPack producers and consumers at the Python door (issue #43, Python half).

Each test failed before its fix: a 17th producer framework was refused; a
read-only tvmffi.Tensor exported itself writable through legacy __dlpack__();
a malformed __dlpack__ capsule passed as a call argument reached the kernel
unchecked. All run under AddressSanitizer + UBSan in CI (run_pytest asan).
"""

from __future__ import annotations

import ctypes
import inspect
from types import ModuleType
from typing import Any

import pytest

import tvmffi


def _producer_class(module: str, np: ModuleType) -> type:
    """A DLPack producer class whose type lives in module ``module`` (its framework)."""

    def init(self: Any, values: list[float]) -> None:
        self.x = np.array(values, dtype=np.float32)

    def dlpack(self: Any, **kwargs: Any) -> Any:
        return self.x.__dlpack__(**kwargs)

    def device(self: Any) -> tuple[int, int]:
        return (1, 0)

    return type(
        "Producer",
        (),
        {"__module__": module, "__init__": init, "__dlpack__": dlpack, "__dlpack_device__": device},
    )


def test_more_than_sixteen_producer_frameworks(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    classes = [_producer_class(f"hostile_fw_{i}.tensors", np) for i in range(20)]
    for i, cls in enumerate(classes):
        out = np.zeros(2, dtype=np.float32)
        cpu_kernels.add_one(cls([i, i + 1]), out)  # each a framework of its own
        assert out.tolist() == [i + 1, i + 2]
    # Frameworks already seen still work after the table grew.
    out = np.zeros(2, dtype=np.float32)
    cpu_kernels.add_one(classes[0]([5, 6]), out)
    assert out.tolist() == [6, 7]


def _readonly_tensors(np: ModuleType) -> list[tvmffi.Tensor]:
    ro = np.array([1, 2, 3], dtype=np.float32)
    ro.flags.writeable = False
    return [
        tvmffi.from_dlpack(ro),
        tvmffi.from_dlpack(np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8)),
    ]


# Prototypes of our own, never argtypes on the shared ctypes.pythonapi functions.
_capsule_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)


def _versioned_flags(cap: Any) -> int:
    """The flags of a "dltensor_versioned" capsule's DLManagedTensorVersioned."""
    addr = _capsule_pointer(cap, b"dltensor_versioned")
    # version (2 x uint32), manager_ctx, deleter, then uint64 flags.
    return ctypes.c_uint64.from_address(addr + 8 + 2 * ctypes.sizeof(ctypes.c_void_p)).value


def _capsule_data(cap: Any) -> int:
    """The data pointer of a DLPack capsule's tensor (either name)."""
    if ctypes.pythonapi.PyCapsule_IsValid(ctypes.py_object(cap), b"dltensor") == 1:
        return ctypes.c_void_p.from_address(_capsule_pointer(cap, b"dltensor")).value or 0
    # version, manager_ctx, deleter, flags, then the DLTensor (data first).
    addr = _capsule_pointer(cap, b"dltensor_versioned") + 16 + 2 * ctypes.sizeof(ctypes.c_void_p)
    return ctypes.c_void_p.from_address(addr).value or 0


_READ_ONLY, _IS_COPIED = 1, 2  # DLPACK_FLAG_BITMASK_READ_ONLY, DLPACK_FLAG_BITMASK_IS_COPIED


def test_readonly_tensor_exports_only_copies(np: ModuleType) -> None:
    # A consumer may ignore DLPack's read-only flag (torch 2.11 does): every
    # __dlpack__ of a read-only tensor is a writable copy, or BufferError with copy=False.
    for t in _readonly_tensors(np):
        for kwargs in ({}, {"max_version": (0, 8)}, {"max_version": (1, 0)}, {"copy": True}):
            cap = t.__dlpack__(**kwargs)
            assert _capsule_data(cap) not in (0, t.data_ptr()), kwargs
            if kwargs.get("max_version", (0, 0))[0] >= 1:
                assert _versioned_flags(cap) & (_READ_ONLY | _IS_COPIED) == _IS_COPIED
        for kwargs in ({}, {"max_version": (1, 0)}):
            with pytest.raises(BufferError, match="read-only"):
                t.__dlpack__(copy=False, **kwargs)
    # A writable tensor is shared (legacy and versioned), or copied with copy=True.
    w = tvmffi.from_dlpack(np.array([1, 2], dtype=np.float32))
    assert _capsule_data(w.__dlpack__()) == w.data_ptr()
    cap = w.__dlpack__(max_version=(1, 0), copy=False)
    assert _capsule_data(cap) == w.data_ptr() and _versioned_flags(cap) == 0
    cap = w.__dlpack__(max_version=(1, 0), copy=True)
    assert _capsule_data(cap) != w.data_ptr() and _versioned_flags(cap) == _IS_COPIED
    # An exchange API that keeps the flag (probed: the test wrapper's) shares the memory.
    api = tvmffi.core.DLTensorTestWrapper.__dlpack_c_exchange_api__
    for t in _readonly_tensors(np):
        assert tvmffi._core._tensor_to_exchange(api, t).data_ptr() == t.data_ptr()
    # numpy keeps read-only memory read-only: a function's read-only result is shared with it.
    ro = np.array([3, 4], dtype=np.float32)
    ro.flags.writeable = False
    back = tvmffi._framework.from_tensor("numpy", tvmffi.from_dlpack(ro))
    assert back.ctypes.data == ro.ctypes.data and not back.flags.writeable


def _torch_exchange_api(torch: ModuleType) -> Any:
    """The DLPack C exchange API tvmffi uses for this torch (its own, or tvmffi's before 2.10)."""
    api = getattr(torch.Tensor, "__dlpack_c_exchange_api__", None)
    return api if api is not None else tvmffi._framework.exchange_api("torch")


# Each door a read-only tensor leaves through into torch: (name, t -> torch tensor).
_TORCH_DOORS = {
    "from_dlpack": lambda torch, t: torch.from_dlpack(t),  # __dlpack__(max_version=(1, 0))
    "legacy_capsule": lambda torch, t: torch.utils.dlpack.from_dlpack(t.__dlpack__()),
    # A call's result and convert_func's tensor_cls: the DLPack C exchange API.
    "call_result": lambda torch, t: tvmffi.Function(lambda x: t)(torch.zeros(1)),
    "exchange_api": lambda torch, t: tvmffi._core._tensor_to_exchange(
        _torch_exchange_api(torch), t
    ),
}


@pytest.mark.parametrize("door", list(_TORCH_DOORS))
def test_readonly_tensor_never_writable_to_torch(np: ModuleType, door: str) -> None:
    torch = pytest.importorskip("torch")
    if door == "exchange_api" and _torch_exchange_api(torch) is None:
        pytest.skip("no DLPack C exchange API for this torch")
    data = bytes(16)  # a fresh object: a constant would be shared with the assertion
    t = tvmffi.from_dlpack(np.frombuffer(data, dtype=np.float32))
    out = _TORCH_DOORS[door](torch, t)
    assert isinstance(out, torch.Tensor)
    out.add_(1)  # torch got a copy: the bytes object is unchanged
    assert data == bytes(16)
    # Writable memory is still shared with torch.
    w = np.zeros(4, dtype=np.float32)
    _TORCH_DOORS[door](torch, tvmffi.from_dlpack(w)).add_(1)
    assert w.tolist() == [1, 1, 1, 1]


def test_readonly_tensor_to_torch_without_copy_refused(np: ModuleType) -> None:
    torch = pytest.importorskip("torch")
    if "copy" not in inspect.signature(torch.from_dlpack).parameters:
        pytest.skip("this torch's from_dlpack has no copy argument")
    t = tvmffi.from_dlpack(np.frombuffer(bytes(16), dtype=np.float32))
    with pytest.raises(BufferError, match="read-only"):
        torch.from_dlpack(t, copy=False)
    assert torch.from_dlpack(t, copy=True).tolist() == [0, 0, 0, 0]


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", _DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


# A prototype of our own: argtypes set on the shared ctypes.pythonapi.PyCapsule_New
# would be overwritten by (and overwrite) torch's and JAX's declarations of it.
_capsule_new = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p
)(("PyCapsule_New", ctypes.pythonapi))


class _HandMade:
    """A producer whose __dlpack__ returns a legacy capsule built by hand (no deleter)."""

    def __init__(self, ndim: int, shape: list[int] | None, strides: list[int] | None) -> None:
        self.buf = (ctypes.c_float * 4)()
        n = max(len(shape or []), len(strides or []), 1)
        self.shape = (ctypes.c_int64 * n)(*(shape or []))
        self.strides = (ctypes.c_int64 * n)(*(strides or []))
        m = _DLManagedTensor()
        m.dl_tensor.data = ctypes.addressof(self.buf)
        m.dl_tensor.device = _DLDevice(1, 0)
        m.dl_tensor.ndim = ndim
        m.dl_tensor.dtype = _DLDataType(2, 32, 1)  # float32
        if shape is not None:
            m.dl_tensor.shape = self.shape
        if strides is not None:
            m.dl_tensor.strides = self.strides
        self.managed = m

    def __dlpack__(self, **kwargs: Any) -> Any:
        return _capsule_new(ctypes.addressof(self.managed), b"dltensor", None)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


_BAD_CAPSULES = [
    pytest.param(-1, [4], None, id="negative-ndim"),
    pytest.param(1, None, None, id="null-shape"),
    pytest.param(2, [2**40, 2**40], [2**62, 1], id="overflowing-strides"),
    pytest.param(1, [-4], None, id="negative-extent"),
]


@pytest.mark.parametrize(("ndim", "shape", "strides"), _BAD_CAPSULES)
def test_bad_capsule_argument_is_refused(
    cpu_kernels: tvmffi.Module, np: ModuleType, ndim: int, shape: Any, strides: Any
) -> None:
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"argument #0"):
        cpu_kernels.add_one(_HandMade(ndim, shape, strides), out)
    assert out.tolist() == [0, 0, 0, 0]  # the kernel never ran
    # The same check as from_dlpack's: both refuse with the same kind of error.
    with pytest.raises(ValueError):
        tvmffi.from_dlpack(_HandMade(ndim, shape, strides))
    # Also through a Python callback (the conversion to a Python tensor).
    seen: list[Any] = []
    echo = tvmffi.Function(seen.append)
    with pytest.raises(ValueError, match=r"argument #0"):
        echo(_HandMade(ndim, shape, strides))
    assert seen == []


def test_good_hand_made_capsule_still_works(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    good = _HandMade(1, [4], None)
    ctypes.memmove(good.buf, np.arange(4, dtype=np.float32).ctypes.data, 16)
    out = np.zeros(4, dtype=np.float32)
    cpu_kernels.add_one(good, out)
    assert out.tolist() == [1, 2, 3, 4]


# ---- A framework's DLPack C exchange API that produces malformed tensors ----
class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", _DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _DLTensor),
    ]


class _ExchangeApi(ctypes.Structure):
    _fields_ = [
        ("version", _DLPackVersion),
        ("prev_api", ctypes.c_void_p),
        ("managed_tensor_allocator", ctypes.c_void_p),
        ("managed_tensor_from_py_object_no_sync", ctypes.c_void_p),
        ("managed_tensor_to_py_object_no_sync", ctypes.c_void_p),
        ("dltensor_from_py_object_no_sync", ctypes.c_void_p),
        ("current_work_stream", ctypes.c_void_p),
    ]


_MANAGED_FROM = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.POINTER(_DLManagedTensorVersioned))
)
_DLTENSOR_FROM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(_DLTensor))
_DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _exchange_class(
    ndim: int, shape: list[int] | None, strides: list[int] | None, bits: int, borrowed: bool
) -> tuple[type, list[int]]:
    """A tensor class whose exchange API exports the given (malformed) tensor.

    borrowed: the API has dltensor_from_py_object_no_sync (the call's borrowed
    fast path); else only managed_tensor_from_py_object_no_sync. Returns the
    class and a list counting the deleter's calls.
    """
    buf = (ctypes.c_float * 4)()
    n = max(len(shape or []), len(strides or []), 1)
    shape_arr = (ctypes.c_int64 * n)(*(shape or []))
    strides_arr = (ctypes.c_int64 * n)(*(strides or []))
    deleted: list[int] = []

    def fill(t: _DLTensor) -> None:
        t.data = ctypes.addressof(buf)
        t.device = _DLDevice(1, 0)
        t.ndim = ndim
        t.dtype = _DLDataType(2, bits, 1)
        t.shape = shape_arr if shape is not None else None
        t.strides = strides_arr if strides is not None else None
        t.byte_offset = 0

    managed = _DLManagedTensorVersioned()
    managed.version = _DLPackVersion(1, 0)

    @_DELETER
    def deleter(_: int) -> None:
        deleted.append(1)

    managed.deleter = ctypes.cast(deleter, ctypes.c_void_p)
    fill(managed.dl_tensor)

    @_MANAGED_FROM
    def managed_from(_: int, out: Any) -> int:
        out[0] = ctypes.pointer(managed)
        return 0

    @_DLTENSOR_FROM
    def dltensor_from(_: int, out: Any) -> int:
        fill(out.contents)
        return 0

    api = _ExchangeApi()
    api.version = _DLPackVersion(1, 0)
    api.managed_tensor_from_py_object_no_sync = ctypes.cast(managed_from, ctypes.c_void_p)
    if borrowed:
        api.dltensor_from_py_object_no_sync = ctypes.cast(dltensor_from, ctypes.c_void_p)
    keep = (buf, shape_arr, strides_arr, managed, deleter, managed_from, dltensor_from, api)
    cls = type(
        "Exchanged",
        (),
        {
            "__module__": f"hostile_exchange_{ndim}_{bits}_{int(borrowed)}.tensors",
            "__dlpack_c_exchange_api__": _capsule_new(
                ctypes.addressof(api), b"dlpack_exchange_api", None
            ),
            "_keep": keep,
        },
    )
    return cls, deleted


_BAD_EXCHANGED = [
    *_BAD_CAPSULES,
    pytest.param(1, [4], None, 0, id="zero-bits"),
    pytest.param(70, [1] * 70, None, 32, id="ndim-over-64"),
]


@pytest.mark.parametrize("borrowed", [True, False], ids=["dltensor", "managed"])
@pytest.mark.parametrize(
    ("ndim", "shape", "strides", "bits"),
    [pytest.param(*p.values, 32, id=p.id) if len(p.values) == 3 else p for p in _BAD_EXCHANGED],
)
def test_bad_exchange_api_tensor_is_refused(
    cpu_kernels: tvmffi.Module,
    np: ModuleType,
    ndim: int,
    shape: Any,
    strides: Any,
    bits: int,
    borrowed: bool,
) -> None:
    cls, deleted = _exchange_class(ndim, shape, strides, bits, borrowed)
    out = np.zeros(4, dtype=np.float32)
    with pytest.raises(ValueError, match=r"argument #0"):
        cpu_kernels.add_one(cls(), out)  # the DLTensor* door
    assert out.tolist() == [0, 0, 0, 0]  # the kernel never ran
    with pytest.raises(ValueError, match=r"argument #0"):
        cpu_kernels.fill(cls(), 1.0)  # the ffi.Tensor door
    with pytest.raises(ValueError, match=r"argument #0"):
        cpu_kernels.fill_all([cls()], 1.0)  # inside a list
    with pytest.raises(ValueError):
        tvmffi.from_dlpack(cls())
    # Every managed export the call took was released exactly once.
    exports = 3 if borrowed else 4
    assert len(deleted) == exports


def test_good_exchange_api_tensor_still_works(cpu_kernels: tvmffi.Module, np: ModuleType) -> None:
    for borrowed in (True, False):
        cls, _ = _exchange_class(1, [4], None, 32, borrowed)
        obj = cls()
        buf = cls._keep[0]
        ctypes.memmove(buf, np.arange(4, dtype=np.float32).ctypes.data, 16)
        out = np.zeros(4, dtype=np.float32)
        cpu_kernels.add_one(obj, out)
        assert out.tolist() == [1, 2, 3, 4]


class _DeviceProducer:
    """A versioned capsule of a tensor on a CUDA device (never read here), maybe read-only."""

    def __init__(self, read_only: bool) -> None:
        self.shape = (ctypes.c_int64 * 1)(4)
        m = _DLManagedTensorVersioned()
        m.version = _DLPackVersion(1, 0)
        m.flags = _READ_ONLY if read_only else 0
        m.dl_tensor.data = 0x1000  # device memory: tvmffi never reads it
        m.dl_tensor.device = _DLDevice(2, 0)
        m.dl_tensor.ndim = 1
        m.dl_tensor.dtype = _DLDataType(2, 32, 1)
        m.dl_tensor.shape = self.shape
        self.managed = m

    def __dlpack__(self, **kwargs: Any) -> Any:
        return _capsule_new(ctypes.addressof(self.managed), b"dltensor_versioned", None)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (2, 0)


def test_readonly_tensor_off_the_host_is_never_shared() -> None:
    # tvmffi copies host memory only: a read-only device tensor that a consumer
    # would need as a copy is a BufferError, never a view it could write.
    producers = [_DeviceProducer(read_only=True), _DeviceProducer(read_only=False)]
    ro = tvmffi.from_dlpack(producers[0])  # a view of producers[0].managed: kept alive
    for kwargs in ({}, {"max_version": (1, 0)}, {"copy": True}, {"copy": False}):
        with pytest.raises(BufferError, match="read-only"):
            ro.__dlpack__(**kwargs)
    w = tvmffi.from_dlpack(producers[1])
    assert _capsule_data(w.__dlpack__(max_version=(1, 0))) == 0x1000  # writable: shared
    with pytest.raises(BufferError, match="host memory only"):
        w.__dlpack__(copy=True)
    del ro, w  # before the producers' memory

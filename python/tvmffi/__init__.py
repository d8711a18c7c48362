"""tvmffi: load TVM-FFI kernel libraries and call them from Python.

Tensors from torch, numpy, cupy (anything with ``__dlpack__``) are passed
to kernels without a copy: as borrowed ``DLTensor*`` to ``TensorView``
parameters, as owning tensors to ``ffi::Tensor`` ones (the function's type
schema says which); read-only memory is never written.  Tensors a kernel
returns come back as the framework of its tensor arguments.  The names follow
upstream's ``tvm_ffi`` package, so ``import tvmffi as tvm_ffi`` ports code.
"""

from __future__ import annotations

from ._runtime import LIB as _LIB  # first: loads the runtime the rest binds to
from ._runtime import runtime_version as _runtime_version

from . import _core
from . import _error, _framework
from ._core import Device, Function, Object, Tensor, convert, from_dlpack
from ._dtype import dtype
from ._dtype import (
    bfloat16,
    bool,
    float4_e2m1fn,
    float4_e2m1fnx2,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._error import Error, register_error
from .allocator import use_allocator
from . import libinfo
from .container import Array, Dict, List, Map, Shape
from .module import Module, load_module, system_lib
from .registry import (
    get_global_func,
    init_ffi_api,
    list_global_func_names,
    register_global_func,
    remove_global_func,
)
from .stream import StreamContext, get_raw_stream, use_raw_stream, use_torch_stream
from ._device_type import DLDeviceType
from ._reflection import register_object
from .structural import (
    DefRegionKind,
    InplaceMode,
    StructuralKey,
    StructuralMutator,
    StructuralVisitor,
    VisitInterrupt,
    WalkOrder,
    WalkResult,
    get_first_structural_mismatch,
    structural_equal,
    structural_hash,
    structural_map,
    structural_mutate,
    structural_visit,
    structural_walk,
)
from . import access_path, error, serialization, structural
from . import core, cpp, dataclasses
from . import _type_schema
from ._registry_ext import get_global_func_metadata, get_registered_type_keys
from .dataclasses.py_class import method
from .core import ObjectConvertible, convert_func


def device(spec: str | int | Device, index: int | None = None) -> Device:
    """A device value: ``device("cuda:0")``, ``device("cpu")``, ``device("cuda", 1)``.

    ValueError ``Unknown device: NAME`` (upstream's text) for a name that is no
    device type (``"llvm"``, ``"nvptx"``, ...).
    """
    try:
        return _type_schema._DEVICE_CLS[0](spec, index)  # core._set_class_device's class
    except ValueError as err:
        if isinstance(spec, str) and "unknown device type" in str(err):
            raise ValueError(f"Unknown device: {spec}") from None
        raise


def _device_repr(self: Device) -> str:
    return f"device(type={self.type!r}, index={self.index})"


def _device_reduce(self: Device) -> tuple[type, tuple[int, int]]:
    return Device, (self.dlpack_device_type(), self.index)


# Upstream's repr and pickling of a device.
Device.__repr__ = _device_repr  # type: ignore[method-assign]
Device.__reduce__ = _device_reduce  # type: ignore[method-assign]


_core._set_hooks(
    _error.error_from_ffi,
    _error.error_to_ffi,
    _framework.alloc,
    _framework.current_stream,
    _framework.from_tensor,
    _framework.exchange_api,
    dtype,
    Shape,
)
_core._register_object_class("ffi.Module", Module)
_core._register_object_class("ffi.Array", Array)
_core._register_object_class("ffi.Map", Map)

__version__ = _runtime_version(_LIB)
# Upstream's form: the numeric parts as ints (a local or pre-release tail as str).
__version_tuple__ = tuple(int(p) if p.isdigit() else p for p in __version__.split("."))

__all__ = [
    "Array",
    "DLDeviceType",
    "DefRegionKind",
    "InplaceMode",
    "Device",
    "Dict",
    "Error",
    "Function",
    "List",
    "Map",
    "Module",
    "Object",
    "ObjectConvertible",
    "Shape",
    "StreamContext",
    "StructuralKey",
    "StructuralMutator",
    "StructuralVisitor",
    "Tensor",
    "VisitInterrupt",
    "WalkOrder",
    "WalkResult",
    "access_path",
    "convert",
    "convert_func",
    "core",
    "cpp",
    "dataclasses",
    "device",
    "dtype",
    "from_dlpack",
    "get_first_structural_mismatch",
    "get_global_func",
    "get_global_func_metadata",
    "get_registered_type_keys",
    "get_raw_stream",
    "init_ffi_api",
    "libinfo",
    "list_global_func_names",
    "load_module",
    "method",
    "register_error",
    "register_global_func",
    "register_object",
    "remove_global_func",
    "serialization",
    "structural",
    "structural_equal",
    "structural_hash",
    "structural_map",
    "structural_mutate",
    "structural_visit",
    "structural_walk",
    "system_lib",
    "use_allocator",
    "use_raw_stream",
    "use_torch_stream",
]

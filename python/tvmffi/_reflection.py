"""Reflection over the C ABI, in Python: type records, fields, methods, type attributes.

The runtime describes every registered object type in a ``TVMFFITypeInfo``
record (its key, ancestors, fields with getters and setters, methods) and keeps
per-type attributes in columns (``__ffi_init__``, ...). This module reads them
with ctypes, so Python classes can be bound to C++ types without help from the
extension:

* :func:`type_info` gives a :class:`TypeInfo` (upstream's ``tvm_ffi.core.TypeInfo``:
  ``fields`` of :class:`TypeField`, ``methods`` of :class:`TypeMethod`, the parent).
* :func:`register_object` binds a Python class (a subclass of
  :class:`tvmffi.Object`) to a type key: FFI objects of that type come back as
  instances of it, its reflected fields become properties (read through the
  field's getter, written through its setter), its methods become methods, and
  ``__init__`` calls the type's ``__ffi_init__``.
* Types that no Python class is bound to get a generated class (upstream's
  "fallback" classes), so their fields and methods are reachable too.
* :func:`make_object` creates an object of a type from field values
  (``make_object("my.Type", x=1)``), filling the others with their defaults.
* :func:`pack` converts a Python value as upstream's argument setters do
  (protocols such as ``__tvm_ffi_object__`` / ``__tvm_ffi_value__``, ctypes
  pointers, and any other Python object as an ``ffi.OpaquePyObject``).

Values cross between Python and the ABI through three small FFI functions made
here from ctypes callbacks, so every conversion is the package's own:
``_addr`` (an object's handle), ``_take`` (an owned TVMFFIAny to Python) and
``_give`` (a Python value to an owned TVMFFIAny).
"""

from __future__ import annotations

import ctypes
import json
import threading
from numbers import Integral, Real
from typing import Any, Callable, Sequence, TypeVar

from . import _core
from ._core import Device, Function, Object
from ._runtime import LIB as _LIB

_T = TypeVar("_T", bound=type)

# -- the C structures (c_api.h) ----------------------------------------------


class ByteArray(ctypes.Structure):
    """TVMFFIByteArray."""

    _fields_ = [("data", ctypes.c_void_p), ("size", ctypes.c_size_t)]

    def text(self) -> str:
        return (
            ctypes.string_at(self.data, self.size).decode("utf-8", "replace") if self.data else ""
        )


def _bytearray(text: str) -> tuple[ByteArray, bytes]:
    raw = text.encode("utf-8")
    return ByteArray(ctypes.cast(ctypes.c_char_p(raw), ctypes.c_void_p), len(raw)), raw


class _AnyValue(ctypes.Union):
    _fields_ = [
        ("v_int64", ctypes.c_int64),
        ("v_float64", ctypes.c_double),
        ("v_ptr", ctypes.c_void_p),
        ("v_bytes", ctypes.c_char * 8),
    ]


class AnyCell(ctypes.Structure):
    """TVMFFIAny: a 16-byte tagged value."""

    _fields_ = [("type_index", ctypes.c_int32), ("zero_padding", ctypes.c_uint32), ("v", _AnyValue)]


class FieldInfoC(ctypes.Structure):
    """TVMFFIFieldInfo."""

    _fields_ = [
        ("name", ByteArray),
        ("doc", ByteArray),
        ("metadata", ByteArray),
        ("flags", ctypes.c_int64),
        ("size", ctypes.c_int64),
        ("alignment", ctypes.c_int64),
        ("offset", ctypes.c_int64),
        ("getter", ctypes.c_void_p),
        ("setter", ctypes.c_void_p),
        ("default_value_or_factory", AnyCell),
        ("field_static_type_index", ctypes.c_int32),
    ]


class MethodInfoC(ctypes.Structure):
    """TVMFFIMethodInfo."""

    _fields_ = [
        ("name", ByteArray),
        ("doc", ByteArray),
        ("metadata", ByteArray),
        ("flags", ctypes.c_int64),
        ("method", AnyCell),
    ]


class TypeMetadataC(ctypes.Structure):
    """TVMFFITypeMetadata."""

    _fields_ = [
        ("doc", ByteArray),
        ("creator", ctypes.c_void_p),
        ("total_size", ctypes.c_int32),
        ("structural_eq_hash_kind", ctypes.c_int32),
    ]


class TypeInfoC(ctypes.Structure):
    """TVMFFITypeInfo."""


TypeInfoC._fields_ = [
    ("type_index", ctypes.c_int32),
    ("type_depth", ctypes.c_int32),
    ("type_key", ByteArray),
    ("type_ancestors", ctypes.POINTER(ctypes.POINTER(TypeInfoC))),
    ("type_key_hash", ctypes.c_uint64),
    ("num_fields", ctypes.c_int32),
    ("num_methods", ctypes.c_int32),
    ("fields", ctypes.POINTER(FieldInfoC)),
    ("methods", ctypes.POINTER(MethodInfoC)),
    ("metadata", ctypes.POINTER(TypeMetadataC)),
]


class TypeAttrColumnC(ctypes.Structure):
    """TVMFFITypeAttrColumn."""

    _fields_ = [
        ("data", ctypes.POINTER(AnyCell)),
        ("size", ctypes.c_int32),
        ("begin_index", ctypes.c_int32),
    ]


# Type indices and flags (c_api.h).
K_ANY = -1
K_NONE, K_INT, K_BOOL, K_FLOAT, K_OPAQUE_PTR, K_DATA_TYPE, K_DEVICE = 0, 1, 2, 3, 4, 5, 6
K_DLTENSOR_PTR, K_RAW_STR, K_BYTE_ARRAY_PTR, K_OBJECT_RVALUE_REF = 7, 8, 9, 10
K_SMALL_STR, K_SMALL_BYTES = 11, 12
K_STATIC_OBJECT_BEGIN = K_OBJECT = 64
K_STR, K_BYTES, K_ERROR, K_FUNCTION, K_SHAPE, K_TENSOR = 65, 66, 67, 68, 69, 70
K_ARRAY, K_MAP, K_MODULE, K_OPAQUE_PY_OBJECT, K_LIST, K_DICT = 71, 72, 73, 74, 75, 76
K_DYN_OBJECT_BEGIN = 128
FLAG_WRITABLE = 1 << 0
FLAG_HAS_DEFAULT = 1 << 1
FLAG_STATIC_METHOD = 1 << 2
FLAG_SEQ_HASH_IGNORE = 1 << 3
FLAG_SEQ_HASH_DEF = 1 << 4
FLAG_DEFAULT_FROM_FACTORY = 1 << 5
FLAG_REPR_OFF = 1 << 6
FLAG_COMPARE_OFF = 1 << 7
FLAG_HASH_OFF = 1 << 8
FLAG_INIT_OFF = 1 << 9
FLAG_KW_ONLY = 1 << 10
FLAG_SETTER_IS_FUNCTION = 1 << 11
FLAG_SEQ_HASH_DEF_NON_RECURSIVE = 1 << 12
OBJECT_HEADER_SIZE = 24  # sizeof(TVMFFIObject)

_SafeCall = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AnyCell), ctypes.c_int32, ctypes.POINTER(AnyCell)
)
_Getter = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AnyCell))
_Setter = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AnyCell))
_Creator = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_void_p))
_OpaqueDeleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _proto(name: str, restype: Any, *argtypes: Any) -> Any:
    f = getattr(_LIB, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_GetTypeInfo = _proto("TVMFFIGetTypeInfo", ctypes.POINTER(TypeInfoC), ctypes.c_int32)
_TypeKeyToIndex = _proto(
    "TVMFFITypeKeyToIndex", ctypes.c_int, ctypes.POINTER(ByteArray), ctypes.POINTER(ctypes.c_int32)
)
_GetTypeAttrColumn = _proto(
    "TVMFFIGetTypeAttrColumn", ctypes.POINTER(TypeAttrColumnC), ctypes.POINTER(ByteArray)
)
_TypeRegisterAttr = _proto(
    "TVMFFITypeRegisterAttr",
    ctypes.c_int,
    ctypes.c_int32,
    ctypes.POINTER(ByteArray),
    ctypes.POINTER(AnyCell),
)
_IncRef = _proto("TVMFFIObjectIncRef", ctypes.c_int, ctypes.c_void_p)
_DecRef = _proto("TVMFFIObjectDecRef", ctypes.c_int, ctypes.c_void_p)
_FunctionCreate = _proto(
    "TVMFFIFunctionCreate",
    ctypes.c_int,
    ctypes.c_void_p,
    _SafeCall,
    ctypes.c_void_p,
    ctypes.POINTER(ctypes.c_void_p),
)
_FunctionCall = _proto(
    "TVMFFIFunctionCall",
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.POINTER(AnyCell),
    ctypes.c_int32,
    ctypes.POINTER(AnyCell),
)
_AnyViewToOwnedAny = _proto(
    "TVMFFIAnyViewToOwnedAny", ctypes.c_int, ctypes.POINTER(AnyCell), ctypes.POINTER(AnyCell)
)
_ErrorSetRaisedFromCStr = _proto(
    "TVMFFIErrorSetRaisedFromCStr", None, ctypes.c_char_p, ctypes.c_char_p
)
_ErrorMoveFromRaised = _proto("TVMFFIErrorMoveFromRaised", None, ctypes.POINTER(ctypes.c_void_p))
_CreateOpaque = _proto(
    "TVMFFIObjectCreateOpaque",
    ctypes.c_int,
    ctypes.c_void_p,
    ctypes.c_int32,
    _OpaqueDeleter,
    ctypes.POINTER(ctypes.c_void_p),
)
# The address of TVMFFIAnyViewToOwnedAny: its signature is a field getter's
# (const TVMFFIAny* field, TVMFFIAny* result), so it reads Any-typed fields.
ANY_VIEW_TO_OWNED_ADDR = ctypes.cast(_AnyViewToOwnedAny, ctypes.c_void_p).value

_Py_IncRef = ctypes.pythonapi.Py_IncRef
_Py_IncRef.argtypes = [ctypes.py_object]
_Py_IncRef.restype = None
_Py_DecRef = ctypes.pythonapi.Py_DecRef
_Py_DecRef.argtypes = [ctypes.c_void_p]
_Py_DecRef.restype = None


# Errors of the ctypes callbacks that remain (_pyclass.py's field converters,
# method trampolines): parked in the runtime's slot for the caller.


def _set_error(err: BaseException) -> int:
    kind = (
        type(err).__name__
        if isinstance(
            err, (TypeError, ValueError, KeyError, IndexError, AttributeError, RuntimeError)
        )
        else "RuntimeError"
    )
    _ErrorSetRaisedFromCStr(kind.encode(), str(err).encode("utf-8", "replace"))
    return -1


_ADDR = _core._handle_address


def handle_of(obj: Object) -> int:
    """The address of the FFI object ``obj`` refers to (0 for a null reference)."""
    return _ADDR(obj)


# The handle of a tvmffi.Object lives in its nanobind instance: nanobind keeps
# the C++ value (whose first member is the handle) at the int32 offset stored
# right after the PyObject header. Checked against _ADDR once; if the layout
# ever differs, chandle_of falls back to the (slower) FFI call.
_NB_OFFSET_AT = 16


def _probe_inline_handle() -> bool:
    probe = _core.convert([])
    try:
        off = ctypes.c_int32.from_address(id(probe) + _NB_OFFSET_AT).value
        return 0 < off < 256 and ctypes.c_void_p.from_address(id(probe) + off).value == _ADDR(probe)
    except Exception:
        return False


_INLINE_HANDLE = _probe_inline_handle()


def chandle_of(obj: Any) -> int:
    """The handle of a tvmffi.Object (0 when it has none, e.g. made by ``__new__``)."""
    if not isinstance(obj, Object):  # an unbound call: its memory is not an Object's
        raise TypeError(f"expected a tvmffi.Object, got an object of type {type(obj).__name__!r}")
    if _INLINE_HANDLE:
        if _NB_STATE_KNOWN and _nb_state(obj) == 0:
            return 0  # allocated, never constructed: its memory is not a handle
        off = ctypes.c_int32.from_address(id(obj) + _NB_OFFSET_AT).value
        return ctypes.c_void_p.from_address(id(obj) + off).value or 0
    try:
        return _ADDR(obj)
    except TypeError:
        return 0


# nanobind runs an instance's C++ destructor (here: the release of its handle)
# only for instances it constructed. A Python subclass instance made by
# ``cls.__new__`` and bound to a handle by ``_core._init_from`` is not, so
# :func:`ensure_constructed` first runs the extension's ``Object.__init__``
# (a null handle) on it. The instance state lives in the byte after the
# offset (bits 0-1: 0 uninitialized, 2 ready); checked once against a probe.
_NB_FLAGS_AT = 20
_NB_OBJECT_INIT = Object.__dict__["__init__"]


def _nb_state(obj: Any) -> int:
    return ctypes.c_uint8.from_address(id(obj) + _NB_FLAGS_AT).value & 3


def _probe_nb_state() -> bool:
    try:
        probe = Object.__new__(Object)
        before = _nb_state(probe)
        _NB_OBJECT_INIT(probe)
        return before == 0 and _nb_state(probe) == 2 and _nb_state(_core.convert([])) == 2
    except Exception:
        return False


_NB_STATE_KNOWN = _probe_nb_state()


def is_constructed(obj: Any) -> bool:
    """Whether the extension considers ``obj`` constructed (its handle is released with it)."""
    return _nb_state(obj) == 2 if _NB_STATE_KNOWN else True


def ensure_constructed(obj: Any) -> None:
    """Construct (null handle) an Object instance that was only allocated (``cls.__new__``)."""
    if _NB_STATE_KNOWN and _nb_state(obj) == 0:
        _NB_OBJECT_INIT(obj)


def take_any(cell: AnyCell) -> Any:
    """The Python value of an owned TVMFFIAny, which this consumes.

    An ``ffi.OpaquePyObject`` comes back as its wrapper (:class:`OpaquePyObject`),
    where a call's result gives the Python object it holds.
    """
    if cell.type_index == K_OPAQUE_PY_OBJECT and cell.v.v_ptr:
        handle = cell.v.v_ptr
        cell.type_index = K_NONE
        cell.v.v_int64 = 0
        return _core._wrap_owned(handle)
    return _core._take_any(ctypes.addressof(cell))


def view_to_py(cell: AnyCell) -> Any:
    """The Python value of a borrowed TVMFFIAny (left untouched)."""
    owned = AnyCell()
    if _AnyViewToOwnedAny(ctypes.byref(cell), ctypes.byref(owned)) != 0:
        raise_last_error()
    return take_any(owned)


def object_from_handle(handle: int) -> Any:
    """A new Python reference to the FFI object at ``handle`` (None for 0)."""
    if not handle:
        return None
    cell = AnyCell()
    cell.type_index = ctypes.c_int32.from_address(handle + 8).value
    cell.v.v_ptr = handle
    _IncRef(handle)
    return take_any(cell)


def to_owned_any(value: Any) -> AnyCell:
    """``value`` converted as the package converts arguments, as an owned TVMFFIAny."""
    cell = AnyCell()
    _core._give_any(value, ctypes.addressof(cell))
    return cell


def release_any(cell: AnyCell) -> None:
    """Drop the reference an owned TVMFFIAny holds."""
    if cell.type_index >= K_STATIC_OBJECT_BEGIN and cell.v.v_ptr:
        _DecRef(cell.v.v_ptr)
    cell.type_index = K_NONE
    cell.v.v_int64 = 0


def copy_cell(cell: AnyCell) -> AnyCell:
    """A new owned copy of a TVMFFIAny (one more reference to its object)."""
    out = AnyCell()
    if _AnyViewToOwnedAny(ctypes.byref(cell), ctypes.byref(out)) != 0:
        raise_last_error()
    return out


def raise_last_error() -> None:
    """Raise (as the package's call path does) the error a failed C call left parked."""
    _core._raise_last_error()


def call_cells(func: Any, cells: Sequence[AnyCell]) -> AnyCell:
    """Call an FFI function (a Function or a handle) on borrowed cells; the owned result."""
    handle = func if isinstance(func, int) else chandle_of(func)
    args = (AnyCell * max(len(cells), 1))()
    for i, c in enumerate(cells):
        ctypes.memmove(ctypes.byref(args[i]), ctypes.byref(c), ctypes.sizeof(AnyCell))
    out = AnyCell()
    if _FunctionCall(ctypes.c_void_p(handle), args, len(cells), ctypes.byref(out)) != 0:
        raise_last_error()
    return out


# -- Python values in FFI form (upstream's argument setters) ------------------


class ObjectRValueRef:
    """``obj._move()``: ``obj``'s reference, handed to whatever it is passed to.

    As a function argument it travels as an rvalue reference: a callee that
    takes the object over leaves ``obj`` empty (its handle None), one that only
    reads it leaves it as it was. Returned from a callback, or put in a
    container being converted, it always hands the reference over.
    """

    __slots__ = ["obj"]

    def __init__(self, obj: Any) -> None:
        self.obj = obj


_core._set_rvalue_ref_class(ObjectRValueRef)


class ObjectConvertible:
    """Base of Python classes that convert to an FFI object through :meth:`asobject`."""

    def asobject(self) -> Object:
        """The :class:`Object` this value stands for across the FFI."""
        raise NotImplementedError()


class OpaquePyObject(Object):
    """An ``ffi.OpaquePyObject``: a Python object carried across the FFI as it is."""

    __slots__ = ()

    def pyobject(self) -> Any:
        """The Python object this holds."""
        handle = chandle_of(self)
        if not handle:
            raise ValueError("OpaquePyObject: null reference")
        addr = ctypes.c_void_p.from_address(handle + OBJECT_HEADER_SIZE).value
        return ctypes.cast(addr, ctypes.py_object).value


def _opaque_deleter_impl(handle: int | None) -> None:
    if handle:
        _Py_DecRef(handle)


# The extension's C deleter when it has one: a ctypes callback cannot run while a
# Python exception is pending, and an opaque object may die then (a failed call).
_OPAQUE_DELETER = (
    _OpaqueDeleter(_core._opaque_deleter())
    if hasattr(_core, "_opaque_deleter")
    else _OpaqueDeleter(_opaque_deleter_impl)
)


def opaque_cell(value: Any) -> AnyCell:
    """An owned ``ffi.OpaquePyObject`` holding a reference to ``value``."""
    out = ctypes.c_void_p()
    _Py_IncRef(value)
    if (
        _CreateOpaque(
            ctypes.c_void_p(id(value)), K_OPAQUE_PY_OBJECT, _OPAQUE_DELETER, ctypes.byref(out)
        )
        != 0
    ):
        _Py_DecRef(id(value))
        raise_last_error()
    cell = AnyCell()
    cell.type_index = K_OPAQUE_PY_OBJECT
    cell.v.v_ptr = out.value
    return cell


_ErrorCreate = _proto(
    "TVMFFIErrorCreate",
    ctypes.c_int,
    ctypes.POINTER(ByteArray),
    ctypes.POINTER(ByteArray),
    ctypes.POINTER(ByteArray),
    ctypes.POINTER(ctypes.c_void_p),
)


def error_cell(exc: BaseException) -> AnyCell:
    """An owned ``ffi.Error`` made from a Python exception (its kind, message, traceback)."""
    from ._error import error_info

    kind, message, backtrace = error_info(exc)
    k, _k = _bytearray(kind)
    m, _m = _bytearray(message)
    b, _b = _bytearray(backtrace)
    out = ctypes.c_void_p()
    if _ErrorCreate(ctypes.byref(k), ctypes.byref(m), ctypes.byref(b), ctypes.byref(out)) != 0:
        raise RuntimeError("tvmffi: TVMFFIErrorCreate failed")
    cell = AnyCell()
    cell.type_index = K_ERROR
    cell.v.v_ptr = out.value
    return cell


def _ptr_cell(addr: int | None) -> AnyCell:
    cell = AnyCell()
    cell.type_index = K_OPAQUE_PTR
    cell.v.v_ptr = addr or None
    return cell


_FFI_FUNCS: dict[str, Function] = {}


def ffi_func(name: str) -> Function:
    """The global function ``name`` (looked up once; the runtime's own as of import)."""
    f = _FFI_FUNCS.get(name)
    if f is None:
        f = _FFI_FUNCS[name] = _core._builtin_func(name)
    return f


def _dtype_cls() -> Any:
    from ._dtype import dtype

    return dtype


def _foreign_dtype(value: Any) -> Any:
    """tvmffi.dtype of a torch / numpy dtype, or of a ``__dlpack_data_type__`` value."""
    dtype = _dtype_cls()
    if hasattr(type(value), "__dlpack_data_type__"):
        code, bits, lanes = value.__dlpack_data_type__()
        names = {0: "int", 1: "uint", 2: "float", 3: "handle", 4: "bfloat", 5: "complex", 6: "bool"}
        base = names.get(int(code))
        if base is None:
            raise TypeError(f"unsupported DLPack type code {code}")
        text = "bool" if base == "bool" and bits == 8 else f"{base}{bits}"
        return dtype(text if lanes == 1 else f"{text}x{lanes}")
    return dtype(value)


def _is_torch_or_numpy_dtype(value: Any) -> bool:
    mod = type(value).__module__ or ""
    return (mod.startswith("torch") and type(value).__name__ == "dtype") or (
        mod.startswith("numpy") and "dtype" in type(value).__name__.lower()
    )


def pack(value: Any) -> AnyCell:
    """``value`` as an owned TVMFFIAny, converted as upstream converts arguments.

    Beyond what the extension converts (numbers, strings, objects, devices,
    dtypes, tensors, lists, dicts, callables): the ``__tvm_ffi_object__``,
    ``__tvm_ffi_value__``, ``__tvm_ffi_int__``, ``__tvm_ffi_float__``,
    ``__tvm_ffi_opaque_ptr__``, ``__cuda_stream__``, ``__dlpack_device__`` and
    dtype protocols, :class:`ObjectConvertible`, ``ctypes.c_void_p``, and any
    other Python object as an ``ffi.OpaquePyObject``.
    """
    cell = _pack(value, True)
    assert cell is not None
    return cell


# Whether a call argument (or container element) that is no FFI value and
# follows none of the protocols :func:`pack` knows passes as an
# ``ffi.OpaquePyObject`` (upstream's behaviour) instead of being a TypeError.
# Off for ``tvmffi``; the ``tvm_ffi`` drop-in name (python/compat) turns it on.
_OPAQUE_ARGUMENTS = [False]


def set_opaque_arguments(enabled: bool) -> bool:
    """Let any Python object pass to FFI functions as an ``ffi.OpaquePyObject``; the old setting."""
    old = _OPAQUE_ARGUMENTS[0]
    _OPAQUE_ARGUMENTS[0] = bool(enabled)
    return old


def _pack_fallback(value: Any, address: int) -> bool:
    """The extension's converter of values it does not classify (``_core._set_pack_fallback``).

    Writes the owned TVMFFIAny of ``value`` at ``address`` and returns True;
    False when ``value`` is no protocol value and opaque arguments are off.
    """
    cell = _pack(value, _OPAQUE_ARGUMENTS[0])
    if cell is None:
        return False
    ctypes.memmove(address, ctypes.byref(cell), ctypes.sizeof(AnyCell))
    return True


def _is_cuda_python_stream(cls: type) -> bool:
    """cuda-python's ``CUstream`` (``int()`` gives the handle; it has no ``__cuda_stream__``).

    Known by name, so that cuda-python is never imported here.
    """
    return cls.__name__ == "CUstream" and cls.__module__.startswith("cuda.")


def _pack(value: Any, opaque: bool) -> AnyCell | None:
    """:func:`pack`; a value it would make an ``ffi.OpaquePyObject`` is None unless ``opaque``."""
    for _ in range(64):
        if value is None or isinstance(value, (bool, int, float, str, bytes, Object, Device)):
            return to_owned_any(value)
        if isinstance(value, ObjectRValueRef):
            value = value.obj
            continue
        cls = type(value)
        if hasattr(cls, "__tvm_ffi_object__"):
            value = value.__tvm_ffi_object__()
            if not isinstance(value, Object):
                raise TypeError("__tvm_ffi_object__() must return a tvm_ffi.Object")
            continue
        if hasattr(cls, "__dlpack_c_exchange_api__") or hasattr(cls, "__dlpack__"):
            return to_owned_any(_core.from_dlpack(value))
        if hasattr(cls, "__cuda_stream__"):
            return _ptr_cell(int(value.__cuda_stream__()[1]))
        if _is_cuda_python_stream(cls):
            return _ptr_cell(int(value))
        if isinstance(value, Integral):
            return to_owned_any(int(value))
        if isinstance(value, Real):
            return to_owned_any(float(value))
        if isinstance(value, (tuple, list)):
            try:
                return to_owned_any(value)
            except TypeError:
                return _pack_sequence(value)
        if isinstance(value, dict):
            try:
                return to_owned_any(value)
            except TypeError:
                return _pack_mapping(value)
        if isinstance(value, bytearray):
            return to_owned_any(bytes(value))
        if isinstance(value, ctypes.c_void_p):
            return _ptr_cell(value.value)
        if hasattr(cls, "__tvm_ffi_opaque_ptr__"):
            return _ptr_cell(int(value.__tvm_ffi_opaque_ptr__()))
        if callable(value):
            return to_owned_any(value)
        if _is_torch_or_numpy_dtype(value) or hasattr(cls, "__dlpack_data_type__"):
            return to_owned_any(_foreign_dtype(value))
        if hasattr(cls, "__dlpack_device__") and not hasattr(cls, "__dlpack__"):
            dev_type, dev_id = value.__dlpack_device__()
            return to_owned_any(Device(int(dev_type), int(dev_id)))
        if hasattr(cls, "__tvm_ffi_int__"):
            return to_owned_any(int(value.__tvm_ffi_int__()))
        if hasattr(cls, "__tvm_ffi_float__"):
            return to_owned_any(float(value.__tvm_ffi_float__()))
        if hasattr(cls, "__tvm_ffi_value__"):
            inner = value.__tvm_ffi_value__()
            if inner is value:
                return opaque_cell(value) if opaque else None
            value = inner
            continue
        if isinstance(value, BaseException):
            return error_cell(value)
        if isinstance(value, ObjectConvertible):
            value = value.asobject()
            continue
        return opaque_cell(value) if opaque else None
    raise TypeError("infinite __tvm_ffi_value__ cycle detected")


_core._set_pack_fallback(_pack_fallback)


def _pack_sequence(items: Sequence[Any]) -> AnyCell:
    cells = [pack(x) for x in items]
    try:
        return call_cells(ffi_func("ffi.Array"), cells)
    finally:
        for c in cells:
            release_any(c)


def _pack_mapping(items: dict[Any, Any]) -> AnyCell:
    cells: list[AnyCell] = []
    try:
        for k, v in items.items():
            cells.append(pack(k))
            cells.append(pack(v))
        return call_cells(ffi_func("ffi.Map"), cells)
    finally:
        for c in cells:
            release_any(c)


def to_ffi_value(value: Any) -> Any:
    """``value`` in a form every FFI call of the extension accepts (see :func:`pack`)."""
    if value is None or type(value) in (bool, int, float, str, bytes) or isinstance(value, Object):
        return value
    return take_any(pack(value))


def unwrap_opaque(value: Any) -> Any:
    """The Python object an ``ffi.OpaquePyObject`` holds; other values as they are."""
    if (
        isinstance(value, Object)
        and chandle_of(value)
        and ctypes.c_int32.from_address(chandle_of(value) + 8).value == K_OPAQUE_PY_OBJECT
    ):
        return OpaquePyObject.pyobject(value)
    return value


def cell_to_py(cell: AnyCell) -> Any:
    """The Python value of an owned TVMFFIAny (consumed); opaque Python objects unwrapped."""
    if cell.type_index == K_OPAQUE_PY_OBJECT:
        handle = cell.v.v_ptr
        addr = ctypes.c_void_p.from_address(handle + OBJECT_HEADER_SIZE).value
        value = ctypes.cast(addr, ctypes.py_object).value
        _DecRef(handle)
        return value
    if cell.type_index == K_OPAQUE_PTR:
        return ctypes.c_void_p(cell.v.v_ptr)
    return take_any(cell)


# -- type records ------------------------------------------------------------


def type_key_to_index(type_key: str) -> int | None:
    """The type index of ``type_key``; None when no such type is registered."""
    key, _keep = _bytearray(type_key)
    out = ctypes.c_int32()
    if _TypeKeyToIndex(ctypes.byref(key), ctypes.byref(out)) != 0:
        _clear_error()  # an unknown key: the runtime parked an error
        return None
    return out.value


def type_index_to_key(type_index: int) -> str:
    """The type key of a type index ("<unknown>" when there is none)."""
    p = _GetTypeInfo(type_index) if type_index >= 0 else None
    return p.contents.type_key.text() if p else "<unknown>"


def _clear_error() -> None:
    h = ctypes.c_void_p()
    _ErrorMoveFromRaised(ctypes.byref(h))
    if h.value:
        _DecRef(h)


_UNSET: Any = object()  # "argument not given" (MISSING itself may be a legal value)


def missing() -> Object:
    """The runtime's "missing" sentinel object (upstream's ``core.MISSING``)."""
    if not _MISSING:
        _MISSING.append(ffi_func("ffi.MapGetMissingObject")())
    return _MISSING[0]


_MISSING: list[Object] = []


class FFIProperty(property):
    """The property of a reflected field.

    A frozen field has no public setter (assignment raises AttributeError);
    :meth:`set` writes it anyway (for construction and translation code).
    """

    def __init__(
        self, fget: Any, fset: Any, frozen: bool, fdel: Any = None, doc: str | None = None
    ) -> None:
        super().__init__(fget, None if frozen else fset, fdel, doc)
        self._fset = fset

    def set(self, obj: Any, value: Any) -> None:
        """Write the field, frozen or not."""
        self._fset(obj, value)


class FieldGetter:
    """Reads a reflected field of an object (callable as ``getter(obj)``)."""

    def __init__(self, field: TypeField) -> None:
        self.field = field

    def __call__(self, obj: Any) -> Any:
        return self.field.get(obj)


class FieldSetter:
    """Writes a reflected field of an object (callable as ``setter(obj, value)``)."""

    def __init__(self, field: TypeField) -> None:
        self.field = field

    def __call__(self, obj: Any, value: Any) -> None:
        self.field.set(obj, value)


class TypeField:
    """A reflected field (upstream's ``tvm_ffi.core.TypeField``).

    ``name``, ``doc``, ``size``, ``alignment``, ``offset``,
    ``field_static_type_index``, ``frozen``, ``metadata`` (a dict: its
    ``type_schema``, ...), ``getter`` / ``setter`` (callables on an object),
    ``ty`` (the :class:`TypeSchema`, or None), and the dataclass traits
    ``c_init``, ``c_kw_only``, ``c_has_default``, ``c_default``,
    ``c_default_factory``, ``c_repr``, ``c_compare``, ``c_hash``,
    ``c_structural_eq``; ``dataclass_field`` is the Python ``Field`` of a
    ``@c_class`` / ``@py_class``.
    """

    def __init__(
        self,
        name: str,
        doc: str | None = None,
        size: int = 0,
        alignment: int = 0,
        offset: int = 0,
        field_static_type_index: int = K_ANY,
        frozen: bool = False,
        metadata: dict[str, Any] | None = None,
        getter: Any = None,
        setter: Any = None,
        ty: Any = None,
        c_init: bool = True,
        c_kw_only: bool = False,
        c_has_default: bool = False,
        c_default: Any = _UNSET,
        c_default_factory: Any = _UNSET,
        c_repr: bool = True,
        c_compare: bool = True,
        c_hash: bool = True,
        c_structural_eq: str | None = None,
        dataclass_field: Any = None,
    ) -> None:
        self.name = name
        self.doc = doc
        self.size = size
        self.alignment = alignment
        self.offset = offset
        self.field_static_type_index = field_static_type_index
        self.frozen = frozen
        self.metadata = {} if metadata is None else metadata
        self.ty = ty
        self.c_init = c_init
        self.c_kw_only = c_kw_only
        self.c_has_default = c_has_default
        self.c_default = missing() if c_default is _UNSET else c_default
        self.c_default_factory = missing() if c_default_factory is _UNSET else c_default_factory
        self.c_repr = c_repr
        self.c_compare = c_compare
        self.c_hash = c_hash
        self.c_structural_eq = c_structural_eq
        self.dataclass_field = dataclass_field
        self.flags = 0
        self.type_info: TypeInfo | None = None
        self._getter_addr = 0
        self._setter_addr = 0
        self._default_cell: AnyCell | None = None
        self._io: Any = None  # the Python-side reader / writer of a Python-defined type's field
        self.getter = getter if getter is not None else FieldGetter(self)
        self.setter = setter if setter is not None else FieldSetter(self)

    @classmethod
    def _from_c(cls, c: FieldInfoC, owner: TypeInfo) -> TypeField:
        flags = int(c.flags)
        metadata: dict[str, Any] = {}
        raw = c.metadata.text()
        if raw:
            try:
                metadata = json.loads(raw)
            except ValueError:
                metadata = {}
        ty = None
        schema = metadata.get("type_schema") if isinstance(metadata, dict) else None
        if schema is not None:
            try:
                from ._type_schema import TypeSchema

                ty = TypeSchema._from_maybe_json(schema)
            except Exception:
                ty = None
        default: Any = _UNSET
        factory: Any = _UNSET
        if flags & FLAG_HAS_DEFAULT:
            value = cell_to_py(copy_cell(c.default_value_or_factory))
            if flags & FLAG_DEFAULT_FROM_FACTORY:
                factory = value
            else:
                default = value
        if flags & FLAG_SEQ_HASH_IGNORE:
            structural = "ignore"
        elif flags & FLAG_SEQ_HASH_DEF:
            structural = "def-recursive"
        elif flags & FLAG_SEQ_HASH_DEF_NON_RECURSIVE:
            structural = "def-non-recursive"
        else:
            structural = None
        f = cls(
            name=c.name.text(),
            doc=c.doc.text() or None,
            size=int(c.size),
            alignment=int(c.alignment),
            offset=int(c.offset),
            field_static_type_index=int(c.field_static_type_index),
            frozen=not flags & FLAG_WRITABLE,
            metadata=metadata,
            ty=ty,
            c_init=not flags & FLAG_INIT_OFF,
            c_kw_only=bool(flags & FLAG_KW_ONLY),
            c_has_default=bool(flags & FLAG_HAS_DEFAULT),
            c_default=default,
            c_default_factory=factory,
            c_repr=not flags & FLAG_REPR_OFF,
            c_compare=not flags & FLAG_COMPARE_OFF,
            c_hash=not flags & FLAG_HASH_OFF,
            c_structural_eq=structural,
        )
        f.flags = flags
        f.type_info = owner
        f._getter_addr = c.getter or 0
        f._setter_addr = c.setter or 0
        f._default_cell = c.default_value_or_factory
        return f

    # The old names, kept for the package's own callers.
    @property
    def static_type_index(self) -> int:
        """The static type index of the field's declared type (``field_static_type_index``)."""
        return self.field_static_type_index

    writable = property(
        lambda self: bool(self.flags & FLAG_WRITABLE),
        doc="Whether the field has a setter (it is not read-only).",
    )
    has_default = property(
        lambda self: bool(self.flags & FLAG_HAS_DEFAULT),
        doc="Whether the field has a default value or factory.",
    )
    kw_only = property(
        lambda self: bool(self.flags & FLAG_KW_ONLY),
        doc="Whether the constructor takes the field by keyword only.",
    )
    init = property(
        lambda self: not self.flags & FLAG_INIT_OFF,
        doc="Whether the constructor takes the field at all.",
    )

    def _checked_handle(self, obj: Any) -> int:
        """``obj``'s handle, if it is an object of the field's type (or a subtype).

        A property called unbound, or an object bound to another type's handle,
        would otherwise be read at this field's offset: TypeError instead.
        """
        handle = chandle_of(obj)
        owner = self.type_info
        if handle and owner is not None:
            info = type_info(obj.type_index)
            if info is None or not info.is_subtype_of(owner):
                raise TypeError(
                    f"field `{self.name}` of {owner.type_key} cannot be read or "
                    f"written on an object of type "
                    f"{info.type_key if info is not None else obj.type_index}"
                )
        return handle

    def get(self, obj: Any) -> Any:
        """The field's value in ``obj``."""
        return self.get_at(self._checked_handle(obj))

    def get_at(self, handle: int) -> Any:
        """The field's value in the object at ``handle`` (no type check; ValueError on NULL)."""
        if not handle:
            raise ValueError(f"cannot read field `{self.name}` of a null object")
        if self._io is not None:
            return self._io.read(handle + self.offset)
        if not self._getter_addr:
            raise AttributeError(f"field `{self.name}` has no getter")
        out = AnyCell()
        if (
            _Getter(self._getter_addr)(ctypes.c_void_p(handle + self.offset), ctypes.byref(out))
            != 0
        ):
            raise_last_error()
        return cell_to_py(out)

    def set(self, obj: Any, value: Any) -> None:
        """Write ``value`` into the field of ``obj`` (converted and checked by the setter)."""
        self.set_at(self._checked_handle(obj), value)

    def set_at(self, handle: int, value: Any) -> None:
        """Write ``value`` into the field of the object at ``handle`` (no type check)."""
        if self._io is not None and not isinstance(value, AnyCell):
            if not handle:
                raise ValueError(f"cannot write field `{self.name}` of a null object")
            self._io.write(handle + self.offset, value)
            return
        cell = value if isinstance(value, AnyCell) else pack(value)
        try:
            self._set_cell(handle, cell)
        finally:
            if cell is not value:
                release_any(cell)

    def _set_cell(self, handle: int, cell: AnyCell) -> None:
        if not handle:
            raise ValueError(f"cannot write field `{self.name}` of a null object")
        addr = handle + self.offset
        if not self._setter_addr:
            raise AttributeError(f"field `{self.name}` is read-only")
        if self.flags & FLAG_SETTER_IS_FUNCTION:
            out = call_cells(self._setter_addr, [_ptr_cell(addr), cell])
            release_any(out)
        elif _Setter(self._setter_addr)(ctypes.c_void_p(addr), ctypes.byref(cell)) != 0:
            raise_last_error()

    def set_default(self, handle: int) -> None:
        """Write the field's default (or its factory's value) into the object at ``handle``."""
        if self._default_cell is None:
            raise TypeError(f"field `{self.name}` has no default")
        if self.flags & FLAG_DEFAULT_FROM_FACTORY:
            factory = view_to_py(self._default_cell)
            self.set_at(handle, factory())
        else:
            self._set_cell(handle, self._default_cell)

    def _is_payload_enum_field(self) -> bool:
        ty = self.ty
        if ty is None or ty.origin_type_index < K_STATIC_OBJECT_BEGIN:
            return False
        cls = TYPE_INDEX_TO_CLS.get(ty.origin_type_index)
        if cls is None:
            return False
        # Asked on every write: the answer is kept for the class now registered
        # for the field's type (an enum class may be bound after this field's).
        known = getattr(self, "_payload_enum_of", None)
        if known is not None and known[0] is cls:
            return known[1]
        result = any(
            getattr(b, "__module__", None)
            in ("tvm_ffi.dataclasses.enum", "tvmffi.dataclasses.enum")
            and b.__name__ in ("IntEnum", "StrEnum")
            for b in cls.__mro__
        )
        self._payload_enum_of = (cls, result)
        return result

    def normalize_value(self, value: Any) -> Any:
        """An IntEnum / StrEnum field's payload (``1``, ``"+"``) as its entry; others as they are."""
        if not self._is_payload_enum_field():
            return value
        from ._type_schema import _to_py_class_value

        return _to_py_class_value(self.ty.convert(value))

    def as_property(self, cls: type) -> FFIProperty:
        """The :class:`FFIProperty` of this field on ``cls``."""
        field = self
        name = self.name

        def fget(obj: Any) -> Any:
            return field.get(obj)

        def fset(obj: Any, value: Any) -> None:
            # IntEnum / StrEnum fields take payloads (``obj.priority = 20``).
            field.set(obj, field.normalize_value(value))

        for fn in (fget, fset):
            fn.__name__ = name
            fn.__module__ = cls.__module__
            fn.__qualname__ = f"{cls.__qualname__}.{name}"
            fn.__doc__ = self.doc
        prop = FFIProperty(fget, fset, self.frozen, doc=self.doc)
        prop.__doc__ = self.doc  # (a property subclass would show its class docstring)
        return prop

    def __repr__(self) -> str:
        owner = self.type_info.type_key if self.type_info is not None else "?"
        return f"TypeField({owner}.{self.name})"


class TypeMethod:
    """A reflected method (upstream's ``tvm_ffi.core.TypeMethod``)."""

    def __init__(
        self,
        name: str,
        doc: str | None = None,
        func: Any = None,
        metadata: dict[str, Any] | None = None,
        is_static: bool = False,
    ) -> None:
        self.name = name
        self.doc = doc
        self._func = func
        self.metadata = {} if metadata is None else metadata
        self.is_static = is_static
        self.flags = FLAG_STATIC_METHOD if is_static else 0
        self.type_info: TypeInfo | None = None
        self._cell: AnyCell | None = None

    @classmethod
    def _from_c(cls, c: MethodInfoC, owner: TypeInfo) -> TypeMethod:
        raw = c.metadata.text()
        try:
            metadata = json.loads(raw) if raw else {}
        except ValueError:
            metadata = {}
        m = cls(
            name=c.name.text(),
            doc=c.doc.text() or None,
            metadata=metadata,
            is_static=bool(int(c.flags) & FLAG_STATIC_METHOD),
        )
        m.flags = int(c.flags)
        m.type_info = owner
        m._cell = c.method
        return m

    @property
    def func(self) -> Any:
        """The method as a callable ffi Function (converted on first use)."""
        if self._func is None and self._cell is not None:
            self._func = cell_to_py(copy_cell(self._cell))
        return self._func

    @func.setter
    def func(self, value: Any) -> None:
        self._func = value

    def as_callable(self, cls: type) -> Any:
        """The Python method (or staticmethod) of this method on ``cls``."""
        m = self

        if self.is_static:

            def static(*args: Any) -> Any:
                return m.func(*args)

            fn = static
        else:

            def method(self: Any, *args: Any) -> Any:
                return m.func(self, *args)

            fn = method
        fn.__name__ = self.name
        fn.__module__ = cls.__module__
        fn.__qualname__ = f"{cls.__qualname__}.{self.name}"
        fn.__doc__ = self.doc
        return staticmethod(fn) if self.is_static else fn

    def __repr__(self) -> str:
        owner = self.type_info.type_key if self.type_info is not None else "?"
        return f"TypeMethod({owner}.{self.name})"


# The old names.
FieldInfo = TypeField
MethodInfo = TypeMethod


class TypeInfo:
    """What the runtime records about a registered object type (upstream's ``core.TypeInfo``)."""

    def __init__(
        self,
        type_cls: type | None,
        type_index: int,
        type_key: str,
        type_ancestors: list[int],
        fields: list[TypeField] | None,
        methods: list[TypeMethod],
        parent_type_info: TypeInfo | None,
    ) -> None:
        self.type_cls = type_cls
        self.type_index = type_index
        self.type_key = type_key
        self.type_ancestors = list(type_ancestors)
        self.fields = fields
        self.methods = methods
        self.parent_type_info = parent_type_info
        self._decorator_args: dict[str, Any] = {}
        self.type_depth = len(self.type_ancestors)
        self.doc: str | None = None
        for f in fields or ():
            f.type_info = self
        for m in methods:
            m.type_info = self

    @classmethod
    def _from_c(cls, c: TypeInfoC, type_cls: type | None = None) -> TypeInfo:
        ancestors = [int(c.type_ancestors[d].contents.type_index) for d in range(int(c.type_depth))]
        info = cls(type_cls, int(c.type_index), c.type_key.text(), ancestors, [], [], None)
        info.fields = [TypeField._from_c(c.fields[i], info) for i in range(c.num_fields)]
        info.methods = [TypeMethod._from_c(c.methods[i], info) for i in range(c.num_methods)]
        info.doc = (c.metadata.contents.doc.text() or None) if c.metadata else None
        if ancestors:
            info.parent_type_info = type_info(ancestors[-1])
        return info

    def _c(self) -> TypeInfoC | None:
        p = _GetTypeInfo(self.type_index)
        return p.contents if p else None

    def all_fields(self) -> list[TypeField]:
        """The fields of the type's ancestors first, then its own."""
        out = self.parent_type_info.all_fields() if self.parent_type_info is not None else []
        return out + list(self.fields or ())

    def find_field(self, name: str) -> TypeField | None:
        """The field ``name`` of this type or its ancestors (the most derived wins), or None."""
        for f in reversed(self.all_fields()):
            if f.name == name:
                return f
        return None

    def find_method(self, name: str) -> TypeMethod | None:
        """The method ``name`` of this type, else of the nearest ancestor that has it, or None."""
        info: TypeInfo | None = self
        while info is not None:
            for m in info.methods:
                if m.name == name:
                    return m
            info = info.parent_type_info
        return None

    def is_subtype_of(self, other: TypeInfo) -> bool:
        """Whether this type is ``other`` or derives from it."""
        return other.type_index == self.type_index or other.type_index in self.type_ancestors

    @property
    def creator(self) -> int | None:
        """The address of the type's C creator function (from its metadata), or None."""
        c = self._c()
        meta = c.metadata if c is not None else None
        return meta.contents.creator if meta and meta.contents.creator else None

    @property
    def structural_eq_hash_kind(self) -> int:
        """How structural equality and hashing treat the type (the runtime enumerator; 0: unset)."""
        c = self._c()
        return (
            int(c.metadata.contents.structural_eq_hash_kind) if c is not None and c.metadata else 0
        )

    @property
    def _has_type_metadata(self) -> bool:
        c = self._c()
        return c is not None and bool(c.metadata)

    @property
    def total_size(self) -> int:
        """The object's size in bytes (header and fields)."""
        c = self._c()
        if c is not None and c.metadata and c.metadata.contents.total_size:
            return int(c.metadata.contents.total_size)
        if self.parent_type_info is None:
            return OBJECT_HEADER_SIZE
        end = self.parent_type_info.total_size
        for f in self.fields or ():
            end = max(end, f.offset + f.size)
        return (end + 7) & ~7

    def _register_fields(self, fields: list[Any], structure_kind: int | None = None) -> None:
        """Register the fields of a Python-defined type (see :mod:`tvmffi._pyclass`)."""
        assert self.fields is None, f"_register_fields already called for {self.type_key!r}"
        from . import _pyclass

        self.fields = _pyclass.register_fields(self, fields, structure_kind)
        self._read_back_methods()

    def _register_py_methods(
        self,
        py_methods: list[tuple[Any, ...]] | None = None,
        type_attr_names: frozenset[str] = frozenset(),
    ) -> None:
        """Register methods (or type attributes) defined in Python, then re-read the methods."""
        if py_methods:
            from . import _pyclass

            _pyclass.register_py_methods(self.type_index, py_methods, type_attr_names)
        self._read_back_methods()

    def _read_back_methods(self) -> None:
        c = self._c()
        if c is None:
            self.methods = []
            return
        self.methods = [TypeMethod._from_c(c.methods[i], self) for i in range(c.num_methods)]

    def prototype_py(self) -> str:
        """A Python class outline of the type (its fields and methods)."""
        lines = [f"class {self.type_key.split('.')[-1]}:  # {self.type_key}"]
        for f in self.fields or ():
            ty = f.ty.repr() if f.ty is not None else "Any"
            lines.append(f"    {f.name}: {ty}")
        for m in self.methods:
            lines.append(f"    def {m.name}(...): ...")
        if len(lines) == 1:
            lines.append("    ...")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"TypeInfo({self.type_key!r}, index={self.type_index})"


# -- the registry of type records and classes -------------------------------

TYPE_INDEX_TO_INFO: dict[int, TypeInfo] = {}
TYPE_INDEX_TO_CLS: dict[int, type] = {}
TYPE_KEY_TO_INFO: dict[str, TypeInfo] = {}
TYPE_CLS_TO_INFO: dict[type, TypeInfo] = {}
_lock = threading.RLock()


def type_info(key: str | int) -> TypeInfo | None:
    """The :class:`TypeInfo` of a type key or type index; None when there is no such type."""
    if isinstance(key, str):
        info = TYPE_KEY_TO_INFO.get(key)
        if info is not None:
            return info
        index = type_key_to_index(key)
    else:
        index = int(key)
    if index is None or index < 0:
        return None
    info = TYPE_INDEX_TO_INFO.get(index)
    if info is None:
        with _lock:
            info = TYPE_INDEX_TO_INFO.get(index)
            if info is None:
                p = _GetTypeInfo(index)
                if not p:
                    return None
                info = TypeInfo._from_c(p.contents)
                _update_registry(info, None)
    return info


def _update_registry(info: TypeInfo, cls: type | None) -> None:
    TYPE_INDEX_TO_INFO[info.type_index] = info
    TYPE_KEY_TO_INFO[info.type_key] = info
    if cls is not None:
        TYPE_INDEX_TO_CLS[info.type_index] = cls
        TYPE_CLS_TO_INFO[cls] = info
        info.type_cls = cls


def set_type_cls(info: TypeInfo, cls: type) -> None:
    """Make ``cls`` the class of ``info``'s type (for its objects too)."""
    _update_registry(info, cls)
    _core._register_object_class(info.type_key, cls)


def register_by_index(type_index: int, cls: type) -> TypeInfo:
    """A fresh :class:`TypeInfo` of the type, with ``cls`` as its class."""
    p = _GetTypeInfo(type_index)
    if not p:
        raise ValueError(f"Cannot find type index {type_index}")
    with _lock:
        _drop_fallbacks_below(type_index)
        info = TypeInfo._from_c(p.contents, cls)
        old = TYPE_INDEX_TO_INFO.get(type_index)
        if old is not None and old.type_cls is not None and old.type_cls is not cls:
            TYPE_CLS_TO_INFO.pop(old.type_cls, None)
        set_type_cls(info, cls)
    return info


def registered_type_keys() -> list[str]:
    """The keys of all registered types (a scan of the type table)."""
    keys = []
    misses = 0
    index = 0
    while misses < 512:
        p = _GetTypeInfo(index)
        if p:
            keys.append(p.contents.type_key.text())
            misses = 0
        else:
            misses += 1
        index += 1
    return keys


def type_attr(type_index: int, name: str, ancestor: bool = False) -> Any:
    """The type attribute ``name`` of a type (e.g. ``__ffi_init__``); None when unset.

    ``ancestor``: when the type has none, the nearest ancestor's.
    """
    key, _keep = _bytearray(name)
    col = _GetTypeAttrColumn(ctypes.byref(key))
    if not col:
        _clear_error()
        return None
    c = col.contents

    def at(index: int) -> Any:
        i = index - c.begin_index
        if i < 0 or i >= c.size:
            return None
        cell = c.data[i]
        if cell.type_index == K_NONE:
            return None
        return cell_to_py(copy_cell(cell))

    value = at(type_index)
    if value is not None or not ancestor:
        return value
    p = _GetTypeInfo(type_index)
    if not p:
        return None
    for d in range(int(p.contents.type_depth) - 1, -1, -1):
        value = at(int(p.contents.type_ancestors[d].contents.type_index))
        if value is not None:
            return value
    return None


def register_type_attr(type_index: int, name: str, value: Any) -> None:
    """Set the type attribute ``name`` of a type (TVMFFITypeRegisterAttr)."""
    key, _keep = _bytearray(name)
    cell = pack(value)
    try:
        if _TypeRegisterAttr(type_index, ctypes.byref(key), ctypes.byref(cell)) != 0:
            raise_last_error()
    finally:
        release_any(cell)


# -- generated ("fallback") classes for types without one --------------------

_next_dyn_index = [K_DYN_OBJECT_BEGIN]


def object_repr(obj: Any) -> str:
    """``obj`` as the runtime prints it (``ffi.ReprPrint``); never raises."""
    if not chandle_of(obj):
        return type(obj).__name__ + "(chandle=None)"
    try:
        return str(ffi_func("ffi.ReprPrint")(obj))
    except Exception:
        return f"{type(obj).__name__}({chandle_of(obj)})"


def fallback_class(type_index: int) -> type | None:
    """The class of a type, generated (with its fields and methods) when it has none."""
    cls = TYPE_INDEX_TO_CLS.get(type_index)
    if cls is not None:
        return cls
    info = type_info(type_index)
    if info is None:
        return None
    parent = info.parent_type_info
    base = fallback_class(parent.type_index) if parent is not None else Object
    if base is None:
        base = Object
    key = info.type_key
    cls = type(key.split(".")[-1], (base,), {"__slots__": ()})
    cls.__qualname__ = key
    cls.__module__ = ".".join(key.split(".")[:-1])
    cls.__doc__ = (
        f"Auto-generated fallback class for {key}.\n"
        "This class is generated because the class is not registered.\n"
        "Please do not use this class directly, instead register the class\n"
        "using `register_object` decorator."
    )
    cls.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
    for f in info.fields or ():
        # A field named like an attribute every class has (TVM's DictAttrs
        # reflects `__dict__`) cannot be a property of it: not set.
        if not hasattr(vars(type).get(f.name), "__set__"):
            setattr(cls, f.name, f.as_property(cls))
    for m in info.methods:
        setattr(cls, m.name, m.as_callable(cls))
    cls.__repr__ = object_repr  # type: ignore[assignment]
    _FALLBACK.add(cls)
    set_type_cls(info, cls)
    return cls


_FALLBACK: set[type] = set()


def _drop_fallbacks_below(type_index: int) -> None:
    """Forget the generated classes derived from the generated class of ``type_index``.

    A real class is about to replace it: the next :func:`sync_type_table`
    generates those again, on top of the real class.
    """
    old = TYPE_INDEX_TO_CLS.get(type_index)
    if old is None or old not in _FALLBACK:
        return
    for index, cls in list(TYPE_INDEX_TO_CLS.items()):
        if cls in _FALLBACK and issubclass(cls, old):
            del TYPE_INDEX_TO_CLS[index]
            TYPE_CLS_TO_INFO.pop(cls, None)
            _FALLBACK.discard(cls)
            info = TYPE_INDEX_TO_INFO.get(index)
            if info is not None and info.type_cls is cls:
                info.type_cls = None


def sync_type_table() -> None:
    """Generate classes for the types registered since the last call that have none."""
    with _lock:
        # The table has gaps (child slots a type reserved and no subclass has
        # taken yet): walk to the runtime's end, not to the first gap.
        end = _core.get_global_func("ffi._TypeIndexEnd", True)
        index = int(end()) if end is not None else _next_dyn_index[0]
        while _GetTypeInfo(index):
            index += 1
        _next_dyn_index[0] = index
        for i in range(K_DYN_OBJECT_BEGIN, index):
            if i not in TYPE_INDEX_TO_CLS:
                fallback_class(i)


# -- objects -----------------------------------------------------------------

_KWARGS: list[Any] = []


def kwargs_marker() -> Object:
    """The object that separates positional from keyword arguments (``ffi.GetKwargsObject``)."""
    if not _KWARGS:
        _KWARGS.append(_core.get_global_func("ffi.GetKwargsObject")())
    return _KWARGS[0]


def pack_kwargs(args: Sequence[Any], kwargs: dict[str, Any]) -> list[Any]:
    """Positional arguments, then (with keywords) the kwargs marker and key, value pairs."""
    out = list(args)
    if kwargs:
        out.append(kwargs_marker())
        for k, v in kwargs.items():
            out.append(k)
            out.append(v)
    return out


def make_object(type_key: str | int, **fields: Any) -> Object:
    """A new object of a type, its fields set from ``fields``, the others to their defaults.

    TypeError for a field with no default left unset or a name the type has
    no field for; ValueError when the type is unknown or cannot be created
    empty (it has no creator).
    """
    info = type_info(type_key)
    if info is None:
        raise ValueError(f"Unknown object type `{type_key}`")
    creator = info.creator
    if creator is not None:
        handle = ctypes.c_void_p()
        if _Creator(creator)(ctypes.byref(handle)) != 0:
            raise_last_error()
        obj = take_any(_owned_object_cell(handle.value))
    else:
        new = type_attr(info.type_index, "__ffi_new__")
        if new is None:
            raise ValueError(f"Type `{info.type_key}` cannot be created by reflection (no creator)")
        obj = new()
    addr = chandle_of(obj)
    remaining = dict(fields)
    for f in info.all_fields():
        if f.name in remaining:
            f.set_at(addr, remaining.pop(f.name))
        elif f.has_default:
            f.set_default(addr)
        else:
            raise TypeError(f"Required field `{f.name}` not set in type `{info.type_key}`")
    if remaining:
        raise TypeError(f"Type `{info.type_key}` has no field `{next(iter(remaining))}`")
    return obj


def _owned_object_cell(handle: int) -> AnyCell:
    cell = AnyCell()
    cell.type_index = ctypes.c_int32.from_address(handle + 8).value
    cell.v.v_ptr = handle
    return cell


def init_handle_by_constructor(self: Object, constructor: Callable[..., Any], *args: Any) -> None:
    """Make ``self`` refer to the object ``constructor(*args)`` returns."""
    obj = constructor(*[to_ffi_value(a) for a in args])
    if isinstance(obj, ObjectRValueRef):
        obj = obj.obj
    if not isinstance(obj, Object):
        raise TypeError(f"the constructor returned {type(obj).__name__}, not an object")
    ensure_constructed(self)
    _core._init_from(self, obj)


def _install_ffi_init_attr(cls: type, info: TypeInfo, ffi_init: Any) -> None:
    """``self.__ffi_init__(*args, **kwargs)``: construct ``self`` with the type's ``__ffi_init__``."""
    missing_obj = missing()
    type_name = cls.__name__

    def __ffi_init__(self: Any, *args: Any, **kwargs: Any) -> None:
        if info is not getattr(type(self), "__tvm_ffi_type_info__", None):
            raise TypeError(
                f"Calling `{type_name}.__ffi_init__()` on a `{type(self).__name__}` instance is not "
                f"supported. Define `{type(self).__name__}` with init=True."
            )
        kw = {k: v for k, v in kwargs.items() if v is not missing_obj}
        init_handle_by_constructor(self, ffi_init, *pack_kwargs(args, kw))

    __ffi_init__.__qualname__ = f"{cls.__qualname__}.__ffi_init__"
    __ffi_init__.__module__ = cls.__module__
    cls.__ffi_init__ = __ffi_init__  # type: ignore[attr-defined]


def find_ffi_init(info: TypeInfo) -> Any:
    """The type's ``__ffi_init__`` (its method, else its type attribute); None if it has none."""
    for m in info.methods:
        if m.name == "__ffi_init__":
            return m.func
    return type_attr(info.type_index, "__ffi_init__")


def add_class_attrs(
    cls: type,
    info: TypeInfo,
    type_attr_names: Any = (),
    *,
    frozen: bool = False,
    ancestors: bool = True,
) -> type:
    """Give ``cls`` the fields (properties) and methods of ``info`` (upstream's ``_add_class_attrs``).

    With ``ancestors``, the fields and methods of ancestor types that no
    Python base class of ``cls`` is bound to are added too.
    """
    defined: set[str] = set()
    for klass in cls.__mro__:
        if klass is Object or klass is object:
            break
        if klass is not cls:
            defined.update(vars(klass))
    chain = [info]
    parent = info.parent_type_info
    while ancestors and parent is not None:
        if (
            parent.type_cls is not None
            and isinstance(cls, type)
            and issubclass(cls, parent.type_cls)
        ):
            break
        chain.append(parent)
        parent = parent.parent_type_info
    own = set(vars(cls))
    for ti in chain:
        for f in ti.fields or ():
            if f.name in own or (ti is not info and f.name in defined):
                continue
            if frozen and ti is info:
                f.frozen = True
            setattr(cls, f.name, f.as_property(cls))
            own.add(f.name)
    has_ffi_init = False
    for ti in chain:
        for m in ti.methods:
            if m.name == "__ffi_init__":
                if ti is info:
                    _install_ffi_init_attr(cls, info, m.func)
                    has_ffi_init = True
                continue
            if m.name in own or hasattr(cls, m.name):
                continue
            setattr(cls, m.name, m.as_callable(cls))
            own.add(m.name)
    if not has_ffi_init:
        ffi_init = type_attr(info.type_index, "__ffi_init__")
        if ffi_init is not None:
            _install_ffi_init_attr(cls, info, ffi_init)
    for name in type_attr_names:
        value = type_attr(info.type_index, name)
        if value is not None and name not in vars(cls):
            setattr(cls, name, value)
    return cls


def install_init(cls: type, info: TypeInfo) -> None:
    """``__init__`` through the type's ``__ffi_init__`` (or a TypeError guard when it has none)."""
    if "__init__" in vars(cls):
        return
    ffi_init = find_ffi_init(info)
    if ffi_init is not None:
        from ._dunder import _make_init

        cls.__init__ = _make_init(cls, info, ffi_init=ffi_init)  # type: ignore[misc]
        return
    type_name = cls.__name__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            f"`{type_name}` cannot be constructed directly. "
            "Define a custom __init__ or use a factory method."
        )

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    cls.__init__ = __init__  # type: ignore[misc]


def bind_class(cls: _T, info: TypeInfo, *, init: bool = True, frozen: bool = False) -> _T:
    """Give ``cls`` the fields and methods of ``info`` and use it for that type's objects."""
    fresh = register_by_index(info.type_index, cls)
    add_class_attrs(cls, fresh, frozen=frozen)
    cls.__tvm_ffi_type_info__ = fresh  # type: ignore[attr-defined]
    if init:
        install_init(cls, fresh)
    if "__init_handle_by_constructor__" not in vars(Object):
        cls.__init_handle_by_constructor__ = init_handle_by_constructor  # type: ignore[attr-defined]
    sync_type_table()
    return cls


def register_object(type_key: str | None = None, *, init: bool = True) -> Callable[[_T], _T]:
    """Bind a Python class to the registered FFI type ``type_key`` (default: the class name).

    ``@register_object("my.Type") class MyType(tvmffi.Object): ...``: objects of
    that type come back from FFI calls as ``MyType``; its reflected fields are
    properties, its methods are methods, and ``MyType(*args, **kwargs)`` calls
    the type's ``__ffi_init__`` (unless the class defines ``__init__`` or
    ``init=False``). ValueError when no such type is registered.
    """

    def register(cls: _T) -> _T:
        key = type_key if isinstance(type_key, str) else cls.__name__
        index = type_key_to_index(key)
        if index is None:
            raise ValueError(f"Cannot find object type index for {key}")
        return bind_class(cls, type_info(index), init=init)  # type: ignore[arg-type]

    if isinstance(type_key, type):  # used bare: @register_object
        cls, type_key = type_key, None
        return register(cls)  # type: ignore[return-value]
    if type_key is not None and not isinstance(type_key, str):
        raise TypeError("type_key must be a string, type, or None")
    return register


# -- upstream's methods of every Object ---------------------------------------


def _object_new(cls: type) -> Any:
    return cls.__new__(cls)


def _install_object_methods() -> None:
    """Upstream's ``CObject`` methods that the extension's Object lacks."""

    def __chandle__(self: Any) -> int:
        return chandle_of(self)

    def __ctypes_handle__(self: Any) -> ctypes.c_void_p:
        return ctypes.c_void_p(chandle_of(self))

    def id_(self: Any) -> int:
        """The address of the object (``__chandle__()``); 0 for a null reference."""
        return chandle_of(self)

    def is_(self: Any, other: Any) -> bool:
        """Whether both refer to the same FFI object (``same_as``)."""
        return isinstance(other, Object) and chandle_of(self) == chandle_of(other)

    def _move(self: Any) -> ObjectRValueRef:
        return ObjectRValueRef(self)

    def __move_handle_from__(self: Any, other: Any) -> None:
        ensure_constructed(self)
        _core._init_from(self, other)

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        # A second __init__ (``super().__init__()`` once the handle is set) does nothing.
        if _NB_STATE_KNOWN and _nb_state(self) == 2:
            return
        _NB_OBJECT_INIT(self, *args, **kwargs)

    def __reduce__(self: Any) -> Any:
        return (_object_new, (type(self),), self.__getstate__())

    def __getstate__(self: Any) -> dict[str, Any]:
        if not chandle_of(self):
            return {"handle": None}
        return {"handle": str(ffi_func("ffi.ToJSONGraphString")(self, None))}

    def __setstate__(self: Any, state: dict[str, Any]) -> None:
        handle = state["handle"]
        if handle is not None:
            init_handle_by_constructor(self, ffi_func("ffi.FromJSONGraphString"), handle)

    patches = {
        "__chandle__": __chandle__,
        "__ctypes_handle__": __ctypes_handle__,
        "id_": property(id_),
        "is_": is_,
        "_move": _move,
        "__move_handle_from__": __move_handle_from__,
        "__init_handle_by_constructor__": init_handle_by_constructor,
        "__reduce__": __reduce__,
        "__getstate__": __getstate__,
        "__setstate__": __setstate__,
    }
    if _NB_STATE_KNOWN:
        Object.__init__ = __init__  # type: ignore[misc]
    for name, value in patches.items():
        if name not in vars(Object):
            setattr(Object, name, value)


_install_object_methods()


def _bind_builtin_classes() -> None:
    """Type records for the classes the extension itself uses (Object, Function, Tensor)."""
    from ._core import Tensor

    for cls, index in ((Object, K_OBJECT), (Function, K_FUNCTION), (Tensor, K_TENSOR)):
        info = type_info(index)
        if info is not None:
            _update_registry(info, cls)
            if "__tvm_ffi_type_info__" not in vars(cls):
                cls.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
    info = type_info(K_OPAQUE_PY_OBJECT)
    if info is not None:
        OpaquePyObject.__tvm_ffi_type_info__ = info  # type: ignore[attr-defined]
        set_type_cls(info, OpaquePyObject)


_bind_builtin_classes()

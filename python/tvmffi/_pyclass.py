"""Object types defined in Python (``@py_class``), registered with the runtime through the C ABI.

A Python-defined type is a real FFI type: C++ (and every other language)
sees its objects, reads and writes their fields through the reflection
table, creates them (``__ffi_new__``), copies them (``__ffi_shallow_copy__``)
and constructs them (``__ffi_init__``, the runtime's generated constructor).

Layout (as upstream lays such types out, so generated C++ mirrors match):
fields follow the parent's last field (Itanium: a derived class starts in
the base's tail padding), each aligned to its own alignment; ``int`` and
``float`` are 8-byte PODs, ``bool`` 1 byte, ``ctypes.c_void_p`` a pointer,
``dtype`` a 4-byte DLDataType, ``Device`` an 8-byte DLDevice; ``str``,
``bytes``, ``Any``, Optional and Union fields are a 16-byte ``TVMFFIAny``;
any other (object) field is an 8-byte object reference.

The type, its fields, methods and metadata are registered through the
extension (``_core._type_alloc_index``, ``_type_register_field``, ...).
Where the runtime has no generated accessors (``ffi.MakeFieldGetter``), the
object memory and its callbacks are still Python over ctypes (the one struct
it declares being ``TVMFFIAny``, in :mod:`tvmffi._cell`): object memory from
``calloc``; the deleter, the getters of POD / reference fields, the setters
(function objects that convert the value with the field's
:class:`TypeSchema`), ``__ffi_new__`` and ``__ffi_shallow_copy__`` are ctypes
callbacks. ``TVMFFIAnyViewToOwnedAny`` itself is the getter of ``TVMFFIAny``
fields.
"""

from __future__ import annotations

import ctypes
import json
import threading
from typing import Any

from . import _core
from . import _reflection as _r
from ._reflection import AnyCell, TypeField, TypeInfo

_libc = ctypes.CDLL(None)
_calloc = _libc.calloc
_calloc.restype = ctypes.c_void_p
_calloc.argtypes = [ctypes.c_size_t, ctypes.c_size_t]
_free = _libc.free
_free.restype = None
_free.argtypes = [ctypes.c_void_p]

_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int)

# Storage kinds of a field.
POD, ANY, REF = 0, 1, 2

# origin -> (size, alignment, field_static_type_index); anything else is an object reference.
_NATIVE_LAYOUT = {
    "int": (8, 8, _r.K_INT),
    "float": (8, 8, _r.K_FLOAT),
    "bool": (1, 1, _r.K_BOOL),
    "ctypes.c_void_p": (8, 8, _r.K_OPAQUE_PTR),
    "dtype": (4, 2, _r.K_DATA_TYPE),
    "Device": (8, 4, _r.K_DEVICE),
    "Any": (16, 8, _r.K_ANY),
    "str": (16, 8, _r.K_ANY),
    "bytes": (16, 8, _r.K_ANY),
    "Optional": (16, 8, _r.K_ANY),
    "Union": (16, 8, _r.K_ANY),
}
_REF_LAYOUT = (8, 8, _r.K_OBJECT)

_STRONG, _WEAK = 1, 2
_COMBINED_REF_COUNT_BOTH_ONE = (1 << 32) | 1

_lock = threading.RLock()


def storage_kind(static_type_index: int, size: int) -> int:
    """How a field is stored: a TVMFFIAny, an object reference, or plain data."""
    if static_type_index == _r.K_ANY:
        return REF if size == 8 else ANY
    if static_type_index >= _r.K_STATIC_OBJECT_BEGIN:
        return REF
    return POD


# -- per-type plans --------------------------------------------------------------

_PLANS: dict[int, list[tuple[int, int, int]]] = {}  # type index -> [(offset, kind, size)]
_TOTAL_SIZE: dict[int, int] = {}


def _plan(type_index: int) -> list[tuple[int, int, int]]:
    """(offset, storage kind, size) of every field of the type, inherited ones included."""
    plan = _PLANS.get(type_index)
    if plan is None:
        plan = []
        rec = _core._type_info(type_index)
        chain = []
        if rec is not None:
            chain = [_core._type_info(a) for a in rec[2]] + [rec]
        seen: set[int] = set()
        for ti in chain:
            for f in ti[3]:
                # (name, doc, metadata, flags, size, alignment, offset, getter, setter, static index)
                size, offset, static_index = f[4], f[6], f[9]
                if offset in seen:  # an alias of a field (IntEnum.value is _int_index)
                    continue
                seen.add(offset)
                plan.append(
                    (
                        offset,
                        storage_kind(static_index, size),
                        size,
                    )
                )
        _PLANS[type_index] = plan
    return plan


# -- object memory -----------------------------------------------------------------


def _deleter_impl(self: int | None, flags: int) -> None:
    if not self:
        return
    try:
        if flags & _STRONG:
            type_index = ctypes.c_int32.from_address(self + 8).value
            for offset, kind, _size in _plan(type_index):
                addr = self + offset
                if kind == ANY:
                    cell = AnyCell.from_address(addr)
                    if cell.type_index >= _r.K_STATIC_OBJECT_BEGIN and cell.v.v_ptr:
                        ptr = cell.v.v_ptr
                        cell.type_index = _r.K_NONE
                        cell.v.v_int64 = 0
                        _r._DecRef(ptr)
                elif kind == REF:
                    slot = ctypes.c_void_p.from_address(addr)
                    ptr = slot.value
                    if ptr:
                        slot.value = None
                        _r._DecRef(ptr)
        if flags & _WEAK:
            _free(self)
    except BaseException:
        pass


_DELETER = _Deleter(_deleter_impl)
_DELETER_ADDR = ctypes.cast(_DELETER, ctypes.c_void_p).value


def _alloc(type_index: int) -> int:
    """A zeroed object of the type (one strong and one weak reference, our deleter)."""
    size = _TOTAL_SIZE.get(type_index)
    if size is None:
        raise RuntimeError(f"type index {type_index} is not a Python-defined type")
    addr = _calloc(1, size)
    if not addr:
        raise MemoryError(
            f"Failed to allocate {size} bytes for type {_r.type_index_to_key(type_index)}"
        )
    ctypes.c_uint64.from_address(addr).value = _COMBINED_REF_COUNT_BOTH_ONE
    ctypes.c_int32.from_address(addr + 8).value = type_index
    ctypes.c_void_p.from_address(addr + 16).value = _DELETER_ADDR
    return addr


def _object_cell(addr: int) -> AnyCell:
    cell = AnyCell()
    cell.type_index = ctypes.c_int32.from_address(addr + 8).value
    cell.v.v_ptr = addr
    return cell


def _safe(fn: Any) -> Any:
    """A TVMFFISafeCallType callback running ``fn(args, num_args) -> AnyCell``."""

    def impl(_self: Any, args: Any, num_args: int, result: Any) -> int:
        try:
            out = fn(args, num_args)
            ctypes.memmove(result, ctypes.byref(out), ctypes.sizeof(AnyCell))
            return 0
        except BaseException as err:
            return _r._set_error(err)

    return _r._SafeCall(impl)


_KEEP: list[Any] = []  # callbacks and function handles that live as long as the process


def _function_handle(callback: Any) -> int:
    """A new FFI Function (its handle, owned) over a ctypes safe-call callback."""
    _KEEP.append(callback)
    handle = ctypes.c_void_p()
    if _r._FunctionCreate(None, callback, None, ctypes.byref(handle)) != 0:
        _r.raise_last_error()
    return handle.value


def _function_cell(callback: Any) -> AnyCell:
    cell = AnyCell()
    cell.type_index = _r.K_FUNCTION
    cell.v.v_ptr = _function_handle(callback)
    return cell


def _make_new(type_index: int) -> Any:
    def new(args: Any, num_args: int) -> AnyCell:
        return _object_cell(_alloc(type_index))

    return _safe(new)


def _make_shallow_copy(type_index: int) -> Any:
    def shallow_copy(args: Any, num_args: int) -> AnyCell:
        if num_args != 1 or args[0].type_index < _r.K_STATIC_OBJECT_BEGIN or not args[0].v.v_ptr:
            raise TypeError("__ffi_shallow_copy__ expects one object")
        src = args[0].v.v_ptr
        dst = _alloc(type_index)
        for offset, kind, size in _plan(type_index):
            if kind == ANY:
                out = _r.copy_cell(AnyCell.from_address(src + offset))
                ctypes.memmove(dst + offset, ctypes.byref(out), ctypes.sizeof(AnyCell))
            elif kind == REF:
                ptr = ctypes.c_void_p.from_address(src + offset).value
                if ptr:
                    _r._IncRef(ptr)
                ctypes.c_void_p.from_address(dst + offset).value = ptr
            else:
                ctypes.memmove(dst + offset, src + offset, size)
        return _object_cell(dst)

    return _safe(shallow_copy)


# -- reading and writing field storage -----------------------------------------------


def read_cell(addr: int, static_index: int, kind: int) -> AnyCell:
    """The value stored at ``addr`` as an owned cell."""
    if kind == ANY:
        return _r.copy_cell(AnyCell.from_address(addr))
    out = AnyCell()
    if kind == REF:
        ptr = ctypes.c_void_p.from_address(addr).value
        if ptr:
            _r._IncRef(ptr)
            out.type_index = ctypes.c_int32.from_address(ptr + 8).value
            out.v.v_ptr = ptr
        return out
    out.type_index = static_index
    if static_index == _r.K_INT:
        out.v.v_int64 = ctypes.c_int64.from_address(addr).value
    elif static_index == _r.K_FLOAT:
        out.v.v_float64 = ctypes.c_double.from_address(addr).value
    elif static_index == _r.K_BOOL:
        out.v.v_int64 = 1 if ctypes.c_bool.from_address(addr).value else 0
    elif static_index == _r.K_OPAQUE_PTR:
        out.v.v_ptr = ctypes.c_void_p.from_address(addr).value
    elif static_index == _r.K_DATA_TYPE:
        ctypes.memmove(ctypes.addressof(out) + 8, addr, 4)
    elif static_index == _r.K_DEVICE:
        ctypes.memmove(ctypes.addressof(out) + 8, addr, 8)
    else:
        raise ValueError(f"unsupported field type index {static_index}")
    return out


def write_cell(addr: int, static_index: int, kind: int, cell: AnyCell) -> None:
    """Store a converted value (borrowed cell) at ``addr``, releasing what was there."""
    if kind == ANY:
        new = _r.copy_cell(cell)
        slot = AnyCell.from_address(addr)
        old_index, old_ptr = slot.type_index, slot.v.v_ptr
        ctypes.memmove(addr, ctypes.byref(new), ctypes.sizeof(AnyCell))
        if old_index >= _r.K_STATIC_OBJECT_BEGIN and old_ptr:
            _r._DecRef(old_ptr)
        return
    if kind == REF:
        if cell.type_index == _r.K_NONE:
            ptr = None
        elif cell.type_index >= _r.K_STATIC_OBJECT_BEGIN:
            ptr = cell.v.v_ptr
            _r._IncRef(ptr)
        else:
            raise TypeError(f"expected an object, got a value of type index {cell.type_index}")
        slot = ctypes.c_void_p.from_address(addr)
        old = slot.value
        slot.value = ptr
        if old:
            _r._DecRef(old)
        return
    ti = cell.type_index
    if static_index == _r.K_INT:
        ctypes.c_int64.from_address(addr).value = cell.v.v_int64
    elif static_index == _r.K_FLOAT:
        ctypes.c_double.from_address(addr).value = (
            cell.v.v_float64 if ti == _r.K_FLOAT else float(cell.v.v_int64)
        )
    elif static_index == _r.K_BOOL:
        ctypes.c_bool.from_address(addr).value = bool(cell.v.v_int64)
    elif static_index == _r.K_OPAQUE_PTR:
        ctypes.c_void_p.from_address(addr).value = cell.v.v_ptr if ti == _r.K_OPAQUE_PTR else None
    elif static_index == _r.K_DATA_TYPE:
        ctypes.memmove(addr, ctypes.addressof(cell) + 8, 4)
    elif static_index == _r.K_DEVICE:
        ctypes.memmove(addr, ctypes.addressof(cell) + 8, 8)
    else:
        raise ValueError(f"unsupported field type index {static_index}")


# -- the runtime's support, when it has it ------------------------------------------
#
# Upstream's runtime implements the storage of Python-defined types in C++:
# ``ffi._PyClassRegisterTypeAttrColumns(type_index, total_size)`` registers
# ``__ffi_new__`` (calloc, a C++ deleter that releases the fields),
# ``__ffi_shallow_copy__`` and ``__ffi_init__``; ``ffi.MakeFieldGetter(static_index)``
# gives a C getter; ``ffi.MakeFieldSetter(static_index, converter, f_convert)``
# a setter Function that converts through ``f_convert(converter, value, result)``
# and writes the field. When these globals exist they are used (the deleter then
# runs no Python, so an object may die while an exception is pending); else the
# ctypes implementation here stands in.

_RUNTIME_SUPPORT: list[bool] = []


def _runtime_support() -> bool:
    if not _RUNTIME_SUPPORT:
        names = (
            "ffi._PyClassRegisterTypeAttrColumns",
            "ffi.MakeFieldGetter",
            "ffi.MakeFieldSetter",
        )
        _RUNTIME_SUPPORT.append(
            all(_core.get_global_func(n, allow_missing=True) is not None for n in names)
        )
    return _RUNTIME_SUPPORT[0]


_CONVERTERS: dict[int, _FieldIO] = {}  # token -> the field whose value f_convert converts
_Convert = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(AnyCell), ctypes.POINTER(AnyCell)
)


def _converter_token(io: _FieldIO) -> int:
    token = id(io)
    _CONVERTERS[token] = io
    return token


def _convert_impl(token: int | None, value: Any, result: Any) -> int:
    try:
        io = _CONVERTERS[token or 0]
        py_value = _r.cell_to_py(_r.copy_cell(value[0]))
        cany = io.convert(py_value)
        out = _r.copy_cell(cany._cell)
        ctypes.memmove(result, ctypes.byref(out), ctypes.sizeof(AnyCell))
        return 0
    except BaseException as err:
        return _r._set_error(err)


_CONVERT_CB = _Convert(_convert_impl)
_CONVERT_ADDR = ctypes.cast(_CONVERT_CB, ctypes.c_void_p).value


_GETTERS: dict[int, int] = {}  # static type index of a POD / REF field -> getter address


def _getter_address(static_index: int, kind: int) -> int:
    if kind == ANY:
        return _r.ANY_VIEW_TO_OWNED_ADDR
    key = static_index if kind == POD else _r.K_OBJECT
    addr = _GETTERS.get(key)
    if addr is None:

        def getter(field: int | None, result: Any) -> int:
            try:
                out = read_cell(field or 0, key, kind)
                ctypes.memmove(result, ctypes.byref(out), ctypes.sizeof(AnyCell))
                return 0
            except BaseException as err:
                return _r._set_error(err)

        cb = _r._Getter(getter)
        _KEEP.append(cb)
        addr = _GETTERS[key] = ctypes.cast(cb, ctypes.c_void_p).value
    return addr


class _FieldIO:
    """Reads and writes one field of a Python-defined type (Python side and C side)."""

    def __init__(self, name: str, schema: Any, static_index: int, kind: int) -> None:
        self.name = name
        self.schema = schema
        self.static_index = static_index
        self.kind = kind

    def read(self, addr: int) -> Any:
        return _r.cell_to_py(read_cell(addr, self.static_index, self.kind))

    def convert(self, value: Any) -> Any:
        from ._type_schema import _ConvertError, _dispatch

        try:
            return _dispatch(self.schema._converter, value)[0]
        except _ConvertError as err:
            raise TypeError(err.message) from None
        except RecursionError:
            raise TypeError("infinite __tvm_ffi_value__ cycle detected") from None

    def write(self, addr: int, value: Any) -> None:
        cany = self.convert(value)
        write_cell(addr, self.static_index, self.kind, cany._cell)

    def setter_callback(self) -> Any:
        def set_field(args: Any, num_args: int) -> AnyCell:
            if num_args != 2:
                raise TypeError("a field setter takes (address, value)")
            addr = args[0].v.v_ptr
            value = _r.cell_to_py(_r.copy_cell(args[1]))
            self.write(addr, value)
            return AnyCell()

        return _safe(set_field)


# -- registration ------------------------------------------------------------------

_PY_KEYS: set[str] = set()
_ROLLED_BACK: set[str] = set()


def register_py_class(parent_info: TypeInfo, type_key: str, type_cls: type) -> TypeInfo:
    """Allocate a type index for ``type_key`` under ``parent_info``; its :class:`TypeInfo`
    (fields None until :meth:`TypeInfo._register_fields`)."""
    with _lock:
        existing = _r.type_key_to_index(type_key)
        if type_key in _PY_KEYS or (existing is not None and type_key not in _ROLLED_BACK):
            raise ValueError(f"Type key '{type_key}' is already registered")
        depth = len(parent_info.type_ancestors) + 1
        index = _core._type_alloc_index(type_key, depth, parent_info.type_index)
        ancestors = list(parent_info.type_ancestors) + [parent_info.type_index]
        info = TypeInfo(type_cls, index, type_key, ancestors, None, [], parent_info)
        _r._drop_fallbacks_below(index)
        _r.set_type_cls(info, type_cls)
        _PY_KEYS.add(type_key)
        _ROLLED_BACK.discard(type_key)
        return info


def rollback_py_class(info: TypeInfo) -> None:
    """Forget a Python-defined type in the Python registry (its index stays allocated)."""
    with _lock:
        _PY_KEYS.discard(info.type_key)
        _ROLLED_BACK.add(info.type_key)
        _r.TYPE_KEY_TO_INFO.pop(info.type_key, None)
        if info.type_cls is not None:
            _r.TYPE_CLS_TO_INFO.pop(info.type_cls, None)
        _r.TYPE_INDEX_TO_INFO.pop(info.type_index, None)
        _r.TYPE_INDEX_TO_CLS.pop(info.type_index, None)


def _subclass_offset(info: TypeInfo | None) -> int:
    """Where a direct subclass's first byte-aligned field may start (the unpadded end)."""
    if info is None:
        return _r.OBJECT_HEADER_SIZE
    end = _subclass_offset(info.parent_type_info)
    for f in info.fields or ():
        end = max(end, f.offset + f.size)
    return end


def _field_flags(py_field: Any) -> int:
    flags = _r.FLAG_WRITABLE | _r.FLAG_SETTER_IS_FUNCTION
    missing = _r.missing()
    if py_field.default is not missing or py_field.default_factory is not missing:
        flags |= _r.FLAG_HAS_DEFAULT
    if py_field.default_factory is not missing:
        flags |= _r.FLAG_DEFAULT_FROM_FACTORY
    if not py_field.init:
        flags |= _r.FLAG_INIT_OFF
    if not py_field.repr:
        flags |= _r.FLAG_REPR_OFF
    if not py_field.hash:
        flags |= _r.FLAG_HASH_OFF
    if not py_field.compare:
        flags |= _r.FLAG_COMPARE_OFF
    if py_field.kw_only:
        flags |= _r.FLAG_KW_ONLY
    structural = getattr(py_field, "structural_eq", None)
    if structural == "ignore":
        flags |= _r.FLAG_SEQ_HASH_IGNORE
    elif structural in ("def", "def-recursive"):
        flags |= _r.FLAG_SEQ_HASH_DEF
    elif structural == "def-non-recursive":
        flags |= _r.FLAG_SEQ_HASH_DEF_NON_RECURSIVE
    return flags


def register_fields(
    info: TypeInfo, fields: list[Any], structure_kind: int | None
) -> list[TypeField]:
    """Register the fields (``Field`` descriptors with ``name`` and ``_ty_schema``) of a
    Python-defined type, and its ``__ffi_new__``, ``__ffi_shallow_copy__`` and ``__ffi_init__``."""
    missing = _r.missing()
    offset = _subclass_offset(info.parent_type_info)
    ios: list[tuple[Any, _FieldIO, int, int]] = []
    for py_field in fields:
        schema = py_field._ty_schema
        size, align, static_index = _NATIVE_LAYOUT.get(schema.origin, _REF_LAYOUT)
        offset = (offset + align - 1) & ~(align - 1)
        field_offset = offset
        offset += size
        kind = storage_kind(static_index, size)
        io = _FieldIO(py_field.name, schema, static_index, kind)
        if _runtime_support():
            getter = int(_r.ffi_func("ffi.MakeFieldGetter")(static_index))
            setter = _r.ffi_func("ffi.MakeFieldSetter")(
                static_index, _converter_token(io), _CONVERT_ADDR
            )
            _KEEP.append(setter)
            setter_addr = _r.chandle_of(setter)
        else:
            getter = _getter_address(static_index, kind)
            setter_addr = _function_handle(io.setter_callback())
        default: Any = None
        if py_field.default is not missing:
            default = _r.to_ffi_value(py_field.default)
        elif py_field.default_factory is not missing:
            default = _r.to_ffi_value(py_field.default_factory)
        _core._type_register_field(
            info.type_index,
            py_field.name,
            py_field.doc,
            json.dumps({"type_schema": schema.to_json()}),
            _field_flags(py_field),
            size,
            align,
            field_offset,
            getter,
            setter_addr,
            default,
            static_index,
        )
        ios.append((py_field, io, field_offset, size))
    total = max((offset + 7) & ~7, _r.OBJECT_HEADER_SIZE)
    with _lock:
        _TOTAL_SIZE[info.type_index] = total
        _PLANS.pop(info.type_index, None)
    if _runtime_support():
        _r.ffi_func("ffi._PyClassRegisterTypeAttrColumns")(info.type_index, total)
    else:
        _register_type_attrs(info.type_index)
    if structure_kind:
        _core._type_register_metadata(info.type_index, total, structure_kind)
    # The TypeFields, read back from the runtime's table, with the Python-side details.
    records = _core._type_info(info.type_index)[3]
    out: list[TypeField] = []
    for i, (py_field, io, _off, _size) in enumerate(ios):
        tf = TypeField._from_record(records[i], info, i)
        tf.ty = py_field._ty_schema
        tf.frozen = bool(py_field.frozen)
        tf.c_default = py_field.default
        tf.c_default_factory = py_field.default_factory
        tf.c_hash = bool(py_field.hash)
        tf.c_structural_eq = py_field.structural_eq
        tf.metadata = {"type_schema": py_field._ty_schema.to_json()}
        tf._io = io  # type: ignore[attr-defined]
        out.append(tf)
    return out


def _register_type_attrs(type_index: int) -> None:
    """``__ffi_new__``, ``__ffi_shallow_copy__``, and the runtime's generated ``__ffi_init__``."""
    for name, callback in (
        ("__ffi_new__", _make_new(type_index)),
        ("__ffi_shallow_copy__", _make_shallow_copy(type_index)),
    ):
        cell = _function_cell(callback)
        try:
            if _r.type_attr(type_index, name) is None:
                _core._type_register_attr(type_index, name, _r.cell_to_py(_r.copy_cell(cell)))
        finally:
            _r.release_any(cell)
    if _r.type_attr(type_index, "__ffi_init__") is None:
        _r.ffi_func("ffi._RegisterFFIInit")(type_index)


def register_py_methods(
    type_index: int, py_methods: list[tuple[Any, ...]], type_attr_names: frozenset[str]
) -> None:
    """Register ``(name, value, is_static[, metadata_json])`` entries: type attributes for
    the names in ``type_attr_names``, methods for the others."""
    for entry in py_methods:
        name, func, is_static = entry[0], entry[1], entry[2]
        metadata_json = entry[3] if len(entry) > 3 else None
        value = _r.to_ffi_value(func)
        if name in type_attr_names:
            _core._type_register_attr(_r.K_NONE, name, None)  # the column, for every type
            _core._type_register_attr(type_index, name, value)
        else:
            flags = _r.FLAG_STATIC_METHOD if is_static else 0
            _core._type_register_method(type_index, name, metadata_json, flags, value)


def is_py_class_type(type_index: int) -> bool:
    """Whether the type was defined in Python (here)."""
    return type_index in _TOTAL_SIZE


__all__ = ["register_fields", "register_py_class", "register_py_methods", "rollback_py_class"]

_ = _core  # the extension is loaded before any of this runs

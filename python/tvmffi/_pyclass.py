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
extension (``_core._type_alloc_index``, ``_type_register_field``, ...); the
object memory is the runtime's (``ffi._PyClassRegisterTypeAttrColumns``:
``__ffi_new__``, a C++ deleter releasing the fields, ``__ffi_shallow_copy__``),
as are the field accessors (``ffi.MakeFieldGetter`` / ``ffi.MakeFieldSetter``).
The setter converts a value with the field's :class:`TypeSchema` by calling
back into Python through the extension (``_core._field_converter``). No
ctypes: Python touches no object memory.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from . import _core
from . import _reflection as _r
from ._reflection import TypeField, TypeInfo

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

_lock = threading.RLock()


def storage_kind(static_type_index: int, size: int) -> int:
    """How a field is stored: a TVMFFIAny, an object reference, or plain data."""
    if static_type_index == _r.K_ANY:
        return REF if size == 8 else ANY
    if static_type_index >= _r.K_STATIC_OBJECT_BEGIN:
        return REF
    return POD


_TOTAL_SIZE: dict[int, int] = {}  # type index -> object size of a Python-defined type

# -- the runtime's support -----------------------------------------------------------
#
# The runtime implements the storage of Python-defined types in C++ (as upstream's
# does): ``ffi._PyClassRegisterTypeAttrColumns(type_index, total_size)`` registers
# ``__ffi_new__`` (calloc, a C++ deleter that releases the fields),
# ``__ffi_shallow_copy__`` and ``__ffi_init__``; ``ffi.MakeFieldGetter(static_index)``
# gives a C getter; ``ffi.MakeFieldSetter(static_index, converter, f_convert)``
# a setter Function that converts through ``f_convert(converter, value, result)``
# and writes the field. The deleter runs no Python, so an object may die while an
# exception is pending.

_SUPPORT_NAMES = (
    "ffi._PyClassRegisterTypeAttrColumns",
    "ffi.MakeFieldGetter",
    "ffi.MakeFieldSetter",
)
_RUNTIME_SUPPORT: list[bool] = []


def _runtime_support() -> bool:
    if not _RUNTIME_SUPPORT:
        _RUNTIME_SUPPORT.append(
            all(_core.get_global_func(n, allow_missing=True) is not None for n in _SUPPORT_NAMES)
        )
    return _RUNTIME_SUPPORT[0]


def _require_runtime_support() -> None:
    if not _runtime_support():
        missing = [n for n in _SUPPORT_NAMES if _core.get_global_func(n, True) is None]
        raise RuntimeError(
            "tvmffi: the loaded runtime cannot store Python-defined types "
            f"(it lacks {', '.join(missing)})"
        )


_KEEP: list[Any] = []  # setter Functions that live as long as the process
_CONVERTERS: dict[int, _FieldIO] = {}  # token -> the field whose value f_convert converts


def _converter_token(io: _FieldIO) -> int:
    token = id(io)
    _CONVERTERS[token] = io
    return token


class _FieldIO:
    """Converts values for one field of a Python-defined type (its setter's f_convert)."""

    def __init__(self, name: str, schema: Any, static_index: int, kind: int) -> None:
        self.name = name
        self.schema = schema
        self.static_index = static_index
        self.kind = kind

    def convert(self, value: Any) -> Any:
        from ._type_schema import _ConvertError, _dispatch

        try:
            return _dispatch(self.schema._converter, value)[0]
        except _ConvertError as err:
            raise TypeError(err.message) from None
        except RecursionError:
            raise TypeError("infinite __tvm_ffi_value__ cycle detected") from None

    def _ffi_convert(self, value: Any) -> Any:
        """``value`` converted for the field, as an FFI value (the runtime's setter calls
        this through ``_core._field_converter``, then stores what it gives)."""
        cany = self.convert(value)  # kept: its cell is released when it dies
        return _r.take_any(_r.copy_cell(cany._cell))


# -- registration ------------------------------------------------------------------

_PY_KEYS: set[str] = set()
_ROLLED_BACK: set[str] = set()


def register_py_class(parent_info: TypeInfo, type_key: str, type_cls: type) -> TypeInfo:
    """Allocate a type index for ``type_key`` under ``parent_info``; its :class:`TypeInfo`
    (fields None until :meth:`TypeInfo._register_fields`)."""
    _require_runtime_support()
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
    elif structural in ("def", "def-pattern", "def-recursive"):
        flags |= _r.FLAG_SEQ_HASH_DEF
    elif structural in ("def-simple", "def-non-recursive"):
        flags |= _r.FLAG_SEQ_HASH_DEF_NON_RECURSIVE
    return flags


def register_fields(
    info: TypeInfo, fields: list[Any], structure_kind: int | None
) -> list[TypeField]:
    """Register the fields (``Field`` descriptors with ``name`` and ``_ty_schema``) of a
    Python-defined type, and its ``__ffi_new__``, ``__ffi_shallow_copy__`` and ``__ffi_init__``."""
    _require_runtime_support()
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
        getter = int(_r.ffi_func("ffi.MakeFieldGetter")(static_index))
        setter = _r.ffi_func("ffi.MakeFieldSetter")(
            static_index, _converter_token(io), _core._field_converter()
        )
        _KEEP.append(setter)
        setter_addr = _r.chandle_of(setter)
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
    _r.ffi_func("ffi._PyClassRegisterTypeAttrColumns")(info.type_index, total)
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
        out.append(tf)
    return out


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

"""``gen_abi_cpp``: a C++ header that mirrors the memory layout of registered object types.

For every selected type (a ``@py_class``, or a C++ type registered with
reflection) the header declares a struct that derives from the C++ view of
the type's parent and has one data member per reflected field, at the offset,
size and alignment the runtime's reflection table records (never a layout
computed again here). C++ code that includes the header reads the fields of
live objects directly (``obj->field``) and casts between the types
(``TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP``: the type index is looked up by key
on first use; the header registers nothing). Every struct, member offset,
size and alignment is checked by a ``static_assert``, so a header that no
longer matches the runtime fails to compile instead of reading wrong bytes.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from .. import _pyclass
from .. import _reflection as _r
from .._dunder import _chain
from .._registry_ext import get_registered_type_keys
from ..core import TypeField, TypeInfo, TypeSchema, _lookup_or_register_type_info_from_type_key

_ESCAPE = "__ffi_escape_"
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NS = "::tvm::ffi::"
_OBJECT = _NS + "Object"

#: Names that cannot be a namespace, struct or member name as they are: C++
#: keywords, and the members TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP declares.
_RESERVED = frozenset(
    """
    alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast
    continue co_await co_return co_yield decltype default delete do double dynamic_cast
    else enum explicit export extern false float for friend goto if inline int long
    mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected
    public register reinterpret_cast requires return short signed sizeof static
    static_assert static_cast struct switch template this thread_local throw true try
    typedef typeid typename union unsigned using virtual void volatile wchar_t while xor
    xor_eq
    _type_key _type_depth _type_mutable _type_final _type_child_slots
    _type_child_slots_can_overflow _GetOrAllocRuntimeTypeIndex RuntimeTypeIndex
""".split()
)


class _Carrier(NamedTuple):
    """The C++ type that holds one value, with its size and alignment in bytes."""

    cpp_type: str
    size: int
    alignment: int
    note: str = ""  # for the member's comment


_ANY = _Carrier(_NS + "Any", 16, 8)
_ANY_OBJECT = _Carrier(f"{_NS}Arc<{_OBJECT}>", 8, 8)

#: Schema origins (as :class:`TypeSchema` normalises them) held by value.
_VALUE_CARRIERS: dict[str, _Carrier] = {
    "int": _Carrier("int64_t", 8, 8),
    "float": _Carrier("double", 8, 8),
    "bool": _Carrier("bool", 1, 1),
    "ctypes.c_void_p": _Carrier("void*", 8, 8),
    "dtype": _Carrier("DLDataType", 4, 2),
    "DataType": _Carrier("DLDataType", 4, 2),
    "Device": _Carrier("DLDevice", 8, 4),
    "Any": _ANY,
    "str": _Carrier(_NS + "String", 16, 8),
    "bytes": _Carrier(_NS + "Bytes", 16, 8),
    "Callable": _Carrier(_NS + "Function", 8, 8),
    "Tensor": _Carrier(_NS + "Tensor", 8, 8),
}

#: A field without a type schema: its carrier by the field's static type index.
_STATIC_INDEX_CARRIERS: dict[int, _Carrier] = {
    _r.K_ANY: _ANY,
    _r.K_INT: _VALUE_CARRIERS["int"],
    _r.K_BOOL: _VALUE_CARRIERS["bool"],
    _r.K_FLOAT: _VALUE_CARRIERS["float"],
    _r.K_OPAQUE_PTR: _VALUE_CARRIERS["ctypes.c_void_p"],
    _r.K_DATA_TYPE: _VALUE_CARRIERS["dtype"],
    _r.K_DEVICE: _VALUE_CARRIERS["Device"],
}

#: A C++ field of a narrower arithmetic type (its schema says only int / float),
#: by (origin, size): reflection records the width but not the signedness.
_NARROW_CARRIERS: dict[tuple[str, int], _Carrier] = {
    ("int", 1): _Carrier("int8_t", 1, 1, "signedness not reflected"),
    ("int", 2): _Carrier("int16_t", 2, 2, "signedness not reflected"),
    ("int", 4): _Carrier("int32_t", 4, 4, "signedness not reflected"),
    ("float", 4): _Carrier("float", 4, 4),
}

_CONTAINERS = {"Array": "Array", "List": "List", "Map": "Map", "Dict": "Dict", "tuple": "Tuple"}

#: The runtime's own object types a header may name: type key -> (C++ object
#: class, value carrier; None: referred to as ``Arc<object class>``, since
#: their reference classes are outside tvm/ffi/tvm_ffi.h).
_BUILTIN_OBJECTS: dict[str, tuple[str, _Carrier | None]] = {
    "ffi.Object": (_OBJECT, None),
    "ffi.String": (_NS + "detail::StringObj", _VALUE_CARRIERS["str"]),
    "ffi.Bytes": (_NS + "detail::BytesObj", _VALUE_CARRIERS["bytes"]),
    "ffi.Error": (_NS + "ErrorObj", _Carrier(_NS + "Error", 16, 8)),
    "ffi.Function": (_NS + "FunctionObj", _VALUE_CARRIERS["Callable"]),
    "ffi.Shape": (_NS + "ShapeObj", _Carrier(_NS + "Shape", 8, 8)),
    "ffi.Tensor": (_NS + "TensorObj", _VALUE_CARRIERS["Tensor"]),
    "ffi.Array": (_NS + "ArrayObj", _Carrier(f"{_NS}Array<{_NS}Any>", 8, 8)),
    "ffi.Map": (_NS + "MapObj", _Carrier(f"{_NS}Map<{_NS}Any, {_NS}Any>", 8, 8)),
    "ffi.List": (_NS + "ListObj", _Carrier(f"{_NS}List<{_NS}Any>", 8, 8)),
    "ffi.Dict": (_NS + "DictObj", _Carrier(f"{_NS}Dict<{_NS}Any, {_NS}Any>", 8, 8)),
    "ffi.Module": (_NS + "ModuleObj", None),
    "ffi.VisitInterrupt": (_NS + "VisitInterruptObj", None),
}

#: Normalised origin -> the raw schema origins (what C++ reflection wrote) whose
#: storage is that owning value. Others that normalise the same way (a
#: borrowed ``DLTensor*``, a ``std::vector``) have other bytes.
_NATIVE_VALUE_ORIGINS: dict[str, frozenset[str]] = {
    "int": frozenset({"int"}),
    "float": frozenset({"float"}),
    "bool": frozenset({"bool"}),
    "ctypes.c_void_p": frozenset({"void*"}),
    "dtype": frozenset({"DataType"}),
    "DataType": frozenset({"DataType"}),
    "Device": frozenset({"Device"}),
    "Any": frozenset({"Any"}),
    "str": frozenset({"ffi.String"}),
    "bytes": frozenset({"ffi.Bytes"}),
    "Callable": frozenset({"ffi.Function"}),
    "Tensor": frozenset({"ffi.Tensor"}),
}
_NATIVE_STRUCTURAL_ORIGINS: dict[str, str] = {
    "Array": "ffi.Array",
    "List": "ffi.List",
    "Map": "ffi.Map",
    "Dict": "ffi.Dict",
    "tuple": "Tuple",
    "Optional": "Optional",
    "Union": "Variant",
}


class _CppName(NamedTuple):
    """Where a type's struct lives: its namespaces and its own name."""

    namespaces: tuple[str, ...]
    name: str

    @property
    def qualified(self) -> str:
        """The fully qualified name (``::a::b::NameObj``)."""
        return "::" + "::".join((*self.namespaces, self.name))


def _identifier(text: str) -> str:
    """``text`` when it is a usable C++ identifier, else an escaped (hex UTF-8) one."""
    if _IDENT.fullmatch(text) and text not in _RESERVED and not text.startswith(_ESCAPE):
        return text
    return _ESCAPE + text.encode("utf-8").hex()


def _cpp_name(type_key: str) -> _CppName:
    *namespaces, last = type_key.split(".")
    return _CppName(tuple(_identifier(part) for part in namespaces), _identifier(last) + "Obj")


def _string_literal(text: str) -> str:
    """A C++ string literal of ``text``'s UTF-8 bytes (octal escapes: no source charset issue)."""
    out = []
    for byte in text.encode("utf-8"):
        if byte in (0x22, 0x5C):  # " and \
            out.append("\\" + chr(byte))
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _depth(info: Any) -> int:
    return len(info.type_ancestors)


def _is_python_defined(owner: Any) -> bool:
    """Whether ``owner`` is a ``@py_class`` type (its fields' schemas are Python origins)."""
    index = getattr(owner, "type_index", None)
    return isinstance(index, int) and _pyclass.is_py_class_type(index)


def _registered_total_size(info: TypeInfo) -> int | None:
    """The object size the runtime records for the type: its metadata's ``total_size``,
    else the size a ``@py_class`` type allocates its objects with; None when neither."""
    meta = info._metadata()
    if meta is not None and meta[2] > 0:
        return meta[2]
    return _pyclass._TOTAL_SIZE.get(info.type_index)


def _is_heap_object(schema: TypeSchema) -> bool:
    """Whether a value of ``schema`` is always an object pointer (str / bytes may be inline)."""
    return schema.origin_type_index >= _r.K_OBJECT and schema.origin not in ("str", "bytes")


def _raw_schema(field: Any, owner: Any) -> dict[str, Any]:
    """The schema C++ reflection recorded for a native field (its ``type_schema`` metadata)."""
    metadata = getattr(field, "metadata", None) or {}
    raw = metadata.get("type_schema")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as err:
            raise ValueError(
                f"{owner.type_key}.{field.name}: unreadable type schema {raw!r}"
            ) from err
    if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
        raise ValueError(
            f"{owner.type_key}.{field.name}: the native field has no type schema in its metadata"
        )
    return raw


def _check_native_schema(schema: TypeSchema, raw: dict[str, Any], where: str) -> None:
    """Refuse a native field whose C++ type only reads like ``schema``: the normalised
    schema names an owning value, the raw one says what C++ stores."""
    origin, raw_origin = schema.origin, raw["type"]
    allowed = _NATIVE_VALUE_ORIGINS.get(origin)
    if allowed is not None:
        if raw_origin not in allowed:
            raise ValueError(
                f"{where}: the native type {raw_origin!r} reads as {origin!r} but "
                f"is not stored as an owning {origin!r} value"
            )
        return
    expected = _NATIVE_STRUCTURAL_ORIGINS.get(origin)
    if expected is not None:
        if raw_origin != expected:
            raise ValueError(
                f"{where}: the native type {raw_origin!r} reads as {origin!r} but "
                f"is not stored as {expected!r}"
            )
        raw_args = raw.get("args", [])
        if not isinstance(raw_args, list) or len(raw_args) != len(schema.args):
            raise ValueError(f"{where}: the raw schema {raw!r} does not match {schema!r}")
        for arg, raw_arg in zip(schema.args, raw_args):
            if not isinstance(raw_arg, dict) or not isinstance(raw_arg.get("type"), str):
                raise ValueError(f"{where}: unreadable nested schema {raw_arg!r}")
            _check_native_schema(arg, raw_arg, where)
        return
    if schema.origin_type_index >= _r.K_OBJECT:
        expected = "ffi.Object" if origin == "Object" else origin
        if raw_origin != expected:
            raise ValueError(f"{where}: the native object type {raw_origin!r} is not {expected!r}")
        return
    raise ValueError(f"{where}: the native type schema {raw!r} has no C++ carrier")


def _select(type_keys: str | Sequence[str]) -> list[TypeInfo]:
    """The dynamic types the selectors name, with their dynamic ancestors, base types first."""
    selectors = [type_keys] if isinstance(type_keys, str) else list(type_keys)
    registered = sorted(set(get_registered_type_keys()))
    chosen: dict[int, TypeInfo] = {}
    for selector in selectors:
        keys = [key for key in registered if fnmatch.fnmatchcase(key, selector)]
        if not keys:
            raise ValueError(f"Type-key selector {selector!r} did not match any registered type")
        infos = [_lookup_or_register_type_info_from_type_key(key) for key in keys]
        objects = [info for info in infos if info.type_index >= _r.K_OBJECT]
        if not objects:
            raise ValueError(
                f"Type-key selector {selector!r} did not match any registered object type"
            )
        exact = not any(ch in selector for ch in "*?[")
        for info in objects:
            if info.type_index < _r.K_DYN_OBJECT_BEGIN:
                # The runtime's own types are declared by tvm_ffi.h already.
                if exact and info.type_key not in _BUILTIN_OBJECTS:
                    raise ValueError(
                        f"The runtime type {info.type_key!r} has no C++ class a header can refer to"
                    )
                continue
            for node in _chain(info):
                if node.type_index >= _r.K_DYN_OBJECT_BEGIN:
                    chosen[node.type_index] = node
    return sorted(chosen.values(), key=lambda info: (_depth(info), info.type_key))


class _Member(NamedTuple):
    """One data member of a struct: its C++ name, type, offset and comment."""

    name: str
    carrier: _Carrier
    offset: int
    comment: str


class _Struct(NamedTuple):
    """What the header declares for one type."""

    info: TypeInfo
    cpp: _CppName
    base: str
    alignment: int
    total_size: int
    members: tuple[_Member, ...]
    aliases: tuple[str, ...]


def _in_namespaces(blocks: Iterable[tuple[tuple[str, ...], list[str]]]) -> list[str]:
    """Blocks of lines, the runs of consecutive blocks in the same namespaces wrapped in
    one set of ``namespace`` lines; a blank line between blocks and after the last."""
    runs: list[tuple[tuple[str, ...], list[list[str]]]] = []
    for namespaces, block in blocks:
        if runs and runs[-1][0] == namespaces:
            runs[-1][1].append(block)
        else:
            runs.append((namespaces, [block]))
    out: list[str] = []
    for namespaces, run in runs:
        if out:
            out.append("")
        out.extend(f"namespace {ns} {{" for ns in namespaces)
        if namespaces:
            out.append("")
        for i, block in enumerate(run):
            if i:
                out.append("")
            out.extend(block)
        if namespaces:
            out.append("")
        out.extend(f"}}  // namespace {ns}" for ns in reversed(namespaces))
    if out:
        out.append("")
    return out


_OFFSETOF_WARNING_OFF = [
    "#if defined(__clang__) || defined(__GNUC__)",
    "#pragma GCC diagnostic push",
    '#pragma GCC diagnostic ignored "-Winvalid-offsetof"',
    "#elif defined(_MSC_VER)",
    "#pragma warning(push)",
    "#pragma warning(disable : 4749)",
    "#endif",
]
_OFFSETOF_WARNING_RESTORE = [
    "#if defined(__clang__) || defined(__GNUC__)",
    "#pragma GCC diagnostic pop",
    "#elif defined(_MSC_VER)",
    "#pragma warning(pop)",
    "#endif",
]


class _Generator:
    """Builds the header of a list of types (each after its parent, see :func:`_select`)."""

    def __init__(self, emitted: list[TypeInfo]) -> None:
        self.emitted = emitted
        # Every dynamic type the header names, by type index: these get forward
        # declarations; the ones not emitted get an opaque (field-less) struct.
        self.named: dict[int, TypeInfo] = {info.type_index: info for info in emitted}
        self.builtins: dict[int, tuple[str, _Carrier | None]] = {}
        for key, entry in _BUILTIN_OBJECTS.items():
            index = _r.type_key_to_index(key)
            if index is not None:
                self.builtins[index] = entry

    # -- carriers ------------------------------------------------------------

    def _object_class(self, schema: TypeSchema) -> str:
        """The C++ object class of an object-typed schema (recording a dynamic type)."""
        index = schema.origin_type_index
        if index == _r.K_OBJECT or schema.origin == "Object":
            return _OBJECT
        if index in self.builtins:
            return self.builtins[index][0]
        if index < _r.K_DYN_OBJECT_BEGIN:
            raise ValueError(
                f"The runtime type {schema.origin!r} has no C++ class a header can refer to"
            )
        info = _lookup_or_register_type_info_from_type_key(schema.origin)
        self.named[info.type_index] = info
        return _cpp_name(info.type_key).qualified

    def _object_value(self, schema: TypeSchema) -> _Carrier:
        """The non-null reference to an object of ``schema``'s type."""
        builtin = self.builtins.get(schema.origin_type_index)
        if builtin is not None and builtin[1] is not None:
            return builtin[1]
        return _Carrier(f"{_NS}Arc<{self._object_class(schema)}>", 8, 8)

    def _nullable_object(self, schema: TypeSchema) -> _Carrier:
        return _Carrier(f"{_NS}ObjectPtr<{self._object_class(schema)}>", 8, 8)

    def _value(self, schema: TypeSchema, *, element: bool = False) -> _Carrier:
        """The carrier of a value of ``schema``; ``element``: a container's element type,
        where an Optional / Union of objects is a (nullable) object pointer, not an Any."""
        origin = schema.origin
        carrier = _VALUE_CARRIERS.get(origin)
        if carrier is not None:
            return carrier
        if origin == "Optional":
            if element and _is_heap_object(schema.args[0]):
                return self._nullable_object(schema.args[0])
            return _ANY
        if origin == "Union":
            if element and all(_is_heap_object(arg) for arg in schema.args):
                return _ANY_OBJECT
            return _ANY
        template = _CONTAINERS.get(origin)
        if template is not None:
            args = ", ".join(self._value(arg, element=True).cpp_type for arg in schema.args)
            return _Carrier(f"{_NS}{template}<{args}>", 8, 8)
        if schema.origin_type_index >= _r.K_OBJECT:
            return self._object_value(schema)
        raise ValueError(f"The type schema {schema!r} has no C++ carrier")

    def _native_nullable(self, schema: TypeSchema, layout: tuple[int, int], where: str) -> _Carrier:
        """The carrier of a C++ field whose schema is Optional / Union: the reflected layout
        tells which C++ type it is."""
        if schema.origin == "Optional":
            inner = schema.args[0]
            if inner.origin in ("str", "bytes") and layout == (16, 8):
                return _Carrier(f"{_NS}Optional<{self._value(inner).cpp_type}>", 16, 8)
            if _is_heap_object(inner) and layout == (16, 8):
                return _Carrier(f"{_NS}Optional<{self._object_value(inner).cpp_type}>", 16, 8)
            if _is_heap_object(inner) and layout == (8, 8):
                return self._nullable_object(inner)
        elif layout == (8, 8) and all(_is_heap_object(arg) for arg in schema.args):
            return _ANY_OBJECT
        raise ValueError(
            f"Ambiguous native {schema.origin} carrier for {where} with layout {layout}"
        )

    def _lower_field(self, field: TypeField, owner: TypeInfo) -> _Carrier:
        """The C++ member type of ``field`` (of ``owner``), checked against its reflected
        size and alignment."""
        where = f"{owner.type_key}.{field.name}"
        layout = (int(field.size), int(field.alignment))
        schema = field.ty
        python_defined = _is_python_defined(owner)
        if schema is None:
            carrier = _STATIC_INDEX_CARRIERS.get(field.field_static_type_index)
            if carrier is None and field.field_static_type_index >= _r.K_OBJECT:
                carrier = _Carrier(f"{_NS}ObjectPtr<{_OBJECT}>", 8, 8)
            if carrier is None:
                raise ValueError(
                    f"{where}: no type schema, and the static type index "
                    f"{field.field_static_type_index} has no C++ carrier"
                )
        elif python_defined:
            # A @py_class stores an Optional / Union field as a TVMFFIAny.
            top_any = schema.origin in ("Optional", "Union")
            carrier = _ANY if top_any else self._value(schema)
        else:
            _check_native_schema(schema, _raw_schema(field, owner), where)
            if schema.origin in ("Optional", "Union"):
                carrier = self._native_nullable(schema, layout, where)
            else:
                carrier = self._value(schema)
                narrow = _NARROW_CARRIERS.get((schema.origin, layout[0]))
                if narrow is not None and layout[1] == narrow.alignment:
                    carrier = narrow
        if (
            (carrier.size, carrier.alignment) != layout
            and schema is not None
            and layout == (8, 8)
            and schema.origin_type_index in self.builtins
        ):
            # A one-pointer field of a type whose reference class is wider (a @py_class
            # field of type Error; tvm::ffi::Error is two words): its object pointer.
            carrier = _Carrier(f"{_NS}Arc<{self.builtins[schema.origin_type_index][0]}>", 8, 8)
        if (carrier.size, carrier.alignment) != layout:
            raise ValueError(
                f"Carrier {carrier.cpp_type} for {where} has layout "
                f"{(carrier.size, carrier.alignment)}, but reflection reports "
                f"{layout} at offset {field.offset}"
            )
        return carrier

    # -- structs ---------------------------------------------------------------

    def _struct(self, info: TypeInfo) -> _Struct:
        total_size = _registered_total_size(info)
        if total_size is None:
            raise ValueError(
                f"Native type {info.type_key!r} does not expose fixed total-size "
                "metadata (register it with reflection::ObjectDef)"
            )
        parent = info.parent_type_info
        if parent is None:
            raise ValueError(f"Object type {info.type_key!r} has no parent type")
        if parent.type_index >= _r.K_DYN_OBJECT_BEGIN:
            base = _cpp_name(parent.type_key).qualified
        elif parent.type_index in self.builtins:
            base = self.builtins[parent.type_index][0]
        else:
            raise ValueError(
                f"Parent type {parent.type_key!r} of {info.type_key!r} has no C++ "
                "class a header can refer to"
            )
        # The bytes the ancestors' fields take: offset -> (size, alignment, C++ name).
        taken: dict[int, tuple[int, int, str]] = {}
        for node in _chain(info)[:-1]:
            for f in node.fields or ():
                taken.setdefault(f.offset, (f.size, f.alignment, _identifier(f.name)))
        end = max((offset + size for offset, (size, _, _) in taken.items()), default=0)
        members: list[_Member] = []
        aliases: list[str] = []
        for field in sorted(info.fields or (), key=lambda f: f.offset):
            if field.offset < end:
                # Another name of bytes a field before it has (enums: value / _int_index)
                # is no second member; anything else overlapping is not a C++ layout.
                prev = taken.get(field.offset)
                if prev is None or prev[:2] != (field.size, field.alignment):
                    raise ValueError(f"{info.type_key}.{field.name} overlaps the field before it")
                aliases.append(
                    f"  // {field.name!r} is another name of {prev[2]} (offset={field.offset})"
                )
                continue
            carrier = self._lower_field(field, info)
            name = _identifier(field.name)
            comment = f"offset={field.offset}, size={carrier.size}, align={carrier.alignment}"
            if name != field.name:
                comment += f", reflected name={field.name!r}"
            if carrier.note:
                comment += f", {carrier.note}"
            members.append(_Member(name, carrier, field.offset, comment))
            taken.setdefault(field.offset, (carrier.size, carrier.alignment, name))
            end = field.offset + carrier.size
        alignment = max([8] + [f.alignment for node in _chain(info) for f in (node.fields or ())])
        return _Struct(
            info,
            _cpp_name(info.type_key),
            base,
            alignment,
            total_size,
            tuple(members),
            tuple(aliases),
        )

    @staticmethod
    def _struct_lines(s: _Struct) -> list[str]:
        name = s.cpp.name
        lines = [
            f"struct alignas({s.alignment}) {name} : public {s.base} {{",
            f"  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP({_string_literal(s.info.type_key)}, "
            f"{_depth(s.info)});",
        ]
        if s.members or s.aliases:
            lines.append("")
        lines += [f"  {m.carrier.cpp_type} {m.name};  // {m.comment}" for m in s.members]
        lines += s.aliases
        lines += [
            "};",
            "",
            f"static_assert(sizeof({name}) == {s.total_size});",
            f"static_assert(alignof({name}) == {s.alignment});",
        ]
        for m in s.members:
            lines += [
                f"static_assert(sizeof(decltype({name}::{m.name})) == {m.carrier.size});",
                f"static_assert(alignof(decltype({name}::{m.name})) == {m.carrier.alignment});",
                f"static_assert(offsetof({name}, {m.name}) == {m.offset});",
            ]
        return lines

    def build(self) -> str:
        """The header's text."""
        structs = [self._struct(info) for info in self.emitted]  # also fills self.named
        emitted = {s.info.type_index for s in structs}

        def order(info: TypeInfo) -> tuple[tuple[str, ...], str, str]:
            cpp = _cpp_name(info.type_key)
            return cpp.namespaces, cpp.name, info.type_key

        named = sorted(self.named.values(), key=order)
        lines = ["#pragma once", "", "#include <tvm/ffi/tvm_ffi.h>", ""]
        lines += _in_namespaces(
            (_cpp_name(info.type_key).namespaces, [f"struct {_cpp_name(info.type_key).name};"])
            for info in named
        )
        # std::is_base_of needs complete types; the forward-declared ones say it here.
        for info in named:
            lines += [
                "template <>",
                "inline constexpr bool tvm::ffi::is_object_subclass_v"
                f"<{_cpp_name(info.type_key).qualified}> = true;",
            ]
        lines.append("")
        lines += _in_namespaces(
            (
                _cpp_name(info.type_key).namespaces,
                [
                    f"struct {_cpp_name(info.type_key).name} : public {_OBJECT} {{",
                    f"  TVM_FFI_DECLARE_OBJECT_INFO_LOOKUP({_string_literal(info.type_key)}, "
                    f"{_depth(info)});",
                    "};",
                ],
            )
            for info in named
            if info.type_index not in emitted
        )
        lines += [
            f"static_assert(sizeof({_OBJECT}) == {_r.OBJECT_HEADER_SIZE});",
            f"static_assert(alignof({_OBJECT}) == 8);",
            "",
        ]
        lines += _OFFSETOF_WARNING_OFF + [""]
        lines += _in_namespaces((s.cpp.namespaces, self._struct_lines(s)) for s in structs)
        lines += _OFFSETOF_WARNING_RESTORE + [""]
        return "\n".join(lines)


def gen_abi_cpp(type_keys: str | Sequence[str]) -> str:
    """A C++17 header declaring structs that mirror the memory layout of object types.

    Parameters
    ----------
    type_keys
        A registered type key, a shell-style pattern of keys (``"my.pkg.*"``),
        or a sequence of keys and patterns. The dynamic (``@py_class`` or C++
        reflection-registered) types matched are emitted with their dynamic
        ancestors; the runtime's own types (``ffi.Function``, ...) are declared
        by ``tvm/ffi/tvm_ffi.h`` already and emit nothing.

    Returns
    -------
    str
        The header: ``struct <Name>Obj`` per type in namespaces that follow
        the type key (``a.b.Name`` -> ``::a::b::NameObj``; a part that is no
        C++ identifier is escaped as ``__ffi_escape_<hex of its UTF-8>``),
        deriving from its parent's struct, with one member per reflected
        field at the runtime's offset, and ``static_assert`` checks of every
        size, alignment and offset. Types the fields refer to but that are
        not selected are declared as field-less views. The header looks the
        type indices up by key at run time; it registers nothing. Fields of
        type ``ffi.Module`` / ``ffi.VisitInterrupt`` need
        ``tvm/ffi/extra/module.h`` / ``tvm/ffi/extra/structural_visit.h``
        included before it.

    Raises
    ------
    ValueError
        A selector matches no registered (object) type; a type has no
        registered object size (a C++ type without reflection metadata); a
        field's C++ type cannot be told from its schema and layout (a C++
        ``Optional<int64_t>``) or is not an owning value (a ``DLTensor*``).
    """
    return _Generator(_select(type_keys)).build()


__all__ = ["gen_abi_cpp"]

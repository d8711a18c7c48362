"""Tables of the Rust target: type names of the ``tvm_ffi`` crate, scalar widths, keywords."""

from __future__ import annotations

__all__ = [
    "RUST_DIRECTIVE_KINDS",
    "RUST_KEYWORDS",
    "RUST_MAX_WIDTH",
    "RUST_TY_MAP_DEFAULTS",
]

#: The one-line directives a ``.rs`` file may carry besides the pipeline's.
RUST_DIRECTIVE_KINDS = frozenset(
    {"import-object", "field", "nullable", "enum", "opaque", "upcast", "custom-new"}
)

_CRATE = "tvm_ffi"

#: Schema origins and builtin type keys to the Rust type that holds them. A
#: value with ``::`` is imported with ``use``; a bare one (a primitive) is not.
RUST_TY_MAP_DEFAULTS: dict[str, str] = {
    "int": "i64",
    "float": "f64",
    "bool": "bool",
    "None": "()",
    **{
        origin: f"{_CRATE}::{name}"
        for origin, name in (
            ("str", "String"),
            ("bytes", "Bytes"),
            ("Any", "Any"),
            ("Callable", "Function"),
            ("Array", "Array"),
            ("List", "List"),
            ("Map", "Map"),
            ("Object", "object::ObjectRef"),
            ("Tensor", "Tensor"),
            ("Shape", "Shape"),
            ("Device", "DLDevice"),
            ("dtype", "DLDataType"),
            ("DataType", "DLDataType"),
            ("ffi.String", "String"),
            ("ffi.Bytes", "Bytes"),
            ("ffi.BigInt", "BigInt"),
            ("ffi.Module", "Module"),
            ("ffi.Error", "Error"),
            ("ffi.Object", "object::ObjectRef"),
            ("ffi.Tensor", "Tensor"),
            ("ffi.Shape", "Shape"),
            ("ffi.Function", "Function"),
            ("ffi.reflection.AccessPath", "reflection::AccessPath"),
            ("ffi.reflection.AccessStep", "reflection::AccessStep"),
        )
    },
}

#: Schema origins the crate has no type for: a field of one is read as ``Any``.
NO_RUST_TYPE = frozenset({"Dict", "Union", "tuple"})

#: The scalar a reflected field of ``(origin, size in bytes)`` is stored as: the
#: schema says ``int`` whatever the C++ width.
SCALAR_OF_SIZE: dict[tuple[str, int], str] = {
    ("int", 1): "i8",
    ("int", 2): "i16",
    ("int", 4): "i32",
    ("int", 8): "i64",
    ("float", 4): "f32",
    ("float", 8): "f64",
}

#: Bytes of the scalars a directive may name (checked against the reflected size).
SCALAR_BYTES: dict[str, int] = {
    "bool": 1,
    "i8": 1,
    "u8": 1,
    "i16": 2,
    "u16": 2,
    "i32": 4,
    "u32": 4,
    "f32": 4,
    "i64": 8,
    "u64": 8,
    "f64": 8,
}

#: Types a generated ``new`` takes as they are (a literal converts to nothing
#: else); any other parameter of the wrapper's ``new`` is ``impl Into<T>``.
TAKEN_AS_IS = frozenset({*SCALAR_BYTES, "isize", "usize"})

#: An object reference field (what ``nullable`` may wrap in ``Option``).
POINTER_BYTES = 8
#: C++ ``Optional<T>`` of a non-object ``T`` is a ``TVMFFIAny`` cell (``tvm_ffi::Optional``);
#: of an object it is one nullable pointer (``Option<T>``).
ANY_CELL_BYTES = 16
OPTIONAL_CELL = f"{_CRATE}::Optional"
#: ``Optional`` payloads stored in a ``TVMFFIAny`` cell.
CELL_PAYLOADS = frozenset({"int", "float", "bool", "Device", "dtype", "DataType", "str", "bytes"})

#: The first segment of a dotted name to the Rust module that holds it.
MODULE_OF_NAMESPACE = {"ffi": _CRATE}

#: The root of every object type (its header is ``tvm_ffi::Object``).
ROOT_KEY = "ffi.Object"

#: Rust keywords (strict, reserved and edition 2024's ``gen``).
RUST_KEYWORDS = frozenset(
    """as async await break const continue crate dyn else enum extern false fn for if impl in
    let loop match mod move mut pub ref return self Self static struct super trait true type
    unsafe use where while abstract become box do final gen macro override priv try typeof
    unsized virtual yield""".split()
)
#: Keywords that cannot be written ``r#name``.
NO_RAW_FORM = frozenset({"self", "Self", "super", "crate"})
#: Member names the generated structs use themselves (the parent slot).
OWN_MEMBERS = frozenset({"base"})

#: rustfmt's default line width: a longer signature or call is wrapped.
RUST_MAX_WIDTH = 100

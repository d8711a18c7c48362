"""How FFI type names become Python annotations and import paths.

Dotted names here use upstream's spelling of the FFI package, ``tvm_ffi``;
the import section writes them under :attr:`tvmffi.stub.utils.Options.ffi_package`.
"""

from __future__ import annotations

__all__ = ["FFI_PACKAGE", "MOD_MAP", "TY_MAP_DEFAULTS", "TY_MAP_INPUT_DEFAULTS"]

#: The FFI package's module name as generated text spells it internally.
FFI_PACKAGE = "tvm_ffi"

#: Schema origin -> the dotted Python name an annotation uses for it (what a
#: value of that type is when the FFI returns it).
TY_MAP_DEFAULTS: dict[str, str] = {
    "Any": "typing.Any",
    "Callable": "typing.Callable",
    "Array": "collections.abc.Sequence",
    "List": "collections.abc.MutableSequence",
    "Map": "collections.abc.Mapping",
    "Dict": "collections.abc.MutableMapping",
    "Object": "ffi.Object",
    "Tensor": "ffi.Tensor",
    "dtype": "ffi.dtype",
    "Device": "ffi.Device",
    "ffi.Enum": f"{FFI_PACKAGE}.dataclasses.Enum",
    "ffi.IntEnum": f"{FFI_PACKAGE}.dataclasses.IntEnum",
    "ffi.StrEnum": f"{FFI_PACKAGE}.dataclasses.StrEnum",
}

#: Where a parameter accepts more than the FFI returns: any sequence for a
#: List, any mapping for a Dict (they are converted on the call).
TY_MAP_INPUT_DEFAULTS: dict[str, str] = {
    "Array": "collections.abc.Sequence",
    "List": "collections.abc.Sequence",
    "Map": "collections.abc.Mapping",
    "Dict": "collections.abc.Mapping",
}

#: Registry prefix -> the Python module that binds its types (``ffi.Object``
#: is ``tvm_ffi.Object``). A prefix matches whole dotted parts only.
MOD_MAP: dict[str, str] = {
    "ffi": FFI_PACKAGE,
    "testing": f"{FFI_PACKAGE}.testing",
}

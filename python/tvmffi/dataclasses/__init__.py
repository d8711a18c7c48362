"""FFI dataclasses: ``@c_class`` for C++ reflected types, ``@py_class`` for types defined in
Python (upstream's ``tvm_ffi.dataclasses``)."""

from ..core import MISSING, Object
from .c_class import c_class
from .common import asdict, astuple, fields, is_dataclass, replace
from .enum import Enum, EnumAttrMap, EnumState, IntEnum, StrEnum, auto, entry
from .field import KW_ONLY, Field, field, init_property
from .gen_abi_cpp import gen_abi_cpp
from .py_class import py_class

__all__ = [
    "KW_ONLY",
    "MISSING",
    "Enum",
    "EnumAttrMap",
    "EnumState",
    "Field",
    "IntEnum",
    "Object",
    "StrEnum",
    "asdict",
    "astuple",
    "auto",
    "c_class",
    "entry",
    "field",
    "fields",
    "gen_abi_cpp",
    "init_property",
    "is_dataclass",
    "py_class",
    "replace",
]

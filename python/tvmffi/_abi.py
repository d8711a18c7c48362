"""Numbers of the C ABI (c_api.h) that the package's Python code uses.

Type indices of the static types, the field / method flag bits, and the size
of the object header. Constants only: the structs themselves are read by the
extension (python/src/reflection.cc), never declared in Python.
"""

from __future__ import annotations

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

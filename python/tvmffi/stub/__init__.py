"""Type stubs for FFI functions and types, written into marked blocks of Python files.

The tool (``tvm-ffi-stubgen``, or ``python -m tvmffi.stub``) reads the
registry of the loaded runtime (global functions with their type schemas,
reflected object types with their fields and methods) and rewrites the
blocks of a file that are enclosed by marker comments::

    # tvm-ffi-stubgen(begin): global/mypkg
    # tvm-ffi-stubgen(end)

becomes the ``init_ffi_api`` call that binds ``mypkg.*`` and, for type
checkers, one ``def`` per function. Everything outside the markers is left
as it is. See :mod:`tvmffi.stub.cli` for the command line and
:mod:`tvmffi.stub.file_utils` for the markers.
"""

from __future__ import annotations

__all__: list[str] = []

"""Upstream's ``tvm_ffi.error`` module: error kinds and Python exceptions, backtrace text.

The conversions themselves live in :mod:`tvmffi._error`; this module gives
them upstream's module name (``tvm_ffi.error.register_error``) and reads the
frames of a backtrace.
"""

from __future__ import annotations

import re

from ._error import Error, register_error

__all__ = ["Error", "register_error"]

# One frame of a backtrace, as Python and tvmffi print it:
#   File "path/to/file.py", line 12, in function_name
_FRAME_LINE = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>[0-9]+), in (?P<func>.+)')


def _parse_backtrace(backtrace: str) -> list[tuple[str, int, str]]:
    """The frames of a backtrace text, as (file name, line number, function) in its order.

    Lines that are not a frame (source lines, headers) are left out.
    """
    frames: list[tuple[str, int, str]] = []
    for text in backtrace.splitlines():
        found = _FRAME_LINE.fullmatch(text.strip())
        if found is not None:
            frames.append((found["path"], int(found["line"]), found["func"].strip()))
    return frames

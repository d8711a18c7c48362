"""The drop-in distribution's version is tvmffi's, read from the one place that
defines it (the TVM_FFI_VERSION_* macros of c_api.h), and it requires that
very tvmffi."""

import re
from pathlib import Path

from setuptools import setup

_C_API = Path(__file__).resolve().parents[2] / "c_api" / "include" / "tvm" / "ffi" / "c_api.h"


def _version() -> str:
    text = _C_API.read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define TVM_FFI_VERSION_{part} (\d+)", text, re.M)
        if m is None:
            raise RuntimeError(f"{_C_API}: no TVM_FFI_VERSION_{part}")
        parts.append(m.group(1))
    return ".".join(parts)


VERSION = _version()
setup(version=VERSION, install_requires=[f"tvmffi=={VERSION}"])

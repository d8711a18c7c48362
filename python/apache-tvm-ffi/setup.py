"""Version and dependencies of the stand-in `apache-tvm-ffi` distribution.

Version: `<upstream>+tvmffi.<ours>`, where <upstream> is the apache-tvm-ffi
release pinned in tests/clients/VERSIONS (the one tvmffi is compared with) and
<ours> is tvmffi's version from c_api.h. A requirement such as
`apache-tvm-ffi>=0.1.11,<0.2` accepts it; `pip show apache-tvm-ffi` shows the
local label `+tvmffi...` and this package's summary says what it is.
"""

import re
from pathlib import Path

from setuptools import setup

_ROOT = Path(__file__).resolve().parents[2]


def _ours() -> str:
    text = (_ROOT / "c_api" / "include" / "tvm" / "ffi" / "c_api.h").read_text()
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        m = re.search(rf"^#define TVM_FFI_VERSION_{part} (\d+)", text, re.M)
        if m is None:
            raise RuntimeError(f"c_api.h: no TVM_FFI_VERSION_{part}")
        parts.append(m.group(1))
    return ".".join(parts)


def _upstream() -> str:
    text = (_ROOT / "tests" / "clients" / "VERSIONS").read_text()
    m = re.search(r"^apache-tvm-ffi==(\S+)$", text, re.M)
    if m is None:
        raise RuntimeError("tests/clients/VERSIONS: no apache-tvm-ffi==<version> line")
    return m.group(1)


OURS = _ours()
setup(
    version=f"{_upstream()}+tvmffi.{OURS}",
    install_requires=[f"tvmffi=={OURS}", f"tvmffi-as-tvm-ffi=={OURS}"],
)

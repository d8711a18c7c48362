#!/usr/bin/env python3
"""The layering check's own test: a tiny tree in a temporary git repository,
checked with and without a planted back-edge.

Runs as a script (lint.sh: no dependency beyond Python) or under pytest.
Exits 1 if any case fails.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_layers

# A clean tree: every include points down or sideways within a layer.
CLEAN = {
    "c_api/include/tvm/ffi/c_api.h": "#include <stdint.h>\n",
    "cpp/include/tvm/ffi/any.h": "#include <tvm/ffi/c_api.h>\n",
    "internal/include/tvmffi_internal/bounds.h": "#include <tvm/ffi/c_api.h>\n",
    "runtime/internal.h": '#include <tvm/ffi/any.h>\n#include "tvmffi_internal/bounds.h"\n',
    "runtime/object.cc": '#include "internal.h"\n#include "fault.h"\n',
    "runtime/fault.h": "#include <stdint.h>\n",
    "tools/cli.cc": '#include <tvm/ffi/any.h>\n#include "tvmffi_internal/bounds.h"\n',
    "python/src/call.cc": '#include "tvmffi_internal/bounds.h"\n',
    "kernels/cpu/add.cc": "#include <tvm/ffi/any.h>\n",
    "tests/oom/test_oom.cc": '#include "fault.h"\n#include "internal.h"\n',
}


def _tree(files: dict[str, str]) -> tempfile.TemporaryDirectory:
    tmp = tempfile.TemporaryDirectory()
    root = Path(tmp.name)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
    return tmp


def _check(files: dict[str, str]) -> tuple[int, list[str], int]:
    with _tree(files) as tmp:
        checked, problems = check_layers.check(Path(tmp))
        with contextlib.redirect_stdout(io.StringIO()):
            rc = check_layers.main([tmp])
    return checked, problems, rc


def _planted(rel: str, include: str) -> dict[str, str]:
    files = dict(CLEAN)
    files[rel] = files.get(rel, "") + include + "\n"
    return files


def test_clean_tree_passes() -> None:
    checked, problems, rc = _check(CLEAN)
    assert problems == [] and rc == 0, problems
    assert checked == len(CLEAN) - 1  # tests/ is not a layer


def test_tool_including_a_runtime_header_fails() -> None:
    _, problems, rc = _check(_planted("tools/cli.cc", '#include "../runtime/internal.h"'))
    assert rc == 1
    assert problems == ["tools/cli.cc:3: tools includes runtime/internal.h (tools may not)"]


def test_python_extension_including_a_runtime_header_fails() -> None:
    _, problems, rc = _check(_planted("python/src/call.cc", '#include "internal.h"'))
    assert rc == 1 and len(problems) == 1
    assert problems[0].startswith("python/src/call.cc:2: python/src includes runtime/internal.h")


def test_runtime_including_a_test_header_fails() -> None:
    files = _planted("runtime/object.cc", '#include "oom/countdown.h"')
    files["tests/oom/countdown.h"] = "#include <stdint.h>\n"
    _, problems, rc = _check(files)
    assert rc == 1 and len(problems) == 1
    assert problems[0].startswith("runtime/object.cc:3: runtime includes tests/oom/countdown.h")


def test_kernels_may_not_use_the_internal_headers() -> None:
    _, problems, rc = _check(_planted("kernels/cpu/add.cc", '#include "tvmffi_internal/bounds.h"'))
    assert rc == 1 and len(problems) == 1
    assert "kernels/cpu includes internal/include/tvmffi_internal/bounds.h" in problems[0]


def test_public_header_including_the_runtime_fails() -> None:
    files = _planted("cpp/include/tvm/ffi/any.h", '#include "../../../../runtime/fault.h"')
    _, problems, rc = _check(files)
    assert rc == 1 and len(problems) == 1
    assert problems[0].startswith("cpp/include/tvm/ffi/any.h:2: cpp/include includes runtime/")


def main() -> int:
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_")]
    failed = 0
    for name, fn in tests:
        try:
            fn()
        except AssertionError as e:
            failed += 1
            print(f"FAIL {name}: {e}")
    print(f"check_layers self-test: {len(tests) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

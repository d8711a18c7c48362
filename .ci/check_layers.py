#!/usr/bin/env python3
"""The layering check: which folder of the tree may include which.

Layers point one way: the C ABI (c_api/include) <- the C++ headers
(cpp/include) <- the runtime (runtime/). Kernels, benchmarks and the docs'
examples use the public headers only. The private header-only helpers that
more than one layer needs live in one place, internal/include/tvmffi_internal
(the CMake target tvmffi::internal, never installed): the runtime, the tool
(tools/) and the Python extension (python/src) may include them, nothing else.
Every project header a file includes, by "quotes" or by <...>, is resolved to
the folder that holds it and checked against RULES. Tests may include anything.

Usage: python3 .ci/check_layers.py [ROOT]   (default: the repository)
Prints each back-edge as FILE:LINE: LAYER includes PATH (LAYER may not), then
"layers: N files checked, N back-edges"; exits 1 if there is any.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

PUBLIC = ("c_api/include", "cpp/include")
INTERNAL = "internal/include"  # tvmffi::internal
# layer (a path prefix; the longest match wins) -> the layers it may include
RULES: dict[str, tuple[str, ...]] = {
    "c_api/include": ("c_api/include",),
    "cpp/include": PUBLIC,
    INTERNAL: (*PUBLIC, INTERNAL),
    "runtime": (*PUBLIC, INTERNAL, "runtime"),
    "kernels/cpu": (*PUBLIC, "kernels/cpu"),
    "kernels/cuda": (*PUBLIC, "kernels/cuda"),
    "tools": (*PUBLIC, INTERNAL, "tools"),
    "python/src": (*PUBLIC, INTERNAL, "python/src"),
    "benchmarks": (*PUBLIC, "benchmarks"),
    "docs/examples": PUBLIC + ("docs/examples",),
}
SOURCES = (".c", ".cc", ".cpp", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def layer_of(path: str) -> str | None:
    best = None
    for prefix in RULES:
        if path == prefix or path.startswith(prefix + "/"):
            if best is None or len(prefix) > len(best):
                best = prefix
    return best


def resolve(root: Path, src: Path, kind: str, name: str, tracked: list[str]) -> str | None:
    """The repository path an include names, or None for a system header."""
    candidates = [src.parent / name] if kind == '"' else []
    # then every folder a build puts on the include path, private ones too
    candidates += [root / inc / name for inc in (*PUBLIC, INTERNAL, "runtime", "tests", ".")]
    for cand in candidates:
        if cand.is_file():
            return cand.resolve().relative_to(root.resolve()).as_posix()
    if kind == '"':  # a folder some build adds with -I: any tracked file of that name
        found = [t for t in tracked if t.endswith("/" + name)]
        if found:
            return found[0]
    return None


def check(root: Path) -> tuple[int, list[str]]:
    files = subprocess.run(
        ["git", "-C", str(root), "ls-files"], check=True, capture_output=True, text=True
    ).stdout.split()
    problems: list[str] = []
    checked = 0
    for rel in files:
        layer = layer_of(rel)
        if layer is None or not rel.endswith(SOURCES):
            continue
        checked += 1
        src = root / rel
        for no, line in enumerate(src.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            target = resolve(root, src, m.group(1), m.group(2), files)
            if target is None:
                continue
            if not any(target == a or target.startswith(a + "/") for a in RULES[layer]):
                problems.append(f"{rel}:{no}: {layer} includes {target} ({layer} may not)")
    return checked, problems


def main(argv: list[str]) -> int:
    root = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent
    checked, problems = check(root)
    for p in problems:
        print(p)
    print(f"layers: {checked} files checked, {len(problems)} back-edges")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The ``tvmffi`` console script: runs the package's command-line tool, ``bin/tvmffi``.

``tvmffi inspect LIB``, ``tvmffi call ...``, ``tvmffi --version``: the
arguments go to the executable unchanged (it replaces this process).  An
installed package has it at ``tvmffi/bin/tvmffi``; a build-tree package
(``<build>/python/tvmffi``) has none, and the build's own ``<build>/tvmffi``
is used when it was built.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Sequence

__all__ = ["find_cli", "main"]


def find_cli() -> Path | None:
    """The tvmffi executable: the package's ``bin/tvmffi``, else the build tree's, else None."""
    pkg = Path(__file__).resolve().parent
    candidates = [pkg / "bin" / "tvmffi"]
    build = pkg.parent.parent
    if (build / "CMakeCache.txt").is_file():
        candidates.append(build / "tvmffi")
    for path in candidates:
        if path.is_file() and os.access(path, os.X_OK):
            return path
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Exec the tvmffi executable with ``argv`` (default: ``sys.argv[1:]``).

    Does not return when the executable is found; otherwise prints why on
    stderr and returns 127 (the shell's status for a missing command).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    exe = find_cli()
    if exe is None:
        pkg = Path(__file__).resolve().parent
        print(
            f"tvmffi: the command-line tool is not in this package: {pkg / 'bin' / 'tvmffi'} "
            "is missing (a build-tree package ships no bin/: run <build>/tvmffi, or install "
            "the tvmffi wheel)",
            file=sys.stderr,
        )
        return 127
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [str(exe), *args])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())

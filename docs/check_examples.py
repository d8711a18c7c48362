#!/usr/bin/env python3
"""Check that the code examples shown in the docs are the files that CI runs.

Convention: an example is shown as a fenced code block whose opening fence
comes right after a marker line naming its file, relative to the repository:

    <!-- example: docs/examples/quickstart/add_one.cc -->
    ```cpp
    ...the file's content, byte for byte...
    ```

Checked in README.md and docs/*.md:
  * the block after each marker is byte-identical to the named file (the
    block's lines, each ending in a newline, are the file);
  * a marker names an existing file under docs/examples/ and is followed by a
    fence;
  * every code block carries a marker, whatever its language (code, JSON,
    text): nothing is written in the docs alone; only shell commands and
    transcripts (```sh, ```bash, ```shell, ```console) need none;
  * every file under docs/examples/ is shown somewhere.

.ci/docs-examples.sh compiles and runs the files.

Usage: python3 docs/check_examples.py [--update]
  --update  rewrite each marked block from its file (then check).
Exit status 0 when everything matches, 1 otherwise (one line per problem).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
MARKER = re.compile(r"^<!-- example: (\S+) -->$")
FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
# The only blocks that need no example file: shell commands and transcripts.
SHELL_LANGUAGES = {"sh", "bash", "shell", "console"}


def doc_files() -> list[Path]:
    files = [ROOT / "README.md"]
    files += sorted((ROOT / "docs").glob("*.md"))
    return [f for f in files if f.is_file()]


def parse(path: Path) -> tuple[list[str], list[dict], list[str]]:
    """The file's lines, its code blocks, and the problems found while parsing.

    Each block: marker (str or None), marker_line, open_line, close_line
    (0-based indices into the lines), info (the fence's info string), fence.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks: list[dict] = []
    problems: list[str] = []
    rel = path.relative_to(ROOT)
    i = 0
    while i < len(lines):
        line = lines[i]
        m = MARKER.match(line)
        f = FENCE.match(line)
        if m:
            if i + 1 >= len(lines) or not FENCE.match(lines[i + 1]):
                problems.append(f"{rel}:{i + 1}: example marker not followed by a code fence")
            i += 1
            continue
        if f:
            fence, info = f.group(1), f.group(2).strip()
            j = i + 1
            while j < len(lines):
                c = lines[j]
                if c.startswith(fence[0] * len(fence)) and c.strip(fence[0]) == "":
                    break
                j += 1
            if j == len(lines):
                problems.append(f"{rel}:{i + 1}: code fence never closed")
                break
            marker = MARKER.match(lines[i - 1]) if i > 0 else None
            blocks.append(
                {
                    "marker": marker.group(1) if marker else None,
                    "marker_line": i - 1 if marker else None,
                    "open_line": i,
                    "close_line": j,
                    "info": info,
                    "fence": fence,
                }
            )
            i = j + 1
            continue
        i += 1
    return lines, blocks, problems


def block_text(lines: list[str], block: dict) -> str:
    body = lines[block["open_line"] + 1 : block["close_line"]]
    return "".join(line + "\n" for line in body)


def example_path(name: str) -> Path | None:
    path = (ROOT / name).resolve()
    try:
        path.relative_to(EXAMPLES)
    except ValueError:
        return None
    return path


def update(path: Path) -> bool:
    """Rewrite the marked blocks of one file from their example files; True if changed."""
    lines, blocks, _ = parse(path)
    changed = False
    for block in reversed(blocks):
        if block["marker"] is None:
            continue
        src = example_path(block["marker"])
        if src is None or not src.is_file():
            continue
        text = src.read_text(encoding="utf-8")
        if not text.endswith("\n"):
            continue  # reported by the check
        body = text[:-1].split("\n")
        fence = block["fence"]
        while any(line.startswith(fence) for line in body):
            fence += fence[0]
        new = [fence + block["info"]] + body + [fence]
        old = lines[block["open_line"] : block["close_line"] + 1]
        if new != old:
            lines[block["open_line"] : block["close_line"] + 1] = new
            changed = True
    if changed:
        path.write_text("\n".join(lines), encoding="utf-8")
    return changed


def check() -> tuple[int, list[str]]:
    problems: list[str] = []
    shown: set[Path] = set()
    count = 0
    for path in doc_files():
        rel = path.relative_to(ROOT)
        lines, blocks, parse_problems = parse(path)
        problems += parse_problems
        for block in blocks:
            where = f"{rel}:{block['open_line'] + 1}"
            lang = block["info"].split()[0].lower() if block["info"] else ""
            if block["marker"] is None:
                if lang not in SHELL_LANGUAGES:
                    problems.append(
                        f"{where}: ```{lang} block without an example marker "
                        f"(only shell blocks may be inline: put it in "
                        f"docs/examples/ and mark the block)"
                    )
                continue
            src = example_path(block["marker"])
            if src is None:
                problems.append(f"{where}: {block['marker']} is not under docs/examples/")
                continue
            if not src.is_file():
                problems.append(f"{where}: {block['marker']}: no such file")
                continue
            shown.add(src)
            count += 1
            data = src.read_bytes()
            if not data.endswith(b"\n"):
                problems.append(f"{where}: {block['marker']} does not end with a newline")
            elif block_text(lines, block).encode("utf-8") != data:
                problems.append(
                    f"{where}: the block differs from {block['marker']} "
                    f"(python3 docs/check_examples.py --update copies the file in)"
                )
    for src in sorted(p for p in EXAMPLES.rglob("*") if p.is_file()):
        if "__pycache__" in src.parts:
            continue
        if src not in shown:
            problems.append(f"{src.relative_to(ROOT)}: shown in no document")
    return count, problems


def main(argv: list[str]) -> int:
    if argv not in ([], ["--update"]):
        print("usage: python3 docs/check_examples.py [--update]", file=sys.stderr)
        return 2
    if argv == ["--update"]:
        for path in doc_files():
            if update(path):
                print(f"updated {path.relative_to(ROOT)}")
    count, problems = check()
    for p in problems:
        print(p)
    files = len(doc_files())
    if problems:
        print(
            f"check_examples: {len(problems)} problem(s); {count} example block(s) "
            f"in {files} document(s)"
        )
        return 1
    print(f"check_examples: {count} example block(s) in {files} document(s) match docs/examples/")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

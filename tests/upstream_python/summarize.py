#!/usr/bin/env python3
"""Reads the junit XML files of tests/upstream_python/run.sh and prints the table.

One row per upstream test file: the tests upstream's file holds (counted
statically, see ``static_count``), then what pytest collected and how they
ended (passed / failed / errors / skipped) and the file's status (ok, import
error: the file did not import, so none of its tests ran; crashed or timeout:
the pytest process died, the counts are what its junit file held, if any).
A total line follows. The table also goes to WORK_DIR/summary.md, the junit
files are merged into WORK_DIR/junit.xml, and WORK_DIR/reasons.md lists the
import errors (with the tests each blocks) and the failures grouped by their
error line.

Usage: summarize.py --upstream TREE --work WORK_DIR --files REL... [--seconds N] [--label TEXT]
"""

from __future__ import annotations

import argparse
import ast
import collections
import os
import re
import sys
import xml.etree.ElementTree as ET

# -- upstream's test count, statically -------------------------------------


def _param_count(node: ast.AST, names: dict[str, ast.AST]) -> int | None:
    """How many cases an argvalues expression gives; None when it cannot tell."""
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        if any(isinstance(e, ast.Starred) for e in node.elts):
            return None
        return len(node.elts)
    if isinstance(node, ast.Dict):
        return len(node.keys)
    if isinstance(node, ast.Call):
        func = node.func
        fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if fname == "product" and node.args and not node.keywords:
            total = 1
            for a in node.args:
                n = _param_count(a, names)
                if n is None:
                    return None
                total *= n
            return total
        if fname in ("list", "tuple", "sorted") and len(node.args) == 1:
            return _param_count(node.args[0], names)
        if fname == "range" and all(isinstance(a, ast.Constant) for a in node.args):
            return len(range(*[a.value for a in node.args]))
    return None


def _decorator_factor(decorators: list[ast.expr], names: dict[str, ast.AST]) -> tuple[int, bool]:
    factor, exact = 1, True
    for dec in decorators:
        if not isinstance(dec, ast.Call):
            continue
        func = dec.func
        if not (isinstance(func, ast.Attribute) and func.attr == "parametrize"):
            continue
        values = (
            dec.args[1]
            if len(dec.args) > 1
            else next((k.value for k in dec.keywords if k.arg == "argvalues"), None)
        )
        n = _param_count(values, names) if values is not None else None
        if n is None:
            exact = False
        else:
            factor *= n
    return factor, exact


def static_count(path: str) -> tuple[int, bool]:
    """(tests in upstream's file, whether the count is exact).

    A test is a module-level ``test*`` function or a ``test*`` method of a
    ``Test*`` class; ``pytest.mark.parametrize`` multiplies it by the number of
    its cases when they are written out (a list, a tuple, a module-level name
    bound to one, itertools.product of those); other case lists count once and
    make the count inexact (a lower bound).
    """
    try:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
    except (OSError, SyntaxError):
        return 0, False
    names: dict[str, ast.AST] = {}
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            names[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            names[node.target.id] = node.value
    total, exact = 0, True

    def func_count(fn: ast.AST, outer: int) -> None:
        nonlocal total, exact
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name.startswith("test"):
            f, e = _decorator_factor(fn.decorator_list, names)
            total += outer * f
            exact = exact and e

    def class_count(cls: ast.ClassDef, outer: int) -> None:
        nonlocal exact
        f, e = _decorator_factor(cls.decorator_list, names)
        exact = exact and e
        for item in cls.body:
            if isinstance(item, ast.ClassDef) and item.name.startswith("Test"):
                class_count(item, outer * f)
            else:
                func_count(item, outer * f)

    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            class_count(node, 1)
        else:
            func_count(node, 1)
    return total, exact


# -- junit -------------------------------------------------------------------


def _first_error_line(text: str) -> str:
    """The first ``E   ...Error: ...`` line of a pytest report (else its first E line)."""
    e_lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    for ln in e_lines:
        if re.match(r"^[\w.]*(Error|Exception|Exit|Interrupt|Warning)\b", ln):
            return ln
    if e_lines:
        return e_lines[0]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def _normalize(reason: str) -> str:
    reason = re.sub(r"0x[0-9a-fA-F]+", "0x…", reason)
    reason = re.sub(r"/[^\s'\"]*/", "…/", reason)
    return reason[:200]


class FileResult:
    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.upstream, self.exact = 0, True
        self.collected = self.passed = self.failed = self.errors = self.skipped = 0
        self.status = "ok"
        self.import_error = ""
        self.failures: list[tuple[str, str]] = []  # (test, reason)
        self.elements: list[ET.Element] = []


def read_file(work: str, upstream: str, rel: str) -> FileResult:
    r = FileResult(rel)
    r.upstream, r.exact = static_count(os.path.join(upstream, "tests", "python", rel))
    name = re.sub(r"\.py$", "", rel.replace("/", "__"))
    rc = None
    try:
        rc = int(open(os.path.join(work, "logs", name + ".rc")).read().split()[-1])
    except (OSError, ValueError, IndexError):
        pass
    path = os.path.join(work, "junit", name + ".xml")
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        root = None
    if root is not None:
        for case in root.iter("testcase"):
            r.elements.append(case)
            failure, error, skipped = case.find("failure"), case.find("error"), case.find("skipped")
            if error is not None and error.get("message", "") == "collection failure":
                r.import_error = _normalize(_first_error_line(error.text or ""))
                r.status = "import error"
                continue
            r.collected += 1
            test = case.get("name", "")
            if failure is not None:
                r.failed += 1
                r.failures.append(
                    (
                        test,
                        _normalize(_first_error_line(failure.text or failure.get("message", ""))),
                    )
                )
            elif error is not None:
                r.errors += 1
                r.failures.append(
                    (test, _normalize(_first_error_line(error.text or error.get("message", ""))))
                )
            elif skipped is not None:
                r.skipped += 1
            else:
                r.passed += 1
    if rc in (124, 137):
        r.status = "timeout"
    elif rc is not None and rc not in (0, 1, 2, 5):
        r.status = f"crashed (rc {rc})"
    elif root is None:
        r.status = "no result" if rc is None else f"no junit (rc {rc})"
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--files", nargs="+", required=True)
    ap.add_argument("--seconds", type=int, default=None)
    ap.add_argument("--label", default="")
    args = ap.parse_args()

    results = [read_file(args.work, args.upstream, rel) for rel in args.files]

    rows = [
        "| file | upstream tests | collected | passed | failed | errors | skipped | status |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    t = collections.Counter()
    for r in results:
        up = f"{r.upstream}" + ("" if r.exact else "+")
        rows.append(
            f"| {r.rel} | {up} | {r.collected} | {r.passed} | {r.failed} | {r.errors} | "
            f"{r.skipped} | {r.status} |"
        )
        t.update(
            upstream=r.upstream,
            collected=r.collected,
            passed=r.passed,
            failed=r.failed,
            errors=r.errors,
            skipped=r.skipped,
            import_errors=int(r.status == "import error"),
        )
    inexact = any(not r.exact for r in results)
    up_total = f"{t['upstream']}" + ("+" if inexact else "")
    rows.append(
        f"| **total** ({len(results)} files) | {up_total} | {t['collected']} | {t['passed']} | "
        f"{t['failed']} | {t['errors']} | {t['skipped']} | "
        f"{t['import_errors']} import errors |"
    )
    pct = 100.0 * t["passed"] / t["upstream"] if t["upstream"] else 0.0
    total_line = (
        f"TOTAL: {len(results)} files; upstream tests {up_total}; collected {t['collected']}; "
        f"passed {t['passed']} ({pct:.1f}% of upstream's); failed {t['failed']}; "
        f"errors {t['errors']}; skipped {t['skipped']}; "
        f"{t['import_errors']} files did not import"
    )
    if args.seconds is not None:
        total_line += f"; {args.seconds} s"

    header = f"Upstream tests/python against tvmffi{': ' + args.label if args.label else ''}"
    print(header)
    print()
    print("\n".join(rows))
    print()
    print(total_line)
    with open(os.path.join(args.work, "summary.md"), "w", encoding="utf-8") as f:
        f.write(header + "\n\n" + "\n".join(rows) + "\n\n" + total_line + "\n")

    # Reasons: import errors (tests they block), failures grouped.
    blocks: dict[str, list[FileResult]] = collections.defaultdict(list)
    for r in results:
        if r.status == "import error":
            blocks[r.import_error].append(r)
    groups: dict[str, list[str]] = collections.defaultdict(list)
    for r in results:
        for test, reason in r.failures:
            groups[reason].append(f"{r.rel}::{test}")
    out = [
        "# Why tests do not pass",
        "",
        "## Files that do not import (first import error)",
        "",
        "| import error | files | upstream tests blocked |",
        "|---|---|---:|",
    ]
    for reason, rs in sorted(blocks.items(), key=lambda kv: -sum(r.upstream for r in kv[1])):
        out.append(
            f"| `{reason}` | {', '.join(r.rel for r in rs)} | {sum(r.upstream for r in rs)} |"
        )
    out += [
        "",
        "## Failures and errors, by their error line",
        "",
        "| count | error line | e.g. |",
        "|---:|---|---|",
    ]
    for reason, tests in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append(f"| {len(tests)} | `{reason.replace('|', '/')}` | {tests[0]} |")
    with open(os.path.join(args.work, "reasons.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    print(
        f"(reasons: {os.path.join(args.work, 'reasons.md')}; "
        f"table: {os.path.join(args.work, 'summary.md')})"
    )

    # One merged junit file.
    merged = ET.Element("testsuites")
    for r in results:
        suite = ET.SubElement(
            merged,
            "testsuite",
            name=r.rel,
            tests=str(r.collected),
            failures=str(r.failed),
            errors=str(r.errors),
            skipped=str(r.skipped),
        )
        suite.extend(r.elements)
    ET.ElementTree(merged).write(
        os.path.join(args.work, "junit.xml"), encoding="utf-8", xml_declaration=True
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

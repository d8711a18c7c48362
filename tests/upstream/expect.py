#!/usr/bin/env python3
"""Checks one upstream suite's outcome against its expected-failure list.

    expect.py cpp RESULTS_TSV LIST
    expect.py python WORK_DIR UPSTREAM_TREE LIST

``cpp``: RESULTS_TSV is what tests/upstream_suite/summarize.py --results wrote
(``passed|failed|not-built <TAB> file::Suite.Name <TAB> why``).
``python``: WORK_DIR is tests/upstream_python/run.sh's work folder; its
``junit/<file>.xml`` and ``logs/<file>.rc`` are read. A file that did not
import, crashed or timed out fails as a whole: its id is the file's path
(``test_x.py``) and it counts as many failures as upstream's file holds tests.

LIST (tests/upstream/*-expected-failures.txt): one entry a line,
``ID -- reason`` (the reason is required); ``#`` starts a comment line. An ID
is a test (``test_any.cc::Any.AnyEqualHash``, ``test_x.py::test_y[case]``) or a
whole file (``test_x.py``): every test of that file is expected to fail.

Prints the tests that fail and are not listed, the listed tests that now pass
(move them off the list), and a last line ``NAME: N passed, N failed, N
skipped, N expected failures``. Exits 1 when an unlisted test fails or a
listed entry is not an upstream test at all (a stale id); a listed test that
passes is reported but does not fail the run.
"""

from __future__ import annotations

import os
import sys
import xml.etree.ElementTree as ET


def read_list(path: str) -> dict[str, str]:
    out: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            ident, sep, reason = line.partition(" -- ")
            if not sep or not reason.strip():
                sys.exit(f"{path}:{n}: an entry is 'ID -- reason' (the reason is required)")
            out[ident.strip()] = reason.strip()
    return out


def cpp_outcomes(tsv: str) -> list[tuple[str, str]]:
    """[(id, passed|failed|skipped)]; a test whose file did not build fails."""
    res = []
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 2:
                res.append((parts[1], "passed" if parts[0] == "passed" else "failed"))
    return res


def python_outcomes(work: str, upstream: str) -> list[tuple[str, str, int]]:
    """[(id, outcome, weight)]: weight > 1 for a whole file that did not run."""
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "upstream_python"))
    from summarize import static_count

    res = []
    logs = os.path.join(work, "logs")
    for rc_name in sorted(os.listdir(logs)):
        if not rc_name.endswith(".rc"):
            continue
        name = rc_name[:-3]
        rel, rc = open(os.path.join(logs, rc_name)).read().split()
        module = "tests.python." + rel[:-3].replace("/", ".")
        junit = os.path.join(work, "junit", name + ".xml")
        cases = []
        if os.path.exists(junit):
            cases = list(ET.parse(junit).getroot().iter("testcase"))
        whole_file_error = int(rc) not in (0, 1, 5) or any(
            c.get("name") == module or (not c.get("classname") and c.find("error") is not None)
            for c in cases
        )
        if whole_file_error:
            count, _ = static_count(os.path.join(upstream, "tests", "python", rel))
            res.append((rel, "failed", max(count, 1)))
            continue
        for c in cases:
            cls = c.get("classname", "")
            inner = (
                cls[len(module) + 1 :].replace(".", "::") if cls.startswith(module + ".") else ""
            )
            ident = rel + "::" + (inner + "::" if inner else "") + c.get("name", "")
            if c.find("failure") is not None or c.find("error") is not None:
                outcome = "failed"
            elif c.find("skipped") is not None:
                outcome = "skipped"
            else:
                outcome = "passed"
            res.append((ident, outcome, 1))
    return res


def main(argv: list[str]) -> int:
    if len(argv) == 4 and argv[1] == "cpp":
        name, outcomes, listed = (
            "upstream cpp",
            [(i, o, 1) for i, o in cpp_outcomes(argv[2])],
            argv[3],
        )
    elif len(argv) == 5 and argv[1] == "python":
        name, outcomes, listed = "upstream python", python_outcomes(argv[2], argv[3]), argv[4]
    else:
        print(__doc__, file=sys.stderr)
        return 2
    expected = read_list(listed)

    def entry_of(ident: str) -> str | None:
        if ident in expected:
            return ident
        file = ident.split("::", 1)[0]
        return file if file in expected else None

    counts = {"passed": 0, "failed": 0, "skipped": 0, "expected": 0}
    unexpected, fixed, seen = [], [], set()
    for ident, outcome, weight in outcomes:
        entry = entry_of(ident)
        if entry:
            seen.add(entry)
        if outcome == "failed" and entry:
            counts["expected"] += weight
        elif outcome == "failed":
            counts["failed"] += weight
            unexpected.append(ident)
        else:
            counts[outcome] += weight
            if entry and outcome == "passed":
                fixed.append(ident)
    stale = sorted(set(expected) - seen)
    for ident in unexpected:
        print(f"{name}: FAILED, not on {os.path.basename(listed)}: {ident}")
    for ident in fixed:
        print(f"{name}: passes now, take it off {os.path.basename(listed)}: {ident}")
    for ident in stale:
        print(f"{name}: listed but no such test ran: {ident}")
    total = sum(counts.values()) - counts["skipped"]
    pct = 100.0 * counts["passed"] / total if total else 0.0
    print(
        f"{name}: {counts['passed']} of {total} pass ({pct:.1f}%), "
        f"{counts['expected']} expected failures listed, {counts['skipped']} skipped"
    )
    print(
        f"{name}: {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['skipped']} skipped, {counts['expected']} expected failures"
    )
    return 1 if unexpected or stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

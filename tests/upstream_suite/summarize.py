#!/usr/bin/env python3
"""Reads what run.sh left under WORK_DIR/files and prints the suite's table.

Tests are found statically in upstream's sources (every TEST(Suite, Name)), so
a file that does not build still counts its tests. A test "needs the testing
library" when its body names something that upstream's private testing
library (src/ffi/testing/testing.cc) registers, such as a "testing.*" global or
type key: those are counted apart, since that library is upstream's (run.sh
builds it from upstream's source against our headers when it can, and those
tests then run, but they measure upstream's test fixtures as much as ours).

Files that link run inside one suite binary (WORK_DIR/suite); a test's file is
the one whose source holds its TEST(Suite, Name).
"""

import argparse
import json
import os
import re
import sys

TEST_RE = re.compile(r"^\s*TEST(?:_F)?\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)", re.M)


def testing_lib_names(upstream):
    path = os.path.join(upstream, "src", "ffi", "testing", "testing.cc")
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return set()
    return set(re.findall(r'"(testing\.[A-Za-z0-9_.]+)"', text))


def static_tests(path, lib_names):
    """[(full name, needs testing library, disabled)] in source order."""
    text = open(path, encoding="utf-8", errors="replace").read()
    marks = list(TEST_RE.finditer(text))
    out = []
    for i, m in enumerate(marks):
        body = text[m.start() : marks[i + 1].start() if i + 1 < len(marks) else len(text)]
        used = set(re.findall(r'"(testing\.[A-Za-z0-9_.]+)"', body))
        out.append(
            (
                f"{m.group(1)}.{m.group(2)}",
                bool(used & lib_names),
                m.group(2).startswith("DISABLED_"),
            )
        )
    return out


def first_line(path, pattern, strip):
    try:
        lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    except OSError:
        return ""
    for line in lines:
        if re.search(pattern, line):
            for prefix in strip:
                line = line.replace(prefix, "")
            return line.strip()
    return ""


def gtest_json(path):
    """{full name: (passed, first failure line)} from a --gtest_output json."""
    res = {}
    try:
        doc = json.load(open(path, encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return res
    for suite in doc.get("testsuites", []):
        for t in suite.get("testsuite", []):
            if t.get("status") == "NOTRUN" or t.get("result") == "SKIPPED":
                continue
            name = f"{suite['name']}.{t['name']}"
            fails = t.get("failures", [])
            msg = ""
            if fails:
                text = fails[0].get("failure", "")
                # Drop the traceback lines of an exception's text (ours puts
                # them before "Kind: message").
                lines = [
                    ln
                    for ln in text.splitlines()
                    if ln.strip() and not re.match(r"^\s+at |^\s*File \"|^\s*Traceback ", ln)
                ]
                # Drop the "file:line" header gtest puts first.
                if lines and re.match(r"^\S+:\d+$", lines[0]):
                    lines = lines[1:]
                msg = " / ".join(lines[:3])
            res[name] = (not fails, msg)
    return res


def signal_reason(rc):
    if rc in (124, 137):
        return "timeout"
    if rc > 128:
        return f"killed by signal {rc - 128}"
    return f"exit {rc} without a result"


def binary_results(d, status):
    """{full name: (passed, first failure line)} of one test binary's run."""
    if status == "ran":
        return gtest_json(os.path.join(d, "all.json"))
    results = {}
    rcs = {}
    for line in (
        open(os.path.join(d, "each_rc.txt"))
        if os.path.exists(os.path.join(d, "each_rc.txt"))
        else []
    ):
        t, rc = line.split()
        rcs[t] = int(rc)
    for t, rc in rcs.items():
        one = gtest_json(os.path.join(d, "each", t + ".json"))
        if t in one:
            results[t] = one[t]
        elif rc != 0 or not t.split(".")[1].startswith("DISABLED_"):
            results[t] = (False, "crash: " + signal_reason(rc))
    return results


def read(path, default=""):
    try:
        return open(path).read().strip()
    except OSError:
        return default


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seconds", type=int, default=0)
    ap.add_argument("--files", nargs="+", required=True)
    ap.add_argument(
        "--results",
        help="also write one line per test: 'passed|failed|not-built<TAB>file::Suite.Name<TAB>why'",
    )
    a = ap.parse_args()
    outcomes = []

    lib_names = testing_lib_names(a.upstream)
    strip = [os.path.join(a.upstream, "tests", "cpp") + "/", a.upstream + "/"]
    rows, failures, libtests = [], [], []
    tot = dict(files=0, built=0, tests=0, run=0, passed=0, lib=0, lib_passed=0, disabled=0)

    suite_dir = os.path.join(a.work, "suite")
    suite_status = read(os.path.join(suite_dir, "status"), "missing")
    suite_results = (
        binary_results(suite_dir, suite_status) if suite_status in ("ran", "ran_each") else {}
    )
    testing_status = read(os.path.join(a.work, "testing", "status"), "missing")

    for rel in a.files:
        name = rel.replace("/", "_")[:-3]
        d = os.path.join(a.work, "files", name)
        status = read(os.path.join(d, "status"), "missing")
        tests = static_tests(os.path.join(a.upstream, "tests", "cpp", rel), lib_names)
        tot["files"] += 1
        results = {}
        builds = "yes"
        if status == "compile_error":
            builds = "no: " + first_line(os.path.join(d, "compile.log"), r"error", strip)
        elif status == "link_error":
            builds = "no (link): " + first_line(
                os.path.join(d, "link.log"), r"undefined reference|error", strip
            )
        elif status == "linked" and suite_status in ("ran", "ran_each"):
            # Ran inside the suite binary: this file's tests are its TESTs.
            results = suite_results
            if suite_status == "ran_each":
                builds = "yes (the suite binary crashes; tests run one by one)"
        elif status in ("ran", "ran_each"):
            results = binary_results(d, status)
            if status == "ran_each":
                builds = "yes (crashes; tests run one by one)"
        else:
            builds = "no: not attempted"
        if builds.startswith("yes"):
            tot["built"] += 1
            linked = read(os.path.join(d, "linked"))
            if linked and linked != "tvmffi":
                builds += f" (links {linked.replace('+', ' + ')})"

        r = dict(
            file=rel,
            builds=builds,
            tests=0,
            run=0,
            passed=0,
            failed=0,
            lib=0,
            lib_passed=0,
            disabled=0,
        )
        for full, needs_lib, disabled in tests:
            if disabled:
                r["disabled"] += 1
                continue
            got = results.get(full)
            outcomes.append(
                (
                    "passed" if got and got[0] else "failed" if got else "not-built",
                    f"{rel}::{full}",
                    (got[1] if got else builds)[:200].replace("\t", " ").replace("\n", " "),
                )
            )
            if needs_lib:
                r["lib"] += 1
                if got and got[0]:
                    r["lib_passed"] += 1
                libtests.append(
                    (
                        rel,
                        full,
                        "passed"
                        if got and got[0]
                        else ("failed: " + got[1])
                        if got
                        else "not built",
                    )
                )
                continue
            r["tests"] += 1
            if got is None:
                continue
            r["run"] += 1
            if got[0]:
                r["passed"] += 1
            else:
                r["failed"] += 1
                failures.append((rel, full, got[1]))
        for k in ("tests", "run", "passed", "lib", "lib_passed", "disabled"):
            tot[k] += r[k]
        rows.append(r)

    print("| file | compiles | tests | run | passed | failed | testing-lib tests (passed) |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        builds = r["builds"].replace("|", "\\|")
        if len(builds) > 160:
            builds = builds[:157] + "..."
        lib = f"{r['lib']} ({r['lib_passed']})" if r["lib"] else ""
        print(
            f"| {r['file']} | {builds} | {r['tests']} | {r['run']} | {r['passed']} | "
            f"{r['failed']} | {lib} |"
        )
    pct = 100.0 * tot["passed"] / tot["tests"] if tot["tests"] else 0.0
    print()
    print(f"Files compiling and linking: {tot['built']} / {tot['files']}")
    print(
        f"Tests passing: {tot['passed']} / {tot['tests']} ({pct:.1f}%), "
        f"excluding {tot['lib']} that need upstream's testing library "
        f"({tot['lib_passed']} of those pass anyway) and {tot['disabled']} disabled upstream; "
        f"{tot['run']} of the {tot['tests']} were built and run"
    )
    print(
        "Run as: "
        + {
            "ran": "one suite binary of every file that links",
            "ran_each": "one suite binary of every file that links; it crashed, so its tests "
            "ran one by one",
        }.get(suite_status, f"each file's own binary (suite binary: {suite_status})")
    )
    testing_why = {
        "built": "built from upstream's source against our headers",
        "compile_error": "does not compile against our headers: "
        + first_line(os.path.join(a.work, "testing", "compile.log"), r"error", strip),
        "link_error": "does not link: "
        + first_line(
            os.path.join(a.work, "testing", "link.log"), r"undefined reference|error", strip
        ),
    }
    print("Upstream's testing library: " + testing_why.get(testing_status, "not found"))
    print(f"Wall time: {a.seconds} s")
    if failures:
        print()
        print("Failing tests (file, test, first lines of the first failure):")
        for rel, full, msg in failures:
            print(f"- {rel} {full}: {msg[:300]}")
    if libtests:
        print()
        print("Tests that need upstream's testing library (counted apart):")
        for rel, full, what in libtests:
            print(f"- {rel} {full}: {what[:200]}")
    if a.results:
        with open(a.results, "w", encoding="utf-8") as f:
            for o in outcomes:
                f.write("\t".join(o) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The C API reference: every declaration of the C headers with its doc comment.

Reads c_api/include/tvm/ffi/c_api.h and c_api/include/tvm/ffi/extra/*.h and
writes one Markdown (MyST) page. A declaration is a top-level function,
inline function, typedef, struct, enum or macro; its documentation is the
Doxygen-style comment right before it (`/*! \\brief ... */`, with `\\param`,
`\\return`, `\\note`). Enumerators and fields are shown inside their
declaration, with their own comments. The C view of each declaration is shown
(of `#ifdef __cplusplus ... #else ... #endif`, the `#else` part).

A declaration without a doc comment, or with an empty one, is a problem: the
docs build (docs/conf.py) turns each into a warning, and -W into a failure.

Usage: python3 docs/gen_c_api.py [--check | HEADER...]
  (no argument)  print the page for the repository's headers
  --check        print only the problems; exit 1 if there are any
  HEADER...      print the page for these headers (tests)
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INCLUDE = ROOT / "c_api" / "include"


def headers() -> list[Path]:
    """The public C headers, c_api.h first."""
    main = INCLUDE / "tvm" / "ffi" / "c_api.h"
    return [main] + sorted((INCLUDE / "tvm" / "ffi" / "extra").glob("*.h"))


@dataclass
class Decl:
    name: str
    kind: str  # function, inline function, type, macro
    code: str  # the declaration as written (C view)
    doc: str  # the doc comment's text, markers stripped
    line: int  # 1-based line of the declaration in its header
    section: str = ""


@dataclass
class Header:
    path: Path
    intro: str = ""
    decls: list[Decl] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (section, prose comment)
    problems: list[str] = field(default_factory=list)


IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
SECTION = re.compile(r"^/\*\s*Section:\s*(.*?)\s*\*/$")
RULE = re.compile(r"^/\*\s*-+\s*\*/$")


def c_view(lines: list[str]) -> list[tuple[int, str]]:
    """The lines a C compiler sees of `#ifdef __cplusplus` blocks, with line numbers.

    Other conditionals are kept as written (they belong to macro declarations).
    """
    out: list[tuple[int, str]] = []
    stack: list[list] = []  # [is_cplusplus_block, in_else]
    for no, line in enumerate(lines, 1):
        s = line.strip()
        if re.match(r"#\s*if", s):
            cpp = re.match(r"#\s*ifdef\s+__cplusplus\b", s) is not None
            stack.append([cpp, False])
            if cpp:
                continue
        elif re.match(r"#\s*else", s) and stack and stack[-1][0]:
            stack[-1][1] = True
            continue
        elif re.match(r"#\s*endif", s) and stack:
            cpp = stack.pop()[0]
            if cpp:
                continue
        if any(cpp and not in_else for cpp, in_else in stack):
            continue
        out.append((no, line))
    return out


def strip_comment(text: str) -> str:
    """The text of a /*! ... */ or /* ... */ comment, without markers and leading stars."""
    text = re.sub(r"^/\*!?", "", text.strip())
    text = re.sub(r"\*/$", "", text)
    lines = [
        re.sub(r"^\s*\* ?", "", ln) if ln.strip().startswith("*") else ln.strip()
        for ln in text.split("\n")
    ]
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(ln.rstrip() for ln in lines)


def decl_name(code: str) -> tuple[str, str] | None:
    """(name, kind) of a declaration's C text, or None if it declares nothing public."""
    first = code.lstrip().split("\n", 1)[0].strip()
    m = re.match(r"#\s*define\s+(" + IDENT + ")", first)
    if m:
        return m.group(1), "macro"
    m = re.match(r"#\s*ifndef\s+(" + IDENT + ")", first)
    if m:
        return m.group(1), "macro"
    if re.match(r"#\s*include\b", first) or first.startswith('extern "C"'):
        return None
    # Drop comments and bodies, then look at the declarator.
    flat = re.sub(r"/\*.*?\*/", " ", code, flags=re.S)
    flat = re.sub(r"//[^\n]*", " ", flat)
    if flat.lstrip().startswith("typedef"):
        depth, top = 0, []
        for ch in flat:  # the text outside braces: not the fields
            depth += ch == "{"
            if depth == 0:
                top.append(ch)
            depth -= ch == "}"
        outside = "".join(top)
        m = re.search(r"\(\s*\*\s*(" + IDENT + r")\s*\)\s*\(", outside)  # function pointer
        if m:
            return m.group(1), "type"
        names = re.findall(IDENT, outside.rsplit(";", 1)[0])
        return (names[-1], "type") if names else None
    m = re.match(r"\s*(?:typedef\s+)?(struct|enum|union)\s+(" + IDENT + r")\s*[{;]", flat)
    if m:
        return m.group(2), "type"
    head = flat.split("{", 1)[0]
    m = re.search(r"(" + IDENT + r")\s*\(", head)
    if m:
        kind = "inline function" if re.search(r"\binline\b", head) else "function"
        return m.group(1), kind
    return None


def code_only(view: list[tuple[int, str]]) -> list[str]:
    """Each line of the view with its comments blanked (comments may span lines)."""
    out, in_comment = [], False
    for _, line in view:
        res, k = [], 0
        while k < len(line):
            if in_comment:
                e = line.find("*/", k)
                if e < 0:
                    k = len(line)
                else:
                    in_comment, k = False, e + 2
            elif line.startswith("/*", k):
                in_comment, k = True, k + 2
            elif line.startswith("//", k):
                k = len(line)
            else:
                res.append(line[k])
                k += 1
        out.append("".join(res))
    return out


def parse(path: Path) -> Header:
    """The declarations and problems of one header."""
    try:
        display = str(path.relative_to(ROOT))
    except ValueError:
        display = str(path)
    hdr = Header(path)
    view = c_view(path.read_text(encoding="utf-8").split("\n"))
    code = code_only(view)
    pending: tuple[int, str] | None = None  # (line, doc text) of the last doc comment
    section = ""
    guard = None
    i = 0
    while i < len(view):
        no, line = view[i]
        s = line.strip()
        if not s:
            i += 1
            continue
        if s.startswith("/*"):
            j = i
            while "*/" not in view[j][1]:
                j += 1
            text = "\n".join(ln for _, ln in view[i : j + 1])
            i = j + 1
            m = SECTION.match(s)
            if m:
                section, pending = m.group(1), None
            elif RULE.match(s):
                pass
            elif s.startswith("/*!"):
                pending = (no, strip_comment(text))
            elif not hdr.intro and not hdr.decls:
                hdr.intro = strip_comment(text)
            else:
                hdr.notes.append((section, strip_comment(text)))
            continue
        # The include guard and the extern "C" lines declare nothing.
        m = re.match(r"#\s*ifndef\s+(" + IDENT + r")\s*$", s)
        if guard is None and m and m.group(1).endswith("_H_"):
            guard = m.group(1)
            i += 1
            continue
        if (
            (guard and re.match(r"#\s*(define\s+" + guard + r"\b|endif\b)", s))
            or re.match(r"#\s*include\b", s)
            or s.startswith('extern "C"')
            or s.startswith("}")
        ):
            i += 1
            continue
        # A declaration: its lines up to the end of its statement.
        j = i
        if s.startswith("#"):
            if re.match(r"#\s*if", s):  # a conditional definition: up to its #endif
                depth = 0
                while True:
                    t = view[j][1].strip()
                    depth += bool(re.match(r"#\s*if", t))
                    depth -= bool(re.match(r"#\s*endif", t))
                    if depth == 0:
                        break
                    j += 1
            else:
                while view[j][1].rstrip().endswith("\\"):
                    j += 1
        else:
            depth = 0
            while True:
                t = code[j].rstrip()
                depth += t.count("{") - t.count("}")
                so_far = "".join(code[i : j + 1])
                body = (
                    "{" in so_far
                    and ")" in so_far.split("{", 1)[0]
                    and not re.match(r"\s*(typedef|struct|enum|union)\b", so_far)
                )
                if depth == 0 and (t.endswith(";") or (body and t.endswith("}"))):
                    break
                j += 1
        text = "\n".join(ln for _, ln in view[i : j + 1])
        i = j + 1
        named = decl_name(text)
        if named is None:
            hdr.problems.append(f"{display}:{no}: cannot tell what this declares: {s[:60]}")
            pending = None
            continue
        name, kind = named
        doc = pending[1] if pending else ""
        if not pending:
            hdr.problems.append(f"{display}:{no}: {name}: no doc comment (/*! \\brief ... */)")
        elif not re.sub(r"\\brief", "", doc).strip():
            hdr.problems.append(f"{display}:{no}: {name}: empty doc comment")
        hdr.decls.append(Decl(name, kind, text.strip("\n"), doc, no, section))
        pending = None
    return hdr


# ------------------------------------------------------------- Markdown ---
MD_SPECIAL = re.compile(r"([\\*_\[\]<>|#{}$~])")


def md_text(text: str) -> str:
    """Comment prose as Markdown text: code spans kept, other markup escaped."""
    parts = re.split(r"(`[^`\n]*`)", text)
    return "".join(
        p if p.startswith("`") and p.endswith("`") and len(p) > 1 else MD_SPECIAL.sub(r"\\\1", p)
        for p in parts
    )


def doc_markdown(doc: str) -> list[str]:
    """A Doxygen comment as Markdown: the brief and prose, then parameters, return, notes."""
    body: list[str] = []
    params: list[tuple[str, str]] = []
    returns: list[str] = []
    notes: list[str] = []
    current: list[str] | None = body
    doc = re.sub(r"[ \t]*(\\(?:param|returns?|note)\b)", r"\n\1", doc)  # one command a line
    for raw in doc.split("\n"):
        ln = raw.strip()
        m = re.match(r"\\param(?:\[\w+\])?\s+(" + IDENT + r")\s*(.*)", ln)
        if m:
            params.append((m.group(1), m.group(2)))
            current = None
            continue
        m = re.match(r"\\returns?\s*(.*)", ln)
        if m:
            returns.append(m.group(1))
            current = returns
            continue
        m = re.match(r"\\note\s*(.*)", ln)
        if m:
            notes.append(m.group(1))
            current = notes
            continue
        ln = re.sub(r"^\\brief\s*", "", ln)
        if current is None:  # continuation of the last parameter
            if ln:
                params[-1] = (params[-1][0], params[-1][1] + " " + ln)
            else:
                current = body
                body.append("")
            continue
        if current is body:
            body.append(ln)
        elif ln:
            current[-1] += " " + ln
        else:
            current = body
            body.append("")
    out = []
    paragraph: list[str] = []
    for ln in body + [""]:
        if ln:
            paragraph.append(ln)
        elif paragraph:
            out += [md_text(" ".join(paragraph)), ""]
            paragraph = []
    if params:
        out += ["Parameters:", ""]
        out += [f"- `{n}`: {md_text(t)}" for n, t in params]
        out.append("")
    for r in returns:
        out += [f"Returns: {md_text(r)}", ""]
    for n in notes:
        out += [f"Note: {md_text(n)}", ""]
    return out


def literal(text: str, lang: str = "") -> list[str]:
    fence = "```"
    while fence in text:
        fence += "`"
    return [fence + lang] + text.split("\n") + [fence, ""]


def markdown(paths: list[Path] | None = None) -> tuple[str, list[str]]:
    """The reference page and the problems found."""
    paths = paths or headers()
    out = [
        "# C API reference",
        "",
        "Generated from the doc comments of the C headers by `docs/gen_c_api.py`.",
        "Every declaration of `c_api.h` and `extra/*.h` is listed, in header order.",
        "",
    ]
    problems: list[str] = []
    for path in paths:
        hdr = parse(path)
        problems += hdr.problems
        try:
            inc = path.relative_to(INCLUDE)
        except ValueError:
            inc = Path(path.name)
        out += [f"## `<{inc}>`", ""]
        if hdr.intro:
            out += literal(hdr.intro, "text")
        out += ["| Declaration | Kind | Summary |", "|---|---|---|"]
        for d in hdr.decls:
            first = next((ln for ln in doc_markdown(d.doc) if ln), "")
            brief = re.split(r"(?<=\.)\s", first, maxsplit=1)[0]
            out.append(f"| [`{d.name}`](#{d.name.lower()}) | {d.kind} | {brief} |")
        out.append("")
        section = None
        notes = list(hdr.notes)
        for d in hdr.decls:
            if d.section != section:
                section = d.section
                if section:
                    out += [f"### {md_text(section)}", ""]
                for s, note in [n for n in notes if n[0] == section]:
                    out += literal(note, "text")
                notes = [n for n in notes if n[0] != section]
            out += [f"(c-{d.name.lower()})=", f"#### `{d.name}`", ""]
            out += literal(d.code, "c")
            out += doc_markdown(d.doc)
    return "\n".join(out) + "\n", problems


def main(argv: list[str]) -> int:
    if argv == ["--check"]:
        _, problems = markdown()
        for p in problems:
            print(p)
        count = sum(len(parse(p).decls) for p in headers())
        print(f"gen_c_api: {count} declarations, {len(problems)} problem(s)")
        return 1 if problems else 0
    text, problems = markdown([Path(a).resolve() for a in argv] if argv else None)
    sys.stdout.write(text)
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

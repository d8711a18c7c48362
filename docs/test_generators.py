#!/usr/bin/env python3
"""Tests of the reference generators, run by the `docs` target before Sphinx.

  * gen_c_api.py finds every function, inline function, type and macro of the
    real headers (checked against a plain scan for their names) and fails on
    a declaration without a doc comment or with an empty one;
  * gen_python_api.py fails on each kind of undocumented public name (module,
    class, function, constant, a name in __all__ that is not defined) and
    accepts `#:` comments and re-exports.

Usage: python3 docs/test_generators.py   (exit 0 when all pass)
"""

from __future__ import annotations

import re
import sys
import tempfile
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_c_api
import gen_python_api

checks = 0


def expect(cond: bool, what: str) -> None:
    global checks
    checks += 1
    if not cond:
        print(f"test_generators: FAIL: {what}")
        sys.exit(1)


def test_c_real_headers() -> None:
    for path in gen_c_api.headers():
        hdr = gen_c_api.parse(path)
        text = path.read_text(encoding="utf-8")
        parsed = {d.name for d in hdr.decls}
        # Names a plain scan sees: exported and inline functions, typedef'd
        # names, macros (not the include guard).
        scanned = set(re.findall(r"^TVM_FFI_DLL\b[^(]*?\b(\w+)\(", text, re.M))
        scanned |= set(re.findall(r"^static inline\b[^(]*?\b(\w+)\(", text, re.M))
        scanned |= set(re.findall(r"^\}\s*(\w+);", text, re.M))
        scanned |= set(re.findall(r"^typedef\b[^;{]*?(\w+);", text, re.M))
        scanned |= set(re.findall(r"^typedef\b[^;{]*\(\s*\*\s*(\w+)\)", text, re.M))
        scanned |= {m for m in re.findall(r"^#define (\w+)", text, re.M) if not m.endswith("_H_")}
        scanned -= {"TVM_FFI_DLL_EXPORT"}  # defined in TVM_FFI_DLL's block, shown with it
        expect(scanned <= parsed, f"{path.name}: not parsed: {sorted(scanned - parsed)}")
        expect(not hdr.problems, f"{path.name}: {hdr.problems}")


def test_c_problems() -> None:
    header = textwrap.dedent("""\
        /* File comment. */
        #ifndef FAKE_H_
        #define FAKE_H_
        /*! \\brief Documented. \\param x A value. \\return 0. */
        int Documented(int x);
        int Undocumented(int x);
        /*!
         */
        typedef struct {
          int a;
        } EmptyDoc;
        /*! \\brief A macro. */
        #define FAKE_MACRO 1
        #define FAKE_BARE 2
        /*! \\brief Inline. */
        static inline int Inline(void) {
          return 1;
        }
        typedef int (*BareCallback)(void* p);
        #endif  /* FAKE_H_ */
        """)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fake.h"
        path.write_text(header)
        hdr = gen_c_api.parse(path)
        names = [d.name for d in hdr.decls]
        expect(
            names
            == [
                "Documented",
                "Undocumented",
                "EmptyDoc",
                "FAKE_MACRO",
                "FAKE_BARE",
                "Inline",
                "BareCallback",
            ],
            f"declarations: {names}",
        )
        bad = sorted(re.search(r": (\w+): ", p).group(1) for p in hdr.problems)
        expect(
            bad == ["BareCallback", "EmptyDoc", "FAKE_BARE", "Undocumented"],
            f"problems: {hdr.problems}",
        )
        text, problems = gen_c_api.markdown([path])
        expect(len(problems) == 4, "markdown() reports the problems")
        expect("#### `Documented`" in text and "- `x`: A value." in text, "the page")


FAKE = {
    "__init__.py": '''
        """A fake package."""
        from .good import documented, Documented
        __all__ = ["documented", "Documented", "undefined_name"]
        ''',
    "good.py": '''
        """Documented things."""
        #: A documented constant.
        LIMIT = 3
        def documented():
            """A docstring."""
        class Documented:
            """A docstring."""
        ''',
    "bad.py": '''
        """Undocumented things."""
        from .good import LIMIT as ALIAS
        BARE = 4
        def bare():
            pass
        class Bare:
            pass
        ''',
    "nodoc.py": """
        def _private():
            pass
        """,
    "_hidden.py": """
        def not_public():
            pass
        """,
}


def test_python_problems() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pkg = Path(tmp) / "fakepkg_docs"
        pkg.mkdir()
        for name, text in FAKE.items():
            (pkg / name).write_text(textwrap.dedent(text))
        sys.path.insert(0, tmp)
        try:
            modules, entries, problems = gen_python_api.collect("fakepkg_docs")
            text, _ = gen_python_api.markdown("fakepkg_docs")
        finally:
            sys.path.remove(tmp)
    expect(
        modules == ["fakepkg_docs", "fakepkg_docs.bad", "fakepkg_docs.good", "fakepkg_docs.nodoc"],
        f"modules: {modules}",
    )
    bad = sorted(p.split(":")[0] for p in problems)
    expect(
        bad
        == [
            "fakepkg_docs.bad.BARE",
            "fakepkg_docs.bad.Bare",
            "fakepkg_docs.bad.bare",
            "fakepkg_docs.nodoc",
            "fakepkg_docs.undefined_name",
        ],
        f"problems: {problems}",
    )
    # ALIAS is LIMIT re-exported: documented by LIMIT's comment.
    expect(".. autodata:: fakepkg_docs.good.LIMIT" in text, "constants are documented")
    # The package re-exports good.documented: documented once, in good.
    expect(
        text.count(".. autofunction:: fakepkg_docs.good.documented") == 1
        and ".. autofunction:: fakepkg_docs.documented" not in text,
        "one place per object",
    )


def main() -> int:
    test_c_real_headers()
    test_c_problems()
    test_python_problems()
    print(f"test_generators: {checks} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Sphinx configuration of the tvmffi documentation site.

Built by the CMake target `docs` (option TVMFFI_BUILD_DOCS), which runs
    python -m sphinx -W --keep-going -b html -c docs <repository> <out>
The source folder is the repository root, so that README.md, docs/*.md and
the repository's other Markdown pages keep the relative links they have on a
code host; include_patterns names the pages. The Markdown is read by
myst-parser; the Python API page (autodoc) and the C API page are generated
while building (docs/gen_python_api.py, docs/gen_c_api.py) into the stub pages
docs/api/*.md, and nothing generated is written into the repository.

Problems become warnings, and -W makes them fail the build: an undocumented
public Python name or C declaration, a code block that differs from its
example file or is not one (docs/check_examples.py), a broken link.
The tvmffi package must be importable (installed, or a build tree's on
PYTHONPATH).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS))

import check_examples  # noqa: E402
import gen_c_api  # noqa: E402
import gen_python_api  # noqa: E402

_version = dict(
    re.findall(
        r"#define TVM_FFI_VERSION_(MAJOR|MINOR|PATCH) (\d+)",
        (ROOT / "c_api/include/tvm/ffi/c_api.h").read_text(),
    )
)

project = "tvmffi"
author = "the tvmffi authors"
copyright = "the tvmffi authors"
release = version = "{MAJOR}.{MINOR}.{PATCH}".format(**_version)

extensions = ["myst_parser", "sphinx.ext.autodoc"]
root_doc = "docs/index"
source_suffix = {".md": "markdown"}
# The pages of the site; everything else in the repository is not read.
include_patterns = [
    "README.md",
    "ARCHITECTURE.md",
    "docs/*.md",
    "docs/api/*.md",
    "benchmarks/RESULTS.md",
    "tests/RELIABILITY.md",
    "tests/UPSTREAM_SUITE.md",
    "tests/interop/README.md",
    "tests/upstream_python/README.md",
    "tests/upstream_python/RESULTS.md",
]
exclude_patterns = [".git", "build", "build-*", "_build"]

myst_heading_anchors = 6  # GitHub's heading anchors: chapter.md#a-section
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
html_theme = "alabaster"
html_title = f"tvmffi {release}"
html_copy_source = False

logger = logging.getLogger("tvmffi-docs")

# Pages after the chapters of docs/index.md, in this order.
_API_PAGES = ["docs/api/python", "docs/api/c"]
_OTHER_PAGES = [
    "README",
    "ARCHITECTURE",
    "benchmarks/RESULTS",
    "tests/RELIABILITY",
    "tests/UPSTREAM_SUITE",
    "tests/interop/README",
    "tests/upstream_python/README",
    "tests/upstream_python/RESULTS",
]


def _toctree(app) -> str:
    """A hidden toctree for docs/index: its chapters in link order, then the rest."""
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = re.findall(r"\]\(([A-Za-z0-9_-]+)\.md\)", index)
    chapters = list(dict.fromkeys(c for c in linked if (DOCS / f"{c}.md").is_file()))
    chapters += sorted(
        p.stem for p in DOCS.glob("*.md") if p.stem != "index" and p.stem not in chapters
    )
    entries = chapters + [
        f"/{p}" for p in _API_PAGES + _OTHER_PAGES if (ROOT / f"{p}.md").is_file()
    ]
    return "\n\n```{toctree}\n:hidden:\n:maxdepth: 2\n\n" + "\n".join(entries) + "\n```\n"


def _warn_all(problems: list[str], docname: str, what: str) -> None:
    for p in problems:
        logger.warning(f"{what}: {p}", location=docname)


def _source_read(app, docname: str, source: list[str]) -> None:
    if docname == "docs/index":
        source[0] += _toctree(app)
    elif docname == "docs/api/python":
        try:
            text, problems = gen_python_api.markdown()
        except Exception as err:
            logger.warning(f"cannot generate the Python API page: {err!r}", location=docname)
            return
        _warn_all(problems, docname, "undocumented Python name")
        source[0] = text
    elif docname == "docs/api/c":
        text, problems = gen_c_api.markdown()
        _warn_all(problems, docname, "undocumented C declaration")
        source[0] = text


def _check_examples(app) -> None:
    _, problems = check_examples.check()
    _warn_all(problems, root_doc, "docs/check_examples.py")


def _missing_reference(app, env, node, contnode):
    """A link to a repository file or folder that is no page (examples/, a .txt) stays text.

    A target that does not exist is left to the usual warning.
    """
    if node.get("reftype") not in ("myst", "any"):  # myst-parser asks with "any"
        return None
    target = node.get("reftarget", "").split("#", 1)[0]
    if not target or "://" in target:
        return None
    path = (ROOT / env.doc2path(node["refdoc"], base=False)).parent / target
    if path.exists() and not path.suffix == ".md":
        return nodes.literal(target, target) if not contnode.astext() else contnode
    return None


def _redirect(app, exc) -> None:
    """index.html at the site's root, pointing at the guide."""
    if exc is None and app.builder.format == "html":
        (Path(app.outdir) / "index.html").write_text(
            '<!DOCTYPE html><meta charset="utf-8"><title>tvmffi</title>'
            '<meta http-equiv="refresh" content="0; url=docs/index.html">'
            '<a href="docs/index.html">tvmffi documentation</a>\n',
            encoding="utf-8",
        )


def setup(app):
    app.connect("builder-inited", _check_examples)
    app.connect("source-read", _source_read)
    app.connect("missing-reference", _missing_reference)
    app.connect("build-finished", _redirect)
    return {"parallel_read_safe": True}

"""The documentation site: its hook, its figures, its code snippets and its build.

* the Markdown preprocessor that renders numpy-docstring math (``.. math::``,
  ``:math:``) is checked on its own;
* every figure referenced by a page exists, is small, and is produced by
  ``docs/figures/make_figures.py``;
* the Python snippets of the guides run;
* ``mkdocs build --strict`` succeeds **without importing lamcap** (the API pages are
  read statically by griffe), so the site builds with only the ``docs`` extra.

The tests that need mkdocs are skipped when the ``docs`` extra is not installed.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
HOOK = DOCS / "hooks" / "lamcap_docs.py"
FIGURE_SCRIPT = DOCS / "figures" / "make_figures.py"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "derivations" not in p.relative_to(DOCS).parts)
MAX_FIGURE_BYTES = 150_000


def _has(*modules: str) -> bool:
    return all(importlib.util.find_spec(name) is not None for name in modules)


needs_mkdocs = pytest.mark.skipif(
    not _has("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"),
    reason="the docs extra (mkdocs, mkdocs-material, mkdocstrings[python]) is not installed",
)


def _load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lamcap_docs_hook", HOOK)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------ the hook


@needs_mkdocs
def test_math_directive_becomes_a_display_block() -> None:
    hook = _load_hook()
    docstring = textwrap.dedent(
        r"""
        Capacity.

        .. math::

            \alpha_c = \frac12
            + 0

        Text after.
        """
    ).splitlines()
    out = hook.rst_math_to_markdown(docstring)
    start = out.index("$$")
    assert out[start : start + 4] == ["$$", r"\alpha_c = \frac12", "+ 0", "$$"]
    assert "Text after." in out
    assert not any(".. math::" in line for line in out)


@needs_mkdocs
def test_roles_become_inline_math_and_code() -> None:
    hook = _load_hook()
    (line,) = hook.rst_math_to_markdown([r"at :math:`p \to \infty`, see :func:`~lamcap.capacity`"])
    assert line == r"at \(p \to \infty\), see `lamcap.capacity`"
    # a role may wrap onto the next line of a docstring
    assert hook.rst_math_to_markdown(["load :math:`a", "= b` here"]) == [r"load \(a", r"= b\) here"]


@needs_mkdocs
def test_fenced_code_is_left_alone() -> None:
    hook = _load_hook()
    lines = ["```rst", ".. math::", "", "    x", "```"]
    assert hook.rst_math_to_markdown(lines) == lines


@needs_mkdocs
def test_rendered_docstring_math_reaches_arithmatex() -> None:
    import markdown

    hook = _load_hook()
    md = markdown.Markdown(
        extensions=["pymdownx.arithmatex", hook.RstMathExtension()],
        extension_configs={"pymdownx.arithmatex": {"generic": True}},
    )
    html = md.convert("Text :math:`a^2`.\n\n.. math::\n\n    b = c\n")
    assert html.count('class="arithmatex"') == 2
    assert "math::" not in html


@needs_mkdocs
def test_public_api_index_lists_every_export() -> None:
    hook = _load_hook()
    exports = hook.exported_names()
    import lamcap

    assert exports == lamcap._EXPORTS
    assert "lamcap.theory" in hook.public_modules()
    assert not any(".cli" in module or "._" in module for module in hook.public_modules())


@needs_mkdocs
def test_links_to_missing_module_pages_degrade_to_text() -> None:
    hook = _load_hook()
    text = "[`capacity`](../reference/lamcap.theory._capacity.md) and [x](../reference/lamcap.nope.md#a)"
    out = hook.unlink_missing_modules(text, ["lamcap.theory._capacity"])
    assert out == "[`capacity`](../reference/lamcap.theory._capacity.md) and x"


# ------------------------------------------------------------------------- figures


def _figure_names() -> list[str]:
    """Keys of FIGURES in make_figures.py, read without importing it."""
    for node in ast.parse(FIGURE_SCRIPT.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "FIGURES":
            assert isinstance(node.value, ast.Dict)
            return [ast.literal_eval(key) for key in node.value.keys if key is not None]
    pytest.fail("FIGURES not found in make_figures.py")


def test_every_referenced_figure_exists_and_is_small() -> None:
    referenced = {
        match.group(1)
        for page in PAGES
        for match in re.finditer(
            r"\((?:\.\./)*figures/([\w-]+\.png)\)", page.read_text(encoding="utf-8")
        )
    }
    assert referenced
    for name in sorted(referenced):
        path = DOCS / "figures" / name
        assert path.is_file(), f"{name} is referenced but missing: run {FIGURE_SCRIPT.name}"
        assert path.stat().st_size < MAX_FIGURE_BYTES, f"{name} is too large to commit"
    assert referenced == {f"{name}.png" for name in _figure_names()}


@pytest.mark.slow
def test_figure_script_draws_every_figure(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(FIGURE_SCRIPT), "--quick", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    for name in _figure_names():
        assert (tmp_path / f"{name}.png").stat().st_size > 5_000


# ------------------------------------------------------------------------ snippets


def _python_blocks(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", text, flags=re.MULTILINE | re.DOTALL)
    return [textwrap.dedent(body) for _indent, body in blocks]


PAGES_WITH_CODE = [
    pytest.param(page, id=page.relative_to(DOCS).as_posix())
    for page in PAGES
    if _python_blocks(page)
]


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_python_snippets_of_a_page_run_in_order(page: Path) -> None:
    namespace = {"__name__": "__docs__"}
    for block in _python_blocks(page):
        if "tcp://HOST" in block:  # needs a running Dask scheduler
            continue
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102


# --------------------------------------------------------------------------- build

_BLOCK_LAMCAP = """
import sys


class _NoLamcap:
    def find_spec(self, name, path=None, target=None):
        if name == "lamcap" or name.startswith("lamcap."):
            raise ImportError("the docs build must not import lamcap")
        return None


sys.meta_path.insert(0, _NoLamcap())
from mkdocs.__main__ import cli

cli()
"""


@pytest.mark.slow
@needs_mkdocs
def test_site_builds_strictly_without_importing_lamcap(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _BLOCK_LAMCAP, "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-4000:]
    assert (tmp_path / "index.html").is_file()
    assert (tmp_path / "reference" / "lamcap.theory" / "index.html").is_file()
    assert not (tmp_path / "reference" / "lamcap.theory._capacity").exists()  # private
    _assert_served_from_the_site(tmp_path)


_EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|//)", re.IGNORECASE)
_SCRIPT_SOURCE = re.compile(r"<script\b[^>]*?\bsrc\s*=\s*[\"']?([^\"'\s>]+)", re.IGNORECASE)
_STYLESHEET = re.compile(r"<link\b[^>]*?\brel\s*=\s*[\"']?stylesheet[^>]*>", re.IGNORECASE)
_HREF = re.compile(r"\bhref\s*=\s*[\"']?([^\"'\s>]+)", re.IGNORECASE)


def external_resources(html: str) -> list[str]:
    """Scripts and stylesheets of a page that are loaded from another host."""
    sources = _SCRIPT_SOURCE.findall(html)
    sources += [m.group(1) for tag in _STYLESHEET.findall(html) if (m := _HREF.search(tag))]
    return [source for source in sources if _EXTERNAL.match(source)]


def test_external_resources_are_recognised() -> None:
    page = (
        '<script src="../javascripts/mathjax/tex-chtml.js"></script>'
        '<script defer src="https://cdn.example/mathjax.js"></script>'
        "<script src=//cdn.example/x.js></script>"
        '<link rel="stylesheet" href="https://fonts.example/css">'
        '<link rel="canonical" href="https://lamcap.invalid/">'
        '<link rel="stylesheet" href="../assets/main.css">'
    )
    assert external_resources(page) == [
        "https://cdn.example/mathjax.js",
        "//cdn.example/x.js",
        "https://fonts.example/css",
    ]


def _assert_served_from_the_site(site: Path) -> None:
    """Every page loads its scripts and styles from the site; MathJax is there."""
    pages = sorted(site.rglob("*.html"))
    assert pages
    for page in pages:
        found = external_resources(page.read_text(encoding="utf-8"))
        assert not found, f"{page.relative_to(site)} loads {found}"
    mathjax = site / "javascripts" / "mathjax"
    assert (mathjax / "tex-chtml.js").stat().st_size > 500_000
    assert (
        mathjax / "output" / "chtml" / "fonts" / "woff-v2" / "MathJax_Main-Regular.woff"
    ).is_file()
    index = (site / "theory" / "capacity" / "index.html").read_text(encoding="utf-8")
    assert 'src="../../javascripts/mathjax/tex-chtml.js"' in index


@needs_mkdocs
def test_mathjax_files_come_from_the_installed_package() -> None:
    hook = _load_hook()
    files = hook.mathjax_files(hook.mathjax_root())
    assert files["javascripts/mathjax/tex-chtml.js"].is_file()
    assert any(uri.startswith("javascripts/mathjax/input/tex/extensions/") for uri in files)
    assert all(path.is_file() for path in files.values())

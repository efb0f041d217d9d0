"""The documentation site: its hook, its figures, its code snippets and its build.

* the Markdown preprocessor that renders numpy-docstring math (``.. math::``,
  ``:math:``) is checked on its own;
* every figure referenced by a page exists, is small, and is produced by
  ``docs/figures/make_figures.py``;
* the Python snippets of the guides run;
* ``mkdocs build --strict`` succeeds **without importing lamcap** (the API pages are
  read statically by griffe), so the site builds with only the ``docs`` extra;
* the built site, served on 127.0.0.1 and opened as files, is looked at in headless
  Chromium (``docs/check_site.py``): every formula is drawn with a size, no text is
  raw TeX (table of contents included), every image loads. Screenshots of the pages
  are left in ``site/_screenshots/`` (git-ignored) for anyone to look at.

The tests that need mkdocs are skipped when the ``docs`` extra is not installed; the
browser test is skipped only when Debian's ``chromium`` and ``chromium-driver`` are
absent (``.ci/run`` installs them); with the ``CI`` variable set their absence fails it.
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import io
import math
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import mpmath
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
HOOK = DOCS / "hooks" / "lamcap_docs.py"
SITE_CHECK = DOCS / "check_site.py"
SCREENSHOTS = ROOT / "site" / "_screenshots"
FIGURE_SCRIPT = DOCS / "figures" / "make_figures.py"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "derivations" not in p.relative_to(DOCS).parts)
MAX_FIGURE_BYTES = 150_000
#: the brute-force Monte Carlo of E[C_p] (tests/conftest.py): (mean, se) = f(p, samples, seed)
Sampler = Callable[[int, int, int], tuple[float, float]]


def _has(*modules: str) -> bool:
    return all(importlib.util.find_spec(name) is not None for name in modules)


needs_mkdocs = pytest.mark.skipif(
    not _has("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"),
    reason="the docs extra (mkdocs, mkdocs-material, mkdocstrings[python]) is not installed",
)


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _load_hook() -> ModuleType:
    return _load(HOOK, "lamcap_docs_hook")


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


@needs_mkdocs
@pytest.mark.parametrize(
    ("heading", "text"),
    [
        (r"1. The optimum is a sum of \(n\) rank-one terms", "1. The optimum is a sum of n rank-one terms"),
        (r"Load \(\alpha = p \log p / d^2\) and \(\kappa \le 1\)", "Load α = p log p / d² and κ ≤ 1"),
        (r"\(\frac{1}{2}\) and \(\mathbb{E}[C_p]\)", "1/2 and E[Cₚ]"),
        (r"\(\|W\|_F\), \(\sqrt{2\log p}\), \(\left( x \right)\)", "‖W‖_F, √(2log p), ( x )"),
        (r"\[W^\star = \sum_{\mu=1}^{n} c_\mu\]", "W^⋆ = Σ_(μ=1)ⁿ c_μ"),
        ("No formula: a \\ stays", "No formula: a \\ stays"),
    ],
)  # fmt: skip
def test_headings_lose_their_tex(heading: str, text: str) -> None:
    assert _load_hook().tex_to_text(heading) == text


@needs_mkdocs
def test_table_of_contents_titles_become_plain_text() -> None:
    from mkdocs.structure.toc import get_toc

    hook = _load_hook()
    toc = get_toc(
        [
            {
                "level": 2,
                "id": "a",
                "name": r"Sum of \(n\) terms",
                "children": [{"level": 3, "id": "b", "name": r"At \(\kappa\)", "children": []}],
            }
        ]
    )
    hook.plain_toc(toc)
    (item,) = toc
    assert item.title == "Sum of n terms"
    assert item.children[0].title == "At κ"


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


def _raw_margins(instance: Any, weights: Any) -> np.ndarray:
    """Every raw margin (u_t - u_rho)^T W e_mu by a plain loop (no lamcap check), n x (p - 1)."""
    rows = []
    for mu in range(instance.n):
        outputs = instance.outputs(mu)
        target = int(instance.targets[mu])
        scores = outputs @ (np.asarray(weights) @ instance.inputs[mu])
        rows.append(scores[target] - np.delete(scores, target))
    return np.array(rows)


def _normalised_min_margin(instance: Any, weights: Any) -> float:
    """min (u_t - u_rho)^T W e_mu / (|W|_F |e_mu| sqrt(|u_t|^2 + |u_rho|^2)), by a loop."""
    low = math.inf
    for mu in range(instance.n):
        outputs = instance.outputs(mu)
        target = int(instance.targets[mu])
        for rho in range(instance.p):
            if rho != target:
                scale = (
                    np.linalg.norm(weights)
                    * np.linalg.norm(instance.inputs[mu])
                    * math.hypot(np.linalg.norm(outputs[target]), np.linalg.norm(outputs[rho]))
                )
                gap = (outputs[target] - outputs[rho]) @ weights @ instance.inputs[mu]
                low = min(low, float(gap / scale))
    return low


def _rank_capacity(kappa: float, digits: int = 40) -> mpmath.mpf:
    """alpha_c(kappa) = 1/2 - theta/pi + sin(4 theta)/(4 pi), kappa = 1 - (2 theta + sin 2 theta)/pi.

    The quarter-circle closed form of docs/theory/rank.md, solved here with mpmath.
    """
    with mpmath.workdps(digits):
        theta = mpmath.findroot(
            lambda t: 1 - (2 * t + mpmath.sin(2 * t)) / mpmath.pi - mpmath.mpf(kappa), 0.5
        )
        return mpmath.mpf(1) / 2 - theta / mpmath.pi + mpmath.sin(4 * theta) / (4 * mpmath.pi)


def _check_getting_started(space: dict[str, Any], printed: list[str], sample: Sampler) -> None:
    assert float(printed[0]) == pytest.approx(float(_rank_capacity(0.5)), rel=1e-13)
    assert printed[0].startswith("0.446865")
    mean, error = sample(1000, 4000, 1)
    assert abs(math.log(1000) / float(printed[1]) - mean) < 5 * error
    assert float(printed[1]) == pytest.approx(0.85, abs=0.01)
    # p E[C_p] = d^2 = 144 between 39 and 41 (about 40), E[C_p] sampled
    low, low_error = sample(39, 20_000, 2)
    high, high_error = sample(41, 20_000, 3)
    assert 39 * (low + 5 * low_error) < 144 < 41 * (high - 5 * high_error)
    assert 39 < float(printed[2]) < 41
    instance = space["instance"]
    assert printed[3] == "feasible True"
    assert _raw_margins(instance, space["result"].weights).min() > 0
    best = space["best"]
    assert best.details["relative_gap"] <= 1e-4
    # the max-margin W is at least as good as the first feasible one
    first = _normalised_min_margin(instance, space["result"].weights)
    assert _normalised_min_margin(instance, best.weights) >= first
    trained = space["trained"]
    assert printed[4] == f"feasible {trained.iterations}"
    assert _raw_margins(instance, trained.weights).min() > 0


def _check_job_arrays(space: dict[str, Any], printed: list[str], _sample: Sampler) -> None:
    sweep = space["sweep"]
    assert printed == [f"{len(sweep.p_grid) * sweep.seeds_per_point} {{}}"] == ["12 {}"]


def _check_own_embeddings(space: dict[str, Any], printed: list[str], _sample: Sampler) -> None:
    instance, small = space["instance"], space["small"]
    assert printed[0] == "16 24 24"
    assert printed[1] == "feasible True"
    assert _raw_margins(instance, space["result"].weights).min() > 0
    assert printed[3].startswith("infeasible")
    # the Hebbian rule W = sum_mu u_t(mu) e_mu^T and its failures counted by a loop
    hebbian = sum(
        np.outer(instance.outputs(mu)[instance.targets[mu]], instance.inputs[mu])
        for mu in range(instance.n)
    )
    failing = int(np.sum(_raw_margins(instance, hebbian).min(axis=1) <= 0))
    assert printed[4] == f"{failing == 0} {failing} of 24"
    assert small.n == 40


def _check_own_weights(space: dict[str, Any], printed: list[str], _sample: Sampler) -> None:
    # the first snippet's W (a later snippet reuses the name for a 256 x 256 matrix)
    instance = space["instance"]
    weights = space["outputs"][space["targets"]].T @ space["inputs"]
    verdict, failing, margin = printed[0].split()
    failing_by_loop = int(np.sum(_raw_margins(instance, weights).min(axis=1) <= 0))
    assert (verdict, int(failing)) == (str(failing_by_loop == 0), failing_by_loop)
    assert float(margin) == pytest.approx(_normalised_min_margin(instance, weights), rel=1e-9)
    kappa, ratio, _ = (float(word) for word in printed[-2].split())
    values = np.linalg.svd(space["W"], compute_uv=False)
    assert kappa == 1.0
    assert ratio == pytest.approx(np.mean(values**4) / np.mean(values**2) ** 2, rel=1e-10)


def _check_precision(space: dict[str, Any], printed: list[str], _sample: Sampler) -> None:
    alpha, kappa = space["alpha"], space["kappa"]
    assert alpha[-1] == 0.5  # kappa = 1: alpha_c = 1/2
    middle = len(kappa) // 2
    assert alpha[middle] == pytest.approx(float(_rank_capacity(float(kappa[middle]))), rel=1e-14)
    exact = mpmath.nstr(_rank_capacity(0.5, digits=45), 30)
    assert printed == [exact] == ["0.44686539693902700905674486222"]


def _check_nichani_protocol(space: dict[str, Any], printed: list[str], _sample: Sampler) -> None:
    import lamcap

    found, critical = printed[0].split()
    d, n = 8, int(found)
    assert n == space["found"]
    assert d <= n <= d * d // 2
    assert critical == f"{float(lamcap.critical_p(8, embeddings='sphere')):.1f}"
    # the success at the answer, recounted by a loop over the associations
    instance = lamcap.make_instance(d, n, model="original", embeddings="sphere", seed=n)
    options = {"learning_rate": 1000.0, "steps": 4096, "stop_accuracy": 0.99}
    result = lamcap.solve(instance, method="adam_ce", seed=0, options=options)
    recalled = int(np.sum(_raw_margins(instance, result.weights).min(axis=1) > 0))
    assert recalled >= 0.99 * n


def _check_architecture(space: dict[str, Any], _printed: list[str], _sample: Sampler) -> None:
    """The sketch of a new kind of embeddings works as the page says, with no other edit."""
    import lamcap
    from lamcap.theory import _cost_models

    _cost_models.COST_MODELS["quarter"] = space["QuarterCosts"]()
    try:
        assert lamcap.critical_p(8, embeddings="quarter") == lamcap.critical_p(16)
    finally:
        del _cost_models.COST_MODELS["quarter"]


#: What each page's snippets print, checked against an independent computation.
SNIPPET_CHECKS: dict[str, Callable[[dict[str, Any], list[str], Sampler], None]] = {
    "architecture.md": _check_architecture,
    "getting-started.md": _check_getting_started,
    "howto/job-arrays.md": _check_job_arrays,
    "howto/nichani-protocol.md": _check_nichani_protocol,
    "howto/own-embeddings.md": _check_own_embeddings,
    "howto/own-weights.md": _check_own_weights,
    "howto/precision.md": _check_precision,
}


def test_every_page_with_snippets_has_its_check() -> None:
    unchecked = {"howto/dask-sweep.md"}  # needs a running Dask scheduler
    pages = {page.values[0].relative_to(DOCS).as_posix() for page in PAGES_WITH_CODE}
    assert pages - unchecked == set(SNIPPET_CHECKS)


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES_WITH_CODE)
def test_python_snippets_of_a_page_run_in_order(page: Path, sampled_active_set: Sampler) -> None:
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        for block in _python_blocks(page):
            if "tcp://HOST" in block:  # needs a running Dask scheduler
                continue
            exec(compile(block, str(page), "exec"), namespace)  # noqa: S102
    check = SNIPPET_CHECKS.get(page.relative_to(DOCS).as_posix())
    if check is not None:
        check(namespace, output.getvalue().splitlines(), sampled_active_set)


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


def _mkdocs(*arguments: str, prelude: str = "") -> subprocess.CompletedProcess[str]:
    """``mkdocs`` in a fresh interpreter that refuses to import lamcap."""
    return subprocess.run(
        [sys.executable, "-c", prelude + _BLOCK_LAMCAP, *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )


@pytest.fixture(scope="module")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built once per module with ``mkdocs build --strict``."""
    site = tmp_path_factory.mktemp("site")
    result = _mkdocs("build", "--strict", "--site-dir", str(site))
    assert result.returncode == 0, result.stderr[-4000:]
    return site


@pytest.mark.slow
@needs_mkdocs
def test_site_builds_strictly_without_importing_lamcap(built_site: Path) -> None:
    assert (built_site / "index.html").is_file()
    assert (built_site / "reference" / "lamcap.theory" / "index.html").is_file()
    assert not (built_site / "reference" / "lamcap.theory._capacity").exists()  # private
    _assert_served_from_the_site(built_site)


@pytest.mark.slow
@needs_mkdocs
def test_search_results_show_no_raw_tex(built_site: Path) -> None:
    import json

    docs = json.loads((built_site / "search" / "search_index.json").read_text("utf-8"))["docs"]
    titles = " ".join(doc["title"] for doc in docs)
    assert "optimum is a sum of n rank-one terms" in titles
    for doc in docs:
        assert "\\(" not in doc["title"] + doc["text"], (doc["location"], doc["title"])
        assert "\\[" not in doc["title"], (doc["location"], doc["title"])


_HIDE_MATHJAX = """
import importlib.metadata

_distribution = importlib.metadata.distribution


def _without_mathjax(name):
    if name == "django-static-mathjax":
        raise importlib.metadata.PackageNotFoundError(name)
    return _distribution(name)


importlib.metadata.distribution = _without_mathjax
"""


@pytest.mark.slow
@needs_mkdocs
def test_build_without_the_mathjax_package_stops_with_one_line(tmp_path: Path) -> None:
    result = _mkdocs("build", "--strict", "--site-dir", str(tmp_path), prelude=_HIDE_MATHJAX)
    assert result.returncode != 0
    (line,) = [line for line in result.stderr.splitlines() if "django-static-mathjax" in line]
    assert "not installed" in line
    assert 'pip install ".[docs]"' in line
    assert not (tmp_path / "javascripts" / "mathjax").exists()


@needs_mkdocs
def test_missing_mathjax_package_is_a_plugin_error_naming_it() -> None:
    from mkdocs.exceptions import PluginError

    hook = _load_hook()
    with pytest.raises(PluginError, match="package lamcap-no-such-mathjax, which is not") as info:
        hook.mathjax_root("lamcap-no-such-mathjax")
    assert "\n" not in str(info.value)


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
        '<script src="../javascripts/mathjax/tex-svg.js"></script>'
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
    assert (mathjax / "tex-svg.js").stat().st_size > 500_000
    assert not list(mathjax.rglob("*.woff*")), "SVG output: no web font is needed"
    index = (site / "theory" / "capacity" / "index.html").read_text(encoding="utf-8")
    assert 'src="../../javascripts/mathjax/tex-svg.js"' in index


@needs_mkdocs
def test_mathjax_files_come_from_the_installed_package() -> None:
    hook = _load_hook()
    files = hook.mathjax_files(hook.mathjax_root())
    assert files["javascripts/mathjax/tex-svg.js"].is_file()
    assert any(uri.startswith("javascripts/mathjax/input/tex/extensions/") for uri in files)
    assert all(path.is_file() for path in files.values())


# ------------------------------------------------------------------- in a browser


def _site_check() -> ModuleType:
    return _load(SITE_CHECK, "lamcap_docs_site_check")


def _ci() -> bool:
    """Whether this is a CI run (the ``CI`` variable; same rule as tests/conftest.py)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _browser_or_skip(name: str) -> None:
    """Skip without the browser ``name``; in a CI run a missing Chromium fails instead."""
    check = _site_check()
    if name == "chromium" and not check.chromium_available():
        missing = ", ".join(path for path in check.CHROMIUM if not Path(path).is_file())
        reason = (
            f"Debian's chromium and chromium-driver are not installed ({missing} missing; "
            ".ci/run installs them)"
        )
        if _ci():
            pytest.fail(f"CI is set: the browser check cannot be skipped: {reason}", pytrace=False)
        pytest.skip(reason)
    if name == "firefox" and not check.firefox_available():
        pytest.skip("Firefox (firefox-esr) and a geckodriver on the PATH are not installed")


def test_browser_checks_cover_the_four_kinds_of_page() -> None:
    pages = _site_check().PAGES
    assert "index.html" in pages
    assert "vocabulary/index.html" in pages
    assert any(page.startswith("theory/") for page in pages)
    assert any(page.startswith("measurements/") for page in pages)


@pytest.mark.slow
@needs_mkdocs
@pytest.mark.parametrize("over_http", [True, False], ids=["http", "file"])
@pytest.mark.parametrize("browser_name", ["chromium", "firefox"])
def test_pages_render_their_formulas_and_figures_in_a_browser(
    built_site: Path, browser_name: str, over_http: bool
) -> None:
    """Landing, theory, measurement and vocabulary pages as a reader sees them.

    Fails when a formula (or one of its glyphs) is drawn without size, when any text
    outside code, table of contents included, is still raw TeX, or when an image did
    not load. Screenshots go to ``site/_screenshots/``.
    """
    _browser_or_skip(browser_name)
    check = _site_check()
    reports = check.check_site(
        built_site, browser_name=browser_name, over_http=over_http, screenshots=SCREENSHOTS
    )
    assert len(reports) == len(check.PAGES)
    for report in reports:
        assert report.formulas > 0, f"{report.url} shows no formula"
    problems = [f"{r.url}: {problem}" for r in reports for problem in r.problems]
    assert not problems, "\n".join(problems[:40])


@pytest.mark.slow
@needs_mkdocs
def test_every_page_typesets_its_formulas_without_error(built_site: Path) -> None:
    """All pages (API reference included) over HTTP in Chromium: no formula is a TeX
    error (say, a docstring whose ``\\v`` of ``\\varepsilon`` Python read as a
    control character), none is drawn without size, no raw TeX, no missing image."""
    _browser_or_skip("chromium")
    check = _site_check()
    pages = check.site_pages(built_site)
    assert len(pages) > 20
    assert "reference/lamcap.solvers/index.html" in pages
    reports = check.check_site(built_site, screenshots=SCREENSHOTS, pages=pages)
    problems = [f"{r.url}: {problem}" for r in reports for problem in r.problems]
    assert not problems, "\n".join(problems[:40])


@pytest.mark.parametrize("ci", ["1", "true", ""])
def test_a_missing_chromium_fails_a_ci_run_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    absent = ("/nonexistent/chromium", "/nonexistent/chromedriver")
    stub = type("Check", (), {"CHROMIUM": absent, "chromium_available": staticmethod(bool)})
    monkeypatch.setattr(sys.modules[__name__], "_site_check", lambda: stub)
    monkeypatch.setenv("CI", ci)
    expected = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(expected, match="/nonexistent/chromium, /nonexistent/chromedriver missing"):
        _browser_or_skip("chromium")

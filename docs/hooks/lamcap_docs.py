"""MkDocs hook for the lamcap site (registered under ``hooks:`` in mkdocs.yml).

It does five things, all without importing lamcap (the build stays static):

1. Renders the reStructuredText math used in numpy docstrings. Docstrings follow the
   numpy convention (``.. math::`` blocks and ``:math:`` roles) so that they read
   well in a terminal and in Sphinx; mkdocstrings renders docstrings as Markdown, so
   a small Markdown preprocessor rewrites them into arithmatex delimiters
   (``$$ ... $$`` and ``\\( ... \\)``). Cross-reference roles (``:func:``, ``:mod:``,
   ``:class:``, ...) become inline code.
2. Generates one API reference page per public module found under ``src/lamcap``
   (``::: lamcap.theory._capacity`` ...), plus an index of the names in
   ``lamcap._EXPORTS`` read from ``src/lamcap/__init__.py`` with :mod:`ast`.
3. Fills the "Derivations" section of the navigation with the pages that the symbolic
   layer writes to ``docs/derivations/`` (whatever exists at build time).
4. Serves MathJax from the site itself, so that formulas render without network
   access: the MathJax 3 files shipped by the PyPI package ``django-static-mathjax``
   (a dependency of the ``docs`` extra; it needs no Django to be read) are added to
   the site under ``javascripts/mathjax/`` (:func:`mathjax_files`). The site uses
   MathJax's SVG output (``tex-svg.js``): glyphs are paths inside each formula, so
   reading a page needs no web font (``docs/javascripts/mathjax-config.js``).
5. Writes formulas as plain text where MathJax does not typeset them: in the table
   of contents, in page titles and in the search index (:func:`tex_to_text`), so that
   the navigation and the search results never show raw TeX such as ``\\(n\\)``.
"""

from __future__ import annotations

import ast
import importlib.metadata
import json
import re
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[2]
PACKAGE_DIR = ROOT / "src" / "lamcap"
REFERENCE_DIR = "reference"
DERIVATIONS_DIR = "derivations"

# Layers of the API reference, in reading order: (section title, module prefix).
LAYERS: list[tuple[str, str]] = [
    ("Theory", "lamcap.theory"),
    ("Symbolic", "lamcap.symbolic"),
    ("Geometry", "lamcap.geometry"),
    ("Problems", "lamcap.problems"),
    ("Solvers", "lamcap.solvers"),
    ("Experiments", "lamcap.experiments"),
    ("Comparison with your data", "lamcap.empirical"),
]

# --------------------------------------------------------------------------- math

_ROLE = re.compile(r":(?:math|func|mod|class|meth|data|attr|obj|exc|const):`~?([^`]+)`")
_MATH_DIRECTIVE = re.compile(r"^(?P<indent>\s*)\.\. math::\s*(?P<inline>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def _replace_role(match: re.Match[str]) -> str:
    text = match.group(1)
    if match.group(0).startswith(":math:"):
        return rf"\({text}\)"
    return f"`{text}`"


def _indent_of(line: str) -> int:
    return len(line) - len(line.lstrip())


def _substitute_roles(lines: list[str]) -> list[str]:
    """Apply the role rewrite to a run of prose lines (a role may span a line break)."""
    return _ROLE.sub(_replace_role, "\n".join(lines)).split("\n") if lines else []


def rst_math_to_markdown(lines: list[str]) -> list[str]:
    """Rewrite ``.. math::`` blocks and inline roles into arithmatex syntax."""
    out: list[str] = []
    prose: list[str] = []  # pending lines outside fences, for the role rewrite
    in_fence = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _MATH_DIRECTIVE.match(line)
        if match is None:
            if in_fence or _FENCE.match(line):
                out.extend([*_substitute_roles(prose), line])
                prose = []
            else:
                prose.append(line)
            i += 1
            continue
        out.extend(_substitute_roles(prose))
        prose = []
        indent = len(match.group("indent"))
        body = [match.group("inline")] if match.group("inline") else []
        i += 1
        while i < len(lines) and (not lines[i].strip() or _indent_of(lines[i]) > indent):
            body.append(lines[i].strip())
            i += 1
        while body and not body[-1]:
            body.pop()
        equations = "\n".join(body).strip()
        pad = " " * indent
        out.extend(
            ["", f"{pad}$$", *(f"{pad}{eq}" for eq in equations.splitlines()), f"{pad}$$", ""]
        )
    return [*out, *_substitute_roles(prose)]


class _RstMathPreprocessor(Preprocessor):
    def run(self, lines: list[str]) -> list[str]:
        return rst_math_to_markdown(lines)


class RstMathExtension(Extension):
    """Markdown extension wrapping :class:`_RstMathPreprocessor`."""

    def extendMarkdown(self, md: Markdown) -> None:
        # Before fenced blocks (25) and arithmatex's block detection.
        md.preprocessors.register(_RstMathPreprocessor(md), "lamcap_rst_math", 40)


# ------------------------------------------------------------------ API reference


def public_modules() -> list[str]:
    """Dotted names of the public modules and packages of lamcap, sorted."""
    names: list[str] = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        parts = path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts) or "cli" in parts:
            continue
        packages = [path.parents[i] for i in range(len(path.relative_to(PACKAGE_DIR).parts))]
        if not all((folder / "__init__.py").is_file() for folder in packages):
            continue  # not importable (yet): a folder without __init__.py
        names.append(".".join(parts))
    return names


def exported_names() -> dict[str, str]:
    """``_EXPORTS`` of ``lamcap/__init__.py`` (public name -> module), read statically."""
    tree = ast.parse((PACKAGE_DIR / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "_EXPORTS" and node.value is not None:
            value = ast.literal_eval(node.value)
            return {str(k): str(v) for k, v in value.items()}
    return {}


def _binding_kind(module: str, name: str) -> str | None:
    """How the module's source binds ``name`` at top level: "object" (def or class),
    "value" (assignment or import), or None when it does not (yet) define it."""
    path = _module_path(module)
    if path is None:
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                return "object"
            continue
        if isinstance(node, ast.Assign):
            bound = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            bound = [node.target.id]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if any((a.asname or a.name) == name for a in node.names):
                # a public module re-exporting from a private one: the object is documented
                # on the public page when the private module defines it
                return (
                    _binding_kind(node.module, name)
                    if node.module.startswith("lamcap")
                    else "value"
                )
            continue
        elif isinstance(node, ast.Import):
            bound = [(a.asname or a.name).split(".")[0] for a in node.names]
        else:
            continue
        if name in bound:
            return "value"
    return None


def _module_path(module: str) -> Path | None:
    relative = Path(*module.split("."))
    for candidate in (
        PACKAGE_DIR.parent / relative.with_suffix(".py"),
        PACKAGE_DIR.parent / relative / "__init__.py",
    ):
        if candidate.is_file():
            return candidate
    return None


def module_page(module: str) -> str:
    return f"{REFERENCE_DIR}/{module}.md"


def _module_markdown(module: str) -> str:
    return f"# `{module}`\n\n::: {module}\n"


def _index_markdown(modules: list[str]) -> str:
    rows = ["| name | module | status |", "| --- | --- | --- |"]
    for name, module in sorted(exported_names().items(), key=lambda item: item[0].lower()):
        kind = _binding_kind(module, name) if module in modules else None
        if kind is not None:
            anchor = f"#{module}.{name}" if kind == "object" else ""
            link = f"[`{name}`]({module}.md{anchor})"
            rows.append(f"| {link} | [`{module}`]({module}.md) | available |")
        else:
            rows.append(f"| `{name}` | `{module}` | not yet implemented |")
    intro = (
        "# Public API\n\n"
        "Every name below is importable from the top-level package (`lamcap.<name>`);\n"
        "it is loaded lazily from the module shown. The pages of this section are\n"
        "generated from the numpy-style docstrings by mkdocstrings, without importing\n"
        "lamcap. Formulas in docstrings are the same as on the theory pages.\n\n"
    )
    return intro + "\n".join(rows) + "\n"


def _reference_nav(modules: list[str]) -> list[Any]:
    nav: list[Any] = [{"Public API": f"{REFERENCE_DIR}/index.md"}, module_page("lamcap")]
    placed = {"lamcap"}
    for title, prefix in LAYERS:
        members = [m for m in modules if m == prefix or m.startswith(prefix + ".")]
        placed.update(members)
        if members:
            nav.append({title: [module_page(m) for m in members]})
    others = [module_page(m) for m in modules if m not in placed]
    if others:
        nav.append({"Other modules": others})
    return nav


# ------------------------------------------------------------------- derivations


def derivation_pages(docs_dir: Path) -> list[str]:
    folder = docs_dir / DERIVATIONS_DIR
    if not folder.is_dir():
        return []
    pages = sorted(p.relative_to(docs_dir).as_posix() for p in folder.rglob("*.md"))
    index = f"{DERIVATIONS_DIR}/index.md"
    return ([index] if index in pages else []) + [p for p in pages if p != index]


# ------------------------------------------------------------------------ MathJax

MATHJAX_DISTRIBUTION = "django-static-mathjax"
MATHJAX_SITE_DIR = "javascripts/mathjax"
MATHJAX_COMPONENT = "tex-svg.js"
# What the tex-svg component needs: the bundle (its SVG glyph paths included, so no
# web font), the TeX extensions it autoloads, and the menu's accessibility parts
# (loaded only when a reader asks).
MATHJAX_PARTS = (
    MATHJAX_COMPONENT,
    "input/tex/extensions",
    "ui",
    "a11y",
    "sre",
)


def mathjax_root(distribution_name: str = MATHJAX_DISTRIBUTION) -> Path:
    """The ``es5`` folder of the installed MathJax 3 distribution.

    Parameters
    ----------
    distribution_name
        The Python distribution that ships MathJax (``django-static-mathjax``).

    Returns
    -------
    Path
        The folder holding :data:`MATHJAX_COMPONENT` and the parts of :data:`MATHJAX_PARTS`.

    Raises
    ------
    PluginError
        With a one-line message naming the missing package or file, when the package
        is not installed or lacks :data:`MATHJAX_COMPONENT`: the build stops instead of
        writing a site whose formulas stay raw TeX.
    """
    try:
        distribution = importlib.metadata.distribution(distribution_name)
    except importlib.metadata.PackageNotFoundError:
        msg = (
            f"MathJax is served from the site and comes from the package {distribution_name}, "
            'which is not installed: python -m pip install ".[docs]"'
        )
        raise PluginError(msg) from None
    root = Path(str(distribution.locate_file("mathjax/static/mathjax/es5")))
    if not (root / MATHJAX_COMPONENT).is_file():
        msg = f"{distribution_name} has no mathjax/static/mathjax/es5/{MATHJAX_COMPONENT}"
        raise PluginError(msg)
    return root


def mathjax_files(root: Path) -> dict[str, Path]:
    """Site path (under ``javascripts/mathjax/``) -> source file, for :data:`MATHJAX_PARTS`."""
    found: dict[str, Path] = {}
    for part in MATHJAX_PARTS:
        source = root / part
        paths = (
            [source] if source.is_file() else sorted(p for p in source.rglob("*") if p.is_file())
        )
        for path in paths:
            found[f"{MATHJAX_SITE_DIR}/{path.relative_to(root).as_posix()}"] = path
    return found


# ---------------------------------------------------------------------- headings

# Inline and display math as arithmatex leaves it in the text of a heading.
_TEX_SPAN = re.compile(r"\\\((?P<inline>.+?)\\\)|\\\[(?P<display>.+?)\\\]", re.DOTALL)
# TeX command names and the characters they stand for, in pairs.
_SYMBOL_TABLE = """
    alpha α beta β gamma γ delta δ epsilon ε varepsilon ε zeta ζ eta η theta θ
    vartheta ϑ iota ι kappa κ lambda λ mu μ nu ν xi ξ pi π rho ρ sigma σ tau τ
    upsilon υ phi φ varphi φ chi χ psi ψ omega ω Gamma Γ Delta Δ Theta Θ Lambda Λ
    Xi Ξ Pi Π Sigma Σ Phi Φ Psi Ψ Omega Ω le ≤ leq ≤ ge ≥ geq ≥ ne ≠ neq ≠ approx ≈
    sim ∼ simeq ≃ to → rightarrow → infty ∞ times × cdot · pm ± in ∈ sum Σ prod Π
    int ∫ partial ∂ nabla ∇ top ⊤ star ⋆ ell ℓ lvert | rvert | lVert ‖ rVert ‖
    langle ⟨ rangle ⟩ ldots … dots … cdots ⋯ { { } } % % _ _ | ‖
"""
_SYMBOL_PAIRS = _SYMBOL_TABLE.split()
_TEX_SYMBOLS = dict(zip(_SYMBOL_PAIRS[::2], _SYMBOL_PAIRS[1::2], strict=True))
_TEX_SPACES = {",": " ", ";": " ", ":": " ", "!": "", "quad": " ", "qquad": " "}
_SUPERSCRIPTS = dict(zip("0123456789+-=()nik", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵏ", strict=True))
_SUBSCRIPTS = dict(zip("0123456789+-=()aeijkmnoprstx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₘₙₒₚᵣₛₜₓ", strict=True))


def _group(name: str) -> str:
    """Regex of a brace group without nested braces, captured as ``name``."""
    return rf"\{{(?P<{name}>[^{{}}]*)\}}"


_TEX_FRACTION = re.compile(r"\\[dt]?frac\s*" + _group("a") + r"\s*" + _group("b"))
_TEX_SQRT = re.compile(r"\\sqrt\s*" + _group("a"))
_TEX_FONT = re.compile(
    r"\\(?:mathbb|mathbf|mathrm|mathcal|mathit|mathsf|boldsymbol|bm|text|textrm|textit|"
    r"operatorname|mbox)\s*" + _group("a")
)
_TEX_SCRIPT = re.compile(r"(?P<kind>[\^_])\s*(?:\{(?P<group>[^{}]*)\}|(?P<single>\\?[\w.]))")
_TEX_COMMAND = re.compile(r"\\(?P<name>[A-Za-z]+|.)")
_TEX_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)[lr]?(?![A-Za-z])")


def _script(kind: str, text: str) -> str:
    table = _SUPERSCRIPTS if kind == "^" else _SUBSCRIPTS
    if text and all(char in table for char in text):
        return "".join(table[char] for char in text)
    return f"{kind}{text}" if len(text) == 1 else f"{kind}({text})"


def _command_text(match: re.Match[str]) -> str:
    """A symbol's character, a space command's space, or a named operator and a space."""
    name = match.group("name")
    if name in _TEX_SYMBOLS:
        return _TEX_SYMBOLS[name]
    if name in _TEX_SPACES:
        return _TEX_SPACES[name]
    return f"{name} " if name.isalpha() else name  # \log p -> "log p"


def _formula_to_text(tex: str) -> str:
    text = _TEX_SIZING.sub("", tex)
    previous = None
    while previous != text:  # innermost groups first, until nothing changes
        previous = text
        text = _TEX_FONT.sub(lambda m: m.group("a"), text)
        text = _TEX_FRACTION.sub(lambda m: f"{_wrap(m.group('a'))}/{_wrap(m.group('b'))}", text)
        text = _TEX_SQRT.sub(lambda m: f"√{_wrap(m.group('a'))}", text)
    text = _TEX_COMMAND.sub(_command_text, text)
    text = _TEX_SCRIPT.sub(
        lambda m: _script(m.group("kind"), (m.group("group") or m.group("single")).strip()), text
    )
    text = text.replace("{", "").replace("}", "").replace("\\", "")
    return re.sub(r"\s+", " ", text).strip()


def _wrap(text: str) -> str:
    text = text.strip()
    return text if re.fullmatch(r"[\w\\.]+", text) else f"({text})"


def tex_to_text(text: str) -> str:
    r"""The text of a heading with each formula written as plain Unicode text.

    Formulas are the arithmatex delimiters ``\(...\)`` and ``\[...\]``. Greek letters
    and common symbols become their characters (``\kappa`` -> κ, ``\le`` -> ≤), simple
    super- and subscripts become Unicode ones where they exist (``d^2`` -> d²),
    ``\frac{a}{b}`` becomes ``a/b``, font commands keep their argument, and any other
    command keeps its name without the backslash: the result never contains TeX
    delimiters or backslashes.

    Parameters
    ----------
    text
        A heading or table-of-contents title, possibly with formulas.

    Returns
    -------
    str
        ``text`` with its formulas replaced by plain text; unchanged without formulas.

    Examples
    --------
    >>> tex_to_text(r"1. The optimum is a sum of \(n\) rank-one terms")
    '1. The optimum is a sum of n rank-one terms'
    >>> tex_to_text(r"Load \(\alpha = p \log p / d^2\) and \(\kappa \le 1\)")
    'Load α = p log p / d² and κ ≤ 1'
    """

    def replace(match: re.Match[str]) -> str:
        return _formula_to_text(match.group("inline") or match.group("display") or "")

    return _TEX_SPAN.sub(replace, text)


def plain_toc(items: Any) -> None:
    """Rewrite, in place, the titles of a table of contents with :func:`tex_to_text`."""
    for item in items:
        item.title = tex_to_text(item.title)
        plain_toc(item.children)


# ----------------------------------------------------------------------- events


def _fill_section(nav: list[Any], title: str, content: list[Any]) -> None:
    for item in nav:
        if isinstance(item, dict) and title in item:
            existing = item[title] if isinstance(item[title], list) else [item[title]]
            item[title] = [*existing, *content]
            return


_REFERENCE_LINK = re.compile(
    r"\[(?P<text>[^\]]+)\]\((?P<path>(?:\.\./)*reference/(?P<module>lamcap[\w.]*)\.md)(?P<anchor>#[^)]*)?\)"
)


def unlink_missing_modules(markdown: str, modules: list[str]) -> str:
    """Turn links to the reference page of a module that does not exist into plain text.

    Theory pages link to the module that implements each formula. While a layer is
    being written its module may be missing; the link then degrades to its text
    instead of breaking the strict build (the Public API index lists what is missing).
    """

    def replace(match: re.Match[str]) -> str:
        return match.group(0) if match.group("module") in modules else match.group("text")

    return _REFERENCE_LINK.sub(replace, markdown)


@event_priority(100)
def on_config(config: Any) -> Any:
    config.markdown_extensions.append(RstMathExtension())
    docs_dir = Path(config.docs_dir)
    _fill_section(config.nav, "API reference", _reference_nav(public_modules()))
    _fill_section(config.nav, "Derivations", derivation_pages(docs_dir))
    return config


def on_files(files: Files, config: Any) -> Files:
    modules = public_modules()
    files.append(
        File.generated(config, f"{REFERENCE_DIR}/index.md", content=_index_markdown(modules))
    )
    for module in modules:
        files.append(File.generated(config, module_page(module), content=_module_markdown(module)))
    for uri, path in mathjax_files(mathjax_root()).items():
        files.append(File.generated(config, uri, abs_src_path=str(path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:  # noqa: ARG001
    return unlink_missing_modules(markdown, public_modules())


def on_page_content(html: str, page: Any, config: Any, files: Files) -> str:  # noqa: ARG001
    # The table of contents (and a title taken from the first heading) is text that
    # MathJax never sees: its formulas become plain text instead of staying raw TeX.
    plain_toc(page.toc)
    if page.title:
        page.title = tex_to_text(page.title)
    return html


@event_priority(-100)  # after the search plugin has written its index
def on_post_build(config: Any) -> None:
    # Search results show section titles and text as plain text, never raw TeX.
    index = Path(config.site_dir) / "search" / "search_index.json"
    if not index.is_file():
        return
    data = json.loads(index.read_text(encoding="utf-8"))
    for doc in data.get("docs", []):
        for key in ("title", "text"):
            if isinstance(doc.get(key), str):
                doc[key] = tex_to_text(doc[key])
    index.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

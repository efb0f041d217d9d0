"""The public surface: every name in ``lamcap.__all__`` resolves and is documented.

A public function must have a numpy-style docstring with a summary line, a
``Parameters`` section naming every parameter of its signature, a ``Returns`` section,
an ``Examples`` section with at least one doctest (run by ``--doctest-modules``), a
reference (an arXiv id or a page of docs/theory/, in the docstring or its module's
docstring) and, for the theory layer and the cone geometry, a formula (``.. math::``
or ``:math:``). Constants carry an attribute docstring. The API reference pages of
the documentation are generated from exactly these docstrings.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import lamcap

EXPORTS: dict[str, str] = dict(lamcap._EXPORTS)
SRC = Path(lamcap.__file__).resolve().parent.parent
FORMULA_LAYERS = ("lamcap.theory", "lamcap.geometry")
#: The checkout holding this test file (not the installed package's folder, which a
#: non-editable install puts in site-packages).
REPO = Path(__file__).resolve().parent.parent
#: A reference: an arXiv identifier or a theory page of the documentation.
_REFERENCE = re.compile(r"arXiv:\d{4}\.\d{4,5}|docs/theory/[a-z_-]+\.md")
_SECTION = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+)\n-{3,}\s*$", re.MULTILINE)


def _module_source(module: str) -> Path | None:
    relative = Path(*module.split("."))
    for candidate in (SRC / relative.with_suffix(".py"), SRC / relative / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _defining_source(module: str, name: str) -> Path:
    """The source file that assigns ``name``: ``module``'s own, or the private module it
    re-exports ``name`` from (``from lamcap.theory._capacity import CAPACITY``)."""
    source = _module_source(module)
    assert source is not None
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and any((alias.asname or alias.name) == name for alias in node.names)
        ):
            return _defining_source(node.module, name)
    return source


NAMES = sorted(EXPORTS)
FUNCTIONS = [name for name in NAMES if not name[0].isupper()]
CLASSES = [name for name in NAMES if name[0].isupper() and not name.isupper()]
CONSTANTS = [name for name in NAMES if name.isupper()]


def _sections(doc: str) -> dict[str, str]:
    """Split a cleaned numpy docstring into {section title: body}; "" is the preamble."""
    parts: dict[str, str] = {}
    matches = list(_SECTION.finditer(doc))
    parts[""] = doc[: matches[0].start()] if matches else doc
    ends = [match.start() for match in matches[1:]] + [len(doc)] * bool(matches)
    for match, end in zip(matches, ends, strict=True):
        parts[match.group("title").strip()] = doc[match.end() : end]
    return parts


def _documented_parameters(body: str) -> set[str]:
    names: set[str] = set()
    for line in body.splitlines():
        if line and not line[0].isspace():
            head = line.split(":", 1)[0]
            names.update(part.strip().lstrip("*") for part in head.split(","))
    return names


def _signature_parameters(function: Any) -> list[str]:
    function = getattr(function, "py_func", function)  # numba dispatchers
    return [
        name
        for name, parameter in inspect.signature(function).parameters.items()
        if name not in {"self", "cls"}
        and parameter.kind not in {parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD}
    ]


def _module_doc(name: str) -> str:
    return inspect.getdoc(importlib.import_module(EXPORTS[name])) or ""


# ----------------------------------------------------------------------- namespace


def test_all_lists_every_export_and_the_version() -> None:
    assert sorted(lamcap.__all__) == sorted([*EXPORTS, "__version__"])
    assert sorted(dir(lamcap)) == sorted(lamcap.__all__)


def test_unknown_name_raises_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        _ = lamcap.not_a_name


def test_version_matches_the_package_metadata() -> None:
    from importlib.metadata import version

    assert lamcap.__version__ == version("lamcap")


def test_citation_file_states_the_package_version() -> None:
    """CITATION.cff cannot read ``__version__``; a release must bump both."""
    citation = (REPO / "CITATION.cff").read_text(encoding="utf-8")
    versions = re.findall(r"^version:\s*\"?([^\s\"]+)", citation, flags=re.MULTILINE)
    assert versions == [lamcap.__version__]


@pytest.mark.parametrize("name", NAMES)
def test_name_resolves_to_its_declared_module(name: str) -> None:
    value = getattr(lamcap, name)
    if inspect.isfunction(value) or inspect.isclass(value):
        module = EXPORTS[name]
        assert value.__module__ == module or value.__module__.startswith(module + ".")


# ----------------------------------------------------------------------- docstrings


def _documented_sections(name: str) -> tuple[str, dict[str, str]]:
    """The docstring of ``lamcap.<name>`` and its numpy sections; it must have a summary."""
    doc = inspect.getdoc(getattr(lamcap, name))
    assert doc, f"{name} has no docstring"
    sections = _sections(doc)
    assert sections[""].strip(), f"{name}: no summary line"
    return doc, sections


@pytest.mark.parametrize("name", FUNCTIONS)
def test_function_has_a_complete_numpy_docstring(name: str) -> None:
    function = getattr(lamcap, name)
    doc, sections = _documented_sections(name)
    missing = [title for title in ("Parameters", "Returns", "Examples") if title not in sections]
    assert not missing, f"{name}: missing numpy sections {missing}"
    undocumented = set(_signature_parameters(function)) - _documented_parameters(
        sections["Parameters"]
    )
    assert not undocumented, f"{name}: parameters not in 'Parameters': {sorted(undocumented)}"
    assert ">>>" in sections["Examples"], f"{name}: 'Examples' has no doctest"
    assert _REFERENCE.search(doc + _module_doc(name)), f"{name}: no reference"
    if EXPORTS[name].startswith(FORMULA_LAYERS):
        assert ".. math::" in doc or ":math:" in doc, f"{name}: no formula"


@pytest.mark.parametrize("name", CLASSES)
def test_class_has_a_numpy_docstring(name: str) -> None:
    _doc, sections = _documented_sections(name)
    assert {"Attributes", "Parameters"} & set(sections), f"{name}: no Attributes/Parameters"


def _attribute_doc(lines: list[str], body: list[ast.stmt], index: int) -> str:
    """Docstring of the assignment ``body[index]``: a string right after it, or
    Sphinx-style ``#:`` comment lines right above it."""
    if index + 1 < len(body):
        following = body[index + 1]
        if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
            return str(following.value.value)
    comments = []
    row = body[index].lineno - 2
    while row >= 0 and lines[row].lstrip().startswith("#:"):
        comments.append(lines[row].lstrip()[2:])
        row -= 1
    return "\n".join(reversed(comments))


@pytest.mark.parametrize("name", CONSTANTS)
def test_constant_is_a_number_with_an_attribute_docstring(name: str) -> None:
    value = getattr(lamcap, name)
    assert isinstance(value, int | float)
    source = _defining_source(EXPORTS[name], name)
    text = source.read_text(encoding="utf-8")
    body = ast.parse(text).body
    for index, node in enumerate(body):
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign):
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            doc = _attribute_doc(text.splitlines(), body, index)
            assert doc.strip(), f"{name} has no attribute docstring"
            assert _REFERENCE.search(doc), f"{name}: no reference"
            return
    pytest.fail(f"{name} is not assigned at the top level of {EXPORTS[name]}")


def test_documented_constants_have_their_theoretical_values() -> None:
    # arXiv:2605.10795: optimal capacity 1/2, Hebbian perfect-recall threshold 1/8.
    assert lamcap.CAPACITY == 0.5
    assert lamcap.HEBBIAN_CAPACITY == 0.125


# ----------------------------------------------------------------------- layering

_ABOVE_THEORY = (
    "lamcap.problems",
    "lamcap.solvers",
    "lamcap.empirical",
    "lamcap.experiments",
    "lamcap.cli",
)

# The theory and what only it (and the experiments) use: the solvers own their constraint pass.
_BESIDE_THEORY = ("lamcap.theory", "lamcap.geometry", "lamcap.symbolic", "lamcap._cone_kernel")

# Each layer and the layers it must not import (docs/architecture.md, "Layers").
FORBIDDEN_IMPORTS = {
    "lamcap.symbolic": ("lamcap.theory", "lamcap.geometry", "lamcap._cone_kernel", *_ABOVE_THEORY),
    "lamcap._cone_kernel": ("lamcap.theory", "lamcap.geometry", "lamcap.symbolic", *_ABOVE_THEORY),
    "lamcap.geometry": ("lamcap.theory", "lamcap.symbolic", *_ABOVE_THEORY),
    "lamcap.theory": ("lamcap.symbolic", *_ABOVE_THEORY),  # generated code, not imported
    "lamcap.problems": (*_BESIDE_THEORY, *_ABOVE_THEORY[1:]),
    "lamcap.solvers": (*_BESIDE_THEORY, "lamcap.empirical", "lamcap.experiments", "lamcap.cli"),
    "lamcap.empirical": (
        "lamcap.geometry",
        "lamcap.symbolic",
        "lamcap._cone_kernel",
        *_ABOVE_THEORY,
    ),
    "lamcap.experiments": ("lamcap.cli",),
}


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("layer", sorted(FORBIDDEN_IMPORTS))
def test_layers_import_one_way(layer: str) -> None:
    """docs/architecture.md: theory and solvers never import each other (nor upwards)."""
    root = _module_source(layer)
    assert root is not None
    files = [root] if root.name != "__init__.py" else sorted(root.parent.rglob("*.py"))
    violations = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in files
        for name in sorted(_imported_modules(path))
        if name.startswith(FORBIDDEN_IMPORTS[layer])
    ]
    assert not violations


def test_importing_lamcap_is_light() -> None:
    """``import lamcap`` loads no sympy, numba, scipy or submodule (names are lazy).

    The one exception, ``lamcap._numba_cache`` (standard library only), must run
    before any numba kernel is defined (it picks a writable cache folder).
    """
    code = (
        "import sys, lamcap; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'sympy', 'numba', 'scipy', 'dask', 'matplotlib'} or "
        "(m.startswith('lamcap.') and m != 'lamcap._numba_cache')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert result.stdout.strip() == "[]"


# The theory brief the project started from is not part of the repository; the code,
# docs and examples cite the docs/theory pages and the paper instead.
_OUTSIDE_BRIEF = "THEORY" + ".md"
_SHIPPED = ("src", "docs", "benchmarks", "measurements", "derivations", "examples", "tests")
_TEXT_SUFFIXES = {".py", ".md", ".tex", ".yml", ".yaml", ".toml", ".txt", ".cfg", ".csv"}


def _shipped_text_files() -> list[Path]:
    files = [REPO / "README.md", REPO / "CONTRIBUTING.md"]
    for folder in _SHIPPED:
        files += [
            path
            for path in sorted((REPO / folder).rglob("*"))
            if path.is_file() and path.suffix in _TEXT_SUFFIXES and "__pycache__" not in path.parts
        ]
    return [path for path in files if path.is_file()]


def test_nothing_cites_the_brief_outside_the_repository() -> None:
    offenders = [
        f"{path.relative_to(REPO)}:{number}"
        for path in _shipped_text_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _OUTSIDE_BRIEF in line
    ]
    assert not offenders, f"cite docs/theory/ or arXiv:2605.10795 instead: {offenders}"


def test_cited_theory_pages_exist() -> None:
    cited = {
        match.group(0)
        for path in _shipped_text_files()
        for match in re.finditer(r"docs/theory/[a-z_-]+\.md", path.read_text(encoding="utf-8"))
    }
    assert cited, "no docs/theory page is cited"
    missing = sorted(page for page in cited if not (REPO / page).is_file())
    assert not missing, f"cited theory pages that do not exist: {missing}"


# ------------------------------------------------------------- public and private modules

#: The public modules: every other module of the package has an underscored name (or
#: sits in an underscored package) and may change without notice.
PUBLIC_MODULES = (
    "lamcap",
    "lamcap.cli",
    "lamcap.empirical",
    "lamcap.experiments",
    "lamcap.experiments.figures",
    "lamcap.geometry",
    "lamcap.problems",
    "lamcap.solvers",
    "lamcap.symbolic",
    "lamcap.theory",
)


def _package_modules() -> list[tuple[str, Path]]:
    package = SRC / "lamcap"
    modules = []
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(SRC).with_suffix("").parts
        if parts[-1] in {"__init__", "__main__"}:
            parts = parts[:-1] if parts[-1] == "__init__" else parts
        modules.append((".".join(parts), path))
    return modules


def _is_private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split("."))


def _assigns_all(path: Path) -> bool:
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(target, ast.Name) and target.id == "__all__" for target in targets):
            return True
    return False


def test_every_module_is_public_by_list_or_private_by_name() -> None:
    public = {module for module, _ in _package_modules() if not _is_private(module)}
    assert public == set(PUBLIC_MODULES)


def test_only_public_modules_declare_all() -> None:
    declaring = {module for module, path in _package_modules() if _assigns_all(path)}
    assert declaring == set(PUBLIC_MODULES)


@pytest.mark.parametrize("module_name", PUBLIC_MODULES[1:])
def test_all_holds_documented_public_names_only(module_name: str) -> None:
    module = importlib.import_module(module_name)
    assert module.__all__ == sorted(set(module.__all__), key=module.__all__.index)
    for name in module.__all__:
        assert not name.startswith("_"), name
        value = getattr(module, name)  # resolves
        if inspect.isfunction(value) or inspect.isclass(value):
            assert (inspect.getdoc(value) or "").strip(), f"{module_name}.{name} has no docstring"


def test_private_modules_are_not_named_in_all() -> None:
    for module_name in PUBLIC_MODULES[1:]:
        module = importlib.import_module(module_name)
        exported = [getattr(module, name) for name in module.__all__]
        assert not any(inspect.ismodule(value) for value in exported), module_name


_TOOLS = {  # extras that are run (tests, docs, linters), not imported by lamcap's code
    "pytest",
    "pytest-xdist",
    "pytest-timeout",
    "pytest-benchmark",
    "mkdocs",
    "mkdocs-material",
    "mkdocstrings",
    "mkdocstrings-python",
    "ruff",
    "mypy",
    "scipy-stubs",
    "pre-commit",
    "lamcap",
    "django-static-mathjax",  # data: MathJax files the docs hook copies by distribution name
}


def test_every_optional_library_is_imported_somewhere() -> None:
    # issue 23: the `torch` extra installed a library nothing imported
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    sources = "\n".join(
        path.read_text(encoding="utf-8")
        for folder in ("src", "tests", "benchmarks", "measurements", "docs")
        for path in (root / folder).rglob("*.py")
    )
    for extra, requirements in project["optional-dependencies"].items():
        for requirement in requirements:
            name = re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)
            if name in _TOOLS:
                continue
            module = name.replace("-", "_")
            assert re.search(rf"^\s*(import|from) {module}\b", sources, re.MULTILINE), (extra, name)

"""One vocabulary (docs/vocabulary.md): each argument name has one meaning across the API.

Every parameter of every public signature — functions, methods and class constructors
in the ``__all__`` of each public module (:data:`PUBLIC_MODULES`) — has a row in the
vocabulary's "Argument names" table, and every row is used; the words that meant two
things (``level``, ``load``, ``weights``, ``law`` as a selector, ``tolerance`` as a tie
width) stay retired.  Every exported law of the theory layer carries one of the four
law labels of the vocabulary in a ``Status: <label>.`` line of its docstring.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import itertools
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import lamcap
from lamcap import _EXPORTS
from lamcap.solvers import METHODS

ROOT = Path(__file__).resolve().parents[1]
VOCABULARY = ROOT / "docs" / "vocabulary.md"

#: Names removed by the renames of docs/vocabulary.md (lamcap is 0.x: no aliases).
REMOVED = ("load_at_margin", "gardner_load", "critical_load")

#: Argument names that meant two things before and must not come back.
#: ``load`` (now ``alpha`` for p log p / d^2, ``density`` for n / d^2), ``level`` (now
#: ``probability``, ``significance`` or ``coverage``; a level is a score level),
#: ``weights`` (now ``W`` for the memory, ``multipliers`` for a certificate's
#: coefficients), ``q`` for a probability (``q`` is the replica overlap) and
#: ``p_values`` for values of p (``p_grid``; a p-value is a test's).
RETIRED_ARGUMENTS = ("load", "level", "weights")

#: The modules whose ``__all__`` is the public API (docs/vocabulary.md, "Argument names").
PUBLIC_MODULES = (
    "lamcap",
    "lamcap.theory",
    "lamcap.symbolic",
    "lamcap.geometry",
    "lamcap.problems",
    "lamcap.solvers",
    "lamcap.experiments",
    "lamcap.experiments.figures",
    "lamcap.empirical",
    "lamcap.cli",
)


def _signatures() -> dict[str, inspect.Signature]:
    """Every public callable's signature: functions, methods and constructors of classes.

    Dataclasses (records) contribute their methods, not their constructors: their
    fields are attributes described in the class docstring.
    """
    found: dict[str, inspect.Signature] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            if name.startswith("__"):
                continue
            value = getattr(module, name)
            targets: list[tuple[str, Any]] = []
            if inspect.isclass(value):
                if not dataclasses.is_dataclass(value):
                    targets.append((name, value))
                for attribute, member in vars(value).items():
                    if attribute.startswith("_"):
                        continue
                    if inspect.isfunction(member) or isinstance(member, classmethod | staticmethod):
                        targets.append((f"{name}.{attribute}", getattr(value, attribute)))
            elif callable(value):
                targets.append((name, value))
            for label, target in targets:
                try:
                    found[f"{module_name}:{label}"] = inspect.signature(target)
                except (TypeError, ValueError):  # a builtin without a signature
                    continue
    return found


SIGNATURES = _signatures()


def _parameter_names() -> dict[str, set[str]]:
    names: dict[str, set[str]] = {}
    for label, signature in SIGNATURES.items():
        for name, parameter in signature.parameters.items():
            if name in ("self", "cls") or parameter.kind in (
                parameter.VAR_POSITIONAL,
                parameter.VAR_KEYWORD,
            ):
                continue
            names.setdefault(name, set()).add(label)
    return names


def vocabulary_table() -> dict[str, str]:
    """The "Argument names" table of docs/vocabulary.md: name -> meaning."""
    text = VOCABULARY.read_text(encoding="utf-8")
    section = text.split("## Argument names", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(?P<name>[^`]+)` \| (?P<meaning>.+?) \|$", section, re.MULTILINE)
    names = [name for name, _ in rows]
    duplicated = sorted({name for name in names if names.count(name) > 1})
    assert not duplicated, f"names with two rows (two meanings): {duplicated}"
    return dict(rows)


def test_every_public_parameter_has_one_meaning_in_the_vocabulary() -> None:
    table = vocabulary_table()
    used = _parameter_names()
    missing = {name: sorted(where)[:3] for name, where in used.items() if name not in table}
    assert not missing, f"parameters without a row in docs/vocabulary.md: {missing}"
    unused = sorted(set(table) - set(used))
    assert not unused, f"rows of docs/vocabulary.md no public signature uses: {unused}"


def test_the_signature_scan_reaches_every_public_module() -> None:
    modules = {label.split(":", 1)[0] for label in SIGNATURES}
    assert modules == set(PUBLIC_MODULES)
    assert "lamcap.solvers:check_margins" in SIGNATURES
    assert "lamcap.experiments.figures:draw_all" in SIGNATURES
    assert "lamcap.theory:Law.ppf" in SIGNATURES


@pytest.mark.parametrize("label", sorted(SIGNATURES))
def test_no_public_signature_uses_a_retired_word(label: str) -> None:
    parameters = SIGNATURES[label].parameters
    assert not set(RETIRED_ARGUMENTS) & set(parameters), label
    if "law" in parameters:  # a law object, never a string selector, array or callable
        assert "Law" in str(parameters["law"].annotation), label
    if "family" in parameters:
        assert parameters["family"].annotation in ("str", str), label
    if "q" in parameters:  # the replica overlap, never a probability
        assert label.split(":")[1] in ("free_entropy", "solve_saddle_point", "log_volume"), label
    if "p_values" in parameters:  # p-values of tests, never values of p
        assert label.endswith(":holm_adjusted"), label
    if "significance" in parameters:
        assert parameters["significance"].default == 0.05, label
    if "coverage" in parameters:
        assert parameters["coverage"].default == 0.95, label


def _public_functions() -> list[tuple[str, Callable[..., Any]]]:
    functions = [
        (name, getattr(lamcap, name))
        for name in _EXPORTS
        if callable(getattr(lamcap, name)) and not inspect.isclass(getattr(lamcap, name))
    ]
    for key, target in METHODS.items():
        module, name = target.split(":")
        functions.append((f"METHODS[{key!r}]", getattr(importlib.import_module(module), name)))
    return functions


@pytest.mark.parametrize("name", REMOVED)
def test_renamed_functions_are_gone(name: str) -> None:
    from lamcap.theory import _margin as margin
    from lamcap.theory import _replica as replica

    for namespace in (lamcap, margin, replica):
        assert not hasattr(namespace, name), namespace
    assert f"{name}(" in VOCABULARY.read_text(encoding="utf-8")  # listed as renamed


@pytest.mark.parametrize(("name", "function"), _public_functions())
def test_arguments_have_one_meaning(name: str, function: Callable[..., Any]) -> None:
    parameters = inspect.signature(function).parameters
    assert not set(RETIRED_ARGUMENTS) & set(parameters), name
    if "margin" in parameters:  # the theory's margin m: competitor-spread units
        assert parameters["margin"].default in (0.0, None, inspect.Parameter.empty), name
    if "raw_margin" in parameters:  # the solvers' right-hand side c
        assert parameters["raw_margin"].default in (1.0, inspect.Parameter.empty), name
    assert not ("margin" in parameters and "raw_margin" in parameters), name


def test_every_solver_takes_the_raw_margin_not_the_theory_margin() -> None:
    for key, target in METHODS.items():
        module, name = target.split(":")
        parameters = inspect.signature(getattr(importlib.import_module(module), name)).parameters
        assert "raw_margin" in parameters, key
        assert "margin" not in parameters, key
    assert inspect.signature(lamcap.solve).parameters["raw_margin"].default == 1.0


# ----------------------------------------------------------------------- law labels

#: The four law labels of docs/vocabulary.md, "Law labels".
LABELS = ("exact", "asymptotic", "model with measured error", "fitted")
_STATUS_LINE = re.compile(r"^Status:(?P<rest>.*)$", re.MULTILINE)

#: Laws of lamcap.theory._spectrum, whose finite-size law is being rewritten (issue 22,
#: item 4): their labels are added with it.  ``strict``: the marker must go once they are.
_PENDING_MODULES: tuple[str, ...] = ()

THEORY_LAWS = sorted(
    name for name, module in _EXPORTS.items() if module.startswith("lamcap.theory")
)


def _attribute_docstring(module: str, name: str) -> str:
    """Docstring of ``name = ...`` in ``module``: the string after it or ``#:`` lines above."""
    source = inspect.getsource(importlib.import_module(module))
    lines = source.splitlines()
    body = ast.parse(source).body
    for statement, following in itertools.pairwise([*body, None]):
        targets = (
            statement.targets
            if isinstance(statement, ast.Assign)
            else [statement.target]
            if isinstance(statement, ast.AnnAssign)
            else []
        )
        if not any(isinstance(t, ast.Name) and t.id == name for t in targets):
            continue
        if isinstance(following, ast.Expr) and isinstance(following.value, ast.Constant):
            return inspect.cleandoc(str(following.value.value))
        row, comments = statement.lineno - 2, []
        while row >= 0 and lines[row].lstrip().startswith("#:"):
            comments.insert(0, lines[row].lstrip()[2:].strip())
            row -= 1
        return "\n".join(comments)
    return ""


def _law_docstring(name: str) -> str:
    value = getattr(lamcap, name)
    if callable(value):
        return inspect.getdoc(value) or ""
    return _attribute_docstring(_EXPORTS[name], name)


def law_label(doc: str) -> str:
    """The one law label of a docstring; ``AssertionError`` unless there is exactly one."""
    lines = [match.group("rest").strip() for match in _STATUS_LINE.finditer(doc)]
    assert len(lines) == 1, f"expected one 'Status:' line, found {len(lines)}"
    found = [label for label in LABELS if re.match(rf"\*?{label}\*?[.:;,]", lines[0])]
    assert len(found) == 1, f"'Status:{lines[0]}' starts with none of {LABELS}"
    return found[0]


def test_the_vocabulary_defines_the_four_labels() -> None:
    text = VOCABULARY.read_text(encoding="utf-8")
    section = text.split("## Law labels", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| \*(?P<label>[a-z ]+)\* \|", section, flags=re.MULTILINE)
    assert tuple(rows) == LABELS


@pytest.mark.parametrize(
    "doc",
    [
        "Summary.\n\nNo status at all.",
        "Summary.\n\nStatus: approximate. Close enough.",
        "Summary.\n\nStatus: exact. One.\n\nStatus: asymptotic. Two.",
    ],
)
def test_a_docstring_without_exactly_one_label_is_rejected(doc: str) -> None:
    with pytest.raises(AssertionError):
        law_label(doc)


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            name,
            marks=pytest.mark.xfail(
                strict=True, reason="label comes with the finite-size spectrum law (issue 22)"
            ),
        )
        if _EXPORTS[name] in _PENDING_MODULES
        else name
        for name in THEORY_LAWS
    ],
)
def test_every_theory_law_carries_one_label(name: str) -> None:
    assert law_label(_law_docstring(name)) in LABELS


#: "weights" is the memory W; these phrases use it for multipliers, convex coefficients or
#: interpolation and quadrature coefficients (docs/vocabulary.md, "W").
MISUSED_WEIGHTS = re.compile(
    r"\b(?:dual|convex|farkas|quadrature|lagrange|barycentric|interpolation|stencil|"
    r"mixture|active-set|positive|non-negative)[ -]weights?\b"
    r"|\bweights? of (?:the |a |each )?constraints?\b",
    flags=re.IGNORECASE,
)


def misused_words(text: str) -> list[str]:
    """The phrases of ``text`` that give "weights" a meaning other than the memory W."""
    return [match.group(0) for match in MISUSED_WEIGHTS.finditer(text)]


def _docstrings() -> dict[str, str]:
    """Every docstring of ``src/lamcap`` (modules, classes, functions), by place."""
    found = {}
    for path in sorted((ROOT / "src" / "lamcap").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc:
                    name = getattr(node, "name", "<module>")
                    found[f"{path.relative_to(ROOT)}:{name}"] = doc
    return found


def test_no_docstring_calls_multipliers_or_coefficients_weights() -> None:
    offenders = {
        place: words for place, doc in _docstrings().items() if (words := misused_words(doc))
    }
    assert not offenders


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("its convex weights are a Farkas vector", ["convex weights"]),
        ("Dual weights y >= 0", ["Dual weights"]),
        ("the weight of constraint i", ["weight of constraint"]),
        ("the weights W recall every association", []),
        ("hebbian_weights and SolveResult.weights", []),
    ],
)
def test_the_weights_rule_catches_planted_uses(text: str, expected: list[str]) -> None:
    assert misused_words(text) == expected

"""One vocabulary (docs/vocabulary.md): each argument name has one meaning across the API.

Every exported law of the theory layer carries one of the four law labels of the
vocabulary in a ``Status: <label>.`` line of its docstring.
"""

from __future__ import annotations

import ast
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

VOCABULARY = Path(__file__).resolve().parents[1] / "docs" / "vocabulary.md"

#: Names removed by the renames of docs/vocabulary.md (lamcap is 0.x: no aliases).
REMOVED = ("load_at_margin", "gardner_load", "critical_load")

#: Argument names that meant two things before and must not come back.
#: ``load`` (now ``alpha`` for p log p / d^2, ``density`` for n / d^2) and ``level``
#: as a probability (now ``probability``; a level is a score level).
RETIRED_ARGUMENTS = ("load", "level")


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

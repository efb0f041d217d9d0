"""One vocabulary (docs/vocabulary.md): each argument name has one meaning across the API."""

from __future__ import annotations

import importlib
import inspect
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

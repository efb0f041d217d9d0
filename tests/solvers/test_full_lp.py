"""Tests for the full-LP HiGHS baseline and LP helpers (lamcap.solvers._full_lp)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from lamcap.problems import make_instance
from lamcap.solvers import solve, verify
from lamcap.solvers._full_lp import (
    MarginLP,
    all_constraints,
    constraint_rows,
    highs_feasibility,
    solve_full_lp,
)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_constraint_rows_are_the_score_differences(model: str) -> None:
    instance = make_instance(5, 4, n=3, model=model, seed=0)
    mus, rhos = all_constraints(instance)
    assert mus.size == instance.n * (instance.p - 1)
    assert not np.any(rhos == instance.targets[mus])
    weights = np.random.default_rng(1).standard_normal((5, 5))
    rows = constraint_rows(instance, mus, rhos)
    for k, (mu, rho) in enumerate(zip(mus, rhos, strict=True)):
        outputs = instance.outputs(mu)
        expected = (outputs[instance.targets[mu]] - outputs[rho]) @ weights @ instance.inputs[mu]
        assert rows[k] @ weights.ravel() == pytest.approx(expected, rel=1e-12, abs=1e-14)


def test_highs_on_tiny_systems() -> None:
    # x >= 1 and -x >= 1 clash; the ray weighs both rows equally
    outcome = highs_feasibility(np.array([[1.0], [-1.0]]))
    assert outcome.status == "infeasible"
    assert outcome.ray is not None
    assert outcome.ray[0] == pytest.approx(outcome.ray[1])
    feasible = highs_feasibility(np.array([[1.0, -1.0], [0.0, 1.0]]))
    assert feasible.status == "feasible"
    assert feasible.solution is not None
    assert np.all(np.array([[1.0, -1.0], [0.0, 1.0]]) @ feasible.solution >= 1 - 1e-7)


def test_margin_lp_levels() -> None:
    lp = MarginLP(2)
    lp.add(np.array([[1.0, 0.0], [0.0, 1.0]]))
    level, vector = lp.solve(10.0)
    assert level == pytest.approx(1.0)  # w = (1, 1) reaches t = 1
    lp.add(np.array([[-1.0, -1.0]]))
    level, _ = lp.solve(10.0)
    assert abs(level) < 1e-12
    assert lp.duals.sum() == pytest.approx(1.0)
    del vector


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_full_lp_decides_clear_cases(model: str, independently_decided) -> None:  # type: ignore[no-untyped-def]
    easy = make_instance(8, 10, n=4, model=model, seed=0)
    result = solve_full_lp(easy, rank=8, raw_margin=1.0, max_seconds=None, seed=0)
    assert result.verdict == "feasible"
    independently_decided(easy, result)
    assert verify(easy, result)
    hard = make_instance(4, 40, model=model, seed=1)
    result = solve_full_lp(hard, rank=4, raw_margin=1.0, max_seconds=None, seed=0)
    assert result.verdict == "infeasible"
    independently_decided(hard, result)
    assert verify(hard, result)


_FRESH_PROCESS_SOLVE = """
import sys
from lamcap.problems import make_instance
from lamcap.solvers import solve
from lamcap.solvers._full_lp import MarginLP
import numpy as np
result = solve(make_instance(4, 12, seed=0), method="full_lp")
lp = MarginLP(2)
lp.add(np.array([[1.0, 0.0], [-1.0, 0.0]]))
lp.solve(10.0)
print(result.verdict, file=sys.stderr)
"""


def test_highs_prints_nothing_in_a_fresh_process() -> None:
    # highspy prints its banner once per process from the Highs() constructor,
    # so only a fresh interpreter can show it (an earlier test may have eaten it).
    completed = subprocess.run(
        [sys.executable, "-c", _FRESH_PROCESS_SOLVE],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert completed.stdout == ""
    assert completed.stderr.strip() in {"feasible", "infeasible"}


def test_highs_solves_print_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    instance = make_instance(4, 40, seed=1)
    result = solve(instance, method="full_lp")
    highs_feasibility(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    lp = MarginLP(2)
    lp.add(np.array([[1.0, 1.0]]))
    lp.solve(10.0)
    captured = capfd.readouterr()
    assert result.verdict == "infeasible"
    assert captured.out == ""
    assert captured.err == ""

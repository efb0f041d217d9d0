"""Tests for the max-margin objective of lamcap.solve and its certificate (lamcap.solvers._optimality).

References are independent of lamcap's kernels: the constraint rows
:math:`\\operatorname{vec}((u_t - u_\\rho) e_\\mu^\\top)` are built densely here
from ``instance.outputs`` and ``instance.inputs``, and the max-margin ``W`` is
solved by two outside methods: scipy's NNLS on the dual (the min-norm point of
the rows' convex hull, :math:`W^* = m\\,x^*/\\|x^*\\|^2`) and HiGHS' QP solver on
the primal :math:`\\min \\tfrac12\\|w\\|^2` s.t. rows :math:`w \\ge m`.
"""

from __future__ import annotations

import dataclasses
import math
import re

import highspy
import numpy as np
import pytest
from scipy.optimize import nnls

import lamcap
from lamcap.problems import Instance, make_instance
from lamcap.solvers import solve, verify
from lamcap.solvers._certificates import FEASIBILITY_TOLERANCE, certificate_bound
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane
from lamcap.solvers._optimality import (
    MarginDual,
    dual_value,
    optimality_gap,
    primal_value,
)

# (d, p, n): feasible instances at about 0.6-0.9 of the critical p (22 at d = 8,
# 15 at d = 6), both models.
FEASIBLE = [(6, 10, None), (8, 16, None), (8, 20, 12), (10, 24, None)]


def _rows(instance: Instance) -> np.ndarray:
    """Dense raw constraint rows vec((u_t - u_rho) e_mu^T), one per (mu, rho != t)."""
    rows = []
    for mu in range(instance.n):
        outputs = instance.outputs(mu)
        target = instance.targets[mu]
        for rho in range(instance.p):
            if rho != target:
                rows.append(np.outer(outputs[target] - outputs[rho], instance.inputs[mu]).ravel())
    return np.array(rows)


def _nnls_reference(rows: np.ndarray, raw_margin: float) -> np.ndarray:
    """W* by scipy NNLS: min ||[rows^T; 1^T] b - e_last||, x = rows^T b / sum b, W* = m x / ||x||^2."""
    count = rows.shape[0]
    matrix = np.vstack([rows.T, np.ones(count)])
    right = np.zeros(matrix.shape[0])
    right[-1] = 1.0
    beta = nnls(matrix, right, maxiter=100 * count)[0]
    point = rows.T @ (beta / beta.sum())
    return raw_margin * point / float(point @ point)


def _highs_reference(rows: np.ndarray, raw_margin: float) -> np.ndarray:
    """W* by HiGHS' QP solver: min 1/2 ||w||^2 subject to rows @ w >= raw_margin, w free."""
    count, size = rows.shape
    highs = highspy.Highs()
    highs.setOptionValue("output_flag", False)
    highs.setOptionValue("primal_feasibility_tolerance", 1e-10)
    highs.setOptionValue("dual_feasibility_tolerance", 1e-10)
    infinity = highs.getInfinity()
    highs.addVars(size, np.full(size, -infinity), np.full(size, infinity))
    sparse = rows.ravel()
    highs.addRows(
        count,
        np.full(count, raw_margin),
        np.full(count, infinity),
        sparse.size,
        np.arange(0, sparse.size, size, dtype=np.int32),
        np.tile(np.arange(size, dtype=np.int32), count),
        sparse,
    )
    diagonal = np.arange(size, dtype=np.int32)
    highs.passHessian(size, size, 1, np.arange(size + 1, dtype=np.int32), diagonal, np.ones(size))
    highs.run()
    assert highs.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return np.array(highs.getSolution().col_value)


def _max_margin(instance: Instance, **kwargs: object) -> lamcap.SolveResult:
    return solve(instance, objective="max_margin", **kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- the optimum
@pytest.mark.parametrize("model", ["decoupled", "original"])
@pytest.mark.parametrize(("d", "p", "n"), FEASIBLE)
def test_max_margin_matches_nnls_on_the_dual(model: str, d: int, p: int, n: int | None) -> None:
    instance = make_instance(d, p, n=n, model=model, seed=d + p)
    rows = _rows(instance)
    reference = _nnls_reference(rows, 1.0)
    assert (rows @ reference).min() == pytest.approx(1.0, rel=1e-9)  # the reference is tight
    result = _max_margin(instance)
    assert result.verdict == "feasible"
    assert verify(instance, result)
    details = result.details
    weights = np.asarray(result.weights).ravel()
    gap = details["relative_gap"]
    assert details["gap_reached"]
    assert gap <= 1e-4
    # smallest raw margin is the requested one, by a direct dense check
    assert (rows @ weights).min() == pytest.approx(1.0, rel=1e-12)
    # the certified interval contains the independent optimum: (1 - g)||W||^2 <= ||W*||^2 <= ||W||^2
    optimum = float(reference @ reference)
    norm = float(weights @ weights)
    assert (1.0 - gap) * norm * (1 - 1e-12) <= optimum <= norm * (1 + 1e-12)
    assert details["dual_value"] <= 0.5 * optimum * (1 + 1e-12)
    # and W is within the certified distance sqrt(2 (P - D)) of it
    distance = float(np.linalg.norm(weights - reference))
    assert distance <= math.sqrt(2.0 * (details["primal_value"] - details["dual_value"])) + 1e-9


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_max_margin_matches_highs_qp_at_a_tight_tolerance(model: str) -> None:
    instance = make_instance(8, 18, model=model, seed=4)
    raw_margin = 2.5
    reference = _highs_reference(_rows(instance), raw_margin)
    result = _max_margin(instance, raw_margin=raw_margin, tolerance=1e-10)
    assert result.verdict == "feasible"
    assert result.details["relative_gap"] <= 1e-10
    weights = np.asarray(result.weights).ravel()
    assert float(np.linalg.norm(weights)) == pytest.approx(np.linalg.norm(reference), rel=1e-7)
    assert np.linalg.norm(weights - reference) <= 1e-6 * np.linalg.norm(reference)
    assert result.details["raw_min_margin"] == pytest.approx(raw_margin, rel=1e-12)


@pytest.mark.parametrize(("exact", "batch"), [("wolfe", 1), ("wolfe", 64), ("nnls", None)])
def test_exact_stages_reach_the_same_optimum(exact: str, batch: int | None) -> None:
    instance = make_instance(10, 26, seed=1)
    reference = _nnls_reference(_rows(instance), 1.0)
    result = solve_cutting_plane(
        instance,
        rank=10,
        raw_margin=1.0,
        max_seconds=None,
        seed=0,
        options=CuttingPlaneOptions(first_order_rounds=2, exact=exact, wolfe_batch=batch),
        objective="max_margin",
        tolerance=1e-8,
    )
    assert result.details["stage"] == exact
    assert result.details["relative_gap"] <= 1e-8
    weights = np.asarray(result.weights).ravel()
    assert np.linalg.norm(weights - reference) <= 2e-4 * np.linalg.norm(reference)


def test_default_objective_is_the_first_feasible_w_not_the_max_margin_one() -> None:
    instance = make_instance(10, 24, seed=2)
    first = solve(instance)
    best = _max_margin(instance)
    assert first.verdict == best.verdict == "feasible"
    assert "relative_gap" not in first.details
    # the max-margin W maximises the smallest raw margin per unit Frobenius norm, c_W/||W||_F
    # (not the per-constraint normalised margin gamma that SolveResult.min_margin reports)
    rows = _rows(instance)

    def margin_per_norm(result: lamcap.SolveResult) -> float:
        weights = np.asarray(result.weights).ravel()
        return float(np.min(rows @ weights) / np.linalg.norm(weights))

    assert margin_per_norm(best) >= margin_per_norm(first) * (1 - 1e-4)


# --------------------------------------------------------------------------- verdicts
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_infeasible_instance_gets_a_certificate_not_an_exception(model: str) -> None:
    instance = make_instance(4, 40, model=model, seed=1)  # n E|A| >> d^2
    result = _max_margin(instance)
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert certificate_bound(instance, result.certificate) <= FEASIBILITY_TOLERANCE
    assert verify(instance, result)
    assert result.details["gap_reached"] is False
    assert result.details["relative_gap"] == math.inf


def test_time_limit_keeps_a_verified_w_and_says_the_gap_was_not_reached() -> None:
    instance = make_instance(48, 4, n=3, seed=0)  # Hebbian W is already feasible
    result = _max_margin(instance, max_seconds=1e-9)
    assert result.verdict == "feasible"
    assert verify(instance, result)
    assert result.details["stopped"] == "time_limit"
    assert result.details["gap_reached"] is False
    assert result.details["relative_gap"] > 1e-4
    assert result.details["raw_min_margin"] == pytest.approx(1.0, rel=1e-12)


# --------------------------------------------------------------------------- the certificate
def test_dual_value_matches_a_dense_recomputation() -> None:
    instance = make_instance(6, 10, model="original", seed=3)
    result = _max_margin(instance, raw_margin=2.0)
    dual = result.details["dual"]
    rows = _rows(instance)
    index = dual.associations * (instance.p - 1) + dual.competitors
    index -= dual.competitors > instance.targets[dual.associations]  # target column skipped
    combination = rows[index].T @ dual.y
    expected = 2.0 * dual.y.sum() - 0.5 * float(combination @ combination)
    assert dual_value(instance, dual) == pytest.approx(expected, rel=1e-12)
    assert result.details["dual_value"] == pytest.approx(expected, rel=1e-12)


def test_certificate_recomputes_and_detects_tampering() -> None:
    instance = make_instance(8, 16, seed=5)
    result = _max_margin(instance)
    dual = result.details["dual"]
    gap = optimality_gap(instance, result.weights, dual)
    assert gap.relative_gap == result.details["relative_gap"]
    assert gap.primal == result.details["primal_value"]
    # a W that is not optimal shows a large gap against the same dual
    worse = np.asarray(result.weights) + 0.3 * lamcap.hebbian_weights(instance)
    assert optimality_gap(instance, worse, dual).relative_gap > 1e-3
    # a dual whose weights are inflated loses value (D is concave, maximal near y)
    inflated = dataclasses.replace(dual, y=3.0 * dual.y)
    assert optimality_gap(instance, result.weights, inflated).relative_gap > 0.5


def test_primal_value_of_a_non_recalling_w_is_infinite() -> None:
    instance = make_instance(6, 10, seed=0)
    value, lowest = primal_value(instance, -lamcap.hebbian_weights(instance), 1.0)
    assert value == math.inf
    assert lowest < 0


@pytest.mark.parametrize(
    ("dual", "match"),
    [
        (MarginDual(np.array([0]), np.array([1]), np.array([-1.0]), 1.0), "y must contain"),
        (MarginDual(np.array([0]), np.array([0]), np.array([1.0]), 1.0), "differ from"),
        (MarginDual(np.array([9]), np.array([1]), np.array([1.0]), 1.0), "associations must"),
        (MarginDual(np.array([0]), np.array([9]), np.array([1.0]), 1.0), "competitors must"),
        (MarginDual(np.array([0, 1]), np.array([1]), np.array([1.0]), 1.0), "equal length"),
        (MarginDual(np.array([0]), np.array([1]), np.array([1.0]), 0.0), "raw_margin must be"),
    ],
)
def test_malformed_duals_raise(dual: MarginDual, match: str) -> None:
    instance = make_instance(4, 3, n=2, seed=0)
    with pytest.raises(ValueError, match=match):
        dual_value(instance, dual)


# --------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"objective": "maxmargin"},
            "objective must be one of 'feasible', 'max_margin', 'max_recall', got 'maxmargin'",
        ),
        (
            {"objective": None},
            "objective must be one of 'feasible', 'max_margin', 'max_recall', got None",
        ),
        ({"tolerance": 0.0}, "tolerance must be a finite number in (0, 1), got 0.0"),
        ({"tolerance": -1e-3}, "tolerance must be a finite number in (0, 1), got -0.001"),
        ({"tolerance": 1.0}, "tolerance must be a finite number in (0, 1), got 1.0"),
        ({"tolerance": float("nan")}, "tolerance must be a finite number in (0, 1), got nan"),
        ({"tolerance": np.inf}, "tolerance must be a finite number in (0, 1), got inf"),
        ({"tolerance": "small"}, "tolerance must be a finite number in (0, 1), got 'small'"),
        (
            {"objective": "max_margin", "rank": 4},
            (
                "objective='max_margin' needs full rank (rank = d = 8) and method 'auto' or "
                "'cutting_plane', got rank 4 and method 'two_layer'"
            ),
        ),
        (
            {"objective": "max_margin", "method": "full_lp"},
            (
                "objective='max_margin' needs full rank (rank = d = 8) and method 'auto' or "
                "'cutting_plane', got rank 8 and method 'full_lp'"
            ),
        ),
    ],
)
def test_bad_objective_arguments_name_argument_value_and_accepted(
    kwargs: dict[str, object], message: str
) -> None:
    instance = make_instance(8, 4, n=2, seed=0)
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        solve(instance, **kwargs)  # type: ignore[arg-type]


def test_highs_exact_stage_is_refused_for_max_margin() -> None:
    instance = make_instance(4, 3, n=2, seed=0)
    with pytest.raises(ValueError, match="exact must be 'wolfe', 'nnls' or 'none'"):
        solve_cutting_plane(
            instance,
            rank=4,
            raw_margin=1.0,
            max_seconds=None,
            seed=0,
            options=CuttingPlaneOptions(exact="highs"),
            objective="max_margin",
        )

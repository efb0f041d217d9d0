"""Tests for the certified full-rank solver (lamcap.solvers.cutting_plane).

References are independent: verdicts are checked from scratch by
``lamcap.solvers.verify`` (margins / Farkas bounds recomputed with numpy) and
compared with HiGHS on the full LP (all constraints, no working set).
"""

from __future__ import annotations

import numpy as np
import pytest

from lamcap.problems import make_instance
from lamcap.solvers import verify
from lamcap.solvers.certificates import FEASIBILITY_TOLERANCE, certificate_bound
from lamcap.solvers.cutting_plane import (
    CuttingPlaneOptions,
    _min_norm_point,
    solve_cutting_plane,
)
from lamcap.solvers.full_lp import solve_full_lp


def _solve(instance, **options):  # type: ignore[no-untyped-def]
    return solve_cutting_plane(
        instance,
        rank=instance.d,
        margin=1.0,
        max_seconds=None,
        seed=0,
        options=CuttingPlaneOptions(**options),
    )


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_few_associations_are_verified_feasible(model: str) -> None:
    instance = make_instance(10, 20, n=6, model=model, seed=3)  # 6 * E|A| << d^2 = 100
    result = _solve(instance)
    assert result.verdict == "feasible"
    assert result.min_margin > FEASIBILITY_TOLERANCE
    assert verify(instance, result)
    assert result.method == "cutting_plane"


@pytest.mark.parametrize("exact", ["nnls", "highs"])
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_overloaded_instances_get_a_checking_certificate(model: str, exact: str) -> None:
    # n E|A| with n = p = 40, d = 4: about 40 * 3.6 = 144 >> d^2 = 16
    instance = make_instance(4, 40, model=model, seed=1)
    result = _solve(instance, exact=exact)
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert certificate_bound(instance, result.certificate) <= FEASIBILITY_TOLERANCE
    assert verify(instance, result)


def test_first_order_alone_is_never_wrong() -> None:
    infeasible = make_instance(4, 40, seed=1)
    result = _solve(infeasible, exact="none", max_rounds=5)
    assert result.verdict == "undecided"
    assert result.weights is not None
    check = verify(infeasible, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing
    feasible = make_instance(16, 12, n=8, seed=0)
    assert _solve(feasible, exact="none").verdict == "feasible"


def test_time_limit_gives_undecided_with_best_weights() -> None:
    instance = make_instance(12, 40, seed=0)
    result = solve_cutting_plane(instance, rank=12, margin=1.0, max_seconds=1e-9, seed=0)
    assert result.verdict == "undecided"
    assert result.weights is not None
    assert np.isfinite(result.min_margin)
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing
    assert result.details["stopped"] == "time_limit"


def test_exact_stage_that_cannot_fit_the_time_left_is_skipped() -> None:
    # An assumed NNLS iteration cost of 1e12 products rows.T @ (rows @ v) is
    # far more than the 600 s allowed: the exact stage must not start (before
    # the fix it ran unbounded), and the run ends undecided.
    instance = make_instance(4, 40, seed=1)  # infeasible (see above)
    result = solve_cutting_plane(
        instance,
        rank=4,
        margin=1.0,
        max_seconds=600.0,
        seed=0,
        options=CuttingPlaneOptions(first_order_rounds=1, exact="nnls", nnls_cost_factor=1e12),
    )
    assert result.verdict == "undecided"
    assert result.details["stage"] == "nnls"
    assert result.details["stopped"] == "time_limit"
    assert result.weights is not None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


@pytest.mark.parametrize(("d", "p", "seed"), [(4, 40, 1), (10, 31, 2), (12, 44, 5), (12, 36, 0)])
def test_wolfe_and_nnls_exact_stages_agree(d: int, p: int, seed: int) -> None:
    instance = make_instance(d, p, seed=seed)
    verdicts = set()
    for exact in ("wolfe", "nnls"):  # without the feasibility stage, which would decide first
        options = CuttingPlaneOptions(first_order_rounds=1, exact=exact, feasibility_first=False)
        result = solve_cutting_plane(
            instance, rank=d, margin=1.0, max_seconds=None, seed=0, options=options
        )
        assert result.details["stage"] == exact
        assert verify(instance, result)
        verdicts.add(result.verdict)
    assert len(verdicts) == 1
    assert verdicts != {"undecided"}


@pytest.mark.parametrize("status", ["iterations", "stalled"])
def test_wolfe_stage_that_does_not_finish_still_gives_a_checked_result(
    monkeypatch: pytest.MonkeyPatch, status: str
) -> None:
    """Never converging ends at the time limit; a stall returns the current point.

    Either way the verdict comes from the usual checks, so it can be anything
    but wrong.
    """
    from lamcap.solvers import min_norm_point

    monkeypatch.setattr(min_norm_point.CorralState, "run", lambda *_, **__: status)
    instance = make_instance(4, 40, seed=1)  # infeasible: only the exact stage decides it
    result = solve_cutting_plane(
        instance,
        rank=4,
        margin=1.0,
        max_seconds=0.5 if status == "iterations" else 30.0,
        seed=0,
        options=CuttingPlaneOptions(first_order_rounds=1),
    )
    assert result.details["stage"] == "wolfe"
    assert verify(instance, result).consistent  # re-checks; proves a verdict or nothing
    if status == "iterations":
        assert result.verdict == "undecided"
        assert result.details["stopped"] == "time_limit"
    else:
        assert result.verdict != "feasible"


def test_decided_runs_report_why_they_stopped() -> None:
    infeasible = _solve(make_instance(4, 40, seed=1))
    feasible = _solve(make_instance(10, 20, n=6, seed=3))
    assert (infeasible.verdict, infeasible.details["stopped"]) == ("infeasible", "decided")
    assert (feasible.verdict, feasible.details["stopped"]) == ("feasible", "decided")


def test_min_norm_point_past_its_iteration_cap_gives_none_not_an_error() -> None:
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((60, 9))  # 60 points in R^9: min-norm support of ~10
    assert _min_norm_point(rows, 1) is None
    beta = _min_norm_point(rows, 1000)
    assert beta is not None
    assert beta.min() >= 0.0
    assert abs(beta.sum() - 1.0) < 1e-12


GRID = [(8, p) for p in (18, 22, 27)] + [(10, p) for p in (25, 31)] + [(12, p) for p in (36, 44)]


@pytest.mark.slow
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_verdicts_agree_with_full_lp_on_a_seeded_grid(model: str) -> None:
    """Around the critical p (about 22, 31, 40 at d = 8, 10, 12)."""
    compared = 0
    for d, p in GRID:
        instance = make_instance(d, p, model=model, seed=d + p)
        ours = _solve(instance)
        assert ours.verdict != "undecided", (d, p)
        assert verify(instance, ours)
        reference = solve_full_lp(instance, rank=d, margin=1.0, max_seconds=60.0, seed=0)
        if reference.verdict != "undecided":
            assert ours.verdict == reference.verdict, (d, p)
            compared += 1
    assert compared >= len(GRID) - 1

"""Tests for the certified full-rank solver (lamcap.solvers._cutting_plane).

References are independent of the code that decides verdicts: feasible ``W``
are re-checked and certificates re-summed by the plain loops of
``tests/solvers/conftest.py``, and verdicts are compared with HiGHS on the
full LP (all constraints, no working set).  ``verify`` is also called, as the
user-facing check, never as the reference.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from lamcap.problems import Instance, make_instance
from lamcap.solvers import _cutting_plane as cutting_plane
from lamcap.solvers import verify
from lamcap.solvers._certificates import FEASIBILITY_TOLERANCE
from lamcap.solvers._constraints import WorkingSet
from lamcap.solvers._cutting_plane import (
    CuttingPlaneOptions,
    _candidates,
    _min_norm_point,
    solve_cutting_plane,
)
from lamcap.solvers._full_lp import solve_full_lp
from lamcap.solvers._result import SolveResult

Decided = Callable[[Instance, SolveResult], None]


def _solve(instance, **options):  # type: ignore[no-untyped-def]
    return solve_cutting_plane(
        instance,
        rank=instance.d,
        raw_margin=1.0,
        max_seconds=None,
        seed=0,
        options=CuttingPlaneOptions(**options),
    )


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_few_associations_are_verified_feasible(model: str, independently_decided: Decided) -> None:
    instance = make_instance(10, 20, n=6, model=model, seed=3)  # 6 * E|A| << d^2 = 100
    result = _solve(instance)
    assert result.verdict == "feasible"
    independently_decided(instance, result)
    assert result.min_margin > FEASIBILITY_TOLERANCE
    assert verify(instance, result)
    assert result.method == "cutting_plane"


@pytest.mark.parametrize("exact", ["nnls", "highs"])
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_overloaded_instances_get_a_checking_certificate(
    model: str, exact: str, independently_decided: Decided
) -> None:
    # n E|A| with n = p = 40, d = 4: about 40 * 3.6 = 144 >> d^2 = 16
    instance = make_instance(4, 40, model=model, seed=1)
    result = _solve(instance, exact=exact)
    assert result.verdict == "infeasible"
    independently_decided(instance, result)
    assert result.certificate is not None
    assert result.certificate.exact  # no W at all, not only none above a margin
    assert verify(instance, result)


def test_first_order_alone_is_never_wrong(independently_decided: Decided) -> None:
    infeasible = make_instance(4, 40, seed=1)
    result = _solve(infeasible, exact="none", max_rounds=5)
    assert result.verdict == "undecided"
    assert result.weights is not None
    check = verify(infeasible, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing
    feasible = make_instance(16, 12, n=8, seed=0)
    result = _solve(feasible, exact="none")
    assert result.verdict == "feasible"
    independently_decided(feasible, result)


def test_time_limit_gives_undecided_with_best_weights() -> None:
    instance = make_instance(12, 40, seed=0)
    result = solve_cutting_plane(instance, rank=12, raw_margin=1.0, max_seconds=1e-9, seed=0)
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
        raw_margin=1.0,
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
def test_wolfe_and_nnls_exact_stages_agree(
    d: int, p: int, seed: int, independently_decided: Decided
) -> None:
    instance = make_instance(d, p, seed=seed)
    verdicts = set()
    for exact in ("wolfe", "nnls"):  # without the feasibility stage, which would decide first
        options = CuttingPlaneOptions(first_order_rounds=1, exact=exact, feasibility_first=False)
        result = solve_cutting_plane(
            instance, rank=d, raw_margin=1.0, max_seconds=None, seed=0, options=options
        )
        assert result.details["stage"] == exact
        independently_decided(instance, result)
        verdicts.add(result.verdict)
    assert len(verdicts) == 1
    assert verdicts != {"undecided"}


@pytest.mark.parametrize(("d", "p", "seed"), [(4, 40, 1), (8, 27, 35), (10, 31, 2), (12, 44, 5)])
def test_large_dimension_mode_decides_like_the_default(
    d: int, p: int, seed: int, independently_decided: Decided, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The large-d path (early switch, 64 points per major cycle, corral sorted) at small d."""
    monkeypatch.setattr(cutting_plane, "SORT_MIN_CORRAL", 2)
    instance = make_instance(d, p, seed=seed)
    default = _solve(instance, feasibility_first=False)
    large = _solve(instance, feasibility_first=False, large_dimension=1)
    independently_decided(instance, large)
    assert large.verdict == default.verdict != "undecided"
    if large.verdict == "infeasible":
        assert large.details["stage"] == "wolfe"
        assert large.certificate is not None
        assert default.certificate is not None
        assert large.certificate.exact == default.certificate.exact


@pytest.mark.parametrize("large_dimension", [1, 96])
def test_wolfe_runs_exhaustively_from_the_large_dimension_on(
    large_dimension: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From large_dimension on, feasibility runs Wolfe without tolerances (a full corral)."""
    from lamcap.solvers._min_norm_point import CorralState

    calls: list[bool] = []
    run = CorralState.run

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(kwargs.get("exhaustive", False))
        return run(self, *args, **kwargs)

    monkeypatch.setattr(CorralState, "run", spy)
    monkeypatch.setattr(cutting_plane, "load_kernels", lambda: None)  # its own warm-up run
    instance = make_instance(6, 16, seed=0)  # infeasible
    result = _solve(instance, feasibility_first=False, large_dimension=large_dimension)
    assert result.verdict == "infeasible"
    assert calls
    assert set(calls) == {large_dimension <= instance.d}
    assert result.certificate is not None
    assert result.certificate.alpha.size == instance.d**2 + 1
    assert result.certificate.exact
    if large_dimension <= instance.d:  # the full corral went through the exchange pivots
        assert result.details["exchange"].startswith(f"{result.details['exchanges']} exchanges")
    else:
        assert "exchange" not in result.details


def test_dense_certificate_repairs_are_skipped_above_their_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    instance = make_instance(4, 12, seed=0)
    working = WorkingSet(instance.n, instance.d)
    mus = np.repeat(np.arange(instance.n), 2).astype(np.int64)
    rhos = ((instance.targets[mus] + 1 + np.tile([0, 1], instance.n)) % instance.p).astype(np.int64)
    working.add(mus, rhos, np.random.default_rng(0).standard_normal((mus.size, instance.d)))
    unit_inputs = instance.inputs / np.linalg.norm(instance.inputs, axis=1)[:, None]
    duals = np.full(working.size, 1.0 / working.size)
    assert len(list(_candidates(working, unit_inputs, duals, 10.0))) == 3
    monkeypatch.setattr(cutting_plane, "DENSE_ROWS_MAX_ENTRIES", working.size * 16 - 1)
    only = list(_candidates(working, unit_inputs, duals, 10.0))
    assert len(only) == 1
    assert only[0] is duals


def _two_clusters(seed: int) -> Instance:
    """One association whose constraints cluster around two nearly opposite directions.

    u_t - u_rho = s_rho c_(rho mod 2) + noise, with c_2 = -cos(theta) c_1 + sin(theta) w:
    feasible with a tiny margin (about theta), and the normalised constraints are two
    clusters of near-duplicates, which makes Wolfe's corral ill-conditioned.
    """
    rng = np.random.default_rng(seed)
    d, p = int(rng.integers(2, 4)), int(rng.integers(4, 10))
    noise, theta = 10.0 ** rng.uniform(-12, -7), 10.0 ** rng.uniform(-6, -2)
    first = rng.standard_normal(d)
    first /= np.linalg.norm(first)
    side = rng.standard_normal(d)
    side -= (side @ first) * first
    side /= np.linalg.norm(side)
    second = -np.cos(theta) * first + np.sin(theta) * side
    target = rng.standard_normal(d)
    rows = [target] + [
        target
        - rng.uniform(0.5, 2) * (first if rho % 2 else second)
        + noise * rng.standard_normal(d)
        for rho in range(1, p)
    ]
    return Instance.from_arrays(rng.standard_normal((1, d)), np.array([rows]), 0)


def test_wolfe_stall_by_rounding_returns_the_current_point(
    monkeypatch: pytest.MonkeyPatch, independently_decided: Decided
) -> None:
    """Data, not a patched corral, stalls Wolfe; the full pass then judges the current point.

    The statuses are only recorded (the real ``run`` does the work).  Without the
    stall exit the exact stage would call ``run`` forever (no time limit here): the
    test would then end at the pytest timeout.
    """
    from lamcap.solvers import _min_norm_point as min_norm_point

    statuses: list[str] = []
    run = min_norm_point.CorralState.run

    def recording(self, *arguments, **keywords):  # type: ignore[no-untyped-def]
        status = run(self, *arguments, **keywords)
        statuses.append(status)
        return status

    monkeypatch.setattr(min_norm_point.CorralState, "run", recording)
    stalled = 0
    for seed in (15, 18, 55, 104, 118):  # found by a search over _two_clusters seeds
        instance = _two_clusters(seed)
        statuses.clear()
        result = solve_cutting_plane(
            instance,
            rank=instance.d,
            raw_margin=1.0,
            max_seconds=None,
            seed=0,
            options=CuttingPlaneOptions(first_order_rounds=1, feasibility_first=False),
        )
        assert result.details["stage"] == "wolfe"
        independently_decided(instance, result)
        stalled += "stalled" in statuses
    assert stalled >= 1


def test_wolfe_stage_that_never_converges_ends_at_the_time_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A corral that never finishes, on a clock that advances 1 ms per reading (no wall clock)."""
    from lamcap.solvers import _cutting_plane as cutting_plane
    from lamcap.solvers import _min_norm_point as min_norm_point

    class Clock:
        now = 0.0

        def perf_counter(self) -> float:
            self.now += 1e-3
            return self.now

    monkeypatch.setattr(cutting_plane, "time", Clock())
    monkeypatch.setattr(min_norm_point.CorralState, "run", lambda *_, **__: "iterations")
    instance = make_instance(4, 40, seed=1)  # infeasible: only the exact stage decides it
    result = solve_cutting_plane(
        instance,
        rank=4,
        raw_margin=1.0,
        max_seconds=5.0,
        seed=0,
        options=CuttingPlaneOptions(first_order_rounds=1),
    )
    assert result.details["stage"] == "wolfe"
    assert result.details["stopped"] == "time_limit"
    assert result.verdict == "undecided"
    check = verify(instance, result)
    assert check.consistent
    assert not check


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
def test_verdicts_agree_with_full_lp_on_a_seeded_grid(
    model: str, independently_decided: Decided
) -> None:
    """Around the critical p (about 22, 31, 40 at d = 8, 10, 12)."""
    compared = 0
    for d, p in GRID:
        instance = make_instance(d, p, model=model, seed=d + p)
        ours = _solve(instance)
        assert ours.verdict != "undecided", (d, p)
        independently_decided(instance, ours)
        reference = solve_full_lp(instance, rank=d, raw_margin=1.0, max_seconds=60.0, seed=0)
        if reference.verdict != "undecided":
            assert ours.verdict == reference.verdict, (d, p)
            compared += 1
    assert compared >= len(GRID) - 1

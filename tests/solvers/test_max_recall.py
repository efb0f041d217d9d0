"""objective="max_recall": certified bounds on the number of associations one W recalls.

References are independent of the code under test: margins and Farkas bounds by the
plain loops of tests/solvers/conftest.py, the exact optimum of tiny instances by the
feasibility solver on every subset (brute force).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import lamcap
from lamcap.problems import Instance, hebbian_weights, make_instance
from lamcap.solvers import RECALL_VERDICTS, prove_infeasible, verify
from lamcap.solvers._max_recall import (
    recall_result,
    recalled_associations,
    solve_max_recall,
    subset_instance,
)

THRESHOLD = 1e-9


def _margins(loop_levels, instance: Instance, weights) -> np.ndarray:
    """Normalised margins, shape (n, p), targets +inf (plain loops)."""
    return loop_levels(instance, weights) / np.linalg.norm(weights)


def _independently_recalled(loop_levels, instance: Instance, result) -> None:
    """Every association counted recalled has all its normalised margins above 1e-9 (loops)."""
    assert result.recalled is not None
    assert result.recall_lower == result.recalled.size
    if result.recalled.size == 0:
        return
    margins = _margins(loop_levels, instance, result.weights)
    for mu in result.recalled.tolist():
        row = np.delete(margins[mu], instance.targets[mu])
        assert np.all(row > THRESHOLD), (mu, row.min())


def _independently_certified(dense_farkas_bound, instance: Instance, result) -> None:
    """Subsets disjoint, each certificate on its own associations and cancelling (loops)."""
    seen: set[int] = set()
    for subset in result.infeasible_subsets:
        members = set(subset.associations.tolist())
        assert not members & seen
        seen |= members
        certificate = subset.certificate
        named = set(certificate.associations[certificate.alpha > 0].tolist())
        assert named <= members
        assert dense_farkas_bound(instance, certificate) <= THRESHOLD
        if certificate.exact:
            assert prove_infeasible(instance, certificate).proven
    assert result.recall_upper == instance.n - len(result.infeasible_subsets)
    # the recalled set and a proven infeasible subset cannot coincide
    recalled = set(result.recalled.tolist())
    for subset in result.infeasible_subsets:
        assert not set(subset.associations.tolist()) <= recalled


def _brute_force_optimum(instance: Instance) -> int:
    """The largest subset the certified feasibility solver finds feasible (every size, top down)."""
    for size in range(instance.n, 0, -1):
        for chosen in itertools.combinations(range(instance.n), size):
            part = subset_instance(instance, np.array(chosen, dtype=np.int64))
            verdict = lamcap.solve(part, method="cutting_plane").verdict
            assert verdict != "undecided"
            if verdict == "feasible":
                return size
    return 0


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_below_capacity_everything_is_recalled(model, loop_levels):
    instance = make_instance(8, 10, model=model, seed=1)
    result = lamcap.solve(instance, objective="max_recall")
    assert result.verdict == "optimal"
    assert result.recall_lower == result.recall_upper == instance.n
    assert result.recalled.tolist() == list(range(instance.n))
    assert result.infeasible_subsets == ()
    assert result.recall_gap == 0
    _independently_recalled(loop_levels, instance, result)
    assert bool(verify(instance, result.weights))  # recalls every association: feasible W


@pytest.mark.parametrize(
    ("d", "p", "n", "model", "seed"),
    [
        (3, 4, 6, "decoupled", 0),  # optimum n
        (3, 6, 6, "original", 1),  # optimum 5 of 6
        (3, 8, 8, "decoupled", 4),  # optimum 6 of 8, two disjoint subsets
        (3, 8, 8, "original", 5),  # optimum 6 of 8, two disjoint subsets
        (4, 7, 7, "original", 3),
    ],
)
def test_tiny_instances_against_brute_force(d, p, n, model, seed, loop_levels, dense_farkas_bound):
    instance = make_instance(d, p, n=n, model=model, seed=seed)
    result = lamcap.solve(instance, objective="max_recall")
    best = _brute_force_optimum(instance)
    assert result.recall_lower <= best <= result.recall_upper
    assert result.recall_lower == best  # greedy re-insertion reaches it at this size
    assert result.verdict == ("optimal" if best == result.recall_upper else "bounded")
    _independently_recalled(loop_levels, instance, result)
    _independently_certified(dense_farkas_bound, instance, result)


@pytest.mark.parametrize("start", ["farkas", "adam", "l1", "hinge", "drop", "milp"])
def test_every_start_gives_certified_bounds(start, loop_levels, dense_farkas_bound):
    instance = make_instance(4, 8, n=10, seed=5)
    result = lamcap.solve(instance, objective="max_recall", options={"start": start})
    assert result.details["start"] == start
    assert 0 < result.recall_lower <= result.recall_upper < instance.n
    assert result.verdict in ("optimal", "bounded")
    _independently_recalled(loop_levels, instance, result)
    _independently_certified(dense_farkas_bound, instance, result)


def test_beyond_capacity_has_an_infeasible_subset(loop_levels, dense_farkas_bound):
    instance = make_instance(4, 14, seed=0)  # p = 1.6 p_c(4)
    result = lamcap.solve(instance, objective="max_recall", method="full_lp")
    assert result.method == "full_lp"
    assert len(result.infeasible_subsets) >= 1
    assert result.recall_upper < instance.n
    assert result.details["upper_exact"] == all(
        subset.certificate.exact for subset in result.infeasible_subsets
    )
    _independently_recalled(loop_levels, instance, result)
    _independently_certified(dense_farkas_bound, instance, result)
    assert "at most" in result.proven


def test_raw_margin_scales_the_recalled_associations(loop_levels):
    instance = make_instance(4, 10, seed=2)
    result = lamcap.solve(instance, objective="max_recall", raw_margin=2.5)
    levels = loop_levels(instance, result.weights, raw=True)
    lowest = min(
        np.delete(levels[mu], instance.targets[mu]).min() for mu in result.recalled.tolist()
    )
    assert lowest == pytest.approx(2.5, rel=1e-9)


@pytest.mark.parametrize("seconds", [1e-6, 0.05])
def test_max_seconds_still_gives_valid_bounds(seconds, loop_levels, dense_farkas_bound):
    instance = make_instance(6, 20, seed=3)
    result = lamcap.solve(instance, objective="max_recall", max_seconds=seconds)
    assert result.verdict in RECALL_VERDICTS
    assert 0 <= result.recall_lower <= result.recall_upper <= instance.n
    if result.recall_lower == 0 and result.recall_upper == instance.n:
        assert result.verdict == "undecided"
    _independently_recalled(loop_levels, instance, result)
    _independently_certified(dense_farkas_bound, instance, result)


def test_memory_guard_is_undecided(monkeypatch):
    from lamcap.solvers import _solve

    monkeypatch.setattr(_solve, "available_memory", lambda: 1)
    instance = make_instance(4, 10, seed=0)
    result = lamcap.solve(instance, objective="max_recall")
    assert result.verdict == "undecided"
    assert (result.recall_lower, result.recall_upper) == (0, instance.n)
    assert result.details["stopped"] == "memory"
    assert "memory" in result.details["reason"]
    assert result.proven == f"nothing beyond 0 <= recalled <= {instance.n}"


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"rank": 2}, "rank must equal d = 4"),
        ({"method": "adam_ce"}, "method must be one of"),
        ({"method": "two_layer"}, "method must be one of"),
        ({"method": "nope"}, "method must be one of"),
        ({"options": {"start": "best"}}, "start must be one of"),
        ({"options": {"shrink": 2}}, "shrink"),
        ({"options": {"steps": 10}}, "takes only"),
        ({"max_seconds": -1.0}, "max_seconds"),
        ({"raw_margin": 0.0}, "raw_margin"),
    ],
)
def test_bad_input(arguments, match):
    instance = make_instance(4, 10, seed=0)
    with pytest.raises(ValueError, match=match):
        lamcap.solve(instance, objective="max_recall", **arguments)


def test_l1_start_refuses_large_instances():
    from lamcap.solvers import _max_recall

    instance = make_instance(4, 10, seed=0)
    original = _max_recall._L1_MAX_ENTRIES, _max_recall._L1_AUTO_ENTRIES
    try:
        _max_recall._L1_MAX_ENTRIES = _max_recall._L1_AUTO_ENTRIES = 10
        with pytest.raises(ValueError, match="start='l1'"):
            lamcap.solve(instance, objective="max_recall", options={"start": "l1"})
        assert _max_recall.resolved_start(instance, "auto") == "drop"
        assert _max_recall.resolved_start(instance, "farkas") == "farkas"
    finally:
        _max_recall._L1_MAX_ENTRIES, _max_recall._L1_AUTO_ENTRIES = original


def test_recalled_associations_only_counts_verified_ones(loop_levels):
    instance = make_instance(6, 20, seed=4)
    trained = lamcap.solve(instance, method="adam_ce", options={"steps": 50})
    recalled = recalled_associations(instance, trained.weights)
    margins = _margins(loop_levels, instance, trained.weights)
    expected = [
        mu
        for mu in range(instance.n)
        if np.all(np.delete(margins[mu], instance.targets[mu]) > THRESHOLD)
    ]
    assert recalled.tolist() == expected
    assert recalled_associations(instance, np.zeros((6, 6))).tolist() == []


def test_recall_result_drops_claims_that_do_not_check():
    instance = make_instance(4, 14, seed=0)
    good = lamcap.solve(instance, objective="max_recall")
    subset = good.infeasible_subsets[0]
    forged = lamcap.solvers.FarkasCertificate(
        subset.certificate.associations,
        subset.certificate.competitors,
        subset.certificate.alpha * np.linspace(1.0, 2.0, subset.certificate.alpha.size),
        0.0,
    )
    bad = [type(subset)(subset.associations, forged)]
    assert recall_result(instance, None, bad, raw_margin=1.0, method="x").recall_upper == 14
    twice = [subset, subset]  # not disjoint: counted once
    assert recall_result(instance, None, twice, raw_margin=1.0, method="x").recall_upper == 13
    narrower = [type(subset)(subset.associations[1:], subset.certificate)]  # names others
    assert recall_result(instance, None, narrower, raw_margin=1.0, method="x").recall_upper == 14


def test_subset_instance_keeps_the_numbers():
    instance = make_instance(5, 4, n=6, seed=7)
    chosen = np.array([5, 0, 3])
    part = subset_instance(instance, chosen)
    assert part.inputs.tolist() == instance.inputs[chosen].tolist()
    assert part.targets.tolist() == instance.targets[chosen].tolist()
    for k, mu in enumerate(chosen.tolist()):
        assert np.array_equal(part.outputs(k), instance.outputs(mu))


def test_direct_call_without_solve():
    instance = make_instance(4, 6, seed=0)
    from lamcap.solvers._full_lp import solve_full_lp

    result = solve_max_recall(
        instance, method="full_lp", solver=solve_full_lp, raw_margin=1.0, max_seconds=None, seed=0
    )
    assert result.method == "full_lp"
    assert result.recall_lower <= result.recall_upper
    assert math.isfinite(result.seconds)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_beyond_capacity_at_d8(model, loop_levels, dense_farkas_bound):
    instance = make_instance(8, round(1.3 * lamcap.critical_p(8)), model=model, seed=0)
    result = lamcap.solve(instance, objective="max_recall")
    assert result.verdict == "bounded"
    assert 0.5 * instance.n < result.recall_lower < result.recall_upper < instance.n
    _independently_recalled(loop_levels, instance, result)
    _independently_certified(dense_farkas_bound, instance, result)


def test_verify_rechecks_a_max_recall_result():
    import dataclasses

    instance = make_instance(3, 8, seed=4)
    result = lamcap.solve(instance, objective="max_recall")
    check = verify(instance, result)
    assert bool(check)
    assert check.verdict == result.verdict == "optimal"
    assert check.proven == result.proven
    assert check.bound <= THRESHOLD
    one_more = np.union1d(result.recalled, [int(np.setdiff1d(np.arange(8), result.recalled)[0])])
    forged = dataclasses.replace(result, recalled=one_more, recall_lower=one_more.size)
    assert not verify(instance, forged)
    assert "not verified" in verify(instance, forged).reason
    doubled = dataclasses.replace(
        result,
        infeasible_subsets=result.infeasible_subsets * 2,
        recall_upper=instance.n - 2 * len(result.infeasible_subsets),
    )
    assert "not disjoint" in verify(instance, doubled).reason
    wrong = dataclasses.replace(result, verdict="bounded")
    assert not verify(instance, wrong)
    other = make_instance(3, 8, seed=5)
    assert "another instance" in verify(other, result).reason


def test_verify_of_an_undecided_max_recall_result_proves_nothing():
    instance = make_instance(4, 10, seed=0)
    result = recall_result(instance, None, [], raw_margin=1.0, method="cutting_plane")
    check = verify(instance, result)
    assert result.verdict == "undecided"
    assert not check
    assert check.consistent


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_hinge_loss_gradient_against_finite_differences(model):
    from lamcap.solvers._max_recall import _HingeLoss

    instance = make_instance(5, 9, n=7, model=model, seed=3)
    loss = _HingeLoss(instance)
    rng = np.random.default_rng(0)
    loss.weights = rng.uniform(0.5, 2.0, instance.n)
    flat = rng.standard_normal(instance.d**2)
    value, gradient = loss(flat)
    assert value > 0
    step = 1e-6
    for k in rng.choice(instance.d**2, 8, replace=False).tolist():
        shift = np.zeros_like(flat)
        shift[k] = step
        central = (loss(flat + shift)[0] - loss(flat - shift)[0]) / (2 * step)
        assert central == pytest.approx(gradient[k], rel=1e-5, abs=1e-7)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_hinge_loss_counts_violations_by_hand(model):
    """The loss at unit weights against margins from the plain loops of conftest."""
    from lamcap.solvers._max_recall import _HingeLoss

    instance = make_instance(4, 6, n=5, model=model, seed=2)
    W = np.random.default_rng(1).standard_normal((4, 4))
    expected = 0.0
    for mu in range(instance.n):
        e, outputs, t = instance.inputs[mu], instance.outputs(mu), instance.targets[mu]
        violations = []
        for rho in range(instance.p):
            if rho == t:
                continue
            level = (outputs[t] - outputs[rho]) @ W @ e
            scale = np.linalg.norm(e) * math.sqrt(
                outputs[t] @ outputs[t] + outputs[rho] @ outputs[rho]
            )
            violations.append(max(0.0, 1.0 - math.sqrt(instance.d) * level / scale))
        expected += sum(v**16 for v in violations) ** (2 / 16)
    assert _HingeLoss(instance)(W.ravel())[0] == pytest.approx(expected, rel=1e-12)


# 23 s on an idle core: the hinge start's descent at d = 8, p = 30, then each association
# re-inserted and each infeasible subset certified (no time limit); the hinge start's
# certified bounds stay in the fast tier (test_every_start_gives_certified_bounds[hinge])
@pytest.mark.slow
def test_hinge_start_beyond_capacity_recalls_most(loop_levels, dense_farkas_bound):
    instance = make_instance(8, 30, model="decoupled", seed=0)  # 1.6 p_c(8)
    result = lamcap.solve(instance, objective="max_recall", options={"start": "hinge"})
    assert result.details["start"] == "hinge"
    assert result.recall_lower >= 0.7 * instance.n  # the Hebbian W recalls far fewer
    assert result.recall_lower > recalled_associations(instance, hebbian_weights(instance)).size
    _independently_recalled(loop_levels, instance, result)
    _independently_certified(dense_farkas_bound, instance, result)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_drop_start_alone_recalls_most(model, loop_levels):
    import math

    from lamcap.solvers import _max_recall

    instance = make_instance(8, 30, model=model, seed=0)  # 1.6 p_c(8)
    runner = _max_recall._Runner(instance, lamcap.solve, math.inf, 0)
    kept, weights = _max_recall._drop_start(runner, math.inf)
    assert runner.solves == 0  # no call of the feasibility solver: the start is the hinge alone
    hebbian = recalled_associations(instance, hebbian_weights(instance)).size
    assert kept.size >= 0.7 * instance.n > hebbian
    margins = _margins(loop_levels, instance, weights)
    for mu in kept.tolist():
        assert np.all(np.delete(margins[mu], instance.targets[mu]) > THRESHOLD)


def test_drop_start_without_time_falls_back_to_the_hebbian_floor():
    import time

    from lamcap.solvers import _max_recall

    instance = make_instance(8, 30, seed=0)
    runner = _max_recall._Runner(instance, lamcap.solve, time.perf_counter() - 1.0, 0)
    kept, weights = _max_recall._drop_start(runner, time.perf_counter() - 1.0)
    assert kept.size == 0
    assert weights is None
    floor, _ = _max_recall._lower_bound(runner, "drop", time.perf_counter() - 1.0)
    assert floor.size == recalled_associations(instance, hebbian_weights(instance)).size


@pytest.mark.parametrize(
    ("d", "p", "n", "model", "seed"),
    [(3, 6, 6, "original", 1), (3, 8, 8, "decoupled", 4), (4, 7, 7, "original", 3)],
)
def test_milp_recall_against_brute_force(d, p, n, model, seed, loop_levels):
    from lamcap.solvers._max_recall import milp_recall

    instance = make_instance(d, p, n=n, model=model, seed=seed)
    found = milp_recall(instance, time_limit=60.0)
    best = _brute_force_optimum(instance)
    assert found.optimal
    assert found.incumbent == found.recalled.size == best
    assert found.bound == pytest.approx(best, abs=1e-6)
    margins = _margins(loop_levels, instance, found.weights)
    for mu in found.recalled.tolist():
        assert np.all(np.delete(margins[mu], instance.targets[mu]) > THRESHOLD)


def test_milp_start_reports_its_uncertified_bound():
    instance = make_instance(4, 8, n=10, seed=5)
    result = lamcap.solve(instance, objective="max_recall", options={"start": "milp"})
    assert result.details["milp_optimal"] is True
    assert result.details["milp_incumbent"] == result.recall_lower
    assert result.recall_lower <= result.details["milp_bound"] + 1e-6
    assert "milp_bound" not in lamcap.solve(instance, objective="max_recall").details


def test_unit_constraint_rows_refuse_large_instances_by_start():
    from lamcap.solvers import _max_recall

    instance = make_instance(4, 10, seed=0)
    original = _max_recall._L1_MAX_ENTRIES
    try:
        _max_recall._L1_MAX_ENTRIES = 10
        with pytest.raises(ValueError, match="start='milp' builds"):
            lamcap.solve(instance, objective="max_recall", options={"start": "milp"})
    finally:
        _max_recall._L1_MAX_ENTRIES = original


def test_hinge_start_refuses_what_it_cannot_hold():
    from lamcap.solvers import _max_recall

    instance = make_instance(4, 10, seed=0)
    original = _max_recall._HINGE_MAX_OUTPUTS, _max_recall._L1_AUTO_ENTRIES
    try:
        _max_recall._HINGE_MAX_OUTPUTS, _max_recall._L1_AUTO_ENTRIES = 100, 10
        for start in ("hinge", "drop"):
            with pytest.raises(ValueError, match=f"start='{start}' holds the n p d = 400 outputs"):
                lamcap.solve(instance, objective="max_recall", options={"start": start})
        assert _max_recall.resolved_start(instance, "auto") == "adam"
        shared = make_instance(4, 10, model="original", seed=0)  # holds one p x d matrix
        assert _max_recall.resolved_start(shared, "auto") == "drop"
    finally:
        _max_recall._HINGE_MAX_OUTPUTS, _max_recall._L1_AUTO_ENTRIES = original

"""Tests for lamcap.solvers._two_layer (rank-constrained trainer W = Q R^T).

Every feasible answer is re-checked here by a direct loop over associations
(argmax of u_rho^T Q R^T e_mu), independent of lamcap's margin code.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamcap
from lamcap.problems import Instance, make_instance
from lamcap.solvers import verify
from lamcap.solvers._two_layer import solve_rank_constrained, working_set_size


def _direct_raw_margins(instance: Instance, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """(u_t - u_rho)^T Q R^T e_mu for every association, min over competitors, by a plain loop."""
    margins = np.empty(instance.n)
    for mu in range(instance.n):
        outputs = instance.outputs(mu)
        s = outputs @ (left @ (right.T @ instance.inputs[mu]))
        target = instance.targets[mu]
        margins[mu] = s[target] - np.delete(s, target).max()
    return margins


@pytest.mark.parametrize(
    ("model", "d", "p", "rank"),
    [
        ("decoupled", 8, 10, 2),
        ("original", 8, 10, 2),
        ("decoupled", 12, 20, 4),
        ("original", 12, 20, 6),
        ("decoupled", 10, 12, 10),
    ],
)
def test_finds_verified_low_rank_solution_at_small_load(
    model: str, d: int, p: int, rank: int
) -> None:
    instance = make_instance(d, p, model=model, seed=3)
    result = solve_rank_constrained(instance, rank=rank, seed=0)
    assert result.verdict == "feasible"
    left, right = result.weights
    assert left.shape == right.shape == (d, rank)
    assert np.linalg.matrix_rank(left @ right.T) <= rank
    assert _direct_raw_margins(instance, left, right).min() > 0
    assert verify(instance, result)


def test_margin_is_a_scale_of_the_returned_factors() -> None:
    instance = make_instance(10, 12, seed=1)
    result = solve_rank_constrained(instance, rank=3, raw_margin=2.5, seed=0)
    assert result.verdict == "feasible"
    assert _direct_raw_margins(instance, *result.weights).min() >= 2.5 * (1 - 1e-9)


def test_reaches_beyond_fixed_random_right_factor_capacity() -> None:
    # d = 12, m = 3: with R fixed, n E[C_p] <= d m = 36 would cap p near 12
    # (E[C_12] ~ 2.3 by Monte Carlo of the cone projection); docs/theory/rank.md
    # predicts w_m^2 ~ 80, i.e. p ~ 28.  p = 20 must be reachable (n E[C_p] ~ 55 > 36).
    rng = np.random.default_rng(0)
    _, active = lamcap.project_onto_cone(rng.standard_normal((20000, 20)))
    assert 20 * active.mean() > 36 + 5 * 20 * active.std() / np.sqrt(20000)
    instance = make_instance(12, 20, seed=2)
    result = solve_rank_constrained(instance, rank=3, seed=0)
    assert result.verdict == "feasible"
    assert _direct_raw_margins(instance, *result.weights).min() > 0


def test_infeasible_only_with_full_rank_certificate() -> None:
    # d = 3 has 9 weights; n = p = 30 needs n E[C_p] ~ 95 >> d^2 = 9: infeasible even at full rank.
    instance = make_instance(3, 30, seed=0)
    result = solve_rank_constrained(instance, rank=1, seed=0, restarts=2, steps_per_restart=200)
    assert result.verdict == "infeasible"
    assert result.certificate is not None
    assert result.certificate.epsilon <= 1e-9
    assert verify(instance, result)
    without = solve_rank_constrained(
        instance, rank=1, seed=0, restarts=1, steps_per_restart=200, full_rank_check=False
    )
    assert without.verdict == "undecided"
    assert without.certificate is None
    assert without.weights is not None
    check = verify(instance, without)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_failure_above_rank_capacity_is_undecided_not_infeasible() -> None:
    # Full rank feasible (p = 10 << p_c(8) ~ 16) but rank 1 cannot store 10 associations.
    instance = make_instance(8, 10, seed=0)
    full = lamcap.solve(instance, method="auto")
    assert full.verdict == "feasible"
    result = solve_rank_constrained(instance, rank=1, seed=0, restarts=2, steps_per_restart=300)
    assert result.verdict == "undecided"
    assert result.details["full_rank_verdict"] == "feasible"
    assert result.weights is not None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_same_seed_same_factors_other_seed_other_factors() -> None:
    instance = make_instance(10, 14, model="original", seed=4)
    first = solve_rank_constrained(instance, rank=3, seed=7)
    second = solve_rank_constrained(instance, rank=3, seed=7)
    other = solve_rank_constrained(instance, rank=3, seed=8)
    assert first.iterations == second.iterations
    np.testing.assert_array_equal(first.weights[0], second.weights[0])
    np.testing.assert_array_equal(first.weights[1], second.weights[1])
    assert not np.array_equal(first.weights[0], other.weights[0])


def test_time_limit_gives_undecided_with_weights() -> None:
    instance = make_instance(8, 30, seed=0)
    result = solve_rank_constrained(instance, rank=2, max_seconds=1e-6, seed=0)
    assert result.verdict == "undecided"
    assert result.details["timed_out"]
    assert result.weights is not None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_registry_runs_the_trainer_below_full_rank() -> None:
    instance = make_instance(8, 10, seed=5)
    result = lamcap.solve(instance, rank=2)
    assert result.method == "two_layer"
    assert result.verdict == "feasible"
    assert verify(instance, result)


@pytest.mark.parametrize(
    ("arguments", "name", "accepted"),
    [
        ({"rank": 0}, "rank", r"\[1, 6\]"),
        ({"rank": 7}, "rank", r"\[1, 6\]"),
        ({"rank": 2.5}, "rank", "integer"),
        ({"rank": 2, "raw_margin": 0.0}, "raw_margin", r"\(0\.0, 1e\+100\]"),
        ({"rank": 2, "raw_margin": -1.0}, "raw_margin", r"\(0\.0, 1e\+100\]"),
        ({"rank": 2, "raw_margin": 1e101}, "raw_margin", r"\(0\.0, 1e\+100\]"),
        ({"rank": 2, "max_seconds": 0.0}, "max_seconds", "> 0"),
        ({"rank": 2, "seed": -1}, "seed", ">= 0"),
        ({"rank": 2, "restarts": 0}, "restarts", ">= 1"),
        ({"rank": 2, "learning_rate": float("nan")}, "learning_rate", "finite"),
    ],
)
def test_bad_input_names_argument_value_and_range(
    arguments: dict[str, float], name: str, accepted: str
) -> None:
    instance = make_instance(6, 5, seed=0)
    with pytest.raises(ValueError, match=rf"^{name} must .*{accepted}.*, got "):
        solve_rank_constrained(instance, **arguments)  # type: ignore[arg-type]


def test_not_an_instance_is_rejected() -> None:
    with pytest.raises(ValueError, match="instance"):
        solve_rank_constrained(np.zeros((3, 3)), rank=1)  # type: ignore[arg-type]


def test_working_set_covers_typical_active_set() -> None:
    # E|A| (= E[C_p]) by Monte Carlo of the projection; the working set must be well above it.
    rng = np.random.default_rng(1)
    for p in (10, 100, 1000):
        _, active = lamcap.project_onto_cone(rng.standard_normal((4000, p)))
        assert working_set_size(p) >= min(p - 1, 2 * active.mean())
        assert np.mean(active > working_set_size(p)) < 0.01


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_raw_min_margin_is_the_smallest_direct_margin(model: str) -> None:
    from lamcap.solvers._constraints import raw_min_margin

    instance = make_instance(9, 14, model=model, seed=5)
    left, right = np.random.default_rng(0).standard_normal((2, 9, 4))
    assert raw_min_margin(instance, left @ right.T) == pytest.approx(
        _direct_raw_margins(instance, left, right).min(), rel=1e-12, abs=1e-12
    )


def test_held_and_streamed_outputs_train_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    # The trainer scores through Instance.scored_blocks whichever way the instance
    # holds its outputs (the two paths differ in the last bits of the scores only).
    from lamcap import problems

    held = solve_rank_constrained(make_instance(12, 20, seed=3), rank=4, seed=0)
    monkeypatch.setattr(problems, "CACHE_LIMIT", 0)
    instance = make_instance(12, 20, seed=3)
    assert not instance.is_cached
    streamed = solve_rank_constrained(instance, rank=4, seed=0)
    assert held.verdict == streamed.verdict == "feasible"
    assert held.iterations == streamed.iterations
    np.testing.assert_allclose(streamed.weights[0], held.weights[0], rtol=1e-6, atol=1e-9)

"""Tests for lamcap.solvers._baselines (Hebbian rule, Adam on softmax cross-entropy).

Recall is re-checked by a direct loop over associations (argmax of the scores),
independent of lamcap's margin code.
"""

from __future__ import annotations

import numpy as np
import pytest

import lamcap
from lamcap.problems import Instance, make_instance
from lamcap.solvers import verify
from lamcap.solvers._baselines import solve_adam_cross_entropy, solve_hebbian
from lamcap.solvers._certificates import weights_matrix


def _direct_raw_margins(instance: Instance, weights: object) -> np.ndarray:
    """min_rho (u_t - u_rho)^T W e_mu per association, by a plain loop."""
    matrix = weights_matrix(weights, instance.d)
    margins = np.empty(instance.n)
    for mu in range(instance.n):
        s = instance.outputs(mu) @ (matrix @ instance.inputs[mu])
        target = instance.targets[mu]
        margins[mu] = s[target] - np.delete(s, target).max()
    return margins


# --------------------------------------------------------------------------- Hebbian
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_hebbian_feasible_at_very_small_load(model: str) -> None:
    instance = make_instance(64, 4, n=3, model=model, seed=0)
    result = solve_hebbian(instance, rank=64, raw_margin=1.0, max_seconds=None, seed=0)
    assert result.verdict == "feasible"
    assert _direct_raw_margins(instance, result.weights).min() == pytest.approx(1.0, rel=1e-9)
    assert verify(instance, result)


def test_hebbian_is_the_sum_of_outer_products() -> None:
    instance = make_instance(64, 4, n=3, seed=1)
    result = solve_hebbian(instance, raw_margin=1.0)
    outer = sum(np.outer(instance.outputs(mu)[0], instance.inputs[mu]) for mu in range(3))
    direction = result.weights / np.linalg.norm(result.weights)
    np.testing.assert_allclose(direction, outer / np.linalg.norm(outer), atol=1e-12)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_hebbian_failure_is_undecided_not_infeasible(model: str) -> None:
    # alpha = p log p / d^2 ~ 8 >> 1/8: the rule fails, yet the instance says nothing.
    instance = make_instance(8, 100, model=model, seed=0)
    result = solve_hebbian(instance)
    assert _direct_raw_margins(instance, result.weights).min() < 0
    assert result.verdict == "undecided"
    assert result.certificate is None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_hebbian_low_rank_returns_truncated_factors() -> None:
    instance = make_instance(32, 3, n=2, seed=2)
    result = solve_hebbian(instance, rank=2)
    left, right = result.weights
    assert left.shape == right.shape == (32, 2)
    # n = 2 associations: W_H has rank 2, so the truncation is exact.
    hebbian = lamcap.hebbian_weights(instance)
    matrix = left @ right.T
    np.testing.assert_allclose(
        matrix / np.linalg.norm(matrix), hebbian / np.linalg.norm(hebbian), atol=1e-10
    )
    assert result.verdict == "feasible"


# --------------------------------------------------------------------------- Adam / CE
@pytest.mark.parametrize(
    ("model", "rank"),
    [
        ("decoupled", None),
        ("original", None),
        ("decoupled", 3),
        ("original", 4),
    ],
)
def test_adam_cross_entropy_finds_solution_at_small_load(model: str, rank: int | None) -> None:
    instance = make_instance(10, 12, model=model, seed=1)
    result = solve_adam_cross_entropy(instance, rank=rank, seed=0)
    assert result.verdict == "feasible"
    assert _direct_raw_margins(instance, result.weights).min() == pytest.approx(1.0, rel=1e-9)
    if rank is not None:
        assert result.weights[0].shape == (10, rank)
    assert verify(instance, result)


def test_adam_cross_entropy_minibatches_also_succeed() -> None:
    instance = make_instance(10, 12, seed=2)
    result = solve_adam_cross_entropy(instance, seed=0, batch_size=5, learning_rate=0.3)
    assert result.verdict == "feasible"
    assert _direct_raw_margins(instance, result.weights).min() > 0


def test_adam_cross_entropy_never_claims_infeasible() -> None:
    # d = 3, n = p = 30: certified infeasible at full rank (n E[C_p] ~ 95 >> 9).
    instance = make_instance(3, 30, seed=0)
    assert lamcap.solve(instance, method="auto").verdict == "infeasible"
    result = solve_adam_cross_entropy(instance, seed=0, steps=200)
    assert result.verdict == "undecided"
    assert result.certificate is None
    assert result.iterations == 200
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_adam_cross_entropy_reproducible() -> None:
    instance = make_instance(8, 16, seed=3)
    first = solve_adam_cross_entropy(instance, seed=4, steps=50)
    second = solve_adam_cross_entropy(instance, seed=4, steps=50)
    other = solve_adam_cross_entropy(instance, seed=5, steps=50)
    np.testing.assert_array_equal(first.weights, second.weights)
    assert first.iterations == second.iterations
    assert not np.array_equal(first.weights, other.weights)


def test_adam_cross_entropy_time_limit_gives_undecided_with_weights() -> None:
    instance = make_instance(8, 30, seed=0)
    result = solve_adam_cross_entropy(instance, max_seconds=1e-6, seed=0)
    assert result.verdict == "undecided"
    assert result.details["timed_out"]
    assert result.weights is not None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing


def test_registry_names_reach_the_baselines() -> None:
    instance = make_instance(10, 12, seed=6)
    assert lamcap.solve(instance, method="hebbian").method == "hebbian"
    result = lamcap.solve(instance, method="adam_ce", rank=5)
    assert result.method == "adam_ce"
    assert result.verdict == "feasible"


@pytest.mark.parametrize("solver", [solve_hebbian, solve_adam_cross_entropy])
@pytest.mark.parametrize(
    ("arguments", "name", "accepted"),
    [
        ({"rank": 0}, "rank", r"\[1, 6\]"),
        ({"rank": 7}, "rank", r"\[1, 6\]"),
        ({"raw_margin": 0.0}, "raw_margin", r"\(0\.0, 1e\+100\]"),
        ({"raw_margin": float("inf")}, "raw_margin", r"\(0\.0, 1e\+100\]"),
        ({"max_seconds": -1.0}, "max_seconds", "> 0"),
        ({"seed": -2}, "seed", ">= 0"),
    ],
)
def test_bad_input_names_argument_value_and_range(
    solver: object, arguments: dict[str, float], name: str, accepted: str
) -> None:
    instance = make_instance(6, 5, seed=0)
    with pytest.raises(ValueError, match=rf"^{name} must .*{accepted}.*, got "):
        solver(instance, **arguments)  # type: ignore[operator]


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"steps": 0}, "steps"),
        ({"batch_size": 7}, "batch_size"),
        ({"stop_accuracy": 0.0}, "stop_accuracy"),
        ({"stop_accuracy": 1.01}, "stop_accuracy"),
        ({"stop_accuracy": float("nan")}, "stop_accuracy"),
    ],
)
def test_bad_training_options_are_rejected(arguments: dict[str, float], name: str) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must .*, got "):
        solve_adam_cross_entropy(make_instance(6, 5, seed=0), **arguments)  # type: ignore[arg-type]


def test_adam_cross_entropy_held_and_streamed_outputs_agree(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Scores come from Instance.scored_blocks on both paths of the one output cache.
    from lamcap import problems

    held = solve_adam_cross_entropy(make_instance(10, 16, seed=2), seed=0)
    monkeypatch.setattr(problems, "CACHE_LIMIT", 0)
    instance = make_instance(10, 16, seed=2)
    assert not instance.is_cached
    streamed = solve_adam_cross_entropy(instance, seed=0)
    assert held.verdict == streamed.verdict == "feasible"
    assert held.iterations == streamed.iterations
    np.testing.assert_allclose(streamed.weights, held.weights, rtol=1e-6, atol=1e-9)


def test_adam_cross_entropy_stops_at_the_requested_accuracy() -> None:
    # d = 8, n = p = 24 unit-norm associations sharing their outputs (the protocol of
    # arXiv:2412.06538), which Adam recalls entirely after a few dozen steps
    instance = make_instance(8, 24, model="original", embeddings="sphere", seed=1)
    full = solve_adam_cross_entropy(instance, seed=0, steps=1000)
    assert full.verdict == "feasible"
    partial = solve_adam_cross_entropy(instance, seed=0, steps=1000, stop_accuracy=0.5)
    recalled = int(np.count_nonzero(_direct_raw_margins(instance, partial.weights) > 0))
    assert partial.details["recalled"] == recalled  # counted as the direct loop counts
    assert partial.details["reached_accuracy"]
    assert 12 <= recalled < 24  # half of them reached, and not everything
    assert partial.verdict == "undecided"  # a partial recall proves nothing
    assert partial.iterations < full.iterations  # the first step that reached it
    check = verify(instance, partial)
    assert check.consistent


def test_adam_cross_entropy_reports_its_best_recall_when_it_fails() -> None:
    # just beyond capacity (certified infeasible): the most recalled at any step is reported
    instance = make_instance(8, 27, model="original", embeddings="sphere", seed=1)
    result = solve_adam_cross_entropy(instance, seed=0, steps=200, stop_accuracy=0.99)
    assert result.verdict == "undecided"
    assert not result.details["reached_accuracy"]
    recalled = int(np.count_nonzero(_direct_raw_margins(instance, result.weights) > 0))
    assert result.details["recalled"] == recalled <= result.details["best_recalled"] < 27


def test_adam_cross_entropy_stop_accuracy_one_is_the_default() -> None:
    instance = make_instance(8, 16, seed=3)
    default = solve_adam_cross_entropy(instance, seed=4, steps=50)
    explicit = lamcap.solve(
        instance, method="adam_ce", seed=4, options={"steps": 50, "stop_accuracy": 1.0}
    )
    np.testing.assert_array_equal(default.weights, explicit.weights)
    assert default.iterations == explicit.iterations

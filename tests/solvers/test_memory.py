"""Memory estimate of the exact stage against measured allocations, and the check in the solver."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from lamcap.problems import make_instance
from lamcap.solvers import _cutting_plane as cutting_plane
from lamcap.solvers import verify
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane
from lamcap.solvers._memory import available_memory, exact_stage_bytes
from lamcap.solvers._min_norm_point import CorralState


def _peak_bytes_of_wolfe(d: int, count: int, seed: int) -> tuple[int, int]:
    """Peak traced bytes of a warm-started Wolfe run grown to its largest corral, and the corral."""
    rng = np.random.default_rng(seed)
    directions = rng.standard_normal((count, d))
    owners = rng.integers(0, 3 * d, size=count).astype(np.int64)
    inputs = rng.standard_normal((3 * d, d))
    inputs /= np.linalg.norm(inputs, axis=1)[:, None]
    weights = rng.random(count)
    CorralState.empty(4).run(directions[:3], owners[:3], inputs, max_iterations=5)  # compiled
    CorralState.from_weights(directions[:3], owners[:3], inputs, np.ones(3), 4)  # its kernel too
    tracemalloc.start()
    capacity = min(d * d + 2, max(count + 1, 64))  # as the solver starts it
    state = CorralState.from_weights(directions, owners, inputs, weights, capacity)
    status = "capacity"
    while status == "capacity":
        status = state.run(directions, owners, inputs, max_iterations=100_000)
        if status == "capacity":
            state.grow(min(d * d + 2, 2 * state.factor.shape[0]))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, state.size


@pytest.mark.parametrize(("d", "count"), [(6, 400), (9, 300), (10, 2000), (10, 80), (12, 110)])
def test_wolfe_estimate_bounds_the_measured_peak(d: int, count: int) -> None:
    # Random points around the origin: the min-norm point is 0 and the corral
    # reaches about d^2 + 1 points, so the factor grows to its largest size.
    peak, size = _peak_bytes_of_wolfe(d, count, seed=d)
    assert size > d * d // 2  # the factor really grew
    estimate = exact_stage_bytes(d, count, "wolfe")
    assert peak <= estimate
    assert estimate <= 8 * peak + 8 * count * (d + 2)  # an upper estimate, not a wild one


def test_dense_estimate_covers_the_rows() -> None:
    assert exact_stage_bytes(20, 100, "nnls") >= 8 * 100 * 20**2
    assert exact_stage_bytes(20, 100, "highs") == exact_stage_bytes(20, 100, "nnls")


def test_available_memory_is_positive_and_plausible() -> None:
    assert 0 < available_memory() < 1 << 50


def test_exact_stage_without_memory_ends_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    instance = make_instance(4, 40, seed=1)  # infeasible: only the exact stage decides it
    options = CuttingPlaneOptions(first_order_rounds=1)
    decided = solve_cutting_plane(
        instance, rank=4, raw_margin=1.0, max_seconds=None, seed=0, options=options
    )
    assert decided.verdict == "infeasible"
    assert decided.details["exact_memory_bytes"] <= decided.details["available_memory_bytes"]
    monkeypatch.setattr(cutting_plane, "available_memory", lambda: 1000)
    result = solve_cutting_plane(
        instance, rank=4, raw_margin=1.0, max_seconds=None, seed=0, options=options
    )
    assert result.verdict == "undecided"
    assert result.details["stopped"] == "memory"
    assert result.details["stage"] == "wolfe"
    assert result.details["available_memory_bytes"] == 1000
    assert result.details["exact_memory_bytes"] > 1000
    assert result.weights is not None
    check = verify(instance, result)
    assert check.consistent  # every claim re-checks
    assert not check  # and an undecided result proves nothing

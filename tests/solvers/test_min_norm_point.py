"""Wolfe's min-norm point on rank-one matrices against scipy's NNLS on the dense rows."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import nnls

from lamcap.solvers.min_norm_point import CorralState, cholesky_in_place


def _points(d: int, n: int, per: int, shift: float, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    inputs = rng.standard_normal((n, d))
    inputs /= np.linalg.norm(inputs, axis=1)[:, None]
    owners = np.repeat(np.arange(n), per).astype(np.int64)
    directions = rng.standard_normal((n * per, d)) / np.sqrt(d) + shift * rng.standard_normal(d)
    return directions, owners, inputs


def _dense(directions: np.ndarray, owners: np.ndarray, inputs: np.ndarray) -> np.ndarray:
    rows = directions[:, :, None] * inputs[owners][:, None, :]
    return rows.reshape(rows.shape[0], -1)


def _nnls_min_norm(rows: np.ndarray) -> np.ndarray:
    """Independent route: Lawson–Hanson on [rows^T; 1] beta = e_last."""
    matrix = np.concatenate([rows.T, np.ones((1, rows.shape[0]))])
    right = np.zeros(matrix.shape[0])
    right[-1] = 1.0
    beta = nnls(matrix, right, maxiter=100_000)[0]
    return rows.T @ (beta / beta.sum())


CASES = [(3, 4, 3, 0.3), (4, 6, 5, 0.0), (5, 10, 4, 0.2), (6, 12, 6, 0.0), (8, 30, 5, 0.0)]


@pytest.mark.parametrize(("d", "n", "per", "shift"), CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_min_norm_point_matches_nnls(d: int, n: int, per: int, shift: float, seed: int) -> None:
    directions, owners, inputs = _points(d, n, per, shift, seed)
    expected = _nnls_min_norm(_dense(directions, owners, inputs))
    state = CorralState.empty(capacity=4)  # grows on demand
    status = "iterations"
    while status in ("iterations", "capacity"):
        if status == "capacity":
            state.grow(2 * state.factor.shape[0])
        status = state.run(directions, owners, inputs, max_iterations=7)
    point = state.point(directions, owners, inputs).ravel()
    np.testing.assert_allclose(point, expected, rtol=0, atol=1e-10)
    weights = state.convex_weights(directions.shape[0])
    assert weights.min() >= 0.0
    assert abs(weights.sum() - 1.0) < 1e-12
    assert state.size <= d * d + 1
    if status == "zero":
        assert np.linalg.norm(point) < 1e-10
    else:
        assert status == "optimal"
        levels = _dense(directions, owners, inputs) @ point
        assert levels.min() >= point @ point - 1e-10  # x is the max-margin direction


def test_factor_stays_a_cholesky_factor_of_the_augmented_gram() -> None:
    directions, owners, inputs = _points(6, 12, 6, 0.0, 3)
    state = CorralState.empty(capacity=40)
    state.run(directions, owners, inputs, max_iterations=30)  # includes deletions
    rows = _dense(directions, owners, inputs)[state.corral[: state.size]]
    augmented = 1.0 + rows @ rows.T
    factor = state.factor[: state.size, : state.size]
    assert np.allclose(np.triu(factor, 1), 0.0)
    np.testing.assert_allclose(factor @ factor.T, augmented, rtol=0, atol=1e-10)
    np.testing.assert_allclose(factor @ state.solved[: state.size], 1.0, rtol=0, atol=1e-10)


def test_renumbered_warm_start_reaches_the_same_point() -> None:
    directions, owners, inputs = _points(5, 10, 4, 0.2, 4)
    cold = CorralState.empty(capacity=30)
    assert cold.run(directions, owners, inputs, max_iterations=1000) == "optimal"
    state = CorralState.empty(capacity=30)
    state.run(directions, owners, inputs, max_iterations=5)
    order = np.random.default_rng(0).permutation(directions.shape[0])  # new positions
    position = np.argsort(order)
    state.renumber(position[state.corral[: state.size]])
    status = state.run(directions[order], owners[order], inputs, max_iterations=1000)
    assert status == "optimal"
    np.testing.assert_allclose(
        state.point(directions[order], owners[order], inputs),
        cold.point(directions, owners, inputs),
        rtol=0,
        atol=1e-12,
    )


def test_rounding_stall_keeps_a_convex_combination() -> None:
    """Two clusters of near-duplicate unit points make the corral ill-conditioned.

    Rounding then stops Wolfe's progress ("stalled", triggered by the data alone);
    the weights must still be a convex combination of corral points, so the point
    handed to the cutting plane's full pass is a legitimate candidate.
    """
    rng = np.random.default_rng(0)
    stalls = 0
    for _ in range(40):
        centers = rng.standard_normal((2, 3))
        points = centers[rng.integers(0, 2, 8)] + 1e-9 * rng.standard_normal((8, 3))
        points /= np.linalg.norm(points, axis=1)[:, None]
        owners = np.zeros(8, dtype=np.int64)
        inputs = np.array([[1.0]])
        state = CorralState.empty(10)
        if state.run(points, owners, inputs, max_iterations=1000) != "stalled":
            continue
        stalls += 1
        weights = state.convex_weights(8)
        assert weights.min() >= 0.0
        assert abs(weights.sum() - 1.0) < 1e-12
        point = state.point(points, owners, inputs)
        np.testing.assert_allclose(point[:, 0], weights @ points, atol=1e-15)
    assert stalls >= 5


@pytest.mark.parametrize(("size", "block"), [(1, 4), (7, 3), (64, 16), (130, 32)])
def test_blocked_cholesky_matches_lapack(size: int, block: int) -> None:
    rng = np.random.default_rng(size)
    factors = rng.standard_normal((size, size + 3))
    matrix = factors @ factors.T
    reference = np.linalg.cholesky(matrix)
    blocked = matrix.copy()
    blocked[np.triu_indices(size, 1)] = np.nan  # only the lower triangle may be read
    cholesky_in_place(blocked, block=block)
    assert np.allclose(blocked, reference, rtol=1e-10, atol=1e-10 * np.abs(reference).max())
    assert np.all(np.triu(blocked, 1) == 0.0)


def test_blocked_cholesky_refuses_an_indefinite_matrix() -> None:
    matrix = np.diag([1.0, 1.0, 1.0, -1.0, 1.0])
    with pytest.raises(np.linalg.LinAlgError):
        cholesky_in_place(matrix, block=2)

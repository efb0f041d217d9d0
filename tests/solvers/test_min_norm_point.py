"""Wolfe's min-norm point on rank-one matrices against scipy's NNLS on the dense rows."""

from __future__ import annotations

import subprocess
import sys

import numba
import numpy as np
import pytest
from scipy.linalg import solve_triangular
from scipy.optimize import nnls

from lamcap.solvers import _min_norm_point as min_norm_module
from lamcap.solvers._min_norm_point import (
    FORWARD_BLOCK,
    OPTIMALITY_TOLERANCE,
    ZERO_TOLERANCE,
    CorralState,
    _affine_minimiser,
    _append_many,
    _argmin,
    _candidate_entries,
    _candidates,
    _delete,
    _forward_solve_many,
    _largest_magnitude,
    _normalise,
    _point,
    _squared_norm,
    _step_and_drop,
    _wolfe,
    cholesky_in_place,
)


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
@pytest.mark.parametrize("batch", [1, 5])
def test_min_norm_point_matches_nnls(
    d: int, n: int, per: int, shift: float, seed: int, batch: int
) -> None:
    directions, owners, inputs = _points(d, n, per, shift, seed)
    expected = _nnls_min_norm(_dense(directions, owners, inputs))
    state = CorralState.empty(capacity=4)  # grows on demand
    status = "iterations"
    while status in ("iterations", "capacity"):
        if status == "capacity":
            state.grow(2 * state.factor.shape[0])
        status = state.run(directions, owners, inputs, max_iterations=7, batch=batch)
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


@pytest.mark.parametrize("batch", [1, 8])
def test_factor_stays_a_cholesky_factor_of_the_augmented_gram(batch: int) -> None:
    directions, owners, inputs = _points(6, 12, 6, 0.0, 3)
    state = CorralState.empty(capacity=40)
    state.run(directions, owners, inputs, max_iterations=30, batch=batch)  # with deletions
    rows = _dense(directions, owners, inputs)[state.corral[: state.size]]
    augmented = 1.0 + rows @ rows.T
    factor = state.cholesky_factor()
    assert np.allclose(np.triu(factor, 1), 0.0)
    assert not state.factor[state.rows[: state.size], state.size :].any()  # zero right of L
    assert not state.factor[state.rows[state.size :]].any()  # free storage rows are zero
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


def test_sorting_by_weight_keeps_the_point_and_refactorises_the_corral() -> None:
    directions, owners, inputs = _points(6, 12, 6, 0.3, 5)
    reference = CorralState.empty(capacity=40)
    assert reference.run(directions, owners, inputs, max_iterations=1000) == "optimal"
    state = CorralState.empty(capacity=40)
    state.run(directions, owners, inputs, max_iterations=12, batch=4)  # part of the way
    before = state.point(directions, owners, inputs)
    members = set(state.corral[: state.size].tolist())
    assert state.sort_by_weight(directions, owners, inputs)
    weights = state.weights[: state.size]
    assert set(state.corral[: state.size].tolist()) == members
    assert np.all(np.diff(weights) <= 0.0)
    np.testing.assert_allclose(state.point(directions, owners, inputs), before, atol=1e-15)
    rows = _dense(directions, owners, inputs)[state.corral[: state.size]]
    factor = state.cholesky_factor()
    np.testing.assert_allclose(factor @ factor.T, 1.0 + rows @ rows.T, rtol=0, atol=1e-10)
    np.testing.assert_allclose(factor @ state.solved[: state.size], 1.0, rtol=0, atol=1e-10)
    assert np.all(state.factor[state.size :] == 0.0)
    assert state.run(directions, owners, inputs, max_iterations=1000, batch=4) == "optimal"
    np.testing.assert_allclose(
        state.point(directions, owners, inputs).ravel(),
        _nnls_min_norm(_dense(directions, owners, inputs)),
        rtol=0,
        atol=1e-10,
    )
    np.testing.assert_allclose(
        state.point(directions, owners, inputs),
        reference.point(directions, owners, inputs),
        rtol=0,
        atol=1e-10,
    )


def test_sorting_a_dependent_corral_empties_the_state() -> None:
    directions = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])  # two identical points
    owners = np.zeros(3, dtype=np.int64)
    inputs = np.array([[1.0, 0.0]])
    state = CorralState.empty(capacity=5)
    state.corral[:3] = [0, 1, 2]
    state.weights[:3] = [0.5, 0.3, 0.2]
    state.size = 3
    assert not state.sort_by_weight(directions, owners, inputs)
    assert state.size == 0
    status = state.run(directions, owners, inputs, max_iterations=50)  # a cold start again
    assert status == "optimal"
    np.testing.assert_allclose(state.point(directions, owners, inputs)[:, 0], [0.5, 0.5])


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


def _nearly_zero_corral(dimension: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Points in R^D: D - 1 whose hull misses the origin by 1e-11, and two that put it inside.

    Returns the D + 1 points and warm-start weights on the first D - 1.  The
    origin is in the hull of all D + 1 (generic, so only of all of them).
    """
    rng = np.random.default_rng(seed)
    near = rng.standard_normal((dimension - 1, dimension)) / np.sqrt(dimension)
    weights = rng.uniform(0.5, 1.5, dimension - 1)
    normal = np.linalg.svd(near[:-1].T)[0][:, -1]  # orthogonal to the first D - 2 points
    near[-1] = -(weights[:-1] @ near[:-1]) / weights[-1] + 1e-11 * normal
    sideways = rng.standard_normal(dimension)
    sideways -= (sideways @ normal) * normal
    sideways /= np.linalg.norm(sideways)
    points = np.concatenate([near, [-normal + 0.3 * sideways, -normal - 0.3 * sideways]])
    return points, np.concatenate([weights, [0.0, 0.0]])


@pytest.mark.parametrize("seed", range(5))
def test_exhaustive_run_fills_the_corral(seed: int) -> None:
    """With the tolerances Wolfe calls x zero on D - 1 points; exhaustive, it goes on to D + 1.

    Only a corral of D + 1 points can carry an exact Farkas vector for generic
    points (prove_infeasible needs a support of more than D constraints).
    """
    dimension = 8
    points, weights = _nearly_zero_corral(dimension, seed)
    owners = np.zeros(dimension + 1, dtype=np.int64)
    inputs = np.array([[1.0]])
    default = CorralState.from_weights(points, owners, inputs, weights, dimension + 2)
    assert default.run(points, owners, inputs, max_iterations=1000) == "zero"
    assert default.size == dimension - 1
    full = CorralState.from_weights(points, owners, inputs, weights, dimension + 2)
    status = full.run(points, owners, inputs, max_iterations=1000, exhaustive=True)
    assert status in ("stalled", "optimal", "zero")
    assert full.size == dimension + 1
    assert full.squared_norm < 1e-3 * default.squared_norm
    convex = full.convex_weights(dimension + 1)
    assert convex.min() > 0
    assert np.linalg.norm(convex @ points) < 1e-14


@pytest.mark.parametrize("interpreted", [False, True])
@pytest.mark.parametrize("exhaustive", [False, True])
def test_wolfe_kernel_matches_its_python_function(
    interpret, exhaustive: bool, interpreted: bool
) -> None:  # type: ignore[no-untyped-def]
    """The compiled kernel against its py_func on the same warm start (batch 1 and 3).

    ``interpreted``: the py_func's helpers run as Python too (the compiled
    kernel inlines most of them).
    """
    points, weights = _nearly_zero_corral(8, 0)
    owners = np.zeros(points.shape[0], dtype=np.int64)
    inputs = np.array([[1.0]])
    tolerances = (0.0, 0.0) if exhaustive else (ZERO_TOLERANCE, OPTIMALITY_TOLERANCE)
    compiled_state = CorralState.from_weights(points, owners, inputs, weights, 10)
    _wolfe(points, owners, inputs, compiled_state.corral, compiled_state.weights,
           compiled_state.factor, compiled_state.rows, compiled_state.solved, compiled_state.size,
           1, np.empty(points.shape[0]), True, 3, *tolerances)  # fmt: skip
    if interpreted:  # compiled above: numba reads the module's globals when it compiles
        interpret(min_norm_module)
    for batch in (1, 3):
        outcomes = []
        for kernel in (
            _wolfe,
            min_norm_module._wolfe.py_func if not interpreted else min_norm_module._wolfe,
        ):
            state = CorralState.from_weights(points, owners, inputs, weights, 10)
            levels = np.empty(points.shape[0])
            result = kernel(
                points, owners, inputs, state.corral, state.weights, state.factor,
                state.rows, state.solved, state.size, 1000, levels, True, batch, *tolerances,
            )  # fmt: skip
            outcomes.append((result, state.corral[: result[1]].copy(), state.weights.copy()))
        (compiled, corral, compiled_weights), (python, python_corral, python_weights) = outcomes
        assert compiled[:3] == python[:3]
        assert compiled[3] == pytest.approx(python[3], rel=1e-6, abs=1e-30)
        np.testing.assert_array_equal(corral, python_corral)
        np.testing.assert_allclose(compiled_weights, python_weights, rtol=1e-9, atol=1e-15)


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


@pytest.mark.parametrize("k", [1, FORWARD_BLOCK - 1, FORWARD_BLOCK, 2 * FORWARD_BLOCK + 37])
def test_blocked_forward_substitution_matches_scipy_and_its_python_version(k: int) -> None:
    rng = np.random.default_rng(k)
    points = rng.standard_normal((k + 3, 2 * k + 8))
    lower = np.zeros((k + 5, k + 5))
    lower[: k + 3, : k + 3] = np.linalg.cholesky(1.0 + points @ points.T / k)
    rows = rng.permutation(k + 5)  # row i of L lives in storage row rows[i]
    factor = np.empty_like(lower)
    factor[rows] = lower
    right = rng.standard_normal((k, 5))
    expected = solve_triangular(lower[:k, :k], right, lower=True)
    for kernel in (_forward_solve_many, _forward_solve_many.py_func):
        solved = right.copy()
        kernel(factor, rows, k, solved)
        np.testing.assert_allclose(solved, expected, rtol=0, atol=1e-11 * np.abs(expected).max())


def _factored(points: np.ndarray, k: int, capacity: int) -> tuple[np.ndarray, ...]:
    """Augmented Gram matrix of ``points``, its first ``k`` points factored in a ``capacity`` storage, z."""
    augmented = 1.0 + points @ points.T
    factor = np.zeros((capacity, capacity))
    factor[:k, :k] = np.linalg.cholesky(augmented[:k, :k])
    solved = np.zeros(capacity)
    solved[:k] = solve_triangular(factor[:k, :k], np.ones(k), lower=True)
    return augmented, factor, solved


def test_block_append_kernel_matches_its_python_version_and_one_by_one_appends() -> None:
    rng = np.random.default_rng(7)
    points = rng.standard_normal((9, 12))
    points[8] = 0.5 * points[2] + 0.5 * points[6]  # candidate 2 of 3: affinely dependent
    k = 6
    augmented, factor, solved = _factored(points, k, 10)
    cross = augmented[k:, :k].copy()
    among = augmented[k:, k:].copy()
    results = []
    for kernel in (_append_many, _append_many.py_func):
        f, z, accepted = factor.copy(), solved.copy(), np.empty(3, dtype=np.int64)
        kept = kernel(f, np.arange(10), z, k, cross, among, accepted)
        results.append((kept, accepted[:kept].copy(), f, z))
    (kept, accepted, f, z), (kept_py, accepted_py, f_py, z_py) = results
    assert kept == kept_py == 2
    assert accepted.tolist() == accepted_py.tolist() == [0, 1]
    np.testing.assert_allclose(f[:8, :8], f_py[:8, :8], rtol=0, atol=1e-14)
    members = [0, 1, 2, 3, 4, 5, 6, 7]
    np.testing.assert_allclose(f[:8, :8] @ f[:8, :8].T, augmented[np.ix_(members, members)])
    np.testing.assert_allclose(f[:8, :8] @ z[:8], 1.0)
    np.testing.assert_allclose(z_py[:8], z[:8], rtol=0, atol=1e-14)


@pytest.mark.parametrize("position", [0, 1, 5, 9, 10])
def test_deleting_a_member_leaves_the_cholesky_factor_of_the_others(position: int) -> None:
    """One-pass deletion against LAPACK's factor of the remaining Gram matrix (and its py_func)."""
    rng = np.random.default_rng(position)
    points = rng.standard_normal((11, 14))
    augmented, factor, solved = _factored(points, 11, 12)
    kept = [member for member in range(11) if member != position]
    expected = np.linalg.cholesky(augmented[np.ix_(kept, kept)])
    storage = np.random.default_rng(99).permutation(12)  # row i of L in storage row storage[i]
    for kernel in (_delete, _delete.py_func):
        f, z, rows = np.empty_like(factor), solved.copy(), storage.copy()
        f[rows] = factor
        corral, weights = np.arange(12, dtype=np.int64), np.linspace(0.0, 1.0, 12)
        kernel(f, rows, z, 11, position, corral, weights)
        assert sorted(rows.tolist()) == list(range(12))
        np.testing.assert_allclose(f[rows[:10], :10], expected, rtol=0, atol=1e-12)
        assert not f[rows[:10], 10:].any()  # zero right of the diagonal
        assert not f[rows[10:]].any()  # the freed storage row is cleared
        np.testing.assert_allclose(z[:10], solve_triangular(expected, np.ones(10), lower=True))
        assert corral[:10].tolist() == kept
        np.testing.assert_array_equal(weights[:10], np.linspace(0.0, 1.0, 12)[kept])


def test_minor_step_drops_the_blocking_point_and_matches_its_python_version() -> None:
    rng = np.random.default_rng(5)
    points = rng.standard_normal((7, 9))
    augmented, factor, solved = _factored(points, 7, 8)
    weights = np.array([0.3, 0.1, 0.2, 0.15, 0.05, 0.2, 0.0, 0.0])
    affine = np.array([0.4, -0.1, 0.3, 0.2, 0.1, 0.05, 0.05, 0.0])
    step = 0.1 / (0.1 + 0.1)  # point 1 reaches zero weight first
    outcomes = []
    for kernel in (_step_and_drop, _step_and_drop.py_func):
        f, z, w = factor.copy(), solved.copy(), weights.copy()
        corral, rows = np.arange(8), np.arange(8)
        size = kernel(f, rows, z, 7, corral, w, affine.copy(), step, 1)
        lower = f[rows[:size], :size]  # row i of L in storage row rows[i]
        outcomes.append((size, corral[:size].tolist(), w[:size].copy(), lower))
    (size, corral, w, f), (size_py, corral_py, w_py, f_py) = outcomes
    assert size == size_py == 6
    assert corral == corral_py == [0, 2, 3, 4, 5, 6]
    expected = weights[[0, 2, 3, 4, 5, 6]] + step * (affine - weights)[[0, 2, 3, 4, 5, 6]]
    np.testing.assert_allclose(w, expected / expected.sum(), rtol=1e-14)
    np.testing.assert_allclose(w_py, w, rtol=1e-14)
    kept = [0, 2, 3, 4, 5, 6]
    np.testing.assert_allclose(f @ f.T, augmented[np.ix_(kept, kept)], atol=1e-12)
    np.testing.assert_allclose(f_py, f, atol=1e-14)


def test_candidate_entries_are_the_augmented_gram_and_match_their_python_version() -> None:
    directions, owners, inputs = _points(4, 5, 3, 0.1, 2)
    augmented = 1.0 + _dense(directions, owners, inputs) @ _dense(directions, owners, inputs).T
    chosen, corral = np.array([7, 2, 11]), np.array([0, 5, 9, 14, 3])
    for kernel in (_candidate_entries, _candidate_entries.py_func):
        cross, among = kernel(directions, owners, inputs, chosen, corral, 4)
        np.testing.assert_allclose(cross, augmented[np.ix_(chosen, corral[:4])], rtol=1e-14)
        np.testing.assert_allclose(among, augmented[np.ix_(chosen, chosen)], rtol=1e-14)


def test_candidate_selection_matches_its_python_version() -> None:
    levels = np.array([0.5, -1.0, 0.2, -3.0, 0.9, -2.0, 0.1])
    member = np.array([False, False, False, True, False, False, False])
    for kernel in (_candidates, _candidates.py_func):
        chosen = kernel(levels, member, 0.3, 5, 4)
        assert chosen.tolist() == [5, 1, 6, 2]  # best first, members and levels >= 0.3 skipped


_LOADED_THEN_SOLVED = """
from lamcap.problems import make_instance
from lamcap.solvers import _min_norm_point as min_norm_point
from lamcap.solvers import CuttingPlaneOptions, solve_cutting_plane

kernels = (min_norm_point._wolfe, min_norm_point._forward_rows, min_norm_point.constraint_levels)
min_norm_point.load_kernels()
print([len(kernel.signatures) for kernel in kernels])
instance = make_instance(6, 16, seed=0)  # infeasible: the exact stage decides it
for large in (6, 96):  # the large-d path (batches, sorted corral) and the other
    options = CuttingPlaneOptions(first_order_rounds=1, large_dimension=large)
    result = solve_cutting_plane(
        instance, rank=6, raw_margin=1.0, max_seconds=None, seed=0, options=options
    )
    assert result.verdict == "infeasible"
print([len(kernel.signatures) for kernel in kernels])
"""


def test_loaded_kernels_are_the_ones_the_solver_calls() -> None:
    # load_kernels runs before the exact stage's memory check: a solve after it
    # must not compile another specialisation (that would land after the check).
    # A fresh process, so that no other test has compiled the solver's kernels.
    output = subprocess.run(
        [sys.executable, "-c", _LOADED_THEN_SOLVED],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    ).stdout.splitlines()
    assert output[0] == output[1] == "[1, 1, 1]"


@numba.njit
def _reductions_as_before(values, k, matrix):  # type: ignore[no-untyped-def]
    """numba's np.sum, np.max(np.abs(...)), np.argmin and np.sum(x * x): what the helpers replace."""
    return (
        np.sum(values[:k]),
        np.max(np.abs(values[:k])),
        np.argmin(values),
        np.sum(matrix * matrix),
    )


@pytest.mark.parametrize("seed", range(4))
def test_reduction_helpers_are_the_numpy_reductions_they_replace_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(257) * np.exp(rng.uniform(-20.0, 20.0, size=257))
    values[rng.integers(0, 257, size=5)] = values[3]  # ties for argmin
    matrix = rng.standard_normal((9, 13)) * 1e3
    k = int(rng.integers(1, 257))
    total, largest, smallest, squares = _reductions_as_before(values, k, matrix)
    for normalise, magnitude, argmin, squared in (
        (_normalise, _largest_magnitude, _argmin, _squared_norm),
        (_normalise.py_func, _largest_magnitude.py_func, _argmin.py_func, _squared_norm.py_func),
    ):
        normalised = values.copy()
        normalise(normalised, k)
        assert np.array_equal(normalised[:k], values[:k] / total)
        assert np.array_equal(normalised[k:], values[k:])
        assert magnitude(values, k) == largest
        assert argmin(values) == smallest
        assert squared(matrix) == squares


def test_reduction_helpers_follow_numpy_on_nan_and_empty_input() -> None:
    values = np.array([2.0, -5.0, np.nan, -7.0, np.nan])
    for magnitude, argmin in (
        (_largest_magnitude, _argmin),
        (_largest_magnitude.py_func, _argmin.py_func),
    ):
        assert np.isnan(magnitude(values, 4))  # the first NaN, as np.max
        assert magnitude(values, 2) == 5.0
        assert argmin(values) == 2  # the first NaN's index, as np.argmin
        assert argmin(np.array([3.0, 1.0, 1.0])) == 1
        with pytest.raises(ValueError, match="zero-size"):
            magnitude(values, 0)
        with pytest.raises(ValueError, match="empty sequence"):
            argmin(np.empty(0))


def test_point_and_affine_minimiser_equal_their_py_funcs() -> None:
    directions, owners, inputs = _points(5, 6, 4, 0.2, 3)
    rng = np.random.default_rng(3)
    corral = rng.permutation(directions.shape[0])[:7].astype(np.int64)
    weights = rng.dirichlet(np.ones(7))
    compiled = _point(directions, owners, inputs, corral, weights, 7)
    python = _point.py_func(directions, owners, inputs, corral, weights, 7)
    np.testing.assert_allclose(compiled, python, rtol=1e-13, atol=1e-15)
    chosen = corral[:5]
    expected = (directions[chosen] * weights[:5, None]).T @ inputs[owners[chosen]]
    np.testing.assert_allclose(
        _point(directions, owners, inputs, corral, weights, 5), expected, rtol=1e-13, atol=1e-15
    )
    augmented, factor, solved = _factored(rng.standard_normal((7, 12)), 7, 9)  # independent
    for kernel in (_affine_minimiser, _affine_minimiser.py_func):
        out = np.full(9, np.nan)
        kernel(factor, np.arange(9, dtype=np.int64), solved, 7, out)
        inverse_ones = np.linalg.solve(augmented[:7, :7], np.ones(7))
        np.testing.assert_allclose(out[:7], inverse_ones / inverse_ones.sum(), rtol=1e-10)
        assert np.isnan(out[7:]).all()


def test_minor_cycles_equal_their_call_tree_run_as_python(interpret) -> None:  # type: ignore[no-untyped-def]
    # compiled, _minor_cycles inlines the affine minimiser and the step (not _delete)
    rng = np.random.default_rng(12)
    points = rng.standard_normal((8, 9)) + 1.5  # off the origin: some points must leave
    _, factor, solved = _factored(points, 8, 9)
    weights = np.append(rng.dirichlet(np.ones(8)), 0.0)
    outcomes = []
    for interpreted in (False, True):
        if interpreted:
            interpret(min_norm_module)
        kernel = min_norm_module._minor_cycles
        f, z, w = factor.copy(), solved.copy(), weights.copy()
        corral, rows, affine = np.arange(9), np.arange(9), np.empty(9)
        size, stalled = kernel(f, rows, z, 8, corral, w, affine, np.int64(-1))
        outcomes.append(
            (size, stalled, corral[:size].copy(), w[:size].copy(), f[rows[:size], :size])
        )
    (size, stalled, corral, w, f), (size_py, stalled_py, corral_py, w_py, f_py) = outcomes
    assert (size, stalled) == (size_py, stalled_py)
    assert size < 8
    np.testing.assert_array_equal(corral, corral_py)
    np.testing.assert_allclose(w, w_py, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(f, f_py, rtol=1e-12, atol=1e-14)

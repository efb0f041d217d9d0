"""Block dual coordinate ascent kernels against a plain per-constraint reference."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from lamcap.solvers import _kernels as kernels_module
from lamcap.solvers._kernels import _batch_epoch, _block_ascent, _block_grams, dual_epochs


def _problem(d: int, n: int, per: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit inputs, CSR offsets (some associations empty) and directions."""
    rng = np.random.default_rng(seed)
    inputs = rng.standard_normal((n, d))
    inputs /= np.linalg.norm(inputs, axis=1)[:, None]
    counts = rng.integers(0, per + 1, size=n)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    directions = rng.standard_normal((int(offsets[-1]), d)) / np.sqrt(d)
    return inputs, offsets, directions


def _reference(
    inputs: np.ndarray, offsets: np.ndarray, directions: np.ndarray, epochs: int, sweeps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Textbook coordinate ascent: one dual variable at a time, W rebuilt from scratch."""
    d = inputs.shape[1]
    owner = np.repeat(np.arange(inputs.shape[0]), np.diff(offsets))
    alpha = np.zeros(directions.shape[0])
    weights = np.zeros((d, d))
    for _ in range(epochs):
        for mu in range(inputs.shape[0]):
            for _ in range(sweeps):
                for i in range(offsets[mu], offsets[mu + 1]):
                    score = directions[i] @ weights @ inputs[mu]
                    updated = max(0.0, alpha[i] + (1.0 - score) / (directions[i] @ directions[i]))
                    alpha[i] = updated
                    weights = (directions * alpha[:, None]).T @ inputs[owner]
    return weights, alpha


@pytest.mark.parametrize("batch", [1, 2, 5, 32])
def test_dual_epochs_matches_reference(batch: int) -> None:
    inputs, offsets, directions = _problem(d=7, n=9, per=4, seed=batch)
    expected_weights, expected_alpha = _reference(inputs, offsets, directions, epochs=3, sweeps=2)
    weights = np.zeros((7, 7))
    alpha = np.zeros(directions.shape[0])
    dual_epochs(weights, inputs, offsets, directions, alpha, 3, 2, batch)
    np.testing.assert_allclose(alpha, expected_alpha, rtol=0, atol=1e-12)
    np.testing.assert_allclose(weights, expected_weights, rtol=0, atol=1e-12)


def test_compiled_kernel_equals_python_and_keeps_invariant() -> None:
    inputs, offsets, directions = _problem(d=16, n=40, per=6, seed=11)
    results = []
    for kernel in (dual_epochs, dual_epochs.py_func):
        weights = np.zeros((16, 16))
        alpha = np.zeros(directions.shape[0])
        kernel(weights, inputs, offsets, directions, alpha, 4, 3, 8)
        results.append((weights, alpha))
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=0, atol=1e-12)
    weights, alpha = results[0]
    owner = np.repeat(np.arange(40), np.diff(offsets))
    rebuilt = (directions * alpha[:, None]).T @ inputs[owner]
    np.testing.assert_allclose(weights, rebuilt, rtol=0, atol=1e-12)
    assert np.all(alpha >= 0)


def test_compiled_kernel_equals_its_call_tree_run_as_python(interpret) -> None:  # type: ignore[no-untyped-def]
    # compiled, dual_epochs inlines the batch epoch, the block ascent and the Gram blocks
    inputs, offsets, directions = _problem(d=9, n=30, per=5, seed=4)
    results = []
    for interpreted in (False, True):
        if interpreted:
            interpret(kernels_module)
        kernel = kernels_module.dual_epochs
        weights, alpha = np.zeros((9, 9)), np.zeros(directions.shape[0])
        largest = kernel(weights, inputs, offsets, directions, alpha, 3, 2, 7)
        results.append((largest, weights, alpha))
    (largest, weights, alpha), (largest_py, weights_py, alpha_py) = results
    assert largest == pytest.approx(largest_py, rel=1e-12)
    np.testing.assert_allclose(alpha, alpha_py, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(weights, weights_py, rtol=1e-12, atol=1e-14)


@numba.njit
def _grams_as_before(offsets, directions):  # type: ignore[no-untyped-def]
    """The Gram blocks as _block_grams wrote them before its loops (a slice assignment)."""
    n = offsets.shape[0] - 1
    starts = np.zeros(n + 1, dtype=np.int64)
    for mu in range(n):
        size = offsets[mu + 1] - offsets[mu]
        starts[mu + 1] = starts[mu] + size * size
    grams = np.empty(starts[n])
    for mu in range(n):
        lo, size = offsets[mu], offsets[mu + 1] - offsets[mu]
        if size > 0:
            block = directions[lo : lo + size]
            grams[starts[mu] : starts[mu + 1]] = np.dot(block, block.T).ravel()
    return grams, starts


def test_helpers_equal_their_py_funcs_and_the_array_expressions_they_replace() -> None:
    inputs, offsets, directions = _problem(d=6, n=12, per=4, seed=9)
    grams, starts = _block_grams(offsets, directions)
    for other in (_block_grams.py_func(offsets, directions), _grams_as_before(offsets, directions)):
        np.testing.assert_array_equal(other[1], starts)
        np.testing.assert_allclose(other[0], grams, rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(_grams_as_before(offsets, directions)[0], grams)  # bit for bit
    rng = np.random.default_rng(2)
    outcomes = []
    for epoch, ascent in (
        (_batch_epoch, _block_ascent),
        (_batch_epoch.py_func, _block_ascent.py_func),
    ):
        weights = rng.standard_normal((6, 6)) if not outcomes else outcomes[0][3].copy()
        start_weights = weights.copy()
        alpha = np.zeros(directions.shape[0])
        largest = epoch(weights, inputs, offsets, directions, grams, starts, alpha, 2, 3, 9)
        hidden, change = inputs[3] @ start_weights.T, np.empty(6)
        size = int(offsets[4] - offsets[3])
        gram = grams[starts[3] : starts[4]].reshape(size, size)
        step = ascent(directions, gram, alpha.copy(), int(offsets[3]), 2, hidden, change)
        outcomes.append((largest, weights, alpha, start_weights, step, change))
    for compiled, python in zip(*outcomes, strict=True):
        np.testing.assert_allclose(compiled, python, rtol=1e-12, atol=1e-14)

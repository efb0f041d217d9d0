"""Block dual coordinate ascent kernels against a plain per-constraint reference."""

from __future__ import annotations

import numpy as np
import pytest

from lamcap.solvers._kernels import dual_epochs


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

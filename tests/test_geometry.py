"""The cone projection: invariants (hypothesis) and a brute-force reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import minimize

from lamcap.geometry import project_onto_cone

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
rows = st.integers(2, 12).flatmap(lambda p: arrays(np.float64, (p,), elements=finite))


def _in_cone(x: np.ndarray, target: int, margin: float, tol: float) -> bool:
    others = np.delete(x, target)
    return bool(np.all(x[target] >= others + margin - tol))


@settings(max_examples=300, deadline=None)
@given(row=rows, data=st.data(), margin=st.floats(0, 10))
def test_projection_invariants(row: np.ndarray, data: st.DataObject, margin: float) -> None:
    p = row.size
    target = data.draw(st.integers(0, p - 1))
    projected, size = project_onto_cone(row, target=target, margin=margin)
    scale = 1.0 + np.abs(row).max() + margin
    tol = 1e-12 * scale * p
    # in the cone
    assert _in_cone(projected, target, margin, tol)
    # idempotent
    again, _ = project_onto_cone(projected, target=target, margin=margin)
    np.testing.assert_allclose(again, projected, atol=tol)
    # residual in the polar cone of K: r = x - P(x) has r_target = -sum(r_others), r_others >= 0
    residual = row - projected
    others = np.delete(residual, target)
    assert np.all(others >= -tol)
    assert abs(residual[target] + others.sum()) <= tol
    # orthogonality with the projection shifted to the cone's apex
    shift = np.full(p, margin)
    shift[target] = 0.0
    assert abs(residual @ (projected + shift)) <= tol * scale
    # |A| counts the competitors pulled down: those with a positive residual, plus
    # any that sat exactly at the level already
    assert int(size) >= int(np.count_nonzero(others > tol))
    moved = np.delete(projected, target) == projected[target] - margin
    assert int(size) <= int(np.count_nonzero(moved))


def _gap(x: np.ndarray, target: int, rho: int, margin: float) -> float:
    return float(x[target] - x[rho] - margin)


def _squared_distance(x: np.ndarray, row: np.ndarray) -> float:
    return float(np.sum((x - row) ** 2))


def test_matches_generic_optimiser() -> None:
    rng = np.random.default_rng(7)
    for _ in range(20):
        p = int(rng.integers(2, 8))
        row = rng.normal(size=p)
        target, margin = int(rng.integers(p)), float(rng.uniform(0, 1))
        constraints = [
            {"type": "ineq", "fun": _gap, "args": (target, r, margin)}
            for r in range(p)
            if r != target
        ]
        reference = minimize(
            _squared_distance,
            row,
            args=(row,),
            constraints=constraints,
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        ).x
        projected, _ = project_onto_cone(row, target=target, margin=margin)
        np.testing.assert_allclose(projected, reference, atol=1e-6)


def test_mean_active_size_is_half_at_p2() -> None:
    # E|A| = E[C_2] = 1/2 (docs/theory/cone.md, fact 3); Monte Carlo at 5 sigma.
    rng = np.random.default_rng(1)
    _, sizes = project_onto_cone(rng.normal(size=(200_000, 2)))
    assert abs(sizes.mean() - 0.5) < 5 * 0.5 / np.sqrt(200_000)


def test_broadcast_targets_and_shapes() -> None:
    scores = np.arange(24, dtype=float).reshape(2, 3, 4)
    projected, sizes = project_onto_cone(scores, target=np.array([0, 1, 3]))
    assert projected.shape == scores.shape
    assert sizes.shape == (2, 3)
    assert np.all(projected[..., 3][:, 2] == scores[..., 3][:, 2])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"scores": [[1.0]]}, "p >= 2"),
        ({"scores": [[1.0, np.nan]]}, "scores"),
        ({"scores": [[1.0, 2.0]], "margin": -1.0}, "margin"),
        ({"scores": [[1.0, 2.0]], "target": 2}, "target"),
    ],
)
def test_bad_input(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        project_onto_cone(**kwargs)


def test_compiled_kernel_matches_its_python_source() -> None:
    # Guards against miscompilation: the numba kernel and its interpreted source
    # must agree exactly on rows with many candidates (heavy tails, ties, margins).
    from lamcap._cone_kernel import project_row_inplace

    rng = np.random.default_rng(3)
    for trial in range(300):
        p = int(rng.integers(2, 40))
        row = rng.standard_cauchy(p) if trial % 2 else np.round(rng.normal(size=p), 1)
        target, margin = int(rng.integers(p)), float(rng.choice([0.0, 0.5, 3.0]))
        compiled, interpreted = row.copy(), row.copy()
        size_c = project_row_inplace(compiled, target, margin, np.empty(p))
        size_i = project_row_inplace.py_func(interpreted, target, margin, np.empty(p))
        assert size_c == size_i
        np.testing.assert_array_equal(compiled, interpreted)

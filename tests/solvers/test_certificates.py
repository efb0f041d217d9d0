"""Tests for lamcap.solvers._certificates: margins and Farkas bounds, from first principles."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import lamcap
from lamcap.problems import make_instance
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    certificate_bound,
    check_margins,
    constraint_margins,
    min_margin,
    product_with_error,
    running_minimum,
)


def _explicit_margins(instance, weights):  # type: ignore[no-untyped-def]
    """Naive per-constraint loop, written independently of the module."""
    values = []
    for mu in range(instance.n):
        outputs = instance.outputs(mu)
        target = outputs[instance.targets[mu]]
        for rho in range(instance.p):
            if rho == instance.targets[mu]:
                continue
            numerator = (target - outputs[rho]) @ weights @ instance.inputs[mu]
            scale = (
                np.linalg.norm(weights)
                * np.linalg.norm(instance.inputs[mu])
                * math.hypot(np.linalg.norm(target), np.linalg.norm(outputs[rho]))
            )
            values.append(numerator / scale)
    return np.array(values)


@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_margins_match_an_explicit_loop(model: str) -> None:
    instance = make_instance(6, 5, n=4, model=model, seed=1)
    weights = np.random.default_rng(2).standard_normal((6, 6))
    expected = _explicit_margins(instance, weights)
    margins = constraint_margins(instance, weights)
    finite = margins[np.isfinite(margins)]
    np.testing.assert_allclose(np.sort(finite), np.sort(expected), rtol=1e-12, atol=1e-15)
    assert min_margin(instance, weights) == pytest.approx(expected.min(), rel=1e-12)
    assert min_margin(instance, 7.5 * weights) == pytest.approx(expected.min(), rel=1e-12)
    pair = (weights[:, :3], np.eye(6)[:, :3])
    assert min_margin(instance, pair) == pytest.approx(
        _explicit_margins(instance, pair[0] @ pair[1].T).min(), rel=1e-12
    )


def test_zero_weights_have_no_margin() -> None:
    assert math.isnan(min_margin(make_instance(3, 3, seed=0), np.zeros((3, 3))))


def _one_dimensional_clash():  # type: ignore[no-untyped-def]
    """d = 1, two associations on shared outputs with same-sign inputs: infeasible.

    Constraints (u0 - u1) w e0 > 0 and (u1 - u0) w e1 > 0 need sign(w e0) != sign(w e1),
    impossible when e0 e1 > 0; alpha = (|e1|, |e0|) cancels them exactly.
    """
    for seed in range(50):
        instance = make_instance(1, 2, model="original", seed=seed)
        e = instance.inputs[:, 0]
        if e[0] * e[1] > 0:
            return instance, np.abs(e[::-1])
    raise AssertionError


def test_exact_farkas_certificate_bound_is_rounding_level() -> None:
    instance, alpha = _one_dimensional_clash()
    certificate = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha, 0.0)
    assert certificate_bound(instance, certificate) < 1e-14
    tampered = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha * [1.0, 1.1], 0.0)
    assert certificate_bound(instance, tampered) > FEASIBILITY_TOLERANCE


def test_bound_dominates_every_weight_margin(loop_margins, dense_farkas_bound) -> None:  # type: ignore[no-untyped-def]
    """Weak duality: min margin(W) <= bound(alpha) for every alpha >= 0 and every W.

    The W are the max-margin matrix of a feasible instance and small perturbations of
    it, so their margins are positive (about 0.15): a bound that is too small (0, say)
    fails.  Each bound is also compared with a dense recomputation by a plain loop
    (tests/solvers/conftest.py), which a bound that is too large fails; the two agree
    to the rounding allowance the bound adds, 2 sqrt2 (2k + d + 2) 2^-53 < 1e-13.
    """
    instance = make_instance(4, 4, n=5, seed=9)  # n E|A| ~ 10 < d^2 = 16: feasible
    best = lamcap.solve(instance, objective="max_margin", tolerance=1e-8)
    rng = np.random.default_rng(4)
    weights = [best.weights] + [
        best.weights + 0.01 * np.linalg.norm(best.weights) * rng.standard_normal((4, 4))
        for _ in range(4)
    ]
    lowest = [float(loop_margins(instance, w).min()) for w in weights]
    assert min(lowest) > 0.1
    mus = np.repeat(np.arange(5), 3)
    rhos = np.tile(np.arange(1, 4), 5)
    for _ in range(40):
        certificate = FarkasCertificate(mus, rhos, rng.exponential(size=15), 0.0)
        bound = certificate_bound(instance, certificate)
        assert abs(bound - dense_farkas_bound(instance, certificate)) < 1e-13
        assert max(lowest) <= bound


@pytest.mark.parametrize(
    ("associations", "competitors", "alpha", "match"),
    [
        ([0], [0], [1.0], "differ from their association's target"),
        ([5], [1], [1.0], "associations must be in"),
        ([0], [4], [1.0], "competitors must be in"),
        ([0], [1], [-1.0], "alpha must contain finite values >= 0.0"),
        ([0], [1], [np.nan], "alpha must contain finite values"),
        ([0, 1], [1], [1.0], "1-d of equal length"),
    ],
)
def test_malformed_certificates_raise(
    associations: list[int], competitors: list[int], alpha: list[float], match: str
) -> None:
    instance = make_instance(2, 3, n=2, seed=0)
    certificate = FarkasCertificate(
        np.array(associations), np.array(competitors), np.array(alpha), 0.0
    )
    with pytest.raises(ValueError, match=match):
        certificate_bound(instance, certificate)


def test_all_zero_certificate_proves_nothing() -> None:
    instance = make_instance(2, 3, n=2, seed=0)
    certificate = FarkasCertificate(np.array([0]), np.array([1]), np.array([0.0]), 0.0)
    assert certificate_bound(instance, certificate) == math.inf


# --------------------------------------------------------------------------- margins that see everything
@pytest.mark.parametrize("model", ["decoupled", "original"])
def test_overflowing_weights_are_never_feasible(model: str) -> None:
    """-1e308 * ones on an infeasible instance: its products overflow in float64."""
    instance = make_instance(4, 40, model=model, seed=1)
    weights = -1e308 * np.ones((4, 4))
    check = check_margins(instance, weights)
    assert not check.verified
    # the same direction at a harmless scale, by an explicit loop
    assert check.min_margin == pytest.approx(
        _explicit_margins(instance, -np.ones((4, 4))).min(), abs=1e-12
    )
    assert check.failing_associations > 0


def test_running_minimum_is_nan_as_soon_as_one_margin_is_not_finite() -> None:
    assert math.isnan(running_minimum(math.inf, np.array([np.nan, 1.0])))
    assert math.isnan(running_minimum(math.inf, np.array([-np.inf, 1.0])))
    assert math.isnan(running_minimum(math.inf, np.array([np.inf, 1.0])))
    assert math.isnan(running_minimum(math.nan, np.array([1.0])))
    assert running_minimum(0.5, np.array([2.0, 0.7])) == 0.5
    block = np.array([[np.inf, 0.3, 0.2], [0.4, np.inf, 0.9]])
    assert running_minimum(math.inf, block, np.array([0, 1])) == 0.2
    block[1, 2] = np.nan
    assert math.isnan(running_minimum(math.inf, block, np.array([0, 1])))


# --------------------------------------------------------------------------- low-rank pairs
def _exact_product(left: np.ndarray, right: np.ndarray) -> list[list[Fraction]]:
    """Q @ R.T in exact rational arithmetic (every float is a rational)."""
    return [
        [
            sum((Fraction(a) * Fraction(b) for a, b in zip(q, r, strict=True)), Fraction(0))
            for r in right
        ]
        for q in left
    ]


def _cancelling_pair(instance) -> tuple[np.ndarray, np.ndarray, float]:  # type: ignore[no-untyped-def]
    """(Q, R) whose float product has the opposite sign of the exact one, and its exact margin.

    Q = x 1^T, R = y c^T with x = e_0 and c = (1, -2^-54, -1, 2^-60): each entry of
    Q R^T sums y_j - 2^-54 y_j - y_j + 2^-60 y_j, which rounds to 2^-60 y_j while the
    exact value is -(2^-54 - 2^-60) y_j.  With one association and two outputs, y = s e
    (s the sign of (u_0 - u_1)_0) makes the float product recall it and the exact
    product fail, with exact normalised margin -|(u_0 - u_1)_0| / sqrt(|u_0|^2 + |u_1|^2).
    """
    outputs, e = instance.outputs(0), instance.inputs[0]
    difference = outputs[0, 0] - outputs[1, 0]
    left = np.zeros((4, 4))
    left[0] = 1.0
    right = np.outer(np.sign(difference) * e, [1.0, -(2.0**-54), -1.0, 2.0**-60])
    exact = -abs(difference) / math.hypot(*np.linalg.norm(outputs, axis=1))
    return left, right, exact


def test_cancelling_pair_is_checked_on_its_exact_product() -> None:
    instance = make_instance(4, 2, n=1, seed=0)
    left, right, exact = _cancelling_pair(instance)
    assert min_margin(instance, left @ right.T) > 0.1  # the rounded product looks feasible
    check = check_margins(instance, (left, right))
    assert not check.verified
    assert abs(check.min_margin - exact) <= check.error + 1e-15
    assert check.error < 1e-12


def test_pair_inner_dimension_is_at_most_d() -> None:
    """The issue's pair: m = 4 > d = 1 (its float product has the wrong sign too)."""
    instance = make_instance(1, 2, n=1, seed=0)
    pair = (np.ones((1, 4)), -3.0 * np.array([[1.0, -(2.0**-54), -1.0, 2.0**-60]]))
    with pytest.raises(
        ValueError, match=r"rank r \(inner dimension of Q and R\) must be in \[1, 1\]"
    ):
        check_margins(instance, pair)


@pytest.mark.parametrize("cancel", [False, True])
def test_product_bound_holds_against_exact_rational_products(cancel: bool) -> None:
    """|W~ - QR^T| in exact arithmetic, turned into margin units, stays within the bound."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        left = rng.standard_normal((5, 3)) * np.exp2(rng.integers(-30, 30, size=(5, 3)))
        right = rng.standard_normal((5, 3))
        if cancel:  # two columns cancelling to a few bits
            left[:, 1] = -left[:, 0] * (1 + 2.0**-40)
            right[:, 1] = right[:, 0]
        matrix, bound = product_with_error(left, right)
        exact = np.array(_exact_product(left, right), dtype=object)
        # matrix is a power-of-two multiple of the product: recover the factor exactly
        factor = Fraction(float(np.max(np.abs(matrix)))) / max(abs(x) for x in exact.ravel())
        factor = Fraction(2) ** round(math.log2(factor))
        error = [
            [float(abs(Fraction(matrix[a, b]) - factor * exact[a, b])) for b in range(5)]
            for a in range(5)
        ]
        frobenius_error = float(np.linalg.norm(np.array(error)))
        assert 2 * math.sqrt(2) * frobenius_error / np.linalg.norm(matrix) <= bound

"""Tests for lamcap.solvers.certificates: margins and Farkas bounds, from first principles."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamcap.problems import make_instance
from lamcap.solvers.certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    certificate_bound,
    constraint_margins,
    min_margin,
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


def test_bound_dominates_every_weight_margin() -> None:
    """Weak duality: for any alpha >= 0 and any W, min margin(W) <= bound(alpha)."""
    rng = np.random.default_rng(4)
    instance = make_instance(3, 4, n=6, seed=9)
    mus = np.repeat(np.arange(6), 3)
    rhos = np.tile(np.arange(1, 4), 6)
    for _ in range(20):
        certificate = FarkasCertificate(mus, rhos, rng.exponential(size=18), 0.0)
        bound = certificate_bound(instance, certificate)
        for _ in range(5):
            assert min_margin(instance, rng.standard_normal((3, 3))) <= bound


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

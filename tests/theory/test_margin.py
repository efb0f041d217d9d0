"""Tests of lamcap.theory.margin: Gardner's curve at p = 2, projections at p > 2."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from lamcap.geometry import project_onto_cone
from lamcap.theory.margin import gardner_load, load_at_margin, max_margin


def _gardner_quadrature(kappa):
    """1 / int_{-kappa}^inf Dz (z + kappa)^2 by mpmath quadrature (independent of the closed form)."""
    with mpmath.workdps(30):
        integral = mpmath.quad(lambda z: mpmath.npdf(z) * (z + kappa) ** 2, [-kappa, mpmath.inf])
        return float(1 / integral)


@pytest.mark.parametrize("kappa", [0.0, 0.5, 1.0, 2.0])
def test_gardner_curve_at_two_outputs(kappa):
    alpha_c = _gardner_quadrature(kappa)
    assert gardner_load(kappa) == pytest.approx(alpha_c, rel=1e-14)
    margin = max_margin(alpha_c, 2)
    assert margin / math.sqrt(2) == pytest.approx(kappa, abs=1e-10)
    assert load_at_margin(math.sqrt(2) * kappa, 2) == pytest.approx(alpha_c, rel=1e-12)


def test_margin_and_load_are_inverse_at_ten_outputs():
    loads = np.array([0.2, 0.4])
    margins = max_margin(loads, 10)
    assert np.all(np.diff(margins) < 0)  # more load, less margin
    np.testing.assert_allclose(load_at_margin(margins, 10), loads, rtol=1e-12)


def test_zero_margin_at_capacity_and_monte_carlo_distance():
    p = 10
    capacity = load_at_margin(0.0, p)
    assert max_margin(capacity, p) == 0.0
    # E dist(g, K_m)^2 by direct projection (independent of the quadrature)
    margin = 0.7
    rng = np.random.default_rng(11)
    g = rng.standard_normal((200_000, p))
    projected, _ = project_onto_cone(g, margin=margin)
    squared = np.sum((g - projected) ** 2, axis=1)
    error = squared.std() / math.sqrt(squared.size)
    assert 1 / load_at_margin(margin, p) == pytest.approx(squared.mean(), abs=5 * error)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: max_margin(3.0, 2), r"load must be in \(0, 2\]"),
        (lambda: max_margin(0.0, 2), "load"),
        (lambda: max_margin(1.0, 1), "p must be an integer >= 2"),
        (lambda: load_at_margin(-0.1, 2), "margin must contain finite values >= 0"),
        (lambda: load_at_margin(np.nan, 2), "margin"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()

"""Tests of lamcap.theory._margin: Gardner's curve at p = 2, projections at p > 2."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from lamcap.geometry import project_onto_cone
from lamcap.theory._margin import density_at_margin, gardner_density, max_margin


def _gardner_quadrature(stability):
    """1 / int_{-stability}^inf Dz (z + stability)^2 by mpmath quadrature (independent of the closed form)."""
    with mpmath.workdps(30):
        integral = mpmath.quad(
            lambda z: mpmath.npdf(z) * (z + stability) ** 2, [-stability, mpmath.inf]
        )
        return float(1 / integral)


@pytest.mark.parametrize("stability", [0.0, 0.5, 1.0, 2.0])
def test_gardner_curve_at_two_outputs(stability):
    density_c = _gardner_quadrature(stability)
    assert gardner_density(stability) == pytest.approx(density_c, rel=1e-14)
    margin = max_margin(density_c, 2)
    assert margin / math.sqrt(2) == pytest.approx(stability, abs=1e-10)
    assert density_at_margin(math.sqrt(2) * stability, 2) == pytest.approx(density_c, rel=1e-12)


def test_margin_and_density_are_inverse_at_ten_outputs():
    densities = np.array([0.2, 0.4])
    margins = max_margin(densities, 10)
    assert np.all(np.diff(margins) < 0)  # higher density, smaller margin
    np.testing.assert_allclose(density_at_margin(margins, 10), densities, rtol=1e-12)


def test_zero_margin_at_capacity_and_monte_carlo_distance():
    p = 10
    capacity = density_at_margin(0.0, p)
    assert max_margin(capacity, p) == 0.0
    # E dist(g, K_m)^2 by direct projection (independent of the quadrature)
    margin = 0.7
    rng = np.random.default_rng(11)
    g = rng.standard_normal((200_000, p))
    projected, _ = project_onto_cone(g, margin=margin)
    squared = np.sum((g - projected) ** 2, axis=1)
    error = squared.std() / math.sqrt(squared.size)
    assert 1 / density_at_margin(margin, p) == pytest.approx(squared.mean(), abs=5 * error)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: max_margin(3.0, 2), r"density must be in \(0, 2\]"),
        (lambda: max_margin(0.0, 2), "density"),
        (lambda: max_margin(1.0, 1), "p must be an integer >= 2"),
        (lambda: density_at_margin(-0.1, 2), "margin must contain finite values >= 0"),
        (lambda: density_at_margin(np.nan, 2), "margin"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _gardner_moment_quadrature(stability):
    """int_{-s}^inf Dz (z + s)^2 by mpmath quadrature at the caller's precision."""
    return mpmath.quad(lambda z: mpmath.npdf(z) * (z + stability) ** 2, [-stability, mpmath.inf])


@pytest.mark.parametrize("stability", ["0.0", "0.5", "1.7"])
def test_dps_routes_at_two_outputs_match_quadrature_to_thirty_digits(stability):
    s = mpmath.mpf(stability)
    gardner = gardner_density(float(s), dps=30)
    density = density_at_margin(float(mpmath.sqrt(2) * s), 2, dps=30)
    with mpmath.workdps(45):
        expected_gardner = 1 / _gardner_moment_quadrature(s)
        margin = mpmath.mpf(float(mpmath.sqrt(2) * s))  # the float64 argument, exactly
        expected_density = 1 / _gardner_moment_quadrature(margin / mpmath.sqrt(2))
        assert abs(gardner / expected_gardner - 1) < mpmath.mpf(10) ** -29
        assert abs(density / expected_density - 1) < mpmath.mpf(10) ** -29


def test_max_margin_dps_is_the_root_of_the_quadrature():
    margin = max_margin(0.6, 2, dps=30)
    assert isinstance(margin, mpmath.mpf)
    with mpmath.workdps(45):
        stability = mpmath.findroot(
            lambda s: _gardner_moment_quadrature(s) - 1 / mpmath.mpf(0.6), 1
        )
        assert abs(margin / (mpmath.sqrt(2) * stability) - 1) < mpmath.mpf(10) ** -29
    assert max_margin(2.0, 2, dps=20) == 0


def test_too_high_density_names_a_huge_p_shortly() -> None:
    with pytest.raises(ValueError, match=r"at p=1e\+100\), got 0.1$"):
        max_margin(0.1, 10**100)

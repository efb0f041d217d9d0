"""Tests for lamcap.theory._hinge_sums against mpmath, closed forms and simulation."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from lamcap import project_onto_cone
from lamcap.theory._hinge_sums import hinge_sum_cdf, sum_cdf, sum_cdf_mp, target_level_cdf

# (x, y, count) covering negative / positive hinges and counts up to 1e9.
CASES = [
    (1.0, 0.0, 3),
    (-1.0, -3.0, 5),
    (0.3, 1.5, 1),
    (6.0, 6.0, 10**9 - 2),
    (5.5, 5.5, 10**9),
    (3.0, 3.0, 10**3),
    (4.5, 4.5, 10**6),
]


@pytest.mark.parametrize(("x", "y", "count"), CASES)
def test_float_matches_mpmath(x: float, y: float, count: int) -> None:
    reference = float(sum_cdf_mp(x, y, count, dps=20))
    assert hinge_sum_cdf(x, y, count) == pytest.approx(reference, abs=1e-13, rel=1e-13)


@pytest.mark.parametrize(("x", "y", "count"), [(1.0, 0.5, 3), (6.0, 6.0, 100), (-1.0, -3.0, 5)])
def test_conditional_excess_matches_mpmath(x: float, y: float, count: int) -> None:
    value = sum_cdf(np.array([x]), np.array([y]), count, kind="excess")[0]
    reference = float(sum_cdf_mp(x, y, count, kind="excess", dps=20))
    assert value == pytest.approx(reference, abs=1e-13)


def test_count_zero_is_normal_cdf() -> None:
    x = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(hinge_sum_cdf(x, 0.0, 0), stats.norm.cdf(x), atol=1e-15)


def test_single_hinge_against_quadrature() -> None:
    # P(g + (Z - y)_+ <= x) = Phi(y) Phi(x) + int_y^inf phi(z) Phi(x - z + y) dz
    x, y = 0.4, -0.2
    tail, _ = integrate.quad(
        lambda z: stats.norm.pdf(z) * stats.norm.cdf(x - z + y),
        y,
        np.inf,
        epsabs=1e-14,
        epsrel=1e-12,
    )
    expected = stats.norm.cdf(y) * stats.norm.cdf(x) + tail
    assert hinge_sum_cdf(x, y, 1) == pytest.approx(expected, abs=1e-13)


@pytest.mark.parametrize("kind", ["hinge", "excess"])
@pytest.mark.parametrize(("x", "y"), [(0.4, -0.2), (1.0, 2.5), (-2.0, -4.0)])
def test_mpmath_twin_single_hinge_to_30_digits(x: float, y: float, kind: str) -> None:
    # count = 1: P(g + X <= x) by direct mpmath quadrature over Z (no characteristic function).
    value = sum_cdf_mp(x, y, 1, kind=kind, dps=30)
    with mpmath.workdps(40):
        tail = mpmath.quad(
            lambda z: mpmath.npdf(z) * mpmath.ncdf(x - z + y), [y, y + 5, mpmath.inf]
        )
        if kind == "hinge":
            expected = mpmath.ncdf(y) * mpmath.ncdf(x) + tail
        else:
            expected = tail / mpmath.ncdf(-y)
        assert abs(value - expected) < mpmath.mpf(10) ** -30


def test_shift_moves_the_threshold() -> None:
    assert hinge_sum_cdf(0.5, 1.0, 4, shift=0.3) == pytest.approx(
        hinge_sum_cdf(0.5, 0.7, 4), abs=1e-15
    )


def test_broadcasting_shape() -> None:
    values = hinge_sum_cdf(np.zeros((2, 1)), np.array([0.0, 1.0, 2.0]), 7)
    assert values.shape == (2, 3)
    assert np.all(np.diff(values, axis=1) > 0)  # higher threshold: smaller sum


def test_mpmath_twin_returns_mpf() -> None:
    value = hinge_sum_cdf(1.0, 0.0, 3, dps=25)
    assert isinstance(value, mpmath.mpf)


def test_target_level_p2_closed_form() -> None:
    # p = 2: P(g + (Z - 0)_+ <= 0) = P(g <= 0, Z <= 0) + P(Z > 0, g + Z <= 0) = 3/8
    assert target_level_cdf(0.0, 2) == pytest.approx(0.375, abs=1e-15)


@pytest.mark.parametrize(("p", "margin"), [(5, 0.0), (20, 0.5)])
def test_target_level_against_projection(p: int, margin: float) -> None:
    rng = np.random.default_rng(11)
    samples = 200_000
    projected, _ = project_onto_cone(rng.standard_normal((samples, p)), margin=margin)
    levels = projected[:, 0]
    for x in (-0.5, 0.5, 1.5):
        empirical = np.mean(levels <= x)
        theory = target_level_cdf(x, p, margin)
        sigma = math.sqrt(theory * (1 - theory) / samples)
        assert abs(empirical - theory) < 5 * sigma


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: hinge_sum_cdf(0.0, 0.0, -1), "count"),
        (lambda: hinge_sum_cdf(0.0, 0.0, 2.5), "count"),
        (lambda: hinge_sum_cdf(float("nan"), 0.0, 2), "x"),
        (lambda: hinge_sum_cdf(0.0, float("inf"), 2), "threshold"),
        (lambda: hinge_sum_cdf(0.0, 0.0, 2, dps=0), "dps"),
        (lambda: target_level_cdf(0.0, 1), "p"),
        (lambda: target_level_cdf(0.0, 5, margin=-1.0), "margin"),
    ],
)
def test_bad_input(call: object, name: str) -> None:
    with pytest.raises(ValueError, match=name):
        call()  # type: ignore[operator]


# --------------------------------------------------------------------------
# thresholds far above the Gaussians (issue 23: threshold=1e308 overflowed)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("threshold", [40.0, 1e10, 1e160, 1e307, 1e308])
@pytest.mark.parametrize("count", [1, 10, 10**300], ids=["1", "10", "1e300"])
def test_vanishing_hinges_give_phi_of_x_exactly(threshold: float, count: int) -> None:
    # Phi(x) Phi(y)^n <= F(x) <= Phi(x): Phi(x) at 50 digits is the reference (to the
    # few ulps of scipy's ndtr)
    xs = [-3.0, 0.5, 8.0]
    values = hinge_sum_cdf(xs, threshold, count)
    with mpmath.workdps(50):
        for x, value in zip(xs, values, strict=True):
            assert value == pytest.approx(float(mpmath.ncdf(x)), rel=1e-15, abs=0.0)
    precise = hinge_sum_cdf(0.5, threshold, count, dps=30)
    with mpmath.workdps(50):
        assert abs(precise - mpmath.ncdf(0.5)) < mpmath.mpf(10) ** -30


def test_vanishing_hinges_branch_joins_the_inversion() -> None:
    # just below the switch (n Q(y) ~ 1e-15) the inversion runs; it agrees with Phi(x)
    threshold = 8.0
    inverted = float(hinge_sum_cdf(0.5, threshold, 10**3))
    assert inverted == pytest.approx(float(stats.norm.cdf(0.5)), abs=1e-12)
    assert sum_cdf(np.array([0.5]), np.array([1e308]), 10)[0] == stats.norm.cdf(0.5)


@pytest.mark.filterwarnings("error")
def test_hinge_position_beyond_float64() -> None:
    # threshold - shift = +2e308: the hinges vanish, -2e308: refused by name
    assert hinge_sum_cdf(0.5, 1e308, 3, shift=-1e308) == pytest.approx(stats.norm.cdf(0.5))
    with pytest.raises(
        ValueError, match=r"threshold - shift must be >= -1\.8e\+308.*shift=1e\+308"
    ):
        hinge_sum_cdf(0.5, -1e308, 3, shift=1e308)
    assert hinge_sum_cdf(0.5, -1e308, 0, shift=1e308) == pytest.approx(stats.norm.cdf(0.5))

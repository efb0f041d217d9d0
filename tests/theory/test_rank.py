"""Rank-constrained capacity alpha_c(kappa) = F(kappa)/2 against independent routes.

References: direct mpmath quadrature of the quarter-circle integrals with the
kappa equation solved by mpmath.findroot (no theta substitution), the small-kappa
series, and hypothesis properties.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import lamcap
from lamcap.theory._rank import (
    rank_capacity,
    retained_energy,
    singular_value_threshold,
    threshold_angle,
)


def _quarter_circle_reference(kappa: str, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(s_kappa, F(kappa)) by quadrature of rho(s) = sqrt(4 - s^2)/pi and findroot."""
    with mpmath.workdps(dps + 15):
        target = mpmath.mpf(kappa)

        def density(s: mpmath.mpf) -> mpmath.mpf:
            return mpmath.sqrt(4 - s * s) / mpmath.pi

        def mass_above(edge: mpmath.mpf) -> mpmath.mpf:
            return mpmath.quad(density, [edge, 2]) - target

        edge = mpmath.findroot(mass_above, (mpmath.mpf(0), mpmath.mpf(2)), solver="illinois")
        energy = mpmath.quad(lambda s: s * s * density(s), [edge, 2])
        return edge, energy


@pytest.mark.parametrize("kappa", ["0.05", "0.25", "0.5", "0.75", "0.97"])
def test_closed_form_matches_quadrature_to_40_digits(kappa: str) -> None:
    edge, energy = _quarter_circle_reference(kappa, 50)
    with mpmath.workdps(50):
        tolerance = mpmath.mpf(10) ** -40
        assert abs(rank_capacity(kappa, dps=50) - energy / 2) <= tolerance * energy
        assert abs(retained_energy(kappa, dps=50) - energy) <= tolerance * energy
        assert abs(singular_value_threshold(kappa, dps=50) - edge) <= tolerance * edge
        assert abs(2 * mpmath.sin(threshold_angle(kappa, dps=50)) - edge) <= tolerance * edge


def test_full_rank_is_one_half() -> None:
    assert float(rank_capacity(1.0)) == 0.5
    assert rank_capacity(1, dps=40) == mpmath.mpf(1) / 2
    assert float(lamcap.capacity(1.0)) == 0.5
    assert lamcap.CAPACITY == 0.5


@pytest.mark.parametrize("kappa", ["1e-3", "1e-6", "1e-12", "1e-100", "1e-400"])
def test_small_kappa_slope_is_two(kappa: str) -> None:
    # alpha/kappa = 2 (1 - 3 x^2/20 + ...) with x ~ (6 pi kappa)^(1/3)
    with mpmath.workdps(30):
        ratio = rank_capacity(kappa, dps=30) / mpmath.mpf(kappa)
        scale = (6 * mpmath.pi * mpmath.mpf(kappa)) ** (mpmath.mpf(2) / 3)
        assert abs(ratio - 2) <= 0.31 * scale
        assert ratio <= 2


def test_float64_matches_mpmath_everywhere() -> None:
    rng = np.random.default_rng(20260)
    kappas = np.concatenate(
        [
            10.0 ** rng.uniform(-300, 0, 60),
            rng.uniform(0, 1, 60),
            1.0 - 10.0 ** rng.uniform(-16, -0.3, 60),
            [1e-30, 0.99e-30, 0.5, np.nextafter(0.5, 1.0), 1.0, 5e-324],
        ]
    )
    functions = (rank_capacity, retained_energy, singular_value_threshold, threshold_angle)
    for function in functions:
        values = function(kappas)
        for kappa, value in zip(kappas, values, strict=True):
            reference = float(function(float(kappa), dps=30))
            assert value == pytest.approx(reference, rel=1e-15, abs=1e-300), (function, kappa)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-12, 1.0), st.floats(1e-12, 1.0))
def test_capacity_is_increasing_and_concave_in_kappa(a: float, b: float) -> None:
    low, high = sorted((a, b))
    alpha_low, alpha_high = rank_capacity([low, high])
    assert alpha_low <= alpha_high
    # dF/dkappa = s_kappa^2 is decreasing: F is concave, F(k) >= k F(1) = k.
    assert 2 * alpha_low >= low * (1 - 1e-15)
    assert alpha_high <= 2 * high * (1 + 1e-15)


def test_derivative_is_the_squared_edge() -> None:
    # dF/dkappa = s_kappa^2: the next sliver of the spectrum carries s_kappa^2 per unit mass
    with mpmath.workdps(40):
        kappa, step = mpmath.mpf("0.3"), mpmath.mpf("1e-12")
        slope = (retained_energy(kappa + step, dps=40) - retained_energy(kappa - step, dps=40)) / (
            2 * step
        )
        assert abs(slope - singular_value_threshold(kappa, dps=40) ** 2) < mpmath.mpf(10) ** -20


def test_shapes_and_scalars() -> None:
    grid = np.linspace(0.1, 1.0, 12).reshape(3, 4)
    assert rank_capacity(grid).shape == (3, 4)
    assert isinstance(rank_capacity(0.5), np.floating)
    objects = rank_capacity(["0.5", "0.25"], dps=20)
    assert objects.shape == (2,)
    assert all(isinstance(value, mpmath.mpf) for value in objects)


@pytest.mark.parametrize("kappa", [0.0, -0.1, 1.5, math.nan, math.inf, [0.5, 2.0]])
def test_bad_kappa_is_rejected(kappa: object) -> None:
    with pytest.raises(ValueError, match=r"kappa .*\(0(\.0)?, 1(\.0)?\]"):
        rank_capacity(kappa)


@pytest.mark.parametrize("kappa", ["0", "1.5", "nan", "abc"])
def test_bad_kappa_is_rejected_with_dps(kappa: str) -> None:
    with pytest.raises(ValueError, match="kappa"):
        rank_capacity(kappa, dps=20)


@pytest.mark.parametrize("dps", [0, -3, 2.5, 1001, 10**6, 1e308])
def test_bad_dps_is_rejected(dps: object) -> None:
    with pytest.raises(ValueError, match=r"dps must be an integer in \[1, 1000\]"):
        rank_capacity(0.5, dps=dps)

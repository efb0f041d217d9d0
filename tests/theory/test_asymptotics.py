"""Series of E[C_p] (theory.asymptotics) against exact quadrature and a Poisson Monte Carlo."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from lamcap.theory._asymptotics import (
    GUMBEL_COEFFICIENTS,
    capacity_series,
    gumbel_level,
    statistical_dimension_series,
)

POWERS = np.array([2, 3, 4, 5, 6, 9])


@pytest.fixture(scope="module")
def exact() -> np.ndarray:
    from lamcap.theory._cost_models import statistical_dimension

    return np.array([float(statistical_dimension(10.0**k)) for k in POWERS])


def _terms(p: float) -> np.ndarray:
    partial = [float(statistical_dimension_series(p, order=k)) for k in range(5)]
    return np.diff(np.concatenate([[0.0], partial]))


@pytest.mark.parametrize("power", [6, 9])
def test_truncation_error_below_next_term(exact: np.ndarray, power: int) -> None:
    truth = exact[list(POWERS).index(power)]
    terms = _terms(10.0**power)
    error = abs(truth - terms[:4].sum())  # the default series: 2L, log L, constant, 1/L
    assert error < abs(terms[4]), (error, terms)
    assert abs(truth - terms.sum()) < 0.25 * error


def test_error_of_full_series_shrinks_with_p(exact: np.ndarray) -> None:
    errors = np.abs(exact - statistical_dimension_series(10.0**POWERS, order=4))
    assert np.all(np.diff(errors) < 0), errors
    assert errors[-1] < 2e-3


def test_errors_shrink_with_order_at_large_p(exact: np.ndarray) -> None:
    errors = [abs(exact[-1] - float(statistical_dimension_series(1e9, order=k))) for k in range(5)]
    assert all(np.diff(errors[1:]) < 0), errors


def test_lambert_form_converges(exact: np.ndarray) -> None:
    errors = [
        abs(exact[-1] - float(statistical_dimension_series(1e9, order=k, form="lambert")))
        for k in range(2, 5)
    ]
    assert errors[-1] < 0.02
    assert errors[-1] < errors[0]


def test_quoted_finite_p_capacities(exact: np.ndarray) -> None:
    """docs/theory/capacity.md: alpha_c ~ 0.85 (1e3), 0.78 (1e4), 0.70 (1e6), > 0.6 (1e9)."""
    alpha = np.log(10.0**POWERS) / exact
    claimed = {3: 0.85, 4: 0.78, 6: 0.70}
    for power, value in claimed.items():
        assert abs(alpha[list(POWERS).index(power)] - value) < 0.01
    assert alpha[-1] > 0.6
    series = capacity_series(10.0 ** POWERS[1:], order=4)
    np.testing.assert_allclose(series, alpha[1:], rtol=5e-3)


def _poisson_active_mean(
    intensity: float, samples: int, points: int, seed: int
) -> tuple[float, float]:
    """Monte Carlo of E|A| - E N(Y) for the Poisson process of intensity intensity*phi(y).

    Top points from exponential spacings: y_k = Qbar^{-1}(Gamma_k / intensity).  The
    count above the fixed level Y is a control variate with known mean intensity*Qbar(Y).
    """
    rng = np.random.default_rng(seed)
    arrivals = np.cumsum(rng.standard_exponential((samples, points)), axis=1)
    values = -special.ndtri(arrivals / intensity)
    target = rng.standard_normal(samples)
    ranks = np.arange(1, points + 1)
    active = ranks * values > target[:, None] + np.cumsum(values, axis=1) - values
    size = np.argmin(active, axis=1)
    assert np.all(size > 0)
    assert np.all(size < points)  # the prefix ended inside the simulated points
    level = np.sqrt(float(gumbel_level(intensity + 1.0)))
    above = np.sum(values > level, axis=1)
    expected_above = intensity * special.ndtr(-level)
    difference = size - above
    return float(difference.mean() + expected_above), float(difference.std() / np.sqrt(samples))


@pytest.mark.parametrize("power", [30, 80])
def test_series_beyond_quadrature_against_poisson_monte_carlo(power: int) -> None:
    """At p = 1e30 and 1e80 (no quadrature) the constant 3 and -15/Y^2 are checked to 5 sigma."""
    p = 10.0**power
    level = float(gumbel_level(p))
    mean, error = _poisson_active_mean(p - 1.0, samples=6000, points=int(2.5 * level) + 60, seed=7)
    series = float(statistical_dimension_series(p, order=4, form="lambert"))
    assert abs(mean - series) < 5 * error, (mean, error, series)
    assert abs(mean - level - 3.0) < 5 * error + 15.0 / level
    assert abs(mean - float(statistical_dimension_series(p, order=4))) < 5 * error + 1e-3


def test_gumbel_coefficients_match_sympy() -> None:
    from lamcap.symbolic._series import gumbel_coefficients

    assert tuple(float(c) for c in gumbel_coefficients(4)) == GUMBEL_COEFFICIENTS


def test_bad_input() -> None:
    with pytest.raises(ValueError, match="p must contain finite values >= 2"):
        statistical_dimension_series(1.5)
    with pytest.raises(ValueError, match=r"order must be an integer in \[0, 4\], got 7"):
        statistical_dimension_series(100, order=7)
    with pytest.raises(ValueError, match="form must be"):
        statistical_dimension_series(100, form="taylor")  # type: ignore[arg-type]


def test_broadcasts() -> None:
    values = statistical_dimension_series(np.array([[1e3, 1e4], [1e5, 1e6]]))
    assert values.shape == (2, 2)
    assert np.all(np.diff(values.ravel()) > 0)

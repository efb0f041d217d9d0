"""lamcap.symbolic beyond its doctests: the series against quadrature, the limits and widths
against numerical evaluation, and bad input (a ValueError naming the argument)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import mpmath
import pytest
import sympy as sp
from scipy import integrate, optimize

from lamcap import symbolic
from lamcap.symbolic import _free_entropy as free_entropy
from lamcap.symbolic import _rank as rank
from lamcap.symbolic import _series as series
from lamcap.theory import capacity, statistical_dimension


def _at(expression: sp.Expr, p: float) -> float:
    log_p = math.log(p)
    return float(expression.subs({series.L: log_p, series.LOG_2L: math.log(2 * log_p)}))


def test_statistical_dimension_series_approaches_the_quadrature() -> None:
    # asymptotic series: at p = 1e12 each added term brings the sum closer to lamcap's
    # quadrature of E[C_p], and the last error is below the last term kept
    p = 10**12
    exact = float(statistical_dimension(p))
    terms = series.statistical_dimension_series_terms(4)
    errors = [abs(_at(sum(terms[: k + 1]), p) - exact) for k in range(2, 5)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < abs(_at(terms[4], p))
    assert series.statistical_dimension_series_terms(0) == (2 * series.L,)


def test_capacity_series_approaches_log_p_over_the_quadrature() -> None:
    p = 10**12
    exact = float(capacity(p=p))
    terms = series.capacity_series_terms(3)
    errors = [abs(_at(sum(terms[: k + 1]), p) - exact) for k in range(3)]
    assert errors[0] > errors[1] > errors[2]
    assert errors[2] < abs(_at(terms[2], p))
    assert terms[0] == sp.Rational(1, 2)


@pytest.mark.parametrize("p", [1e3, 1e9])
def test_level_equation_puts_y_cubed_points_above_the_level(p: float) -> None:
    # Y solves Y^2 + 3 log Y^2 = 2 log(p - 1) - log(2 pi) iff (p - 1) phi(Y) = Y^3
    equation = series.level_equation()
    x, ell = sorted(equation.free_symbols, key=str)
    level = 2 * math.log(p - 1) - math.log(2 * math.pi)
    residual = sp.lambdify(x, (equation.lhs - equation.rhs).subs(ell, level))
    y = math.sqrt(optimize.brentq(residual, 1.0, 200.0, xtol=1e-14))
    density = math.exp(-y * y / 2) / math.sqrt(2 * math.pi)
    assert (p - 1) * density == pytest.approx(y**3, rel=1e-10)


def test_free_entropy_near_one_is_the_singular_part() -> None:
    # delta * Phi(1 - delta) -> (1 - C a)/2 as delta -> 0, evaluated without sympy's limit
    a, c = sp.Rational(3, 10), sp.Rational(5, 2)
    singular = free_entropy.free_entropy_near_one().subs(
        {free_entropy.DENSITY: a, free_entropy.DIMENSION: c}
    )
    delta = sp.Symbol("delta", positive=True)
    assert sp.simplify(singular * delta) == (1 - c * a) / 2
    a, c = float(a), float(c)
    with mpmath.workdps(30):
        for small in (mpmath.mpf("1e-8"), mpmath.mpf("1e-12")):
            q = 1 - small
            phi = (mpmath.log(1 - q) + q / (1 - q)) / 2 - a * c / (2 * small)
            assert abs(small * phi - (1 - c * a) / 2) < 10 * small * abs(mpmath.log(small))


def test_rank_entropic_term_is_the_full_rank_one_at_width_one() -> None:
    width = sp.Symbol("F", positive=True)
    assert sp.simplify(rank.entropic_term_rank().subs(width, 1) - symbolic.entropic_term()) == 0
    # its 1/(1 - q) part against a G = -C/(2(1 - q)) vanishes at a = F/C
    delta = sp.Symbol("delta", positive=True)
    phi = rank.entropic_term_rank().subs(free_entropy.Q, 1 - delta) - (
        free_entropy.DENSITY * free_entropy.DIMENSION / (2 * delta)
    )
    singular = sp.limit(phi * delta, delta, 0)
    assert sp.solve(singular, free_entropy.DENSITY) == [rank.critical_density_rank()]


@pytest.mark.parametrize("angle", [0.0, 0.3, 0.9, 1.4])
def test_width_of_angle_against_quadrature(angle: float) -> None:
    # F = int_{2 sin theta}^2 s^2 rho(s) ds, rho the quarter circle sqrt(4 - s^2)/pi
    value = float(rank.width_of_angle().subs(rank.THETA, angle))
    reference, _ = integrate.quad(
        lambda s: s * s * math.sqrt(4 - s * s) / math.pi, 2 * math.sin(angle), 2, epsabs=1e-13
    )
    assert value == pytest.approx(reference, abs=1e-11)


_ORDERED: list[tuple[Callable[..., Any], int, int]] = [
    (series.gumbel_coefficients, 1, 6),
    (series.statistical_dimension_series_terms, 0, 6),
    # alpha_c to order k needs E[C_p] to order k + 1, which its internal series gives
    (series.capacity_series_terms, 1, 6),
]


@pytest.mark.parametrize(
    ("function", "minimum", "maximum"), _ORDERED, ids=lambda v: getattr(v, "__name__", v)
)
@pytest.mark.parametrize("order", [-1, 2.5, True, "3", None, float("nan")])
def test_bad_order_is_a_value_error_naming_it(
    function: Callable[..., Any], minimum: int, maximum: int, order: object
) -> None:
    with pytest.raises(
        ValueError, match=rf"order must be an integer in \[{minimum}, {maximum}\] .*, got"
    ):
        function(order)


@pytest.mark.parametrize(
    ("function", "minimum", "maximum"), _ORDERED, ids=lambda v: getattr(v, "__name__", v)
)
def test_order_outside_the_range_is_refused(
    function: Callable[..., Any], minimum: int, maximum: int
) -> None:
    with pytest.raises(
        ValueError,
        match=rf"order must be an integer in \[{minimum}, {maximum}\] .*, got {minimum - 1}$",
    ):
        function(minimum - 1)
    with pytest.raises(ValueError, match=rf", got {maximum + 1}$"):
        function(maximum + 1)
    assert len(function(minimum)) == minimum + 1 - (function is series.capacity_series_terms)


def test_the_largest_capacity_order_asks_the_internal_series_one_order_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # capacity_series_terms(6) asks E[C_p] for order 7, beyond the public range [0, 6]:
    # it must call the internal, unchecked series (it once failed with "got 7")
    class _Asked(Exception):
        pass

    asked: list[int] = []

    def record(order: int) -> tuple[Any, ...]:
        asked.append(order)
        raise _Asked

    series._capacity_series_terms.cache_clear()
    monkeypatch.setattr(series, "_statistical_dimension_series_terms", record)
    with pytest.raises(_Asked):
        series.capacity_series_terms(6)
    assert asked == [7]


SERIES = series.statistical_dimension_series_terms


def _largest(function: Callable[..., Any], maximum: int) -> Any:
    return pytest.param(
        function,
        maximum,
        id=function.__name__,
        # 6-25 s each, by load: Gumbel's c_6 (its expansion), and for the capacity the
        # E[C_p] series to order 7; the series of E[C_p] to order 6 takes about 1 s
        marks=[pytest.mark.slow] if maximum == 6 and function is not SERIES else [],
    )


@pytest.mark.parametrize(
    ("function", "maximum"), [_largest(function, maximum) for function, _, maximum in _ORDERED]
)
def test_the_largest_order_of_each_range_returns_its_terms(
    function: Callable[..., Any], maximum: int
) -> None:
    terms = function(maximum)
    assert len(terms) == maximum + 1 - (function is series.capacity_series_terms)
    assert all(term != 0 for term in terms[1:])


@pytest.mark.slow  # about 10 s: the E[C_p] series to order 7
def test_capacity_series_to_order_6_times_the_dimension_series_is_log_p() -> None:
    # alpha_c = L / E[C_p] exactly; checked by multiplying the two truncated series (not
    # by the inversion the function does): alpha_6 E_7 - L = O(L^-5), so in eta = 1/L
    # every coefficient of eta^-1 ... eta^4 vanishes but the first, which is 1
    eta = sp.Symbol("eta", positive=True)
    alpha = sum(series.capacity_series_terms(6), sp.Integer(0))
    dimension = sum(series._statistical_dimension_series_terms(7), sp.Integer(0))
    product = sp.expand((alpha * dimension).subs(series.L, 1 / eta))
    assert product.coeff(eta, -1) == 1
    assert [sp.simplify(product.coeff(eta, k)) for k in range(5)] == [0] * 5
    assert sp.simplify(product.coeff(eta, 5)) != 0  # the first term the truncation drops

"""capacity() at finite p and d, CAPACITY and critical_p against independent evaluations."""

from __future__ import annotations

import math
from collections.abc import Callable

import mpmath
import numpy as np
import pytest

import lamcap
from lamcap.theory._capacity import CAPACITY, capacity, critical_p
from lamcap.theory._cost_models import (
    gaussian_mean_at,
    interpolated_gaussian_mean,
    statistical_dimension,
)

#: the brute-force Monte Carlo of E[C_p] (tests/conftest.py)
Sampler = Callable[[int, int, int], tuple[float, float]]


def test_constant_and_asymptotic_value() -> None:
    assert CAPACITY == 0.5
    assert lamcap.CAPACITY == 0.5
    assert float(capacity()) == 0.5
    assert lamcap.capacity is capacity


def test_finite_p_full_rank_is_log_p_over_statistical_dimension() -> None:
    # values quoted in docs/theory/capacity.md: about 0.85 at p = 1e3, 0.78 at 1e4
    values = capacity(p=[1000, 10_000])
    assert values[0] == pytest.approx(0.85, abs=0.01)
    assert values[1] == pytest.approx(0.78, abs=0.01)
    # E[C_2] = 1/2 exactly: alpha_c(2) = 2 log 2
    assert float(capacity(p=2)) == pytest.approx(2 * math.log(2), rel=1e-14)


def test_finite_p_decreases_towards_one_half() -> None:
    values = capacity(p=[10, 100, 1000, 10_000, 100_000])
    assert np.all(np.diff(values) < 0)
    assert np.all(values > CAPACITY)


def test_full_rank_width_does_not_depend_on_d() -> None:
    assert capacity(1.0, p=500, d=7) == capacity(1.0, p=500)
    rank_half = capacity(0.5, p=500, d=[16, 64, 256])
    # the finite-d width tends to d^2 F(kappa) from above (first-order term d G > 0)
    limit = float(capacity(0.5, p=500))
    assert np.all(rank_half > limit)
    assert np.all(np.diff(rank_half) < 0)


def test_mpmath_branch_full_rank_closed_forms() -> None:
    # full rank: alpha_c = log p / E[C_p], with E[C_2] = 1/2 (one competitor, active
    # with probability 1/2) and E[C_3] = 5/6 (the polar of {x_0 >= x_1, x_0 >= x_2} is
    # the 60-degree wedge spanned by e_1 - e_0 and e_2 - e_0: 1/2 + 1/3, intrinsic volumes)
    with mpmath.workdps(30):
        two = capacity(1.0, p=2, d=12, dps=20)
        assert isinstance(two, mpmath.mpf)
        assert abs(two - 2 * mpmath.log(2)) < mpmath.mpf(10) ** -18
        exact_3 = mpmath.log(3) / mpmath.mpf(5) * 6
        assert abs(capacity(1.0, p=3, d=12, dps=20) - exact_3) < mpmath.mpf(10) ** -18


@pytest.mark.slow  # the mpmath quadratures at p = 50 and 1000: about 40 s
def test_mpmath_branch_agrees_with_float64_and_sampling(sampled_active_set: Sampler) -> None:
    with mpmath.workdps(30):
        exact = capacity("0.3", p=1000, dps=30)
        assert isinstance(exact, mpmath.mpf)
        assert float(exact) == pytest.approx(float(capacity(0.3, p=1000)), rel=1e-11)
    # full rank at p = 50 against a Monte Carlo of the active set that draws every competitor
    mean, error = sampled_active_set(50, 100_000, 5)
    full = float(capacity(1.0, p=50, d=12, dps=20))
    assert abs(math.log(50) / full - mean) < 5 * error


def test_broadcasting() -> None:
    values = capacity([[0.25], [1.0]], p=[100, 1000])
    assert values.shape == (2, 2)
    assert values[1, 1] == pytest.approx(float(capacity(p=1000)), rel=1e-15)


@pytest.mark.parametrize(("d", "seed"), [(5, 1), (10, 2), (14, 3)])
def test_critical_p_brackets_the_sampled_crossing(
    d: int, seed: int, sampled_active_set: Sampler
) -> None:
    # p E[C_p] = d^2 between the integers around critical_p(d), with E[C_p] from the
    # brute-force Monte Carlo (5 standard errors), not from lamcap's quadrature
    value = float(critical_p(d))
    below, above = math.floor(value), math.ceil(value)
    low_mean, low_error = sampled_active_set(below, 100_000, seed)
    high_mean, high_error = sampled_active_set(above, 100_000, seed + 100)
    assert below * (low_mean + 5 * low_error) < d * d < above * (high_mean - 5 * high_error)


def test_critical_p_at_d12_is_forty() -> None:
    # quoted in docs/theory/capacity.md
    assert float(critical_p(12)) == pytest.approx(40.0, abs=0.5)


def test_critical_p_vectorised_and_monotone() -> None:
    dimensions = np.array([4, 8, 12, 24, 48])
    together = critical_p(dimensions)
    alone = np.array([float(critical_p(int(d))) for d in dimensions])
    assert np.array_equal(together, alone)
    assert np.all(np.diff(together) > 0)
    assert np.all(critical_p(dimensions, 0.5) < together)
    assert float(critical_p(1)) == 2.0  # d^2 = 1 = 2 E[C_2]


def test_real_p_dimension_between_integers() -> None:
    # Between integers the interpolant of statistical_dimension is smooth and stays
    # between the integer values (E[C_p] increases); it agrees with the cubic stencil
    # to that stencil's 1e-8 and with integer values exactly.
    for p in (16.0, 40.5, 333.25, 1e6 + 0.5):
        below, above = statistical_dimension(math.floor(p)), statistical_dimension(math.ceil(p))
        value = gaussian_mean_at(p)
        assert below <= value <= above
        assert value == pytest.approx(interpolated_gaussian_mean(p), rel=1e-8)
    assert gaussian_mean_at(1000.0) == statistical_dimension(1000)


@pytest.mark.parametrize("p", [23, 25, 47, 333, 1001])
def test_interpolation_between_grid_nodes(p: int) -> None:
    exact = float(statistical_dimension(p))
    assert interpolated_gaussian_mean(float(p)) == pytest.approx(exact, rel=1e-8)


def test_p_beyond_int64() -> None:
    # capacity(p=1e300): log p / E[C_p] against the large-p series of
    # lamcap.theory._asymptotics (error below the size of its last term).
    from lamcap.theory._asymptotics import statistical_dimension_series

    value = float(capacity(p=1e300))
    series = [float(statistical_dimension_series(10**300, order=k)) for k in (3, 4)]
    log_p = 300 * math.log(10)
    assert abs(value - log_p / series[1]) < log_p * abs(1 / series[1] - 1 / series[0])
    assert 0.5 < value < 0.51
    both = capacity(p=[1000, 10**300])
    assert both.dtype == np.float64
    assert both[1] == pytest.approx(value, rel=1e-15)
    assert float(capacity(0.5, p=10**40, d=64)) == pytest.approx(
        math.log(1e40)
        * float(lamcap.gaussian_width_squared(64, 0.5))
        / 64**2
        / float(statistical_dimension(10**40)),
        rel=1e-14,
    )


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"p": 1}, "p must"),
        ({"p": [100, 2.5]}, r"p must contain integers >= 2, got 2.5 \(element 1\)"),
        ({"p": 2.5}, "p must"),
        ({"p": math.nan}, "p must"),
        ({"d": 8}, "d requires p"),
        ({"p": 100, "d": 0}, "d must"),
        ({"kappa": 0.0}, "kappa"),
        ({"kappa": 0.5, "p": 100, "d": 64, "dps": 20}, "dps"),
        ({"p": 100, "dps": 0}, "dps"),
        ({"kappa": 0.01, "p": 100, "d": 10}, "r = round"),
    ],
)
def test_bad_input(kwargs: dict[str, object], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        capacity(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("d", "kappa", "pattern"),
    [
        (0, 1.0, "d must"),
        (3.5, 1.0, "d must"),
        (8, 2.0, "kappa"),
        (8, 0.01, "r = round"),
    ],
)
def test_critical_p_bad_input(d: object, kappa: object, pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        critical_p(d, kappa)  # type: ignore[arg-type]


def test_d_beyond_int64_works_and_beyond_float64_squares_is_refused() -> None:
    # issue 23: capacity(0.5, p=100, d=10**200) said "got -9223372036854775808"
    from lamcap.theory._capacity import capacity, critical_p

    assert capacity(0.5, p=100, d=10**100) == capacity(0.5, p=100, d=1e100)
    assert abs(capacity(0.5, p=100, d=10**100) - capacity(0.5, p=100)) < 1e-12
    assert critical_p([12, 10**100])[0] == critical_p(12)
    with pytest.raises(
        ValueError, match=r"d must be an integer in \[1, 1.34e\+154\].*got 1e\+200$"
    ):
        capacity(0.5, p=100, d=10**200)
    with pytest.raises(ValueError, match=r"got 1e\+200 \(element 1\)$"):
        critical_p([12, 10**200])

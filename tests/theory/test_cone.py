"""Tests for lamcap.theory.cone, each against an independent route."""

from __future__ import annotations

import importlib.util
import math

import mpmath
import numpy as np
import pytest

from lamcap import project_onto_cone
from lamcap.theory import cone
from lamcap.theory.cone import MonteCarloEstimate, active_set_law, statistical_dimension


def test_p2_is_one_half() -> None:
    assert statistical_dimension(2) == 0.5
    assert statistical_dimension(2, dps=40) == mpmath.mpf(1) / 2


def test_p3_closed_form() -> None:
    # Intrinsic volumes of K° at p = 3: P0 = 1/3, P0 - P1 + P2 = 0, sum = 1 => mean 5/6.
    assert statistical_dimension(3) == pytest.approx(5 / 6, rel=1e-14)


def test_vectorised_over_p() -> None:
    values = statistical_dimension([2, 3, 10])
    assert values.shape == (3,)
    assert values[2] == statistical_dimension(10)


@pytest.mark.parametrize("p", [10, 1000, 10**6, 10**9])
def test_mean_of_law_equals_statistical_dimension(p: int) -> None:
    # Order-statistic route (conditional excesses) vs exchangeability route (hinges).
    law = active_set_law(p)
    mean = float(np.sum(np.arange(law.size) * law))
    assert mean == pytest.approx(statistical_dimension(p), rel=1e-12)
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert law[0] == pytest.approx(1.0 / p, abs=1e-14)
    assert float(np.sum(law * (-1.0) ** np.arange(law.size))) == pytest.approx(0.0, abs=1e-12)


def _simplex_angle_law(p: int, k: int) -> mpmath.mpf:
    """docs/theory/cone.md, fact 4: C(p-1, k) beta_k gamma_k, by mpmath quadrature."""
    root = mpmath.sqrt(k + 1)

    def phi_imag(x: mpmath.mpf) -> mpmath.mpc:  # Phi(i x)
        return mpmath.mpf(1) / 2 + 1j * mpmath.erfi(x / mpmath.sqrt(2)) / 2

    beta = (
        mpmath.quad(
            lambda u: mpmath.npdf(u) * mpmath.re(phi_imag(u / root) ** k),
            [-mpmath.inf, 0, mpmath.inf],
        )
        if k > 0
        else mpmath.mpf(1)
    )
    gamma = mpmath.quad(
        lambda w: mpmath.npdf(w) * mpmath.ncdf(w / root) ** (p - 1 - k),
        [-mpmath.inf, 0, mpmath.inf],
    )
    return mpmath.binomial(p - 1, k) * beta * gamma


@pytest.mark.parametrize("p", [4, 7])
def test_law_against_simplex_angles(p: int) -> None:
    mpmath.mp.dps = 25
    law = active_set_law(p)
    for k in range(p):
        assert law[k] == pytest.approx(float(_simplex_angle_law(p, k)), abs=1e-13)


def test_simplex_angles_small_cases() -> None:
    mpmath.mp.dps = 25
    # beta_1 = 1/2, beta_2 = 1/6 (orthant probabilities), via p = k + 1 where gamma_k = 1.
    assert abs(_simplex_angle_law(2, 1) - mpmath.mpf(1) / 2) < 1e-20
    assert abs(_simplex_angle_law(3, 2) - mpmath.mpf(1) / 6) < 1e-20


def test_law_against_projection_sampling() -> None:
    rng = np.random.default_rng(5)
    samples, p = 200_000, 12
    _, sizes = project_onto_cone(rng.standard_normal((samples, p)))
    law = active_set_law(p)
    for k in range(6):
        empirical = np.mean(sizes == k)
        sigma = math.sqrt(law[k] * (1 - law[k]) / samples)
        assert abs(empirical - law[k]) < 5 * sigma


def test_kmax_truncates() -> None:
    full = active_set_law(50)
    short = active_set_law(50, kmax=3)
    np.testing.assert_allclose(short, full[:4], atol=1e-15)


def test_kmax_beyond_support_pads_zeros() -> None:
    full = active_set_law(1000)
    long = active_set_law(1000, kmax=999)
    assert long.size == 1000
    np.testing.assert_allclose(long[: full.size], full, atol=1e-16)
    assert np.all(long[full.size :] <= 1e-16)


def test_law_blocks_of_k_grow_until_the_support_is_covered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A first block far too short (1 + 10 values of k) must be extended by doubling.
    full = active_set_law(10**4)
    monkeypatch.setattr(cone, "_LAW_BLOCK_PER_LOG_P", 0.1)
    extended = active_set_law(10**4)
    assert extended.size == full.size
    np.testing.assert_allclose(extended, full, atol=1e-15)


@pytest.mark.parametrize("p", [2, 10, 1000, 10**6])
def test_exact_against_top_order_statistics(p: int) -> None:
    estimate = statistical_dimension(p, method="monte_carlo", samples=20_000, seed=p)
    assert isinstance(estimate, MonteCarloEstimate)
    assert abs(estimate.mean - statistical_dimension(p)) < 5 * estimate.standard_error


@pytest.mark.parametrize("p", [5, 40])
def test_exact_against_brute_force_projection(p: int) -> None:
    rng = np.random.default_rng(p)
    samples = 100_000
    scores = rng.standard_normal((samples, p))
    projected, sizes = project_onto_cone(scores)
    distances = np.sum((scores - projected) ** 2, axis=1)
    exact = statistical_dimension(p)
    for draws in (sizes.astype(float), distances):
        assert abs(draws.mean() - exact) < 5 * draws.std() / math.sqrt(samples)


@pytest.mark.parametrize("margin", [0.3, 1.0, 2.5])
def test_margin_p2_is_gardner(margin: float) -> None:
    mpmath.mp.dps = 30
    kappa = mpmath.mpf(margin) / mpmath.sqrt(2)
    gardner = mpmath.quad(lambda z: mpmath.npdf(z) * (z + kappa) ** 2, [-kappa, mpmath.inf])
    assert statistical_dimension(2, margin=margin) == pytest.approx(float(gardner), rel=1e-13)


@pytest.mark.parametrize(("p", "margin"), [(10, 0.5), (100, 1.0)])
def test_margin_against_projection(p: int, margin: float) -> None:
    rng = np.random.default_rng(17)
    samples = 100_000
    scores = rng.standard_normal((samples, p))
    projected, _ = project_onto_cone(scores, margin=margin)
    distances = np.sum((scores - projected) ** 2, axis=1)
    exact = statistical_dimension(p, margin=margin)
    assert abs(distances.mean() - exact) < 5 * distances.std() / math.sqrt(samples)


def test_margin_against_top_order_statistics_with_extension() -> None:
    # A large margin activates many more competitors than first sampled.
    estimate = statistical_dimension(
        10**4, margin=2.0, method="monte_carlo", samples=10_000, seed=3
    )
    exact = statistical_dimension(10**4, margin=2.0)
    assert abs(estimate.mean - exact) < 5 * estimate.standard_error


def test_monotone_in_p_and_margin() -> None:
    values = statistical_dimension([2, 5, 50, 500, 5000])
    assert np.all(np.diff(values) > 0)
    assert statistical_dimension(50, margin=0.1) > statistical_dimension(50)


@pytest.mark.slow
def test_mpmath_route_closed_forms_to_30_digits() -> None:
    # p = 3: intrinsic volumes of the polar cone give E[C_3] = 5/6 exactly.
    value = statistical_dimension(3, dps=30)
    assert isinstance(value, mpmath.mpf)
    with mpmath.workdps(40):
        assert abs(value - mpmath.mpf(5) / 6) < mpmath.mpf(10) ** -30


@pytest.mark.slow
def test_mpmath_route_margin_is_gardner_to_30_digits() -> None:
    # p = 2, margin m: Gardner's (1 + k^2) Phi(k) + k phi(k) with k = m / sqrt(2).
    value = statistical_dimension(2, margin=1.0, dps=30)
    with mpmath.workdps(40):
        kappa = 1 / mpmath.sqrt(2)
        gardner = (1 + kappa**2) * mpmath.ncdf(kappa) + kappa * mpmath.npdf(kappa)
        assert abs(value - gardner) < mpmath.mpf(10) ** -30


@pytest.mark.slow
@pytest.mark.parametrize("p", [1000, 10**9])
def test_mpmath_route_against_float_and_higher_precision(p: int) -> None:
    # float64 route (different quadrature, scipy Faddeeva) to 1e-12; dps=30 vs dps=36
    # (different node counts, panel orders and truncation levels) to 30 digits.
    value = statistical_dimension(p, dps=30)
    assert float(value) == pytest.approx(statistical_dimension(p), rel=1e-12)
    finer = statistical_dimension(p, dps=36)
    with mpmath.workdps(45):
        assert abs(value / finer - 1) < mpmath.mpf(10) ** -30


@pytest.mark.skipif(
    importlib.util.find_spec("lamcap.theory.asymptotics") is None,
    reason="lamcap.theory.asymptotics not written yet",
)
def test_asymptotic_dispatch_is_close_at_large_p() -> None:
    series = float(statistical_dimension(10**9, method="asymptotic"))
    assert series == pytest.approx(statistical_dimension(10**9), rel=0.05)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"p": 1}, "p"),
        ({"p": 2.5}, "p"),
        ({"p": float("nan")}, "p"),
        ({"p": 10, "dps": 0}, "dps"),
        ({"p": 10, "margin": -0.1}, "margin"),
        ({"p": 10, "method": "bogus"}, "method"),
        ({"p": 10, "method": "monte_carlo", "samples": 1}, "samples"),
    ],
)
def test_bad_input(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        statistical_dimension(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("p", "kmax"), [(1, None), (5, 5), (5, -1)])
def test_law_bad_input(p: int, kmax: int | None) -> None:
    with pytest.raises(ValueError, match=r"p|kmax"):
        active_set_law(p, kmax)

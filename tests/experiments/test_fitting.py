"""Transition fit: recovers known logistic and cloglog transitions; interval coverage; Wilson interval."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamcap.experiments._fitting import (
    fit_transition,
    fit_transition_ratio,
    fit_trend,
    wilson_interval,
)


def _simulate(
    rng: np.random.Generator, p_c: float, slope: float, ps: np.ndarray, m: int
) -> np.ndarray:
    probability = 1 / (1 + np.exp(-slope * (math.log(p_c) - np.log(ps))))
    return rng.binomial(m, probability)


def test_interval_covers_true_transition_about_95_percent() -> None:
    # Independent check: simulate the model itself with a known p_c and count
    # how often the 95% interval covers it (binomial tolerance: 40 fits).
    rng = np.random.default_rng(12345)
    ps = np.arange(30, 71, 5)
    covered = 0
    fits = 40
    for _ in range(fits):
        counts = _simulate(rng, 48.0, 10.0, ps, 8)
        fit = fit_transition(ps, counts, np.full(ps.size, 8))
        covered += fit.low <= 48.0 <= fit.high
    # Expected 38 of 40; P(covered <= 33) < 1e-3 for a true 95% interval.
    assert covered >= 34


def test_estimate_converges_with_many_instances() -> None:
    rng = np.random.default_rng(7)
    ps = np.arange(30, 71, 2)
    counts = _simulate(rng, 48.0, 10.0, ps, 2000)
    fit = fit_transition(ps, counts, np.full(ps.size, 2000))
    assert fit.p_c == pytest.approx(48.0, rel=0.005)
    assert fit.slope == pytest.approx(10.0, rel=0.1)
    assert fit.high / fit.low < 1.02


def _simulate_cloglog(
    rng: np.random.Generator, p_c: float, slope: float, ps: np.ndarray, m: int
) -> np.ndarray:
    probability = np.exp(-math.log(2.0) * (ps / p_c) ** slope)
    return rng.binomial(m, probability)


def test_cloglog_estimate_converges_with_many_instances() -> None:
    rng = np.random.default_rng(8)
    ps = np.arange(30, 71, 2)
    counts = _simulate_cloglog(rng, 48.0, 6.0, ps, 2000)
    fit = fit_transition(ps, counts, np.full(ps.size, 2000), link="cloglog")
    assert fit.link == "cloglog"
    assert fit.p_c == pytest.approx(48.0, rel=0.005)
    assert fit.slope == pytest.approx(6.0, rel=0.1)
    # the closed form of the curve: P(p) = 2^(-(p / p_c)^slope)
    for probability in (0.2, 0.5, 0.8):
        p = fit.quantile(probability)
        assert 2.0 ** (-((p / fit.p_c) ** fit.slope)) == pytest.approx(probability, rel=1e-12)


def test_cloglog_interval_covers_true_transition_about_95_percent() -> None:
    rng = np.random.default_rng(54321)
    ps = np.arange(30, 71, 5)
    covered = 0
    fits = 40
    for _ in range(fits):
        counts = _simulate_cloglog(rng, 48.0, 6.0, ps, 8)
        fit = fit_transition(ps, counts, np.full(ps.size, 8), link="cloglog")
        covered += fit.low <= 48.0 <= fit.high
    # Expected 38 of 40; P(covered <= 33) < 1e-3 for a true 95% interval.
    assert covered >= 34


def test_the_wrong_link_misplaces_a_skewed_transition() -> None:
    # Exact expected counts of a cloglog curve: its own link finds p_c, the
    # symmetric logistic curve does not (it balances the long upper tail).
    ps = np.arange(20, 81, 4)
    total = np.full(ps.size, 1000)
    counts = total * np.exp(-math.log(2.0) * (ps / 48.0) ** 4.0)
    assert fit_transition(ps, counts, total, link="cloglog").p_c == pytest.approx(48.0, rel=1e-3)
    assert fit_transition(ps, counts, total).p_c < 0.98 * 48.0


def test_cloglog_fit_survives_complete_separation() -> None:
    fit = fit_transition([20, 24, 28, 32], [6, 6, 0, 0], [6, 6, 6, 6], link="cloglog")
    assert 24 < fit.p_c < 28
    assert math.isfinite(fit.low)
    assert math.isfinite(fit.high)


def test_unknown_link_is_rejected() -> None:
    with pytest.raises(
        ValueError, match=r"link must be one of \('logistic', 'cloglog'\), got 'probit'"
    ):
        fit_transition([10, 20], [1, 0], [1, 1], link="probit")


def test_separated_data_give_the_gap() -> None:
    fit = fit_transition([20, 24, 28, 32], [6, 6, 0, 0], [6, 6, 6, 6])
    assert 24 < fit.p_c < 28
    assert fit.low < 25
    assert fit.high > 27
    assert fit.bracketed


def test_unbracketed_data_are_flagged() -> None:
    assert not fit_transition([20, 24], [6, 6], [6, 6]).bracketed


def test_wilson_matches_closed_form() -> None:
    low, high = wilson_interval(0, 10)
    assert float(low) == pytest.approx(0.0, abs=1e-12)
    z = 1.959963984540054
    assert float(high) == pytest.approx(z * z / 10 / (1 + z * z / 10))


def test_ratio_interval_covers_true_ratio_about_95_percent() -> None:
    # Independent check by simulation of the model: two transitions whose p_c
    # differ by 5%, each measured with 8 instances at 9 points.
    rng = np.random.default_rng(2024)
    ps = np.arange(30, 71, 5)
    covered = 0
    fits = 40
    for _ in range(fits):
        one = _simulate(rng, 48.0, 10.0, ps, 8)
        two = _simulate(rng, 1.05 * 48.0, 10.0, ps, 8)
        total = np.full(ps.size, 8)
        fit = fit_transition_ratio((ps, two, total), (ps, one, total))
        covered += fit.low <= 1.05 <= fit.high
    # Expected 38 of 40; P(covered <= 33) < 1e-3 for a true 95% interval.
    assert covered >= 34


def test_ratio_of_a_rescaled_copy_is_the_scale() -> None:
    ps = np.array([30, 35, 40, 45, 50, 55, 60])
    counts = np.array([8, 8, 6, 4, 3, 1, 0])
    total = np.full(ps.size, 8)
    fit = fit_transition_ratio((2 * ps, counts, total), (ps, counts, total))
    assert fit.ratio == pytest.approx(2.0, rel=1e-3)
    # Two equally uncertain estimates: the ratio's interval is wider than either's.
    single = fit.denominator
    assert fit.high / fit.low > single.high / single.low


def test_ratio_of_precise_transitions_is_the_ratio_of_estimates() -> None:
    rng = np.random.default_rng(11)
    ps = np.arange(30, 71, 2)
    total = np.full(ps.size, 4000)
    one = _simulate(rng, 48.0, 10.0, ps, 4000)
    two = _simulate(rng, 50.0, 10.0, ps, 4000)
    fit = fit_transition_ratio((ps, two, total), (ps, one, total))
    separate = fit.numerator.p_c / fit.denominator.p_c
    assert fit.ratio == pytest.approx(separate, rel=1.5e-3)  # three grid steps
    assert fit.low < 50 / 48 < fit.high


def test_trend_matches_numpy_weighted_polyfit() -> None:
    rng = np.random.default_rng(5)
    x = np.linspace(0.05, 0.5, 7)
    sigma = rng.uniform(0.01, 0.05, x.size)
    y = 1.0 + 0.3 * x + rng.normal(0.0, sigma)
    trend = fit_trend(x, y, sigma)
    slope, intercept = np.polyfit(x, y, 1, w=1 / sigma)
    assert trend.intercept == pytest.approx(intercept, rel=1e-10)
    assert trend.slope == pytest.approx(slope, rel=1e-10)
    # Unscaled covariance of the intercept: 1 / sum(w) * sum(w x^2) / var-weighted.
    w = 1 / sigma**2
    determinant = w.sum() * (w * x * x).sum() - (w * x).sum() ** 2
    expected = math.sqrt((w * x * x).sum() / determinant) * trend.scale
    assert trend.intercept_error == pytest.approx(expected, rel=1e-10)
    assert trend.dof == 5


def test_trend_rejects_bad_sigma() -> None:
    with pytest.raises(ValueError, match="sigma"):
        fit_trend([1.0, 2.0], [1.0, 2.0], [0.1, 0.0])


def test_trend_through_origin_matches_closed_form() -> None:
    x = np.array([0.1, 0.2, 0.4])
    y = np.array([0.11, 0.19, 0.42])
    sigma = np.array([0.01, 0.02, 0.01])
    trend = fit_trend(x, y, sigma, intercept=False)
    w = 1 / sigma**2
    assert trend.slope == pytest.approx((w * x * y).sum() / (w * x * x).sum(), rel=1e-12)
    assert trend.intercept == 0.0
    assert trend.dof == 2

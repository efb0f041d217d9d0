"""law_transition: the transition point with the law's shape, its interval and its coverage."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lamcap.experiments._shift import TransitionLaw, finite_size_law, law_transition


def _power_law(scale: float, exponent: float = 12.0) -> TransitionLaw:
    return TransitionLaw(lambda p: 1.0 / (1.0 + (p / scale) ** exponent))


def test_median_is_the_crossing_of_the_interpolated_law() -> None:
    law = _power_law(40.5)
    # independent: the interpolation in log p between the integers 40 and 41, solved by hand
    upper, lower = (1.0 / (1.0 + (q / 40.5) ** 12) for q in (40, 41))
    fraction = (upper - 0.5) / (upper - lower)
    expected = 40.0 * (41.0 / 40.0) ** fraction
    assert law.median() == pytest.approx(expected, rel=1e-12)
    assert float(law(np.array([law.median()]))[0]) == pytest.approx(0.5, abs=1e-12)
    assert _power_law(40.0).median() == pytest.approx(40.0, rel=1e-12)


def _brute_force(
    p: list[int], k: list[int], m: list[int], slope_range: tuple[float, float]
) -> tuple[float, float, float]:
    """ML shift and profile-LR interval ends on a grid of step 1e-5, log-pmf from scipy.

    The law is recomputed at the integers and interpolated in log p by hand;
    the slope factor is profiled over the 21 values the estimator uses.
    """
    deltas = np.arange(-0.3, 0.3, 1e-5)
    integers = np.arange(2, 400)
    table = 1.0 / (1.0 + (integers / 40.5) ** 12)
    median = _power_law(40.5).median()
    profile = np.full(deltas.size, -np.inf)
    for slope in np.unique(np.linspace(*slope_range, 21)):
        loglik = np.zeros(deltas.size)
        for point, storable, total in zip(p, k, m, strict=True):
            argument = np.log(median) + slope * (np.log(point) - deltas - np.log(median))
            prob = np.interp(argument, np.log(integers), table)
            loglik += stats.binom.logpmf(storable, total, prob)
        profile = np.maximum(profile, loglik)
    inside = deltas[2.0 * (profile.max() - profile) <= stats.chi2.ppf(0.95, 1)]
    return float(deltas[np.argmax(profile)]), float(inside.min()), float(inside.max())


@pytest.mark.parametrize("slope_range", [(1.0, 1.0), (0.8, 1.2)])
@pytest.mark.parametrize(
    ("k", "m"),
    [([12, 9, 5, 1, 0], [12, 12, 12, 12, 12]), ([5, 3, 2, 0], [5, 6, 4, 5])],
)
def test_agrees_with_a_brute_force_profile_likelihood(
    k: list[int], m: list[int], slope_range: tuple[float, float]
) -> None:
    p = [34, 38, 41, 45, 50][: len(k)]
    law = _power_law(40.5)
    fit = law_transition(p, k, m, law, slope_range=slope_range)
    assert fit is not None
    best, low, high = _brute_force(p, k, m, slope_range)
    median = law.median()
    # grid step 1e-5 in log p: agreement to 2e-5
    assert math.log(fit.p_c / median) == pytest.approx(best, abs=2e-5)
    assert math.log(fit.low / median) == pytest.approx(low, abs=2e-5)
    assert math.log(fit.high / median) == pytest.approx(high, abs=2e-5)
    assert fit.instances == sum(m)
    assert fit.link == "law"


def test_a_wider_confidence_gives_a_wider_interval() -> None:
    law = _power_law(40.5)
    counts = ([34, 38, 41, 45], [9, 7, 4, 1], [10, 10, 10, 10])
    narrow = law_transition(*counts, law, confidence=0.8)
    wide = law_transition(*counts, law, confidence=0.99)
    assert narrow is not None
    assert wide is not None
    assert wide.low < narrow.low < narrow.p_c < narrow.high < wide.high
    assert narrow.p_c == pytest.approx(wide.p_c, rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("slope", [1.0, 0.8])
def test_covers_the_truth_at_the_nominal_rate_on_data_drawn_from_the_crofton_law(
    slope: float,
) -> None:
    """400 seeded datasets at a d = 16 design (10 points, 20 instances each).

    The truth is the Crofton law (slope factor 1) or the law 20% flatter about
    its median (0.8).  Acceptance bands: the central 99.9% of Binomial(400,
    level) for an exact interval at that level, 95% and 80% (bands disjoint:
    an interval a level too narrow or too wide fails).
    """
    law = finite_size_law(16)
    truth = law.median()
    p = np.array([37, 49, 55, 58, 61, 62, 63, 66, 77, 99])
    m = np.full(p.size, 20)
    probability = law(truth * (p / truth) ** slope)
    rng = np.random.default_rng(20_261_202)
    runs, levels = 400, (0.95, 0.8)
    covered = dict.fromkeys(levels, 0)
    for _ in range(runs):
        k = rng.binomial(m, probability)
        for level in levels:
            fit = law_transition(p, k, m, law, confidence=level)
            assert fit is not None
            covered[level] += fit.low <= truth <= fit.high
    for level in levels:
        low, high = stats.binom.ppf([0.0005, 0.9995], runs, level)
        assert low <= covered[level] <= high, f"{covered[level]} of {runs} at level {level}"


def test_the_search_widens_until_it_holds_the_interval() -> None:
    law = _power_law(40.0)  # data whose transition sits a factor 2 above the law's
    fit = law_transition([60, 80, 100], [19, 10, 1], [20, 20, 20], law)
    assert fit is not None
    assert 70 < fit.p_c < 90
    assert fit.low < 80 < fit.high


def test_flat_likelihood_gives_none() -> None:
    law = TransitionLaw(lambda p: 1.0 if p < 40 else 0.0)  # a step: exactly 0 beyond 40
    assert (
        law_transition([2000, 3000], [0, 0], [5, 5], law) is None
    )  # no shift within 1.42x moves it


@pytest.mark.parametrize(
    ("arguments", "keywords", "pattern"),
    [
        (([30, 40], [1], [2, 2]), {}, r"feasible must be .* as long as p \(2\), got shape \(1,\)"),
        (([1, 40], [1, 1], [2, 2]), {}, r"p must be at least 2, got 1"),
        (
            ([30, 40], [3, 1], [2, 2]),
            {},
            r"feasible must lie in \[0, total\].* got 3 of 2 at p = 30",
        ),
        (([30, 40], [-1, 1], [2, 2]), {}, r"feasible must lie in \[0, total\].* got -1 of 2"),
        (([30, 40], [1.5, 1], [2, 2]), {}, r"feasible must hold finite whole numbers, got 1\.5"),
        (
            ([30, 40], [0, 0], [0, 0]),
            {},
            r"total must count at least one instance, got \[0\.0, 0\.0\]",
        ),
        (
            ([30, 40], [1, 1], [2, 2]),
            {"confidence": 1.0},
            r"confidence must lie in .*\(0, 1\), got 1\.0",
        ),
        (
            ([30, 40], [1, 1], [2, 2]),
            {"confidence": 0.0},
            r"confidence must lie in .*\(0, 1\), got 0\.0",
        ),
        (([30, 40], [1, 1], [2, 2]), {"confidence": math.nan}, r"confidence must lie in .*got nan"),
        (
            ([30, 40], [1, 1], [2, 2]),
            {"slope_range": (1.2, 0.8)},
            r"slope_range must be \(low, high\) with 0 < low <= high < inf, got \(1\.2, 0\.8\)",
        ),
        (
            ([30, 40], [1, 1], [2, 2]),
            {"slope_range": (0.0, 1.0)},
            r"slope_range must be .* got \(0\.0, 1\.0\)",
        ),
    ],
)
def test_bad_input_names_argument_value_and_range(
    arguments: tuple[list[float], list[float], list[float]],
    keywords: dict[str, object],
    pattern: str,
) -> None:
    with pytest.raises(ValueError, match=pattern):
        law_transition(*arguments, _power_law(40.0), **keywords)

"""Recall below 100% (docs/theory/partial-recall.md): the chi-bar law, the RS fraction, p_c(a).

Reference values come from independent routes: Monte Carlo projections onto the recall
cone (the chi-bar law), the Gardner-Derrida equation at p = 2 solved with scipy, mpmath
quadrature of the mixture with exact weights at p = 3, today's critical_p at accuracy 1,
the order-statistics picture by Monte Carlo, and the p -> infinity limit 1/(2 alpha).
"""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import optimize, stats

import lamcap
from lamcap.theory._cost_law import chi_bar_cdf, chi_bar_partial_mean
from lamcap.theory._cost_law import exact_active_set_law as _law
from lamcap.theory._partial_recall import symmetric_channel_bits

# ----------------------------------------------------------------------------- the chi-bar law


def _ks_distance(costs: np.ndarray, law: np.ndarray) -> float:
    """Sup distance between the empirical cdf of ``costs`` and the chi-bar cdf, atom included.

    Both sides are compared at every sample point and just below it (the model's left
    limit is its value for x > 0 and 0 at the atom x = 0).
    """
    x = np.unique(costs)
    ordered = np.sort(costs)
    right = np.searchsorted(ordered, x, side="right") / costs.size
    left = np.searchsorted(ordered, x, side="left") / costs.size
    model = chi_bar_cdf(law, x)
    model_left = np.where(x > 0.0, model, 0.0)
    return float(max(np.max(np.abs(right - model)), np.max(np.abs(left - model_left))))


#: Draws per p; the 1% critical value of the Kolmogorov distance is 1.63/sqrt(N) = 0.0115
#: (conservative for a law with an atom).  Power: a model whose cdf is off by more than
#: 2 x 0.0115 = 0.023 anywhere fails with probability at least 0.99, since the empirical
#: cdf stays within 0.0115 of the true one with probability 0.99 (DKW).
_DRAWS = 20_000
_KS_CRITICAL = 1.63 / math.sqrt(_DRAWS)


@pytest.mark.parametrize("p", [2, 10, 100])
def test_the_cost_has_the_chi_bar_law_of_the_active_set(p: int) -> None:
    g = np.random.default_rng(p).standard_normal((_DRAWS, p))
    projected, _ = lamcap.project_onto_cone(g)
    costs = np.sum((g - projected) ** 2, axis=1)  # C_p = dist(g, K)^2
    assert _ks_distance(costs, _law(p)) < _KS_CRITICAL


def test_the_chi_bar_law_at_p_2_is_the_squared_positive_part_of_a_normal() -> None:
    x = np.array([0.0, 1e-8, 0.3, 1.0, 4.0, 30.0])
    # C_2 = Z_+^2: P(C_2 <= x) = Phi(sqrt x)
    np.testing.assert_allclose(chi_bar_cdf([0.5, 0.5], x), stats.norm.cdf(np.sqrt(x)), rtol=1e-14)
    # E[Z^2; 0 < Z < s] = Phi(s) - 1/2 - s phi(s)
    s = np.sqrt(x)
    partial = stats.norm.cdf(s) - 0.5 - s * stats.norm.pdf(s)
    np.testing.assert_allclose(chi_bar_partial_mean([0.5, 0.5], x), partial, atol=1e-15)


def test_the_mean_of_the_mixture_is_the_statistical_dimension() -> None:
    for p in (3, 10, 1000):
        mean = float(chi_bar_partial_mean(_law(p), 1e6))
        assert mean == pytest.approx(float(lamcap.statistical_dimension(p)), rel=1e-13)


# ----------------------------------------------------------------------------- best_accuracy


def _gardner_derrida(density: float) -> float:
    """RS accuracy of the perceptron at n/N = density > 2 (independent scipy route)."""

    def budget(s: float) -> float:  # density * E[Z^2; 0 < Z < s] = 1
        return density * (stats.norm.cdf(s) - 0.5 - s * stats.norm.pdf(s)) - 1.0

    s = optimize.brentq(budget, 1e-9, 40.0, xtol=1e-15, rtol=1e-15)
    return float(stats.norm.cdf(s))


@pytest.mark.parametrize(("d", "n"), [(2, 9), (2, 16), (3, 40), (4, 200), (10, 10_000)])
def test_p_2_is_the_replica_symmetric_perceptron_of_gardner_and_derrida(d: int, n: int) -> None:
    expected = _gardner_derrida(n / d**2)
    assert float(lamcap.best_accuracy(d, 2, n=n)) == pytest.approx(expected, abs=1e-12)


def test_p_2_below_cover_is_full_recall() -> None:
    assert float(lamcap.best_accuracy(4, 2, n=32)) == 1.0  # n = 2 d^2: Cover's capacity


def _mp_fraction(weights: list[mpmath.mpf], density: mpmath.mpf) -> mpmath.mpf:
    """The RS fraction from exact weights by mpmath (30 digits): root of the budget equation."""

    def partial(tau: mpmath.mpf) -> mpmath.mpf:
        return mpmath.fsum(
            w * k * mpmath.gammainc(mpmath.mpf(k + 2) / 2, 0, tau / 2, regularized=True)
            for k, w in enumerate(weights)
        )

    tau = mpmath.findroot(
        lambda t: partial(t) - 1 / density, (mpmath.mpf("1e-6"), 200), solver="anderson"
    )
    return weights[0] + mpmath.fsum(
        w * mpmath.gammainc(mpmath.mpf(k) / 2, 0, tau / 2, regularized=True)
        for k, w in enumerate(weights)
        if k > 0
    )


@pytest.mark.parametrize("n", [20, 50, 400])
def test_p_3_against_mpmath_with_exact_weights(n: int) -> None:
    # the law of |A| at p = 3 is (1/3, 1/2, 1/6) exactly (docs/theory/cone.md)
    with mpmath.workdps(30):
        weights = [mpmath.mpf(1) / 3, mpmath.mpf(1) / 2, mpmath.mpf(1) / 6]
        expected = float(_mp_fraction(weights, mpmath.mpf(n) / 9))
    assert float(lamcap.best_accuracy(3, 3, n=n)) == pytest.approx(expected, abs=1e-13)


def test_p_10_against_mpmath_on_the_same_law() -> None:
    law = _law(10)
    with mpmath.workdps(30):
        expected = float(_mp_fraction([mpmath.mpf(float(w)) for w in law], mpmath.mpf(50) / 16))
    assert float(lamcap.best_accuracy(4, 10, n=50)) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("d", [8, 12, 16, 32])
def test_full_recall_exactly_up_to_critical_p(d: int) -> None:
    p_c = float(lamcap.critical_p(d))
    below, above = math.floor(p_c), math.floor(p_c) + 1
    assert float(lamcap.best_accuracy(d, below)) == 1.0
    assert float(lamcap.best_accuracy(d, above)) < 1.0


def test_monotone_in_p_d_and_n() -> None:
    p = np.arange(60, 400, 7)
    fractions = lamcap.best_accuracy(16, p)
    assert np.all(np.diff(fractions) < 0.0)
    assert np.all(np.diff(lamcap.best_accuracy([8, 12, 16, 24], 200)) > 0.0)
    assert np.all(np.diff(lamcap.best_accuracy(8, 30, n=[40, 80, 160, 10**6])) < 0.0)


def test_the_fraction_never_falls_below_chance() -> None:
    # P(C_p = 0) = 1/p: the associations a random W already recalls cost nothing
    fractions = lamcap.best_accuracy(4, 50, n=[10**4, 10**8, 10**15])
    assert np.all(fractions >= 1 / 50)
    assert float(fractions[-1]) == pytest.approx(1 / 50, rel=1e-3)


def test_the_recalled_count_is_at_least_the_capacity_count() -> None:
    # f = (d^2/n) / E[C_p | C_p < tau] >= d^2 / (n E[C_p]): the kept ones are the cheap ones
    d, p = 32, np.array([200, 300, 600, 1500])
    counts = lamcap.best_accuracy(d, p) * p
    assert np.all(counts > d**2 / lamcap.statistical_dimension(p))


def test_rank_budget_is_the_gaussian_width() -> None:
    # kappa < 1 spends w_r^2 instead of d^2; the threshold found here by brentq
    width = float(lamcap.gaussian_width_squared(16, 0.5))
    n, p = 300, 40
    law = _law(p)
    tau = _threshold(law, width / n)
    expected = float(chi_bar_cdf(law, tau))
    assert float(lamcap.best_accuracy(16, p, n=n, kappa=0.5)) == pytest.approx(expected, abs=1e-12)


def _threshold(law: np.ndarray, budget: float) -> float:
    return float(
        optimize.brentq(
            lambda t: float(chi_bar_partial_mean(law, t)) - budget, 1e-12, 1e3, xtol=1e-15
        )
    )


def test_broadcasting_and_scalars() -> None:
    scalar = lamcap.best_accuracy(16, 100)
    assert isinstance(scalar, np.float64)
    grid = lamcap.best_accuracy(np.array([[16], [32]]), [100, 300, 400])
    assert grid.shape == (2, 3)
    assert grid[0, 0] == scalar


# ----------------------------------------------------------------------------- the large-p limit


def _fraction_at_load(alpha: float, p: int) -> float:
    """The fraction at load alpha with n = p, d^2 = p log p / alpha (through n at integer d)."""
    d = 10**6
    n = round(alpha * d * d / (p * math.log(p)) * p)  # d^2 / n = p log p / (alpha p)
    return float(lamcap.best_accuracy(d, p, n=n))


def test_large_p_approaches_one_over_two_alpha_from_above() -> None:
    alpha = 2.0
    ps = [10**3, 10**6, 10**9, 10**12, 10**18]
    excess = [2.0 * alpha * _fraction_at_load(alpha, p) - 1.0 for p in ps]
    assert all(e > 0.0 for e in excess)
    assert all(b < a for a, b in itertools.pairwise(excess))
    # the exact lower bound f >= alpha_c(p) / alpha (the capacity count) holds at each p
    for p in ps:
        assert _fraction_at_load(alpha, p) >= float(lamcap.capacity(p=p)) / alpha


def test_gaussian_lower_tail_correction_at_large_p() -> None:
    # f = (alpha_c(p)/alpha) E[C_p] / E[C_p | C_p < q_f]; with C_p ~ N(mu, sigma^2),
    # E[C | C < q_f] = mu - sigma phi(z_f)/f: the fraction solves a fixed point
    alpha, p = 1.0, 10**18
    law = _law(p)
    k = np.arange(law.size)
    mu = float(np.dot(k, law))
    sigma = math.sqrt(float(np.dot(k * k, law)) - mu * mu + 2.0 * mu)  # Var|A| + 2 E|A|
    base = float(lamcap.capacity(p=p)) / alpha
    f = base
    for _ in range(100):
        f = base / (1.0 - sigma / mu * stats.norm.pdf(stats.norm.ppf(f)) / f)
    assert _fraction_at_load(alpha, p) == pytest.approx(f, rel=0.01)


# ----------------------------------------------------------------------------- order statistics


def _order_statistic_fraction(d: int, p: int, repeats: int, seed: int) -> np.ndarray:
    """K/n with K = max{k : sum of the k smallest of n iid C_p <= d^2}, n = p."""
    rng = np.random.default_rng(seed)
    law = _law(p)
    k = rng.choice(law.size, size=(repeats, p), p=law / law.sum())
    costs = np.where(k > 0, rng.chisquare(np.maximum(k, 1)), 0.0)
    totals = np.cumsum(np.sort(costs, axis=1), axis=1)
    return np.sum(totals <= d * d, axis=1) / p  # type: ignore[no-any-return]


@pytest.mark.slow
@pytest.mark.parametrize(("d", "ratio", "tolerance"), [(32, 1.5, 0.003), (64, 2.0, 0.002)])
def test_order_statistics_converge_to_the_replica_symmetric_fraction(
    d: int, ratio: float, tolerance: float
) -> None:
    # measured: the mean of K/n is below the RS value by 0.3% at d = 32 and 0.1% at d = 64
    p = round(ratio * float(lamcap.critical_p(d)))
    fractions = _order_statistic_fraction(d, p, repeats=1000, seed=d)
    assert float(np.mean(fractions)) == pytest.approx(
        float(lamcap.best_accuracy(d, p)), abs=tolerance
    )


# ----------------------------------------------------------------------------- critical_p(a)


@pytest.mark.parametrize("d", [2, 3, 8, 12, 64, [8, 16, 32]])
def test_accuracy_one_is_todays_critical_p(d: object) -> None:
    today = lamcap.critical_p(d)
    np.testing.assert_array_equal(lamcap.critical_p(d, accuracy=1.0), today)
    np.testing.assert_array_equal(
        lamcap.critical_p(d, accuracy=np.ones((2, *np.shape(d))))[1], today
    )
    np.testing.assert_array_equal(lamcap.critical_p(d, 0.5, accuracy=1), lamcap.critical_p(d, 0.5))


@pytest.mark.parametrize("d", [8, 16, 32])
@pytest.mark.parametrize("accuracy", [0.99, 0.9, 0.5])
def test_critical_p_at_an_accuracy_brackets_the_recall_fraction(d: int, accuracy: float) -> None:
    p_a = float(lamcap.critical_p(d, accuracy=accuracy))
    assert float(lamcap.best_accuracy(d, math.floor(p_a))) >= accuracy
    assert float(lamcap.best_accuracy(d, math.ceil(p_a))) < accuracy


def test_critical_p_falls_with_the_accuracy() -> None:
    values = lamcap.critical_p(16, accuracy=[0.3, 0.6, 0.9, 0.99, 0.999, 1.0])
    assert np.all(np.diff(values) < 0.0)


def test_critical_p_of_an_accuracy_solves_the_quantile_equation() -> None:
    # at an integer root the law is exact: p E[C_p; C_p < q_a] = d^2 with P(C_p <= q_a) = a
    d, accuracy = 16, 0.9
    p_a = float(lamcap.critical_p(d, accuracy=accuracy))
    p = math.floor(p_a)
    law = _law(p)
    quantile = optimize.brentq(lambda x: float(chi_bar_cdf(law, x)) - accuracy, 1e-9, 100.0)
    assert p * float(chi_bar_partial_mean(law, quantile)) <= d * d


@pytest.mark.parametrize("accuracy", [0.0, -0.1, 1.5, math.nan, math.inf, "x", None])
def test_accuracy_outside_zero_one_is_refused_by_name(accuracy: object) -> None:
    with pytest.raises(ValueError, match="accuracy"):
        lamcap.critical_p(16, accuracy=accuracy)
    if accuracy is not None:
        with pytest.raises(ValueError, match="accuracy"):
            lamcap.information_per_parameter(16, 50, accuracy=accuracy)


def test_an_accuracy_reached_only_beyond_the_law_range_is_refused() -> None:
    with pytest.raises(
        ValueError, match=r"accuracy=1e-20 is still reached at p = 9.96e\+17 .* beyond it"
    ):
        lamcap.critical_p(8, accuracy=1e-20)


# ----------------------------------------------------------------------------- unit norm


def _monte_carlo_fraction(costs: np.ndarray, budget: float) -> float:
    """The RS rule on a sample of costs: keep the cheapest while their mean sum fits the budget."""
    partial_means = np.cumsum(np.sort(costs)) / costs.size
    return float(np.searchsorted(partial_means, budget) / costs.size)


def _sphere_costs(rng: np.random.Generator, rows: int, p: int, d: int) -> np.ndarray:
    from lamcap.geometry import project_onto_cone
    from lamcap.theory._unit_norm import sample_unit_norm_scores

    scores = sample_unit_norm_scores(rng, rows, p, d)
    projected, _ = project_onto_cone(scores)
    return np.asarray(np.sum((scores - projected) ** 2, axis=1))


@pytest.mark.slow
@pytest.mark.parametrize(("d", "load"), [(16, 1.25), (16, 2.0), (32, 1.5)])
def test_unit_norm_model_against_the_exact_cost_law_by_monte_carlo(d: int, load: float) -> None:
    # The model scales the Gaussian cost law to the unit-norm mean; the RS rule applied to
    # 40 000 exact unit-norm costs (projections of sphere scores) gives the fraction the
    # exact cost law would.  Measured model error (200 000 draws, docs/theory/partial-recall.md):
    # 0.0001 to 0.0097 below; 0.015 is that plus four Monte Carlo standard errors (0.0012).
    p = round(load * float(lamcap.critical_p(d, embeddings="sphere")))
    costs = _sphere_costs(np.random.default_rng(3), 40_000, p, d)
    exact_law = _monte_carlo_fraction(costs, d * d / p)
    model = float(lamcap.best_accuracy(d, p, embeddings="sphere"))
    gaussian = float(lamcap.best_accuracy(d, p))
    assert abs(model - exact_law) < 0.015
    assert exact_law - gaussian > 0.015  # the unit-norm gain the model has to reproduce


@pytest.mark.parametrize("d", [8, 16])
def test_unit_norm_accuracy_one_is_the_unit_norm_capacity(d: int) -> None:
    capacity = float(lamcap.critical_p(d, embeddings="sphere"))
    assert float(lamcap.critical_p(d, accuracy=1.0, embeddings="sphere")) == capacity
    nearly = float(lamcap.critical_p(d, accuracy=1.0 - 1e-9, embeddings="sphere"))
    assert nearly == pytest.approx(capacity, rel=1e-3)
    assert float(lamcap.best_accuracy(d, math.floor(capacity), embeddings="sphere")) == 1.0
    assert float(lamcap.best_accuracy(d, math.ceil(capacity), embeddings="sphere")) < 1.0


@pytest.mark.parametrize("accuracy", [0.99, 0.9, 0.5])
def test_unit_norm_critical_p_at_an_accuracy_brackets_its_recall_fraction(accuracy: float) -> None:
    d = 16
    p_a = float(lamcap.critical_p(d, accuracy=accuracy, embeddings="sphere"))
    assert float(lamcap.best_accuracy(d, math.floor(p_a), embeddings="sphere")) >= accuracy
    assert float(lamcap.best_accuracy(d, math.ceil(p_a), embeddings="sphere")) < accuracy
    assert p_a > float(lamcap.critical_p(d, accuracy=accuracy))  # unit-norm costs are lower


def test_unit_norm_fraction_is_the_gaussian_rule_with_the_scaled_budget() -> None:
    # at an integer p, by hand: n s E[C; C < t] = d^2 and f = P(C < t), s = C_p(d) / E[C_p]
    from lamcap.theory._unit_norm import unit_norm_distance

    d, p = 16, 97
    law = _law(p)
    scale = unit_norm_distance(p, d) / float(np.dot(np.arange(law.size), law))
    tau = optimize.brentq(
        lambda t: p * scale * float(chi_bar_partial_mean(law, t)) - d * d, 1e-6, 200.0, xtol=1e-14
    )
    expected = float(chi_bar_cdf(law, tau))
    assert float(lamcap.best_accuracy(d, p, embeddings="sphere")) == pytest.approx(
        expected, abs=1e-9
    )


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"d": 3}, r"d must be an integer >= 4"),
        ({"kappa": 0.5}, r"kappa must be 1 with embeddings='sphere'"),
        ({"embeddings": "unit"}, r"embeddings must be one of 'gaussian', 'sphere', got 'unit'"),
    ],
)
def test_unit_norm_bad_input_is_refused_by_name(arguments: dict, match: str) -> None:
    values = {"d": 16, "kappa": 1.0, "embeddings": "sphere", **arguments}
    with pytest.raises(ValueError, match=match):
        lamcap.best_accuracy(
            values["d"], 80, kappa=values["kappa"], embeddings=values["embeddings"]
        )
    if "embeddings" not in arguments:
        with pytest.raises(ValueError, match=match):
            lamcap.critical_p(
                values["d"], values["kappa"], accuracy=0.9, embeddings=values["embeddings"]
            )


def test_p_beyond_int64_only_where_everything_is_recalled() -> None:
    assert float(lamcap.best_accuracy(10**12, 10**30, n=10)) == 1.0
    with pytest.raises(ValueError, match=r"p must be an integer in \[2, 2\*\*63 - 1\]"):
        lamcap.best_accuracy(8, 10**30)


# ----------------------------------------------------------------------------- bits per weight


def test_symmetric_channel_bits() -> None:
    assert float(symmetric_channel_bits(10, 1.0)) == pytest.approx(math.log2(10), rel=1e-15)
    assert float(symmetric_channel_bits(10, 0.1)) == pytest.approx(0.0, abs=1e-15)  # chance
    a, p = 0.8, 7
    h2 = -a * math.log2(a) - (1 - a) * math.log2(1 - a)
    direct = math.log2(p) - h2 - (1 - a) * math.log2(p - 1)
    assert float(symmetric_channel_bits(p, a)) == pytest.approx(direct, rel=1e-14)


def test_information_at_full_recall_is_p_log2_p_over_d_squared() -> None:
    d = 64
    p = math.floor(float(lamcap.critical_p(d)))
    expected = p * math.log2(p) / d**2
    assert float(lamcap.information_per_parameter(d, p)) == pytest.approx(expected, rel=1e-14)
    assert float(lamcap.information_per_parameter(d, p, accuracy=1.0)) == pytest.approx(
        expected, rel=1e-14
    )


def test_information_at_capacity_tends_to_half_over_log_2() -> None:
    # n = d^2 / E[C_p] associations at accuracy 1: log2 p / E[C_p] -> 1/(2 log 2)
    d = 10**8
    values = []
    for p in (10**3, 10**6, 10**9, 10**18):
        n = math.floor(d * d / float(lamcap.statistical_dimension(p)))
        values.append(float(lamcap.information_per_parameter(d, p, accuracy=1.0, n=n)))
    limit = 0.5 / math.log(2.0)
    assert all(v > limit for v in values)
    assert all(b < a for a, b in itertools.pairwise(values))
    assert values[-1] == pytest.approx(float(lamcap.capacity(p=10**18)) / math.log(2.0), rel=1e-12)


def test_information_with_the_predicted_fraction() -> None:
    d, p = 32, 400
    f = float(lamcap.best_accuracy(d, p))
    assert float(lamcap.information_per_parameter(d, p)) == pytest.approx(
        float(lamcap.information_per_parameter(d, p, accuracy=f)), rel=1e-15
    )


def _counting_bound(d: int, p: int, n: int) -> float:
    """Bits per weight a d x d matrix can hold about n recall targets: log2 of the cells.

    The recall pattern of W is constant on the cells of the n p^2 hyperplanes where two
    scores tie; there are at most 2 sum_{k < d^2} binom(n p^2, k) <= 2 (e n p^2/d^2)^{d^2}.
    """
    return math.log2(math.e * n * p * p / d**2) + 1.0 / d**2


def test_replica_symmetry_fails_the_counting_bound_at_huge_density() -> None:
    # by Fano the RS fraction carries n I(f) bits; no d x d matrix holds more than the cells
    d, p = 8, 50
    for n in (100, 1000, 10**4):  # n / d^2 up to 160: inside the bound
        assert float(lamcap.information_per_parameter(d, p, n=n)) < _counting_bound(d, p, n)
    n = 10**6  # n / d^2 about 16 000: the replica-symmetric fraction is too high
    assert float(lamcap.information_per_parameter(d, p, n=n)) > _counting_bound(d, p, n)

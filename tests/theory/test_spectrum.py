"""Tests of lamcap.theory._spectrum against quadrature, root finding and random matrices."""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy import integrate, optimize, stats

from lamcap.geometry import project_onto_cone
from lamcap.theory._capacity import critical_p
from lamcap.theory._cone import active_set_law
from lamcap.theory._cost_models import statistical_dimension
from lamcap.theory._margin import max_margin
from lamcap.theory._rank import threshold_angle
from lamcap.theory._scores import score_law
from lamcap.theory._spectrum import (
    sample_singular_values,
    singular_value_cdf,
    singular_value_density,
    singular_value_moment,
    singular_value_quantile,
    singular_value_support,
)
from lamcap.theory._spectrum_finite_size import (
    _ERROR_QUANTILE,
    _FIT_AMPLITUDE,
    _FIT_SCATTER,
    _FIT_VARIANCE,
    _finite_size,
    _finite_size_cdf,
    _finite_size_density,
    _FiniteSize,
    _fourth_moment,
    _free_top_edge,
    _orthant_moments,
    _residual_moments,
)

CASES = [
    ("optimum", 1.0),
    ("optimum", 0.5),
    ("optimum", 0.1),
    ("gaussian", 1.0),
    ("product", 1.0),
    ("product", 0.5),
    ("product", 0.1),
]


def _quad(function, low, high):
    """Adaptive quadrature split at interior points (edge singularities are integrable)."""
    points = np.linspace(low, high, 9)
    total = 0.0
    for a, b in itertools.pairwise(points):
        value, _ = integrate.quad(function, a, b, epsabs=1e-13, epsrel=1e-13, limit=400)
        total += value
    return total


@pytest.mark.parametrize(("law", "kappa"), CASES)
@pytest.mark.parametrize("normalization", ["frobenius", "raw"])
def test_density_integrates_to_one(law, kappa, normalization):
    low, high = singular_value_support(kappa, family=law, normalization=normalization)
    total = _quad(
        lambda s: singular_value_density(s, kappa, family=law, normalization=normalization),
        low,
        high,
    )
    # the x^{-2/3} singularity of the kappa = 1 product law at 0 limits quad
    assert total == pytest.approx(1.0, abs=1e-12 if (law, kappa) != ("product", 1.0) else 1e-8)


@pytest.mark.parametrize(("law", "kappa"), CASES)
def test_frobenius_normalisation_has_unit_mean_square(law, kappa):
    low, high = singular_value_support(kappa, family=law)
    second = _quad(lambda s: s * s * singular_value_density(s, kappa, family=law), low, high)
    assert second == pytest.approx(1.0, abs=1e-10)


@pytest.mark.parametrize("kappa", [1.0, 0.5, 0.1, 0.01])
def test_raw_truncation_edge_and_second_moment_match_theory_section_3(kappa):
    # docs/theory/rank.md: kappa = 1 - (2 theta + sin 2 theta)/pi, s_kappa = 2 sin theta,
    # F(kappa) = 1 - 2 theta/pi + sin(4 theta)/(2 pi) = raw mean of s^2 times kappa.
    theta = optimize.brentq(
        lambda t: 1 - (2 * t + math.sin(2 * t)) / math.pi - kappa, 0.0, math.pi / 2, xtol=1e-15
    )
    low, high = singular_value_support(kappa, normalization="raw")
    assert low == pytest.approx(2 * math.sin(theta), abs=1e-13)
    assert high == 2.0
    f_kappa = 1 - 2 * theta / math.pi + math.sin(4 * theta) / (2 * math.pi)
    raw_second = singular_value_moment(2, kappa, normalization="raw")
    assert raw_second * kappa == pytest.approx(f_kappa, abs=1e-13)


@pytest.mark.parametrize(("law", "kappa"), CASES)
def test_cdf_equals_integrated_density(law, kappa):
    low, high = singular_value_support(kappa, family=law)
    for point in np.linspace(low, high, 6)[1:-1]:
        integral = _quad(lambda s: singular_value_density(s, kappa, family=law), low, point)
        tolerance = 1e-12 if (law, kappa) != ("product", 1.0) else 1e-8
        assert singular_value_cdf(point, kappa, family=law) == pytest.approx(
            integral, abs=tolerance
        )


@pytest.mark.parametrize(("law", "kappa"), [*CASES, ("optimum", 1e-3), ("product", 1e-3)])
def test_cdf_and_quantile_invert_each_other(law, kappa):
    u = np.linspace(0.0, 1.0, 20001)
    quantiles = singular_value_quantile(u, kappa, family=law)
    assert np.all(np.diff(quantiles) >= 0)
    np.testing.assert_allclose(
        singular_value_cdf(quantiles, kappa, family=law), u, rtol=0, atol=5e-14
    )
    low, high = singular_value_support(kappa, family=law)
    s = np.linspace(low, high, 1001)[1:-1]
    np.testing.assert_allclose(
        singular_value_quantile(singular_value_cdf(s, kappa, family=law), kappa, family=law),
        s,
        rtol=1e-9,
    )


@pytest.mark.parametrize(("law", "kappa"), [("optimum", 0.3), ("product", 0.3), ("product", 1.0)])
def test_float_matches_mpmath(law, kappa):
    low, high = singular_value_support(kappa, family=law)
    points = np.linspace(low, high, 7)[1:-1]
    for s in points:
        exact = singular_value_density(s, kappa, family=law, dps=30)
        assert singular_value_density(s, kappa, family=law) == pytest.approx(
            float(exact), rel=1e-13
        )
        exact_cdf = singular_value_cdf(s, kappa, family=law, dps=30)
        assert singular_value_cdf(s, kappa, family=law) == pytest.approx(
            float(exact_cdf), abs=1e-14
        )
    exact_quantile = singular_value_quantile(0.37, kappa, family=law, dps=30)
    assert singular_value_quantile(0.37, kappa, family=law) == pytest.approx(
        float(exact_quantile), rel=1e-13
    )


def test_product_fourth_moment_is_free_probability_value():
    # free product of two mean-1 Marchenko-Pastur(kappa): E[(ab)^2] = 1 + 2 kappa
    for kappa in (1.0, 0.5, 0.2):
        low, high = singular_value_support(kappa, family="product")
        fourth = _quad(
            lambda s, k=kappa: s**4 * singular_value_density(s, k, family="product"), low, high
        )
        assert fourth == pytest.approx(1 + 2 * kappa, abs=1e-8)


def test_product_law_kappa_one_is_fuss_catalan():
    # squared singular values of a product of two square Gaussians: support [0, 27/4],
    # moments are the Fuss-Catalan numbers 1, 3, 12, 55
    low, high = singular_value_support(1.0, family="product")
    assert high**2 == pytest.approx(27 / 4, rel=1e-14)
    for order, value in [(2, 1), (4, 3), (6, 12), (8, 55)]:
        moment = _quad(
            lambda s, n=order: s**n * singular_value_density(s, family="product"), low, high
        )
        assert moment == pytest.approx(value, rel=1e-8)


@pytest.mark.parametrize("kappa", [1.0, 0.5, 0.25])
def test_product_law_matches_random_matrices(kappa):
    # W = Q R^T with Gaussian factors (singular values through the triangular
    # factors of Q and R).  Eigenvalue rigidity makes the KS distance of the
    # pooled spectrum O(1/m): about 0.015 at m = 100, 0.005 at m = 300, so
    # 0.015 at m = 200 is a safe bound, while the wrong law (quarter circle) is far off.
    rng = np.random.default_rng(12)
    m = 200
    d = round(m / kappa)
    values = []
    for _ in range(3):
        q = np.linalg.qr(rng.standard_normal((d, m)) / math.sqrt(d), mode="r")
        r = np.linalg.qr(rng.standard_normal((d, m)) / math.sqrt(d), mode="r")
        values.append(np.linalg.svd(q @ r.T, compute_uv=False))
    pooled = np.concatenate(values)
    distance = stats.kstest(
        pooled, lambda s: singular_value_cdf(s, kappa, family="product")
    ).statistic
    assert distance < 0.015
    wrong = stats.kstest(pooled, lambda s: singular_value_cdf(s, kappa)).statistic
    assert wrong > 0.05


def test_gaussian_law_matches_random_matrices():
    rng = np.random.default_rng(5)
    d = 400
    values = np.linalg.svd(rng.standard_normal((d, d)) / math.sqrt(d), compute_uv=False)
    distance = stats.kstest(values, lambda s: singular_value_cdf(s, family="gaussian")).statistic
    assert distance < 0.01
    assert distance > 0.0


@pytest.mark.parametrize(("law", "kappa"), [("optimum", 1.0), ("optimum", 0.3), ("product", 0.3)])
def test_sampler_matches_cdf(law, kappa):
    size = 20000
    sample = sample_singular_values(size, kappa, seed=2024, family=law)
    result = stats.kstest(sample, lambda s: singular_value_cdf(s, kappa, family=law))
    # 1.63/sqrt(n) is the 1% critical value of the KS statistic
    assert result.statistic < 1.63 / math.sqrt(size)


def test_moments_by_quadrature():
    for kappa in (1.0, 0.4):
        low, high = singular_value_support(kappa)
        for order in (1, 3, 4):
            reference = _quad(
                lambda s, n=order, k=kappa: s**n * singular_value_density(s, k), low, high
            )
            assert singular_value_moment(order, kappa) == pytest.approx(reference, rel=1e-12)


def test_outside_support_is_zero_and_cdf_saturates():
    s = np.array([-1.0, -np.inf, 5.0, np.inf])
    for law in ("optimum", "product"):
        np.testing.assert_array_equal(singular_value_density(s, 0.5, family=law), 0.0)
        np.testing.assert_array_equal(singular_value_cdf(s, 0.5, family=law), [0, 0, 1, 1])
    low, _ = singular_value_support(0.5, normalization="raw")
    assert singular_value_density(low * 0.99, 0.5, normalization="raw") == 0.0


def test_shapes_are_preserved():
    s = np.full((2, 3), 0.5)
    assert singular_value_density(s).shape == (2, 3)
    assert singular_value_cdf(s, family="product").shape == (2, 3)
    assert singular_value_quantile(s, 0.2).shape == (2, 3)
    assert isinstance(singular_value_density(0.5), float)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: singular_value_density(np.nan), "s must not contain NaN"),
        (lambda: singular_value_density(1.0, 0.0), r"kappa .*\(0\.0, 1\.0\].*0\.0"),
        (lambda: singular_value_cdf(1.0, 1.5), r"kappa .*\(0\.0, 1\.0\].*1\.5"),
        (lambda: singular_value_quantile(1.2), r"probability .*\[0\.0, 1\.0\].*1\.2"),
        (lambda: singular_value_quantile(np.nan), "probability"),
        (lambda: singular_value_density(1.0, family="wishart"), "family must be one of"),
        (lambda: singular_value_density(1.0, normalization="spectral"), "normalization must be"),
        (lambda: singular_value_density(1.0, 0.5, family="gaussian"), "kappa must be 1"),
        (lambda: sample_singular_values(-1), "size must be an integer >= 0"),
        (lambda: singular_value_density(1.0, dps=0), "dps"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------
# finite-size law of the max-margin W (d=, p=)
# ----------------------------------------------------------------------------


def _residual_samples(p, margin, size, seed):
    """Monte Carlo of the projection residual: |A|, S = l* - g_t, D = |g - Pi(g)|^2."""
    g = np.random.default_rng(seed).standard_normal((size, p))
    projected, active = project_onto_cone(g, margin=margin)
    return active, projected[:, 0] - g[:, 0], np.sum((g - projected) ** 2, axis=1)


@pytest.mark.parametrize("margin", [0.0, 0.4])
def test_orthant_moments_match_projection_monte_carlo(margin):
    active, lift, _ = _residual_samples(40, margin, 60000, seed=3)
    for k in range(1, 7):
        chosen = lift[active == k]
        mean, square = _orthant_moments(k, margin)
        assert abs(chosen.mean() - mean) < 4 * chosen.std() / math.sqrt(chosen.size)
        assert abs(np.mean(chosen**2) - square) < 4 * np.std(chosen**2) / math.sqrt(chosen.size)


def test_orthant_moments_single_competitor_closed_form():
    # k = 1: density of e proportional to exp(m e - e^2) on e > 0
    mean, square = _orthant_moments(1, 0.0)
    assert mean == pytest.approx(1 / math.sqrt(math.pi), abs=1e-13)
    assert square == pytest.approx(0.5, abs=1e-13)
    m = 0.7
    weight = integrate.quad(lambda e: math.exp(m * e - e * e), 0, np.inf)[0]
    first = integrate.quad(lambda e: e * math.exp(m * e - e * e), 0, np.inf)[0]
    assert _orthant_moments(1, m)[0] == pytest.approx(first / weight, abs=1e-12)


@pytest.mark.parametrize(("p", "margin"), [(59, 0.0769), (173, 0.3), (536, 0.0999)])
def test_residual_moments_reproduce_independent_kernels(p, margin):
    moments = _residual_moments(p, margin)
    # E D = E|A| + m E S against the hinge-sum inversion of statistical_dimension
    assert moments.mean == pytest.approx(float(statistical_dimension(p, margin=margin)), rel=1e-10)
    assert moments.level == pytest.approx(score_law(p, margin=margin).target.mean(), abs=1e-10)


def test_residual_square_is_chi_square_mixture_at_capacity():
    law = active_set_law(173)
    k = np.arange(law.size)
    moments = _residual_moments(173, 0.0)
    assert moments.square == pytest.approx(float(np.dot(law, k * (k + 2))), rel=1e-10)
    assert moments.active == pytest.approx(float(np.dot(law, k)), rel=1e-10)


@pytest.mark.slow
def test_residual_heterogeneity_matches_monte_carlo():
    p, margin = 59, 0.0769
    _, _, residual = _residual_samples(p, margin, 200000, seed=5)
    moments = _residual_moments(p, margin)
    square, mean = np.mean(residual**2), np.mean(residual)
    assert abs(square - moments.square) < 4 * np.std(residual**2) / math.sqrt(residual.size)
    assert abs(mean - moments.mean) < 4 * np.std(residual) / math.sqrt(residual.size)


def _rank_one_sum_ratio(d, n, squares, draws, seed, reaction=0.0):
    r"""Monte Carlo of E tr(WW^T)^2/d / (E tr WW^T/d)^2 for W = sum c a b^T (I + b E E^T)^{-1}.

    ``a`` and ``b = e / |e|`` uniform unit vectors (``e`` with N(0, I/d) entries, also
    in the reaction term), ``c^2`` drawn by ``squares(rng, n)``; returns the ratio and
    its delta-method standard error.
    """
    rng = np.random.default_rng(seed)
    second, fourth = np.empty(draws), np.empty(draws)
    for i in range(draws):
        directions = rng.standard_normal((d, n))
        directions /= np.linalg.norm(directions, axis=0)
        inputs = rng.standard_normal((d, n)) / math.sqrt(d)
        unit_inputs = inputs / np.linalg.norm(inputs, axis=0)
        weights = (directions * np.sqrt(squares(rng, n))) @ unit_inputs.T
        if reaction:
            weights = np.linalg.solve(np.eye(d) + reaction * inputs @ inputs.T, weights.T).T
        gram = weights @ weights.T
        second[i], fourth[i] = np.trace(gram) / d, np.trace(gram @ gram) / d
    ratio = fourth.mean() / second.mean() ** 2
    gradient = fourth / second.mean() ** 2 - 2 * fourth.mean() * second / second.mean() ** 3
    return ratio, gradient.std() / math.sqrt(draws)


@pytest.mark.parametrize(("d", "n"), [(8, 20), (16, 60)])
def test_rank_one_sum_moments_are_exact_at_finite_d(d, n):
    # c^2 exponential: E c^4 / (E c^2)^2 = 2; no reaction (u = 1)
    measured, error = _rank_one_sum_ratio(d, n, lambda rng, k: rng.exponential(size=k), 6000, 7)
    predicted = _fourth_moment(d, d / n, 2.0, 1.0)
    assert abs(measured - predicted) < 4 * error


def test_reaction_factor_one_minus_two_u_squared():
    # W = H E^T (I + b E E^T)^{-1} with b n / d = u / (1 - u): the fluctuation term of
    # E E^T enters with (1 - 2u)^2 at first order in d/n (second order bounded by 2 (d/n)^2)
    d, n = 30, 300
    ratio = d / n

    def constant(_rng, k):
        return np.ones(k)

    values = {}
    for u in (0.5, 0.999):
        reaction = u / (1 - u) * d / n
        values[u] = _rank_one_sum_ratio(d, n, constant, 400, 11, reaction)
    difference = values[0.999][0] - values[0.5][0]
    predicted = _fourth_moment(d, ratio, 1.0, 0.999) - _fourth_moment(d, ratio, 1.0, 0.5)
    error = math.hypot(values[0.999][1], values[0.5][1])
    assert abs(difference - predicted) < 4 * error + 2 * ratio**2
    assert predicted > 8 * error  # the test can tell the factor from no reaction at all


@pytest.mark.slow
def test_finite_size_fourth_moment_formula():
    law = _finite_size(32, 173)
    residual = _residual_moments(173, law.margin)
    assert law.margin == pytest.approx(max_margin(173 / 32**2, 173), rel=1e-12)
    assert law.heterogeneity == pytest.approx(residual.square / residual.mean**2, rel=1e-14)
    assert law.constrained == pytest.approx(residual.active / residual.mean, rel=1e-14)
    # u < 1 below capacity: the margin makes E D exceed E|A|
    assert 0.9 < law.constrained < 1.0
    reaction = (1.0 - 2.0 * law.constrained) ** 2
    term = reaction * (law.heterogeneity - 65 / 32**2)
    assert law.fourth == pytest.approx(2 + 1 / 32 + 32 / 173 * _FIT_AMPLITUDE * term, rel=1e-14)
    spread = term**2 * _FIT_VARIANCE + _FIT_SCATTER**2
    assert law.error == pytest.approx(_ERROR_QUANTILE * 32 / 173 * math.sqrt(spread), rel=1e-14)
    # the density is the free product with the same fitted variances
    assert law.gram == pytest.approx(_FIT_AMPLITUDE * reaction, rel=1e-14)
    assert law.spread == pytest.approx(_FIT_AMPLITUDE * reaction * (law.heterogeneity - 1))
    assert singular_value_moment(4, d=32, p=173) == law.fourth
    assert singular_value_moment(2, d=32, p=173) == 1.0
    assert singular_value_moment(0, d=32, p=173) == 1.0


@pytest.mark.slow
def test_finite_size_law_tends_to_quarter_circle():
    values = []
    for d in (16, 64, 256, 1024):
        p = round(0.95 * float(critical_p(d)))
        values.append(singular_value_moment(4, d=d, p=p) - singular_value_moment(4))
        law = _finite_size(d, p)
        # excess bounded by 1/d + c (d/p) kappa_D, each term -> 0
        bound = 1 / d + law.ratio * _FIT_AMPLITUDE * law.heterogeneity
        assert 0 < values[-1] <= bound
    assert all(a > b for a, b in itertools.pairwise(values))
    # at d = 1024 the excess is 1/d + (d/p) c (1 - 2u)^2 kappa_D ~ 0.001 + 0.016 * 1.3
    assert values[-1] < 0.025


def test_moment_return_error_api():
    value, error = singular_value_moment(4, d=32, p=173, return_error=True)
    assert value == singular_value_moment(4, d=32, p=173)  # the call without it is unchanged
    assert error == _finite_size(32, 173).error
    assert 0 < error < (value - 2) / 4  # near capacity the correction is well resolved
    # orders 0 and 2 are the normalisation (no model error); the d -> oo law is exact
    values, errors = singular_value_moment([0, 2, 4], d=32, p=173, return_error=True)
    assert values.shape == errors.shape == (3,)
    assert list(errors[:2]) == [0.0, 0.0]
    assert errors[2] == error
    assert singular_value_moment(4, return_error=True) == (singular_value_moment(4), 0.0)
    # broadcast over d and p like the value; the error shrinks with d/p
    values, errors = singular_value_moment(4, d=[16, 64], p=[59, 536], return_error=True)
    assert errors.shape == (2,)
    assert errors[0] > errors[1] > 0


@pytest.mark.parametrize("d", [8, 16, 64, 1024])
def test_finite_size_range_reaches_half_critical_p(d):
    critical = float(critical_p(d))
    low = round(0.5 * critical)
    value, error = singular_value_moment(4, d=d, p=low, return_error=True)
    assert 2 < value < singular_value_moment(4, d=d, p=math.floor(critical))
    assert error > 0
    with pytest.raises(ValueError, match=rf"p must be an integer in \[{low}, .*got {low - 1}"):
        singular_value_moment(4, d=d, p=low - 1)
    with pytest.raises(ValueError, match=rf"got {math.floor(critical) + 1}"):
        singular_value_moment(4, d=d, p=math.floor(critical) + 1)


#: Held-out points (seeds >= 1000, never used to fit the law) checked against it,
#: chosen before the fit was made: (d, fraction of critical_p(d)).
HELD_OUT_POINTS = [(16, 0.65), (24, 0.9), (32, 0.5), (32, 0.95), (48, 0.8), (64, 0.65)]
SPECTRUM_CSV = Path(__file__).resolve().parents[2] / "docs/measurements/spectrum_finite_size.csv"


def _held_out_ratios(d, fraction):
    """Per held-out seed at (d, fraction), the ratio of the best-certified feasible solve."""
    best = {}
    outputs = set()
    with SPECTRUM_CSV.open() as handle:
        for row in csv.DictReader(handle):
            if (int(row["d"]), float(row["fraction"])) != (d, fraction):
                continue
            if row["verdict"] != "feasible" or int(row["seed"]) < 1000:
                continue
            outputs.add(int(row["p"]))
            seed, distance = int(row["seed"]), float(row["distance_bound"])
            if seed not in best or distance < best[seed][0]:
                best[seed] = (distance, float(row["ratio"]))
    (p,) = outputs
    return p, np.array([ratio for _, ratio in best.values()])


@pytest.mark.parametrize(("d", "fraction"), HELD_OUT_POINTS)
def test_fitted_law_against_held_out_max_margin_w(d, fraction):
    # regression on measured data: certified max-margin W of docs/measurements/spectrum.md
    p, ratios = _held_out_ratios(d, fraction)
    assert p == round(fraction * float(critical_p(d)))
    assert ratios.size >= 8
    law, error = singular_value_moment(4, d=d, p=p, return_error=True)
    # the law's model error plus the held-out mean's own sampling error (Student t, 95%)
    standard_error = ratios.std(ddof=1) / math.sqrt(ratios.size)
    allowance = math.hypot(error, stats.t.ppf(0.975, ratios.size - 1) * standard_error)
    assert abs(ratios.mean() - law) <= allowance


def test_moment_broadcasts_over_kappa():
    kappas = np.array([[1.0, 0.5], [0.25, 1.0]])
    values = singular_value_moment(4, kappas)
    assert values.shape == (2, 2)
    assert values[0, 1] == singular_value_moment(4, 0.5)
    assert singular_value_moment(4, [1.0, 1.0], d=16, p=59).shape == (2,)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: singular_value_moment(4, d=16), r"p must be given together with d .*d=16"),
        (lambda: singular_value_moment(4, p=59), r"d must be given together with p .*p=59"),
        (
            lambda: singular_value_moment(4, d=4, p=10),
            r"d must be an integer in \[8, 1024\], got 4",
        ),
        (
            lambda: singular_value_moment(4, d=16, p=70),
            (
                r"p must be an integer in \[31, 61\] \(round\(0\.5 critical_p\(d\)\) to "
                r"critical_p\(d\), critical_p\(16\) = 61\.\d+\), got 70"
            ),
        ),
        (
            lambda: singular_value_moment(4, d=16, p=30),
            r"p must be an integer in \[31, 61\].*got 30",
        ),
        (
            lambda: singular_value_moment(4, d=16, p=31, return_error=True, family="product"),
            "family must be 'optimum'",
        ),
        (
            lambda: singular_value_moment(4, d=16, p=59, return_error="yes"),
            r"return_error must be True or False, got 'yes'",
        ),
        (lambda: singular_value_moment(4, 0.5, d=16, p=59), r"kappa must be 1 .*got 0\.5"),
        (lambda: singular_value_moment(3, d=16, p=59), r"order must be 0, 2 or 4 .*got 3"),
        (
            lambda: singular_value_moment(4, d=16, p=59, family="gaussian"),
            "family must be 'optimum'",
        ),
        (
            lambda: singular_value_moment(4, d=16, p=59, normalization="raw"),
            "normalization must be 'frobenius'",
        ),
    ],
)
def test_finite_size_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def _angle_quadrature(law, upper, panels=64):
    """Nodes and weights of composite Gauss-Legendre in s = s_top sin(t) on [0, upper]."""
    top = math.sqrt(_free_top_edge(law))
    nodes, weights = np.polynomial.legendre.leggauss(20)
    edges = np.linspace(0.0, math.asin(min(upper / top, 1.0)), panels + 1)
    half = 0.5 * np.diff(edges)
    angles = (edges[:-1, None] + half[:, None] * (nodes + 1.0)).ravel()
    return top * np.sin(angles), (half[:, None] * weights).ravel() * top * np.cos(angles)


def _free_law(d, n, constrained, heterogeneity):
    """The free product with the model's variances: Gram (1 - 2u)^2, weights kappa_D - 1."""
    gram, spread = (1.0 - 2.0 * constrained) ** 2, heterogeneity - 1.0
    return _FiniteSize(
        d, n, d / n, 0.0, constrained, heterogeneity, gram, spread, math.nan, math.nan
    )


@pytest.mark.parametrize(("constrained", "heterogeneity"), [(1.0, 1.0), (0.97, 1.53), (0.5, 1.4)])
def test_free_density_moments_against_closed_form(constrained, heterogeneity):
    law = _free_law(32, 173, constrained, heterogeneity)
    top = math.sqrt(_free_top_edge(law))
    s, w = _angle_quadrature(law, top)
    density = _finite_size_density(s, law)
    moments = [float(np.sum(w * s**k * density)) for k in (0, 2, 4)]
    # free product: E s^2 = 1 and E s^4 = 2 + lambda (r + eps), no 1/d terms
    fourth = 2.0 + law.ratio * (heterogeneity - 1.0 + (1.0 - 2.0 * constrained) ** 2)
    assert moments == pytest.approx([1.0, 1.0, fourth], abs=1e-10)
    # the cdf (8 panels) against the density integrated on 64 panels
    for upper in (0.5, 1.0, top):
        s, w = _angle_quadrature(law, upper)
        integral = float(np.sum(w * _finite_size_density(s, law)))
        assert _finite_size_cdf(np.array([upper]), law)[0] == pytest.approx(integral, abs=1e-10)


def _grid_distance(values, law):
    """Largest gap between the pooled empirical cdf and the law's cdf on a grid of 60 points."""
    pooled = np.sort(np.concatenate([v * math.sqrt(v.size / np.sum(v**2)) for v in values]))
    grid = np.linspace(0.02, 2.4, 60)
    empirical = np.searchsorted(pooled, grid) / pooled.size
    return float(np.max(np.abs(_finite_size_cdf(grid, law) - empirical)))


def _modelled_matrices(d, n, constrained, spread, draws, seed):
    r"""W = A C E^T (I + b E E^T)^{-1}: C = (F F^T)^{1/2}, F F^T Wishart of ratio ``spread``."""
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        directions = rng.standard_normal((d, n)) / math.sqrt(d)
        inputs = rng.standard_normal((d, n)) / math.sqrt(d)
        weights = directions @ inputs.T
        if spread:
            factor = rng.standard_normal((n, round(n / spread))) / math.sqrt(n / spread)
            eigenvalues, vectors = np.linalg.eigh(factor @ factor.T)
            root = (vectors * np.sqrt(np.maximum(eigenvalues, 0.0))) @ vectors.T
            weights = directions @ root @ inputs.T
        if constrained < 1:
            reaction = constrained / (1 - constrained) * d / n
            weights = np.linalg.solve(np.eye(d) + reaction * inputs @ inputs.T, weights.T).T
        values.append(np.linalg.svd(weights, compute_uv=False))
    return values


@pytest.mark.parametrize(("constrained", "spread"), [(1.0, 0.0), (0.75, 0.0), (0.75, 0.5)])
def test_free_law_matches_the_modelled_random_matrix(constrained, spread):
    # the three free factors of the finite-size density, sampled at d = 200, n = 1000
    # (the grid distance is 0.003-0.005 there; 1/d effects are ~0.005)
    d, n = 200, 1000
    law = _free_law(d, n, constrained, 1.0 + spread)
    values = _modelled_matrices(d, n, constrained, spread, 4, seed=4)
    assert _grid_distance(values, law) < 0.012
    # ... and a law with the reaction or the spread left out is told apart
    wrong = _free_law(d, n, 1.0, 1.0 + spread) if constrained < 1 else _free_law(d, n, 0.5, 1.0)
    assert _grid_distance(values, wrong) > 0.02


def test_finite_size_density_tends_to_quarter_circle():
    s = np.linspace(0.05, 1.95, 12)
    near = singular_value_cdf(s, d=1024, p=round(0.95 * float(critical_p(1024))))
    far = singular_value_cdf(s, d=16, p=59)
    quarter = singular_value_cdf(s)
    assert np.max(np.abs(near - quarter)) < 0.2 * np.max(np.abs(far - quarter))
    assert np.max(np.abs(near - quarter)) < 0.01


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: singular_value_density(1.0, d=16), r"p must be given together with d"),
        (lambda: singular_value_cdf(1.0, p=59), r"d must be given together with p"),
        (lambda: singular_value_cdf(1.0, d=16, p=59, dps=20), r"dps must be None .*got 20"),
        (lambda: singular_value_density(1.0, 0.5, d=16, p=59), r"kappa must be 1"),
        (lambda: singular_value_density(np.nan, d=16, p=59), "s must not contain NaN"),
        (lambda: singular_value_cdf(1.0, d=2000, p=59), r"d must be an integer in \[8, 1024\]"),
    ],
)
def test_finite_size_density_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------
# large orders (issue 23: order=1e12 overflowed in s**order)


def _raw_moment_reference(kappa: float, order: int) -> mpmath.mpf:
    """Raw E[s^k] by mpmath quadrature at 40 digits, the peak of width k^(-1/2) at pi/2 split out."""
    with mpmath.workdps(40):
        low = threshold_angle(kappa, dps=40)
        width = min(1 / mpmath.sqrt(order + 1), (mpmath.pi / 2 - low) / 2)
        cuts = [
            mpmath.pi / 2 - width * j for j in (64, 16, 4, 1) if mpmath.pi / 2 - width * j > low
        ]
        integral = mpmath.quad(
            lambda t: (2 * mpmath.sin(t)) ** order * 4 * mpmath.cos(t) ** 2 / mpmath.pi,
            [low, *cuts, mpmath.pi / 2],
        )
        return integral / kappa


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("kappa", [1.0, 0.5, 0.1])
@pytest.mark.parametrize("order", [3, 100, 1000])
def test_moments_at_large_orders_are_correctly_rounded(kappa: float, order: int) -> None:
    with mpmath.workdps(40):  # Frobenius: E s^2 = 1
        raw = _raw_moment_reference(kappa, order)
        reference = raw / _raw_moment_reference(kappa, 2) ** (mpmath.mpf(order) / 2)
    assert float(singular_value_moment(order, kappa)) == pytest.approx(float(reference), rel=3e-16)
    assert float(singular_value_moment(order, kappa, normalization="raw")) == pytest.approx(
        float(raw), rel=3e-16
    )


@pytest.mark.filterwarnings("error")
def test_second_moment_stays_one_at_tiny_kappa() -> None:
    # the cut angle within (3 pi kappa / 4)^(1/3) of pi/2: cos^2 taken from mpmath
    for kappa in (1e-12, 1e-20, 1e-300):
        assert float(singular_value_moment(2, kappa)) == pytest.approx(1.0, rel=1e-15)


@pytest.mark.filterwarnings("error")
def test_order_whose_moment_leaves_float64_is_refused_with_the_largest_order() -> None:
    # quarter circle on [0, 2]: E s^k = 2^k Gamma(k/2 + 1/2) / (sqrt(pi) Gamma(k/2 + 2))
    def log_moment(k: int) -> float:
        return (
            k * math.log(2.0)
            + math.lgamma(k / 2 + 0.5)
            - 0.5 * math.log(math.pi)
            - math.lgamma(k / 2 + 2)
        )

    largest = max(k for k in range(1000, 1100) if log_moment(k) < math.log(np.finfo(float).max))
    assert largest == 1038
    assert float(singular_value_moment(largest)) == pytest.approx(math.exp(log_moment(largest)))
    for order in (largest + 1, 10**12, 1e308):
        with pytest.raises(
            ValueError, match=r"order must be an integer in \[0, 1038\] for kappa=1\.0"
        ):
            singular_value_moment(order)
    with pytest.raises(ValueError, match=r"order must be an integer in \[0, 1787\] for kappa=0\.5"):
        singular_value_moment([2, 10**12], 0.5)

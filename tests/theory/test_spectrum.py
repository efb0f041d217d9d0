"""Tests of lamcap.theory.spectrum against quadrature, root finding and random matrices."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from lamcap.theory.spectrum import (
    sample_singular_values,
    singular_value_cdf,
    singular_value_density,
    singular_value_moment,
    singular_value_quantile,
    singular_value_support,
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
    low, high = singular_value_support(kappa, law=law, normalization=normalization)
    total = _quad(
        lambda s: singular_value_density(s, kappa, law=law, normalization=normalization),
        low,
        high,
    )
    # the x^{-2/3} singularity of the kappa = 1 product law at 0 limits quad
    assert total == pytest.approx(1.0, abs=1e-12 if (law, kappa) != ("product", 1.0) else 1e-8)


@pytest.mark.parametrize(("law", "kappa"), CASES)
def test_frobenius_normalisation_has_unit_mean_square(law, kappa):
    low, high = singular_value_support(kappa, law=law)
    second = _quad(lambda s: s * s * singular_value_density(s, kappa, law=law), low, high)
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
    low, high = singular_value_support(kappa, law=law)
    for point in np.linspace(low, high, 6)[1:-1]:
        integral = _quad(lambda s: singular_value_density(s, kappa, law=law), low, point)
        tolerance = 1e-12 if (law, kappa) != ("product", 1.0) else 1e-8
        assert singular_value_cdf(point, kappa, law=law) == pytest.approx(integral, abs=tolerance)


@pytest.mark.parametrize(("law", "kappa"), [*CASES, ("optimum", 1e-3), ("product", 1e-3)])
def test_cdf_and_quantile_invert_each_other(law, kappa):
    u = np.linspace(0.0, 1.0, 20001)
    quantiles = singular_value_quantile(u, kappa, law=law)
    assert np.all(np.diff(quantiles) >= 0)
    np.testing.assert_allclose(singular_value_cdf(quantiles, kappa, law=law), u, rtol=0, atol=5e-14)
    low, high = singular_value_support(kappa, law=law)
    s = np.linspace(low, high, 1001)[1:-1]
    np.testing.assert_allclose(
        singular_value_quantile(singular_value_cdf(s, kappa, law=law), kappa, law=law),
        s,
        rtol=1e-9,
    )


@pytest.mark.parametrize(("law", "kappa"), [("optimum", 0.3), ("product", 0.3), ("product", 1.0)])
def test_float_matches_mpmath(law, kappa):
    low, high = singular_value_support(kappa, law=law)
    points = np.linspace(low, high, 7)[1:-1]
    for s in points:
        exact = singular_value_density(s, kappa, law=law, dps=30)
        assert singular_value_density(s, kappa, law=law) == pytest.approx(float(exact), rel=1e-13)
        exact_cdf = singular_value_cdf(s, kappa, law=law, dps=30)
        assert singular_value_cdf(s, kappa, law=law) == pytest.approx(float(exact_cdf), abs=1e-14)
    exact_quantile = singular_value_quantile(0.37, kappa, law=law, dps=30)
    assert singular_value_quantile(0.37, kappa, law=law) == pytest.approx(
        float(exact_quantile), rel=1e-13
    )


def test_product_fourth_moment_is_free_probability_value():
    # free product of two mean-1 Marchenko-Pastur(kappa): E[(ab)^2] = 1 + 2 kappa
    for kappa in (1.0, 0.5, 0.2):
        low, high = singular_value_support(kappa, law="product")
        fourth = _quad(
            lambda s, k=kappa: s**4 * singular_value_density(s, k, law="product"), low, high
        )
        assert fourth == pytest.approx(1 + 2 * kappa, abs=1e-8)


def test_product_law_kappa_one_is_fuss_catalan():
    # squared singular values of a product of two square Gaussians: support [0, 27/4],
    # moments are the Fuss-Catalan numbers 1, 3, 12, 55
    low, high = singular_value_support(1.0, law="product")
    assert high**2 == pytest.approx(27 / 4, rel=1e-14)
    for order, value in [(2, 1), (4, 3), (6, 12), (8, 55)]:
        moment = _quad(
            lambda s, n=order: s**n * singular_value_density(s, law="product"), low, high
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
    distance = stats.kstest(pooled, lambda s: singular_value_cdf(s, kappa, law="product")).statistic
    assert distance < 0.015
    wrong = stats.kstest(pooled, lambda s: singular_value_cdf(s, kappa)).statistic
    assert wrong > 0.05


def test_gaussian_law_matches_random_matrices():
    rng = np.random.default_rng(5)
    d = 400
    values = np.linalg.svd(rng.standard_normal((d, d)) / math.sqrt(d), compute_uv=False)
    distance = stats.kstest(values, lambda s: singular_value_cdf(s, law="gaussian")).statistic
    assert distance < 0.01
    assert distance > 0.0


@pytest.mark.parametrize(("law", "kappa"), [("optimum", 1.0), ("optimum", 0.3), ("product", 0.3)])
def test_sampler_matches_cdf(law, kappa):
    size = 20000
    sample = sample_singular_values(size, kappa, seed=2024, law=law)
    result = stats.kstest(sample, lambda s: singular_value_cdf(s, kappa, law=law))
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
        np.testing.assert_array_equal(singular_value_density(s, 0.5, law=law), 0.0)
        np.testing.assert_array_equal(singular_value_cdf(s, 0.5, law=law), [0, 0, 1, 1])
    low, _ = singular_value_support(0.5, normalization="raw")
    assert singular_value_density(low * 0.99, 0.5, normalization="raw") == 0.0


def test_shapes_are_preserved():
    s = np.full((2, 3), 0.5)
    assert singular_value_density(s).shape == (2, 3)
    assert singular_value_cdf(s, law="product").shape == (2, 3)
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
        (lambda: singular_value_density(1.0, law="wishart"), "law must be one of"),
        (lambda: singular_value_density(1.0, normalization="spectral"), "normalization must be"),
        (lambda: singular_value_density(1.0, 0.5, law="gaussian"), "kappa must be 1"),
        (lambda: sample_singular_values(-1), "n must be an integer >= 0"),
        (lambda: singular_value_density(1.0, dps=0), "dps"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()

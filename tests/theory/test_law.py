"""Every law object of lamcap against independent methods.

One set of checks for all laws (the shared base of lamcap.theory._law): the
density integrates to the cdf (adaptive quadrature), the quantile inverts the cdf,
draws follow the cdf (Kolmogorov-Smirnov), moments equal the quadrature of
x^k times the density; plus the array contract and the filled docstring template.
"""

from __future__ import annotations

import math
import re

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from lamcap.theory._hebbian import NormalLaw, NormalMaximumLaw, hebbian_score_law
from lamcap.theory._law import CLASS_TEMPLATE, Law
from lamcap.theory._scores import score_law
from lamcap.theory._spectrum import (
    FiniteSizeSingularValueLaw,
    SingularValueLaw,
    singular_value_law,
)

KS_LIMIT_AT = {size: 1.95 / math.sqrt(size) for size in (300, 2000, 4000)}  # 0.1% critical


def _spectrum(kappa, **options):
    return lambda: singular_value_law(kappa, **options)


def _quantiles(law, low=0.001, high=0.999):
    return tuple(float(v) for v in law.ppf([low, high]))


class Case:
    """A law with the sizes of its checks (expensive laws get fewer points and draws)."""

    def __init__(self, factory, *, tolerance, ks_size=4000, points=5, moments="quadrature"):
        self.factory, self.tolerance, self.ks_size = factory, tolerance, ks_size
        self.points, self.moments = points, moments


#: ``tolerance``: the absolute agreement of the cdf and the integrated density the law
#: claims; ``moments``: "quadrature" (checked against it), "none" (no route, raises),
#: "infinite" (an atom at infinity makes every moment of order >= 1 infinite).
CASES = {
    "optimum-1": Case(_spectrum(1.0), tolerance=1e-12),
    "optimum-0.3-raw": Case(_spectrum(0.3, normalization="raw"), tolerance=1e-12),
    "gaussian": Case(_spectrum(1.0, family="gaussian"), tolerance=1e-12),
    "product-1": Case(_spectrum(1.0, family="product"), tolerance=1e-10, moments="none"),
    "product-0.4": Case(_spectrum(0.4, family="product"), tolerance=1e-10, moments="none"),
    "finite-32-173": Case(
        lambda: singular_value_law(d=32, p=173), tolerance=1e-9, ks_size=300, points=3
    ),
    "score-target-10": Case(lambda: score_law(10).target, tolerance=1e-11, ks_size=2000),
    "score-target-100-margin": Case(
        lambda: score_law(100, margin=0.5).target, tolerance=1e-11, ks_size=2000
    ),
    "score-top-remaining-10": Case(
        lambda: score_law(10).top_remaining,
        tolerance=1e-10,
        ks_size=300,
        points=2,
        moments="infinite",
    ),
    "score-gap-10": Case(
        lambda: score_law(10, margin=0.3).gap, tolerance=1e-10, ks_size=2000, moments="infinite"
    ),
    "hebbian-target": Case(lambda: hebbian_score_law(100, 0.25, d=43).target, tolerance=1e-13),
    "hebbian-competitor": Case(lambda: hebbian_score_law(100, 0.25).competitor, tolerance=1e-13),
    "hebbian-top-competitor": Case(
        lambda: hebbian_score_law(1000, 0.25).top_competitor, tolerance=1e-13
    ),
}


def _points(probe, count=7):
    low, high = probe
    return low + (high - low) * (np.arange(1, count + 1) / (count + 1))


def _integral(function, low, high):
    value, _ = integrate.quad(function, low, high, epsabs=1e-14, epsrel=1e-12, limit=400)
    return value


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    spec = CASES[request.param]
    law = spec.factory()
    lower, upper = (float(v) for v in law.support())
    probe = (lower, upper) if math.isfinite(lower + upper) else _quantiles(law)
    return request.param, law, probe, spec


def test_law_is_a_law_with_a_filled_docstring(case):
    _, law, _, _ = case
    assert isinstance(law, Law)
    doc = type(law).__doc__
    fields = re.findall(r"\{(\w+)\}", CLASS_TEMPLATE)
    assert fields
    assert not any("{" + field + "}" in doc for field in fields)  # every field filled
    first_line = CLASS_TEMPLATE.split("\n")[2].split("{")[0]
    assert first_line in doc


def test_pdf_integrates_to_cdf(case):
    _, law, probe, spec = case
    lower = probe[0]
    start = float(law.cdf(lower))
    for x in _points(probe, spec.points):
        integral = _integral(lambda s: float(law.pdf(s)), lower, x)
        assert float(law.cdf(x)) - start == pytest.approx(integral, abs=spec.tolerance)


def test_sf_is_integrated_pdf_above(case):
    _, law, probe, spec = case
    upper = probe[1]
    end = float(law.sf(upper))
    for x in _points(probe, min(spec.points, 3)):
        integral = _integral(lambda s: float(law.pdf(s)), x, upper)
        assert float(law.sf(x)) - end == pytest.approx(integral, abs=spec.tolerance)


def test_ppf_inverts_cdf(case):
    _, law, probe, spec = case
    q = np.linspace(0.05, 0.95, 3 * spec.points)
    x = law.ppf(q)
    np.testing.assert_allclose(law.cdf(x), q, atol=max(spec.tolerance, 1e-14))
    inner = _points(probe, spec.points)
    np.testing.assert_allclose(law.ppf(law.cdf(inner)), inner, atol=1e-8)
    lower, upper = law.support()
    assert law.ppf(0.0) == lower
    assert law.ppf(1.0) == upper


def test_rvs_follow_cdf(case):
    _, law, _, spec = case
    sample = law.rvs(spec.ks_size, seed=11)
    assert sample.shape == (spec.ks_size,)
    assert stats.kstest(sample, law.cdf).statistic < KS_LIMIT_AT[spec.ks_size]


@pytest.mark.parametrize("name", ["score-gap-10", "score-top-remaining-10", "finite-32-173"])
def test_rvs_of_costly_laws_follow_cdf_in_few_draws(name):
    # the fast tier's case of test_rvs_follow_cdf for the laws whose inverse-cdf draws
    # are costly (tests/conftest.py SLOW_CASES): the same KS test at 0.1%, 100 draws
    law = CASES[name].factory()
    sample = law.rvs(100, seed=12)
    assert stats.kstest(sample, law.cdf).statistic < 1.95 / math.sqrt(100)
    q = np.array([0.1, 0.5, 0.9])
    np.testing.assert_allclose(law.cdf(law.ppf(q)), q, atol=max(CASES[name].tolerance, 1e-14))


def test_moments_match_quadrature(case):
    _, law, _, spec = case
    if spec.moments == "none":
        with pytest.raises(ValueError, match="not implemented"):
            law.moment(1)
        return
    if spec.moments == "infinite":
        assert [float(law.moment(k)) for k in range(3)] in (
            [1.0, -math.inf, math.inf],
            [1.0, math.inf, math.inf],
        )
        return
    lower, upper = (float(v) for v in law.support())
    for order in range(5):
        reference = _integral(lambda s, k=order: s**k * float(law.pdf(s)), lower, upper)
        assert float(law.moment(order)) == pytest.approx(reference, rel=1e-9, abs=1e-12)
    mean = float(law.mean())
    assert mean == pytest.approx(float(law.moment(1)), rel=1e-15)
    central = _integral(lambda s: (s - mean) ** 2 * float(law.pdf(s)), lower, upper)
    assert float(law.var()) == pytest.approx(central, rel=1e-9)
    assert float(law.std()) == pytest.approx(math.sqrt(central), rel=1e-9)


def test_array_contract(case):
    _, law, probe, spec = case
    x = _points(probe, 4)
    for method in (law.pdf, law.cdf, law.sf):
        scalar = method(x[0])
        assert type(scalar) is np.float64
        values = method(x.reshape(2, 2))
        assert values.shape == (2, 2)
        np.testing.assert_allclose(values.ravel(), [method(v) for v in x], rtol=1e-14)
    assert type(law.ppf(0.5)) is np.float64
    assert law.ppf([[0.2], [0.7]]).shape == (2, 1)
    assert all(type(v) is np.float64 for v in law.support())
    if spec.moments != "none":
        assert np.asarray(law.moment([0, 2])).shape == (2,)
    with pytest.raises(ValueError, match="must not contain NaN"):
        law.pdf([0.5, np.nan])
    with pytest.raises(ValueError, match=r"probability must contain finite values in \[0.0, 1.0\]"):
        law.ppf(1.5)
    with pytest.raises(ValueError, match="order must be an integer >= 0"):
        law.moment(-1)


@pytest.mark.parametrize(
    "law",
    [
        SingularValueLaw(0.5),
        SingularValueLaw(1.0, normalization="raw"),
        SingularValueLaw(0.4, family="product"),
    ],
    ids=repr,
)
def test_dps_route_agrees_with_float64(law):
    support = tuple(float(v) for v in law.support())
    x = _points(support if math.isfinite(sum(support)) else _quantiles(law), 4)
    for method in ("pdf", "cdf", "sf"):
        exact = getattr(law, method)(x, dps=30)
        assert exact.dtype == object
        assert isinstance(exact[0], mpmath.mpf)
        np.testing.assert_allclose(
            [float(v) for v in exact], getattr(law, method)(x), rtol=1e-12, atol=1e-14
        )
    q = np.array([0.1, 0.5, 0.9])
    exact = law.ppf(q, dps=30)
    np.testing.assert_allclose([float(v) for v in exact], law.ppf(q), rtol=1e-13)
    with mpmath.workdps(30):
        assert abs(law.cdf(exact[1], dps=30) - mpmath.mpf("0.5")) < mpmath.mpf(10) ** -25


def test_float64_only_laws_refuse_dps():
    law = singular_value_law(d=32, p=173)
    with pytest.raises(ValueError, match="dps must be None for FiniteSizeSingularValueLaw"):
        law.pdf(1.0, dps=20)


def test_finite_size_moments_closed_and_by_quadrature():
    law = singular_value_law(d=32, p=173)
    assert isinstance(law, FiniteSizeSingularValueLaw)
    # order 2 and 4 closed forms against the same angle quadrature used for odd orders
    from lamcap.theory._law import quadrature_moment

    lower, upper = (float(v) for v in law.support())
    assert quadrature_moment(law.pdf, lower, upper, 2) == pytest.approx(1.0, abs=1e-9)
    assert quadrature_moment(law.pdf, lower, upper, 4) == pytest.approx(
        float(law.moment(4)), rel=1e-9
    )
    # the finite matrix has the extra 1/d terms: E s^4 differs from the density's by about 1/d
    assert float(law.finite_d_moment(4)) - float(law.moment(4)) == pytest.approx(1 / 32, rel=0.5)


def test_target_score_law_dps_route():
    law = score_law(10).target
    exact = law.cdf(1.2, dps=20)
    assert isinstance(exact, mpmath.mpf)
    assert float(exact) == pytest.approx(float(law.cdf(1.2)), abs=1e-12)


def test_atoms_at_infinity_are_all_active_probability():
    # Y = -inf and Gamma = +inf exactly when every competitor is active: P(|A| = p - 1)
    p, margin = 6, 0.3
    law = score_law(p, margin=margin)
    atom = float(law.active_probabilities(kmax=p - 1)[-1])
    assert atom > 1e-6
    assert float(law.top_remaining.cdf(-math.inf)) == pytest.approx(atom, rel=1e-9)
    assert float(law.gap.sf(1e6)) == pytest.approx(atom, rel=1e-9)
    assert float(law.gap.sf(math.inf)) == 0.0
    assert law.top_remaining.ppf(0.5 * atom) == -math.inf
    assert law.gap.ppf(1.0 - 0.5 * atom) == math.inf
    # p = 2: the single competitor is active with probability 1/2 (closed form)
    assert float(score_law(2).top_remaining.cdf(-math.inf)) == pytest.approx(0.5, abs=1e-13)


def test_top_competitor_law_matches_maxima_of_gaussians():
    law = NormalMaximumLaw(99)
    maxima = np.random.default_rng(5).standard_normal((4000, 99)).max(axis=1)
    assert stats.kstest(maxima, law.cdf).statistic < KS_LIMIT_AT[4000]
    # E max(Z1, Z2) = 1/sqrt(pi), Var = 1 - 1/pi
    pair = NormalMaximumLaw(2)
    assert float(pair.mean()) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-14)
    assert float(pair.var()) == pytest.approx(1 - 1 / math.pi, rel=1e-14)


def test_normal_law_closed_forms_and_tails():
    law = NormalLaw(2.0, 0.5)
    assert float(law.moment(4)) == pytest.approx(2.0**4 + 6 * 2.0**2 * 0.25 + 3 * 0.0625)
    # the upper tail without cancellation: Q(30) from mpmath at 30 digits
    with mpmath.workdps(30):
        tail = float(mpmath.ncdf(-30))
    assert float(law.sf(2.0 + 0.5 * 30)) == pytest.approx(tail, rel=1e-13)
    with pytest.raises(ValueError, match="std must be"):
        NormalLaw(0.0, 0.0)

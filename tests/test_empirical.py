"""Tests of lamcap.empirical: normalisation of user weights and scores to the theory's units."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lamcap.empirical import empirical_spectrum, normalized_scores
from lamcap.geometry import project_onto_cone
from lamcap.theory._scores import score_law
from lamcap.theory._spectrum import singular_value_cdf


def test_spectrum_of_scaled_gaussian_matrix_is_quarter_circle():
    rng = np.random.default_rng(3)
    spectrum = empirical_spectrum(7.5 * rng.standard_normal((400, 400)))
    assert spectrum.kappa == 1.0
    assert np.mean(spectrum.singular_values**2) == pytest.approx(1.0, rel=1e-12)
    assert spectrum.ks_distance(family="gaussian") < 0.01
    assert spectrum.moment_ratio() == pytest.approx(2.0, abs=0.05)


def test_factor_pair_equals_explicit_product():
    rng = np.random.default_rng(4)
    q, r = rng.standard_normal((120, 30)), rng.standard_normal((100, 30))
    from_pair = empirical_spectrum((q, r))
    explicit = empirical_spectrum(q @ r.T, rank=30)
    np.testing.assert_allclose(from_pair.singular_values, explicit.singular_values, rtol=1e-10)
    assert from_pair.kappa == pytest.approx(0.3)
    # product law moment ratio 1 + 2 kappa (free probability), loosely at this size
    big = empirical_spectrum((rng.standard_normal((600, 300)), rng.standard_normal((600, 300))))
    assert big.moment_ratio() == pytest.approx(2.0, abs=0.05)
    assert big.ks_distance(family="product") < 0.02


def test_truncated_spectrum_matches_optimum_law_by_construction():
    # top-m singular values of a Gaussian matrix follow the truncated quarter circle
    rng = np.random.default_rng(5)
    d = 400
    spectrum = empirical_spectrum(rng.standard_normal((d, d)), rank=d // 2)
    assert spectrum.kappa == 0.5
    assert spectrum.ks_distance() < 0.02
    reference = stats.kstest(spectrum.singular_values, lambda s: singular_value_cdf(s, 0.5))
    assert reference.statistic == pytest.approx(spectrum.ks_distance())


def test_normalized_scores_recover_projection_with_any_scale_and_offset():
    rng = np.random.default_rng(6)
    g = rng.standard_normal((5000, 100))
    projected, active = project_onto_cone(g, margin=0.5)
    offsets = rng.standard_normal(5000)[:, None]
    targets = rng.integers(0, 100, 5000)
    # move the target column to its place in each row
    shuffled = projected.copy()
    rows = np.arange(5000)
    shuffled[rows, 0], shuffled[rows, targets] = projected[rows, targets], projected[rows, 0]
    summary = normalized_scores(4.0 * shuffled + offsets, targets)
    # the row-median centring biases the spread by O(1/p): -1% at p = 100 (-6% at p = 30)
    assert summary.spread == pytest.approx(4.0, rel=0.02)
    assert summary.margin == pytest.approx(0.5, rel=0.02)
    np.testing.assert_array_equal(summary.active, active)
    law = score_law(100, margin=0.5)
    error = summary.target.std() / math.sqrt(5000)
    assert summary.target.mean() == pytest.approx(law.target.mean(), abs=5 * error + 0.02)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: empirical_spectrum(np.ones(3)), "W must be a matrix"),
        (lambda: empirical_spectrum((np.ones((3, 2)), np.ones((3, 1)))), "equal widths"),
        (lambda: empirical_spectrum(np.zeros((3, 3))), "must not be zero"),
        (lambda: empirical_spectrum(np.eye(3), rank=4), "rank must be an integer"),
        (lambda: empirical_spectrum(np.eye(3), normalization="max"), "normalization"),
        (lambda: normalized_scores(np.ones((3, 1)), 0), r"shape \(n, p\)"),
        (lambda: normalized_scores(np.eye(3), 5), r"targets must be an integer in \[0, 2\], got 5"),
        (lambda: normalized_scores([[np.nan, 1.0]], 0), "score_matrix"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_rows_of_different_spread_need_their_own_units():
    # a memory's rows have different competitor spreads (|W e_mu| varies): each row
    # divided by its own known spread recovers the law; one pooled spread does not
    from lamcap.empirical import normalized_score_rows

    rng = np.random.default_rng(3)
    g = rng.standard_normal((4000, 50))
    optimal = project_onto_cone(g)[0]
    spreads = rng.lognormal(sigma=0.4, size=4000)
    exact_mean = score_law(50).target.mean()
    target, competitors, _ = normalized_score_rows(
        optimal * spreads[:, None], 0, row_spread=spreads
    )
    np.testing.assert_allclose(target, optimal[:, 0], rtol=1e-12)
    np.testing.assert_allclose(competitors, optimal[:, 1:], rtol=1e-12)
    assert abs(target.mean() - exact_mean) < 0.03
    pooled, _, _ = normalized_score_rows(optimal * spreads[:, None], 0)
    assert abs(pooled.mean() - exact_mean) > 0.1  # the pooled units are off


@pytest.mark.parametrize("row_spread", [[1.0, 0.0], [1.0], [1.0, float("nan")], [-1.0, 2.0]])
def test_bad_row_spread_is_refused(row_spread):
    from lamcap.empirical import normalized_score_rows

    with pytest.raises(ValueError, match="row_spread"):
        normalized_score_rows(np.ones((2, 3)) + np.eye(2, 3), 0, row_spread=row_spread)

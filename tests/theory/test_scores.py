"""Tests of lamcap.theory._scores against direct projection of Gaussian vectors and cone laws."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from lamcap.geometry import project_onto_cone
from lamcap.theory import _scores as scores_module
from lamcap.theory._cone import active_set_law
from lamcap.theory._cost_models import statistical_dimension
from lamcap.theory._scores import sample_scores, score_law

SIZE = 20000
KS_LIMIT = 1.95 / math.sqrt(SIZE)  # 0.1% critical value of the one-sample KS statistic


def _projected_summary(p, size, seed, margin=0.0):
    """Direct simulation: project g ~ N(0, I_p) with the cone projection of lamcap.geometry."""
    rng = np.random.default_rng(seed)
    g = rng.standard_normal((size, p))
    projected, active = project_onto_cone(g, margin=margin)
    target = projected[:, 0]
    inactive = g[:, 1:] + margin <= target[:, None]
    remaining = np.where(inactive, g[:, 1:], -np.inf).max(axis=1)
    return target, remaining, active


@pytest.fixture(scope="module")
def law_100():
    return score_law(100)


@pytest.mark.parametrize(("p", "margin"), [(10, 0.0), (100, 0.0), (1000, 0.0), (10, 0.8)])
def test_target_competitor_gap_match_projection(p, margin):
    law = score_law(p, margin=margin)
    target, remaining, _ = _projected_summary(p, SIZE, seed=p, margin=margin)
    assert stats.kstest(target, law.target.cdf).statistic < KS_LIMIT
    finite = np.isfinite(remaining)
    # competitor: compare the defective cdf at a few quantiles (binomial 5-sigma bands)
    for y in np.quantile(remaining[finite], [0.1, 0.5, 0.9]):
        empirical = np.mean(remaining <= y)
        sigma = math.sqrt(empirical * (1 - empirical) / SIZE)
        assert law.top_remaining.cdf(y) == pytest.approx(empirical, abs=5 * sigma + 1e-3)
    gap = target - remaining
    for value in np.quantile(gap[finite], [0.1, 0.5, 0.9]):
        empirical = np.mean(gap > value)
        sigma = math.sqrt(empirical * (1 - empirical) / SIZE)
        assert law.gap.sf(value) == pytest.approx(empirical, abs=5 * sigma + 1e-3)


def test_target_density_integrates_and_matches_cdf(law_100):
    low, high = law_100.level_range
    total, _ = integrate.quad(law_100.target.pdf, low, high, epsabs=1e-13, limit=200)
    assert total == pytest.approx(1.0, abs=1e-12)
    for x in (1.0, 1.7, 2.5):
        partial, _ = integrate.quad(law_100.target.pdf, low, x, epsabs=1e-13, limit=200)
        assert law_100.target.cdf(x) == pytest.approx(partial, abs=1e-12)


@pytest.mark.parametrize(("p", "margin"), [(1000, 1.0), (30, 0.0)])
def test_target_density_below_the_level_range_matches_cdf_slope(p: int, margin: float) -> None:
    # Points under the quadrature range need a finer trapezoid step (aliasing);
    # the slope of the independent Gil-Pelaez cdf is the reference.
    law = score_law(p, margin=margin)
    low = law.level_range[0]
    for x in (low - 0.9, low - 0.3, low + 0.2):
        step = 1e-4
        slope = (law.target.cdf(x + step) - law.target.cdf(x - step)) / (2 * step)
        assert law.target.pdf(x) == pytest.approx(slope, abs=1e-9)


def test_competitor_and_gap_densities_match_cdfs(law_100):
    for y in (0.8, 1.4):
        step = 1e-4
        numeric = (law_100.top_remaining.cdf(y + step) - law_100.top_remaining.cdf(y - step)) / (
            2 * step
        )
        assert law_100.top_remaining.pdf(y) == pytest.approx(numeric, rel=1e-6)
    for gap in (0.1, 0.4):
        step = 1e-4
        numeric = -(law_100.gap.sf(gap + step) - law_100.gap.sf(gap - step)) / (2 * step)
        assert law_100.gap.pdf(gap) == pytest.approx(numeric, rel=1e-6)


@pytest.mark.parametrize("p", [3, 10, 100])
def test_active_set_law_matches_cone_module(p):
    mine = score_law(p).active_probabilities()
    reference = active_set_law(p)
    size = min(mine.size, reference.size)
    np.testing.assert_allclose(mine[:size], reference[:size], atol=1e-12)
    assert mine.sum() == pytest.approx(1.0, abs=1e-12)
    # Stein: E|A| = statistical dimension
    assert np.dot(np.arange(mine.size), mine) == pytest.approx(statistical_dimension(p), rel=1e-10)


@pytest.mark.slow
def test_active_set_law_at_a_million_outputs_against_dps30():
    # P(|A| = k) beyond p = 8e5, where the binomial factor alone overflows: the law sums
    # to 1, P(|A| = 0) is the probability 1/p that the target is the largest (exact), and
    # E|A| is the statistical dimension (Stein), here from its mpmath route at dps=30.
    p = 10**6
    law = score_law(p).active_probabilities()
    reference = float(statistical_dimension(p, dps=30))
    assert np.all(np.isfinite(law))
    assert law.sum() == pytest.approx(1.0, abs=1e-12)
    assert law[0] == pytest.approx(1.0 / p, abs=1e-15)
    assert np.dot(np.arange(law.size), law) == pytest.approx(reference, rel=1e-12)


def test_active_set_law_with_margin_matches_projection():
    p, margin = 10, 0.8
    law = score_law(p, margin=margin).active_probabilities()
    _, _, active = _projected_summary(p, SIZE, seed=4, margin=margin)
    for k in range(4):
        empirical = np.mean(active == k)
        sigma = math.sqrt(max(empirical * (1 - empirical), 1e-4) / SIZE)
        assert law[k] == pytest.approx(empirical, abs=5 * sigma)


def test_two_outputs_closed_forms():
    law = score_law(2)
    # l* = max(g_t, (g_t + g_c)/2): E l* = 1/(2 sqrt(pi)); P(|A| = 0) = 1/2
    assert law.target.mean() == pytest.approx(1 / (2 * math.sqrt(math.pi)), abs=1e-13)
    assert law.active_probabilities()[0] == pytest.approx(0.5, abs=1e-14)
    # remaining competitor exists iff g_c <= g_t: P(Y <= 0) = 1/2 (atom) + P(g_c <= min(0, g_t))
    assert law.top_remaining.cdf(0.0) == pytest.approx(0.5 + 3 / 8, abs=1e-13)


def test_mean_target_level_follows_gumbel_level_of_asymptotics():
    # E l* sits well below sqrt(2 log p) (lower-order terms: -3/2 log(2 log p)/sqrt(2 log p)...),
    # and approaches the reference level Y of lamcap.theory._asymptotics from below
    # (Y^2 + 3 log Y^2 = 2 log(p - 1) - log 2 pi): the differences are negative and shrink.
    # No threshold is fitted to their values (-0.29, -0.15, -0.085, -0.067 for the four p);
    # instead the law's mean at the largest p is checked against direct projection of
    # Gaussian vectors, to five standard errors of the Monte Carlo mean (about 0.02).
    from lamcap.theory._asymptotics import gumbel_level

    differences = []
    for p in (10, 100, 1000, 3000):
        mean = score_law(p).target.mean()
        assert math.sqrt(2 * math.log(p)) - mean > 1.0
        differences.append(mean - math.sqrt(float(gumbel_level(p))))
    assert all(d < 0 for d in differences)
    assert all(abs(a) > abs(b) for a, b in itertools.pairwise(differences))
    target, _, _ = _projected_summary(3000, 4000, seed=3000)
    error = target.std(ddof=1) / math.sqrt(target.size)
    assert score_law(3000).target.mean() == pytest.approx(target.mean(), abs=5 * error)


def test_top_order_statistics_sampler_matches_law():
    p = 20000
    sample = sample_scores(p, 4000, seed=9)
    law = score_law(p)
    assert stats.kstest(sample.target, law.target.cdf).statistic < 1.95 / math.sqrt(4000)
    error = sample.active.std() / math.sqrt(4000)
    assert sample.active.mean() == pytest.approx(statistical_dimension(p), abs=5 * error)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: score_law(1), "p must be an integer >= 2"),
        (lambda: score_law(10, margin=-0.5), "margin must be >= 0"),
        (lambda: score_law(10, margin=np.nan), "margin"),
        (lambda: sample_scores(10, 0), "size must be an integer >= 1"),
        (lambda: score_law(10).target.pdf(np.nan), "x must not contain NaN"),
    ],
)
def test_bad_input_raises(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sample_scores_at_p_beyond_int64() -> None:
    # issue 23: numpy's log of a Python int beyond int64 failed with a message naming nothing
    sample = sample_scores(10**100, 50, seed=0)
    assert np.all(sample.gap >= 0.0)
    assert np.all(sample.active >= 1)
    mean = float(np.mean(sample.active))
    assert abs(mean - statistical_dimension(10**100)) < 6 * np.std(sample.active) / math.sqrt(50)


def test_sample_scores_beyond_float64_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^p must be an integer in \[2, 1.8e\+308\]"):
        sample_scores(10**400, 3, seed=0)


def test_sample_scores_of_a_size_too_large_raise_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from lamcap import _sizes

    with pytest.raises(ValueError, match=r"^sample_scores with p = 10, size = 1e\+100 .*needs"):
        sample_scores(10, 10**100, seed=0)
    monkeypatch.setattr(_sizes, "available_memory", lambda: 10**6)
    with pytest.raises(ValueError, match=r"size = 100000 .*but 977 KiB are available$"):
        sample_scores(10, 10**5, seed=0)
    monkeypatch.setattr(_sizes, "available_memory", lambda: 10**9)
    assert sample_scores(10, 10**5, seed=0).active.shape == (10**5,)


def test_the_law_computed_in_blocks_of_levels_is_the_same_law(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Large margins need many Fourier nodes: the levels are then taken a block at a time
    (bounded memory); the blocks change no bit of the law."""
    whole = score_law(300, margin=2.0)
    monkeypatch.setattr(scores_module, "_BLOCK_ELEMENTS", 1000)  # a level or two per block
    blocked = score_law(300, margin=2.0)
    for name in ("_nodes", "_weights", "_density"):
        np.testing.assert_array_equal(getattr(blocked, name), getattr(whole, name))

"""The cone kernel: active-set rule, projections, top order statistics, level range."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from lamcap import _cone_kernel as kernel
from lamcap.geometry import project_onto_cone
from lamcap.theory._hinge_sums import target_level_cdf


def test_compiled_rule_matches_its_python_source() -> None:
    rng = np.random.default_rng(0)
    for _ in range(500):
        count = int(rng.integers(0, 6))
        y, level_sum = np.round(rng.normal(size=2), 1)
        assert kernel._joins(y, level_sum, count) == kernel.joins_active_set(y, level_sum, count)


def test_compiled_row_projections_match_their_python_source() -> None:
    rng = np.random.default_rng(1)
    rows = np.where(rng.random((200, 30)) < 0.5, rng.standard_cauchy((200, 30)), 0.5)
    targets = rng.integers(0, 30, size=200)
    compiled, interpreted = rows.copy(), rows.copy()
    sizes = kernel.project_rows(compiled, targets, 0.3)
    np.testing.assert_array_equal(sizes, kernel.project_rows.py_func(interpreted, targets, 0.3))
    np.testing.assert_array_equal(compiled, interpreted)


@pytest.mark.parametrize("margin", [0.0, 0.7])
def test_sorted_projection_equals_row_projection(margin: float) -> None:
    rng = np.random.default_rng(2)
    scores = rng.standard_normal((2000, 12))
    scores[:, 1:] = -np.sort(-scores[:, 1:], axis=1)
    projected, sizes = project_onto_cone(scores, margin=margin)
    active, level = kernel.project_sorted(scores[:, 0], scores[:, 1:], margin)
    np.testing.assert_array_equal(active, sizes)
    np.testing.assert_allclose(level, projected[:, 0], rtol=0, atol=1e-14)


def test_active_prefix_is_the_first_failure_of_the_rule() -> None:
    # target 0, competitors 3, 2, 0.5, -1: levels 3/2, 5/3 -> A = {3, 2}
    target = np.array([0.0])
    assert kernel.active_prefix(target, np.array([[3.0, 2.0, 0.5, -1.0]])).tolist() == [2]
    assert kernel.active_prefix(target, np.array([[3.0, 2.9]])).tolist() == [2]
    assert kernel.active_prefix(target, np.array([[-0.5]])).tolist() == [0]


def test_top_order_statistics_have_the_law_of_the_sorted_sample() -> None:
    count, rows = 40, 20_000
    top = kernel.draw_top(np.random.default_rng(3), count, rows, 3)
    direct = -np.sort(-np.random.default_rng(4).standard_normal((rows, count)), axis=1)
    assert np.all(np.diff(top.values, axis=1) < 0)
    for k in range(3):
        assert stats.ks_2samp(top.values[:, k], direct[:, k]).pvalue > 1e-3


def test_extension_continues_the_order_statistics_exactly() -> None:
    # The 4th..9th largest obtained by extending a block of 3 have the law of the
    # 4th..9th of a direct sorted sample (and of a block drawn 9 long at once).
    count, rows = 30, 20_000
    rng = np.random.default_rng(5)
    top = kernel.extend_top(rng, kernel.draw_top(rng, count, rows, 3), 6)
    assert top.values.shape == (rows, 9)
    assert np.all(np.diff(top.values, axis=1) < 0)
    direct = -np.sort(-np.random.default_rng(6).standard_normal((rows, count)), axis=1)
    for k in (3, 5, 8):
        assert stats.ks_2samp(top.values[:, k], direct[:, k]).pvalue > 1e-3
    # extending to every competitor: the smallest is the minimum of the sample
    full = kernel.extend_top(rng, kernel.draw_top(rng, 5, rows, 2), 3)
    minimum = np.random.default_rng(7).standard_normal((rows, 5)).min(axis=1)
    assert stats.ks_2samp(full.values[:, -1], minimum).pvalue > 1e-3


def test_sampled_projection_extends_until_an_inactive_competitor_is_left(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A first block of 2 is far too short at p = 1000: rows are extended, and the
    # active-set sizes keep the law of the full projection (mean E[C_p] = 8.12...).
    monkeypatch.setattr(kernel, "default_top_length", lambda _: 2)
    rows = 20_000
    top, _, active, _ = kernel.sample_top_projection(np.random.default_rng(8), 999, rows, 0.0)
    assert top.values.shape[1] > 2
    assert np.all(active < top.values.shape[1])
    _, sizes = project_onto_cone(np.random.default_rng(9).standard_normal((rows, 1000)))
    assert stats.ks_2samp(active, sizes).pvalue > 1e-3


@pytest.mark.parametrize(("p", "margin"), [(2, 0.0), (10, 0.5), (1000, 2.0), (10**6, 0.0)])
def test_level_range_cuts_below_the_tolerance(p: int, margin: float) -> None:
    log_tol = math.log(1e-6)
    lower, upper = kernel.level_range(p, margin, log_tol)
    assert target_level_cdf(lower, p, margin) < 1e-6
    assert 1.0 - target_level_cdf(upper, p, margin) < 1e-6
    # and the range is not much wider than needed
    assert target_level_cdf(lower + 1.0, p, margin) > 1e-6
    assert 1.0 - target_level_cdf(upper - 1.5, p, margin) > 1e-6


def test_default_top_length_takes_integers_beyond_int64() -> None:
    assert kernel.default_top_length(10**100) == int(8.0 * math.log(10**100 + 1)) + 60
    assert kernel.default_top_length(999) == 115

"""Transition fit: recovers a known logistic transition; interval coverage; Wilson interval."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamcap.experiments.fitting import fit_transition, wilson_interval


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

"""OP/DP transition ratios and their finite-size trends, on synthetic cells with known answers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from lamcap.experiments._analysis import CellData
from lamcap.experiments._fitting import CHI2_95
from lamcap.experiments._model_comparison import (
    ModelRatio,
    calibrated_cutoff,
    constant_ratio,
    generating_law,
    model_ratios,
    ratio_power_law,
    ratio_statistics,
    ratio_trend,
    trend_variable,
)
from lamcap.experiments._sweep import Cell


def _cell_data(
    cell: Cell, p_c: float, rng: np.random.Generator, m: int = 400, points: int = 13
) -> CellData:
    ps = np.unique(np.round(p_c * np.linspace(0.85, 1.15, points)).astype(np.int64))
    probability = 1 / (1 + np.exp(-25.0 * (math.log(p_c) - np.log(ps))))
    feasible = rng.binomial(m, probability)
    decided = np.full(ps.size, m)
    return CellData(
        cell, ps, feasible, decided, np.zeros(ps.size, np.int64), np.full(ps.size, np.nan)
    )


def test_model_ratios_recover_a_known_ratio_per_d() -> None:
    rng = np.random.default_rng(3)
    cells = {}
    truth = {16: 1.04, 32: 1.02}
    for d, ratio in truth.items():
        dp = Cell(d, 1.0, "decoupled", "auto")
        op = Cell(d, 1.0, "original", "auto")
        cells[dp] = _cell_data(dp, 4.0 * d, rng)
        cells[op] = _cell_data(op, 4.0 * d * ratio, rng)
    cells[Cell(48, 1.0, "original", "auto")] = _cell_data(
        Cell(48, 1.0, "original", "auto"), 200, rng
    )
    ratios = model_ratios(cells)
    assert [r.cell.d for r in ratios] == [16, 32]  # d = 48 has no decoupled partner
    for r in ratios:
        assert r.low < truth[r.cell.d] < r.high
        assert r.ratio == pytest.approx(truth[r.cell.d], abs=0.01)


def _exact_rows(amplitude: float, exponent: float) -> list[ModelRatio]:
    rows = []
    for d in (8, 12, 16, 24, 32):
        log_ratio = amplitude * d**-exponent
        rows.append(
            ModelRatio(
                Cell(d, 1.0, "original", "auto"),
                math.exp(log_ratio),
                math.exp(log_ratio - 0.01),
                math.exp(log_ratio + 0.01),
                100,
            )
        )
    return rows


def test_trend_in_inverse_d_extrapolates_exact_data() -> None:
    trend = ratio_trend(_exact_rows(0.4, 1.0), "1/d")
    assert trend.intercept == pytest.approx(0.0, abs=1e-12)
    assert trend.slope == pytest.approx(0.4, rel=1e-12)
    assert trend.chi2 == pytest.approx(0.0, abs=1e-18)


def test_power_law_recovers_amplitude_and_exponent() -> None:
    law = ratio_power_law(_exact_rows(0.3, 0.7))
    assert law.amplitude == pytest.approx(0.3, rel=1e-6)
    assert law.exponent == pytest.approx(0.7, rel=1e-6)


def test_inverse_log_p_variable_uses_critical_p() -> None:
    from lamcap import critical_p

    x = trend_variable([16, 64], "1/log p")
    assert x[0] == pytest.approx(1 / math.log(float(critical_p(16))), rel=1e-12)
    with pytest.raises(ValueError, match="variable"):
        trend_variable([16], "log d")


def test_through_one_rejects_a_constant_offset_and_accepts_its_own_law() -> None:
    rows = _exact_rows(0.4, 1.0)
    assert ratio_trend(rows, "1/d", through_one=True).p_value == pytest.approx(1.0)
    flat = [
        ModelRatio(r.cell, 1.04, 1.04 * math.exp(-0.005), 1.04 * math.exp(0.005), 100) for r in rows
    ]
    assert ratio_trend(flat, "1/d", through_one=True).p_value < 1e-6
    level = constant_ratio(flat)
    assert math.exp(level.slope) == pytest.approx(1.04, rel=1e-12)
    assert level.p_value == pytest.approx(1.0)


def _pair(d: int, ratio: float, m: int, points: int = 13) -> tuple[CellData, CellData]:
    rng = np.random.default_rng(d)
    op = _cell_data(Cell(d, 1.0, "original", "auto"), 4.0 * d * ratio, rng, m, points)
    dp = _cell_data(Cell(d, 1.0, "decoupled", "auto"), 4.0 * d, rng, m, points)
    return op, dp


def test_ratio_statistic_follows_wilks_with_many_instances() -> None:
    # 400 instances at each of 13 points: the profile statistic at the true ratio
    # is close to chi-square with one degree of freedom (mean 1, 95% below 3.84).
    op, dp = _pair(16, 1.04, 400)
    statistics = ratio_statistics(op, dp, "logistic", draws=120, seed=1)
    assert np.all(statistics >= -1e-9)
    assert 0.6 < float(np.mean(statistics)) < 1.5
    covered = int(np.sum(statistics <= CHI2_95))
    assert covered >= 106  # 114 expected; P(<= 105) < 1% for a true 95% interval


def test_generating_laws_reproduce_the_fitted_transitions() -> None:
    op, dp = _pair(16, 1.04, 400)
    (op_law, dp_law), truth = generating_law("logistic", op, dp)
    assert truth == pytest.approx(math.log(1.04), abs=0.005)
    for law, data in ((op_law, op), (dp_law, dp)):
        assert np.all(np.diff(law) < 0)
        observed = data.feasible / data.decided
        assert float(np.max(np.abs(law - observed))) < 0.1  # 400 instances per point
    (op_law, dp_law), truth = generating_law("crofton", op, dp)
    assert truth == pytest.approx(math.log(1.04), abs=0.01)
    assert np.all((op_law >= 0) & (op_law <= 1))
    assert np.all(np.diff(dp_law) <= 0)
    with pytest.raises(ValueError, match="law must be one of"):
        generating_law("probit", op, dp)


@pytest.mark.parametrize("draws", [10, pytest.param(40, marks=pytest.mark.slow)])
def test_calibrated_cutoff_widens_the_interval_never_narrows_it(draws: int) -> None:
    op, dp = _pair(12, 1.04, 6, points=7)  # few instances: far from Wilks' regime
    cutoff = calibrated_cutoff(op, dp, draws=draws, seed=2)
    assert cutoff >= CHI2_95
    cells = {op.cell: op, dp.cell: dp}
    (plain,) = model_ratios(cells)
    (calibrated,) = model_ratios(cells, draws=draws, seed=2)
    assert plain.cutoff == CHI2_95
    assert calibrated.cutoff == cutoff
    assert calibrated.ratio == plain.ratio
    assert calibrated.low <= plain.low
    assert calibrated.high >= plain.high


def test_level_is_the_deprecated_name_of_coverage() -> None:
    op, dp = _pair(12, 1.04, 6, points=7)
    chosen = calibrated_cutoff(op, dp, draws=4, seed=2, coverage=0.9)  # few draws: a name test
    with pytest.deprecated_call(match=r"calibrated_cutoff\(coverage=\.\.\.\)"):
        assert calibrated_cutoff(op, dp, draws=4, seed=2, level=0.9) == chosen

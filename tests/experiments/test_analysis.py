"""Analysis: aggregation by cell, undecided handling, crossings of the theory curves."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from lamcap.experiments._analysis import (
    _integer_crossing,
    cell_data,
    crofton_median,
    finite_theory_p,
    hebbian_transition,
    load,
    theory_p,
    transition_table,
)
from lamcap.experiments._fitting import fit_transition
from lamcap.experiments._shift import finite_size_law, law_transition
from lamcap.experiments._store import ResultsStore
from lamcap.experiments._sweep import Cell, Sweep


def _fill(path: Path, kappa: float, verdicts: dict[int, list[str]]) -> Cell:
    sweep = Sweep(dims=(8,), kappas=(kappa,), seeds_per_point=1)
    cell = next(sweep.cells())
    with ResultsStore(path) as store:
        for p, outcomes in verdicts.items():
            for replicate, verdict in enumerate(outcomes):
                store.add(sweep.task(cell, p, replicate), {"verdict": verdict, "accuracy": 1.0})
    return cell


VERDICTS = {
    10: ["feasible"] * 4,
    14: ["feasible", "feasible", "undecided", "undecided"],
    18: ["undecided"] * 3 + ["infeasible"],
    22: ["infeasible"] * 4,
}


def test_cell_data_counts(tmp_path: Path) -> None:
    cell = _fill(tmp_path / "r.sqlite", 1.0, VERDICTS)
    data = cell_data(tmp_path / "r.sqlite")[cell]
    assert data.p.tolist() == [10, 14, 18, 22]
    assert data.feasible.tolist() == [4, 2, 0, 0]
    assert data.decided.tolist() == [4, 2, 1, 4]
    assert data.undecided.tolist() == [0, 2, 3, 0]


def test_undecided_instances_are_left_out_at_every_rank(tmp_path: Path) -> None:
    _fill(tmp_path / "full.sqlite", 1.0, VERDICTS)
    _fill(tmp_path / "rank.sqlite", 0.5, VERDICTS)
    (full_data,) = cell_data(tmp_path / "full.sqlite").values()
    (rank_data,) = cell_data(tmp_path / "rank.sqlite").values()
    for data in (full_data, rank_data):  # p = 14 is 2/2 storable, p = 18 0/1: above 14
        p, feasible, total = data.counts()
        assert (p.tolist(), feasible.tolist(), total.tolist()) == (
            [10, 14, 18, 22],
            [4, 2, 0, 0],
            [4, 2, 1, 4],
        )
        fit = data.fit()
        assert fit is not None
        assert fit.p_c > 14


def test_integer_crossing_interpolates() -> None:
    assert _integer_crossing(lambda p: 1.0 - p / 21.0) == pytest.approx(10.5)
    assert _integer_crossing(lambda _p: 0.0) == 2.0


@pytest.mark.slow
def test_crofton_median_straddles_one_half() -> None:
    from lamcap import feasibility_probability

    median = crofton_median(8)
    below, above = math.floor(median), math.ceil(median)
    assert (
        float(feasibility_probability(8, below)) >= 0.5 >= float(feasibility_probability(8, above))
    )


def test_unit_norm_cells_are_predicted_by_the_unit_norm_law() -> None:
    from lamcap import critical_p, feasibility_probability

    cell = Cell(12, 1.0, "decoupled", "auto", "sphere")
    assert theory_p(cell) == float(critical_p(12, embeddings="sphere"))
    median = finite_theory_p(cell)
    below, above = math.floor(median), math.ceil(median)
    assert (
        float(feasibility_probability(12, below, embeddings="sphere"))
        >= 0.5
        >= float(feasibility_probability(12, above, embeddings="sphere"))
    )
    assert median > crofton_median(12) * 1.04  # the unit-norm law, not the Gaussian one
    # no unit-norm law below full rank nor for the Hebbian rule: no prediction, not a wrong one
    assert math.isnan(theory_p(Cell(12, 0.5, "decoupled", "two_layer", "sphere")))
    assert math.isnan(finite_theory_p(Cell(12, 1.0, "decoupled", "hebbian", "sphere")))


def test_transition_table_reports_load(tmp_path: Path) -> None:
    _fill(tmp_path / "r.sqlite", 1.0, VERDICTS)
    (row,) = transition_table(tmp_path / "r.sqlite", with_finite=False)
    assert row.alpha[0] == pytest.approx(load(row.p_c, 8))
    assert row.instances == 16
    assert row.undecided == 5


HEBBIAN_DATABASE = Path(__file__).resolve().parents[2] / "docs/measurements/data/hebbian.sqlite"


def test_hebbian_cells_are_fitted_with_the_cloglog_link(tmp_path: Path) -> None:
    sweep = Sweep(dims=(8,), methods=("hebbian",), seeds_per_point=1)
    cell = next(sweep.cells())
    assert cell.link == "cloglog"
    assert Cell(8, 1.0, "decoupled", "auto").link == "logistic"
    with ResultsStore(tmp_path / "h.sqlite") as store:
        for p, outcomes in {4: [1, 1, 1], 6: [1, 1, 0], 8: [1, 0, 0], 10: [0, 0, 0]}.items():
            for replicate, recalled in enumerate(outcomes):
                verdict = "feasible" if recalled else "infeasible"
                store.add(sweep.task(cell, p, replicate), {"verdict": verdict, "accuracy": 1.0})
    fit = cell_data(tmp_path / "h.sqlite")[cell].fit()
    assert fit is not None
    assert fit.link == "cloglog"


@pytest.mark.slow
@pytest.mark.parametrize("d", [16, 32, 64])
def test_hebbian_fit_finds_the_law_crossing_at_the_committed_design(d: int) -> None:
    # The exact finite-d law's expected counts at the p points and instance numbers
    # of docs/measurements/data/hebbian.sqlite: the cell's fit must land on the law's
    # 50% point (root of the law, hebbian_transition; the pair law of P(all)).  The
    # logistic curve, symmetric in log p, cannot follow the law's long upper tail and
    # lands low here.
    from lamcap.theory import hebbian_recall_finite

    (data,) = (v for c, v in cell_data(HEBBIAN_DATABASE).items() if c.d == d)
    p, _, total = data.counts()
    law = np.array(
        [float(hebbian_recall_finite(int(q), d, all_associations=True, pairs=True)) for q in p]
    )
    crossing = hebbian_transition(d, finite=True)
    fit = fit_transition(p, total * law, total, link=data.cell.link)
    assert fit.p_c == pytest.approx(crossing, rel=0.007)
    assert fit_transition(p, total * law, total).p_c < 0.99 * crossing


def test_transition_is_the_law_shaped_fit_of_the_cells_counts(tmp_path: Path) -> None:
    # d = 8, full rank: the Crofton law's median is about 21.9; counts around it
    verdicts = {
        16: ["feasible"] * 4,
        20: ["feasible"] * 3 + ["infeasible"],
        22: ["feasible", "infeasible", "infeasible", "undecided"],
        26: ["infeasible"] * 4,
    }
    cell = _fill(tmp_path / "r.sqlite", 1.0, verdicts)
    data = cell_data(tmp_path / "r.sqlite")[cell]
    fit = data.transition()
    assert fit is not None
    expected = law_transition(*data.counts(), finite_size_law(8))
    assert expected is not None
    assert (fit.p_c, fit.low, fit.high, fit.link) == (
        expected.p_c,
        expected.low,
        expected.high,
        "law",
    )
    assert fit.low < fit.p_c < fit.high
    (row,) = transition_table(tmp_path / "r.sqlite", with_finite=False)
    assert (row.p_c, row.low, row.high) == (fit.p_c, fit.low, fit.high)


def test_transition_falls_back_on_the_free_fit_when_the_law_cannot_locate_it(
    tmp_path: Path,
) -> None:
    # every instance far above the transition: the d = 8 Crofton law is exactly 0 from
    # p = 250 on, so at p = 400 and 500 for every shift within a factor 1.42
    cell = _fill(tmp_path / "r.sqlite", 1.0, {400: ["infeasible"] * 3, 500: ["infeasible"] * 3})
    data = cell_data(tmp_path / "r.sqlite")[cell]
    assert law_transition(*data.counts(), finite_size_law(8)) is None
    assert data.transition() == data.fit()

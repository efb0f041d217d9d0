"""Figures render headless, contain the expected artists, and are byte-reproducible."""

from __future__ import annotations

from pathlib import Path

import matplotlib as mpl
import numpy as np
import pytest

from lamcap.experiments.analysis import CellData, TransitionRow
from lamcap.experiments.figures import (
    finite_size,
    rank_capacity,
    scores,
    spectrum,
    storable_fraction,
)
from lamcap.experiments.mechanism import SolutionSample
from lamcap.experiments.sweep import Cell


def _cell_data(cell: Cell, ps: list[int], feasible: list[int], total: int) -> CellData:
    return CellData(
        cell=cell,
        p=np.array(ps),
        feasible=np.array(feasible),
        decided=np.full(len(ps), total),
        undecided=np.zeros(len(ps), dtype=int),
        mean_accuracy=np.ones(len(ps)),
    )


def _row(cell: Cell, p_c: float) -> TransitionRow:
    return TransitionRow(
        cell=cell,
        instances=40,
        undecided=0,
        p_c=p_c,
        low=0.95 * p_c,
        high=1.05 * p_c,
        bracketed=True,
        theory=p_c,
        finite_theory=p_c,
    )


def _sample(kappa: float) -> SolutionSample:
    rng = np.random.default_rng(0)
    return SolutionSample(
        d=6,
        kappa=kappa,
        p=12,
        method="auto",
        solved=4,
        feasible=3,
        singular_values=rng.uniform(0.2, 1.8, 18),
        target=rng.normal(1.2, 0.3, 36),
        competitors=rng.normal(0, 1, 400),
        hebbian_target=rng.normal(2, 1, 36),
        hebbian_competitors=rng.normal(0, 1, 400),
    )


def test_backend_is_headless() -> None:
    assert (
        mpl.get_backend().lower() in {"agg", "module://matplotlib_inline.backend_inline"}
        or "agg" in mpl.get_backend().lower()
    )


@pytest.mark.slow
def test_storable_fraction_panels_and_theory_curves(tmp_path: Path) -> None:
    cells = {
        Cell(6, 1.0, "decoupled", "auto"): _cell_data(
            Cell(6, 1.0, "decoupled", "auto"), [8, 12, 16, 20], [4, 4, 2, 0], 4
        ),
        Cell(6, 1.0, "original", "auto"): _cell_data(
            Cell(6, 1.0, "original", "auto"), [8, 12, 16, 20], [4, 3, 1, 0], 4
        ),
    }
    figure = storable_fraction.draw(cells, tmp_path)
    axes = figure.get_axes()
    assert [a.get_title() for a in axes] == [
        "decoupled problem, optimal W",
        "original problem, optimal W",
    ]
    for axis in axes:
        assert len(axis.containers) == 1  # one errorbar per d
        theory = [line for line in axis.get_lines() if len(line.get_xdata()) > 2]
        assert theory, "the Crofton curve is drawn"
        assert np.all(np.diff(theory[0].get_ydata()) <= 1e-12)  # decreasing in p
    first = (tmp_path / f"{storable_fraction.NAME}.png").read_bytes()
    storable_fraction.draw(cells, tmp_path)
    assert (tmp_path / f"{storable_fraction.NAME}.png").read_bytes() == first
    assert (tmp_path / f"{storable_fraction.NAME}.pdf").stat().st_size > 0


def test_rank_and_finite_size_figures(tmp_path: Path) -> None:
    rows = [
        _row(Cell(8, 1.0, "decoupled", "auto"), 22.2),
        _row(Cell(8, 1.0, "original", "auto"), 22.5),
        _row(Cell(8, 0.5, "decoupled", "auto"), 20.7),
    ]
    figure = rank_capacity.draw(rows, tmp_path)
    (axis,) = figure.get_axes()
    assert len(axis.containers) == 1
    asymptote = axis.get_lines()[0]
    assert asymptote.get_ydata()[-1] == pytest.approx(0.5)  # α_c(1) = 1/2
    figure = finite_size.draw(rows, tmp_path)
    (axis,) = figure.get_axes()
    assert len(axis.containers) == 2  # decoupled and original
    assert any(np.allclose(line.get_ydata(), 0.5) for line in axis.get_lines())
    for name in (rank_capacity.NAME, finite_size.NAME):
        assert (tmp_path / f"{name}.png").exists()
        assert (tmp_path / f"{name}.pdf").exists()


def test_spectrum_and_scores_figures(tmp_path: Path) -> None:
    figure = spectrum.draw([_sample(1.0), _sample(0.5)], tmp_path)
    axes = figure.get_axes()
    assert len(axes) == 2
    for axis in axes:
        assert len(axis.patches) == 30  # histogram bars
        assert len(axis.get_lines()) == 2  # learnt and initial densities
    assert "κ = 0.5" in axes[1].get_title()
    figure = scores.draw(_sample(1.0), tmp_path)
    left, right = figure.get_axes()
    assert len(left.get_lines()) == 2
    assert len(right.get_lines()) == 2
    assert (tmp_path / f"{scores.NAME}.pdf").exists()


def test_fourth_moment_ratio_of_the_quarter_circle() -> None:
    # independent: samples of the quarter circle by inverse transform of sqrt(4-s^2)
    rng = np.random.default_rng(1)
    s = rng.uniform(0, 2, 400000)
    keep = rng.uniform(0, 1, s.size) < np.sqrt(4 - s * s) / 2
    assert spectrum.fourth_moment_ratio(s[keep]) == pytest.approx(2.0, abs=0.02)

r"""The committed transition tables, regenerated from results databases.

Two CSV files under ``docs/measurements/`` hold every fitted transition lamcap
has measured; both are written by this module only, from the stored instances
of one or more results databases (:func:`lamcap.experiments._analysis.cell_data`,
each instance once), with the logistic fit of
:mod:`lamcap.experiments._fitting` (complementary log-log for the Hebbian rule,
:attr:`~lamcap.experiments.Cell.link`; :math:`p_c` where half the
instances are storable, 95% profile-likelihood interval):

* ``capacity.csv`` (:func:`capacity_csv`) — one row per cell,
  ``d,kappa,model,method,p_c,p_c_low,p_c_high,instances``;
* ``op_vs_dp.csv`` (:func:`op_vs_dp_csv`) — the full-rank certified cells
  (κ = 1, method ``auto``) at every ``d`` measured with both models,
  ``d,model,p_c,p_c_low,p_c_high,instances``.

``instances`` counts every stored instance of the cell, undecided ones
included (the fit leaves them out at full rank and counts them as failures
for κ < 1: :meth:`~lamcap.experiments._analysis.CellData.fit`).  Cells whose
data do not straddle one half (``bracketed`` false) have no measured
transition and are left out.  The output is deterministic: rows sorted by
(d, κ, model, method), κ printed with ``:g`` (six significant digits), p_c
and its bounds with three decimals (the fit's grid is 0.05% in p, so the third
decimal is below its resolution for p_c > 2; it is kept to make the file
reproducible byte for byte, not as a claim of precision).

The command line is ``lamcap results transitions`` (``--check`` compares
instead of writing).

Examples
--------
>>> import tempfile, pathlib
>>> from lamcap.experiments import run_sweep
>>> from lamcap.experiments import Sweep
>>> from lamcap.experiments import synthetic_trial
>>> from lamcap.experiments._analysis import cell_data
>>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
>>> sweep = Sweep(dims=(8,), p_grid=(8, 12, 16, 20, 24), seeds_per_point=6)
>>> _ = run_sweep(sweep, path, trial=synthetic_trial, workers=0)
>>> print(capacity_csv(cell_data(path)).splitlines()[0])
d,kappa,model,method,p_c,p_c_low,p_c_high,instances
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lamcap.experiments._analysis import CellData
from lamcap.experiments._fitting import TransitionFit
from lamcap.experiments._sweep import Cell

CAPACITY_COLUMNS = ("d", "kappa", "model", "method", "p_c", "p_c_low", "p_c_high", "instances")
"""Columns of ``docs/measurements/capacity.csv``."""

OP_VS_DP_COLUMNS = ("d", "model", "p_c", "p_c_low", "p_c_high", "instances")
"""Columns of ``docs/measurements/op_vs_dp.csv``."""


@dataclass(frozen=True)
class FittedCell:
    """The transition of one cell: its fit and the number of stored instances."""

    cell: Cell
    fit: TransitionFit
    instances: int

    def bounds(self) -> list[str]:
        """p_c, its 95% interval's low and high end, three decimals."""
        return [f"{value:.3f}" for value in (self.fit.p_c, self.fit.low, self.fit.high)]


def fitted_cells(cells: Mapping[Cell, CellData]) -> tuple[list[FittedCell], list[Cell]]:
    """Fit every cell once: (bracketed transitions sorted by d, κ, model, method; the others)."""
    fitted, unbracketed = [], []
    for cell in sorted(cells, key=lambda c: (c.d, c.kappa, c.model, c.method)):
        data = cells[cell]
        fit = data.fit()
        if fit is None or not fit.bracketed:
            unbracketed.append(cell)
            continue
        instances = int(data.decided.sum() + data.undecided.sum())
        fitted.append(FittedCell(cell, fit, instances))
    return fitted, unbracketed


def _csv(header: tuple[str, ...], rows: list[list[str]]) -> str:
    return "".join(",".join(row) + "\n" for row in [list(header), *rows])


def capacity_csv(cells: Mapping[Cell, CellData]) -> str:
    """Text of ``capacity.csv``: every bracketed transition of ``cells`` (see the module)."""
    fitted, _ = fitted_cells(cells)
    rows = [
        [
            str(f.cell.d),
            f"{f.cell.kappa:g}",
            f.cell.model,
            f.cell.method,
            *f.bounds(),
            str(f.instances),
        ]
        for f in fitted
    ]
    return _csv(CAPACITY_COLUMNS, rows)


def op_vs_dp_csv(cells: Mapping[Cell, CellData]) -> str:
    """Text of ``op_vs_dp.csv``: κ = 1, method ``auto``, each d with both models (see the module)."""
    full_rank = {c: data for c, data in cells.items() if c.kappa == 1.0 and c.method == "auto"}
    fitted, _ = fitted_cells(full_rank)
    models: dict[int, set[str]] = {}
    for f in fitted:
        models.setdefault(f.cell.d, set()).add(f.cell.model)
    rows = [
        [str(f.cell.d), f.cell.model, *f.bounds(), str(f.instances)]
        for f in fitted
        if models[f.cell.d] >= {"decoupled", "original"}
    ]
    return _csv(OP_VS_DP_COLUMNS, rows)


def compare_file(path: str | os.PathLike[str], text: str, *, context: int = 0) -> list[str]:
    """Unified-diff lines between the file at ``path`` and ``text`` (empty when equal).

    A missing file differs from any text (every line added).
    """
    target = Path(path)
    current = target.read_text(encoding="utf-8") if target.is_file() else ""
    if current == text:
        return []
    return list(
        difflib.unified_diff(
            current.splitlines(),
            text.splitlines(),
            fromfile=f"{target} (committed)",
            tofile=f"{target} (from the databases)",
            n=context,
            lineterm="",
        )
    )

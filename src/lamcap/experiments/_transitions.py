r"""The committed transition tables, regenerated from results databases.

Two CSV files under ``docs/measurements/`` hold every fitted transition lamcap
has measured; both are written by this module only, from the stored instances
of one or more results databases (:func:`lamcap.experiments._analysis.cell_data`,
each instance once), with the fit of
:meth:`~lamcap.experiments._analysis.CellData.transition` (the cell's
finite-size law moved along :math:`\log p`; :math:`p_c` where half the
instances are storable, 95% likelihood-ratio interval, coverage measured in
docs/measurements/capacity.md):

* ``capacity.csv`` (:func:`capacity_csv`) — one row per cell,
  ``d,kappa,model,method,p_c,p_c_low,p_c_high,instances,embeddings`` (``embeddings``:
  ``gaussian`` or ``sphere``, :func:`lamcap.make_instance`; the last column, so
  readers of the first eight are unchanged);
* ``op_vs_dp.csv`` (:func:`op_vs_dp_csv`) — the full-rank certified cells
  (κ = 1, method ``auto``) at every ``d`` measured with both models,
  ``d,model,p_c,p_c_low,p_c_high,instances,undecided``.

``instances`` in ``capacity.csv`` counts every stored instance of the cell,
undecided ones included (which ones the fit counts:
:meth:`~lamcap.experiments._analysis.CellData.counts`).  In ``op_vs_dp.csv``
(full rank, where the fit leaves undecided instances out) ``instances``
counts the decided instances, as ``op_vs_dp_ratio.csv`` does, and
``undecided`` the others.  Cells whose
data do not straddle one half (``bracketed`` false) have no measured
transition and are left out.  The output is deterministic: rows sorted by
(d, κ, model, method), κ printed with ``:g`` (six significant digits), p_c
and its bounds with three decimals (solved to :math:`10^{-6}` in
:math:`\log p`; the third decimal is kept to make the file reproducible byte
for byte, not as a claim of precision).

The command line is ``lamcap results transitions`` (``--check`` compares
instead of writing).

Examples
--------
>>> import tempfile, pathlib
>>> from lamcap.experiments import run_sweep
>>> from lamcap.experiments import Sweep
>>> from lamcap.experiments._trials import synthetic_trial
>>> from lamcap.experiments._analysis import cell_data
>>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite"
>>> sweep = Sweep(dims=(8,), p_grid=(8, 12, 16, 20, 24), seeds_per_point=6)
>>> _ = run_sweep(sweep, path, trial=synthetic_trial, workers=0)
>>> print(capacity_csv(cell_data(path)).splitlines()[0])
d,kappa,model,method,p_c,p_c_low,p_c_high,instances,embeddings
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
from lamcap.theory._cost_models import cost_model

CAPACITY_COLUMNS = (
    "d",
    "kappa",
    "model",
    "method",
    "p_c",
    "p_c_low",
    "p_c_high",
    "instances",
    "embeddings",
)
"""Columns of ``docs/measurements/capacity.csv``."""

OP_VS_DP_COLUMNS = ("d", "model", "p_c", "p_c_low", "p_c_high", "instances", "undecided")
"""Columns of ``docs/measurements/op_vs_dp.csv``."""


@dataclass(frozen=True)
class FittedCell:
    """The transition of one cell: its fit, its stored instances and how many are undecided."""

    cell: Cell
    fit: TransitionFit
    instances: int
    undecided: int = 0

    def bounds(self) -> list[str]:
        """p_c, its 95% interval's low and high end, three decimals."""
        return [f"{value:.3f}" for value in (self.fit.p_c, self.fit.low, self.fit.high)]


def fitted_cells(cells: Mapping[Cell, CellData]) -> tuple[list[FittedCell], list[Cell]]:
    """Fit every cell once: (bracketed transitions sorted by d, κ, model, method, embeddings; the others)."""
    fitted, unbracketed = [], []
    for cell in sorted(cells, key=lambda c: (c.d, c.kappa, c.model, c.method, c.embeddings)):
        data = cells[cell]
        fit = data.transition()
        if fit is None or not fit.bracketed:
            unbracketed.append(cell)
            continue
        undecided = int(data.undecided.sum())
        fitted.append(FittedCell(cell, fit, int(data.decided.sum()) + undecided, undecided))
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
            f.cell.embeddings,
        ]
        for f in fitted
    ]
    return _csv(CAPACITY_COLUMNS, rows)


def op_vs_dp_csv(cells: Mapping[Cell, CellData]) -> str:
    """Text of ``op_vs_dp.csv``: κ = 1, method ``auto``, Gaussian, each d with both models (see the module)."""
    full_rank = {
        c: data
        for c, data in cells.items()
        if c.kappa == 1.0 and c.method == "auto" and cost_model(c.embeddings).asymptotic_claims
    }
    fitted, _ = fitted_cells(full_rank)
    models: dict[int, set[str]] = {}
    for f in fitted:
        models.setdefault(f.cell.d, set()).add(f.cell.model)
    rows = [
        [
            str(f.cell.d),
            f.cell.model,
            *f.bounds(),
            str(f.instances - f.undecided),
            str(f.undecided),
        ]
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

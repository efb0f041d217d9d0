r"""Figure 1: fraction of storable instances vs load, DP / OP / Hebbian, with finite-size theory.

Points: measured fraction of instances whose associations can all be recalled
(95% Wilson intervals) against :math:`\alpha = p \log p / d^2`, one colour per
d.  Lines: the Crofton finite-size law ``feasibility_probability(d, p)``
(docs/theory/crofton.md) for the optimal solvers, and
``hebbian_recall(p, α, all_associations=True)`` (docs/theory/hebbian.md) for the Hebbian
rule.  Only full-rank (κ = 1) cells are drawn.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lamcap.experiments.analysis import CellData
from lamcap.experiments.figures._common import (
    OPTIMAL_METHODS,
    colour,
    load_of,
    new_figure,
    save,
    theory_or_none,
)
from lamcap.experiments.sweep import Cell

__all__ = ["NAME", "draw", "panels"]

NAME = "fig1_storable_fraction"

_PANELS = (
    ("decoupled", "optimal", "decoupled problem, optimal W"),
    ("original", "optimal", "original problem, optimal W"),
    ("decoupled", "hebbian", "decoupled problem, Hebbian W"),
)


def panels(cells: Mapping[Cell, CellData]) -> list[tuple[str, str, str]]:
    """The panels that have data, in the fixed order DP, OP, Hebbian."""
    result = []
    for model, kind, title in _PANELS:
        if any(_in_panel(cell, model, kind) for cell in cells):
            result.append((model, kind, title))
    return result


def _in_panel(cell: Cell, model: str, kind: str) -> bool:
    if cell.kappa != 1.0 or cell.model != model:
        return False
    return cell.method == "hebbian" if kind == "hebbian" else cell.method in OPTIMAL_METHODS


def _theory(d: int, p: np.ndarray, kind: str) -> Any:
    if kind == "hebbian":
        from lamcap import hebbian_recall  # noqa: PLC0415

        return np.array(
            [float(hebbian_recall(int(q), float(load_of(q, d)), all_associations=True)) for q in p]
        )
    return _crofton(d, tuple(int(q) for q in p))


@functools.lru_cache(maxsize=64)
def _crofton(d: int, p: tuple[int, ...]) -> np.ndarray:
    from lamcap import feasibility_probability  # noqa: PLC0415

    return np.asarray(feasibility_probability(d, np.array(p)), dtype=float)


def _hebbian_finite(d: int, p: np.ndarray) -> Any:
    from lamcap.theory.hebbian import hebbian_recall_finite  # noqa: PLC0415

    return np.array([float(hebbian_recall_finite(int(q), d, all_associations=True)) for q in p])


def _theory_grid(d: int, p: np.ndarray) -> np.ndarray:
    """Grid of the Crofton curve at ``d``: the same for every model (cached evaluations)."""
    centre = theory_or_none(lambda: _critical(d))
    if centre is None:
        return _grid(p)
    return _grid(np.array([0.6 * centre, 1.45 * centre]))


def _critical(d: int) -> float:
    from lamcap import critical_p  # noqa: PLC0415

    return float(critical_p(d))


def _grid(p: np.ndarray, points: int = 13) -> np.ndarray:
    """At most ``points`` integers spanning the measured p range, widened by 20%."""
    low, high = max(2, int(p.min() * 0.8)), int(p.max() * 1.2) + 2
    return np.unique(np.linspace(low, high, min(points, high - low + 1)).round().astype(int))


def draw(cells: Mapping[Cell, CellData], out: Path | None = None) -> Figure:
    """Draw figure 1 from aggregated cells; save PNG + PDF into ``out`` if given."""
    chosen = panels(cells) or [_PANELS[0]]
    figure, axes = new_figure(len(chosen))
    dims = sorted({cell.d for cell in cells})
    for axis, (model, kind, title) in zip(axes, chosen, strict=True):
        for cell, data in cells.items():
            if not _in_panel(cell, model, kind) or not (data.decided > 0).any():
                continue
            index = dims.index(cell.d)
            keep = data.decided > 0
            p = data.p[keep]
            fraction = data.fraction[keep]
            low, high = data.interval()
            axis.errorbar(
                load_of(p, cell.d),
                fraction,
                yerr=[np.maximum(fraction - low[keep], 0), np.maximum(high[keep] - fraction, 0)],
                fmt="o",
                ms=3,
                color=colour(index),
                label=f"d = {cell.d}",
                capsize=1.5,
                lw=0.8,
            )
            grid = _grid(p) if kind == "hebbian" else _theory_grid(cell.d, p)
            curve = theory_or_none(functools.partial(_theory, cell.d, grid, kind))
            if curve is not None:
                axis.plot(load_of(grid, cell.d), curve, color=colour(index), lw=1)
            if kind == "hebbian":
                exact = theory_or_none(functools.partial(_hebbian_finite, cell.d, grid))
                if exact is not None:
                    axis.plot(load_of(grid, cell.d), exact, color=colour(index), lw=1, ls=":")
        theory_label = "hebbian_recall (d→∞)" if kind == "hebbian" else "Crofton finite-size law"
        axis.plot([], [], color="k", lw=1, label=theory_label)
        if kind == "hebbian":
            axis.plot([], [], color="k", lw=1, ls=":", label="exact at this d")
        axis.set_title(title)
        axis.set_xlabel(r"load $\alpha = p\log p / d^2$")
        axis.set_ylim(-0.05, 1.05)
        axis.legend(
            loc="upper right" if kind == "hebbian" else "lower left", frameon=False, fontsize=7
        )
    axes[0].set_ylabel("fraction storable (all recalled)")
    if out is not None:
        save(figure, out, NAME)
    return figure

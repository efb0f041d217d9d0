r"""Figure 1: fraction of storable instances vs load, DP / OP / Hebbian, with finite-size theory.

Points: measured fraction of instances whose associations can all be recalled
(95% Wilson intervals) against :math:`\alpha = p \log p / d^2`, one colour per
d.  Lines, in the colour of their d; solid: the law at that d, the Crofton
finite-size law ``feasibility_probability(d, p)`` (docs/theory/crofton.md) for
the optimal solvers at up to 160 integers p across the transition, and for the
Hebbian rule the finite-d law ``hebbian_recall_finite`` (P₁ exact, P(all) the pair law, a model) (evaluated at 24
integers p, a quarter of a second each, joined by monotone cubic
interpolation; docs/theory/hebbian.md); dotted: the Hebbian d → ∞ law
``hebbian_recall(p, α, all_associations=True)`` at up to 160 integers p.  The
lines join values at whole numbers p, the only ones that exist; at d = 8 they
are a few hundredths of a load apart.  Grey dashed lines: the asymptotic
thresholds, α = 1/2 for optimal weights and α = 1/8 for the Hebbian rule to
recall every association.  One legend below the panels.  Only full-rank
(κ = 1) cells with Gaussian embeddings are drawn: unit-norm cells follow their own
law and are drawn, labelled, in figure 3.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from lamcap import critical_p, feasibility_probability, hebbian_recall
from lamcap.experiments._analysis import CellData
from lamcap.experiments._sweep import Cell
from lamcap.experiments.figures._common import (
    OPTIMAL_METHODS,
    integer_grid,
    load_of,
    theory_or_none,
)
from lamcap.experiments.figures._style import (
    PAGE_WIDTH,
    colour,
    legend,
    mark_asymptote,
    new_figure,
    paired_handle,
    save,
    styled,
)
from lamcap.theory._hebbian import hebbian_recall_finite

NAME = "fig1_storable_fraction"

_PANELS = (
    ("decoupled", "optimal", "decoupled problem, optimal W"),
    ("original", "optimal", "original problem, optimal W"),
    ("decoupled", "hebbian", "decoupled problem, Hebbian W"),
)
_EXACT_POINTS = 24  # hebbian_recall_finite costs ~0.25 s per p


def panels(cells: Mapping[Cell, CellData]) -> list[tuple[str, str, str]]:
    """The panels that have data, in the fixed order DP, OP, Hebbian."""
    result = []
    for model, kind, title in _PANELS:
        if any(_in_panel(cell, model, kind) for cell in cells):
            result.append((model, kind, title))
    return result


def _in_panel(cell: Cell, model: str, kind: str) -> bool:
    """Full rank, Gaussian embeddings (unit-norm cells have their own law: figure 3)."""
    if cell.kappa != 1.0 or cell.model != model or cell.embeddings != "gaussian":
        return False
    return cell.method == "hebbian" if kind == "hebbian" else cell.method in OPTIMAL_METHODS


@functools.lru_cache(maxsize=64)
def _crofton(d: int, p: tuple[int, ...]) -> np.ndarray:

    return np.asarray(feasibility_probability(d, np.array(p)), dtype=float)


def _hebbian_limit(d: int, p: np.ndarray) -> np.ndarray:

    return np.array(
        [float(hebbian_recall(int(q), float(load_of(q, d)), all_associations=True)) for q in p]
    )


@functools.lru_cache(maxsize=16)
def _hebbian_exact(d: int, low: int, high: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact finite-d law on a fine grid: 24 evaluations joined by monotone cubics."""
    from scipy.interpolate import PchipInterpolator  # noqa: PLC0415

    nodes = integer_grid(low, high, _EXACT_POINTS)
    values = np.array(
        [float(hebbian_recall_finite(int(q), d, all_associations=True, pairs=True)) for q in nodes]
    )
    fine = integer_grid(low, high)
    return fine, np.clip(PchipInterpolator(nodes, values)(fine), 0.0, 1.0)


def _critical(d: int) -> float:

    return float(critical_p(d))


def theory_grid(d: int, p: np.ndarray, kind: str) -> np.ndarray:
    """Integers p at which the theory of ``kind`` is drawn at ``d`` (fine, <= 160 points).

    Optimal solvers: from 0.55 to 1.5 times ``critical_p(d)``, widened to the
    measured p; Hebbian: the measured range widened by 20%.
    """
    low, high = 0.8 * float(p.min()), 1.2 * float(p.max()) + 2
    if kind != "hebbian":
        centre = theory_or_none(lambda: _critical(d))
        if centre is not None:
            low, high = min(low, 0.55 * centre), max(high, 1.5 * centre)
    return integer_grid(low, high)


def _draw_cell(axis: Any, cell: Cell, data: CellData, kind: str, index: int) -> tuple[Any, Any]:
    """Points and theory of one cell; returns (measured artist, theory line or None)."""
    keep = data.decided > 0
    p, fraction = data.p[keep], data.fraction[keep]
    low, high = data.interval()
    measured = axis.errorbar(
        load_of(p, cell.d),
        fraction,
        yerr=[np.maximum(fraction - low[keep], 0), np.maximum(high[keep] - fraction, 0)],
        fmt="o",
        color=colour(index),
        lw=0.8,
        zorder=3,
    )
    grid = theory_grid(cell.d, p, kind)
    if kind == "hebbian":
        curve = theory_or_none(functools.partial(_hebbian_limit, cell.d, grid))
        exact = theory_or_none(
            functools.partial(_hebbian_exact, cell.d, int(grid[0]), int(grid[-1]))
        )
        if curve is not None:
            axis.plot(load_of(grid, cell.d), curve, color=colour(index), ls=":")
        grid, curve = (grid, None) if exact is None else exact
    else:
        curve = theory_or_none(lambda: _crofton(cell.d, tuple(int(q) for q in grid)))
    line = None
    if curve is not None:
        (line,) = axis.plot(load_of(grid, cell.d), curve, color=colour(index))
    return measured, line


def _legend(figure: Figure, entries: dict[int, tuple[Any, Any]], hebbian: bool) -> None:
    """One legend below the panels: a colour per d (marker on its line), then line styles.

    The entries wrap onto as many rows as the figure's width needs (:func:`legend`).
    """
    handles: list[Any] = []
    labels: list[str] = []
    for d, (measured, line) in sorted(entries.items()):
        handles.append(measured if line is None else paired_handle(measured, line))
        labels.append(f"d = {d}")
    handles.append(Line2D([], [], color="0.3"))
    labels.append("law at that d" + (" (Crofton; Hebbian pair law)" if hebbian else " (Crofton)"))
    if hebbian:
        handles.append(Line2D([], [], color="0.3", ls=":"))
        labels.append("Hebbian law as d → ∞")
    title = "points: measured fraction with 95% interval; lines: theory, coloured by d"
    if figure.get_figwidth() < PAGE_WIDTH:  # one panel: the title on two lines
        title = title.replace("; ", ";\n")
    legend(figure, handles, labels, loc="outside lower center", ncols=len(handles), title=title)


@styled
def draw(cells: Mapping[Cell, CellData], out: Path | None = None) -> Figure:
    """Draw figure 1 from aggregated cells; save PNG + PDF into ``out`` if given."""
    chosen = panels(cells) or [_PANELS[0]]
    figure, axes = new_figure(len(chosen), height=2.9)
    dims = sorted({cell.d for cell in cells})
    entries: dict[int, tuple[Any, Any]] = {}
    for axis, (model, kind, title) in zip(axes, chosen, strict=True):
        for cell, data in cells.items():
            if _in_panel(cell, model, kind) and (data.decided > 0).any():
                drawn = _draw_cell(axis, cell, data, kind, dims.index(cell.d))
                if entries.get(cell.d, (None, None))[1] is None:
                    entries[cell.d] = drawn
        if kind == "hebbian":
            mark_asymptote(axis, 0.125, "1/8 (d → ∞)", vertical=True)
        else:
            mark_asymptote(axis, 0.5, "1/2 (d → ∞)", vertical=True)
        axis.set_title(title)
        axis.set_xlabel(r"load $\alpha = p\log p / d^2$")
        axis.set_ylim(-0.04, 1.04)
    axes[0].set_ylabel("fraction storable (all recalled)")
    _legend(figure, entries, any(kind == "hebbian" for _, kind, _ in chosen))
    if out is not None:
        save(figure, out, NAME)
    return figure

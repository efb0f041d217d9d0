r"""Figure 2: critical load vs rank ratio κ, asymptotic and finite-size, with measured points.

Lines: the asymptotic quarter-circle capacity ``capacity(κ)`` (docs/theory/rank.md)
and, for each measured d, the finite-size prediction
:math:`\alpha = p_c \log p_c / d^2` with ``p_c = critical_p(d, κ)`` at the
achievable ratios κ = m/d.  Points: measured α_c of the decoupled problem with
95% intervals (rank-constrained solver below κ = 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lamcap import capacity, critical_p
from lamcap.experiments._analysis import TransitionRow
from lamcap.experiments.figures._common import OPTIMAL_METHODS, load_of, theory_or_none
from lamcap.experiments.figures._style import (
    colour,
    legend,
    mark_asymptote,
    new_figure,
    paired_handle,
    save,
    styled,
)

NAME = "fig2_rank_capacity"


def _asymptote(kappa: np.ndarray) -> np.ndarray:

    return np.asarray(capacity(kappa), dtype=float)


def _finite(d: int) -> tuple[np.ndarray, np.ndarray]:

    ranks = np.unique(np.linspace(1, d, min(d, 48)).round().astype(int))
    kappa = ranks / d
    p_c = np.array([float(critical_p(d, kappa=k)) for k in kappa])
    return kappa, load_of(p_c, d)


@styled
def draw(rows: Sequence[TransitionRow], out: Path | None = None) -> Figure:
    """Draw figure 2 from fitted transitions; save PNG + PDF into ``out`` if given."""
    figure, (axis,) = new_figure(1)
    kappa = np.linspace(0.005, 1.0, 200)
    handles: list[Any] = []
    labels: list[str] = []
    asymptote = theory_or_none(lambda: _asymptote(kappa))
    if asymptote is not None:
        (line,) = axis.plot(kappa, asymptote, color="k")
        handles.append(line)
        labels.append(r"$\alpha_c(\kappa)$, $d\to\infty$")
    mark_asymptote(axis, 0.5, "1/2", position=0.62)
    chosen = [r for r in rows if r.cell.model == "decoupled" and r.cell.method in OPTIMAL_METHODS]
    dims = sorted({r.cell.d for r in chosen})
    for index, d in enumerate(dims):
        curve = theory_or_none(partial(_finite, d))
        theory = None
        if curve is not None:
            (theory,) = axis.plot(*curve, color=colour(index), lw=0.8, ls="--", marker=".", ms=2)
        points = [r for r in chosen if r.cell.d == d]
        x = np.array([r.cell.rank / r.cell.d for r in points])
        alpha = np.array([r.alpha for r in points]).reshape(-1, 3)
        measured = axis.errorbar(
            x,
            alpha[:, 0],
            yerr=[
                np.maximum(alpha[:, 0] - alpha[:, 1], 0),
                np.maximum(alpha[:, 2] - alpha[:, 0], 0),
            ],
            fmt="o",
            color=colour(index),
            zorder=3,
        )
        handles.append(measured if theory is None else paired_handle(measured, theory))
        labels.append(f"d = {d}")
    axis.set_xlabel(r"rank ratio $\kappa = m/d$")
    axis.set_ylabel(r"critical load $\alpha_c$")
    axis.set_xlim(0, 1.02)
    axis.set_ylim(0, 1.45 * axis.get_ylim()[1])  # room for the legend above the curves
    legend(
        axis,
        handles,
        labels,
        title="points: measured\ndashed: finite-size theory at d",
        loc="upper left",
        alignment="left",
    )
    if out is not None:
        save(figure, out, NAME)
    return figure

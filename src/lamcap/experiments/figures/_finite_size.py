r"""Figure 3: measured critical load α_c(d) vs d, approaching 1/2, with the finite-size prediction.

Points: measured :math:`\alpha_c(d) = p_c\log p_c/d^2` (full rank, decoupled
and original problems, Gaussian and unit-norm embeddings each with its own marker
and label, 95% intervals).  Lines: the finite-size threshold
``critical_p(d)`` (docs/theory/capacity.md), the median of the Crofton law
(§2 fact 5, at the measured d) and the asymptote 1/2: the approach is
logarithmic in p, so at these sizes α_c is far above 1/2 (§2 fact 6).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lamcap.experiments._analysis import TransitionRow
from lamcap.experiments.figures._common import OPTIMAL_METHODS, load_of, theory_or_none
from lamcap.experiments.figures._style import colour, mark_asymptote, new_figure, save, styled
from lamcap.theory._capacity import quiet_critical_p
from lamcap.theory._cost_models import COST_MODELS, GAUSSIAN

NAME = "fig3_finite_size"


def _prediction(dims: np.ndarray, embeddings: str = GAUSSIAN.name) -> np.ndarray:
    """The finite-size law's α_c at ``dims``: ``critical_p(d, embeddings=...)`` as a load.

    The curve runs beyond the measured range of d on purpose (the figure shows where the
    measurements are), so it is computed without the extrapolation warning.
    """
    p_c = np.asarray(quiet_critical_p(dims, embeddings=embeddings), dtype=float)
    return np.asarray(p_c * np.log(p_c) / dims.astype(float) ** 2, dtype=float)


@styled
def draw(rows: Sequence[TransitionRow], out: Path | None = None) -> Figure:
    """Draw figure 3 from fitted transitions; save PNG + PDF into ``out`` if given."""
    figure, (axis,) = new_figure(1)
    chosen = [r for r in rows if r.cell.kappa == 1.0 and r.cell.method in OPTIMAL_METHODS]
    largest = max([r.cell.d for r in chosen], default=64)
    dims = np.unique(np.geomspace(4, max(256, 2 * largest), 60).round().astype(int))
    prediction = theory_or_none(lambda: _prediction(dims))
    if prediction is not None:
        axis.plot(dims, prediction, color="k", label=r"finite-size law $p\,E[C_p] = w^2$")
    mark_asymptote(axis, 0.5, r"asymptote $1/2$ ($d\to\infty$)")
    series = [(m, e) for e in COST_MODELS for m in ("decoupled", "original")]
    for number, costs in enumerate(COST_MODELS.values()):
        if costs.asymptotic_claims or not any(r.cell.embeddings == costs.name for r in chosen):
            continue  # the reference law is drawn above; other laws where their points are
        other = theory_or_none(functools.partial(_prediction, dims, costs.name))
        if other is not None:
            axis.plot(
                dims,
                other,
                color=colour(2 * number),
                linestyle="-.",
                label=f"finite-size law, {costs.description}",
            )
    for index, (model, embeddings) in enumerate(series):
        points = sorted(
            (r for r in chosen if r.cell.model == model and r.cell.embeddings == embeddings),
            key=lambda r: r.cell.d,
        )
        if not points:
            continue
        d = np.array([r.cell.d for r in points], dtype=float)
        alpha = np.array([r.alpha for r in points]).reshape(-1, 3)
        shift = 1.0 + 0.02 * index  # keep the series' error bars apart
        costs = COST_MODELS[embeddings]
        label = f"measured, {model}" + ("" if costs.asymptotic_claims else f", {costs.description}")
        axis.errorbar(
            d * shift,
            alpha[:, 0],
            yerr=[
                np.maximum(alpha[:, 0] - alpha[:, 1], 0),
                np.maximum(alpha[:, 2] - alpha[:, 0], 0),
            ],
            fmt="os^vDP<>"[index % 8],
            color=colour(index),
            zorder=3,
            label=label,
        )
        crofton = [
            load_of(r.finite_theory, r.cell.d) for r in points if np.isfinite(r.finite_theory)
        ]
        if index == 0 and len(crofton) == len(points):
            axis.plot(d, crofton, "x", color="k", ms=4, label="Crofton median at measured d")
    axis.set_xscale("log")
    axis.set_xlabel("dimension d")
    axis.set_ylabel(r"critical load $\alpha_c(d)$")
    top = max([1.25, *(float(r.alpha[2]) for r in chosen if np.isfinite(r.alpha[2]))])
    axis.set_ylim(0.4, 0.4 + 1.6 * (top - 0.4))  # the upper part holds the legend
    axis.legend(loc="upper right", fontsize="small")
    if out is not None:
        save(figure, out, NAME)
    return figure

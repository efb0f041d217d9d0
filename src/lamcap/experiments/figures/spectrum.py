r"""Figure 4: singular values of solutions vs the theoretical densities.

Histogram: singular values of feasible solutions near capacity in Frobenius
units (mean square 1), pooled over seeds, one panel per κ (cross-entropy
training ``adam_ce`` at full rank, the two-layer trainer below; the legend
names the method and the measured fourth-moment ratio
:math:`E[s^4]/E[s^2]^2` next to the law's).  Lines, on 400 points:
``singular_value_density(s, κ)`` of the learnt weights (the top κ-fraction of
the quarter circle, docs/theory/mechanism.md) and the law at initialisation
(``law="gaussian"`` at κ = 1, ``law="product"`` for :math:`QR^\top` with
Gaussian factors below: both trainers start from Gaussian entries,
``lamcap.solvers.baselines`` and ``lamcap.solvers.two_layer``).

At κ = 1 the two laws are one curve, and the figure says so: the full-rank
trainer starts from a matrix with i.i.d. Gaussian entries, whose singular
values follow the quarter circle, and the learnt law is the top κ-fraction of
the same quarter circle, which at κ = 1 is all of it (the threshold
:math:`s_\kappa` is 0).  At full rank the spectrum's shape therefore does not
tell learnt weights from initial ones; the κ < 1 panel does.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from lamcap.experiments.figures._common import theory_or_none
from lamcap.experiments.figures.style import colour, new_figure, save, styled
from lamcap.experiments.mechanism import SolutionSample

__all__ = ["NAME", "draw", "fourth_moment_ratio"]

NAME = "fig4_spectrum"


def fourth_moment_ratio(values: np.ndarray) -> float:
    """:math:`E[s^4]/E[s^2]^2` of a sample (NaN if empty)."""
    if values.size == 0:
        return float("nan")
    return float(np.mean(values**4) / np.mean(values**2) ** 2)


def _density(s: np.ndarray, kappa: float, law: str) -> np.ndarray:
    from lamcap import singular_value_density  # noqa: PLC0415

    return np.asarray(singular_value_density(s, kappa, law=law), dtype=float)


def _law_ratio(kappa: float) -> float:
    from lamcap.theory.spectrum import singular_value_moment  # noqa: PLC0415

    return float(singular_value_moment(4, kappa) / singular_value_moment(2, kappa) ** 2)


def _histogram_label(sample: SolutionSample, values: np.ndarray) -> str:
    measured = fourth_moment_ratio(values)
    law = theory_or_none(partial(_law_ratio, sample.kappa))
    ratio = f"E[s⁴]/E[s²]² = {measured:.2f}"
    if law is not None:
        ratio += f" (law {law:.2f})"
    method = sample.method
    if method == "auto":  # what lamcap.solve picks: the LP at full rank, else the trainer
        method += " (cutting plane)" if sample.kappa == 1.0 else " (two-layer trainer)"
    return f"{method} W, {sample.feasible} of {sample.solved} feasible\n{ratio}"


def _draw_panel(axis: Any, sample: SolutionSample) -> None:
    values = sample.singular_values
    if values.size:
        axis.hist(
            values,
            bins=30,
            density=True,
            color=colour(0),
            alpha=0.45,
            label=_histogram_label(sample, values),
        )
    grid = np.linspace(0.0, max(2.5, float(values.max()) if values.size else 2.5), 400)
    learnt = theory_or_none(partial(_density, grid, sample.kappa, "optimum"))
    initial_law = "gaussian" if sample.kappa == 1.0 else "product"
    initial = theory_or_none(partial(_density, grid, sample.kappa, initial_law))
    if learnt is not None and initial is not None and np.allclose(learnt, initial):
        # κ = 1: the Gaussian start and the learnt law are the same quarter circle
        axis.plot(
            grid,
            learnt,
            color="k",
            label="learnt law = law of the Gaussian\nstart: quarter circle at κ = 1",
        )
    else:
        if learnt is not None:
            axis.plot(grid, learnt, color="k", label="learnt law (top-κ quarter circle)")
        if initial is not None:
            axis.plot(grid, initial, color=colour(1), ls="--", label="initial law (Gaussian Q, R)")
    top = max([1.0] + [float(np.max(line.get_ydata())) for line in axis.get_lines()])
    top = max(top, max((patch.get_height() for patch in axis.patches), default=0.0))
    axis.set_ylim(0, 1.6 * top)  # room for the legend above the data
    axis.set_title(f"κ = {sample.kappa:g}   (d = {sample.d}, p = {sample.p})")
    axis.set_xlabel("singular value (Frobenius units)")
    axis.legend(loc="upper right")


@styled
def draw(samples: Sequence[SolutionSample], out: Path | None = None) -> Figure:
    """Draw figure 4 (one panel per sample); save PNG + PDF into ``out`` if given."""
    figure, axes = new_figure(max(1, len(samples)), height=2.7)
    for axis, sample in zip(axes, samples, strict=False):
        _draw_panel(axis, sample)
    axes[0].set_ylabel("density")
    if out is not None:
        save(figure, out, NAME)
    return figure

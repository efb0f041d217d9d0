r"""Figure 4: singular values of solutions vs the theoretical densities.

Histogram: singular values of feasible solutions near capacity in Frobenius
units (mean square 1), pooled over seeds, one panel per κ (cross-entropy
training ``adam_ce`` at full rank, the two-layer trainer below; the legend
names the method).  Lines:
``singular_value_density(s, κ)`` of the learnt weights (truncated quarter
circle, docs/theory/mechanism.md) and the law at initialisation (Gaussian W at κ = 1,
:math:`QR^\top` with Gaussian factors below).  The panel title gives the
measured fourth moment ratio :math:`E[s^4]/E[s^2]^2` (quarter circle: 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lamcap.experiments.figures._common import new_figure, save, theory_or_none
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


def draw(samples: Sequence[SolutionSample], out: Path | None = None) -> Figure:
    """Draw figure 4 (one panel per sample); save PNG + PDF into ``out`` if given."""
    figure, axes = new_figure(max(1, len(samples)))
    for axis, sample in zip(axes, samples, strict=False):
        values = sample.singular_values
        if values.size:
            axis.hist(
                values,
                bins=30,
                density=True,
                color="C0",
                alpha=0.5,
                label=f"{sample.method} W ({sample.feasible} of {sample.solved})",
            )
        grid = np.linspace(0.0, max(2.5, float(values.max()) if values.size else 2.5), 400)
        learnt = theory_or_none(partial(_density, grid, sample.kappa, "optimum"))
        if learnt is not None:
            axis.plot(grid, learnt, color="k", lw=1.2, label="quarter circle (learnt)")
        initial_law = "gaussian" if sample.kappa == 1.0 else "product"
        initial = theory_or_none(partial(_density, grid, sample.kappa, initial_law))
        if initial is not None:
            axis.plot(grid, initial, color="C3", lw=1, ls="--", label="initialisation")
        ratio = fourth_moment_ratio(values)
        axis.set_title(
            f"d = {sample.d}, κ = {sample.kappa:g}, p = {sample.p}; E[s⁴]/E[s²]² = {ratio:.2f}"
        )
        axis.set_xlabel("singular value (Frobenius units)")
        axis.legend(loc="upper right", frameon=False, fontsize=7)
    axes[0].set_ylabel("density")
    if out is not None:
        save(figure, out, NAME)
    return figure

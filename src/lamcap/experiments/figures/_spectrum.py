r"""Figure 4: singular values of solutions vs the theoretical densities.

Histogram: singular values of storing matrices near capacity in Frobenius
units (mean square 1), pooled over seeds, one panel per sample (the
max-margin W at full rank, the two-layer trainer below; the legend names the
matrix and its measured fourth-moment ratio :math:`E[s^4]/E[s^2]^2`).

For the max-margin W the prediction at the measured size is the finite-size
law (docs/theory/spectrum-finite-size.md): its fourth-moment ratio
``singular_value_moment(4, 1, d=d, p=p)``, the prediction the spectrum claim of
``lamcap reproduce`` tests, is printed next to the measured one, and its
density ``singular_value_density(s, 1, d=d, p=p)`` is drawn as a line (the
density is the law's deterministic equivalent, without the moment's
:math:`1/d` terms).  The quarter circle and its ratio 2 are the d → ∞
asymptote, drawn grey and dashed and labelled as such; only the trend across
d can test it.

For the other matrices lamcap has no finite-size law.  Lines, on 400 points:
``singular_value_density(s, κ)`` of the learnt weights (the top κ-fraction of
the quarter circle, docs/theory/mechanism.md; its ratio in the legend is the
d → ∞ value) and the law at initialisation (``family="gaussian"`` at κ = 1,
``family="product"`` for :math:`QR^\top` with Gaussian factors below: both
trainers start from Gaussian entries, ``lamcap.solvers._baselines`` and
``lamcap.solvers._two_layer``).

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

from lamcap import singular_value_density
from lamcap.experiments._claims import asymptotic_ratio, spectrum_prediction
from lamcap.experiments._mechanism import SolutionSample
from lamcap.experiments.figures._common import theory_or_none
from lamcap.experiments.figures._style import ASYMPTOTE, colour, new_figure, save, styled

NAME = "fig4_spectrum"


def fourth_moment_ratio(values: np.ndarray) -> float:
    """:math:`E[s^4]/E[s^2]^2` of a sample (NaN if empty)."""
    if values.size == 0:
        return float("nan")
    return float(np.mean(values**4) / np.mean(values**2) ** 2)


def _density(s: np.ndarray, kappa: float, family: str) -> np.ndarray:

    return np.asarray(singular_value_density(s, kappa, family=family), dtype=float)


def _finite_size(sample: SolutionSample) -> tuple[float, float] | None:
    """The finite-size ratio of the max-margin W at the sample's (d, p), if lamcap has one."""
    if sample.method != "max_margin":
        return None
    return spectrum_prediction(sample.kappa, sample.d, sample.p)


def _histogram_label(sample: SolutionSample, values: np.ndarray) -> str:
    measured = f"E[s⁴]/E[s²]² = {fourth_moment_ratio(values):.2f} measured"
    finite = _finite_size(sample)
    if finite is not None:
        measured += f",\n{finite[0]:.2f} finite-size law at d = {sample.d}, p = {sample.p}"
    return f"{sample.label}, {sample.feasible} of {sample.solved} storing\n{measured}"


def _finite_density(s: np.ndarray, sample: SolutionSample) -> np.ndarray:

    return np.asarray(singular_value_density(s, 1.0, d=sample.d, p=sample.p), dtype=float)


def _draw_finite_size(axis: Any, grid: np.ndarray, sample: SolutionSample) -> None:
    """Finite-size density at the measured (d, p), then the quarter circle as the d → ∞ asymptote."""
    finite = theory_or_none(partial(_finite_density, grid, sample))
    if finite is not None:
        axis.plot(
            grid, finite, color="k", label=f"finite-size density, d = {sample.d}, p = {sample.p}"
        )
    asymptote = theory_or_none(partial(_density, grid, 1.0, "optimum"))
    if asymptote is not None:
        axis.plot(
            grid,
            asymptote,
            **ASYMPTOTE,
            label=f"d → ∞ asymptote: quarter circle,\nE[s⁴]/E[s²]² = {asymptotic_ratio(1.0):.2f}",
        )


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
    if _finite_size(sample) is not None:
        _draw_finite_size(axis, grid, sample)
    else:
        _draw_asymptotic(axis, grid, sample)
    top = max([1.0] + [float(np.max(line.get_ydata())) for line in axis.get_lines()])
    top = max(top, max((patch.get_height() for patch in axis.patches), default=0.0))
    axis.set_ylim(0, 1.6 * top)  # room for the legend above the data
    axis.set_title(f"κ = {sample.kappa:g}   (d = {sample.d}, p = {sample.p})")
    axis.set_xlabel("singular value (Frobenius units)")
    axis.legend(loc="upper right")


def _draw_asymptotic(axis: Any, grid: np.ndarray, sample: SolutionSample) -> None:
    """The d → ∞ laws of a matrix without a finite-size law: learnt and initial."""
    ratio = theory_or_none(partial(asymptotic_ratio, sample.kappa))
    learnt_ratio = "" if ratio is None else f"\nE[s⁴]/E[s²]² = {ratio:.2f} (d → ∞)"
    learnt = theory_or_none(partial(_density, grid, sample.kappa, "optimum"))
    initial_law = "gaussian" if sample.kappa == 1.0 else "product"
    initial = theory_or_none(partial(_density, grid, sample.kappa, initial_law))
    if learnt is not None and initial is not None and np.allclose(learnt, initial):
        # κ = 1: the Gaussian start and the learnt law are the same quarter circle
        axis.plot(
            grid,
            learnt,
            color="k",
            label="d → ∞ learnt law = law of the Gaussian\nstart: quarter circle at κ = 1"
            + learnt_ratio,
        )
    else:
        if learnt is not None:
            axis.plot(
                grid,
                learnt,
                color="k",
                label="d → ∞ learnt law (top-κ quarter circle)" + learnt_ratio,
            )
        if initial is not None:
            axis.plot(grid, initial, color=colour(1), ls="--", label="initial law (Gaussian Q, R)")


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

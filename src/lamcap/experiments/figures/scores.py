r"""Figure 5: normalised score histograms at capacity, optimal vs Hebbian, with the laws.

Scores are divided by the competitor spread :math:`\|We_\mu\|/\sqrt d`
(docs/theory/mechanism.md).  Left: a solution near capacity; the theoretical law is
:math:`\Pi_K(g)`, :math:`g \sim N(0, I_p)` (Monte Carlo with
:func:`lamcap.project_onto_cone`): the target sits at the common level just
above the competitors' extreme values.  Right: the Hebbian matrix of the same
instances, with ``hebbian_score_law(p, α, d=d)`` (target Gaussian with the
finite-d moments, competitors N(0, 1)).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lamcap.experiments.figures._common import load_of, theory_or_none
from lamcap.experiments.figures.style import colour, new_figure, save, styled
from lamcap.experiments.mechanism import SolutionSample

__all__ = ["NAME", "cone_projection_sample", "draw"]

NAME = "fig5_scores"


def cone_projection_sample(p: int, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Target and competitor coordinates of :math:`\\Pi_K(g)`, ``count`` draws of g."""
    from lamcap import project_onto_cone  # noqa: PLC0415

    g = np.random.default_rng(seed).standard_normal((count, p))
    projected, _ = project_onto_cone(g, target=0)
    return projected[:, 0], projected[:, 1:].ravel()


def _normal_pdf(x: np.ndarray, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    z = (x - mean) / std
    return np.asarray(np.exp(-0.5 * z * z) / (np.sqrt(2 * np.pi) * std), dtype=float)


@styled
def draw(sample: SolutionSample, out: Path | None = None) -> Figure:
    """Draw figure 5 from one pooled sample; save PNG + PDF into ``out`` if given."""
    figure, (left, right) = new_figure(2, height=2.6)
    bins = np.linspace(-4.5, 8.0, 70)
    centres = 0.5 * (bins[1:] + bins[:-1])
    theory_target, theory_competitors = cone_projection_sample(sample.p, 20000)
    for axis, target, competitors, title in (
        (left, sample.target, sample.competitors, "solution near capacity"),
        (right, sample.hebbian_target, sample.hebbian_competitors, "Hebbian"),
    ):
        if competitors.size:
            axis.hist(
                competitors,
                bins=bins,
                density=True,
                color=colour(0),
                alpha=0.45,
                label="competitors",
            )
        if target.size:
            weight = np.full(target.size, 1.0 / (target.size * (bins[1] - bins[0])))
            axis.hist(
                target, bins=bins, weights=weight, color=colour(1), alpha=0.55, label="target"
            )
        axis.set_title(f"{title}   (d = {sample.d}, p = {sample.p})")
        axis.set_xlabel("normalised score")
    for values, style, label in (
        (theory_competitors, "-", r"$\Pi_K(g)$ competitors"),
        (theory_target, "--", r"$\Pi_K(g)$ target"),
    ):
        density, _ = np.histogram(values, bins=bins, density=True)
        left.plot(centres, density, color="k", ls=style, label=label)
    right.plot(centres, _normal_pdf(centres), color="k", label="N(0, 1)")
    law = theory_or_none(lambda: _hebbian_law(sample))
    if law is not None:
        right.plot(centres, law.target_pdf(centres), color="k", ls="--", label="Hebbian target law")
    for axis in (left, right):
        axis.legend(loc="upper right")
    left.set_ylabel("density")
    if out is not None:
        save(figure, out, NAME)
    return figure


def _hebbian_law(sample: SolutionSample) -> object:
    from lamcap import hebbian_score_law  # noqa: PLC0415

    return hebbian_score_law(sample.p, float(load_of(sample.p, sample.d)), d=sample.d)

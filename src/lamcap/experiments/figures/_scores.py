r"""Figure 5: normalised score histograms at capacity, optimal vs Hebbian, with the laws.

Scores are divided by the competitor spread :math:`\|We_\mu\|/\sqrt d`
(docs/theory/mechanism.md).  Left: the max-margin W near capacity; the
theoretical law is :math:`\Pi_{K_m}(g)`, :math:`g \sim N(0, I_p)`, at the
margin the score claim of ``lamcap reproduce`` uses,
:math:`m =` :func:`lamcap.experiments._claims.score_margin` ``(d, p)`` =
``max_margin(p/d², p)`` (0 for any other matrix: the law at capacity); the
legend prints it.  The target's density is the exact
``score_law(p, margin=m).target.pdf``, the competitors' a Monte Carlo of the
projection (:func:`lamcap.project_onto_cone` with ``margin=m``, 20 000 draws):
the target sits at the common level, :math:`m` above the active competitors.  Right: the Hebbian matrix of the same
instances, with ``hebbian_score_law(p, α, d=d)`` (target Gaussian with the
finite-d moments, competitors N(0, 1)).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from lamcap import hebbian_score_law, project_onto_cone, score_law
from lamcap.experiments._claims import score_margin
from lamcap.experiments._mechanism import SolutionSample
from lamcap.experiments.figures._common import load_of, theory_or_none
from lamcap.experiments.figures._style import colour, new_figure, save, styled

NAME = "fig5_scores"


def cone_projection_sample(
    p: int, count: int, seed: int = 0, *, margin: float = 0.0
) -> tuple[np.ndarray, np.ndarray]:
    """Target and competitor coordinates of :math:`\\Pi_{K_m}(g)`, ``count`` draws of g."""

    g = np.random.default_rng(seed).standard_normal((count, p))
    projected, _ = project_onto_cone(g, target=0, margin=margin)
    return projected[:, 0], projected[:, 1:].ravel()


def theory_margin(sample: SolutionSample) -> float:
    """The margin m of the score law drawn over ``sample`` (module docstring)."""
    if sample.method != "max_margin":
        return 0.0
    return score_margin(sample.d, sample.p)


def _target_pdf(p: int, margin: float, x: np.ndarray) -> np.ndarray:

    return np.asarray(score_law(p, margin=margin).target.pdf(x), dtype=float)


def _normal_pdf(x: np.ndarray, mean: float = 0.0, std: float = 1.0) -> np.ndarray:
    z = (x - mean) / std
    return np.asarray(np.exp(-0.5 * z * z) / (np.sqrt(2 * np.pi) * std), dtype=float)


@styled
def draw(sample: SolutionSample, out: Path | None = None) -> Figure:
    """Draw figure 5 from one pooled sample; save PNG + PDF into ``out`` if given."""
    figure, (left, right) = new_figure(2, height=2.6)
    bins = np.linspace(-4.5, 8.0, 70)
    centres = 0.5 * (bins[1:] + bins[:-1])
    margin = theory_margin(sample)
    _, theory_competitors = cone_projection_sample(sample.p, 20000, margin=margin)
    for axis, target, competitors, title in (
        (left, sample.target, sample.competitors, sample.label),
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
    density, _ = np.histogram(theory_competitors, bins=bins, density=True)
    left.plot(centres, density, color="k", label=r"$\Pi_{K_m}(g)$ competitors")
    target_density = theory_or_none(partial(_target_pdf, sample.p, margin, centres))
    if target_density is not None:
        left.plot(centres, target_density, color="k", ls="--", label=r"$\Pi_{K_m}(g)$ target")
    right.plot(centres, _normal_pdf(centres), color="k", label="N(0, 1)")
    hebbian = theory_or_none(lambda: _hebbian_law(sample))
    if hebbian is not None:
        right.plot(
            centres, hebbian.target.pdf(centres), color="k", ls="--", label="Hebbian target law"
        )
    left.legend(loc="upper left", title=f"law at m = {margin:.3f}")
    right.legend(loc="upper right")
    left.set_ylabel("density")
    if out is not None:
        save(figure, out, NAME)
    return figure


def _hebbian_law(sample: SolutionSample) -> object:

    return hebbian_score_law(sample.p, float(load_of(sample.p, sample.d)), d=sample.d)

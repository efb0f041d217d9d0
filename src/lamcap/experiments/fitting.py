r"""Locating a transition from binary outcomes: logistic fit with a profile-likelihood interval.

Model: at ``p`` associations an instance is storable with probability

.. math::

    P(\text{feasible} \mid p) = \sigma\bigl(\beta\,(\mu - \log p)\bigr),
    \qquad \sigma(z) = 1/(1 + e^{-z}),\ \beta \ge 0,

so that :math:`p_c = e^{\mu}` is where half the instances are storable.
:math:`(\mu, \beta)` are fitted by maximum likelihood (binomial counts per
``p``).  The 95% confidence interval of :math:`p_c` is the profile-likelihood
interval :math:`\{\mu : 2[\ell(\hat\mu,\hat\beta) - \max_\beta \ell(\mu, \beta)]
\le \chi^2_{1,0.95} = 3.841\}`, which stays finite and sensible when the data
are (quasi-)separated, unlike a Wald interval.  To keep the fit defined under
complete separation, :math:`\beta` is capped at ``slope_max`` (default 400 in
units of 1/log p, i.e. a transition narrower than 0.25% of p); the interval then
spans the gap between the largest all-feasible and the smallest all-infeasible
``p``.  The optimisation is a dense grid search (0.05% steps in p), exact to
that resolution (coarser when the interval is very wide: at most ~2000 points).

Examples
--------
>>> fit = fit_transition([10, 20, 30, 40], [10, 8, 2, 0], [10, 10, 10, 10])
>>> bool(20 < fit.p_c < 30), bool(fit.low < fit.p_c < fit.high)
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["CHI2_95", "TransitionFit", "fit_transition", "wilson_interval"]

CHI2_95 = 3.841458820694124
"""95% quantile of the chi-square law with one degree of freedom."""


@dataclass(frozen=True)
class TransitionFit:
    """Fitted transition: p_c with its 95% interval and the logistic slope."""

    p_c: float
    low: float
    high: float
    slope: float
    bracketed: bool
    instances: int

    def quantile(self, probability: float) -> float:
        """The p at which the fitted storable fraction equals ``probability``."""
        if self.slope <= 0:
            return self.p_c
        return self.p_c * math.exp(-math.log(probability / (1 - probability)) / self.slope)


def _log_sigmoid(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return -np.logaddexp(0.0, -z)


def _profile(
    x: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    mus: NDArray[np.float64],
    slopes: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Max over slopes of the log-likelihood for each mu; also the argmax slope."""
    z = slopes[:, None, None] * (mus[None, :, None] - x[None, None, :])
    loglik = (k * _log_sigmoid(z) + (m - k) * _log_sigmoid(-z)).sum(axis=2)
    best = loglik.argmax(axis=0)
    return loglik[best, np.arange(mus.size)], slopes[best]


def fit_transition(
    p: ArrayLike, feasible: ArrayLike, total: ArrayLike, *, slope_max: float = 400.0
) -> TransitionFit:
    """Fit the storable fraction vs p and return p_c with a 95% interval.

    Parameters
    ----------
    p : numbers of associations (one entry per distinct p).
    feasible : number of storable instances at each p.
    total : number of decided instances at each p (undecided ones excluded).
    slope_max : cap on the logistic slope in units of 1/log p.

    Returns
    -------
    TransitionFit
        ``bracketed`` is False when the data do not straddle 1/2 (all storable
        or none): ``p_c`` is then pinned to the edge of the explored range.
    """
    x = np.log(np.asarray(p, dtype=np.float64))
    k = np.asarray(feasible, dtype=np.float64)
    m = np.asarray(total, dtype=np.float64)
    keep = m > 0
    x, k, m = x[keep], k[keep], m[keep]
    if x.size == 0:
        msg = "fit_transition needs at least one decided instance"
        raise ValueError(msg)
    order = np.argsort(x)
    x, k, m = x[order], k[order], m[order]
    fraction = k / m
    bracketed = bool(fraction.max() >= 0.5 >= fraction.min() and fraction.max() > fraction.min())
    span = 0.5
    step = 5e-4
    slopes = np.geomspace(0.5, slope_max, 160)
    coarse = np.arange(x[0] - span, x[-1] + span + step, 20 * step)
    profile, _ = _profile(x, k, m, coarse, slopes)
    best = profile.max()
    inside = coarse[profile >= best - CHI2_95 / 2 - 1.0]
    step = max(step, (inside.max() - inside.min()) / 2000)  # at most ~2000 fine points
    mus = np.arange(inside.min() - 20 * step, inside.max() + 20 * step, step)
    profile, best_slopes = _profile(x, k, m, mus, slopes)
    top = np.flatnonzero(profile >= profile.max() - 1e-9)
    centre = top[top.size // 2]
    accepted = mus[profile >= profile.max() - CHI2_95 / 2]
    return TransitionFit(
        p_c=float(np.exp(mus[centre])),
        low=float(np.exp(accepted.min())),
        high=float(np.exp(accepted.max())),
        slope=float(best_slopes[centre]),
        bracketed=bracketed,
        instances=int(m.sum()),
    )


def wilson_interval(
    successes: ArrayLike, total: ArrayLike, z: float = 1.959963984540054
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Wilson score interval (95% by default) for binomial proportions.

    .. math::

        \frac{\hat f + z^2/2n \pm z\sqrt{\hat f(1-\hat f)/n + z^2/4n^2}}{1 + z^2/n}

    Examples
    --------
    >>> low, high = wilson_interval(5, 10)
    >>> f"{float(low):.4f} {float(high):.4f}"
    '0.2366 0.7634'
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(total, dtype=np.float64)
    f = k / n
    denominator = 1 + z * z / n
    centre = (f + z * z / (2 * n)) / denominator
    half = z * np.sqrt(f * (1 - f) / n + z * z / (4 * n * n)) / denominator
    return centre - half, centre + half

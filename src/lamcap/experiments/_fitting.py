r"""Locating a transition from binary outcomes: logistic fit with a profile-likelihood interval.

Model: at ``p`` associations an instance is storable with probability

.. math::

    P(\text{feasible} \mid p) = \sigma\bigl(\beta\,(\mu - \log p)\bigr),
    \qquad \sigma(z) = 1/(1 + e^{-z}),\ \beta \ge 0,

so that :math:`p_c = e^{\mu}` is where half the instances are storable.
:math:`(\mu, \beta)` are fitted by maximum likelihood (binomial counts per
``p``).  ``link="cloglog"`` replaces the logistic curve by the complementary
log-log (Poisson) shape with the same meaning of :math:`\mu` and :math:`\beta`,

.. math::

    P(\text{feasible} \mid p) = \exp\bigl(-\log 2\; e^{\beta(\log p - \mu)}\bigr),

the shape of "every one of ``n`` weakly dependent events succeeds",
:math:`P \approx e^{-n(1 - P_1)}` with :math:`n(1 - P_1)` a power of ``p``
near the transition: the Hebbian all-recalled curve
(docs/measurements/capacity.md).  The logistic curve is symmetric about
:math:`p_c` in :math:`\log p`, this one is not; fitted to data of the other
shape, each misplaces :math:`p_c` by an amount that depends on where the p
points lie (Hebbian rule, d = 16, 32, 64, at the design of the committed
sweep, against a Monte Carlo of the true curve: the logistic fit's median lies
1.4–2.4% below its 50% point and its 95% interval covers it 86–88% of the
time; the complementary log-log fit's lies 0.3–0.6% above, covering 94–95%).

The 95% confidence interval of :math:`p_c` is the profile-likelihood
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

CHI2_95 = 3.841458820694124
"""95% quantile of the chi-square law with one degree of freedom."""


@dataclass(frozen=True)
class TransitionFit:
    """Fitted transition: p_c with its 95% interval, the slope and the link of the curve."""

    p_c: float
    low: float
    high: float
    slope: float
    bracketed: bool
    instances: int
    link: str = "logistic"

    def quantile(self, probability: float) -> float:
        """The p at which the fitted storable fraction equals ``probability``."""
        if self.slope <= 0:
            return self.p_c
        if self.link == "cloglog":
            return self.p_c * math.exp(math.log(-math.log(probability) / _LOG2) / self.slope)
        return self.p_c * math.exp(-math.log(probability / (1 - probability)) / self.slope)


LINKS = ("logistic", "cloglog")
"""Shapes of the transition curve :func:`fit_transition` can fit (module docstring)."""

_LOG2 = math.log(2.0)
_EXP_LIMIT = 700.0  # exp(700) ~ 1e304: log P of the cloglog curve stays finite
_SMALL_HAZARD = 1e-8  # below it log(1 - e^-h) by its series (error h^2/24 < 1e-17)
_SLOPE_REFINEMENT = 20  # cloglog: local slope grid 20x finer than the global one


def _log_link(z: NDArray[np.float64], link: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r""":math:`\log P` and :math:`\log(1 - P)` at :math:`z = \beta(\mu - \log p)`, without cancellation."""
    if link == "cloglog":
        log_hazard = math.log(_LOG2) + np.minimum(-z, _EXP_LIMIT)  # log(-log P)
        hazard = np.exp(log_hazard)
        small = hazard < _SMALL_HAZARD  # log(1 - e^-h) = log h - h/2 + O(h^2)
        log_no = np.where(
            small,
            log_hazard - 0.5 * hazard,
            np.log(-np.expm1(-np.maximum(hazard, _SMALL_HAZARD))),
        )
        return -hazard, log_no
    return _log_sigmoid(z), _log_sigmoid(-z)


def _log_sigmoid(z: NDArray[np.float64]) -> NDArray[np.float64]:
    return -np.logaddexp(0.0, -z)


def _profile(
    x: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    mus: NDArray[np.float64],
    slopes: NDArray[np.float64],
    link: str = "logistic",
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Max over slopes of the log-likelihood for each mu; also the argmax slope.

    The logistic curve is symmetric about its centre, so a slope between two grid
    values barely moves the best mu; the cloglog curve is not (a 2% slope error
    moves its 50% point by about 0.25% in p), so its maximum is searched again on
    a grid 20 times finer around the best grid slope of each mu, and refined by
    the vertex of the parabola through the best point and its two neighbours.
    """
    loglik = _loglik(x, k, m, mus, slopes[:, None], link)
    best = loglik.argmax(axis=0)
    columns = np.arange(mus.size)
    if link == "logistic" or slopes.size < 2:
        return loglik[best, columns], slopes[best]
    step = math.log(slopes[1] / slopes[0]) / _SLOPE_REFINEMENT
    offsets = np.arange(-_SLOPE_REFINEMENT, _SLOPE_REFINEMENT + 1) * step
    local = np.clip(slopes[best][None, :] * np.exp(offsets)[:, None], slopes[0], slopes[-1])
    loglik = _loglik(x, k, m, mus, local, link)
    best = np.clip(loglik.argmax(axis=0), 1, offsets.size - 2)
    left, centre, right = (loglik[best + shift, columns] for shift in (-1, 0, 1))
    curvature = left - 2.0 * centre + right
    with np.errstate(invalid="ignore", divide="ignore"):
        vertex = np.where(curvature < 0, 0.5 * (left - right) / curvature, 0.0)
    vertex = np.clip(np.nan_to_num(vertex), -1.0, 1.0)
    refined = np.clip(local[best, columns] * np.exp(step * vertex), slopes[0], slopes[-1])
    return centre - 0.25 * (left - right) * vertex, refined


def _loglik(
    x: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    mus: NDArray[np.float64],
    slopes: NDArray[np.float64],
    link: str,
) -> NDArray[np.float64]:
    """Log-likelihood at every (slope row, mu); ``slopes`` is (rows, 1) or (rows, len(mus))."""
    z = slopes[:, :, None] * (mus[None, :, None] - x[None, None, :])
    log_yes, log_no = _log_link(z, link)
    return np.asarray((k * log_yes + (m - k) * log_no).sum(axis=2))


def _prepared(
    p: ArrayLike, feasible: ArrayLike, total: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """log p, feasible and decided counts, sorted by p, cells without instances dropped."""
    x = np.log(np.asarray(p, dtype=np.float64))
    k = np.asarray(feasible, dtype=np.float64)
    m = np.asarray(total, dtype=np.float64)
    keep = m > 0
    x, k, m = x[keep], k[keep], m[keep]
    if x.size == 0:
        msg = "fit_transition needs at least one decided instance"
        raise ValueError(msg)
    order = np.argsort(x)
    return x[order], k[order], m[order]


_SPAN = 0.5
_STEP = 5e-4
_SLOPES_PER_DECADE = 160


def _slopes(slope_max: float) -> NDArray[np.float64]:
    return np.geomspace(0.5, slope_max, _SLOPES_PER_DECADE)


def _plausible_range(
    x: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    slopes: NDArray[np.float64],
    cutoff: float = CHI2_95,
    link: str = "logistic",
) -> tuple[float, float]:
    """Range of mu whose coarse profile is within ``cutoff``/2 (plus one unit) of the best."""
    coarse = np.arange(x[0] - _SPAN, x[-1] + _SPAN + _STEP, 20 * _STEP)
    profile, _ = _profile(x, k, m, coarse, slopes, link)
    inside = coarse[profile >= profile.max() - cutoff / 2 - 1.0]
    return float(inside.min()), float(inside.max())


def fit_transition(
    p: ArrayLike,
    feasible: ArrayLike,
    total: ArrayLike,
    *,
    slope_max: float = 400.0,
    link: str = "logistic",
) -> TransitionFit:
    """Fit the storable fraction vs p and return p_c with a 95% interval.

    Parameters
    ----------
    p : numbers of associations (one entry per distinct p).
    feasible : number of storable instances at each p.
    total : number of decided instances at each p (undecided ones excluded).
    slope_max : cap on the logistic slope in units of 1/log p.
    link : ``"logistic"`` or ``"cloglog"``, the shape of the curve (module docstring).

    Returns
    -------
    TransitionFit
        ``bracketed`` is False when the data do not straddle 1/2 (all storable
        or none): ``p_c`` is then pinned to the edge of the explored range.
    """
    if link not in LINKS:
        msg = f"link must be one of {LINKS}, got {link!r}"
        raise ValueError(msg)
    x, k, m = _prepared(p, feasible, total)
    fraction = k / m
    bracketed = bool(fraction.max() >= 0.5 >= fraction.min() and fraction.max() > fraction.min())
    slopes = _slopes(slope_max)
    low, high = _plausible_range(x, k, m, slopes, link=link)
    step = max(_STEP, (high - low) / 2000)  # at most ~2000 fine points
    mus = np.arange(low - 20 * step, high + 20 * step, step)
    profile, best_slopes = _profile(x, k, m, mus, slopes, link)
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
        link=link,
    )


@dataclass(frozen=True)
class RatioFit:
    """Ratio of two transitions, p_c(numerator) / p_c(denominator), with its 95% interval."""

    ratio: float
    low: float
    high: float
    numerator: TransitionFit
    denominator: TransitionFit


def ratio_profile(
    numerator: tuple[ArrayLike, ArrayLike, ArrayLike],
    denominator: tuple[ArrayLike, ArrayLike, ArrayLike],
    *,
    slope_max: float = 400.0,
    cutoff: float = CHI2_95,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Profile log-likelihood of the log-ratio of two independent logistic transitions.

    .. math::

        \ell(\delta) = \max_{\mu}\bigl[\ell_2(\mu) + \ell_1(\mu + \delta)\bigr],
        \qquad \ell_i(\mu) = \max_{\beta}\ell_i(\mu, \beta),

    :math:`\delta = \mu_1 - \mu_2 = \log(p_{c,1}/p_{c,2})`, on a grid of
    :math:`5\cdot 10^{-4}` in :math:`\log p` (coarser when the plausible
    ranges are very wide).  The grid covers every :math:`\delta` with
    :math:`2[\max\ell - \ell(\delta)] \le` ``cutoff``; beyond it
    :math:`\ell` is not computed.  Returns ``(deltas, loglik)``; see
    :func:`fit_transition_ratio`.

    Examples
    --------
    >>> one = ([10, 20, 30, 40], [10, 8, 2, 0], [10, 10, 10, 10])
    >>> two = ([20, 40, 60, 80], [10, 8, 2, 0], [10, 10, 10, 10])
    >>> deltas, loglik = ratio_profile(two, one)
    >>> round(float(np.exp(deltas[np.argmax(loglik)])), 2)
    2.0
    """
    slopes = _slopes(slope_max)
    data = [_prepared(*numerator), _prepared(*denominator)]
    ranges = [_plausible_range(*item, slopes, cutoff) for item in data]
    step = max(_STEP, max(high - low for low, high in ranges) / 2000)
    grids = [
        np.arange(np.floor(low / step) - 20, np.ceil(high / step) + 21) * step
        for low, high in ranges
    ]
    profiles = [_profile(*item, grid, slopes)[0] for item, grid in zip(data, grids, strict=True)]
    # l(delta) for delta = mu1 - mu2 on the common grid: every pair (i, j) at once.
    pair = profiles[0][:, None] + profiles[1][None, :]
    offsets = np.rint((grids[0][:, None] - grids[1][None, :]) / step).astype(np.int64)
    lowest = offsets.min()
    best = np.full(offsets.max() - lowest + 1, -np.inf)
    np.maximum.at(best, (offsets - lowest).ravel(), pair.ravel())
    return (np.arange(best.size) + lowest) * step, best


def fit_transition_ratio(
    numerator: tuple[ArrayLike, ArrayLike, ArrayLike],
    denominator: tuple[ArrayLike, ArrayLike, ArrayLike],
    *,
    slope_max: float = 400.0,
    cutoff: float = CHI2_95,
) -> RatioFit:
    r"""Ratio of two independent transitions with a joint profile-likelihood interval.

    Each data set ``(p, feasible, total)`` follows its own logistic model
    (:func:`fit_transition`), with location :math:`\mu_1` (numerator) and
    :math:`\mu_2` (denominator) and free slopes.  The log-ratio
    :math:`\delta = \mu_1 - \mu_2 = \log(p_{c,1}/p_{c,2})` is profiled
    (:func:`ratio_profile`) and the interval is :math:`\{\delta :
    2[\max\ell - \ell(\delta)] \le c\}` with ``cutoff`` :math:`c`: by
    default :math:`\chi^2_{1,0.95}` (95% asymptotically), on a grid of
    :math:`5\cdot 10^{-4}` in :math:`\log p` (the ratio's resolution is
    0.05%).  With a few instances per point the :math:`\chi^2` cutoff can be
    too small; :func:`lamcap.experiments.calibrated_cutoff`
    gives one from a parametric bootstrap.

    Examples
    --------
    >>> one = ([10, 20, 30, 40], [10, 8, 2, 0], [10, 10, 10, 10])
    >>> two = ([20, 40, 60, 80], [10, 8, 2, 0], [10, 10, 10, 10])
    >>> fit = fit_transition_ratio(two, one)
    >>> round(fit.ratio, 2), bool(fit.low < 2 < fit.high)
    (2.0, True)
    """
    deltas, best = ratio_profile(numerator, denominator, slope_max=slope_max, cutoff=cutoff)
    top = np.flatnonzero(best >= best.max() - 1e-9)
    accepted = deltas[best >= best.max() - cutoff / 2]
    return RatioFit(
        ratio=float(np.exp(deltas[top[top.size // 2]])),
        low=float(np.exp(accepted.min())),
        high=float(np.exp(accepted.max())),
        numerator=fit_transition(*numerator, slope_max=slope_max),
        denominator=fit_transition(*denominator, slope_max=slope_max),
    )


@dataclass(frozen=True)
class Trend:
    r"""Weighted straight-line fit :math:`y = c + a\,x` and its extrapolation to :math:`x = 0`.

    Attributes
    ----------
    intercept, intercept_error : float
        :math:`c` and its standard error (scaled by :attr:`scale`).
    slope, slope_error : float
    chi2 : float
        :math:`\sum_i (y_i - c - a x_i)^2/\sigma_i^2` at the fit.
    dof : int
        Points minus fitted parameters.
    scale : float
        :math:`\max(1, \sqrt{\chi^2/\mathrm{dof}})`: errors are inflated by it when
        the scatter exceeds the stated uncertainties (Birge ratio).
    """

    intercept: float
    intercept_error: float
    slope: float
    slope_error: float
    chi2: float
    dof: int
    scale: float

    def intercept_interval(self, z: float = 1.959963984540054) -> tuple[float, float]:
        """Two-sided interval of the intercept (95% by default, normal quantile)."""
        return self.intercept - z * self.intercept_error, self.intercept + z * self.intercept_error

    @property
    def p_value(self) -> float:
        """Goodness of fit: :math:`P(\\chi^2_{\\mathrm{dof}} \\ge \\chi^2)` (NaN without dof)."""
        if self.dof <= 0:
            return math.nan
        from scipy.stats import chi2  # noqa: PLC0415  (keep the module import-light)

        return float(chi2.sf(self.chi2, self.dof))


def fit_trend(x: ArrayLike, y: ArrayLike, sigma: ArrayLike, *, intercept: bool = True) -> Trend:
    r"""Weighted least squares :math:`y = c + a x` with weights :math:`1/\sigma^2`.

    Used to extrapolate a finite-size quantity to :math:`d \to \infty`
    (``x = 1/d`` or ``x = 1/\log p``): the intercept :math:`c` is the
    extrapolated value.  With ``intercept=False`` the line is forced through
    the origin (:math:`c = 0`: the quantity reaches its asymptotic value like
    :math:`x`), and :attr:`Trend.p_value` then tests that law.  Standard errors
    come from the inverse normal matrix, multiplied by the Birge ratio
    :math:`\sqrt{\chi^2/\mathrm{dof}}` when it exceeds one.

    Examples
    --------
    >>> trend = fit_trend([0.5, 0.25, 0.125], [2.0, 1.5, 1.25], [0.1, 0.1, 0.1])
    >>> round(trend.intercept, 6), round(trend.slope, 6)
    (1.0, 2.0)
    >>> round(fit_trend([0.5, 0.25], [1.0, 0.5], [0.1, 0.1], intercept=False).slope, 12)
    2.0
    """
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    sig = np.asarray(sigma, dtype=np.float64)
    parameters = 2 if intercept else 1
    if not (xs.shape == ys.shape == sig.shape) or xs.ndim != 1 or xs.size < parameters:
        msg = (
            f"x, y and sigma must be 1-d arrays of one length >= {parameters}, "
            f"got shapes {xs.shape}, {ys.shape}, {sig.shape}"
        )
        raise ValueError(msg)
    if not (np.all(np.isfinite(sig)) and np.all(sig > 0)):
        msg = "sigma must be finite and > 0"
        raise ValueError(msg)
    weights = 1.0 / sig**2
    columns = [np.ones_like(xs), xs] if intercept else [xs]
    design = np.stack(columns, axis=1)
    normal = design.T @ (weights[:, None] * design)
    covariance = np.linalg.inv(normal)
    coefficients = covariance @ (design.T @ (weights * ys))
    residual = ys - design @ coefficients
    chi2 = float(np.sum(weights * residual**2))
    dof = xs.size - parameters
    scale = max(1.0, math.sqrt(chi2 / dof)) if dof > 0 else 1.0
    errors = scale * np.sqrt(np.diag(covariance))
    return Trend(
        intercept=float(coefficients[0]) if intercept else 0.0,
        intercept_error=float(errors[0]) if intercept else 0.0,
        slope=float(coefficients[-1]),
        slope_error=float(errors[-1]),
        chi2=chi2,
        dof=dof,
        scale=scale,
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

r"""Original (OP) against decoupled (DP) problem: transition ratios and how they approach 1.

The two problems differ in their outputs only: in the *decoupled* problem (DP)
every association :math:`\mu` sees its own fresh outputs :math:`u^{(\mu)}_\rho`;
in the *original* problem (OP) all associations share one output matrix
:math:`U`.  arXiv:2605.10795 predicts the same capacity for both as
:math:`d, p \to \infty`; at the sizes a user can run OP stores a few percent
more (docs/measurements/op_vs_dp.md).  This module turns that into numbers:

* :func:`model_ratios` — for each ``d`` measured with both models, the ratio
  :math:`r(d) = p_c^{OP}(d)/p_c^{DP}(d)` with the joint profile-likelihood
  interval of :func:`~lamcap.experiments.fit_transition_ratio`, its
  cutoff optionally calibrated by a parametric bootstrap at the measured design
  (:func:`calibrated_cutoff`: with a few dozen instances per point the
  :math:`\chi^2` cutoff can cover less than 95%);
* :func:`ratio_trend` — a weighted straight-line fit of :math:`\log r` against
  :math:`x = 1/d` or :math:`x = 1/\log p_c(d)`, whose intercept is the
  extrapolated :math:`\log r(\infty)` with its interval (the asymptotic claim
  :math:`r(\infty) = 1` is then judged by whether 0 lies inside);
* :func:`ratio_power_law` — :math:`\log r = A\,d^{-b}` (ratio tending to 1 as a
  power of ``d``), fitted by weighted non-linear least squares.

The standard error of :math:`\log r` used as a weight is the half-width of its
95% interval divided by 1.96 (the profile interval is close to symmetric in
:math:`\log r` once each transition is bracketed).

Examples
--------
>>> from lamcap.experiments._sweep import Cell
>>> ratio = ModelRatio(Cell(16, 1.0, "original", "auto"), 1.04, 1.02, 1.06, 200)
>>> round(ratio.log_error, 4)
0.0098
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lamcap import critical_p
from lamcap._deprecation import renamed_keywords
from lamcap.experiments._analysis import CellData
from lamcap.experiments._fitting import (
    CHI2_95,
    Trend,
    fit_transition,
    fit_transition_ratio,
    fit_trend,
    ratio_profile,
)
from lamcap.experiments._shift import finite_size_law, shift_fit
from lamcap.experiments._sweep import Cell

_Z95 = 1.959963984540054


@dataclass(frozen=True)
class ModelRatio:
    """:math:`p_c^{OP}/p_c^{DP}` at one ``d`` (``cell`` is the OP cell) with its 95% interval.

    ``cutoff``: the likelihood-ratio cutoff of the interval (:math:`\\chi^2_{1,0.95}`
    unless calibrated by :func:`calibrated_cutoff`).
    """

    cell: Cell
    ratio: float
    low: float
    high: float
    instances: int
    cutoff: float = CHI2_95

    @property
    def log_error(self) -> float:
        """Standard error of :math:`\\log r`: half the 95% interval in log, over 1.96."""
        return (math.log(self.high) - math.log(self.low)) / (2 * _Z95)


def _counts(data: CellData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = data.decided > 0
    return data.p[keep], data.feasible[keep], data.decided[keep]


def model_ratios(
    cells: Mapping[Cell, CellData],
    *,
    numerator: str = "original",
    denominator: str = "decoupled",
    draws: int = 0,
    seed: int = 0,
) -> list[ModelRatio]:
    """Transition ratio ``numerator``/``denominator`` for every (d, κ, method) measured with both.

    Parameters
    ----------
    cells : mapping
        From :func:`lamcap.experiments._analysis.cell_data` (several databases can
        be merged into one mapping).
    numerator, denominator : str
        Model names (default OP over DP).
    draws : int
        0: the :math:`\\chi^2` profile-likelihood interval of
        :func:`~lamcap.experiments.fit_transition_ratio`.  Otherwise the
        interval's cutoff is calibrated by a parametric bootstrap of ``draws``
        redraws per generating law (:func:`calibrated_cutoff`; full-rank cells).
    seed : int
        Seed of the redraws (with ``d``, so every size has its own stream).

    Returns
    -------
    list of ModelRatio
        Sorted by ``d``; full-rank cells only count decided instances.
    """
    ratios = []
    for cell, data in sorted(cells.items(), key=lambda item: (item[0].d, item[0].kappa)):
        if cell.model != numerator:
            continue
        partner = cells.get(Cell(cell.d, cell.kappa, denominator, cell.method, cell.embeddings))
        if partner is None or data.decided.sum() == 0 or partner.decided.sum() == 0:
            continue
        cutoff = CHI2_95
        if draws > 0:
            cutoff = calibrated_cutoff(data, partner, draws=draws, seed=seed)
        fit = fit_transition_ratio(_counts(data), _counts(partner), cutoff=cutoff)
        instances = int(data.decided.sum() + partner.decided.sum())
        ratios.append(ModelRatio(cell, fit.ratio, fit.low, fit.high, instances, cutoff))
    return ratios


# -- calibration of the ratio interval by a parametric bootstrap -------------------------------

_STATISTIC_RANGE = 30.0  # ratio_statistics computes T exactly up to this value

GENERATING_LAWS = ("logistic", "crofton")
"""Transition laws the ratio interval is calibrated under (:func:`generating_law`)."""


def generating_law(
    law: str, numerator: CellData, denominator: CellData
) -> tuple[list[NDArray[np.float64]], float]:
    r"""P(storable) at every design point of the two cells under a fitted law, and its log ratio.

    * ``"logistic"`` — each cell's fitted logistic transition
      (:func:`~lamcap.experiments.fit_transition`: :math:`p_c` and slope),
      the model the interval assumes;
    * ``"crofton"`` — the decoupled Crofton law ``feasibility_probability(d, p, κ)``
      (docs/theory/crofton.md) moved along :math:`\log p` to each cell's
      transition (:func:`~lamcap.experiments._shift.shift_fit`): the finite-size
      shape, which the interval does not assume.

    Returns the probabilities at ``counts()[0]`` of each cell (numerator first)
    and the true :math:`\log(p_c^{num}/p_c^{den})` of the law.
    """
    designs = [numerator.counts()[0].astype(np.float64), denominator.counts()[0].astype(np.float64)]
    if law == "logistic":
        from scipy import special  # noqa: PLC0415

        fits = [fit_transition(*data.counts()) for data in (numerator, denominator)]
        probabilities = [
            np.asarray(special.expit(fit.slope * (math.log(fit.p_c) - np.log(points))))
            for fit, points in zip(fits, designs, strict=True)
        ]
        return probabilities, math.log(fits[0].p_c / fits[1].p_c)
    if law == "crofton":
        cell = denominator.cell
        crofton = finite_size_law(cell.d, cell.kappa, embeddings=cell.embeddings)
        shifts = [
            shift_fit(*data.counts(), crofton, draws=0).delta for data in (numerator, denominator)
        ]
        probabilities = [
            crofton(points * math.exp(-shift))
            for shift, points in zip(shifts, designs, strict=True)
        ]
        return probabilities, shifts[0] - shifts[1]
    msg = f"law must be one of {GENERATING_LAWS}, got {law!r}"
    raise ValueError(msg)


def ratio_statistics(
    numerator: CellData,
    denominator: CellData,
    law: str,
    *,
    draws: int,
    seed: int = 0,
) -> NDArray[np.float64]:
    r"""Profile likelihood-ratio statistics at the true log ratio, counts redrawn from ``law``.

    Keeps the design (the p values and the number of counted instances at
    each), redraws the storable counts from :func:`generating_law`, and
    returns :math:`T = 2[\max\ell - \ell(\delta_{\text{true}})]` of
    :func:`~lamcap.experiments._fitting.ratio_profile` (linear interpolation on
    its grid) for each redraw.  The :math:`\chi^2` interval covers the truth
    exactly when :math:`T \le 3.841`.  Values are exact up to 30; beyond, the
    profile is not computed and :math:`T` is a lower bound.
    """
    probabilities, truth = generating_law(law, numerator, denominator)
    designs = [numerator.counts(), denominator.counts()]
    rng = np.random.default_rng([seed, numerator.cell.d, GENERATING_LAWS.index(law)])
    statistics = np.empty(draws)
    for index in range(draws):
        redrawn = [
            (p, rng.binomial(total, probability), total)
            for (p, _, total), probability in zip(designs, probabilities, strict=True)
        ]
        deltas, loglik = ratio_profile(redrawn[0], redrawn[1], cutoff=_STATISTIC_RANGE)
        statistics[index] = 2.0 * (loglik.max() - np.interp(truth, deltas, loglik))
    return statistics


@renamed_keywords(level="coverage")
def calibrated_cutoff(
    numerator: CellData,
    denominator: CellData,
    *,
    draws: int = 400,
    seed: int = 0,
    coverage: float = 0.95,
) -> float:
    r"""Likelihood-ratio cutoff that gives the ratio interval its nominal coverage.

    The ``coverage`` quantile of :func:`ratio_statistics` under each of
    :data:`GENERATING_LAWS` (``draws`` redraws each), the larger of the two,
    and never below :math:`\chi^2_{1,\text{coverage}}` (``level=`` is the
    deprecated name of ``coverage``):

    .. math::

        c = \max\bigl(\chi^2_{1,0.95},\ q_{0.95}(T \mid \text{logistic}),\
            q_{0.95}(T \mid \text{Crofton})\bigr).

    With a few dozen instances per transition the :math:`\chi^2` cutoff 3.84
    covers the true ratio less often than 95% (docs/measurements/op_vs_dp.md
    measures by how much); the calibrated interval
    :math:`\{\delta : 2[\max\ell - \ell(\delta)] \le c\}` covers it at the
    nominal level under both laws, to the Monte Carlo error of the quantile.
    """
    from scipy.stats import chi2  # noqa: PLC0415

    quantiles = [
        float(
            np.quantile(
                ratio_statistics(numerator, denominator, law, draws=draws, seed=seed), coverage
            )
        )
        for law in GENERATING_LAWS
    ]
    return max(float(chi2.ppf(coverage, 1)), *quantiles)


def trend_variable(d: Iterable[int], variable: str) -> np.ndarray:
    r"""The abscissa of a finite-size trend: :math:`1/d` or :math:`1/\log p_c(d)`.

    ``p_c(d)`` is :func:`lamcap.critical_p` (the prediction, so the abscissa has
    no sampling noise).
    """
    ds = np.asarray(list(d), dtype=np.float64)
    if variable == "1/d":
        return 1.0 / ds
    if variable == "1/log p":
        return 1.0 / np.log(np.asarray(critical_p(ds.astype(np.int64)), dtype=np.float64))
    msg = f"variable must be '1/d' or '1/log p', got {variable!r}"
    raise ValueError(msg)


def ratio_trend(
    ratios: Sequence[ModelRatio], variable: str = "1/d", *, through_one: bool = False
) -> Trend:
    r"""Fit :math:`\log r(d) = c + a\,x(d)`; :math:`e^{c}` is the extrapolated ratio at d → ∞.

    With ``through_one`` the fit is :math:`\log r = a\,x` (the ratio reaching 1
    like :math:`x`), and the trend's ``p_value`` tests that law against the data.

    Examples
    --------
    >>> from lamcap.experiments._sweep import Cell
    >>> rows = [ModelRatio(Cell(d, 1.0, "original", "auto"), math.exp(0.5 / d),
    ...         math.exp(0.5 / d - 0.01), math.exp(0.5 / d + 0.01), 100) for d in (8, 16, 32)]
    >>> trend = ratio_trend(rows, "1/d")
    >>> round(trend.intercept, 9), round(trend.slope, 9)
    (0.0, 0.5)
    """
    if len(ratios) < 2:
        msg = f"ratio_trend needs at least 2 sizes, got {len(ratios)}"
        raise ValueError(msg)
    x = trend_variable([r.cell.d for r in ratios], variable)
    y = np.log([r.ratio for r in ratios])
    sigma = np.array([r.log_error for r in ratios])
    return fit_trend(x, y, sigma, intercept=not through_one)


def constant_ratio(ratios: Sequence[ModelRatio]) -> Trend:
    r"""Fit :math:`\log r(d) = a`, one ratio at every size (``slope`` is :math:`a`).

    The weighted mean of :math:`\log r`; ``p_value`` tests whether the sizes
    agree with one constant ratio.

    Examples
    --------
    >>> from lamcap.experiments._sweep import Cell
    >>> rows = [ModelRatio(Cell(d, 1.0, "original", "auto"), 1.04, 1.03, 1.05, 100)
    ...         for d in (8, 16)]
    >>> round(math.exp(constant_ratio(rows).slope), 6)
    1.04
    """
    if not ratios:
        msg = "constant_ratio needs at least 1 size, got 0"
        raise ValueError(msg)
    ones = np.ones(len(ratios))
    logs = np.log([r.ratio for r in ratios])
    return fit_trend(ones, logs, [r.log_error for r in ratios], intercept=False)


@dataclass(frozen=True)
class PowerLaw:
    r""":math:`\log r = A\,d^{-b}` with standard errors (Birge-scaled) and the fit's :math:`\chi^2`."""

    amplitude: float
    amplitude_error: float
    exponent: float
    exponent_error: float
    chi2: float
    dof: int


def ratio_power_law(ratios: Sequence[ModelRatio]) -> PowerLaw:
    r"""Weighted non-linear fit of :math:`\log r(d) = A\,d^{-b}` (the ratio tends to 1).

    Uses :func:`scipy.optimize.curve_fit` with the standard errors of
    :math:`\log r` as absolute sigmas; errors are inflated by the Birge ratio
    when :math:`\chi^2/\mathrm{dof} > 1`.
    """
    from scipy.optimize import curve_fit  # noqa: PLC0415

    if len(ratios) < 3:
        msg = f"ratio_power_law needs at least 3 sizes, got {len(ratios)}"
        raise ValueError(msg)
    d = np.array([r.cell.d for r in ratios], dtype=np.float64)
    y = np.log([r.ratio for r in ratios])
    sigma = np.array([r.log_error for r in ratios])

    def model(x: np.ndarray, amplitude: float, exponent: float) -> np.ndarray:
        return amplitude * x ** (-exponent)

    start = (float(np.average(y * d**0.5, weights=sigma**-2)), 0.5)
    parameters, covariance = curve_fit(model, d, y, p0=start, sigma=sigma, absolute_sigma=True)
    residual = (y - model(d, *parameters)) / sigma
    chi2 = float(residual @ residual)
    dof = d.size - 2
    scale = max(1.0, math.sqrt(chi2 / dof)) if dof > 0 else 1.0
    errors = scale * np.sqrt(np.diag(covariance))
    return PowerLaw(
        amplitude=float(parameters[0]),
        amplitude_error=float(errors[0]),
        exponent=float(parameters[1]),
        exponent_error=float(errors[1]),
        chi2=chi2,
        dof=dof,
    )

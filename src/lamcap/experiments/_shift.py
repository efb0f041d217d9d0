r"""Where a measured transition sits relative to a finite-size law: a shift in log p.

A finite-size law gives the whole transition curve :math:`F(p)`, the
probability that an instance with ``p`` associations is storable (Crofton,
Hebbian).  Keeping its shape and moving it along :math:`\log p`,

.. math::

    P(\text{storable} \mid p) = F(p\,e^{-\delta}),

:math:`\delta = \log(p_c^{\text{measured}}/p_c^{\text{law}})` is the relative
shift of the 50% point.  With binomial counts :math:`k_i` of :math:`m_i`
instances at :math:`p_i`, the log-likelihood is

.. math::

    \ell(\delta) = \sum_i k_i \log F(p_i e^{-\delta})
                 + (m_i - k_i) \log\bigl(1 - F(p_i e^{-\delta})\bigr).

:func:`shift_fit` maximises it on a grid of step 0.002 (0.2% in p) and
returns the 95% likelihood-ratio interval
:math:`\{\delta : 2[\ell(\hat\delta) - \ell(\delta)] \le \chi^2_{1,0.95}\}` and
the test of :math:`\delta = 0` (the law as it is): the statistic
:math:`\Lambda = 2[\ell(\hat\delta) - \ell(0)]`, :math:`z =
\operatorname{sign}(\hat\delta)\sqrt\Lambda`, and its p-value from
:math:`\chi^2_1`.  With a few dozen binary outcomes the :math:`\chi^2`
tail is not accurate enough for a familywise rule, so every p-value below 0.05
is recomputed by a parametric bootstrap: counts redrawn from the law at the
same points (conditional on the design), :math:`p = (1 + \#\{\Lambda^* \ge
\Lambda\})/(1 + B)` with :math:`B = 4000` (seeded by the data, so a report is
reproducible).  The interval excludes 0 when the :math:`\chi^2` p-value is
below 0.05.

Why not the logistic fit of :mod:`lamcap.experiments._fitting`: with few
instances per point a steep transition is often (quasi-)separated, the free
slope runs to its cap and the profile-likelihood interval becomes much too
narrow, and a test of a true law rejects more often than the nominal 5%.
With the shape taken from
the law there is one parameter and no separation problem.  The logistic fit
stays the shape-free description of a transition.

The law is evaluated at integer p (where it is defined, cached) and
interpolated linearly in :math:`\log p` (:class:`TransitionLaw`).

Located transitions
-------------------
:func:`law_transition` turns this model into a measured transition point:
:math:`\hat p_c = p_c^{\text{law}} e^{\hat\delta}` is the 50% point of the
fitted curve, with its profile-likelihood interval solved to :math:`10^{-6}`
in :math:`\delta` (grid of step :math:`5\cdot 10^{-4}`, then Brent's method
on the bracketing grid cells); the law's slope may change by a factor
:math:`s` within ±20% (:data:`SLOPE_RANGE`), profiled out.  lamcap's
per-cell p_c intervals (``capacity.csv``, ``op_vs_dp.csv``, the report's
fitted transitions: :meth:`lamcap.experiments._analysis.CellData.transition`)
come from it.  Measured coverage of the 95% interval, 1000 cells simulated
through the runner's adaptive design at each d (measurements/pc_coverage.py,
docs/measurements/capacity.md): 94.8% at d = 16 and 94.3% at d = 64 when the
truth is the law; 95.8% and 95.7% when it is 20% steeper; 93.7% and 91.2%
when it is 20% flatter.  The free-slope logistic fit covers 93.8% and 91.1%
when the truth is the law and 90–91% at d = 64 when it is not; the shift alone
(:math:`s = 1`) 95.1% and 94.9%, but 90.1% and 88.1% under a 20% flatter truth.
:func:`finite_size_law` gives the law of a
cell: the Crofton curve ``feasibility_probability(d, p, κ)`` (arXiv:2605.10795)
for optimal W (the original problem's curve is close to the decoupled one up
to a shift, which is what is fitted), ``hebbian_recall_finite(p, d,
all_associations=True)`` for the Hebbian rule.

Examples
--------
>>> law = TransitionLaw(lambda p: 1.0 / (1.0 + (p / 40.0) ** 12))
>>> fit = shift_fit([30, 40, 50], [16, 8, 1], [16, 16, 16], law)
>>> bool(fit.low < 0 < fit.high), fit.p_value > 0.05
(True, True)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap.experiments._fitting import TransitionFit
from lamcap.experiments._sweep import Cell
from lamcap.theory._cost_models import COST_MODELS, cost_model
from lamcap.theory._crofton import feasibility_probability
from lamcap.theory._hebbian import hebbian_recall_finite

_Z95 = 1.959963984540054
_CHI2_95 = 3.841458820694124
_TINY = 1e-300
_WINDOW = 0.35  # |delta| searched: a factor e^0.35 = 1.42 either way
_STEP = 0.002
_REFINE_BELOW = 0.05  # below this the chi-square p-value is replaced by a bootstrap one


class TransitionLaw:
    """P(storable) at real p from a law defined at integers ``p >= 2`` (cached)."""

    def __init__(self, integer_law: Callable[[int], float]) -> None:
        self._law = integer_law
        self._cache: dict[int, float] = {}

    def at_integer(self, p: int) -> float:
        """The law at integer ``p`` (values below 2 are the law at 2)."""
        key = max(2, p)
        if key not in self._cache:
            self._cache[key] = float(self._law(key))
        return self._cache[key]

    def __call__(self, p: ArrayLike) -> NDArray[np.float64]:
        """Linear interpolation in log p between the neighbouring integers."""
        points = np.maximum(np.asarray(p, dtype=np.float64), 2.0)
        integers = np.arange(math.floor(points.min()), math.floor(points.max()) + 2)
        table = np.array([self.at_integer(int(i)) for i in integers])
        return np.asarray(np.interp(np.log(points), np.log(integers), table), dtype=np.float64)

    def median(self) -> float:
        r"""The real p at which the interpolated law crosses 1/2 (the law decreases in p).

        :meth:`quantile` at 1/2.

        Examples
        --------
        >>> TransitionLaw(lambda p: 1.0 / (1.0 + (p / 40.0) ** 12)).median()
        40.0
        """
        return self.quantile(0.5)

    def quantile(self, level: float) -> float:
        r"""The real p at which the interpolated law crosses ``level`` in (0, 1) (decreasing law).

        Doubling search for an integer below ``level``, integer bisection, then
        the crossing of the linear interpolation in :math:`\log p`; NaN when the
        law stays at or above ``level`` up to :math:`10^9` or is below it at 2.

        Examples
        --------
        >>> round(TransitionLaw(lambda p: 1.0 / (1.0 + (p / 40.0) ** 12)).quantile(0.2), 1)
        44.9
        """
        if not 0.0 < level < 1.0:
            msg = f"level must lie in (0, 1), got {level!r}"
            raise ValueError(msg)
        low, high = 2, 4
        if self.at_integer(low) < level:
            return math.nan
        while self.at_integer(high) >= level:
            low, high = high, 2 * high
            if high > 10**9:
                return math.nan
        while high - low > 1:
            middle = (low + high) // 2
            if self.at_integer(middle) >= level:
                low = middle
            else:
                high = middle
        upper, lower = self.at_integer(low), self.at_integer(high)
        fraction = (upper - level) / (upper - lower)
        return math.exp(math.log(low) + fraction * (math.log(high) - math.log(low)))


@dataclass(frozen=True)
class ShiftFit:
    """Shift of a measured transition against a law (module docstring).

    ``delta``: :math:`\\log(p_c/p_c^{\\text{law}})`; ``low``, ``high``: its 95%
    likelihood-ratio interval; ``se``: the interval's half-width / 1.96;
    ``z``, ``p_value``: the test of :math:`\\delta = 0`; ``clipped``: the
    interval reaches the searched window :math:`|\\delta| \\le 0.35` (it is
    then a lower bound on the true interval, and the test still exact).
    """

    delta: float
    low: float
    high: float
    se: float
    z: float
    p_value: float
    clipped: bool = False


def _log_tables(
    deltas: NDArray[np.float64], p: NDArray[np.float64], law: TransitionLaw
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """log F and log(1 - F) at every (shift, point): shape (len(deltas), len(p))."""
    values = law(p[None, :] * np.exp(-deltas[:, None]))
    return np.log(np.maximum(values, _TINY)), np.log(np.maximum(1.0 - values, _TINY))


def _statistics(
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    log_yes: NDArray[np.float64],
    log_no: NDArray[np.float64],
    null: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Log-likelihood over the grid for each row of counts ``k``, and 2[max - value at ``null``]."""
    loglik = np.atleast_2d(k) @ log_yes.T + np.atleast_2d(m - k) @ log_no.T
    return loglik, 2.0 * (loglik.max(axis=1) - loglik[:, null])


def _bootstrap_p_value(
    statistic: float,
    p: NDArray[np.float64],
    m: NDArray[np.float64],
    tables: tuple[NDArray[np.float64], NDArray[np.float64]],
    null: int,
    draws: int,
) -> float:
    """P(Λ* >= Λ) with counts redrawn from the law at the same points (conditional on design)."""
    seed = np.frombuffer(np.concatenate([p, m, [statistic]]).tobytes(), dtype=np.uint32)
    rng = np.random.default_rng(seed)
    probability = np.exp(tables[0][null])
    exceed = 0
    for start in range(0, draws, 500):
        counts = rng.binomial(
            m.astype(np.int64), probability, size=(min(500, draws - start), m.size)
        )
        _, statistics = _statistics(counts.astype(np.float64), m, *tables, null)
        exceed += int(np.sum(statistics >= statistic - 1e-9))
    return (1 + exceed) / (1 + draws)


def shift_fit(
    p: ArrayLike,
    feasible: ArrayLike,
    total: ArrayLike,
    law: TransitionLaw,
    *,
    draws: int = 4000,
) -> ShiftFit:
    """Fit the shift of ``law`` to binomial counts; test "no shift" (module docstring).

    Parameters
    ----------
    p, feasible, total : as in :func:`lamcap.experiments.fit_transition`.
    law : the finite-size law of the cell.
    draws : parametric-bootstrap replicates for p-values below 0.05 (0: none).

    Returns
    -------
    ShiftFit
        NaN ``z`` and ``p_value`` when the counts do not locate the transition
        (the likelihood is flat: every instance where the law is 0 or 1).
        Shifts are searched within a factor :math:`e^{0.35} = 1.42` of the law.
    """
    points = np.asarray(p, dtype=np.float64)
    k = np.asarray(feasible, dtype=np.float64)
    m = np.asarray(total, dtype=np.float64)
    keep = m > 0
    points, k, m = points[keep], k[keep], m[keep]
    deltas = np.arange(-_WINDOW, _WINDOW + _STEP / 2, _STEP)
    null = int(np.argmin(np.abs(deltas)))
    deltas[null] = 0.0
    tables = _log_tables(deltas, points, law)
    loglik_rows, statistics = _statistics(k, m, *tables, null)
    loglik = loglik_rows[0]
    if float(loglik.max() - loglik.min()) < 1e-9:
        return ShiftFit(math.nan, -math.inf, math.inf, math.inf, math.nan, math.nan)
    best = int(np.argmax(loglik))
    inside = deltas[2 * (loglik[best] - loglik) <= _CHI2_95]
    statistic = max(0.0, float(statistics[0]))
    p_value = math.erfc(math.sqrt(statistic / 2.0))
    if p_value < _REFINE_BELOW and draws > 0:
        p_value = _bootstrap_p_value(statistic, points, m, tables, null, draws)
    low, high = float(inside.min()), float(inside.max())
    clipped = bool(low <= -_WINDOW + _STEP / 2 or high >= _WINDOW - _STEP / 2)
    delta, low, high = _refined(points, k, m, law, float(deltas[best]), low, high, clipped)
    return ShiftFit(
        delta=delta,
        low=low,
        high=high,
        se=(high - low) / (2 * _Z95),
        clipped=clipped,
        z=math.copysign(math.sqrt(statistic), float(deltas[best])),
        p_value=p_value,
    )


def _refined(
    points: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    law: TransitionLaw,
    delta: float,
    low: float,
    high: float,
    clipped: bool,
) -> tuple[float, float, float]:
    """The grid's maximum and interval ends solved on the continuous likelihood (to 1e-7).

    The grid (step 0.002) resolves a shift only to 0.2%; with thousands of
    instances the interval is a few grid steps wide, so the maximum is refined
    by a bounded scalar search around the grid's best point and each end of the
    interval by Brent's method in the grid cell that brackets it (a clipped
    end stays at the window).
    """
    from scipy import optimize  # noqa: PLC0415

    def loglik(shift: float) -> float:
        values = law(points * math.exp(-shift))
        return float(
            np.sum(
                k * np.log(np.maximum(values, _TINY))
                + (m - k) * np.log(np.maximum(1.0 - values, _TINY))
            )
        )

    search = optimize.minimize_scalar(
        lambda shift: -loglik(shift),
        bounds=(delta - _STEP, delta + _STEP),
        method="bounded",
        options={"xatol": 1e-7},
    )
    best = float(search.x) if -search.fun >= loglik(delta) else delta
    top = loglik(best)

    def gap(shift: float) -> float:
        return 2.0 * (top - loglik(shift)) - _CHI2_95

    ends = []
    for end, outward in ((low, -_STEP), (high, _STEP)):
        if clipped and abs(end) >= _WINDOW - _STEP / 2:
            ends.append(end)
            continue
        inner, outer = end, end + outward
        if gap(inner) > 0 or gap(outer) < 0:
            ends.append(end)  # no sign change in this cell: keep the grid's end
            continue
        ends.append(float(optimize.brentq(gap, inner, outer, xtol=1e-7)))
    return best, min(ends[0], best), max(ends[1], best)


@functools.lru_cache(maxsize=128)
def finite_size_law(
    d: int, kappa: float = 1.0, *, hebbian: bool = False, embeddings: str = "gaussian"
) -> TransitionLaw:
    r"""The finite-size transition curve of a cell as a :class:`TransitionLaw` (cached).

    ``hebbian_recall_finite(p, d, all_associations=True, pairs=True)`` for the Hebbian
    rule (every one of the :math:`n = p` associations recalled; docs/theory/hebbian.md),
    else the Crofton curve ``feasibility_probability(d, p, κ, embeddings=embeddings)``
    (docs/theory/crofton.md; Gordon width below full rank; the cost model named by
    ``embeddings``, :class:`lamcap.theory.CostModel`), all of the decoupled problem.
    Used as a shape only: :func:`law_transition` fits its shift along :math:`\log p`.
    With ``hebbian=True`` a model without a Hebbian law (``CostModel.hebbian_law``)
    raises ``ValueError``.

    Examples
    --------
    >>> round(finite_size_law(16).median(), 2)
    61.68
    >>> round(finite_size_law(16, embeddings='sphere').median(), 2)
    64.88
    """
    if hebbian:
        if not cost_model(embeddings).hebbian_law:
            known = [name for name, model in COST_MODELS.items() if model.hebbian_law]
            msg = f"embeddings must be one of {known} for the Hebbian law, got {embeddings!r}"
            raise ValueError(msg)

        return TransitionLaw(
            lambda p: float(hebbian_recall_finite(p, d, all_associations=True, pairs=True))
        )

    return TransitionLaw(
        lambda p: float(feasibility_probability(d, p, kappa=kappa, embeddings=embeddings))
    )


def cell_law(cell: Cell) -> TransitionLaw:
    """:func:`finite_size_law` of a sweep cell: its d, κ, embeddings, and Hebbian or not."""
    return finite_size_law(
        cell.d, cell.kappa, hebbian=cell.method == "hebbian", embeddings=cell.embeddings
    )


_FINE_STEP = 5e-4
_SOLVE_TOLERANCE = 1e-6
_MAX_WINDOW = 6 * _WINDOW  # |delta| <= 2.1: a factor 8 either way
_SLOPE_POINTS = 21  # slope factors profiled over, evenly spaced in slope_range

SLOPE_RANGE = (0.8, 1.2)
r"""Slope factors :func:`law_transition` allows by default: the law's steepness within ±20%.

The committed sweeps give, pooled over d = 8–96 with one shift per size,
:math:`s = 1.10\ [0.90, 1.33]` for the decoupled and
:math:`1.18\ [0.98, 1.33]` for the original problem
(measurements/pc_coverage.py ``--slope-evidence``).
"""


def _profile_tables(
    deltas: NDArray[np.float64],
    points: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    law: TransitionLaw,
    slopes: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Profile log-likelihood :math:`\max_s \ell(\delta, s)` at each ``delta``, and the best s.

    :math:`\ell(\delta, s)` is the binomial log-likelihood of the curve
    :math:`F(m_F\,(p\,e^{-\delta}/m_F)^{s})` (:func:`law_transition`).
    """
    median = law.median()
    scaled = points[None, :] * np.exp(-deltas[:, None]) / median  # (deltas, points)
    values = law(median * scaled[None, :, :] ** slopes[:, None, None])  # (slopes, deltas, points)
    yes = np.log(np.maximum(values, _TINY))
    no = np.log(np.maximum(1.0 - values, _TINY))
    loglik = yes @ k + no @ (m - k)  # (slopes, deltas)
    best = np.argmax(loglik, axis=0)
    return loglik[best, np.arange(deltas.size)], slopes[best]


def _likelihood_grid(
    points: NDArray[np.float64],
    k: NDArray[np.float64],
    m: NDArray[np.float64],
    law: TransitionLaw,
    slopes: NDArray[np.float64],
    cutoff: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    r"""(deltas, profile log-likelihood, best slope factors) on a grid of step 5e-4.

    The grid holds the whole interval: it starts at :math:`|\delta| \le 0.35`
    and widens a side by 0.35 while the interval reaches it, up to
    :math:`|\delta| \le 2.1`.  Empty arrays when the likelihood is flat over
    the first window (the counts sit where the law is 0 or 1 for every shift
    within a factor 1.42).
    """
    ends = [-round(_WINDOW / _FINE_STEP), round(_WINDOW / _FINE_STEP)]
    reach = round(_MAX_WINDOW / _FINE_STEP)
    widen = round(_WINDOW / _FINE_STEP)
    while True:
        deltas = np.arange(ends[0], ends[1] + 1, dtype=np.float64) * _FINE_STEP
        grid, best = _profile_tables(deltas, points, k, m, law, slopes)
        if float(grid.max() - grid.min()) < 1e-9:
            return np.empty(0), np.empty(0), np.empty(0)
        inside = 2.0 * (grid.max() - grid) <= cutoff
        if inside[0] and ends[0] > -reach:
            ends[0] = max(-reach, ends[0] - widen)
        elif inside[-1] and ends[1] < reach:
            ends[1] = min(reach, ends[1] + widen)
        else:
            return deltas, grid, best


def _counts(
    p: ArrayLike, feasible: ArrayLike, total: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Validated (p, k, m) with ``m > 0``: ValueError naming the argument, value and range."""
    arrays = [np.asarray(a, dtype=np.float64) for a in (p, feasible, total)]
    names = ("p", "feasible", "total")
    for name, array in zip(names, arrays, strict=True):
        if array.ndim != 1 or array.size != arrays[0].size:
            msg = (
                f"{name} must be a one-dimensional sequence as long as p ({arrays[0].size}), "
                f"got shape {array.shape}"
            )
            raise ValueError(msg)
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            msg = f"{name} must hold finite whole numbers, got {array[bad][0]:g}"
            raise ValueError(msg)
    points, k, m = arrays
    if (points < 2).any():
        msg = f"p must be at least 2, got {points[points < 2][0]:g}"
        raise ValueError(msg)
    if (k < 0).any() or (k > m).any():
        index = int(np.flatnonzero((k < 0) | (k > m))[0])
        msg = (
            f"feasible must lie in [0, total] at every p, got {k[index]:g} of "
            f"{m[index]:g} at p = {points[index]:g}"
        )
        raise ValueError(msg)
    keep = m > 0
    if not keep.any():
        msg = f"total must count at least one instance, got {m.tolist()}"
        raise ValueError(msg)
    return points[keep], k[keep], m[keep]


def law_transition(
    p: ArrayLike,
    feasible: ArrayLike,
    total: ArrayLike,
    law: TransitionLaw,
    *,
    confidence: float = 0.95,
    slope_range: tuple[float, float] = SLOPE_RANGE,
) -> TransitionFit | None:
    r"""The 50% point of a transition whose shape is ``law``'s, with its likelihood-ratio interval.

    Fits

    .. math::

        P(\text{storable} \mid p) = F\bigl(m_F\,(p\,e^{-\delta}/m_F)^{s}\bigr),
        \qquad s_{\min} \le s \le s_{\max},

    (``law`` is :math:`F`, :math:`m_F` its median,
    :meth:`TransitionLaw.median`) to binomial counts by maximum likelihood:
    the law moved by :math:`\delta` along :math:`\log p` and made steeper or
    flatter by the factor :math:`s` about its 50% point, which stays at
    :math:`p_c = m_F e^{\delta}` whatever :math:`s`.  Returns
    :math:`\hat p_c = m_F e^{\hat\delta}` with the profile-likelihood
    interval :math:`\{m_F e^{\delta} : 2[\ell(\hat\delta, \hat s) - \max_s
    \ell(\delta, s)] \le \chi^2_{1}(\text{confidence})\}` (Wilks' theorem,
    one parameter of interest; :math:`s` on 21 evenly spaced values of
    ``slope_range``, :math:`\delta` solved to :math:`10^{-6}`).
    ``slope_range=(1, 1)`` is the law's own shape, the one-parameter shift
    of :func:`shift_fit`.

    Why a bounded slope: with the law's shape fixed the interval covers the
    true :math:`p_c` at the nominal rate when the law is right (95.1% at
    d = 16, 94.9% at d = 64) but 90.1% and 88.1% of the time when the true
    curve is 20% flatter; the free-slope logistic fit covers 91–94% whatever
    the truth.  Letting :math:`s` move within ±20% of the law
    (:data:`SLOPE_RANGE`) covers 94.8% and 94.3% under the law, 95.8% and
    95.7% under a 20% steeper truth and 93.7% and 91.2% under a 20% flatter
    one, at the committed designs (1000 simulated cells each;
    docs/measurements/capacity.md, measurements/pc_coverage.py).

    Parameters
    ----------
    p : numbers of associations (one entry per distinct p, each ``>= 2``).
    feasible : storable instances at each p.
    total : counted instances at each p (entries with 0 are ignored).
    law : the finite-size curve whose shape is kept (:func:`finite_size_law`).
    confidence : level of the interval, in (0, 1).
    slope_range : the slope factors :math:`(s_{\min}, s_{\max})` allowed,
        :math:`0 < s_{\min} \le s_{\max} < \infty`.

    Returns
    -------
    TransitionFit or None
        ``link="law"``; ``slope`` is :math:`\hat s` times the law's central
        logistic-equivalent slope :math:`-4\,dF/d\log p` at its median (so
        :meth:`~lamcap.experiments._fitting.TransitionFit.quantile` is the
        logistic approximation of the fitted curve); ``bracketed`` as in
        :func:`lamcap.experiments.fit_transition` (the storable fractions
        straddle 1/2).  The search starts within a factor
        :math:`e^{0.35} = 1.42` of the law's median and widens while the
        interval reaches its edge, up to a factor :math:`e^{2.1} = 8`; an end
        that reaches that is the window's end.  None when
        the counts do not locate the transition (the likelihood is flat within
        a factor 1.42 of the law's median: every instance where the law is 0
        or 1) or the law has no median.

    Raises
    ------
    ValueError
        Arrays of different lengths, p below 2, counts that are not whole
        numbers in [0, total], no instance at all, ``confidence`` outside
        (0, 1), or a ``slope_range`` that is not :math:`0 < s_{\min} \le
        s_{\max} < \infty`; the message names the argument, the value and
        the accepted range.

    Examples
    --------
    >>> law = TransitionLaw(lambda p: 1.0 / (1.0 + (p / 40.0) ** 12))
    >>> fit = law_transition([30, 40, 50], [15, 8, 1], [16, 16, 16], law)
    >>> round(fit.p_c, 1), round(fit.low, 1), round(fit.high, 1)
    (39.6, 36.5, 42.8)
    >>> shift = law_transition([30, 40, 50], [15, 8, 1], [16, 16, 16], law, slope_range=(1, 1))
    >>> round(shift.low, 1), round(shift.high, 1)  # the law's own shape: a little narrower
    (36.9, 42.6)
    """
    from scipy import optimize, stats  # noqa: PLC0415

    if not 0.0 < float(confidence) < 1.0:
        msg = f"confidence must lie in the open interval (0, 1), got {confidence!r}"
        raise ValueError(msg)
    low_slope, high_slope = (float(value) for value in slope_range)
    if not (math.isfinite(high_slope) and 0.0 < low_slope <= high_slope):
        msg = (
            "slope_range must be (low, high) with 0 < low <= high < inf, "
            f"got {tuple(slope_range)!r}"
        )
        raise ValueError(msg)
    points, k, m = _counts(p, feasible, total)
    median = law.median()
    if not math.isfinite(median):
        return None
    cutoff = float(stats.chi2.ppf(confidence, 1))
    slopes = np.unique(np.linspace(low_slope, high_slope, _SLOPE_POINTS))

    def loglik(delta: float) -> float:
        return float(_profile_tables(np.array([delta]), points, k, m, law, slopes)[0][0])

    deltas, grid, best_slopes = _likelihood_grid(points, k, m, law, slopes, cutoff)
    if deltas.size == 0:
        return None
    best = int(np.argmax(grid))
    lower, upper = deltas[max(best - 1, 0)], deltas[min(best + 1, deltas.size - 1)]
    found = optimize.minimize_scalar(
        lambda delta: -loglik(delta),
        bounds=(lower, upper),
        method="bounded",
        options={"xatol": _SOLVE_TOLERANCE},
    )
    delta, top = (float(found.x), -float(found.fun))
    if top < grid[best]:
        delta, top = float(deltas[best]), float(grid[best])

    def excess(value: float) -> float:
        return 2.0 * (top - loglik(value)) - cutoff

    def end(direction: int) -> float:
        outside = np.flatnonzero((2.0 * (top - grid) > cutoff) & (direction * (deltas - delta) > 0))
        if outside.size == 0:
            return float(deltas[-1] if direction > 0 else deltas[0])
        first = outside[0] if direction > 0 else outside[-1]
        inner = float(deltas[first - direction])
        if direction * (inner - delta) < 0:
            inner = delta
        a, b = sorted((inner, float(deltas[first])))
        return float(optimize.brentq(excess, a, b, xtol=1e-7))

    fraction = k / m
    nearby = law(np.array([median * math.exp(-0.01), median * math.exp(0.01)]))
    slope = 4.0 * float(nearby[0] - nearby[1]) / 0.02 * float(best_slopes[best])
    return TransitionFit(
        p_c=median * math.exp(delta),
        low=median * math.exp(end(-1)),
        high=median * math.exp(end(+1)),
        slope=slope,
        bracketed=bool(fraction.max() >= 0.5 >= fraction.min() and fraction.max() > fraction.min()),
        instances=int(m.sum()),
        link="law",
    )

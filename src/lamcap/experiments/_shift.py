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

Examples
--------
>>> law = TransitionLaw(lambda p: 1.0 / (1.0 + (p / 40.0) ** 12))
>>> fit = shift_fit([30, 40, 50], [16, 8, 1], [16, 16, 16], law)
>>> bool(fit.low < 0 < fit.high), fit.p_value > 0.05
(True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

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
    return ShiftFit(
        delta=float(deltas[best]),
        low=low,
        high=high,
        se=(high - low) / (2 * _Z95),
        clipped=bool(low <= -_WINDOW + _STEP / 2 or high >= _WINDOW - _STEP / 2),
        z=math.copysign(math.sqrt(statistic), float(deltas[best])),
        p_value=p_value,
    )

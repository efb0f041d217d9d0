r"""The law of the Gaussian cost :math:`C_p` of one association, at integer and real p.

:math:`C_p = \operatorname{dist}(g, K)^2` (:math:`g \sim N(0, I_p)`, :math:`K` the recall
cone, docs/theory/cone.md) is, given the dimension :math:`|A| = k` of the face of the
polar cone that :math:`g` projects to, a :math:`\chi^2_k` variable, so

.. math::

    P(C_p \le x) = \sum_{k \ge 0} P(|A| = k)\, P(\chi^2_k \le x)
    \qquad (\chi^2_0 = 0),

the chi-bar-squared law over the active-set law of :func:`lamcap.active_set_law`
(docs/theory/partial-recall.md).  This module holds that law at integer p (exact,
cached), at real p (cubic in :math:`\log p` between the nodes of a grid of ratio 1.05,
:mod:`lamcap.theory._interpolation`; law error 1e-7 at p = 25, 4e-10 at p = 6000), its
distribution function, partial mean and quantile, and the partial load
:math:`p\,\mathbb{E}[C_p;\ C_p < q_f(p)]` behind every partial-recall threshold.  Users:
the Crofton law (:mod:`lamcap.theory._crofton`), the cost models
(:mod:`lamcap.theory._cost_models`) and the accuracy
(:mod:`lamcap.theory._partial_recall`).

Numerics.  With :math:`w_k = P(|A| = k)` and
:math:`\mathbb{E}[\chi^2_k;\ \chi^2_k < x] = k\,P(\chi^2_{k+2} < x)`, both are finite
sums of regularised incomplete gamma functions (``scipy.special.gammainc``, relative error
about 1e-15); thresholds are found by bisection in :math:`\log x` to the last bit.
"""

from __future__ import annotations

import functools
import math
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

from lamcap.theory._cone import active_set_law
from lamcap.theory._interpolation import bracket_index, grid_node, interpolation_stencil

FloatArray = NDArray[np.float64]

#: Grid ratio of the interpolated laws at real p (beyond the dense integers up to 20).
LAW_GRID_RATIO: Final[float] = 1.05
#: Critical p below full recall are searched up to 1e18: the last node of the law's grid
#: not above it (about 9.96e17), so that the search needs no law beyond 1e18.
P_LIMIT: Final[float] = float(grid_node(bracket_index(1e18, LAW_GRID_RATIO), LAW_GRID_RATIO))
#: Smallest threshold tried: below it the fraction equals P(C_p = 0) = 1/p to double precision.
LOG_TAU_FLOOR: Final[float] = math.log(1e-300)


@functools.lru_cache(maxsize=512)
def exact_active_set_law(p: int) -> FloatArray:
    """Law of |A| at an integer ``p`` from :func:`lamcap.active_set_law` (cached, read-only)."""
    law = np.asarray(active_set_law(p), dtype=np.float64)
    law.setflags(write=False)
    return law


def active_set_law_at(p: float) -> FloatArray:
    """Law of |A| at a real ``p >= 2``: exact at grid nodes, cubic in log p in between.

    The four nodes of the stencil (every integer up to 20, then integers rounded from
    ``20 * 1.05**j``); their coefficients sum to one, so the result sums to one and keeps
    the alternating sum zero.
    """
    nodes, coefficients = interpolation_stencil(p, LAW_GRID_RATIO)
    if float(p).is_integer() and int(p) in nodes:
        return exact_active_set_law(int(p))
    laws = [exact_active_set_law(q) for q in nodes]
    result = np.zeros(max(law.size for law in laws))
    for law, coefficient in zip(laws, coefficients, strict=True):
        result[: law.size] += coefficient * law
    return result


def chi_bar_cdf(law: ArrayLike, x: ArrayLike) -> FloatArray:
    r""":math:`P(C_p \le x) = \sum_k w_k P(\chi^2_k \le x)` for the law ``law`` of |A| (x >= 0).

    Examples
    --------
    >>> [round(float(v), 12) for v in chi_bar_cdf([0.5, 0.5], [0.0, 1.0])]  # C_2 = Z_+^2
    [0.5, 0.841344746069]
    """
    masses = np.asarray(law, dtype=np.float64)
    points = np.asarray(x, dtype=np.float64)
    k = np.arange(1, masses.size)
    halves = 0.5 * np.maximum(points, 0.0)[..., None]
    return masses[0] + np.sum(masses[1:] * special.gammainc(0.5 * k, halves), axis=-1)  # type: ignore[no-any-return]


def chi_bar_partial_mean(law: ArrayLike, x: ArrayLike) -> FloatArray:
    r""":math:`\mathbb{E}[C_p;\ C_p < x] = \sum_k w_k\,k\,P(\chi^2_{k+2} < x)` for the law ``law`` of |A|.

    Examples
    --------
    >>> round(float(chi_bar_partial_mean([0.5, 0.5], 1e9)), 12)  # E[C_2] = 1/2
    0.5
    """
    masses = np.asarray(law, dtype=np.float64)
    points = np.asarray(x, dtype=np.float64)
    k = np.arange(1, masses.size)
    halves = 0.5 * np.maximum(points, 0.0)[..., None]
    return np.sum(masses[1:] * k * special.gammainc(0.5 * k + 1.0, halves), axis=-1)  # type: ignore[no-any-return]


def law_mean(law: FloatArray) -> float:
    r""":math:`\mathbb{E}|A| = \mathbb{E}[C_p]` of a law of :math:`|A|` (its first moment)."""
    return float(np.dot(np.arange(law.size), law))


def log_bisect(
    function: Any, target: FloatArray, low: float, high: FloatArray, iterations: int = 200
) -> FloatArray:
    """Vectorised bisection in log x of the increasing ``function(x) = target`` on [low, high]."""
    lo = np.full(target.shape, low)
    hi = np.log(high)
    for _ in range(iterations):
        middle = 0.5 * (lo + hi)
        if not np.any((lo < middle) & (middle < hi)):
            break
        below = function(np.exp(middle)) < target
        lo = np.where(below, middle, lo)
        hi = np.where(below, hi, middle)
    return np.exp(hi)  # type: ignore[no-any-return,unused-ignore]


def upper_point(function: Any, target: FloatArray, mean: float) -> FloatArray:
    """A point where the increasing ``function`` reaches ``target`` (doubling from the mean)."""
    high = np.full(target.shape, max(1.0, mean))
    for _ in range(64):
        short = function(high) < target
        if not np.any(short):
            break
        high = np.where(short, 2.0 * high, high)
    return high


def cost_quantile(law: FloatArray, accuracy: float) -> float:
    r"""The ``accuracy``-quantile :math:`q_f` of :math:`C_p` (0 at or below the atom :math:`1/p`).

    ``inf`` when the law's total mass (1 to about 1e-12) stays below ``accuracy``.
    """
    if accuracy <= law[0]:
        return 0.0
    target = np.array([accuracy])

    def cdf(x: FloatArray) -> FloatArray:
        return chi_bar_cdf(law, x)

    high = upper_point(cdf, target, law_mean(law))
    if cdf(high)[0] < accuracy:
        return math.inf
    return float(log_bisect(cdf, target, LOG_TAU_FLOOR, high)[0])


def gaussian_partial_load(p: float, accuracy: float) -> float:
    r""":math:`p\,\mathbb{E}[C_p;\ C_p < q_f(p)]` at a real ``p`` (law interpolated in log p)."""
    law = active_set_law_at(p)
    quantile = cost_quantile(law, accuracy)
    if quantile == 0.0:
        return 0.0
    if math.isinf(quantile):
        return p * law_mean(law)
    return p * float(chi_bar_partial_mean(law, quantile))

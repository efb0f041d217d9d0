r"""Largest margin below capacity: :math:`a\,E[\operatorname{dist}(g, K_m)^2] = 1`.

See docs/theory/mechanism.md, *Below capacity: the margin* (arXiv:2605.10795).  At load
:math:`a = n/d^2` below the capacity :math:`a_c(p) = 1/E[C_p]`, the full-rank
max-margin memory reaches the largest :math:`m` with

.. math::

    a\, E\big[\operatorname{dist}(g, K_m)^2\big] = 1, \qquad
    K_m = \{\lambda : \lambda_t \ge \lambda_\rho + m\}, \quad g \sim N(0, I_p),

(``n`` copies of the cone must still meet a random subspace of dimension
:math:`d^2`).  *Units*: :math:`m` is measured in units of the competitor-score
spread (each coordinate of :math:`g` has unit variance), i.e. the normalised
scores of :func:`lamcap.theory.scores.score_law` and
:func:`lamcap.empirical.normalized_scores`.

*Gardner's convention.*  At :math:`p = 2`, :math:`\operatorname{dist}(g, K_m)^2
= (g_\rho - g_t + m)_+^2/2 = (z + m/\sqrt2)_+^2` with :math:`z \sim N(0, 1)`,
so the problem is a perceptron with stability :math:`\kappa = m/\sqrt2`
measured on the difference :math:`\lambda_t - \lambda_\rho` normalised by its
own spread :math:`\sqrt 2`, and

.. math::

    a_c(\kappa) = \Big[\int_{-\kappa}^{\infty} Dz\,(z + \kappa)^2\Big]^{-1}
    = \big[(1 + \kappa^2)\Phi(\kappa) + \kappa\varphi(\kappa)\big]^{-1},

Gardner's margin–capacity curve (in units of :math:`N = d^2` weights,
:math:`n = a N` patterns): ``max_margin(gardner_load(k), 2) = sqrt(2) k``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from lamcap._validation import check_finite_array, check_integer
from lamcap.theory.cone import statistical_dimension

__all__ = ["gardner_load", "load_at_margin", "max_margin"]


def _gardner_second_moment(kappa: ArrayLike) -> Any:
    r""":math:`\int_{-\kappa}^\infty Dz\,(z+\kappa)^2 = (1+\kappa^2)\Phi(\kappa) + \kappa\varphi(\kappa)`."""
    kappa_array = np.asarray(kappa, dtype=np.float64)
    return (1 + kappa_array**2) * special.ndtr(kappa_array) + kappa_array * np.exp(
        -0.5 * kappa_array**2
    ) / math.sqrt(2 * math.pi)


def _squared_distance(p: int, margin: float) -> float:
    r""":math:`E\operatorname{dist}(g, K_m)^2`: Gardner's closed form at p = 2, quadrature above."""
    if p == 2:
        return float(_gardner_second_moment(margin / math.sqrt(2.0)))
    return float(statistical_dimension(p, margin=margin))


def load_at_margin(margin: ArrayLike, p: int) -> Any:
    r"""Load :math:`a = n/d^2` at which the largest achievable margin is ``margin``.

    .. math::

        a(m) = 1 / E\big[\operatorname{dist}(g, K_m)^2\big]
        \qquad (\text{see docs/theory/mechanism.md}),

    decreasing from the capacity :math:`a_c(p) = 1/E[C_p]` at :math:`m = 0`.

    Parameters
    ----------
    margin : float or array_like
        :math:`m \ge 0` in units of the competitor spread (module docstring).
    p : int
        Number of outputs, ``p >= 2``.

    Notes
    -----
    The one implementation of :math:`1/E\operatorname{dist}^2` (also behind
    :func:`lamcap.theory.replica.critical_load`): Gardner's closed form at
    :math:`p = 2`, :func:`lamcap.theory.cone.statistical_dimension` above
    (relative error below ``1e-12``; each value costs about 0.1 s at small ``p``
    and ~10 s at ``p = 1000`` with ``m > 0``).

    Returns
    -------
    float or ndarray
        :math:`a(m)`.

    Examples
    --------
    >>> round(load_at_margin(0.0, 2), 12)  # Cover: n = 2 d^2
    2.0
    >>> from lamcap.theory.cone import statistical_dimension  # quadrature, not Gardner
    >>> quadrature = statistical_dimension(2, margin=math.sqrt(2))
    >>> abs(load_at_margin(math.sqrt(2), 2) * quadrature - 1) < 1e-12
    True
    """
    p_value = check_integer("p", p, minimum=2)
    margins = check_finite_array("margin", margin, minimum=0.0)
    loads = np.array([1.0 / _squared_distance(p_value, float(m)) for m in margins.ravel()])
    return float(loads[0]) if margins.ndim == 0 else loads.reshape(margins.shape)


def _solve_margin(load: float, p: int, capacity: float) -> float:
    if load == capacity:
        return 0.0
    target = 1.0 / load

    def excess(m: float) -> float:
        return _squared_distance(p, m) - target

    upper = 1.0
    while excess(upper) < 0.0:
        upper *= 2.0
    return float(optimize.brentq(excess, 0.0, upper, xtol=1e-14, rtol=1e-15))


def max_margin(load: ArrayLike, p: int) -> Any:
    r"""Largest normalised margin :math:`m` achievable at load :math:`a = n/d^2` (full rank).

    Solves :math:`a\,E[\operatorname{dist}(g, K_m)^2] = 1` for :math:`m`
    (Brent's method to ``1e-14``); :math:`E\operatorname{dist}^2` increases
    with :math:`m` since :math:`K_m` shrinks.  At :math:`p = 2` this is
    Gardner's curve with :math:`m = \sqrt2\,\kappa` (module docstring).

    Parameters
    ----------
    load : float or array_like
        :math:`a` in :math:`(0, a_c(p)]`, :math:`a_c(p) = 1/E[C_p]` the capacity.
    p : int
        Number of outputs, ``p >= 2``.

    Returns
    -------
    float or ndarray
        :math:`m \ge 0` in units of the competitor spread; 0 at capacity.

    Notes
    -----
    Precision: ``1e-12`` relative in :math:`m` (limited by
    :func:`~lamcap.theory.cone.statistical_dimension`); reproduces Gardner's
    :math:`\alpha_c(\kappa)` at :math:`p = 2` to ``1e-10``.  Reference:
    docs/theory/mechanism.md (margin); Gardner (1988).

    Examples
    --------
    >>> round(max_margin(gardner_load(0.5), 2) / math.sqrt(2), 10)
    0.5
    >>> max_margin(2.0, 2)
    0.0
    """
    p_value = check_integer("p", p, minimum=2)
    capacity = 1.0 / _squared_distance(p_value, 0.0)
    loads = check_finite_array("load", load, minimum=0.0, closed="(]")
    if np.any(loads > capacity * (1 + 1e-14)):
        bad = float(loads[loads > capacity * (1 + 1e-14)].flat[0])
        msg = (
            f"load must be in (0, {capacity:.12g}] (the capacity 1/E[C_p] at p={p_value}), "
            f"got {bad!r}"
        )
        raise ValueError(msg)
    margins = np.array(
        [_solve_margin(min(float(a), capacity), p_value, capacity) for a in loads.ravel()]
    )
    return float(margins[0]) if loads.ndim == 0 else margins.reshape(loads.shape)


def gardner_load(kappa: ArrayLike) -> Any:
    r"""Gardner's perceptron capacity at stability :math:`\kappa` (closed form).

    .. math::

        \alpha_c(\kappa) = \Big[\int_{-\kappa}^\infty Dz\,(z+\kappa)^2\Big]^{-1}
        = \big[(1+\kappa^2)\Phi(\kappa) + \kappa\varphi(\kappa)\big]^{-1}.

    Equal to ``load_at_margin(sqrt(2) * kappa, 2)`` (module docstring).
    Reference: Gardner (1988), docs/theory/mechanism.md (margin).

    Parameters
    ----------
    kappa : float or array_like
        Stability :math:`\kappa` (any real).

    Returns
    -------
    float or ndarray
        :math:`\alpha_c(\kappa)` (closed form, full float64 precision).

    Examples
    --------
    >>> round(gardner_load(0.0), 12)
    2.0
    """
    kappa_array = check_finite_array("kappa", kappa)
    result = 1.0 / _gardner_second_moment(kappa_array)
    return float(result) if kappa_array.ndim == 0 else result

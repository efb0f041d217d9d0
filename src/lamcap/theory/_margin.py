r"""Largest margin below capacity: :math:`a\,E[\operatorname{dist}(g, K_m)^2] = 1`.

See docs/theory/mechanism.md, *Below capacity: the margin* (arXiv:2605.10795), and
docs/vocabulary.md for the symbols.  At association density :math:`a = n/d^2`
below the critical density :math:`a_c(p) = 1/E[C_p]`, the full-rank max-margin
memory reaches the largest margin :math:`m` with

.. math::

    a\, E\big[\operatorname{dist}(g, K_m)^2\big] = 1, \qquad
    K_m = \{\lambda : \lambda_t \ge \lambda_\rho + m\}, \quad g \sim N(0, I_p),

(``n`` copies of the cone must still meet a random subspace of dimension
:math:`d^2`).  *Units*: :math:`m` is measured in units of the competitor-score
spread (each coordinate of :math:`g` has unit variance), i.e. the normalised
scores of :func:`lamcap.theory.score_law` and
:func:`lamcap.empirical.normalized_scores`.

*Gardner's convention.*  At :math:`p = 2`, :math:`\operatorname{dist}(g, K_m)^2
= (g_\rho - g_t + m)_+^2/2 = (z + m/\sqrt2)_+^2` with :math:`z \sim N(0, 1)`,
so the problem is a perceptron with stability :math:`\kappa_G = m/\sqrt2`
measured on the difference :math:`\lambda_t - \lambda_\rho` normalised by its
own spread :math:`\sqrt 2`, and

.. math::

    a_c(\kappa_G) = \Big[\int_{-\kappa_G}^{\infty} Dz\,(z + \kappa_G)^2\Big]^{-1}
    = \big[(1 + \kappa_G^2)\Phi(\kappa_G) + \kappa_G\varphi(\kappa_G)\big]^{-1},

Gardner's margin–capacity curve (in units of :math:`N = d^2` weights,
:math:`n = a N` patterns): ``max_margin(gardner_density(s), 2) = sqrt(2) s``.
(:math:`\kappa_G` is not the rank ratio :math:`\kappa` of the rest of lamcap.)
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from lamcap._sizes import format_integer
from lamcap._validation import check_dps, check_finite_array, check_integer_array, plain
from lamcap.theory._arrays import broadcast, elementwise, float_result
from lamcap.theory._cone import _exact_mp
from lamcap.theory._cost_models import statistical_dimension
from lamcap.theory._precision import secant_root, working_dps


def _gardner_second_moment(stability: ArrayLike) -> Any:
    r""":math:`\int_{-s}^\infty Dz\,(z+s)^2 = (1+s^2)\Phi(s) + s\varphi(s)` at stability :math:`s = \kappa_G`."""
    s = np.asarray(stability, dtype=np.float64)
    below = special.ndtr(s)
    # |s| beyond 1e154 overflows s^2; where Phi(s) underflows to 0 the moment is below
    # every float64 (0 is exact to it), and inf * 0 would be nan
    with np.errstate(over="ignore", invalid="ignore"):
        moment = (1 + s**2) * below + s * np.exp(-0.5 * s**2) / math.sqrt(2 * math.pi)
    return np.where(below == 0.0, 0.0, moment)


def _gardner_second_moment_mp(stability: Any) -> Any:
    """mpmath twin of :func:`_gardner_second_moment` (one value, at the working precision)."""
    s = mpmath.mpf(stability)
    return (1 + s * s) * mpmath.ncdf(s) + s * mpmath.npdf(s)


def _squared_distance(p: int, margin: float) -> float:
    r""":math:`E\operatorname{dist}(g, K_m)^2`: Gardner's closed form at p = 2, quadrature above."""
    if p == 2:
        return float(_gardner_second_moment(margin / math.sqrt(2.0)))
    return float(statistical_dimension(p, margin=margin))


def _squared_distance_mp(p: int, margin: Any, dps: int) -> Any:
    r""":math:`E\operatorname{dist}(g, K_m)^2` to ``dps`` digits; ``margin`` a float or an ``mpf``."""
    if p == 2:
        return _gardner_second_moment_mp(mpmath.mpf(margin) / mpmath.sqrt(2))
    return _exact_mp(p, margin, dps)


def density_at_margin(margin: ArrayLike, p: ArrayLike, *, dps: int | None = None) -> Any:
    r"""Association density :math:`a = n/d^2` at which the largest achievable margin is ``margin``.

    .. math::

        a(m) = 1 / E\big[\operatorname{dist}(g, K_m)^2\big]
        \qquad (\text{see docs/theory/mechanism.md}),

    decreasing from the critical density :math:`a_c(p) = 1/E[C_p]` at :math:`m = 0`.

    Status: asymptotic. The inverse of :func:`max_margin`: the :math:`d \to \infty` association
    density at which the max-margin :math:`W` reaches margin ``m``, evaluated to the relative
    error stated under Notes.

    Parameters
    ----------
    margin : float or array_like
        :math:`m \ge 0` in units of the competitor spread (module docstring).
    p : int or array_like of int
        Number of outputs, ``p >= 2``; broadcasts with ``margin``.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits (the mpmath route of
        :func:`lamcap.theory.statistical_dimension`; Gardner's closed form
        in mpmath at :math:`p = 2`).

    Notes
    -----
    The one implementation of :math:`1/E\operatorname{dist}^2` (also behind
    :func:`lamcap.theory.critical_density`): Gardner's closed form at
    :math:`p = 2`, :func:`lamcap.theory.statistical_dimension` above
    (relative error below ``1e-12``; each value costs about 0.1 s at small ``p``
    and ~10 s at ``p = 1000`` with ``m > 0``).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        :math:`a(m)` in the broadcast shape of ``margin`` and ``p`` (array
        contract: docs/howto/precision.md).

    Examples
    --------
    >>> round(float(density_at_margin(0.0, 2)), 12)  # Cover: n = 2 d^2
    2.0
    >>> from lamcap.theory._cost_models import statistical_dimension  # quadrature, not Gardner
    >>> quadrature = statistical_dimension(2, margin=math.sqrt(2))
    >>> bool(abs(density_at_margin(math.sqrt(2), 2) * quadrature - 1) < 1e-12)
    True
    >>> print(mpmath.nstr(density_at_margin(1.0, 2, dps=25), 25))
    0.7352559745708619456941854
    """
    margins, outputs = broadcast(
        check_finite_array("margin", margin, minimum=0.0),
        check_integer_array("p", p, minimum=2),
        names=("margin", "p"),
    )
    digits = check_dps(dps)
    if digits is not None:
        work = working_dps(digits)
        return elementwise(
            lambda m, q: 1 / _squared_distance_mp(q, m, work), margins, outputs, dps=digits
        )
    return elementwise(lambda m, q: 1.0 / _squared_distance(q, m), margins, outputs)


def _solve_margin(density: float, p: int, critical: float) -> float:
    if density == critical:
        return 0.0
    target = 1.0 / density

    def excess(m: float) -> float:
        return _squared_distance(p, m) - target

    upper = 1.0
    while excess(upper) < 0.0:
        upper *= 2.0
    return float(optimize.brentq(excess, 0.0, upper, xtol=1e-14, rtol=1e-15))


def _solve_margin_mp(density: float, p: int, critical: float, dps: int) -> Any:
    """:func:`_solve_margin` at ``dps`` digits: secant steps from the float64 root.

    0 when ``density`` is at or above the mpmath critical density :math:`1/E[C_p]`.
    """
    target = 1 / mpmath.mpf(density)
    if _squared_distance_mp(p, 0.0, dps) >= target:
        return mpmath.mpf(0)

    def excess(m: Any) -> Any:
        return _squared_distance_mp(p, m, dps) - target

    scale = mpmath.mpf(_solve_margin(min(density, critical), p, critical))
    if scale == 0:
        scale = mpmath.mpf(10) ** -8
    # in units of the float64 root, so the secant's stopping rule is relative to the margin
    ratio = secant_root(lambda t: excess(scale * t), 1, 1 + mpmath.mpf(10) ** -8, dps)
    return scale * ratio


def max_margin(density: ArrayLike, p: ArrayLike, *, dps: int | None = None) -> Any:
    r"""Largest margin :math:`m` achievable at association density :math:`a = n/d^2` (full rank).

    Solves :math:`a\,E[\operatorname{dist}(g, K_m)^2] = 1` for :math:`m`
    (Brent's method to ``1e-14``); :math:`E\operatorname{dist}^2` increases
    with :math:`m` since :math:`K_m` shrinks.  At :math:`p = 2` this is
    Gardner's curve with :math:`m = \sqrt2\,\kappa_G` (module docstring).

    Status: asymptotic. The :math:`d \to \infty` margin of the max-margin :math:`W` at fixed
    :math:`a` and :math:`p` (docs/theory/mechanism.md), evaluated to ``1e-12`` relative. At the
    sizes one simulates the measured margin is lower: 0.56-0.64 from
    :func:`lamcap.normalized_scores` against 0.698 at d = 24, p = 80 (docs/vocabulary.md,
    Margins).

    Parameters
    ----------
    density : float or array_like
        :math:`a = n/d^2` in :math:`(0, a_c(p)]`, :math:`a_c(p) = 1/E[C_p]` the
        critical density.
    p : int or array_like of int
        Number of outputs, ``p >= 2``; broadcasts with ``density``.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits: secant steps from the
        float64 root on the mpmath :math:`E\operatorname{dist}^2` of
        :func:`density_at_margin` (about 5 evaluations; at :math:`p > 2` each is
        an mpmath quadrature of several seconds).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        :math:`m \ge 0` in units of the competitor spread; 0 at the critical
        density.  Broadcast shape of ``density`` and ``p``.

    Notes
    -----
    Precision: ``1e-12`` relative in :math:`m` (limited by
    :func:`~lamcap.theory.statistical_dimension`); reproduces Gardner's
    :math:`a_c(\kappa_G)` at :math:`p = 2` to ``1e-10``.  Reference:
    docs/theory/mechanism.md (margin); Gardner (1988).

    Examples
    --------
    >>> round(float(max_margin(gardner_density(0.5), 2)) / math.sqrt(2), 10)
    0.5
    >>> max_margin(2.0, 2)
    np.float64(0.0)
    >>> print(mpmath.nstr(max_margin(1, 2, dps=25), 25))  # sqrt(2) kappa_G where a_c = 1
    0.6656071828763260338851149
    """
    densities, outputs = broadcast(
        check_finite_array("density", density, minimum=0.0, closed="(]"),
        check_integer_array("p", p, minimum=2),
        names=("density", "p"),
    )
    digits = check_dps(dps)
    criticals = {q: 1.0 / _squared_distance(q, 0.0) for q in set(outputs.ravel().tolist())}
    too_high = np.array(
        [a > criticals[q] * (1 + 1e-14) for a, q in zip(densities.flat, outputs.flat, strict=True)]
    ).reshape(densities.shape)
    if np.any(too_high):
        index = tuple(int(i) for i in np.argwhere(too_high)[0])
        q = int(outputs[index])
        where = (
            "" if densities.ndim == 0 else f" (element {index[0] if len(index) == 1 else index})"
        )
        msg = (
            f"density must be in (0, {criticals[q]:.12g}] (the critical density 1/E[C_p] "
            f"at p={format_integer(q)}), got {plain(densities[index])}{where}"
        )
        raise ValueError(msg)
    if digits is not None:
        work = working_dps(digits)
        return elementwise(
            lambda a, q: _solve_margin_mp(a, q, criticals[q], work),
            densities,
            outputs,
            dps=digits,
        )
    return elementwise(
        lambda a, q: _solve_margin(min(a, criticals[q]), q, criticals[q]), densities, outputs
    )


def gardner_density(stability: ArrayLike, *, dps: int | None = None) -> Any:
    r"""Gardner's perceptron capacity :math:`a_c(\kappa_G) = n/N` at stability :math:`\kappa_G` (closed form).

    .. math::

        a_c(\kappa_G) = \Big[\int_{-\kappa_G}^\infty Dz\,(z+\kappa_G)^2\Big]^{-1}
        = \big[(1+\kappa_G^2)\Phi(\kappa_G) + \kappa_G\varphi(\kappa_G)\big]^{-1},

    an association density (patterns per weight).  Equal to
    ``density_at_margin(sqrt(2) * stability, 2)`` (module docstring).
    Reference: Gardner (1988), docs/theory/mechanism.md (margin).

    Status: asymptotic. Gardner's capacity of the perceptron as the number of weights
    :math:`N \to \infty`; the closed form is evaluated to full float64 precision.

    Parameters
    ----------
    stability : float or array_like
        Gardner's stability :math:`\kappa_G` (any real): the margin of the
        difference :math:`\lambda_t - \lambda_\rho` in units of its own spread,
        :math:`\kappa_G = m/\sqrt2`.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits (the closed form in mpmath).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        :math:`a_c(\kappa_G)` (closed form, full float64 precision), shaped
        like ``stability``.

    Examples
    --------
    >>> round(float(gardner_density(0.0)), 12)  # Cover's 2
    2.0
    >>> print(mpmath.nstr(gardner_density(1, dps=25), 25))
    0.519572229604937969487656
    """
    stabilities = check_finite_array("stability", stability)
    digits = check_dps(dps)
    if digits is not None:
        return elementwise(lambda s: 1 / _gardner_second_moment_mp(s), stabilities, dps=digits)
    with np.errstate(divide="ignore"):  # a moment below every float64: a_c beyond it, inf
        return float_result(1.0 / _gardner_second_moment(stabilities))

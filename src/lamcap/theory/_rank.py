r"""Rank-constrained capacity: the truncated quarter-circle law (docs/theory/rank.md).

A rank-:math:`r` weight matrix :math:`W = Q R^\top` (:math:`r = \kappa d`) can
only use the top :math:`\kappa`-fraction of the singular values of a Gaussian
matrix.  With the quarter-circle law :math:`\rho(s) = \sqrt{4 - s^2}/\pi` on
:math:`[0, 2]` (singular values of a :math:`d \times d` standard Gaussian
matrix divided by :math:`\sqrt d`), the lower edge :math:`s_\kappa` of the top
:math:`\kappa`-fraction and the retained energy :math:`F(\kappa)` are

.. math::

    \kappa = \int_{s_\kappa}^2 \rho(s)\,ds, \qquad
    F(\kappa) = \int_{s_\kappa}^2 s^2 \rho(s)\,ds, \qquad
    \alpha_c(\kappa) = F(\kappa)/2 .

Substituting :math:`s = 2\sin\theta` gives :math:`\kappa = 1 - (2\theta +
\sin 2\theta)/\pi`, :math:`s_\kappa = 2\sin\theta` and
:math:`\alpha_c = 1/2 - \theta/\pi + \sin(4\theta)/(4\pi)`.

Numerics
--------
With :math:`x = \pi - 2\theta` and :math:`y = 2\theta` the equations become
Kepler's equation at unit eccentricity,

.. math::

    x - \sin x = \pi\kappa, \qquad y + \sin y = \pi(1 - \kappa),
    \qquad F = \frac{2x - \sin 2x}{2\pi} = 1 - \frac{2y - \sin 2y}{2\pi}.

For :math:`\kappa \le 1/2` we solve for :math:`x`, for :math:`\kappa > 1/2`
for :math:`y`, so that every quantity is computed without cancellation:
:math:`u - \sin u` is summed from its Taylor series for :math:`u < 2`.  Two
Halley steps from the starting point :math:`c(1 + c^2/60)`,
:math:`c = (6\pi\kappa)^{1/3}` (resp. :math:`y_0 = \pi(1-\kappa)/2`) reach
machine precision on all of :math:`(0, 1]`; we take three.  Below
:math:`\kappa = 10^{-30}` the series :math:`F = 4\kappa(1 + O(\kappa^{2/3}))`
is exact in float64.  Measured against 40-digit mpmath, the float64 results are
within a few ulp (relative error :math:`\lesssim 5\times 10^{-16}`) for every
:math:`\kappa \in (0, 1]`.  With ``dps=k`` the same equations are solved by
Newton's method in mpmath with guard digits and the result is correct to
:math:`k` significant digits.

Reference: arXiv:2605.10795 (rank-constrained capacity); docs/theory/rank.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath
import numba
import numpy as np
from mpmath.libmp import NoConvergence
from numpy.typing import ArrayLike, NDArray

from lamcap._validation import check_dps, check_kappa
from lamcap.theory._precision import GUARD_DIGITS, guarded, map_mp, rounded

FloatArray = NDArray[np.float64]

_HALLEY_STEPS = 3
_SERIES_CUTOFF = 2.0  # u - sin(u) from its Taylor series below this argument
_TINY_KAPPA = 1e-30  # below: F = 4 kappa exactly in float64
# Taylor coefficients of (u - sin u) / u**3 in powers of u**2, highest first.
_U_MINUS_SIN_COEFFS = tuple((-1) ** k / math.factorial(2 * k + 3) for k in reversed(range(13)))


# --------------------------------------------------------------------------- float64


@numba.njit(cache=True)
def _u_minus_sin(u: float) -> float:  # pragma: no cover - compiled
    """:math:`u - \\sin u` for ``u >= 0`` without cancellation (float64)."""
    if u >= _SERIES_CUTOFF:
        return u - math.sin(u)
    u2 = u * u
    series = 0.0
    for coefficient in _U_MINUS_SIN_COEFFS:
        series = series * u2 + coefficient
    return series * u2 * u


@numba.njit(cache=True)
def _solve_x(kappa: float) -> float:  # pragma: no cover - compiled
    """Root of :math:`x - \\sin x = \\pi\\kappa` on :math:`(0, \\pi]` (Halley)."""
    target = math.pi * kappa
    c: float = np.cbrt(6.0 * target)
    x = c * (1.0 + c * c / 60.0)
    for _ in range(_HALLEY_STEPS):
        residual = _u_minus_sin(x) - target
        slope = 2.0 * math.sin(0.5 * x) ** 2
        x -= residual / (slope - 0.5 * residual * math.sin(x) / slope)
    return x


@numba.njit(cache=True)
def _solve_y(kappa: float) -> float:  # pragma: no cover - compiled
    """Root of :math:`y + \\sin y = \\pi(1-\\kappa)` on :math:`[0, \\pi)` (Halley)."""
    target = math.pi * (1.0 - kappa)
    y = 0.5 * target
    for _ in range(_HALLEY_STEPS):
        residual = y + math.sin(y) - target
        slope = 2.0 * math.cos(0.5 * y) ** 2
        y -= residual / (slope + 0.5 * residual * math.sin(y) / slope)
    return y


@numba.njit(cache=True)
def _fill_angles_and_energy(
    kappa: FloatArray, x: FloatArray, y: FloatArray, energy: FloatArray
) -> None:  # pragma: no cover - compiled
    for i in range(kappa.size):
        k = kappa[i]
        if k < _TINY_KAPPA:
            x[i] = np.cbrt(6.0 * math.pi * k)
            y[i] = math.pi - x[i]
            energy[i] = 4.0 * k
        elif k <= 0.5:
            x[i] = _solve_x(k)
            y[i] = math.pi - x[i]
            energy[i] = _u_minus_sin(2.0 * x[i]) / (2.0 * math.pi)
        else:
            y[i] = _solve_y(k)
            x[i] = math.pi - y[i]
            energy[i] = 1.0 - _u_minus_sin(2.0 * y[i]) / (2.0 * math.pi)


def _angles_and_energy(kappa: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Return ``(x, y, F)``: :math:`x = \\pi - 2\\theta`, :math:`y = 2\\theta`, :math:`F(\\kappa)`.

    Each of the three is accurate to a few ulp relative to itself.
    """
    flat = np.ascontiguousarray(kappa, dtype=np.float64).ravel()
    x, y, energy = np.empty_like(flat), np.empty_like(flat), np.empty_like(flat)
    _fill_angles_and_energy(flat, x, y, energy)
    shape = np.shape(kappa)
    return x.reshape(shape), y.reshape(shape), energy.reshape(shape)


# --------------------------------------------------------------------------- mpmath


def _mp_kappa(value: Any) -> Any:
    """Convert one kappa to an mpf at the current precision and check it is in (0, 1]."""
    try:
        kappa = (
            mpmath.mpf(value.numerator) / value.denominator
            if isinstance(value, Fraction)
            else mpmath.mpf(value)
        )
    except (TypeError, ValueError):
        msg = f"kappa must be a real number in (0, 1], got {value!r}"
        raise ValueError(msg) from None
    if not mpmath.isfinite(kappa) or not 0 < kappa <= 1:
        msg = f"kappa must be a finite real number in (0, 1], got {value!r}"
        raise ValueError(msg)
    return kappa


def _mp_angles_and_energy(kappa_value: Any, dps: int) -> tuple[Any, Any, Any]:
    """mpmath version of :func:`_angles_and_energy` for one kappa, correct to ``dps`` digits."""
    with guarded(dps):
        kappa = _mp_kappa(kappa_value)
        estimate = float(kappa)
    if kappa <= mpmath.mpf(1) / 2:
        if estimate >= _TINY_KAPPA:
            x0 = mpmath.mpf(_solve_x(estimate))
        else:  # x = c (1 + c^2/60 + O(c^4)), c = (6 pi kappa)^(1/3); also beyond float range
            c = mpmath.cbrt(6 * mpmath.pi * kappa)
            x0 = c * (1 + c * c / 60)
        # x - sin x loses about log10(6 / x^2) digits to cancellation near x = 0.
        guard = GUARD_DIGITS + 2 + max(0, int(mpmath.ceil(-2 * mpmath.log10(x0))))
        with mpmath.workdps(dps + guard):
            kappa = _mp_kappa(kappa_value)
            x = _mp_newton(
                lambda t: t - mpmath.sin(t) - mpmath.pi * kappa,
                lambda t: 2 * mpmath.sin(t / 2) ** 2,
                x0,
                dps + 4,
            )
            y = mpmath.pi - x
            energy = (2 * x - mpmath.sin(2 * x)) / (2 * mpmath.pi)
    else:
        y0 = _solve_y(estimate)
        guard = GUARD_DIGITS + 2 + (max(0, math.ceil(-2.0 * math.log10(y0))) if y0 > 0 else 0)
        with mpmath.workdps(dps + guard):
            kappa = _mp_kappa(kappa_value)
            target = mpmath.pi * (1 - kappa)
            y = _mp_newton(
                lambda t: t + mpmath.sin(t) - target,
                lambda t: 2 * mpmath.cos(t / 2) ** 2,
                mpmath.mpf(y0),
                dps + 4,
            )
            x = mpmath.pi - y
            energy = 1 - (2 * y - mpmath.sin(2 * y)) / (2 * mpmath.pi)
    return rounded(x, dps), rounded(y, dps), rounded(energy, dps)


def _mp_newton(
    function: Callable[[Any], Any], derivative: Callable[[Any], Any], start: Any, digits: int
) -> Any:
    """Newton's method at the current mpmath precision from a float64-accurate start."""
    root = start
    tolerance = mpmath.mpf(10) ** (-digits)
    for _ in range(4 + int(math.log2(max(digits, 16) / 16)) + 2):
        if root == 0:
            return root
        step = function(root) / derivative(root)
        root -= step
        if abs(step) <= tolerance * abs(root):
            return root
    msg = "Newton iteration for the rank threshold angle did not converge"  # pragma: no cover
    raise NoConvergence(msg)  # pragma: no cover


def _float_result(values: FloatArray) -> FloatArray:
    """Return 0-d arrays as numpy scalars, like a ufunc."""
    return values[()] if values.ndim == 0 else values


# --------------------------------------------------------------------------- public


def threshold_angle(kappa: ArrayLike = 1.0, *, dps: int | None = None) -> Any:
    r"""Angle :math:`\theta(\kappa) \in [0, \pi/2)` of the rank-:math:`\kappa` cut.

    .. math::

        \kappa = 1 - \frac{2\theta + \sin 2\theta}{\pi}.

    Parameters
    ----------
    kappa : float or array in (0, 1]
        Rank ratio :math:`r/d`.
    dps : int, optional
        If given, return mpmath numbers correct to ``dps`` significant digits.

    Returns
    -------
    float64 array (numpy scalar for scalar input), or mpmath ``mpf`` / object array.

    Notes
    -----
    float64: relative error a few ulp (absolute error ``~1e-16``).
    Reference: arXiv:2605.10795; docs/theory/rank.md.

    Examples
    --------
    >>> float(threshold_angle(1.0))
    0.0
    >>> round(float(threshold_angle(0.5)), 12)
    0.41585559679
    """
    checked_dps = check_dps(dps)
    if checked_dps is not None:
        return map_mp(lambda k: _mp_angles_and_energy(k, checked_dps)[1] / 2, kappa, checked_dps)
    _, y, _ = _angles_and_energy(check_kappa(kappa))
    return _float_result(0.5 * y)


def singular_value_threshold(kappa: ArrayLike = 1.0, *, dps: int | None = None) -> Any:
    r"""Lower edge :math:`s_\kappa = 2\sin\theta` of the top :math:`\kappa`-fraction.

    .. math::

        \int_{s_\kappa}^{2} \frac{\sqrt{4 - s^2}}{\pi}\, ds = \kappa .

    Singular values are in units of :math:`\sqrt d` (quarter-circle law on [0, 2]).
    Same arguments, return types and precision as :func:`threshold_angle`.

    Examples
    --------
    >>> float(singular_value_threshold(1.0))
    0.0
    >>> round(float(singular_value_threshold(0.5)), 12)
    0.807945506599
    """
    checked_dps = check_dps(dps)
    if checked_dps is not None:

        def edge(value: Any) -> Any:
            x, y, _ = _mp_angles_and_energy(value, checked_dps + 2)
            return 2 * (mpmath.sin(y / 2) if y < x else mpmath.cos(x / 2))

        return map_mp(edge, kappa, checked_dps)
    x, y, _ = _angles_and_energy(check_kappa(kappa))
    # 2 sin(theta) = 2 sin(y / 2) = 2 cos(x / 2); use the form whose argument is small.
    return _float_result(np.where(y < x, 2.0 * np.sin(0.5 * y), 2.0 * np.cos(0.5 * x)))


def retained_energy(kappa: ArrayLike = 1.0, *, dps: int | None = None) -> Any:
    r"""Fraction :math:`F(\kappa)` of the squared Frobenius norm in the top :math:`\kappa d` singular values.

    .. math::

        F(\kappa) = \int_{s_\kappa}^{2} s^2\, \frac{\sqrt{4-s^2}}{\pi}\, ds
                  = 1 - \frac{2\theta}{\pi} + \frac{\sin 4\theta}{2\pi},

    the limit of :math:`w_r^2 / d^2` (:func:`lamcap.gaussian_width_squared`).
    :math:`F(1) = 1` and :math:`F(\kappa) \sim 4\kappa` as :math:`\kappa \to 0`.
    Same arguments, return types and precision as :func:`threshold_angle`.

    Examples
    --------
    >>> float(retained_energy(1.0))
    1.0
    >>> round(float(retained_energy(0.5)), 12)
    0.893730793878
    """
    checked_dps = check_dps(dps)
    if checked_dps is not None:
        return map_mp(lambda k: _mp_angles_and_energy(k, checked_dps)[2], kappa, checked_dps)
    return _float_result(_angles_and_energy(check_kappa(kappa))[2])


def rank_capacity(kappa: ArrayLike = 1.0, *, dps: int | None = None) -> Any:
    r"""Asymptotic capacity :math:`\alpha_c(\kappa) = F(\kappa)/2` of rank-:math:`\kappa d` memories.

    .. math::

        \alpha_c(\kappa) = \frac12 - \frac{\theta}{\pi} + \frac{\sin 4\theta}{4\pi},
        \qquad \kappa = 1 - \frac{2\theta + \sin 2\theta}{\pi},

    with the load :math:`\alpha = p\log p / d^2` (arXiv:2605.10795; docs/theory/rank.md).
    :math:`\alpha_c(1) = 1/2` and :math:`\alpha_c(\kappa)/\kappa \to 2` as
    :math:`\kappa \to 0`.  This is :func:`lamcap.capacity` with ``p=None``.

    Status: asymptotic. The :math:`d, p \to \infty` threshold of rank-:math:`\kappa d` memories
    from the quarter-circle law; for the rank-constrained problem it is Gordon's upper bound,
    whose sharpness is a claim of arXiv:2605.10795 (docs/theory/rank.md). Evaluated to float64
    relative error :math:`\lesssim 5\times10^{-16}`.

    Parameters
    ----------
    kappa : float or array in (0, 1]
        Rank ratio :math:`r/d`; arrays broadcast elementwise (float64).
    dps : int, optional
        Return mpmath numbers correct to ``dps`` significant digits.  Scalars
        may then also be given as strings, ``Fraction`` or ``mpf``.

    Returns
    -------
    float64 array (numpy scalar for scalar input), or ``mpf`` / object array.

    Notes
    -----
    float64 relative error :math:`\lesssim 5\times10^{-16}` on all of (0, 1]
    (vectorised Halley iteration, see the module notes); more than
    :math:`10^6` values per second.

    Examples
    --------
    >>> float(rank_capacity(1.0))
    0.5
    >>> [round(float(a), 10) for a in rank_capacity([0.25, 0.5, 0.75])]
    [0.3114562756, 0.4468653969, 0.4935239015]
    >>> import mpmath
    >>> print(mpmath.nstr(rank_capacity("0.5", dps=30), 30))
    0.44686539693902700905674486222
    """
    checked_dps = check_dps(dps)
    if checked_dps is not None:

        def half_energy(value: Any) -> Any:
            return _mp_angles_and_energy(value, checked_dps + 1)[2] / 2

        return map_mp(half_energy, kappa, checked_dps)
    return _float_result(0.5 * _angles_and_energy(check_kappa(kappa))[2])

r"""Quarter-circle singular-value laws: ``family="optimum"`` and ``family="gaussian"``.

``family="optimum"`` (docs/theory/mechanism.md, arXiv:2605.10795)
    The weights at capacity.  For :math:`\kappa = 1` the quarter circle
    :math:`\rho(s) = \sqrt{4 - s^2}/\pi` on :math:`[0, 2]`; for
    :math:`\kappa < 1` its top :math:`\kappa`-fraction
    :math:`\rho(s)\,\mathbf 1[s \ge s_\kappa]/\kappa`, where
    :math:`\int_{s_\kappa}^2 \rho = \kappa`.  With :math:`s = 2\sin\theta` the
    cdf of the quarter circle is :math:`(2\theta + \sin 2\theta)/\pi`.
``family="gaussian"``
    A Gaussian ``W`` at initialisation (i.i.d. entries): the quarter circle.
    Only :math:`\kappa = 1` is meaningful.

Both precisions, in raw units (quarter circle on :math:`[0, 2]`): numba kernels for
float64 (:func:`quarter_circle_apply`) and mpmath forms for ``dps=``
(:func:`mp_edges`, :func:`mp_density`, :func:`mp_cdf`).  The law objects, the
normalisations and the public functions are in :mod:`lamcap.theory._spectrum`.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numba
import numpy as np
from numpy.typing import NDArray

from lamcap.theory._rank import singular_value_threshold

FloatArray = NDArray[np.float64]

# ----------------------------------------------------------------------------
# float64: the quarter circle in angle coordinates (s = 2 sin theta = 2 cos phi)
# ----------------------------------------------------------------------------

_SERIES_ORDER = 10


@numba.njit(cache=True)
def _x_minus_sin_x(x: float) -> float:
    """``x - sin x`` without cancellation for small ``x`` (Taylor series below 1)."""
    if abs(x) >= 1.0:
        return x - math.sin(x)
    x2 = x * x
    term = x * x2 / 6.0
    total = term
    for k in range(2, _SERIES_ORDER):
        term = -term * x2 / ((2 * k) * (2 * k + 1))
        total += term
    return total


@numba.njit(cache=True)
def _qc_cdf_one(s: float, kappa: float) -> float:
    """Raw truncated quarter-circle cdf; the upper tail is used above sqrt 2 (no cancellation).

    ``P(S <= 2 sin theta) = (2 theta + sin 2 theta)/pi`` and
    ``P(S > 2 cos phi) = (2 phi - sin 2 phi)/pi``.
    """
    if s >= 2.0:
        return 1.0
    if kappa == 1.0 and s <= math.sqrt(2.0):
        if s <= 0.0:
            return 0.0
        theta = math.asin(0.5 * s)
        return (2.0 * theta + math.sin(2.0 * theta)) / math.pi
    phi = 2.0 * math.asin(math.sqrt(0.25 * (2.0 - max(s, 0.0))))
    tail = _x_minus_sin_x(2.0 * phi) / math.pi
    return min(max(1.0 - tail / kappa, 0.0), 1.0)


@numba.njit(cache=True)
def _qc_theta_lower(target: float) -> float:
    """Solve ``2 theta + sin 2 theta = target`` (target <= pi/2) by Newton.

    The left side is increasing and concave with slope 4 at 0, so Newton's
    iterates started at ``target/4`` increase monotonically to the root.
    """
    theta = 0.25 * target
    for _ in range(40):
        step = (target - 2.0 * theta - math.sin(2.0 * theta)) / (4.0 * math.cos(theta) ** 2)
        theta += step
        if abs(step) <= 1e-16 * theta:
            break
    return theta


@numba.njit(cache=True)
def _qc_phi_upper(target: float) -> float:
    """Solve ``2 phi - sin 2 phi = target`` for ``phi`` in ``[0, pi/2]``.

    Newton on the cube root ``k(phi) = (2 phi - sin 2 phi)^{1/3}``, which is
    increasing and concave with ``k ~ (4/3)^{1/3} phi``; the start
    ``(3 target/4)^{1/3}`` lies below the root, so the iterates increase
    monotonically and converge quadratically.
    """
    if target <= 0.0:
        return 0.0
    goal = np.cbrt(target)
    phi = np.cbrt(0.75 * target)
    for _ in range(40):
        k = np.cbrt(_x_minus_sin_x(2.0 * phi))
        step = (goal - k) * 3.0 * k * k / (4.0 * math.sin(phi) ** 2)
        phi += step
        if abs(step) <= 1e-16 * phi:
            break
    return float(phi)


@numba.njit(cache=True)
def _qc_quantile_one(u: float, kappa: float) -> float:
    """Raw truncated quarter-circle quantile (``head``/``tail`` split at 1/2)."""
    tail = kappa * (1.0 - u)
    head = 1.0 - tail if kappa < 1.0 else u
    if head <= 0.5:
        return 2.0 * math.sin(_qc_theta_lower(math.pi * head))
    return 2.0 * math.cos(_qc_phi_upper(math.pi * tail))


@numba.njit(cache=True)
def _qc_density_one(s: float, kappa: float, lower_edge: float) -> float:
    if s < lower_edge or s > 2.0:
        return 0.0
    return math.sqrt((2.0 - s) * (2.0 + s)) / (math.pi * kappa)


@numba.njit(cache=True)
def _kernel(kind: int, flat: FloatArray, kappa: float, lower_edge: float) -> FloatArray:
    """Elementwise density (kind 0), cdf (1) or quantile (2)."""
    out = np.empty(flat.size)
    for i in range(flat.size):
        if kind == 0:
            out[i] = _qc_density_one(flat[i], kappa, lower_edge)
        elif kind == 1:
            out[i] = _qc_cdf_one(flat[i], kappa)
        else:
            out[i] = _qc_quantile_one(flat[i], kappa)
    return out


def lower_edge(kappa: float) -> float:
    r"""Lower edge :math:`s_\kappa` of the raw support (0 at full rank)."""
    if kappa == 1.0:
        return 0.0
    return float(singular_value_threshold(kappa))


def quarter_circle_apply(kind: int, x: FloatArray, kappa: float) -> FloatArray:
    """Density (kind 0), cdf (1) or quantile (2) of the raw law, elementwise."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    out = _kernel(kind, flat, kappa, lower_edge(kappa))
    return np.asarray(out).reshape(np.shape(x))


# ----------------------------------------------------------------------------
# mpmath (dps=)
# ----------------------------------------------------------------------------


def mp_edges(kappa: float) -> tuple[Any, Any]:
    """Raw support at the working precision."""
    return singular_value_threshold(kappa, dps=mpmath.mp.dps), mpmath.mpf(2)


def mp_density(s: Any, kappa: float) -> Any:
    """Raw density inside the support (the caller handles the outside)."""
    return mpmath.sqrt(4 - s * s) / (mpmath.pi * mpmath.mpf(kappa))


def mp_cdf(s: Any, kappa: float) -> Any:
    """Raw cdf inside the support, from the upper tail (no cancellation)."""
    phi = mpmath.acos(s / 2)
    return 1 - (2 * phi - mpmath.sin(2 * phi)) / (mpmath.pi * mpmath.mpf(kappa))

r"""The product singular-value law, ``family="product"``: ``W = Q Rᵀ`` at initialisation.

``family="product"``
    ``W = Q Rᵀ`` at initialisation, ``Q, R`` of shape ``(d, m)`` with i.i.d.
    entries of variance ``1/d``.  The non-zero squared singular values are the
    eigenvalues of :math:`(Q^\top Q)(R^\top R)`, a product of two free
    Marchenko–Pastur matrices of ratio :math:`\kappa` and mean 1.  Their
    S-transforms are :math:`1/(1 + \kappa z)`, so the product has
    :math:`S(z) = (1+\kappa z)^{-2}` and its moment generating function
    :math:`\psi(z) = \sum_{k\ge1} z^k E\lambda^k` solves
    :math:`x\psi = (1+\psi)(1+\kappa\psi)^2` with :math:`x = 1/z`.  With
    :math:`w = \kappa\psi` this is the well-scaled cubic

    .. math::

        w^3 + (\kappa + 2) w^2 + (1 + 2\kappa - x) w + \kappa = 0 ,

    and the eigenvalue density is :math:`f(x) = -\operatorname{Im} w/(\pi\kappa x)`
    for the root with :math:`\operatorname{Im} w < 0`.  Integrating the
    Stieltjes transform :math:`G = (1+\psi)/x` along the root gives the closed
    cdf :math:`F(x) = 1 - \operatorname{Im} H/\pi` with
    :math:`H = 2\psi + 2\frac{\kappa-1}{\kappa}\log(1+\kappa\psi) - \log\psi`
    (principal logarithms).  The support edges are the critical values of
    :math:`x(w) = (\kappa + w)(1 + w)^2/w` at :math:`w_\pm =
    (-\kappa \pm \sqrt{\kappa^2 + 8\kappa})/4`; for :math:`\kappa = 1` this is the
    Fuss–Catalan law on :math:`[0, 27/4]`.  Singular values are
    :math:`s = \sqrt{x}`.

Both precisions, in raw units (for this family raw and frobenius units coincide):
numba kernels for float64 (:func:`product_apply`) and mpmath forms for ``dps=``
(:func:`mp_edges`, :func:`mp_density`, :func:`mp_cdf`).  The law objects and the
public functions are in :mod:`lamcap.theory._spectrum`.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numba
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# ----------------------------------------------------------------------------
# float64 (numba kernels) for the squared singular values x = s^2
# ----------------------------------------------------------------------------


@numba.njit(cache=True)
def _product_edges(kappa: float) -> tuple[float, float]:
    root = math.sqrt(kappa * kappa + 8.0 * kappa)
    w_low = (-kappa - root) / 4.0
    w_high = (-kappa + root) / 4.0
    low = (kappa + w_low) * (1.0 + w_low) ** 2 / w_low
    high = (kappa + w_high) * (1.0 + w_high) ** 2 / w_high
    return max(0.0, low) + 0.0, high  # + 0.0 turns -0.0 into 0.0


@numba.njit(cache=True)
def _product_root(x: float, kappa: float) -> tuple[float, float]:
    """Complex root ``w`` (real part, imaginary part <= 0) of the cubic at ``x``.

    Solved in ``v = 1 + w``, where the cubic reads
    ``v^3 + (kappa - 1) v^2 - x v + x = 0`` (no triple-root cancellation at
    ``x -> 0``, ``kappa = 1``): Cardano's formula (cancellation-free branch)
    gives the real root, two Newton steps polish it, and deflation leaves a
    quadratic for the complex pair.
    """
    b = kappa - 1.0
    c = -x
    shift = b / 3.0
    p_coef = c - b * shift
    q_coef = 2.0 * shift**3 - c * shift + x
    delta = 0.25 * q_coef * q_coef + p_coef**3 / 27.0
    root = math.sqrt(max(delta, 0.0))
    a = -math.copysign(np.cbrt(0.5 * abs(q_coef) + root), q_coef)
    r = (a - p_coef / (3.0 * a) if a != 0.0 else 0.0) - shift
    for _ in range(2):
        slope = (3.0 * r + 2.0 * b) * r + c
        if slope != 0.0:
            r -= (((r + b) * r + c) * r + x) / slope
    # deflate: v^2 + (b + r) v + (c + r (b + r)) = 0
    linear = b + r
    constant = c + r * linear
    discriminant = 4.0 * constant - linear * linear
    imaginary = 0.5 * math.sqrt(discriminant) if discriminant > 0.0 else 0.0
    return -0.5 * linear - 1.0, -imaginary


@numba.njit(cache=True)
def _product_density_one(x: float, kappa: float) -> float:
    low, high = _product_edges(kappa)
    if x <= low or x >= high:
        return 0.0
    _, imaginary = _product_root(x, kappa)
    return -imaginary / (math.pi * kappa * x)


@numba.njit(cache=True)
def _product_cdf_one(x: float, kappa: float) -> float:
    low, high = _product_edges(kappa)
    if x <= low:
        return 0.0
    if x >= high:
        return 1.0
    real, imaginary = _product_root(x, kappa)
    imaginary = -abs(imaginary)  # keep the branch from below the cut
    im_h = 2.0 * imaginary / kappa - math.atan2(imaginary, real)
    if kappa != 1.0:
        im_h += 2.0 * (kappa - 1.0) / kappa * math.atan2(imaginary, 1.0 + real)
    return min(max(1.0 - im_h / math.pi, 0.0), 1.0)


@numba.njit(cache=True)
def _product_quantile_one(u: float, kappa: float) -> float:
    low, high = _product_edges(kappa)
    if u <= 0.0:
        return low
    if u >= 1.0:
        return high
    x = low + u * (high - low)
    for _ in range(200):
        value = _product_cdf_one(x, kappa) - u
        if value > 0.0:
            high = x
        else:
            low = x
        slope = _product_density_one(x, kappa)
        candidate = x - value / slope if slope > 0.0 else 0.5 * (low + high)
        if not (low < candidate < high):
            candidate = 0.5 * (low + high)
        if abs(candidate - x) <= 2e-16 * candidate or high - low <= 2e-16 * high:
            return candidate
        x = candidate
    return x


@numba.njit(cache=True)
def _kernel(kind: int, flat: FloatArray, kappa: float) -> FloatArray:
    """Elementwise density (kind 0), cdf (1) or quantile (2) of the squared law."""
    out = np.empty(flat.size)
    for i in range(flat.size):
        if kind == 0:
            out[i] = _product_density_one(flat[i], kappa)
        elif kind == 1:
            out[i] = _product_cdf_one(flat[i], kappa)
        else:
            out[i] = _product_quantile_one(flat[i], kappa)
    return out


def product_apply(kind: int, x: FloatArray, kappa: float) -> FloatArray:
    """Density (kind 0), cdf (1) or quantile (2) of the squared law, elementwise."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    return np.asarray(_kernel(kind, flat, kappa)).reshape(np.shape(x))


def edges(kappa: float) -> tuple[float, float]:
    """Support of the singular values (square roots of the squared law's edges)."""
    low, high = _product_edges(kappa)
    return math.sqrt(float(low)), math.sqrt(float(high))


# ----------------------------------------------------------------------------
# mpmath (dps=)
# ----------------------------------------------------------------------------


def _mp_product_root(x: Any, kappa: Any) -> Any:
    roots = mpmath.polyroots(
        [1, kappa + 2, 1 + 2 * kappa - x, kappa], maxsteps=200, extraprec=4 * mpmath.mp.prec
    )
    complex_roots = [r for r in roots if mpmath.im(r) != 0]
    if not complex_roots:
        return mpmath.mpc(min(mpmath.re(r) for r in roots), 0)
    return min(complex_roots, key=mpmath.im)


def mp_edges(kappa: float) -> tuple[Any, Any]:
    """Support of the singular values at the working precision."""
    k = mpmath.mpf(kappa)
    root = mpmath.sqrt(k * k + 8 * k)
    w_low, w_high = (-k - root) / 4, (-k + root) / 4

    def edge(w: Any) -> Any:
        return (k + w) * (1 + w) ** 2 / w

    return mpmath.sqrt(max(edge(w_low), mpmath.mpf(0))), mpmath.sqrt(edge(w_high))


def mp_density(s: Any, kappa: float) -> Any:
    """Density of the singular values inside the support."""
    k = mpmath.mpf(kappa)
    w = _mp_product_root(s * s, k)
    return 2 * s * (-mpmath.im(w)) / (mpmath.pi * k * s * s)


def mp_cdf(s: Any, kappa: float) -> Any:
    r"""Closed cdf :math:`1 - \operatorname{Im} H/\pi` inside the support."""
    k = mpmath.mpf(kappa)
    w = _mp_product_root(s * s, k)
    w = mpmath.mpc(mpmath.re(w), -abs(mpmath.im(w)))
    im_h = 2 * mpmath.im(w) / k - mpmath.arg(w)
    im_h += 2 * (k - 1) / k * mpmath.arg(1 + w)
    return 1 - im_h / mpmath.pi

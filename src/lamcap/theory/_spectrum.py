r"""Singular-value laws of the memory matrix: learnt optimum and initialisation.

Three limiting laws (``d \to \infty``, ``m = \kappa d``) are implemented, each
for the :math:`m` non-zero singular values of the :math:`d \times d` weight
matrix ``W`` (the :math:`d - m` zeros of a rank-:math:`m` matrix are not part
of the law):

``law="optimum"`` (docs/theory/mechanism.md, arXiv:2605.10795)
    The weights at capacity.  For :math:`\kappa = 1` the quarter circle
    :math:`\rho(s) = \sqrt{4 - s^2}/\pi` on :math:`[0, 2]`; for
    :math:`\kappa < 1` its top :math:`\kappa`-fraction
    :math:`\rho(s)\,\mathbf 1[s \ge s_\kappa]/\kappa`, where
    :math:`\int_{s_\kappa}^2 \rho = \kappa`.  With :math:`s = 2\sin\theta` the
    cdf of the quarter circle is :math:`(2\theta + \sin 2\theta)/\pi`.
``law="gaussian"``
    A Gaussian ``W`` at initialisation (i.i.d. entries): the quarter circle.
    Only :math:`\kappa = 1` is meaningful.
``law="product"``
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

Normalisations
    ``"frobenius"`` (default): the law is scaled so that the mean of
    :math:`s^2` over the non-zero singular values is 1, i.e.
    :math:`\|W\|_F^2 = m` (:math:`= d` at full rank).  This is what
    :func:`lamcap.empirical.empirical_spectrum` does to a user's matrix.
    ``"raw"``: the units of the definitions above (quarter circle on
    :math:`[0, 2]`, i.e. the top singular values of a matrix with entries of
    variance ``1/d``; for ``"product"`` raw and frobenius coincide).

Finite-size law (``d=``, ``p=``; docs/theory/spectrum-finite-size.md)
    *Fitted* (a model whose load dependence is fitted to measurements, with a
    stated model error).  The max-margin ``W`` of ``n = p`` decoupled
    associations at dimension ``d``, full rank, normalised to
    :math:`E s^2 = 1`.  With the dual decomposition
    :math:`W = \sum_\mu c_\mu a_\mu b_\mu^\top` (unit :math:`a_\mu, b_\mu`),
    :math:`c_\mu^2` distributed like the squared projection residual
    :math:`D = \operatorname{dist}(g, K_m)^2` and :math:`\lambda = d/p`,

    .. math::

        \frac{E s^4}{(E s^2)^2} = 2 + \frac1d + c\,\lambda\,(1 - 2u)^2
        \Big(\kappa_D - \frac{2d+1}{d^2}\Big),

    :math:`u = E|A|/E D` the fraction of the :math:`d^2` directions held by
    active constraints.  Derived: :math:`2 + 1/d + \lambda[\kappa_c - (2d+1)/d^2]`
    is exact for a sum of ``n`` rank-one terms with independent uniform
    directions; :math:`\kappa_D = E D^2/(E D)^2`, ``u`` and ``m`` are exact:
    given :math:`|A| = k` the active excesses have the density
    :math:`\propto e^{mS - (S^2 + Q)/2}` on the orthant, so
    :math:`E[D \mid k] = k + m E[S \mid k]` and
    :math:`E[D^2 \mid k] = k(k+2) + m(2k+3)E[S \mid k] + m^2 E[S^2 \mid k]`,
    with the moments of :math:`S` from one contour integral each and
    :math:`P(|A| = k)` from :func:`lamcap.theory.score_law`;
    :math:`m` solves :math:`p\,E D = d^2` (:func:`lamcap.theory.max_margin`).
    Heuristic: the reaction factor :math:`(1 - 2u)^2` (an elasticity argument
    for a uniform reaction), applied to the whole rank-one term.  Fitted: the
    amplitude ``c`` (``_FIT_AMPLITUDE``), by weighted least squares on certified
    max-margin ``W`` at 0.5–0.95 critical_p(d), d = 16–64 (and d = 8, 12 at
    0.95), build seeds only; the model error is the 95% prediction half-width
    :math:`t\,\lambda\sqrt{x^2\sigma_c^2 + \tau^2}` (``x`` the regressor,
    :math:`\sigma_c` the standard error of ``c``, :math:`\tau` the scatter of
    the points about the fit, ``t`` a Student quantile).  ``_fourth_moment``
    keeps the uniform-reaction model the fit replaced,
    :math:`2 + 1/d + \lambda[(\kappa_D - 1) + (1 - 2u)^2(1 - (2d+1)/d^2)]`.

Finite-size density (``d=``, ``p=``)
    The deterministic equivalent of the same model (:math:`d \to \infty` at
    fixed :math:`\lambda` and weight law): the squared singular values are the
    free product of the Marchenko–Pastur law of the directions (S-transform
    :math:`\lambda/(\lambda + w)` in the algebra of the ``n`` terms), the input
    Gram factor (rank ``d``, its non-zero part a Marchenko–Pastur law of
    relative variance :math:`\lambda\epsilon`, :math:`\epsilon = c(1 - 2u)^2`) and
    the weights (a free Poisson law of variance
    :math:`r = c(1 - 2u)^2(\kappa_D - 1)`), the two variances of the fitted
    law.  The S-transforms multiply, so :math:`\psi(1/\zeta) = w` solves the quartic
    :math:`(\lambda + w)^2(1 + \epsilon w)(1 + r w) = \lambda x w`
    (:math:`x = \lambda\zeta` normalised to mean 1), the density of ``x`` is
    :math:`-\operatorname{Im} w/(\pi\lambda x)` and its fourth moment
    :math:`2 + \lambda(r + \epsilon)` (the moment law without its ``1/d`` terms).
    The physical root is followed from :math:`x + 10 i x_+` to the real axis.

Outside the support the density is 0 and the cdf is 0 or 1; NaN raises.

Precision: closed forms to a few ulp in the bulk (relative error grows like
``eps/sqrt(distance to an edge)`` next to a square-root edge, the intrinsic
conditioning); quantiles by monotone Newton iterations to machine precision.
``dps=`` evaluates with mpmath at that many digits.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import mpmath
import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize, special

from lamcap._validation import check_finite_array, check_integer, check_kappa, check_real, plain
from lamcap.theory._arrays import broadcast, elementwise
from lamcap.theory._law import Law, check_points, quadrature_moment
from lamcap.theory._rank import retained_energy, singular_value_threshold, threshold_angle

LAWS = ("optimum", "gaussian", "product")
NORMALIZATIONS = ("frobenius", "raw")

FloatArray = NDArray[np.float64]


# ----------------------------------------------------------------------------
# argument handling
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Law:
    """A validated (law, kappa, normalization) with its scale ``s = scale * s_raw``."""

    name: str
    kappa: float
    scale: float


def _resolve_law(kappa: Any, law: str, normalization: str) -> _Law:
    kappa_array = check_kappa(kappa)
    if kappa_array.ndim != 0:
        msg = f"kappa must be a scalar in (0, 1], got shape {kappa_array.shape}"
        raise ValueError(msg)
    kappa_value = float(kappa_array)
    if law not in LAWS:
        msg = f"law must be one of {LAWS}, got {law!r}"
        raise ValueError(msg)
    if normalization not in NORMALIZATIONS:
        msg = f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}"
        raise ValueError(msg)
    if law == "gaussian" and kappa_value != 1.0:
        msg = f"kappa must be 1 for law='gaussian' (a full-rank Gaussian matrix), got {kappa!r}"
        raise ValueError(msg)
    scale = 1.0
    if law != "product" and normalization == "frobenius":
        scale = math.sqrt(kappa_value / float(retained_energy(kappa_value)))
    return _Law(law, kappa_value, scale)


# ----------------------------------------------------------------------------
# quarter circle in angle coordinates (s = 2 sin theta = 2 cos phi)
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


def _qc_apply(kind: int, x: FloatArray, law: _Law) -> FloatArray:
    """Apply a quarter-circle kernel (0 density, 1 cdf, 2 quantile) elementwise."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    out = _kernel(False, kind, flat, law.kappa, _edge_lower_raw(law))
    return np.asarray(out).reshape(np.shape(x))


# ----------------------------------------------------------------------------
# product law Q R^T (numba kernels)
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
def _kernel(
    product: bool, kind: int, flat: FloatArray, kappa: float, lower_edge: float
) -> FloatArray:
    """Elementwise density (kind 0), cdf (1) or quantile (2) of either law."""
    out = np.empty(flat.size)
    for i in range(flat.size):
        if product:
            if kind == 0:
                out[i] = _product_density_one(flat[i], kappa)
            elif kind == 1:
                out[i] = _product_cdf_one(flat[i], kappa)
            else:
                out[i] = _product_quantile_one(flat[i], kappa)
        elif kind == 0:
            out[i] = _qc_density_one(flat[i], kappa, lower_edge)
        elif kind == 1:
            out[i] = _qc_cdf_one(flat[i], kappa)
        else:
            out[i] = _qc_quantile_one(flat[i], kappa)
    return out


def _product_apply(kind: int, x: FloatArray, kappa: float) -> FloatArray:
    """Apply a product-law kernel (0 density, 1 cdf, 2 quantile) elementwise."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    return np.asarray(_kernel(True, kind, flat, kappa, 0.0)).reshape(np.shape(x))


# ----------------------------------------------------------------------------
# float64 evaluation in raw units
# ----------------------------------------------------------------------------


def _raw_density(s: FloatArray, law: _Law) -> FloatArray:
    if law.name == "product":
        positive = np.where((s > 0) & (s < np.inf), s, 0.0)
        return 2.0 * positive * _product_apply(0, positive * positive, law.kappa)
    return _qc_apply(0, s, law)


def _raw_cdf(s: FloatArray, law: _Law) -> FloatArray:
    if law.name == "product":
        positive = np.where(s > 0, s, 0.0)
        return _product_apply(1, positive * positive, law.kappa)
    return _qc_apply(1, s, law)


def _raw_quantile(u: FloatArray, law: _Law) -> FloatArray:
    if law.name == "product":
        return np.sqrt(_product_apply(2, u, law.kappa))
    return _qc_apply(2, u, law)


def _edge_lower_raw(law: _Law) -> float:
    if law.name == "product":
        return math.sqrt(float(_product_edges(law.kappa)[0]))
    if law.kappa == 1.0:
        return 0.0
    return float(singular_value_threshold(law.kappa))


def _edge_upper_raw(law: _Law) -> float:
    if law.name == "product":
        return math.sqrt(float(_product_edges(law.kappa)[1]))
    return 2.0


# ----------------------------------------------------------------------------
# mpmath evaluation (dps=)
# ----------------------------------------------------------------------------


def _mp_product_root(x: Any, kappa: Any) -> Any:
    roots = mpmath.polyroots(
        [1, kappa + 2, 1 + 2 * kappa - x, kappa], maxsteps=200, extraprec=4 * mpmath.mp.prec
    )
    complex_roots = [r for r in roots if mpmath.im(r) != 0]
    if not complex_roots:
        return mpmath.mpc(min(mpmath.re(r) for r in roots), 0)
    return min(complex_roots, key=mpmath.im)


def _mp_edges(law: _Law) -> tuple[Any, Any]:
    kappa = mpmath.mpf(law.kappa)
    if law.name == "product":
        root = mpmath.sqrt(kappa * kappa + 8 * kappa)
        w_low, w_high = (-kappa - root) / 4, (-kappa + root) / 4

        def edge(w: Any) -> Any:
            return (kappa + w) * (1 + w) ** 2 / w

        return mpmath.sqrt(max(edge(w_low), mpmath.mpf(0))), mpmath.sqrt(edge(w_high))
    return singular_value_threshold(law.kappa, dps=mpmath.mp.dps), mpmath.mpf(2)


def _mp_density(s: Any, law: _Law) -> Any:
    low, high = _mp_edges(law)
    if s <= low or s >= high:
        return mpmath.mpf(0)
    kappa = mpmath.mpf(law.kappa)
    if law.name == "product":
        w = _mp_product_root(s * s, kappa)
        return 2 * s * (-mpmath.im(w)) / (mpmath.pi * kappa * s * s)
    return mpmath.sqrt(4 - s * s) / (mpmath.pi * kappa)


def _mp_cdf(s: Any, law: _Law) -> Any:
    low, high = _mp_edges(law)
    if s <= low:
        return mpmath.mpf(0)
    if s >= high:
        return mpmath.mpf(1)
    kappa = mpmath.mpf(law.kappa)
    if law.name == "product":
        w = _mp_product_root(s * s, kappa)
        w = mpmath.mpc(mpmath.re(w), -abs(mpmath.im(w)))
        im_h = 2 * mpmath.im(w) / kappa - mpmath.arg(w)
        im_h += 2 * (kappa - 1) / kappa * mpmath.arg(1 + w)
        return 1 - im_h / mpmath.pi
    phi = mpmath.acos(s / 2)
    return 1 - (2 * phi - mpmath.sin(2 * phi)) / (mpmath.pi * kappa)


#: Newton steps polishing the mpmath quantile (from 1e-16, two reach 60 digits).
_MP_NEWTON_STEPS = 6


def _mp_quantile(u: Any, law: _Law) -> Any:
    low, high = _mp_edges(law)
    if u <= 0:
        return low
    if u >= 1:
        return high
    root = mpmath.findroot(lambda s: _mp_cdf(s, law) - u, (low, high), solver="anderson")
    # Anderson's method stops near 1e-16 relative; Newton steps (quadratic) reach the
    # working precision.
    for _ in range(_MP_NEWTON_STEPS):
        slope = _mp_density(root, law)
        if slope <= 0:
            break
        step = (_mp_cdf(root, law) - u) / slope
        root -= step
        if abs(step) <= mpmath.eps * abs(root):
            break
    return root


def _mp_scale(law: _Law) -> Any:
    if law.scale == 1.0:
        return mpmath.mpf(1)
    return mpmath.sqrt(law.kappa / retained_energy(law.kappa, dps=mpmath.mp.dps))


# ----------------------------------------------------------------------------
# finite-size law of the max-margin W (docs/theory/spectrum-finite-size.md)
# ----------------------------------------------------------------------------

#: Fraction of the finite-size critical p below which ``p`` is rejected: the
#: fitted law is built and checked on certified max-margin W from 0.5 to
#: 0.95 critical_p(d) (docs/measurements/spectrum.md).
_LOWEST_LOAD = 0.5
#: The fitted finite-size law (docs/theory/spectrum-finite-size.md, section 5):
#: E s^4 = 2 + 1/d + c (d/p) (1 - 2u)^2 (kappa_D - (2d + 1)/d^2), the amplitude
#: ``c`` by weighted least squares on the build seeds (< 1000) of
#: docs/measurements/spectrum_finite_size.csv, its variance and the scatter
#: ``tau`` of the points about the fit (in units of d/p; the upper 95% confidence
#: limit), from ``measurements/spectrum_finite_size_report.py --fit``.
_FIT_AMPLITUDE = 1.3067
_FIT_VARIANCE = 1.5808e-03
_FIT_SCATTER = 0.1249
#: Quantile of the stated model error (a 95% prediction half-width): Student t
#: with the fit's 26 degrees of freedom (27 build points, one coefficient).
_ERROR_QUANTILE = 2.0555
#: Dimensions accepted with ``d=`` (above 1024 the exact active-set law of
#: :func:`lamcap.theory.score_law` is not available in float64).
_SMALLEST_D = 8
_LARGEST_D = 1024
#: Trapezoid rule of the orthant integrals (step, half-width): the integrand is
#: entire and bounded by ``phi(t) h(a)^k``, so the error is far below 1e-14.
_ORTHANT_STEP = 0.02
_ORTHANT_HALF_WIDTH = 12.0


def _log_h(z: Any) -> Any:
    r""":math:`\log h(z)`, :math:`h(z) = \int_0^\infty e^{ze - e^2/2}\,de = \sqrt{\pi/2}\,w(-iz/\sqrt2)`."""
    return np.log(math.sqrt(math.pi / 2.0) * special.wofz(-1j * np.asarray(z) / math.sqrt(2.0)))


def _orthant_saddle(k: int, margin: float) -> float:
    r"""Contour shift :math:`\eta \ge 0` at the saddle of :math:`e^{\eta^2/2} h(m - \eta)^k`."""

    def slope(eta: float) -> float:
        x = margin - eta
        h = math.sqrt(math.pi / 2.0) * float(special.erfcx(-x / math.sqrt(2.0)))
        return eta - k * (1.0 + x * h) / h

    if slope(0.0) >= 0.0:
        return 0.0
    return float(optimize.brentq(slope, 0.0, math.sqrt(k) + abs(margin) + 10.0, xtol=1e-12))


@functools.lru_cache(maxsize=4096)
def _orthant_moments(k: int, margin: float) -> tuple[float, float]:
    r""":math:`E[S \mid |A| = k]` and :math:`E[S^2 \mid |A| = k]` of the projection residual.

    Given :math:`|A| = k`, the excesses :math:`e_i = c_i - \ell^* > 0` of the
    active competitors have the density :math:`\propto e^{mS - (S^2 + Q)/2}` on
    the positive orthant (:math:`S = \sum e_i`, :math:`Q = \sum e_i^2`),
    independently of the target level.  With
    :math:`e^{-S^2/2} = E_\xi e^{i\xi S}` the normaliser is
    :math:`Z_k(m) = E_\xi[h(m + i\xi)^k]`; its ``m``-derivatives give the
    moments of :math:`S`.  The contour is shifted to the saddle point
    (:func:`_orthant_saddle`) so that no cancellation occurs.
    """
    if k == 0:
        return 0.0, 0.0
    eta = _orthant_saddle(k, margin)
    t = np.arange(-_ORTHANT_HALF_WIDTH, _ORTHANT_HALF_WIDTH + _ORTHANT_STEP / 2, _ORTHANT_STEP)
    z = margin - eta + 1j * t
    log_h = _log_h(z)
    h = np.exp(log_h)
    first = 1.0 + z * h  # h'
    second = h + z * first  # h''
    log_weight = k * log_h - 1j * eta * t - 0.5 * t * t
    weight = np.exp(log_weight - np.max(log_weight.real))
    ratio_1 = first / h
    zeroth = np.sum(weight)
    mean = np.sum(weight * k * ratio_1) / zeroth
    square = np.sum(weight * (k * (k - 1) * ratio_1**2 + k * second / h)) / zeroth
    return float(mean.real), float(square.real)


@dataclass(frozen=True)
class _ResidualMoments:
    r"""Moments of :math:`D = \operatorname{dist}(g, K_m)^2` and :math:`|A|` at margin ``m``."""

    margin: float
    active: float  # E|A|
    mean: float  # E D
    square: float  # E D^2
    level: float  # E S = E l*


def _residual_moments(p: int, margin: float) -> _ResidualMoments:
    r"""Exact :math:`E|A|`, :math:`E D`, :math:`E D^2`, :math:`E S` at margin ``m`` (Stein identities).

    Scaling :math:`e \to e/\sqrt\beta` in the orthant integral gives
    :math:`E[D \mid k] = k + m\,E[S \mid k]` and
    :math:`E[D^2 \mid k] = k(k+2) + m(2k+3)\,E[S \mid k] + m^2 E[S^2 \mid k]`
    (at :math:`m = 0`: :math:`D \mid k \sim \chi^2_k`).  :math:`P(|A| = k)` is
    :meth:`lamcap.theory.ScoreLaw.active_probabilities`.
    """
    from lamcap.theory._scores import score_law  # noqa: PLC0415  (scores imports geometry)

    law = np.asarray(score_law(p, margin=margin).active_probabilities(), dtype=np.float64)
    k = np.arange(law.size, dtype=np.float64)
    moments = np.array([_orthant_moments(int(j), margin) for j in range(law.size)])
    s1, s2 = moments[:, 0], moments[:, 1]
    mean_d = k + margin * s1
    square_d = k * (k + 2.0) + margin * (2.0 * k + 3.0) * s1 + margin**2 * s2
    return _ResidualMoments(
        margin,
        float(np.dot(law, k)),
        float(np.dot(law, mean_d)),
        float(np.dot(law, square_d)),
        float(np.dot(law, s1)),
    )


@dataclass(frozen=True)
class _FiniteSize:
    r"""The finite-size law at ``(d, p)``, ``n = p`` associations (module docstring)."""

    d: int
    p: int
    ratio: float  # lambda = d / n
    margin: float  # m solving n E dist(g, K_m)^2 = d^2
    constrained: float  # u = E|A| / E D
    heterogeneity: float  # kappa_D = E D^2 / (E D)^2
    gram: float  # relative variance of the Gram factor: c (1 - 2u)^2 (fitted c)
    spread: float  # variance of the weight factor: c (1 - 2u)^2 (kappa_D - 1)
    fourth: float  # E s^4 / (E s^2)^2 of the finite matrix (fitted law)
    error: float  # its model error, a 95% prediction half-width


def _check_size(d: Any, p: Any) -> tuple[int, int]:
    """Validate ``d`` and ``p`` of the finite-size law (both or neither must be given)."""
    from lamcap.theory._capacity import critical_p  # noqa: PLC0415

    if d is None or p is None:
        missing, given, value = ("p", "d", d) if p is None else ("d", "p", p)
        msg = (
            f"{missing} must be given together with {given} (got {given}={value!r}, {missing}=None)"
        )
        raise ValueError(msg)
    dimension = check_integer("d", d, minimum=_SMALLEST_D, maximum=_LARGEST_D)
    critical = float(critical_p(dimension))
    low, high = round(_LOWEST_LOAD * critical), math.floor(critical)
    try:
        outputs = check_integer("p", p, minimum=low, maximum=high)
    except ValueError:
        msg = (
            f"p must be an integer in [{low}, {high}] (round({_LOWEST_LOAD:g} critical_p(d)) "
            f"to critical_p(d), critical_p({dimension}) = {critical:.6g}), got {p!r}"
        )
        raise ValueError(msg) from None
    return dimension, outputs


@functools.lru_cache(maxsize=256)
def _finite_size(d: int, p: int) -> _FiniteSize:
    """Parameters and fourth moment of the finite-size law (module docstring)."""
    from lamcap.theory._margin import max_margin  # noqa: PLC0415

    margin = float(max_margin(min(p / d**2, _capacity_load(p)), p))
    residual = _residual_moments(p, margin)
    ratio = d / p
    heterogeneity = residual.square / residual.mean**2
    constrained = residual.active / residual.mean
    reaction = (1.0 - 2.0 * constrained) ** 2
    fourth, error = _fitted_fourth_moment(d, ratio, heterogeneity, constrained)
    return _FiniteSize(
        d,
        p,
        ratio,
        margin,
        constrained,
        heterogeneity,
        _FIT_AMPLITUDE * reaction,
        _FIT_AMPLITUDE * reaction * (heterogeneity - 1.0),
        fourth,
        error,
    )


def _capacity_load(p: int) -> float:
    from lamcap.theory._cone import statistical_dimension  # noqa: PLC0415

    return 1.0 / float(statistical_dimension(p))


def _fourth_moment(d: int, ratio: float, heterogeneity: float, constrained: float) -> float:
    r"""The uniform-reaction model of :math:`E s^4/(E s^2)^2` (theory page, section 4).

    .. math::

        2 + \frac1d + \lambda\Big[(\kappa_D - 1)
        + (1 - 2u)^2\Big(1 - \frac{2d + 1}{d^2}\Big)\Big].

    Exact for the rank-one sum at :math:`u = 1` (section 2); the
    :math:`(1 - 2u)^2` step is a heuristic.  Kept as the model the fitted law
    (:func:`_fitted_fourth_moment`) replaces: it has the wrong load dependence
    (docs/measurements/spectrum.md).
    """
    fluctuation = (1.0 - 2.0 * constrained) ** 2 * (1.0 - (2.0 * d + 1.0) / d**2)
    return 2.0 + 1.0 / d + ratio * (heterogeneity - 1.0 + fluctuation)


def _fitted_fourth_moment(
    d: int, ratio: float, heterogeneity: float, constrained: float
) -> tuple[float, float]:
    r"""The fitted finite-size :math:`E s^4/(E s^2)^2` and its model error (module docstring).

    .. math::

        2 + \frac1d + c\,\lambda x \pm t\,\lambda\sqrt{x^2\sigma_c^2 + \tau^2},
        \qquad x = (1 - 2u)^2\Big(\kappa_D - \frac{2d + 1}{d^2}\Big),

    ``c`` the fitted amplitude, :math:`\sigma_c^2` its variance, :math:`\tau` the
    scatter of the measured points about the fit and ``t`` the 97.5% Student
    quantile of the fit's degrees of freedom.
    """
    term = (1.0 - 2.0 * constrained) ** 2 * (heterogeneity - (2.0 * d + 1.0) / d**2)
    value = 2.0 + 1.0 / d + ratio * _FIT_AMPLITUDE * term
    spread = term**2 * _FIT_VARIANCE + _FIT_SCATTER**2
    return value, _ERROR_QUANTILE * ratio * math.sqrt(spread)


# ----------------------------------------------------------------------------
# finite-size density: free product of three Marchenko-Pastur-type laws
# ----------------------------------------------------------------------------

#: Composite Gauss-Legendre rule of the finite-size cdf (in the angle s = s_top sin t).
_CDF_PANELS = 8
_CDF_NODES = 20


#: Imaginary parts along which the physical root is followed down to the real axis.
_TRACK_HEIGHTS = np.concatenate([np.geomspace(10.0, 1e-9, 31), [0.0]])


def _free_coefficients(x: NDArray[np.complex128], law: _FiniteSize) -> NDArray[np.complex128]:
    r"""Quartic :math:`(\lambda + w)^2(1 + \epsilon w)(1 + r w) - x\lambda w` (highest first).

    One row per point ``x`` (normalised squared singular value, complex while the
    root is tracked); ``r`` and :math:`\epsilon` are the fitted variances
    ``law.spread`` and ``law.gram``.
    """
    lam, eps, r = law.ratio, law.gram, law.spread
    a, b = eps * r, eps + r
    coefficients = np.empty((x.size, 5), dtype=np.complex128)
    coefficients[:, 0] = a
    coefficients[:, 1] = b + 2.0 * lam * a
    coefficients[:, 2] = 1.0 + 2.0 * lam * b + lam * lam * a
    coefficients[:, 3] = 2.0 * lam + lam * lam * b - x * lam
    coefficients[:, 4] = lam * lam
    return coefficients


def _polynomial_roots(coefficients: NDArray[np.complex128]) -> NDArray[np.complex128]:
    """All roots of each row (highest coefficient first, the first one non-zero)."""
    degree = coefficients.shape[1] - 1
    companion = np.zeros((coefficients.shape[0], degree, degree), dtype=np.complex128)
    companion[:, 0, :] = -coefficients[:, 1:] / coefficients[:, :1]
    companion[:, np.arange(1, degree), np.arange(degree - 1)] = 1.0
    return np.asarray(np.linalg.eigvals(companion), dtype=np.complex128)


def _free_root(x: FloatArray, law: _FiniteSize) -> NDArray[np.complex128]:
    r"""The root :math:`w = \psi(1/\zeta)` of the physical branch at real ``x``.

    Followed from :math:`x + 10i\,x_+` (where it is the root nearest
    :math:`\lambda/x`, the start of its moment series) down to the real axis,
    keeping at each height the root nearest the previous one; inside the support
    it ends with :math:`\operatorname{Im} w < 0`.
    """
    top = _free_top_edge(law)
    previous: NDArray[np.complex128] | None = None
    for height in _TRACK_HEIGHTS:
        z = x + 1j * height * top
        coefficients = _free_coefficients(z, law)
        leading = int(np.argmax(np.any(coefficients != 0.0, axis=0)))  # r = 0 or eps = 0
        roots = _polynomial_roots(coefficients[:, leading:])
        guide = law.ratio / z if previous is None else previous
        nearest = np.argmin(np.abs(roots - guide[:, None]), axis=1)
        previous = np.take_along_axis(roots, nearest[:, None], axis=1)[:, 0]
    assert previous is not None
    return previous


def _free_density_squared(x: FloatArray, law: _FiniteSize) -> FloatArray:
    r"""Density of the normalised squared singular value, :math:`-\operatorname{Im} w/(\pi x\lambda)`."""
    flat = np.asarray(x, dtype=np.float64).ravel()
    inside = (flat > 0.0) & (flat < _free_top_edge(law))
    out = np.zeros(flat.size)
    if np.any(inside):
        w = _free_root(flat[inside], law)
        out[inside] = np.maximum(-w.imag, 0.0) / (math.pi * flat[inside] * law.ratio)
    return out.reshape(np.shape(x))


@functools.lru_cache(maxsize=256)
def _free_top_edge_cached(law: _FiniteSize) -> float:
    lam, eps, r = law.ratio, law.gram, law.spread

    def slope(log_w: float) -> float:  # d log x / d log w along real w > 0
        w = math.exp(log_w)
        return w * (2.0 / (lam + w) + eps / (1.0 + eps * w) + r / (1.0 + r * w)) - 1.0

    log_w = float(optimize.brentq(slope, math.log(lam) - 40.0, math.log(lam) + 40.0, xtol=1e-15))
    w = math.exp(log_w)
    return (lam + w) ** 2 * (1.0 + eps * w) * (1.0 + r * w) / (lam * w)


def _free_top_edge(law: _FiniteSize) -> float:
    """Upper edge of the normalised squared singular values (smallest ``x`` with a real root)."""
    return _free_top_edge_cached(law)


def _finite_size_density(s: FloatArray, law: _FiniteSize) -> FloatArray:
    positive = np.where((s > 0) & np.isfinite(s), s, 0.0)
    return np.where(positive > 0, 2.0 * positive * _free_density_squared(positive**2, law), 0.0)


def _finite_size_cdf(s: FloatArray, law: _FiniteSize) -> FloatArray:
    r""":math:`\int_0^s` of the density, composite Gauss–Legendre in :math:`s = s_+\sin t`.

    The panels are fixed in ``t`` on :math:`[0, \pi/2]`: the full panels below a
    point are summed once for all points, and each point adds its partial panel
    (the same 20-node rule on a shorter interval), so a point costs 20 densities.
    """
    top = math.sqrt(_free_top_edge(law))
    flat = np.clip(np.asarray(s, dtype=np.float64).ravel(), 0.0, top)
    nodes, weights = np.polynomial.legendre.leggauss(_CDF_NODES)

    def integral(start: FloatArray, stop: FloatArray) -> FloatArray:
        half = 0.5 * (stop - start)
        angles = start[:, None] + half[:, None] * (nodes + 1.0)
        values = _finite_size_density(top * np.sin(angles), law) * top * np.cos(angles)
        return np.asarray(np.sum(half[:, None] * weights * values, axis=1), dtype=np.float64)

    edges = np.linspace(0.0, 0.5 * math.pi, _CDF_PANELS + 1)
    below = np.concatenate([[0.0], np.cumsum(integral(edges[:-1], edges[1:]))])
    angle = np.arcsin(flat / top)
    panel = np.clip(np.searchsorted(edges, angle, side="right") - 1, 0, _CDF_PANELS - 1)
    total = below[panel] + integral(edges[panel], angle)
    return np.asarray(np.minimum(total, 1.0), dtype=np.float64).reshape(np.shape(s))


# ----------------------------------------------------------------------------
# the laws as objects
# ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _mp_scale_at(kappa: float, family: str, scale: float, dps: int) -> Any:
    """The normalisation scale at ``dps`` working digits (cached per law and precision)."""
    with mpmath.workdps(dps):
        return _mp_scale(_Law(family, kappa, scale))


class SingularValueLaw(Law):
    r"""Limiting law of the non-zero singular values of the memory matrix.

    :math:`d \to \infty` with rank :math:`m = \kappa d`; ``family`` is
    ``"optimum"`` (the weights at capacity: the top :math:`\kappa`-fraction of
    the quarter circle, :math:`\rho_\kappa(s) = \sqrt{4 - s^2}/(\pi\kappa)` on
    :math:`[s_\kappa, 2]` in raw units), ``"gaussian"`` (a Gaussian ``W``) or
    ``"product"`` (``Q Rᵀ`` with Gaussian factors; module docstring).  Build it
    with :func:`singular_value_law`.
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": "the non-zero singular values of ``W`` (module docstring)",
        "support": r":math:`[s_\kappa, 2]` times the normalisation scale (``support()``)",
        "routes": (
            "Routes: closed forms for ``pdf`` and ``cdf`` (a few ulp in the bulk), "
            "monotone Newton iterations for ``ppf`` (machine precision), inverse-cdf "
            "sampling for ``rvs``, 64-point Gauss-Legendre in the angle for ``moment`` "
            "(machine precision; ``family='product'`` raises); ``dps=`` on ``pdf``, "
            "``cdf``, ``sf`` and ``ppf``."
        ),
        "reference": "docs/theory/mechanism.md, arXiv:2605.10795",
        "examples": (
            ">>> law = singular_value_law(0.5, normalization='raw')\n"
            ">>> round(float(law.cdf(law.ppf(0.25))), 14)\n"
            "0.25\n"
            ">>> round(float(law.moment(2)), 12) == round(float(law.var() + law.mean()**2), 12)\n"
            "True"
        ),
    }

    def __init__(
        self, kappa: float = 1.0, *, normalization: str = "frobenius", family: str = "optimum"
    ) -> None:
        self._law = _resolve_law(kappa, family, normalization)
        self.normalization = normalization

    @property
    def kappa(self) -> float:
        """Rank ratio :math:`m/d` in (0, 1]."""
        return self._law.kappa

    @property
    def family(self) -> str:
        """``"optimum"``, ``"gaussian"`` or ``"product"``."""
        return self._law.name

    def __repr__(self) -> str:
        return (
            f"SingularValueLaw(kappa={self.kappa!r}, normalization={self.normalization!r}, "
            f"family={self.family!r})"
        )

    def _support(self) -> tuple[float, float]:
        scale = self._law.scale
        return scale * _edge_lower_raw(self._law), scale * _edge_upper_raw(self._law)

    def _pdf(self, x: FloatArray) -> FloatArray:
        scale = self._law.scale
        return _raw_density(x / scale, self._law) / scale

    def _cdf(self, x: FloatArray) -> FloatArray:
        return _raw_cdf(x / self._law.scale, self._law)

    def _ppf(self, q: FloatArray) -> FloatArray:
        return self._law.scale * _raw_quantile(q, self._law)

    def _moment(self, order: int) -> float:
        r""":math:`E[s^k] = \frac{c^k}{\kappa}\int_{\theta_\kappa}^{\pi/2}(2\sin\theta)^k \frac{4\cos^2\theta}{\pi}\,d\theta`."""
        law = self._law
        if law.name == "product":
            msg = "law='product' moments are not implemented; use E s^2 = 1, E s^4 = 1 + 2 kappa"
            raise ValueError(msg)
        theta_low = float(threshold_angle(law.kappa))
        nodes, weights = np.polynomial.legendre.leggauss(64)
        half = 0.5 * (math.pi / 2 - theta_low)
        theta = theta_low + half * (nodes + 1.0)
        integrand = (2.0 * np.sin(theta)) ** order * 4.0 * np.cos(theta) ** 2 / np.pi
        return float(law.scale**order * half * np.dot(weights, integrand) / law.kappa)

    def _scale_mp(self) -> Any:
        law = self._law
        return _mp_scale_at(law.kappa, law.name, law.scale, mpmath.mp.dps)

    def _mp_pdf(self, value: Any) -> Any:
        scale = self._scale_mp()
        return _mp_density(mpmath.mpf(value) / scale, self._law) / scale

    def _mp_cdf(self, value: Any) -> Any:
        return _mp_cdf(mpmath.mpf(value) / self._scale_mp(), self._law)

    def _mp_ppf(self, value: Any) -> Any:
        return self._scale_mp() * _mp_quantile(mpmath.mpf(value), self._law)


class FiniteSizeSingularValueLaw(Law):
    r"""Finite-size law of the singular values of the max-margin ``W`` at ``(d, p)``.

    ``n = p`` associations, full rank, normalised to :math:`E s^2 = 1`: the free
    product of three laws (module docstring, "finite-size density"); the squared
    singular values :math:`x` have the density :math:`-\operatorname{Im} w/(\pi\lambda x)`,
    ``w`` the physical root of
    :math:`(\lambda + w)^2(1 + \epsilon w)(1 + r w) = \lambda x w`,
    :math:`\lambda = d/p`.  Its moments are those of this density
    (:math:`E s^4 = 2 + \lambda(r + \epsilon)`); :meth:`finite_d_moment` adds the
    ``1/d`` terms of the finite matrix.  Build it with :func:`singular_value_law`.
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": "the singular values of the max-margin ``W`` at dimension ``d`` with ``p`` outputs",
        "support": r":math:`[0, \sqrt{x_+}]`, :math:`x_+` the upper edge of the squared law",
        "routes": (
            "Routes (float64 only): the density from the root of the quartic, "
            "followed from above the real axis; the cdf by composite Gauss-Legendre "
            "(8 panels of 20 nodes, about 1e-12); ``ppf`` by safeguarded Newton on "
            "the cdf started from a 65-point table of it; ``rvs`` by inverse-cdf "
            "sampling; ``moment`` closed for orders 2 "
            "and 4, else Gauss-Legendre in the angle (8 panels of 20 nodes)."
        ),
        "reference": "docs/theory/spectrum-finite-size.md, arXiv:2605.10795",
        "examples": (
            ">>> law = singular_value_law(d=32, p=173)\n"
            ">>> round(float(law.moment(2)), 12), round(float(law.cdf(3.0)), 12)\n"
            "(1.0, 1.0)"
        ),
    }

    def __init__(self, d: int, p: int) -> None:
        dimension, outputs = _check_size(d, p)
        self._finite = _finite_size(dimension, outputs)
        self._cdf_table: tuple[FloatArray, FloatArray] | None = None

    @property
    def d(self) -> int:
        """Dimension."""
        return self._finite.d

    @property
    def p(self) -> int:
        """Outputs (= associations)."""
        return self._finite.p

    def __repr__(self) -> str:
        return f"FiniteSizeSingularValueLaw(d={self.d}, p={self.p})"

    def _support(self) -> tuple[float, float]:
        return 0.0, math.sqrt(_free_top_edge(self._finite))

    def _pdf(self, x: FloatArray) -> FloatArray:
        return _finite_size_density(x, self._finite)

    def _cdf(self, x: FloatArray) -> FloatArray:
        return _finite_size_cdf(x, self._finite)

    _cdf_accuracy: ClassVar[float] = 1e-13

    def _table(self) -> tuple[FloatArray, FloatArray]:
        """The cdf at 65 points equally spaced in the angle of the support (cached)."""
        if self._cdf_table is None:
            top = self._support()[1]
            s = top * np.sin(np.linspace(0.0, 0.5 * math.pi, 65))
            self._cdf_table = (s, np.maximum.accumulate(self._cdf(s)))
        return self._cdf_table

    def _ppf_start(self, q: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Bracket between the two tabulated points around ``q``, start interpolated."""
        s, cdf = self._table()
        index = np.clip(np.searchsorted(cdf, q), 1, s.size - 1)
        low, high = s[index - 1].copy(), s[index].copy()
        return np.interp(q, cdf, s), low, high

    def _moment(self, order: int) -> float:
        if order == 2:
            return 1.0
        if order == 4:
            law = self._finite
            return 2.0 + law.ratio * (law.gram + law.spread)
        lower, upper = self._support()
        return quadrature_moment(self._pdf, lower, upper, order)

    def finite_d_moment(self, order: int) -> np.float64:
        r"""Moment of order 0, 2 or 4 of the finite :math:`d \times d` matrix (with its ``1/d`` terms).

        .. math::

            E s^4 = 2 + \frac1d + c\,\frac dp\,(1 - 2u)^2\Big(\kappa_D - \frac{2d+1}{d^2}\Big)

        (fitted amplitude ``c``; :func:`singular_value_moment` with ``d`` and ``p``).
        """
        return np.float64({0: 1.0, 2: 1.0, 4: self._finite.fourth}[_finite_order(order)])

    def finite_d_moment_error(self, order: int) -> np.float64:
        r"""Model error of :meth:`finite_d_moment`: a 95% prediction half-width (0 for orders 0, 2).

        .. math::

            t\,\frac dp\sqrt{x^2\sigma_c^2 + \tau^2}, \qquad
            x = (1 - 2u)^2\Big(\kappa_D - \frac{2d+1}{d^2}\Big),

        with :math:`\sigma_c` the standard error of the fitted amplitude,
        :math:`\tau` the scatter of the measured points about the fit and ``t``
        the 97.5% Student quantile of the fit's degrees of freedom
        (docs/theory/spectrum-finite-size.md, section 5).  It bounds the miss of
        the law on the mean ratio over instances at ``(d, p)``, not the scatter
        of one matrix.
        """
        return np.float64({0: 0.0, 2: 0.0, 4: self._finite.error}[_finite_order(order)])


def _finite_order(order: Any) -> int:
    """``order`` of a finite-size moment: 0, 2 or 4 (ValueError otherwise)."""
    power = check_integer("order", order, minimum=0)
    if power not in (0, 2, 4):
        msg = f"order must be 0, 2 or 4 when d and p are given, got {plain(order)}"
        raise ValueError(msg)
    return power


def singular_value_law(
    kappa: float = 1.0,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    d: int | None = None,
    p: int | None = None,
) -> SingularValueLaw | FiniteSizeSingularValueLaw:
    r"""The singular-value law as an object (``pdf``, ``cdf``, ``ppf``, ``rvs``, ``moment``, ...).

    .. math::

        \rho_\kappa(s) = \frac{\sqrt{4 - s^2}}{\pi\kappa}\,
        \mathbf 1[s_\kappa \le s \le 2] \quad (\texttt{law="optimum"}, \text{raw units}).

    Status: asymptotic. The law of the limit :math:`d, p \to \infty`; with ``d`` and ``p``
    (κ = 1) the *fitted* finite-size law, whose fourth-moment error is given by
    ``finite_d_moment_error`` (docs/measurements/spectrum.md).

    Parameters
    ----------
    kappa : float
        Rank ratio :math:`m/d` in (0, 1] (1 with ``d`` and ``p``).
    normalization : {"frobenius", "raw"}
        ``"frobenius"``: mean :math:`s^2 = 1` (:math:`\|W\|_F^2 = m`).
        ``"raw"``: quarter circle on [0, 2].
    law : {"optimum", "gaussian", "product"}
        Learnt weights at capacity, Gaussian ``W`` or ``Q Rᵀ`` at initialisation.
    d, p : int, optional
        Together: the finite-size law of the max-margin ``W`` at dimension ``d``
        in [8, 1024] with ``p`` outputs (= associations) from
        ``round(0.5 * critical_p(d))`` to ``critical_p(d)`` (:func:`lamcap.critical_p`);
        full rank, frobenius units, the optimum.

    Returns
    -------
    SingularValueLaw or FiniteSizeSingularValueLaw

    Notes
    -----
    Reference: docs/theory/mechanism.md, arXiv:2605.10795; finite size:
    docs/theory/spectrum-finite-size.md.

    Examples
    --------
    >>> law = singular_value_law(0.5)
    >>> round(float(law.moment(2)), 12)
    1.0
    >>> singular_value_law(d=32, p=173)
    FiniteSizeSingularValueLaw(d=32, p=173)
    """
    if d is None and p is None:
        return _cached_law(check_real("kappa", kappa), normalization, law)
    _check_finite_size_options(kappa, normalization, law)
    return FiniteSizeSingularValueLaw(d, p)  # type: ignore[arg-type]  # _check_size raises on None


@functools.lru_cache(maxsize=256)
def _cached_law(kappa: float, normalization: str, family: str) -> SingularValueLaw:
    """One law object per (kappa, normalization, family): the wrappers build them per call."""
    return SingularValueLaw(kappa, normalization=normalization, family=family)


def _check_finite_size_options(kappa: ArrayLike, normalization: str, law: str) -> FloatArray:
    """Options allowed with ``d`` and ``p``: full rank, frobenius units, the optimum."""
    kappas = check_kappa(kappa)
    if np.any(kappas != 1.0):
        bad = float(kappas[kappas != 1.0].flat[0])
        msg = (
            f"kappa must be 1 when d and p are given (the finite-size law is derived "
            f"at full rank), got {bad!r}"
        )
        raise ValueError(msg)
    if law != "optimum":
        msg = f"law must be 'optimum' when d and p are given, got {law!r}"
        raise ValueError(msg)
    if normalization != "frobenius":
        msg = f"normalization must be 'frobenius' when d and p are given, got {normalization!r}"
        raise ValueError(msg)
    return kappas


def _over_parameters(
    method: str, points: ArrayLike, kappa: ArrayLike, options: dict[str, Any], **call: Any
) -> Any:
    """``singular_value_law(k, d=..., p=..., **options).<method>(points)``, broadcast.

    ``points``, ``kappa``, ``d`` and ``p`` broadcast together; one law per distinct
    ``(kappa, d, p)``.  All parameters scalar: the law is called directly.
    """
    kappas = check_kappa(kappa)
    d, p = options["d"], options["p"]
    if kappas.ndim == 0 and np.ndim(d) == 0 and np.ndim(p) == 0:
        return getattr(singular_value_law(float(kappas), **options), method)(points, **call)
    values, kappa_b, d_b, p_b = broadcast(points, kappas, _parameter(d), _parameter(p))
    out = np.empty(values.size, dtype=object if call.get("dps") is not None else np.float64)
    flat = values.reshape(-1)
    positions: dict[tuple[Any, ...], list[int]] = {}
    keys = zip(kappa_b.ravel().tolist(), d_b.ravel().tolist(), p_b.ravel().tolist(), strict=True)
    for index, key in enumerate(keys):
        positions.setdefault(key, []).append(index)
    for (rank, dimension, outputs), where in positions.items():
        law = singular_value_law(rank, **{**options, "d": dimension, "p": outputs})
        chosen = np.array(where, dtype=np.int64)
        out[chosen] = getattr(law, method)(flat[chosen], **call)
    return out.reshape(values.shape)


def _parameter(value: Any) -> NDArray[Any]:
    """``d`` or ``p`` as an array to broadcast (``None`` kept as an object)."""
    if value is None:
        return np.array(None, dtype=object)
    return np.asarray(value)


# ----------------------------------------------------------------------------
# public API: thin wrappers over the law objects
# ----------------------------------------------------------------------------


def singular_value_density(
    s: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    dps: int | None = None,
    d: ArrayLike | None = None,
    p: ArrayLike | None = None,
) -> Any:
    r"""Density of the non-zero singular values of the memory matrix.

    .. math::

        \rho_\kappa(s) = \frac{\sqrt{4 - s^2}}{\pi\kappa}\,
        \mathbf 1[s_\kappa \le s \le 2] \quad (\texttt{law="optimum"}, \text{raw units}),

    the top :math:`\kappa`-fraction of the quarter circle; ``law="product"``
    gives the law of ``Q Rᵀ`` with Gaussian factors at initialisation (module
    docstring: free multiplicative convolution of two Marchenko–Pastur laws).
    ``singular_value_law(kappa, ...).pdf(s)`` (:func:`singular_value_law`).

    Status: asymptotic. Without ``d`` and ``p`` the law of the limit :math:`d, p \to
    \infty`; with them (κ = 1) the finite-size density, whose variances are *fitted* to
    certified max-margin W (docs/theory/spectrum-finite-size.md, section 5).

    Parameters
    ----------
    s : array_like
        Points (any shape).  Outside the support the density is 0; NaN raises.
    kappa : float or array_like
        Rank ratio :math:`m/d` in (0, 1]; broadcasts with ``s``.
    normalization : {"frobenius", "raw"}
        ``"frobenius"``: mean :math:`s^2 = 1` (:math:`\|W\|_F^2 = m`).
        ``"raw"``: quarter circle on [0, 2].
    law : {"optimum", "gaussian", "product"}
        Learnt weights at capacity, Gaussian ``W`` or ``Q Rᵀ`` at initialisation.
    dps : int, optional
        Evaluate with mpmath at ``dps`` digits (returns mpmath numbers).
    d, p : int, optional
        Together: the finite-size law of the max-margin ``W`` at dimension ``d``
        with ``p`` outputs (= associations), full rank, frobenius units; ranges
        as in :func:`singular_value_law`.  It is the free product of three
        laws (module docstring, "finite-size density"): the squared singular
        values :math:`x` have the density
        :math:`-\operatorname{Im} w/(\pi\lambda x)`, ``w`` the root of

        .. math::

            (\lambda + w)^2 (1 + \epsilon w)(1 + r w) = \lambda x w, \qquad
            \lambda = d/p,\ \epsilon = c(1 - 2u)^2,\ r = c(1 - 2u)^2(\kappa_D - 1),

        on the branch continuing :math:`w \approx \lambda/x` from
        :math:`x \to \infty`; float64 only.

    Returns
    -------
    numpy.float64 or ndarray (mpmath numbers if ``dps`` is given).

    Notes
    -----
    Reference: docs/theory/mechanism.md, arXiv:2605.10795; finite size:
    docs/theory/spectrum-finite-size.md.  Precision: a few ulp away from
    the support edges (float64); ``dps`` digits with mpmath.

    Examples
    --------
    >>> round(float(singular_value_density(1.0, normalization="raw")), 12)  # sqrt(3)/pi
    0.551328895422
    >>> float(singular_value_density(3.0))
    0.0
    >>> round(float(singular_value_density(1.0, 0.5, law="product")), 6) > 0
    True
    >>> bool(singular_value_density(1.0, d=32, p=173) < singular_value_density(1.0))  # wider
    True
    """
    options = {"normalization": normalization, "law": law, "d": d, "p": p}
    return _over_parameters("pdf", check_points("s", s), kappa, options, dps=dps)


def singular_value_cdf(
    s: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    dps: int | None = None,
    d: ArrayLike | None = None,
    p: ArrayLike | None = None,
) -> Any:
    r"""Cumulative distribution of the non-zero singular values.

    Closed forms: with :math:`s = 2\sin\theta` (raw units) the quarter circle
    has :math:`F(s) = (2\theta + \sin 2\theta)/\pi`, and the truncated law
    :math:`F_\kappa(s) = 1 - (2\phi - \sin 2\phi)/(\pi\kappa)`,
    :math:`s = 2\cos\phi`; the product law uses
    :math:`F = 1 - \operatorname{Im}H/\pi` (module docstring).
    ``singular_value_law(kappa, ...).cdf(s)`` (:func:`singular_value_law`).

    Status: asymptotic. The cumulative of :func:`singular_value_density`: the limit
    :math:`d, p \to \infty`, or with ``d`` and ``p`` the *fitted* finite-size law
    (docs/theory/spectrum-finite-size.md).

    Parameters
    ----------
    s : array_like
        Points; NaN raises.
    kappa, normalization, law, dps
        As in :func:`singular_value_density`.
    d, p : int, optional
        Together: the finite-size law (:func:`singular_value_density`), its cdf by
        composite Gauss–Legendre quadrature (8 panels of 20 nodes) in the angle
        :math:`s = s_+\sin t` of the upper edge :math:`s_+`.

    Returns
    -------
    numpy.float64 or ndarray (mpmath numbers if ``dps`` is given).

    Notes
    -----
    Reference: docs/theory/mechanism.md; finite size:
    docs/theory/spectrum-finite-size.md.  Precision: ~1e-15 absolute (float64);
    with ``d`` and ``p`` about 1e-12 (checked against 64-panel quadrature and
    the closed-form moments 1 and :math:`2 + \lambda(r + \epsilon)`).

    Examples
    --------
    >>> float(singular_value_cdf(2.0, normalization="raw"))
    1.0
    >>> round(float(singular_value_cdf(math.sqrt(2.0), normalization="raw")), 12)  # 1/2 + 1/pi
    0.818309886184
    >>> round(float(singular_value_cdf(3.0, d=32, p=173)), 12)
    1.0
    """
    options = {"normalization": normalization, "law": law, "d": d, "p": p}
    return _over_parameters("cdf", check_points("s", s), kappa, options, dps=dps)


def singular_value_quantile(
    probability: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    dps: int | None = None,
    d: ArrayLike | None = None,
    p: ArrayLike | None = None,
) -> Any:
    r"""Inverse of :func:`singular_value_cdf`.

    Solves :math:`F(s) = u` by monotone Newton iterations: on the quarter
    circle in the angle :math:`\theta` for :math:`u \le 1/2` and on the cube
    root of the upper tail for :math:`u > 1/2` (so the square-root edge at
    :math:`s = 2` does not slow convergence); on the product law and the
    finite-size law by Newton safeguarded with bisection.
    ``singular_value_law(kappa, ...).ppf(probability)``.

    Status: asymptotic. The inverse of :func:`singular_value_cdf`: the limit :math:`d, p \to
    \infty`, or with ``d`` and ``p`` the *fitted* finite-size law.

    Parameters
    ----------
    probability : array_like
        Values in [0, 1]; NaN or values outside raise.
    kappa, normalization, law, dps, d, p
        As in :func:`singular_value_density` (``dps`` not with ``d`` and ``p``).

    Returns
    -------
    numpy.float64 or ndarray (mpmath numbers if ``dps`` is given).

    Notes
    -----
    Reference: docs/theory/mechanism.md.  Precision: ``cdf(quantile(u)) = u`` to
    ~1e-15 (to the cdf's 1e-12 with ``d`` and ``p``).

    Examples
    --------
    >>> round(float(singular_value_quantile(0.5, normalization="raw")), 12)
    0.807945506599
    >>> lo, hi = singular_value_support(0.5, normalization="raw")
    >>> bool(abs(singular_value_quantile(0.0, 0.5, normalization="raw") - lo) < 1e-14)
    True
    """
    u = check_finite_array("probability", probability, minimum=0.0, maximum=1.0)
    options = {"normalization": normalization, "law": law, "d": d, "p": p}
    return _over_parameters("ppf", u, kappa, options, dps=dps)


def singular_value_support(
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    d: int | None = None,
    p: int | None = None,
) -> tuple[Any, Any]:
    r"""Support ``(lower, upper)`` of the singular-value law.

    For ``law="optimum"`` in raw units it is :math:`[s_\kappa, 2]` with
    :math:`s_\kappa = 2\sin\theta_\kappa`,
    :math:`\kappa = 1 - (2\theta_\kappa + \sin 2\theta_\kappa)/\pi` (docs/theory/rank.md).
    ``singular_value_law(kappa, ...).support()``.

    Status: asymptotic. The support of the limit law (:math:`d, p \to \infty`), or with
    ``d`` and ``p`` that of the *fitted* finite-size law.

    Parameters
    ----------
    kappa, normalization, law, d, p
        As in :func:`singular_value_density`; an array ``kappa`` gives two arrays.

    Returns
    -------
    tuple of numpy.float64 (of ndarray for an array ``kappa``)

    Examples
    --------
    >>> [float(v) for v in singular_value_support(normalization="raw")]
    [0.0, 2.0]
    >>> [round(float(v), 10) for v in singular_value_support(1.0, law="product")]  # Fuss-Catalan
    [0.0, 2.5980762114]
    """
    options = {"normalization": normalization, "law": law, "d": d, "p": p}
    kappas = check_kappa(kappa)
    if kappas.ndim == 0:
        return singular_value_law(float(kappas), **options).support()  # type: ignore[arg-type]
    ends = [singular_value_law(float(k), **options).support() for k in kappas.ravel()]  # type: ignore[arg-type]
    lower = np.array([end[0] for end in ends]).reshape(kappas.shape)
    upper = np.array([end[1] for end in ends]).reshape(kappas.shape)
    return lower, upper


def singular_value_moment(
    order: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    d: ArrayLike | None = None,
    p: ArrayLike | None = None,
    return_error: bool = False,
) -> Any:
    r"""Moment :math:`E[s^k]` of the singular-value law, asymptotic or at finite ``(d, p)``.

    *Asymptotic* (``d`` and ``p`` not given; ``law="optimum"`` or ``"gaussian"``):
    ``singular_value_law(kappa, ...).moment(order)``, computed in the angle
    variable, :math:`E[s^k] = \frac{c^k}{\kappa}
    \int_{\theta_\kappa}^{\pi/2} (2\sin\theta)^k \frac{4\cos^2\theta}{\pi}\,d\theta`
    (``c`` the normalisation scale), by 64-point Gauss–Legendre quadrature of an
    entire integrand: machine precision.  For the product law the even moments
    are free-probability polynomials, e.g. :math:`E s^4 = 1 + 2\kappa`.

    *Finite size* (``d`` and ``p`` given, full rank, ``n = p`` associations, the
    max-margin ``W`` normalised to :math:`E s^2 = 1`): orders 0, 2, 4 of the
    finite matrix (:meth:`FiniteSizeSingularValueLaw.finite_d_moment`).  The
    fourth moment is *fitted* (a model whose amplitude is fitted to certified
    max-margin ``W``, with a stated model error):

    .. math::

        E s^4 = 2 + \frac1d + c\,\frac dp\,(1 - 2u)^2
        \Big(\kappa_D - \frac{2d+1}{d^2}\Big) \pm e,
        \qquad \kappa_D = \frac{E D^2}{(E D)^2},\quad u = \frac{E|A|}{E D},

    :math:`D = \operatorname{dist}(g, K_m)^2` the squared projection residual of
    one association, :math:`|A|` its active set and :math:`m` the normalised
    margin solving :math:`p\,E D = d^2` (:func:`lamcap.theory.max_margin`).
    Derived: the rank-one term :math:`\kappa_D - (2d+1)/d^2` (exact for
    independent uniform directions) and :math:`\kappa_D`, ``u``, ``m`` (to about
    1e-12).  Heuristic: the reaction factor :math:`(1 - 2u)^2` applied to the
    whole term.  Fitted: ``c`` = 1.307 on the build seeds of
    docs/measurements/spectrum.md (d = 16–64 at 0.5–0.95 critical_p(d), d = 8 and
    12 at 0.95).  Model error ``e`` (``return_error=True``): the 95% prediction
    half-width of the mean ratio over instances at ``(d, p)``,
    :math:`t\,(d/p)\sqrt{x^2\sigma_c^2 + \tau^2}` with
    :math:`x = (1-2u)^2(\kappa_D - (2d+1)/d^2)`, :math:`\sigma_c` the standard
    error of ``c``, :math:`\tau` = 0.125 the scatter of the measured points about
    the fit (units of d/p) and ``t`` = 2.056 (Student, 26 degrees of freedom);
    0.033 at d = 64 and 0.076 at d = 16 at 0.95 critical_p(d), 0.058 and 0.13 at
    0.5 (loose there: the measured misses at 0.5 are at most 0.044).  On the
    held-out seeds (never used in the fit) it covers 24 of 25 points, with the
    held-out means' own 95% sampling error; the miss is d = 16 at 0.96
    critical_p(d), where the measured 2.748 ± 0.070 lies above 2.557 ± 0.076
    (the law runs low at d = 16 and 24 near capacity: by 0.14–0.19 at d = 16,
    0.035–0.07 at d = 24; at 0.65 critical_p(d) it runs high by 0.07–0.10 at
    d = 16).  The law it replaces, the uniform-reaction model
    :math:`2 + 1/d + (d/p)[(\kappa_D - 1) + (1 - 2u)^2(1 - (2d+1)/d^2)]`, missed
    across load: it overshot at 0.5 critical_p(d) and undershot near it (at
    0.95: z = +4.5 at d = 48, +3.8 at d = 64, +3.4 and +4.9 at d = 24 on build
    and held-out seeds).  Beyond the measured support (d > 64, p above 0.95
    critical_p(d)) value and error are extrapolated.  The law object's own
    ``moment`` is that of its density, without the ``1/d`` terms.

    Reference: arXiv:2605.10795 (quarter-circle law);
    docs/theory/spectrum-finite-size.md (finite-size law).

    Status: asymptotic. Without ``d`` and ``p`` the moments of the limit law (:math:`d, p
    \to \infty`). With ``d`` and ``p`` (κ = 1) the fourth moment is a *fitted* law (one
    amplitude fitted on build seeds, a heuristic :math:`(1-2u)^2` factor;
    docs/theory/spectrum-finite-size.md): its 95% error for the mean over instances comes
    with ``return_error=True`` and covered 24 of 25 held-out points at d = 16 to 64 and 0.5
    to 0.96 critical_p(d) (docs/measurements/spectrum.md).

    Parameters
    ----------
    order : int or array_like
        :math:`k \ge 0`; with ``d`` and ``p`` only 0, 2 and 4.
    kappa : float or array_like
        Rank ratio(s) in (0, 1]; broadcasts with ``order``.  With ``d`` and
        ``p``: 1 only (the finite-size law is derived at full rank).
    normalization, law
        As in :func:`singular_value_density` (``law="product"`` raises; with
        ``d`` and ``p`` only ``"frobenius"`` and ``"optimum"``).
    d : int, optional
        Dimension, an integer in [8, 1024]; give together with ``p``.
    p : int, optional
        Outputs (= associations), an integer from ``round(0.5 * critical_p(d))``
        to ``floor(critical_p(d))`` (:func:`lamcap.critical_p`); give together
        with ``d``.  Outside, ``ValueError`` names ``p``, its value and the range.
    return_error : bool, default False
        Also return the model error: 0 for orders 0 and 2 and for the
        asymptotic law (exact as ``d`` grows), the 95% prediction half-width
        ``e`` above for order 4 with ``d`` and ``p``.

    Returns
    -------
    numpy.float64 or ndarray (the broadcast shape of ``order``, ``kappa``, ``d``, ``p``)
        With ``return_error=True`` the pair ``(value, error)``, both of that shape.

    Examples
    --------
    >>> round(float(singular_value_moment(4)), 12)  # quarter circle: E s^4 / (E s^2)^2 = 2
    2.0
    >>> round(float(singular_value_moment(2, 0.3)), 12)
    1.0
    >>> [round(float(v), 6) for v in singular_value_moment(4, [1.0, 0.5])]
    [2.0, 1.226163]
    >>> value, error = singular_value_moment(4, d=32, p=173, return_error=True)  # 0.95 p_c
    >>> round(float(value), 3), round(float(error), 3)
    (2.342, 0.051)
    """
    check_kappa(kappa)
    for value in np.asarray(order).ravel():
        check_integer("order", value, minimum=0)
    options = {"normalization": normalization, "law": law, "d": d, "p": p}

    if return_error not in (True, False):
        msg = f"return_error must be True or False, got {return_error!r}"
        raise ValueError(msg)

    def one(power: int, rank: float, dimension: Any, outputs: Any) -> Any:
        resolved = singular_value_law(rank, **{**options, "d": dimension, "p": outputs})
        if isinstance(resolved, FiniteSizeSingularValueLaw):
            return resolved.finite_d_moment(power)
        return resolved.moment(power)

    value = elementwise(one, order, kappa, _parameter(d), _parameter(p))
    if not return_error:
        return value

    def error(power: int, rank: float, dimension: Any, outputs: Any) -> Any:
        resolved = singular_value_law(rank, **{**options, "d": dimension, "p": outputs})
        if isinstance(resolved, FiniteSizeSingularValueLaw):
            return resolved.finite_d_moment_error(power)
        return np.float64(0.0)

    return value, elementwise(error, order, kappa, _parameter(d), _parameter(p))


def sample_singular_values(
    size: int,
    kappa: float = 1.0,
    seed: int | np.random.Generator | None = None,
    *,
    normalization: str = "frobenius",
    law: str = "optimum",
    d: int | None = None,
    p: int | None = None,
) -> FloatArray:
    r"""Draw ``size`` i.i.d. singular values from the law, by inverse-cdf sampling.

    ``quantile(U)``, ``U`` uniform, with the exact quantile of
    :func:`singular_value_quantile` (docs/theory/mechanism.md):
    ``singular_value_law(kappa, ...).rvs(size, seed)``.

    .. math::

        s = F^{-1}(U), \qquad U \sim \mathrm{Uniform}(0, 1).

    Status: asymptotic. Draws from the limit law (:math:`d, p \to \infty`), or with ``d``
    and ``p`` from the *fitted* finite-size law.

    Parameters
    ----------
    size : int
        Sample size, ``size >= 0`` (named as in scipy: ``n`` counts associations).
    kappa : float
        Rank ratio in (0, 1].
    seed : int or Generator, optional
        Random seed.
    normalization, law, d, p
        As in :func:`singular_value_density`.

    Returns
    -------
    ndarray of shape (size,)

    Examples
    --------
    >>> values = sample_singular_values(1000, 0.5, seed=1)
    >>> lo, hi = singular_value_support(0.5)
    >>> bool(values.min() >= lo and values.max() <= hi)
    True
    """
    count = check_integer("size", size, minimum=0)
    resolved = singular_value_law(kappa, normalization=normalization, law=law, d=d, p=p)
    return resolved.rvs(count, seed)

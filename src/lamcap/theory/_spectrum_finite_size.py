r"""The finite-size singular-value law of the max-margin ``W`` (``d=``, ``p=``).

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

Float64 only (no ``dps=`` route).  :class:`FiniteSizeSingularValueLaw` is built by
:func:`lamcap.theory.singular_value_law` with ``d`` and ``p``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special

from lamcap._validation import check_integer, plain
from lamcap.theory._capacity import quiet_critical_p
from lamcap.theory._cost_models import statistical_dimension
from lamcap.theory._law import Law, quadrature_moment
from lamcap.theory._margin import max_margin
from lamcap.theory._scores import score_law

FloatArray = NDArray[np.float64]

# ----------------------------------------------------------------------------
# the fitted fourth moment (docs/theory/spectrum-finite-size.md)
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
    if d is None or p is None:
        missing, given, value = ("p", "d", d) if p is None else ("d", "p", p)
        msg = (
            f"{missing} must be given together with {given} (got {given}={value!r}, {missing}=None)"
        )
        raise ValueError(msg)
    dimension = check_integer("d", d, minimum=_SMALLEST_D, maximum=_LARGEST_D)
    critical = float(quiet_critical_p(dimension))
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
# the law as an object
# ----------------------------------------------------------------------------


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
            ">>> from lamcap.theory import singular_value_law\n"
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

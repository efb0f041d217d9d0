r"""Singular-value laws of the memory matrix: learnt optimum and initialisation.

Three limiting laws (``d \to \infty``, ``m = \kappa d``) are implemented, each
for the :math:`m` non-zero singular values of the :math:`d \times d` weight
matrix ``W`` (the :math:`d - m` zeros of a rank-:math:`m` matrix are not part
of the law), and one finite-size law.  One implementation module per law
family, each with its float64 and its mpmath (``dps=``) evaluation:

``family="optimum"``, ``family="gaussian"`` (:mod:`lamcap.theory._spectrum_quarter_circle`)
    The weights at capacity: the top :math:`\kappa`-fraction of the quarter
    circle :math:`\rho(s) = \sqrt{4 - s^2}/\pi` on :math:`[0, 2]`
    (docs/theory/mechanism.md, arXiv:2605.10795); a Gaussian ``W`` at
    initialisation (the quarter circle, :math:`\kappa = 1` only).
``family="product"`` (:mod:`lamcap.theory._spectrum_product`)
    ``W = Q Rᵀ`` at initialisation: the free product of two Marchenko–Pastur
    laws of ratio :math:`\kappa`, a closed cubic.
Finite-size law, ``d=`` and ``p=`` (:mod:`lamcap.theory._spectrum_finite_size`)
    *Fitted*: the max-margin ``W`` of ``n = p`` decoupled associations at
    dimension ``d``, full rank, frobenius units (docs/theory/spectrum-finite-size.md).

The word ``family`` names the law (``law`` is reserved for law objects); the
keyword ``law=`` of the functions below is its deprecated name.  This module holds
the argument handling, the normalisations, the law objects
(:class:`SingularValueLaw`, :func:`singular_value_law`) and the functions that
broadcast them over ``kappa``, ``d`` and ``p``.

Normalisations
    ``"frobenius"`` (default): the law is scaled so that the mean of
    :math:`s^2` over the non-zero singular values is 1, i.e.
    :math:`\|W\|_F^2 = m` (:math:`= d` at full rank).  This is what
    :func:`lamcap.empirical.empirical_spectrum` does to a user's matrix.
    ``"raw"``: the units of the definitions (quarter circle on
    :math:`[0, 2]`, i.e. the top singular values of a matrix with entries of
    variance ``1/d``; for ``"product"`` raw and frobenius coincide).

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
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

from lamcap._deprecation import renamed_keywords
from lamcap._sizes import format_integer
from lamcap._validation import (
    check_choice,
    check_finite_array,
    check_flag,
    check_integer,
    check_kappa,
    check_real,
    plain,
)
from lamcap.theory import _spectrum_product as product
from lamcap.theory import _spectrum_quarter_circle as quarter_circle
from lamcap.theory._arrays import broadcast, elementwise
from lamcap.theory._law import Law, check_points
from lamcap.theory._rank import retained_energy, threshold_angle
from lamcap.theory._spectrum_finite_size import FiniteSizeSingularValueLaw
from lamcap.theory._spectrum_product import edges as product_edges
from lamcap.theory._spectrum_product import product_apply
from lamcap.theory._spectrum_quarter_circle import lower_edge as quarter_circle_lower_edge
from lamcap.theory._spectrum_quarter_circle import quarter_circle_apply

FAMILIES = ("optimum", "gaussian", "product")
NORMALIZATIONS = ("frobenius", "raw")

FloatArray = NDArray[np.float64]


# ----------------------------------------------------------------------------
# argument handling
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Law:
    """A validated (family, kappa, normalization) with its scale ``s = scale * s_raw``."""

    name: str
    kappa: float
    scale: float


def _resolve_law(kappa: Any, family: str, normalization: str) -> _Law:
    kappa_array = check_kappa(kappa)
    if kappa_array.ndim != 0:
        msg = f"kappa must be a scalar in (0, 1], got shape {kappa_array.shape}"
        raise ValueError(msg)
    kappa_value = float(kappa_array)
    if family not in FAMILIES:
        msg = f"family must be one of {FAMILIES}, got {family!r}"
        raise ValueError(msg)
    if normalization not in NORMALIZATIONS:
        msg = f"normalization must be one of {NORMALIZATIONS}, got {normalization!r}"
        raise ValueError(msg)
    if family == "gaussian" and kappa_value != 1.0:
        msg = f"kappa must be 1 for family='gaussian' (a full-rank Gaussian matrix), got {kappa!r}"
        raise ValueError(msg)
    scale = 1.0
    if family != "product" and normalization == "frobenius":
        scale = math.sqrt(kappa_value / float(retained_energy(kappa_value)))
    return _Law(family, kappa_value, scale)


# ----------------------------------------------------------------------------
# float64 evaluation in raw units: one family module each
# ----------------------------------------------------------------------------


def _raw_density(s: FloatArray, law: _Law) -> FloatArray:
    if law.name == "product":
        positive = np.where((s > 0) & (s < np.inf), s, 0.0)
        return 2.0 * positive * product_apply(0, positive * positive, law.kappa)
    return quarter_circle_apply(0, s, law.kappa)


def _raw_cdf(s: FloatArray, law: _Law) -> FloatArray:
    if law.name == "product":
        positive = np.where(s > 0, s, 0.0)
        return product_apply(1, positive * positive, law.kappa)
    return quarter_circle_apply(1, s, law.kappa)


def _raw_quantile(u: FloatArray, law: _Law) -> FloatArray:
    if law.name == "product":
        return np.sqrt(product_apply(2, u, law.kappa))
    return quarter_circle_apply(2, u, law.kappa)


def _edge_lower_raw(law: _Law) -> float:
    if law.name == "product":
        return product_edges(law.kappa)[0]
    return quarter_circle_lower_edge(law.kappa)


def _edge_upper_raw(law: _Law) -> float:
    if law.name == "product":
        return product_edges(law.kappa)[1]
    return 2.0


# ----------------------------------------------------------------------------
# mpmath evaluation (dps=)
# ----------------------------------------------------------------------------


def _mp_edges(law: _Law) -> tuple[Any, Any]:
    if law.name == "product":
        return product.mp_edges(law.kappa)
    return quarter_circle.mp_edges(law.kappa)


def _mp_density(s: Any, law: _Law) -> Any:
    low, high = _mp_edges(law)
    if s <= low or s >= high:
        return mpmath.mpf(0)
    family = product if law.name == "product" else quarter_circle
    return family.mp_density(s, law.kappa)


def _mp_cdf(s: Any, law: _Law) -> Any:
    low, high = _mp_edges(law)
    if s <= low:
        return mpmath.mpf(0)
    if s >= high:
        return mpmath.mpf(1)
    family = product if law.name == "product" else quarter_circle
    return family.mp_cdf(s, law.kappa)


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
            "sampling for ``rvs``, an incomplete beta function for ``moment`` "
            "(correctly rounded; orders whose moment exceeds float64 and "
            "``family='product'`` raise); ``dps=`` on ``pdf``, "
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
        r""":math:`E[s^k] = \frac{c^k}{\kappa}\int_{\theta_\kappa}^{\pi/2}(2\sin\theta)^k \frac{4\cos^2\theta}{\pi}\,d\theta`.

        With :math:`x = \sin^2\theta` the integral is an incomplete beta function,
        :math:`E[s^k] = (2c)^k \frac{2}{\pi\kappa} B(\tfrac{k+1}2, \tfrac32)\,
        I_{1 - \sin^2\theta_\kappa}(\tfrac32, \tfrac{k+1}2)`, evaluated in mpmath
        (:func:`_moment_value`), so nothing overflows: correctly rounded at every order and
        every ``kappa`` (the angle quadrature it replaces lost digits as ``kappa -> 0``).  Orders whose
        moment exceeds the float64 maximum raise ``ValueError`` (:func:`largest_moment_order`).
        """
        law = self._law
        if law.name == "product":
            msg = "family='product' moments are not implemented; use E s^2 = 1, E s^4 = 1 + 2 kappa"
            raise ValueError(msg)
        value = _moment_value(law, order)
        if value > _FLOAT_MAX:
            largest = largest_moment_order(law)
            with mpmath.workdps(30):
                exponent = mpmath.nstr(mpmath.log10(value), 4)
            msg = (
                f"order must be an integer in [0, {largest}] for kappa={plain(law.kappa)} "
                f"(E[s^order] ~ 10^{exponent} is beyond the float64 range), "
                f"got {format_integer(order)}"
            )
            raise ValueError(msg)
        return float(value)

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


_FLOAT_MAX = float(np.finfo(np.float64).max)


def _moment_value(law: _Law, order: int) -> Any:
    """:math:`E[s^k]` as an ``mpf`` (30 digits; SingularValueLaw._moment), never overflowing.

    :math:`(2c)^k` and :math:`B(\tfrac{k+1}2, \tfrac32)` in mpmath (scipy's ``beta`` loses
    5e-13 at k = 1000), the regularised incomplete beta from scipy (relative 1e-15).
    The angle is mpmath's, so small ``kappa`` keeps its digits.
    """
    a = 0.5 * (float(order) + 1.0)
    # cos^2 of the cut angle to full relative precision also as kappa -> 0, where
    # pi/2 - theta ~ (3 pi kappa / 4)^(1/3) (hence the digits); the tail is then
    # I_{cos^2}(3/2, (k+1)/2) without the cancellation of 1 - sin^2
    digits = 30 + int(max(0.0, -math.log10(law.kappa)) / 3.0)
    with mpmath.workdps(digits):
        upper = float(mpmath.cos(threshold_angle(law.kappa, dps=digits)) ** 2)
    tail = float(special.betainc(1.5, a, upper)) if upper < 1.0 else 1.0
    with mpmath.workdps(30):  # the scale in mpmath: its float rounding grows k-fold in c^k
        scale = 2 * _mp_scale_at(law.kappa, law.name, law.scale, 30)
        return (
            mpmath.power(scale, order)
            * 2
            / (mpmath.pi * mpmath.mpf(law.kappa))
            * mpmath.beta(mpmath.mpf(a), mpmath.mpf(1.5))
            * tail
        )


def largest_moment_order(law: _Law) -> int:
    """Largest order whose moment :math:`E[s^k]` is below the float64 maximum (bisection)."""
    low, high = 0, 1
    while _moment_value(law, high) <= _FLOAT_MAX and high < 2**1030:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if _moment_value(law, middle) <= _FLOAT_MAX:
            low = middle
        else:
            high = middle
    return low


@renamed_keywords(law="family")
def singular_value_law(
    kappa: float = 1.0,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
    d: int | None = None,
    p: int | None = None,
) -> SingularValueLaw | FiniteSizeSingularValueLaw:
    r"""The singular-value law as an object (``pdf``, ``cdf``, ``ppf``, ``rvs``, ``moment``, ...).

    .. math::

        \rho_\kappa(s) = \frac{\sqrt{4 - s^2}}{\pi\kappa}\,
        \mathbf 1[s_\kappa \le s \le 2] \quad (\texttt{family="optimum"}, \text{raw units}).

    Status: asymptotic. The law of the limit :math:`d, p \to \infty`; with ``d`` and ``p``
    (κ = 1) the *fitted* finite-size law, whose fourth-moment error is given by
    ``finite_d_moment_error`` (docs/measurements/spectrum.md).

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    kappa : float
        Rank ratio :math:`m/d` in (0, 1] (1 with ``d`` and ``p``).
    normalization : {"frobenius", "raw"}
        ``"frobenius"``: mean :math:`s^2 = 1` (:math:`\|W\|_F^2 = m`).
        ``"raw"``: quarter circle on [0, 2].
    family : {"optimum", "gaussian", "product"}
        Learnt weights at capacity, Gaussian ``W`` or ``Q Rᵀ`` at initialisation
        (``law=`` is the deprecated name of this keyword).
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
    family = check_choice("family", family, FAMILIES)
    normalization = check_choice("normalization", normalization, NORMALIZATIONS)
    if d is None and p is None:
        return _cached_law(check_real("kappa", kappa), normalization, family)
    _check_finite_size_options(kappa, normalization, family)
    return FiniteSizeSingularValueLaw(d, p)  # type: ignore[arg-type]  # _check_size raises on None


@functools.lru_cache(maxsize=256)
def _cached_law(kappa: float, normalization: str, family: str) -> SingularValueLaw:
    """One law object per (kappa, normalization, family): the wrappers build them per call."""
    return SingularValueLaw(kappa, normalization=normalization, family=family)


def _check_finite_size_options(kappa: ArrayLike, normalization: str, family: str) -> FloatArray:
    """Options allowed with ``d`` and ``p``: full rank, frobenius units, the optimum."""
    kappas = check_kappa(kappa)
    if np.any(kappas != 1.0):
        bad = float(kappas[kappas != 1.0].flat[0])
        msg = (
            f"kappa must be 1 when d and p are given (the finite-size law is derived "
            f"at full rank), got {bad!r}"
        )
        raise ValueError(msg)
    if family != "optimum":
        msg = f"family must be 'optimum' when d and p are given, got {family!r}"
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
    check_choice("family", options["family"], FAMILIES)
    check_choice("normalization", options["normalization"], NORMALIZATIONS)
    d, p = options["d"], options["p"]
    if kappas.ndim == 0 and np.ndim(d) == 0 and np.ndim(p) == 0:
        return getattr(singular_value_law(float(kappas), **options), method)(points, **call)
    point_name = "probability" if method == "ppf" else "s"  # the public first argument
    values, kappa_b, d_b, p_b = broadcast(
        points, kappas, _parameter(d), _parameter(p), names=(point_name, "kappa", "d", "p")
    )
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


@renamed_keywords(law="family")
def singular_value_density(
    s: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
    dps: int | None = None,
    d: ArrayLike | None = None,
    p: ArrayLike | None = None,
) -> Any:
    r"""Density of the non-zero singular values of the memory matrix.

    .. math::

        \rho_\kappa(s) = \frac{\sqrt{4 - s^2}}{\pi\kappa}\,
        \mathbf 1[s_\kappa \le s \le 2] \quad (\texttt{family="optimum"}, \text{raw units}),

    the top :math:`\kappa`-fraction of the quarter circle; ``family="product"``
    gives the law of ``Q Rᵀ`` with Gaussian factors at initialisation (module
    docstring: free multiplicative convolution of two Marchenko–Pastur laws).
    ``singular_value_law(kappa, ...).pdf(s)`` (:func:`singular_value_law`).

    Status: asymptotic. Without ``d`` and ``p`` the law of the limit :math:`d, p \to
    \infty`; with them (κ = 1) the finite-size density, whose variances are *fitted* to
    certified max-margin W (docs/theory/spectrum-finite-size.md, section 5).

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    s : array_like
        Points (any shape).  Outside the support the density is 0; NaN raises.
    kappa : float or array_like
        Rank ratio :math:`m/d` in (0, 1]; broadcasts with ``s``.
    normalization : {"frobenius", "raw"}
        ``"frobenius"``: mean :math:`s^2 = 1` (:math:`\|W\|_F^2 = m`).
        ``"raw"``: quarter circle on [0, 2].
    family : {"optimum", "gaussian", "product"}
        Learnt weights at capacity, Gaussian ``W`` or ``Q Rᵀ`` at initialisation
        (``law=`` is the deprecated name of this keyword).
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
    >>> round(float(singular_value_density(1.0, 0.5, family="product")), 6) > 0
    True
    >>> bool(singular_value_density(1.0, d=32, p=173) < singular_value_density(1.0))  # wider
    True
    """
    options = {"normalization": normalization, "family": family, "d": d, "p": p}
    return _over_parameters("pdf", check_points("s", s), kappa, options, dps=dps)


@renamed_keywords(law="family")
def singular_value_cdf(
    s: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
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

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    s : array_like
        Points; NaN raises.
    kappa, normalization, family, dps
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
    options = {"normalization": normalization, "family": family, "d": d, "p": p}
    return _over_parameters("cdf", check_points("s", s), kappa, options, dps=dps)


@renamed_keywords(law="family")
def singular_value_quantile(
    probability: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
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

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    probability : array_like
        Values in [0, 1]; NaN or values outside raise.
    kappa, normalization, family, dps, d, p
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
    options = {"normalization": normalization, "family": family, "d": d, "p": p}
    return _over_parameters("ppf", u, kappa, options, dps=dps)


@renamed_keywords(law="family")
def singular_value_support(
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
    d: int | None = None,
    p: int | None = None,
) -> tuple[Any, Any]:
    r"""Support ``(lower, upper)`` of the singular-value law.

    For ``family="optimum"`` in raw units it is :math:`[s_\kappa, 2]` with
    :math:`s_\kappa = 2\sin\theta_\kappa`,
    :math:`\kappa = 1 - (2\theta_\kappa + \sin 2\theta_\kappa)/\pi` (docs/theory/rank.md).
    ``singular_value_law(kappa, ...).support()``.

    Status: asymptotic. The support of the limit law (:math:`d, p \to \infty`), or with
    ``d`` and ``p`` that of the *fitted* finite-size law.

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    kappa, normalization, family, d, p
        As in :func:`singular_value_density`; an array ``kappa`` gives two arrays.

    Returns
    -------
    tuple of numpy.float64 (of ndarray for an array ``kappa``)

    Examples
    --------
    >>> [float(v) for v in singular_value_support(normalization="raw")]
    [0.0, 2.0]
    >>> [round(float(v), 10) for v in singular_value_support(1.0, family="product")]  # Fuss-Catalan
    [0.0, 2.5980762114]
    """
    options = {"normalization": normalization, "family": family, "d": d, "p": p}
    kappas = check_kappa(kappa)
    if kappas.ndim == 0:
        return singular_value_law(float(kappas), **options).support()  # type: ignore[arg-type]
    ends = [singular_value_law(float(k), **options).support() for k in kappas.ravel()]  # type: ignore[arg-type]
    lower = np.array([end[0] for end in ends]).reshape(kappas.shape)
    upper = np.array([end[1] for end in ends]).reshape(kappas.shape)
    return lower, upper


@renamed_keywords(law="family")
def singular_value_moment(
    order: ArrayLike,
    kappa: ArrayLike = 1.0,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
    d: ArrayLike | None = None,
    p: ArrayLike | None = None,
    return_error: bool = False,
) -> Any:
    r"""Moment :math:`E[s^k]` of the singular-value law, asymptotic or at finite ``(d, p)``.

    *Asymptotic* (``d`` and ``p`` not given; ``family="optimum"`` or ``"gaussian"``):
    ``singular_value_law(kappa, ...).moment(order)``, computed in the angle
    variable, :math:`E[s^k] = \frac{c^k}{\kappa}
    \int_{\theta_\kappa}^{\pi/2} (2\sin\theta)^k \frac{4\cos^2\theta}{\pi}\,d\theta`
    (``c`` the normalisation scale), in closed form as an incomplete beta function
    (:math:`x = \sin^2\theta`; Beta function and angle in mpmath): correctly rounded
    in float64 at every order.  For the product law the even moments
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
    Derived: the rank-one term :math:`\kappa_D - (2d+1)/d^2` (exact for independent
    uniform directions) and :math:`\kappa_D`, ``u``, ``m`` (to about 1e-12).  Heuristic:
    the reaction factor :math:`(1 - 2u)^2` applied to the whole term.  Fitted: the one
    amplitude ``c`` on the build seeds of docs/measurements/spectrum.md.  Model error
    ``e`` (``return_error=True``): the 95% prediction half-width of the mean over
    instances at ``(d, p)``, :math:`t\,(d/p)\sqrt{x^2\sigma_c^2 + \tau^2}` with
    :math:`x = (1-2u)^2(\kappa_D - (2d+1)/d^2)`, :math:`\sigma_c` the standard error of
    ``c``, :math:`\tau` the scatter of the build points about the fit and ``t`` the
    Student quantile of the fit.  The fitted values, the coverage on held-out seeds and
    where the law misses are on docs/measurements/spectrum.md; beyond the measured
    support (d > 64, p above 0.95 critical_p(d)) value and error are extrapolated.  The
    law object's own ``moment`` is that of its density, without the ``1/d`` terms.

    Reference: arXiv:2605.10795 (quarter-circle law);
    docs/theory/spectrum-finite-size.md (finite-size law).

    Status: asymptotic. Without ``d`` and ``p`` the moments of the limit law (:math:`d, p
    \to \infty`). With ``d`` and ``p`` (κ = 1) the fourth moment is a *fitted* law (one
    amplitude fitted on build seeds, a heuristic :math:`(1-2u)^2` factor;
    docs/theory/spectrum-finite-size.md), its 95% error for the mean over instances given
    by ``return_error=True`` and checked on held-out seeds (docs/measurements/spectrum.md).

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    order : int or array_like
        :math:`k \ge 0` with :math:`E[s^k]` below the float64 maximum (about 1.8e308):
        up to 1038 at ``kappa=1`` (Frobenius normalisation), 1787 at ``kappa=0.5``;
        beyond, ``ValueError`` gives the largest order.  With ``d`` and ``p`` only
        0, 2 and 4.
    kappa : float or array_like
        Rank ratio(s) in (0, 1]; broadcasts with ``order``.  With ``d`` and
        ``p``: 1 only (the finite-size law is derived at full rank).
    normalization, family
        As in :func:`singular_value_density` (``family="product"`` raises; with
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
    options = {"normalization": normalization, "family": family, "d": d, "p": p}

    return_error = check_flag("return_error", return_error)

    def one(power: int, rank: float, dimension: Any, outputs: Any) -> Any:
        resolved = singular_value_law(rank, **{**options, "d": dimension, "p": outputs})
        if isinstance(resolved, FiniteSizeSingularValueLaw):
            return resolved.finite_d_moment(power)
        return resolved.moment(power)

    names = ("order", "kappa", "d", "p")
    value = elementwise(one, order, kappa, _parameter(d), _parameter(p), names=names)
    if not return_error:
        return value

    def error(power: int, rank: float, dimension: Any, outputs: Any) -> Any:
        resolved = singular_value_law(rank, **{**options, "d": dimension, "p": outputs})
        if isinstance(resolved, FiniteSizeSingularValueLaw):
            return resolved.finite_d_moment_error(power)
        return np.float64(0.0)

    return value, elementwise(error, order, kappa, _parameter(d), _parameter(p), names=names)


@renamed_keywords(law="family")
def sample_singular_values(
    size: int,
    kappa: float = 1.0,
    seed: int | np.random.Generator | None = None,
    *,
    normalization: str = "frobenius",
    family: str = "optimum",
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

    Embeddings: Gaussian only; the finite-size law (``d=``, ``p=``) was fitted on Gaussian
    instances, and the :math:`d \to \infty` laws do not involve the embeddings.

    Parameters
    ----------
    size : int
        Sample size, ``size >= 0`` (named as in scipy: ``n`` counts associations).
    kappa : float
        Rank ratio in (0, 1].
    seed : int or Generator, optional
        Random seed.
    normalization, family, d, p
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
    resolved = singular_value_law(kappa, normalization=normalization, family=family, d=d, p=p)
    return resolved.rvs(count, seed)

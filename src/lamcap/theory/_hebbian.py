r"""The Hebbian memory :math:`W_H = \sum_\mu u_\mu e_\mu^\top`: scores and recall curves.

docs/theory/hebbian.md (arXiv:2605.10795; the thresholds are also proved in
arXiv:2605.05189).  Decoupled problem: association :math:`\mu` has input
:math:`e_\mu`, target :math:`u_\mu` and :math:`p - 1` competitor outputs that
do not enter :math:`W`; all vectors i.i.d. :math:`N(0, I_d/d)`, ``n``
associations (default ``n = p``), load :math:`\alpha = p\log p/d^2`.

*Normalised units.*  With :math:`h = W e_\mu`, every competitor score is
exactly :math:`N(0, \|h\|^2/d)` given :math:`W`, so scores are divided by the
competitor spread :math:`\|h\|/\sqrt d`.  In these units the target score is
:math:`X = \sqrt d\, u_\mu^\top h/\|h\|` and, as :math:`d \to \infty` at fixed
:math:`\alpha, p`,

.. math::

    X \to N(\mu_p, 1), \qquad \mu_p = \frac{d}{\sqrt n} = \sqrt{\frac{p\log p}{n\,\alpha}}
    \quad (= \sqrt{\log p/\alpha} \text{ for } n = p).

Association :math:`\mu` is recalled with probability
:math:`P_1 = E[\Phi(X)^{p-1}]`.

*Finite d, exactly.*  Write :math:`a = |e_\mu|^2`, :math:`b = |u_\mu|^2`,
:math:`v = \sum_{\nu\ne\mu} u_\nu (e_\nu^\top e_\mu)`.  Given :math:`e_\mu`,
:math:`v` is isotropic Gaussian with per-coordinate variance :math:`s^2/d`,
:math:`s^2 = \sum_{\nu \ne \mu}(e_\nu^\top e_\mu)^2 = a\,\chi^2_{n-1}/d`.
Splitting :math:`v` along :math:`u_\mu` (component :math:`w \sim N(0, s^2/d)`)
and orthogonally (:math:`V = |v_\perp|^2 \sim (s^2/d)\chi^2_{d-1}`),

.. math::

    X = \sqrt{d b}\,\frac{a\sqrt b + w}{\sqrt{(a\sqrt b + w)^2 + V}},
    \qquad a, b \sim \chi^2_d/d ,

a function of five independent scalars.  :func:`hebbian_recall_finite`
integrates it with Gauss rules (generalised Gauss–Laguerre for the four
chi-square variables, Golub–Welsch in float64, 8 nodes each, and the
composite Gauss–Legendre rule below for the Gaussian one).  The leading
finite-d effect is the shrinkage :math:`X \approx (\mu_p + Z)/\sqrt{1 + \mu_p^2/d}`
(the target itself inflates :math:`\|h\|`), which is *not* small at the
sizes one simulates: :math:`\mu_p^2/d = n^{-1} d` is 0.5 at ``d = 20``,
``n = 40``.

*All associations.*  The recall events of different associations share
:math:`W`; we use the independence (Poisson) approximation
:math:`P(\text{all}) \approx P_1^n` (the pair correlation of the normalised targets
is :math:`O(1/n)`).  Only :math:`P_1` is exact.  The events are negatively
dependent, so :math:`P_1^n` is high.  Against an exact-competitor Monte Carlo at
``n = p`` (measurements/hebbian_all_error.py) it exceeds :math:`P(\text{all})` by up to
0.022, 0.017, 0.011 and 0.006 at ``d = 8, 16, 32, 64``, largest where :math:`P_1^n`
is 0.1-0.3 and shrinking about like :math:`1/\sqrt d`; at the crossing of 1/2 by
0.014, 0.006 and 0.003 at ``d = 16, 32, 64``, so the true crossing lies 1.3%, 0.4%
and 0.14% lower (measurements/hebbian_mc.py).
:func:`hebbian_all_recalled_error` states the bound :math:`0.08/\sqrt d` that covers
every measured point (``n = p``, ``8 <= d <= 64``).
With ``pairs=True`` :func:`hebbian_recall_finite` keeps the pair correlation
:math:`\rho = -(Q^2 + 2Q - 2)/(d Q (2Q^2 - 1))`, :math:`Q = 1 + (n-1)/d`, of the
normalised targets:
:math:`P(\text{all}) \approx P_1^n (1 + \rho c_1^2/P_1^2)^{n(n-1)/2}` (the pair law;
model with measured error, crossings of 1/2 within 0.17% at held-out d = 10-128).

*Thresholds.*  The error fraction :math:`1 - P_1` decays like :math:`p^{-e(\alpha)}`
up to logarithmic factors (:func:`hebbian_error_exponent`), with
:math:`e(\alpha) = (1-\sqrt{2\alpha})^2/(2\alpha)` for
:math:`1/8 \le \alpha < 1/2` and :math:`e(\alpha) = 1/(4\alpha) - 1` for
:math:`\alpha \le 1/8`: for :math:`\alpha < 1/8` the Laplace maximum moves
into the interior (a moderately low target against one high competitor), and
the decay is *slower* than the middle-branch formula, which over-estimates the
exponent there (docs/theory/hebbian.md).  :math:`n\,p^{-e(\alpha)} \to 0` iff
:math:`e(\alpha) > 1` iff
:math:`\alpha < 1/8 =` :data:`HEBBIAN_CAPACITY`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import linalg, optimize, special

from lamcap._validation import (
    check_dps,
    check_finite_array,
    check_flag,
    check_integer,
    check_integer_array,
    check_real,
)
from lamcap.theory._arrays import broadcast, elementwise, float_result, grouped
from lamcap.theory._law import Law
from lamcap.theory._precision import secant_root, working_dps

FloatArray = NDArray[np.float64]

HEBBIAN_CAPACITY = 0.125
r"""Asymptotic Hebbian capacity: all associations are recalled iff alpha < 1/8.

Status: asymptotic. The threshold as :math:`p \to \infty` (and :math:`d \to \infty`); at finite
``p`` the load where all are recalled with probability 1/2 is higher (:func:`hebbian_critical_load`:
0.154 at ``p = 1000``) and approaches 1/8 logarithmically.

See docs/theory/hebbian.md and arXiv:2605.10795.
"""

_Z_LIMIT = 39.0  # phi(39) ~ 1e-331: nothing beyond contributes in float64
_PANEL_WIDTH = 0.5
#: Gauss-Legendre nodes per panel of the d -> infinity recall (12 left 1 - r 1.5e-12 off at
#: p = 1e8, alpha = 0.3, against dps=30; 20 give below 2e-15 up to p = 1e12) ...
_PANEL_NODES = 20
#: ... and of the Gaussian variable of the finite-d rule (its chi-square rules limit it to 1e-6).
_FINITE_PANEL_NODES = 12
_CHI_NODES = 8
_FINITE_Z_LIMIT = 10.0
#: Panels of the moments of the top competitor (its density narrows like 1/sqrt(2 log p)).
_MAXIMUM_PANEL_WIDTH = 0.125


def _z_rule(
    limit: float = _Z_LIMIT, order: int = _PANEL_NODES, panel_width: float = _PANEL_WIDTH
) -> tuple[FloatArray, FloatArray]:
    """Composite Gauss–Legendre nodes and weights times phi(z) on [-limit, limit]."""
    nodes, weights = np.polynomial.legendre.leggauss(order)
    edges = np.arange(-limit, limit, panel_width)
    half = 0.5 * panel_width
    z = (edges[:, None] + half * (nodes[None, :] + 1.0)).ravel()
    w = np.tile(half * weights, edges.size)
    return z, w * np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi)


def _recall_and_error(
    target: FloatArray, weights: FloatArray, competitors: int
) -> tuple[FloatArray, FloatArray]:
    """``E[Phi(X)^c]`` and ``1 - E[Phi(X)^c]``, each accurate to relative precision.

    ``target`` has the quadrature nodes on its last axis, ``weights`` matching.
    """
    # with competitors near 1e308 the product may overflow to -inf: the probability
    # that all stay below is then below every float64, and exp(-inf) = 0 is exact to it
    with np.errstate(over="ignore"):
        log_all = competitors * special.log_ndtr(target)
    recall = np.sum(weights * np.exp(log_all), axis=-1)
    error = np.sum(weights * -np.expm1(log_all), axis=-1)
    return recall, error


def _all_recalled(recall: FloatArray, miss: FloatArray, n: int) -> tuple[FloatArray, FloatArray]:
    """``P_1^n`` and ``1 - P_1^n`` from ``P_1`` and ``1 - P_1`` (log of the more accurate one)."""
    # -inf for n near 1e308 (overflow) or a recall of 0: exp gives 0, exact to float64
    with np.errstate(divide="ignore", over="ignore"):
        log_all = n * np.where(miss < 0.5, np.log1p(-np.minimum(miss, 0.5)), np.log(recall))
    return np.exp(log_all), -np.expm1(log_all)


def _check_n(n: Any, p: int) -> int:
    return p if n is None else check_integer("n", n, minimum=1)


def _check_p_n(p: ArrayLike, n: ArrayLike | None) -> tuple[NDArray[Any], NDArray[Any]]:
    """``p >= 2`` and ``n >= 1`` (default ``p``) as integer arrays."""
    outputs = check_integer_array("p", p, minimum=2)
    return outputs, outputs if n is None else check_integer_array("n", n, minimum=1)


def _target_mean(p: int, n: int, alpha: FloatArray) -> FloatArray:
    r""":math:`\mu_p = d/\sqrt n` with :math:`d^2 = p\log p/\alpha`."""
    # the square root of each factor: p log p overflows float64 for p near 1e308
    return math.sqrt(p / n) * np.sqrt(math.log(p) / alpha)


def hebbian_recall(
    p: ArrayLike,
    alpha: ArrayLike,
    *,
    all_associations: bool = False,
    n: ArrayLike | None = None,
    error: bool = False,
    dps: int | None = None,
) -> Any:
    r"""Recall probability of the Hebbian memory at load :math:`\alpha` (:math:`d \to \infty`).

    .. math::

        P_1 = \int \varphi(z)\, \Phi(\mu_p + z)^{p-1}\,dz, \qquad
        \mu_p = \sqrt{\log p/\alpha}\ (n = p), \qquad P(\text{all}) \approx P_1^n .

    Status: asymptotic. :math:`P_1` in the limit :math:`d \to \infty` at fixed :math:`p` and
    :math:`\alpha`, evaluated to the relative error stated under Notes. At the sizes one
    simulates it is far too high (0.820 against the exact 0.649 at ``d = 20``, ``p = 40``:
    :func:`hebbian_recall_finite`). With ``all_associations=True`` it is :math:`P_1^n`, which
    also leaves out the dependence between associations through the shared :math:`W`
    (:func:`hebbian_all_recalled_error`).

    Parameters
    ----------
    p : int or array_like of int
        Number of outputs, ``p >= 2`` (valid up to at least ``1e9``).
    alpha : float or array_like
        Load :math:`p\log p/d^2 > 0`.
    all_associations : bool
        Return the probability that all ``n`` associations are recalled
        (independence approximation :math:`P_1^n`, see the module docstring)
        instead of the per-association recall :math:`P_1`.
    n : int or array_like of int, optional
        Number of associations (default ``p``).  ``p``, ``alpha`` and ``n``
        broadcast together.
    error : bool
        Return the complement (``1 - P_1`` or ``1 - P_1^n``) computed without
        cancellation, for the tiny error rates of small loads.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits: the same integral by
        ``mpmath.quad``, split at the centre of :math:`\varphi`, the Laplace point
        :math:`-\mu_p/2` of the error and the recall edge
        :math:`\sqrt{2\log p} - \mu_p` (checked against the closed forms at
        :math:`p = 2, 3` to 29 digits, tests/theory/test_hebbian.py).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        Broadcast shape of ``p``, ``alpha`` and ``n`` (array contract:
        docs/howto/precision.md).

    Notes
    -----
    Integrand evaluated in log space (``log Φ``); composite Gauss–Legendre
    rule (20 nodes per panel of width 1/2 on [-39, 39]).  Relative error below
    ``1e-13`` for both ``P_1`` and ``1 - P_1``: at most 2e-14 against ``dps=30``
    for p = 2 to 1e12 at loads 0.05, 0.125 and 0.3, where ``1 - P_1`` goes down
    to 1e-50 (tests/theory/test_reference_sweeps.py; 12 nodes per panel left
    1.5e-12 at p = 1e8, load 0.3).  Reference: docs/theory/hebbian.md, arXiv:2605.10795, arXiv:2605.05189.

    Examples
    --------
    >>> from scipy.special import ndtr
    >>> mu = math.sqrt(math.log(2) / 0.5)  # p = 2: P_1 = P(mu + Z > Z') = Phi(mu / sqrt 2)
    >>> bool(abs(hebbian_recall(2, 0.5) - ndtr(mu / math.sqrt(2))) < 1e-15)
    True
    >>> print(f"{hebbian_recall(1000, 0.05, error=True):.4e}")  # 1 - P_1, no cancellation
    4.7261e-14
    >>> round(float(hebbian_recall(1000, 0.15, all_associations=True)), 4)
    0.5977
    >>> hebbian_recall([100, 1000], 0.15, all_associations=True).round(4).tolist()
    [0.7334, 0.5977]
    """
    outputs, counts = _check_p_n(p, n)
    alphas = check_finite_array("alpha", alpha, minimum=0.0, closed="(]")
    outputs, alphas, counts = broadcast(outputs, alphas, counts, names=("p", "alpha", "n"))
    all_associations = check_flag("all_associations", all_associations)
    error = check_flag("error", error)
    digits = check_dps(dps)
    if digits is not None:

        def one_mp(p_value: int, alpha_value: float, n_value: int) -> Any:
            return _recall_mp(p_value, alpha_value, n_value, all_associations, error)

        return elementwise(one_mp, outputs, alphas, counts, dps=digits)
    z, weights = _z_rule()

    def one_problem(p_value: int, n_value: int, alpha_values: FloatArray) -> FloatArray:
        mu = _target_mean(p_value, n_value, alpha_values)
        recall, miss = _recall_and_error(mu[..., None] + z, weights, p_value - 1)
        if all_associations:
            recall, miss = _all_recalled(recall, miss, n_value)
        return miss if error else recall

    return float_result(grouped(one_problem, [outputs, counts], alphas))


def _log_cdf_mp(x: Any) -> Any:
    r""":math:`\log\Phi(x)` in mpmath, through :math:`\log(1 - Q(x))` above 0 (no cancellation)."""
    return mpmath.log1p(-mpmath.ncdf(-x)) if x > 0 else mpmath.log(mpmath.ncdf(x))


def _recall_mp(p: int, alpha: float, n: int, all_associations: bool, error: bool) -> Any:
    """mpmath route of :func:`hebbian_recall` for one problem, at the working precision."""
    competitors = p - 1
    mu = mpmath.sqrt(p * mpmath.log(p) / (n * mpmath.mpf(alpha)))

    def exponent(z: Any) -> Any:
        return competitors * _log_cdf_mp(mu + z)

    def recall(z: Any) -> Any:
        return mpmath.npdf(z) * mpmath.exp(exponent(z))

    def miss(z: Any) -> Any:
        return mpmath.npdf(z) * -mpmath.expm1(exponent(z))

    edge = mpmath.sqrt(2 * mpmath.log(p)) - mu
    centres = [mpmath.mpf(0), -mu / 2, edge]
    low = max(min(centres) - 8, mpmath.mpf(-_Z_LIMIT))
    high = min(max(centres) + 8, mpmath.mpf(_Z_LIMIT))
    # unit panels between the Laplace points, split at each of them
    points = sorted({low + k for k in range(int(high - low))} | {high} | set(centres))
    points = [x for x in points if low <= x <= high]
    tails = (-mpmath.inf, low), (high, mpmath.inf)
    integrand = miss if error else recall
    # mpmath.quad stops at an absolute error of one ulp of 1: integrate in units of
    # the integrand's largest value on the breakpoints (1 - P_1 can be 1e-50)
    scale = max(integrand(x) for x in points) or mpmath.mpf(1)

    def scaled(z: Any) -> Any:
        return integrand(z) / scale

    value = scale * (mpmath.quad(scaled, points) + sum(mpmath.quad(scaled, t) for t in tails))
    if not all_associations:
        return value
    if error:  # 1 - (1 - miss)^n
        return -mpmath.expm1(n * mpmath.log1p(-value))
    return value**n


def _gamma_rule(shape: float, nodes: int) -> tuple[FloatArray, FloatArray]:
    """Gauss rule for Gamma(shape, 1): Golub–Welsch on the Laguerre recurrence."""
    index = np.arange(nodes, dtype=np.float64)
    diagonal = 2.0 * index + shape
    off = np.sqrt(index[1:]) * np.sqrt(index[1:] + shape - 1.0)  # no overflow at huge shape
    values, vectors = linalg.eigh_tridiagonal(diagonal, off)
    return np.asarray(values, dtype=np.float64), np.asarray(vectors[0] ** 2, dtype=np.float64)


def _chi2_rule(dof: int) -> tuple[FloatArray, FloatArray]:
    """Gauss rule for chi^2_dof / dof (mean 1)."""
    values, weights = _gamma_rule(0.5 * dof, _CHI_NODES)
    return 2.0 * values / dof, weights


def _finite_target_grid(d: int, n: int) -> tuple[FloatArray, FloatArray]:
    """Normalised target ``X`` on the product quadrature grid, with its weights.

    The Gaussian variable is cut at |z| <= 10 (mass beyond: 1.5e-23).
    """
    z, z_weights = _z_rule(_FINITE_Z_LIMIT, _FINITE_PANEL_NODES)
    a, wa = _chi2_rule(d)
    b, wb = _chi2_rule(d)
    others = max(n - 1, 0)
    if others > 0:
        q, wq = _chi2_rule(others)
    else:
        q, wq = np.zeros(1), np.ones(1)
    if d > 1:
        v, wv = _chi2_rule(d - 1)
    else:
        v, wv = np.zeros(1), np.ones(1)
    a4, b4, q4, v4, z4 = np.meshgrid(a, b, q, v, z, indexing="ij", sparse=True)
    weight = (
        wa[:, None, None, None, None]
        * wb[None, :, None, None, None]
        * wq[None, None, :, None, None]
        * wv[None, None, None, :, None]
        * z_weights[None, None, None, None, :]
    )
    # X = sqrt(d b) (a sqrt(b) + w) / sqrt((a sqrt(b) + w)^2 + V) with s^2 = a (n-1) q / d,
    # w = sqrt(s^2 / d) z and V = s^2 (d-1) v / d; numerator and denominator are divided
    # by sqrt((n-1) / d), so that nothing overflows when n is near 1e308
    scale = max(others / d, 1.0)
    unit_spread2 = a4 * (others / d / scale) * q4  # s^2 / scale
    along = a4 * np.sqrt(b4) / math.sqrt(scale) + np.sqrt(unit_spread2 / d) * z4
    orthogonal = unit_spread2 * ((d - 1) / d) * v4  # V / scale
    target = np.sqrt(d * b4) * along / np.sqrt(along * along + orthogonal)
    return target.reshape(-1), np.broadcast_to(weight, target.shape).reshape(-1)


def _pair_correlation(d: int, n: int) -> float:
    r"""Correlation of two normalised targets, leading order at fixed :math:`r = (n-1)/d`.

    :math:`\rho = -(Q^2 + 2Q - 2)/(d\,Q\,(2Q^2 - 1))`, :math:`Q = 1 + r` (docstring of
    :func:`hebbian_recall_finite`; derivation in docs/theory/hebbian.md).  Negative for
    ``n >= 2``, 0 for ``n = 1``.
    """
    if n < 2:
        return 0.0
    q = 1.0 + (n - 1) / d
    return -(q * q + 2.0 * q - 2.0) / (d * q * (2.0 * q * q - 1.0))


def _pair_law(
    target: FloatArray, weights: FloatArray, p: int, d: int, n: int, error: bool
) -> float:
    r"""Pair law :math:`P_1^n (1 + \rho c_1^2/P_1^2)^{n(n-1)/2}` (or its complement)."""
    with np.errstate(over="ignore", under="ignore"):  # as in _recall_and_error
        log_recalled = (p - 1) * special.log_ndtr(target)
        recalled = np.exp(log_recalled)
    one = float(np.sum(weights * recalled))
    one_miss = float(np.sum(weights * -np.expm1(log_recalled)))
    mean = float(np.sum(weights * target))
    spread2 = float(np.sum(weights * (target - mean) ** 2))
    slope = float(np.sum(weights * recalled * (target - mean)))  # Cov(Phi(X)^(p-1), X)
    if one <= 0.0 or spread2 <= 0.0:
        return 1.0 if error else 0.0
    ratio = _pair_correlation(d, n) * slope * slope / spread2 / (one * one)
    if ratio <= -1.0:  # the model's pair probability P_1^2 + rho c_1^2 is not positive
        return 1.0 if error else 0.0
    log_one = math.log1p(-one_miss) if one_miss < 0.5 else math.log(one)
    log_all = n * log_one + 0.5 * n * (n - 1) * math.log1p(ratio)
    return -math.expm1(log_all) if error else math.exp(log_all)


def hebbian_recall_finite(
    p: ArrayLike,
    d: ArrayLike,
    *,
    n: ArrayLike | None = None,
    all_associations: bool = False,
    error: bool = False,
    pairs: bool = False,
) -> Any:
    r"""Recall probability of the Hebbian memory at finite ``d`` (decoupled problem; P_1 exact).

    .. math::

        P_1 = E\big[\Phi(X)^{p-1}\big], \qquad
        X = \sqrt{d b}\,\frac{a\sqrt b + w}{\sqrt{(a\sqrt b + w)^2 + V}},

    with the five independent scalars of the module docstring, integrated by
    Gauss rules (8 nodes per chi-square variable).  ``P(all) ≈ P_1^n`` as in
    :func:`hebbian_recall`, with the measured error :func:`hebbian_all_recalled_error`.

    Status: exact. :math:`P_1` of the decoupled Hebbian memory with Gaussian embeddings at
    finite ``d``, to about ``1e-6`` relative (Notes). With ``all_associations=True`` the result
    :math:`P_1^n` is a model with measured error: the ``n`` recall events share :math:`W`, and
    :math:`P_1^n` exceeds the true probability that all are recalled by up to
    :func:`hebbian_all_recalled_error` ``(d)`` (measured at ``n = p``, d = 8-64); with
    ``pairs=True`` as well, the pair law below, also a model with measured error (within
    0.17% in :math:`p_c` at held-out d = 10-128).

    With ``all_associations=True, pairs=True`` the dependence is kept to second order
    (pair law, docs/theory/hebbian.md, "All associations: the pair law"):

    .. math::

        P(\text{all}) \approx P_1^n \Big(1 + \rho\,\frac{c_1^2}{P_1^2}\Big)^{n(n-1)/2},
        \qquad c_1 = \frac{\operatorname{Cov}(\Phi(X)^{p-1}, X)}{\operatorname{sd}(X)},
        \qquad \rho = -\frac{Q^2 + 2Q - 2}{d\,Q\,(2Q^2 - 1)},

    with :math:`Q = 1 + (n-1)/d`: :math:`\rho < 0` is the correlation of two
    associations' normalised targets (its leading order as :math:`d \to \infty` at fixed
    :math:`(n-1)/d`), :math:`c_1` is taken on the exact finite-d law of :math:`X`, and a
    pair term :math:`P_1^2 + \rho c_1^2` below 0 gives 0.

    The pair law (``pairs=True``) is a model with measured error, not a bound. Against an
    exact-competitor Monte Carlo at held-out sizes d = 10, 20, 28, 40, 56, 80, 96 and 128,
    and at d = 16 with fresh seeds (``n = p``, 30 000 memories per point;
    measurements/hebbian_all_pairs.py, docs/measurements/hebbian_all_pairs_transition.csv),
    the load :math:`p_c` where it crosses 1/2 is within 0.17% of the measured one at every
    d (95% intervals of 0.06-0.19%; -0.07% at d = 16), where :math:`P_1^n` is 1.39%,
    0.90%, 0.79%, 0.45%, 0.31% and 0.22% high at d = 10-56 and within 0.06% at d = 80-128
    (where the pair law is 0.11% low at d = 80).
    Point by point it is within :func:`hebbian_all_recalled_error` ``(d, pairs=True)``
    = 0.0075 of :math:`P(\text{all})` (8 <= d <= 128; the misses are at the level of the
    Monte Carlo noise).

    Embeddings: Gaussian only; the Hebbian laws are derived for Gaussian embeddings
    (docs/theory/hebbian.md), and lamcap has no unit-norm Hebbian law.

    Parameters
    ----------
    p : int or array_like of int
        Outputs per association, ``p >= 2``.
    d : int or array_like of int
        Dimension, ``d >= 1``; the load is :math:`\alpha = p\log p/d^2`.
    n, all_associations, error
        As in :func:`hebbian_recall`; ``p``, ``d`` and ``n`` broadcast together.
    pairs : bool
        With ``all_associations=True``, the pair law above instead of :math:`P_1^n`
        (default False: the values of earlier versions).  Needs ``all_associations=True``.

    Returns
    -------
    numpy.float64 or ndarray
        :math:`P_1`, :math:`P_1^n` (or the pair law), or their complements if ``error``,
        in the broadcast shape of the arguments.

    Raises
    ------
    ValueError
        For ``p < 2``, ``d < 1``, ``n < 1``, a non-bool flag, or ``pairs=True`` without
        ``all_associations=True``.

    Notes
    -----
    Precision: about ``1e-6`` relative for ``d >= 8`` (the Gauss rules of the
    chi-square variables; measured by doubling the nodes), checked against
    Monte Carlo of actual Hebbian memories.  Reference: docs/theory/hebbian.md.

    Examples
    --------
    >>> exact = hebbian_recall_finite(40, 20)
    >>> limit = hebbian_recall(40, 40 * math.log(40) / 400)
    >>> round(float(exact), 3), round(float(limit), 3)
    (0.649, 0.82)
    >>> [round(float(hebbian_recall_finite(13, 16, all_associations=True, pairs=pairs)), 4)
    ...  for pairs in (False, True)]  # Monte Carlo with the shared W: 0.2044 +- 0.0006
    [0.2231, 0.2064]
    """
    outputs, counts = _check_p_n(p, n)
    dimensions = check_integer_array("d", d, minimum=1)
    all_associations = check_flag("all_associations", all_associations)
    error = check_flag("error", error)
    pairs = check_flag("pairs", pairs)
    if pairs and not all_associations:
        msg = (
            "pairs=True corrects the probability that all associations are recalled and "
            f"needs all_associations=True, got all_associations={all_associations!r}"
        )
        raise ValueError(msg)

    def one_problem(p_value: int, d_value: int, n_value: int) -> float:
        target, weights = _finite_target_grid(d_value, n_value)
        value: Any
        if pairs:
            value = _pair_law(target, weights, p_value, d_value, n_value, error)
        else:
            recall, miss = _recall_and_error(target, weights, p_value - 1)
            if all_associations:
                recall, miss = _all_recalled(recall, miss, n_value)
            value = miss if error else recall
        # the quadrature's coefficients sum to 1 within a few ulp: a probability, in [0, 1]
        return min(max(float(value), 0.0), 1.0)

    return elementwise(one_problem, outputs, dimensions, counts, names=("p", "d", "n"))


#: Constant :math:`c` of :func:`hebbian_all_recalled_error` and the range of ``d`` in which
#: it was measured (measurements/hebbian_all_error.py, docs/measurements/hebbian_all_error.csv).
_ALL_RECALLED_ERROR_SCALE: float = 0.08
_ALL_RECALLED_ERROR_DIMS: tuple[int, int] = (8, 64)
#: Bound of :func:`hebbian_all_recalled_error` with ``pairs=True`` and its range of ``d``
#: (measurements/hebbian_all_pairs.py, docs/measurements/hebbian_all_pairs.csv, and the
#: points of docs/measurements/hebbian_all_error.csv).
_PAIRS_ERROR: float = 0.0075
_PAIRS_ERROR_DIMS: tuple[int, int] = (8, 128)


def hebbian_all_recalled_error(d: ArrayLike, *, pairs: bool = False) -> Any:
    r"""Measured bound on the error of the Hebbian all-recalled law :math:`P_1^n` at finite ``d``.

    .. math::

        \big|P_1^n - P(\text{all})\big| \le \frac{c}{\sqrt d}, \qquad c = 0.08,
        \qquad n = p,\quad 8 \le d \le 64,

    where :math:`P_1^n` is ``hebbian_recall_finite(p, d, all_associations=True)`` and
    :math:`P(\text{all})` the probability that the decoupled Hebbian memory with Gaussian
    embeddings recalls all :math:`n = p` associations.  :math:`P_1` is exact; the power
    treats the :math:`n` recall events as independent, while they share :math:`W` and are
    negatively dependent, so :math:`P_1^n` is high.

    Measured against an exact-competitor Monte Carlo (measurements/hebbian_all_error.py,
    docs/measurements/hebbian_all_error.csv; docs/theory/hebbian.md): memories drawn as
    :func:`lamcap.make_instance` draws them, the top competitor of each association drawn
    exactly from its law given :math:`W`, at 9-20 values of ``p`` per ``d`` where
    :math:`P_1^n` lies in [0.01, 0.99], 100 000 memories per point (40 000 at
    ``d = 64``; standard errors 0.0001-0.0013).  The largest miss
    :math:`P_1^n - P(\text{all})` is 0.0216, 0.0203, 0.0166, 0.0119, 0.0106, 0.0082 and
    0.0061 at d = 8, 12, 16, 24, 32, 48 and 64, where :math:`P_1^n` is 0.1-0.3 (2-11%
    relative); :math:`\sqrt d` times it is 0.048-0.070, so the miss shrinks about like
    :math:`1/\sqrt d`, not like :math:`1/d`.  Coverage: :math:`c = 0.08` bounds the miss
    plus two standard errors at every one of the 104 points (largest
    :math:`\sqrt d\,(|\text{miss}| + 2\,\text{se}) = 0.075`, at d = 12, p = 9); no point
    has :math:`P_1^n` significantly low.

    With ``pairs=True``: the bound on the error of the pair law
    ``hebbian_recall_finite(p, d, all_associations=True, pairs=True)``,

    .. math::

        \big|P_\text{pairs} - P(\text{all})\big| \le c_2, \qquad c_2 = 0.0075,
        \qquad n = p,\quad 8 \le d \le 128,

    measured on the same Monte Carlo at 61 fresh points, d = 10, 16, 20, 28, 40, 56, 80, 96
    and 128 with 5-7 values of ``p`` each where the law lies in [0.15, 0.85], 30 000
    memories per point (measurements/hebbian_all_pairs.py,
    docs/measurements/hebbian_all_pairs.csv), and at the 104 points above.  :math:`c_2`
    covers the miss plus two standard errors at all 165 points (largest 0.0071, at d = 80,
    p = 129; 0.0037 on the 104 points of 100 000 memories).  On the fresh points the
    misses are what the Monte Carlo noise alone gives (root mean square of miss/se 0.96,
    mean -0.22; largest miss 0.0043, against 0.021 for :math:`P_1^n`), so :math:`c_2` is
    set by the resolution of the measurement, not by a detected error of the law.  In
    ``p`` the crossings of 1/2 agree within 0.17% at every held-out d (docs/theory/hebbian.md).

    Embeddings: Gaussian only; the Hebbian laws are derived for Gaussian embeddings
    (docs/theory/hebbian.md), and lamcap has no unit-norm Hebbian law.

    Parameters
    ----------
    d : int or array_like of int
        Dimension, ``8 <= d <= 64`` (``8 <= d <= 128`` with ``pairs=True``): the measured
        range; the error at other ``d`` is not known.
    pairs : bool
        The bound of the pair law instead of that of :math:`P_1^n`.

    Returns
    -------
    numpy.float64 or ndarray
        The bound :math:`c/\sqrt d` on the absolute error of :math:`P_1^n` (the constant
        :math:`c_2` with ``pairs=True``), shaped like ``d``.

    Raises
    ------
    ValueError
        For ``d`` outside the measured range or not an integer, or a non-bool ``pairs``.

    Examples
    --------
    >>> float(hebbian_all_recalled_error(16))
    0.02
    >>> law = float(hebbian_recall_finite(14, 16, all_associations=True))
    >>> bound = float(hebbian_all_recalled_error(16))
    >>> round(law - bound, 4), round(law, 4)  # P(all) at p = n = 14 lies in this range
    (0.1337, 0.1537)
    >>> float(hebbian_all_recalled_error(128, pairs=True))
    0.0075
    """
    pairs = check_flag("pairs", pairs)
    low, high = _PAIRS_ERROR_DIMS if pairs else _ALL_RECALLED_ERROR_DIMS
    dimensions = check_integer_array("d", d, minimum=low, maximum=high)
    if pairs:
        return float_result(np.full(dimensions.shape, _PAIRS_ERROR))
    return float_result(_ALL_RECALLED_ERROR_SCALE / np.sqrt(dimensions.astype(np.float64)))


def hebbian_error_exponent(alpha: ArrayLike, *, dps: int | None = None) -> Any:
    r"""Asymptotic decay exponent of the Hebbian error fraction: :math:`1 - P_1 \approx p^{-e(\alpha)}`.

    .. math::

        e(\alpha) = \begin{cases}
            \frac{1}{4\alpha} - 1, & \alpha \le 1/8,\\
            \frac{(1 - \sqrt{2\alpha})^2}{2\alpha}, & 1/8 \le \alpha \le 1/2,\\
            0, & \alpha \ge 1/2,
        \end{cases}

    from the Laplace method on :math:`\int \varphi(z)\min(1, p\,\bar\Phi(\mu_p+z))dz`
    (module docstring).  The middle branch alone, often quoted for all
    :math:`\alpha < 1/2`, over-estimates the decay below :math:`\alpha = 1/8`.  :math:`e(1/8) = 1`: all
    associations are recalled iff :math:`e > 1` iff :math:`\alpha < 1/8`.
    Reference: docs/theory/hebbian.md, arXiv:2605.10795.

    Status: asymptotic. The exponent of :math:`1 - P_1` as :math:`p \to \infty` (after
    :math:`d \to \infty`); at finite :math:`p` the logarithmic factors it leaves out matter.

    Parameters
    ----------
    alpha : float or array_like
        Load :math:`\alpha > 0`.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits (the closed form in mpmath).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        :math:`e(\alpha)`, shaped like ``alpha``.

    Examples
    --------
    >>> [round(float(hebbian_error_exponent(a)), 6) for a in (0.1, 0.125, 0.3, 0.6)]
    [1.5, 1.0, 0.084678, 0.0]
    """
    alpha_array = check_finite_array("alpha", alpha, minimum=0.0, closed="(]")
    digits = check_dps(dps)
    if digits is not None:
        return elementwise(_error_exponent_mp, alpha_array, dps=digits)
    root = math.sqrt(2.0) * np.sqrt(alpha_array)  # 2 alpha overflows for alpha near 1e308
    middle = (1.0 - np.minimum(root, 1.0)) ** 2 / 2.0 / alpha_array
    return float_result(np.where(alpha_array <= HEBBIAN_CAPACITY, 0.25 / alpha_array - 1.0, middle))


def _error_exponent_mp(alpha: float) -> Any:
    """:func:`hebbian_error_exponent` at one load, in mpmath."""
    a = mpmath.mpf(alpha)
    if alpha <= HEBBIAN_CAPACITY:
        return 1 / (4 * a) - 1
    return (1 - min(mpmath.sqrt(2 * a), mpmath.mpf(1))) ** 2 / (2 * a)


def hebbian_critical_load(
    p: ArrayLike,
    *,
    probability: ArrayLike = 0.5,
    n: ArrayLike | None = None,
    dps: int | None = None,
) -> Any:
    r"""Load :math:`\alpha` at which all ``n`` associations are recalled with probability ``probability``.

    Solves :math:`P_1(\alpha)^n = \text{probability}` (:func:`hebbian_recall`); tends
    to :data:`HEBBIAN_CAPACITY` = 1/8 as :math:`p \to \infty`, logarithmically
    slowly (docs/theory/hebbian.md).

    Status: asymptotic. Built on :func:`hebbian_recall` (:math:`d \to \infty`) and
    :math:`P_1^n`; at finite ``d`` use :func:`hebbian_recall_finite` and the error of
    :func:`hebbian_all_recalled_error`.

    Parameters
    ----------
    p : int or array_like of int
        Number of outputs, ``p >= 2``.
    probability : float or array_like
        Target probability of recalling all ``n`` associations, in (0, 1).
    n : int or array_like of int, optional
        Number of associations (default ``p``).  ``p``, ``probability`` and ``n``
        broadcast together.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits: secant steps in
        :math:`\log\alpha` from the float64 root on the mpmath route of
        :func:`hebbian_recall`.

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        :math:`\alpha` to ``1e-13`` (Brent's method on a log scale), in the
        broadcast shape of the arguments.

    Examples
    --------
    >>> hebbian_critical_load([10**3, 10**6, 10**9]).round(4).tolist()
    [0.1543, 0.1404, 0.1357]
    """
    outputs, counts = _check_p_n(p, n)
    probabilities = check_finite_array(
        "probability", probability, minimum=0.0, maximum=1.0, closed="()"
    )
    digits = check_dps(dps)

    def one_problem(p_value: int, target: float, n_value: int) -> float:
        def gap(log_alpha: float) -> float:
            value = hebbian_recall(p_value, math.exp(log_alpha), all_associations=True, n=n_value)
            return float(value) - target

        low, high = math.log(1e-3), math.log(1e3)
        gap_low, gap_high = gap(low), gap(high)
        # widen the bracket (the recall falls with the load) up to loads 1e-300 and 1e300
        while gap_low < 0.0 and low > math.log(1e-300):
            low -= 20.0
            gap_low = gap(low)
        while gap_high > 0.0 and high < math.log(1e300):
            high += 20.0
            gap_high = gap(high)
        if gap_low < 0.0 or gap_high > 0.0:
            msg = (
                f"probability must be reached by the recall of all n = {n_value} associations "
                f"at some load in [1e-300, 1e300] (p = {p_value}), got {target!r}"
            )
            raise ValueError(msg)
        return math.exp(optimize.brentq(gap, low, high, xtol=1e-13))

    if digits is None:
        return elementwise(
            one_problem, outputs, probabilities, counts, names=("p", "probability", "n")
        )
    work = working_dps(digits)

    def one_mp(p_value: int, target: float, n_value: int) -> Any:
        def gap(log_alpha: Any) -> Any:
            recall = _recall_mp(p_value, mpmath.exp(log_alpha), n_value, True, False)
            return recall - target

        start = mpmath.log(one_problem(p_value, target, n_value))
        return mpmath.exp(secant_root(gap, start, start + mpmath.mpf(10) ** -8, work))

    return elementwise(
        one_mp, outputs, probabilities, counts, dps=digits, names=("p", "probability", "n")
    )


class NormalLaw(Law):
    r"""Normal law :math:`N(\mu, \sigma^2)`: a Hebbian target score or one competitor.

    Density :math:`\varphi((x - \mu)/\sigma)/\sigma`.  In normalised units every
    Hebbian competitor score is exactly :math:`N(0, 1)`; the target is
    :math:`N(\mu_p, 1)` as :math:`d \to \infty` (module docstring).
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": r"a normalised Hebbian score, :math:`N(\mu, \sigma^2)`",
        "support": "the real line",
        "routes": (
            "Routes: ``scipy.special`` (``ndtr``, ``ndtri``) to a few ulp, ``sf`` "
            "without cancellation; moments by the recursion "
            r":math:`m_k = \mu m_{k-1} + (k - 1)\sigma^2 m_{k-2}`; ``rvs`` from numpy's "
            "normal generator; ``dps=`` on ``pdf``, ``cdf``, ``sf`` and ``ppf``."
        ),
        "reference": "docs/theory/hebbian.md, arXiv:2605.10795",
        "examples": (
            ">>> law = NormalLaw(1.0, 2.0)\n>>> float(law.cdf(1.0)), float(law.var())\n(0.5, 4.0)"
        ),
    }

    def __init__(self, mean: float = 0.0, std: float = 1.0) -> None:
        self.loc = check_real("mean", mean)
        self.scale = check_real("std", std, minimum=0.0, closed="()")

    def __repr__(self) -> str:
        return f"NormalLaw({self.loc!r}, {self.scale!r})"

    def _support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    def _pdf(self, x: FloatArray) -> FloatArray:
        z = (x - self.loc) / self.scale
        return np.exp(-0.5 * z * z) / (math.sqrt(2.0 * math.pi) * self.scale)

    def _cdf(self, x: FloatArray) -> FloatArray:
        return np.asarray(special.ndtr((x - self.loc) / self.scale), dtype=np.float64)

    def _sf(self, x: FloatArray) -> FloatArray:
        return np.asarray(special.ndtr((self.loc - x) / self.scale), dtype=np.float64)

    def _ppf(self, q: FloatArray) -> FloatArray:
        return self.loc + self.scale * np.asarray(special.ndtri(q), dtype=np.float64)

    def _moment(self, order: int) -> float:
        previous, current = 1.0, self.loc
        for k in range(2, order + 1):
            previous, current = current, self.loc * current + (k - 1) * self.scale**2 * previous
        return previous if order == 0 else current

    def _var(self) -> float:
        return self.scale**2

    def _rvs(self, size: tuple[int, ...], rng: np.random.Generator) -> FloatArray:
        return rng.normal(self.loc, self.scale, size)

    def _mp_pdf(self, value: Any) -> Any:
        return mpmath.npdf(mpmath.mpf(value), self.loc, self.scale)

    def _mp_cdf(self, value: Any) -> Any:
        return mpmath.ncdf(mpmath.mpf(value), self.loc, self.scale)

    def _mp_ppf(self, value: Any) -> Any:
        q = mpmath.mpf(value)
        if q in (0, 1):
            return mpmath.inf * (2 * q - 1)
        return self.loc + self.scale * mpmath.sqrt(2) * mpmath.erfinv(2 * q - 1)


class NormalMaximumLaw(Law):
    r"""Law of the largest of ``count`` independent :math:`N(0, 1)` scores.

    :math:`P(M \le x) = \Phi(x)^{c}`, density :math:`c\,\varphi(x)\Phi(x)^{c-1}`:
    the top Hebbian competitor (:math:`c = p - 1`).
    """

    _doc_fields: ClassVar[dict[str, str]] = {
        "variable": "the largest of ``count`` independent standard normal scores",
        "support": "the real line",
        "routes": (
            r"Routes: :math:`\exp(c \log\Phi(x))` (``log_ndtr``; the ``sf`` by "
            r"``expm1``, no cancellation), ``ppf`` :math:`= \Phi^{-1}` of "
            r":math:`\log q/c` (``ndtri_exp``), ``rvs`` by inverse-cdf sampling, "
            "moments by composite Gauss-Legendre (12 nodes per panel of width 1/8 on "
            "[-39, 39]); float64 only."
        ),
        "reference": "docs/theory/hebbian.md, arXiv:2605.10795",
        "examples": (
            ">>> law = NormalMaximumLaw(2)\n"
            ">>> round(float(law.mean()), 12)  # E max(Z1, Z2) = 1/sqrt(pi)\n"
            "0.564189583548"
        ),
    }

    def __init__(self, count: int) -> None:
        self.count = check_integer("count", count, minimum=1)

    def __repr__(self) -> str:
        return f"NormalMaximumLaw({self.count})"

    def _support(self) -> tuple[float, float]:
        return -math.inf, math.inf

    def _log_cdf(self, x: FloatArray) -> FloatArray:
        return self.count * np.asarray(special.log_ndtr(x), dtype=np.float64)

    def _pdf(self, x: FloatArray) -> FloatArray:
        log_rest = (self.count - 1) * special.log_ndtr(x)
        with np.errstate(under="ignore"):
            return self.count * np.exp(-0.5 * x * x + log_rest) / math.sqrt(2.0 * math.pi)

    def _cdf(self, x: FloatArray) -> FloatArray:
        return np.exp(self._log_cdf(x))

    def _sf(self, x: FloatArray) -> FloatArray:
        return -np.expm1(self._log_cdf(x))

    def _ppf(self, q: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore"):
            return np.asarray(special.ndtri_exp(np.log(q) / self.count), dtype=np.float64)

    def _expectation(self, function: Any) -> float:
        r""":math:`E f(M) = \int f(x)\,c\,\varphi(x)\Phi(x)^{c-1}\,dx` (composite Gauss-Legendre)."""
        z, weights = _z_rule(panel_width=_MAXIMUM_PANEL_WIDTH)
        with np.errstate(under="ignore"):
            values = self.count * np.exp((self.count - 1) * special.log_ndtr(z))
        return float(np.sum(weights * function(z) * values))

    def _moment(self, order: int) -> float:
        return self._expectation(lambda z: z**order)

    def _var(self) -> float:
        mean = self._moment(1)
        return self._expectation(lambda z: (z - mean) ** 2)


@dataclass(frozen=True)
class HebbianScoreLaw:
    r"""Normalised Hebbian scores: target :math:`N(\mu, \sigma^2)`, competitors :math:`N(0, 1)`.

    Attributes
    ----------
    p, alpha, n : the problem (``alpha = p log p / d^2``).
    d : the dimension for the finite-d law, or ``None`` for :math:`d \to \infty`.
    target : :class:`NormalLaw` of the normalised target score (exact as
        :math:`d \to \infty`; with ``d`` the normal law with the exact finite-d mean
        and standard deviation).
    recall : per-association recall probability :math:`P_1`.
    all_recalled : :math:`P_1^n`, the probability that all are recalled.
    competitor : :class:`NormalLaw` of one competitor score, exactly :math:`N(0, 1)`.
    top_competitor : :class:`NormalMaximumLaw` of the largest of the ``p - 1`` competitors.
    """

    p: int
    alpha: float
    n: int
    d: int | None
    target: NormalLaw
    recall: float
    all_recalled: float

    @property
    def competitor(self) -> NormalLaw:
        """Law of one normalised competitor score: exactly :math:`N(0, 1)`."""
        return NormalLaw(0.0, 1.0)

    @property
    def top_competitor(self) -> NormalMaximumLaw:
        r"""Law of the largest of the ``p - 1`` competitors, :math:`\Phi(x)^{p-1}`."""
        return NormalMaximumLaw(self.p - 1)


def hebbian_score_law(
    p: int, alpha: float, *, d: int | None = None, n: int | None = None
) -> HebbianScoreLaw:
    r"""Law of the normalised Hebbian scores and the recall it implies.

    .. math::

        X_{\text{target}} \sim N\big(\sqrt{\log p/\alpha},\, 1\big),\qquad
        X_{\text{competitor}} \sim N(0, 1)\quad (d \to \infty,\ n = p).

    With ``d`` given, ``alpha`` must equal :math:`p\log p/d^2` up to rounding
    (pass ``alpha=None``-free: it is recomputed from ``d``) and the target
    mean and standard deviation are the exact finite-d moments of
    :math:`X` (module docstring; the target law is then close to, not exactly,
    Gaussian: ``target`` is its Gaussian approximation, while ``recall``
    is exact).  Competitors are exactly :math:`N(0, 1)` in these units at any
    ``d``.

    Status: asymptotic. Without ``d``, the :math:`d \to \infty` law of the normalised target;
    the competitor law :math:`N(0, 1)` is exact at every ``d``. With ``d``, ``recall`` is exact
    (:func:`hebbian_recall_finite`), ``target`` is the Gaussian with the exact finite-d mean and
    standard deviation (an approximation of a law that is not Gaussian) and ``all_recalled`` is
    :math:`P_1^n`, a model with measured error (:func:`hebbian_all_recalled_error`).

    Embeddings: Gaussian only; the Hebbian laws are derived for Gaussian embeddings
    (docs/theory/hebbian.md), and lamcap has no unit-norm Hebbian law.

    Parameters
    ----------
    p : int
        Number of outputs, ``p >= 2``.
    alpha : float
        Load :math:`p\log p/d^2 > 0`.
    d : int, optional
        Dimension for the finite-d law (``alpha`` must then match it to 5%).
    n : int, optional
        Number of associations (default ``p``).

    Returns
    -------
    HebbianScoreLaw

    Examples
    --------
    >>> law = hebbian_score_law(100, 0.25)
    >>> round(float(law.target.mean()), 6), law.target.scale
    (4.291932, 1.0)
    >>> finite = hebbian_score_law(100, 0.25, d=43)
    >>> bool(finite.target.mean() < law.target.mean())
    True
    """
    p_value = check_integer("p", p, minimum=2)
    n_value = _check_n(n, p_value)
    if d is None:
        alpha_value = check_real("alpha", alpha, minimum=0.0, closed="(]")
        mean = float(_target_mean(p_value, n_value, np.array(alpha_value)))
        recall = hebbian_recall(p_value, alpha_value, n=n_value)
        return HebbianScoreLaw(
            p_value,
            alpha_value,
            n_value,
            None,
            NormalLaw(mean, 1.0),
            recall,
            math.exp(n_value * math.log(recall)) if recall > 0 else 0.0,
        )
    d_value = check_integer("d", d, minimum=1)
    alpha_value = p_value * math.log(p_value) / float(d_value) / float(d_value)
    check_real("alpha", alpha, minimum=0.0, closed="(]")
    if not math.isclose(float(alpha), alpha_value, rel_tol=0.05):
        msg = (
            f"alpha must equal p log p / d^2 = {alpha_value:.6g} (within 5%) when d is "
            f"given, got {alpha!r}"
        )
        raise ValueError(msg)
    target, weights = _finite_target_grid(d_value, n_value)
    mean = float(np.sum(weights * target))
    std = math.sqrt(max(float(np.sum(weights * (target - mean) ** 2)), 0.0))
    recall = hebbian_recall_finite(p_value, d_value, n=n_value)
    all_recalled = hebbian_recall_finite(p_value, d_value, n=n_value, all_associations=True)
    target_law = NormalLaw(mean, std)
    return HebbianScoreLaw(p_value, alpha_value, n_value, d_value, target_law, recall, all_recalled)

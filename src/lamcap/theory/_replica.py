r"""Replica-symmetric free entropy of the full-rank decoupled model and its saddle point.

Per weight (:math:`N = d^2`), at association density :math:`a = n/d^2`, overlap :math:`q` and
:math:`\delta = 1 - q` (docs/theory/replica.md, arXiv:2605.10795; Gardner 1988):

.. math::

    \Phi(q; a, p) = \tfrac12\Big[\log(1 - q) + \frac{q}{1 - q}\Big]
      + a\,G(q), \qquad
    G(q) = \mathbb{E}_z \log P_\xi\big(\sqrt q\,z + \sqrt{1 - q}\,\xi \in K_m\big),

with :math:`z, \xi \sim N(0, I_p)` and the recall cone
:math:`K_m = \{\lambda_t \ge \lambda_\rho + m\}`.  The inner probability is the
1-D integral

.. math::

    P = \int Dt \prod_{\rho \ne t}\Phi(t + b_\rho), \qquad
    b_\rho = \frac{\sqrt q\,(z_t - z_\rho) - m}{\sqrt{1 - q}} .

Stein's lemma and the heat equation give :math:`G'(q) = -D(q)/(2(1 - q)^2)` with
:math:`D(q) = \mathbb{E}_z\|\langle\lambda\rangle - \sqrt q z\|^2` (posterior mean
displacement), so the saddle point :math:`\partial_q\Phi = 0` reads

.. math::

    a = \frac{q}{D(q)}, \qquad D(q) \xrightarrow[q \to 1]{}
    \mathbb{E}\operatorname{dist}(z, K_m)^2 = \mathbb{E}[C_p],

which gives back :math:`a_c = 1/\mathbb{E}[C_p]`; near :math:`q = 1`,
:math:`G(q) \approx -\mathbb{E}[C_p]/(2(1 - q))` (docs/derivations/replica.md,
sympy in :mod:`lamcap.symbolic._free_entropy`).

Numerics.  For :math:`p = 2`, :math:`G` and :math:`D` are 1-D integrals (Gardner's
perceptron at stability :math:`\kappa_G = m/\sqrt2`), done by adaptive quadrature to ~1e-10.
For :math:`p \ge 3` the expectation over the quenched :math:`z` is a Monte Carlo
average over ``samples`` draws with a fixed ``seed`` (the same draws for every
:math:`q`, so :math:`\Phi` is smooth in :math:`q`), with the exact
:math:`\mathbb{E}\operatorname{dist}(z, K_m)^2` (:func:`lamcap.statistical_dimension`)
as control variate; the inner integral uses Gauss-Hermite nodes centred at the
mode of the log-concave integrand (relative error ~1e-10).  The saddle point is
solved on a grid of :math:`\log(1 - q)` and inverted by monotone interpolation, so
:math:`q^*` close to 1 keeps full relative precision in :math:`1 - q^*`.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import mpmath
import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import interpolate, special

from lamcap._sizes import check_memory, format_integer
from lamcap._validation import (
    check_dps,
    check_finite_array,
    check_integer,
    check_integer_array,
    plain,
)
from lamcap.geometry import project_onto_cone
from lamcap.theory._arrays import broadcast, elementwise, float_result, grouped
from lamcap.theory._margin import density_at_margin

FloatArray = NDArray[np.float64]

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_HERMITE_NODES, _HERMITE_WEIGHTS = np.polynomial.hermite.hermgauss(16)


def _log_delta_grid(points_per_unit: int) -> FloatArray:
    """log(1 - q) grid of the saddle-point solver: q linear on [0, 0.9), then log(1 - q) to 1e-12."""
    linear = np.log(1.0 - np.linspace(0.0, 0.9, 9 * points_per_unit, endpoint=False))
    logarithmic = np.linspace(-1.0, -12.0, 22 * points_per_unit + 1) * math.log(10.0)
    return np.concatenate([linear, logarithmic])


#: Monte Carlo (p >= 3): each grid point costs a pass over the samples; p = 2 is cheap.
_LOG_DELTA_GRID = _log_delta_grid(1)
_LOG_DELTA_GRID_PERCEPTRON = _log_delta_grid(20)
_DEFAULT_SAMPLES = 256
#: Competitors whose argument t + b exceeds this contribute < 1e-19 and are skipped.
_NEGLIGIBLE = 9.0


# --------------------------------------------------------------------------
# validation


def _check_p(p: ArrayLike) -> NDArray[Any]:
    return check_integer_array("p", p, minimum=2)


def _check_overlap(q: ArrayLike) -> FloatArray:
    return check_finite_array("q", q, minimum=0.0, maximum=1.0, closed="[)")


def _check_density(density: ArrayLike) -> FloatArray:
    return check_finite_array("density", density, minimum=0.0)


def _check_margin(margin: ArrayLike) -> FloatArray:
    return check_finite_array("margin", margin, minimum=0.0)


#: Largest margin of the energetic term (score units).  Up to it every step stays far
#: inside float64 at every q < 1 (|G| ~ (p-1) m^2 / (2p(1-q)) <= 1e117, arguments
#: m / sqrt(1-q) <= 1e58); no density above ~1e-100 holds such a margin (a_c ~ 1/m^2).
MAX_MARGIN = 1e50


def _check_energetic_margin(margin: ArrayLike) -> FloatArray:
    return check_finite_array("margin", margin, minimum=0.0, maximum=MAX_MARGIN)


_FLOAT_MAX = float(np.finfo(np.float64).max)


def _check_samples(samples: Any) -> int:
    return check_integer("samples", samples, minimum=16)


# --------------------------------------------------------------------------
# entropic part (the formula sympy owns: lamcap.symbolic._free_entropy)


def entropic_term(q: ArrayLike, *, dps: int | None = None) -> Any:
    r"""Entropic part :math:`\tfrac12[\log(1 - q) + q/(1 - q)]` of the RS free entropy.

    Exact in float64 for :math:`q \in [0, 1)` (docs/theory/replica.md); ``dps=``
    evaluates the same closed form in mpmath (``mpf`` or object array).

    Examples
    --------
    >>> f"{float(entropic_term(0.5)):.6f}"
    '0.153426'
    >>> print(mpmath.nstr(entropic_term(0.5, dps=20), 20))  # (1 - log 2) / 2
    0.15342640972002734529
    """
    overlap = _check_overlap(q)
    if dps is not None:
        return elementwise(
            lambda x: (mpmath.log1p(-mpmath.mpf(x)) + x / (1 - mpmath.mpf(x))) / 2,
            overlap,
            dps=check_dps(dps),
        )
    delta = 1.0 - overlap
    return float_result(0.5 * (np.log(delta) + overlap / delta))


# --------------------------------------------------------------------------
# numba kernels for the inner 1-D integral


_ASYMPTOTIC_BELOW = -20.0


@numba.njit(cache=True)
def _tail_series_minus_one(x: float) -> float:
    """Phi(x) (-x) / phi(x) - 1 for x <= -20 (asymptotic series, relative error < 1e-14)."""
    inverse = 1.0 / (x * x)
    return inverse * (
        -1.0
        + inverse
        * (3.0 + inverse * (-15.0 + inverse * (105.0 + inverse * (-945.0 + inverse * 10395.0))))
    )


@numba.njit(cache=True)
def _log_ndtr(x: float) -> float:
    """log Phi(x), accurate for all real x."""
    if x > 0.0:
        return math.log1p(-0.5 * math.erfc(x / _SQRT2))
    if x > _ASYMPTOTIC_BELOW:
        return math.log(0.5 * math.erfc(-x / _SQRT2))
    return -0.5 * x * x - math.log(-x) - _LOG_SQRT_2PI + math.log1p(_tail_series_minus_one(x))


@numba.njit(cache=True)
def _mills(x: float) -> float:
    """r(x) = phi(x) / Phi(x) (inverse Mills ratio of the lower tail)."""
    if x > _ASYMPTOTIC_BELOW:
        return math.exp(-0.5 * x * x - _LOG_SQRT_2PI - _log_ndtr(x))
    return -x / (1.0 + _tail_series_minus_one(x))


@numba.njit(cache=True)
def _mills_curvature(x: float) -> float:
    """r(x) (x + r(x)) = -r'(x), without cancellation for x -> -infinity."""
    ratio = _mills(x)
    if x > _ASYMPTOTIC_BELOW:
        return ratio * (x + ratio)
    excess = _tail_series_minus_one(x)
    return ratio * x * excess / (1.0 + excess)


@numba.njit(cache=True)
def _log_cdf_and_mills(x: float) -> tuple[float, float]:
    """(log Phi(x), phi(x)/Phi(x)) with one erfc."""
    if x <= _ASYMPTOTIC_BELOW:
        return _log_ndtr(x), _mills(x)
    cdf = 0.5 * math.erfc(-x / _SQRT2)
    log_cdf = math.log1p(-0.5 * math.erfc(x / _SQRT2)) if x > 3.0 else math.log(cdf)
    return log_cdf, math.exp(-0.5 * x * x - _LOG_SQRT_2PI) / cdf


@numba.njit(cache=True)
def _slope_and_curvature(t: float, offsets: NDArray[np.float64]) -> tuple[float, float]:
    """f'(t), f''(t) for f(t) = -t^2/2 + sum log Phi(t + b), offsets sorted ascending."""
    slope = -t
    curvature = -1.0
    for b in offsets:
        x = t + b
        if x > _NEGLIGIBLE:
            break
        if x > _ASYMPTOTIC_BELOW:
            ratio = _log_cdf_and_mills(x)[1]
            slope += ratio
            curvature -= ratio * (x + ratio)
        else:
            slope += _mills(x)
            curvature -= _mills_curvature(x)
    return slope, curvature


@numba.njit(cache=True)
def _mode(offsets: NDArray[np.float64]) -> tuple[float, float]:
    """Mode of the strictly concave f and f'' there.

    f' is convex and decreasing (the inverse Mills ratio is convex) and f'(0) > 0,
    so Newton's method started at 0 increases monotonically to the root.
    """
    t = 0.0
    slope, curvature = _slope_and_curvature(t, offsets)
    for _ in range(200):
        step = -slope / curvature
        t += step
        slope, curvature = _slope_and_curvature(t, offsets)
        if abs(step) <= 1e-6 / math.sqrt(-curvature) or slope == 0.0:
            break
    return t, curvature


@numba.njit(cache=True)
def _inner_statistics(
    offsets: NDArray[np.float64],
    nodes: NDArray[np.float64],
    weights: NDArray[np.float64],
    gradient: NDArray[np.float64],
) -> tuple[float, float]:
    """log P and sum_rho g_rho^2 + (sum_rho g_rho)^2, g_rho = <phi/Phi(t + b_rho)>."""
    mode, curvature = _mode(offsets)
    scale = _SQRT2 / math.sqrt(-curvature)
    count = offsets.shape[0]
    lowest = mode + scale * nodes[0]
    used = 0
    while used < count and lowest + offsets[used] <= _NEGLIGIBLE:
        used += 1
    log_terms = np.empty(nodes.shape[0])
    ratios = np.empty((nodes.shape[0], used))
    for k in range(nodes.shape[0]):
        t = mode + scale * nodes[k]
        value = -0.5 * t * t
        for rho in range(used):
            log_cdf, ratios[k, rho] = _log_cdf_and_mills(t + offsets[rho])
            value += log_cdf
        log_terms[k] = value + nodes[k] * nodes[k] + math.log(weights[k])
    peak = np.max(log_terms)
    posterior = np.exp(log_terms - peak)
    total = np.sum(posterior)
    posterior /= total
    log_probability = peak + math.log(total) + math.log(scale) - _LOG_SQRT_2PI
    for rho in range(used):
        gradient[rho] = 0.0
    for k in range(nodes.shape[0]):
        for rho in range(used):
            gradient[rho] += posterior[k] * ratios[k, rho]
    squares = 0.0
    linear = 0.0
    for rho in range(used):
        squares += gradient[rho] ** 2
        linear += gradient[rho]
    return log_probability, squares + linear * linear


@numba.njit(cache=True)
def _energetic_samples(
    targets: NDArray[np.float64],
    competitors: NDArray[np.float64],
    deltas: NDArray[np.float64],
    margin: float,
    nodes: NDArray[np.float64],
    weights: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per sample and per 1 - q: log P(z) and ||<lambda> - sqrt(q) z||^2.

    ``competitors`` rows are sorted in decreasing order.
    """
    samples, count = competitors.shape
    log_probability = np.empty((samples, deltas.shape[0]))
    displacement = np.empty((samples, deltas.shape[0]))
    offsets = np.empty(count)
    gradient = np.empty(count)
    for j in range(deltas.shape[0]):
        delta = deltas[j]
        root_q = math.sqrt(1.0 - delta)
        root_delta = math.sqrt(delta)
        for i in range(samples):
            for rho in range(count):
                offsets[rho] = (root_q * (targets[i] - competitors[i, rho]) - margin) / root_delta
            log_p, spread = _inner_statistics(offsets, nodes, weights, gradient)
            log_probability[i, j] = log_p
            displacement[i, j] = delta * spread
    return log_probability, displacement


# --------------------------------------------------------------------------
# expectations over the quenched Gaussian z


@lru_cache(maxsize=16)
def _quenched_draws(
    p: int, margin: float, samples: int, seed: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Targets, competitors sorted in decreasing order, and dist(z, K_m)^2 per draw."""
    check_memory(
        f"the replica average with p = {format_integer(p)}, samples = {format_integer(samples)}"
        " (draws: 32 p samples bytes)",
        32 * p * samples,
    )
    rng = np.random.default_rng(seed)
    draws = rng.standard_normal((samples, p))
    projected, _ = project_onto_cone(draws, target=0, margin=margin)
    distance = np.sum((projected - draws) ** 2, axis=1)
    competitors = -np.sort(-draws[:, 1:], axis=1)
    return draws[:, 0].copy(), np.ascontiguousarray(competitors), distance


def critical_density(p: ArrayLike, margin: ArrayLike = 0.0, *, dps: int | None = None) -> Any:
    r"""Critical association density :math:`a_c = n/d^2` at margin ``margin`` (full rank).

    .. math::

        a_c(p, m) = \frac{1}{\mathbb{E}\operatorname{dist}(g, K_m)^2}
        \qquad (= 1/\mathbb{E}[C_p] \text{ at } m = 0),

    the :math:`q \to 1` limit of the saddle point (docs/theory/capacity.md,
    docs/theory/replica.md) and the inverse of :func:`lamcap.max_margin`: the
    association density at which the largest achievable margin is ``margin``
    (docs/theory/mechanism.md), decreasing from :math:`a_c(p, 0)` as ``margin`` grows.
    This function was also called ``density_at_margin(margin, p)`` (deprecated).

    Status: asymptotic. The :math:`d \to \infty` association density, evaluated to the
    relative error stated under Notes.

    Parameters
    ----------
    p : int or array_like of int
        Number of outputs, ``p >= 2``.
    margin : float or array_like, optional
        :math:`m \ge 0` in units of the competitor spread (docs/vocabulary.md);
        broadcasts with ``p``.  Default 0: the capacity's critical density.
    dps : int, optional
        Return mpmath numbers correct to ``dps`` digits (the mpmath route of
        :func:`lamcap.theory.statistical_dimension`; Gardner's closed form in mpmath
        at :math:`p = 2`).

    Returns
    -------
    numpy.float64 or ndarray, mpmath.mpf or object array (with ``dps``)
        :math:`a_c` in the broadcast shape of ``p`` and ``margin`` (array contract:
        docs/howto/precision.md).

    Notes
    -----
    Gardner's closed form at :math:`p = 2`, the exact quadrature of
    :func:`lamcap.statistical_dimension` above (relative error below ``1e-12``;
    each value costs about 0.1 s at small ``p`` and ~10 s at ``p = 1000`` with
    ``m > 0``); float64 values are cached per process.

    Examples
    --------
    >>> critical_density(2)  # Cover: n = 2 d^2
    np.float64(2.0)
    >>> critical_density([2, 3]).tolist()  # 1/E[C_3] = 6/5
    [2.0, 1.2]
    >>> from lamcap.theory._cost_models import statistical_dimension  # quadrature, not Gardner
    >>> quadrature = statistical_dimension(2, margin=math.sqrt(2))
    >>> bool(abs(critical_density(2, math.sqrt(2)) * quadrature - 1) < 1e-12)
    True
    >>> print(mpmath.nstr(critical_density(2, 1.0, dps=25), 25))
    0.7352559745708619456941854
    """
    outputs, margins = broadcast(_check_p(p), _check_margin(margin), names=("p", "margin"))
    if dps is not None:
        return density_at_margin(margins, outputs, dps=dps)
    return elementwise(_critical_density_one, outputs, margins)


@lru_cache(maxsize=64)
def _critical_density_one(p: int, margin: float) -> float:
    """Cached float64 :func:`critical_density` at one ``p`` and ``margin``."""
    return float(density_at_margin(margin, p))


def _controlled_mean(
    values: FloatArray, control: FloatArray, control_mean: float
) -> tuple[FloatArray, FloatArray]:
    """Regression control-variate estimate of the column means of ``values``, with its standard error."""
    centred = control - control.mean()
    variance = float(np.mean(centred**2))
    beta = (centred @ (values - values.mean(axis=0))) / (variance * control.size)
    adjusted = values - np.outer(control - control_mean, beta)
    error = adjusted.std(axis=0, ddof=1) / math.sqrt(control.size)
    return adjusted.mean(axis=0), error


_LEGENDRE_NODES, _LEGENDRE_WEIGHTS = np.polynomial.legendre.leggauss(20)


#: Panel breaks every 0.5 on [-14, 14]: the Gaussian weight is resolved wherever the kink is
#: (far outside, at margins beyond ~20, the geometric breaks alone left panels 28 wide).
_BASE_BREAKS = np.linspace(-14.0, 14.0, 57)


def _kink_panels(kink: float, width: float) -> tuple[FloatArray, FloatArray]:
    """Gauss-Legendre nodes/weights on [-14, 14] (in u), refined geometrically around ``kink``."""
    offsets = width * np.geomspace(0.25, 1e13, 60)
    breaks = np.concatenate([kink - offsets[::-1], [kink], kink + offsets, _BASE_BREAKS])
    breaks = np.unique(np.clip(breaks, -14.0, 14.0))
    middle = 0.5 * (breaks[1:] + breaks[:-1])
    half = 0.5 * np.diff(breaks)
    nodes = (middle[:, None] + half[:, None] * _LEGENDRE_NODES[None, :]).ravel()
    weights = (half[:, None] * _LEGENDRE_WEIGHTS[None, :]).ravel()
    return nodes, weights


def _perceptron_expectations(deltas: FloatArray, margin: float) -> tuple[FloatArray, FloatArray]:
    r"""p = 2 (Gardner): G = E_u log Phi(x), D = delta E_u r(x)^2, x = (sqrt(q) u - s)/sqrt(delta),
    s = m/sqrt(2) the stability.

    Composite Gauss-Legendre refined on the scale sqrt(delta) around the kink
    u = s/sqrt(q); relative error ~1e-12.
    """
    stability = margin / _SQRT2
    log_terms = np.empty(deltas.size)
    displacements = np.empty(deltas.size)
    for j, delta in enumerate(deltas):
        root_q = math.sqrt(1.0 - delta)
        root_delta = math.sqrt(delta)
        kink = stability / root_q if root_q > 0.0 else 0.0
        nodes, weights = _kink_panels(kink, root_delta)
        gaussian = weights * np.exp(-0.5 * nodes**2) / math.sqrt(2.0 * math.pi)
        x = (root_q * nodes - stability) / root_delta
        log_cdf = special.log_ndtr(x)
        # phi/Phi = sqrt(2/pi) / erfcx(-x/sqrt2) for x < 0: no x^2 to cancel (which lost
        # x^2 * 1e-16 in the exponent and overflowed at margins ~ 1e9 sqrt(1 - q))
        negative = np.minimum(x, 0.0)
        ratio = np.where(
            x < 0.0,
            math.sqrt(2.0 / math.pi) / special.erfcx(-negative / _SQRT2),
            np.exp(-0.5 * np.maximum(x, 0.0) ** 2 - _LOG_SQRT_2PI - np.maximum(log_cdf, -1.0)),
        )
        log_terms[j] = gaussian @ log_cdf
        displacements[j] = delta * (gaussian @ ratio**2)
    return log_terms, displacements


def _expectations(
    deltas: FloatArray, p: int, margin: float, samples: int, seed: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """G(q), D(q) and the standard error of G at the given 1 - q values."""
    if p == 2:
        log_terms, displacements = _perceptron_expectations(deltas, margin)
        return log_terms, displacements, np.zeros_like(deltas)
    targets, competitors, distance = _quenched_draws(p, margin, samples, seed)
    log_p, displacement = _energetic_samples(
        targets, competitors, deltas, margin, _HERMITE_NODES, _HERMITE_WEIGHTS
    )
    exact_distance = 1.0 / _critical_density_one(p, margin)
    # near q = 1: log P ~ -dist^2 / (2 delta) and displacement -> dist^2
    energetic, error = _controlled_mean(log_p, distance, exact_distance)
    displacement_mean, _ = _controlled_mean(displacement, distance, exact_distance)
    return energetic, displacement_mean, error


# --------------------------------------------------------------------------
# public numeric API


def energetic_term(
    q: ArrayLike,
    p: ArrayLike,
    *,
    margin: ArrayLike = 0.0,
    samples: int = _DEFAULT_SAMPLES,
    seed: int = 0,
) -> Any:
    r"""Energetic term :math:`G(q) = \mathbb{E}_z\log P_\xi(\sqrt q z + \sqrt{1-q}\xi \in K_m)`.

    Exact 1-D quadrature at :math:`p = 2` (Gardner:
    :math:`\int Du \log H\big((\kappa_G - \sqrt q u)/\sqrt{1 - q}\big)`,
    :math:`\kappa_G = m/\sqrt2` the stability); Monte Carlo over ``samples`` quenched draws
    (fixed ``seed``, control variate) for :math:`p \ge 3`, relative error about
    1e-3 at 512 samples (docs/theory/replica.md).  ``q``, ``p`` and ``margin``
    (at most ``1e50``, :data:`MAX_MARGIN`; ``ValueError`` beyond) broadcast; a scalar
    result is a ``numpy.float64``.

    Examples
    --------
    >>> f"{float(energetic_term(0.0, 2)):.6f}"  # log P(xi in K) = log(1/2)
    '-0.693147'
    """
    overlap, outputs, margins = broadcast(
        _check_overlap(q), _check_p(p), _check_energetic_margin(margin), names=("q", "p", "margin")
    )
    count = _check_samples(samples)
    seed = check_integer("seed", seed, minimum=0)
    return float_result(
        grouped(
            lambda q_p, m, overlaps: _energetic(overlaps, q_p, m, count, seed),
            [outputs, margins],
            overlap,
        )
    )


def _energetic(overlap: FloatArray, p: int, margin: float, samples: int, seed: int) -> FloatArray:
    """G(q) at the overlaps ``overlap`` (1-d) for one ``p`` and ``margin``."""
    unique, inverse = np.unique(overlap, return_inverse=True)
    values, _, _ = _expectations(1.0 - unique, p, margin, samples, seed)
    return values[inverse]


def free_entropy(
    q: ArrayLike,
    density: ArrayLike,
    p: ArrayLike,
    *,
    margin: ArrayLike = 0.0,
    samples: int = _DEFAULT_SAMPLES,
    seed: int = 0,
) -> Any:
    r"""RS free entropy :math:`\Phi(q; a, p)` per weight of the full-rank decoupled model.

    .. math::

        \Phi(q; a, p) = \tfrac12\Big[\log(1 - q) + \frac{q}{1 - q}\Big]
        + a\,\mathbb{E}_z \log P_\xi\big(\sqrt q z + \sqrt{1 - q}\xi \in K_m\big)

    (docs/theory/replica.md; arXiv:2605.10795; Gardner 1988).
    Precision: that of :func:`energetic_term` (exact at :math:`p = 2`, Monte Carlo
    with a fixed seed otherwise).

    Status: asymptotic. The replica-symmetric free entropy per weight as :math:`d \to \infty` at
    fixed :math:`a` and :math:`p` (replica symmetry is assumed, not proved); for :math:`p \ge 3`
    its energetic term is a quenched Monte Carlo average over ``samples`` draws with a fixed
    seed.

    Parameters
    ----------
    q : float or array_like
        Overlap between two typical solutions, in [0, 1).
    density : float or array_like
        :math:`a = n / d^2 \ge 0`, up to :math:`(1.8 \cdot 10^{308} - |\text{entropic}|)/|G(q)|`,
        where :math:`|\Phi|` reaches the float64 maximum; beyond, ``ValueError``
        gives that bound.
    p : int or array_like of int
        Number of outputs, >= 2.
    margin : float or array_like, optional
        Margin :math:`m \ge 0` of the cone :math:`K_m` (score units), at most
        ``1e50`` (:data:`MAX_MARGIN`; ``ValueError`` beyond: the energetic term grows
        like :math:`-(p-1)m^2/(2p(1-q))` and no density above ~1e-100 holds such a
        margin).  ``q``, ``density``, ``p`` and ``margin`` broadcast together.
    samples : int, optional
        Number of quenched Monte Carlo draws of :math:`z` (used for p >= 3).
    seed : int, optional
        Seed of those draws (fixed, so the function is deterministic).

    Returns
    -------
    numpy.ndarray or numpy.float64
        :math:`\Phi(q; a, p)`, float64, with the broadcast shape of the arguments
        (``numpy.float64`` when all are scalars).

    Examples
    --------
    >>> f"{float(free_entropy(0.5, 1.0, 2)):.6f}"
    '-0.846574'
    """
    overlap, densities, outputs, margins = broadcast(
        _check_overlap(q),
        _check_density(density),
        _check_p(p),
        _check_energetic_margin(margin),
        names=("q", "density", "p", "margin"),
    )
    count = _check_samples(samples)
    seed = check_integer("seed", seed, minimum=0)

    def one_problem(q_p: int, m: float, overlaps: FloatArray, a: FloatArray) -> FloatArray:
        return _free_entropy(overlaps, a, q_p, m, count, seed)

    return float_result(grouped(one_problem, [outputs, margins], overlap, densities))


def _free_entropy(
    overlap: FloatArray, density: FloatArray, p: int, margin: float, samples: int, seed: int
) -> FloatArray:
    """Phi(q; a, p) at 1-d ``overlap`` and ``density`` for one ``p`` and ``margin``."""
    energetic = _energetic(overlap, p, margin, samples, seed)
    entropic = 0.5 * (np.log(1.0 - overlap) + overlap / (1.0 - overlap))
    # |entropic| <= 2e16 and G < 0 finite: refuse where a G would leave the float64 range
    bound = (_FLOAT_MAX - np.abs(entropic)) / np.maximum(np.abs(energetic), 1.0)
    beyond = density > bound
    if np.any(beyond):
        i = int(np.flatnonzero(beyond)[0])
        msg = (
            f"density must be <= {bound[i]:.4g} at q={plain(overlap[i])}, p={format_integer(p)}, "
            f"margin={plain(margin)} (the free entropy a G(q) = {plain(density[i])} * "
            f"{energetic[i]:.6g} is beyond the float64 range), got {plain(density[i])}"
        )
        raise ValueError(msg)
    return entropic + density * energetic


@lru_cache(maxsize=32)
def _density_curve(p: int, margin: float, samples: int, seed: int) -> tuple[FloatArray, FloatArray]:
    """Saddle-point density a(q) = q / D(q) on the log(1 - q) grid (increasing)."""
    grid = _LOG_DELTA_GRID_PERCEPTRON if p == 2 else _LOG_DELTA_GRID
    deltas = np.exp(grid)
    _, displacement, _ = _expectations(deltas, p, margin, samples, seed)
    densities = (1.0 - deltas) / displacement
    return grid.copy(), np.maximum.accumulate(densities)


def _overlap_gap(
    densities: FloatArray, p: int, margin: float, samples: int, seed: int
) -> FloatArray:
    """log(1 - q*) for each density in [0, a_c)."""
    log_delta, curve = _density_curve(p, margin, samples, seed)
    limit = _critical_density_one(p, margin)
    result = np.empty_like(densities)
    inside = densities <= curve[-1]
    strictly = np.concatenate([[True], np.diff(curve) > 0])
    inverse = interpolate.PchipInterpolator(curve[strictly], log_delta[strictly])
    result[inside] = inverse(densities[inside])
    if np.any(~inside):
        # a_c - a(q) ~ C (1 - q)^gamma beyond the grid (fitted on the last two points)
        gaps = limit - curve[-2:]
        gamma = (math.log(gaps[0]) - math.log(gaps[1])) / (log_delta[-2] - log_delta[-1])
        gamma = max(gamma, 1e-3)
        result[~inside] = log_delta[-1] + np.log((limit - densities[~inside]) / gaps[1]) / gamma
    return result


def _check_below_capacity(
    densities: FloatArray, outputs: NDArray[Any], margins: FloatArray
) -> None:
    """Every density below its critical density (broadcast arrays); the message names the element."""
    for index in np.ndindex(densities.shape):
        p, margin = int(outputs[index]), float(margins[index])
        limit = _critical_density_one(p, margin)
        if densities[index] >= limit:
            where = ""
            if densities.ndim:
                where = f" (element {index[0] if len(index) == 1 else index})"
            msg = (
                f"density must be < a_c = 1/E[C_p] = {limit:.10g} (p={p}, margin={plain(margin)}), "
                f"got {plain(densities[index])}{where}: the density exceeds a_c, no "
                "replica-symmetric saddle point"
            )
            raise ValueError(msg)


def solve_saddle_point(
    density: ArrayLike,
    p: ArrayLike,
    *,
    margin: ArrayLike = 0.0,
    samples: int = _DEFAULT_SAMPLES,
    seed: int = 0,
) -> Any:
    r"""Typical overlap :math:`q^*(a)` solving :math:`\partial_q\Phi(q; a, p) = 0`.

    .. math::

        a = \frac{q}{D(q)}, \qquad D(q) = \mathbb{E}_z\|\langle\lambda\rangle - \sqrt q z\|^2,

    increasing from :math:`q^*(0) = 0` to :math:`q^* \to 1` as
    :math:`a \to a_c = 1/\mathbb{E}\operatorname{dist}(z, K_m)^2` (docs/theory/replica.md).
    The curve :math:`a(q)` is computed once on a grid of :math:`\log(1 - q)`
    (down to :math:`1 - q = 10^{-12}`) and inverted by monotone interpolation;
    beyond the grid a power law in :math:`1 - q` is used.

    Status: asymptotic. The replica-symmetric saddle point of :func:`free_entropy`
    (:math:`d \to \infty`), with that function's Monte Carlo error for :math:`p \ge 3`.

    Raises
    ------
    ValueError
        If a density is :math:`\ge a_c` (the message gives :math:`a_c`), negative,
        ``p < 2``, or a margin is above ``1e50``.

    Parameters
    ----------
    density : float or array_like
        :math:`a = n / d^2`, in :math:`[0, a_c)`.
    p : int or array_like of int
        Number of outputs, >= 2.
    margin : float or array_like, optional
        Margin :math:`m \ge 0` of the cone :math:`K_m` (score units), at most ``1e50``
        (:data:`MAX_MARGIN`, as :func:`free_entropy`; ``ValueError`` beyond).
        ``density``, ``p`` and ``margin`` broadcast together.
    samples : int, optional
        Number of quenched Monte Carlo draws (used for p >= 3).
    seed : int, optional
        Seed of those draws.

    Returns
    -------
    numpy.ndarray or numpy.float64
        :math:`q^*(a)`, float64, in the broadcast shape of the arguments.

    Examples
    --------
    >>> q = solve_saddle_point([0.5, 1.0, 1.9], 2)
    >>> [f"{x:.4f}" for x in q]
    ['0.3074', '0.5853', '0.9709']
    """
    densities, outputs, margins = broadcast(
        _check_density(density),
        _check_p(p),
        _check_energetic_margin(margin),
        names=("density", "p", "margin"),
    )
    count = _check_samples(samples)
    seed = check_integer("seed", seed, minimum=0)
    _check_below_capacity(densities, outputs, margins)
    return float_result(
        grouped(
            lambda q_p, m, a: _saddle_point(a, q_p, m, count, seed), [outputs, margins], densities
        )
    )


def _saddle_point(
    densities: FloatArray, p: int, margin: float, samples: int, seed: int
) -> FloatArray:
    """q*(a) at 1-d ``densities`` below a_c for one ``p`` and ``margin``."""
    gaps = np.exp(_overlap_gap(densities, p, margin, samples, seed))
    return np.where(densities == 0.0, 0.0, 1.0 - gaps)


def log_volume(
    density: ArrayLike,
    p: ArrayLike,
    *,
    margin: ArrayLike = 0.0,
    samples: int = _DEFAULT_SAMPLES,
    seed: int = 0,
) -> Any:
    r"""Log-volume of the solution space per weight, :math:`\Phi(q^*(a); a, p)` (RS).

    The fraction of the sphere of weights that recalls every association, on a
    log scale per weight: :math:`0` at :math:`a = 0`, decreasing, :math:`\to -\infty`
    as :math:`a \to a_c` (Gardner 1988; docs/theory/replica.md).

    Status: asymptotic. The replica-symmetric :math:`d \to \infty` log-volume, with the Monte
    Carlo error of :func:`free_entropy` for :math:`p \ge 3`.

    Parameters
    ----------
    density : float or array_like
        :math:`a = n / d^2`, in :math:`[0, a_c)`.
    p : int or array_like of int
        Number of outputs, >= 2.
    margin : float or array_like, optional
        Margin :math:`m \ge 0` of the cone :math:`K_m` (score units), at most ``1e50``
        (:data:`MAX_MARGIN`, as :func:`free_entropy`; ``ValueError`` beyond).
        ``density``, ``p`` and ``margin`` broadcast together.
    samples : int, optional
        Number of quenched Monte Carlo draws (used for p >= 3).
    seed : int, optional
        Seed of those draws.

    Returns
    -------
    numpy.ndarray or numpy.float64
        :math:`\Phi(q^*(a); a, p)`, float64, in the broadcast shape of the arguments.

    Examples
    --------
    >>> [f"{x:.4f}" for x in log_volume([0.0, 1.0], 2)]
    ['0.0000', '-0.8558']
    """
    densities, outputs, margins = broadcast(
        _check_density(density),
        _check_p(p),
        _check_energetic_margin(margin),
        names=("density", "p", "margin"),
    )
    count = _check_samples(samples)
    seed = check_integer("seed", seed, minimum=0)
    _check_below_capacity(densities, outputs, margins)

    def one_problem(q_p: int, m: float, a: FloatArray) -> FloatArray:
        overlap = _saddle_point(a, q_p, m, count, seed)
        return _free_entropy(overlap, a, q_p, m, count, seed)

    return float_result(grouped(one_problem, [outputs, margins], densities))

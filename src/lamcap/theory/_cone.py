r"""Statistical dimension of the recall cone and the law of its active set.

For :math:`g \sim N(0, I_p)` and the recall cone with margin :math:`m \ge 0`,

.. math::

    K_m = \{\lambda \in \mathbb{R}^p : \lambda_t \ge \lambda_\rho + m
    \ \ \forall \rho \ne t\},

this module computes :math:`\mathbb{E}[C_p] = \mathbb{E}\operatorname{dist}(g, K_m)^2`
(at :math:`m = 0` the statistical dimension of the polar cone, equal to the mean
active-set size :math:`\mathbb{E}|A|` by Stein's identity) and the law of
:math:`|A|` (the conic intrinsic volumes of the polar cone), docs/theory/cone.md and
arXiv:2605.10795.

Exact route (docs/theory/cone.md, fact 5).  A competitor of value :math:`y` is active iff
:math:`g_t + \sum_{\text{others}} (Z - y)_+ < y`; by exchangeability

.. math::

    \mathbb{E}|A| = (p - 1) \int \varphi(y)\,
    P\Big(g + \sum_{i=1}^{p-2} (Z_i - y)_+ < y\Big)\,dy ,

with the inner probability from :mod:`lamcap.theory._hinge_sums` (Gil-Pelaez
inversion, rigorous truncation bounds).  The :math:`y`-range is cut with
rigorous tail bounds (:math:`(p-1)Q(y)` above; a Chernoff bound times
:math:`(p-1)\Phi(y)` below) at ``1e-17`` relative, and the :math:`y` integral
uses composite 20-point Gauss-Legendre panels at most 1 wide and at most 3
*transition widths* (below; they agree with fixed 0.05-wide panels to 2e-14
relative, the rounding level, for p = 3..1e9).

Float64 values for many p (margin 0).  E[C_p] is tabulated once, by the mpmath
route at ``dps=24`` rounded to float64 (``derivations/dimension_table.py`` writes
``lamcap.theory._dimension_table``): at every p = 2..15 and at the 48 integers
nearest to Chebyshev points in :math:`\log p` on :math:`[16, 10^{18}]`.  Between the
nodes the value is the barycentric polynomial interpolant in :math:`\log p`
(E[C_p] is analytic in :math:`\log p`; the interpolant agrees with ``dps=30`` to
2e-15 relative at 40 integers, 24 log-uniform and 16 midway between nodes, validated
by that script; the tests check it against the quadrature and at dps=30).  An array
of 1e5 distinct p costs about 0.1 s (quadrature: about 15 ms per value).  Larger p
(any integer, also beyond int64) and every margin > 0 take the quadrature above.

mpmath route (``dps=``).  Same formula with fixed-node rules: the range is
cut at :math:`10^{-(dps+5)}`, the inner probability is computed to
:math:`10^{-(dps + 2 + \lceil\log_{10} p\rceil)}` (its error is multiplied by up
to :math:`p - 1`) by :func:`~lamcap.theory._hinge_sums.sum_cdf_mp_many`, and
the outer integral uses Gauss-Legendre panels of order ``dps + 12`` whose
width is at most 4 and at most 8 *transition widths*
:math:`\sigma(y)/(1 + nQ(y))` (the scale on which the inner probability
climbs from 0 to 1: about 0.05 at :math:`p = 10^9`, where fixed-width panels
would lose digits).  Verified: 30 digits against :math:`E[C_3] = 5/6`,
Gardner at :math:`p = 2`, and ``dps=36``/``dps=40`` at :math:`p = 10, 10^3, 10^9`.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, NamedTuple

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

from lamcap._cone_kernel import (
    chernoff_exponent,
    hinge_moments,
    level_range,
    log_mgf_hinge,
    log_tail_bounds,
    sample_top_projection,
)
from lamcap._sizes import check_memory, format_integer
from lamcap._validation import (
    check_choice,
    check_dps,
    check_finite_array,
    check_integer,
    check_integer_array,
    check_seed,
    plain,
)
from lamcap.theory._arrays import broadcast, elementwise, float_result, grouped
from lamcap.theory._asymptotics import statistical_dimension_series
from lamcap.theory._hinge_sums import (
    FLOAT_TOLERANCE,
    cutoff_frequency,
    legendre_unit_rule,
    log_cf_excess,
    log_mgf_excess,
    sum_cdf,
    sum_cdf_mp_many,
)
from lamcap.theory._precision import guarded, working_dps

FloatArray = NDArray[np.float64]

_METHODS = ("exact", "monte_carlo", "asymptotic")
_GAUSS_ORDER = 20
_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(_GAUSS_ORDER)
#: Width of the Gauss-Legendre panels of the target-level integral (margin > 0).
_LEVEL_PANEL_WIDTH = 0.25
#: Panels of the E|A| integral: at most this wide ...
_PANEL_WIDTH = 1.0
#: ... and at most this many transition widths (:func:`_transition_width`); against
#: fixed 0.05-wide panels: relative differences below 2e-14 (rounding) for p = 3..1e9.
_PANEL_SCALE = 3.0
#: Gauss-Legendre panels of the mpmath route (width, order).
_MP_PANEL_WIDTH = 4.0
#: Panel width in units of the transition width (:func:`_transition_width`).
_MP_PANEL_SCALE = 8.0
#: Gauss-Legendre order per panel is ``dps + _MP_EXTRA_ORDER``.
_MP_EXTRA_ORDER = 12
#: Exponents over which the lower Chernoff bound is minimised.
_LOWER_EXPONENTS = np.geomspace(1e-2, 200.0, 120)


class MonteCarloEstimate(NamedTuple):
    """A Monte Carlo estimate: sample ``mean``, its ``standard_error`` and the ``samples`` used."""

    mean: Any
    standard_error: Any
    samples: int


# --------------------------------------------------------------------------
# integration ranges (rigorous tail bounds, float64 log space)


def _log_lower_bound(y: FloatArray, count: int, level_shift: float) -> FloatArray:
    r"""Chernoff bound on :math:`\log P(g + \sum_{i \le n}(Z_i - y)_+ < y + m)`.

    :func:`lamcap._cone_kernel.log_tail_bounds` over the wider exponent grid
    ``_LOWER_EXPONENTS`` (the range reaches far into the lower tail).
    """
    return log_tail_bounds(y + level_shift, y, count, log_mgf_hinge, _LOWER_EXPONENTS)[0]


def _y_range(p: int, margin: float, log_tol: float) -> tuple[float, float]:
    """Range of competitor values outside which the E|A| integrand has mass < e^log_tol."""
    log_count = math.log(p - 1)
    upper = (
        -float(special.ndtri(math.exp(log_tol - log_count)))
        if log_tol - log_count > -700
        else math.sqrt(-2.0 * (log_tol - log_count))
    )
    # Below -sqrt(2 (log(p - 1) - log_tol)) already (p - 1) Phi(y) < e^log_tol.
    start = max(-40.0, -math.sqrt(2.0 * (log_count - log_tol)) - 0.1)

    def last_below(grid: FloatArray) -> int:
        log_mass = log_count + special.log_ndtr(grid) + _log_lower_bound(grid, p - 2, margin)
        below = np.flatnonzero(log_mass <= log_tol)
        return int(below[-1]) if below.size else -1

    # The last point of a 0.02 grid where the bound holds, found on a 0.1 grid first.
    coarse = np.arange(start, upper, 0.1)
    index = last_below(coarse)
    if index < 0:
        return start, upper
    fine = np.arange(coarse[index], min(coarse[index] + 0.1, upper), 0.02)
    return float(fine[max(last_below(fine), 0)]), upper


def _panels(
    lower: float, upper: float, width: float = _LEVEL_PANEL_WIDTH
) -> tuple[FloatArray, FloatArray]:
    """Nodes and weights of composite Gauss-Legendre panels on [lower, upper]."""
    count = max(1, math.ceil((upper - lower) / width))
    check_memory(
        f"a quadrature over [{lower:.6g}, {upper:.6g}] ({count} panels)",
        8 * 6 * count * _GAUSS_NODES.size,
    )
    return _edge_panels(np.linspace(lower, upper, count + 1))


def _edge_panels(edges: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Nodes and weights of Gauss-Legendre panels between consecutive ``edges``."""
    half = 0.5 * np.diff(edges)
    mid = 0.5 * (edges[1:] + edges[:-1])
    nodes = mid[:, None] + half[:, None] * _GAUSS_NODES[None, :]
    weights = half[:, None] * _GAUSS_WEIGHTS[None, :]
    return nodes.ravel(), weights.ravel()


# --------------------------------------------------------------------------
# exact float64 route


def _active_mean_float(p: int, margin: float, log_tol: float) -> float:
    r""":math:`\mathbb{E}|A|_m = (p-1)\int\varphi(y) P(g + S_y < y + m)\,dy`."""
    lower, upper = _y_range(p, margin, log_tol)
    edges = _mp_panel_edges(lower, upper, p - 2, 0.0, _PANEL_WIDTH, _PANEL_SCALE)
    y, weights = _edge_panels(np.array(edges))
    inner = sum_cdf(y + margin, y, p - 2)
    density = np.exp(-0.5 * y**2) / math.sqrt(2.0 * math.pi)
    return float((p - 1) * np.sum(weights * density * inner))


def _level_range(p: int, margin: float, log_tol: float) -> tuple[float, float]:
    """:func:`lamcap._cone_kernel.level_range`, widened to contain 0 (the integrals split there)."""
    lower, upper = level_range(p, margin, log_tol)
    return min(lower, 0.0), max(upper, 0.0)


def _mean_level_float(p: int, margin: float, log_tol: float) -> float:
    r""":math:`\mathbb{E}\,\ell^* = \int_0^\infty P(\ell^* > x)dx - \int_{-\infty}^0 P(\ell^* \le x)dx`."""
    lower, upper = _level_range(p, margin, log_tol)
    total = 0.0
    for a, b, sign in ((lower, 0.0, -1.0), (0.0, upper, 1.0)):
        x, weights = _panels(a, b)
        cdf = sum_cdf(x, x - margin, p - 1)
        integrand = 1.0 - cdf if sign > 0 else -cdf
        total += float(np.sum(weights * integrand))
    return total


_LOG_HALF_ULP_SQUARED = -108.0 * math.log(2.0)  # (2**-54)**2: a relative error below half an ulp


def _all_active(p: int, margin: float) -> float | None:
    r""":math:`(p-1)(1 + m^2/p)` when that is :math:`\mathbb{E}\operatorname{dist}(g, K_m)^2` to half an ulp.

    With :math:`y_t = g_t`, :math:`y_\rho = g_\rho + m`,
    :math:`\operatorname{dist}(g, K_m) = \operatorname{dist}(y, K)`.  The
    constant vectors lie in :math:`K`, so :math:`\operatorname{dist}(y, K)^2
    \le S = \sum_i (y_i - \bar y)^2`, with equality on the event :math:`E`
    that every multiplier :math:`y_\rho - \bar y` is :math:`\ge 0`
    (KKT: the projection is then :math:`\bar y\,\mathbf 1`).  :math:`S` is
    a noncentral :math:`\chi^2` with :math:`k = p - 1` degrees of freedom
    and noncentrality :math:`\lambda = (p-1)m^2/p`: :math:`\mathbb E S =
    k + \lambda = (p-1)(1 + m^2/p)` and :math:`\mathbb E S^2 = (k+\lambda)^2
    + 2(k + 2\lambda) \le 5(k+\lambda)^2`.  Since :math:`y_\rho - \bar y =
    m/p + g_\rho - \bar g` with :math:`g_\rho - \bar g \sim N(0, 1 - 1/p)`,
    :math:`P(E^c) \le (p-1)\Phi(-m/p)`, and by Cauchy-Schwarz the relative
    shortfall :math:`\mathbb E[(S - \operatorname{dist}^2)1_{E^c}]/\mathbb E S`
    is at most :math:`\sqrt{5(p-1)\Phi(-m/p)}`.  Below :math:`2^{-54}` the
    closed form is the value to half an ulp (before its own rounding); else None.
    """
    log_bound = math.log(5.0) + math.log(p - 1) + float(special.log_ndtr(-margin / p))
    if log_bound >= _LOG_HALF_ULP_SQUARED:
        return None
    value = (p - 1) * (1.0 + margin * (margin / p))
    if not math.isfinite(value):
        msg = (
            f"margin must be a real number with (p - 1)(1 + margin^2/p) in the float64 range, "
            f"got margin={margin!r} at p={format_integer(p)}"
        )
        raise ValueError(msg)
    return value


def _exact_float(p: int, margin: float) -> float:
    log_tol = math.log(FLOAT_TOLERANCE)
    if margin == 0.0:
        return 0.5 if p == 2 else _active_mean_float(p, 0.0, log_tol)
    closed = _all_active(p, margin)
    if closed is not None:
        return closed
    active = _active_mean_float(p, margin, log_tol)
    # the level is weighted by the margin: it needs the tolerance divided by the margin,
    # never looser than 1e-8 (a tiny margin would otherwise ask for a tolerance above 1)
    level_log_tol = min(log_tol - math.log(margin), math.log(1e-8))
    return active + margin * _mean_level_float(p, margin, level_log_tol)


# --------------------------------------------------------------------------
# float64 route over many p: tabulated values and barycentric interpolation in log p

#: Rows of p evaluated at once by the interpolant (memory: rows x nodes floats).
_INTERPOLATION_CHUNK = 8192


@functools.cache
def _table_nodes() -> NDArray[np.int64]:
    """Interpolation nodes of the tabulated E[C_p] (``lamcap.theory._dimension_table``)."""
    from lamcap.theory import _dimension_table  # noqa: PLC0415 - data, loaded on first use

    return np.array(_dimension_table.NODES, dtype=np.int64)


@functools.cache
def _table() -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """Small-p values, node abscissae log p, node values and barycentric coefficients."""
    from lamcap.theory import _dimension_table  # noqa: PLC0415 - data, loaded on first use

    knots = np.log(_table_nodes().astype(np.float64))
    scaled = knots * (4.0 / (knots[-1] - knots[0]))  # weights of order one
    differences = scaled[:, None] - scaled[None, :]
    np.fill_diagonal(differences, 1.0)
    weights = 1.0 / np.prod(differences, axis=1)
    return (
        np.array(_dimension_table.SMALL_VALUES),
        knots,
        np.array(_dimension_table.NODE_VALUES),
        weights / np.max(np.abs(weights)),
    )


def _interpolate(p: FloatArray) -> FloatArray:
    r"""Barycentric interpolation of the tabulated :math:`\mathbb{E}[C_p]` in :math:`\log p`.

    Second (true) barycentric formula through the tabulated nodes; a point that
    coincides with a node returns the node value.
    """
    _, knots, values, weights = _table()
    result = np.empty(p.size)
    for start in range(0, p.size, _INTERPOLATION_CHUNK):
        x = np.log(p[start : start + _INTERPOLATION_CHUNK])
        difference = x[:, None] - knots[None, :]
        hit = difference == 0.0
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = weights / difference
            # row-wise sums (not a matrix product): a value does not depend on its batch
            block = np.sum(ratio * values, axis=1) / np.sum(ratio, axis=1)
        rows, columns = np.nonzero(hit)
        block[rows] = values[columns]
        result[start : start + x.size] = block
    return result


def _exact_float_many(p: NDArray[Any], margin: float) -> FloatArray:
    """Float64 E[C_p] for a 1-D array of integers ``p >= 2`` (int64 or Python ints).

    Margin 0: p < 16 from the table, 16 <= p <= 1e18 by :func:`_interpolate`;
    everything else by the quadrature of :func:`_exact_float`, once per distinct p.
    """
    result = np.empty(p.size)
    pending = np.ones(p.size, dtype=bool)
    if margin == 0.0 and p.size:
        small_values = _table()[0]
        nodes = _table_nodes()
        small = p < nodes[0]
        result[small] = small_values[p[small].astype(np.int64) - 2]
        inside = (p >= nodes[0]) & (p <= nodes[-1])
        result[inside] = _interpolate(p[inside].astype(np.float64))
        pending = ~(small | inside)
    if np.any(pending):
        unique, inverse = np.unique(p[pending], return_inverse=True)
        values = np.array([_exact_float(int(q), margin) for q in unique])
        result[pending] = values[inverse]
    return result


# --------------------------------------------------------------------------
# exact mpmath route


def _transition_width(y: float, count: int) -> float:
    r"""Scale on which :math:`P(g + \sum_{i \le n}(Z_i - y)_+ \le y + c)` varies with ``y``.

    The sum has standard deviation :math:`\sigma = \sqrt{1 + n\operatorname{Var}(Z - y)_+}`
    and :math:`y - \mathbb{E}\,\text{sum}` grows at rate :math:`1 + nQ(y)`; their ratio
    is the width of the transition from 0 to 1 (about 0.05 at ``p = 1e9``).
    """
    tail, mean, second = hinge_moments(y)
    variance = max(second - mean * mean, 0.0)
    return math.sqrt(1.0 + count * variance) / (1.0 + count * tail)


def _transition_widths(y: FloatArray, count: int) -> FloatArray:
    """:func:`_transition_width` at every level of ``y``: the same operations, elementwise.

    Like Python's float arithmetic it overflows to ``inf`` (and ``inf / inf`` to NaN)
    silently.
    """
    tail = special.ndtr(-y)
    with np.errstate(over="ignore", invalid="ignore"):
        density = np.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi)
        mean = density - y * tail
        second = (1.0 + y * y) * tail - y * density
        variance = np.maximum(second - mean * mean, 0.0)
        scale = float(count)  # as Python multiplies an int by a float
        return np.sqrt(1.0 + scale * variance) / (1.0 + scale * tail)


#: Most quadrature panels of one level integral. Known needs: about 120 on the float64
#: route (p = 1e9, margin 1e4), about 13 000 on the mpmath route (p = 1e9, margin 2);
#: a margin near p at p = 1e100 would need about 1e50.
_MAX_PANELS = 1_000_000


def _mp_panel_edges(
    lower: float,
    upper: float,
    count: int,
    shift: float,
    widest: float = _MP_PANEL_WIDTH,
    per_width: float = _MP_PANEL_SCALE,
) -> list[float]:
    """Panel edges on [lower, upper]: at most ``widest`` wide and ``per_width``
    transition widths wide (hinge at ``u - shift``)."""
    _check_panel_count(lower, upper, count, shift, widest, per_width)
    edges = [lower]
    while edges[-1] < upper:
        start = edges[-1]
        width = widest
        for _ in range(3):  # the width at both ends of the panel
            scale = min(
                _transition_width(start - shift, count),
                _transition_width(start + width - shift, count),
            )
            width = min(widest, scale * per_width)
        edges.append(min(upper, start + width) if upper - start - width > 0.2 * width else upper)
    return edges


def _check_panel_count(
    lower: float, upper: float, count: int, shift: float, widest: float, per_width: float
) -> None:
    """Refuse, naming p and margin, a level integral needing more than _MAX_PANELS panels.

    The count is estimated from the panel width on a 2001-point grid (the width varies
    smoothly with the level); the refused cases need many orders of magnitude more.
    """
    grid = np.linspace(lower, upper, 2001)
    # fmin: a NaN width gives way to widest, as in min(widest, nan)
    widths = np.fmin(widest, per_width * _transition_widths(grid - shift, count))
    estimate = float(np.sum(np.diff(grid) / np.maximum(widths[:-1], 1e-300)))
    if estimate > _MAX_PANELS:
        msg = (
            f"p and margin: the quadrature over the level would need about {estimate:.2g} "
            f"panels (at most {_MAX_PANELS} are built) on [{lower:.6g}, {upper:.6g}] with "
            f"{format_integer(count)} hinge terms (p - 2); no route answers at this p and margin"
        )
        raise ValueError(msg)


def _panel_integral(
    lower: float, upper: float, count: int, shift: float, integrand: Any, dps: int, order: int
) -> Any:
    r""":math:`\int_{lower}^{upper}` of the panel-wise ``integrand`` (Gauss-Legendre panels)."""
    bits = int(working_dps(dps) * 3.33) + 20
    unit_nodes, unit_weights = legendre_unit_rule(order, bits)
    total = mpmath.mpf(0)
    for a, b in itertools.pairwise(_mp_panel_edges(lower, upper, count, shift)):
        left, length = mpmath.mpf(a), mpmath.mpf(b) - mpmath.mpf(a)
        nodes = [left + length * x for x in unit_nodes]
        values = integrand(nodes)
        total += length * mpmath.fsum(w * v for w, v in zip(unit_weights, values, strict=True))
    return total


def _exact_mp(p: int, margin: Any, dps: int, order: int | None = None) -> Any:
    """mpmath route of :func:`gaussian_statistical_dimension`; ``margin`` a float or an ``mpf``.

    The margin enters the integrands exactly; its float64 value only places the
    integration ranges and panels.
    """
    order = dps + _MP_EXTRA_ORDER if order is None else order
    inner = dps + 2 + math.ceil(math.log10(p))  # inner errors are multiplied by up to p
    log_tol = -(dps + 5) * math.log(10.0)
    with guarded(dps):
        m = mpmath.mpf(margin)
        margin = float(margin)
        if margin == 0.0 and p == 2:
            return mpmath.mpf(1) / 2
        lower, upper = _y_range(p, margin, log_tol)

        def active_integrand(y: list[Any]) -> list[Any]:
            inner_cdf = sum_cdf_mp_many([u + m for u in y], y, p - 2, dps=inner)
            return [mpmath.npdf(u) * v for u, v in zip(y, inner_cdf, strict=True)]

        active = (p - 1) * _panel_integral(lower, upper, p - 2, 0.0, active_integrand, dps, order)
        if margin == 0.0:
            return active

        def below(x: list[Any]) -> list[Any]:
            return sum_cdf_mp_many(x, [u - m for u in x], p - 1, dps=inner)

        def above(x: list[Any]) -> list[Any]:
            return [1 - v for v in below(x)]

        low, high = _level_range(p, margin, min(log_tol - math.log(margin), math.log(1e-8)))
        upper_part = _panel_integral(0.0, high, p - 1, margin, above, dps, order)
        lower_part = _panel_integral(low, 0.0, p - 1, margin, below, dps, order)
        return active + m * (upper_part - lower_part)


_INT64_LIMIT = 2**63

# --------------------------------------------------------------------------
# public API


def gaussian_statistical_dimension(
    p: ArrayLike,
    *,
    margin: float = 0.0,
    dps: int | None = None,
    method: str = "exact",
    samples: int | None = None,
    seed: int | None = None,
) -> Any:
    r"""Statistical dimension :math:`\mathbb{E}[C_p]` of the recall cone for Gaussian scores.

    The Gaussian branch of :func:`lamcap.statistical_dimension` (its docstring holds the
    formula, the status and the precision of each ``method``); arguments are checked here.
    """
    method = check_choice("method", method, _METHODS)
    digits = check_dps(dps)
    p_array, margins = broadcast(
        check_integer_array("p", p, minimum=2),
        check_finite_array("margin", margin, minimum=0.0),
        names=("p", "margin"),
    )
    if method == "exact":
        if digits is not None:
            return elementwise(lambda q, m: _exact_mp(q, m, digits), p_array, margins, dps=digits)
        values = grouped(lambda m, q: _exact_float_many(q, m), [margins], p_array)
        return float_result(values)
    if method == "asymptotic":
        if np.any(margins != 0.0):
            msg = f"margin must be 0 for method='asymptotic', got {plain(margin)}"
            raise ValueError(msg)
        return statistical_dimension_series(p_array)
    count = (
        100_000
        if samples is None
        else check_integer("samples", samples, minimum=2, maximum=_MAX_SAMPLES)
    )
    seed = check_seed(seed)
    estimates = [
        _monte_carlo(int(q), float(m), count, seed)
        for q, m in zip(p_array.ravel(), margins.ravel(), strict=True)
    ]
    means = float_result(np.array([e.mean for e in estimates]).reshape(p_array.shape))
    errors = float_result(np.array([e.standard_error for e in estimates]).reshape(p_array.shape))
    return MonteCarloEstimate(means, errors, count)


def statistical_dimension_float(p: NDArray[Any]) -> FloatArray:
    r"""Float64 :math:`\mathbb{E}[C_p]` for an integer array (int64 or Python ints), vectorised."""
    return np.asarray(gaussian_statistical_dimension(p.ravel()), dtype=np.float64).reshape(p.shape)


# --------------------------------------------------------------------------
# Monte Carlo through the top order statistics


def _monte_carlo_batch(rng: np.random.Generator, rows: int, p: int, margin: float) -> FloatArray:
    r""":math:`|A|` (margin 0) or :math:`\operatorname{dist}^2` per draw, from the top order statistics."""
    top, target, active, level = sample_top_projection(rng, p - 1, rows, margin)
    if margin == 0.0:
        return active.astype(np.float64)
    shifted = top.values + margin
    included = np.arange(1, shifted.shape[1] + 1)[None, :] <= active[:, None]
    return (target - level) ** 2 + np.sum(  # type: ignore[no-any-return,unused-ignore]
        np.where(included, (shifted - level[:, None]) ** 2, 0.0), axis=1
    )


_MAX_SAMPLES = 10**8
"""Most Monte Carlo draws per value: about 10 minutes at p = 50 on one core."""


def _monte_carlo(p: int, margin: float, samples: int, seed: int | None) -> MonteCarloEstimate:
    rng = np.random.default_rng(seed)
    batch = 20_000
    draws = np.concatenate(
        [
            _monte_carlo_batch(rng, min(batch, samples - start), p, margin)
            for start in range(0, samples, batch)
        ]
    )
    return MonteCarloEstimate(
        float(np.mean(draws)), float(np.std(draws, ddof=1) / math.sqrt(samples)), samples
    )


# --------------------------------------------------------------------------
# law of the active-set size
#
# All k share one y grid, one frequency grid and one table of the conditional-
# excess characteristic function; the order-statistic densities of every k come
# from one log-binomial table.

#: P(|A| >= k) below this bound ends the law (``kmax=None``).
_LAW_TAIL = 1e-16
#: The y range of each k is where density times Chernoff bound exceeds this.
_LOG_LAW_FLOOR = math.log(1e-20)
#: Gauss-Legendre panels (20 nodes) per trimmed y range of each k (3 already agree with 16
#: to 2e-15 at p = 3..1e9; 2 do not).
_LAW_PANELS = 6
#: First block of k values: this many per unit of log p (plus 10), doubled if short.
_LAW_BLOCK_PER_LOG_P = 8.0
#: Exponents for the Chernoff bounds of the law (any grid keeps them rigorous).
_LAW_EXPONENTS = np.geomspace(1e-2, 200.0, 48)


class _KGrid(NamedTuple):
    """Per-k y ranges, the shared Gauss-Legendre nodes and each k's slice of them."""

    nodes: FloatArray
    weights: FloatArray
    first: NDArray[np.int64]  # first node of k's panels
    stop: NDArray[np.int64]  # one past the last node of k's panels
    coarse: FloatArray  # grid on which the ranges were found
    best_exponent: NDArray[np.int64]  # (k, coarse point) -> minimising Chernoff exponent
    coarse_step: float


def _log_order_densities(y: FloatArray, p: int, ks: NDArray[np.int64]) -> FloatArray:
    r"""Log density of the k-th largest of :math:`p - 1` iid N(0, 1), rows ``ks``, columns ``y``."""
    j = np.arange(int(ks.max()) - 1)
    log_binomials = np.concatenate([[0.0], np.cumsum(np.log((p - 2 - j) / (j + 1.0)))])
    log_constant = math.log(p - 1) + log_binomials[ks - 1] - 0.5 * math.log(2 * math.pi)
    upper, lower = special.log_ndtr(-y), special.log_ndtr(y)
    tails = (ks[:, None] - 1) * upper[None, :] + (p - 1 - ks[:, None]) * lower[None, :]
    result: FloatArray = log_constant[:, None] - 0.5 * y[None, :] ** 2 + tails
    return result


def _trimmed_range(row: FloatArray, coarse: FloatArray) -> tuple[float, float] | None:
    keep = np.flatnonzero(row > _LOG_LAW_FLOOR)
    if keep.size == 0:
        return None
    return float(coarse[max(keep[0] - 1, 0)]), float(coarse[min(keep[-1] + 1, coarse.size - 1)])


def _shared_edges(ranges: list[tuple[float, float] | None], coarse: FloatArray) -> FloatArray:
    """Panel edges covering every range, at most range / ``_LAW_PANELS`` wide inside each range."""
    widths = np.full(coarse.size, np.inf)
    for r in ranges:
        if r is not None:
            inside = (coarse >= r[0]) & (coarse <= r[1])
            widths[inside] = np.minimum(widths[inside], (r[1] - r[0]) / _LAW_PANELS)
    lower = min(r[0] for r in ranges if r is not None)
    upper = max(r[1] for r in ranges if r is not None)
    edges = [lower]
    while edges[-1] < upper:
        start = edges[-1]
        width = float(widths[int(np.searchsorted(coarse, start, side="right")) - 1])
        for _ in range(2):  # the narrowest width met inside the panel
            low, high = np.searchsorted(coarse, [start, start + width])
            width = min(width, float(np.min(widths[max(low - 1, 0) : high + 1])))
        edges.append(upper if upper - start - width < 0.2 * width else start + width)
    return np.array(edges)


def _law_grid(p: int, ks: NDArray[np.int64]) -> _KGrid:
    """Ranges where density times Chernoff bound exceeds the floor, then shared panels.

    Each range is found on a grid of 801 points, widened by one grid step (the
    integrand is below e^floor beyond it); the panel width is the narrowest
    range over ``_LAW_PANELS`` so every k is integrated at least as finely.
    """
    rough = np.linspace(-40.0, 40.0, 4001)
    present = np.flatnonzero(np.max(_log_order_densities(rough, p, ks), axis=0) > _LOG_LAW_FLOOR)
    coarse = np.linspace(rough[max(present[0] - 1, 0)], rough[min(present[-1] + 1, 4000)], 801)
    log_density = _log_order_densities(coarse, p, ks)
    lam = _LAW_EXPONENTS[:, None]
    log_mgf = log_mgf_excess(-lam, coarse[None, :])  # one conditional excess
    best = np.zeros((ks.size, coarse.size), dtype=np.int64)
    ranges = []
    for row, k in enumerate(ks):
        exponent = chernoff_exponent(lam, coarse[None, :], (k - 1) * log_mgf)
        best[row] = np.argmin(exponent, axis=0)
        log_bound = np.minimum(np.take_along_axis(exponent, best[row][None, :], 0)[0], 0.0)
        ranges.append(_trimmed_range(log_density[row] + log_bound, coarse))
    edges = _shared_edges(ranges, coarse)
    nodes, weights = _edge_panels(edges)
    first = np.zeros(ks.size, dtype=np.int64)
    stop = np.zeros(ks.size, dtype=np.int64)
    for row, r in enumerate(ranges):
        if r is not None:
            start_panel = max(0, int(np.searchsorted(edges, r[0], side="right")) - 1)
            end_panel = max(start_panel + 1, int(np.searchsorted(edges, r[1], side="left")))
            first[row], stop[row] = start_panel * _GAUSS_ORDER, end_panel * _GAUSS_ORDER
    return _KGrid(nodes, weights, first, stop, coarse, best, float(coarse[1] - coarse[0]))


def _log_caps(grid: _KGrid, row: int, k: int) -> FloatArray:
    r"""Chernoff bound on :math:`\log P(g + T_{k-1}(y) < y)` on k's nodes.

    Uses, at each node, the exponent that was best at the nearest coarse point
    (any exponent gives a rigorous bound).
    """
    y = grid.nodes[grid.first[row] : grid.stop[row]]
    if k == 1:
        return np.minimum(special.log_ndtr(y), 0.0)  # type: ignore[no-any-return,unused-ignore]
    nearest = np.clip(
        np.rint((y - grid.coarse[0]) / grid.coarse_step).astype(np.int64), 0, grid.coarse.size - 1
    )
    lam = _LAW_EXPONENTS[grid.best_exponent[row, nearest]]
    bound = chernoff_exponent(lam, y, (k - 1) * log_mgf_excess(-lam, y))
    return np.minimum(bound, 0.0)  # type: ignore[no-any-return,unused-ignore]


def _upper_half_period(y: FloatArray, counts: FloatArray, log_tol: float) -> FloatArray:
    r"""Half-period :math:`L` with :math:`P(|g + T_c(y) - y| \ge L) \le 2e^{\text{log\_tol}}`.

    Upper tail by Chernoff bounds with the largest count ``c`` used at ``y``
    (the bound grows with ``c`` since the excesses are positive); lower tail
    from :math:`g + T \ge g` alone.
    """
    lam = _LAW_EXPONENTS[:, None]
    exponent = 0.5 * lam**2 - log_tol + counts[None, :] * log_mgf_excess(lam, y[None, :])
    upper = np.min(exponent / lam, axis=0) - y
    lower = y + math.sqrt(-2.0 * log_tol)
    return np.maximum(np.maximum(upper, lower), 1.0)  # type: ignore[no-any-return,unused-ignore]


def _inner_probabilities(
    grid: _KGrid, ks: NDArray[np.int64], log_caps: list[FloatArray]
) -> list[FloatArray]:
    r""":math:`P(g + T_{k-1}(y) < y)` on each k's nodes by one shared midpoint Gil-Pelaez grid.

    Pairs (k, y) whose Chernoff bound is below the tolerance are 0; the
    frequency step is the smallest any remaining pair needs (a longer period
    only lowers the aliasing error), the characteristic function of one
    excess is tabulated once and raised to the power k - 1, and each k's sum
    stops after the last frequency where some term exceeds tolerance / N.
    """
    log_tol = math.log(FLOAT_TOLERANCE)
    spans = [slice(int(a), int(b)) for a, b in zip(grid.first, grid.stop, strict=True)]
    pending = [(cap >= log_tol) & (k > 1) for cap, k in zip(log_caps, ks, strict=True)]
    results = [
        special.ndtr(grid.nodes[span]) if k == 1 else np.zeros(span.stop - span.start)
        for span, k in zip(spans, ks, strict=True)
    ]
    counts = np.zeros(grid.nodes.size)
    for span, mask, k in zip(spans, pending, ks, strict=True):
        counts[span] = np.where(mask, np.maximum(counts[span], k - 1), counts[span])
    used = np.flatnonzero(counts > 0)
    if used.size == 0:
        return results
    low, high = int(used[0]), int(used[-1]) + 1
    half_period = float(np.max(_upper_half_period(grid.nodes[used], counts[used], log_tol)))
    step = 2.0 * math.pi / half_period
    half_integers = np.arange(math.ceil(cutoff_frequency(log_tol) / step)) + 0.5
    t = np.asarray(step * half_integers, dtype=np.float64)
    log_cf = log_cf_excess(t[None, :], grid.nodes[low:high, None])
    log_cf_real, log_cf_imag = np.ascontiguousarray(log_cf.real), np.ascontiguousarray(log_cf.imag)
    gauss = -0.5 * t**2
    log_floor = log_tol - math.log(t.size)
    for span, mask, k, result in zip(spans, pending, ks, results, strict=True):
        rows = np.flatnonzero(mask) + span.start - low
        if rows.size == 0:
            continue
        # a contiguous block of rows is a view, not a copy
        block = slice(rows[0], rows[-1] + 1) if rows[-1] - rows[0] + 1 == rows.size else rows
        real = log_cf_real[block]
        # max over rows of (k-1) Re + gauss, per frequency: terms below floor are dropped
        needed = np.flatnonzero((k - 1) * np.max(real, axis=0) + gauss >= log_floor)
        count = int(needed[-1]) + 1 if needed.size else 0
        modulus = np.exp((k - 1) * real[:, :count] + gauss[:count])
        phase = (k - 1) * log_cf_imag[block, :count] - np.outer(grid.nodes[rows + low], t[:count])
        sums = (modulus * np.sin(phase)) @ (1.0 / half_integers[:count])
        result[mask] = np.clip(0.5 - sums / math.pi, 0.0, 1.0)
    return results


def _tail_probabilities(p: int, ks: NDArray[np.int64]) -> tuple[FloatArray, FloatArray]:
    r""":math:`P(|A| \ge k) = \int f_{(k)}(y)\, P(g + T_{k-1}(y) < y)\,dy` and upper bounds.

    The inner probability is capped by its Chernoff bound (which removes the
    rounding noise of the inversion where the true value is tiny); the bound
    integrates density times Chernoff bound (plus the floor over the grid step).
    """
    grid = _law_grid(p, ks)
    log_caps = [_log_caps(grid, row, int(k)) for row, k in enumerate(ks)]
    inner = _inner_probabilities(grid, ks, log_caps)
    tails, bounds = np.zeros(ks.size), np.zeros(ks.size)
    for row in range(ks.size):
        span = slice(int(grid.first[row]), int(grid.stop[row]))
        if span.stop == span.start:
            continue
        density = grid.weights[span] * np.exp(
            _log_order_densities(grid.nodes[span], p, ks[row : row + 1])[0]
        )
        cap = np.exp(log_caps[row])
        tails[row] = float(np.sum(density * np.minimum(inner[row], cap)))
        bounds[row] = float(np.sum(density * cap)) + 2 * grid.coarse_step * math.exp(_LOG_LAW_FLOOR)
    return tails, bounds


def _law_tails(p: int, count: int, stop_early: bool) -> tuple[FloatArray, bool]:
    r""":math:`P(|A| \ge k)` for k = 1..count, or up to the first k whose bound is below 1e-16.

    Blocks of k grow by doubling from about 8 log p (the support of the law
    ends near 5.5 log p for p = 1e3..1e9); when ``stop_early`` is false the
    tails past a bound below 1e-16 are set to 0 (they are below 1e-16).
    """
    block = min(count, math.ceil(_LAW_BLOCK_PER_LOG_P * math.log(p)) + 10)
    while True:
        tails, bounds = _tail_probabilities(p, np.arange(1, block + 1))
        small = np.flatnonzero(bounds < _LAW_TAIL)
        if stop_early and small.size:
            return tails[: small[0] + 1], True
        if block == count or (not stop_early and bounds[-1] < _LAW_TAIL):
            return tails, False
        block = min(count, 2 * block)


def active_set_law(p: int, kmax: int | None = None) -> FloatArray:
    r"""Law of the active-set size: :math:`P(|A| = k)`, :math:`k = 0, \dots, k_{\max}`.

    These are the conic intrinsic volumes of the polar cone :math:`K^\circ`
    (docs/theory/cone.md, fact 2).  With :math:`y` the :math:`k`-th largest of the
    :math:`p - 1` competitors (density
    :math:`f_{(k)}(y) = (p-1)\binom{p-2}{k-1}\varphi(y)Q(y)^{k-1}\Phi(y)^{p-1-k}`)
    and the :math:`k - 1` larger ones iid :math:`(Z \mid Z > y)`,

    .. math::

        P(|A| \ge k) = \int f_{(k)}(y)\,
        P\Big(g + \sum_{j=1}^{k-1}(Z_j - y \mid Z_j > y) < y\Big)\,dy,

    the inner law again by Gil-Pelaez inversion
    (:mod:`lamcap.theory._hinge_sums`).  All k are computed together: one
    shared y grid of 20-node Gauss-Legendre panels, at most 1/6 of each k's
    range wide inside that range (the range: where :math:`f_{(k)}` times the
    Chernoff bound of the inner probability exceeds 1e-20); one frequency grid
    whose period suits every (k, y) pair, so the characteristic function of one
    conditional excess is tabulated once and raised to the power :math:`k - 1`;
    the densities of all k from one log-binomial table.  About 0.1 s per law
    for p up to 1e9 (formerly 0.3-2 s with one inversion per k per grid).

    Status: exact. The law of :math:`|A|` for a standard Gaussian score vector, to the absolute
    error stated under Returns (about ``1e-15`` per entry up to :math:`p = 10^3`).

    Parameters
    ----------
    p : int
        Number of outputs, ``2 <= p < 2**63`` (beyond it ``ValueError``: the
        tables of the order-statistic densities are int64).
    kmax : int, optional
        Largest ``k`` returned (at most ``p - 1``).  Default: the smallest
        ``kmax`` with :math:`P(|A| > k_{\max}) < 10^{-16}`.

    Returns
    -------
    ndarray
        :math:`P(|A| = k)` for ``k = 0..kmax``; absolute error about ``1e-15``
        per entry for p up to 1e3 (measured against the simplex-angle closed
        form of docs/theory/cone.md, fact 4 and against :func:`lamcap.statistical_dimension`),
        rounding in the inversions growing it to about ``1e-14`` at p = 1e6 and
        ``1e-13`` at p = 1e9 (the one-inversion-per-k route differs by as much);
        summing to one within ``1e-12`` when ``kmax`` covers the support.
        Entries beyond the support (``kmax`` past the last k whose tail bound
        exceeds ``1e-16``) are 0.

    References
    ----------
    arXiv:2605.10795; docs/theory/cone.md, facts 2 and 4; Amelunxen et al. (2014).

    Examples
    --------
    >>> law = active_set_law(3)
    >>> [round(float(v), 12) for v in law]  # 1/3, 1/2, 1/6
    [0.333333333333, 0.5, 0.166666666667]
    """
    p = check_integer("p", p, minimum=2)
    if p >= _INT64_LIMIT:
        msg = (
            f"p must be an integer in [2, 2**63 - 1] (the law's binomial tables are int64), "
            f"got {format_integer(p)}"
        )
        raise ValueError(msg)
    last = p - 1 if kmax is None else check_integer("kmax", kmax, minimum=0, maximum=p - 1)
    if kmax is not None:  # the law is returned in full up to kmax (zeros past its support)
        check_memory(
            f"active_set_law with p = {format_integer(p)} and kmax = {format_integer(last)} "
            "(the tails, the law and room to spare: 24 (kmax + 2) bytes)",
            24 * (last + 2),
        )
    values, stopped = _law_tails(p, min(last + 1, p - 1), kmax is None)
    tail_array = np.zeros(values.size + 1 if stopped else last + 2)
    tail_array[0] = 1.0  # P(|A| >= 0)
    tail_array[1 : values.size + 1] = values
    law = tail_array[:-1] - tail_array[1:]
    np.maximum(law, 0.0, out=law)
    return law

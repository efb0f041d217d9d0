r"""Finite-size law of the recall cone for unit-norm outputs (``embeddings="sphere"``).

With outputs uniform on the unit sphere :math:`S^{d-1}`, the scores of one
association against a direction :math:`h` independent of its outputs are
:math:`u_\rho^\top h = \|h\|\,s_\rho` with :math:`s_\rho` iid coordinates of a
uniform point on :math:`S^{d-1}`: density proportional to
:math:`(1 - s^2)^{(d-3)/2}` on :math:`[-1, 1]`, variance :math:`1/d`.  The model of
docs/theory/unit-norm.md replaces the Gaussian score vector :math:`g` of the
[cone page](docs/theory/cone.md) by :math:`z = \sqrt d\,s` (variance 1, support
:math:`[-\sqrt d, \sqrt d]`) and charges each association

.. math::

    C_p(d) = \mathbb{E}\operatorname{dist}(z, K)^2 ,

the energetic term of Gardner's calculation (a distance: for non-Gaussian scores it is
not :math:`\mathbb{E}|A|`, which this module also computes for comparison).

Route.  Write :math:`T_\ell = z_t + \sum_{\rho \ne t}(z_\rho - \ell)_+` (the level
:math:`\ell^*` of the projection solves :math:`T_\ell = \ell`) and
:math:`F(\ell) = (z_t - \ell)^2 + \sum_\rho (z_\rho - \ell)_+^2` (so
:math:`\operatorname{dist}^2 = \min_\ell F = F(\ell^*)`).  Since
:math:`F'(\ell) = 2(\ell - T_\ell)`, for any level :math:`u`

.. math::

    \operatorname{dist}^2 = F(u) - 2\int_{-\infty}^{u} (\ell - T_\ell)_+\,d\ell
    - 2\int_u^\infty (T_\ell - \ell)_+\,d\ell .

At a level :math:`u` above which :math:`p\,P(z > u) < 10^{-18}` (or :math:`u = \sqrt d`)
the last integral and the competitors' part of :math:`F(u)` vanish to that
accuracy, leaving :math:`C_p(d) = 1 + u^2 - 2\int_{-\sqrt d}^{u}
\mathbb{E}(\ell - T_\ell)_+\,d\ell` (:math:`\mathbb{E}(z_t - u)^2 = 1 + u^2`).  Conditionally on the competitors' hinge sum :math:`R_\ell`,
:math:`\mathbb{E}[(\ell - T_\ell)_+ \mid R_\ell] = G(\ell - R_\ell)` with the closed form
:math:`G(c) = \mathbb{E}(c - z)_+ = cF_z(c) - M_z(c)` (:math:`F_z` a regularised
incomplete beta function, :math:`M_z(c) = -\frac{c_d\sqrt d}{d-1}(1 - c^2/d)^{(d-1)/2}`).
The law of :math:`R_\ell` is needed only below :math:`\ell + b` (beyond, :math:`G`
is below :math:`10^{-18}`), and since its terms are non-negative the :math:`(p-1)`-fold
convolution may be truncated there after every step: hat-function masses of one
hinge on :math:`M + 1` nodes, binary powering by zero-padded FFTs.  The error is
:math:`O(h^2)`; two grids (:math:`M = 1024, 2048`) and Richardson extrapolation
give relative error below ``3e-9`` (against the extrapolation of ``M = 4096, 8192``
at d = 4-1024 and against the exact value 1/2 at p = 2; in the tests).  The outer :math:`\ell` integral uses 20-point
Gauss-Legendre panels from the top down and stops where
:math:`\mathbb{E}(\ell - T_\ell)_+`, which decreases as :math:`\ell` decreases, is
below ``1e-18``.

:math:`\mathbb{E}|A|` under the same scores uses the exchangeability formula of
docs/theory/cone.md (fact 5) with :math:`G` replaced by :math:`F_z`.

References: docs/theory/unit-norm.md; arXiv:2605.10795; Nichani et al.,
arXiv:2412.06538 (the unit-norm protocol).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import special  # type: ignore[import-untyped,unused-ignore]

FloatArray = NDArray[np.float64]

#: Smallest dimension of the unit-norm law (below it the score density is not
#: continuous at the ends of its support and the extrapolated quadrature is not verified).
MIN_DIMENSION = 4
#: Nodes of the coarse hinge grid; the fine grid has twice as many.
_GRID = 1024
#: Negligible mass or price (absolute) in the truncations.
_NEGLIGIBLE = 1e-18
_GAUSS_NODES, _GAUSS_WEIGHTS = np.polynomial.legendre.leggauss(20)
#: Panels of the outer integrals per unit of level.
_PANELS_PER_UNIT = 2.0


def _constants(d: int) -> tuple[float, float]:
    """Beta parameter :math:`(d-1)/2` and :math:`c_d = \\Gamma(d/2)/(\\sqrt\\pi\\,\\Gamma((d-1)/2))`."""
    a = 0.5 * (d - 1)
    log_c = special.gammaln(0.5 * d) - special.gammaln(a) - 0.5 * math.log(math.pi)
    return a, math.exp(log_c)


def score_cdf(z: Any, d: int) -> FloatArray:
    r"""CDF of :math:`z = \sqrt d\,s`, :math:`s` one coordinate of a uniform point on :math:`S^{d-1}`.

    .. math::

        F_z(z) = I_{(1 + z/\sqrt d)/2}\Big(\frac{d-1}{2}, \frac{d-1}{2}\Big),

    the regularised incomplete beta function (:math:`(1+s)/2` is Beta distributed);
    float64, relative error about ``1e-15`` (scipy's ``betainc``).
    docs/theory/unit-norm.md.

    Examples
    --------
    >>> print(f"{float(score_cdf(0.0, 8)):.3f} {float(score_cdf(3.0, 8)):.3f}")
    0.500 1.000
    """
    a, _ = _constants(d)
    x = np.clip(0.5 * (1.0 + np.asarray(z, dtype=np.float64) / math.sqrt(d)), 0.0, 1.0)
    return np.asarray(special.betainc(a, a, x), dtype=np.float64)


def score_density(z: Any, d: int) -> FloatArray:
    r"""Density :math:`f_z(z) = \frac{c_d}{\sqrt d}(1 - z^2/d)^{(d-3)/2}` on :math:`|z| < \sqrt d`.

    :math:`c_d = \Gamma(d/2)/(\sqrt\pi\,\Gamma((d-1)/2))`; docs/theory/unit-norm.md.

    Examples
    --------
    >>> print(f"{float(score_density(0.0, 3)):.6f}")  # uniform on [-sqrt 3, sqrt 3]
    0.288675
    """
    _, c = _constants(d)
    base = np.clip(1.0 - np.asarray(z, dtype=np.float64) ** 2 / d, 0.0, None)
    return np.asarray(c / math.sqrt(d) * base ** (0.5 * (d - 3)), dtype=np.float64)


def _first_moment(z: Any, d: int) -> FloatArray:
    r""":math:`M_z(z) = \int_{-\sqrt d}^{z} u f_z(u)\,du = -\frac{c_d\sqrt d}{d-1}(1 - z^2/d)_+^{(d-1)/2}`."""
    _, c = _constants(d)
    base = np.clip(1.0 - np.asarray(z, dtype=np.float64) ** 2 / d, 0.0, None)
    return np.asarray(-c * math.sqrt(d) / (d - 1) * base ** (0.5 * (d - 1)), dtype=np.float64)


def _put(c: FloatArray, d: int) -> FloatArray:
    r""":math:`G(c) = \mathbb{E}(c - z)_+ = cF_z(c) - M_z(c)` (0 below the support, c above)."""
    root = math.sqrt(d)
    inside = c * score_cdf(c, d) - _first_moment(c, d)
    return np.where(c <= -root, 0.0, np.where(c >= root, c, inside))


@functools.cache
def _reach(d: int) -> float:
    """Smallest b (on a 1/8 grid) with F_z(-b) and G(-b) below the negligible size, at most sqrt(d)."""
    root = math.sqrt(d)
    for b in np.arange(1.0, root, 0.125):
        point = np.array([-b])
        if max(float(_put(point, d)[0]), float(score_cdf(point, d)[0])) < _NEGLIGIBLE:
            return float(b)
    return root


def _upper_level(p: int, d: int) -> float:
    """A level u with p P(z > u) below the negligible mass (at most sqrt(d))."""
    root = math.sqrt(d)
    a, _ = _constants(d)
    x = float(special.betainccinv(a, a, _NEGLIGIBLE / p))  # P(z > u) = NEGLIGIBLE / p
    return min(root, root * (2.0 * x - 1.0))


def _hinge_masses(levels: FloatArray, d: int, steps: FloatArray, nodes: int) -> FloatArray:
    r"""Hat-function masses of :math:`(z - \ell)_+` on :math:`0, h, \dots, (N-1)h`, one row per level.

    Node ``j`` receives :math:`\int \Lambda_j(y) f_z(\ell + y)\,dy` (:math:`\Lambda_j`
    the hat of width :math:`2h` at :math:`jh`) and node 0 also the atom
    :math:`F_z(\ell)`; mass beyond the last node is dropped.  Mass and mean are
    kept, so smooth expectations err by :math:`O(h^2)`.
    """
    y = steps[:, None] * np.arange(nodes + 1)[None, :]
    shifted = levels[:, None] + y
    cdf = score_cdf(shifted, d)
    moment = (
        _first_moment(shifted, d)
        - _first_moment(levels, d)[:, None]
        - levels[:, None] * (cdf - cdf[:, :1])
    )
    d_cdf, d_moment = np.diff(cdf, axis=1), np.diff(moment, axis=1)
    rise = (d_moment - y[:, :-1] * d_cdf) / steps[:, None]  # cell j's mass on its right node
    masses = d_cdf - rise
    masses[:, 0] += cdf[:, 0]
    masses[:, 1:] += rise[:, :-1]
    return masses


def _truncated_convolution(a: FloatArray, b: FloatArray) -> FloatArray:
    """The first ``a.shape[1]`` values of the row-wise linear convolution ``a * b``."""
    size = a.shape[1]
    length = 1 << math.ceil(math.log2(2 * size))
    product = np.fft.rfft(a, length, axis=1) * np.fft.rfft(b, length, axis=1)
    return np.fft.irfft(product, length, axis=1)[:, :size]


def _truncated_power(masses: FloatArray, count: int) -> FloatArray:
    """Row-wise law of the sum of ``count`` copies on the same nodes, truncated after every step.

    Exact truncation: the values are non-negative, so a partial sum beyond the last
    node never comes back.
    """
    result = np.zeros(masses.shape)
    result[:, 0] = 1.0
    base = masses
    while count:
        if count & 1:
            result = _truncated_convolution(result, base)
        count >>= 1
        if count:
            base = _truncated_convolution(base, base)
    return result


def _expected_over_sum(
    levels: FloatArray, d: int, count: int, nodes: int, function: Any, reach: float
) -> FloatArray:
    r""":math:`\mathbb{E}\,\text{function}(\ell - R)`, :math:`R = \sum_{i \le \text{count}}(z_i - \ell)_+`, per level."""
    result = np.zeros(levels.size)
    caps = levels + reach
    used = caps > 0.0  # elsewhere function(level - R) <= function(-reach), negligible
    if not np.any(used):
        return result
    steps = caps[used] / (nodes - 1)
    law = _truncated_power(_hinge_masses(levels[used], d, steps, nodes), count)
    grid = levels[used][:, None] - steps[:, None] * np.arange(nodes)[None, :]
    result[used] = np.sum(law * function(grid, d), axis=1)
    return result


def _level_panels(lower: float, upper: float) -> list[tuple[float, float]]:
    """Panel ends on [lower, upper], about ``_PANELS_PER_UNIT`` per unit, top panel first."""
    count = max(2, math.ceil((upper - lower) * _PANELS_PER_UNIT))
    edges = np.linspace(lower, upper, count + 1)
    return [(float(a), float(b)) for a, b in zip(edges[-2::-1], edges[:0:-1], strict=True)]


def _level_integral(
    d: int, upper: float, count: int, nodes: int, function: Any, weight: Any
) -> float:
    r""":math:`\int_{-\sqrt d}^{u} w(\ell)\,\mathbb{E}\,\text{function}(\ell - R_\ell)\,d\ell`, ``count`` hinges in :math:`R_\ell`.

    Panels from the top down; stops after a panel where the expectation, which only
    decreases further down (more and larger hinges), is below the negligible size.
    """
    reach = _reach(d)
    total = 0.0
    for a, b in _level_panels(-math.sqrt(d), upper):
        levels = 0.5 * (a + b) + 0.5 * (b - a) * _GAUSS_NODES
        inner = _expected_over_sum(levels, d, count, nodes, function, reach)
        total += 0.5 * (b - a) * float(np.dot(_GAUSS_WEIGHTS, weight(levels) * inner))
        if float(np.max(inner)) < _NEGLIGIBLE:
            break
    return total


def _distance_on_grid(p: int, d: int, nodes: int) -> float:
    """:math:`C_p(d)` with hinge grids of ``nodes`` nodes (before extrapolation)."""
    upper = _upper_level(p, d)
    total = _level_integral(d, upper, p - 1, nodes, _put, np.ones_like)
    # E F(u) = E(z_t - u)^2 = 1 + u^2; the competitors' part of F(u) and the integral
    # above u are below the negligible size (p P(z > u) < 1e-18)
    return 1.0 + upper * upper - 2.0 * total


def _active_on_grid(p: int, d: int, nodes: int) -> float:
    r""":math:`\mathbb{E}|A| = (p-1)\int f_z(y)\,\mathbb{E}F_z(y - R_y)\,dy` (``p - 2`` hinges)."""

    def density(levels: FloatArray) -> FloatArray:
        return score_density(levels, d)

    return (p - 1) * _level_integral(d, _upper_level(p, d), p - 2, nodes, score_cdf, density)


@functools.cache
def unit_norm_distance(p: int, d: int) -> float:
    r""":math:`C_p(d) = \mathbb{E}\operatorname{dist}(\sqrt d\,s, K)^2` for one integer ``p`` and ``d``.

    Richardson extrapolation of the grids with 1024 and 2048 nodes (module
    docstring; relative error below ``3e-9``).  Cached per process.

    Examples
    --------
    >>> print(f"{unit_norm_distance(2, 8):.8f}")  # p = 2: E(z_1 - z_2)_+^2 / 2 = 1/2
    0.50000000
    """
    coarse = _distance_on_grid(p, d, _GRID)
    fine = _distance_on_grid(p, d, 2 * _GRID)
    return (4.0 * fine - coarse) / 3.0


@functools.cache
def unit_norm_active_mean(p: int, d: int) -> float:
    r""":math:`\mathbb{E}|A|` of the projection of :math:`\sqrt d\,s` (not the cost; for comparison).

    For Gaussian scores it equals :math:`C_p` (Stein); for sphere coordinates it is
    larger (docs/theory/unit-norm.md).  Same quadrature and precision as
    :func:`unit_norm_distance`.

    Examples
    --------
    >>> print(f"{unit_norm_active_mean(2, 8):.10f}")  # P(z_1 > z_2) = 1/2
    0.5000000000
    """
    if p == 2:
        return 0.5
    coarse = _active_on_grid(p, d, _GRID)
    fine = _active_on_grid(p, d, 2 * _GRID)
    return (4.0 * fine - coarse) / 3.0


def sample_unit_norm_scores(rng: np.random.Generator, rows: int, p: int, d: int) -> FloatArray:
    r"""``rows x p`` iid scores :math:`\sqrt d\,s`, :math:`s = 2B - 1`, :math:`B \sim \mathrm{Beta}(\frac{d-1}2, \frac{d-1}2)`.

    The law of one coordinate of a uniform point on :math:`S^{d-1}` (independent of the
    quadrature's incomplete-beta route only through the Beta law itself).

    Examples
    --------
    >>> z = sample_unit_norm_scores(np.random.default_rng(0), 4, 3, 8)
    >>> z.shape, bool(np.all(np.abs(z) <= 8 ** 0.5))
    ((4, 3), True)
    """
    a = 0.5 * (d - 1)
    return math.sqrt(d) * (2.0 * rng.beta(a, a, size=(rows, p)) - 1.0)


# --------------------------------------------------------------------------
# the public laws (dispatched to by statistical_dimension, critical_p and
# feasibility_probability with embeddings="sphere")


def check_unit_norm_dimension(d: Any, where: str) -> NDArray[np.int64]:
    """``d`` as an int64 array of dimensions >= 4, or ValueError naming it and the accepted values."""
    from lamcap._validation import check_integer_array  # noqa: PLC0415

    if d is None:
        msg = (
            f"d is required by {where} with embeddings='sphere' (the unit-norm law depends on "
            f"the dimension), got d=None; pass an integer d >= {MIN_DIMENSION}"
        )
        raise ValueError(msg)
    return np.asarray(check_integer_array("d", d, minimum=MIN_DIMENSION), dtype=np.int64)


def unit_norm_dimension(p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
    r""":math:`C_p(d)` elementwise over broadcast integer arrays ``p`` and ``d`` (:func:`unit_norm_distance`)."""
    p_b, d_b = np.broadcast_arrays(p, d)
    result = np.empty(p_b.shape)
    for index in np.ndindex(p_b.shape):
        result[index] = unit_norm_distance(int(p_b[index]), int(d_b[index]))
    return result


def _dimension_at(p: float, d: int) -> float:
    r""":math:`C_p(d)` at a real ``p``: cubic Lagrange interpolation in :math:`\log p`.

    Through the four integers nearest ``p`` (the two below and above, the lowest at
    least 2); at an integer the computed value itself.
    """
    if p == math.floor(p):
        return unit_norm_distance(int(p), d)
    low = max(2, math.floor(p) - 1)
    knots = [low + k for k in range(4)]
    logs = [math.log(k) for k in knots]
    x = math.log(p)
    total = 0.0
    for i, knot in enumerate(knots):
        weight = 1.0
        for j in range(4):
            if j != i:
                weight *= (x - logs[j]) / (logs[i] - logs[j])
        total += weight * unit_norm_distance(knot, d)
    return total


def _critical_one(d: int) -> float:
    r"""The real p with :math:`p\,C_p(d) = d^2`: integer bracket by bisection, then real bisection.

    :math:`p\,C_p(d)` increases with p.  The search starts from the Gaussian
    ``critical_p(d)`` (the unit-norm root lies above it, :math:`C_p(d) < \mathbb{E}[C_p]`).
    """
    from lamcap.theory._capacity import critical_p  # noqa: PLC0415

    target = float(d) * float(d)

    def excess(q: float) -> float:
        return q * _dimension_at(q, d) - target

    low = max(2, math.floor(float(critical_p(d))))
    if excess(low) >= 0.0:  # not expected; walk down to a bracket
        while low > 2 and excess(low) >= 0.0:
            low = max(2, low // 2)
        if excess(low) >= 0.0:
            return 2.0
    high = max(low + 1, math.ceil(1.1 * low))
    while excess(high) < 0.0:
        low, high = high, 2 * high
    while high - low > 1:
        split = (low + high) // 2
        if excess(split) < 0.0:
            low = split
        else:
            high = split
    lower, upper = float(low), float(high)
    for _ in range(60):
        middle = 0.5 * (lower + upper)
        if excess(middle) < 0.0:
            lower = middle
        else:
            upper = middle
    return 0.5 * (lower + upper)


def unit_norm_critical_p(d: NDArray[Any]) -> FloatArray:
    r""":math:`p_c(d)` solving :math:`p\,C_p(d) = d^2` elementwise (``critical_p(d, embeddings="sphere")``)."""
    result = np.empty(d.shape)
    for index in np.ndindex(d.shape):
        result[index] = _critical_one(int(d[index]))
    return result


def unit_norm_width_scale(p: NDArray[Any], d: NDArray[Any]) -> FloatArray:
    r""":math:`\mathbb{E}[C_p] / C_p(d)`: the factor on :math:`d^2` of the scaled Crofton curve."""
    from lamcap.theory._cone import statistical_dimension  # noqa: PLC0415

    p_b, d_b = np.broadcast_arrays(p, d)
    gaussian = np.asarray(statistical_dimension(p_b), dtype=np.float64)
    return np.asarray(gaussian / unit_norm_dimension(p_b, d_b), dtype=np.float64)

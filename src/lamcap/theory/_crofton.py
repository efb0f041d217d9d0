r"""Finite-size feasibility law of the decoupled problem from the Crofton formula.

docs/theory/crofton.md.  Under the Gaussian model (the map :math:`W \mapsto` scores is a uniformly random
subspace of dimension :math:`D = d^2` in :math:`\mathbb{R}^{n p}`), ``n``
associations with ``p`` outputs each are storable iff that subspace meets the
interior of the product cone :math:`K^n`.  By conic duality this is the event
that the orthogonal complement (codimension :math:`D`) misses the pointed cone
:math:`(K^\circ)^n`, and the Crofton formula with the Gauss–Bonnet relation
:math:`\sum_k (-1)^k v_k = 0` gives

.. math::

    P(\text{feasible}) = 2\,\big[P(V = D-1) + P(V = D-3) + \dots\big]
    \approx P(V < D), \qquad V = \sum_{\mu=1}^n |A_\mu|,

where the :math:`|A_\mu|` are iid with the law of the active-set size of the
projection onto :math:`K` (the intrinsic volumes of :math:`K^\circ`,
:func:`lamcap.active_set_law`).  At :math:`p = 2`, :math:`|A| \sim` Bernoulli(1/2)
and the formula is Cover's function-counting probability
:math:`2^{1-n}\sum_{k<N}\binom{n-1}{k}`, :math:`N = d^2`.

This finite-size law is not in arXiv:2605.10795; it follows from the same cone
geometry (Amelunxen, Lotz, McCoy, Tropp 2014, *Living on the edge*).  The formula is
an identity for the Gaussian model; as a law of the decoupled problem with Gaussian
embeddings, whose score map is not exactly such a subspace, it is a model with
measured error (:func:`feasibility_probability`), and it does not describe the
original problem, which stores 2-5% more at d <= 64 (docs/measurements/op_vs_dp.md).

Numerics
--------
The law of :math:`V` is the n-fold convolution power of the law of :math:`|A|`,
computed by FFT: the law is folded modulo a power of two :math:`M`, transformed,
raised to the n-th power and transformed back, which yields
:math:`P(V \equiv r \bmod M)` exactly up to rounding.  :math:`M` covers the
whole support :math:`0..n\,k_{max}` when that is small; otherwise a window of
:math:`\pm t` around the mean, with :math:`t` from Bernstein's inequality such
that the mass outside is below :math:`10^{-20}`.  The absolute error of the
returned probability is below about :math:`3\times 10^{-13}` (measured against
exact rational arithmetic at p = 2 and against direct convolution).  Between
the integer grid nodes where :func:`lamcap.active_set_law` is evaluated (every
p <= 20, then integers rounded from :math:`20\cdot 1.05^j`) the law of
:math:`|A|` is interpolated in :math:`\log p`, which adds an error below 1e-8.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._validation import check_dps, check_integer_array, plain
from lamcap.theory._arrays import float_result
from lamcap.theory._capacity import full_rank_width, interpolation_stencil

FloatArray = NDArray[np.float64]

_EXACT_SUPPORT_LIMIT = 1 << 16  # full-support FFT below this many values of V
_LOG_TAIL = math.log(1e20)  # mass left outside the window: below 1e-20
_LAW_GRID_RATIO = 1.05  # the law of |A| is interpolated in log p between these nodes


@functools.lru_cache(maxsize=512)
def _exact_law(p: int) -> FloatArray:
    """Law of |A| at p outputs from :func:`lamcap.active_set_law` (cached, read-only)."""
    from lamcap.theory._cone import active_set_law  # noqa: PLC0415 - lazy: keep import light

    law = np.asarray(active_set_law(p), dtype=np.float64)
    law.setflags(write=False)
    return law


def _active_set_law(p: int) -> FloatArray:
    """Law of |A| at p outputs: exact at the nodes of the p grid, interpolated in between.

    Cubic Lagrange interpolation in log p through four nodes (every integer up
    to 20, then integers rounded from 20 * 1.05**j); the weights sum to one, so
    the result sums to one and keeps the alternating sum zero.
    """
    nodes, weights = interpolation_stencil(float(p), _LAW_GRID_RATIO)
    if p in nodes:
        return _exact_law(p)
    laws = [_exact_law(q) for q in nodes]
    result = np.zeros(max(law.size for law in laws))
    for law, weight in zip(laws, weights, strict=True):
        result[: law.size] += weight * law
    return result


def sum_law_window(law: ArrayLike, n: int) -> tuple[int, FloatArray]:
    r"""Law of the sum of ``n`` iid copies of an integer variable, on a window holding its mass.

    .. math::

        P(V = k), \quad V = X_1 + \dots + X_n,\quad P(X = j) = \text{law}[j],

    for ``k = start .. start + len(values) - 1``; the mass of :math:`V` outside
    the window is below :math:`10^{-20}` (Bernstein's inequality) and the
    window is the whole support when that has fewer than 65 536 points.

    Returns
    -------
    start : int
    values : float64 array
        Absolute error about :math:`10^{-16}` per value (FFT rounding).

    Examples
    --------
    >>> start, values = sum_law_window([0.5, 0.5], 3)
    >>> start, [round(float(v), 12) for v in values]
    (0, [0.125, 0.375, 0.375, 0.125])
    """
    probabilities = np.asarray(law, dtype=np.float64)
    support = np.arange(probabilities.size)
    top = probabilities.size - 1
    mean = float(np.dot(support, probabilities))
    variance = max(float(np.dot((support - mean) ** 2, probabilities)), 0.0)
    full = n * top + 1
    # Bernstein: P(|V - mean| > t) <= 2 exp(-t^2 / (2 (n var + top t / 3))).
    a, b = 2.0 * _LOG_TAIL * top / 3.0, 2.0 * _LOG_TAIL * n * variance
    half_width = 0.5 * (a + math.sqrt(a * a + 4.0 * b)) + 2.0
    if full <= max(_EXACT_SUPPORT_LIMIT, 2 * half_width):
        size, start = 1 << max(0, (full - 1).bit_length()), 0
    else:
        size = 1 << math.ceil(math.log2(2.0 * half_width + 1.0))
        start = max(0, round(n * mean) - size // 2)
    folded = np.zeros(size)
    np.add.at(folded, support % size, probabilities)
    spectrum = np.fft.rfft(folded) ** n
    residues = np.fft.irfft(spectrum, size)
    window = np.roll(residues, -(start % size))[: min(size, full - start)]
    return start, np.asarray(window)


def _parity_probability(start: int, values: FloatArray, dimension: int) -> float:
    r""":math:`2[P(V = D-1) + P(V = D-3) + \dots]` from a window of the law of V."""
    stop = min(dimension - start, values.size)  # window indices with V < D
    if stop <= 0:
        return 0.0
    first = (dimension - 1 - start) % 2  # window index of the parity class of D - 1
    return float(np.clip(2.0 * np.sum(values[first:stop:2]), 0.0, 1.0))


def _feasibility_one(start: int, values: FloatArray, dimension: float) -> float:
    """Crofton probability at a possibly non-integer dimension (linear interpolation)."""
    low = math.floor(dimension)
    fraction = dimension - low
    result = _parity_probability(start, values, low)
    if fraction > 0.0:
        above = _parity_probability(start, values, low + 1)
        result = (1.0 - fraction) * result + fraction * above
    return result


def feasibility_probability(
    d: ArrayLike,
    p: ArrayLike,
    *,
    n: ArrayLike | None = None,
    kappa: ArrayLike = 1.0,
    dps: int | None = None,
) -> Any:
    r"""Probability that ``n`` associations with ``p`` outputs each can all be recalled (decoupled).

    .. math::

        P(\text{feasible}) = 2\,\big[P(V = D-1) + P(V = D-3) + \dots\big],
        \qquad V = \sum_{\mu=1}^{n} |A_\mu|, \quad D = d^2,

    with :math:`|A_\mu|` iid from :func:`lamcap.active_set_law` (docs/theory/cone.md,
    fact 2).  An identity for the Gaussian model at full rank, a model of the decoupled
    problem (status below).

    Status: model with measured error. The Crofton formula is an identity for a uniformly random
    :math:`d^2`-dimensional subspace; the law applies it to the *decoupled* problem with
    Gaussian embeddings by assuming that the range of its score map is such a subspace (Gaussian
    equivalence; not derived, docs/theory/crofton.md). Measured error, against certified
    decoupled full-rank sweeps at d = 8-96 (docs/measurements/capacity.csv): the curve's 50%
    point (:func:`lamcap.critical_p`) lies within 1.0% of every measured transition and inside
    every 95% interval; the width of the curve has no separate measured error. The *original*
    problem (shared outputs) stores 2-5% more at :math:`d \le 64` (OP/DP 1.024-1.049,
    docs/measurements/op_vs_dp.md) and is not described by this law. For :math:`\kappa < 1` it
    is a heuristic (see ``kappa``).

    Parameters
    ----------
    d : int or array of int >= 1
        Dimension.
    p : int or array of int >= 2
        Outputs per association.
    n : int or array of int >= 1, optional
        Number of associations; default ``n = p`` (the paper's setting).
    kappa : float or array in (0, 1]
        Rank ratio.  For :math:`r = \operatorname{round}(\kappa d) < d` the set
        of rank-r maps is not convex and the formula is an approximation: we
        use :math:`D = w_r^2` (:func:`lamcap.gaussian_width_squared`, non-integer)
        and interpolate the parity formula linearly between
        :math:`\lfloor D\rfloor` and :math:`\lceil D\rceil` (a smooth version of
        :math:`P(V < w_r^2)`).  This is the Gordon-type prediction, not a theorem.
        ``d``, ``p``, ``n`` and ``kappa`` broadcast together, so a whole
        transition curve is one call.
    dps : None
        No high-precision route: the law of :math:`|A|` is a float64 inversion,
        interpolated between grid nodes in :math:`p` (Notes), so a given ``dps``
        raises ``ValueError`` (docs/howto/precision.md).

    Returns
    -------
    float64 array (``numpy.float64`` for scalar input), values in [0, 1].

    Notes
    -----
    The law of :math:`|A|` is computed exactly (:func:`lamcap.active_set_law`)
    at every p <= 20 and on a grid of integers rounded from :math:`20\cdot1.05^j`,
    and interpolated in between (cubic in :math:`\log p`; measured error of
    the law below 1e-7 at p = 25, 4e-9 at p = 333, 4e-10 at p = 6000, giving
    probability errors below 1e-8).  The FFT convolution power adds an
    absolute error below about 3e-13.  Laws are cached per process; the first
    curve costs one :func:`lamcap.active_set_law` per grid node it touches.
    Reference: docs/theory/crofton.md; Amelunxen, Lotz, McCoy, Tropp (2014).

    Examples
    --------
    Cover's count at p = 2 (N = d^2 = 4 weights, n = 8 patterns: exactly 1/2):

    >>> round(float(feasibility_probability(2, 2, n=8)), 12)
    0.5

    A transition curve at d = 12 (critical_p(12) is about 40):

    >>> curve = feasibility_probability(12, [34, 38, 40, 42, 46])
    >>> [round(float(q), 3) for q in curve]
    [0.996, 0.804, 0.505, 0.212, 0.01]
    """
    if check_dps(dps) is not None:
        msg = (
            f"feasibility_probability has no dps route (got dps={plain(dps)}): the law of "
            "|A| is a float64 inversion interpolated in p (probability error below 1e-8)"
        )
        raise ValueError(msg)
    outputs = check_integer_array("p", p, minimum=2)
    associations = outputs if n is None else check_integer_array("n", n, minimum=1)
    width = full_rank_width(d, kappa)
    outputs_b, associations_b, width_b = np.broadcast_arrays(outputs, associations, width)
    result = np.empty(outputs_b.shape)
    for q in np.unique(outputs_b):
        law = _active_set_law(int(q))
        rows = outputs_b == q
        for count in np.unique(associations_b[rows]):
            selected = rows & (associations_b == count)
            start, values = sum_law_window(law, int(count))
            result[selected] = [
                _feasibility_one(start, values, float(w)) for w in width_b[selected]
            ]
    return float_result(result)

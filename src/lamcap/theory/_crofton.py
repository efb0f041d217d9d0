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

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._sizes import check_memory, format_integer
from lamcap._validation import check_dps, check_integer_array, plain
from lamcap.theory._arrays import broadcast, float_result
from lamcap.theory._cost_law import active_set_law_at
from lamcap.theory._cost_models import cost_model
from lamcap.theory._status import LawStatus, with_status
from lamcap.theory._width import full_rank_width

FloatArray = NDArray[np.float64]

_EXACT_SUPPORT_LIMIT = 1 << 16  # full-support FFT below this many values of V
_LOG_TAIL = math.log(1e20)  # mass left outside the window: below 1e-20
_LOG_2 = math.log(2.0)
_LOG_ROUNDS_TO_ZERO = -1075.0 * _LOG_2  # below 2**-1075 a probability rounds to 0.0
_FFT_BYTES_PER_VALUE = 40  # folded law, its spectrum, the power, the inverse and its roll
_LAW_LIMIT = 2**63  # the law of |A| is computed for p below this (int64 arithmetic)
_MOMENT_SLACK = 1e-9  # relative allowance for the float64 error of the law's moments


def _window_plan(probabilities: FloatArray, n: int) -> tuple[int, int, int]:
    """``(size, start, full)``: FFT length, first value of V kept, size of V's support."""
    support = np.arange(probabilities.size)
    top = probabilities.size - 1
    mean = float(np.dot(support, probabilities))
    variance = max(float(np.dot((support - mean) ** 2, probabilities)), 0.0)
    full = n * top + 1
    # Bernstein: P(|V - mean| > t) <= 2 exp(-t^2 / (2 (n var + top t / 3))).
    a, b = 2.0 * _LOG_TAIL * top / 3.0, 2.0 * _LOG_TAIL * float(n) * variance
    half_width = 0.5 * (a + math.sqrt(a * a + 4.0 * b)) + 2.0
    if full <= max(_EXACT_SUPPORT_LIMIT, 2 * half_width):
        return 1 << max(0, (full - 1).bit_length()), 0, full
    size = 1 << math.ceil(math.log2(2.0 * half_width + 1.0))
    return size, max(0, round(n * mean) - size // 2), full


def sum_law_window(law: ArrayLike, n: int) -> tuple[int, FloatArray]:
    r"""Law of the sum of ``n`` iid copies of an integer variable, on a window holding its mass.

    .. math::

        P(V = k), \quad V = X_1 + \dots + X_n,\quad P(X = j) = \text{law}[j],

    for ``k = start .. start + len(values) - 1``; the mass of :math:`V` outside
    the window is below :math:`10^{-20}` (Bernstein's inequality) and the
    window is the whole support when that has fewer than 65 536 points.  The
    window grows like :math:`\sqrt n`; when its FFT (about 40 bytes per value)
    would not fit in the available memory, ``ValueError`` says so before
    anything is allocated (:func:`lamcap._sizes.check_memory`).

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
    count = check_integer_array("n", n, minimum=1)
    if count.ndim != 0:
        msg = f"n must be one integer >= 1, got {plain(n)}"
        raise ValueError(msg)
    n = int(count)
    size, start, full = _window_plan(probabilities, n)
    check_memory(
        f"the law of a sum of n = {format_integer(n)} copies (an FFT of {size} values)",
        _FFT_BYTES_PER_VALUE * size,
    )
    folded = np.zeros(size)
    np.add.at(folded, np.arange(probabilities.size) % size, probabilities)
    spectrum = np.fft.rfft(folded) ** (n if n < _LAW_LIMIT else float(n))
    residues = np.fft.irfft(spectrum, size)
    window = np.roll(residues, -(start % size))[: min(size, full - start)]
    return start, np.asarray(window)


def _log_chernoff_binomial(n: int, p: int, k: int) -> float:
    r"""Upper bound on :math:`\log P(B \le k)`, :math:`B \sim \operatorname{Bin}(n, 1 - 1/p)`.

    Chernoff: :math:`P(B \le k) \le e^{-n\,\mathrm{KL}(k/n \,\|\, q)}` for
    :math:`k < nq`, :math:`q = 1 - 1/p` (0 otherwise: no bound).  The
    probability falls with ``n`` at fixed ``k``, so ``n`` beyond
    :math:`10^{300}` is replaced by :math:`10^{300}` (still a bound).
    """
    trials = float(min(n, 10**300))
    if k < 0:
        return -math.inf
    fraction, log_p = k / trials, math.log(p)
    log_q = math.log1p(-1.0 / p)
    if fraction >= math.exp(log_q):
        return 0.0
    divergence = (1.0 - fraction) * (math.log1p(-fraction) + log_p)
    if fraction > 0.0:
        divergence += fraction * (math.log(fraction) - log_q)
    return -trials * divergence


def _log_lower_tail(law: FloatArray, n: int, k: int) -> float:
    r"""Upper bound on :math:`\log P(V \le k)` from the first two moments of the law.

    For :math:`X \ge 0` and :math:`\lambda > 0`, :math:`e^{-x} \le 1 - x + x^2/2`
    (:math:`x \ge 0`) and :math:`1 + y \le e^y` give
    :math:`\mathbb E e^{-\lambda X} \le e^{-\lambda\mu + \lambda^2 s/2}`
    (:math:`\mu = \mathbb E X`, :math:`s = \mathbb E X^2`); Markov's inequality
    for :math:`e^{-\lambda V}` at :math:`\lambda = t/(ns)` then yields
    :math:`P(V \le n\mu - t) \le e^{-t^2/(2ns)}`.  The moments are taken
    :data:`_MOMENT_SLACK` (relative) against the bound, far more than their
    float64 error.
    """
    support = np.arange(law.size, dtype=np.float64)
    mean = float(np.dot(support, law)) * (1.0 - _MOMENT_SLACK)
    second = float(np.dot(support * support, law)) * (1.0 + _MOMENT_SLACK)
    gap = float(n) * mean - k
    if gap <= 0.0 or second <= 0.0:
        return 0.0
    return -gap * gap / (2.0 * float(n) * second)


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


def _feasibility_status(
    *, d: ArrayLike | None = None, kappa: ArrayLike = 1.0, embeddings: str = "gaussian", **_: Any
) -> LawStatus:
    """:func:`feasibility_probability`'s status: that of the Crofton law's 50% point."""
    return cost_model(embeddings).capacity_status(d, kappa)


@with_status(_feasibility_status, warn=True)
def feasibility_probability(
    d: ArrayLike,
    p: ArrayLike,
    *,
    n: ArrayLike | None = None,
    kappa: ArrayLike = 1.0,
    dps: int | None = None,
    embeddings: str = "gaussian",
) -> Any:
    r"""Probability that ``n`` associations with ``p`` outputs each can all be recalled (decoupled).

    .. math::

        P(\text{feasible}) = 2\,\big[P(V = D-1) + P(V = D-3) + \dots\big],
        \qquad V = \sum_{\mu=1}^{n} |A_\mu|, \quad D = d^2,

    with :math:`|A_\mu|` iid from :func:`lamcap.active_set_law` (docs/theory/cone.md,
    fact 2).  An identity for the Gaussian model at full rank, a model of the decoupled
    problem (status below).

    Status: model with measured error. The Crofton formula is an identity for a uniformly
    random :math:`d^2`-dimensional subspace; applied to the *decoupled* problem it assumes that
    the range of the score map is such a subspace (Gaussian equivalence, not derived;
    docs/theory/crofton.md).  Measured error: the 50% point (:func:`lamcap.critical_p`) lies
    within 1.4% of every certified decoupled transition with Gaussian embeddings
    (docs/measurements/capacity.md); the width of the curve has no separate measured error.
    The *original* problem stores a few percent more and is not described
    (docs/measurements/op_vs_dp.md).  For :math:`\kappa < 1` a heuristic (see ``kappa``).

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
    embeddings : str
        The cost model (:data:`lamcap.theory.COST_MODELS`, default ``'gaussian'``).  Another
        model enters as the scaled Crofton curve: the formula above with
        :math:`D = d^2\,\mathbb{E}_{\mathrm{Gauss}}[C_p]/\mathbb{E}[C_p]`
        (``CostModel.budget_scale``; non-integer :math:`D` as for ``kappa``), so its centre is
        where :math:`n\,\mathbb{E}[C_p] = d^2` and its relative width the Gaussian one.
        ``'sphere'``: unit-norm outputs (full rank, ``d >= 4``), model with measured error
        (centre) stated on docs/theory/unit-norm.md; width not measured.

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
    absolute error below about 3e-13.  Values that are 0 or 1 to double
    precision are returned without the law or the FFT, so that any size works
    (``p = 10**100``): exactly 1 when :math:`\lceil D\rceil - 1 \ge n(p-1)`
    (every value of :math:`V` lies below :math:`D`), exactly 0.0 when a
    Chernoff bound on the associations with :math:`|A_\mu| \ge 1`
    (:math:`P(|A| = 0) = 1/p`) or a lower-tail bound from the first two
    moments of the law puts the probability below :math:`2^{-1075}` (the
    proofs: ``_decided`` and ``_log_lower_tail``).  Otherwise ``p`` must be
    below :math:`2^{63}`, and an FFT window that would not fit in the
    available memory raises ``ValueError`` naming the sizes and the bytes.  Laws are cached per process; the first
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
    >>> round(float(feasibility_probability(12, 42, embeddings='sphere')), 2)
    0.52
    """
    if check_dps(dps) is not None:
        msg = (
            f"feasibility_probability has no dps route (got dps={plain(dps)}): the law of "
            "|A| is a float64 inversion interpolated in p (probability error below 1e-8)"
        )
        raise ValueError(msg)

    model = cost_model(embeddings)
    outputs = check_integer_array("p", p, minimum=2)
    associations = outputs if n is None else check_integer_array("n", n, minimum=1)
    dimensions = model.check_dimensions(d, kappa, "feasibility_probability")
    outputs_b, associations_b, width_b, dimensions_b = broadcast(
        outputs,
        associations,
        full_rank_width(d, kappa),
        dimensions,
        names=("p", "n", "d and kappa", "d"),
    )
    width_b = width_b * model.budget_scale(outputs_b, dimensions_b)
    result = np.empty(outputs_b.shape)
    for q in np.unique(outputs_b):
        rows = outputs_b == q
        law: FloatArray | None = None
        for count in np.unique(associations_b[rows]):
            selected = np.flatnonzero(rows & (associations_b == count))
            outputs_q, count_n = int(q), int(count)
            open_ = []
            for i in selected:  # decided without the law of |A| (proofs in _decided)
                known = _decided(count_n, outputs_q, float(width_b.flat[i]))
                result.flat[i] = math.nan if known is None else known
                if known is None:
                    open_.append(i)
            if not open_:
                continue
            if law is None:
                law = _checked_law(outputs_q, count_n, float(width_b.flat[open_[0]]))
            last = {i: math.ceil(float(width_b.flat[i])) - 1 for i in open_}
            for i in list(open_):
                if _LOG_2 + _log_lower_tail(law, count_n, last[i]) < _LOG_ROUNDS_TO_ZERO:
                    result.flat[i] = 0.0
                    open_.remove(i)
            if not open_:
                continue
            size, _, _ = _window_plan(law, count_n)
            check_memory(
                f"feasibility_probability with p = {format_integer(outputs_q)}, "
                f"n = {format_integer(count_n)} and d^2 = {float(width_b.flat[open_[0]]):g} "
                f"(an FFT of {size} values of V)",
                _FFT_BYTES_PER_VALUE * size,
            )
            start, values = sum_law_window(law, count_n)
            for i in open_:
                result.flat[i] = _feasibility_one(start, values, float(width_b.flat[i]))
    return float_result(result)


def _decided(n: int, p: int, dimension: float) -> float | None:
    r"""1.0 or 0.0 when the probability is that to double precision, else None.

    With :math:`k = \lceil D \rceil - 1` (the largest :math:`V` counted at
    dimension :math:`D`, also for a non-integer :math:`D` of ``kappa < 1``):

    * :math:`k \ge n(p-1)`: every value of :math:`V` (:math:`|A| \le p - 1`)
      lies below :math:`D`, and the parity sum is exactly 1 (Gauss-Bonnet,
      :math:`\sum_k (-1)^k v_k = 0`, makes each parity class weigh 1/2);
    * :math:`2\,P(\operatorname{Bin}(n, 1 - 1/p) \le k) < 2^{-1075}`: the
      result is at most :math:`2P(V \le k)` and :math:`V` is at least the
      number of associations with :math:`|A_\mu| \ge 1`, binomial with
      :math:`P(|A| = 0) = 1/p` (the target already scores highest), so the
      probability is below half the smallest subnormal and 0.0 is its
      correctly rounded value (:func:`_log_chernoff_binomial`).
    """
    if not math.isfinite(dimension):
        return 1.0
    last = math.ceil(dimension) - 1
    if last >= n * (p - 1):
        return 1.0
    if _LOG_2 + _log_chernoff_binomial(n, p, last) < _LOG_ROUNDS_TO_ZERO:
        return 0.0
    return None


def _checked_law(p: int, n: int, dimension: float) -> FloatArray:
    """The law of |A| at ``p``, or ValueError when p is beyond the int64 range of its inversion."""
    if p >= _LAW_LIMIT:
        msg = (
            f"p must be an integer in [2, 2**63 - 1] for feasibility_probability where the "
            f"probability is neither 0 nor 1 to double precision (the law of |A| is computed "
            f"in int64), got p = {format_integer(p)} with n = {format_integer(n)} and "
            f"d^2 = {dimension:g}"
        )
        raise ValueError(msg)
    return active_set_law_at(p)

r"""Feasibility-first stage of the certified full-rank solver: any ``W`` that recalls everything.

The max-margin stages of :mod:`lamcap.solvers._cutting_plane` converge the
max-margin problem on a working set before a full pass may certify a ``W``.
Recall of every association (docs/theory/index.md; arXiv:2605.10795),

.. math::

    (u_t - u_\rho)^\top W e_\mu > 0
    \qquad \forall i = (\mu, \rho),\ \rho \ne t(\mu),

needs less: any ``W`` in the open cone.  This stage looks for one first and
hands over to the max-margin stages when it stalls, so certification and
infeasible verdicts are unchanged (the verdict is still decided by
:func:`~lamcap.solvers.build_result` on all constraints).

Algorithm
---------
1. **Working set.**  The solver's first score pass (Hebbian
   :math:`W_H = \sum_\mu u_{t(\mu)} e_\mu^\top`) gives each association's
   lowest constraints; they form a working set :math:`S` in the solver's
   normalised units, :math:`\ell_i(W) = \hat a_i^\top W \hat e_\mu`,
   :math:`\hat a_i = (u_t - u_\rho)/\sqrt{\|u_t\|^2 + \|u_\rho\|^2}`,
   :math:`\hat e_\mu = e_\mu/\|e_\mu\|` (the normalised margin times
   :math:`\|W\|_F`).
2. **Smooth surrogate on the working set.**  L-BFGS minimises the softplus /
   log-sum-exp margin loss (the cross-entropy of each target against its
   working-set competitors only)

   .. math::

       L(W) = \frac1n \sum_\mu \log\Big(1 + \sum_{i \in S_\mu} e^{-\ell_i(W)}\Big),

   from :math:`W_H` scaled to mean :math:`|\ell_i| = 1`, until every
   working-set level is positive (:func:`softmin_loss`, numba: one
   :math:`O(|S| d)` sweep plus two :math:`n \times d \times d` products per
   evaluation, where the full cross-entropy costs :math:`O(npd)`).  The
   line search is Armijo backtracking from the unit step, and the curvature
   pairs are kept when the working set grows (:class:`_Memory`).  The whole
   loop is compiled (:func:`_lbfgs_iterations`) and run in slices of about
   10 ms between which the deadline is checked: at d = 32 the Python loop
   around the compiled loss had cost 15% of the stage's time.
3. **Score pass** (:func:`~lamcap.solvers._constraints.score_pass`, the
   solver's one full pass, one sweep over all :math:`np`
   scores of :meth:`~lamcap.problems.Instance.scored_blocks`, the expensive
   part): if the minimum normalised margin exceeds :math:`10^{-9}` the
   stage is done; otherwise up to ``cuts`` constraints per association with
   level below ``level`` times the working set's mean level join :math:`S`
   (near-violated ones too: they are the next pass's violations) and step 2
   resumes from the current ``W``.
4. **Hand-over.**  The stage stops with its best ``W`` when L-BFGS does not
   separate the working set (``inner_iterations`` iterations, or the loss
   stalls at a positive value, as it does on an infeasible working set),
   when the minimum margin has not grown for ``patience`` passes, after
   ``max_passes`` passes, or at the deadline.  The solver then runs its
   max-margin stages exactly as without this stage.

The stage cannot certify anything itself: its ``W`` goes to
:func:`~lamcap.solvers.build_result`, which re-verifies it on all
constraints; infeasibility is only ever proven by the exact stage's
certificate.

Measured on instances near :math:`0.9` and :math:`0.97\,p_c`
(``benchmarks/bench_feasibility.py``, docs/benchmarks.md): L-BFGS on the
working set needed 1.4-12x fewer evaluations than Adam at learning rates
10, 3 and 1 (d = 32, 0.97 p_c); a least-squares start
:math:`(U^\top U)^{-1} W_H (E^\top E)^{-1}` saved nothing over :math:`W_H`;
L-BFGS on the full cross-entropy needs 16-21 full passes at
:math:`0.9\,p_c` (Adam 22-42), the working set 4 including the verifying
one.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

from lamcap.problems import Instance
from lamcap.solvers._certificates import FEASIBILITY_TOLERANCE
from lamcap.solvers._constraints import LossRows, ScorePass, WorkingSet, score_pass


def first_cuts(p: int) -> int:
    r"""Constraints per association the solver's first pass keeps when this stage runs.

    :math:`\min(p - 1, \lceil 8 \log p\rceil)` (41 at p = 164, 50 at 508, 60
    at 1758): the stage's first working set.  With the solver's usual 8 per
    association, the first L-BFGS solve overfits them (at d = 64, 0.9 p_c:
    73 000 violated constraints after it, 9 600 under :math:`W_H`); measured at
    d = 32 and 64, 0.9 p_c, 40-64 per association halve the evaluations (39
    to 20) and save one score pass, and more than that only makes each
    evaluation dearer.

    Examples
    --------
    >>> first_cuts(164), first_cuts(1758), first_cuts(3)
    (41, 60, 2)
    """
    return min(p - 1, math.ceil(8.0 * math.log(p)))


@dataclass(frozen=True)
class FeasibilityOptions:
    """Tuning of :func:`run_feasibility_stage` (defaults are what ``solve`` uses).

    Attributes
    ----------
    cuts : constraints added per association and pass (those below level 0).
    inner_iterations : L-BFGS iterations per working set before the stage
        counts the working set as not separable and stops.
    history : L-BFGS memory (pairs of vectors).
    max_passes : score passes of the stage, the first one included.
    patience : passes without a larger minimum normalised margin before the stage stops.
    """

    cuts: int = 16
    inner_iterations: int = 300
    history: int = 10
    max_passes: int = 30
    patience: int = 4
    level: float = 0.5


@dataclass
class FeasibilityOutcome:
    """What the stage hands back: its best weights, their margins and counters (into ``details``)."""

    weights: NDArray[np.float64]
    min_margin: float
    raw_lowest: float = math.nan
    passes: int = 1
    evaluations: int = 0
    seconds: float = 0.0
    stopped: str = "max_passes"
    working_set: int = 0
    first: ScorePass | None = None

    @property
    def found(self) -> bool:
        """Whether ``weights`` passed the stage's own full pass (``build_result`` re-checks)."""
        return self.min_margin > FEASIBILITY_TOLERANCE

    def details(self) -> dict[str, object]:
        """The counters under ``feasibility_*`` keys."""
        return {
            "feasibility_stopped": self.stopped,
            "feasibility_passes": self.passes,
            "feasibility_evaluations": self.evaluations,
            "feasibility_seconds": self.seconds,
            "feasibility_working_set": self.working_set,
        }


_LOG2E = 1.4426950408889634
_LN2_HIGH = 0.6931471803691238  # ln 2 to 32 bits: whole * _LN2_HIGH is exact for |whole| < 2^21
_LN2_LOW = 1.9082149292705877e-10  # ln 2 - _LN2_HIGH
_ROUNDER = 6755399441055744.0  # 1.5 * 2^52: x + _ROUNDER holds round(x) in its low bits
_ROUNDER_BITS = 0x4338000000000000  # the bits of _ROUNDER
_EXP_FLOOR = -708.0  # e^-708 is a normal number (2^-1022 < e^-708)


@numba.njit(cache=True, nogil=True)
def exp_nonpositive(values: NDArray[np.float64], powers: NDArray[np.float64], count: int) -> None:
    r"""``values[:count] = exp(values[:count])`` for arguments :math:`\le 0`, four at a time.

    .. math::

        e^x = 2^k e^r, \qquad k = \operatorname{round}(x \log_2 e), \qquad
        r = x - k \ln 2 \in [-\tfrac12 \ln 2, \tfrac12 \ln 2],

    :math:`e^r` by its Taylor polynomial of degree 13 (truncation error
    below :math:`0.35^{14}/14! < 5 \cdot 10^{-18}`, relative), :math:`k \ln 2`
    subtracted in two parts (Cody and Waite), :math:`2^k` written into the
    exponent bits of ``powers`` (scratch, at least ``count`` long): within
    about one unit in the last place of ``math.exp``.  Arguments below
    :math:`-708` give :math:`e^{-708} \approx 3 \cdot 10^{-308}` instead of
    something smaller (:func:`softmin_loss` adds them to a sum :math:`\ge 1`);
    NaN stays NaN.  ``math.exp`` is a library call per value; these loops
    have neither calls nor branches, so the compiler vectorises them
    (measured: 1.7 instead of 6 ns per value, a third of
    :func:`softmin_loss` at d = 32).

    Examples
    --------
    >>> values = np.array([0.0, -1.0, -30.5, -800.0])
    >>> exp_nonpositive(values, np.empty(4), 4)
    >>> bool(np.allclose(values[:3], np.exp([0.0, -1.0, -30.5]), rtol=4e-16, atol=0.0))
    True
    >>> bool(0.0 < values[3] < 1e-307)
    True
    """
    exponents = powers.view(np.int64)
    for i in range(count):
        x = values[i]
        if x < _EXP_FLOOR:  # noqa: PLR1730 (false for NaN, which stays NaN; max() is a call)
            x = _EXP_FLOOR
        shifted = x * _LOG2E + _ROUNDER
        whole = shifted - _ROUNDER
        r = (x - whole * _LN2_HIGH) - whole * _LN2_LOW
        polynomial = 1.0 / 6227020800.0  # 1/13!
        polynomial = polynomial * r + 2.08767569878681e-09  # 1/12!
        polynomial = polynomial * r + 2.505210838544172e-08  # 1/11!
        polynomial = polynomial * r + 2.755731922398589e-07  # 1/10!
        polynomial = polynomial * r + 2.7557319223985893e-06  # 1/9!
        polynomial = polynomial * r + 2.48015873015873e-05  # 1/8!
        polynomial = polynomial * r + 0.0001984126984126984  # 1/7!
        polynomial = polynomial * r + 0.001388888888888889  # 1/6!
        polynomial = polynomial * r + 0.008333333333333333  # 1/5!
        polynomial = polynomial * r + 0.041666666666666664  # 1/4!
        polynomial = polynomial * r + 0.16666666666666666  # 1/3!
        polynomial = polynomial * r + 0.5  # 1/2!
        polynomial = polynomial * r + 1.0  # 1/1!
        polynomial = polynomial * r + 1.0  # 1/0!
        values[i] = polynomial
        powers[i] = shifted
    for i in range(count):  # 2^k: exponent field k + 1023, mantissa zero
        exponents[i] = (exponents[i] - _ROUNDER_BITS + 1023) << 52
    for i in range(count):
        values[i] *= powers[i]


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _loss_levels(
    hidden: NDArray[np.float64],
    offsets: NDArray[np.int64],
    pool: NDArray[np.float64],
    target_rows: NDArray[np.int64],
    rows: NDArray[np.int64],
    scales: NDArray[np.float64],
    levels: NDArray[np.float64],
    shifts: NDArray[np.float64],
) -> float:
    r"""Levels :math:`\ell_i` into ``levels``, :math:`\max(0, -\min_{i \in S_\mu} \ell_i)` into ``shifts``.

    Arguments as :func:`softmin_loss`; returns :math:`\min_i \ell_i`
    (``inf`` for an empty working set).
    """
    n, d = hidden.shape
    lowest = math.inf
    for mu in range(n):
        target = target_rows[mu]
        target_score = 0.0
        for t in range(d):
            target_score += pool[target, t] * hidden[mu, t]
        shift = 0.0
        for i in range(offsets[mu], offsets[mu + 1]):
            score = 0.0
            row = rows[i]
            for t in range(d):
                score += pool[row, t] * hidden[mu, t]
            margin = scales[i] * (target_score - score)
            levels[i] = margin
            lowest = min(lowest, margin)
            shift = max(shift, -margin)
        shifts[mu] = shift
    return lowest


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _weighted_rows(
    weights: NDArray[np.float64],
    offsets: NDArray[np.int64],
    pool: NDArray[np.float64],
    target_rows: NDArray[np.int64],
    rows: NDArray[np.int64],
    gradient: NDArray[np.float64],
) -> None:
    r"""``gradient[mu]`` :math:`= \sum_{i \in S_\mu} w_i (o_{\rho_i} - o_{t(\mu)})`, rows of ``pool``."""
    d = gradient.shape[1]
    row_sum = np.empty(d)
    for mu in range(gradient.shape[0]):
        for t in range(d):
            row_sum[t] = 0.0
        target_weight = 0.0
        for i in range(offsets[mu], offsets[mu + 1]):
            weight = weights[i]
            target_weight += weight
            row = rows[i]
            for t in range(d):
                row_sum[t] += weight * pool[row, t]
        target = target_rows[mu]
        for t in range(d):
            gradient[mu, t] = row_sum[t] - target_weight * pool[target, t]


@numba.njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def softmin_loss(
    hidden: NDArray[np.float64],
    offsets: NDArray[np.int64],
    pool: NDArray[np.float64],
    target_rows: NDArray[np.int64],
    rows: NDArray[np.int64],
    scales: NDArray[np.float64],
    gradient: NDArray[np.float64],
    levels: NDArray[np.float64],
) -> tuple[float, float]:
    r"""Working-set softplus loss, its gradient in :math:`h_\mu` and the smallest margin.

    .. math::

        L = \sum_\mu \log\Big(1 + \sum_{i \in S_\mu} e^{-\ell_i}\Big), \quad
        \ell_i = (o_{t(\mu)} - o_{\rho_i})^\top h_\mu / \nu_i, \quad
        \frac{\partial L}{\partial h_\mu} = -\sum_{i \in S_\mu}
        \frac{e^{-\ell_i}/\nu_i}{1 + \sum_{j \in S_\mu} e^{-\ell_j}}\,
        (o_{t(\mu)} - o_{\rho_i}),

    evaluated as a shifted log-sum-exp (no overflow for any finite margin), its
    exponentials over the whole working set at once by :func:`exp_nonpositive`.
    The output rows :math:`o` are read from ``pool`` by index, so the original
    model's shared outputs are never copied per constraint:
    ``target_rows[mu]`` is association ``mu``'s target row, constraint ``i``
    (``offsets[mu] <= i < offsets[mu + 1]``) has competitor row ``rows[i]``
    and scale ``scales[i]`` (:math:`1/\nu_i`, :math:`\nu_i = \sqrt{\|u_t\|^2 + \|u_\rho\|^2}`).  ``hidden`` is ``(n, d)`` with rows
    :math:`h_\mu = W \hat e_\mu`; ``gradient`` ``(n, d)`` and ``levels``
    (the levels :math:`\ell_i`) are overwritten.  Returns ``(L, min_i ell_i)``
    (``inf`` for an empty working set).  Sums may be reassociated (SIMD):
    each margin is accurate to :math:`O(d\,\epsilon)` relative to
    :math:`\|o\|\|h_\mu\|/\nu_i`, as any float64 dot product.
    """
    n = hidden.shape[0]
    shifts = np.empty(n)
    lowest = _loss_levels(hidden, offsets, pool, target_rows, rows, scales, levels, shifts)
    terms = np.empty(levels.size)  # e^{-ell_i - shift_mu}, all at once (long SIMD loops)
    for mu in range(n):
        for i in range(offsets[mu], offsets[mu + 1]):
            terms[i] = -levels[i] - shifts[mu]
    exp_nonpositive(terms, np.empty(levels.size), levels.size)
    total = 0.0
    for mu in range(n):
        normaliser = math.exp(-shifts[mu])
        for i in range(offsets[mu], offsets[mu + 1]):
            normaliser += terms[i]
        total += shifts[mu] + math.log(normaliser)
        inverse = 1.0 / normaliser
        for i in range(offsets[mu], offsets[mu + 1]):
            terms[i] *= scales[i] * inverse
    _weighted_rows(terms, offsets, pool, target_rows, rows, gradient)
    return total, lowest


@numba.njit(cache=True, nogil=True, inline="always")
def lbfgs_direction(
    steps: NDArray[np.float64],
    changes: NDArray[np.float64],
    inverses: NDArray[np.float64],
    order: NDArray[np.int64],
    gradient: NDArray[np.float64],
) -> NDArray[np.float64]:
    r"""L-BFGS direction :math:`-H g` by the two-loop recursion.

    Pairs ``order[0], ..., order[-1]`` (oldest first) are rows of ``steps``
    (:math:`s_k`) and ``changes`` (:math:`y_k`) with
    ``inverses`` :math:`= 1/s_k^\top y_k > 0`; :math:`H_0 = \gamma I`,
    :math:`\gamma = s^\top y / y^\top y` of the newest pair (Nocedal &
    Wright, Numerical Optimization, 2nd ed., Algorithm 7.4).
    """
    count, length = order.shape[0], gradient.shape[0]
    vector = gradient.copy()
    coefficients = np.empty(count)
    for k in range(count - 1, -1, -1):
        row = order[k]
        coefficient = inverses[row] * np.dot(steps[row], vector)
        coefficients[k] = coefficient
        for t in range(length):
            vector[t] -= coefficient * changes[row, t]
    newest = order[count - 1]
    scale = 1.0 / (inverses[newest] * np.dot(changes[newest], changes[newest]))
    for t in range(length):
        vector[t] *= scale
    for k in range(count):
        row = order[k]
        coefficient = coefficients[k] - inverses[row] * np.dot(changes[row], vector)
        for t in range(length):
            vector[t] += coefficient * steps[row, t]
    for t in range(length):
        vector[t] = -vector[t]
    return vector


class _Memory:
    r"""L-BFGS curvature pairs :math:`(s_k, y_k)` in a ring buffer, kept across working sets.

    A pair enters only with :math:`s^\top y > 0` (the loss is convex, so this
    only drops rounding noise).  When the working set grows, the old pairs
    still describe most of the loss; keeping them saves the evaluations a
    cold restart spends relearning the scale (measured: 35-37 instead of
    46-47 evaluations per stage at d = 32, 0.9 p_c).  Only arrays: the
    compiled loop (:func:`_lbfgs_iterations`) stores pairs with
    :func:`_remember` and reads them with :func:`_descent_direction`.
    """

    def __init__(self, size: int, length: int) -> None:
        self.steps = np.empty((size, length))
        self.changes = np.empty((size, length))
        self.inverses = np.empty(size)
        self.ring = np.array([0, -1], dtype=np.int64)  # pairs held, newest row


_ARMIJO = 1e-4
_BACKTRACKS = 30
_STALL_WINDOW = 20
_STALL = 1e-3
# what _lbfgs_iterations reports in counts[_STATUS]
_RUNNING, _SEPARATED, _NOT_SEPARABLE = 0, 1, 2
_EVALUATIONS, _ITERATIONS, _STATUS = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def working_set_loss(
    unit_inputs: NDArray[np.float64],
    offsets: NDArray[np.int64],
    pool: NDArray[np.float64],
    target_rows: NDArray[np.int64],
    rows: NDArray[np.int64],
    scales: NDArray[np.float64],
    point: NDArray[np.float64],
    gradient: NDArray[np.float64],
    levels: NDArray[np.float64],
) -> tuple[float, float]:
    r"""The stage's loss :math:`L(W)/n` at ``point`` (``W`` flattened) and its gradient in ``W``.

    .. math::

        h_\mu = W \hat e_\mu, \qquad
        \nabla_W \frac{L}{n} = \frac1n \sum_\mu
        \frac{\partial L}{\partial h_\mu}\, \hat e_\mu^\top

    (:func:`softmin_loss` for :math:`L`; rows of ``unit_inputs`` are
    :math:`\hat e_\mu`).  ``gradient`` (``d * d``) and ``levels`` are
    overwritten; returns ``(L/n, min_i ell_i)``.

    Examples
    --------
    One association (d = 1), target row 1, one competitor row 0, scale 1: the
    level is :math:`\ell = (1 - 0) \cdot 2 = 2` at ``W = [[2]]``, so
    :math:`L = \log(1 + e^{-2})` and :math:`\partial L/\partial W = -1/(1 + e^2)`.

    >>> pool = np.array([[0.0], [1.0]])
    >>> offsets, target_rows, rows = np.array([0, 1]), np.array([1]), np.array([0])
    >>> gradient, levels = np.empty(1), np.empty(1)
    >>> loss, lowest = working_set_loss(np.ones((1, 1)), offsets, pool, target_rows, rows,
    ...                                 np.ones(1), np.array([2.0]), gradient, levels)
    >>> bool(np.isclose(loss, np.log1p(np.exp(-2.0)))), lowest
    (True, 2.0)
    >>> bool(np.isclose(gradient[0], -1.0 / (1.0 + np.exp(2.0))))
    True
    """
    n, d = unit_inputs.shape
    hidden = unit_inputs @ point.reshape((d, d)).T
    hidden_gradient = np.empty((n, d))
    loss, lowest = softmin_loss(
        hidden, offsets, pool, target_rows, rows, scales, hidden_gradient, levels
    )
    product = hidden_gradient.T @ unit_inputs  # (d, d), C order: W flattened by rows
    for i in range(d):
        for j in range(d):
            gradient[i * d + j] = product[i, j] / n
    return loss / n, lowest


@numba.njit(cache=True, nogil=True, inline="always")
def _remember(
    steps: NDArray[np.float64],
    changes: NDArray[np.float64],
    inverses: NDArray[np.float64],
    ring: NDArray[np.int64],
    step: NDArray[np.float64],
    change: NDArray[np.float64],
) -> None:
    r"""Store the pair ``(step, change)`` when :math:`s^\top y > 10^{-12}\|s\|\|y\|` (ring: count, newest)."""
    curvature = np.dot(step, change)
    if curvature > 1e-12 * math.sqrt(np.dot(step, step) * np.dot(change, change)):
        newest = (ring[1] + 1) % inverses.size
        for t in range(step.shape[0]):
            steps[newest, t] = step[t]
            changes[newest, t] = change[t]
        inverses[newest] = 1.0 / curvature
        ring[0] = min(ring[0] + 1, inverses.size)
        ring[1] = newest


@numba.njit(cache=True, nogil=True, inline="always")
def _descent_direction(
    steps: NDArray[np.float64],
    changes: NDArray[np.float64],
    inverses: NDArray[np.float64],
    ring: NDArray[np.int64],
    gradient: NDArray[np.float64],
) -> NDArray[np.float64]:
    """:math:`-H g` from the stored pairs; without pairs a steepest-descent step of length 1."""
    count, newest, size = ring[0], ring[1], inverses.size
    if count == 0:
        length = max(math.sqrt(np.dot(gradient, gradient)), 1e-300)
        steepest = np.empty_like(gradient)
        for t in range(gradient.shape[0]):
            steepest[t] = -gradient[t] / length
        return steepest
    order = np.empty(count, dtype=np.int64)
    for k in range(count):  # oldest first
        order[k] = (newest - (count - 1 - k)) % size
    return lbfgs_direction(steps, changes, inverses, order, gradient)


@numba.njit(cache=True, nogil=True)
def _lbfgs_iterations(
    unit_inputs: NDArray[np.float64],
    offsets: NDArray[np.int64],
    pool: NDArray[np.float64],
    target_rows: NDArray[np.int64],
    rows: NDArray[np.int64],
    scales: NDArray[np.float64],
    levels: NDArray[np.float64],
    point: NDArray[np.float64],
    gradient: NDArray[np.float64],
    losses: NDArray[np.float64],
    counts: NDArray[np.int64],
    steps: NDArray[np.float64],
    changes: NDArray[np.float64],
    inverses: NDArray[np.float64],
    ring: NDArray[np.int64],
    budget: int,
) -> None:
    r"""Up to ``budget`` L-BFGS iterations on the working-set loss, stopping at the first separating point.

    The state lives in the arrays so that the caller can check its deadline
    between calls: ``point`` and ``gradient`` (``W`` flattened and
    :math:`\nabla L/n` there; the first call, before any evaluation,
    evaluates them), ``losses`` (one per accepted iteration, for the stall
    test), ``counts`` = (evaluations, iterations, status) and the memory
    (``steps``, ``changes``, ``inverses``, ``ring`` = (count, newest), as
    :class:`_Memory`).  Each iteration: direction :math:`-Hg` (steepest
    descent when it is not a descent direction, the memory then cleared),
    Armijo backtracking from the unit step (``_BACKTRACKS`` halvings), the
    pair stored.  The status becomes ``_SEPARATED`` when an evaluated point
    has every level positive (``point`` is then that point and ``levels``
    its levels), ``_NOT_SEPARABLE`` when the loss fell by less than
    ``_STALL`` (relative) over ``_STALL_WINDOW`` iterations, when the line
    search fails or when ``losses`` is full; otherwise it stays ``_RUNNING``.
    A call with any other status does nothing.
    """
    length_of_history = losses.size
    if counts[_STATUS] != _RUNNING:
        return
    if counts[_ITERATIONS] == 0 and counts[_EVALUATIONS] == 0:
        loss, lowest = working_set_loss(
            unit_inputs, offsets, pool, target_rows, rows, scales, point, gradient, levels
        )
        counts[_EVALUATIONS] += 1
        losses[0] = loss
        if lowest > 0:
            counts[_STATUS] = _SEPARATED
            return
    size = gradient.shape[0]
    trial, trial_gradient = np.empty(size), np.empty(size)
    step, change = np.empty(size), np.empty(size)
    for _ in range(budget):
        done = counts[_ITERATIONS]
        loss = losses[done]
        if done + 1 >= length_of_history:
            counts[_STATUS] = _NOT_SEPARABLE
            return
        if done >= _STALL_WINDOW and losses[done - _STALL_WINDOW] - loss < _STALL * loss:
            counts[_STATUS] = _NOT_SEPARABLE  # converging to a positive loss
            return
        direction = _descent_direction(steps, changes, inverses, ring, gradient)
        slope = np.dot(gradient, direction)
        if not slope < 0:
            ring[0] = 0
            for t in range(size):
                direction[t] = -gradient[t]
            slope = -np.dot(gradient, gradient)
        length = 1.0
        accepted = False
        separated = False
        for _ in range(_BACKTRACKS):
            for t in range(size):
                trial[t] = point[t] + length * direction[t]
            trial_loss, lowest = working_set_loss(
                unit_inputs, offsets, pool, target_rows, rows, scales, trial, trial_gradient, levels
            )
            counts[_EVALUATIONS] += 1
            separated = lowest > 0
            if separated or trial_loss <= loss + _ARMIJO * length * slope:
                accepted = True
                break
            length *= 0.5
        if not accepted:
            counts[_STATUS] = _NOT_SEPARABLE
            return
        for t in range(size):
            step[t] = trial[t] - point[t]
            change[t] = trial_gradient[t] - gradient[t]
            point[t] = trial[t]
            gradient[t] = trial_gradient[t]
        _remember(steps, changes, inverses, ring, step, change)
        counts[_ITERATIONS] = done + 1
        losses[done + 1] = trial_loss
        if separated:
            counts[_STATUS] = _SEPARATED
            return


@dataclass
class _Separation:
    """What :func:`_separate` found: the separating ``W`` (or None), its mean level, evaluations."""

    weights: NDArray[np.float64] | None
    mean_level: float
    evaluations: int


def _separate(
    rows: LossRows,
    unit_inputs: NDArray[np.float64],
    weights: NDArray[np.float64],
    memory: _Memory,
    options: FeasibilityOptions,
    deadline: float,
) -> _Separation:
    """L-BFGS on the working-set loss from ``weights``: a ``W`` with all working-set margins > 0.

    Runs :func:`_lbfgs_iterations` in slices (one iteration first, then as
    many as take about a hundredth of a second) so that ``deadline`` is
    honoured to within a slice.  ``weights`` is None when
    ``options.inner_iterations`` iterations, a failed line search, a stall
    (the loss fell by less than 0.1% over 20 iterations: it converges to a
    positive value, as on a working set without a separating ``W``) or the
    deadline come first.
    """
    point = weights.ravel().copy()
    gradient = np.empty_like(point)
    levels = np.empty(rows.rows.size)
    losses = np.empty(options.inner_iterations + 1)
    counts = np.zeros(3, dtype=np.int64)
    budget = 1
    while counts[_STATUS] == _RUNNING and time.perf_counter() < deadline:
        tick = time.perf_counter()
        _lbfgs_iterations(
            unit_inputs,
            rows.offsets,
            rows.pool,
            rows.target_rows,
            rows.rows,
            rows.scales,
            levels,
            point,
            gradient,
            losses,
            counts,
            memory.steps,
            memory.changes,
            memory.inverses,
            memory.ring,
            budget,
        )
        elapsed = max(time.perf_counter() - tick, 1e-7)
        budget = int(min(options.inner_iterations, max(1, budget * 0.01 / elapsed)))
    evaluations = int(counts[_EVALUATIONS])
    if counts[_STATUS] != _SEPARATED:
        return _Separation(None, math.nan, evaluations)
    return _Separation(point.reshape(weights.shape), float(np.mean(levels)), evaluations)


def _unit_scaled(weights: NDArray[np.float64], first: ScorePass) -> NDArray[np.float64]:
    r"""``weights`` scaled to mean :math:`|\ell_i| = 1` on the first working set, the loss's unit.

    The first working set is the first pass's cuts, whose levels that pass
    already computed (``first.levels``, the same :math:`\ell_i` the loss
    evaluates, up to rounding), so no evaluation of the loss is spent on the
    scale.  Unscaled when the pass kept no constraint or its levels are not finite.

    Examples
    --------
    >>> levels = np.array([-1.0, 3.0])
    >>> first = ScorePass(np.array([0, 0]), np.array([1, 2]), levels, None, -0.1, -1.0, -1.0)
    >>> _unit_scaled(np.eye(2), first)
    array([[0.5, 0. ],
           [0. , 0.5]])
    """
    if first.levels.size == 0:
        return weights
    mean = float(np.mean(np.abs(first.levels)))
    return weights / mean if math.isfinite(mean) and mean > 0 else weights


def run_feasibility_stage(
    instance: Instance,
    initial: NDArray[np.float64],
    deadline: float,
    options: FeasibilityOptions | None = None,
) -> FeasibilityOutcome:
    r"""Look for any ``W`` recalling every association (algorithm in the module docstring).

    Starts with a score pass of ``initial`` (the solver's starting ``W``)
    keeping :func:`first_cuts` constraints per association, available as
    ``outcome.first`` (its
    :meth:`~lamcap.solvers._constraints.ScorePass.lowest_per_association` is
    the solver's own first pass).  Returns the best ``W`` seen by a full pass, its minimum
    normalised margin (:attr:`FeasibilityOutcome.found`:
    ``min_margin > 1e-9``) and the counters; ``stopped`` is ``"found"``,
    ``"not_separated"``, ``"no_progress"``, ``"max_passes"`` or
    ``"time_limit"``.  Never raises on a hard or infeasible instance; the
    caller re-verifies the weights.

    Examples
    --------
    >>> import math
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(16, 30, seed=0)
    >>> outcome = run_feasibility_stage(instance, hebbian_weights(instance), math.inf)
    >>> outcome.found, outcome.stopped
    (True, 'found')
    """
    opts = options or FeasibilityOptions()
    start = time.perf_counter()
    member = np.zeros((instance.n, instance.p), dtype=np.bool_)
    decoupled = instance.model == "decoupled"  # the original model's loss reads shared outputs
    cuts = score_pass(
        instance, initial, member, math.inf, first_cuts(instance.p), directions=decoupled
    )
    outcome = FeasibilityOutcome(initial.copy(), cuts.min_margin, cuts.raw_lowest, first=cuts)
    if outcome.found:
        outcome.stopped = "found"
        outcome.seconds = time.perf_counter() - start
        return outcome
    unit_inputs = instance.inputs / np.linalg.norm(instance.inputs, axis=1)[:, None]
    working = WorkingSet(instance.n, instance.d)
    weights = initial
    memory = _Memory(opts.history, instance.d * instance.d)
    stale = 0
    while True:
        member[cuts.mus, cuts.rhos] = True
        working.add(cuts.mus, cuts.rhos, cuts.directions)
        if time.perf_counter() >= deadline:
            outcome.stopped = "time_limit"
            break
        if outcome.passes >= opts.max_passes:
            outcome.stopped = "max_passes"
            break
        if outcome.passes == 1:
            weights = _unit_scaled(weights, cuts)
        separation = _separate(
            working.loss_rows(instance), unit_inputs, weights, memory, opts, deadline
        )
        outcome.evaluations += separation.evaluations
        if separation.weights is None:
            outcome.stopped = "time_limit" if time.perf_counter() >= deadline else "not_separated"
            break
        weights = separation.weights
        level = opts.level * separation.mean_level
        cuts = score_pass(instance, weights, member, level, opts.cuts, directions=decoupled)
        outcome.passes += 1
        stale = stale + 1 if cuts.min_margin <= outcome.min_margin else 0
        if stale == 0:  # NaN-safe, as _Progress.offer
            outcome.weights, outcome.min_margin = weights.copy(), cuts.min_margin
            outcome.raw_lowest = cuts.raw_lowest
        if cuts.min_margin > FEASIBILITY_TOLERANCE:
            outcome.stopped = "found"
            break
        if stale >= opts.patience:
            outcome.stopped = "no_progress"
            break
    outcome.working_set = working.size
    outcome.seconds = time.perf_counter() - start
    return outcome

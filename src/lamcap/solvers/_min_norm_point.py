r"""Wolfe's minimum-norm-point algorithm on rank-one constraint matrices.

The exact stage of the cutting-plane solver needs the point of smallest norm
in the convex hull of the working set's normalised constraint matrices
:math:`V_i = \hat a_i \hat e_{\mu_i}^\top \in \mathbb R^{d \times d}`,

.. math::

    x^* = \operatorname*{arg\,min}_{x \in \operatorname{conv}\{V_i\}} \|x\|_F .

If :math:`x^* \ne 0` it is the working set's max-margin direction
(:math:`\langle x^*, V_i\rangle \ge \|x^*\|^2` for every :math:`i`); if
:math:`x^* = 0` its convex coefficients are a Farkas vector.  Wolfe's algorithm
(P. Wolfe, Math. Programming 11, 1976) keeps a *corral*: affinely independent
points whose affine minimiser has positive coefficients.  A major cycle adds the
point :math:`\operatorname{arg\,min}_i \langle x, V_i\rangle`; minor cycles
step towards the affine minimiser of the corral and drop the points whose
weight reaches zero.  It terminates in finitely many steps, and the corral
never exceeds :math:`d^2 + 1` points.

Everything uses the rank-one structure, never the :math:`|S| \times d^2`
dense rows:

* :math:`\langle V_i, V_j\rangle = (\hat a_i \cdot \hat a_j)(\hat e_{\mu_i} \cdot \hat e_{\mu_j})`
  (:math:`O(d)` per Gram entry);
* all :math:`\langle x, V_i\rangle` at once from :math:`Z = \hat E X^\top`
  (:math:`O(n d^2 + |S| d)`);
* the affine minimiser from a Cholesky factor :math:`L L^\top = \mathbf 1
  \mathbf 1^\top + G_{CC}` of the corral (Wolfe's augmented Gram matrix, non
  singular exactly when the corral is affinely independent), updated in
  :math:`O(k^2)` when a point joins (a forward substitution) or leaves
  (Givens rotations).

Memory is the factor, :math:`k^2 \le (d^2 + 1)^2` numbers (134 MB at
:math:`d = 64`), against :math:`|S| d^2` for the dense rows that scipy's NNLS
needs.  The state is kept between calls, so the cutting-plane loop warm starts
every exact round from the previous corral, and the first one from the
dual-ascent multipliers (:meth:`CorralState.from_weights`: one LAPACK Cholesky
factorisation instead of :math:`k` appends, then minor cycles).  A major cycle
is bound by the memory traffic of its triangular solves; measured times against
scipy's NNLS are in docs/benchmarks.md ("Measured costs behind design choices").

Examples
--------
>>> import numpy as np
>>> directions = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
>>> owners = np.zeros(3, dtype=np.int64)
>>> inputs = np.array([[1.0, 0.0]])
>>> state = CorralState.empty(capacity=5)
>>> status = state.run(directions, owners, inputs, max_iterations=50)
>>> status, round(state.squared_norm, 12)
('zero', 0.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np
from numpy.typing import NDArray

STATUSES = ("optimal", "zero", "iterations", "capacity", "stalled")
"""Outcomes of :meth:`CorralState.run`, in the kernel's numbering."""

_OPTIMAL, _ZERO, _ITERATIONS, _CAPACITY, _STALLED = range(5)

OPTIMALITY_TOLERANCE = 1e-12
r"""Stop when :math:`\|x\|^2 - \min_i \langle x, V_i\rangle \le` this times :math:`\max_i \|V_i\|^2`."""

ZERO_TOLERANCE = 1e-22
r"""Call :math:`x` zero when :math:`\|x\|^2 \le` this times :math:`\max_i \|V_i\|^2` (:math:`\|x\| \lesssim 10^{-11}`)."""


@numba.njit(cache=True, inline="always")
def _gram_entry(
    directions: NDArray[np.float64],
    owners: NDArray[np.int64],
    inputs: NDArray[np.float64],
    i: int,
    j: int,
) -> float:
    r""":math:`\langle V_i, V_j\rangle = (\hat a_i\cdot\hat a_j)(\hat e_{\mu_i}\cdot\hat e_{\mu_j})`."""
    left = 0.0
    for t in range(directions.shape[1]):
        left += directions[i, t] * directions[j, t]
    right = 0.0
    for t in range(inputs.shape[1]):
        right += inputs[owners[i], t] * inputs[owners[j], t]
    return left * right


CHOLESKY_BLOCK = 2048
"""Block size of :func:`cholesky_in_place`."""


def cholesky_in_place(matrix: NDArray[np.float64], block: int = CHOLESKY_BLOCK) -> None:
    r"""Overwrite a symmetric positive definite ``matrix`` with its lower Cholesky factor.

    .. math::

        A = L L^\top, \qquad
        L_{11} = \operatorname{chol}(A_{11}),\quad
        L_{21} = A_{21} L_{11}^{-\top},\quad
        A_{22} \leftarrow A_{22} - L_{21} L_{21}^\top

    Right-looking and blocked: LAPACK's Cholesky on ``block``-sized diagonal
    blocks, one triangular solve per panel and the trailing update in
    column panels by matrix products (on and below the diagonal only), the
    :math:`n^3/3` flops of LAPACK's ``potrf`` in BLAS-3.  It exists because
    the threaded ``potrf`` of the OpenBLAS shipped with numpy and scipy
    (0.3.31) crashes with a segmentation fault at :math:`n = 16000` (a
    d = 128 corral), while its triangular solves and products do not.  Only
    the lower triangle of ``matrix`` is read; the strict upper triangle is
    set to zero.  Float64, backward stable like any Cholesky factorisation
    (error of order :math:`n\,2^{-53}\|A\|`).  Raises
    ``numpy.linalg.LinAlgError`` when ``matrix`` is not positive definite
    (the contents are then undefined).

    Examples
    --------
    >>> a = np.array([[4.0, 2.0, 0.0], [2.0, 5.0, 1.0], [0.0, 1.0, 2.0]])
    >>> cholesky_in_place(a, block=2)
    >>> bool(np.allclose(a @ a.T, [[4, 2, 0], [2, 5, 1], [0, 1, 2]]))
    True
    """
    from scipy.linalg import solve_triangular  # noqa: PLC0415 - scipy only when factoring

    size = matrix.shape[0]
    for start in range(0, size, block):
        stop = min(size, start + block)
        diagonal = np.linalg.cholesky(matrix[start:stop, start:stop])
        matrix[start:stop, start:stop] = diagonal
        matrix[start:stop, stop:] = 0.0
        if stop == size:
            break
        panel = solve_triangular(
            diagonal, matrix[stop:, start:stop].T, lower=True, check_finite=False
        ).T
        matrix[stop:, start:stop] = panel
        for left in range(stop, size, block):
            right = min(size, left + block)
            matrix[left:, left:right] -= panel[left - stop :] @ panel[left - stop : right - stop].T


@numba.njit(cache=True, inline="always")
def _append(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    column: NDArray[np.float64],
    diagonal: float,
) -> bool:
    r"""Extend the factor by one row (and :math:`z = L^{-1}\mathbf 1` by one entry).

    False when the new point is affinely dependent on the corral.
    """
    new = rows[k]
    total = 0.0
    for i in range(k):
        row = rows[i]
        value = column[i]
        for t in range(i):
            value -= factor[row, t] * factor[new, t]
        value /= factor[row, i]
        factor[new, i] = value
        total += value * value
    remainder = diagonal - total
    if remainder <= 1e-13 * diagonal:
        for t in range(k):
            factor[new, t] = 0.0  # free rows are zero
        return False
    factor[new, k] = math.sqrt(remainder)
    _forward_rows(factor, rows, solved, k, k + 1)
    return True


FORWARD_BLOCK = 128
"""Row block of :func:`_forward_solve_many` (its off-diagonal part is one BLAS product)."""


@numba.njit(cache=True, inline="always")
def _forward_solve_many(
    factor: NDArray[np.float64], rows: NDArray[np.int64], k: int, right: NDArray[np.float64]
) -> None:
    r"""Overwrite ``right`` (``k x B``, C-contiguous) with :math:`L^{-1}` ``right``, :math:`L_{i,:}` = ``factor[rows[i], :k]``.

    Blocked by rows: block :math:`I` first subtracts :math:`L_{I,<I} X_{<I}`
    (one matrix product, BLAS through ``np.dot``: the :math:`k^2 B/2`
    multiply-adds that dominate), then substitutes within the block.  The
    same arithmetic as a row-by-row substitution, in another order.
    """
    count = right.shape[1]
    for start in range(0, k, FORWARD_BLOCK):
        stop = min(k, start + FORWARD_BLOCK)
        if start > 0:
            left = np.empty((stop - start, start))
            for i in range(start, stop):
                for t in range(start):
                    left[i - start, t] = factor[rows[i], t]
            product = np.dot(left, np.ascontiguousarray(right[:start]))
            for i in range(start, stop):
                for b in range(count):
                    right[i, b] -= product[i - start, b]
        for i in range(start, stop):
            row = rows[i]
            for t in range(start, i):
                entry = factor[row, t]
                for b in range(count):
                    right[i, b] -= entry * right[t, b]
            scale = 1.0 / factor[row, i]
            for b in range(count):
                right[i, b] *= scale


@numba.njit(cache=True, inline="always")
def _append_many(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    cross: NDArray[np.float64],
    among: NDArray[np.float64],
    accepted: NDArray[np.int64],
) -> int:
    r"""Extend the factor by up to ``B`` rows at once; return how many were accepted.

    ``cross[b, c]`` is :math:`1 + \langle V_b, V_{corral[c]}\rangle` and
    ``among[b, c]`` is :math:`1 + \langle V_b, V_c\rangle` for the
    candidates.  The forward substitutions :math:`L x_b = \text{cross}_b` of
    all candidates share one pass over the factor (the pass is what costs:
    :math:`k^2/2` numbers read once instead of ``B`` times; blocked, in BLAS
    products, :func:`_forward_solve_many`); each candidate
    then gets its entries against the candidates accepted before it and is
    skipped when it is affinely dependent on the corral so far (the test of
    :func:`_append`).  ``accepted[:count]`` receives the indices ``b`` kept,
    in order; their rows are ``k .. k + count - 1``.
    """
    count = cross.shape[0]
    solutions = np.ascontiguousarray(cross[:, :k].T)
    _forward_solve_many(factor, rows, k, solutions)
    size = k
    kept = 0
    for b in range(count):
        if size >= factor.shape[0]:
            break
        new = rows[size]
        total = 0.0
        for t in range(k):
            factor[new, t] = solutions[t, b]
            total += solutions[t, b] * solutions[t, b]
        for c in range(kept):
            index = k + c
            row = rows[index]
            value = among[b, accepted[c]]
            for t in range(index):
                value -= factor[row, t] * factor[new, t]
            value /= factor[row, index]
            factor[new, index] = value
            total += value * value
        remainder = among[b, b] - total
        if remainder <= 1e-13 * among[b, b]:  # dependent: clear the row (free rows are zero)
            for t in range(size):
                factor[new, t] = 0.0
            continue
        factor[new, size] = math.sqrt(remainder)
        accepted[kept] = b
        kept += 1
        size += 1
    _forward_rows(factor, rows, solved, k, size)
    return kept


@numba.njit(cache=True, inline="always")
def _candidates(
    levels: NDArray[np.float64], member: NDArray[np.bool_], below: float, best: int, limit: int
) -> NDArray[np.int64]:
    """Up to ``limit`` non-members with the lowest levels below ``below``, ``best`` first."""
    order = np.argsort(levels)
    chosen = np.empty(limit, dtype=np.int64)
    chosen[0] = best
    count = 1
    for position in range(order.shape[0]):
        if count >= limit:
            break
        index = order[position]
        if levels[index] >= below:
            break
        if index != best and not member[index]:
            chosen[count] = index
            count += 1
    return chosen[:count]


@numba.njit(cache=True, inline="always")
def _candidate_entries(
    directions: NDArray[np.float64],
    owners: NDArray[np.int64],
    inputs: NDArray[np.float64],
    chosen: NDArray[np.int64],
    corral: NDArray[np.int64],
    k: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""Entries of :math:`\mathbf 1\mathbf 1^\top + G` for the candidates: against the corral, and among themselves.

    ``cross[b, c]`` :math:`= 1 + \langle V_{chosen[b]}, V_{corral[c]}\rangle`
    for the first ``k`` corral members, ``among[b, c]`` :math:`= 1 +
    \langle V_{chosen[b]}, V_{chosen[c]}\rangle` (the arguments of
    :func:`_append_many`).
    """
    count = chosen.shape[0]
    cross = np.empty((count, k))
    among = np.empty((count, count))
    for b in range(count):
        for c in range(k):
            cross[b, c] = 1.0 + _gram_entry(directions, owners, inputs, chosen[b], corral[c])
        for c in range(count):
            among[b, c] = 1.0 + _gram_entry(directions, owners, inputs, chosen[b], chosen[c])
    return cross, among


@numba.njit(cache=True, inline="always")
def _forward_rows(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    lo: int,
    hi: int,
) -> None:
    r"""Rows ``lo..hi-1`` of the forward substitution :math:`L z = \mathbf 1`."""
    for i in range(lo, hi):
        row = rows[i]
        value = 1.0
        for t in range(i):
            value -= factor[row, t] * solved[t]
        solved[i] = value / factor[row, i]


# numpy's messages for empty reductions, as global constants: numba raises them
# without compiling any string formatting
_EMPTY_MAXIMUM = "zero-size array to reduction operation maximum which has no identity"
_EMPTY_ARGMIN = "attempt to get argmin of an empty sequence"


@numba.njit(cache=True, inline="always")
def _normalise(values: NDArray[np.float64], k: int) -> None:
    """``values[:k] /= sum(values[:k])``, the sum taken left to right (as ``np.sum``)."""
    total = 0.0
    for i in range(k):
        total += values[i]
    for i in range(k):
        values[i] /= total


@numba.njit(cache=True, inline="always")
def _largest_magnitude(values: NDArray[np.float64], k: int) -> float:
    """``np.max(np.abs(values[:k]))``: the first NaN if there is one, ValueError for ``k = 0``."""
    if k <= 0:
        raise ValueError(_EMPTY_MAXIMUM)
    largest = float(abs(values[0]))
    if math.isnan(largest):
        return largest
    for i in range(1, k):
        value = float(abs(values[i]))
        if math.isnan(value):
            return value
        if value > largest:  # noqa: PLR1730 (np.max's comparisons, NaN handled above)
            largest = value
    return largest


@numba.njit(cache=True, inline="always")
def _affine_minimiser(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    out: NDArray[np.float64],
) -> None:
    r"""Convex coefficients of the affine minimiser: :math:`L^\top w = z`, normalised to sum 1."""
    for i in range(k):
        out[i] = solved[i]
    for i in range(k - 1, -1, -1):
        row = rows[i]
        out[i] /= factor[row, i]
        for t in range(i):
            out[t] -= factor[row, t] * out[i]
    _normalise(out, k)


@numba.njit(cache=True)
def _delete(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    position: int,
    corral: NDArray[np.int64],
    weights: NDArray[np.float64],
) -> None:
    r"""Remove corral member ``position``: drop its row, re-triangularise by Givens rotations.

    Without row ``position`` the factor has, in each later row ``i``, one
    entry right of the diagonal; rotation ``c`` of columns ``(c, c + 1)``
    zeroes row ``c``'s, and row ``i`` applies rotations ``position .. i - 1``
    before it defines its own.  Rows are not moved: the row map ``rows``
    shifts, the freed storage row (zeroed) goes to the end, and only the
    rotated part of each later row, columns ``position .. i + 1``, is read
    and written: :math:`(k - i)^2/2` entries instead of :math:`(k - i)k`
    (at d = 96 the deleted member sits at 0.86 k in the median;
    docs/solvers-at-scale.md).  :math:`z = L^{-1}\mathbf 1` follows by the same rotations: the
    remaining rows satisfy :math:`L_{-}Q\,Q^\top z = \mathbf 1` with
    :math:`L_{-}Q = [L' \; 0]`, so :math:`z'` is the leading part of
    :math:`Q^\top z` (exact in exact arithmetic; :func:`_wolfe` re-substitutes
    :math:`z` after each major cycle so that rounding does not accumulate).
    """
    size = k - 1
    freed = rows[position]
    cosine_of = np.empty(max(size - position, 1))
    sine_of = np.empty(max(size - position, 1))
    carried_solved = solved[position]
    for i in range(position, size):
        row = rows[i + 1]
        carried = factor[row, position]
        for c in range(position, i):
            following = factor[row, c + 1]
            factor[row, c] = cosine_of[c - position] * carried + sine_of[c - position] * following
            carried = cosine_of[c - position] * following - sine_of[c - position] * carried
        right = factor[row, i + 1]
        cosine, sine = 1.0, 0.0
        if right != 0.0:
            length = math.hypot(carried, right)
            cosine, sine = carried / length, right / length
            carried = length
        cosine_of[i - position] = cosine
        sine_of[i - position] = sine
        factor[row, i] = carried
        factor[row, i + 1] = 0.0
        following = solved[i + 1]
        solved[i] = cosine * carried_solved + sine * following
        carried_solved = cosine * following - sine * carried_solved
        rows[i] = row
        corral[i] = corral[i + 1]
        weights[i] = weights[i + 1]
    for t in range(k):
        factor[freed, t] = 0.0
    rows[size] = freed


@numba.njit(cache=True, inline="always")
def _point(
    directions: NDArray[np.float64],
    owners: NDArray[np.int64],
    inputs: NDArray[np.float64],
    corral: NDArray[np.int64],
    weights: NDArray[np.float64],
    k: int,
) -> NDArray[np.float64]:
    r""":math:`X = \sum_{c} \lambda_c \hat a_c \hat e_{\mu_c}^\top` over the corral (one product)."""
    d, width = directions.shape[1], inputs.shape[1]
    left = np.empty((k, d))
    right = np.empty((k, width))
    for c in range(k):
        for t in range(d):
            left[c, t] = directions[corral[c], t]
        for t in range(width):
            right[c, t] = weights[c] * inputs[owners[corral[c]], t]
    point: NDArray[np.float64] = np.dot(left.T, right)
    return point


@numba.njit(cache=True)
def constraint_levels(
    directions: NDArray[np.float64],
    owners: NDArray[np.int64],
    inputs: NDArray[np.float64],
    point: NDArray[np.float64],
    out: NDArray[np.float64],
) -> None:
    r"""Levels of all constraints at ``X``: ``out[i]`` :math:`= \langle X, V_i\rangle = \hat a_i^\top X \hat e_{\mu_i}`.

    One product :math:`\hat E X^\top` (:math:`n d^2`) and one dot product per
    constraint (:math:`|S| d`); numba, float64.

    Parameters
    ----------
    directions : (K, d) rows :math:`\hat a_i`.
    owners : (K,) int64, the association :math:`\mu_i` of each row.
    inputs : (n, d) rows :math:`\hat e_\mu`.
    point : (d, d) C-contiguous, the matrix :math:`X`.
    out : (K,) float64, overwritten with the levels.

    Examples
    --------
    >>> import numpy as np
    >>> out = np.empty(1)
    >>> constraint_levels(np.ones((1, 2)), np.zeros(1, dtype=np.int64), np.eye(2)[:1],
    ...                   np.eye(2), out)
    >>> out.tolist()
    [1.0]
    """
    hidden = np.dot(inputs, point.T)  # row mu: X e_mu
    for i in range(directions.shape[0]):
        total = 0.0
        for t in range(directions.shape[1]):
            total += directions[i, t] * hidden[owners[i], t]
        out[i] = total


@numba.njit(cache=True, inline="always")
def _step_and_drop(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    corral: NDArray[np.int64],
    weights: NDArray[np.float64],
    affine: NDArray[np.float64],
    step: float,
    blocking: int,
) -> int:
    """One minor cycle's move: ``step`` toward the affine minimiser, then drop the points at zero weight.

    Member ``blocking`` is set to zero exactly; a point added in this major
    cycle that has not moved yet (weight exactly 0) stays while its affine
    weight is positive.  Returns the new corral size; the weights are
    renormalised to sum 1.
    """
    for i in range(k):
        weights[i] += step * (affine[i] - weights[i])
    weights[blocking] = 0.0
    floor = 1e-15 * _largest_magnitude(weights, k)
    for i in range(k - 1, -1, -1):
        if weights[i] <= floor and not (weights[i] == 0.0 and affine[i] > 0.0):
            _delete(factor, rows, solved, k, i, corral, weights)
            k -= 1
    _normalise(weights, k)
    return k


@numba.njit(cache=True)
def _minor_cycles(
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    corral: NDArray[np.int64],
    weights: NDArray[np.float64],
    affine: NDArray[np.float64],
    newest: int,
) -> tuple[int, bool]:
    """Move to the corral's affine minimiser, dropping points at zero weight.

    Returns the new size and whether it stalled: point ``newest`` (just
    added; -1 for none) would be dropped by a zero step (rounding: in exact
    arithmetic its affine weight is positive).  A stall leaves the corral as
    it is at that moment (a convex combination, ``newest`` at weight 0).
    """
    while True:
        _affine_minimiser(factor, rows, solved, k, affine)
        step = 1.0
        blocking = int(-1)  # noqa: UP018, RUF046 (numba: int64, not Literal[int](-1), two compiles)
        for i in range(k):
            if affine[i] <= 0.0:
                ratio = weights[i] / (weights[i] - affine[i])
                if ratio < step:
                    step = ratio
                    blocking = i
        if blocking < 0:
            for i in range(k):
                weights[i] = affine[i]
            return k, False
        if step == 0.0 and corral[blocking] == newest:
            return k, True
        k = _step_and_drop(factor, rows, solved, k, corral, weights, affine, step, blocking)


@numba.njit(cache=True, inline="always")
def _argmin(values: NDArray[np.float64]) -> int:
    """``np.argmin(values)`` (1-d): the first smallest entry, or the first NaN; ValueError if empty."""
    if values.shape[0] == 0:
        raise ValueError(_EMPTY_ARGMIN)
    smallest = values[0]
    if math.isnan(smallest):
        return 0
    best = 0
    for i in range(values.shape[0]):
        value = values[i]
        if math.isnan(value):
            return i
        if value < smallest:
            smallest = value
            best = i
    return best


@numba.njit(cache=True, inline="always")
def _squared_norm(matrix: NDArray[np.float64]) -> float:
    """``np.sum(matrix * matrix)`` of a C-contiguous matrix: the squares summed in memory order."""
    total = 0.0
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            total += matrix[i, j] * matrix[i, j]
    return total


@numba.njit(cache=True)
def _wolfe(
    directions: NDArray[np.float64],
    owners: NDArray[np.int64],
    inputs: NDArray[np.float64],
    corral: NDArray[np.int64],
    weights: NDArray[np.float64],
    factor: NDArray[np.float64],
    rows: NDArray[np.int64],
    solved: NDArray[np.float64],
    k: int,
    max_iterations: int,
    levels: NDArray[np.float64],
    settle: bool,
    batch: int,
    zero_tolerance: float,
    optimality_tolerance: float,
) -> tuple[int, int, int, float]:
    """Major cycles; return ``(status, corral size, iterations, squared norm)``.

    The tolerances are :data:`ZERO_TOLERANCE` and :data:`OPTIMALITY_TOLERANCE`,
    or 0 for a run that stops only when rounding stalls it
    (:meth:`CorralState.run` with ``exhaustive``).

    With ``settle`` the given corral and weights are first moved to their
    affine minimiser by minor cycles (a warm start from other weights).
    With ``batch > 1`` a major cycle adds, besides the most violated point,
    up to ``batch - 1`` further points below the optimality level
    (:func:`_append_many`: one pass over the factor for all of them); those
    whose affine weight is not positive leave again in the minor cycles
    (cheaply: they are the last rows).
    """
    count = directions.shape[0]
    norms2 = np.empty(count)
    for i in range(count):
        norms2[i] = _gram_entry(directions, owners, inputs, i, i)
    scale = _largest_magnitude(norms2, count)  # np.max: the norms are >= 0
    capacity = factor.shape[0]
    column = np.empty(capacity)
    affine = np.empty(capacity)
    if settle and k > 1:
        none = int(-1)  # noqa: UP018, RUF046 (numba: int64, not Literal[int](-1), two compiles)
        k, _ = _minor_cycles(factor, rows, solved, k, corral, weights, affine, none)
        _forward_rows(factor, rows, solved, 0, k)
    member = np.zeros(count, dtype=np.bool_)
    for c in range(k):
        member[corral[c]] = True
    squared = 0.0
    for iteration in range(max_iterations):
        if k == 0:
            best = _argmin(norms2)
            squared = np.inf
        else:
            point = _point(directions, owners, inputs, corral, weights, k)
            squared = _squared_norm(point)
            constraint_levels(directions, owners, inputs, point, levels)
            if squared <= zero_tolerance * scale:
                return _ZERO, k, iteration, squared
            best = _argmin(levels)
            if squared - levels[best] <= optimality_tolerance * scale:
                return _OPTIMAL, k, iteration, squared
        if member[best]:
            return _STALLED, k, iteration, squared
        if k == capacity:
            return _CAPACITY, k, iteration, squared
        if batch > 1 and k > 0:
            limit = min(batch, capacity - k)
            below = squared - optimality_tolerance * scale
            chosen = _candidates(levels, member, below, best, limit)
            cross, among = _candidate_entries(directions, owners, inputs, chosen, corral, k)
            accepted = np.empty(chosen.shape[0], dtype=np.int64)
            kept = _append_many(factor, rows, solved, k, cross, among, accepted)
            if kept == 0 or accepted[0] != 0:  # the most violated point is dependent
                return _STALLED, k, iteration, squared
            for j in range(kept):
                corral[k + j] = chosen[accepted[j]]
                weights[k + j] = 0.0
                member[chosen[accepted[j]]] = True
            k += kept
        else:
            for c in range(k):
                column[c] = 1.0 + _gram_entry(directions, owners, inputs, corral[c], best)
            if not _append(factor, rows, solved, k, column, 1.0 + norms2[best]):
                return _STALLED, k, iteration, squared
            corral[k] = best
            weights[k] = 0.0
            member[best] = True
            k += 1
            if k == 1:
                weights[0] = 1.0
                continue
        size, stalled = _minor_cycles(factor, rows, solved, k, corral, weights, affine, best)
        if stalled and batch > 1:
            # the extra points may have taken the most violated one's place:
            # drop those still unmoved, keep the most violated, and retry
            for position in range(size - 1, -1, -1):
                if weights[position] == 0.0 and corral[position] != best:
                    _delete(factor, rows, solved, size, position, corral, weights)
                    size -= 1
            size, stalled = _minor_cycles(factor, rows, solved, size, corral, weights, affine, best)
        if size < k:  # z followed the deletions by rotations: substitute it afresh
            _forward_rows(factor, rows, solved, 0, size)
        if stalled:
            return _STALLED, size, iteration, squared
        for i in range(count):
            member[i] = False
        for c in range(size):
            member[corral[c]] = True
        k = size
    return _ITERATIONS, k, max_iterations, squared


@dataclass
class CorralState:
    r"""Wolfe's corral (points as working-set positions, weights, Cholesky factor).

    Attributes
    ----------
    corral : int64 array, the first ``size`` entries are working-set positions.
    weights : float64 array, their convex coefficients.
    factor : (capacity, capacity) float64, storage of the lower Cholesky
        factor :math:`L` of :math:`\mathbf 1\mathbf 1^\top + G` on the
        corral: row ``i`` of :math:`L` is ``factor[rows[i], :i + 1]``
        (:meth:`cholesky_factor`); zero right of the diagonal and in the
        storage rows not in use.
    rows : int64 array, a permutation of the storage rows, the first
        ``size`` in corral order (a deletion re-maps rows instead of moving
        them).
    solved : float64 array, :math:`z = L^{-1}\mathbf 1` (kept up to date, so
        the affine minimiser costs one triangular solve).
    size : number of corral points.
    squared_norm : :math:`\|x\|^2` at the last check.
    iterations : major cycles run so far (all calls).
    """

    corral: NDArray[np.int64]
    weights: NDArray[np.float64]
    factor: NDArray[np.float64]
    rows: NDArray[np.int64]
    solved: NDArray[np.float64]
    size: int = 0
    squared_norm: float = math.inf
    iterations: int = 0
    settled: bool = True

    @classmethod
    def empty(cls, capacity: int) -> CorralState:
        """A state with room for ``capacity`` corral points (at most ``d**2 + 1`` are ever needed)."""
        return cls(
            np.zeros(capacity, dtype=np.int64),
            np.zeros(capacity),
            np.zeros((capacity, capacity)),
            np.arange(capacity, dtype=np.int64),
            np.zeros(capacity),
        )

    @classmethod
    def from_weights(
        cls,
        directions: NDArray[np.float64],
        owners: NDArray[np.int64],
        inputs: NDArray[np.float64],
        weights: NDArray[np.float64],
        capacity: int,
    ) -> CorralState:
        r"""Warm start: the ``capacity - 1`` heaviest points of ``weights`` as the corral.

        The factor is one blocked Cholesky factorisation
        (:func:`cholesky_in_place`) of :math:`\mathbf 1\mathbf 1^\top +
        (DD^\top)\circ(EE^\top)` on those points, built in the state's own
        storage (BLAS-3, instead of one :math:`O(k^2)` append per point; no
        second :math:`k \times k` array); the first :meth:`run` settles the
        corral to its affine minimiser by minor cycles.  The corral is ordered
        by decreasing weight: the points the settling drops are mostly the
        lightest, and dropping a point costs :math:`O(k(k - i))` at position
        :math:`i` (measured at d = 64: the 185 of 4097 points dropped sit in
        the last quarter, against anywhere when ordered by position).  Falls back to an
        empty corral when the points are numerically affinely dependent.
        """
        state = cls.empty(capacity)
        order = np.argsort(-weights, kind="stable")
        members = order[: min(int(np.count_nonzero(weights > 0)), capacity - 1)]
        if members.size < 2 or not state._factorise(directions, owners, inputs, members):
            return cls.empty(capacity)
        state.weights[: members.size] = weights[members] / weights[members].sum()
        state.settled = False
        return state

    def _factorise(
        self,
        directions: NDArray[np.float64],
        owners: NDArray[np.int64],
        inputs: NDArray[np.float64],
        members: NDArray[np.int64],
    ) -> bool:
        """Corral := ``members`` (in that order), factor by one blocked Cholesky in place.

        False (state unusable) when the points are numerically affinely dependent.
        """
        size = members.size
        rows = directions[members]
        units = inputs[owners[members]]
        factor = self.factor[:size, :size]  # built in place: one k x k array in memory
        for start in range(0, size, CHOLESKY_BLOCK):  # one block-sized temporary at a time
            stop = min(size, start + CHOLESKY_BLOCK)
            block = factor[start:stop]
            np.matmul(rows[start:stop], rows.T, out=block)
            block *= units[start:stop] @ units.T
            block += 1.0
        largest = float(np.max(np.diagonal(factor)))
        try:
            cholesky_in_place(factor)
        except np.linalg.LinAlgError:
            return False
        if float(np.min(np.diagonal(factor))) ** 2 <= 1e-13 * largest:
            return False
        self.factor[size:, :] = 0.0
        self.rows[:] = np.arange(self.rows.size)
        _forward_rows(self.factor, self.rows, self.solved, 0, size)
        self.corral[:size] = members
        self.size = size
        return True

    def sort_by_weight(
        self,
        directions: NDArray[np.float64],
        owners: NDArray[np.int64],
        inputs: NDArray[np.float64],
    ) -> bool:
        r"""Reorder the corral by decreasing weight and refactorise it (the same convex point).

        Dropping corral member :math:`i` of :math:`k` costs
        :math:`O(k^2 - i^2)` (the rows below it move up and are
        re-triangularised), so the points that are likely to leave, the light
        ones, should come last; after a round of major cycles the order is
        that of arrival instead.  One blocked Cholesky factorisation
        (:math:`k^3/3` flops, BLAS-3) in the factor's own storage.  False
        when the refactorisation fails (the state is then empty).
        """
        size = self.size
        order = np.argsort(-self.weights[:size], kind="stable")
        members = self.corral[:size][order].copy()
        weights = self.weights[:size][order].copy()
        if not self._factorise(directions, owners, inputs, members):
            self.size = 0
            self.factor[:] = 0.0
            self.settled = True
            return False
        self.weights[:size] = weights
        self.weights[size:] = 0.0
        return True

    def grow(self, capacity: int) -> None:
        """Enlarge the storage to ``capacity`` points, keeping the corral."""
        if capacity <= self.factor.shape[0]:
            return
        factor = np.zeros((capacity, capacity))
        for i, row in enumerate(self.rows[: self.size]):  # row by row: no third k x k array
            factor[i, : i + 1] = self.factor[row, : i + 1]
        corral = np.zeros(capacity, dtype=np.int64)
        corral[: self.size] = self.corral[: self.size]
        weights = np.zeros(capacity)
        weights[: self.size] = self.weights[: self.size]
        solved = np.zeros(capacity)
        solved[: self.size] = self.solved[: self.size]
        self.factor, self.corral, self.weights, self.solved = factor, corral, weights, solved
        self.rows = np.arange(capacity, dtype=np.int64)

    def cholesky_factor(self) -> NDArray[np.float64]:
        r"""The lower Cholesky factor :math:`L` of :math:`\mathbf 1\mathbf 1^\top + G` on the corral (a copy, ``size x size``)."""
        result: NDArray[np.float64] = self.factor[self.rows[: self.size], : self.size]
        return result

    def renumber(self, positions: NDArray[np.int64]) -> None:
        """Point the corral at new working-set positions (``positions[c]`` for member ``c``)."""
        self.corral[: self.size] = positions

    def run(
        self,
        directions: NDArray[np.float64],
        owners: NDArray[np.int64],
        inputs: NDArray[np.float64],
        *,
        max_iterations: int,
        batch: int = 1,
        exhaustive: bool = False,
    ) -> str:
        r"""Continue Wolfe's algorithm on the points :math:`V_i` for at most ``max_iterations`` major cycles.

        Parameters
        ----------
        directions : (K, d) rows :math:`\hat a_i`.
        owners : (K,) int64, association of each row.
        inputs : (n, d) rows :math:`\hat e_\mu`.
        max_iterations : major cycles allowed in this call.
        batch : points a major cycle may add at once (1: Wolfe's algorithm as
            published; more: the most violated point plus up to ``batch - 1``
            others below the optimality level, appended in one pass over the
            factor; the min-norm point reached is the same).
        exhaustive : stop only when rounding stalls the algorithm (or ``x`` is
            exactly 0 or has no point below it at all): zero and optimality
            tolerances 0 instead of :data:`ZERO_TOLERANCE` and
            :data:`OPTIMALITY_TOLERANCE`.  When the origin is in the points'
            hull the corral then fills to :math:`d^2 + 1` points with
            :math:`x` at the rounding floor, a support an exact proof can use
            (:func:`~lamcap.solvers.prove_infeasible`); with the tolerances a
            run may stop at :math:`\|x\| \approx 10^{-11}` a few points short.

        Returns
        -------
        str
            One of :data:`STATUSES`: ``"optimal"`` (``x`` is the min-norm point,
            non-zero), ``"zero"`` (``x = 0``: the weights are a Farkas vector),
            ``"iterations"`` (call again), ``"capacity"`` (grow, call again),
            ``"stalled"`` (rounding stopped progress).
        """
        levels = np.empty(directions.shape[0])
        status, self.size, iterations, self.squared_norm = _wolfe(
            np.ascontiguousarray(directions),
            np.ascontiguousarray(owners, dtype=np.int64),
            np.ascontiguousarray(inputs),
            self.corral,
            self.weights,
            self.factor,
            self.rows,
            self.solved,
            self.size,
            max_iterations,
            levels,
            not self.settled,
            batch,
            0.0 if exhaustive else ZERO_TOLERANCE,
            0.0 if exhaustive else OPTIMALITY_TOLERANCE,
        )
        self.settled = True
        self.iterations += iterations
        return STATUSES[status]

    def point(
        self,
        directions: NDArray[np.float64],
        owners: NDArray[np.int64],
        inputs: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        r"""The current :math:`X = \sum_c \lambda_c \hat a_c \hat e_{\mu_c}^\top`, shape ``(d, d)``."""
        members = self.corral[: self.size]
        left = directions[members]
        right = self.weights[: self.size, None] * inputs[owners[members]]
        result: NDArray[np.float64] = left.T @ right
        return result

    def convex_weights(self, count: int) -> NDArray[np.float64]:
        """The weights as a length-``count`` vector over the working set (zero off the corral)."""
        result = np.zeros(count)
        result[self.corral[: self.size]] = self.weights[: self.size]
        return result


def load_kernels() -> None:
    """Compile (or load from numba's cache) every kernel of the exact stage, and import scipy.linalg.

    Runs Wolfe's algorithm on three points whose minimum-norm point is the
    origin: a warm start (:meth:`CorralState.from_weights`, which factorises
    with :func:`cholesky_in_place`), one :meth:`CorralState.run` (numba
    compiles the whole kernel, every branch) and :func:`constraint_levels`.
    The cutting-plane solver calls it before it measures the memory
    available to the exact stage, so that the code loaded (tens of MB while
    numba compiles) is not taken from the memory the stage was promised.

    Examples
    --------
    >>> load_kernels()
    >>> bool(constraint_levels.signatures)
    True
    """
    directions = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    owners = np.zeros(3, dtype=np.int64)
    inputs = np.array([[1.0, 0.0]])
    state = CorralState.from_weights(directions, owners, inputs, np.ones(3), 4)
    state.run(directions, owners, inputs, max_iterations=4, batch=2)
    constraint_levels(directions, owners, inputs, np.eye(2), np.empty(3))

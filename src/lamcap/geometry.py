r"""The cone of correct recall and the Euclidean projection onto it.

For one association with ``p`` scores :math:`\lambda \in \mathbb{R}^p` and
target index :math:`t`, recall with margin :math:`m \ge 0` asks for

.. math::

    \lambda \in K_m = \{\lambda : \lambda_t \ge \lambda_\rho + m
    \ \ \forall \rho \ne t\},

a translate of the closed convex cone :math:`K = K_0`.  Projection onto
:math:`K` is a pool-adjacent-violators step: sort the competitors
:math:`y_1 \ge y_2 \ge \dots`; the :math:`k`-th is *active* iff
:math:`k\,y_k > g_t + y_1 + \dots + y_{k-1}`; the active set :math:`A` is a
prefix, and the target and every active competitor move to the common level
:math:`\ell^* = (g_t + \sum_{A} y)/(1 + |A|)`.  Since
:math:`K_m = K - m\,\mathbf{1}_{\rho \ne t}`, projecting onto :math:`K_m` is
projecting :math:`\lambda + m\,\mathbf{1}_{\rho\ne t}` onto :math:`K` and
shifting back.

This is the one geometric primitive that both :mod:`lamcap.theory` and
:mod:`lamcap.solvers` stand on (THEORY.md §2; arXiv:2605.10795).  The numba
kernel :func:`project_row_inplace` is exposed so that compiled solver loops can
call it without Python overhead.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._validation import check_finite_array, check_integer, check_real

__all__ = ["project_onto_cone", "project_row_inplace"]


@numba.njit(cache=True, nogil=True)
def project_row_inplace(
    row: NDArray[np.float64], target: int, margin: float, work: NDArray[np.float64]
) -> int:
    r"""Project one score vector onto :math:`K_m` in place; return :math:`|A|`.

    Parameters
    ----------
    row : float64 array of length p, overwritten by its projection.
    target : index of the target score.
    margin : the margin :math:`m \ge 0`.
    work : float64 scratch array of length at least p - 1.

    Notes
    -----
    The common level is the largest average of the target with any set of
    (shifted) competitors, :math:`\ell^* = \max_S (g_t + \sum_S y)/(1+|S|)`,
    attained at :math:`S = A = \{y > \ell^*\}`.  One pass keeps a running
    average and the competitors above it (a superset of :math:`A`, since the
    running average never exceeds :math:`\ell^*`); a few filtering passes on
    that short list (Michelot's fixed point) then find :math:`A`.  The cost is
    :math:`O(p)` plus a few passes over about :math:`2\log p` candidates,
    instead of a sort.
    """
    p = row.shape[0]
    level_sum = row[target]
    count = 0
    level = level_sum
    for rho in range(p):
        if rho == target:
            continue
        y = row[rho] + margin
        if y > level:
            work[count] = y
            count += 1
            level_sum += y
            level = level_sum / (count + 1)
    while True:  # drop candidates at or below the level until none is dropped
        kept = 0
        level_sum = row[target]
        for i in range(count):
            if work[i] > level:
                work[kept] = work[i]
                kept += 1
                level_sum += work[i]
        dropped = count - kept
        count = kept
        level = level_sum / (kept + 1)
        if dropped == 0:
            break
    if count == 0:
        return 0
    moved = 0
    for rho in range(p):
        if rho != target and row[rho] + margin > level:
            row[rho] = level - margin
            moved += 1
    row[target] = level
    return moved


@numba.njit(cache=True, nogil=True)
def _project_rows(
    rows: NDArray[np.float64], targets: NDArray[np.int64], margin: float
) -> NDArray[np.int64]:
    sizes = np.empty(rows.shape[0], dtype=np.int64)
    work = np.empty(rows.shape[1], dtype=np.float64)
    for i in range(rows.shape[0]):
        sizes[i] = project_row_inplace(rows[i], targets[i], margin, work)
    return sizes


def project_onto_cone(
    scores: ArrayLike, *, target: int | ArrayLike = 0, margin: float = 0.0
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    r"""Euclidean projection of each row of ``scores`` onto the recall cone :math:`K_m`.

    .. math::

        \Pi_{K_m}(\lambda) = \operatorname*{arg\,min}_{x \in K_m} \|x - \lambda\|_2,
        \qquad K_m = \{x : x_t \ge x_\rho + m\ \forall \rho \ne t\}.

    Parameters
    ----------
    scores : array_like, shape (..., p)
        Score vectors, one per row; ``p >= 2``.  Any leading shape is allowed.
    target : int or array_like of int, optional
        Index of the target in each row (broadcast against the leading shape).
    margin : float, optional
        The margin :math:`m \ge 0` (default 0: the cone :math:`K` itself).

    Returns
    -------
    projected : ndarray, shape (..., p)
        The projections (a new array; ``scores`` is not modified).
    active_sizes : ndarray of int64, shape (...)
        :math:`|A|`, the number of competitors pulled down to the target level.
        With ``scores`` standard Gaussian, its mean is the statistical dimension
        :math:`E[C_p]` (THEORY.md §2, fact 1).

    References
    ----------
    arXiv:2605.10795 (the cone picture); THEORY.md §2.

    Examples
    --------
    >>> projected, sizes = project_onto_cone([[0.0, 1.0, -1.0]])
    >>> projected
    array([[ 0.5,  0.5, -1. ]])
    >>> sizes
    array([1])
    """
    array = check_finite_array("scores", scores)
    if array.ndim == 0 or array.shape[-1] < 2:
        msg = f"scores must have a last axis of length p >= 2, got shape {array.shape}"
        raise ValueError(msg)
    margin_value = check_real("margin", margin, minimum=0.0)
    p = array.shape[-1]
    leading = array.shape[:-1]
    rows = np.ascontiguousarray(array.reshape(-1, p)).copy()
    target_array = np.asarray(target)
    if target_array.ndim == 0:
        check_integer("target", target_array.item(), minimum=0, maximum=p - 1)
    elif not np.issubdtype(target_array.dtype, np.integer) or np.any(
        (target_array < 0) | (target_array >= p)
    ):
        msg = f"target must contain integers in [0, {p - 1}], got {target!r}"
        raise ValueError(msg)
    try:
        targets = np.broadcast_to(target_array, leading).reshape(-1).astype(np.int64)
    except ValueError:
        msg = f"target of shape {target_array.shape} does not broadcast to {leading}"
        raise ValueError(msg) from None
    sizes = _project_rows(rows, targets, margin_value)
    return rows.reshape(array.shape), sizes.reshape(leading)

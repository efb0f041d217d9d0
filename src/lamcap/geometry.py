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
:mod:`lamcap.solvers` stand on (docs/theory/cone.md; arXiv:2605.10795).  The numba
kernel :func:`project_row_inplace` (from the private cone kernel
``lamcap._cone_kernel``, which also holds the active-set rule every other
layer uses) is exposed so that compiled solver loops can call it without
Python overhead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._cone_kernel import project_rows
from lamcap._validation import check_finite_array, check_integer_array, check_real

__all__ = ["project_onto_cone"]


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
        :math:`E[C_p]` (docs/theory/cone.md, fact 1).

    References
    ----------
    arXiv:2605.10795 (the cone picture); docs/theory/cone.md.

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
    target_array = check_integer_array("target", target, minimum=0, maximum=p - 1)
    try:
        targets = np.broadcast_to(target_array, leading).reshape(-1).astype(np.int64)
    except ValueError:
        msg = f"target of shape {target_array.shape} does not broadcast to {leading}"
        raise ValueError(msg) from None
    sizes = project_rows(rows, targets, margin_value)
    return rows.reshape(array.shape), sizes.reshape(leading)

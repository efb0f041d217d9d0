r"""Numba kernels of the full-rank solver: block dual coordinate ascent.

The max-margin problem on a working set :math:`S` of normalised constraints

.. math::

    \min_W \tfrac12 \|W\|_F^2 \quad\text{s.t.}\quad
    \langle W, \hat a_i \hat e_{\mu_i}^\top\rangle \ge 1 \ (i \in S),
    \qquad \hat a_i = \frac{u_t - u_\rho}{\sqrt{\|u_t\|^2 + \|u_\rho\|^2}},\
    \hat e_\mu = \frac{e_\mu}{\|e_\mu\|},

has the dual :math:`\max_{\alpha \ge 0} \sum_i \alpha_i - \tfrac12
\|\sum_i \alpha_i \hat a_i \hat e_{\mu_i}^\top\|_F^2` with
:math:`W = \sum_i \alpha_i \hat a_i \hat e_{\mu_i}^\top`.  One association at a
time, :func:`dual_epochs` computes :math:`h = W \hat e_\mu` (:math:`d^2`
flops), runs coordinate ascent on that association's dual variables with
:math:`h` updated in :math:`O(d)` per step (since :math:`\|\hat e_\mu\| = 1`),
and writes the change back to ``W`` as one rank-one update (:math:`d^2`).
Weak duality gives a certified upper bound on the best normalised margin at
any time: :math:`\gamma^* \le \|W\|_F / \sum_i \alpha_i` (the Farkas bound of
:mod:`lamcap.solvers.certificates` with weights :math:`\alpha`).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

__all__ = ["dual_epochs"]


@numba.njit(cache=True, nogil=True)
def _block_ascent(
    weights: NDArray[np.float64],
    unit_input: NDArray[np.float64],
    directions: NDArray[np.float64],
    squared_norms: NDArray[np.float64],
    alpha: NDArray[np.float64],
    lo: int,
    hi: int,
    sweeps: int,
    hidden: NDArray[np.float64],
    change: NDArray[np.float64],
) -> float:
    """Coordinate ascent on one association's dual block; return its largest step."""
    d = weights.shape[0]
    for j in range(d):
        total = 0.0
        for k in range(d):
            total += weights[j, k] * unit_input[k]
        hidden[j] = total
        change[j] = 0.0
    largest = 0.0
    for _ in range(sweeps):
        moved = 0.0
        for i in range(lo, hi):
            score = 0.0
            for j in range(d):
                score += directions[i, j] * hidden[j]
            updated = max(0.0, alpha[i] + (1.0 - score) / squared_norms[i])
            step = updated - alpha[i]
            if step != 0.0:
                alpha[i] = updated
                for j in range(d):
                    hidden[j] += step * directions[i, j]
                    change[j] += step * directions[i, j]
                moved = max(moved, abs(step))
        largest = max(largest, moved)
        if moved == 0.0:
            break
    for j in range(d):
        if change[j] != 0.0:
            for k in range(d):
                weights[j, k] += change[j] * unit_input[k]
    return largest


@numba.njit(cache=True, nogil=True)
def dual_epochs(
    weights: NDArray[np.float64],
    unit_inputs: NDArray[np.float64],
    offsets: NDArray[np.int64],
    directions: NDArray[np.float64],
    alpha: NDArray[np.float64],
    epochs: int,
    sweeps: int,
) -> float:
    r"""Run ``epochs`` passes of block dual coordinate ascent in place; return the last step size.

    Parameters
    ----------
    weights : (d, d) float64, updated in place; must equal
        :math:`\sum_i \alpha_i \hat a_i \hat e_{\mu_i}^\top` on entry.
    unit_inputs : (n, d) float64, rows :math:`\hat e_\mu`.
    offsets : (n + 1,) int64; association ``mu`` owns constraints
        ``offsets[mu]:offsets[mu + 1]``.
    directions : (K, d) float64, rows :math:`\hat a_i`.
    alpha : (K,) float64, dual variables, updated in place.
    epochs, sweeps : passes over all associations, inner sweeps per block.
    """
    d = weights.shape[0]
    count = directions.shape[0]
    squared_norms = np.empty(count)
    for i in range(count):
        total = 0.0
        for j in range(d):
            total += directions[i, j] * directions[i, j]
        squared_norms[i] = max(total, 1e-300)
    hidden = np.empty(d)
    change = np.empty(d)
    largest = 0.0
    for _ in range(epochs):
        largest = 0.0
        for mu in range(offsets.shape[0] - 1):
            lo = offsets[mu]
            hi = offsets[mu + 1]
            if hi > lo:
                step = _block_ascent(
                    weights,
                    unit_inputs[mu],
                    directions,
                    squared_norms,
                    alpha,
                    lo,
                    hi,
                    sweeps,
                    hidden,
                    change,
                )
                largest = max(largest, step)
        if largest == 0.0:
            break
    return largest

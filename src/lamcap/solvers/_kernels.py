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

The :math:`d^2` work is batched without changing the iteration (an exact
block Gauss–Seidel): for a batch :math:`B` of consecutive associations,
:math:`H = \hat E_B W^\top` is one matrix product; association
:math:`\mu \in B` starts from
:math:`h_\mu = H_\mu + \sum_{\nu < \mu,\, \nu \in B} (\hat e_\nu \cdot \hat e_\mu)\, c_\nu`,
where :math:`c_\nu` is the change of :math:`W \hat e_\nu`'s block already made
in this batch, and the batch ends with one product :math:`W \mathrel{+}= C^\top \hat E_B`.
The :math:`O(d^2)` scalar loops per association become BLAS-3 products
plus :math:`O(|B| d)` corrections; ``batch = 1`` is the plain
per-association method.  Inside a block of :math:`k` constraints the scores
:math:`\hat a_i \cdot h` are formed once (:math:`kd`) and then updated through
the block's :math:`k \times k` Gram matrix (computed once per call), so a
coordinate step costs :math:`O(k)` instead of :math:`O(d)`, with the same
iterates up to rounding (``tests/solvers/test_kernels.py``; the measured gain is in
docs/benchmarks.md).

Weak duality gives an upper bound on the best normalised margin at any time,
:math:`\gamma^* \le \|W\|_F / \sum_i \alpha_i` (the Farkas bound of
:mod:`lamcap.solvers._certificates` with weights :math:`\alpha`), in exact
arithmetic for :math:`W = \sum_i \alpha_i \hat A_i`; the iterate ``W`` is
updated incrementally in floating point, so the solvers report it as an
estimate only (a Farkas certificate is what gets re-checked).
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray


@numba.njit(cache=True, nogil=True, inline="always")
def _block_grams(
    offsets: NDArray[np.int64], directions: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Gram matrices of every association's directions, flattened, and their offsets."""
    n = offsets.shape[0] - 1
    starts = np.zeros(n + 1, dtype=np.int64)
    for mu in range(n):
        size = offsets[mu + 1] - offsets[mu]
        starts[mu + 1] = starts[mu] + size * size
    grams = np.empty(starts[n])
    for mu in range(n):
        lo = offsets[mu]
        size = offsets[mu + 1] - lo
        if size > 0:
            block = directions[lo : lo + size]
            gram = np.dot(block, block.T)  # C order, as ravel() reads it
            start = starts[mu]
            for i in range(size):
                for j in range(size):
                    grams[start + i * size + j] = gram[i, j]
    return grams, starts


@numba.njit(cache=True, nogil=True, inline="always")
def _block_ascent(
    directions: NDArray[np.float64],
    gram: NDArray[np.float64],
    alpha: NDArray[np.float64],
    lo: int,
    sweeps: int,
    hidden: NDArray[np.float64],
    change: NDArray[np.float64],
) -> float:
    """Coordinate ascent on one association's dual block from ``hidden = W e``.

    ``gram`` is the block's ``k x k`` Gram matrix, so after the ``k`` initial
    scores (``k d`` flops) every coordinate step costs ``O(k)``.  Updates
    ``alpha[lo:lo+k]``, writes the change of ``W e`` to ``change`` and returns
    the largest step.
    """
    d = hidden.shape[0]
    size = gram.shape[0]
    scores = np.empty(size)
    steps = np.zeros(size)
    for i in range(size):
        total = 0.0
        for j in range(d):
            total += directions[lo + i, j] * hidden[j]
        scores[i] = total
    largest = 0.0
    for _ in range(sweeps):
        moved = 0.0
        for i in range(size):
            updated = max(0.0, alpha[lo + i] + (1.0 - scores[i]) / max(gram[i, i], 1e-300))
            step = updated - alpha[lo + i]
            if step != 0.0:
                alpha[lo + i] = updated
                steps[i] += step
                for j in range(size):
                    scores[j] += step * gram[j, i]
                moved = max(moved, abs(step))
        largest = max(largest, moved)
        if moved == 0.0:
            break
    for j in range(d):
        change[j] = 0.0
    for i in range(size):
        if steps[i] != 0.0:
            for j in range(d):
                change[j] += steps[i] * directions[lo + i, j]
    return largest


@numba.njit(cache=True, nogil=True, inline="always")
def _batch_epoch(
    weights: NDArray[np.float64],
    unit_inputs: NDArray[np.float64],
    offsets: NDArray[np.int64],
    directions: NDArray[np.float64],
    grams: NDArray[np.float64],
    gram_starts: NDArray[np.int64],
    alpha: NDArray[np.float64],
    sweeps: int,
    first: int,
    last: int,
) -> float:
    """One exact Gauss–Seidel pass over associations ``first..last-1`` (module docstring)."""
    d = weights.shape[0]
    count = last - first
    batch_inputs = np.ascontiguousarray(unit_inputs[first:last])
    start_hidden = np.dot(batch_inputs, weights.T)  # row b: W e_b before the batch
    overlaps = np.dot(batch_inputs, batch_inputs.T)  # e_c . e_b
    changes = np.zeros((count, d))
    hidden = np.empty(d)
    largest = 0.0
    for b in range(count):
        lo = offsets[first + b]
        hi = offsets[first + b + 1]
        if hi == lo:
            continue
        for j in range(d):
            hidden[j] = start_hidden[b, j]
        for c in range(b):
            overlap = overlaps[c, b]
            for j in range(d):
                hidden[j] += overlap * changes[c, j]
        size = hi - lo
        block_gram = grams[gram_starts[first + b] : gram_starts[first + b + 1]]
        step = _block_ascent(
            directions, block_gram.reshape(size, size), alpha, lo, sweeps, hidden, changes[b]
        )
        largest = max(largest, step)
    update = np.dot(changes.T, batch_inputs)
    for i in range(d):
        for j in range(weights.shape[1]):
            weights[i, j] += update[i, j]
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
    batch: int = 32,
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
    batch : associations per exact block Gauss–Seidel batch (module
        docstring); any ``batch >= 1`` gives the same iterates up to rounding.
    """
    n = offsets.shape[0] - 1
    grams, gram_starts = _block_grams(offsets, directions)
    size = max(1, batch)
    largest = 0.0
    for _ in range(epochs):
        largest = 0.0
        for first in range(0, n, size):
            step = _batch_epoch(
                weights,
                unit_inputs,
                offsets,
                directions,
                grams,
                gram_starts,
                alpha,
                sweeps,
                first,
                min(n, first + size),
            )
            largest = max(largest, step)
        if largest == 0.0:
            break
    return largest

r"""Margins, Farkas certificates and their independent checks.

Everything here is recomputed from the instance alone, in float64, with plain
numpy (no solver code), so that a verdict can be trusted without reading the
solvers.

Normalised margin
-----------------
For weights :math:`W \ne 0` and a constraint :math:`i = (\mu, \rho)`,
:math:`\rho \ne t = t(\mu)`,

.. math::

    m_i(W) = \frac{(u_t - u_\rho)^\top W e_\mu}
                  {\|W\|_F\,\|e_\mu\|\,c_{\mu\rho}},
    \qquad c_{\mu\rho} = \sqrt{\|u_t\|^2 + \|u_\rho\|^2}

(outputs of association :math:`\mu`).  ``min_margin`` is
:math:`\min_i m_i(W)` over all :math:`n(p-1)` constraints.  It is scale
invariant, and :math:`\|u_t - u_\rho\| \le \sqrt2\,c_{\mu\rho}`, so
:math:`m_i \le \sqrt 2`.  Rounding: the scores are computed as
:math:`s_t - s_\rho` with :math:`s_\rho = u_\rho^\top (W e_\mu)`, whose error is
at most :math:`2(d+2)\epsilon_{64}(\|u_t\| + \|u_\rho\|)\|W\|_F\|e_\mu\|`, i.e.
at most :math:`2\sqrt2 (d+2) 2^{-53} < 10^{-12}` in normalised units for
:math:`d \le 1000`.  Hence the rule: **feasible** iff the recomputed
``min_margin`` exceeds :data:`FEASIBILITY_TOLERANCE` :math:`= 10^{-9}`; the
exact margin is then positive, i.e. ``W`` recalls every association.

Farkas certificate
------------------
Each constraint is rank one, :math:`A_i = (u_t - u_\rho) e_\mu^\top`.  A
certificate is a set of constraints with weights :math:`\alpha_i \ge 0`.  With

.. math::

    R = \sum_i \alpha_i A_i = \sum_\mu v_\mu e_\mu^\top,\quad
    v_\mu = \sum_\rho \alpha_{\mu\rho} (u_t - u_\rho), \qquad
    \varepsilon = \frac{\|R\|_F}{\sum_i \alpha_i \|e_\mu\| c_{\mu\rho}},

every :math:`W \ne 0` satisfies :math:`\min_i m_i(W) \le \varepsilon`
(because :math:`\sum_i \alpha_i m_i \|W\|_F \|e_\mu\| c_i = \langle W, R\rangle
\le \|W\|_F \|R\|_F`).  The check costs :math:`O(|S| d + n d^2)`; no
:math:`d^2`-column matrix is built.  Exact arithmetic would have
:math:`\varepsilon = 0` for a true Farkas vector; in float64 the check adds the
rounding allowance :math:`2\sqrt2(2|S| + d + 2)2^{-53}` to the recomputed
:math:`\varepsilon`.  **Infeasible** is claimed iff that bound is
:math:`\le` :data:`FEASIBILITY_TOLERANCE`: no ``W`` reaches a normalised
margin above :math:`10^{-9}`.  (This proves infeasibility up to that margin,
not :math:`\max_W \min_i m_i \le 0` exactly; the two verdicts can never both
hold for one instance.)

References: THEORY.md §1–2; arXiv:2605.10795.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lamcap._validation import check_finite_array
from lamcap.problems import Instance, check_weights

__all__ = [
    "FEASIBILITY_TOLERANCE",
    "FarkasCertificate",
    "certificate_bound",
    "constraint_margins",
    "min_margin",
    "weights_matrix",
]

FEASIBILITY_TOLERANCE = 1e-9
"""Feasible iff min normalised margin > this; infeasible iff certified bound <= this."""

_UNIT_ROUNDOFF = 2.0**-53


@dataclass(frozen=True, eq=False)
class FarkasCertificate:
    r"""Weights :math:`\alpha \ge 0` on a subset of constraints proving a margin bound.

    Attributes
    ----------
    associations : ndarray of int64, shape (k,)
        :math:`\mu` of each constraint.
    competitors : ndarray of int64, shape (k,)
        :math:`\rho` of each constraint (never the target of :math:`\mu`).
    alpha : ndarray of float64, shape (k,)
        Non-negative weights, not all zero (any positive scale).
    epsilon : float
        The bound the producer claims; checking recomputes it
        (:func:`certificate_bound`).

    Examples
    --------
    >>> cert = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), np.array([1.0, 2.0]), 0.0)
    >>> cert.alpha.sum()
    np.float64(3.0)
    """

    associations: NDArray[np.int64]
    competitors: NDArray[np.int64]
    alpha: NDArray[np.float64]
    epsilon: float


def weights_matrix(weights: Any, d: int) -> NDArray[np.float64]:
    """Return the ``d x d`` matrix of ``weights`` (``W``, or ``(Q, R)`` meaning ``Q @ R.T``).

    Raises ``ValueError`` for wrong shapes or non-finite entries.

    Examples
    --------
    >>> weights_matrix((np.ones((3, 1)), np.ones((3, 1))), 3).sum()
    np.float64(9.0)
    """
    if isinstance(weights, tuple):
        if len(weights) != 2:
            msg = f"weights must be W or a pair (Q, R), got a tuple of length {len(weights)}"
            raise ValueError(msg)
        left = check_finite_array("Q", weights[0])
        right = check_finite_array("R", weights[1])
        if left.ndim != 2 or left.shape[0] != d or right.shape != left.shape:
            msg = f"Q and R must both have shape ({d}, m), got {left.shape} and {right.shape}"
            raise ValueError(msg)
        return left @ right.T
    array = check_finite_array("W", weights)
    if array.shape != (d, d):
        msg = f"W must have shape ({d}, {d}), got {array.shape}"
        raise ValueError(msg)
    return array


def _margin_blocks(
    instance: Instance, weights: NDArray[np.float64]
) -> Iterator[tuple[int, NDArray[np.float64]]]:
    """Yield ``(start, normalised margins of a block)`` with target entries ``+inf``."""
    frobenius = float(np.linalg.norm(weights))
    hidden = instance.inputs @ weights.T  # row mu is W e_mu
    input_norms = np.linalg.norm(instance.inputs, axis=1)
    for start, block_scores, norms2, _ in instance.scored_blocks(hidden):
        stop = start + block_scores.shape[0]
        rows = np.arange(block_scores.shape[0])
        targets = instance.targets[start:stop]
        target_scores = block_scores[rows, targets][:, None]
        target_norms2 = norms2[rows, targets][:, None]
        scale = frobenius * input_norms[start:stop, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            margins = (target_scores - block_scores) / (scale * np.sqrt(target_norms2 + norms2))
        margins[rows, targets] = np.inf
        yield start, margins


def constraint_margins(instance: Instance, W: ArrayLike) -> NDArray[np.float64]:
    r"""All normalised margins :math:`m_{\mu\rho}(W)`, shape ``(n, p)``, target entries ``+inf``.

    .. math::

        m_{\mu\rho} = \frac{(u_t - u_\rho)^\top W e_\mu}
        {\|W\|_F \|e_\mu\| \sqrt{\|u_t\|^2 + \|u_\rho\|^2}}

    Accurate to :math:`10^{-12}` absolute for :math:`d \le 1000` (module docstring).
    ``W = 0`` gives NaN.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(40, 3, n=2, seed=0)
    >>> margins = constraint_margins(instance, hebbian_weights(instance))
    >>> margins.shape, bool(np.all(margins[:, 0] == np.inf))
    ((2, 3), True)
    """
    weights = check_weights(instance, W)
    result = np.empty((instance.n, instance.p))
    for start, margins in _margin_blocks(instance, weights):
        result[start : start + margins.shape[0]] = margins
    return result


def min_margin(instance: Instance, weights: Any) -> float:
    r"""Minimum normalised margin :math:`\min_{\mu,\rho \ne t} m_{\mu\rho}(W)` over all constraints.

    ``weights`` is ``W`` or ``(Q, R)``.  Blockwise, memory :math:`O(np + d^2)`
    beyond one block of outputs; NaN for ``W = 0``.  Recall of every
    association is certified when the result exceeds
    :data:`FEASIBILITY_TOLERANCE`.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(64, 3, n=2, seed=0)
    >>> min_margin(instance, hebbian_weights(instance)) > FEASIBILITY_TOLERANCE
    True
    """
    matrix = weights_matrix(weights, instance.d)
    if not np.any(matrix):
        return math.nan
    lowest = math.inf
    for _, margins in _margin_blocks(instance, matrix):
        lowest = min(lowest, float(margins.min()))
    return lowest


def _check_certificate_arrays(
    instance: Instance, certificate: FarkasCertificate
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    associations = np.asarray(certificate.associations)
    competitors = np.asarray(certificate.competitors)
    alpha = check_finite_array("alpha", certificate.alpha, minimum=0.0)
    if not (
        associations.ndim == competitors.ndim == alpha.ndim == 1
        and associations.shape == competitors.shape == alpha.shape
    ):
        msg = "certificate arrays must be 1-d of equal length"
        raise ValueError(msg)
    if not (
        np.issubdtype(associations.dtype, np.integer)
        and np.issubdtype(competitors.dtype, np.integer)
    ):
        msg = "certificate associations and competitors must be integer arrays"
        raise ValueError(msg)
    if np.any((associations < 0) | (associations >= instance.n)):
        msg = f"certificate associations must be in [0, {instance.n - 1}]"
        raise ValueError(msg)
    if np.any((competitors < 0) | (competitors >= instance.p)):
        msg = f"certificate competitors must be in [0, {instance.p - 1}]"
        raise ValueError(msg)
    if np.any(competitors == instance.targets[associations]):
        msg = "certificate competitors must differ from their association's target"
        raise ValueError(msg)
    return associations.astype(np.int64), competitors.astype(np.int64), alpha


def certificate_bound(instance: Instance, certificate: FarkasCertificate) -> float:
    r"""Recompute the margin bound :math:`\varepsilon` proved by a Farkas certificate.

    .. math::

        \max_{W \ne 0} \min_i m_i(W) \;\le\;
        \frac{\|\sum_i \alpha_i (u_t - u_\rho) e_\mu^\top\|_F}
             {\sum_i \alpha_i \|e_\mu\| \sqrt{\|u_t\|^2+\|u_\rho\|^2}}
        + 2\sqrt2\,(2k + d + 2)\,2^{-53}

    (module docstring).  Only the outputs of the associations named in the
    certificate are generated; cost :math:`O(k d + n_S p d + n_S d^2)`.
    Returns ``inf`` for an empty or all-zero ``alpha``; raises ``ValueError``
    for malformed certificates (wrong indices, negative or non-finite weights).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(1, 2, n=2, model="original", seed=0)
    >>> # d = 1: constraints (u0-u1) W e0 >= 0 and (u1-u0) W e1 >= 0 clash iff e0 e1 > 0
    >>> e = instance.inputs[:, 0]
    >>> alpha = np.abs(e[::-1])                      # alpha_0 |e0| ~ alpha_1 |e1|
    >>> cert = FarkasCertificate(np.array([0, 1]), np.array([1, 0]), alpha, 0.0)
    >>> bound = certificate_bound(instance, cert)
    >>> bool(bound < 1e-12) == bool(e[0] * e[1] > 0)
    True
    """
    associations, competitors, alpha = _check_certificate_arrays(instance, certificate)
    if alpha.size == 0 or not np.any(alpha > 0):
        return math.inf
    alpha = alpha / alpha.max()
    used = np.unique(associations)
    position = np.searchsorted(used, associations)
    target_rows, competitor_rows = instance.constraint_outputs(associations, competitors)
    differences = target_rows - competitor_rows
    directions = np.zeros((used.size, instance.d))
    np.add.at(directions, position, alpha[:, None] * differences)
    residual = directions.T @ instance.inputs[used]
    input_norms = np.linalg.norm(instance.inputs[associations], axis=1)
    output_scale = np.sqrt(
        np.einsum("kd,kd->k", target_rows, target_rows)
        + np.einsum("kd,kd->k", competitor_rows, competitor_rows)
    )
    denominator = float(np.sum(alpha * input_norms * output_scale))
    allowance = 2.0 * math.sqrt(2.0) * (2 * alpha.size + instance.d + 2) * _UNIT_ROUNDOFF
    return float(np.linalg.norm(residual)) / denominator + float(allowance)

r"""Baselines under lamcap's verdict rules: the Hebbian rule and Adam on cross-entropy.

Neither baseline can prove infeasibility: each returns ``"feasible"`` (its
weights re-verified from scratch by :func:`lamcap.solvers._result.build_result`:
recomputed float64 normalised margin :math:`> 10^{-9}`) or ``"undecided"``.

* :func:`solve_hebbian`: :math:`W_H = \sum_\mu u_{t(\mu)} e_\mu^\top`
  (docs/theory/index.md, docs/theory/hebbian.md).
* :func:`solve_adam_cross_entropy`: the protocol used in the literature on
  factual recall: train :math:`W` (or :math:`QR^\top`) from a small random start
  with Adam on the softmax cross-entropy over the :math:`p` outputs each
  association sees, and call the run a success when every association is
  recalled (accuracy 100%).

References: arXiv:2605.10795; arXiv:2605.05189 (Hebbian threshold).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lamcap._validation import check_fraction_scalar, check_integer
from lamcap.problems import Instance, hebbian_weights
from lamcap.solvers._result import SolveResult, build_result
from lamcap.solvers._solve import check_learning_rate, check_method_arguments
from lamcap.solvers._two_layer import Adam

CE_LEARNING_RATE = 3.0
"""Adam learning rate of the cross-entropy baseline for a full matrix W.

Tuned on decoupled instances at d = 16, 24, 32, p = 0.9 p_c over
{0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10}: steps to success fall roughly like
1/lr up to lr ~ 3 (lr = 0.01, common in the literature, needs ~100x more steps),
with no loss of success at p = p_c.
"""
CE_FACTOR_LEARNING_RATE = 0.3
"""Adam learning rate for the factors Q, R (rank < d); tuned the same way over
{0.03, 0.1, 0.3, 1, 3} at kappa = 0.25, 0.5 (larger rates fail to converge)."""
CE_STEPS = 5000
"""Maximum number of Adam steps (full batch: one step per epoch)."""
CE_INIT_SCALE = 0.01
"""Standard deviation of the initial weights, in units of d^{-1/2}."""

FloatArray = NDArray[np.float64]


def solve_hebbian(
    instance: Instance,
    *,
    rank: int | None = None,
    raw_margin: float = 1.0,
    max_seconds: float | None = None,
    seed: int = 0,
) -> SolveResult:
    r"""The Hebbian rule :math:`W_H = \sum_\mu u_{t(\mu)} e_\mu^\top`, verified.

    .. math::

        s_{\mu\rho} = u_\rho^{(\mu)\top} W_H e_\mu, \qquad
        \text{feasible iff } \min_{\mu,\rho\ne t} \gamma_{\mu\rho}(W_H) > 10^{-9}

    (docs/theory/index.md, docs/theory/hebbian.md).  Hebbian failure says nothing
    about feasibility, so the
    verdict is ``"feasible"`` or ``"undecided"``, never ``"infeasible"``.

    Parameters
    ----------
    instance : Instance
    rank : int, optional
        In ``[1, d]``; below ``d`` the weights are the best rank-``rank``
        approximation of :math:`W_H` (truncated SVD, returned as ``(Q, R)``).
    raw_margin : float
        ``> 0``; :math:`W_H` is rescaled so that its smallest raw margin equals
        ``raw_margin`` when it is positive (otherwise left as is; the contract
        of :func:`lamcap.solve`).
    max_seconds : float, optional
        ``> 0``; accepted for the registry contract (the rule costs :math:`O(nd^2)`).
    seed : int
        ``>= 0``; unused (the rule is deterministic).

    Returns
    -------
    SolveResult
        ``iterations = 1``.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> solve_hebbian(make_instance(64, 3, n=2, seed=0)).verdict
    'feasible'
    >>> solve_hebbian(make_instance(8, 200, seed=0)).verdict
    'undecided'
    """
    instance, rank, raw_margin, max_seconds, seed = check_method_arguments(
        instance, rank=rank, raw_margin=raw_margin, max_seconds=max_seconds, seed=seed
    )
    started = time.perf_counter()
    rank_value = rank
    weights = hebbian_weights(instance)
    if rank_value < instance.d:
        left, values, right_t = np.linalg.svd(weights)
        root = np.sqrt(values[:rank_value])
        factors = (left[:, :rank_value] * root, right_t[:rank_value].T * root)
    return build_result(
        instance,
        weights if rank_value == instance.d else factors,
        raw_margin=raw_margin,
        method="hebbian",
        iterations=1,
        seconds=time.perf_counter() - started,
    )


# --------------------------------------------------------------------------- Adam / CE
@dataclass
class _Pass:
    """One forward/backward pass of the cross-entropy over all associations."""

    recalled: int  # associations whose target is strictly on top
    loss: float
    hidden_gradient: FloatArray  # (n, d): dL/dh_mu, h_mu = W e_mu


def _cross_entropy_pass(
    instance: Instance, hidden: FloatArray, selected: NDArray[np.bool_]
) -> _Pass:
    r"""Mean softmax cross-entropy of the ``selected`` associations and its gradient in :math:`h`.

    Scores from :meth:`lamcap.problems.Instance.scored_blocks`; ``recalled`` counts
    every association, selected or not, whose target score is strictly above all others.
    """
    gradient = np.zeros((instance.n, instance.d))
    total = 0.0
    recalled = 0
    shared = instance.outputs(0) if instance.model == "original" else None
    for block in instance.scored_blocks(hidden, keep_outputs=shared is None):
        start, stop = block.start, block.start + block.scores.shape[0]
        block_scores = block.scores
        targets = instance.targets[start:stop]
        local = np.arange(stop - start)
        target_scores = block_scores[local, targets].copy()
        block_scores[local, targets] = -np.inf
        recalled += int(np.count_nonzero(target_scores - block_scores.max(axis=1) > 0.0))
        block_scores[local, targets] = target_scores
        shifted = block_scores - block_scores.max(axis=1, keepdims=True)
        probabilities = np.exp(shifted)
        normaliser = probabilities.sum(axis=1)
        probabilities /= normaliser[:, None]
        chosen = selected[start:stop]
        total += float(np.sum((np.log(normaliser) - shifted[local, targets])[chosen]))
        probabilities[local, targets] -= 1.0
        probabilities[~chosen] = 0.0
        if shared is not None:
            gradient[start:stop] = probabilities @ shared
        else:
            assert block.outputs is not None  # keep_outputs=True
            gradient[start:stop] = np.matmul(probabilities[:, None, :], block.outputs)[:, 0, :]
    scale = 1.0 / max(1, int(selected.sum()))
    return _Pass(recalled, total * scale, gradient * scale)


def _weights_of(parameters: list[FloatArray]) -> FloatArray:
    return parameters[0] if len(parameters) == 1 else parameters[0] @ parameters[1].T


def _parameter_gradients(
    inputs: FloatArray, hidden_gradient: FloatArray, parameters: list[FloatArray]
) -> list[FloatArray]:
    """Chain rule from :math:`\\partial L/\\partial h_\\mu` to W, or to (Q, R)."""
    if len(parameters) == 1:
        return [hidden_gradient.T @ inputs]
    left, right = parameters
    return [hidden_gradient.T @ (inputs @ right), inputs.T @ (hidden_gradient @ left)]


def _result_weights(parameters: list[FloatArray]) -> FloatArray | tuple[FloatArray, FloatArray]:
    if len(parameters) == 1:
        return parameters[0].copy()
    return parameters[0].copy(), parameters[1].copy()


def solve_adam_cross_entropy(
    instance: Instance,
    *,
    rank: int | None = None,
    raw_margin: float = 1.0,
    max_seconds: float | None = None,
    seed: int = 0,
    learning_rate: float | None = None,
    steps: int = CE_STEPS,
    batch_size: int | None = None,
    stop_accuracy: float = 1.0,
) -> SolveResult:
    r"""Adam on the softmax cross-entropy over the outputs (the literature's protocol).

    .. math::

        L(W) = \frac1n \sum_\mu \Big[\log \sum_{\rho=1}^{p} e^{s_{\mu\rho}}
        - s_{\mu t(\mu)}\Big], \qquad s_{\mu\rho} = u^{(\mu)\top}_\rho W e_\mu,

    with :math:`W` full rank, or :math:`W = QR^\top` when ``rank < d``.
    Schedule: weights start iid :math:`\mathcal N(0, \sigma^2/d)`,
    :math:`\sigma =` :data:`CE_INIT_SCALE`; Adam (:math:`\beta = (0.9, 0.999)`)
    with constant learning rate ``learning_rate``; full batch by default (one
    step = one epoch over all associations); at most ``steps`` steps.  Before
    every step all :math:`np` scores are available, so success (every target
    strictly on top) is tested at every step; the weights are then re-verified
    by :func:`lamcap.solvers._result.build_result` (recomputed normalised margin
    :math:`> 10^{-9}`) and returned ``"feasible"``.  Otherwise ``"undecided"``
    with the last weights (cross-entropy cannot prove infeasibility).
    docs/theory/index.md, docs/theory/rank.md; arXiv:2605.10795.

    Parameters
    ----------
    instance : Instance
    rank : int, optional
        In ``[1, d]`` (default ``d``: a single full matrix ``W``).
    raw_margin : float
        ``> 0``; feasible weights are rescaled to smallest raw margin ``raw_margin``.
    max_seconds : float, optional
        ``> 0``; on reaching it: ``"undecided"`` with the current weights.
    seed : int
        ``>= 0``: initial weights and minibatch order.
    learning_rate : float, optional
        Adam learning rate, ``> 0``.  Default :data:`CE_LEARNING_RATE` for a
        full ``W``, :data:`CE_FACTOR_LEARNING_RATE` for ``(Q, R)`` (both tuned
        at d = 16-32, p = 0.9 p_c).
    steps : int
        Maximum number of Adam steps, ``>= 1``.
    batch_size : int, optional
        Associations per step, in ``[1, n]`` (default ``n``: full batch).
        Minibatches are drawn without replacement within an epoch.
    stop_accuracy : float
        In ``(0, 1]`` (default 1).  Training stops at the first step at which
        at least this fraction of the associations is recalled (target
        strictly on top), tested on all associations before every step.  At 1
        that is success; below 1 (0.99 in the protocol of Nichani et al.,
        arXiv:2412.06538; docs/howto/nichani-protocol.md) the weights that
        reached it come back ``"undecided"`` unless they recall everything.

    Returns
    -------
    SolveResult
        ``iterations`` = Adam steps taken; ``details["loss"]`` the last loss,
        ``details["recalled"]`` the associations the returned weights recall,
        ``details["best_recalled"]`` the most recalled at any step and
        ``details["reached_accuracy"]`` whether ``stop_accuracy`` was reached.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> result = solve_adam_cross_entropy(make_instance(8, 10, seed=0), seed=0)
    >>> result.verdict
    'feasible'
    """
    instance, rank, raw_margin, max_seconds, seed = check_method_arguments(
        instance, rank=rank, raw_margin=raw_margin, max_seconds=max_seconds, seed=seed
    )
    started = time.perf_counter()
    rank_value = rank
    limit = math.inf if max_seconds is None else max_seconds
    if learning_rate is None:
        learning_rate = CE_LEARNING_RATE if rank_value == instance.d else CE_FACTOR_LEARNING_RATE
    learning_rate = check_learning_rate(learning_rate)
    steps = check_integer("steps", steps, minimum=1)
    stop_accuracy = check_fraction_scalar("stop_accuracy", stop_accuracy)
    needed = max(1, math.ceil(stop_accuracy * instance.n - 1e-9))
    batch = (
        instance.n
        if batch_size is None
        else check_integer("batch_size", batch_size, minimum=1, maximum=instance.n)
    )
    deadline = started + limit
    generator = np.random.default_rng(np.random.SeedSequence([seed, 1]))
    scale = CE_INIT_SCALE / math.sqrt(instance.d)
    shapes = (
        [(instance.d, instance.d)]
        if rank_value == instance.d
        else [(instance.d, rank_value), (instance.d, rank_value)]
    )
    parameters = [generator.standard_normal(shape) * scale for shape in shapes]
    optimiser = Adam(parameters, learning_rate)
    order = generator.permutation(instance.n)
    batches_per_epoch = math.ceil(instance.n / batch)
    loss = math.nan
    step = best = recalled = 0
    for step in range(steps + 1):
        position = (step % batches_per_epoch) * batch
        if step > 0 and position == 0:
            order = generator.permutation(instance.n)
        selected = np.ones(instance.n, dtype=bool)
        if batch < instance.n:
            selected[:] = False
            selected[order[position : position + batch]] = True
        hidden = instance.inputs @ _weights_of(parameters).T
        current = _cross_entropy_pass(instance, hidden, selected)
        loss, recalled = current.loss, current.recalled
        best = max(best, recalled)
        if recalled == instance.n:
            result = _feasible_result(instance, parameters, raw_margin, step, started, loss)
            if result.verdict == "feasible":
                return result
        # all recalled but not verified (a margin below rounding): train on
        reached = needed <= recalled < instance.n
        if reached or step == steps or time.perf_counter() > deadline:
            break
        optimiser.step(_parameter_gradients(instance.inputs, current.hidden_gradient, parameters))
    return build_result(
        instance,
        _result_weights(parameters),
        raw_margin=raw_margin,
        method="adam_ce",
        iterations=step,
        seconds=time.perf_counter() - started,
        details={
            "loss": loss,
            "timed_out": time.perf_counter() > deadline,
            "recalled": recalled,
            "best_recalled": best,
            "reached_accuracy": recalled >= needed,
        },
    )


def _feasible_result(
    instance: Instance,
    parameters: list[FloatArray],
    raw_margin: float,
    step: int,
    started: float,
    loss: float,
) -> SolveResult:
    """Verify recalled weights, rescaled to raw margin ``raw_margin`` (``build_result``)."""
    return build_result(
        instance,
        _result_weights(parameters),
        raw_margin=raw_margin,
        method="adam_ce",
        iterations=step,
        seconds=time.perf_counter() - started,
        details={
            "loss": loss,
            "timed_out": False,
            "recalled": instance.n,
            "best_recalled": instance.n,
            "reached_accuracy": True,
        },
    )

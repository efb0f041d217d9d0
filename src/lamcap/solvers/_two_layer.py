r"""Rank-constrained (two-layer) trainer: find :math:`W = QR^\top` recalling every association.

With :math:`Q, R \in \mathbb{R}^{d\times r}`, :math:`r \le d` (the rank), recall
of every association asks for

.. math::

    (u_t - u_\rho)^\top Q R^\top e_\mu \ \ge\ c
    \qquad \forall \mu,\ \rho \ne t(\mu),

a non-convex problem for :math:`r < d` (docs/theory/rank.md;
arXiv:2605.10795).
Scaling :math:`(Q, R) \to (cQ, cR)` multiplies every score by :math:`c^2`, so
the raw margin :math:`c` is a pure scale: the trainer works at :math:`c = 1`,
stops as soon as every raw margin is positive, and its answer is rescaled so
that the smallest raw margin equals ``raw_margin`` (the contract of
:func:`lamcap.solve`, applied by :func:`~lamcap.solvers._result.build_result`).

Algorithm (documented schedule)
-------------------------------
Adam on the squared hinge loss

.. math::

    L(Q, R) = \sum_{\mu}\sum_{\rho \in S_\mu}
    \big(1 - (u_t - u_\rho)^\top Q R^\top e_\mu\big)_+^2,

where :math:`S_\mu` is a *working set* of the :math:`K = \min(p-1,
\lceil 4\log p\rceil + 4)` highest-scoring competitors of association
:math:`\mu` (found with ``argpartition``).  At capacity only about
:math:`\mathbb{E}|A| \approx 2\log p` competitors are active (docs/theory/cone.md), so
the working set holds every constraint that matters.  Every
:data:`REFRESH_EVERY` steps all :math:`np` scores are recomputed block by
block with matrix products (:math:`O(npd)`), the working sets are rebuilt, the
exact minimum raw margin is read off, and the run stops as soon as every
constraint holds.  Between refreshes a step costs :math:`O(nKd + ndr)`.

* Start: :math:`Q, R` with iid :math:`\mathcal N(0, \sigma^2/d)` entries,
  :math:`\sigma =` :data:`INIT_SCALE` (small, balanced factors).
* Adam with learning rate :data:`LEARNING_RATE`, :math:`\beta = (0.9, 0.999)`,
  constant rate, :data:`STEPS_PER_RESTART` steps per restart.
* Restarts: up to :data:`RESTARTS` fresh random starts, seeds derived from
  ``(seed, restart)``.  After the first failed restart the full-rank relaxation
  is decided by :func:`lamcap.solve` (``method="auto"``): if it is
  certified infeasible, so is every rank (the verdict is ``"infeasible"`` with
  that certificate); if it is feasible, the next restart starts from the
  truncated SVD of its :math:`W`, :math:`Q = U_m S_m^{1/2}`,
  :math:`R = V_m S_m^{1/2}`.
* Verdicts come from :func:`lamcap.solvers._result.build_result`: ``"feasible"`` only
  if the recomputed float64 normalised margin of :math:`QR^\top` exceeds
  :math:`10^{-9}`; ``"infeasible"`` only with the full-rank Farkas
  certificate; otherwise ``"undecided"`` with the best weights seen (largest
  raw minimum margin divided by :math:`\|QR^\top\|_F`).

Every score pass is :meth:`lamcap.problems.Instance.scored_blocks`: the instance
holds its outputs in memory when :math:`npd \le`
:data:`lamcap.problems.CACHE_LIMIT` and streams them block by block otherwise.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lamcap._validation import check_integer
from lamcap.problems import Instance
from lamcap.solvers._certificates import running_minimum, weights_matrix
from lamcap.solvers._result import SolveResult, build_result
from lamcap.solvers._solve import check_learning_rate, check_method_arguments, solve

LEARNING_RATE = 0.3
"""Adam learning rate (parameter units; entries of Q, R are O(d^{-1/2}))."""
STEPS_PER_RESTART = 5000
"""Adam steps per restart before giving up on that start."""
RESTARTS = 4
"""Maximum number of starts (random, then SVD warm start when available)."""
REFRESH_EVERY = 10
"""Steps between full score passes (working-set rebuild and exact stopping test)."""
INIT_SCALE = 0.1
"""Standard deviation of the initial factors, in units of d^{-1/2}."""

FloatArray = NDArray[np.float64]


def working_set_size(p: int) -> int:
    r"""Competitors kept per association between refreshes, :math:`\min(p-1, \lceil 4\log p\rceil+4)`.

    About twice the active-set size :math:`\mathbb{E}|A| \approx 2\log p`
    (docs/theory/cone.md), plus slack.

    Examples
    --------
    >>> working_set_size(3), working_set_size(100), working_set_size(10**4)
    (2, 23, 41)
    """
    return int(min(p - 1, math.ceil(4.0 * math.log(p)) + 4))


def _exclude_targets(block_scores: FloatArray, targets: NDArray[np.int64]) -> FloatArray:
    """Return the target scores and set the target entries of ``block_scores`` to -inf."""
    rows = np.arange(block_scores.shape[0])
    target_scores = block_scores[rows, targets].copy()
    block_scores[rows, targets] = -np.inf
    return target_scores


@dataclass
class _Refresh:
    """Result of a full score pass: exact raw margins and the new working set."""

    min_margins: FloatArray  # (n,) min over competitors of s_t - s_rho
    differences: FloatArray  # (n, K, d) rows u_t - u_rho for the working-set competitors


def _refresh(instance: Instance, hidden: FloatArray, size: int) -> _Refresh:
    """Score every output (:meth:`Instance.scored_blocks`), keep the ``size`` top competitors."""
    n, d = instance.n, instance.d
    min_margins = np.empty(n)
    differences = np.empty((n, size, d))
    target_rows = instance.target_outputs()
    shared = instance.outputs(0) if instance.model == "original" else None
    for block in instance.scored_blocks(hidden, keep_outputs=shared is None):
        start, stop = block.start, block.start + block.scores.shape[0]
        block_scores = block.scores
        target_scores = _exclude_targets(block_scores, instance.targets[start:stop])
        top = np.argpartition(-block_scores, size - 1, axis=1)[:, :size]
        min_margins[start:stop] = target_scores - block_scores.max(axis=1)
        if shared is not None:
            competitors = shared[top]
        else:
            assert block.outputs is not None  # keep_outputs=True
            competitors = block.outputs[np.arange(stop - start)[:, None], top]
        differences[start:stop] = target_rows[start:stop, None, :] - competitors
    return _Refresh(min_margins, differences)


# --------------------------------------------------------------------------- optimiser
class Adam:
    """Adam (Kingma & Ba 2015) on a list of arrays, updated in place.

    Examples
    --------
    >>> x = np.array([1.0])
    >>> optimiser = Adam([x], learning_rate=0.1)
    >>> for _ in range(200):
    ...     optimiser.step([2 * x])
    >>> abs(float(x[0])) < 0.05
    True
    """

    def __init__(
        self,
        parameters: list[FloatArray],
        learning_rate: float,
        betas: tuple[float, float] = (0.9, 0.999),
        epsilon: float = 1e-12,
    ) -> None:
        self.parameters = parameters
        self.learning_rate = learning_rate
        self.betas = betas
        self.epsilon = epsilon
        self.first = [np.zeros_like(x) for x in parameters]
        self.second = [np.zeros_like(x) for x in parameters]
        self.count = 0

    def step(self, gradients: list[FloatArray]) -> None:
        """One Adam update with bias correction."""
        self.count += 1
        beta1, beta2 = self.betas
        scale1 = 1.0 / (1.0 - beta1**self.count)
        scale2 = 1.0 / (1.0 - beta2**self.count)
        for index, gradient in enumerate(gradients):
            first, second = self.first[index], self.second[index]
            first *= beta1
            first += (1.0 - beta1) * gradient
            second *= beta2
            second += (1.0 - beta2) * (gradient * gradient)
            step = (first * scale1) / (np.sqrt(second * scale2) + self.epsilon)
            self.parameters[index] -= self.learning_rate * step


def _hinge_gradients(
    inputs: FloatArray, differences: FloatArray, left: FloatArray, right: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Gradients of the working-set squared hinge (margin 1) with respect to Q and R."""
    projected = inputs @ right  # (n, m): R^T e_mu
    hidden = projected @ left.T  # (n, d): W e_mu
    margins = np.matmul(differences, hidden[:, :, None])[:, :, 0]  # (n, K)
    violation = np.maximum(0.0, 1.0 - margins)
    hidden_gradient = -2.0 * np.matmul(violation[:, None, :], differences)[:, 0, :]  # (n, d)
    return hidden_gradient.T @ projected, inputs.T @ (hidden_gradient @ left)


# --------------------------------------------------------------------------- trainer
@dataclass
class _Best:
    """Best weights seen so far, ranked by min raw margin / ||W||_F."""

    score: float = -math.inf
    weights: tuple[FloatArray, FloatArray] | None = None

    def offer(self, left: FloatArray, right: FloatArray, min_margin: float) -> None:
        norm = float(np.linalg.norm(left @ right.T))
        score = min_margin / norm if norm > 0 else -math.inf
        if score > self.score or self.weights is None:
            self.score = score
            self.weights = (left.copy(), right.copy())


@dataclass
class _Run:
    """Outcome of one start: feasible weights (raw margins >= 0) or None."""

    weights: tuple[FloatArray, FloatArray] | None
    steps: int
    timed_out: bool


def _train_once(
    instance: Instance,
    left: FloatArray,
    right: FloatArray,
    *,
    steps: int,
    learning_rate: float,
    deadline: float,
    best: _Best,
) -> _Run:
    """Adam on the working-set squared hinge from ``(left, right)``; stop when all margins > 0."""
    size = working_set_size(instance.p)
    optimiser = Adam([left, right], learning_rate)
    refresh: _Refresh | None = None
    for step in range(steps + 1):
        if step % REFRESH_EVERY == 0 or step == steps:
            refresh = _refresh(instance, instance.inputs @ (right @ left.T), size)
            lowest = running_minimum(math.inf, refresh.min_margins)
            best.offer(left, right, lowest)
            if lowest > 0.0:
                return _Run((left, right), step, timed_out=False)
            if time.perf_counter() > deadline:
                return _Run(None, step, timed_out=True)
            if step == steps:
                break
        assert refresh is not None
        optimiser.step(list(_hinge_gradients(instance.inputs, refresh.differences, left, right)))
    return _Run(None, steps, timed_out=False)


def _random_start(d: int, rank: int, seed: int, restart: int) -> tuple[FloatArray, FloatArray]:
    generator = np.random.default_rng(np.random.SeedSequence([seed, restart]))
    scale = INIT_SCALE / math.sqrt(d)
    return (
        generator.standard_normal((d, rank)) * scale,
        generator.standard_normal((d, rank)) * scale,
    )


def _svd_start(weights: FloatArray, rank: int) -> tuple[FloatArray, FloatArray]:
    """Balanced factors of the best rank-``rank`` approximation, scaled to margin ~1."""
    left, values, right_t = np.linalg.svd(weights)
    root = np.sqrt(values[:rank])
    return left[:, :rank] * root, right_t[:rank].T * root


def solve_rank_constrained(
    instance: Instance,
    *,
    rank: int,
    raw_margin: float = 1.0,
    max_seconds: float | None = None,
    seed: int = 0,
    restarts: int = RESTARTS,
    steps_per_restart: int = STEPS_PER_RESTART,
    learning_rate: float = LEARNING_RATE,
    full_rank_check: bool = True,
) -> SolveResult:
    r"""Train :math:`W = QR^\top` of rank :math:`\le r` to recall every association.

    .. math::

        \min_{Q,R \in \mathbb{R}^{d\times r}} \sum_\mu \sum_{\rho \in S_\mu}
        \big(1 - (u_t - u_\rho)^\top Q R^\top e_\mu\big)_+^2

    by Adam on working sets :math:`S_\mu` of top competitors, with restarts
    (schedule in the module docstring; docs/theory/rank.md; arXiv:2605.10795).

    Parameters
    ----------
    instance : Instance
        From :func:`lamcap.make_instance` (either model).
    rank : int
        :math:`r \in [1, d]`.
    raw_margin : float
        :math:`c > 0`: factors that recall every association are returned
        with smallest raw margin :math:`c` (a pure scale: each is multiplied by
        :math:`\sqrt{c/c_W}`, :math:`c_W` the smallest raw margin reached;
        :func:`~lamcap.solvers._constraints.at_raw_margin`).
    max_seconds : float, optional
        ``> 0``.  On reaching it: ``"undecided"`` with the best weights so far
        (the full-rank check also shares this budget).
    seed : int
        ``>= 0``; the result is a deterministic function of the seed (timeouts aside).
    restarts, steps_per_restart : int
        Number of starts (``>= 1``) and Adam steps per start (``>= 1``).
    learning_rate : float
        Adam learning rate, ``> 0``.
    full_rank_check : bool
        Decide the full-rank relaxation after the first failed start (certified
        infeasibility, SVD warm start).  ``False`` skips it (verdicts are then
        ``"feasible"`` or ``"undecided"`` only).

    Returns
    -------
    SolveResult
        ``weights = (Q, R)``; verdict ``"feasible"`` (recomputed normalised
        margin :math:`> 10^{-9}`), ``"infeasible"`` (full-rank Farkas
        certificate, bound :math:`\le 10^{-9}`) or ``"undecided"``.
        ``iterations`` counts Adam steps over all starts; ``details`` holds
        ``restarts`` used, ``full_rank_verdict`` and ``timed_out``.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(8, 6, seed=0)
    >>> result = solve_rank_constrained(instance, rank=2, seed=0)
    >>> result.verdict, result.weights[0].shape
    ('feasible', (8, 2))
    """
    instance, rank, raw_margin, max_seconds, seed = check_method_arguments(
        instance, rank=rank, raw_margin=raw_margin, max_seconds=max_seconds, seed=seed
    )
    started = time.perf_counter()
    limit = math.inf if max_seconds is None else max_seconds
    restarts = check_integer("restarts", restarts, minimum=1)
    steps_per_restart = check_integer("steps_per_restart", steps_per_restart, minimum=1)
    learning_rate = check_learning_rate(learning_rate)
    deadline = started + limit
    best = _Best()
    total_steps = 0
    full_rank_verdict = "not run"
    warm_start: FloatArray | None = None
    timed_out = False
    used = 0
    for restart in range(restarts):
        used = restart + 1
        if warm_start is not None:
            left, right = _svd_start(warm_start, rank)
            warm_start = None
        else:
            left, right = _random_start(instance.d, rank, seed, restart)
        run = _train_once(
            instance,
            left,
            right,
            steps=steps_per_restart,
            learning_rate=learning_rate,
            deadline=deadline,
            best=best,
        )
        total_steps += run.steps
        details = {
            "restarts": used,
            "full_rank_verdict": full_rank_verdict,
            "timed_out": run.timed_out,
        }
        if run.weights is not None:
            result = build_result(
                instance,
                run.weights,
                raw_margin=raw_margin,
                method="two_layer",
                iterations=total_steps,
                seconds=time.perf_counter() - started,
                details=details,
            )
            if result.verdict == "feasible":
                return result
        if run.timed_out:
            timed_out = True
            break
        if full_rank_check and full_rank_verdict == "not run":
            full = _full_rank_relaxation(instance, deadline, seed)
            full_rank_verdict = full.verdict
            if full.verdict == "infeasible":
                return build_result(
                    instance,
                    best.weights,
                    raw_margin=raw_margin,
                    certificate=full.certificate,
                    method="two_layer",
                    iterations=total_steps,
                    seconds=time.perf_counter() - started,
                    details={**details, "full_rank_verdict": "infeasible"},
                )
            if full.verdict == "feasible" and full.weights is not None:
                warm_start = weights_matrix(full.weights, instance.d)  # raw margin 1
    return build_result(
        instance,
        best.weights,
        raw_margin=raw_margin,
        method="two_layer",
        iterations=total_steps,
        seconds=time.perf_counter() - started,
        details={
            "restarts": used,
            "full_rank_verdict": full_rank_verdict,
            "timed_out": timed_out or time.perf_counter() > deadline,
        },
    )


def _full_rank_relaxation(instance: Instance, deadline: float, seed: int) -> SolveResult:
    """Decide the full-rank problem (its infeasibility certifies every rank)."""
    remaining = deadline - time.perf_counter()
    if remaining <= 0:
        return build_result(instance, None, method="auto")
    return solve(
        instance, method="auto", max_seconds=None if math.isinf(remaining) else remaining, seed=seed
    )

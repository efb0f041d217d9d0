r"""The best accuracy: how many associations one ``W`` can recall, with certified bounds.

Beyond capacity no ``W`` recalls every association; ``objective="max_recall"``
of :func:`lamcap.solve` asks for the largest set that one ``W`` recalls,

.. math::

    R^* = \max_W \#\{\mu :\ (u_{t(\mu)} - u_\rho)^\top W e_\mu > 0
    \ \ \forall \rho \ne t(\mu)\},

and answers with two bounds that are checked, not trusted
(arXiv:2605.10795 for the constraints; docs/theory/partial-recall.md for the
theory; docs/solvers-at-scale.md, section "Recall below 100%", for a
demonstration):

* **lower bound** :math:`R_- \le R^*`: a ``W`` and the associations it recalls,
  each verified as :func:`~lamcap.solvers.check_margins` verifies a feasible
  ``W`` (normalised margin above :math:`10^{-9}` and its proven rounding
  error), on those associations alone (:func:`recalled_associations`);
* **upper bound** :math:`R^* \le R_+ = n - k`: :math:`k` disjoint sets of
  associations :math:`S_1, \dots, S_k`, each with a Farkas certificate
  (:class:`~lamcap.solvers._result.InfeasibleSubset`) proving that no ``W``
  recalls all of :math:`S_j`, so every ``W`` misses at least one association of
  each.  A certificate whose bound :math:`\varepsilon \le 10^{-9}` is not
  proven exact (``certificate.exact`` false) excludes only recall at a
  normalised margin above :math:`\varepsilon`; it is kept when
  :math:`\varepsilon \le 10^{-9} - \delta_W(d)` (:func:`subset_tolerance`),
  which excludes lamcap's verified recall; ``details["upper_exact"]`` says
  whether every certificate is exact (then :math:`R_+` bounds exact recall
  too).

Both are found with the certified feasibility solver on sub-instances of the
associations (:func:`subset_instance`; method ``"cutting_plane"`` or
``"full_lp"``):

* the upper bound (:func:`_disjoint_infeasible_subsets`): solve the remaining
  associations; when infeasible, take the associations in the support of the
  certificate, shrink them with a deletion filter (drop one association, solve
  again; when still infeasible keep the new, smaller support, else keep the
  association; the associations least used by the certificate are tried
  first) to a set minimal under deletion, set it aside and continue until the
  remainder is feasible or the time is up;
* the lower bound (:func:`_lower_bound`): a start set, then greedy
  re-insertion of every other association that stays compatible (solve the set
  plus that association; associations the current ``W`` already recalls join
  without a solve); the start gets at most half of the lower bound's time, and
  the associations the Hebbian ``W`` recalls replace it when they are more (or
  when it found nothing in time); ``"drop"``, which ends by itself, may use all of
  the lower bound's time.  Start sets (``options={"start": ...}``):

  - ``"farkas"`` drops, one at a time, the association carrying the largest
    part of the Farkas certificate of the current set until it is feasible;
  - ``"adam"`` takes the associations that Adam on the softmax cross-entropy
    (``method="adam_ce"``) recalls;
  - ``"l1"`` those recalled by the ``W`` of an iteratively reweighted
    :math:`\ell_1` LP (HiGHS): minimise :math:`\sum_\mu c_\mu \xi_\mu`
    subject to :math:`\hat a_i^\top \operatorname{vec} W \ge 1 - \xi_{\mu(i)}`,
    :math:`\xi \ge 0`, with the mean normalised constraint level fixed to 1
    (the problem is homogeneous: without it :math:`W = 0` is optimal) and
    :math:`c_\mu = 1/(\xi_\mu + 0.05)` from the previous round (three rounds;
    dense rows, :math:`n(p-1)d^2 \le 5\times10^6` numbers);
  - ``"hinge"`` those recalled by the ``W`` of an iteratively reweighted squared
    hinge loss minimised by L-BFGS (:class:`_HingeLoss`, :func:`_hinge_start`):
    the same idea as ``"l1"`` without an LP, :math:`O(npd)` per iteration;
  - ``"drop"`` those recalled by the ``W`` of a peeling loop on the same loss
    (:func:`_drop_start`): every held association weighs 1, and after each
    60 L-BFGS iterations the 2% most violated of the held associations are
    given up, until the held ones are all recalled; no LP and no feasibility
    solve, so it reaches d = 64 (627 of 705 associations at 1.25 :math:`p_c`
    in 22 s, where ``"hinge"`` held 384 after 55 s);
  - ``"milp"`` those recalled by HiGHS's best ``W`` of the mixed-integer program
    of :func:`milp_recall` (optimal within HiGHS's tolerances at d = 8 in
    seconds to a minute; its dual bound is reported in ``details`` but is not
    a certificate, so the upper bound still comes only from Farkas
    certificates);
  - ``"auto"`` (default): ``"l1"`` when :math:`n(p-1)d^2 \le 10^6` (d = 12 up
    to 1.5 :math:`p_c`), else ``"drop"`` while its copy of the outputs
    (:math:`npd` numbers, decoupled model) is at most :math:`2^{27}` (1 GiB),
    else ``"adam"``.

  Compared at d = 12 and 16, p = n = 1.2 and 1.5 :math:`p_c`, both models, one
  seed, 120 s per instance on a shared 2-core machine, before the start's
  time was capped (``measurements/solvers_at_scale_recall.py --starts farkas
  adam l1``; docs/measurements/solvers_at_scale_recall_strategies.csv),
  lower bounds (decoupled and original at 1.2, then at 1.5 :math:`p_c`) at
  d = 12: ``"l1"`` 44, 41, 47, 44; ``"adam"`` 44, 41, 46, 43;
  ``"farkas"`` 43, 41, 44, 0 (its drops used the whole time); at d = 16:
  ``"adam"`` 67, 69, 75, 71; ``"farkas"`` 68, 67, 74, 72; ``"l1"`` 0, 24, 0,
  31 (its LP of 1.4 to 2.1 million entries did not finish in time).  Then
  ``"hinge"`` against ``"adam"`` at d = 16, p = 92 (1.5 :math:`p_c`), seeds 1
  and 2, both models, 20 s each (re-insertion included): ``"hinge"`` 72, 74,
  72, 75 (decoupled, then original); ``"adam"`` 71, 73, 69, 74; at d = 32,
  p = 228 (1.25 :math:`p_c`), 90 s: ``"hinge"`` 200 (decoupled) and 202
  (original) of 228.  Then ``"drop"`` against ``"hinge"`` on the instances of
  docs/measurements/recall-fraction.md (8 seeds, both models): the mean
  lower bound of ``"drop"`` is larger beyond 1.1 :math:`p_c` at d = 16 and 32,
  by up to 2.4 points of the fraction up to 1.5 :math:`p_c` and 3.9 to 5.1 at
  2 :math:`p_c`, and only ``"drop"`` converges at d = 64.  Hence ``"auto"``;
  the Hebbian floor and the time cap keep any start from ending with nothing.

Cost: each solve is one call of the feasibility solver on at most ``n``
associations; the Farkas start needs about :math:`n - R_-` of them, the
re-insertion as many, the deletion filter about :math:`|S_j|` per set.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap._validation import check_choice, check_flag
from lamcap.problems import Instance, hebbian_weights
from lamcap.solvers._c_output import stdout_descriptor_to_devnull
from lamcap.solvers._certificates import (
    FEASIBILITY_TOLERANCE,
    FarkasCertificate,
    certificate_bound,
    check_margins,
    constraint_margins,
    margin_error,
)
from lamcap.solvers._constraints import at_raw_margin
from lamcap.solvers._infeasibility import prove_infeasible
from lamcap.solvers._result import InfeasibleSubset, SolveResult, Verdict

MAX_RECALL_METHODS = ("auto", "cutting_plane", "full_lp")
"""Methods ``objective="max_recall"`` accepts: the certified full-rank solvers it runs on subsets."""

MAX_RECALL_OPTIONS = ("start", "shrink")
"""Keys of ``options`` with ``objective="max_recall"``: ``start`` (one of :data:`STARTS`,
default ``"auto"``) and ``shrink`` (bool, default True: the deletion filter)."""

STARTS = ("auto", "farkas", "adam", "l1", "hinge", "drop", "milp")
"""Start sets of the lower bound (module docstring)."""

_HINGE_ROUNDS = 30  # reweighting rounds of the hinge start
_HINGE_STEPS = 300  # L-BFGS iterations per round
_HINGE_PATIENCE = 8  # rounds without a larger recalled set before the start stops
_HINGE_POWER = 16.0  # power mean over rivals: a smooth stand-in for the largest violation
_HINGE_FLOOR = 0.05
_DROP_STEPS = 60  # L-BFGS iterations per round of the drop start
_DROP_SHARE = 0.02  # share of the violated held associations the drop start gives up per round
_START_SHARE = {"drop": 1.0}  # share of the lower bound's time a start may use (else 1/2):
# the drop start ends by itself and its W recalls more than re-insertion adds at d >= 32
_HINGE_MAX_OUTPUTS = 1 << 27  # output numbers the hinge start holds for the decoupled model (1 GiB)
_MILP_MARGIN = 1e-3  # margin of the recalled rows in the mixed-integer program (unit rows)
_L1_ROUNDS = 3
_L1_FLOOR = 0.05
_L1_MAX_ENTRIES = 5_000_000  # dense constraint rows of the l1 start (n (p - 1) d^2 numbers)
_L1_AUTO_ENTRIES = 1_000_000  # "auto" picks l1 up to here (d = 12 at 1.5 p_c), drop above

Indices = NDArray[np.int64]


def subset_instance(instance: Instance, associations: Indices) -> Instance:
    """The instance restricted to ``associations`` (their inputs, outputs and targets, in order).

    The same numbers: a constraint of association ``k`` of the subset is
    constraint ``associations[k]`` of ``instance``, bit for bit.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 3, n=5, seed=0)
    >>> part = subset_instance(instance, np.array([4, 1]))
    >>> part.n, bool(np.array_equal(part.outputs(0), instance.outputs(4)))
    (2, True)
    """
    chosen = np.asarray(associations, dtype=np.int64)
    outputs = instance.output_block(chosen) if instance.model == "decoupled" else None
    shared = instance.outputs(0) if instance.model == "original" else None
    return Instance.from_arrays(
        instance.inputs[chosen],
        np.asarray(outputs if shared is None else shared),
        instance.targets[chosen],
        model=instance.model,
        embeddings=None if instance.embeddings == "given" else instance.embeddings,
    )


def recalled_associations(instance: Instance, W: Any) -> Indices:
    r"""The associations ``W`` recalls, each verified: the lower bound of ``max_recall``.

    .. math::

        \{\mu :\ \min_{\rho \ne t(\mu)} \tilde\gamma_{\mu\rho}(W) > \max(10^{-9}, \delta_W)\}

    (normalised margins :math:`\tilde\gamma` recomputed in float64,
    :math:`\delta_W` their proven rounding error;
    :mod:`lamcap.solvers._certificates`).  The candidates are then confirmed
    by the very check a feasible ``W`` passes,
    :func:`~lamcap.solvers.check_margins` on the sub-instance of these
    associations; should it disagree, the associations it names are removed
    and it is run again, so nothing is counted that the check does not accept.
    ``W`` is a ``d x d`` array.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> recalled_associations(instance, hebbian_weights(instance)).tolist()
    [0, 1]
    >>> recalled_associations(instance, -hebbian_weights(instance)).tolist()
    []
    """
    margins = constraint_margins(instance, W)
    threshold = max(FEASIBILITY_TOLERANCE, margin_error(instance.d))
    rows = np.arange(instance.n)
    margins[rows, instance.targets] = np.inf
    good = np.all(np.isfinite(margins) | (margins == np.inf), axis=1)
    good &= np.min(np.where(np.isnan(margins), -np.inf, margins), axis=1) > threshold
    chosen = rows[good].astype(np.int64)
    while chosen.size:
        check = check_margins(subset_instance(instance, chosen), W)
        if check.verified:
            return chosen
        failing = {mu for mu, _, _ in check.worst}
        if not failing:
            return np.empty(0, dtype=np.int64)
        chosen = np.delete(chosen, sorted(failing))
    return chosen


class _Runner:
    """Calls of the feasibility solver on subsets, within one deadline; counts them."""

    def __init__(
        self,
        instance: Instance,
        solver: Callable[..., SolveResult],
        deadline: float,
        seed: int,
        trainer: Callable[..., SolveResult] | None = None,
    ) -> None:
        self.instance, self.solver, self.deadline, self.seed = instance, solver, deadline, seed
        self.trainer = trainer
        self.solves = 0
        self.milp: MilpRecall | None = None  # set by the "milp" start

    def remaining(self, deadline: float | None = None) -> float:
        return min(self.deadline, deadline or math.inf) - time.perf_counter()

    def solve(self, associations: Indices, deadline: float | None = None) -> SolveResult | None:
        """The solver's result on the subset, or None when no time is left."""
        left = self.remaining(deadline)
        if left <= 0:
            return None
        self.solves += 1
        return self.solver(
            subset_instance(self.instance, associations),
            rank=self.instance.d,
            raw_margin=1.0,
            max_seconds=None if math.isinf(left) else left,
            seed=self.seed,
        )


def _certificate_mass(
    instance: Instance, associations: Indices, certificate: FarkasCertificate
) -> NDArray[np.float64]:
    r"""Per association of the subset, its share :math:`\sum_\rho \alpha_{\mu\rho}\|e_\mu\|\nu_{\mu\rho}` of the certificate."""
    local = certificate.associations
    targets, rivals = instance.constraint_outputs(associations[local], certificate.competitors)
    scale = np.sqrt(np.einsum("kd,kd->k", targets, targets) + np.einsum("kd,kd->k", rivals, rivals))
    norms = np.linalg.norm(instance.inputs[associations[local]], axis=1)
    mass = np.zeros(associations.size)
    np.add.at(mass, local, certificate.alpha * scale * norms)
    return mass


def _support(associations: Indices, certificate: FarkasCertificate) -> Indices:
    used = np.unique(certificate.associations[certificate.alpha > 0])
    return associations[used]


def _mapped(associations: Indices, certificate: FarkasCertificate) -> FarkasCertificate:
    """A sub-instance's certificate in the indices of the instance (the same constraints)."""
    keep = certificate.alpha > 0
    return FarkasCertificate(
        associations[certificate.associations[keep]],
        certificate.competitors[keep].copy(),
        certificate.alpha[keep].copy(),
        certificate.epsilon,
        certificate.exact,
    )


def _shrunk(
    runner: _Runner, subset: Indices, certificate: FarkasCertificate, deadline: float
) -> tuple[Indices, FarkasCertificate]:
    """Deletion filter: drop associations while the rest stays proven infeasible."""
    mass = _certificate_mass(runner.instance, subset, _local(subset, certificate))
    order = subset[np.argsort(mass, kind="stable")]
    for mu in order.tolist():
        if mu not in subset or subset.size <= 1:
            continue
        trial = subset[subset != mu]
        result = runner.solve(trial, deadline)
        if result is None:
            break
        if result.verdict == "infeasible" and result.certificate is not None:
            subset, certificate = (
                _support(trial, result.certificate),
                _mapped(trial, result.certificate),
            )
    return subset, certificate


def _local(subset: Indices, certificate: FarkasCertificate) -> FarkasCertificate:
    """A certificate in the instance's indices, in the indices of ``subset`` (sorted)."""
    return FarkasCertificate(
        np.searchsorted(subset, certificate.associations).astype(np.int64),
        certificate.competitors,
        certificate.alpha,
        certificate.epsilon,
        certificate.exact,
    )


def _disjoint_infeasible_subsets(
    runner: _Runner, shrink: bool, deadline: float
) -> tuple[list[InfeasibleSubset], Indices | None, Any]:
    """Disjoint infeasible sets; and the remainder with its ``W`` when it was found feasible."""
    remaining = np.arange(runner.instance.n, dtype=np.int64)
    found: list[InfeasibleSubset] = []
    while remaining.size:
        result = runner.solve(remaining, deadline)
        if result is None or result.verdict == "undecided":
            return found, None, None
        if result.verdict == "feasible":
            return found, remaining, result.weights
        assert result.certificate is not None  # infeasible
        subset = _support(remaining, result.certificate)
        certificate = _mapped(remaining, result.certificate)
        if shrink:
            subset, certificate = _shrunk(runner, subset, certificate, deadline)
        found.append(InfeasibleSubset(subset, certificate))
        remaining = np.setdiff1d(remaining, subset)
    return found, remaining, None


def _farkas_start(runner: _Runner, deadline: float) -> tuple[Indices, Any]:
    """Drop the association with the largest certificate share until the rest is feasible."""
    kept = np.arange(runner.instance.n, dtype=np.int64)
    while kept.size:
        result = runner.solve(kept, deadline)
        if result is None:
            return np.empty(0, dtype=np.int64), None
        if result.verdict == "feasible":
            return kept, result.weights
        if result.verdict == "infeasible" and result.certificate is not None:
            mass = _certificate_mass(runner.instance, kept, result.certificate)
            kept = np.delete(kept, int(np.argmax(mass)))
        else:  # undecided on this subset: no certificate to choose by
            return np.empty(0, dtype=np.int64), None
    return kept, None


def _adam_start(runner: _Runner, deadline: float) -> tuple[Indices, Any]:
    left = runner.remaining(deadline)
    if left <= 0 or runner.trainer is None:
        return np.empty(0, dtype=np.int64), None
    trained = runner.trainer(
        runner.instance,
        rank=runner.instance.d,
        raw_margin=1.0,
        max_seconds=None if math.isinf(left) else left,
        seed=runner.seed,
    )
    assert isinstance(trained.weights, np.ndarray)  # full rank
    return recalled_associations(runner.instance, trained.weights), trained.weights


class _HingeLoss:
    r"""Weighted squared violations of the recall constraints and their gradient in ``W``.

    .. math::

        L(W) = \sum_\mu c_\mu \xi_\mu^2, \qquad
        \xi_\mu = \Big(\sum_{\rho \ne t(\mu)} h_{\mu\rho}^{q}\Big)^{1/q}, \qquad
        h_{\mu\rho} = \big[1 - \sqrt{d}\,\hat\gamma_{\mu\rho}(W)\big]_+,

    with :math:`\hat\gamma_{\mu\rho} = (u_t - u_\rho)^\top W e_\mu /
    (\|e_\mu\| \sqrt{\|u_t\|^2 + \|u_\rho\|^2})` (the normalised margin
    without :math:`\|W\|_F`: the scale of ``W`` is free) and :math:`q = 16`
    (close to the largest violation, yet smooth).  One evaluation costs two
    passes over the outputs, :math:`2 n p d` multiply-adds.
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        d, n = instance.d, instance.n
        self.rows = np.arange(n)
        self.targets = instance.targets
        self.shared: NDArray[np.float64] | None = None
        self.block: NDArray[np.float64] | None = None
        if instance.model == "original":
            self.shared = instance.outputs(0)
            squares = np.einsum("pd,pd->p", self.shared, self.shared)
            pair = squares[self.targets][:, None] + squares[None, :]
        else:
            self.block = instance.output_block(self.rows)
            squares = np.einsum("npd,npd->np", self.block, self.block)
            pair = squares[self.rows, self.targets][:, None] + squares
        inputs = np.linalg.norm(instance.inputs, axis=1)
        self.scale = math.sqrt(d) / (inputs[:, None] * np.sqrt(pair))
        self.scale[self.rows, self.targets] = 0.0
        self.weights = np.ones(n)

    def scores(self, W: NDArray[np.float64]) -> NDArray[np.float64]:
        """``s[mu, rho] = u_rho(mu)^T W e_mu``, shape ``(n, p)``."""
        images = self.instance.inputs @ W.T
        if self.shared is not None:
            return np.asarray(images @ self.shared.T)
        assert self.block is not None
        return np.asarray(np.matmul(self.block, images[:, :, None])[:, :, 0])

    def violations(self, W: NDArray[np.float64]) -> NDArray[np.float64]:
        r""":math:`h_{\mu\rho}`, zero at the targets."""
        scores = self.scores(W)
        margins = (scores[self.rows, self.targets][:, None] - scores) * self.scale
        violations = np.maximum(0.0, 1.0 - margins)
        violations[self.rows, self.targets] = 0.0
        return np.asarray(violations, dtype=np.float64)

    def per_association(self, violations: NDArray[np.float64]) -> NDArray[np.float64]:
        r""":math:`\xi_\mu`, the power mean computed without overflow."""
        largest = violations.max(axis=1)
        safe = np.where(largest > 0, largest, 1.0)
        ratio = violations / safe[:, None]
        mean = np.sum(ratio**_HINGE_POWER, axis=1) ** (1.0 / _HINGE_POWER)
        return np.asarray(largest * mean, dtype=np.float64)

    def __call__(self, flat: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        d = self.instance.d
        W = flat.reshape(d, d)
        violations = self.violations(W)
        xi = self.per_association(violations)
        loss = float(self.weights @ xi**2)
        safe = np.where(xi > 0, xi, 1.0)
        # d(c xi^2)/dh = 2 c xi (h / xi)^(q - 1); dh/dmargin = -1 where h > 0
        slope = (2.0 * self.weights * xi)[:, None] * (violations / safe[:, None]) ** (
            _HINGE_POWER - 1.0
        )
        rival = slope * self.scale  # dL/ds[mu, rho] for rho != t
        rival[self.rows, self.targets] = -rival.sum(axis=1)
        if self.shared is not None:
            pulls = rival @ self.shared
        else:
            assert self.block is not None
            pulls = np.matmul(rival[:, None, :], self.block)[:, 0, :]
        return loss, (pulls.T @ self.instance.inputs).ravel()


def _hinge_outputs(instance: Instance) -> int:
    """Output numbers the hinge start holds: all ``n p d`` of them for the decoupled model."""
    return instance.n * instance.p * instance.d if instance.model == "decoupled" else 0


def check_hinge_size(instance: Instance, start: str = "hinge") -> None:
    """ValueError when the hinge or drop start would hold more than 2**27 output numbers (1 GiB).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> check_hinge_size(make_instance(64, 705, seed=0))  # 31.8 million numbers: accepted
    """
    if _hinge_outputs(instance) > _HINGE_MAX_OUTPUTS:
        msg = (
            f"options start={start!r} holds the n p d = {_hinge_outputs(instance)} outputs of the "
            f"decoupled instance, at most {_HINGE_MAX_OUTPUTS} accepted: use start='adam' or "
            "'farkas'"
        )
        raise ValueError(msg)


def _lbfgs(
    loss: _HingeLoss, flat: NDArray[np.float64], steps: int, deadline: float
) -> NDArray[np.float64]:
    """At most ``steps`` L-BFGS iterations on ``loss`` from ``flat``, stopped at ``deadline``."""
    from scipy.optimize import minimize  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    lbfgs: Any = minimize  # a callable object as objective is outside scipy-stubs' overloads

    def stop_at_deadline(_: Any) -> None:
        if time.perf_counter() > deadline:
            raise StopIteration

    solved = lbfgs(
        loss,
        flat,
        jac=True,
        method="L-BFGS-B",
        callback=stop_at_deadline,
        options={"maxiter": steps, "gtol": 1e-14, "ftol": 1e-16},
    )
    return np.asarray(solved.x, dtype=np.float64)


def _hebbian_start_point(instance: Instance) -> NDArray[np.float64]:
    """The Hebbian ``W`` scaled to Frobenius norm 10, flattened: where both hinge starts begin."""
    hebbian = hebbian_weights(instance)
    return np.asarray((10.0 * hebbian / np.linalg.norm(hebbian)).ravel(), dtype=np.float64)


def _hinge_start(runner: _Runner, deadline: float) -> tuple[Indices, Any]:
    r"""Iteratively reweighted squared hinge (L-BFGS): the scalable relative of the l1 start.

    Each round minimises :class:`_HingeLoss` from the previous ``W`` (at most
    300 L-BFGS iterations), then sets :math:`c_\mu = 1/(\xi_\mu^2 + 0.05^2)`,
    so that :math:`c_\mu \xi_\mu^2` is about 1 for an association given up and
    about :math:`\xi_\mu^2/0.05^2` for one nearly recalled: the loss drifts
    from the sum of squared violations towards the number of associations given
    up.  At most 30 rounds, stopping after 8 without a larger recalled set;
    the ``W`` that recalls the most associations (:func:`recalled_associations`)
    is returned.  Starts from the Hebbian ``W``.  No LP: the cost per round is
    :math:`O(n p d)` per iteration, memory one copy of the outputs.
    """
    instance = runner.instance
    check_hinge_size(instance)
    loss = _HingeLoss(instance)
    flat = _hebbian_start_point(instance)
    best: tuple[Indices, Any] = (np.empty(0, dtype=np.int64), None)
    stale = 0
    for _ in range(_HINGE_ROUNDS):
        if runner.remaining(deadline) <= 0 or stale >= _HINGE_PATIENCE:
            break
        flat = _lbfgs(loss, flat, _HINGE_STEPS, deadline)
        W = flat.reshape(instance.d, instance.d)
        recalled = recalled_associations(instance, W)
        stale = 0 if recalled.size > best[0].size else stale + 1
        if recalled.size > best[0].size:
            best = (recalled, W.copy())
        xi = loss.per_association(loss.violations(W))
        loss.weights = 1.0 / (xi**2 + _HINGE_FLOOR**2)
    return best


def _drop_start(runner: _Runner, deadline: float) -> tuple[Indices, Any]:
    r"""Peel off the most violated associations: squared hinge on the rest, drop, repeat.

    The associations still held (all at first) each weigh 1 in
    :class:`_HingeLoss`, the dropped ones 0.  A round runs at most 60 L-BFGS
    iterations from the previous ``W`` (the Hebbian ``W`` at first), then drops
    the 2% (at least one) of the held associations with :math:`\xi_\mu > 0`
    whose :math:`\xi_\mu` are largest; it stops when every held association
    has :math:`\xi_\mu = 0` (normalised margins at least :math:`1/\sqrt d`
    times their scale) or at ``deadline``.  Returns the ``W`` of the round that
    recalled the most associations (:func:`recalled_associations`).  Where the
    reweighted hinge start (:func:`_hinge_start`) lowers the weight of hard
    associations gradually, this one gives them up outright: at d = 64,
    p = 705 (1.25 :math:`p_c`), decoupled, seed 0, it recalls 627 associations
    after 7 rounds and 22 s, where the hinge start holds 384 after 55 s.
    """
    instance = runner.instance
    check_hinge_size(instance, "drop")
    loss = _HingeLoss(instance)
    flat = _hebbian_start_point(instance)
    held = np.ones(instance.n, dtype=bool)
    best: tuple[Indices, Any] = (np.empty(0, dtype=np.int64), None)
    while runner.remaining(deadline) > 0:
        loss.weights = held.astype(np.float64)
        flat = _lbfgs(loss, flat, _DROP_STEPS, deadline)
        W = flat.reshape(instance.d, instance.d)
        recalled = recalled_associations(instance, W)
        if recalled.size > best[0].size:
            best = (recalled, W.copy())
        xi = loss.per_association(loss.violations(W))
        violated = np.flatnonzero(held & (xi > 0))
        if violated.size == 0:
            break
        count = max(1, int(_DROP_SHARE * violated.size))
        held[violated[np.argsort(-xi[violated], kind="stable")[:count]]] = False
    return best


def unit_constraint_rows(instance: Instance, *, start: str) -> tuple[NDArray[np.float64], Indices]:
    r"""Every recall constraint as a unit row of :math:`\operatorname{vec} W`, and its association.

    .. math::

        a_{\mu\rho} = \frac{\operatorname{vec}\big((u_{t(\mu)} - u_\rho) e_\mu^\top\big)}
        {\lVert (u_{t(\mu)} - u_\rho) e_\mu^\top \rVert_F},
        \qquad a_{\mu\rho}^\top \operatorname{vec} W > 0
        \iff \text{association } \mu \text{ beats rival } \rho ,

    rows in association order, rivals in output order.  Dense: refused (ValueError
    naming ``start``) above :math:`n(p-1)d^2 = 5\times10^6` numbers.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> rows, owners = unit_constraint_rows(make_instance(3, 4, n=2, seed=0), start="l1")
    >>> rows.shape, owners.tolist(), bool(np.allclose(np.linalg.norm(rows, axis=1), 1.0))
    ((6, 9), [0, 0, 0, 1, 1, 1], True)
    """
    d, n = instance.d, instance.n
    if instance.constraint_count * d * d > _L1_MAX_ENTRIES:
        msg = (
            f"options start={start!r} builds n (p - 1) d^2 = {instance.constraint_count * d * d} "
            f"dense entries, at most {_L1_MAX_ENTRIES} accepted: use start='hinge', 'adam' "
            "or 'farkas'"
        )
        raise ValueError(msg)
    mus = np.repeat(np.arange(n, dtype=np.int64), instance.p)
    rhos = np.tile(np.arange(instance.p, dtype=np.int64), n)
    mus, rhos = mus[rhos != instance.targets[mus]], rhos[rhos != instance.targets[mus]]
    targets, rivals = instance.constraint_outputs(mus, rhos)
    rows = ((targets - rivals)[:, :, None] * instance.inputs[mus][:, None, :]).reshape(-1, d * d)
    rows /= np.linalg.norm(rows, axis=1)[:, None]
    return rows, mus


@dataclass(frozen=True)
class MilpRecall:
    """What HiGHS's mixed-integer program says of the best recall (:func:`milp_recall`).

    Attributes
    ----------
    weights : ndarray or None
        HiGHS's best ``W`` (``d x d``), None when it found none in time.
    recalled : ndarray of int
        The associations ``weights`` recalls, verified by :func:`recalled_associations`
        (a lower bound on the best count, like ``recall_lower``).
    incumbent : int
        How many HiGHS counts as recalled (within its own tolerances).
    bound : float
        HiGHS's dual bound on the count: floating point, **not a certificate**.
    optimal : bool
        HiGHS proved its incumbent optimal (within its tolerances).
    """

    weights: NDArray[np.float64] | None
    recalled: Indices
    incumbent: int
    bound: float
    optimal: bool


def milp_recall(instance: Instance, *, time_limit: float, start: str = "milp") -> MilpRecall:
    r"""The best recall as a mixed-integer program, solved by HiGHS (``scipy.optimize.milp``).

    .. math::

        \max \sum_\mu z_\mu \quad\text{s.t.}\quad
        a_{\mu\rho}^\top \operatorname{vec} W \ge \gamma - M (1 - z_\mu)\ \ \forall \rho \ne t(\mu),
        \qquad |W_{ij}| \le 1,\ z_\mu \in \{0, 1\},

    with the unit rows of :func:`unit_constraint_rows`, :math:`\gamma = 10^{-3}` and
    :math:`M = \gamma + d` (on the box :math:`|a^\top \operatorname{vec} W| \le
    \lVert a\rVert_1 \le d`, so :math:`z_\mu = 0` frees association :math:`\mu`).  The
    box and :math:`\gamma` decide which recall counts through the margins on the unit
    rows, :math:`a^\top \operatorname{vec} W / \lVert W\rVert_F` (the normalised
    margin times :math:`\sqrt{\lVert u_t\rVert^2 + \lVert u_\rho\rVert^2} / \lVert
    u_t - u_\rho\rVert \ge 1/\sqrt2`).  A set some ``W`` recalls with every such margin
    at least :math:`10^{-3}` is always feasible (``W / max|W_ij|`` lies in the box with
    rows at :math:`10^{-3}\lVert W\rVert_F / \max|W_{ij}| \ge 10^{-3}`); a set recalled
    only at margins below :math:`10^{-3}/d` never is (:math:`\lVert W\rVert_F \le d` in
    the box); in between it depends on :math:`\lVert W\rVert_F / \max|W_{ij}|`, which
    lies between 1 and :math:`d`.  HiGHS works in floating point, so its optimum and dual bound
    are measurements; only the recalled set of its ``W``, re-checked by
    :func:`recalled_associations`, is certified.  Small instances it solves to
    optimality within its tolerances: at d = 8, p = n = 28 (1.25 :math:`p_c`)
    it proved the optimum in 0.4-83 s on 12 of 12 instances
    (docs/measurements/recall-fraction.md); at d = 10 it does not finish in
    300 s, the cost grows steeply with ``n`` and ``d``.

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> found = milp_recall(make_instance(3, 6, seed=0), time_limit=30.0)
    >>> found.optimal, found.incumbent == found.recalled.size
    (True, True)
    """
    import scipy.sparse  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415
    from scipy.optimize import Bounds, LinearConstraint, milp  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    d, n = instance.d, instance.n
    rows, owners = unit_constraint_rows(instance, start=start)
    big = _MILP_MARGIN + d
    switches = scipy.sparse.csr_matrix(
        (np.full(owners.size, -big), (np.arange(owners.size), owners)), shape=(owners.size, n)
    )
    system = scipy.sparse.hstack([scipy.sparse.csr_matrix(rows), switches]).tocsr()
    solver: Any = milp  # the sparse system is outside scipy-stubs' overloads
    # HiGHS's MIP solver prints debugging lines from C++ under time limits
    with stdout_descriptor_to_devnull():
        solved = solver(
            np.concatenate([np.zeros(d * d), -np.ones(n)]),
            constraints=[LinearConstraint(system, lb=_MILP_MARGIN - big, ub=np.inf)],
            integrality=np.concatenate([np.zeros(d * d), np.ones(n)]),
            bounds=Bounds(np.concatenate([-np.ones(d * d), np.zeros(n)]), np.ones(d * d + n)),
            options={"time_limit": max(time_limit, 1e-3)},
        )
    if solved.x is None:
        bound = float(n) if solved.mip_dual_bound is None else -float(solved.mip_dual_bound)
        return MilpRecall(None, np.empty(0, dtype=np.int64), 0, bound, False)
    weights = np.asarray(solved.x[: d * d], dtype=np.float64).reshape(d, d)
    return MilpRecall(
        weights,
        recalled_associations(instance, weights),
        round(-float(solved.fun)),
        -float(solved.mip_dual_bound),
        solved.status == 0,
    )


def _milp_start(runner: _Runner, deadline: float) -> tuple[Indices, Any]:
    """The verified recalled set of HiGHS's best ``W`` within the start's time (:func:`milp_recall`)."""
    left = runner.remaining(deadline)
    if left <= 0:
        return np.empty(0, dtype=np.int64), None
    found = milp_recall(runner.instance, time_limit=min(left, 1e6))
    runner.milp = found
    return found.recalled, found.weights


def _l1_start(runner: _Runner, deadline: float) -> tuple[Indices, Any]:
    import scipy.sparse  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415
    from scipy.optimize import linprog as scipy_linprog  # type: ignore[import-untyped,unused-ignore]  # noqa: PLC0415

    instance = runner.instance
    d, n = instance.d, instance.n
    rows, mus = unit_constraint_rows(instance, start="l1")
    count = rows.shape[0]
    slack = scipy.sparse.csr_matrix((np.ones(count), (np.arange(count), mus)), shape=(count, n))
    system = scipy.sparse.hstack([-scipy.sparse.csr_matrix(rows), -slack]).tocsr()
    mean_level = np.concatenate([rows.sum(axis=0), np.zeros(n)])[None, :]
    bounds = [(None, None)] * (d * d) + [(0.0, None)] * n
    linprog: Any = scipy_linprog  # HiGHS; the sparse system is outside scipy-stubs' overloads
    costs = np.ones(n)
    best: tuple[Indices, Any] = (np.empty(0, dtype=np.int64), None)
    for _ in range(_L1_ROUNDS):
        left = runner.remaining(deadline)
        if left <= 0:
            break
        solved = linprog(
            np.concatenate([np.zeros(d * d), costs]),
            A_ub=system,
            b_ub=-np.ones(count),
            A_eq=mean_level,
            b_eq=[float(count)],
            bounds=bounds,
            method="highs",
            options={"time_limit": min(left, 1e6)},
        )
        if solved.status != 0:
            break
        weights = np.asarray(solved.x[: d * d]).reshape(d, d)
        recalled = recalled_associations(instance, weights)
        if recalled.size > best[0].size:
            best = (recalled, weights)
        costs = 1.0 / (np.asarray(solved.x[d * d :]) + _L1_FLOOR)
    return best


def _inserted(runner: _Runner, kept: Indices, weights: Any, deadline: float) -> tuple[Indices, Any]:
    """Greedy re-insertion: every other association that stays compatible joins the set."""
    instance = runner.instance
    if weights is None:
        return kept, weights
    kept = np.union1d(kept, recalled_associations(instance, weights))
    margins = constraint_margins(instance, weights)
    margins[np.arange(instance.n), instance.targets] = np.inf
    lowest = np.nan_to_num(margins.min(axis=1), nan=-np.inf)
    candidates = np.setdiff1d(np.arange(instance.n), kept)
    for mu in candidates[np.argsort(-lowest[candidates], kind="stable")].tolist():
        if mu in kept:
            continue
        trial = np.union1d(kept, [mu])
        result = runner.solve(trial, deadline)
        if result is None:
            break
        if result.verdict == "feasible":
            weights = result.weights
            kept = np.union1d(trial, recalled_associations(instance, weights))
    return kept, weights


def resolved_start(instance: Instance, start: str) -> str:
    """``start``, with ``"auto"`` resolved: ``"l1"`` for a small dense LP, else ``"drop"``
    (``"adam"`` when the drop start would hold more than 2**27 output numbers).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> resolved_start(make_instance(4, 6, seed=0), "auto")
    'l1'
    """
    if start != "auto":
        return start
    if instance.constraint_count * instance.d * instance.d <= _L1_AUTO_ENTRIES:
        return "l1"
    return "drop" if _hinge_outputs(instance) <= _HINGE_MAX_OUTPUTS else "adam"


def _lower_bound(runner: _Runner, start: str, deadline: float) -> tuple[Indices, Any]:
    """Start set (at most half the time; ``"drop"`` all of it), then re-insertion; the
    Hebbian ``W`` as a floor."""
    starts = {
        "farkas": _farkas_start,
        "adam": _adam_start,
        "l1": _l1_start,
        "hinge": _hinge_start,
        "drop": _drop_start,
        "milp": _milp_start,
    }
    began = time.perf_counter()
    share = _START_SHARE.get(start, 0.5)
    cap = began + share * (deadline - began) if math.isfinite(deadline) else deadline
    kept, weights = starts[start](runner, cap)
    floor = hebbian_weights(runner.instance)
    recalled = recalled_associations(runner.instance, floor)
    if weights is None or recalled.size > kept.size:
        kept, weights = recalled, floor
    return _inserted(runner, kept, weights, deadline)


def check_recall_options(options: Mapping[str, Any] | None) -> tuple[str, bool]:
    """``(start, shrink)`` from ``options`` of ``objective="max_recall"``, or ValueError by name.

    Examples
    --------
    >>> check_recall_options({"start": "adam"})
    ('adam', True)
    >>> check_recall_options(None)
    ('auto', True)
    """
    options = dict(options or {})
    unknown = [key for key in options if key not in MAX_RECALL_OPTIONS]
    if unknown:
        msg = f"options for objective 'max_recall': takes only {MAX_RECALL_OPTIONS}, got {unknown[0]!r}"
        raise ValueError(msg)
    start = check_choice("start", options.get("start", "auto"), STARTS)
    shrink = check_flag("shrink", options.get("shrink", True))
    return start, shrink


def subset_tolerance(d: int) -> float:
    r"""Largest bound of a certificate not proven exact that still excludes verified recall.

    .. math::

        arepsilon_{\max} = 10^{-9} - \delta_W(d)

    A verified association has computed normalised margins above
    :math:`\max(10^{-9}, \delta_W)`, so exact margins above
    :math:`10^{-9} - \delta_W` (:func:`~lamcap.solvers._certificates.margin_error`);
    a certificate proving :math:`\gamma^*_S \le arepsilon < 10^{-9} - \delta_W`
    on the constraints of a set :math:`S` therefore leaves at least one
    association of :math:`S` unverified for every ``W``.  An exact certificate
    (:math:`\gamma^*_S \le 0`) needs no such margin.

    Examples
    --------
    >>> 1e-9 - subset_tolerance(64) < 1e-12
    True
    """
    return FEASIBILITY_TOLERANCE - margin_error(d)


def recall_result(
    instance: Instance,
    weights: Any,
    subsets: list[InfeasibleSubset],
    *,
    raw_margin: float,
    method: str,
    iterations: int = 0,
    seconds: float = 0.0,
    details: Mapping[str, Any] | None = None,
) -> SolveResult:
    r"""The :class:`~lamcap.solvers.SolveResult` of ``objective="max_recall"``, checked from scratch.

    ``weights`` (``d x d`` or None) are rescaled so that their smallest raw
    margin over the associations they recall is ``raw_margin``, then the
    recalled set is recomputed (:func:`recalled_associations`); every subset's
    certificate bound is recomputed on the instance
    (:func:`~lamcap.solvers._certificates.certificate_bound`), a claim of
    exactness is proven again (:func:`~lamcap.solvers.prove_infeasible`), and
    a subset is kept only when its certificate is exact or its bound is at
    most :func:`subset_tolerance`, its constraints belong to its
    associations and it is disjoint from the subsets kept before it.  Then

    .. math::

        R_- = |\text{recalled}| \le R^* \le R_+ = n - \#\text{subsets},

    and the verdict is ``"optimal"`` iff :math:`R_- = R_+`, ``"bounded"`` iff
    :math:`R_- > 0` or :math:`R_+ < n`, else ``"undecided"``.

    Examples
    --------
    >>> from lamcap.problems import make_instance, hebbian_weights
    >>> instance = make_instance(48, 3, n=2, seed=0)
    >>> result = recall_result(instance, hebbian_weights(instance), [], raw_margin=1.0,
    ...                        method="cutting_plane")
    >>> result.verdict, result.recall_lower, result.recall_upper
    ('optimal', 2, 2)
    """
    recalled = np.empty(0, dtype=np.int64)
    margin = math.nan
    if weights is not None:
        weights = np.asarray(weights, dtype=np.float64)
        recalled = recalled_associations(instance, weights)
        if recalled.size:
            weights = at_raw_margin(subset_instance(instance, recalled), weights, raw_margin)
            recalled = recalled_associations(instance, weights)
        margin = check_margins(instance, weights).min_margin
    kept: list[InfeasibleSubset] = []
    used: set[int] = set()
    for subset in subsets:
        members = {int(mu) for mu in subset.associations}
        certificate = subset.certificate
        try:
            bound = certificate_bound(instance, certificate)
        except ValueError:
            continue
        named = {int(mu) for mu in certificate.associations[certificate.alpha > 0]}
        exact = certificate.exact is True and prove_infeasible(instance, certificate).proven
        if not (exact or bound <= subset_tolerance(instance.d)):
            continue
        if not named <= members or members & used:
            continue
        used |= members
        stored = FarkasCertificate(
            certificate.associations, certificate.competitors, certificate.alpha, bound, exact
        )
        kept.append(InfeasibleSubset(np.asarray(subset.associations, dtype=np.int64), stored))
    lower, upper = int(recalled.size), instance.n - len(kept)
    verdict: Verdict = "undecided"
    if lower == upper:
        verdict = "optimal"
    elif lower > 0 or upper < instance.n:
        verdict = "bounded"
    return SolveResult(
        verdict=verdict,
        weights=weights,
        min_margin=margin,
        certificate=None,
        iterations=int(iterations),
        seconds=float(seconds),
        method=method,
        details={
            **dict(details or {}),
            "upper_exact": all(subset.certificate.exact for subset in kept),
        },
        instance_digest=instance.digest,
        recalled=recalled,
        recall_lower=lower,
        recall_upper=upper,
        infeasible_subsets=tuple(kept),
    )


def _milp_details(found: MilpRecall | None) -> dict[str, Any]:
    """``milp_incumbent``, ``milp_bound`` (not a certificate) and ``milp_optimal`` of the start."""
    if found is None:
        return {}
    return {
        "milp_incumbent": found.incumbent,
        "milp_bound": found.bound,
        "milp_optimal": found.optimal,
    }


def solve_max_recall(
    instance: Instance,
    *,
    method: str,
    solver: Callable[..., SolveResult],
    trainer: Callable[..., SolveResult] | None = None,
    raw_margin: float,
    max_seconds: float | None,
    seed: int,
    start: str = "auto",
    shrink: bool = True,
) -> SolveResult:
    r"""Certified bounds on the largest number of associations one ``W`` recalls.

    .. math::

        R_- = |\{\mu \text{ recalled by } W\}| \;\le\; R^* \;\le\; R_+ = n - k

    (module docstring; called by :func:`lamcap.solve` with
    ``objective="max_recall"``, which checks the arguments).  ``solver`` is
    the method function run on the subsets (``method`` its name:
    ``"cutting_plane"`` or ``"full_lp"``), ``trainer`` Adam on the
    cross-entropy for ``start="adam"`` (the registry's functions, passed in by
    :func:`lamcap.solve`: this module imports no method module).
    With ``max_seconds`` the lower bound gets the first half (and what it
    leaves), the upper bound the rest; each returns what it has reached.
    ``details``: ``"start"``, ``"shrink"``, ``"solves"``, ``"lower_seconds"``,
    ``"upper_seconds"``, ``"stopped"`` (``"time"`` or None) and
    ``"upper_exact"``; with ``start="milp"`` also ``"milp_incumbent"``,
    ``"milp_bound"`` (HiGHS's dual bound, floating point, not a certificate)
    and ``"milp_optimal"`` (:func:`milp_recall`).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> from lamcap.solvers._cutting_plane import solve_cutting_plane
    >>> result = solve_max_recall(make_instance(4, 6, seed=0), method="cutting_plane",
    ...                           solver=solve_cutting_plane, raw_margin=1.0,
    ...                           max_seconds=None, seed=0)
    >>> result.recall_lower <= result.recall_upper, result.verdict in ("optimal", "bounded")
    (True, True)
    """
    started = time.perf_counter()
    deadline = math.inf if max_seconds is None else started + max_seconds
    runner = _Runner(instance, solver, deadline, seed, trainer)
    half = math.inf if max_seconds is None else started + max_seconds / 2
    start = resolved_start(instance, start)
    kept, weights = _lower_bound(runner, start, half)
    lower_seconds = time.perf_counter() - started
    subsets, remainder, remainder_weights = _disjoint_infeasible_subsets(runner, shrink, deadline)
    if remainder is not None and remainder_weights is not None and remainder.size > kept.size:
        weights = remainder_weights  # the feasible remainder recalls more than the start
    stopped = "time" if time.perf_counter() > deadline else None
    return recall_result(
        instance,
        weights,
        subsets,
        raw_margin=raw_margin,
        method=method,
        iterations=runner.solves,
        seconds=time.perf_counter() - started,
        details={
            "start": start,
            "shrink": shrink,
            "solves": runner.solves,
            "lower_seconds": lower_seconds,
            "upper_seconds": time.perf_counter() - started - lower_seconds,
            "stopped": stopped,
            **_milp_details(runner.milp),
        },
    )

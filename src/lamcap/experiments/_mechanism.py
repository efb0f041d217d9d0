r"""Solutions near capacity: their singular values and normalised scores (figures 4 and 5).

The mechanism predictions of arXiv:2605.10795 (quarter-circle spectrum, score
law :math:`\Pi_{K_m}(g)`; docs/theory/mechanism.md) describe one particular
storing matrix: the **max-margin** W, the minimiser of :math:`\|W\|_F` subject
to every raw margin :math:`(u_t - u_\rho)^\top W e_\mu \ge 1`.  Which matrix is
measured therefore matters, and every sample says which one it holds
(:data:`SOLUTIONS`):

* ``"max_margin"`` — ``lamcap.solve(instance, objective="max_margin")``, the
  matrix the predictions are about (full rank; kept only when the certified
  relative gap reaches :data:`MAX_MARGIN_TOLERANCE`);
* ``"first_feasible"`` — ``lamcap.solve(instance)``: the first certified
  storing W the cutting-plane solver finds (a labelled comparison);
* ``"adam_ce"`` — cross-entropy training stopped when every association is
  recalled (its direction tends to the max-margin one only as training goes
  on; a labelled comparison);
* ``"two_layer"`` — the rank-constrained trainer :math:`W = QR^\top` (no
  certified optimum exists below full rank; a labelled comparison).

:func:`solution_trial` solves one instance and returns, when a W is found,

* its non-zero singular values in *Frobenius units* (mean square 1), to
  compare with ``singular_value_density(s, κ)``, and their fourth-moment ratio
  :math:`E[s^4]/E[s^2]^2` (:meth:`lamcap.empirical.EmpiricalSpectrum.moment_ratio`);
* the *normalised* scores of W and of the Hebbian matrix of the same instance:
  each row divided by its competitors' exact spread :math:`\|W e_\mu\|/\sqrt d`
  (outputs with covariance :math:`I/d`; ``row_spread`` of
  :func:`lamcap.empirical.normalized_score_rows`), the units of
  :mod:`lamcap.theory._scores` and :mod:`lamcap.theory._hebbian`, split into
  target and competitors, and the per-matrix mean target score.  (Between
  issue 24 and this fix the rows were divided by one pooled MAD spread, which is
  off for every row because :math:`\|W e_\mu\|` varies: the quick reproduction
  then called both score claims at d = 16 inconsistent, 13–15% high.)

:func:`collect_solutions` pools the trials of one (d, κ, p, solution) run on
any executor (instance seeds derived like the sweeps', so the same instances
are shared by every solution type: paired comparisons).  Per-matrix
statistics are kept so that a claim can be judged with the spread between
instances (:mod:`lamcap.experiments._claims`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap.empirical import empirical_spectrum, normalized_score_rows
from lamcap.experiments._sweep import Cell, Sweep, Task
from lamcap.problems import hebbian_weights, make_instance, scores
from lamcap.solvers import solve
from lamcap.solvers._certificates import weights_matrix

SOLUTIONS = {
    "max_margin": "max-margin W",
    "first_feasible": "first feasible W",
    "adam_ce": "Adam/CE W",
    "two_layer": "two-layer W = QRᵀ",
}
"""Which storing matrix a sample holds (module docstring), and its label in reports and figures."""

MAX_MARGIN_TOLERANCE = 1e-4
r"""Certified relative gap of the max-margin W: :math:`\|W - W^*\|_F \le 10^{-2}\|W\|_F`."""

_METHOD_OF_SOLUTION = {
    "first_feasible": "cutting_plane",
    "adam_ce": "adam_ce",
    "two_layer": "two_layer",
}
_SOLUTION_OF_METHOD = {
    "auto": "first_feasible",
    "cutting_plane": "first_feasible",
    "full_lp": "first_feasible",
    "adam_ce": "adam_ce",
    "two_layer": "two_layer",
}


def _solve(instance: Any, task: Task, solution: str) -> Any:
    """The one place where a mechanism sample's matrix is computed."""

    if solution == "max_margin":
        return solve(
            instance,
            objective="max_margin",
            tolerance=MAX_MARGIN_TOLERANCE,
            raw_margin=task.raw_margin,
            max_seconds=task.max_seconds,
        )
    rank = None if task.rank >= task.d else task.rank
    return solve(
        instance,
        rank=rank,
        method=_METHOD_OF_SOLUTION[solution],
        raw_margin=task.raw_margin,
        max_seconds=task.max_seconds,
        seed=task.seed,
    )


def solution_trial(task: Task, solution: str | None = None) -> dict[str, Any]:
    """Solve ``task`` for ``solution`` (default: from ``task.method``); return its statistics.

    Keys: ``verdict``, ``p``, and when a W was found ``singular_values``
    (Frobenius units), ``ratio`` (:math:`E[s^4]/E[s^2]^2`), ``target``,
    ``competitors``, ``target_mean`` and their ``hebbian_*`` counterparts.
    """

    kind = _SOLUTION_OF_METHOD[task.method] if solution is None else solution
    if kind == "first_feasible" and task.rank < task.d:
        kind = "two_layer"
    instance = make_instance(task.d, task.p, model=task.model, seed=task.seed)
    result = _solve(instance, task, kind)
    record: dict[str, Any] = {"verdict": str(result.verdict), "p": task.p}
    gap = result.details.get("relative_gap")
    if gap is not None:
        record["relative_gap"] = float(gap)
        if not result.details.get("gap_reached", False):
            record["verdict"] = "undecided"  # a W, but not certified max-margin
    if record["verdict"] != "feasible" or result.weights is None:
        return record
    weights = weights_matrix(result.weights, task.d)
    spectrum = empirical_spectrum(weights, rank=task.rank)
    record["singular_values"] = spectrum.singular_values
    record["ratio"] = spectrum.moment_ratio()
    for prefix, matrix in (("", weights), ("hebbian_", hebbian_weights(instance))):
        spread = np.linalg.norm(instance.inputs @ matrix.T, axis=1) / math.sqrt(task.d)
        target, competitors, _ = normalized_score_rows(
            scores(instance, matrix), instance.targets, row_spread=spread
        )
        record[prefix + "target"], record[prefix + "competitors"] = target, competitors.ravel()
        record[prefix + "target_mean"] = float(np.mean(target))
    return record


def _empty() -> NDArray[np.float64]:
    return np.empty(0)


@dataclass(frozen=True)
class SolutionSample:
    """Pooled solutions of one (d, κ) at ``p`` associations.

    ``method`` names the matrix (a key of :data:`SOLUTIONS`, or a solver
    method for samples made before that distinction); the ``*_per_matrix``
    arrays hold one value per storing W found, for judging with the spread
    between instances.
    """

    d: int
    kappa: float
    p: int
    method: str
    solved: int
    feasible: int
    singular_values: NDArray[np.float64]
    target: NDArray[np.float64]
    competitors: NDArray[np.float64]
    hebbian_target: NDArray[np.float64]
    hebbian_competitors: NDArray[np.float64]
    ratio_per_matrix: NDArray[np.float64] = field(default_factory=_empty)
    target_mean_per_matrix: NDArray[np.float64] = field(default_factory=_empty)
    hebbian_target_mean_per_matrix: NDArray[np.float64] = field(default_factory=_empty)

    @property
    def label(self) -> str:
        """Human label of the matrix (:data:`SOLUTIONS`)."""
        return SOLUTIONS.get(self.method, f"{self.method} W")


def _pool(records: Iterable[dict[str, Any]], key: str) -> NDArray[np.float64]:
    parts = [np.atleast_1d(np.asarray(r[key], dtype=np.float64)) for r in records if key in r]
    return np.concatenate(parts) if parts else np.empty(0)


def solution_tasks(
    d: int, p: int, *, kappa: float = 1.0, seeds: int = 8, seed: int = 0
) -> list[Task]:
    """The ``seeds`` instances of size (d, p) a sample solves (shared by all solutions)."""
    sweep = Sweep(dims=(d,), kappas=(kappa,), seeds_per_point=seeds, seed=seed, name="mechanism")
    return sweep.tasks(Cell(d, kappa, "decoupled", "auto"), [p])


def pool_sample(
    records: list[dict[str, Any]], *, d: int, kappa: float, p: int, solution: str
) -> SolutionSample:
    """Assemble the trial records of one run into a :class:`SolutionSample`."""
    feasible = [r for r in records if r["verdict"] == "feasible" and "ratio" in r]
    return SolutionSample(
        d=d,
        kappa=kappa,
        p=p,
        method=solution,
        solved=len(records),
        feasible=len(feasible),
        singular_values=_pool(feasible, "singular_values"),
        target=_pool(feasible, "target"),
        competitors=_pool(feasible, "competitors"),
        hebbian_target=_pool(feasible, "hebbian_target"),
        hebbian_competitors=_pool(feasible, "hebbian_competitors"),
        ratio_per_matrix=_pool(feasible, "ratio"),
        target_mean_per_matrix=_pool(feasible, "target_mean"),
        hebbian_target_mean_per_matrix=_pool(feasible, "hebbian_target_mean"),
    )


def collect_solutions(
    executor: Executor,
    d: int,
    p: int,
    *,
    kappa: float = 1.0,
    seeds: int = 8,
    method: str = "auto",
    seed: int = 0,
    solution: str | None = None,
) -> SolutionSample:
    """Solve ``seeds`` instances of size (d, p) on ``executor`` and pool the storing W.

    ``solution`` (a key of :data:`SOLUTIONS`) chooses the matrix; by default it
    follows the solver ``method`` (``"auto"``: the first feasible W at full
    rank, the two-layer trainer below).
    """
    kind = solution
    if kind is None:
        kind = "two_layer" if kappa < 1.0 and method == "auto" else _SOLUTION_OF_METHOD[method]
    if kind not in SOLUTIONS:
        msg = f"solution must be one of {tuple(SOLUTIONS)}, got {kind!r}"
        raise ValueError(msg)
    trial = functools.partial(solution_trial, solution=kind)
    tasks = solution_tasks(d, p, kappa=kappa, seeds=seeds, seed=seed)
    records = [future.result() for future in [executor.submit(trial, t) for t in tasks]]
    return pool_sample(records, d=d, kappa=kappa, p=p, solution=kind)

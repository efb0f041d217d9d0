r"""Solutions at capacity: their singular values and normalised scores (figures 4 and 5).

:func:`solution_trial` solves one instance and returns, when feasible,

* the non-zero singular values of :math:`W` in *Frobenius units* (scaled so
  that their mean square is 1, i.e. :math:`\|W\|_F^2 = m`), to compare with
  ``singular_value_density(s, κ)`` (docs/theory/mechanism.md, spectrum);
* the *normalised* scores of the solution and of the Hebbian matrix of the same
  instance: score divided by the competitor spread :math:`\|W e_\mu\|/\sqrt d`
  (the units of :mod:`lamcap.theory.hebbian`; docs/theory/hebbian.md), split into the
  target and the competitors.

Which solution is measured matters (docs/theory/mechanism.md): this is the weight matrix
returned by :func:`lamcap.solve` with the given method; the figures use
``"adam_ce"`` at full rank (cross-entropy, direction tending to max-margin;
the cutting-plane LP solution is a vertex-like point with a heavier spectral
tail) and the two-layer trainer below.  :func:`collect_solutions` runs trials through any
executor with seeds derived like the sweeps' and keeps the feasible ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap.experiments.sweep import Cell, Sweep, Task
from lamcap.experiments.trials import solve_task

__all__ = ["SolutionSample", "collect_solutions", "normalised_scores", "solution_trial"]


def normalised_scores(
    all_scores: NDArray[np.float64],
    inputs: NDArray[np.float64],
    weights: NDArray[np.float64],
    targets: NDArray[np.int64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Target and competitor scores divided by the competitor spread ``|W e_mu| / sqrt(d)``."""
    d = weights.shape[0]
    spread = np.linalg.norm(inputs @ weights.T, axis=1) / math.sqrt(d)
    z = all_scores / spread[:, None]
    rows = np.arange(z.shape[0])
    target = z[rows, targets]
    mask = np.ones_like(z, dtype=bool)
    mask[rows, targets] = False
    return target, z[mask]


def solution_trial(task: Task) -> dict[str, Any]:
    """Solve ``task``; return the verdict, singular values and normalised scores."""
    from lamcap.problems import hebbian_weights, scores  # noqa: PLC0415

    instance, result, weights = solve_task(task)
    record: dict[str, Any] = {"verdict": str(result.verdict), "p": task.p}
    if result.verdict != "feasible" or weights is None:
        return record
    singular = np.linalg.svd(weights, compute_uv=False)[: task.rank]
    record["singular_values"] = singular * math.sqrt(task.rank / float(np.sum(singular**2)))
    inputs = np.asarray(instance.inputs, dtype=np.float64)
    record["target"], record["competitors"] = normalised_scores(
        scores(instance, weights), inputs, weights, instance.targets
    )
    hebbian = hebbian_weights(instance)
    record["hebbian_target"], record["hebbian_competitors"] = normalised_scores(
        scores(instance, hebbian), inputs, hebbian, instance.targets
    )
    return record


@dataclass(frozen=True)
class SolutionSample:
    """Pooled solutions of one (d, κ) at ``p`` associations."""

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


def _pool(records: Iterable[dict[str, Any]], key: str) -> NDArray[np.float64]:
    parts = [np.asarray(r[key], dtype=np.float64) for r in records if key in r]
    return np.concatenate(parts) if parts else np.empty(0)


def collect_solutions(
    executor: Executor,
    d: int,
    p: int,
    *,
    kappa: float = 1.0,
    seeds: int = 8,
    method: str = "auto",
    seed: int = 0,
) -> SolutionSample:
    """Solve ``seeds`` instances of size (d, p) on ``executor`` and pool the feasible ones."""
    sweep = Sweep(
        dims=(d,),
        kappas=(kappa,),
        methods=(method,),
        seeds_per_point=seeds,
        seed=seed,
        name="mechanism",
    )
    cell = Cell(d, kappa, "decoupled", method)
    futures = [executor.submit(solution_trial, task) for task in sweep.tasks(cell, [p])]
    records = [future.result() for future in futures]
    feasible = [r for r in records if r["verdict"] == "feasible"]
    return SolutionSample(
        d=d,
        kappa=kappa,
        p=p,
        method=method,
        solved=len(records),
        feasible=len(feasible),
        singular_values=_pool(feasible, "singular_values"),
        target=_pool(feasible, "target"),
        competitors=_pool(feasible, "competitors"),
        hebbian_target=_pool(feasible, "hebbian_target"),
        hebbian_competitors=_pool(feasible, "hebbian_competitors"),
    )

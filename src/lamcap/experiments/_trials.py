r"""Trial functions: what a worker does with one :class:`~lamcap.experiments.Task`.

A trial function is a picklable module-level callable ``trial(task) -> dict``
returning at least ``verdict`` (``"feasible"`` / ``"infeasible"`` /
``"undecided"``) and optionally ``min_margin``, ``accuracy`` (fraction of
associations recalled), ``seconds``, ``iterations``, ``solver_method`` and,
for an ``"infeasible"`` verdict, ``infeasible_proof``: ``"exact"`` (the
certificate proves :math:`\gamma^* \le 0`) or ``"bounded"`` (only
:math:`\gamma^* \le \varepsilon`; ``SolveResult.proven`` says which).

* :func:`solver_trial` (the default) draws the instance with
  :func:`lamcap.make_instance` and solves it with :func:`lamcap.solve`.  For
  ``method="hebbian"`` the verdict reports whether the Hebbian weights recall
  *every* association (``"feasible"``) or not (``"infeasible"``): the Hebbian
  rule is not a decision procedure, so "infeasible" there means "the rule
  fails", not a certificate.
* :func:`synthetic_trial` is a test double with a *known* transition, used to
  test the runner, the store and the transition fit independently of the
  solvers: the instance is feasible with probability
  :math:`1/(1 + (p / p^*)^{s})`, :math:`p^* = \kappa d^2/4`, :math:`s = 12`,
  decided by the instance seed; an infeasible verdict is proven exactly with
  probability 3/4 (else only bounded), from a second draw of the same seed.

Examples
--------
>>> from lamcap.experiments._sweep import Sweep, Cell
>>> task = Sweep(dims=(8,), seeds_per_point=1).tasks(Cell(8, 1.0, "decoupled", "auto"), [4])[0]
>>> synthetic_trial(task)["verdict"]
'feasible'
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lamcap.experiments._sweep import Task
from lamcap.problems import make_instance, recall_accuracy
from lamcap.solvers import solve
from lamcap.solvers._certificates import weights_matrix

SYNTHETIC_SLOPE = 12.0
"""Steepness ``s`` of the synthetic transition in log p."""


def synthetic_transition(d: int, kappa: float = 1.0) -> float:
    """The known p* at which :func:`synthetic_trial` is feasible with probability 1/2."""
    return float(kappa * d * d / 4.0)


def synthetic_probability(task: Task) -> float:
    """Probability that the synthetic instance is feasible."""
    ratio = task.p / synthetic_transition(task.d, task.rank / task.d)
    return float(1.0 / (1.0 + ratio**SYNTHETIC_SLOPE))


def synthetic_trial(task: Task) -> dict[str, Any]:
    """Test double with a known transition; deterministic in the task seed."""
    uniform, proof_draw = np.random.default_rng(task.seed).random(2)
    feasible = bool(uniform < synthetic_probability(task))
    return {
        "verdict": "feasible" if feasible else "infeasible",
        "infeasible_proof": None if feasible else ("exact" if proof_draw < 0.75 else "bounded"),
        "min_margin": task.raw_margin if feasible else math.nan,
        "accuracy": 1.0 if feasible else 0.5,
        "seconds": 0.0,
        "iterations": 0,
        "solver_method": "synthetic",
    }


def slow_synthetic_trial(task: Task) -> dict[str, Any]:
    """:func:`synthetic_trial` after sleeping 50 ms (for interrupt/resume tests)."""
    time.sleep(0.05)
    return synthetic_trial(task)


def long_synthetic_trial(task: Task) -> dict[str, Any]:
    """:func:`synthetic_trial` after sleeping 3 s: instances a stopped sweep catches in flight."""
    time.sleep(3.0)
    return synthetic_trial(task)


def solve_task(task: Task) -> tuple[Any, Any, NDArray[np.float64] | None]:
    """Draw the instance of ``task``, solve it; return (instance, result, W or None)."""

    instance = make_instance(
        task.d, task.p, model=task.model, seed=task.seed, embeddings=task.embeddings
    )
    rank = None if task.rank >= task.d else task.rank
    result = solve(
        instance,
        rank=rank,
        method=task.method,
        raw_margin=task.raw_margin,
        max_seconds=task.max_seconds,
        seed=task.seed,
    )
    weights = None if result.weights is None else weights_matrix(result.weights, task.d)
    return instance, result, weights


def solver_trial(task: Task) -> dict[str, Any]:
    """Draw the instance of ``task`` and solve it with :func:`lamcap.solve`."""

    started = time.perf_counter()
    instance, result, weights = solve_task(task)
    accuracy = math.nan if weights is None else float(recall_accuracy(instance, weights))
    verdict = str(result.verdict)
    proof = None
    if task.method == "hebbian":
        verdict = "feasible" if accuracy == 1.0 else "infeasible"
    elif verdict == "infeasible" and result.certificate is not None:
        proof = "exact" if result.certificate.exact else "bounded"
    return {
        "verdict": verdict,
        "infeasible_proof": proof,
        "min_margin": float(result.min_margin),
        "accuracy": accuracy,
        "seconds": time.perf_counter() - started,
        "iterations": int(result.iterations),
        "solver_method": str(result.method),
    }

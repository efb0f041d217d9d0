"""Benchmark of the sweep machinery against the plain alternatives (run: python bench_experiments.py).

1. Adaptive refinement vs a brute p grid with the *same number of instances*:
   width of the 95% interval of p_c (synthetic trial with a known transition,
   so only the design differs).  Ratio < 1: adaptive is more precise.
2. Overhead of the resumable store: instances per second of ``run_sweep``
   in-process (one SQLite transaction per instance) vs a bare Python loop over
   the same trial function.  Timings are noisy on a shared machine.
3. Hebbian instances per second near the all-recalled transition (d = 16, 32, 64,
   p = ``hebbian_transition(d, finite=True)``, both models): one ``solver_trial`` per
   instance vs ``hebbian_trials`` on a batch of 200 (the same records; numba warmed
   first).  The original model's ``solver_trial`` depends on BLAS threads on a busy
   machine (docs/benchmarks.md, "Hebbian instances, batched").
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
from _timing import best_seconds

from lamcap.experiments._analysis import hebbian_transition
from lamcap.experiments._fitting import fit_transition
from lamcap.experiments._hebbian_trials import hebbian_trials
from lamcap.experiments._runner import run_sweep
from lamcap.experiments._sweep import Cell, Sweep
from lamcap.experiments._trials import solver_trial, synthetic_transition, synthetic_trial


def _guess(cell: Cell) -> float:
    return 1.3 * synthetic_transition(cell.d)


def _brute_width(d: int, instances: int, seeds: int, seed: int) -> float:
    points = max(2, instances // seeds)
    centre = _guess(Cell(d, 1.0, "decoupled", "auto"))
    grid = sorted({round(x) for x in np.geomspace(0.5 * centre, 1.6 * centre, points)})
    sweep = Sweep(dims=(d,), p_grid=tuple(grid), seeds_per_point=seeds, seed=seed)
    cell = next(sweep.cells())
    counts = {p: [0, 0] for p in grid}
    for task in sweep.tasks(cell, grid):
        counts[task.p][0] += synthetic_trial(task)["verdict"] == "feasible"
        counts[task.p][1] += 1
    fit = fit_transition(grid, [counts[p][0] for p in grid], [counts[p][1] for p in grid])
    return fit.high / fit.low - 1


def compare_designs(d: int = 24, seeds: int = 8, repeats: int = 5) -> tuple[float, float, int]:
    """Mean relative CI width of p_c: adaptive vs brute grid at equal instance counts."""
    adaptive, brute, total = [], [], 0
    for seed in range(repeats):
        sweep = Sweep(dims=(d,), seeds_per_point=seeds, rounds=3, seed=seed)
        with tempfile.TemporaryDirectory() as folder:
            outcome = run_sweep(
                sweep,
                Path(folder) / "r.sqlite",
                trial=synthetic_trial,
                workers=0,
                progress=False,
                guess=_guess,
            )
        fit = next(iter(outcome.fits.values()))
        assert fit is not None
        adaptive.append(fit.high / fit.low - 1)
        brute.append(_brute_width(d, outcome.ran, seeds, seed))
        total += outcome.ran
    return float(np.mean(adaptive)), float(np.mean(brute)), total // repeats


def store_overhead(count: int = 2000) -> tuple[float, float]:
    """Instances per second: run_sweep with the store vs a bare loop."""
    sweep = Sweep(dims=(64,), p_grid=tuple(range(900, 910)), seeds_per_point=count // 10)
    cell = next(sweep.cells())
    tasks = sweep.tasks(cell, list(sweep.p_grid or ()))
    started = time.perf_counter()
    for task in tasks:
        synthetic_trial(task)
    bare = len(tasks) / (time.perf_counter() - started)
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        run_sweep(
            sweep, Path(folder) / "r.sqlite", trial=synthetic_trial, workers=0, progress=False
        )
        stored = len(tasks) / (time.perf_counter() - started)
    return bare, stored


def hebbian_batching(
    dims: tuple[int, ...] = (16, 32, 64), count: int = 200, model: str = "decoupled"
) -> list[tuple[int, int, float, float, int]]:
    """Hebbian instances per second: a solver_trial loop vs one hebbian_trials call.

    ``count`` instances per d at p nearest the finite-d transition; best of 3 runs
    each.  Returns ``(d, p, loop inst/s, batched inst/s, feasible)`` per d.
    """
    rows = []
    for d in dims:
        p = round(hebbian_transition(d, finite=True))
        sweep = Sweep(dims=(d,), methods=("hebbian",), models=(model,), seeds_per_point=count)
        tasks = sweep.tasks(Cell(d, 1.0, model, "hebbian"), [p])
        solver_trial(tasks[0])  # warm: numba kernels, caches
        batched = hebbian_trials(tasks)
        looped = [solver_trial(task) for task in tasks]
        assert [r["verdict"] for r in batched] == [r["verdict"] for r in looped]
        loop_seconds = best_seconds(lambda tasks=tasks: [solver_trial(t) for t in tasks])
        batch_seconds = best_seconds(lambda tasks=tasks: hebbian_trials(tasks))
        feasible = sum(r["verdict"] == "feasible" for r in batched)
        rows.append((d, p, count / loop_seconds, count / batch_seconds, feasible))
    return rows


def print_hebbian_batching(
    rows: list[tuple[int, int, float, float, int]], count: int = 200, model: str = "decoupled"
) -> None:
    """The table of :func:`hebbian_batching`: instances per second and their ratio."""
    print(f"\nHebbian instances per second near the transition ({model} model, Gaussian)")
    print(f"{'d':>4}{'p':>5}{'feasible':>10}{'solver_trial':>14}{'hebbian_trials':>16}{'ratio':>8}")
    for d, p, loop, batch, feasible in rows:
        share = f"{feasible}/{count}"
        print(f"{d:>4}{p:>5}{share:>10}{loop:>14.0f}{batch:>16.0f}{batch / loop:>8.1f}")


def main() -> None:
    """Print the three comparisons as tables with ratios."""
    adaptive, brute, instances = compare_designs()
    print(
        "p_c 95% interval width (relative), same instance count "
        f"({instances} per transition, synthetic trial, d = 24)"
    )
    print(f"{'design':<22}{'width':>10}{'ratio':>10}")
    print(f"{'brute geometric grid':<22}{brute:>10.3f}{1.0:>10.2f}")
    print(f"{'lamcap adaptive':<22}{adaptive:>10.3f}{adaptive / brute:>10.2f}")
    bare, stored = store_overhead()
    print("\nthroughput of a trivial trial (instances/s; the store's cost per instance)")
    print(f"{'method':<22}{'inst/s':>10}{'ratio':>10}")
    print(f"{'bare loop':<22}{bare:>10.0f}{1.0:>10.2f}")
    print(f"{'run_sweep + SQLite':<22}{stored:>10.0f}{stored / bare:>10.3f}")
    for model in ("decoupled", "original"):
        print_hebbian_batching(hebbian_batching(model=model), model=model)


if __name__ == "__main__":
    main()

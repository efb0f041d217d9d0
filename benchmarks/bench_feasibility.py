"""Benchmark: time to a verified W, lamcap's certified solver vs tuned Adam + cross-entropy.

Run (quick: d = 32 and 64, both models, 0.9 and 0.97 critical_p, 5 feasible
instances per cell)::

    python benchmarks/bench_feasibility.py
    python benchmarks/bench_feasibility.py --dims 128 --max-seconds 600 --lamcap-seconds 120
    python benchmarks/bench_feasibility.py --dims 32 --no-stage   # lamcap without the stage

Per cell (d, model, p = factor x critical_p(d)) seeds 0, 1, ... are drawn until
``--instances`` of them are feasible.  Each seed is solved by
``lamcap.solve(instance)`` (the certified solver: feasibility-first stage,
then the max-margin stages) and, when lamcap returns a verified W, by
``lamcap.solve(instance, method="adam_ce")`` right after it on the same
machine state (the order alternates from seed to seed), so the two are
measured interleaved under the same machine load average.  Instances lamcap proves
infeasible are counted and skipped (no method reaches a verified W there).

Each run gets a fresh instance whose outputs are already drawn when they
fit in the cache (``Instance.is_cached``), so neither method pays for
drawing them; streamed instances (decoupled, large d) draw them in every
score pass, as they would in use.  Times are wall-clock times of the whole
``solve`` call, including the final verification on all constraints.
Score passes are counted as calls of ``Instance.scored_blocks`` (one pass
over all n p outputs): lamcap's include its stage's passes and the
verification; Adam's include one per step plus its final checks.  The
physical limit is one (verifying) pass.

BLAS is pinned to one thread (``OPENBLAS_NUM_THREADS=1`` unless set): on a
shared 2-core machine multithreaded BLAS contends with itself and the other
jobs (measured: Adam/CE 10x slower per step at d = 32).  The load average
is printed before and after.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # after the thread settings: they must precede numpy
import math
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

import lamcap
from lamcap.problems import Instance
from lamcap.solvers import solve, verify
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane


@dataclass
class _Run:
    verdict: str
    seconds: float
    passes: int
    detail: str


_PASSES = [0]
_SCORED_BLOCKS = Instance.scored_blocks


def _counted_scored_blocks(self: Instance, *args: Any, **kwargs: Any) -> Any:
    _PASSES[0] += 1
    return _SCORED_BLOCKS(self, *args, **kwargs)


@contextmanager
def _counting() -> Iterator[None]:
    Instance.scored_blocks = _counted_scored_blocks  # type: ignore[method-assign]
    try:
        yield
    finally:
        Instance.scored_blocks = _SCORED_BLOCKS  # type: ignore[method-assign]


def _fresh(d: int, p: int, model: str, seed: int) -> Instance:
    """A new instance with its outputs drawn (when cached) and its targets read, untimed."""
    instance = lamcap.make_instance(d, p, model=model, seed=seed)
    if instance.is_cached:
        for _ in _SCORED_BLOCKS(instance, np.zeros((instance.n, instance.d))):
            pass
    instance.target_outputs()
    return instance


def _run_lamcap(instance: Instance, max_seconds: float, stage: bool) -> _Run:
    _PASSES[0] = 0
    start = time.perf_counter()
    result = solve_cutting_plane(
        instance,
        rank=instance.d,
        raw_margin=1.0,
        max_seconds=max_seconds,
        seed=0,
        options=CuttingPlaneOptions(feasibility_first=stage),
    )
    seconds = time.perf_counter() - start
    passes = _PASSES[0]  # before verify's own pass
    details = result.details
    detail = (
        f"stage {details['stage']}, feasibility {details.get('feasibility_stopped', '-')} "
        f"({details.get('feasibility_passes', 0)} passes, "
        f"{details.get('feasibility_evaluations', 0)} evaluations)"
    )
    assert result.verdict == "undecided" or verify(instance, result), result.verdict
    return _Run(result.verdict, seconds, passes, detail)


def _run_adam(instance: Instance, max_seconds: float) -> _Run:
    _PASSES[0] = 0
    start = time.perf_counter()
    result = solve(instance, method="adam_ce", max_seconds=max_seconds)
    seconds = time.perf_counter() - start
    passes = _PASSES[0]  # before verify's own pass
    assert result.verdict == "undecided" or verify(instance, result), result.verdict
    return _Run(result.verdict, seconds, passes, f"{result.iterations} steps")


def _warm_up() -> None:
    for model in ("decoupled", "original"):
        instance = lamcap.make_instance(12, 36, model=model, seed=0)
        solve(instance)
        solve(instance, method="adam_ce")


@dataclass
class _Cell:
    ratios: list[float]
    ours: list[_Run]
    adam: list[_Run]
    infeasible: int = 0
    undecided: int = 0
    lower_bounds: int = 0


def _cell(
    d: int,
    model: str,
    factor: float,
    instances: int,
    limits: tuple[float, float],
    stage: bool,
) -> _Cell:
    """One (d, model, factor) cell; ``limits`` are the time limits of lamcap and Adam/CE."""
    lamcap_seconds, max_seconds = limits
    p = round(factor * float(lamcap.critical_p(d)))
    cell = _Cell([], [], [])
    seed = 0
    while len(cell.ratios) < instances and seed < 4 * instances:
        adam_first = seed % 2 == 1
        adam_run = None
        if adam_first:
            adam_run = _run_adam(_fresh(d, p, model, seed), max_seconds)
        ours = _run_lamcap(_fresh(d, p, model, seed), lamcap_seconds, stage)
        if ours.verdict != "feasible":
            cell.infeasible += ours.verdict == "infeasible"
            cell.undecided += ours.verdict == "undecided"
            print(f"  d={d} {model} p={p} seed={seed}: lamcap {ours.verdict}, skipped", flush=True)
            seed += 1
            continue
        if adam_run is None:
            adam_run = _run_adam(_fresh(d, p, model, seed), max_seconds)
        ratio = adam_run.seconds / ours.seconds
        cell.lower_bounds += adam_run.verdict != "feasible"
        cell.ratios.append(ratio)
        cell.ours.append(ours)
        cell.adam.append(adam_run)
        shown = f"{ratio:.2f}" if adam_run.verdict == "feasible" else f">{ratio:.2f}"
        print(
            f"  d={d} {model} p={p} seed={seed}: lamcap {ours.seconds:.3f}s "
            f"{ours.passes} passes ({ours.detail}) | adam_ce {adam_run.verdict} "
            f"{adam_run.seconds:.3f}s {adam_run.passes} passes ({adam_run.detail}) "
            f"| ratio {shown}",
            flush=True,
        )
        seed += 1
    return cell


def _median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else math.nan


def main(argv: Sequence[str] = ()) -> None:
    """Run the benchmark (see the module docstring); ``argv`` as on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="*", default=[32, 64])
    parser.add_argument("--models", nargs="*", default=["decoupled", "original"])
    parser.add_argument("--factors", type=float, nargs="*", default=[0.9, 0.97])
    parser.add_argument("--instances", type=int, default=5, help="feasible instances per cell")
    parser.add_argument("--max-seconds", type=float, default=600.0, help="limit of Adam/CE")
    parser.add_argument(
        "--lamcap-seconds",
        type=float,
        default=None,
        help="limit of lamcap (default --max-seconds); above d = 96 infeasible instances "
        "have no exact stage and run to it, then are skipped",
    )
    parser.add_argument("--no-stage", action="store_true", help="lamcap without the stage")
    arguments = parser.parse_args(argv)
    print(
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; "
        f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}",
        flush=True,
    )
    _warm_up()
    rows = []
    with _counting():
        for d in arguments.dims:
            for model in arguments.models:
                for factor in arguments.factors:
                    cell = _cell(
                        d,
                        model,
                        factor,
                        arguments.instances,
                        (arguments.lamcap_seconds or arguments.max_seconds, arguments.max_seconds),
                        not arguments.no_stage,
                    )
                    rows.append((d, model, factor, cell))
    print(f"load average {os.getloadavg()[0]:.1f}")
    print(
        "| d | model | p/p_c | n | lamcap median s | Adam/CE median s | ratio median (min-max) "
        "| lamcap passes | Adam passes | skipped (infeasible, undecided) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for d, model, factor, cell in rows:
        ratios = cell.ratios
        bound = f" ({cell.lower_bounds} lower bounds)" if cell.lower_bounds else ""
        print(
            f"| {d} | {model} | {factor} | {len(ratios)} "
            f"| {_median([r.seconds for r in cell.ours]):.3f} "
            f"| {_median([r.seconds for r in cell.adam]):.3f} "
            f"| {_median(ratios):.2f}× ({min(ratios, default=math.nan):.2f}–"
            f"{max(ratios, default=math.nan):.2f}){bound} "
            f"| {_median([r.passes for r in cell.ours]):g} "
            f"| {_median([r.passes for r in cell.adam]):g} "
            f"| {cell.infeasible}, {cell.undecided} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])

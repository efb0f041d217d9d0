"""Benchmark: the certified solver's stages on fixed instances, for before/after comparisons.

Run (under the lamcap to measure; to compare two checkouts run it under each, e.g.
``PYTHONPATH=/path/to/other/src python benchmarks/bench_solver_stages.py``)::

    python benchmarks/bench_solver_stages.py
    python benchmarks/bench_solver_stages.py --repeats 5 --json stages.json

Times (CPU seconds of the process, the best of ``--repeats``: on a shared machine
wall-clock times vary by 2-3x between runs, CPU times much less), per case and
seed, the whole ``lamcap.solve`` call, and keeps the stage times (wall) it
reports in ``details`` (feasibility stage, score passes, dual ascent, exact stage),
plus one full score pass of the cutting plane (normalised and raw) and one
``raw_min_margin`` pass on their own.  The score
pass is found under its name in the lamcap being measured
(``lamcap.solvers._constraints.score_pass``, or the cutting plane's former
``_score_pass``), so the same script times both sides of the constraint-pass
refactor (issue 24; docs/benchmarks.md).  BLAS is pinned to one thread, kernels are
compiled and warmed before anything is timed.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import argparse  # after the thread settings: they must precede numpy
import functools
import json
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import lamcap
from lamcap.problems import Instance, hebbian_weights, make_instance
from lamcap.solvers import solve

CASES: list[tuple[str, int, float, str, dict[str, Any]]] = [
    ("feasible, decoupled", 32, 0.9, "decoupled", {}),
    ("feasible, original", 32, 0.9, "original", {}),
    ("feasible, decoupled", 64, 0.9, "decoupled", {}),
    ("infeasible, decoupled", 24, 1.05, "decoupled", {}),
    ("infeasible, original", 24, 1.05, "original", {}),
    ("max margin, decoupled", 16, 0.95, "decoupled", {"objective": "max_margin"}),
    ("hebbian", 64, 0.5, "decoupled", {"method": "hebbian"}),
    ("two_layer rank d/2", 16, 0.3, "decoupled", {"method": "two_layer", "rank": 8}),
]
STAGES = ("feasibility_seconds", "pass_seconds", "ascent_seconds", "exact_seconds")


def _pass_functions() -> dict[str, Callable[[Instance, Any], object]]:
    """One score pass (normalised, raw) and ``raw_min_margin``, in this lamcap's own names."""
    try:
        from lamcap.solvers._constraints import raw_min_margin, score_pass  # noqa: PLC0415

        def normalised(instance: Instance, weights: Any) -> object:
            member = np.zeros((instance.n, instance.p), dtype=bool)
            return score_pass(instance, weights, member, math.inf, 8)

        def raw(instance: Instance, weights: Any) -> object:
            member = np.zeros((instance.n, instance.p), dtype=bool)
            return score_pass(instance, weights, member, math.inf, 8, raw=True)

    except ImportError:  # the cutting plane's own numpy pass (before issue 24)
        from lamcap.solvers._cutting_plane import _score_pass  # type: ignore[attr-defined]  # noqa: PLC0415
        from lamcap.solvers._two_layer import raw_min_margin  # type: ignore[attr-defined,no-redef]  # noqa: PLC0415

        def normalised(instance: Instance, weights: Any) -> object:
            member = np.zeros((instance.n, instance.p), dtype=bool)
            return _score_pass(instance, weights, member, math.inf, 8)

        def raw(instance: Instance, weights: Any) -> object:
            member = np.zeros((instance.n, instance.p), dtype=bool)
            return _score_pass(instance, weights, member, math.inf, 8, True)

    return {"score pass": normalised, "score pass, raw": raw, "raw_min_margin": raw_min_margin}


def _best(function: Callable[[], object], repeats: int) -> float:
    """Smallest CPU time of ``repeats`` calls (CPU, not wall: the machine is shared)."""
    best = math.inf
    for _ in range(repeats):
        tick = time.process_time()
        function()
        best = min(best, time.process_time() - tick)
    return best


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Print (and return) the stage times of every case."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--json", default=None, help="also write the numbers here")
    args = parser.parse_args([] if argv is None else argv)  # run.py calls main() bare
    print(f"lamcap from {Path(lamcap.__file__).parent}; load {os.getloadavg()[0]:.1f}")
    for model in ("decoupled", "original"):  # compile and warm every kernel first
        warm = make_instance(8, 20, model=model, seed=0)
        solve(warm)
        solve(warm, objective="max_margin")
    passes = _pass_functions()
    for function in passes.values():
        function(make_instance(8, 20, seed=0), np.eye(8))
    numbers: dict[str, Any] = {"solve": {}, "passes": {}}
    for name, d, factor, model, keywords in CASES:
        p = round(factor * float(lamcap.critical_p(d)))
        label = f"{name}, d={d}, p={p}"
        rows = []
        for seed in range(args.seeds):
            instance = make_instance(d, p, model=model, seed=seed)
            seconds = []
            for _ in range(args.repeats):
                tick = time.process_time()
                result = solve(instance, **keywords)
                seconds.append(time.process_time() - tick)
            stages = {key: result.details.get(key) for key in STAGES}
            rows.append(
                {
                    "seed": seed,
                    "seconds": min(seconds),
                    "verdict": result.verdict,
                    "iterations": result.iterations,
                    **stages,
                }
            )
        numbers["solve"][label] = rows
        shown = ", ".join(
            f"{row['verdict']} {row['iterations']} it {row['seconds'] * 1e3:.1f} ms" for row in rows
        )
        print(f"solve  {label:42s} {shown}")
    for d, model in ((32, "decoupled"), (64, "decoupled"), (64, "original"), (128, "decoupled")):
        p = round(0.9 * float(lamcap.critical_p(d)))
        instance = make_instance(d, p, model=model, seed=0)
        weights = hebbian_weights(instance)
        for name, function in passes.items():
            best = _best(functools.partial(function, instance, weights), args.repeats)
            label = f"{name}, d={d} {model}, p={p}"
            numbers["passes"][label] = best
            print(f"pass   {label:42s} {best * 1e3:8.2f} ms")
    print(f"load {os.getloadavg()[0]:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps(numbers, indent=1))
    medians = {
        label: statistics.median(row["seconds"] for row in rows)
        for label, rows in numbers["solve"].items()
    }
    numbers["medians"] = medians
    return numbers


if __name__ == "__main__":
    main(sys.argv[1:])

"""Benchmark: lamcap's certified full-rank solver vs HiGHS on the full LP (and Adam/CE).

Run (quick: d = 16, 24, 32 with 3 instances per point)::

    python benchmarks/bench_solvers.py
    python benchmarks/bench_solvers.py --instances 10 --large 64 128 --max-seconds 600

For each d in ``--dims`` and each p in {0.9, 1.0, 1.1} x critical_p(d), the
same instances (decoupled model, seeds 0..instances-1) go through

* lamcap: ``lamcap.solve(instance)`` (method ``cutting_plane``),
* full-LP HiGHS: ``lamcap.solve(instance, method="full_lp")`` (all n(p-1)
  dense rows, the obvious formulation; skipped above ``--full-lp-max-d``),
* Adam + cross-entropy (``method="adam_ce"``), when that baseline exists.

It prints verdicts, agreement on the instances both decided, the median time
ratio (alternative / lamcap), and for lamcap alone at the ``--large`` sizes the
verdict, time and the score-pass throughput as a fraction of this machine's
dense matmul rate (2 n p d flops per pass vs a float64 GEMM of similar size).
numba kernels are compiled and warmed before any timing.  Timings taken on a
shared machine are noisy.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import lamcap
from lamcap.solvers import solve, verify


def _critical_p(d: int) -> int:
    return round(float(lamcap.critical_p(d)))


def _warm_up() -> None:
    solve(lamcap.make_instance(6, 12, seed=0))
    solve(lamcap.make_instance(4, 40, seed=1))


def _matmul_rate() -> float:
    """Dense float64 GEMM rate of this machine (flop/s), best of three."""
    a = np.random.default_rng(0).standard_normal((1024, 256))
    b = np.random.default_rng(1).standard_normal((256, 1024))
    best = np.inf
    for _ in range(3):
        tick = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - tick)
    return 2 * 1024 * 256 * 1024 / best


def _run(instance: Any, method: str, max_seconds: float) -> Any:
    result = solve(instance, method=method, max_seconds=max_seconds)
    assert verify(instance, result), (method, result.verdict)
    return result


def _has_adam() -> bool:
    return importlib.util.find_spec("lamcap.solvers.baselines") is not None


def compare(
    dims: Sequence[int], instances: int, max_seconds: float, full_lp_max_d: int, with_adam: bool
) -> None:
    """Side-by-side table on the same instances near the critical p."""
    print(
        f"{'d':>4} {'p':>5} {'seed':>4} {'lamcap':>11} {'t_lamcap':>9} {'full_lp':>11} "
        f"{'t_full':>8} {'adam_ce':>11} {'t_adam':>8}"
    )
    for d in dims:
        critical = _critical_p(d)
        ratios_lp: list[float] = []
        ratios_adam: list[float] = []
        agree = disagree = undecided = total = capped = 0
        for factor in (0.9, 1.0, 1.1):
            p = round(factor * critical)
            for seed in range(instances):
                instance = lamcap.make_instance(d, p, seed=seed)
                ours = _run(instance, "cutting_plane", max_seconds)
                total += 1
                undecided += ours.verdict == "undecided"
                row = f"{d:>4} {p:>5} {seed:>4} {ours.verdict:>11} {ours.seconds:>9.2f}"
                if d <= full_lp_max_d:
                    full = _run(instance, "full_lp", max_seconds)
                    row += f" {full.verdict:>11} {full.seconds:>8.2f}"
                    if "undecided" not in (full.verdict, ours.verdict):
                        agree += full.verdict == ours.verdict
                        disagree += full.verdict != ours.verdict
                    ratios_lp.append(full.seconds / ours.seconds)
                    capped += full.verdict == "undecided"
                else:
                    row += f" {'-':>11} {'-':>8}"
                if with_adam and factor == 0.9:
                    adam = _run(instance, "adam_ce", max_seconds)
                    row += f" {adam.verdict:>11} {adam.seconds:>8.2f}"
                    if adam.verdict == "feasible" and ours.verdict == "feasible":
                        ratios_adam.append(adam.seconds / ours.seconds)
                print(row, flush=True)
        summary = (
            f"d={d}: p_c={critical}, lamcap undecided {undecided}/{total}; "
            f"verdicts agree {agree}, disagree {disagree}"
        )
        if ratios_lp:
            summary += (
                f"; full-LP/lamcap time median {statistics.median(ratios_lp):.1f}x "
                f"(min {min(ratios_lp):.1f}x; full LP undecided at the limit on {capped}, "
                "where the ratio is a lower bound)"
            )
        if ratios_adam:
            summary += f"; Adam-CE/lamcap at 0.9 p_c median {statistics.median(ratios_adam):.1f}x"
        print(summary, flush=True)


def large(dims: Sequence[int], max_seconds: float) -> None:
    """lamcap alone at large d near the critical p, with score-pass throughput."""
    rate = _matmul_rate()
    print(f"dense matmul rate: {rate / 1e9:.1f} GFlop/s")
    for d in dims:
        p = _critical_p(d)
        for factor in (0.9, 1.1):
            instance = lamcap.make_instance(d, round(factor * p), seed=0)
            result = _run(instance, "cutting_plane", max_seconds)
            details = result.details
            passes = result.iterations + 1
            flops = 2.0 * instance.n * instance.p * d * passes
            fraction = flops / max(details["pass_seconds"], 1e-9) / rate
            print(
                f"d={d} p={instance.p} ({factor} p_c): {result.verdict} in {result.seconds:.1f}s"
                f" ({result.iterations} rounds, stage {details['stage']}, working set "
                f"{details['working_set']}, margin in [{result.min_margin:.2e}, "
                f"{details['upper_bound']:.2e}]); score passes at {fraction:.2f} of matmul rate",
                flush=True,
            )


def main(argv: Sequence[str] = ()) -> None:
    """Run the solver benchmark (see the module docstring); ``argv`` as on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="*", default=[16, 24, 32])
    parser.add_argument("--instances", type=int, default=3)
    parser.add_argument(
        "--large", type=int, nargs="*", default=[], help="lamcap alone at these d (e.g. 64 128 256)"
    )
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--full-lp-max-d", type=int, default=32)
    parser.add_argument("--no-adam", action="store_true")
    arguments = parser.parse_args(argv)
    _warm_up()
    with_adam = _has_adam() and not arguments.no_adam
    compare(
        arguments.dims,
        arguments.instances,
        arguments.max_seconds,
        arguments.full_lp_max_d,
        with_adam,
    )
    if arguments.large:
        large(arguments.large, arguments.max_seconds)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Benchmark: lamcap's certified full-rank solver vs HiGHS on the full LP (and Adam/CE).

Run (quick: d = 16, 24, 32 with 3 instances per point)::

    python benchmarks/bench_solvers.py
    python benchmarks/bench_solvers.py --instances 10 --large 64 128 --max-seconds 600
    python benchmarks/bench_solvers.py --dims 32 --instances 10 --factors 1.0 --full-lp-seconds 120
    python benchmarks/bench_solvers.py --dims --score-pass 128 256 --exact 32 48 64
    python benchmarks/bench_solvers.py --objective max-margin --dims 16 32 64 --factors 0.95
    python benchmarks/bench_solvers.py --infeasible-large 96 128 --models decoupled original \
        --factors 1.07 --instances 3 --max-seconds 1800

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
``--score-pass`` times one streamed score pass of the decoupled model against
the obvious numpy code (the same generator and numbers, then einsum);
``--exact`` times the exact stage on infeasible instances (1.05 p_c), Wolfe's
min-norm point against scipy's NNLS on the dense rows (NNLS only up to d = 48).
``--infeasible-large`` solves instances above p_c at large d (default
1.07 p_c; ``--models``), each in a fresh process, and prints the verdict,
whether the infeasibility is proven exactly or only gamma* <= eps, wall and
CPU seconds, the peak resident memory against the solver's estimate, and
the load average before and after (no alternative runs at these sizes:
full-LP HiGHS decides nothing at d = 32 within 120 s).
numba kernels are compiled and warmed before any timing.  Timings taken on a
shared machine are noisy.

``--objective max-margin`` times ``lamcap.solve(instance, objective="max_margin",
tolerance=...)`` (dual ascent, then Wolfe's min-norm point with column
generation) on the same grid against the alternatives a user would write: the
first-order stage alone (``exact="none"``: block dual ascent with full passes,
the routine the spectrum measurement used before), and HiGHS' QP solver on
all n(p-1) dense rows (min 1/2 ||w||^2 s.t. rows w >= 1; up to
``--qp-max-d``).  Each row reports wall and CPU seconds, the certified
relative gap reached, and the 1-minute load average before and after (the
machine may be shared: wall time grows with the load average, CPU time much less).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

import lamcap
from lamcap.solvers import solve, verify
from lamcap.solvers._cutting_plane import CuttingPlaneOptions, solve_cutting_plane
from lamcap.solvers._full_lp import all_constraints, constraint_rows, new_highs


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
    assert verify(instance, result).consistent, (method, result.verdict)
    return result


def _has_adam() -> bool:
    return importlib.util.find_spec("lamcap.solvers._baselines") is not None


def compare(
    dims: Sequence[int],
    instances: int,
    max_seconds: float,
    full_lp_max_d: int,
    with_adam: bool,
    factors: Sequence[float] = (0.9, 1.0, 1.1),
    full_lp_seconds: float | None = None,
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
        for factor in factors:
            p = round(factor * critical)
            for seed in range(instances):
                instance = lamcap.make_instance(d, p, seed=seed)
                ours = _run(instance, "cutting_plane", max_seconds)
                total += 1
                undecided += ours.verdict == "undecided"
                row = f"{d:>4} {p:>5} {seed:>4} {ours.verdict:>11} {ours.seconds:>9.2f}"
                if d <= full_lp_max_d:
                    full = _run(instance, "full_lp", full_lp_seconds or max_seconds)
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


def score_pass(d: int, factor: float = 1.0) -> None:
    """One decoupled score pass: lamcap's numba draw vs numpy's generator + einsum, same numbers."""
    instance = lamcap.make_instance(d, round(factor * _critical_p(d)), seed=0)
    if instance.is_cached:
        print(f"d={d}: instance cached in memory, no streamed pass to time")
        return
    hidden = instance.inputs @ lamcap.hebbian_weights(instance).T
    scale = 1.0 / np.sqrt(d)
    tick = time.perf_counter()
    for _ in instance.scored_blocks(hidden):
        pass
    ours = time.perf_counter() - tick
    tick = time.perf_counter()
    for mu in range(instance.n):
        sequence = np.random.SeedSequence(instance.seed, spawn_key=(2, mu))
        outputs = np.random.Generator(np.random.SFC64(sequence)).standard_normal((instance.p, d))
        outputs *= scale
        np.einsum("pd,d->p", outputs, hidden[mu])
        np.einsum("pd,pd->p", outputs, outputs)
    numpy_seconds = time.perf_counter() - tick
    normals = instance.n * instance.p * d
    print(
        f"d={d} p={instance.p}: score pass over {normals:.2e} outputs: lamcap {ours:.2f}s "
        f"({normals / ours / 1e6:.0f} M normals/s), numpy generator + einsum "
        f"{numpy_seconds:.2f}s; ratio {numpy_seconds / ours:.1f}x",
        flush=True,
    )


def exact_stages(dims: Sequence[int], instances: int, max_seconds: float) -> None:
    """Exact stage on the same infeasible instances (1.05 p_c): Wolfe vs scipy NNLS."""
    for d in dims:
        p = round(1.05 * _critical_p(d))
        for seed in range(instances):
            instance = lamcap.make_instance(d, p, seed=seed)
            row = f"d={d} p={p} seed={seed}:"
            for exact in ("wolfe", "nnls") if d <= 48 else ("wolfe",):
                options = CuttingPlaneOptions(exact=exact)
                result = solve_cutting_plane(
                    instance,
                    rank=d,
                    raw_margin=1.0,
                    max_seconds=max_seconds,
                    seed=0,
                    options=options,
                )
                assert verify(instance, result).consistent
                row += (
                    f" {exact} {result.verdict} exact stage {result.details['exact_seconds']:.1f}s"
                    f" (total {result.seconds:.1f}s);"
                )
            print(row, flush=True)


def _one_infeasible(d: int, p: int, model: str, seed: int, max_seconds: float) -> dict[str, Any]:
    """Solve and verify one instance in this (fresh) process; times, load and peak memory."""
    import resource  # noqa: PLC0415 - POSIX only, like the rest of this measurement

    instance = lamcap.make_instance(d, p, model=model, seed=seed)
    load = _load()
    tick, cpu = time.perf_counter(), time.process_time()
    result = solve(instance, max_seconds=max_seconds)
    wall, cpu = time.perf_counter() - tick, time.process_time() - cpu
    check = verify(instance, result)
    assert check.consistent, (d, p, model, seed, result.verdict)
    details = result.details
    return {
        "verdict": result.verdict,
        "exact": bool(result.certificate is not None and result.certificate.exact),
        "epsilon": result.certificate.epsilon if result.certificate is not None else math.nan,
        "support": int(np.size(result.certificate.alpha)) if result.certificate else 0,
        "wall": wall,
        "cpu": cpu,
        "load": f"{load}-{_load()}",
        "peak_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9,  # KiB
        "estimate_gb": details.get("exact_memory_bytes", 0) / 1e9,
        "stages": (
            f"passes {details['pass_seconds']:.0f} s, ascent {details['ascent_seconds']:.0f} s, "
            f"exact {details['exact_seconds']:.0f} s, {result.iterations} rounds, "
            f"stopped {details['stopped']}"
        ),
    }


def infeasible_large(
    dims: Sequence[int],
    models: Sequence[str],
    factors: Sequence[float],
    instances: int,
    max_seconds: float,
) -> None:
    """Infeasible instances at large d: verdict, time, proof kind and peak memory of ``solve``.

    Each instance runs in a fresh process (spawned), so the peak resident
    memory reported (``ru_maxrss``) is that instance's own, imports and numba
    kernels included; the kernels are compiled once in the parent first.
    """
    import multiprocessing  # noqa: PLC0415

    context = multiprocessing.get_context("spawn")
    print(
        f"{'d':>4} {'model':>9} {'p/p_c':>5} {'p':>5} {'seed':>4} {'verdict':>10} {'proof':>9} "
        f"{'eps':>8} {'support':>7} {'wall':>7} {'cpu':>7} {'peak GB':>7} {'est GB':>6} {'load':>9}"
    )
    for d in dims:
        for model in models:
            for factor in factors:
                p = round(factor * float(lamcap.critical_p(d)))
                walls = []
                for seed in range(instances):
                    with context.Pool(1, maxtasksperchild=1) as pool:
                        row = pool.apply(_one_infeasible, (d, p, model, seed, max_seconds))
                    walls.append(row["wall"])
                    proof = (
                        "exact"
                        if row["exact"]
                        else ("eps only" if row["verdict"] == "infeasible" else "-")
                    )
                    print(
                        f"{d:>4} {model:>9} {factor:>5.2f} {p:>5} {seed:>4} {row['verdict']:>10} "
                        f"{proof:>9} {row['epsilon']:>8.1e} {row['support']:>7} {row['wall']:>7.1f} "
                        f"{row['cpu']:>7.1f} {row['peak_gb']:>7.2f} {row['estimate_gb']:>6.2f} "
                        f"{row['load']:>9} ({row['stages']})",
                        flush=True,
                    )
                print(
                    f"d={d} {model} {factor} p_c: median {statistics.median(walls):.1f} s, "
                    f"max {max(walls):.1f} s over {len(walls)} instances",
                    flush=True,
                )


def _timed_max_margin(
    instance: Any, tolerance: float, max_seconds: float, exact: str
) -> tuple[Any, float]:
    """Max-margin solve with the given exact stage; the result and its CPU seconds."""
    options = CuttingPlaneOptions(exact=exact, max_rounds=200 if exact != "none" else 10**6)
    tick = time.process_time()
    result = solve_cutting_plane(
        instance,
        rank=instance.d,
        raw_margin=1.0,
        max_seconds=max_seconds,
        seed=0,
        options=options,
        objective="max_margin",
        tolerance=tolerance,
    )
    assert verify(instance, result)
    return result, time.process_time() - tick


def _highs_qp(instance: Any, max_seconds: float) -> tuple[float, float]:
    """HiGHS QP on all dense rows: min 1/2 ||w||^2 s.t. rows w >= 1; (||w||, wall seconds)."""
    import highspy  # noqa: PLC0415

    tick = time.perf_counter()
    rows = constraint_rows(instance, *all_constraints(instance))
    count, size = rows.shape
    highs = new_highs()
    highs.setOptionValue("time_limit", max_seconds)
    infinity = highs.getInfinity()
    highs.addVars(size, np.full(size, -infinity), np.full(size, infinity))
    highs.addRows(
        count,
        np.ones(count),
        np.full(count, infinity),
        rows.size,
        np.arange(0, rows.size, size, dtype=np.int32),
        np.tile(np.arange(size, dtype=np.int32), count),
        rows.ravel(),
    )
    identity = np.arange(size, dtype=np.int32)
    highs.passHessian(size, size, 1, np.arange(size + 1, dtype=np.int32), identity, np.ones(size))
    highs.run()
    seconds = time.perf_counter() - tick
    if highs.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return math.nan, seconds
    return float(np.linalg.norm(highs.getSolution().col_value)), seconds


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def max_margin(
    dims: Sequence[int],
    instances: int,
    factors: Sequence[float],
    max_seconds: float,
    tolerance: float,
    qp_max_d: int,
    first_order: bool,
    alternative_seconds: float,
) -> None:
    """lamcap's max-margin solve vs the first-order stage alone vs HiGHS QP, same instances."""
    print(
        f"{'d':>4} {'p':>5} {'seed':>4} {'verdict':>10} {'wall':>8} {'cpu':>8} {'gap':>9} "
        f"{'ws':>6} {'1st-order wall':>14} {'gap':>9} {'HiGHS QP wall':>13} "
        f"{'|W| rel.diff':>12} {'loadavg':>9}"
    )
    for d in dims:
        for factor in factors:
            p = round(factor * _critical_p(d))
            for seed in range(instances):
                instance = lamcap.make_instance(d, p, seed=seed)
                load = _load()
                ours, cpu = _timed_max_margin(instance, tolerance, max_seconds, "wolfe")
                details = ours.details
                row = (
                    f"{d:>4} {p:>5} {seed:>4} {ours.verdict:>10} {ours.seconds:>8.1f} "
                    f"{cpu:>8.1f} {details['relative_gap']:>9.1e} {details['working_set']:>6}"
                )
                if first_order and ours.verdict == "feasible":
                    alone, _ = _timed_max_margin(instance, tolerance, alternative_seconds, "none")
                    row += f" {alone.seconds:>14.1f} {alone.details['relative_gap']:>9.1e}"
                else:
                    row += f" {'-':>14} {'-':>9}"
                if d <= qp_max_d and ours.verdict == "feasible":
                    norm, seconds = _highs_qp(instance, alternative_seconds)
                    ratio = abs(norm / details["primal_norm"] - 1)
                    row += f" {seconds:>13.1f} {ratio:>12.1e}"
                else:
                    row += f" {'-':>13} {'-':>12}"
                stages = (
                    f"passes {details['pass_seconds']:.0f} s, ascent {details['ascent_seconds']:.0f}"
                    f" s, exact {details['exact_seconds']:.0f} s, {ours.iterations} rounds"
                )
                print(row + f" {load:>4}-{_load():<4} ({stages})", flush=True)


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
    parser.add_argument(
        "--factors",
        type=float,
        nargs="*",
        default=None,
        help="p / p_c compared (default 0.9 1.0 1.1; 0.9 0.95 with --objective max-margin)",
    )
    parser.add_argument(
        "--objective",
        choices=("feasible", "max-margin"),
        default="feasible",
        help="feasible: verdict benchmark (default); max-margin: the optimal W, certified",
    )
    parser.add_argument(
        "--tolerance", type=float, default=1e-4, help="max-margin relative gap (default 1e-4)"
    )
    parser.add_argument(
        "--qp-max-d", type=int, default=16, help="largest d for the HiGHS QP (max-margin)"
    )
    parser.add_argument(
        "--alternative-seconds",
        type=float,
        default=300.0,
        help="max-margin: time limit of the first-order-only run and of HiGHS' QP",
    )
    parser.add_argument(
        "--no-first-order",
        action="store_true",
        help="max-margin: skip the first-order-only alternative",
    )
    parser.add_argument(
        "--full-lp-seconds", type=float, default=None, help="HiGHS limit (default --max-seconds)"
    )
    parser.add_argument(
        "--score-pass", type=int, nargs="*", default=[], help="numba vs numpy pass at these d"
    )
    parser.add_argument(
        "--exact", type=int, nargs="*", default=[], help="Wolfe vs NNLS exact stage at these d"
    )
    parser.add_argument(
        "--infeasible-large",
        type=int,
        nargs="*",
        default=[],
        help="infeasible instances at these d, one process each (times, proof, peak memory)",
    )
    parser.add_argument(
        "--models", nargs="*", default=["decoupled"], help="models for --infeasible-large"
    )
    arguments = parser.parse_args(argv)
    _warm_up()
    if arguments.infeasible_large:
        infeasible_large(
            arguments.infeasible_large,
            arguments.models,
            arguments.factors or [1.07],
            arguments.instances,
            arguments.max_seconds,
        )
        return
    if arguments.objective == "max-margin":
        max_margin(
            arguments.dims,
            arguments.instances,
            arguments.factors or [0.9, 0.95],
            arguments.max_seconds,
            arguments.tolerance,
            arguments.qp_max_d,
            not arguments.no_first_order,
            arguments.alternative_seconds,
        )
        return
    with_adam = _has_adam() and not arguments.no_adam
    compare(
        arguments.dims,
        arguments.instances,
        arguments.max_seconds,
        arguments.full_lp_max_d,
        with_adam,
        arguments.factors or [0.9, 1.0, 1.1],
        arguments.full_lp_seconds,
    )
    for d in arguments.score_pass:
        score_pass(d)
    if arguments.exact:
        exact_stages(arguments.exact, arguments.instances, arguments.max_seconds)
    if arguments.large:
        large(arguments.large, arguments.max_seconds)


if __name__ == "__main__":
    main(sys.argv[1:])

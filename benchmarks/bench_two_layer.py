"""Rank-constrained capacity (docs/theory/rank.md): two-layer trainer vs Adam / cross-entropy.

Run: ``python benchmarks/bench_two_layer.py [--dims 16 24] [--seeds 6] [--quick]``.

Part 1, the scientific check.  For W = Q R^T of rank r = round(kappa d), docs/theory/rank.md
predicts the transition (n = p associations) at

    p E[C_p] = w_r^2 = E[sum of the r largest squared singular values of a d x d
    standard Gaussian matrix]          (``lamcap.critical_p(d, kappa)``),

far above the naive "fixed random R" value p E[C_p] = d r (solved here with
``lamcap.statistical_dimension``).  For each kappa the script runs the trainer
(``solve_rank_constrained``, no full-rank check) on seeded decoupled instances on a
grid of p around both predictions and prints the success fraction, the p where it
crosses 1/2 (linear interpolation) and its ratio to each prediction.  At kappa = 1
it also prints the certified full-rank verdict (``lamcap.solve``), so trainer
failures can be told apart from infeasibility.  Success of a non-convex trainer
is a lower bound on feasibility.

Part 2, timing (noisy: the machine is shared).  Same instances at p = 0.9 p_c(d,
kappa) through the two-layer trainer and through the literature's protocol (Adam on
softmax cross-entropy over Q R^T, tuned learning rate); median seconds to a
verified solution and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Sequence

import lamcap
from lamcap.solvers._baselines import solve_adam_cross_entropy
from lamcap.solvers._two_layer import solve_rank_constrained

KAPPAS = (0.25, 0.5, 1.0)
FRACTIONS = (0.5, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25)


def naive_critical_p(d: int, rank: int) -> float:
    """Real p with p E[C_p] = d r (fixed random R: a d r-dimensional LP), interpolated.

    Bisection over integers (p E[C_p] increases with p and E[C_p] >= 1/2, so p <= 2 d r + 2).
    """

    def total_dimension(p: int) -> float:
        return p * float(lamcap.statistical_dimension(p))

    target = d * rank
    low, high = 2, 2 * target + 2
    while high - low > 1:
        middle = (low + high) // 2
        if total_dimension(middle) <= target:
            low = middle
        else:
            high = middle
    low_total, high_total = total_dimension(low), total_dimension(high)
    return low + (target - low_total) / (high_total - low_total)


def half_crossing(ps: Sequence[int], fractions: Sequence[float]) -> float:
    """First p where the success fraction drops through 1/2 (linear interpolation)."""
    for i in range(len(ps) - 1):
        if fractions[i] >= 0.5 > fractions[i + 1]:
            step = (fractions[i] - 0.5) / (fractions[i] - fractions[i + 1])
            return ps[i] + step * (ps[i + 1] - ps[i])
    return float("nan") if fractions[0] < 0.5 else float("inf")


def success_curve(d: int, kappa: float, seeds: int, restarts: int, steps: int) -> None:
    """Print success fraction vs p for one (d, kappa), and the transition vs both predictions."""
    rank = max(1, round(kappa * d))
    width_p = float(lamcap.critical_p(d, kappa))
    naive_p = naive_critical_p(d, rank)
    ps = sorted({max(3, round(f * width_p)) for f in FRACTIONS} | {round(naive_p)})
    fractions = []
    print(
        f"\nd = {d}, kappa = {kappa}, r = {rank}: p_c(width) = {width_p:.1f}, "
        f"p_c(naive d*r) = {naive_p:.1f}"
    )
    print(f"{'p':>5} {'p/p_width':>9} {'trained':>8} {'full-rank certified':>20} {'s/run':>6}")
    for p in ps:
        found = 0
        certified = 0
        undecided = 0
        started = time.perf_counter()
        for seed in range(seeds):
            instance = lamcap.make_instance(d, p, seed=1000 + seed)
            result = solve_rank_constrained(
                instance,
                rank=rank,
                seed=seed,
                restarts=restarts,
                steps_per_restart=steps,
                full_rank_check=False,
            )
            found += result.verdict == "feasible"
            if kappa == 1.0:
                verdict = lamcap.solve(instance, method="auto", max_seconds=120.0).verdict
                certified += verdict == "feasible"
                undecided += verdict == "undecided"
        seconds = (time.perf_counter() - started) / seeds
        fractions.append(found / seeds)
        truth = f"{certified}/{seeds} feasible" if kappa == 1.0 else "-"
        if undecided:
            truth += f" ({undecided} undecided)"
        print(
            f"{p:>5} {p / width_p:>9.2f} {found:>3}/{seeds:<4} {truth:>20} {seconds:>6.2f}",
            flush=True,
        )
    crossing = half_crossing(ps, fractions)
    print(
        f"  50% crossing p = {crossing:.1f}: {crossing / width_p:.2f} x p_c(width), "
        f"{crossing / naive_p:.2f} x p_c(naive)"
    )


def timing(d: int, kappa: float, seeds: int) -> None:
    """Median seconds to a verified solution at 0.9 p_c: two-layer trainer vs Adam/CE."""
    rank = max(1, round(kappa * d))
    p = round(0.9 * float(lamcap.critical_p(d, kappa)))
    times: dict[str, list[float]] = {"two_layer": [], "adam_ce": []}
    solved = {"two_layer": 0, "adam_ce": 0}
    for seed in range(seeds):
        instance = lamcap.make_instance(d, p, seed=2000 + seed)
        for name, solver in (
            ("two_layer", solve_rank_constrained),
            ("adam_ce", solve_adam_cross_entropy),
        ):
            started = time.perf_counter()
            result = solver(instance, rank=rank, seed=seed, max_seconds=60.0)
            times[name].append(time.perf_counter() - started)
            solved[name] += result.verdict == "feasible"
    lamcap_s = statistics.median(times["two_layer"])
    adam_s = statistics.median(times["adam_ce"])
    print(
        f"{d:>4} {kappa:>5} {rank:>3} {p:>5} {solved['two_layer']:>3}/{seeds:<3} "
        f"{solved['adam_ce']:>3}/{seeds:<3} {lamcap_s:>9.3f} {adam_s:>9.3f} "
        f"{adam_s / lamcap_s:>7.2f}",
        flush=True,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Print the rank-capacity check and the timing table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[16])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--restarts", type=int, default=2)
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--quick", action="store_true", help="d = 12, 3 seeds, short runs")
    arguments = parser.parse_args(argv)
    if arguments.quick:
        arguments.dims, arguments.seeds, arguments.steps = [12], 3, 2000
    # warm-up (numba kernels of the full-rank solver, BLAS)
    lamcap.solve(lamcap.make_instance(8, 10, seed=0), method="auto")
    print("Part 1: rank-constrained capacity vs p, two-layer trainer (docs/theory/rank.md)")
    for d in arguments.dims:
        for kappa in KAPPAS:
            success_curve(d, kappa, arguments.seeds, arguments.restarts, arguments.steps)
    print("\nPart 2: seconds to a verified solution at p = 0.9 p_c (median; shared machine, noisy)")
    print(
        f"{'d':>4} {'kappa':>5} {'r':>3} {'p':>5} {'2-layer':>7} {'adam_ce':>7} "
        f"{'2-layer s':>9} {'adam_ce s':>9} {'ratio':>7}"
    )
    for d in arguments.dims:
        for kappa in (0.25, 0.5):
            timing(d, kappa, arguments.seeds)


if __name__ == "__main__":
    main()

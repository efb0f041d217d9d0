r"""Measure how often ``lamcap reproduce`` calls a true claim "inconsistent" in a whole run.

Every simulated run is the quick (or full) plan with every claim true
(:mod:`lamcap.experiments._calibration`): transitions drawn instance by instance
from their finite-size laws through the runner's adaptive design, OP/DP ratios
that tend to 1, per-matrix statistics around their predictions.  Each run is
judged by the code of a real run (claims, tests, Holm's rule), so a run with
any "inconsistent" verdict is a false alarm.  Printed: the whole-run false
rate with its 95% Wilson interval, the same rate for a per-claim 5% rule
without multiplicity correction, and every claim's own rejection rate at 5%
(each should be about 5%).

Usage::

    python measurements/reproduce_false_alarms.py --runs 400 --processes 1
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from lamcap.experiments._calibration import CalibrationResult, false_inconsistent_rate
from lamcap.experiments._fitting import wilson_interval
from lamcap.experiments._reproduce import FULL, QUICK


def _batch(arguments: tuple[str, int, int]) -> CalibrationResult:
    plan, first, runs = arguments
    return false_inconsistent_rate(QUICK if plan == "quick" else FULL, runs, first_seed=first)


def _merge(results: list[CalibrationResult]) -> CalibrationResult:
    total = CalibrationResult()
    for result in results:
        total.runs += result.runs
        total.false_runs += result.false_runs
        total.uncorrected_false_runs += result.uncorrected_false_runs
        total.tested += result.tested
        for claim, count in result.rejections.items():
            total.rejections[claim] = total.rejections.get(claim, 0) + count
        for claim, count in result.tail.items():
            total.tail[claim] = total.tail.get(claim, 0) + count
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--plan", choices=("quick", "full"), default="quick")
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--batch", type=int, default=20, help="runs per progress line")
    arguments = parser.parse_args()
    started = time.perf_counter()
    batches = [
        (arguments.plan, first, min(arguments.batch, arguments.first_seed + arguments.runs - first))
        for first in range(
            arguments.first_seed, arguments.first_seed + arguments.runs, arguments.batch
        )
    ]
    results: list[CalibrationResult] = []
    with ProcessPoolExecutor(max_workers=max(1, arguments.processes)) as pool:
        for result in pool.map(_batch, batches):
            results.append(result)
            merged = _merge(results)
            print(
                f"{merged.runs} runs: {merged.false_runs} with a false 'inconsistent' "
                f"({time.perf_counter() - started:.0f} s)",
                flush=True,
            )
    total = _merge(results)
    low, high = total.interval()
    low_u, high_u = total.interval(uncorrected=True)
    tested = sorted(set(total.tested))
    print(f"\nplan {arguments.plan}, {total.runs} simulated runs, {tested} tested claims per run\n")
    print("| rule | runs with a false 'inconsistent' | rate [95% Wilson interval] |")
    print("| --- | --- | --- |")
    print(
        f"| Holm over the run, familywise 5% (lamcap reproduce) | {total.false_runs} | "
        f"{100 * total.false_runs / total.runs:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%] |"
    )
    print(
        f"| each claim at 5%, no correction | {total.uncorrected_false_runs} | "
        f"{100 * total.uncorrected_false_runs / total.runs:.1f}% "
        f"[{100 * low_u:.1f}%, {100 * high_u:.1f}%] |"
    )
    tests = sum(total.tested)
    for name, counts, level in (
        ("p < 5%", total.rejections, "5%"),
        ("p <= 5%/k (Holm's first threshold)", total.tail, "5%/k"),
    ):
        hits = sum(counts.values())
        nominal = 0.05 if level == "5%" else total.runs * 0.05 / tests
        h_low, h_high = (float(v) for v in wilson_interval(hits, tests))
        print(
            f"\npooled over all {tests} tests: {hits} with {name}, "
            f"{100 * hits / tests:.2f}% [{100 * h_low:.2f}%, {100 * h_high:.2f}%] "
            f"(valid p-values: at most {100 * nominal:.2f}%)"
        )
    print("\n| claim | p < 5% (uncorrected) | rate [95% Wilson interval] | p <= 5%/k |")
    print("| --- | --- | --- | --- |")
    for claim in sorted(total.rejections, key=lambda c: -total.rejections[c]):
        count = total.rejections[claim]
        c_low, c_high = (float(v) for v in wilson_interval(count, total.runs))
        print(
            f"| {claim} | {count} | {100 * count / total.runs:.1f}% "
            f"[{100 * c_low:.1f}%, {100 * c_high:.1f}%] | {total.tail.get(claim, 0)} |"
        )
    print(f"\n{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()

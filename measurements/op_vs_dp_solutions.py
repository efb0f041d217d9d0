"""Max-margin W of the original (OP) and decoupled (DP) problems at the same d and p/p_c.

arXiv:2605.10795 predicts that OP and DP have not only the same capacity but the
same optimal solution (same singular-value law, same score laws).  This script
solves both models with ``lamcap.solve(..., objective="max_margin")`` at
``p = round(fraction * critical_p(d))`` for several seeds, records per instance

* the spectrum statistics of W (E s^4 / E s^2^2, KS distance to the quarter circle),
* the score statistics in the units of the theory (mean normalised target level,
  mean number of competitors tied at the top, mean gap to the next competitor),

appends them to a CSV (rerunning skips instances already done), and compares the
two models per d with two-sample tests: Welch's t-test on the per-instance values
(instances are independent; values within one W are not, so pooled tests are
only descriptive) and a two-sample KS test on the pooled normalised singular
values.  Run::

    NUMBA_NUM_THREADS=1 python measurements/op_vs_dp_solutions.py \
        --d 16 24 32 --seeds 8 --csv docs/measurements/op_vs_dp_solutions.csv
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np
from scipy import stats

import lamcap
from lamcap.empirical import empirical_spectrum, normalized_scores

FIELDS = [
    "d",
    "p",
    "model",
    "seed",
    "verdict",
    "relative_gap",
    "seconds",
    "moment_ratio",
    "ks_quarter_circle",
    "target_mean",
    "tied_mean",
    "gap_mean",
]


def _done(path: Path) -> set[tuple[int, int, str, int]]:
    if not path.exists():
        return set()
    with path.open() as handle:
        return {
            (int(r["d"]), int(r["p"]), r["model"], int(r["seed"])) for r in csv.DictReader(handle)
        }


def _measure(d: int, p: int, model: str, seed: int) -> dict[str, object]:
    instance = lamcap.make_instance(d, p, model=model, seed=seed)
    started = time.perf_counter()
    result = lamcap.solve(instance, objective="max_margin", tolerance=1e-6)
    seconds = time.perf_counter() - started
    row: dict[str, object] = {
        "d": d,
        "p": p,
        "model": model,
        "seed": seed,
        "verdict": result.verdict,
        "seconds": f"{seconds:.2f}",
    }
    if result.verdict != "feasible":
        return row
    W = np.asarray(result.weights)
    spectrum = empirical_spectrum(W)
    summary = normalized_scores(lamcap.scores(instance, W), instance.targets)
    row.update(
        relative_gap=f"{result.details['relative_gap']:.3e}",
        moment_ratio=f"{spectrum.moment_ratio():.6f}",
        ks_quarter_circle=f"{spectrum.ks_distance():.6f}",
        target_mean=f"{summary.target.mean():.6f}",
        tied_mean=f"{summary.tied.mean():.6f}",
        gap_mean=f"{np.mean(summary.gap[np.isfinite(summary.gap)]):.6f}",
    )
    return row


def _compare(path: Path) -> None:
    with path.open() as handle:
        rows = [r for r in csv.DictReader(handle) if r["verdict"] == "feasible"]
    print("d   statistic          OP mean +- se        DP mean +- se        Welch p   n_OP n_DP")
    for d in sorted({int(r["d"]) for r in rows}):
        for statistic in ("moment_ratio", "ks_quarter_circle", "target_mean", "tied_mean"):
            values = {
                model: np.array(
                    [float(r[statistic]) for r in rows if int(r["d"]) == d and r["model"] == model]
                )
                for model in ("original", "decoupled")
            }
            op, dp = values["original"], values["decoupled"]
            if op.size < 2 or dp.size < 2:
                continue
            test = stats.ttest_ind(op, dp, equal_var=False)
            print(
                f"{d:<3d} {statistic:<18s} {op.mean():.4f} +- {op.std(ddof=1) / np.sqrt(op.size):.4f}"
                f"   {dp.mean():.4f} +- {dp.std(ddof=1) / np.sqrt(dp.size):.4f}"
                f"   {test.pvalue:.3f}     {op.size:<4d} {dp.size}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, nargs="+", default=[16, 24, 32])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--fraction", type=float, default=0.9, help="p / critical_p(d)")
    parser.add_argument("--csv", type=Path, required=True)
    parser.add_argument("--compare-only", action="store_true")
    arguments = parser.parse_args()
    if not arguments.compare_only:
        done = _done(arguments.csv)
        new_file = not arguments.csv.exists()
        with arguments.csv.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS)
            if new_file:
                writer.writeheader()
            for d in arguments.d:
                p = round(arguments.fraction * float(lamcap.critical_p(d)))
                for seed in range(arguments.seeds):
                    for model in ("original", "decoupled"):
                        if (d, p, model, seed) in done:
                            continue
                        writer.writerow(_measure(d, p, model, seed))
                        handle.flush()
    _compare(arguments.csv)


if __name__ == "__main__":
    main()

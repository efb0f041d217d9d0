"""Coverage of the OP/DP ratio intervals of docs/measurements/op_vs_dp.md, by simulation.

For every d of the committed OP/DP databases, both transitions are replaced by a
known law, counts are redrawn at the measured p grid with the measured number of
decided instances per p (the design is kept, as in the shift test's parametric
bootstrap), and the ratio is refitted.  Two generating laws:

* ``logistic`` — each model's fitted logistic transition (p_c and slope of
  ``lamcap.experiments.fit_transition``): the model the interval assumes;
* ``crofton`` — the decoupled Crofton law ``feasibility_probability(d, p)`` moved
  along log p to each model's measured transition (``lamcap.experiments._shift``):
  the finite-size shape, which the interval does not assume.

For each redraw the script records the profile likelihood-ratio statistic at the
true log ratio, T = 2[max l - l(delta_true)]
(``lamcap.experiments._model_comparison.ratio_statistics``); the chi-square interval
covers the truth when T <= 3.841, an interval with cutoff c when T <= c.  It prints
the coverage with its 95% Wilson interval per d and law, for the chi-square cutoff and,
with ``--cutoffs``, for the cutoffs in the ``lr_cutoff`` column of a ratio CSV
(``measurements/op_vs_dp.py``: the parametric-bootstrap calibration of
``calibrated_cutoff``, seed 1; run this script with another ``--seed`` for an
out-of-sample check), and the 95% quantile of T; ``--csv`` keeps every T::

    python measurements/op_vs_dp_ratio_coverage.py docs/measurements/data/opdp_small.sqlite \\
        docs/measurements/data/opdp_48.sqlite --draws 300 --seed 2 \\
        --cutoffs docs/measurements/op_vs_dp_ratio.csv --csv coverage.csv
"""

from __future__ import annotations

import argparse
import csv
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from lamcap.experiments._analysis import CellData, cell_data
from lamcap.experiments._fitting import CHI2_95, wilson_interval
from lamcap.experiments._model_comparison import GENERATING_LAWS, ratio_statistics


def _cells(databases: list[str]) -> dict[tuple[int, str], CellData]:
    cells = {}
    for database in databases:
        for cell, data in cell_data(database).items():
            if cell.kappa == 1.0 and cell.method == "auto":
                cells[cell.d, cell.model] = data
    return cells


def simulate(job: tuple[int, str, list[str], int, int]) -> list[float]:
    """Statistics T of ``draws`` redraws at size d under ``law`` (one job per process)."""
    d, law, databases, draws, seed = job
    cells = _cells(databases)
    statistics = ratio_statistics(
        cells[d, "original"], cells[d, "decoupled"], law, draws=draws, seed=seed
    )
    return [float(value) for value in statistics]


def _cutoffs(path: Path | None) -> dict[int, float]:
    if path is None:
        return {}
    with path.open(encoding="utf-8") as handle:
        return {int(row["d"]): float(row["lr_cutoff"]) for row in csv.DictReader(handle)}


def _coverage(values: np.ndarray, cutoff: float) -> str:
    covered = int(np.sum(values <= cutoff))
    low, high = wilson_interval(covered, values.size)
    return f"{100 * covered / values.size:.1f}% [{100 * float(low):.1f}, {100 * float(high):.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", nargs="+")
    parser.add_argument("--draws", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--cutoffs", type=Path, default=None, help="ratio CSV with lr_cutoff")
    parser.add_argument("--csv", type=Path, default=None)
    arguments = parser.parse_args()
    dims = sorted({d for d, model in _cells(arguments.databases) if model == "original"})
    jobs = [
        (d, law, arguments.databases, arguments.draws, arguments.seed)
        for law in GENERATING_LAWS
        for d in dims
    ]
    with ProcessPoolExecutor(arguments.processes) as pool:
        results = list(pool.map(simulate, jobs))
    cutoffs = _cutoffs(arguments.cutoffs)
    print(
        "| law | d | redraws | coverage, chi-square cutoff [95% CI] "
        "| coverage, calibrated cutoff [95% CI] | 95% quantile of T |"
    )
    print("|---|---|---|---|---|---|")
    rows = []
    for (d, law, *_), statistics in zip(jobs, results, strict=True):
        values = np.array(statistics)
        calibrated = _coverage(values, cutoffs[d]) if d in cutoffs else "–"
        print(
            f"| {law} | {d} | {values.size} | {_coverage(values, CHI2_95)} | {calibrated} "
            f"| {np.quantile(values, 0.95):.2f} |"
        )
        rows += [(law, d, value) for value in statistics]
    for law in GENERATING_LAWS:
        values = np.array([v for name, _, v in rows if name == law])
        covered = [v <= cutoffs[d] for name, d, v in rows if name == law and d in cutoffs]
        calibrated = "–"
        if covered:
            low, high = wilson_interval(sum(covered), len(covered))
            calibrated = (
                f"{100 * sum(covered) / len(covered):.1f}% "
                f"[{100 * float(low):.1f}, {100 * float(high):.1f}]"
            )
        print(
            f"| {law} | all | {values.size} | {_coverage(values, CHI2_95)} | {calibrated} "
            f"| {np.quantile(values, 0.95):.2f} |"
        )
    if arguments.csv is not None:
        with arguments.csv.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["law", "d", "statistic"])
            writer.writerows((law, d, f"{value:.6f}") for law, d, value in rows)


if __name__ == "__main__":
    main()

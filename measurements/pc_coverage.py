"""Coverage of the per-cell p_c intervals, measured by simulation through the runner's design.

Each simulated cell runs the adaptive design of a committed sweep
(:class:`lamcap.experiments._runner.CellState`: bracket, extensions,
refinement rounds, as ``lamcap sweep`` plans them) with every instance
storable with the probability of a known curve, the truth

.. math::

    F_s(p) = F\\bigl(m\\,(p/m)^{s}\\bigr),

where :math:`F` is the Crofton law ``feasibility_probability(d, p)`` (decoupled
problem, arXiv:2605.10795), :math:`m` its median and :math:`s` a slope factor:
:math:`s = 1` is the law itself, :math:`s = 1.2` and :math:`0.8` a curve 20%
steeper or flatter in :math:`\\log p` with the same 50% point :math:`m` (the
original problem's curve is the law's up to a shift and possibly a somewhat
different steepness).  Three interval methods see the same counts:

* ``law`` — :func:`lamcap.experiments._shift.law_transition` as lamcap uses
  it (capacity.csv, op_vs_dp.csv): the law moved along :math:`\\log p`, its
  slope free within ±20% (``SLOPE_RANGE``);
* ``shift`` — the same with the law's own slope (``slope_range=(1, 1)``);
* ``free`` — :func:`lamcap.experiments.fit_transition`, the free-slope
  logistic fit (what the tables used before).

A cell is covered when the 95% interval contains :math:`m`.  Designs: d = 16
as the committed ``opdp_small`` sweep (bracket 0.6–1.6 × ``critical_p``, 20
seeds per point, 3 refinement rounds), d = 64 as ``opdp_64`` (10 seeds, 2
rounds).  Per-cell results are appended to ``--csv`` (resumable: cells already
there are skipped; ``--max-seconds`` ends a chunk), and ``--summary`` writes
the coverage table (95% Wilson intervals) from whatever is there.

Command (chunks of at most 10 minutes, each size in its own process)::

    nice -n 10 python measurements/pc_coverage.py --d 16 --cells 1000 \\
        --csv cells_16.csv --max-seconds 540
    nice -n 10 python measurements/pc_coverage.py --d 64 --cells 1000 \\
        --csv cells_64.csv --max-seconds 540
    python measurements/pc_coverage.py --csv cells_16.csv cells_64.csv \\
        --summary docs/measurements/pc_coverage.csv

Result (1000 simulated cells per size and true slope, December 2, 2026, two
processes at ``nice 10`` beside other work, about 30 minutes each;
docs/measurements/pc_coverage.csv, 95% Wilson intervals about ±1.4 points):

======  ===========  =============  =============  =============
d       true slope   ``law``        ``shift``      ``free``
======  ===========  =============  =============  =============
16      1.0          94.8%          95.1%          93.8%
16      0.8          93.7%          90.1%          93.9%
16      1.2          95.8%          97.0%          93.6%
64      1.0          94.3%          94.9%          91.1%
64      0.8          91.2%          88.1%          91.3%
64      1.2          95.7%          97.2%          90.3%
======  ===========  =============  =============  =============

Median relative widths (high/low − 1) at the law's slope: 1.90% (``law``),
1.84% (``shift``), 1.82% (``free``) at d = 16; 0.99%, 0.94%, 0.95% at d = 64.
``--slope-evidence docs/measurements/data/*.sqlite`` gives the pooled slope
factor of the committed full-rank sweeps: 1.10 [0.90, 1.33] for the decoupled
problem, 1.18 [0.98, 1.33] for the original one.
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lamcap.experiments._fitting import fit_transition, wilson_interval
from lamcap.experiments._runner import CellState, theory_guess
from lamcap.experiments._shift import finite_size_law, law_transition
from lamcap.experiments._sweep import Cell, Sweep

DESIGNS = {
    16: {"seeds_per_point": 20, "rounds": 3},
    64: {"seeds_per_point": 10, "rounds": 2},
}
"""The committed sweeps' designs (docs/measurements/data: opdp_small, opdp_64)."""

SLOPES = (1.0, 0.8, 1.2)
METHODS = ("law", "shift", "free")
COLUMNS = (
    "d",
    "slope",
    "seed",
    "truth",
    "law_p_c",
    "law_low",
    "law_high",
    "shift_p_c",
    "shift_low",
    "shift_high",
    "free_p_c",
    "free_low",
    "free_high",
    "free_slope",
    "bracketed",
    "instances",
)


def truth_curve(d: int, slope: float) -> tuple[Callable[[int], float], float]:
    """(P(storable) at integer p, its 50% point) for the law at slope factor ``slope``."""
    law = finite_size_law(d)
    median = law.median()

    def probability(p: int) -> float:
        return float(law(np.array([median * (p / median) ** slope]))[0])

    return probability, median


def simulate(d: int, slope: float, seed: int) -> dict[str, object]:
    """One cell through the runner's adaptive design, counts drawn from the truth, both fits."""
    sweep = Sweep(dims=(d,), models=("decoupled",), seed=seed, **DESIGNS[d])
    cell = Cell(d, 1.0, "decoupled", "auto")
    probability, median = truth_curve(d, slope)
    rng = np.random.default_rng([seed, d, round(100 * slope)])
    state = CellState(cell, sweep, theory_guess(cell))
    verdicts: dict = {}
    while tasks := state.next_round(verdicts):
        for task in tasks:
            storable = rng.random() < probability(task.p)
            verdicts[task.key()] = "feasible" if storable else "infeasible"
    by_p: dict[int, list[bool]] = {}
    for task in state.planned:
        by_p.setdefault(task.p, []).append(verdicts[task.key()] == "feasible")
    p = np.array(sorted(by_p))
    k = np.array([sum(by_p[q]) for q in p])
    m = np.array([len(by_p[q]) for q in p])
    located = law_transition(p, k, m, finite_size_law(d))
    shifted = law_transition(p, k, m, finite_size_law(d), slope_range=(1.0, 1.0))
    free = fit_transition(p, k, m)
    nan = math.nan
    return {
        "d": d,
        "slope": slope,
        "seed": seed,
        "truth": median,
        "law_p_c": nan if located is None else located.p_c,
        "law_low": nan if located is None else located.low,
        "law_high": nan if located is None else located.high,
        "shift_p_c": nan if shifted is None else shifted.p_c,
        "shift_low": nan if shifted is None else shifted.low,
        "shift_high": nan if shifted is None else shifted.high,
        "free_p_c": free.p_c,
        "free_low": free.low,
        "free_high": free.high,
        "free_slope": free.slope,
        "bracketed": int(free.bracketed),
        "instances": int(m.sum()),
    }


def _done(path: Path) -> set[tuple[int, float, int]]:
    if not path.is_file():
        return set()
    with path.open() as handle:
        return {(int(r["d"]), float(r["slope"]), int(r["seed"])) for r in csv.DictReader(handle)}


def run(d: int, cells: int, slopes: tuple[float, ...], path: Path, max_seconds: float) -> int:
    """Simulate the missing cells of ``d`` into ``path``; return how many were added."""
    done = _done(path)
    start, added = time.monotonic(), 0
    new = not path.is_file()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for seed in range(1, cells + 1):
            for slope in slopes:
                if (d, slope, seed) in done:
                    continue
                if time.monotonic() - start > max_seconds:
                    return added
                row = simulate(d, slope, seed)
                writer.writerow(
                    {k: f"{v:.6f}" if isinstance(v, float) else v for k, v in row.items()}
                )
                handle.flush()
                added += 1
    return added


def summary(paths: list[Path], out: Path | None) -> str:
    """Coverage per (d, slope, method) with 95% Wilson intervals and median relative width."""
    rows = []
    for path in paths:
        with path.open() as handle:
            rows += list(csv.DictReader(handle))
    groups: dict[tuple[int, float], list[dict[str, str]]] = {}
    for row in rows:
        groups.setdefault((int(row["d"]), float(row["slope"])), []).append(row)
    lines = ["d,slope,method,cells,covered,coverage,coverage_low,coverage_high,median_width"]
    for (d, slope), members in sorted(groups.items()):
        for method in METHODS:
            low = np.array([float(r[f"{method}_low"]) for r in members])
            high = np.array([float(r[f"{method}_high"]) for r in members])
            truth = np.array([float(r["truth"]) for r in members])
            covered = int(np.sum((low <= truth) & (truth <= high)))
            lo, hi = wilson_interval(covered, len(members))
            width = float(np.nanmedian(high / low - 1.0))
            lines.append(
                f"{d},{slope:g},{method},{len(members)},{covered},{covered / len(members):.4f},"
                f"{float(lo):.4f},{float(hi):.4f},{width:.4f}"
            )
    text = "\n".join(lines) + "\n"
    if out is not None:
        out.write_text(text, encoding="utf-8")
    return text


def slope_evidence(databases: list[Path]) -> str:
    """Pooled slope factor of the committed full-rank cells against the Crofton law, per model.

    For every (d, model) cell the log-likelihood of
    :math:`F(m(p e^{-\\delta}/m)^s)` is maximised over its own shift
    :math:`\\delta`; the profiles are summed over d and the 95% likelihood-ratio
    interval of the common :math:`s` is printed (s from 0.5 to 1.8 in steps of
    0.025, :math:`|\\delta| < 0.15`).
    """
    from lamcap.experiments._analysis import cell_data  # noqa: PLC0415

    cells: dict = {}
    for database in databases:
        cells.update(cell_data(database))
    slopes = np.round(np.arange(0.5, 1.8001, 0.025), 3)
    deltas = np.arange(-0.15, 0.15, 5e-4)
    pooled: dict[str, np.ndarray] = {}
    for cell, data in sorted(cells.items(), key=lambda item: (item[0].d, item[0].model)):
        if cell.kappa != 1.0 or cell.method != "auto":
            continue
        p, k, m = (a.astype(np.float64) for a in data.counts())
        law = finite_size_law(cell.d)
        median = law.median()
        scaled = p[None, :] * np.exp(-deltas[:, None]) / median
        values = law(median * scaled[None, :, :] ** slopes[:, None, None])
        values = np.clip(values, 1e-300, 1.0 - 1e-16)
        loglik = (np.log(values) @ k + np.log1p(-values) @ (m - k)).max(axis=1)
        pooled[cell.model] = pooled.get(cell.model, 0.0) + loglik
    lines = ["model,slope_factor,low,high"]
    for model, loglik in sorted(pooled.items()):
        inside = slopes[2.0 * (loglik.max() - loglik) <= 3.841458820694124]
        best = slopes[int(np.argmax(loglik))]
        lines.append(f"{model},{best:.3f},{inside.min():.3f},{inside.max():.3f}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, choices=sorted(DESIGNS), help="size to simulate")
    parser.add_argument("--cells", type=int, default=1000, help="simulated cells per slope")
    parser.add_argument("--slopes", type=float, nargs="+", default=list(SLOPES))
    parser.add_argument(
        "--csv",
        type=Path,
        nargs="+",
        default=[],
        help="per-cell results: simulated cells are appended to the first; --summary reads all",
    )
    parser.add_argument("--max-seconds", type=float, default=540.0)
    parser.add_argument("--summary", type=Path, help="write the coverage table here")
    parser.add_argument(
        "--slope-evidence",
        type=Path,
        nargs="+",
        metavar="DB",
        help="print the pooled slope factor of these results databases against the law",
    )
    arguments = parser.parse_args()
    if arguments.slope_evidence:
        print(slope_evidence(arguments.slope_evidence), end="")
    if arguments.d is not None:
        added = run(
            arguments.d,
            arguments.cells,
            tuple(arguments.slopes),
            arguments.csv[0],
            arguments.max_seconds,
        )
        print(f"d = {arguments.d}: {added} cells added")
    existing = [path for path in arguments.csv if path.is_file()]
    if existing:
        print(summary(existing, arguments.summary), end="")


if __name__ == "__main__":
    main()

"""OP vs DP capacity as d grows: fitted transitions, ratios, trends and the plot.

Reads one or more results databases written by ``lamcap sweep`` with both models,
for example::

    lamcap sweep --d 8 12 16 24 32 --model decoupled original --seeds 20 --rounds 3 \
        --workers 1 --db opdp_small.sqlite
    lamcap sweep --d 48 --model original decoupled --seeds 10 --rounds 2 --db opdp_48.sqlite
    python measurements/op_vs_dp.py opdp_small.sqlite opdp_48.sqlite

and writes

* ``docs/measurements/op_vs_dp.csv`` — one fitted transition per (d, model):
  ``d,model,p_c,p_c_low,p_c_high,instances,undecided`` (the Crofton curve moved
  along log p, steepness within ±20%, 95% profile-likelihood intervals:
  :meth:`lamcap.experiments._analysis.CellData.transition`; decided instances),
  written by :func:`lamcap.experiments.op_vs_dp_csv`, the code of
  ``lamcap results transitions --op-vs-dp`` (which also writes capacity.csv);
* ``docs/measurements/op_vs_dp_ratio.csv`` — ``d,ratio,ratio_low,ratio_high,instances,lr_cutoff``
  (joint profile-likelihood interval of p_c(OP)/p_c(DP) with the likelihood-ratio
  cutoff calibrated by a parametric bootstrap, ``--draws`` redraws per generating law:
  ``lamcap.experiments.calibrated_cutoff``; ``--draws 0`` gives the
  chi-square cutoff 3.841);
* ``docs/measurements/op_vs_dp.png`` — the ratio against d with the fitted trends;

and prints the trend fits (extrapolated ratio at d → ∞ with its 95% interval).
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from lamcap import critical_p
from lamcap.experiments._analysis import cell_data
from lamcap.experiments._fitting import Trend
from lamcap.experiments._model_comparison import (
    ModelRatio,
    constant_ratio,
    model_ratios,
    ratio_power_law,
    ratio_trend,
    trend_variable,
)
from lamcap.experiments._transitions import op_vs_dp_csv

DOCS = Path(__file__).resolve().parent.parent / "docs" / "measurements"


def _merged_cells(databases: list[str]) -> dict:
    cells: dict = {}
    for database in databases:
        for cell, data in cell_data(database).items():
            if cell.kappa != 1.0 or cell.method != "auto":
                continue
            if cell in cells:
                msg = f"{cell.label()} appears in two databases; merge them first"
                raise SystemExit(msg)
            cells[cell] = data
    return cells


def _write_ratios(ratios: list[ModelRatio], path: Path) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["d", "ratio", "ratio_low", "ratio_high", "instances", "lr_cutoff"])
        for r in ratios:
            bounds = (f"{r.ratio:.4f}", f"{r.low:.4f}", f"{r.high:.4f}")
            writer.writerow([r.cell.d, *bounds, r.instances, f"{r.cutoff:.2f}"])


def _markdown(fits: dict, ratios: list[ModelRatio]) -> None:
    """The table of docs/measurements/op_vs_dp.md."""
    by_model = {(cell.d, cell.model): fit for cell, fit in fits.items()}
    print(
        "| d | DP p_c [95% CI] | OP p_c [95% CI] | `critical_p(d)` | OP/DP [95% CI] "
        "| LR cutoff | instances |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in ratios:
        dp, op = by_model[(r.cell.d, "decoupled")], by_model[(r.cell.d, "original")]
        print(
            f"| {r.cell.d} | {dp.p_c:.2f} [{dp.low:.2f}, {dp.high:.2f}] "
            f"| {op.p_c:.2f} [{op.low:.2f}, {op.high:.2f}] "
            f"| {float(critical_p(r.cell.d)):.2f} "
            f"| {r.ratio:.3f} [{r.low:.3f}, {r.high:.3f}] | {r.cutoff:.2f} | {r.instances} |"
        )


def _report(ratios: list[ModelRatio]) -> dict[tuple[str, bool], Trend]:
    """Print every law's fit; return the trends keyed by (abscissa, forced through 1)."""
    trends: dict[tuple[str, bool], Trend] = {}
    for variable in ("1/d", "1/log p"):
        trend = ratio_trend(ratios, variable)
        low, high = trend.intercept_interval()
        print(
            f"log r = c + a x, x = {variable}: r(inf) = {math.exp(trend.intercept):.4f} "
            f"[{math.exp(low):.4f}, {math.exp(high):.4f}], a = {trend.slope:.3f} "
            f"+- {trend.slope_error:.3f}, chi2/dof = {trend.chi2:.2f}/{trend.dof} "
            f"(p = {trend.p_value:.2f})"
        )
        through = ratio_trend(ratios, variable, through_one=True)
        print(
            f"log r = a x (ratio -> 1 like x = {variable}): a = {through.slope:.3f} "
            f"+- {through.slope_error:.3f}, chi2/dof = {through.chi2:.2f}/{through.dof} "
            f"(p = {through.p_value:.4f})"
        )
        trends[variable, False], trends[variable, True] = trend, through
    constant = constant_ratio(ratios)
    level = math.exp(constant.slope)
    print(
        f"constant ratio: r = {level:.4f} +- {level * constant.slope_error:.4f}, "
        f"chi2/dof = {constant.chi2:.2f}/{constant.dof} (p = {constant.p_value:.3f})"
    )
    if len(ratios) >= 3:
        law = ratio_power_law(ratios)
        print(
            f"log r = A d^-b: A = {law.amplitude:.4f} +- {law.amplitude_error:.4f}, "
            f"b = {law.exponent:.3f} +- {law.exponent_error:.3f}, chi2/dof = {law.chi2:.2f}/{law.dof}"
        )
    return trends


def _plot(ratios: list[ModelRatio], trends: dict[tuple[str, bool], Trend], path: Path) -> None:
    d = np.array([r.cell.d for r in ratios], dtype=np.float64)
    ratio = np.array([r.ratio for r in ratios])
    errors = np.array([[r.ratio - r.low for r in ratios], [r.high - r.ratio for r in ratios]])
    fig, ax = plt.subplots(figsize=(6.0, 4.0), layout="constrained")
    ax.errorbar(d, ratio, yerr=errors, fmt="o", color="k", capsize=3, label="measured (95% CI)")
    grid = np.unique(np.round(np.geomspace(d.min() - 1, 1024, 400)).astype(np.int64))
    styles = {"1/d": ("C0", "--"), "1/log p": ("C1", "-.")}
    for variable, (colour, line) in styles.items():
        trend = trends[variable, False]
        x = trend_variable(grid, variable)
        curve = np.exp(trend.intercept + trend.slope * x)
        low, high = trend.intercept_interval()
        label = (
            f"fit in {variable}: r(∞) = {math.exp(trend.intercept):.3f} "
            f"[{math.exp(low):.3f}, {math.exp(high):.3f}]"
        )
        ax.plot(grid, curve, color=colour, linestyle=line, label=label)
    through = trends["1/log p", True]
    curve = np.exp(through.slope * trend_variable(grid, "1/log p"))
    ax.plot(
        grid,
        curve,
        color="0.4",
        linestyle=":",
        label=f"r → 1 like 1/log p (test p = {through.p_value:.3f})",
    )
    ax.axhline(1.0, color="0.5", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xticks([8, 16, 32, 64, 128, 256, 512, 1024])
    ax.set_xticklabels(["8", "16", "32", "64", "128", "256", "512", "1024"])
    ax.set_xlabel("d")
    ax.set_ylabel(r"$p_c^{\mathrm{OP}} / p_c^{\mathrm{DP}}$")
    ax.set_title("Original vs decoupled problem: capacity ratio")
    ax.legend(fontsize=8, loc="upper right")
    fig.savefig(path, dpi=150)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("databases", nargs="+", help="results databases with both models")
    parser.add_argument("--out", type=Path, default=DOCS, help="folder for the CSVs and the plot")
    parser.add_argument(
        "--draws", type=int, default=300, help="bootstrap redraws per law and d (0: chi-square)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the bootstrap redraws")
    arguments = parser.parse_args()
    cells = _merged_cells(arguments.databases)
    fits = {cell: data.transition() for cell, data in cells.items()}  # as in op_vs_dp.csv
    arguments.out.mkdir(parents=True, exist_ok=True)
    # the same writer as `lamcap results transitions --op-vs-dp` (one code path)
    (arguments.out / "op_vs_dp.csv").write_text(op_vs_dp_csv(cells), encoding="utf-8")
    ratios = model_ratios(cells, draws=arguments.draws, seed=arguments.seed)
    _write_ratios(ratios, arguments.out / "op_vs_dp_ratio.csv")
    _markdown(fits, ratios)
    trends = _report(ratios)
    _plot(ratios, trends, arguments.out / "op_vs_dp.png")


if __name__ == "__main__":
    main()

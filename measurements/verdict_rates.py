r"""How often the interval rule calls a claim consistent, inconsistent or inconclusive.

Synthetic families of 15 claims (:func:`lamcap.experiments._calibration.equivalence_rates`):
each claim's true deviation is a multiple of its 2% tolerance (sign drawn per claim),
measured by Gaussian instances whose spread is estimated from the data, brought to
the allocation stage's precision target by its precision-only rule, and judged by
:func:`lamcap.experiments.judge` as one family.  Per multiple: the share of claims
with each verdict and the share of runs with any "inconsistent", any "consistent" and
every interval covering its truth, each with its 95% Wilson interval; the mean
instances per claim.  A second family with a law error of half the tolerance shows the
floor at work.

Rows are appended to a CSV (one per family and multiple), so the script resumes::

    python measurements/verdict_rates.py --runs 1000 --out docs/measurements/verdict_rates.csv
    python measurements/verdict_rates.py --plot --out docs/measurements/verdict_rates.csv \
        --figure docs/measurements/verdict_rates.png
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")
import matplotlib.pyplot as plt

from lamcap.experiments._allocation import TARGET_SHARES
from lamcap.experiments._calibration import SyntheticFamily, equivalence_rates
from lamcap.experiments._fitting import wilson_interval

MULTIPLES = (0.0, 0.5, 1.0, 1.05, 1.5, 2.0)
"""True deviations in units of the tolerance (1.05: just outside it)."""

FAMILIES = {
    "exact law, first target": SyntheticFamily(),
    "exact law, third target": SyntheticFamily(target=TARGET_SHARES[2]),
    "law error τ/2, first target": SyntheticFamily(law_error=0.5),
}
"""The families measured: a law with no stated error brought to the allocation stage's
first precision target (q·s at half the room) and to its third (a quarter of the room),
and a law whose stated error is half the tolerance, at the first target."""

COLUMNS = (
    "family",
    "multiple",
    "runs",
    "claims",
    "consistent",
    "inconsistent",
    "inconclusive",
    "runs_any_inconsistent",
    "runs_any_consistent",
    "runs_covered",
    "instances_per_claim",
    "seed",
    "date",
)


def _done(path: Path) -> set[tuple[str, float]]:
    if not path.is_file():
        return set()
    with path.open(encoding="utf-8") as handle:
        return {(row["family"], float(row["multiple"])) for row in csv.DictReader(handle)}


def measure(path: Path, runs: int, seed: int) -> None:
    """Append the rows not yet in ``path``."""
    done = _done(path)
    new = not path.is_file()
    with path.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        for name, family in FAMILIES.items():
            for multiple in MULTIPLES:
                if (name, multiple) in done:
                    continue
                started = time.perf_counter()
                result = equivalence_rates(multiple, runs, family, seed=seed)
                writer.writerow(
                    {
                        "family": name,
                        "multiple": multiple,
                        "runs": result.runs,
                        "claims": result.claims,
                        "consistent": result.verdicts.get("consistent", 0),
                        "inconsistent": result.verdicts.get("inconsistent", 0),
                        "inconclusive": result.verdicts.get("inconclusive", 0),
                        "runs_any_inconsistent": result.any_inconsistent,
                        "runs_any_consistent": result.any_consistent,
                        "runs_covered": result.covered,
                        "instances_per_claim": f"{result.instances / result.claims:.1f}",
                        "seed": seed,
                        "date": time.strftime("%Y-%m-%d"),
                    }
                )
                handle.flush()
                print(f"{name}, {multiple} x tolerance: {time.perf_counter() - started:.0f} s")


def _wilson(count: int, total: int) -> tuple[float, float]:
    low, high = wilson_interval(count, total)
    return float(low), float(high)


def table(path: Path) -> str:
    """The Markdown table of docs/howto/reproduce.md, from the CSV."""
    lines = [
        (
            "| law, target | Δ/τ | consistent, % | inconsistent, % | inconclusive, % "
            "| runs with a false call, % | runs all covered, % | instances |"
        ),
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        claims, runs = int(row["claims"]), int(row["runs"])
        multiple = float(row["multiple"])

        def share(count: int, total: int) -> str:
            low, high = _wilson(count, total)
            return f"{100 * count / total:.1f} [{100 * low:.1f}, {100 * high:.1f}]"

        false = int(row["runs_any_inconsistent"] if multiple <= 1 else row["runs_any_consistent"])
        word = "inconsistent" if multiple <= 1 else "consistent"
        lines.append(
            f"| {row['family']} | {multiple:g} | {share(int(row['consistent']), claims)} | "
            f"{share(int(row['inconsistent']), claims)} | "
            f"{share(int(row['inconclusive']), claims)} | "
            f"{share(false, runs)} ({word}) | {share(int(row['runs_covered']), runs)} | "
            f"{float(row['instances_per_claim']):.0f} |"
        )
    return "\n".join(lines)


def plot(path: Path, figure: Path) -> None:
    """Verdict shares, and the runs with any false call, against the true deviation."""
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    names = list(dict.fromkeys(row["family"] for row in rows))
    fig, axes = plt.subplots(1, len(names), figsize=(4.6 * len(names), 4.2), sharey=True)
    colours = {"consistent": "tab:green", "inconsistent": "tab:red", "inconclusive": "tab:grey"}
    for axis, name in zip(axes, names, strict=True):
        chosen = [row for row in rows if row["family"] == name]
        x = [float(row["multiple"]) for row in chosen]
        for word, colour in colours.items():
            shares, lows, highs = [], [], []
            for row in chosen:
                count, total = int(row[word]), int(row["claims"])
                low, high = _wilson(count, total)
                shares.append(count / total)
                lows.append(max(0.0, count / total - low))
                highs.append(max(0.0, high - count / total))
            axis.errorbar(x, shares, yerr=[lows, highs], marker="o", color=colour, label=word)
        false, lows, highs = [], [], []
        for row in chosen:
            multiple, runs = float(row["multiple"]), int(row["runs"])
            count = int(row["runs_any_inconsistent" if multiple <= 1 else "runs_any_consistent"])
            low, high = _wilson(count, runs)
            false.append(count / runs)
            lows.append(max(0.0, count / runs - low))
            highs.append(max(0.0, high - count / runs))
        axis.errorbar(
            x,
            false,
            yerr=[lows, highs],
            marker="s",
            color="black",
            linestyle="--",
            label="runs with any false call",
        )
        axis.axvline(1.0, color="black", linestyle=":", linewidth=1)
        axis.axhline(0.05, color="tab:red", linestyle="--", linewidth=0.8)
        axis.set_title(name)
        axis.set_xlabel("true deviation / tolerance")
    axes[0].set_ylabel("share (95% Wilson interval)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=4, frameon=False)
    fig.suptitle("Interval rule on synthetic families of 15 claims (precision-only allocation)")
    fig.tight_layout(rect=(0.0, 0.08, 1.0, 1.0))
    fig.savefig(figure, dpi=120)


def main() -> None:
    """Measure, or print the table and draw the figure."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=34)
    parser.add_argument("--out", type=Path, default=Path("docs/measurements/verdict_rates.csv"))
    parser.add_argument("--plot", action="store_true")
    parser.add_argument("--figure", type=Path, default=Path("docs/measurements/verdict_rates.png"))
    arguments = parser.parse_args()
    if arguments.plot:
        plot(arguments.out, arguments.figure)
        print(table(arguments.out))
        return
    measure(arguments.out, arguments.runs, arguments.seed)


if __name__ == "__main__":
    main()

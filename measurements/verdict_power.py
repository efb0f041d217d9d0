r"""Power of ``lamcap reproduce``'s verdicts: how often a false claim is called inconsistent.

Simulated runs of the quick (or full) plan (:mod:`lamcap.experiments._calibration`)
in which the claims of one quantity are false by a known deviation (every
decoupled transition at (1 + Δ) times its law, a constant OP/DP ratio 1 + Δ,
spectra or scores off by Δ), judged by the code of a real run.  For every false
claim the script records whether it was called inconsistent or consistent, and
the power predicted from the claim's own standard errors at Holm's first
threshold (:func:`lamcap.experiments._calibration.predicted_power`).  Δ = 0 rows
are runs with every claim true (the false-alarm side).

Results are appended to a JSON-lines file, one line per (quantity, Δ, seed), so
the script resumes where it stopped; ``--plot`` aggregates them into a table and
a figure (measured rejection rate with its 95% Wilson interval against the
predicted power, per claim kind)::

    NUMBA_NUM_THREADS=1 python measurements/verdict_power.py --runs 40 \
        --out docs/measurements/verdict_power.jsonl
    python measurements/verdict_power.py --plot \
        --out docs/measurements/verdict_power.jsonl --figure docs/measurements/verdict_power.png
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

from lamcap.experiments._calibration import deviated_claims, predicted_power, simulate_claims
from lamcap.experiments._fitting import wilson_interval
from lamcap.experiments._reproduce import FULL, QUICK

GRID = {
    "transition": (0.0, 0.03, 0.06, 0.1),
    "ratio": (0.0, 0.2, 0.5),
    "spectrum": (0.0, 0.4, 0.8),
    "score": (0.0, 0.1, 0.2),
}
"""Deviations per quantity (relative for transitions and ratios, absolute otherwise),
chosen around the detectable deviations of a quick run."""

REPRESENTATIVE = {
    "transition": ("DP capacity: transition p, d = 16", "DP capacity, d = 16"),
    "ratio": ("OP = DP as d → ∞ (same capacity)", "OP = DP as d → ∞ (trend)"),
    "spectrum": ("E[s⁴]/E[s²]² of the max-margin W, d = 16", "E s⁴/(E s²)², max-margin W, d = 16"),
    "score": (
        "mean normalised target score of the max-margin W",
        "target score, max-margin W, d = 16",
    ),
}
"""The claim drawn per quantity in the figure (prefix of its name) and the panel title."""


def _done(path: Path) -> set[tuple[str, float, int]]:
    if not path.is_file():
        return set()
    keys = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        keys.add((record["quantity"], record["deviation"], record["seed"]))
    return keys


def _record(plan_name: str, quantity: str, deviation: float, seed: int, claims: list) -> str:  # type: ignore[type-arg]
    tested = sum(c.tested for c in claims)
    rows = [
        {
            "claim": c.claim,
            "verdict": c.verdict.split(":")[0],
            "predicted": predicted_power(c, deviation, tested),
            "detectable": c.detectable,
        }
        for c in deviated_claims(claims, quantity)
    ]
    record = {
        "plan": plan_name,
        "quantity": quantity,
        "deviation": deviation,
        "seed": seed,
        "claims": rows,
    }
    return json.dumps(record, ensure_ascii=False) + "\n"


def measure(plan_name: str, runs: int, out: Path, first_seed: int) -> None:
    plan = QUICK if plan_name == "quick" else FULL
    done = _done(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for seed in range(first_seed, first_seed + runs):
        # one run with every claim true serves every quantity at deviation 0
        if any((q, 0.0, seed) not in done for q in GRID):
            claims = simulate_claims(plan, seed)
            with out.open("a", encoding="utf-8") as handle:
                for quantity in GRID:
                    if (quantity, 0.0, seed) not in done:
                        handle.write(_record(plan_name, quantity, 0.0, seed, claims))
                        done.add((quantity, 0.0, seed))
        for quantity, deviations in GRID.items():
            for deviation in (d for d in deviations if d != 0.0):
                if (quantity, deviation, seed) in done:
                    continue
                claims = simulate_claims(plan, seed, {quantity: deviation})
                with out.open("a", encoding="utf-8") as handle:
                    handle.write(_record(plan_name, quantity, deviation, seed, claims))
                done.add((quantity, deviation, seed))
        print(f"seed {seed} done ({time.perf_counter() - started:.0f} s)", flush=True)


def _aggregate(path: Path) -> dict[tuple[str, float, str], list[dict[str, object]]]:
    table: dict[tuple[str, float, str], list[dict[str, object]]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for row in record["claims"]:
            key = (record["quantity"], record["deviation"], row["claim"])
            table.setdefault(key, []).append(row)
    return table


def report(path: Path, figure: Path | None) -> None:
    table = _aggregate(path)
    print(
        "| quantity | Δ | claim | runs | inconsistent [95% Wilson] | predicted power | consistent |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (quantity, deviation, claim), rows in sorted(table.items()):
        runs = len(rows)
        hits = sum(r["verdict"] == "inconsistent" for r in rows)
        agree = sum(r["verdict"] == "consistent" for r in rows)
        low, high = (float(v) for v in wilson_interval(hits, runs))
        predicted = float(np.mean([float(r["predicted"]) for r in rows]))  # type: ignore[arg-type]
        shown = f"{100 * deviation:g}%" if quantity in ("transition", "ratio") else f"{deviation:g}"
        print(
            f"| {quantity} | {shown} | {claim} | {runs} | {100 * hits / runs:.0f}% "
            f"[{100 * low:.0f}%, {100 * high:.0f}%] | {100 * predicted:.0f}% | "
            f"{100 * agree / runs:.0f}% |"
        )
    if figure is not None:
        _figure(table, figure)


def _figure(table: dict[tuple[str, float, str], list[dict[str, object]]], figure: Path) -> None:
    import matplotlib as mpl  # noqa: PLC0415

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    from lamcap.experiments.figures._style import check_fits  # noqa: PLC0415

    fig, axes = plt.subplots(1, 4, figsize=(13, 3.4), constrained_layout=True)
    for axis, (quantity, (prefix, title)) in zip(axes, REPRESENTATIVE.items(), strict=True):
        points = sorted(
            (deviation, rows)
            for (q, deviation, claim), rows in table.items()
            if q == quantity and claim.startswith(prefix)
        )
        if not points:
            axis.set_visible(False)
            continue
        x = np.array([d for d, _ in points])
        scale = 100.0 if quantity in ("transition", "ratio") else 1.0
        hits = np.array([sum(r["verdict"] == "inconsistent" for r in rows) for _, rows in points])
        runs = np.array([len(rows) for _, rows in points])
        low, high = wilson_interval(hits, runs)
        rate = hits / runs
        predicted = [np.mean([float(r["predicted"]) for r in rows]) for _, rows in points]  # type: ignore[arg-type]
        axis.errorbar(
            scale * x,
            rate,
            yerr=[rate - low, high - rate],
            fmt="o",
            color="C0",
            label="measured: inconsistent",
        )
        axis.plot(scale * x, predicted, "s--", color="C1", label="predicted power")
        axis.axhline(0.8, color="0.6", lw=0.8, ls=":")
        axis.set_ylim(-0.03, 1.03)
        unit = "%" if scale == 100.0 else ""
        axis.set_xlabel(f"deviation Δ{' (%)' if unit else ''}")
        axis.set_title(title, fontsize=9)
    axes[0].set_ylabel("probability of 'inconsistent'")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("quick plan, simulated runs: a false claim called inconsistent", fontsize=10)
    check_fits(fig)
    fig.savefig(figure, dpi=130)
    print(f"wrote {figure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--plan", choices=("quick", "full"), default="quick")
    parser.add_argument("--out", type=Path, default=Path("verdict_power.jsonl"))
    parser.add_argument("--plot", action="store_true", help="aggregate --out, do not simulate")
    parser.add_argument("--figure", type=Path, default=None)
    arguments = parser.parse_args()
    if arguments.plot:
        report(arguments.out, arguments.figure)
        return
    if arguments.runs < 1 or not math.isfinite(arguments.runs):
        parser.error(f"--runs must be >= 1, got {arguments.runs}")
    measure(arguments.plan, arguments.runs, arguments.out, arguments.first_seed)


if __name__ == "__main__":
    main()

"""Best recall fraction beyond capacity: certified bounds against Adam/CE, at small d.

For each instance ``make_instance(d, round(load * critical_p(d)), model=..., seed=...)``
(n = p) this runs ``lamcap.solve(instance, objective="max_recall")`` (certified lower
and upper bounds on the largest number of associations one W recalls) and
``lamcap.solve(instance, method="adam_ce")`` (Adam on the softmax cross-entropy, the
literature's protocol), and counts the associations Adam's W recalls with the same
per-association verification (``lamcap.solvers._max_recall.recalled_associations``).
One CSV row per instance and start set (``--starts``: compare the lower bound's start
sets); the CSV is appended to and resumed (delete it to measure anew)::

    python measurements/solvers_at_scale_recall.py --csv docs/measurements/solvers_at_scale_recall.csv
    python measurements/solvers_at_scale_recall.py --dims 12 16 --loads 1.5 --seeds 1 \\
        --starts farkas adam l1 --csv docs/measurements/solvers_at_scale_recall_strategies.csv

Summarised by ``--summary`` (means over seeds per d, model and load), the table of
docs/solvers-at-scale.md, section "Recall below 100%".
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import numpy as np

import lamcap
from lamcap.problems import make_instance
from lamcap.solvers._max_recall import recalled_associations

COLUMNS = [
    "d",
    "model",
    "embeddings",
    "load",
    "p",
    "seed",
    "start",
    "recall_lower",
    "recall_upper",
    "fraction_lower",
    "fraction_upper",
    "adam_fraction",
    "verdict",
    "upper_exact",
    "subsets",
    "solves",
    "seconds",
    "adam_seconds",
]


def _done(path: Path) -> set[tuple[str, ...]]:
    if not path.exists():
        return set()
    with path.open() as handle:
        return {
            (row["d"], row["model"], row["load"], row["seed"], row["start"])
            for row in csv.DictReader(handle)
        }


def measure(arguments: argparse.Namespace) -> None:
    path = Path(arguments.csv)
    done = _done(path)
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        if new:
            writer.writeheader()
        for d in arguments.dims:
            for load in arguments.loads:
                p = round(load * lamcap.critical_p(d))
                for model in arguments.models:
                    for seed in range(arguments.seeds):
                        instance = make_instance(d, p, model=model, seed=seed)
                        adam: tuple[float, float] | None = None
                        for start in arguments.starts:
                            key = (str(d), model, str(load), str(seed), start)
                            if key in done:
                                continue
                            if adam is None:
                                began = time.perf_counter()
                                trained = lamcap.solve(instance, method="adam_ce", seed=seed)
                                count = recalled_associations(instance, trained.weights).size
                                adam = (count / instance.n, time.perf_counter() - began)
                            began = time.perf_counter()
                            result = lamcap.solve(
                                instance,
                                objective="max_recall",
                                max_seconds=arguments.max_seconds,
                                seed=seed,
                                options={"start": start},
                            )
                            seconds = time.perf_counter() - began
                            row = {
                                "d": d,
                                "model": model,
                                "embeddings": instance.embeddings,
                                "load": load,
                                "p": p,
                                "seed": seed,
                                "start": start,
                                "recall_lower": result.recall_lower,
                                "recall_upper": result.recall_upper,
                                "fraction_lower": result.recall_lower / instance.n,
                                "fraction_upper": result.recall_upper / instance.n,
                                "adam_fraction": adam[0],
                                "verdict": result.verdict,
                                "upper_exact": result.details["upper_exact"],
                                "subsets": len(result.infeasible_subsets),
                                "solves": result.details.get("solves", 0),
                                "seconds": round(seconds, 2),
                                "adam_seconds": round(adam[1], 2),
                            }
                            writer.writerow(row)
                            handle.flush()
                            print(row, flush=True)


def summarise(sources: list[str]) -> None:
    rows: list[dict[str, str]] = []
    for source in sources:
        with Path(source).open() as handle:
            rows += list(csv.DictReader(handle))
    keys = sorted({(int(r["d"]), r["model"], float(r["load"]), r["start"]) for r in rows})
    print(
        "| d | model | p | start | instances | fraction_lower | fraction_upper | adam_fraction "
        "| seconds | adam_seconds |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for d, model, load, start in keys:
        group = [
            r
            for r in rows
            if (int(r["d"]), r["model"], float(r["load"]), r["start"]) == (d, model, load, start)
        ]

        def mean(column: str, group: list[dict[str, str]] = group) -> float:
            return float(np.mean([float(r[column]) for r in group]))

        print(
            f"| {d} | {model} | {group[0]['p']} ({load:g} p_c) | {start} | {len(group)} | "
            f"{mean('fraction_lower'):.3f} | {mean('fraction_upper'):.3f} | "
            f"{mean('adam_fraction'):.3f} | {mean('seconds'):.0f} | {mean('adam_seconds'):.0f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[12, 16])
    parser.add_argument("--loads", type=float, nargs="+", default=[1.2, 1.5])
    parser.add_argument("--models", nargs="+", default=["decoupled", "original"])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--starts", nargs="+", default=["auto"])
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("--csv", default="docs/measurements/solvers_at_scale_recall.csv")
    parser.add_argument("--summary", nargs="*", default=None, help="summarise these CSVs")
    arguments = parser.parse_args()
    if arguments.summary is not None:
        summarise(arguments.summary or [arguments.csv])
        return
    measure(arguments)


if __name__ == "__main__":
    main()

"""Best accuracy beyond capacity: certified bounds against Adam/CE, at small d.

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
from pathlib import Path
from typing import Any

import numpy as np
from best_accuracy import adam_recall, bounds_row, instance_grid

from lamcap.problems import Instance

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
    "accuracy_lower",
    "accuracy_upper",
    "adam_accuracy",
    "verdict",
    "upper_exact",
    "subsets",
    "solves",
    "seconds",
    "adam_seconds",
]


def measure(arguments: argparse.Namespace) -> None:
    grid = instance_grid(
        Path(arguments.csv),
        COLUMNS,
        dims=arguments.dims,
        loads=arguments.loads,
        seeds=arguments.seeds,
        models=arguments.models,
        keys=arguments.starts,
    )
    adam: tuple[Instance, dict[str, Any]] | None = None
    for instance, load, seed, start, write in grid:
        if adam is None or adam[0] is not instance:  # one Adam run serves every start
            adam = (instance, adam_recall(instance, seed=seed))
        write(
            bounds_row(
                instance,
                adam[1],
                load=load,
                seed=seed,
                start=start,
                max_seconds=arguments.max_seconds,
            )
        )


def summarise(sources: list[str]) -> None:
    rows: list[dict[str, str]] = []
    for source in sources:
        with Path(source).open() as handle:
            rows += list(csv.DictReader(handle))
    keys = sorted({(int(r["d"]), r["model"], float(r["load"]), r["start"]) for r in rows})
    print(
        "| d | model | p | start | instances | accuracy_lower | accuracy_upper | adam_accuracy "
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
            f"{mean('accuracy_lower'):.3f} | {mean('accuracy_upper'):.3f} | "
            f"{mean('adam_accuracy'):.3f} | {mean('seconds'):.0f} | {mean('adam_seconds'):.0f} |"
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

"""Best accuracy against load: certified bounds, Adam/CE and the RS law.

The data of docs/measurements/recall-fraction.md.  For each instance
``make_instance(d, round(load * critical_p(d, embeddings=...)), model=..., seed=...,
embeddings=...)`` (n = p; ``--embeddings`` gaussian or sphere) it runs

* ``lamcap.solve(instance, objective="max_recall", options={"start": ...})`` (``--start``,
  default ``"drop"``) within ``--max-seconds`` (per d): a W whose recalled associations
  are verified one by one (the lower bound) and disjoint infeasible sets with Farkas
  certificates (the upper bound);
* unless ``--no-adam``: ``lamcap.solve(instance, method="adam_ce")`` (Adam on the softmax
  cross-entropy, the literature's protocol, default settings, optionally capped by
  ``--adam-max-seconds``) and counts the associations its W recalls with the same
  verification,

one row per instance and start in ``--instances`` (appended to and resumed: an
interrupted run loses at most the instance it was on).  ``--summary`` takes, per
instance, the best bounds over the starts run on it (each certified on its own), writes
the means over seeds per (d, model, embeddings, p) to ``--csv`` (columns
``d,model,embeddings,p,accuracy_lower,accuracy_upper,adam_accuracy,instances``, then the
load, standard errors over seeds and the replica-symmetric prediction
``lamcap.best_accuracy``) and draws ``--figure``::

    OPENBLAS_NUM_THREADS=1 python measurements/recall_fraction.py --dims 16 32
    python measurements/recall_fraction.py --summary
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

import lamcap
from lamcap.problems import Instance, make_instance
from lamcap.solvers._max_recall import recalled_associations

INSTANCE_COLUMNS = [
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
    "adam_steps",
    "adam_max_seconds",
]
SUMMARY_COLUMNS = [
    "d",
    "model",
    "embeddings",
    "p",
    "accuracy_lower",
    "accuracy_upper",
    "adam_accuracy",
    "instances",
    "load",
    "accuracy_lower_se",
    "adam_accuracy_se",
    "rs_accuracy",
]
MAX_SECONDS = {16: 20.0, 32: 45.0, 64: 120.0}


def adam_recall(
    instance: Instance, *, seed: int, max_seconds: float | None = None
) -> dict[str, Any]:
    """Adam/CE on the instance (defaults, optional time cap): its verified recall, as row fields."""
    began = time.perf_counter()
    trained = lamcap.solve(instance, method="adam_ce", seed=seed, max_seconds=max_seconds)
    recalled = recalled_associations(instance, trained.weights).size
    return {
        "adam_accuracy": recalled / instance.n,
        "adam_seconds": round(time.perf_counter() - began, 2),
        "adam_steps": trained.iterations,
        "adam_max_seconds": "" if max_seconds is None else max_seconds,
    }


def bounds_row(
    instance: Instance,
    adam: dict[str, Any],
    *,
    load: float,
    seed: int,
    start: str,
    max_seconds: float,
) -> dict[str, Any]:
    """One row: the certified bounds of ``max_recall`` from ``start``, beside ``adam`` (:func:`adam_recall`)."""
    began = time.perf_counter()
    result = lamcap.solve(
        instance,
        objective="max_recall",
        max_seconds=max_seconds,
        seed=seed,
        options={"start": start},
    )
    return {
        "d": instance.d,
        "model": instance.model,
        "embeddings": instance.embeddings,
        "load": load,
        "p": instance.p,
        "seed": seed,
        "start": start,
        "recall_lower": result.recall_lower,
        "recall_upper": result.recall_upper,
        "accuracy_lower": result.recall_lower / instance.n,
        "accuracy_upper": result.recall_upper / instance.n,
        "verdict": result.verdict,
        "upper_exact": result.details["upper_exact"],
        "subsets": len(result.infeasible_subsets),
        "solves": result.details.get("solves", 0),
        "seconds": round(time.perf_counter() - began, 2),
        **adam,
    }


def instance_grid(
    path: Path,
    columns: list[str],
    *,
    dims: list[int],
    loads: list[float],
    seeds: int,
    models: list[str],
    keys: list[str] | None = None,
    embeddings: str = "gaussian",
) -> Iterator[tuple[Instance, float, int, str, Callable[[dict[str, Any]], None]]]:
    """The instances ``make_instance(d, round(load * critical_p(d)), model=, seed=)`` still to measure.

    With ``embeddings="sphere"``: unit-norm instances and the unit-norm ``critical_p``.

    Yields ``(instance, load, seed, key, write)`` for every (d, load, seed, model) and every
    ``key`` of ``keys`` (one ``None`` key without them) whose row is not yet in the CSV at
    ``path``; ``write(row)`` appends the row (columns ``columns``, a header on a new file) and
    flushes it, so an interrupted run loses at most the instance it was on.  Rows are
    matched on d, model, embeddings (Gaussian where a CSV has no such column), load and
    seed (and ``start`` with ``keys``).
    """
    done: set[tuple[str, ...]] = set()
    if path.exists():
        with path.open() as handle:
            marks = ("d", "model", "embeddings", "load", "seed", *(("start",) if keys else ()))
            done = {
                tuple(row.get(mark) or "gaussian" for mark in marks)
                for row in csv.DictReader(handle)
            }
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, columns, extrasaction="ignore")
        if new:
            writer.writeheader()

        def write(row: dict[str, Any]) -> None:
            writer.writerow(row)
            handle.flush()
            print(row, flush=True)

        for d in dims:
            for load in loads:
                p = round(load * lamcap.critical_p(d, embeddings=embeddings))
                for seed in range(seeds):
                    for model in models:
                        mark = (str(d), model, embeddings, str(load), str(seed))
                        todo = [
                            k for k in keys or [None] if (*mark, *([k] if keys else [])) not in done
                        ]
                        if todo:
                            instance = make_instance(
                                d, p, model=model, seed=seed, embeddings=embeddings
                            )
                            for key in todo:
                                yield instance, load, seed, key, write


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as handle:
        return [
            {column: row.get(column) or "" for column in INSTANCE_COLUMNS}
            for row in csv.DictReader(handle)
        ]


def measure(arguments: argparse.Namespace) -> None:
    grid = instance_grid(
        Path(arguments.instances),
        INSTANCE_COLUMNS,
        dims=arguments.dims,
        loads=arguments.loads,
        seeds=arguments.seeds,
        models=arguments.models,
        keys=[arguments.start],
        embeddings=arguments.embeddings,
    )
    for instance, load, seed, start, write in grid:
        adam = (
            {}
            if arguments.no_adam
            else adam_recall(instance, seed=seed, max_seconds=arguments.adam_max_seconds)
        )
        write(
            bounds_row(
                instance,
                adam,
                load=load,
                seed=seed,
                start=start,
                max_seconds=arguments.max_seconds or MAX_SECONDS.get(instance.d, 120.0),
            )
        )


def point_of(row: dict[str, str]) -> tuple[int, str, str, int]:
    """``(d, embeddings, model, p)`` of a row (embeddings Gaussian where the CSV has none)."""
    return int(row["d"]), row["embeddings"] or "gaussian", row["model"], int(row["p"])


def best_per_instance(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """One row per instance: the largest certified lower bound and the smallest upper bound
    over its rows (one per start; each bound is certified on its own), Adam's from the row
    that ran it."""
    instances: dict[tuple[int, str, str, int, int], list[dict[str, str]]] = {}
    for row in rows:
        instances.setdefault((*point_of(row), int(row["seed"])), []).append(row)
    best = []
    for group in instances.values():
        merged = dict(max(group, key=lambda row: float(row["accuracy_lower"])))
        merged["accuracy_upper"] = str(min(float(row["accuracy_upper"]) for row in group))
        adam = [row for row in group if row["adam_accuracy"]]
        merged["adam_accuracy"] = adam[0]["adam_accuracy"] if adam else ""
        best.append(merged)
    return best


def _mean(values: np.ndarray) -> float:
    """The mean, NaN for no values (Adam not run at that point)."""
    return float(values.mean()) if values.size else float("nan")


def _standard_error(values: np.ndarray) -> float:
    if values.size < 2:
        return float("nan")
    return float(np.std(values, ddof=1) / np.sqrt(values.size))


def summary_rows(rows: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Means and standard errors over seeds per (d, model, embeddings, p), with the RS prediction.

    Per instance the best bounds over its starts (:func:`best_per_instance`); Adam's mean
    over the instances that ran it.
    """
    rows = best_per_instance(rows)
    table = []
    for d, embeddings, model, p in sorted({point_of(r) for r in rows}):
        group = [r for r in rows if point_of(r) == (d, embeddings, model, p)]

        def values(column: str, group: list[dict[str, str]] = group) -> np.ndarray:
            return np.array([float(r[column]) for r in group if r[column]])

        count = len(group)
        table.append(
            {
                "d": d,
                "model": model,
                "embeddings": embeddings,
                "p": p,
                "accuracy_lower": round(float(values("accuracy_lower").mean()), 5),
                "accuracy_upper": round(float(values("accuracy_upper").mean()), 5),
                "adam_accuracy": round(_mean(values("adam_accuracy")), 5),
                "instances": count,
                "load": round(float(p / lamcap.critical_p(d, embeddings=embeddings)), 4),
                "accuracy_lower_se": round(_standard_error(values("accuracy_lower")), 5),
                "adam_accuracy_se": round(_standard_error(values("adam_accuracy")), 5),
                "rs_accuracy": round(float(lamcap.best_accuracy(d, p, embeddings=embeddings)), 5),
            }
        )
    return table


def draw(table: list[dict[str, Any]], figure: Path) -> None:
    import matplotlib as mpl  # noqa: PLC0415

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    panels = sorted({(row["embeddings"], row["d"]) for row in table})
    fig, axes = plt.subplots(
        1, len(panels), figsize=(max(9.0, 3.6 * len(panels)), 4.4), sharey=True
    )
    axes = np.atleast_1d(axes)
    for axis, (embeddings, d) in zip(axes, panels, strict=True):
        pc = lamcap.critical_p(d, embeddings=embeddings)
        integers = np.arange(int(np.ceil(pc)), int(2.05 * pc) + 1)
        axis.plot(
            integers / pc,
            lamcap.best_accuracy(d, integers, embeddings=embeddings),
            "k-",
            lw=1.2,
            label="RS law, best_accuracy(d, p, embeddings=...)",
        )
        styles = {"decoupled": ("C0", "o"), "original": ("C3", "s")}
        for model, (colour, marker) in styles.items():
            part = [
                row
                for row in table
                if (row["embeddings"], row["d"]) == (embeddings, d) and row["model"] == model
            ]
            if not part:
                continue
            x = np.array([row["p"] / pc for row in part])
            axis.errorbar(
                x,
                [row["accuracy_lower"] for row in part],
                yerr=[row["accuracy_lower_se"] for row in part],
                color=colour,
                marker=marker,
                ms=4,
                lw=1,
                capsize=2,
                label=f"{model}: certified lower bound",
            )
            axis.plot(
                x,
                [row["accuracy_upper"] for row in part],
                color=colour,
                ls=":",
                marker=marker,
                mfc="none",
                ms=4,
                lw=1,
                label=f"{model}: certified upper bound",
            )
            axis.errorbar(
                x,
                [row["adam_accuracy"] for row in part],
                yerr=[row["adam_accuracy_se"] for row in part],
                color=colour,
                ls="--",
                marker=marker,
                mfc="white",
                ms=4,
                lw=1,
                capsize=2,
                alpha=0.7,
                label=f"{model}: Adam/CE",
            )
        name = "unit norm" if embeddings == "sphere" else "Gaussian"
        axis.set_title(f"d = {d}, {name}  (p_c = {pc:.1f})", fontsize=10)
        axis.set_xlabel("load p / p_c")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("accuracy (fraction of associations recalled)")
    axes[0].set_ylim(0.0, 1.02)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(figure, dpi=130)


def print_start_comparison(rows: list[dict[str, str]]) -> None:
    """Mean lower bound per start at every point where more than one start ran."""
    points: dict[tuple[int, str, str, int], dict[str, dict[str, float]]] = {}
    for row in rows:
        by_start = points.setdefault(point_of(row), {}).setdefault(row["start"], {})
        lower = float(row["accuracy_lower"])
        by_start[row["seed"]] = max(lower, by_start.get(row["seed"], lower))
    print("| d | model | p | starts | instances | mean lower bound per start | best - other |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for (d, _, model, p), starts in sorted(points.items()):
        if len(starts) < 2:
            continue
        seeds = sorted(set.intersection(*(set(by_seed) for by_seed in starts.values())))
        means = {start: np.mean([starts[start][seed] for seed in seeds]) for start in starts}
        ordered = sorted(means, key=lambda start: -means[start])
        text = ", ".join(f"{start} {means[start]:.3f}" for start in ordered)
        gap = means[ordered[0]] - means[ordered[1]]
        print(f"| {d} | {model} | {p} | {len(starts)} | {len(seeds)} | {text} | {gap:+.3f} |")


def summarise(arguments: argparse.Namespace) -> None:
    print_start_comparison(_rows(Path(arguments.instances)))
    table = summary_rows(_rows(Path(arguments.instances)))
    with Path(arguments.csv).open("w", newline="") as handle:
        writer = csv.DictWriter(handle, SUMMARY_COLUMNS)
        writer.writeheader()
        writer.writerows(table)
    draw(table, Path(arguments.figure))
    print(
        "| d | embeddings | model | p (load) | instances | certified lower | certified upper "
        "| RS law | RS - lower | Adam/CE |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for row in table:
        adam = (
            "not run"
            if math.isnan(row["adam_accuracy"])
            else f"{row['adam_accuracy']:.3f} ± {row['adam_accuracy_se']:.3f}"
        )
        print(
            f"| {row['d']} | {row['embeddings']} | {row['model']} | {row['p']} ({row['load']:.2f}) | "
            f"{row['instances']} | {row['accuracy_lower']:.3f} ± {row['accuracy_lower_se']:.3f} | "
            f"{row['accuracy_upper']:.3f} | {row['rs_accuracy']:.3f} | "
            f"{row['rs_accuracy'] - row['accuracy_lower']:+.3f} | {adam} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[16, 32])
    parser.add_argument("--loads", type=float, nargs="+", default=[1.0, 1.1, 1.25, 1.5, 2.0])
    parser.add_argument("--models", nargs="+", default=["decoupled", "original"])
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--start", default="drop")
    parser.add_argument("--embeddings", default="gaussian", choices=["gaussian", "sphere"])
    parser.add_argument(
        "--no-adam", action="store_true", help="bounds only (Adam's columns left empty)"
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        help="per max_recall solve (default: 20 s at d = 16, 45 at 32, 120 at 64)",
    )
    parser.add_argument(
        "--adam-max-seconds",
        type=float,
        default=None,
        help="cap on Adam's training time (default: none, its 5000 steps)",
    )
    parser.add_argument("--instances", default="docs/measurements/recall_fraction_instances.csv")
    parser.add_argument("--csv", default="docs/measurements/recall_fraction.csv")
    parser.add_argument("--figure", default="docs/measurements/recall_fraction.png")
    parser.add_argument("--summary", action="store_true", help="write the summary and figure")
    arguments = parser.parse_args()
    if arguments.summary:
        summarise(arguments)
    else:
        measure(arguments)


if __name__ == "__main__":
    main()

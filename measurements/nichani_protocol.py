"""The linear associative-memory protocol of Nichani et al. (arXiv:2412.06538), run by lamcap.

Writes ``docs/measurements/nichani_protocol.jsonl`` (one line per trained instance,
resumable) and, with ``--summary``, ``docs/measurements/nichani_protocol.csv`` (one row
per (d, seed): the largest N found by bisection at 99% and at 100% accuracy), for
docs/howto/nichani-protocol.md.

The protocol, as their published code runs it (described in lamcap's words):

* N inputs and N outputs, each a Gaussian vector over its norm (uniform on the unit
  sphere), input i must score output i highest: lamcap's original problem with
  ``embeddings="sphere"`` and n = p = N (:func:`lamcap.make_instance`);
* a full d x d matrix trained by full-batch Adam on the softmax cross-entropy
  (no weight decay), learning rate 1000, at most 2**12 = 4096 steps;
* success: accuracy (target strictly on top, here; their argmax breaks ties by index)
  at least 99% at some point of training (they look every 32 steps and stop above 99%;
  lamcap looks before every step, ``stop_accuracy``);
* bisection over N between d and d**2 / 2, halving while the bracket's ratio exceeds
  1.01 and its width exceeds 1; the result is the largest N that succeeded.

Every trained instance is trained once to the full budget or to 100% recall
(``stop_accuracy=1``), and its best recall over the steps decides both criteria, so
one cache of runs serves the bisection at 99% and the one at 100%.  Each (d, N, seed)
is a fresh instance (seed derived from the three).  Run with one BLAS thread per
process (``OPENBLAS_NUM_THREADS=1``): the matrices are small and threads only contend.

Usage::

    OPENBLAS_NUM_THREADS=1 python measurements/nichani_protocol.py --dims 8 11 16 --seeds 5
    python measurements/nichani_protocol.py --summary docs/measurements/nichani_protocol.csv
    python measurements/nichani_protocol.py --plot docs/measurements/nichani_protocol.png
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

import lamcap

OUT = Path("docs/measurements/nichani_protocol.jsonl")
LEARNING_RATE = 1000.0
STEPS = 2**12
THRESHOLDS = {"n_99": 0.99, "n_100": 1.0}


def instance_seed(d: int, n: int, seed: int) -> int:
    """A seed of its own for every (d, N, seed)."""
    return int(np.random.SeedSequence([2412, 6538, d, n, seed]).generate_state(1)[0])


def protocol_instance(d: int, n: int, seed: int) -> lamcap.Instance:
    """The fresh instance the bisection trains at (d, N, seed): unit norm, identity targets."""
    return lamcap.make_instance(
        d, n, model="original", embeddings="sphere", seed=instance_seed(d, n, seed)
    )


def train(d: int, n: int, seed: int, steps: int = STEPS) -> dict[str, object]:
    """Train one instance with the protocol's settings; its best recall over the steps."""
    instance = protocol_instance(d, n, seed)
    started = time.process_time()
    result = lamcap.solve(
        instance,
        method="adam_ce",
        seed=seed,
        options={"learning_rate": LEARNING_RATE, "steps": steps, "stop_accuracy": 1.0},
    )
    return {
        "d": d,
        "n": n,
        "seed": seed,
        "best_recalled": int(result.details["best_recalled"]),
        "all_recalled": result.verdict == "feasible",
        "budget": steps,
        "steps": result.iterations,
        "cpu_seconds": round(time.process_time() - started, 2),
    }


def load(path: Path) -> dict[tuple[int, int, int], dict[str, object]]:
    """Runs already stored, by (d, N, seed)."""
    runs: dict[tuple[int, int, int], dict[str, object]] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            runs[(int(row["d"]), int(row["n"]), int(row["seed"]))] = row
    return runs


def succeeded(row: dict[str, object], threshold: float) -> bool:
    """Best recall at least ``threshold`` of the N associations."""
    return int(row["best_recalled"]) >= math.ceil(threshold * int(row["n"]) - 1e-9)  # type: ignore[call-overload]


def certify(d: int, n: int, seed: int, max_seconds: float) -> dict[str, object]:
    """lamcap's solver on the same instance: certified bounds on the most associations recalled.

    ``best_recalled`` is the lower bound of ``objective="max_recall"`` (a W whose recalled
    associations are verified one by one), ``recall_upper`` its certified upper bound.
    """
    instance = protocol_instance(d, n, seed)
    started = time.process_time()
    result = lamcap.solve(instance, objective="max_recall", max_seconds=max_seconds, seed=seed)
    return {
        "d": d,
        "n": n,
        "seed": seed,
        "best_recalled": int(result.recall_lower),
        "recall_upper": int(result.recall_upper),
        "all_recalled": result.recall_lower == n,
        "max_seconds": max_seconds,
        "cpu_seconds": round(time.process_time() - started, 2),
    }


def bisection(
    d: int,
    seed: int,
    threshold: float,
    runs: dict,  # type: ignore[type-arg]
    path: Path | None,
    measure: Callable[[int, int, int], dict[str, object]] = train,
) -> int:
    """Largest N that succeeded, by the protocol's bisection between d and d**2 / 2.

    Measures the missing instances with ``measure(d, N, seed)`` (Adam by default,
    :func:`certify` for lamcap's solver) and appends them to ``path``; with
    ``path=None`` uses stored runs only and returns -1 if the bisection needs one
    that is missing.
    """
    low, high = d, int(0.5 * d * d)
    while high / low > 1.01 and high - low > 1:
        n = int(0.5 * (low + high))
        key = (d, n, seed)
        if key not in runs:
            if path is None:
                return -1
            runs[key] = measure(d, n, seed)
            with path.open("a") as stream:
                stream.write(json.dumps(runs[key]) + "\n")
            row = runs[key]
            print(
                f"d={d} seed={seed} N={n}: best {row['best_recalled']}/{n} "
                f"all={row['all_recalled']} ({row['cpu_seconds']} s)",
                flush=True,
            )
        if succeeded(runs[key], threshold):
            low = n
        else:
            high = n
    return low


def summary(path: Path, out: Path) -> None:
    """One CSV row per (d, seed): N at 99% and at 100% from the stored runs (-1: unfinished)."""
    runs = load(path)
    pairs = sorted({(d, seed) for d, _, seed in runs})
    with out.open("w", newline="") as stream:
        writer = csv.writer(stream)
        writer.writerow(["d", "seed", *THRESHOLDS, "critical_p_sphere"])
        for d, seed in pairs:
            found = [bisection(d, seed, t, runs, None) for t in THRESHOLDS.values()]
            theory = float(lamcap.critical_p(d, embeddings="sphere"))
            writer.writerow([d, seed, *found, f"{theory:.2f}"])


def budget_check(path: Path, out: Path, factor: int) -> None:
    """Retrain, with ``factor`` times the steps, every stored run that failed to recall
    all its associations at an N no larger than the bisection's answer at 100% plus 3%.

    Appends to ``out`` (resumable), with lamcap's certified verdict on the same
    instance: says whether the protocol's step budget, the optimiser, or the
    capacity ended those runs.
    """
    runs = load(path)
    done = load(out)
    found = {}
    for d, _, seed in runs:
        found[(d, seed)] = bisection(d, seed, 1.0, runs, None)
    for (d, n, seed), row in sorted(runs.items()):
        answer = found[(d, seed)]
        if row["all_recalled"] or answer < 0 or n > 1.03 * answer or (d, n, seed) in done:
            continue
        longer = train(d, n, seed, steps=factor * STEPS)
        longer["certified"] = lamcap.solve(protocol_instance(d, n, seed), max_seconds=600.0).verdict
        with out.open("a") as stream:
            stream.write(json.dumps(longer) + "\n")
        print(
            f"d={d} seed={seed} N={n} (answer {answer}): {row['best_recalled']} -> "
            f"{longer['best_recalled']} of {n} with {factor}x steps; certified "
            f"{longer['certified']}",
            flush=True,
        )


FIT_CONSTANT = 1.3
"""The published fit's constant: their dashed line is N log N = d**2 / 1.3 (load 0.77)."""


def _load_line(dims: np.ndarray, load: float) -> np.ndarray:
    """N with N log N = load * d**2 at each d."""
    from scipy import optimize  # noqa: PLC0415

    budgets = dims.astype(float) ** 2 * load
    return np.array(
        [optimize.brentq(lambda n, b=b: n * math.log(n) - b, 2.0, 1e9) for b in budgets]
    )


def _protocol_points(rows: list[dict[str, str]], column: str) -> dict[int, list[int]]:
    """Finished bisections per d: the answers in ``column`` (n_99 or n_100)."""
    points: dict[int, list[int]] = {}
    for row in rows:
        if int(row[column]) > 0:
            points.setdefault(int(row["d"]), []).append(int(row[column]))
    return points


def plot(summary_csv: Path, capacity_csv: Path, out: Path) -> None:
    """Left: N against d**2 with the laws; right: everything over the unit-norm law."""
    import matplotlib as mpl  # noqa: PLC0415

    mpl.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    rows = list(csv.DictReader(summary_csv.open()))
    grid = np.unique(np.round(np.geomspace(8, 256, 40)).astype(int))
    sphere = np.array([float(lamcap.critical_p(int(d), embeddings="sphere")) for d in grid])
    lines = [
        (
            np.array([float(lamcap.critical_p(int(d))) for d in grid]),
            "C0",
            "--",
            "Gaussian law, critical_p(d)",
        ),
        (_load_line(grid, 1 / FIT_CONSTANT), "gray", ":", "published fit, N log N = d²/1.3"),
        (_load_line(grid, 0.5), "gray", "-.", "d → ∞: N log N = d²/2"),
    ]
    certified = [
        row
        for row in csv.DictReader(capacity_csv.open())
        if row["model"] == "original" and row.get("embeddings") == "sphere" and row["kappa"] == "1"
    ]
    figure, (left, right) = plt.subplots(1, 2, figsize=(11.0, 4.4))
    left.plot(
        grid**2, sphere, color="C0", label="unit-norm law, critical_p(d, embeddings='sphere')"
    )
    right.axhline(1.0, color="C0", label="unit-norm law")
    for values, colour, style, label in lines:
        left.plot(grid**2, values, color=colour, linestyle=style, label=label)
        right.plot(grid, values / sphere, color=colour, linestyle=style, label=label)
    cd = np.array([int(r["d"]) for r in certified])
    law_at = np.array([float(lamcap.critical_p(int(d), embeddings="sphere")) for d in cd])
    pc = np.array([float(r["p_c"]) for r in certified])
    bars = [
        pc - np.array([float(r["p_c_low"]) for r in certified]),
        np.array([float(r["p_c_high"]) for r in certified]) - pc,
    ]
    style = {
        "fmt": "s",
        "color": "C3",
        "markersize": 4,
        "capsize": 2,
        "label": "lamcap, certified 50% point (original, unit norm)",
    }
    left.errorbar(cd**2, pc, yerr=bars, **style)
    right.errorbar(cd, pc / law_at, yerr=[b / law_at for b in bars], **style)
    for column, colour, marker, offset, label in (
        ("n_99", "C1", "o", 1.0, "Adam protocol, 99% (mean, range over seeds)"),
        ("n_100", "C2", "v", 1.03, "Adam protocol, 100%"),
    ):
        points = _protocol_points(rows, column)
        dims = np.array(sorted(points))
        law = np.array([float(lamcap.critical_p(int(d), embeddings="sphere")) for d in dims])
        mean = np.array([np.mean(points[d]) for d in dims])
        spread = [mean - [min(points[d]) for d in dims], [max(points[d]) for d in dims] - mean]
        if column == "n_99":
            left.errorbar(
                dims**2,
                mean,
                yerr=spread,
                fmt=marker,
                color=colour,
                markersize=4,
                capsize=2,
                label=label,
            )
        right.errorbar(
            dims * offset,
            mean / law,
            yerr=[e / law for e in spread],
            fmt=marker,
            color=colour,
            markersize=4,
            capsize=2,
            label=label,
        )
    left.set(xscale="log", yscale="log", xlabel="d²", ylabel="N (associations, n = p)")
    right.set(xscale="log", xlabel="d", ylabel="N / unit-norm law", ylim=(0.55, 1.45))
    right.set_xticks([8, 16, 32, 64, 128, 256], labels=["8", "16", "32", "64", "128", "256"])
    right.set_yticks(np.arange(0.6, 1.25, 0.1))
    left.legend(fontsize=7, loc="upper left")
    right.legend(fontsize=7, loc="upper right", ncol=2)
    for axis in (left, right):
        axis.grid(alpha=0.3, which="both")
    figure.tight_layout()
    figure.savefig(out, dpi=150)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[8, 11, 16, 22, 32, 45, 64])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--summary", type=Path, help="write the per-(d, seed) CSV and stop")
    parser.add_argument("--plot", type=Path, help="draw the figure from the summary CSV and stop")
    parser.add_argument(
        "--budget-check", type=int, metavar="FACTOR", help="retrain failed runs near the answer"
    )
    parser.add_argument(
        "--solver",
        type=float,
        metavar="SECONDS",
        help="bisect with lamcap's max-recall solver (SECONDS per instance) instead of Adam; "
        "runs go to <out>_solver.jsonl, and --summary reads them",
    )
    arguments = parser.parse_args()
    out, measure = arguments.out, train
    if arguments.solver is not None:
        out = arguments.out.with_name(arguments.out.stem + "_solver.jsonl")
        measure = partial(certify, max_seconds=arguments.solver)
    if arguments.budget_check is not None:
        longer = arguments.out.with_name(arguments.out.stem + "_budget.jsonl")
        budget_check(arguments.out, longer, arguments.budget_check)
        return
    if arguments.summary is not None:
        summary(out, arguments.summary)
        return
    if arguments.plot is not None:
        measured = Path("docs/measurements")
        plot(measured / "nichani_protocol.csv", measured / "capacity.csv", arguments.plot)
        return
    runs = load(out)
    for d in arguments.dims:
        for seed in range(arguments.seeds):
            for name, threshold in THRESHOLDS.items():
                found = bisection(d, seed, threshold, runs, out, measure)
                print(f"d={d} seed={seed}: {name} = {found}", flush=True)


if __name__ == "__main__":
    main()

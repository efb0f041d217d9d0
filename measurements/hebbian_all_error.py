"""Error of the Hebbian P(all) = P_1^n against an exact-competitor Monte Carlo.

``hebbian_recall_finite(p, d, all_associations=True)`` multiplies the exact
single-association recall P_1 over the ``n`` associations, as if their recall events
were independent.  They are not (they share W).  This script measures the miss
``P_1^n - P(all)`` on a grid of loads across the transition at
d = 8, 12, 16, 24, 32, 48, 64 (``n = p``) and writes docs/measurements/hebbian_all_error.csv,
the data behind ``lamcap.theory.hebbian_all_recalled_error``.

The memories are those of ``make_instance(d, p, model="decoupled")`` with
``hebbian_weights``: every input e_mu and target u_mu has i.i.d. N(0, 1/d) entries,
W = sum_mu u_mu e_mu^T, and association mu sees p - 1 competitor outputs of its own,
N(0, I/d), that do not enter W; it is recalled iff its target scores strictly above
all of them.  Given (E, U), the p - 1 competitor scores of association mu are exactly
i.i.d. N(0, |h_mu|^2 / d) with h_mu = W e_mu, independent across associations, so in
units of their spread the largest one, M_mu, has cdf Phi^(p-1).  Per memory:

* ``count`` (exact competitors): M_mu is drawn exactly from that law (inverse cdf,
  ``log V < (p - 1) log Phi(X_mu)`` with V uniform, X_mu = sqrt(d) u_mu.h_mu / |h_mu|), and
  the memory counts iff every association is recalled.  The fraction of memories is an
  unbiased estimate of P(all), binomial standard error.
* ``conditional`` (Rao-Blackwellised, same memories): P(all | E, U) =
  prod_mu Phi(X_mu)^(p - 1); its mean is P(all) with a smaller standard error.  The
  error model uses this one; the count checks it.
* ``--explicit K`` additionally draws the p - 1 competitor output vectors of K memories
  per point (the instances' own construction, no use of the Gaussian-score argument)
  and prints their fraction all-recalled next to the count.

Seeds: the memories of point (d, p) come from ``numpy.random.default_rng([seed, d, p])``
(default seed 20261202; the test in tests/theory/test_hebbian.py uses other seeds).
Resumable: points already in ``--csv`` are skipped and every finished point is
appended at once, so the run can be split into chunks (``--dims``, and ``--max-seconds``,
after which no new point is started)::

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 nice -n 10 \\
        python measurements/hebbian_all_error.py --dims 8 12 16 24 32 --instances 100000 --points 20
    ... --dims 48 --max-seconds 540
    ... --dims 64 --max-seconds 540   # again until it prints nothing new
    python measurements/hebbian_all_error.py --summary   # reads the CSV, prints the bound

The grid at each d: every integer p (thinned to about ``--points`` values) at which the
law P_1^n lies in [0.01, 0.99].
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy import special

from lamcap.theory import hebbian_recall_finite

FloatArray = NDArray[np.float64]
ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "docs/measurements/hebbian_all_error.csv"
HEADER = [
    "d",
    "p",
    "n",
    "instances",
    "all_recalled",
    "p_all_count",
    "se_count",
    "p_all_conditional",
    "se_conditional",
    "law",
    "excess",
    "excess_se",
]
DIMS = (8, 12, 16, 24, 32, 48, 64)


def normalised_targets(inputs: FloatArray, targets: FloatArray) -> FloatArray:
    """X_mu = sqrt(d) u_mu.h_mu/|h_mu| for a batch: ``inputs``, ``targets`` of shape (b, n, d)."""
    d = inputs.shape[-1]
    gram = inputs @ inputs.transpose(0, 2, 1)  # e_nu . e_mu
    hidden = gram @ targets  # h_mu = W e_mu = sum_nu (e_nu . e_mu) u_nu
    along = np.einsum("bnd,bnd->bn", targets, hidden)
    norm = np.sqrt(np.einsum("bnd,bnd->bn", hidden, hidden))
    return np.asarray(math.sqrt(d) * along / norm)


def simulate(
    d: int, p: int, instances: int, rng: np.random.Generator, batch: int = 1000
) -> tuple[int, FloatArray]:
    """(memories with every association recalled, P(all | E, U) per memory), ``n = p``."""
    hits, conditional = 0, []
    for start in range(0, instances, batch):
        size = min(batch, instances - start)
        inputs = rng.standard_normal((size, p, d)) / math.sqrt(d)
        targets = rng.standard_normal((size, p, d)) / math.sqrt(d)
        log_recall = (p - 1) * special.log_ndtr(normalised_targets(inputs, targets))
        recalled = np.log(rng.random((size, p))) < log_recall  # top competitor below target
        hits += int(np.all(recalled, axis=1).sum())
        conditional.append(np.exp(log_recall.sum(axis=1)))
    return hits, np.concatenate(conditional)


def explicit(d: int, p: int, instances: int, rng: np.random.Generator) -> float:
    """Fraction of memories all-recalled with the p - 1 competitor vectors drawn explicitly."""
    hits = 0
    for _ in range(instances):
        inputs = rng.standard_normal((p, d)) / math.sqrt(d)
        targets = rng.standard_normal((p, d)) / math.sqrt(d)
        hidden = (targets.T @ inputs) @ inputs.T  # column mu: W e_mu
        competitors = rng.standard_normal((p, p - 1, d)) / math.sqrt(d)
        target_scores = np.einsum("nd,dn->n", targets, hidden)
        top = np.einsum("nkd,dn->nk", competitors, hidden).max(axis=1)
        hits += bool(np.all(target_scores > top))
    return hits / instances


def grid(d: int, points: int) -> list[tuple[int, float]]:
    """(p, law P_1^p) at the integers p where the law is in [0.01, 0.99], about ``points`` of them."""
    inside = []
    for p in range(2, 20 * d):
        law = float(hebbian_recall_finite(p, d, all_associations=True))
        if 0.01 <= law <= 0.99:
            inside.append((p, law))
        if law < 0.01:
            break
    step = max(1, math.ceil(len(inside) / points))
    return inside[::step]


def done(path: Path) -> set[tuple[int, int]]:
    """(d, p) already measured in ``path``."""
    if not path.exists():
        return set()
    with path.open(encoding="utf-8") as handle:
        return {(int(row["d"]), int(row["p"])) for row in csv.DictReader(handle)}


def pending(
    points: list[tuple[int, int]], finished: set[tuple[int, int]], max_seconds: float
) -> Iterator[tuple[int, int]]:
    """The (d, p) of ``points`` not yet ``finished``, until ``max_seconds`` have passed."""
    start = time.monotonic()
    for point in points:
        if point in finished:
            continue
        if time.monotonic() - start > max_seconds:
            print("time budget spent: run again to resume", flush=True)
            return
        yield point


def estimates(hits: int, conditional: FloatArray) -> tuple[int, float, float, float, float]:
    """(memories, P(all) by counting and its error, conditional estimate and its error)."""
    size = conditional.size
    count = hits / size
    se_count = math.sqrt(max(count * (1 - count), 1 / size) / size)
    return (
        size,
        count,
        se_count,
        float(conditional.mean()),
        float(conditional.std(ddof=1) / math.sqrt(size)),
    )


def measured_columns(d: int, p: int, hits: int, conditional: FloatArray) -> list[object]:
    """The columns every P(all) CSV starts with: d, p, n = p, memories, hits, both estimates."""
    size, count, se_count, mean, se = estimates(hits, conditional)
    return [d, p, p, size, hits, f"{count:.5f}", f"{se_count:.5f}", f"{mean:.5f}", f"{se:.5f}"]


def append(path: Path, row: list[object], header: list[str] = HEADER) -> None:
    """One measured point, appended (``header`` first if the file is new)."""
    new = not path.exists()
    with path.open("a", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        if new:
            writer.writerow(header)
        writer.writerow(row)


def summary(path: Path) -> None:
    """Largest miss per d, and the smallest c with |law - P(all)| + 2 se <= c / sqrt(d) everywhere."""
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    c_point, c_covered = 0.0, 0.0
    for d in sorted({int(row["d"]) for row in rows}):
        mine = [row for row in rows if int(row["d"]) == d]
        worst = max(mine, key=lambda row: abs(float(row["excess"])))
        low = min(float(row["excess"]) - 2 * float(row["excess_se"]) for row in mine)
        covered = max(abs(float(row["excess"])) + 2 * float(row["excess_se"]) for row in mine)
        agree = max(
            abs(float(row["p_all_count"]) - float(row["p_all_conditional"]))
            / float(row["se_count"])
            for row in mine
        )
        excess, root = float(worst["excess"]), math.sqrt(d)
        c_point, c_covered = max(c_point, root * abs(excess)), max(c_covered, root * covered)
        print(
            f"d = {d:2d}: {len(mine)} points (p = {mine[0]['p']}-{mine[-1]['p']}), largest miss "
            f"{excess:+.4f} +- {float(worst['excess_se']):.4f} at p = {worst['p']} "
            f"(law {float(worst['law']):.3f}, relative {excess / float(worst['law']):+.1%}); "
            f"sqrt(d) x miss {root * abs(excess):.3f}, d x miss {d * abs(excess):.3f}; "
            f"max |miss| + 2 se {covered:.4f}; min miss - 2 se {low:+.4f}; "
            f"count vs conditional within {agree:.1f} se"
        )
    print(f"max sqrt(d) x |miss| {c_point:.4f}; max sqrt(d) x (|miss| + 2 se) {c_covered:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=list(DIMS))
    parser.add_argument("--instances", type=int, default=100000)
    parser.add_argument("--points", type=int, default=20)
    parser.add_argument("--seed", type=int, default=20261202)
    parser.add_argument("--explicit", type=int, default=0)
    parser.add_argument("--csv", type=Path, default=CSV)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--max-seconds", type=float, default=math.inf)
    arguments = parser.parse_args()
    if arguments.summary:
        summary(arguments.csv)
        return
    laws = {(d, p): law for d in arguments.dims for p, law in grid(d, arguments.points)}
    for d, p in pending(list(laws), done(arguments.csv), arguments.max_seconds):
        law = laws[d, p]
        rng = np.random.default_rng([arguments.seed, d, p])
        hits, conditional = simulate(d, p, arguments.instances, rng)
        _, count, se_count, mean, se = estimates(hits, conditional)
        append(
            arguments.csv,
            [
                *measured_columns(d, p, hits, conditional),
                f"{law:.5f}",
                f"{law - mean:.5f}",
                f"{se:.5f}",
            ],
        )
        line = (
            f"d = {d:2d}, p = {p:3d}: count {count:.4f} ({se_count:.4f}), conditional "
            f"{mean:.4f} ({se:.4f}), law {law:.4f}, excess {law - mean:+.4f}"
        )
        if arguments.explicit > 0:
            line += f"; explicit competitors {explicit(d, p, arguments.explicit, rng):.4f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()

"""Held-out test of the Hebbian pair law for P(all associations recalled).

``hebbian_recall_finite(p, d, all_associations=True, pairs=True)`` corrects the
independence power P_1^n with the pair correlation of the normalised targets
(docs/theory/hebbian.md, "All associations: the pair law").  The law has no constant
fitted on Monte Carlo; the one choice made with data, r = (n - 1)/d rather than n/d,
was taken on docs/measurements/hebbian_all_error.csv (d = 8, 12, 16, 24, 32, 48, 64).
This script measures it at other sizes, d = 10, 20, 28, 40, 56, 80, 96, 128, and at
d = 16 (the size of the experiments' Hebbian claim) with seeds never used before
(``n = p``), and writes

* docs/measurements/hebbian_all_pairs.csv: one row per (d, p), P(all) by Monte Carlo
  next to the pair law and P_1^n;
* docs/measurements/hebbian_all_pairs_transition.csv (``--summary``): per d, the load
  p_c where P(all) = 1/2 from the Monte Carlo, with a 95% interval, and from both laws.

Monte Carlo (``simulate`` of measurements/hebbian_all_error.py): memories of
``make_instance(d, p, model="decoupled")`` drawn with numpy (inputs and targets
i.i.d. N(0, 1/d) entries), W = sum_mu u_mu e_mu^T, h_mu = W e_mu,
X_mu = sqrt(d) u_mu.h_mu / |h_mu|.  Given (E, U) the p - 1 competitor scores of
association mu are exactly i.i.d. N(0, |h_mu|^2/d), independent across associations, so

* ``count`` (exact competitors): the top competitor of each association is drawn
  exactly from its law Phi^(p-1) (``log V < (p - 1) log Phi(X_mu)``, V uniform), and a
  memory counts iff every association is recalled (binomial standard error);
* ``conditional`` (same memories): P(all | E, U) = prod_mu Phi(X_mu)^(p-1), whose mean
  is P(all) with a smaller standard error; the fits use this one, and the summary
  checks that the two agree.

Seeds: point (d, p) uses ``numpy.random.default_rng([seed, d, p])``, seed 20261207.

p_c: at each d the points are about ``--points`` integers p where the pair law lies in
[0.15, 0.85].  The measured p_c is the root of a weighted least-squares parabola through
(p, Phi^-1(P(all))) (weights from the standard errors by the delta method); its 95%
interval is +-1.96 standard errors of the root (delta method on the fitted parabola).
The laws' p_c are their own crossings of 1/2 (bisection on the integers, probit
interpolation between the two around it).  The summary also prints the root of the same
parabola through the laws' values at the points: its distance from the laws' crossing
is the bias of the fitted shape (0.05% at d = 10, 0.03% or less at d >= 16; a line
instead of a parabola would be off by up to 0.8%).

Resumable: points already in ``--csv`` are skipped, each finished point is appended at
once, and no new point starts after ``--max-seconds``::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 nice -n 10 \\
        python measurements/hebbian_all_pairs.py --instances 30000 --max-seconds 500
    ...                                              # again until it prints nothing new
    python measurements/hebbian_all_pairs.py --summary   # writes the transition CSV
"""

from __future__ import annotations

import argparse
import csv
import math
import time
from pathlib import Path

import numpy as np
from hebbian_all_error import HEADER as ALL_ERROR_HEADER
from hebbian_all_error import (
    append,
    done,
    estimates,
    measured_columns,
    pending,
    simulate,  # the same memories and estimators, batch by batch
)
from numpy.typing import NDArray
from scipy import special

from lamcap.theory import hebbian_recall_finite

FloatArray = NDArray[np.float64]
ROOT = Path(__file__).resolve().parent.parent
CSV = ROOT / "docs/measurements/hebbian_all_pairs.csv"
TRANSITION_CSV = ROOT / "docs/measurements/hebbian_all_pairs_transition.csv"
HEADER = [*ALL_ERROR_HEADER[:9], "law_pairs", "law_power"]  # d, p, n, ... se_conditional
TRANSITION_HEADER = [
    "d",
    "points",
    "instances",
    "p_c",
    "p_c_se",
    "p_c_low",
    "p_c_high",
    "p_c_pairs",
    "p_c_power",
    "error_pairs_percent",
    "error_power_percent",
]
DIMS = (10, 16, 20, 28, 40, 56, 80, 96, 128)
SEED = 20261207


def law(p: int, d: int, pairs: bool) -> float:
    """P(all) by the pair law or by P_1^n, ``n = p``."""
    return float(hebbian_recall_finite(p, d, all_associations=True, pairs=pairs))


def crossing_bracket(d: int) -> tuple[int, int]:
    """Smallest and largest integer p with the pair law in [0.15, 0.85] (the law falls with p)."""

    def first_below(level: float) -> int:
        low, high = 2, 4
        while law(high, d, True) >= level:
            low, high = high, 2 * high
        while high - low > 1:  # law(low) >= level > law(high)
            middle = (low + high) // 2
            if law(middle, d, True) >= level:
                low = middle
            else:
                high = middle
        return high

    return first_below(0.85), first_below(0.15) - 1


def grid(d: int, points: int) -> list[int]:
    """About ``points`` integers p, evenly spread where the pair law is in [0.15, 0.85]."""
    first, last = crossing_bracket(d)
    values = np.linspace(first, last, min(points, last - first + 1))
    return sorted({round(float(value)) for value in values})


def read(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def probit_root(p: FloatArray, values: FloatArray, se: FloatArray) -> tuple[float, float]:
    """Root of the weighted least-squares parabola through (p, Phi^-1(value)), with its se."""
    z = special.ndtri(values)
    z_se = se / (np.exp(-0.5 * z * z) / math.sqrt(2.0 * math.pi))
    weights = 1.0 / z_se**2
    centre = float(np.sum(weights * p) / np.sum(weights))
    design = np.vander(p - centre, 3, increasing=True)  # 1, p - centre, (p - centre)^2
    covariance = np.linalg.inv(design.T @ (weights[:, None] * design))
    beta = covariance @ (design.T @ (weights * z))
    roots = np.roots(beta[::-1])
    real = roots[np.isreal(roots)].real
    root = float(real[np.argmin(np.abs(real))])  # the root inside the points
    slope = beta[1] + 2.0 * beta[2] * root
    gradient = -np.array([1.0, root, root * root]) / slope  # d root / d beta
    return centre + root, float(math.sqrt(gradient @ covariance @ gradient))


def law_crossing(d: int, pairs: bool) -> float:
    """Crossing of 1/2 by the law, probit-interpolated between the bracketing integers."""
    low, high = 2, 4
    while law(high, d, pairs) >= 0.5:
        low, high = high, 2 * high
    while high - low > 1:
        middle = (low + high) // 2
        if law(middle, d, pairs) >= 0.5:
            low = middle
        else:
            high = middle
    z_low, z_high = special.ndtri(law(low, d, pairs)), special.ndtri(law(high, d, pairs))
    return low + float(z_low / (z_low - z_high))


def summary(path: Path, out: Path) -> None:
    """p_c per d from the Monte Carlo and from both laws; writes ``out``."""
    rows = read(path)
    if out.exists():
        out.unlink()
    for d in sorted({int(row["d"]) for row in rows}):
        mine = [row for row in rows if int(row["d"]) == d]
        p = np.array([float(row["p"]) for row in mine])
        measured = np.array([float(row["p_all_conditional"]) for row in mine])
        se = np.array([float(row["se_conditional"]) for row in mine])
        p_c, p_c_se = probit_root(p, measured, se)
        crossing = {}
        for name in ("law_pairs", "law_power"):
            crossing[name] = law_crossing(d, name == "law_pairs")
            values = np.array([float(row[name]) for row in mine])
            shape = probit_root(p, values, se)[0]  # the same parabola through the law
            print(
                f"  d = {d}: {name} crossing {crossing[name]:.3f}; the parabola through its "
                f"values at the points {shape:.3f} ({100 * (shape / crossing[name] - 1):+.3f}%)"
            )
        agree = max(
            abs(float(row["p_all_count"]) - float(row["p_all_conditional"]))
            / float(row["se_count"])
            for row in mine
        )
        errors = {name: 100.0 * (value / p_c - 1.0) for name, value in crossing.items()}
        print(
            f"d = {d:3d}: {len(mine)} points, p_c = {p_c:.3f} +- {1.96 * p_c_se:.3f} (95%), "
            f"pairs {crossing['law_pairs']:.3f} ({errors['law_pairs']:+.2f}%), "
            f"P_1^n {crossing['law_power']:.3f} ({errors['law_power']:+.2f}%); "
            f"count vs conditional within {agree:.1f} se",
            flush=True,
        )
        append(
            out,
            header=TRANSITION_HEADER,
            row=[
                d,
                len(mine),
                int(mine[0]["instances"]),
                f"{p_c:.3f}",
                f"{p_c_se:.3f}",
                f"{p_c - 1.96 * p_c_se:.3f}",
                f"{p_c + 1.96 * p_c_se:.3f}",
                f"{crossing['law_pairs']:.3f}",
                f"{crossing['law_power']:.3f}",
                f"{errors['law_pairs']:.2f}",
                f"{errors['law_power']:.2f}",
            ],
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=list(DIMS))
    parser.add_argument("--instances", type=int, default=30000)
    parser.add_argument("--points", type=int, default=7)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--csv", type=Path, default=CSV)
    parser.add_argument("--transition-csv", type=Path, default=TRANSITION_CSV)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--max-seconds", type=float, default=math.inf)
    arguments = parser.parse_args()
    if arguments.summary:
        summary(arguments.csv, arguments.transition_csv)
        return
    points = [(d, p) for d in arguments.dims for p in grid(d, arguments.points)]
    for d, p in pending(points, done(arguments.csv), arguments.max_seconds):
        rng = np.random.default_rng([arguments.seed, d, p])
        batch = max(1, min(2000, 4_000_000 // (p * max(p, d))))
        begun = time.monotonic()
        hits, conditional = simulate(d, p, arguments.instances, rng, batch=batch)
        _, count, _, mean, se = estimates(hits, conditional)
        pairs, power = law(p, d, True), law(p, d, False)
        append(
            arguments.csv,
            header=HEADER,
            row=[*measured_columns(d, p, hits, conditional), f"{pairs:.5f}", f"{power:.5f}"],
        )
        print(
            f"d = {d:3d}, p = {p:3d}: conditional {mean:.4f} ({se:.4f}), count {count:.4f}, "
            f"pairs {pairs:.4f} ({pairs - mean:+.4f}), P_1^n {power:.4f} "
            f"({power - mean:+.4f}); {time.monotonic() - begun:.0f} s",
            flush=True,
        )


if __name__ == "__main__":
    main()

r"""Singular values of certified max-margin memories against the finite-size law (issues 11, 22).

For each ``(d, p/p_c, seed)`` this script solves the max-margin problem

.. math::

    \min \|W\|_F \quad\text{s.t.}\quad (u_t - u_\rho)^\top W e_\mu \ge 1
    \quad \forall \mu,\ \rho \ne t

on the decoupled instance ``lamcap.make_instance(d, p, seed=seed)`` at full
rank, checks that the returned ``W`` satisfies every raw margin, and appends one
row to a CSV: the certified relative distance to the exact optimum, the
fourth-moment ratio :math:`E[s^4]/E[s^2]^2` of the ``d`` singular values, their
KS distance to the quarter circle, the dual heterogeneity
:math:`d\sum_\mu c_\mu^4/(\sum_\mu c_\mu^2)^2` where the solver exposes the dual
decomposition, and the singular values themselves (frobenius units, space
separated) so that any law can be compared later without solving again.

Solver: ``lamcap.solve(instance, objective="max_margin", tolerance=t)``
(``t`` = ``--tolerance``; it decides feasibility itself and proves infeasible
instances so, and its relative duality gap :math:`g = (P - D)/P` bounds
:math:`\|W - W^*\|_F^2/\|W\|_F^2`, so ``distance_bound`` is :math:`\sqrt g`).
Rows of the first pass (empty ``gap_tolerance``) came from a working-set dual ascent
of an earlier script, since retired (``benchmarks/measure_spectrum.py`` at commit
6ecc778); the page says how they compare.
``gap_tolerance`` records ``t`` (empty on rows of the first pass, which asked
for distance 1e-3, i.e. ``t = 1e-6``, or 3e-3 at d = 64); ``load_average`` the
one-minute load average at the end of the solve, next to its ``seconds``;
``primal_norm`` :math:`\|W\|_F` at raw margin 1, so that :math:`d/\|W\|_F` is the
instance's own normalised margin (scores in units of the competitor spread
:math:`\|W\|_F/d`; empty where the solver did not report it).  ``--save FOLDER``
also writes ``W`` and the multipliers of each solve (``.npz``), the input of the
decomposition in docs/measurements/spectrum.md ("Which assumption fails").

Resumable: rows already in the CSV with the same ``d, kappa, p, seed`` and
``gap_tolerance`` are skipped, so a seed of an earlier pass is solved again at a
new tolerance; ``--per-point`` counts the feasible rows at this tolerance. New
rows are appended one at a time; ``--per-point`` counts only the seeds asked for
(``--seeds``), so that the seeds that build a law (below 1000) and the held-out
seeds that check it (1000 and above, see ``spectrum_finite_size_report.py``)
fill up separately.  Keep CPU use bounded::

    nice -n 10 env NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \
        python measurements/spectrum_finite_size.py --d 16,24,32 \
        --fractions 0.65,0.8,0.9,0.95 --seeds 1000-1099 --per-point 16 --tolerance 1e-4

At 0.5 critical_p(d) the first-order stage meets a gap of 1e-4 at a distance up to
7e-3 from the optimum; solve there with ``--tolerance 1e-8``.

The analysis (table, KS against the finite-size law, the figure) is
``measurements/spectrum_finite_size_report.py``.
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

import lamcap
from lamcap.empirical import empirical_spectrum

COLUMNS = (
    "verdict",
    "d",
    "kappa",
    "fraction",
    "p",
    "seed",
    "solver",
    "distance_bound",
    "min_raw_margin",
    "passes",
    "seconds",
    "ratio",
    "ks_quarter_circle",
    "heterogeneity",
    "singular_values",
    "gap_tolerance",
    "load_average",
    "primal_norm",
)
DEFAULT_CSV = Path(__file__).resolve().parents[1] / "docs/measurements/spectrum_finite_size.csv"


def _dual_heterogeneity(instance: lamcap.Instance, dual: Any) -> float:
    r""":math:`d\sum_\mu c_\mu^4/(\sum_\mu c_\mu^2)^2`, :math:`c_\mu = \|h_\mu\|\,\|e_\mu\|`.

    :math:`h_\mu = \sum_\rho y_{\mu\rho}(u_t - u_\rho)` from the certificate's dual
    weights (``MarginDual``: associations, competitors, y).
    """
    outputs = np.concatenate([block for _, block in instance.blocks()])
    mus, rhos, y = dual.associations, dual.competitors, dual.y
    columns = np.zeros((instance.n, instance.d))
    np.add.at(columns, mus, y[:, None] * (outputs[mus, 0] - outputs[mus, rhos]))
    squares = np.sum(columns**2, axis=1) * np.sum(instance.inputs**2, axis=1)
    return instance.d * float(np.sum(squares**2)) / float(np.sum(squares)) ** 2


def raw_margin_minimum(instance: lamcap.Instance, weights: np.ndarray) -> float:
    """Smallest raw margin ``(u_t - u_rho)^T W e_mu`` over all associations and competitors."""
    low = math.inf
    start = 0
    for _, block in instance.blocks():
        inputs = instance.inputs[start : start + block.shape[0]]
        start += block.shape[0]
        scores = np.einsum("npd,nd->np", block, inputs @ weights.T)
        low = min(low, float((scores[:, :1] - scores[:, 1:]).min()))
    return low


def solve_max_margin(instance: lamcap.Instance, tolerance: float) -> dict[str, Any]:
    """Certified max-margin ``W`` with its certificate and the dual heterogeneity.

    ``tolerance`` is the relative duality gap asked for; an infeasible instance
    ends with its Farkas certificate checked by ``lamcap.solve``.
    """
    start = time.perf_counter()
    # relative_gap = (P - D)/P bounds |W - W*|_F^2 / |W|_F^2 (strong convexity)
    result = lamcap.solve(instance, objective="max_margin", tolerance=tolerance)
    if result.verdict != "feasible":
        return {"verdict": result.verdict, "seconds": time.perf_counter() - start}
    details = result.details
    return {
        "verdict": "feasible",
        "weights": np.asarray(result.weights),
        "solver": "lamcap.solve(objective='max_margin')",
        "distance_bound": math.sqrt(max(float(details["relative_gap"]), 0.0)),
        "passes": int(getattr(result, "iterations", -1)),
        "heterogeneity": _dual_heterogeneity(instance, details["dual"]),
        "primal_norm": float(details["primal_norm"]),
        "dual": details["dual"],
        "seconds": time.perf_counter() - start,
    }


def _rows(path: Path, d: int, p: int, tolerance: str) -> list[dict[str, str]]:
    """Rows already measured at full rank, ``(d, p)``, gap tolerance ``tolerance``."""
    if not path.exists():
        return []
    with path.open() as handle:
        return [
            r
            for r in csv.DictReader(handle)
            if int(r["d"]) == d
            and int(r["p"]) == p
            and float(r["kappa"]) == 1.0
            and (r.get("gap_tolerance") or "") == tolerance
        ]


def _append(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow(row)


def _save(
    folder: Path, instance: lamcap.Instance, tolerance: float, solved: dict[str, Any]
) -> None:
    """``W`` (and the multipliers, when known) of one solve as ``.npz``, for later diagnostics."""
    folder.mkdir(parents=True, exist_ok=True)
    name = f"d{instance.d}_p{instance.p}_seed{instance.seed}_gap{tolerance:g}.npz"
    arrays: dict[str, Any] = {"weights": solved["weights"]}
    if "dual" in solved:
        dual = solved["dual"]
        arrays.update(associations=dual.associations, competitors=dual.competitors, y=dual.y)
    np.savez_compressed(folder / name, **arrays)


def measure_one(
    d: int,
    fraction: float,
    seed: int,
    tolerance: float,
    save: Path | None = None,
) -> dict[str, Any]:
    """One certified max-margin solve at ``p = round(fraction * critical_p(d))``; a CSV row."""
    p = max(2, round(fraction * float(lamcap.critical_p(d))))
    instance = lamcap.make_instance(d, p, seed=seed)
    solved = solve_max_margin(instance, tolerance)
    load = f"{os.getloadavg()[0]:.2f}"
    blank = dict.fromkeys(COLUMNS, "")
    blank.update(
        d=d,
        kappa=1.0,
        fraction=fraction,
        p=p,
        seed=seed,
        gap_tolerance=f"{tolerance:g}",
        load_average=load,
    )
    if solved["verdict"] != "feasible":
        return {**blank, "verdict": solved["verdict"], "seconds": f"{solved['seconds']:.1f}"}
    weights = solved["weights"]
    if save is not None:
        _save(save, instance, tolerance, solved)
    low = raw_margin_minimum(instance, weights)
    if not low >= 1.0 - 1e-9:
        return {**blank, "verdict": "unverified", "min_raw_margin": f"{low:.6f}"}
    spectrum = empirical_spectrum(weights)
    values = np.asarray(spectrum.singular_values)
    return {
        "verdict": "feasible",
        "d": d,
        "kappa": 1.0,
        "fraction": fraction,
        "p": p,
        "seed": seed,
        "solver": solved["solver"],
        "distance_bound": f"{solved['distance_bound']:.3e}",
        "min_raw_margin": f"{low:.6f}",
        "passes": solved["passes"],
        "seconds": f"{solved['seconds']:.1f}",
        "ratio": f"{spectrum.moment_ratio():.6f}",
        "ks_quarter_circle": f"{spectrum.ks_distance(family='optimum'):.6f}",
        "heterogeneity": f"{solved['heterogeneity']:.6f}",
        "singular_values": " ".join(f"{v:.8f}" for v in values),
        "gap_tolerance": f"{tolerance:g}",
        "load_average": load,
        "primal_norm": f"{solved['primal_norm']:.9g}" if "primal_norm" in solved else "",
    }


def _ints(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            low, high = part.split("-")
            out += list(range(int(low), int(high) + 1))
        else:
            out.append(int(part))
    return out


def main(argv: list[str] | None = None) -> None:
    """Command line entry point: solve what is missing, append to the CSV."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--d", type=_ints, default=[16, 24, 32, 64])
    parser.add_argument(
        "--fractions", type=lambda s: [float(x) for x in s.split(",")], default=[0.95]
    )
    parser.add_argument("--seeds", type=_ints, default=list(range(41)))
    parser.add_argument(
        "--tolerance", type=float, default=1e-4, help="relative duality gap (distance <= sqrt)"
    )
    parser.add_argument(
        "--per-point", type=int, default=8, help="stop a point after this many feasible seeds"
    )
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument(
        "--save", type=Path, default=None, help="folder for W and multipliers (.npz per solve)"
    )
    args = parser.parse_args(argv)
    chosen = set(args.seeds)
    for d in args.d:
        for fraction in args.fractions:
            p = max(2, round(fraction * float(lamcap.critical_p(d))))
            for seed in args.seeds:
                rows = [
                    r
                    for r in _rows(args.csv, d, p, f"{args.tolerance:g}")
                    if int(r["seed"]) in chosen
                ]
                if sum(r["verdict"] == "feasible" for r in rows) >= args.per_point:
                    break
                if any(int(r["seed"]) == seed for r in rows):
                    continue
                row = measure_one(
                    d,
                    fraction,
                    seed,
                    args.tolerance,
                    args.save,
                )
                _append(args.csv, row)
                print(
                    f"d={d} p={p} seed={seed}: {row['verdict']} ratio={row['ratio']}"
                    f" ks={row['ks_quarter_circle']} dist<={row['distance_bound']}"
                    f" {row['seconds']}s load average {row['load_average']}",
                    flush=True,
                )


if __name__ == "__main__":
    main()

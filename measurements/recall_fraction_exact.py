"""The best accuracy at d = 8 by mixed-integer programming, against the RS law and lamcap.

An independent measurement of the optimum for docs/measurements/recall-fraction.md,
section "The optimum at d = 8".  For each instance (n = p, Gaussian embeddings) HiGHS
(``scipy.optimize.milp``, through ``lamcap.solvers._max_recall.milp_recall``) solves

    max sum_mu z_mu  subject to  a_{mu rho} . vec W >= gamma - M (1 - z_mu)  for rho != t(mu),
    -1 <= W_ij <= 1,  z_mu in {0, 1},

with unit rows ``a_{mu rho} = vec((u_t - u_rho) e_mu^T) / norm``, ``gamma = 1e-3`` and
``M = gamma + d`` (``|a . vec W| <= ||a||_1 <= d`` on the box, so ``z_mu = 0`` frees
association mu).  The box and gamma exclude only recall at normalised margins below
``gamma / ||W||_F >= 1e-3 / d``; HiGHS works in floating point (feasibility tolerance
1e-6), so its dual bound is a measurement, not a certificate.  Its ``W`` is re-checked
by lamcap's verification (``recalled_associations``), and the same instance gets
``lamcap.solve(objective="max_recall")`` (certified bounds) for comparison.  One row per
instance, appended and resumed::

    OPENBLAS_NUM_THREADS=1 python measurements/recall_fraction_exact.py --loads 1.25 1.5
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from best_accuracy import instance_grid

import lamcap
from lamcap.problems import Instance
from lamcap.solvers._max_recall import milp_recall

COLUMNS = [
    "d",
    "model",
    "load",
    "p",
    "seed",
    "mip_status",
    "mip_recalled",
    "mip_bound",
    "mip_verified",
    "mip_seconds",
    "recall_lower",
    "recall_upper",
    "rs_recalled",
]


def mip_optimum(instance: Instance, time_limit: float) -> dict[str, Any]:
    """HiGHS's optimum of the big-M program above, its dual bound and lamcap's check of its W."""
    began = time.perf_counter()
    found = milp_recall(instance, time_limit=time_limit)
    return {
        "mip_status": 0 if found.optimal else 1,
        "mip_recalled": found.incumbent if found.weights is not None else "",
        "mip_bound": round(found.bound, 3),
        "mip_verified": found.recalled.size if found.weights is not None else -1,
        "mip_seconds": round(time.perf_counter() - began, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[8])
    parser.add_argument("--loads", type=float, nargs="+", default=[1.25, 1.5])
    parser.add_argument("--models", nargs="+", default=["decoupled", "original"])
    parser.add_argument("--seeds", type=int, default=6)
    parser.add_argument("--time-limit", type=float, default=300.0)
    parser.add_argument("--csv", default="docs/measurements/recall_fraction_exact.csv")
    arguments = parser.parse_args()
    grid = instance_grid(
        Path(arguments.csv),
        COLUMNS,
        dims=arguments.dims,
        loads=arguments.loads,
        seeds=arguments.seeds,
        models=arguments.models,
    )
    for instance, load, seed, _, write in grid:
        d, p = instance.d, instance.p
        row: dict[str, Any] = {"d": d, "model": instance.model, "load": load, "p": p}
        row |= {"seed": seed, **mip_optimum(instance, arguments.time_limit)}
        bounds = lamcap.solve(instance, objective="max_recall", max_seconds=30.0, seed=seed)
        row |= {
            "recall_lower": bounds.recall_lower,
            "recall_upper": bounds.recall_upper,
            "rs_recalled": round(float(lamcap.best_accuracy(d, p)) * p, 3),
        }
        write(row)


if __name__ == "__main__":
    main()

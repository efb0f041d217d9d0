"""Why does the original problem (OP) store more than the decoupled one (DP) at finite d?

Two controlled variants of the decoupled problem, built with
``lamcap.Instance.from_arrays`` and solved with the certified solver:

* ``whitened`` — DP whose outputs are whitened per association,
  ``U_mu -> U_mu S_mu^{-1/2}`` with ``S_mu = (d/p) U_muᵀ U_mu``.  OP's feasibility
  is unchanged by ``U -> U A`` (``W -> A^{-1} W``), so OP never "sees" the sample
  covariance of its outputs; this variant removes it from DP too.  If the output
  anisotropy were the cause, this variant would move DP towards OP.
* ``shared-competitors`` — every association has a fresh target but the same
  ``p - 1`` competitors (one shared matrix).  If OP's advantage comes from W
  steering around one fixed set of competitors, this variant shows it without
  the coupling "every output is also somebody's target".

For each variant and d, ``n = p`` associations on a grid of p around
``critical_p(d)``, ``--seeds`` instances per p, verdicts appended to a CSV
(rerunning skips what is done); then the transition is fitted and compared
with OP and DP from a results database (``--db``, from ``lamcap sweep``) by the
joint profile-likelihood ratio interval.  Run::

    NUMBA_NUM_THREADS=1 python measurements/op_vs_dp_mechanism.py --variant whitened \
        --d 16 --seeds 20 --csv whitened.csv --db opdp_small.sqlite
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from original_problem_decomposition import counts, grid

import lamcap
from lamcap.experiments._analysis import cell_data
from lamcap.experiments._fitting import fit_transition, fit_transition_ratio

VARIANTS = ("whitened", "shared-competitors")


def _whitened(d: int, p: int, seed: int) -> lamcap.Instance:
    base = lamcap.make_instance(d, p, model="decoupled", seed=10_000 + seed)
    outputs = np.stack([base.outputs(mu) for mu in range(base.n)])  # (n, p, d)
    covariance = np.einsum("npd,npe->nde", outputs, outputs) * d / p
    values, vectors = np.linalg.eigh(covariance)
    inverse_root = np.einsum("nde,ne,nfe->ndf", vectors, values**-0.5, vectors)
    whitened = np.einsum("npd,ndf->npf", outputs, inverse_root)
    return lamcap.Instance.from_arrays(base.inputs, whitened, base.targets, model="decoupled")


def _shared_competitors(d: int, p: int, seed: int) -> lamcap.Instance:
    rng = np.random.default_rng([7, d, p, seed])
    scale = 1 / np.sqrt(d)
    inputs = scale * rng.standard_normal((p, d))
    competitors = scale * rng.standard_normal((p - 1, d))
    targets = scale * rng.standard_normal((p, 1, d))
    outputs = np.concatenate([targets, np.broadcast_to(competitors, (p, p - 1, d))], axis=1)
    return lamcap.Instance.from_arrays(inputs, outputs, 0, model="decoupled")


def _run(variant: str, d: int, seeds: int, path: Path) -> None:
    build = _whitened if variant == "whitened" else _shared_competitors
    done = set()
    if path.exists():
        with path.open() as handle:
            done = {(int(r["d"]), int(r["p"]), int(r["seed"])) for r in csv.DictReader(handle)}
    new_file = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.writer(handle)
        if new_file:
            writer.writerow(["d", "p", "seed", "verdict"])
        for seed in range(seeds):
            for p in grid(d):
                if (d, p, seed) not in done:
                    result = lamcap.solve(build(d, p, seed), max_seconds=600)
                    writer.writerow([d, p, seed, result.verdict])
                    handle.flush()


def _counts(path: Path, d: int) -> tuple[list[int], list[int], list[int]]:
    with path.open() as handle:
        return counts([r for r in csv.DictReader(handle) if int(r["d"]) == d])


def _compare(variant: str, d: int, path: Path, database: Path | None) -> None:
    counts = _counts(path, d)
    fit = fit_transition(*counts)
    print(
        f"{variant} d={d}: p_c = {fit.p_c:.2f} [{fit.low:.2f}, {fit.high:.2f}] "
        f"({sum(counts[2])} instances); critical_p = {float(lamcap.critical_p(d)):.2f}"
    )
    if database is None:
        return
    for cell, data in cell_data(database).items():
        if cell.d != d or cell.kappa != 1.0:
            continue
        keep = data.decided > 0
        ratio = fit_transition_ratio(
            counts, (data.p[keep], data.feasible[keep], data.decided[keep])
        )
        print(f"  {variant} / {cell.model}: {ratio.ratio:.4f} [{ratio.low:.4f}, {ratio.high:.4f}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", choices=VARIANTS, required=True)
    parser.add_argument("--d", type=int, nargs="+", required=True)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--csv", type=Path, required=True, help="verdicts (appended)")
    parser.add_argument("--db", type=Path, default=None, help="OP/DP sweep database")
    parser.add_argument("--compare-only", action="store_true")
    arguments = parser.parse_args()
    for d in arguments.d:
        if not arguments.compare_only:
            _run(arguments.variant, d, arguments.seeds, arguments.csv)
        _compare(arguments.variant, d, arguments.csv, arguments.db)


if __name__ == "__main__":
    main()

"""Exact infeasibility proofs on saved certificates (d = 96 and 128: the verified inverse).

Two steps, so that the proof can be rerun without solving again:

* ``solve``: one instance at ``factor * critical_p(d)`` by ``lamcap.solve(instance,
  method="cutting_plane")``; its certificate (associations, competitors, weights,
  epsilon) and the solve's verdict, CPU seconds and peak resident memory are saved
  to an ``.npz`` file.
* ``prove``: for each saved file, the instance is rebuilt from ``(d, p, model,
  seed)``, the certificate's float bound is re-checked (``certificate_bound``) and
  ``prove_infeasible`` is run; prints the support size against d^2 + 1, the proof's
  numbers (its ``detail``: bound on ||I - X A_B||_inf, sigma_min(A_B), correction
  against the smallest weight), wall and CPU seconds and the process's peak resident
  memory (``ru_maxrss``; one file per process for a clean peak).  With
  ``--exchange`` the saved support first goes through the exchange pivots
  (``lamcap.solvers._support_exchange.exchange_support``, as the solver does from
  d = 96 on; for files saved before the solver did), timed on their own, and the
  proof runs on the support they reach.

Usage::

    python measurements/solvers_at_scale_proof.py solve --d 96 --factor 1.07 --seed 0 --out d96.npz
    python measurements/solvers_at_scale_proof.py prove d96.npz
    python measurements/solvers_at_scale_proof.py prove --exchange d128.npz
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import numpy as np

import lamcap
from lamcap.solvers import FarkasCertificate, prove_infeasible
from lamcap.solvers._certificates import certificate_bound
from lamcap.solvers._support_exchange import exchange_support

_KIB = 1024


def _peak_bytes() -> int:
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * _KIB


def solve(d: int, factor: float, seed: int, model: str, out: Path) -> None:
    p = round(factor * float(lamcap.critical_p(d)))
    instance = lamcap.make_instance(d, p, model=model, seed=seed)
    cpu, wall = time.process_time(), time.perf_counter()
    result = lamcap.solve(instance, method="cutting_plane")
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    arrays: dict[str, object] = {
        "d": d,
        "p": p,
        "seed": seed,
        "model": model,
        "verdict": result.verdict,
        "cpu": cpu,
        "wall": wall,
        "peak": _peak_bytes(),
        "details": json.dumps({key: str(value) for key, value in result.details.items()}),
    }
    certificate = result.certificate
    if certificate is not None:
        arrays |= {
            "associations": certificate.associations,
            "competitors": certificate.competitors,
            "alpha": certificate.alpha,
            "epsilon": certificate.epsilon,
            "exact": certificate.exact,
        }
    np.savez(out, **arrays)  # type: ignore[arg-type]
    support = "none" if certificate is None else str(int(np.count_nonzero(certificate.alpha)))
    print(
        f"d={d} p={p} {model} seed={seed}: {result.verdict} ({result.proven}); support {support}; "
        f"{cpu:.0f} s CPU, {wall:.0f} s wall, peak {_peak_bytes() / 1e9:.2f} GB -> {out}"
    )


def prove(path: Path, *, exchange: bool = False) -> None:
    saved = np.load(path)
    d, p, seed, model = int(saved["d"]), int(saved["p"]), int(saved["seed"]), str(saved["model"])
    if "alpha" not in saved:
        print(f"{path}: {saved['verdict']}, no certificate")
        return
    instance = lamcap.make_instance(d, p, model=model, seed=seed)
    certificate = FarkasCertificate(
        saved["associations"], saved["competitors"], saved["alpha"], float(saved["epsilon"])
    )
    support = int(np.count_nonzero(certificate.alpha > 0))
    bound = certificate_bound(instance, certificate)
    if exchange:
        cpu, wall = time.process_time(), time.perf_counter()
        found = exchange_support(instance, certificate)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(f"{path.name}: exchange pivots in {wall:.0f} s wall, {cpu:.0f} s CPU: {found.detail}")
        if found.certificate is None:
            return
        certificate = found.certificate
    cpu, wall = time.process_time(), time.perf_counter()
    proof = prove_infeasible(instance, certificate)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    print(
        f"{path.name}: d={d} p={p} {model} seed={seed}, support {support} of d^2 + 1 = "
        f"{d * d + 1}, float bound eps = {bound:.2e}\n"
        f"  proven: {proof.proven} ({proof.method or 'none'}) in {wall:.0f} s wall, "
        f"{cpu:.0f} s CPU, peak {_peak_bytes() / 1e9:.2f} GB\n  {proof.detail}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    solving = commands.add_parser("solve")
    solving.add_argument("--d", type=int, required=True)
    solving.add_argument("--factor", type=float, default=1.07)
    solving.add_argument("--seed", type=int, default=0)
    solving.add_argument("--model", default="decoupled")
    solving.add_argument("--out", type=Path, required=True)
    proving = commands.add_parser("prove")
    proving.add_argument("paths", type=Path, nargs="+")
    proving.add_argument("--exchange", action="store_true", help="exchange pivots first")
    arguments = parser.parse_args(argv)
    if arguments.command == "solve":
        solve(arguments.d, arguments.factor, arguments.seed, arguments.model, arguments.out)
    else:
        for path in arguments.paths:
            prove(path, exchange=arguments.exchange)


if __name__ == "__main__":
    main()

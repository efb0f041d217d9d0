"""Benchmark: the cost of verdicts that cannot be fooled.

Run::

    python benchmarks/bench_verdicts.py                      # d = 8, 16, 32
    python benchmarks/bench_verdicts.py --dims 8 16 32 64 --seeds 3

Two tables, each as ratios against the real alternative in the same run:

* **(Q, R) checks**: ``check_margins(instance, (Q, R))`` (float product plus
  its proven error bound, falling back to the compensated product when the
  bound exceeds 1e-12) against ``check_margins(instance, Q @ R.T)`` (the float
  product alone, what lamcap did before), on an original-model instance at
  0.9 p_c with rank r = d / 2; and the compensated product forced by a cancelling
  pair.
* **Exact infeasibility**: on infeasible instances at 1.05 p_c (decoupled
  model), ``prove_infeasible`` (gamma* <= 0) against ``certificate_bound`` (the
  float check, gamma* <= eps) and against the solve itself; the method that
  proved it, the support size k against D = d^2 + 1, and the margin of the
  proof (bound on the correction / smallest weight).  Exact rational
  arithmetic is timed separately on the supports it can afford (d = 4, 6, 8),
  and ``--cost-dims 64`` times the perturbation proof on d^2 + 1 random
  constraints (its cost on a spanning support).

numba kernels are compiled and warmed before anything is timed.  Timings on a
shared machine are noisy.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import lamcap
from lamcap.solvers import FarkasCertificate
from lamcap.solvers._certificates import certificate_bound, check_margins
from lamcap.solvers._infeasibility import (
    _exact_proof,
    _perturbation_proof,
    _support,
    prove_infeasible,
)


def _best_of(function: Callable[..., Any], *arguments: Any, repeats: int = 3) -> float:
    best = np.inf
    for _ in range(repeats):
        tick = time.perf_counter()
        function(*arguments)
        best = min(best, time.perf_counter() - tick)
    return float(best)


def pair_checks(dims: Sequence[int]) -> None:
    print("(Q, R) checks: rigorous (bound or compensated) vs the float product alone")
    print("  d    r     p   float product s   (Q, R) s   ratio   compensated s   ratio")
    for d in dims:
        p = round(0.9 * float(lamcap.critical_p(d)))
        instance = lamcap.make_instance(d, p, model="original", seed=0)
        rng = np.random.default_rng(d)
        rank = d // 2
        left, right = rng.standard_normal((d, rank)), rng.standard_normal((d, rank))
        cancelling = (np.hstack([left, -left]), np.hstack([right, right * (1 + 2.0**-40)]))
        product = _best_of(check_margins, instance, left @ right.T)
        pair = _best_of(check_margins, instance, (left, right))
        compensated = _best_of(check_margins, instance, cancelling)
        print(
            f"{d:4d} {rank:4d} {p:5d} {product:15.4f} {pair:10.4f} {pair / product:7.2f} "
            f"{compensated:15.4f} {compensated / product:7.2f}"
        )


def infeasibility_proofs(dims: Sequence[int], seeds: int) -> None:
    print("\nExact infeasibility (gamma* <= 0) vs the float certificate check (gamma* <= eps)")
    print(
        "  d    p seed  k/(D+1)  method        proof s  bound s  proof/bound  "
        "solve s  proof/solve  correction/min weight"
    )
    for d in dims:
        p = round(1.05 * float(lamcap.critical_p(d)))
        for seed in range(seeds):
            instance = lamcap.make_instance(d, p, seed=seed)
            tick = time.perf_counter()
            result = lamcap.solve(instance)
            solved = time.perf_counter() - tick
            if result.verdict != "infeasible" or result.certificate is None:
                print(f"{d:4d} {p:4d} {seed:4d}  {result.verdict}")
                continue
            certificate = result.certificate
            proof = prove_infeasible(instance, certificate)
            bound = _best_of(certificate_bound, instance, certificate)
            ratio = re.search(r"correction <= (\S+) \S+ smallest weight (\S+)", proof.detail)
            margin = f"{float(ratio[1]) / float(ratio[2]):.1e}" if ratio else "-"
            print(
                f"{d:4d} {p:4d} {seed:4d}  {certificate.alpha.size:4d}/{d * d + 1:<4d} "
                f"{proof.method or 'none':12s} {proof.seconds:8.3f} {bound:8.4f} "
                f"{proof.seconds / bound:11.0f} {solved:8.2f} {proof.seconds / solved:11.2f}  {margin}"
            )


def exact_arithmetic(dims: Sequence[int]) -> None:
    print("\nExact rational arithmetic on the same supports (fraction-free Gauss-Jordan)")
    print("  d    k   seconds   proven")
    for d in dims:
        p = round(1.08 * float(lamcap.critical_p(d)))
        times = []
        for seed in range(3):
            instance = lamcap.make_instance(d, p, seed=seed)
            result = lamcap.solve(instance)
            if result.certificate is None or result.verdict != "infeasible":
                continue
            support = _support(instance, result.certificate)
            tick = time.perf_counter()
            proven, _ = _exact_proof(*support)
            times.append(time.perf_counter() - tick)
            print(f"{d:4d} {support[3].size:4d} {times[-1]:9.3f}   {proven}")
        if times:
            print(f"     median {statistics.median(times):.3f} s")


def spanning_proof_cost(dims: Sequence[int]) -> None:
    print("\nPerturbation proof on d^2 + 1 random constraints (the cost of a spanning support)")
    print("  d      D   seconds")
    for d in dims:
        instance = lamcap.make_instance(d, 2 * d, seed=0)
        rng = np.random.default_rng(d)
        count = d * d + 1
        mus = rng.integers(0, instance.n, size=count)
        rhos = rng.integers(1, instance.p, size=count)  # decoupled: the target is row 0
        certificate = FarkasCertificate(mus, rhos, rng.exponential(size=count), 0.0)
        support = _support(instance, certificate)
        tick = time.perf_counter()
        _perturbation_proof(support)
        print(f"{d:4d} {d * d:6d} {time.perf_counter() - tick:9.2f}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="*", default=[8, 16, 32])
    parser.add_argument("--pair-dims", type=int, nargs="*", default=[64, 128, 256])
    parser.add_argument("--exact-dims", type=int, nargs="*", default=[4, 6, 8])
    parser.add_argument("--cost-dims", type=int, nargs="*", default=[])
    parser.add_argument("--seeds", type=int, default=2)
    arguments = parser.parse_args(argv)
    lamcap.solve(lamcap.make_instance(6, 12, seed=0))  # warm the numba kernels
    lamcap.solve(lamcap.make_instance(4, 40, seed=1))
    if arguments.pair_dims:
        pair_checks(arguments.pair_dims)
    if arguments.dims:
        infeasibility_proofs(arguments.dims, arguments.seeds)
    if arguments.exact_dims:
        exact_arithmetic(arguments.exact_dims)
    if arguments.cost_dims:
        spanning_proof_cost(arguments.cost_dims)


if __name__ == "__main__":
    main()

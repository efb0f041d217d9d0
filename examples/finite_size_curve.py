"""Finite-size transition: the Crofton law against a small sweep of certified solves.

Run: python examples/finite_size_curve.py [--d 8] [--seeds 6]

For a d x d full-rank memory, draws `seeds` decoupled instances at each p around the
critical p_c(d), decides each one with the certified solver (a verified W, or an
infeasibility certificate), and prints the fraction of storable instances next to
the Crofton-law prediction `feasibility_probability(d, p)` (docs: theory/crofton).
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import lamcap


def sweep(d: int, p_values: np.ndarray, seeds: int) -> np.ndarray:
    """Fraction of instances decided feasible at each p (undecided counts as missing)."""
    fractions = np.empty(len(p_values))
    for i, p in enumerate(p_values):
        verdicts = []
        for seed in range(seeds):
            instance = lamcap.make_instance(d, int(p), seed=seed)
            result = lamcap.solve(instance, max_seconds=30)
            assert lamcap.verify(instance, result).consistent, "the solver's claim did not re-check"
            if result.verdict != "undecided":
                verdicts.append(result.verdict == "feasible")
        fractions[i] = np.mean(verdicts) if verdicts else math.nan
    return fractions


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=8, help="dimension (default 8)")
    parser.add_argument("--seeds", type=int, default=6, help="instances per p (default 6)")
    parser.add_argument("--points", type=int, default=7, help="number of p values (default 7)")
    args = parser.parse_args(argv)

    p_c = float(lamcap.critical_p(args.d))
    p_values = np.unique(np.linspace(0.7 * p_c, 1.3 * p_c, args.points).round().astype(int))
    theory = lamcap.feasibility_probability(args.d, p_values)
    measured = sweep(args.d, p_values, args.seeds)

    print(f"d = {args.d}: critical p_c(d) = {p_c:.2f}  ({args.seeds} instances per p)")
    print(f"{'p':>5} {'alpha':>7} {'Crofton':>8} {'measured':>9}")
    for p, prob, frac in zip(p_values, theory, measured, strict=True):
        alpha = p * math.log(p) / args.d**2
        print(f"{p:>5d} {alpha:>7.3f} {prob:>8.3f} {frac:>9.3f}")


if __name__ == "__main__":
    main()

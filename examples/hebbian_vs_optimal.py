"""Hebbian weights against optimal (certified) weights on the same instances.

Run: python examples/hebbian_vs_optimal.py [--d 32] [--seeds 3]

For the decoupled problem (n = p associations, each with its own p outputs) at several
loads alpha = p log p / d^2, compares
  * the Hebbian memory W_H = sum_mu u_mu e_mu^T: measured fraction of associations
    recalled vs the exact finite-d theory `hebbian_recall_finite(p, d)` and its
    d -> infinity limit E[Phi(mu_p + Z)^(p-1)], mu_p = sqrt(log p / alpha), which is
    far too optimistic at small d;
  * the optimal memory found by the certified solver, which recalls everything
    below the capacity (docs: theory/hebbian, theory/mechanism);
and the normalised score gap "target minus best competitor" of both: the Hebbian
gap is broad (the target fluctuates), the optimal one is pinned just above zero.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import lamcap


def score_gaps(instance: object, weights: np.ndarray) -> np.ndarray:
    """Target score minus best free competitor, in units of the competitor spread."""
    summary = lamcap.normalized_scores(lamcap.scores(instance, weights), instance.targets)
    return summary.gap


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=32, help="dimension (default 32)")
    parser.add_argument("--seeds", type=int, default=3, help="instances per load (default 3)")
    args = parser.parse_args(argv)
    d = args.d
    p_c = float(lamcap.critical_p(d))

    print(f"decoupled problem, d = {d}, n = p, p_c(d) = {p_c:.1f}")
    print(
        f"{'p':>5} {'alpha':>6} | {'Hebbian':>8} {'finite d':>8} {'d=inf':>6} | {'optimal':>8} "
        f"{'gap Hebb.':>9} {'gap opt.':>8}"
    )
    for fraction in (0.1, 0.25, 0.5, 0.8):
        p = max(2, round(fraction * p_c))
        alpha = p * math.log(p) / d**2
        hebbian, optimal, gap_h, gap_o = [], [], [], []
        for seed in range(args.seeds):
            instance = lamcap.make_instance(d, p, seed=seed)
            w_hebbian = lamcap.hebbian_weights(instance)
            hebbian.append(lamcap.recall_accuracy(instance, w_hebbian))
            gap_h.append(np.median(score_gaps(instance, w_hebbian)))
            result = lamcap.solve(instance, max_seconds=60)
            if result.verdict == "feasible":
                w_opt = np.asarray(result.weights)
                optimal.append(lamcap.recall_accuracy(instance, w_opt))
                gap_o.append(np.median(score_gaps(instance, w_opt)))
        finite = lamcap.hebbian_recall_finite(p, d)
        limit = float(lamcap.hebbian_recall(p, alpha))
        opt = f"{np.mean(optimal):>8.3f}" if optimal else f"{'nan':>8}"
        gap = f"{np.mean(gap_o):>8.2f}" if gap_o else f"{'nan':>8}"
        print(
            f"{p:>5d} {alpha:>6.3f} | {np.mean(hebbian):>8.3f} {finite:>8.3f} {limit:>6.3f} | "
            f"{opt} {np.mean(gap_h):>9.2f} {gap}"
        )


if __name__ == "__main__":
    main()

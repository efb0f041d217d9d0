"""Hebbian weights against optimal (certified) weights on the same instances.

Run: python examples/hebbian_vs_optimal.py [--d 32] [--seeds 3]

For the original problem (one shared set of p outputs, n = p associations) at several
loads alpha = p log p / d^2, compares
  * the Hebbian memory W_H = sum_mu u_mu e_mu^T: measured fraction of associations
    recalled vs the theory E[Phi(mu_p + Z)^(p-1)], mu_p = sqrt(log p / alpha);
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
    """Target score minus best competitor, in units of the competitor spread."""
    s = lamcap.scores(instance, weights)
    n, p = s.shape
    is_target = np.zeros((n, p), dtype=bool)
    is_target[np.arange(n), np.asarray(instance.targets)] = True
    competitors = s[~is_target].reshape(n, p - 1)
    return (s[is_target] - competitors.max(axis=1)) / competitors.std(axis=1, ddof=1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=32, help="dimension (default 32)")
    parser.add_argument("--seeds", type=int, default=3, help="instances per load (default 3)")
    args = parser.parse_args(argv)
    d = args.d
    p_c = float(lamcap.critical_p(d))

    print(f"original problem, d = {d}, n = p, p_c(d) = {p_c:.1f}")
    print(
        f"{'p':>5} {'alpha':>6} | {'Hebbian':>8} {'theory':>7} | {'optimal':>8} "
        f"{'gap Hebb.':>9} {'gap opt.':>8}"
    )
    for fraction in (0.1, 0.25, 0.5, 0.8):
        p = max(2, round(fraction * p_c))
        alpha = p * math.log(p) / d**2
        hebbian, optimal, gap_h, gap_o = [], [], [], []
        for seed in range(args.seeds):
            instance = lamcap.make_instance(d, p, model="original", seed=seed)
            w_hebbian = lamcap.hebbian_weights(instance)
            hebbian.append(lamcap.recall_accuracy(instance, w_hebbian))
            gap_h.append(np.median(score_gaps(instance, w_hebbian)))
            result = lamcap.solve(instance, max_seconds=60)
            if result.verdict == "feasible":
                w_opt = np.asarray(result.weights)
                optimal.append(lamcap.recall_accuracy(instance, w_opt))
                gap_o.append(np.median(score_gaps(instance, w_opt)))
        theory = float(lamcap.hebbian_recall(p, alpha))
        opt = f"{np.mean(optimal):>8.3f}" if optimal else f"{'nan':>8}"
        gap = f"{np.mean(gap_o):>8.2f}" if gap_o else f"{'nan':>8}"
        print(
            f"{p:>5d} {alpha:>6.3f} | {np.mean(hebbian):>8.3f} {theory:>7.3f} | {opt} "
            f"{np.mean(gap_h):>9.2f} {gap}"
        )


if __name__ == "__main__":
    main()

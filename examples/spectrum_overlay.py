"""Overlay the predicted singular-value law on a weight matrix of your own.

Run: python examples/spectrum_overlay.py [--weights W.npy] [--kappa 1.0] [--plot out.png]

With --weights, loads a square matrix W (numpy .npy) from any source: a trained
model's layer, a solver's output. Without it, stores p ~ 0.85 p_c(d) associations in
a d x d matrix with lamcap's certified solver and uses that W. The singular values are
normalised as in the theory by `lamcap.empirical_spectrum` (mean of s^2 over the
non-zero ones equal to 1, i.e. ||W||_F^2 = rank) and compared with the quarter-circle law (or its top
kappa-fraction for rank kappa*d): a quantile table, the Kolmogorov-Smirnov distance
and the fourth-moment ratio E[s^4]/E[s^2]^2 (docs: theory/mechanism).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")

import matplotlib.pyplot as plt
import numpy as np

import lamcap


def solver_weights(d: int, seed: int) -> np.ndarray:
    """A verified full-rank W storing about 85% of the critical number of associations."""
    p = int(0.85 * float(lamcap.critical_p(d)))
    instance = lamcap.make_instance(d, p, seed=seed)
    result = lamcap.solve(instance, max_seconds=60)
    if result.verdict != "feasible":
        msg = f"the solver found no W at d={d}, p={p} (verdict {result.verdict}); try another seed"
        raise RuntimeError(msg)
    return np.asarray(result.weights)


def compare(spectrum: lamcap.empirical.EmpiricalSpectrum, kappa: float) -> None:
    values = np.sort(spectrum.singular_values)
    n = values.size
    print(f"{n} non-zero singular values, kappa = {kappa}")
    print(f"{'quantile':>9} {'measured':>9} {'theory':>8}")
    for q in (0.1, 0.25, 0.5, 0.75, 0.9):
        theory = float(lamcap.singular_value_quantile(q, kappa))
        print(f"{q:>9.2f} {np.quantile(values, q):>9.3f} {theory:>8.3f}")
    ks = spectrum.ks_distance(family="optimum")
    print(f"Kolmogorov-Smirnov distance: {ks:.3f} (1.36/sqrt(n) = {1.36 / np.sqrt(n):.3f})")
    expected = lamcap.singular_value_moment(4, kappa)
    print(f"E[s^4]/E[s^2]^2: measured {spectrum.moment_ratio():.3f}, theory {expected:.3f}")


def plot(spectrum: lamcap.empirical.EmpiricalSpectrum, kappa: float, path: Path) -> None:
    values = spectrum.singular_values
    grid = np.linspace(0.0, max(2.5, float(values.max()) * 1.05), 400)
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.hist(values, bins="auto", density=True, alpha=0.5, label="your W")
    ax.plot(grid, lamcap.singular_value_density(grid, kappa), label="theory")
    ax.set(xlabel="normalised singular value", ylabel="density")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, help="a square matrix saved with numpy.save")
    parser.add_argument("--kappa", type=float, default=1.0, help="rank ratio of W (default 1)")
    parser.add_argument("--d", type=int, default=16, help="dimension without --weights")
    parser.add_argument("--seed", type=int, default=0, help="instance seed without --weights")
    parser.add_argument("--plot", type=Path, help="also save a histogram with the density")
    args = parser.parse_args(argv)

    weights = np.load(args.weights) if args.weights else solver_weights(args.d, args.seed)
    spectrum = lamcap.empirical_spectrum(weights)  # mean of s^2 = 1, non-zero values only
    compare(spectrum, args.kappa)
    if args.plot:
        plot(spectrum, args.kappa, args.plot)


if __name__ == "__main__":
    main()

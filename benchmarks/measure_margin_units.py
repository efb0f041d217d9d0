r"""Measure how the three margins of docs/vocabulary.md relate on max-margin solutions.

For decoupled instances at ``p = fraction * critical_p(d)`` (``n = p``) the
certified max-margin ``W`` (``lamcap.solve(..., objective="max_margin")``, raw
margin :math:`c = 1`) gives

* :math:`m` — the theory's margin, estimated from the score matrix by
  :func:`lamcap.normalized_scores` (competitor spread :math:`\hat\sigma`),
* :math:`d\,c/\|W\|_F` — the shortcut that assumes :math:`\sigma = \|W\|_F/d`,
* :math:`\hat\sigma d/\|W\|_F` — how far that assumption is off,
* :math:`\sqrt2\,d\,\gamma` over :math:`d\,c/\|W\|_F` — the same for the
  solver's normalised margin :math:`\gamma` (``SolveResult.min_margin``),

next to the prediction ``max_margin(n / d**2, p)``.  Run
``python benchmarks/measure_margin_units.py --d 24 --fraction 0.7 --seeds 3``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import lamcap


def margin_units(d: int, fraction: float, seed: int) -> tuple[float, float, float, float]:
    """(m estimated, d c/|W|, sigma d/|W|, sqrt2 d gamma / (d c/|W|)) for one instance."""
    p = int(fraction * float(lamcap.critical_p(d)))
    instance = lamcap.make_instance(d, p, seed=seed)
    result = lamcap.solve(instance, objective="max_margin", tolerance=1e-6)
    weights = np.asarray(result.weights)
    summary = lamcap.normalized_scores(lamcap.scores(instance, weights), instance.targets)
    norm = float(np.linalg.norm(weights))
    shortcut = d * float(result.details["raw_min_margin"]) / norm
    normalised = math.sqrt(2.0) * d * float(result.min_margin)
    return summary.margin, shortcut, summary.spread * d / norm, normalised / shortcut


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--d", type=int, default=24)
    parser.add_argument("--fraction", type=float, default=0.7, help="p / critical_p(d)")
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    p = int(args.fraction * float(lamcap.critical_p(args.d)))
    print(f"d = {args.d}, p = n = {p}: theory m = {float(lamcap.max_margin(p / args.d**2, p)):.4f}")
    print(
        f"{'seed':>4} {'m (scores)':>10} {'d c/|W|':>8} {'sigma d/|W|':>11} {'sqrt2 d gamma ratio':>19}"
    )
    for seed in range(args.seeds):
        row = margin_units(args.d, args.fraction, seed)
        print(
            f"{seed:>4} "
            + " ".join(f"{x:>{w}.4f}" for x, w in zip(row, (10, 8, 11, 19), strict=True))
        )


if __name__ == "__main__":
    main()

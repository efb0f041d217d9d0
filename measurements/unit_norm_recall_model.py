"""The unit-norm model of the accuracy against the exact unit-norm cost law.

docs/theory/partial-recall.md, section "Unit-norm embeddings".  ``best_accuracy(d, p,
embeddings="sphere")`` scales the Gaussian (chi-bar) law of the cost
``C = dist(z, K)^2`` to the unit-norm mean ``C_p(d)``.  The exact unit-norm cost law has
no closed form here, but it can be sampled: ``z = sqrt(d) s`` with ``s`` the coordinates
of uniform points on the sphere (``sample_unit_norm_scores``), ``C`` the squared distance
of ``z`` to the recall cone (``lamcap.geometry.project_onto_cone``).  The same
replica-symmetric rule applied to the sample (keep the cheapest costs while their summed
mean fits the budget ``d^2 / n``) gives the fraction that the exact law would give, up to
Monte Carlo error; Gaussian scores through the same code check the rule against the
chi-bar law.  One row per (d, load) with ``n = p = round(load * critical_p(d,
embeddings="sphere"))``::

    python measurements/unit_norm_recall_model.py

writes ``docs/measurements/unit_norm_recall_model.csv``.
"""

from __future__ import annotations

import argparse
import csv
import math
from pathlib import Path

import numpy as np

import lamcap
from lamcap.geometry import project_onto_cone
from lamcap.theory._unit_norm import sample_unit_norm_scores

COLUMNS = [
    "d",
    "load",
    "p",
    "draws",
    "exact_law_accuracy",
    "exact_law_se",
    "model_accuracy",
    "model_minus_exact",
    "gaussian_sample_accuracy",
    "gaussian_law_accuracy",
]
POINTS = ((16, 1.25), (16, 1.5), (16, 2.0), (32, 1.25), (32, 1.5), (32, 2.0), (64, 1.25), (64, 2.0))


def rule_fraction(costs: np.ndarray, budget: float) -> float:
    """Fraction kept by the RS rule on a sample: the cheapest, while their mean sum fits ``budget``."""
    partial_means = np.cumsum(np.sort(costs)) / costs.size
    return float(np.searchsorted(partial_means, budget) / costs.size)


def squared_distances(scores: np.ndarray) -> np.ndarray:
    """``dist(z, K)^2`` per row (target 0)."""
    projected, _ = project_onto_cone(scores)
    return np.asarray(np.sum((scores - projected) ** 2, axis=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=200_000, help="per point (p < 300)")
    parser.add_argument("--large-draws", type=int, default=60_000, help="per point (p >= 300)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--csv", default="docs/measurements/unit_norm_recall_model.csv")
    arguments = parser.parse_args()
    rng = np.random.default_rng(arguments.seed)
    rows = []
    for d, load in POINTS:
        p = round(load * float(lamcap.critical_p(d, embeddings="sphere")))
        draws = arguments.draws if p < 300 else arguments.large_draws
        budget = d * d / p
        exact = rule_fraction(squared_distances(sample_unit_norm_scores(rng, draws, p, d)), budget)
        gaussian = rule_fraction(squared_distances(rng.standard_normal((draws, p))), budget)
        model = float(lamcap.best_accuracy(d, p, embeddings="sphere"))
        rows.append(
            {
                "d": d,
                "load": load,
                "p": p,
                "draws": draws,
                "exact_law_accuracy": round(exact, 5),
                # binomial error of the kept share; the threshold's own noise is smaller
                "exact_law_se": round(math.sqrt(exact * (1.0 - exact) / draws), 5),
                "model_accuracy": round(model, 5),
                "model_minus_exact": round(model - exact, 5),
                "gaussian_sample_accuracy": round(gaussian, 5),
                "gaussian_law_accuracy": round(float(lamcap.best_accuracy(d, p)), 5),
            }
        )
        print(rows[-1], flush=True)
    with Path(arguments.csv).open("w", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()

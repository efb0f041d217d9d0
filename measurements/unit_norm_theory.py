"""Tables of the unit-norm law (docs/theory/unit-norm.md).

``python measurements/unit_norm_theory.py`` writes ``docs/measurements/unit_norm_theory.csv``:
for each ``d``, the Gaussian ``critical_p(d)``, the unit-norm ``critical_p(d,
embeddings="sphere")`` (cost: the distance ``E dist(sqrt(d) s, K)^2``), the p at which
``p E|A| = d^2`` under the same sphere scores (the alternative cost, rejected by the
measurements), and the cost ratio at the Gaussian critical p; and
``docs/measurements/unit_norm_rate.csv``: ``d (E[C_p] - C_p(d)) / E[C_p]`` at fixed p
for growing d (the 1/d rate and its coefficient).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from lamcap.theory import _unit_norm as un
from lamcap.theory import critical_p, statistical_dimension

OUT = Path(__file__).resolve().parent.parent / "docs" / "measurements"
DIMS = (8, 12, 16, 24, 32, 48, 64, 96, 128, 256)


def _active_critical(d: int, start: float) -> float:
    """Real p with p E|A|(p, d) = d^2 (linear interpolation between integers)."""
    target = d * d
    q = max(3, math.floor(start))
    while q * un.unit_norm_active_mean(q, d) > target:
        q -= 1
    while (q + 1) * un.unit_norm_active_mean(q + 1, d) <= target:
        q += 1
    low = q * un.unit_norm_active_mean(q, d)
    high = (q + 1) * un.unit_norm_active_mean(q + 1, d)
    return q + (target - low) / (high - low)


def main() -> None:
    rows = []
    for d in DIMS:
        gaussian = float(critical_p(d))
        sphere = float(critical_p(d, embeddings="sphere"))
        active = _active_critical(d, gaussian) if d <= 64 else math.nan
        p = round(gaussian)
        ratio = float(statistical_dimension(p)) / un.unit_norm_distance(p, d)
        rows.append(
            [
                d,
                f"{gaussian:.4f}",
                f"{sphere:.4f}",
                f"{sphere / gaussian:.5f}",
                "" if math.isnan(active) else f"{active:.4f}",
                p,
                f"{ratio:.6f}",
            ]
        )
        print(rows[-1], flush=True)
    with (OUT / "unit_norm_theory.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "d",
                "p_c_gaussian",
                "p_c_sphere",
                "ratio",
                "p_c_sphere_active_mean",
                "p",
                "cost_ratio_gaussian_over_sphere",
            ]
        )
        writer.writerows(rows)
    rate = []
    for p in (20, 100, 1000):
        gaussian = float(statistical_dimension(p))
        for d in (16, 64, 256, 1024, 4096):
            value = d * (gaussian - un.unit_norm_distance(p, d)) / gaussian
            rate.append([p, d, f"{value:.5f}"])
            print(rate[-1], flush=True)
    with (OUT / "unit_norm_rate.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["p", "d", "d_relative_cost_deficit"])
        writer.writerows(rate)


if __name__ == "__main__":
    main()

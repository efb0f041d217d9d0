"""Capacity table: asymptotic, finite-size and rank-constrained capacities.

Run: python examples/capacity_table.py

Prints three tables computed by lamcap's theory layer (arXiv:2605.10795):
the asymptotic capacity alpha_c(kappa) of a rank-kappa*d memory, the finite-size
capacity alpha_c(p) = log p / E[C_p] approaching 1/2 slowly, and the critical number
of associations p_c(d) that a d x d matrix can store.
"""

from __future__ import annotations

import math

import lamcap


def main() -> None:
    print("asymptotic capacity alpha_c(kappa) = F(kappa)/2")
    print(f"{'kappa':>8} {'alpha_c':>10} {'alpha_c/kappa':>14}")
    for kappa in (0.01, 0.1, 0.25, 0.5, 0.75, 1.0):
        alpha = float(lamcap.capacity(kappa))
        print(f"{kappa:>8.2f} {alpha:>10.6f} {alpha / kappa:>14.4f}")

    print("\nfinite-size capacity (full rank), approaching 1/2 from above")
    print(f"{'p':>12} {'E[C_p]':>10} {'alpha_c(p)':>11}")
    for exponent in (1, 2, 3, 4, 6, 9):
        p = 10**exponent
        dimension = float(lamcap.statistical_dimension(p))
        print(f"{p:>12d} {dimension:>10.5f} {math.log(p) / dimension:>11.5f}")

    print("\ncritical number of associations p_c(d): p E[C_p] = width^2")
    print(f"{'d':>6} {'p_c (full)':>11} {'p_c (kappa=1/2)':>16}")
    for d in (8, 12, 16, 32, 64, 128, 256):
        full = float(lamcap.critical_p(d))
        half = float(lamcap.critical_p(d, kappa=0.5))
        print(f"{d:>6d} {full:>11.2f} {half:>16.2f}")


if __name__ == "__main__":
    main()

"""Symbolic layer: import cost, saddle-point solver, series evaluation.

Side by side in one run:

* ``import lamcap`` (must stay < 1.5 s, no sympy) vs ``import sympy`` — each in a
  fresh subprocess, best of 3;
* ``solve_saddle_point`` for 100 densities (grid in log(1 - q), monotone inversion) vs
  the direct alternative: one bracketing root-find (scipy ``brentq``) per density on
  the same saddle equation a = q / D(q), with the same Monte Carlo kernel
  (p = 1e3) or the same quadrature (p = 2); the alternative is timed on a few densities
  and the per-density ratio reported;
* the generated series of E[C_p] vs exact quadrature at 100 values of p.

Timings are wall-clock on a shared machine: noisy.
"""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np
from scipy import optimize

from lamcap.theory import _replica as replica
from lamcap.theory._asymptotics import statistical_dimension_series
from lamcap.theory._cone import statistical_dimension


def _import_seconds(statement: str) -> float:
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", statement], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def _brentq_overlap(density: float, p: int, samples: int) -> float:
    """The direct alternative: root of a - q / D(q) in log(1 - q), one evaluation at a time."""

    def residual(log_gap: float) -> float:
        delta = np.array([np.exp(log_gap)])
        _, displacement, _ = replica._expectations(delta, p, 0.0, samples, 0)
        return float(density - (1.0 - delta[0]) / displacement[0])

    return 1.0 - float(np.exp(optimize.brentq(residual, -12 * np.log(10), -1e-12, xtol=1e-6)))


def _saddle_rows(p: int, samples: int, direct_densities: int) -> list[str]:
    limit = replica.critical_density(p)
    densities = limit * np.linspace(0.01, 0.99, 100)
    replica._density_curve.cache_clear()
    start = time.perf_counter()
    overlap = replica.solve_saddle_point(densities, p, samples=samples)
    cold = time.perf_counter() - start
    start = time.perf_counter()
    replica.solve_saddle_point(densities, p, samples=samples)
    warm = time.perf_counter() - start
    subset = densities[:: 100 // direct_densities][:direct_densities]
    start = time.perf_counter()
    direct = [_brentq_overlap(a, p, samples) for a in subset]
    per_density = (time.perf_counter() - start) / len(subset)
    agreement = np.max(
        np.abs(np.array(direct) - overlap[:: 100 // direct_densities][:direct_densities])
    )
    row = (
        f"{'saddle, 100 densities, p=' + str(p):<34} {cold:>10.3f} {100 * per_density:>12.3f} "
        f"{100 * per_density / cold:>8.1f}x   (warm cache {warm * 1e3:.2f} ms; "
        f"max |q - q_brentq| = {agreement:.1e})"
    )
    return [row]


def main() -> None:
    replica.solve_saddle_point([0.1], 3, samples=16)  # compile numba kernels
    replica._density_curve.cache_clear()
    print(f"{'task':<34} {'lamcap [s]':>10} {'alternative [s]':>12} {'ratio':>8}")
    lamcap_import = _import_seconds("import lamcap")
    sympy_import = _import_seconds("import sympy")
    leaked = subprocess.run(
        [sys.executable, "-c", "import sys, lamcap; print('sympy' in sys.modules)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    print(
        f"{'import lamcap vs import sympy':<34} {lamcap_import:>10.3f} {sympy_import:>12.3f} "
        f"{sympy_import / lamcap_import:>8.1f}x   (sympy imported by lamcap: {leaked}; "
        "budget 1.5 s)"
    )
    for row in _saddle_rows(2, 256, 10) + _saddle_rows(1000, 256, 2):
        print(row)
    powers = np.linspace(2, 9, 100)
    start = time.perf_counter()
    statistical_dimension_series(10.0**powers)
    series_time = time.perf_counter() - start
    start = time.perf_counter()
    for power in powers[::10]:
        statistical_dimension(round(10.0**power))
    exact_time = 10 * (time.perf_counter() - start)
    print(
        f"{'E[C_p] at 100 p: series vs exact':<34} {series_time:>10.5f} {exact_time:>12.3f} "
        f"{exact_time / series_time:>8.0f}x"
    )


if __name__ == "__main__":
    main()

"""Benchmark: exact statistical dimension vs Monte Carlo at 1e-3 relative standard error.

Run ``python benchmarks/bench_cone.py``.  Prints, for p = 1e3, 1e6, 1e9, the time
of the exact float64 quadrature (10+ digits), the time Monte Carlo (top order
statistics, the cheapest honest alternative) needs to reach a relative standard
error of 1e-3, their ratio, and the time of one mpmath evaluation.
"""

from __future__ import annotations

import time

from lamcap.theory.cone import statistical_dimension


def _seconds(function: object, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def _monte_carlo_for_precision(p: int, relative_error: float) -> tuple[float, float]:
    """Seconds and estimate of a Monte Carlo run sized for the target relative error."""
    pilot = statistical_dimension(p, method="monte_carlo", samples=2_000, seed=1)
    samples = int((pilot.standard_error / pilot.mean / relative_error) ** 2 * 2_000) + 1
    start = time.perf_counter()
    estimate = statistical_dimension(p, method="monte_carlo", samples=samples, seed=2)
    return time.perf_counter() - start, estimate.standard_error / estimate.mean


def main() -> None:
    statistical_dimension(10)  # warm up scipy / numpy paths
    print(f"{'p':>12} {'E[C_p]':>20} {'exact s':>9} {'MC s (1e-3)':>12} {'ratio':>8}")
    for p in (10**3, 10**6, 10**9):
        value = statistical_dimension(p)
        exact_seconds = _seconds(lambda p=p: statistical_dimension(p))
        mc_seconds, achieved = _monte_carlo_for_precision(p, 1e-3)
        print(
            f"{p:>12} {value:>20.14f} {exact_seconds:>9.3f} {mc_seconds:>12.2f} "
            f"{mc_seconds / exact_seconds:>8.0f}   (MC rel. s.e. {achieved:.1e})"
        )
    start = time.perf_counter()
    statistical_dimension(3, dps=10)
    print(f"mpmath dps=10, p=3: {time.perf_counter() - start:.1f} s (slow: mpmath complex erfc)")


if __name__ == "__main__":
    main()

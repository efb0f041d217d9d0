"""Benchmark: exact statistical dimension vs Monte Carlo at 1e-3 relative standard error.

Run ``python benchmarks/bench_cone.py``.  Prints, for p = 1e3, 1e6, 1e9, the time
of the exact float64 quadrature (10+ digits), the time Monte Carlo (top order
statistics, the cheapest honest alternative) needs to reach a relative standard
error of 1e-3, their ratio; then the mpmath route: one inner probability by the
fixed-point recursion vs mpmath's complex ``erfc`` (the direct alternative), and
whole ``statistical_dimension(p, dps=30)`` values (the former mpmath.quad route
took ~400 s at p = 3).
"""

from __future__ import annotations

import time
from typing import Any

import mpmath

from lamcap.theory.cone import statistical_dimension
from lamcap.theory.hinge_sums import sum_cdf_mp_many


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
    _mpmath_rows()


def _erfc_gil_pelaez(x: float, y: float, count: int, step: float, terms: int) -> Any:
    """The same midpoint sum with the characteristic function from mpmath.erfc."""
    x_mp, y_mp = mpmath.mpf(x), mpmath.mpf(y)
    total = mpmath.mpf(0)
    for k in range(terms):
        t = (k + mpmath.mpf(0.5)) * step
        cf = (
            mpmath.ncdf(y_mp)
            + mpmath.exp(-1j * t * y_mp - t * t / 2)
            * mpmath.erfc((y_mp - 1j * t) / mpmath.sqrt(2))
            / 2
        )
        total += mpmath.im(mpmath.exp(-1j * t * x_mp - t * t / 2) * cf**count) / (k + 0.5)
    return 0.5 - total / mpmath.pi


def _mpmath_rows() -> None:
    # one quadrature panel: 20 points share the frequency grid of the recursion
    points = [3.0 + 0.01 * j for j in range(20)]
    ours = _seconds(lambda: sum_cdf_mp_many(points, points, 1000, dps=30), repeat=1)
    with mpmath.workdps(45):
        start = time.perf_counter()
        for u in points:
            _erfc_gil_pelaez(u, u, 1000, 0.35, 40)  # comparable step and node count
        erfc_seconds = time.perf_counter() - start
    print(
        f"20 inner P at dps=30: recursion {ours:.2f} s, mpmath.erfc {erfc_seconds:.2f} s, "
        f"ratio {erfc_seconds / ours:.1f}"
    )
    for p, dps in ((3, 30), (10**3, 30), (10**9, 30), (10**3, 50)):
        start = time.perf_counter()
        value = statistical_dimension(p, dps=dps)
        seconds = time.perf_counter() - start
        print(f"statistical_dimension({p}, dps={dps}) = {mpmath.nstr(value, 20)}  {seconds:.1f} s")


if __name__ == "__main__":
    main()

"""Benchmark: exact statistical dimension vs Monte Carlo at 1e-3 relative standard error.

Run ``python benchmarks/bench_cone.py``.  Prints, for p = 1e3, 1e6, 1e9, the time
of the exact float64 quadrature (10+ digits), the time Monte Carlo (top order
statistics, the cheapest honest alternative) needs to reach a relative standard
error of 1e-3, their ratio; then ``statistical_dimension`` on an array of 1e5
distinct p in [2, 1e12] (tabulated values and interpolation in log p) against the
per-value quadrature loop it replaced (200 values timed, the loop over 1e5
extrapolated), with the largest relative error against ``dps=30`` at 12 of the p;
then the mpmath route: one inner probability by the
fixed-point recursion vs mpmath's complex ``erfc`` (the direct alternative), and
whole ``statistical_dimension(p, dps=30)`` values (the former mpmath.quad route
took ~400 s at p = 3); last, ``active_set_law`` (all k on one y grid and one
characteristic-function table) vs one Gil-Pelaez inversion per k on its own grid
(the route used before; same bounds and tolerances), with their largest difference.
"""

from __future__ import annotations

import math
import time
from typing import Any

import mpmath
import numpy as np
from _timing import best_seconds
from scipy import special

from lamcap.theory._cone import _exact_float, active_set_law, statistical_dimension
from lamcap.theory._hinge_sums import log_mgf_excess, sum_cdf, sum_cdf_mp_many


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
        value = _exact_float(p, 0.0)
        exact_seconds = best_seconds(lambda p=p: _exact_float(p, 0.0))
        mc_seconds, achieved = _monte_carlo_for_precision(p, 1e-3)
        print(
            f"{p:>12} {value:>20.14f} {exact_seconds:>9.3f} {mc_seconds:>12.2f} "
            f"{mc_seconds / exact_seconds:>8.0f}   (MC rel. s.e. {achieved:.1e})"
        )
    _array_rows()
    _mpmath_rows()
    _law_rows()


def _distinct_log_spaced(count: int, low: float, high: float, seed: int) -> np.ndarray:
    """``count`` distinct integers in [low, high], log-uniform (all small integers included)."""
    rng = np.random.default_rng(seed)
    values = np.unique(np.rint(np.exp(rng.uniform(math.log(low), math.log(high), 2 * count))))
    return rng.permutation(values.astype(np.int64))[:count]


def _array_rows() -> None:
    p = _distinct_log_spaced(100_000, 2.0, 1e12, seed=0)
    statistical_dimension(p[:10])  # load the table
    start = time.perf_counter()
    values = statistical_dimension(p)
    array_seconds = time.perf_counter() - start
    loop_p = p[:200]
    start = time.perf_counter()
    loop = np.array([_exact_float(int(q), 0.0) for q in loop_p])
    single_seconds = time.perf_counter() - start
    difference = float(np.max(np.abs(loop / values[:200] - 1.0)))
    print(
        f"E[C_p] at 1e5 distinct p in [2, 1e12]: {array_seconds:.3f} s; 200 single quadrature "
        f"calls {single_seconds:.2f} s (ratio {single_seconds / array_seconds:.1f}, target >= 1); "
        f"per-value loop over 1e5 (extrapolated) {single_seconds * 500:.0f} s "
        f"(ratio {single_seconds * 500 / array_seconds:.0f}); largest relative difference "
        f"from the quadrature on those 200: {difference:.1e}"
    )
    checked = p[:12]
    errors = []
    for q in checked:
        reference = statistical_dimension(int(q), dps=30)
        errors.append(abs(float(statistical_dimension(int(q))) / float(reference) - 1.0))
    print(f"largest relative error against dps=30 at {checked.size} of the p: {max(errors):.1e}")


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
    ours = best_seconds(lambda: sum_cdf_mp_many(points, points, 1000, dps=30), repeat=1)
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


def _tail_one_k(p: int, k: int) -> float:
    """P(|A| >= k) by its own 16 panels and its own inversion (the per-k route)."""
    exponents = np.geomspace(1e-2, 200.0, 120)[:, None]

    log_binomial = float(np.sum(np.log((p - 2 - np.arange(k - 1)) / (np.arange(k - 1) + 1.0))))

    def log_order_density(y: np.ndarray) -> np.ndarray:
        return (
            math.log(p - 1)
            + log_binomial
            - 0.5 * math.log(2 * math.pi)
            - 0.5 * y**2
            + (k - 1) * special.log_ndtr(-y)
            + (p - 1 - k) * special.log_ndtr(y)
        )

    def log_cap_bound(y: np.ndarray) -> np.ndarray:
        chernoff = exponents * y + 0.5 * exponents**2
        if k > 1:
            chernoff = chernoff + (k - 1) * log_mgf_excess(-exponents, y[None, :])
        return np.minimum(np.min(chernoff, axis=0), 0.0)

    rough = np.linspace(-40.0, 40.0, 8001)  # where the density itself exceeds the floor
    present = np.flatnonzero(log_order_density(rough) > math.log(1e-20))
    grid = np.linspace(rough[max(present[0] - 1, 0)], rough[min(present[-1] + 1, 8000)], 401)
    keep = np.flatnonzero(log_order_density(grid) + log_cap_bound(grid) > math.log(1e-20))
    if keep.size == 0:
        return 0.0
    lower, upper = grid[max(keep[0] - 1, 0)], grid[min(keep[-1] + 1, grid.size - 1)]
    nodes, weights = np.polynomial.legendre.leggauss(20)
    edges = np.linspace(lower, upper, 17)
    half = 0.5 * np.diff(edges)[:, None]
    y = (0.5 * (edges[1:] + edges[:-1])[:, None] + half * nodes).ravel()
    w = (half * weights).ravel()
    inner = sum_cdf(y, y, k - 1, kind="excess") if k > 1 else special.ndtr(y)
    cap = np.exp(log_cap_bound(y))
    return float(np.sum(w * np.exp(log_order_density(y)) * np.minimum(inner, cap)))


def _law_one_k_at_a_time(p: int, size: int) -> np.ndarray:
    tails = np.array([1.0] + [_tail_one_k(p, k) for k in range(1, size + 1)])
    return np.maximum(tails[:-1] - tails[1:], 0.0)


def _law_rows() -> None:
    print(f"{'p':>12} {'law size':>9} {'all k s':>9} {'per k s':>9} {'ratio':>7} {'max diff':>9}")
    for p in (40, 5468, 10**6, 10**9):
        law = active_set_law(p)
        ours = best_seconds(lambda p=p: active_set_law(p))
        start = time.perf_counter()
        per_k = _law_one_k_at_a_time(p, law.size)
        theirs = time.perf_counter() - start
        difference = float(np.max(np.abs(per_k - law)))
        print(
            f"{p:>12} {law.size:>9} {ours:>9.3f} {theirs:>9.3f} {theirs / ours:>7.1f} "
            f"{difference:>9.1e}"
        )


if __name__ == "__main__":
    main()

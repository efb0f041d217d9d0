"""Benchmark: capacities, critical p and the Crofton transition curve.

Run ``python benchmarks/bench_theory.py``.  Rows (lamcap vs the naive alternative, one run):

* ``capacity`` on 10^6 float64 kappa values vs a Python loop of scipy ``quad`` +
  ``brentq`` on the quarter-circle integrals (the loop is timed on 300 values and
  extrapolated to 10^6; it says so);
* ``capacity(kappa, dps=50)`` for one value vs mpmath ``quad`` + ``findroot`` on the
  same integrals at 50 digits;
* ``feasibility_probability`` over a whole transition curve at d = 256 (cold: laws of
  |A| not yet cached; warm: cached) vs exact direct convolution powers for one p
  (extrapolated to the curve);
* ``critical_p`` for d = 8..256 (cold caches) vs a per-d bisection over integer p
  calling ``statistical_dimension`` (timed on 3 values of d, extrapolated).

A last block times both cold calls again in fresh Python processes (import of
lamcap included), next to the figures measured the same way before the all-k
``active_set_law`` and the transition-width panels of ``statistical_dimension``
(commit 5c8a797, the same busy machine).  The unit-norm law (``embeddings="sphere"``)
is timed the same way, in CPU seconds, against the route before the tail table, the
nested grids and the wider panels (commit 44e5cfc): a transition window at d = 16 and
one p near the transition at d = 64.

Timings are wall-clock on a shared machine: treat them as noisy.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time

import mpmath
import numpy as np
from _timing import best_seconds
from scipy import integrate, optimize, signal

from lamcap.theory import _capacity as capacity_module
from lamcap.theory import _crofton as crofton_module
from lamcap.theory._capacity import capacity, critical_p
from lamcap.theory._cone import active_set_law, statistical_dimension
from lamcap.theory._crofton import feasibility_probability


def _quarter_circle_capacity(kappa: float) -> float:
    """alpha_c(kappa) by scipy quadrature of rho(s) = sqrt(4 - s^2)/pi and brentq."""

    def density(s: float) -> float:
        return math.sqrt(max(4.0 - s * s, 0.0)) / math.pi

    edge = optimize.brentq(
        lambda t: integrate.quad(density, t, 2.0)[0] - kappa, 0.0, 2.0, xtol=1e-15
    )
    return 0.5 * integrate.quad(lambda s: s * s * density(s), edge, 2.0)[0]


def _mpmath_capacity(kappa: str) -> mpmath.mpf:
    with mpmath.workdps(60):
        target = mpmath.mpf(kappa)

        def density(s: mpmath.mpf) -> mpmath.mpf:
            return mpmath.sqrt(4 - s * s) / mpmath.pi

        edge = mpmath.findroot(
            lambda t: mpmath.quad(density, [t, 2]) - target,
            (mpmath.mpf(0), mpmath.mpf(2)),
            solver="illinois",
        )
        return mpmath.quad(lambda s: s * s * density(s), [edge, 2]) / 2


def _row(name: str, ours: float, theirs: float, note: str) -> None:
    print(f"{name:<44} {ours:>11.4f} {theirs:>12.4f} {theirs / ours:>9.1f}  {note}")


def _bench_capacity_float() -> None:
    kappas = np.random.default_rng(0).uniform(1e-9, 1.0, 1_000_000)
    capacity(kappas[:10])  # compile / load the numba kernel
    ours = best_seconds(lambda: capacity(kappas))
    subset = kappas[:300]
    start = time.perf_counter()
    naive_values = np.array([_quarter_circle_capacity(float(k)) for k in subset])
    naive = (time.perf_counter() - start) * kappas.size / subset.size
    error = float(np.max(np.abs(capacity(subset) - naive_values) / naive_values))
    _row(
        "capacity, 1e6 float64 kappa",
        ours,
        naive,
        f"{kappas.size / ours:.2e} kappa/s; loop timed on 300, extrapolated; "
        f"max rel diff {error:.1e}",
    )


def _bench_capacity_mp() -> None:
    capacity("0.3", dps=50)
    ours = best_seconds(lambda: capacity("0.3", dps=50), repeat=5)
    naive = best_seconds(lambda: _mpmath_capacity("0.3"), repeat=1)
    with mpmath.workdps(60):
        gap = abs(capacity("0.3", dps=50) / _mpmath_capacity("0.3") - 1)
    _row(
        "capacity(0.3, dps=50)",
        ours,
        naive,
        f"relative gap to 60-digit quadrature {float(gap):.1e}",
    )


def _clear_caches() -> None:
    crofton_module._exact_law.cache_clear()
    capacity_module._statistical_dimension_at.cache_clear()


def _full_power(law: np.ndarray, n: int) -> np.ndarray:
    """n-fold convolution power on the whole support by repeated squaring (scipy fftconvolve)."""
    result, base = np.array([1.0]), law
    while n:
        if n & 1:
            result = signal.fftconvolve(result, base)
        base = signal.fftconvolve(base, base)
        n >>= 1
    return result


def _bench_feasibility() -> None:
    d = 256
    centre = float(critical_p(d))
    outputs = np.arange(round(centre) - 60, round(centre) + 61, 2)
    _clear_caches()
    start = time.perf_counter()
    curve = feasibility_probability(d, outputs)
    cold = time.perf_counter() - start
    warm = best_seconds(lambda: feasibility_probability(d, outputs))
    start = time.perf_counter()
    law = active_set_law(int(outputs[0]))
    power = _full_power(law, int(outputs[0]))
    naive_one = time.perf_counter() - start
    direct = 2 * power[: d * d][(d * d - 1) % 2 :: 2].sum()
    naive = naive_one * outputs.size
    _row(
        f"feasibility curve d=256, {outputs.size} p (cold)",
        cold,
        naive,
        f"naive: exact law + full-support FFT power per p ({naive_one:.2f}s/p); "
        f"P {curve[0]:.3f}..{curve[-1]:.1e}; |naive - ours| at p0 {abs(direct - curve[0]):.1e}",
    )
    _row("feasibility curve d=256 (warm caches)", warm, naive, "")


def _integer_bisection(width: float) -> int:
    low, high = 2, max(4, int(width))
    while high - low > 1:
        middle = (low + high) // 2
        if middle * statistical_dimension(middle) < width:
            low = middle
        else:
            high = middle
    return high


def _bench_critical_p() -> None:
    dimensions = np.arange(8, 257)
    _clear_caches()
    start = time.perf_counter()
    critical_p(dimensions)
    cold = time.perf_counter() - start
    warm = best_seconds(lambda: critical_p(dimensions), repeat=1)
    sample = (8, 64, 256)
    start = time.perf_counter()
    for d in sample:
        _integer_bisection(float(d * d))
    naive = (time.perf_counter() - start) * dimensions.size / len(sample)
    _row(
        "critical_p, d = 8..256 (cold caches)",
        cold,
        naive,
        "naive: integer bisection, 3 d timed, extrapolated to 249",
    )
    _row("critical_p, d = 8..256 (warm caches)", warm, naive, "")


_FRESH_CALLS = {
    "feasibility curve d=256 (61 p)": (
        (
            "from lamcap import critical_p, feasibility_probability; import numpy as np; "
            "c = round(float(critical_p(256))); outputs = np.arange(c - 60, c + 61, 2)"
        ),
        "feasibility_probability(256, outputs)",
        3.6,
    ),
    "critical_p d = 8..256": (
        "from lamcap import critical_p; import numpy as np",
        "critical_p(np.arange(8, 257))",
        3.7,
    ),
}


def _fresh_processbest_seconds(setup: str, call: str) -> tuple[float, float]:
    """(seconds of ``call`` alone, seconds of imports + setup + call) in a new interpreter."""
    script = (
        "import time; t0 = time.perf_counter(); "
        f"{setup}; t1 = time.perf_counter(); {call}; t2 = time.perf_counter(); "
        "print(t2 - t1, t2 - t0)"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout.split()
    return float(output[0]), float(output[1])


def _bench_fresh_processes() -> None:
    print(f"{'cold, fresh process':<44} {'now s':>11} {'before s':>12} {'ratio':>9}  notes")
    for name, (setup, call, before) in _FRESH_CALLS.items():
        alone, total = _fresh_processbest_seconds(setup, call)
        _row(name, alone, before, f"with imports and setup {total:.2f} s; before: commit 5c8a797")


_UNIT_NORM_CALLS = {
    "sphere law d=16, p = 40..89 (50 p)": (
        (
            "from lamcap import feasibility_probability; import numpy as np; "
            "feasibility_probability(16, np.arange(40, 90))"  # the Gaussian side, warm
        ),
        "feasibility_probability(16, np.arange(40, 90), embeddings='sphere')",
        22.7,
    ),
    "sphere law d=64, p = 582": (
        "from lamcap import statistical_dimension",
        "statistical_dimension(582, d=64, embeddings='sphere')",
        0.69,
    ),
}


def _fresh_process_cpu_seconds(setup: str, call: str) -> float:
    """CPU seconds of ``call`` alone in a new interpreter, after ``setup``."""
    script = (
        f"import time; {setup}; t = time.process_time(); {call}; print(time.process_time() - t)"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], check=True, capture_output=True, text=True
    ).stdout.split()
    return float(output[-1])


def _bench_unit_norm() -> None:
    print(
        f"{'unit-norm law, fresh process':<44} {'now CPU s':>11} {'before':>12} {'ratio':>9}  notes"
    )
    for name, (setup, call, before) in _UNIT_NORM_CALLS.items():
        _row(name, _fresh_process_cpu_seconds(setup, call), before, "before: commit 44e5cfc")


def main() -> None:
    print(f"{'benchmark':<44} {'lamcap s':>11} {'naive s':>12} {'ratio':>9}  notes")
    _bench_capacity_float()
    _bench_capacity_mp()
    _bench_feasibility()
    _bench_critical_p()
    _bench_fresh_processes()
    _bench_unit_norm()


if __name__ == "__main__":
    main()

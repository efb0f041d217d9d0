"""Benchmark: lamcap's law objects against ``scipy.stats.rv_continuous`` on the same law.

Run ``python benchmarks/bench_laws.py``.  The law is the truncated quarter circle at
kappa = 1/2 (raw units).  The alternative is what a user would write to get a scipy.stats
law from lamcap's closed forms: an ``rv_continuous`` subclass with ``_pdf`` and ``_cdf``
only, so that ``ppf``, ``moment`` and ``rvs`` are scipy's generic methods (Brent's
method per point, adaptive quadrature, inverse-cdf with the generic ppf).  Rows, one run:

* ``ppf`` of 1000 probabilities: time and the largest ``|cdf(ppf(q)) - q|``;
* ``moment(k)``, k = 1, 2, 4, 7: time and the relative difference of the two;
* ``rvs(2000)``: time;
* building one law object (``SingularValueLaw(0.5)``) against constructing one
  ``rv_continuous`` instance (scipy builds its docstrings and signature per instance).

This is the measurement behind the choice of lamcap's own base class
(``lamcap.theory._law``).  Timings are wall-clock on a shared machine: treat them as noisy;
the ratios within one run are the result.
"""

from __future__ import annotations

import warnings

import numpy as np
from _timing import best_seconds
from scipy import stats

from lamcap.theory._spectrum import SingularValueLaw

KAPPA = 0.5


def _scipy_law(law: SingularValueLaw) -> stats.rv_continuous:
    class QuarterCircle(stats.rv_continuous):  # type: ignore[misc]
        def _pdf(self, x: np.ndarray) -> np.ndarray:
            return np.asarray(law.pdf(x))

        def _cdf(self, x: np.ndarray) -> np.ndarray:
            return np.asarray(law.cdf(x))

    lower, upper = (float(v) for v in law.support())
    return QuarterCircle(a=lower, b=upper, name="quarter_circle")


def main() -> None:
    law = SingularValueLaw(KAPPA, normalization="raw")
    generic = _scipy_law(law)
    q = np.linspace(0.001, 0.999, 1000)
    law.ppf(q)  # compile and warm the numba kernels
    rows: list[tuple[str, str, str, str]] = []

    mine = best_seconds(lambda: law.ppf(q))
    theirs = best_seconds(lambda: generic.ppf(q), repeat=1)
    error_mine = float(np.max(np.abs(law.cdf(law.ppf(q)) - q)))
    error_theirs = float(np.max(np.abs(law.cdf(generic.ppf(q)) - q)))
    rows.append(
        (
            "ppf, 1000 points",
            f"{mine:.2e} s (|cdf(ppf) - q| <= {error_mine:.1e})",
            f"{theirs:.2e} s ({error_theirs:.1e})",
            f"{theirs / mine:.0f}x",
        )
    )
    for order in (1, 2, 4, 7):
        mine = best_seconds(lambda k=order: law.moment(k))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = best_seconds(lambda k=order: generic.moment(k), repeat=1)
            difference = abs(float(law.moment(order)) / generic.moment(order) - 1.0)
        rows.append(
            (
                f"moment({order})",
                f"{mine:.2e} s",
                f"{theirs:.2e} s (relative difference {difference:.1e})",
                f"{theirs / mine:.0f}x",
            )
        )
    mine = best_seconds(lambda: law.rvs(2_000, seed=1))
    theirs = best_seconds(lambda: generic.rvs(size=2_000, random_state=1), repeat=1)
    rows.append(("rvs, 2000 draws", f"{mine:.2e} s", f"{theirs:.2e} s", f"{theirs / mine:.0f}x"))
    mine = best_seconds(lambda: SingularValueLaw(KAPPA, normalization="raw"), repeat=20)
    theirs = best_seconds(lambda: _scipy_law(law), repeat=20)
    rows.append(("build one law", f"{mine:.2e} s", f"{theirs:.2e} s", f"{theirs / mine:.0f}x"))

    print(f"truncated quarter circle, kappa = {KAPPA} (raw units)")
    print(f"{'benchmark':<18} | {'lamcap law':<40} | {'scipy rv_continuous':<46} | ratio")
    for name, lamcap_cell, scipy_cell, ratio in rows:
        print(f"{name:<18} | {lamcap_cell:<40} | {scipy_cell:<46} | {ratio}")


if __name__ == "__main__":
    main()

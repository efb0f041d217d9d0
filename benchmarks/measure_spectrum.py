r"""Measure the singular-value spectrum of optimal full-rank memories (issue 4).

Prediction: the quarter circle of docs/theory/mechanism.md.

Question: at capacity, does the optimal full-rank ``W`` (scaled to
:math:`\|W\|_F^2 = d`) follow the quarter-circle law?  Two statistics per
matrix, both from :func:`lamcap.empirical.empirical_spectrum`:

* the fourth-moment ratio :math:`E[s^4]/E[s^2]^2` (quarter circle: 2; a
  ``d x d`` Gaussian matrix: exactly :math:`2 + 1/d` in expectation),
* the Kolmogorov–Smirnov distance of the ``d`` singular values to the quarter
  circle (``singular_value_cdf(s, 1.0)``, frobenius normalisation).

Singular values of one matrix repel each other, so the KS distance of a
matrix that *does* follow the law is far below the i.i.d. level
:math:`0.87/\sqrt d`; the yardstick is the Gaussian-``W`` baseline at the same
``d`` (many draws), reported alongside.

Solution types (decoupled instances, ``lamcap.make_instance(d, p, seed=s)``):

``maxmargin``
    (a) :math:`\min \|W\|_F` s.t. :math:`(u_t - u_\rho)^\top W e_\mu \ge 1` for
    all :math:`n(p-1)` raw constraints:
    ``lamcap.solve(instance, objective="max_margin", tolerance=...)``, certified
    by its relative duality gap :math:`g`
    (:mod:`lamcap.solvers._optimality`); the reported ``dist`` is the bound
    :math:`\|W - W^*\|_F/\|W\|_F \le \sqrt g`.
``first_feasible``
    (b) ``lamcap.solve(instance)`` (cutting-plane method, first feasible ``W``).
``adam_ce``
    (c) ``lamcap.solve(instance, method="adam_ce")``: Adam on softmax
    cross-entropy, stopped at the first step where every association is
    recalled (the package's protocol), i.e. *not* trained to the max-margin
    direction.

Run ``python benchmarks/measure_spectrum.py --help``.  Timings are noisy (shared
2-core machine).
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

import lamcap
from lamcap.empirical import empirical_spectrum
from lamcap.solvers._optimality import MarginDual

FloatArray = NDArray[np.float64]
SOLUTIONS = ("maxmargin", "first_feasible", "adam_ce", "hebbian")


# ----------------------------------------------------------------------------
# (a) max-margin / minimum-Frobenius-norm W, raw margins >= 1
# ----------------------------------------------------------------------------


@dataclass
class MaxMarginResult:
    weights: FloatArray  # feasible: every raw margin >= 1
    relative_gap: float  # certified (P - D) / P; ||W - W*||_F / ||W||_F <= sqrt(gap)
    working_set: int
    passes: int
    seconds: float
    heterogeneity: (
        float  # d * sum c^4 / (sum c^2)^2, c_mu = ||h_mu|| (W = sum h_mu e_mu^T / ||e_mu||)
    )


def _all_outputs(instance: lamcap.Instance) -> FloatArray:
    """The ``(n, p, d)`` outputs held in memory (one generation, reused by every pass)."""
    return np.concatenate([block for _, block in instance.blocks()])


def raw_margins(outputs: FloatArray, inputs: FloatArray, weights: FloatArray) -> FloatArray:
    r"""All raw margins :math:`(u_0 - u_\rho)^\top W e_\mu`, shape ``(n, p)``, target column = inf."""
    hidden = inputs @ weights.T
    scores = np.einsum("npd,nd->np", outputs, hidden)
    margins = scores[:, :1] - scores
    margins[:, 0] = np.inf
    return margins


def _heterogeneity(instance: lamcap.Instance, dual: MarginDual) -> float:
    r""":math:`d\sum_\mu c_\mu^4/(\sum_\mu c_\mu^2)^2` of the dual decomposition of the max-margin ``W``.

    :math:`W = \sum_\mu h_\mu \hat e_\mu^\top` with
    :math:`h_\mu = \|e_\mu\| \sum_\rho y_{\mu\rho}(u_t - u_\rho)` and :math:`c_\mu = \|h_\mu\|`.
    """
    targets, competitors = instance.constraint_outputs(dual.associations, dual.competitors)
    columns = np.zeros((instance.n, instance.d))
    np.add.at(columns, dual.associations, dual.y[:, None] * (targets - competitors))
    columns *= np.linalg.norm(instance.inputs, axis=1)[:, None]
    squares = np.sum(columns**2, axis=1)
    return instance.d * float(np.sum(squares**2)) / float(np.sum(squares)) ** 2


def max_margin_weights(
    instance: lamcap.Instance, *, tolerance: float = 1e-4, max_seconds: float | None = None
) -> MaxMarginResult:
    """Minimum-norm ``W`` with all raw margins >= 1: ``lamcap.solve(objective="max_margin")``."""
    result = lamcap.solve(
        instance, objective="max_margin", tolerance=tolerance, max_seconds=max_seconds
    )
    if result.verdict != "feasible":
        msg = f"max-margin solve ended {result.verdict!r}"
        raise RuntimeError(msg)
    details = result.details
    return MaxMarginResult(
        np.asarray(result.weights),
        details["relative_gap"],
        details["working_set"],
        result.iterations,
        result.seconds,
        _heterogeneity(instance, details["dual"]),
    )


# ----------------------------------------------------------------------------
# Solutions and statistics
# ----------------------------------------------------------------------------


@dataclass
class Sample:
    ratio: float
    ks: float
    seconds: float
    note: str
    predicted: float


def spectrum_statistics(weights: FloatArray) -> tuple[float, float]:
    """Fourth-moment ratio and KS distance to the quarter circle (frobenius units)."""
    spectrum = empirical_spectrum(weights)
    return spectrum.moment_ratio(), spectrum.ks_distance(law="optimum")


def solution_weights(
    kind: str,
    instance: lamcap.Instance,
    seed: int,
    tolerance: float = 1e-3,
    max_seconds: float | None = None,
) -> tuple[FloatArray, str, float]:
    r"""Weights of one solution type (checked feasible), a note, the heterogeneity prediction.

    The prediction :math:`2 + d\sum_\mu c_\mu^4/(\sum_\mu c_\mu^2)^2` is the
    leading-order ratio of :math:`W = \sum_\mu h_\mu \hat e_\mu^\top` with
    :math:`c_\mu = \|h_\mu\|` and the :math:`\hat e_\mu` treated as independent
    of :math:`h` (known only where the dual decomposition is: max-margin, and
    Hebbian, where :math:`c_\mu = \|u_t\|\|e_\mu\|`); NaN otherwise.
    """
    predicted = math.nan
    if kind == "maxmargin":
        result = max_margin_weights(instance, tolerance=tolerance**2, max_seconds=max_seconds)
        note = (
            f"dist<={math.sqrt(result.relative_gap):.1e} ws={result.working_set}"
            f" passes={result.passes}"
            f" 2+d*sum(c^4)/sum(c^2)^2={2 + result.heterogeneity:.3f}"
        )
        weights = result.weights
        predicted = 2 + result.heterogeneity
    elif kind == "hebbian":
        weights = lamcap.hebbian_weights(instance)
        squares = (
            np.linalg.norm(instance.target_outputs(), axis=1)
            * np.linalg.norm(instance.inputs, axis=1)
        ) ** 2
        predicted = 2 + instance.d * float(np.sum(squares**2)) / float(np.sum(squares)) ** 2
        return weights, "reference (need not be feasible)", predicted
    else:
        method = "cutting_plane" if kind == "first_feasible" else "adam_ce"
        solved = lamcap.solve(instance, method=method, seed=seed, max_seconds=max_seconds)
        if solved.verdict != "feasible":
            return np.empty((0, 0)), f"verdict {solved.verdict}", predicted
        weights = np.asarray(solved.weights)
        note = f"iterations={solved.iterations}"
    low = float(raw_margins(_all_outputs(instance), instance.inputs, weights).min())
    if not low > 0:
        return np.empty((0, 0)), f"not feasible (min raw margin {low:.3g})", predicted
    return weights, note, predicted


def gaussian_baseline(d: int, draws: int, seed: int) -> tuple[FloatArray, FloatArray]:
    """Ratios and KS distances of ``draws`` Gaussian ``d x d`` matrices."""
    generator = np.random.default_rng(seed)
    stats = [spectrum_statistics(generator.standard_normal((d, d))) for _ in range(draws)]
    values = np.array(stats)
    return values[:, 0], values[:, 1]


def _mean_sd(values: list[float]) -> str:
    if not values:
        return "—"
    sd = float(np.std(values, ddof=1)) if len(values) > 1 else math.nan
    return f"{np.mean(values):.3f} ± {sd:.3f}"


def measure(
    dimensions: list[int],
    fractions: list[float],
    seeds: list[int],
    solutions: list[str],
    gaussian_draws: int,
    verbose: bool,
    tolerance: float = 1e-3,
    max_seconds: float | None = None,
) -> list[dict[str, str]]:
    """Run every (d, fraction, solution, seed) and return the table rows."""
    rows = []
    for d in dimensions:
        g_ratio, g_ks = gaussian_baseline(d, gaussian_draws, seed=d)
        baseline = (
            f"ratio {g_ratio.mean():.3f} ± {g_ratio.std(ddof=1):.3f}, "
            f"KS {g_ks.mean():.3f} (95%: {np.quantile(g_ks, 0.95):.3f})"
        )
        critical = float(lamcap.critical_p(d))
        for fraction in fractions:
            p = max(2, round(fraction * critical))
            for kind in solutions:
                samples: list[Sample] = []
                for seed in seeds:
                    instance = lamcap.make_instance(d, p, seed=seed)
                    start = time.perf_counter()
                    weights, note, predicted = solution_weights(
                        kind, instance, seed, tolerance, max_seconds
                    )
                    seconds = time.perf_counter() - start
                    if weights.size:
                        ratio, ks = spectrum_statistics(weights)
                        samples.append(Sample(ratio, ks, seconds, note, predicted))
                    if verbose:
                        stats = f"ratio={ratio:.3f} ks={ks:.3f}" if weights.size else "skipped"
                        print(
                            f"  d={d} p={p} {kind} seed={seed}: {stats} {seconds:.1f}s {note}",
                            flush=True,
                        )
                rows.append(
                    {
                        "d": str(d),
                        "p/p_c": f"{p / critical:.2f} (p={p})",
                        "solution": kind,
                        "seeds": f"{len(samples)}/{len(seeds)}",
                        "E[s^4]/E[s^2]^2": _mean_sd([s.ratio for s in samples]),
                        "KS": _mean_sd([s.ks for s in samples]),
                        "2+d·Σc⁴/(Σc²)²": _mean_sd(
                            [s.predicted for s in samples if not math.isnan(s.predicted)]
                        ),
                        "Gaussian W baseline": baseline,
                        "s/run": f"{np.mean([s.seconds for s in samples]):.1f}" if samples else "—",
                    }
                )
    return rows


def print_table(rows: list[dict[str, str]]) -> None:
    """Markdown table."""
    header = list(rows[0])
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row[key] for key in header) + " |")


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",")]


def main(argv: list[str] | None = None) -> None:
    """Command line entry point; prints the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--d", type=_ints, default=[32], help="dimensions, e.g. 32,64")
    parser.add_argument("--fractions", type=_floats, default=[0.5, 0.8, 0.95], help="p / p_c")
    parser.add_argument("--seeds", type=_ints, default=[0, 1, 2, 3, 4], help="instance seeds")
    parser.add_argument(
        "--solutions", type=lambda s: s.split(","), default=list(SOLUTIONS), help=str(SOLUTIONS)
    )
    parser.add_argument("--gaussian-draws", type=int, default=200)
    parser.add_argument(
        "--tolerance",
        type=float,
        default=1e-3,
        help="max-margin stop: certified ||W - W*||_F / ||W||_F bound (gap = its square)",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=None, help="time cap of every lamcap.solve"
    )
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    unknown = set(args.solutions) - set(SOLUTIONS)
    if unknown:
        parser.error(f"unknown solutions {sorted(unknown)}; choose from {SOLUTIONS}")
    rows = measure(
        args.d,
        args.fractions,
        args.seeds,
        args.solutions,
        args.gaussian_draws,
        not args.quiet,
        args.tolerance,
        args.max_seconds,
    )
    print_table(rows)


if __name__ == "__main__":
    main()

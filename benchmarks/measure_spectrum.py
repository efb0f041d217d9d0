r"""Measure the singular-value spectrum of optimal full-rank memories (THEORY.md §4, issue 4).

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
    all :math:`n(p-1)` raw constraints.  The package has no public max-margin
    solver (its cutting-plane solver maximises the margin of *normalised*
    constraints only on a working set and stops at the first feasible point),
    so this script solves the QP itself: working-set dual coordinate ascent
    (the package's numba kernel :func:`lamcap.solvers.kernels.dual_epochs`,
    fed raw directions :math:`(u_t - u_\rho)\|e_\mu\|` and unit inputs), with
    every pass recomputing all :math:`n(p-1)` margins in numpy.  Certificate:
    with :math:`W_f = W/\min_i m_i` (feasible) and the dual value
    :math:`D = \sum\alpha - \|W\|^2/2`, strong convexity gives
    :math:`\|W_f - W^*\|_F^2 \le 2(\|W_f\|^2/2 - D)`; the reported
    ``dist`` is that bound relative to :math:`\|W_f\|_F`.
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
import scipy.linalg
from numpy.typing import NDArray

import lamcap
from lamcap.empirical import empirical_spectrum
from lamcap.solvers.kernels import dual_epochs

FloatArray = NDArray[np.float64]
SOLUTIONS = ("maxmargin", "first_feasible", "adam_ce", "hebbian")


# ----------------------------------------------------------------------------
# (a) max-margin / minimum-Frobenius-norm W, raw margins >= 1
# ----------------------------------------------------------------------------


@dataclass
class MaxMarginResult:
    weights: FloatArray  # feasible: every raw margin >= 1
    min_margin: float  # of the ascent iterate before rescaling
    distance_bound: float  # ||W_f - W*|| / ||W_f|| (certified upper bound)
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


def _dual_value(alpha: FloatArray, weights: FloatArray) -> float:
    return float(alpha.sum()) - 0.5 * float(np.sum(weights**2))


def _newton_step(
    directions: FloatArray, unit_inputs: FloatArray, alpha: FloatArray, weights: FloatArray
) -> tuple[FloatArray, FloatArray]:
    r"""Guess the active set (:math:`\alpha > 0`), make it tight, keep it if the dual improves.

    On the support :math:`S`, solve :math:`G\beta = 1` with the Gram matrix
    :math:`G_{ij} = \langle A_i, A_j\rangle`, clip :math:`\beta \ge 0`; the
    coordinate ascent continues from whichever dual point is better, so the
    certificate of :func:`max_margin_weights` is unaffected.
    """
    support = np.nonzero(alpha > 0)[0]
    if support.size == 0:
        return alpha, weights
    rows = (directions[support, :, None] * unit_inputs[support, None, :]).reshape(support.size, -1)
    gram = rows @ rows.T
    gram[np.diag_indices_from(gram)] += 1e-10 * float(np.trace(gram)) / support.size
    try:
        beta = scipy.linalg.solve(gram, np.ones(support.size), assume_a="pos")
    except np.linalg.LinAlgError:
        return alpha, weights
    candidate = alpha.copy()
    candidate[support] = np.clip(beta, 0.0, None)
    candidate_weights = (rows.T @ candidate[support]).reshape(weights.shape)
    if _dual_value(candidate, candidate_weights) > _dual_value(alpha, weights):
        return candidate, np.ascontiguousarray(candidate_weights)
    return alpha, weights


def max_margin_weights(
    instance: lamcap.Instance,
    *,
    cuts: int = 8,
    epochs: int = 30,
    tolerance: float = 1e-4,
    max_passes: int = 400,
    newton_every: int = 15,
) -> MaxMarginResult:
    """Minimum-norm ``W`` with all raw margins >= 1 (see the module docstring)."""
    start = time.perf_counter()
    outputs = _all_outputs(instance)
    input_norms = np.linalg.norm(instance.inputs, axis=1)
    unit_inputs = np.ascontiguousarray(instance.inputs / input_norms[:, None])
    d, n = instance.d, instance.n
    weights = np.zeros((d, d))
    member = np.zeros((n, instance.p), dtype=bool)
    mus = np.empty(0, dtype=np.int64)
    rhos = np.empty(0, dtype=np.int64)
    alpha = np.empty(0)
    distance = math.inf
    low = 0.0
    passes = 0
    for passes in range(1, max_passes + 1):
        margins = raw_margins(outputs, instance.inputs, weights)
        low = float(margins.min())
        if low > 0:
            dual = float(alpha.sum()) - 0.5 * float(np.sum(weights**2))
            primal = 0.5 * float(np.sum(weights**2)) / low**2
            distance = math.sqrt(max(2.0 * (primal - dual), 0.0) / (2.0 * primal))
            if distance < tolerance:
                break
            if passes % newton_every == 0:
                directions = (outputs[mus, 0] - outputs[mus, rhos]) * input_norms[mus, None]
                alpha, weights = _newton_step(directions, unit_inputs[mus], alpha, weights)
                continue
        candidates = np.where(member, np.inf, margins)
        count = min(cuts, instance.p - 1)
        columns = np.argpartition(candidates, count - 1, axis=1)[:, :count]
        chosen = np.take_along_axis(candidates, columns, axis=1) < 1.0
        new_mus = np.nonzero(chosen)[0].astype(np.int64)
        new_rhos = columns[chosen].astype(np.int64)
        if new_mus.size:
            member[new_mus, new_rhos] = True
            mus = np.concatenate([mus, new_mus])
            rhos = np.concatenate([rhos, new_rhos])
            alpha = np.concatenate([alpha, np.zeros(new_mus.size)])
            order = np.argsort(mus, kind="stable")
            mus, rhos, alpha = mus[order], rhos[order], alpha[order]
        directions = (outputs[mus, 0] - outputs[mus, rhos]) * input_norms[mus, None]
        offsets = np.concatenate([[0], np.cumsum(np.bincount(mus, minlength=n))]).astype(np.int64)
        dual_epochs(
            weights, unit_inputs, offsets, np.ascontiguousarray(directions), alpha, epochs, 5
        )
    feasible = weights / low
    directions = (outputs[mus, 0] - outputs[mus, rhos]) * input_norms[mus, None]
    columns = np.zeros((n, d))
    np.add.at(columns, mus, alpha[:, None] * directions)
    squares = np.sum(columns**2, axis=1)
    heterogeneity = d * float(np.sum(squares**2)) / float(np.sum(squares)) ** 2
    return MaxMarginResult(
        feasible,
        low,
        distance,
        int(mus.size),
        passes,
        time.perf_counter() - start,
        heterogeneity,
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
        result = max_margin_weights(instance, tolerance=tolerance)
        note = (
            f"dist<={result.distance_bound:.1e} ws={result.working_set} passes={result.passes}"
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
        help="max-margin stop: certified ||W - W*||_F / ||W||_F bound",
    )
    parser.add_argument(
        "--max-seconds", type=float, default=None, help="time cap of lamcap.solve (b, c)"
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

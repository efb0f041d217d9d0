"""Two probes of the original problem's extra capacity (issue 39, routes 2 and 1).

``metric-count``
    The first-order count ``p E[C_p] = d²`` for the problem seen through a metric.
    Replacing W by A W (A invertible, d × d) leaves every problem's feasibility
    unchanged but turns each recall cone K into A⁻¹K, whose polar is Aᵀ K°; the
    count ``E δ((A⁻¹K)°) = E |Π_{Aᵀ K°}(g)|²`` (g standard normal in R^d) is not
    invariant.  With ``A = Σ^{-γ/2}``, Σ the sample covariance (``d/N XᵀX``) of a
    point cloud X, the script estimates the mean cost relative to γ = 0, with
    common random numbers, for three problems at p = round(critical_p(d)):

    * ``shared``: a fresh target, the p - 1 competitors one shared cloud X (the
      metric adapts to the competitors every association faces);
    * ``original``: target and competitors are the rows of one cloud X = U
      (the metric adapts to all the outputs, as OP's invariance U -> U A allows);
    * ``decoupled``: target and competitors fresh, Σ from an independent cloud
      (a metric that cannot adapt: the control).

    Each projection is a non-negative least-squares fit (``scipy.optimize.nnls``).
``reciprocity``
    At certified max-margin solutions (``objective="max_margin"``, tolerance 1e-6)
    of OP at p = round(0.9 critical_p(d)): the mean number of active competitors
    per association (margin within 1e-4 relative of the minimum) and the fraction
    of active pairs (μ, ρ) whose mirror (ρ, μ) is active too, against the chance
    level (active per association)/(p - 1).

``overlap``
    How far the recall cones of one instance overlap.  For a random direction θ,
    N(θ) counts the associations whose cone contains θ (whose target scores highest
    on θ among its outputs).  The pair overlap ω = Σ_{μ≠ν} P(θ ∈ K_μ ∩ K_ν) / E[N]²
    is 0 when the cones are distinct cells of one fan (OP) and 1 for independent
    cones (DP).  Estimated from 20 instances per problem at p = round(critical_p(d))
    (the p of the first-order transition for ``unused``), 4 000 Gaussian directions
    each, with ``original_problem_decomposition.build(..., seed=200 + k)``.

``cell-sizes``
    The cells of OP's fan: for 20 output clouds per d at p = round(critical_p(d)), the
    fraction of 20 000 Gaussian directions on which each output scores highest (its
    cell's solid angle), its correlation with the output's length, and the spread of
    the solid angles (coefficient of variation, less the sampling noise of the
    directions) for Gaussian and for norm-one outputs.
    Clouds from ``numpy.random.default_rng([39, 5, d, seed])``.

Seeds: ``numpy.random.default_rng([39, 2, d, seed])`` for the counts and
``original_problem_decomposition.build("redrawn", 0, d, p, 100 + seed)`` (OP in law) for
the solutions.  Run::

    python measurements/original_problem_probes.py metric-count --d 16 24 \
        --instances 300 --per-instance 20 --csv docs/measurements/original_metric_count.csv
    NUMBA_NUM_THREADS=1 python measurements/original_problem_probes.py reciprocity \
        --d 16 24 --seeds 8 --csv docs/measurements/original_reciprocity.csv
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import numpy as np
from original_problem_decomposition import build, grid, parse
from scipy.optimize import nnls

import lamcap

GAMMAS = (0.0, 0.5, 1.0, 2.0, 3.0, 5.0)
PROBLEMS = ("shared", "original", "decoupled")


def _metric_roots(cloud: np.ndarray) -> list[np.ndarray]:
    """``Σ^{-γ/2}`` for every γ of GAMMAS, Σ the sample covariance of ``cloud``."""
    count, d = cloud.shape
    values, vectors = np.linalg.eigh(cloud.T @ cloud * d / count)
    return [(vectors * values ** (-gamma / 2)) @ vectors.T for gamma in GAMMAS]


def _projected_cost(directions: np.ndarray, g: np.ndarray) -> float:
    """``|Π_{cone(directions)}(g)|²`` (columns of ``directions`` generate the cone)."""
    coefficients, _ = nnls(directions, g)
    fit = directions @ coefficients
    return float(fit @ fit)


def metric_costs(problem: str, d: int, p: int, instances: int, per: int) -> np.ndarray:
    """Costs, shape ``(len(GAMMAS), instances * per)``, one column per (cone, g) draw."""
    out = np.empty((len(GAMMAS), instances * per))
    column = 0
    for seed in range(instances):
        rng = np.random.default_rng([39, 2, d, PROBLEMS.index(problem), seed])
        cloud = rng.standard_normal((p if problem == "original" else p - 1, d)) / np.sqrt(d)
        roots = _metric_roots(cloud)
        for _ in range(per):
            if problem == "shared":
                target, competitors = rng.standard_normal(d) / np.sqrt(d), cloud
            elif problem == "original":
                index = rng.integers(p)
                target, competitors = cloud[index], np.delete(cloud, index, axis=0)
            else:
                outputs = rng.standard_normal((p, d)) / np.sqrt(d)
                target, competitors = outputs[0], outputs[1:]
            polar = (competitors - target).T  # generators of K°
            g = rng.standard_normal(d)
            for row, root in enumerate(roots):
                out[row, column] = _projected_cost(root.T @ polar, g)
            column += 1
    return out


def _clustered_se(values: np.ndarray, instances: int) -> float:
    """Standard error of the mean of ``values``, the instances' means as the units."""
    means = values.reshape(instances, -1).mean(axis=1)
    return float(means.std(ddof=1) / np.sqrt(instances))


def metric_count(dims: list[int], instances: int, per: int, path: Path) -> None:
    """Write ``d, p, problem, gamma, mean_cost(_se), ratio(_se)`` rows to ``path``."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(
            ["d", "p", "problem", "gamma", "mean_cost", "mean_cost_se", "ratio", "ratio_se"]
        )
        for d in dims:
            p = round(float(lamcap.critical_p(d)))
            for problem in PROBLEMS:
                costs = metric_costs(problem, d, p, instances, per)
                base = costs[0].mean()
                for gamma, row in zip(GAMMAS, costs, strict=True):
                    # errors with the instances (not the draws) as units
                    mean_se = _clustered_se(row, instances)
                    ratio_se = _clustered_se(row - costs[0], instances) / base
                    writer.writerow(
                        [
                            d,
                            p,
                            problem,
                            gamma,
                            f"{row.mean():.4f}",
                            f"{mean_se:.4f}",
                            f"{row.mean() / base:.4f}",
                            f"{ratio_se:.4f}",
                        ]
                    )
                    handle.flush()


def _active(instance: lamcap.Instance, weights: np.ndarray) -> np.ndarray:
    """Boolean (n, p): competitor ρ of association μ ties with the target at the margin."""
    scores = lamcap.scores(instance, weights)
    rows = np.arange(instance.n)
    targets = np.broadcast_to(np.asarray(instance.targets), (instance.n,))
    margins = scores[rows, targets][:, None] - scores
    margins[rows, targets] = np.inf
    return margins <= margins.min() * (1 + 1e-4)


def reciprocity(dims: list[int], seeds: int, path: Path) -> None:
    """Write ``d, p, seed, active, reciprocal, chance`` rows, one per solved instance."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["d", "p", "seed", "active", "reciprocal", "chance"])
        for d in dims:
            p = round(0.9 * float(lamcap.critical_p(d)))
            for seed in range(seeds):
                instance = build("redrawn", 0.0, d, p, 100 + seed)
                result = lamcap.solve(instance, objective="max_margin", tolerance=1e-6)
                if result.verdict != "feasible":
                    continue
                active = _active(instance, result.weights)
                mean_active = active.sum(axis=1).mean()
                writer.writerow(
                    [
                        d,
                        p,
                        seed,
                        f"{mean_active:.3f}",
                        f"{(active & active.T).sum() / active.sum():.4f}",
                        f"{mean_active / (p - 1):.4f}",
                    ]
                )
                handle.flush()


def overlap(specs: list[str], dims: list[int], instances: int, path: Path) -> None:
    """Write ``variant, parameter, d, p, mean_count, pair_overlap, pair_overlap_se``."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(
            ["variant", "parameter", "d", "p", "mean_count", "pair_overlap", "pair_overlap_se"]
        )
        for d in dims:
            for variant, parameter in map(parse, specs):
                p = grid(d, variant, parameter)[4]  # the first-order transition
                means, pairs = [], []
                for seed in range(instances):
                    instance = build(variant, parameter, d, p, 200 + seed)
                    counts = _cone_counts(instance, np.random.default_rng([39, 3, d, seed]))
                    means.append(counts.mean())
                    pairs.append((counts * (counts - 1)).mean())
                mean = np.mean(means)
                ratios = np.array(pairs) / mean**2
                writer.writerow(
                    [
                        variant,
                        parameter,
                        d,
                        p,
                        f"{mean:.4f}",
                        f"{ratios.mean():.4f}",
                        f"{ratios.std(ddof=1) / np.sqrt(instances):.4f}",
                    ]
                )
                handle.flush()


def _cone_counts(instance: lamcap.Instance, rng: np.random.Generator) -> np.ndarray:
    """N(θ) for 4 000 Gaussian directions θ: how many recall cones contain θ."""
    directions = rng.standard_normal((instance.d, 4000))
    targets = np.broadcast_to(np.asarray(instance.targets), (instance.n,))
    counts = np.zeros(directions.shape[1], dtype=int)
    for mu in range(instance.n):
        winners = np.argmax(instance.outputs(mu) @ directions, axis=0)
        counts += winners == targets[mu]
    return counts


def cell_sizes(dims: list[int], clouds: int, path: Path) -> None:
    """Write ``d, p, outputs, length_correlation(_se), spread_gaussian(_se), spread_unit(_se)``."""
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(
            [
                "d",
                "p",
                "clouds",
                "length_correlation",
                "length_correlation_se",
                "spread_gaussian",
                "spread_gaussian_se",
                "spread_unit",
                "spread_unit_se",
            ]
        )
        for d in dims:
            p = round(float(lamcap.critical_p(d)))
            correlations, spreads, unit_spreads = [], [], []
            for seed in range(clouds):
                rng = np.random.default_rng([39, 5, d, seed])
                outputs = rng.standard_normal((p, d)) / np.sqrt(d)
                directions = rng.standard_normal((d, 20_000))
                angles = _solid_angles(outputs, directions)
                lengths = np.linalg.norm(outputs, axis=1)
                correlations.append(np.corrcoef(lengths, angles)[0, 1])
                spreads.append(_spread(angles, directions.shape[1]))
                unit = _solid_angles(outputs / lengths[:, None], directions)
                unit_spreads.append(_spread(unit, directions.shape[1]))
            cells = [d, p, clouds]
            for values in (correlations, spreads, unit_spreads):
                cells += [
                    f"{np.mean(values):.3f}",
                    f"{np.std(values, ddof=1) / np.sqrt(clouds):.3f}",
                ]
            writer.writerow(cells)


def _spread(angles: np.ndarray, draws: int) -> float:
    """Coefficient of variation of the solid angles, less the sampling noise of ``draws``
    directions (binomial: relative variance (1 - f)/(draws f), about p/draws)."""
    mean = angles.mean()
    noise = np.mean((1 - mean) / (draws * mean))
    return float(np.sqrt(max(angles.var(ddof=1) / mean**2 - noise, 0.0)))


def _solid_angles(outputs: np.ndarray, directions: np.ndarray) -> np.ndarray:
    """Fraction of ``directions`` (columns) on which each output (row) scores highest."""
    winners = np.argmax(outputs @ directions, axis=0)
    return np.bincount(winners, minlength=outputs.shape[0]) / directions.shape[1]


def _command(
    sub: argparse._SubParsersAction, name: str, size: str, default: int
) -> argparse.ArgumentParser:
    """A probe's command: ``--d``, its one sample size and ``--csv``."""
    command = sub.add_parser(name)
    command.add_argument("--d", type=int, nargs="+", required=True)
    command.add_argument(size, type=int, default=default)
    command.add_argument("--csv", type=Path, required=True)
    return command


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    _command(sub, "metric-count", "--instances", 300).add_argument(
        "--per-instance", type=int, default=20
    )
    _command(sub, "reciprocity", "--seeds", 8)
    _command(sub, "overlap", "--instances", 20).add_argument(
        "--variants", nargs="+", required=True, help="name[:parameter]"
    )
    _command(sub, "cell-sizes", "--clouds", 20)
    arguments = parser.parse_args()
    if arguments.command == "cell-sizes":
        cell_sizes(arguments.d, arguments.clouds, arguments.csv)
    elif arguments.command == "metric-count":
        metric_count(arguments.d, arguments.instances, arguments.per_instance, arguments.csv)
    elif arguments.command == "reciprocity":
        reciprocity(arguments.d, arguments.seeds, arguments.csv)
    else:
        overlap(arguments.variants, arguments.d, arguments.instances, arguments.csv)


if __name__ == "__main__":
    main()

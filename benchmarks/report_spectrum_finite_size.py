r"""Table and figure of docs/measurements/spectrum.md from the finite-size spectrum CSV.

Reads ``docs/measurements/spectrum_finite_size.csv`` (written by
``benchmarks/measure_spectrum_finite_size.py``) and, for each ``(d, p)``:

* the mean of the per-matrix ratio :math:`E[s^4]/E[s^2]^2` over the feasible
  seeds with its standard error, the finite-size law
  ``lamcap.singular_value_moment(4, d=d, p=p)`` and the standardised distance
  ``z = (measured - law) / se``;
* the mean KS distance of each matrix's singular values to the finite-size cdf
  ``singular_value_cdf(s, d=d, p=p)`` and to the quarter circle, against the
  yardstick: the KS distances of 200 Gaussian ``d x d`` matrices to the quarter
  circle (mean and 95% quantile);
* a fit of the measured excess at ``p = round(0.95 critical_p(d))`` to
  ``a (d/p)^b`` (weighted least squares, 95% intervals from the covariance), and
  of the measured excess over the law to ``c d/p``;
* the solver's share: each certified ``W`` is within relative distance
  :math:`\epsilon = \sqrt g` of the exact optimum ``W*`` (``distance_bound``), and
  :math:`R = d(\|W\|_4/\|W\|_F)^4` (Schatten norms) then lies in
  :math:`[d(r - \epsilon)^4, d((r + \epsilon)/\sqrt{1 - \epsilon^2})^4]`,
  :math:`r = (R/d)^{1/4}`, by the triangle inequality
  :math:`|\|W\|_4 - \|W^*\|_4| \le \|W - W^*\|_F` and
  :math:`(1 - \epsilon^2)\|W\|_F^2 \le \|W^*\|_F^2 \le \|W\|_F^2`; the table gives the
  mean half-width of that interval over a point's matrices;
* where a seed was solved at two tolerances, both ratios (the measured effect of
  the tolerance); per seed the table uses the solve with the smallest certified
  distance;
* each instance's own normalised margin :math:`m_i = d/\|W\|_F` (at raw margin 1,
  ``primal_norm``) against the law's :math:`m` (:math:`p\,E D = d^2`), and the law
  evaluated at :math:`m_i` instead of :math:`m` (the prediction conditional on the
  instance's margin, hence on its feasibility), with its value at :math:`m = 0`,
  the largest any feasible instance can get.

Prints the Markdown table and writes ``docs/measurements/spectrum_finite_size.png``::

    python benchmarks/report_spectrum_finite_size.py
"""

from __future__ import annotations

import argparse
import csv
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, stats

import lamcap
from lamcap.empirical import empirical_spectrum
from lamcap.experiments.figures import _style as style
from lamcap.theory._spectrum import _fourth_moment, _residual_moments

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CSV = ROOT / "docs/measurements/spectrum_finite_size.csv"
FloatArray = NDArray[np.float64]


@dataclass
class Point:
    """Statistics of one ``(d, p)``."""

    d: int
    p: int
    fraction: float
    run: int
    ratios: FloatArray
    ks_law: float
    ks_quarter: float
    predicted: float  # NaN outside the law's range
    distances: FloatArray  # certified relative distance to W* per matrix
    margins: FloatArray  # d / ||W||_F at raw margin 1 (NaN where not recorded)

    @property
    def mean(self) -> float:
        return float(self.ratios.mean())

    @property
    def error(self) -> float:
        return float(self.ratios.std(ddof=1) / math.sqrt(self.ratios.size))

    @property
    def z(self) -> float:
        return (self.mean - self.predicted) / self.error

    @property
    def solver_bound(self) -> float:
        """Mean over the matrices of the half-width of the certified ratio interval."""
        return float(
            np.mean(
                [
                    ratio_half_width(r, e, self.d)
                    for r, e in zip(self.ratios, self.distances, strict=True)
                ]
            )
        )


def ratio_half_width(ratio: float, distance: float, d: int) -> float:
    r"""Largest change of :math:`R = d(\|W\|_4/\|W\|_F)^4` over ``||W - W*||_F <= distance ||W||_F``.

    Rigorous (not first order): :math:`\|W^*\|_4 \in \|W\|_4 \pm \epsilon\|W\|_F` and
    :math:`\sqrt{1 - \epsilon^2}\|W\|_F \le \|W^*\|_F \le \|W\|_F`.
    """
    r = (ratio / d) ** 0.25
    high = d * ((r + distance) / math.sqrt(max(1.0 - distance**2, 1e-300))) ** 4
    low = d * max(r - distance, 0.0) ** 4
    return max(high - ratio, ratio - low)


def law_at_margin(d: int, p: int, margin: float) -> float:
    """The finite-size law with the weights and reaction at normalised margin ``margin``."""
    residual = _residual_moments(p, margin)
    heterogeneity = residual.square / residual.mean**2
    constrained = residual.active / residual.mean
    return _fourth_moment(d, d / p, heterogeneity, constrained)


def ks_distance(values: FloatArray, cdf: FloatArray) -> float:
    """Kolmogorov–Smirnov distance of a sample (sorted ascending) to cdf values at it."""
    n = values.size
    ranks = np.arange(1, n + 1)
    return float(max(np.max(ranks / n - cdf), np.max(cdf - (ranks - 1) / n)))


def gaussian_yardstick(d: int, draws: int = 200) -> tuple[float, float]:
    """Mean and 95% quantile of the KS distance of Gaussian ``d x d`` W to the quarter circle."""
    rng = np.random.default_rng(d)
    distances = [
        empirical_spectrum(rng.standard_normal((d, d))).ks_distance(law="optimum")
        for _ in range(draws)
    ]
    return float(np.mean(distances)), float(np.quantile(distances, 0.95))


def load_points(path: Path) -> list[Point]:
    """Group the CSV rows by ``(d, p)`` (full rank) and compute the statistics."""
    groups: dict[tuple[int, int], list[dict[str, str]]] = {}
    with path.open() as handle:
        for row in csv.DictReader(handle):
            groups.setdefault((int(row["d"]), int(row["p"])), []).append(row)
    points = []
    for (d, p), rows in sorted(groups.items()):
        feasible = best_per_seed(rows)
        if len(feasible) < 2:
            continue
        ratios = np.array([float(r["ratio"]) for r in feasible])
        spectra = [np.sort([float(v) for v in r["singular_values"].split()]) for r in feasible]
        try:
            predicted = float(lamcap.singular_value_moment(4, d=d, p=p))
            ks_law = float(
                np.mean([ks_distance(s, lamcap.singular_value_cdf(s, d=d, p=p)) for s in spectra])
            )
        except ValueError:
            predicted, ks_law = math.nan, math.nan
        ks_quarter = float(np.mean([float(r["ks_quarter_circle"]) for r in feasible]))
        fraction = float(feasible[0]["fraction"])
        distances = np.array([float(r["distance_bound"]) for r in feasible])
        margins = np.array(
            [d / float(r["primal_norm"]) if r.get("primal_norm") else math.nan for r in feasible]
        )
        seeds = len({r["seed"] for r in rows})
        points.append(
            Point(d, p, fraction, seeds, ratios, ks_law, ks_quarter, predicted, distances, margins)
        )
    return points


def best_per_seed(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Per seed, the feasible solve with the smallest certified distance to ``W*``.

    ``primal_norm`` is taken from any solve of the seed that recorded it (they
    solve the same instance to the same optimum).
    """
    best: dict[str, dict[str, str]] = {}
    norms: dict[str, str] = {}
    for row in rows:
        if row["verdict"] != "feasible":
            continue
        seed = row["seed"]
        if row.get("primal_norm"):
            norms[seed] = row["primal_norm"]
        if seed not in best or float(row["distance_bound"]) < float(best[seed]["distance_bound"]):
            best[seed] = row
    return [{**best[s], "primal_norm": norms.get(s, "")} for s in sorted(best, key=int)]


def resolved(path: Path) -> str:
    """Seeds solved at more than one tolerance: ratio and certified distance of each solve."""
    groups: dict[tuple[int, int, int], list[dict[str, str]]] = {}
    with path.open() as handle:
        for row in csv.DictReader(handle):
            if row["verdict"] == "feasible":
                groups.setdefault((int(row["d"]), int(row["p"]), int(row["seed"])), []).append(row)
    lines = [
        "| d | p | seed | ratio (distance ≤), each solve | largest difference |",
        "|---|---|---|---|---|",
    ]
    for (d, p, seed), rows in sorted(groups.items()):
        if len(rows) < 2:
            continue
        ratios = [float(r["ratio"]) for r in rows]
        cells = "; ".join(
            f"{float(r['ratio']):.6f} ({float(r['distance_bound']):.1e}, "
            f"{r['gap_tolerance'] or 'first pass'})"
            for r in rows
        )
        lines.append(f"| {d} | {p} | {seed} | {cells} | {max(ratios) - min(ratios):.1e} |")
    return "\n".join(lines)


def margin_summary(points: list[Point]) -> str:
    """Per point with recorded margins: own margins, the law at them, and the law at m = 0."""
    from lamcap.theory._margin import max_margin  # noqa: PLC0415

    header = (
        "| d | p | matrices | law's m | mean m_i (range) | law at m | mean law at m_i | law at m = 0 "
        "| slope dR/dm_i measured (law) |"
    )
    lines = [
        header,
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for q in points:
        known = ~np.isnan(q.margins)
        if known.sum() < 3 or math.isnan(q.predicted):
            continue
        margins, ratios = q.margins[known], q.ratios[known]
        typical = float(max_margin(q.p / q.d**2, q.p))
        own = np.array([law_at_margin(q.d, q.p, m) for m in margins])
        slope = np.polyfit(margins, ratios, 1)[0]
        slope_law = (
            law_at_margin(q.d, q.p, typical + 0.01) - law_at_margin(q.d, q.p, typical - 0.01)
        ) / 0.02
        lines.append(
            f"| {q.d} | {q.p} | {known.sum()} | {typical:.3f} | {margins.mean():.3f} "
            f"({margins.min():.3f}–{margins.max():.3f}) | {q.predicted:.3f} | {own.mean():.3f} "
            f"| {law_at_margin(q.d, q.p, 0.0):.3f} | {slope:+.2f} ({slope_law:+.2f}) |"
        )
    return "\n".join(lines)


def fit_law_excess(points: list[Point]) -> tuple[float, float, float]:
    """Fit ``measured - law = c d/p`` at 0.95 p_c: ``c``, its 95% half-width and chi^2/dof."""
    chosen = [q for q in points if q.fraction == 0.95 and not math.isnan(q.predicted)]
    x = np.array([q.d / q.p for q in chosen])
    y = np.array([q.mean - q.predicted for q in chosen])
    sigma = np.array([q.error for q in chosen])
    weights = 1.0 / sigma**2
    c = float(np.sum(weights * x * y) / np.sum(weights * x * x))
    error = 1.0 / math.sqrt(float(np.sum(weights * x * x)))
    chi2 = float(np.sum(weights * (y - c * x) ** 2)) / (len(chosen) - 1)
    return c, float(stats.t.ppf(0.975, len(chosen) - 1)) * error, chi2


def fit_excess(points: list[Point]) -> tuple[FloatArray, FloatArray]:
    """Fit ``excess = a (d/p)^b`` at 0.95 p_c; returns ``(a, b)`` and their 95% half-widths."""
    chosen = [q for q in points if q.fraction == 0.95]
    x = np.array([q.d / q.p for q in chosen])
    y = np.array([q.mean - 2.0 for q in chosen])
    sigma = np.array([q.error for q in chosen])

    def model(ratio: FloatArray, a: float, b: float) -> FloatArray:
        return a * ratio**b

    parameters, covariance = optimize.curve_fit(
        model, x, y, p0=(1.5, 1.0), sigma=sigma, absolute_sigma=True
    )
    quantile = stats.t.ppf(0.975, max(len(chosen) - 2, 1))
    return parameters, quantile * np.sqrt(np.diag(covariance))


def table(points: list[Point]) -> str:
    """The Markdown table of docs/measurements/spectrum.md."""
    header = (
        "| d | p (p/p_c) | seeds feasible/run | measured E[s⁴]/E[s²]² ± se | finite-size law | z "
        "| largest distance to W* | solver bound on the ratio "
        "| KS to law | KS to quarter circle | Gaussian W: KS mean (95%) |"
    )
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|---|"]
    yardsticks: dict[int, tuple[float, float]] = {}
    for q in points:
        if q.d not in yardsticks:
            yardsticks[q.d] = gaussian_yardstick(q.d)
        mean, high = yardsticks[q.d]
        law = "—" if math.isnan(q.predicted) else f"{q.predicted:.3f}"
        z = "—" if math.isnan(q.predicted) else f"{q.z:+.1f}"
        ks_law = "—" if math.isnan(q.ks_law) else f"{q.ks_law:.3f}"
        critical = float(lamcap.critical_p(q.d))
        lines.append(
            f"| {q.d} | {q.p} ({q.p / critical:.2f}) | {q.ratios.size}/{q.run} "
            f"| {q.mean:.3f} ± {q.error:.3f} | {law} | {z} | {q.distances.max():.0e} "
            f"| {q.solver_bound:.0e} | {ks_law} | {q.ks_quarter:.3f} "
            f"| {mean:.3f} ({high:.3f}) |"
        )
    return "\n".join(lines)


def figure(
    points: list[Point],
    fit: tuple[FloatArray, FloatArray],
    law_fit: tuple[float, float, float],
    output: Path,
) -> None:
    """Excess ratio against d at 0.95 p_c (law, fit) and the measured excess over the law."""
    chosen = [q for q in points if q.fraction == 0.95]
    dims = np.array([8, 12, 16, 24, 32, 48, 64, 96, 128])
    ps = np.array([round(0.95 * float(lamcap.critical_p(d))) for d in dims])
    law = np.array(
        [
            float(lamcap.singular_value_moment(4, d=d, p=p)) - 2.0
            for d, p in zip(dims, ps, strict=True)
        ]
    )
    (a, b), _ = fit
    with style.context():
        fig, (axis, right) = style.new_figure(2, height=2.6)
        axis.plot(dims, law, color=style.colour(0), label="finite-size law")
        axis.plot(
            dims,
            a * (dims / ps) ** b,
            color=style.colour(1),
            linestyle=":",
            label=f"fit {a:.2f}(d/p)$^{{{b:.2f}}}$",
        )
        axis.plot(dims, 1.0 / dims, color="0.5", linestyle="--", label="Gaussian W: 1/d")
        axis.errorbar(
            [q.d for q in chosen],
            [q.mean - 2.0 for q in chosen],
            yerr=[1.96 * q.error for q in chosen],
            fmt="o",
            color=style.colour(0),
            label="max-margin W (95%)",
        )
        axis.set_xscale("log", base=2)
        axis.set_xticks([8, 16, 32, 64, 128], labels=["8", "16", "32", "64", "128"])
        axis.set_xlabel("d  (p = 0.95 critical_p(d))")
        axis.set_ylabel("E[s⁴]/E[s²]² − 2")
        axis.set_ylim(0.0, None)
        axis.legend(frameon=False)
        c, half, _ = law_fit
        measured = [q for q in chosen if not math.isnan(q.predicted)]
        right.axhline(0.0, color="0.5", linewidth=0.8)
        right.plot(
            dims,
            c * dims / ps,
            color=style.colour(1),
            linestyle=":",
            label=f"fit ({c:.2f} ± {half:.2f}) d/p",
        )
        right.errorbar(
            [q.d for q in measured],
            [q.mean - q.predicted for q in measured],
            yerr=[1.96 * q.error for q in measured],
            fmt="o",
            color=style.colour(0),
            label="measured − law (95%)",
        )
        right.set_xscale("log", base=2)
        right.set_xticks([8, 16, 32, 64, 128], labels=["8", "16", "32", "64", "128"])
        right.set_xlabel("d  (p = 0.95 critical_p(d))")
        right.set_ylabel("measured − finite-size law")
        right.legend(frameon=False)
        fig.savefig(output, dpi=200, metadata={"Software": None})


def main(argv: list[str] | None = None) -> None:
    """Print the table and the fit, write the figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--figure", type=Path, default=DEFAULT_CSV.with_suffix(".png"))
    args = parser.parse_args(argv)
    points = load_points(args.csv)
    print(table(points))
    fit = fit_excess(points)
    (a, b), (da, db) = fit
    print(
        f"\nfit at 0.95 p_c: excess = a (d/p)^b, a = {a:.2f} ± {da:.2f}, b = {b:.2f} ± {db:.2f} (95%)"
    )
    law_fit = fit_law_excess(points)
    c, dc, chi2 = law_fit
    print(
        f"fit at 0.95 p_c: measured - law = c d/p, c = {c:.3f} ± {dc:.3f} (95%), chi2/dof = {chi2:.2f}"
    )
    print("\nSeeds solved at two tolerances:\n")
    print(resolved(args.csv))
    print("\nOwn margins and the law conditional on them:\n")
    print(margin_summary(points))
    figure(points, fit, law_fit, args.figure)


if __name__ == "__main__":
    main()

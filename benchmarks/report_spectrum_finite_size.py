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
  ``a (d/p)^b`` (weighted least squares, 95% intervals from the covariance).

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
from lamcap.experiments.figures import style

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

    @property
    def mean(self) -> float:
        return float(self.ratios.mean())

    @property
    def error(self) -> float:
        return float(self.ratios.std(ddof=1) / math.sqrt(self.ratios.size))

    @property
    def z(self) -> float:
        return (self.mean - self.predicted) / self.error


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
        feasible = [r for r in rows if r["verdict"] == "feasible"]
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
        points.append(Point(d, p, fraction, len(rows), ratios, ks_law, ks_quarter, predicted))
    return points


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
        "| KS to law | KS to quarter circle | Gaussian W: KS mean (95%) |"
    )
    lines = [header, "|---|---|---|---|---|---|---|---|---|"]
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
            f"| {q.mean:.3f} ± {q.error:.3f} | {law} | {z} | {ks_law} | {q.ks_quarter:.3f} "
            f"| {mean:.3f} ({high:.3f}) |"
        )
    return "\n".join(lines)


def figure(points: list[Point], fit: tuple[FloatArray, FloatArray], output: Path) -> None:
    """Excess ratio against d at 0.95 p_c: measurements, finite-size law, fitted power law."""
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
        fig, (axis,) = style.new_figure(1, height=2.6)
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
    figure(points, fit, args.figure)


if __name__ == "__main__":
    main()

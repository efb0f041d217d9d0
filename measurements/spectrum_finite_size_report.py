r"""Table, fit and figure of docs/measurements/spectrum.md from the finite-size spectrum CSV.

Reads ``docs/measurements/spectrum_finite_size.csv`` (written by
``measurements/spectrum_finite_size.py``) and, for each ``(d, p)`` and
each role of the seeds (*build*: seeds below 1000, used to fit the law;
*held-out*: seeds 1000 and above, used only to check it):

* the mean of the per-matrix ratio :math:`E[s^4]/E[s^2]^2` over the feasible
  seeds with its standard error; the uniform-reaction model
  (``lamcap.theory._spectrum_finite_size._fourth_moment``, the law before the fit) and
  the fitted law ``lamcap.singular_value_moment(4, d=d, p=p, return_error=True)``
  with its model error;
* the fit itself (``--fit``): weighted least squares of the build points'
  :math:`y = (\bar R - 2 - 1/d)/\lambda`, :math:`\lambda = d/p`, on the
  regressor :math:`(1 - 2u)^2(\kappa_D - (2d+1)/d^2)`, with weights
  :math:`1/(s_i^2 + \tau^2)`, :math:`s_i` the standard error of :math:`y_i` and
  :math:`\tau` the upper 95% confidence limit of the scatter about the fit
  (Q-profile: the value at which :math:`\chi^2` equals its 2.5% quantile; the
  point estimate, at which it equals its degrees of freedom, is printed too);
  printed with the variance of the amplitude, to be copied into
  ``lamcap/theory/_spectrum.py``; alongside it, the same fit of other forms for
  comparison;
* the check on the held-out points: a point is covered when
  :math:`|\bar R - \text{law}| \le \sqrt{e^2 + (t\,\mathrm{se})^2}`, ``e`` the
  law's model error and ``t`` the 97.5% Student quantile of the point's
  seeds (the sampling error of the held-out mean itself);
* the mean KS distance of each matrix's singular values to the finite-size cdf
  ``singular_value_cdf(s, d=d, p=p)`` and to the quarter circle, against the
  yardstick: the KS distances of 200 Gaussian ``d x d`` matrices to the quarter
  circle (mean and 95% quantile);
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
  ``primal_norm``) against the law's :math:`m` (:math:`p\,E D = d^2`), and the
  uniform-reaction model evaluated at :math:`m_i` instead of :math:`m`, with its
  value at :math:`m = 0`.

Prints the Markdown tables and writes ``docs/measurements/spectrum_finite_size.png``::

    python measurements/spectrum_finite_size_report.py          # tables, check, figure
    python measurements/spectrum_finite_size_report.py --fit    # also the fit and its constants
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import NDArray
from scipy import optimize, stats

import lamcap
from lamcap.empirical import empirical_spectrum
from lamcap.experiments.figures import _style as style
from lamcap.theory._spectrum_finite_size import (
    _finite_size,
    _fourth_moment,
    _residual_moments,
)

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CSV = ROOT / "docs/measurements/spectrum_finite_size.csv"
FloatArray = NDArray[np.float64]
#: Seeds from this one on are held out: never used to build the law.
HELD_OUT = 1000
ROLES = ("build", "held-out")


@dataclass
class Point:
    """Statistics of one ``(d, p)`` and role of its seeds."""

    d: int
    p: int
    fraction: float
    role: str
    run: int
    ratios: FloatArray
    ks_law: float
    ks_quarter: float
    uniform: float  # the uniform-reaction model (the law before the fit)
    predicted: float  # the fitted law
    law_error: float  # its model error (95% half-width)
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
        """Miss of the uniform-reaction model in standard errors."""
        return (self.mean - self.uniform) / self.error

    @property
    def allowance(self) -> float:
        r""":math:`\sqrt{e^2 + (t\,\mathrm{se})^2}`: the law's error and the mean's own."""
        t = float(stats.t.ppf(0.975, self.ratios.size - 1))
        return math.hypot(self.law_error, t * self.error)

    @property
    def covered(self) -> bool:
        return abs(self.mean - self.predicted) <= self.allowance

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
    """The uniform-reaction model with the weights and reaction at normalised margin ``margin``."""
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
        empirical_spectrum(rng.standard_normal((d, d))).ks_distance(family="optimum")
        for _ in range(draws)
    ]
    return float(np.mean(distances)), float(np.quantile(distances, 0.95))


def role_of(seed: int) -> str:
    """``"build"`` below :data:`HELD_OUT`, ``"held-out"`` from it on."""
    return "held-out" if seed >= HELD_OUT else "build"


def uniform_model(d: int, p: int) -> float:
    """The uniform-reaction model at ``(d, p)`` (the law before the fit)."""
    law = _finite_size(d, p)
    return _fourth_moment(d, d / p, law.heterogeneity, law.constrained)


@functools.cache
def cdf_table(d: int, p: int) -> tuple[FloatArray, FloatArray]:
    """The finite-size cdf at 401 points, for linear interpolation (error about 1e-5)."""
    top = float(lamcap.singular_value_support(d=d, p=p)[1])
    grid = np.linspace(0.0, top, 401)
    return grid, np.asarray(lamcap.singular_value_cdf(grid, d=d, p=p), dtype=float)


def load_points(path: Path) -> list[Point]:
    """Group the CSV rows by ``(d, p)`` (full rank) and role, and compute the statistics."""
    groups: dict[tuple[int, int, str], list[dict[str, str]]] = {}
    with path.open() as handle:
        for row in csv.DictReader(handle):
            key = (int(row["d"]), int(row["p"]), role_of(int(row["seed"])))
            groups.setdefault(key, []).append(row)
    points = []
    for (d, p, role), rows in sorted(groups.items(), key=lambda i: (i[0][0], i[0][1], i[0][2])):
        feasible = best_per_seed(rows)
        if len(feasible) < 2:
            continue
        ratios = np.array([float(r["ratio"]) for r in feasible])
        spectra = [np.sort([float(v) for v in r["singular_values"].split()]) for r in feasible]
        predicted, law_error = (
            float(v) for v in lamcap.singular_value_moment(4, d=d, p=p, return_error=True)
        )
        grid, table_cdf = cdf_table(d, p)
        ks_law = float(np.mean([ks_distance(s, np.interp(s, grid, table_cdf)) for s in spectra]))
        ks_quarter = float(np.mean([float(r["ks_quarter_circle"]) for r in feasible]))
        fraction = float(feasible[0]["fraction"])
        distances = np.array([float(r["distance_bound"]) for r in feasible])
        margins = np.array(
            [d / float(r["primal_norm"]) if r.get("primal_norm") else math.nan for r in feasible]
        )
        seeds = len({r["seed"] for r in rows})
        points.append(
            Point(
                d,
                p,
                fraction,
                role,
                seeds,
                ratios,
                ks_law,
                ks_quarter,
                uniform_model(d, p),
                predicted,
                law_error,
                distances,
                margins,
            )
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
        if known.sum() < 3 or q.role != "build" or q.fraction != 0.95:
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
            f"({margins.min():.3f}–{margins.max():.3f}) | {q.uniform:.3f} | {own.mean():.3f} "
            f"| {law_at_margin(q.d, q.p, 0.0):.3f} | {slope:+.2f} ({slope_law:+.2f}) |"
        )
    return "\n".join(lines)


#: Candidate forms of the load dependence, as regressors of
#: y = (R - 2 - 1/d) / (d/p) in (d, p, u, kappa_D); the first is the law's.
Regressors = Callable[[int, int, float, float], list[float]]
FORMS: dict[str, Regressors] = {
    "c (1-2u)² (κ_D - (2d+1)/d²) (the law)": lambda d, _p, u, k: [
        (1 - 2 * u) ** 2 * (k - (2 * d + 1) / d**2)
    ],
    "(1-2u)² [a (1 - (2d+1)/d²) + b (κ_D - 1)]": lambda d, _p, u, k: [
        (1 - 2 * u) ** 2 * (1 - (2 * d + 1) / d**2),
        (1 - 2 * u) ** 2 * (k - 1),
    ],
    "a (1-2u)² (1 - (2d+1)/d²)": lambda d, _p, u, _k: [(1 - 2 * u) ** 2 * (1 - (2 * d + 1) / d**2)],
    "a (1-2u)² (1 - (2d+1)/d²) + b (κ_D - 1) (uniform reaction, free a, b)": lambda d, _p, u, k: [
        (1 - 2 * u) ** 2 * (1 - (2 * d + 1) / d**2),
        k - 1,
    ],
    "c (1-2u)² (κ_D - (2d+1)/d²) + e (1-2u)² d/p": lambda d, p, u, k: [
        (1 - 2 * u) ** 2 * (k - (2 * d + 1) / d**2),
        (1 - 2 * u) ** 2 * d / p,
    ],
}


@dataclass
class Fit:
    """Weighted least squares with a scatter term (units of d/p)."""

    coefficients: FloatArray
    covariance: FloatArray
    scatter: float  # tau: the upper 95% confidence limit (Q-profile)
    typical: float  # the point estimate of tau (Paule-Mandel)
    chi2: float  # at tau = 0
    dof: int


def fit_form(points: list[Point], form: Regressors) -> Fit:
    r"""Fit ``y = x . c`` on the build points with weights :math:`1/(s^2 + \tau^2)`.

    :math:`\tau` is the upper 95% confidence limit of the scatter about the fit
    (Q-profile: the generalised :math:`\chi^2` equals its 2.5% quantile); the
    point estimate (Paule–Mandel: :math:`\chi^2` = degrees of freedom) is kept
    for the report.
    """
    chosen = [q for q in points if q.role == "build"]
    x = np.array([form(q.d, q.p, *_parts(q.d, q.p)) for q in chosen])
    ratio = np.array([q.d / q.p for q in chosen])
    y = np.array([q.mean - 2.0 - 1.0 / q.d for q in chosen]) / ratio
    s = np.array([q.error for q in chosen]) / ratio
    dof = len(chosen) - x.shape[1]

    def solve(tau2: float) -> tuple[FloatArray, FloatArray, float]:
        w = 1.0 / (s**2 + tau2)
        normal = (x * w[:, None]).T @ x
        coefficients = np.linalg.solve(normal, (x * w[:, None]).T @ y)
        residual = y - x @ coefficients
        return coefficients, np.linalg.inv(normal), float(np.sum(w * residual**2))

    def scatter(target: float) -> float:
        if solve(0.0)[2] <= target:
            return 0.0
        top = 100.0 * float(np.var(y)) + 1.0
        return math.sqrt(float(optimize.brentq(lambda t: solve(t)[2] - target, 0.0, top)))

    chi2 = solve(0.0)[2]
    typical = scatter(float(dof))
    upper = scatter(float(stats.chi2.ppf(0.025, dof)))
    coefficients, covariance, _ = solve(upper**2)
    return Fit(coefficients, covariance, upper, typical, chi2, dof)


def _parts(d: int, p: int) -> tuple[float, float]:
    """``u`` and ``kappa_D`` at ``(d, p)``."""
    law = _finite_size(d, p)
    return law.constrained, law.heterogeneity


def fit_report(points: list[Point]) -> str:
    """Every candidate form: coefficients, scatter, chi^2/dof, held-out coverage; the constants."""
    lines = [
        (
            "| form | coefficients (95%) | τ: estimate, upper 95% (units of d/p) "
            "| χ²/dof at τ = 0 | held-out covered |"
        ),
        "|---|---|---|---|---|",
    ]
    held = [q for q in points if q.role == "held-out"]
    best = None
    for name, form in FORMS.items():
        fit = fit_form(points, form)
        best = best or fit
        covered = 0
        for q in held:
            x = np.array(form(q.d, q.p, *_parts(q.d, q.p)))
            ratio = q.d / q.p
            law = 2.0 + 1.0 / q.d + ratio * float(x @ fit.coefficients)
            quantile = float(stats.t.ppf(0.975, fit.dof))
            error = quantile * ratio * math.sqrt(float(x @ fit.covariance @ x) + fit.scatter**2)
            t = float(stats.t.ppf(0.975, q.ratios.size - 1))
            covered += abs(q.mean - law) <= math.hypot(error, t * q.error)
        half = float(stats.t.ppf(0.975, fit.dof)) * np.sqrt(np.diag(fit.covariance))
        cells = ", ".join(f"{c:.3f} ± {h:.3f}" for c, h in zip(fit.coefficients, half, strict=True))
        lines.append(
            f"| {name} | {cells} | {fit.typical:.3f}, {fit.scatter:.3f} "
            f"| {fit.chi2 / fit.dof:.2f} ({fit.dof}) "
            f"| {covered}/{len(held)} |"
        )
    assert best is not None
    t = float(stats.t.ppf(0.975, best.dof))
    lines += [
        "",
        "Constants of lamcap/theory/_spectrum.py (the first form):",
        f"_FIT_AMPLITUDE = {best.coefficients[0]:.4f}",
        f"_FIT_VARIANCE = {best.covariance[0, 0]:.4e}",
        f"_FIT_SCATTER = {best.scatter:.4f}",
        f"_ERROR_QUANTILE = {t:.4f}  # Student t, {best.dof} degrees of freedom",
    ]
    return "\n".join(lines)


def table(points: list[Point]) -> str:
    """The Markdown table of docs/measurements/spectrum.md."""
    header = (
        "| d | p (p/p_c) | seeds | feasible/run | measured E[s⁴]/E[s²]² ± se "
        "| uniform-reaction model (z) | fitted law ± error | miss / allowance "
        "| solver bound | KS to law | KS to quarter circle | Gaussian W: KS mean (95%) |"
    )
    lines = [header, "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    yardsticks: dict[int, tuple[float, float]] = {}
    for q in points:
        if q.d not in yardsticks:
            yardsticks[q.d] = gaussian_yardstick(q.d)
        mean, high = yardsticks[q.d]
        critical = float(lamcap.critical_p(q.d))
        miss = abs(q.mean - q.predicted) / q.allowance
        lines.append(
            f"| {q.d} | {q.p} ({q.p / critical:.2f}) | {q.role} | {q.ratios.size}/{q.run} "
            f"| {q.mean:.3f} ± {q.error:.3f} | {q.uniform:.3f} ({q.z:+.1f}) "
            f"| {q.predicted:.3f} ± {q.law_error:.3f} | {miss:.2f} "
            f"| {q.solver_bound:.0e} | {q.ks_law:.3f} | {q.ks_quarter:.3f} "
            f"| {mean:.3f} ({high:.3f}) |"
        )
    return "\n".join(lines)


def coverage(points: list[Point]) -> str:
    """Held-out points covered by the law's error (with their own sampling error)."""
    held = [q for q in points if q.role == "held-out"]
    build = [q for q in points if q.role == "build"]
    inside = sum(q.covered for q in held)
    plain = sum(abs(q.mean - q.predicted) <= q.law_error for q in held)
    uniform = sum(abs(q.mean - q.uniform) <= q.allowance for q in held)
    return (
        f"held-out points covered by sqrt(error² + (t se)²): {inside}/{len(held)}; "
        f"by the model error alone: {plain}/{len(held)}; "
        f"build points: {sum(q.covered for q in build)}/{len(build)}; "
        f"the uniform-reaction model with the same allowance: {uniform}/{len(held)} held-out"
    )


def cost(path: Path) -> str:
    """Median and largest seconds per solve, per ``d`` and fraction and tolerance, and the loads."""
    groups: dict[tuple[int, float, str], list[tuple[float, float]]] = {}
    with path.open() as handle:
        for row in csv.DictReader(handle):
            if row["verdict"] != "feasible" or not row["gap_tolerance"] or not row["seconds"]:
                continue
            key = (int(row["d"]), float(row["fraction"]), row["gap_tolerance"])
            load = float(row["load_average"]) if row["load_average"] else math.nan
            groups.setdefault(key, []).append((float(row["seconds"]), load))
    lines = [
        "| d | p/p_c | gap tolerance | solves | median s | largest s | load average |",
        "|---|---|---|---|---|---|---|",
    ]
    for (d, fraction, tolerance), values in sorted(groups.items()):
        seconds = np.array([v[0] for v in values])
        loads = np.array([v[1] for v in values])
        lines.append(
            f"| {d} | {fraction:g} | {tolerance} | {seconds.size} | {np.median(seconds):.1f} "
            f"| {seconds.max():.1f} | {np.nanmin(loads):.1f}–{np.nanmax(loads):.1f} |"
        )
    return "\n".join(lines)


PANELS = (16, 24, 32, 48, 64)


def figure(points: list[Point], output: Path) -> None:
    """Ratio against p/p_c per d: build and held-out means, the model before, the fitted law."""
    grid = np.linspace(0.5, 1.0, 41)
    with style.context():
        fig = Figure(figsize=(7.0, 4.4), layout="constrained")
        axes = [fig.add_subplot(2, 3, i + 1) for i in range(6)]
        for axis, d in zip(axes, PANELS, strict=False):
            critical = float(lamcap.critical_p(d))
            ps = sorted({min(round(f * critical), math.floor(critical)) for f in grid})
            fractions = np.array([p / critical for p in ps])
            law, error = (
                np.asarray(v, dtype=float)
                for v in lamcap.singular_value_moment(4, d=d, p=ps, return_error=True)
            )
            axis.fill_between(
                fractions, law - error, law + error, color=style.colour(1), alpha=0.25
            )
            axis.plot(fractions, law, color=style.colour(1), label="fitted law ± error")
            axis.plot(
                fractions,
                [uniform_model(d, p) for p in ps],
                color="0.45",
                linestyle="--",
                label="uniform-reaction model",
            )
            for role, shift, marker in (("build", -0.006, "o"), ("held-out", 0.006, "s")):
                chosen = [q for q in points if q.d == d and q.role == role]
                axis.errorbar(
                    [q.p / critical + shift for q in chosen],
                    [q.mean for q in chosen],
                    yerr=[1.96 * q.error for q in chosen],
                    fmt=marker,
                    markersize=3,
                    color=style.colour(0),
                    markerfacecolor=style.colour(0) if role == "build" else "white",
                    label=f"{role} seeds (95%)",
                )
            axis.set_title(f"d = {d}")
            axis.set_xlabel("p / critical_p(d)")
            axis.set_ylabel("E[s⁴]/E[s²]²")
        axes[0].legend(frameon=False, fontsize="x-small")
        right = axes[5]
        held = [q for q in points if q.role == "held-out"]
        for index, d in enumerate(sorted({q.d for q in held})):
            chosen = [q for q in held if q.d == d]
            right.plot(
                [q.p / float(lamcap.critical_p(d)) for q in chosen],
                [(q.mean - q.predicted) / q.allowance for q in chosen],
                "s",
                markersize=3,
                color=style.colour(index),
                label=f"d = {d}",
            )
        right.axhspan(-1.0, 1.0, color="0.9")
        right.axhline(0.0, color="0.5", linewidth=0.8)
        right.set_title("held-out miss / allowance")
        right.set_ylim(-1.6, 2.2)
        right.set_xlabel("p / critical_p(d)")
        right.set_ylabel("miss / allowance")
        right.legend(frameon=False, fontsize="x-small", ncol=3, loc="upper left")
        fig.savefig(output, dpi=200, metadata={"Software": None})


def main(argv: list[str] | None = None) -> None:
    """Print the tables, the check (and with ``--fit`` the fit), write the figure."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--csv", type=Path, default=DEFAULT_CSV)
    parser.add_argument("--figure", type=Path, default=DEFAULT_CSV.with_suffix(".png"))
    parser.add_argument("--fit", action="store_true", help="print the fit of the build points")
    args = parser.parse_args(argv)
    points = load_points(args.csv)
    if args.fit:
        print(fit_report(points))
        print()
    print(table(points))
    print()
    print(coverage(points))
    print("\nSeeds solved at two tolerances:\n")
    print(resolved(args.csv))
    print("\nCost per certified solve:\n")
    print(cost(args.csv))
    print("\nOwn margins and the uniform-reaction model conditional on them:\n")
    print(margin_summary(points))
    figure(points, args.figure)


if __name__ == "__main__":
    main()

"""Regenerate the figures of the documentation (docs/figures/*.png).

Usage::

    python docs/figures/make_figures.py            # all figures
    python docs/figures/make_figures.py rank cone  # some of them
    python docs/figures/make_figures.py --out /tmp/figs

Each figure is one small function that calls lamcap's public API only, so the
figures show what the package computes, in the one style of every lamcap figure
(``lamcap.experiments.figures._style``). The PNGs are small (about 30-120 kB) and
committed; the site build does not run this script (it stays static and fast).

* landing page: ``headline``, the capacity against p: the finite-size law, its
  asymptote 1/2 and the measured transitions of ``docs/measurements/capacity.csv``;
* theory pages: ``capacity``, ``cone``, ``crofton``, ``rank``, ``hebbian``,
  ``mechanism``, ``replica``, ``partial-recall``;
* getting started: ``transition`` (the Crofton transition curve at d = 12);
* measurements: ``measured-capacity`` and ``measured-hebbian`` plot the transitions
  of ``docs/measurements/capacity.csv`` (written from the committed databases by
  ``lamcap results transitions``, so a new row is plotted on the next run) against
  the finite-size laws; ``measured-hebbian`` also shows the Hebbian sweep refitted
  with the logistic link and the Monte Carlo crossings of
  ``docs/measurements/hebbian_mc_transition.csv``
  (``measurements/hebbian_mc.py``);
* reproduce how-to: ``reproduce-fig1`` ... ``reproduce-fig5``, the figures of
  ``lamcap figures`` for a small sweep run here (d = 8 and 12, 3 seeds per point,
  about two minutes on 2 cores);
* own weights: ``own-weights``, the spectrum and the scores of a max-margin W of
  ``lamcap.solve`` against the laws, as ``lamcap.empirical`` computes them.

Every figure is checked before it is written: a title, label, tick label, text or
legend that the PNG would cut stops the script (``style.check_fits``).
"""

from __future__ import annotations

import argparse
import csv
import functools
import math
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import matplotlib as mpl

mpl.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

import lamcap
from lamcap.experiments import Sweep, fit_transition, open_executor, run_sweep
from lamcap.experiments._analysis import cell_data, hebbian_transition, transition_table
from lamcap.experiments.figures import _finite_size as finite_size
from lamcap.experiments.figures import _rank_capacity as rank_capacity
from lamcap.experiments.figures import _scores as scores
from lamcap.experiments.figures import _spectrum as spectrum
from lamcap.experiments.figures import _storable_fraction as storable_fraction
from lamcap.experiments.figures import _style as style
from lamcap.experiments.figures import mechanism_samples

HERE = Path(__file__).resolve().parent
MEASUREMENTS = HERE.parent / "measurements" / "capacity.csv"
HEBBIAN_MONTE_CARLO = HERE.parent / "measurements" / "hebbian_mc_transition.csv"
HEBBIAN_DATABASE = HERE.parent / "measurements" / "data" / "hebbian.sqlite"
FIGSIZE = (style.COLUMN_WIDTH * 1.25, style.COLUMN_WIDTH * 0.8)
DPI = 150
_SETTINGS = {"quick": False}  # --quick: coarse grids, to test the script fast


def _points(count: int) -> int:
    """Grid size: ``count`` normally, a fifth of it (at least 5) with --quick."""
    return max(5, count // 5) if _SETTINGS["quick"] else count


def _new_figure(ncols: int = 1) -> tuple[Figure, list[plt.Axes]]:
    width = FIGSIZE[0] if ncols == 1 else style.PAGE_WIDTH
    fig, axes = plt.subplots(1, ncols, figsize=(width, FIGSIZE[1]), layout="constrained")
    return fig, list(np.atleast_1d(axes))


def capacity_figure() -> Figure:
    """Finite-size capacity log p / E[C_p] approaching 1/2."""
    p = np.unique(np.round(np.logspace(math.log10(2), 9, _points(60))).astype(np.int64))
    fig, (ax,) = _new_figure()
    ax.semilogx(p, lamcap.capacity(p=p), label=r"$\alpha_c(p) = \log p / \mathbb{E}[C_p]$")
    ax.axhline(lamcap.CAPACITY, color="k", ls="--", lw=1, label=r"$\alpha_c = 1/2$")
    ax.set(xlabel="number of outputs $p$", ylabel=r"capacity $\alpha_c$", ylim=(0.4, 1.45))
    ax.legend()
    return fig


def cone_figure() -> Figure:
    """Law of the active-set size |A| (intrinsic volumes of the polar cone)."""
    fig, (ax,) = _new_figure()
    for p in (10, 100, 1000, 10**4):
        law = lamcap.active_set_law(p, kmax=min(p - 1, 40))
        k = np.arange(law.size)
        mean = float(lamcap.statistical_dimension(p))
        ax.plot(k, law, marker="o", ms=3, label=rf"$p = {p}$, $\mathbb{{E}}|A| = {mean:.2f}$")
    ax.set(xlabel="active-set size $k$", ylabel=r"$P(|A| = k)$", xlim=(-0.5, 30))
    ax.legend()
    return fig


def crofton_figure() -> Figure:
    """Crofton law: probability that all p associations are storable, against the load."""
    fig, (ax,) = _new_figure()
    for d in (8, 16, 32):
        p_c = float(lamcap.critical_p(d))
        p = np.unique(np.linspace(0.6 * p_c, 1.5 * p_c, _points(160)).round().astype(np.int64))
        load = p * np.log(p) / d**2
        marker = "." if p.size < 40 else None  # few integers p: show where the law lives
        ax.plot(load, lamcap.feasibility_probability(d, p), marker=marker, label=f"$d = {d}$")
    ax.set(xlabel=r"load $\alpha = p \log p / d^2$", ylabel="P(all storable)")
    ax.legend()
    return fig


def partial_recall_figure() -> Figure:
    """Best recalled fraction and bits per weight against the load, beyond capacity."""
    fig, (left, right) = _new_figure(ncols=2)
    for d in (16, 64, 256):
        p_c = float(lamcap.critical_p(d))
        p = np.unique(np.geomspace(0.7 * p_c, 4.0 * p_c, _points(60)).round().astype(np.int64))
        load = p * np.log(p) / d**2
        left.plot(load, lamcap.best_accuracy(d, p), label=f"$d = {d}$")
        right.plot(load, lamcap.information_per_parameter(d, p), label=f"$d = {d}$")
    grid = np.linspace(0.3, 5.0, 200)
    left.plot(grid, np.minimum(1.0, 0.5 / grid), "k--", lw=1, label=r"$\min(1, 1/2\alpha)$")
    right.axhline(0.5 / math.log(2.0), color="k", ls="--", lw=1, label=r"$1/(2\log 2)$")
    left.set(xlabel=r"load $\alpha = p\log p/d^2$", ylabel="best recalled fraction $f$")
    right.set(xlabel=r"load $\alpha = p\log p/d^2$", ylabel="bits per weight", ylim=(0.0, None))
    left.legend()
    right.legend()
    return fig


def rank_figure() -> Figure:
    """Rank-constrained capacity alpha_c(kappa) with its two limits."""
    kappa = np.linspace(1e-3, 1.0, _points(400))
    fig, (ax,) = _new_figure()
    ax.plot(kappa, lamcap.capacity(kappa), label=r"$\alpha_c(\kappa)$")
    ax.plot(kappa, 2 * kappa, "k:", lw=1, label=r"$2\kappa$ ($\kappa \to 0$)")
    ax.axhline(0.5, color="k", ls="--", lw=1, label=r"$1/2$ (full rank)")
    ax.set(xlabel=r"rank ratio $\kappa = m/d$", ylabel=r"$\alpha_c(\kappa)$", ylim=(0, 0.6))
    ax.legend()
    return fig


def hebbian_figure() -> Figure:
    """Hebbian recall: fraction recalled and probability that all are recalled."""
    alpha = np.linspace(0.02, 0.8, _points(200))
    fig, (ax,) = _new_figure()
    for p, color in zip((10**2, 10**4, 10**6), style.PALETTE, strict=False):
        ax.plot(
            alpha,
            lamcap.hebbian_recall(p, alpha),
            color=color,
            label=f"$p = 10^{{{round(math.log10(p))}}}$",
        )
        ax.plot(alpha, lamcap.hebbian_recall(p, alpha, all_associations=True), color=color, ls="--")
    for threshold, text in ((lamcap.HEBBIAN_CAPACITY, "1/8: all"), (0.5, "1/2: fraction")):
        style.mark_asymptote(ax, threshold, text, vertical=True)
    ax.set(xlabel=r"load $\alpha$", ylabel="recall probability", ylim=(0, 1.02))
    ax.legend(title="solid: fraction, dashed: all")
    return fig


def mechanism_figure() -> Figure:
    """Singular-value densities (quarter circle and truncations) and scores at capacity."""
    fig, (left, right) = _new_figure(2)
    for kappa in (1.0, 0.5, 0.25):
        s = np.linspace(0.0, 3.0, _points(600))
        left.plot(s, lamcap.singular_value_density(s, kappa), label=rf"$\kappa = {kappa}$")
    left.set(xlabel="singular value $s$ ($\\|W\\|_F^2 = d$)", ylabel="density")
    left.legend()
    p = 1000
    law = lamcap.score_law(p)
    sample = lamcap.sample_scores(p, _points(20000), seed=0)
    x = np.linspace(1.5, 4.0, _points(60))  # top_remaining.pdf costs ~0.2 s per point
    right.hist(sample.target, bins=60, density=True, alpha=0.4, color=style.colour(0))
    right.hist(sample.competitor, bins=60, density=True, alpha=0.4, color=style.colour(1))
    right.plot(x, law.target.pdf(x), color=style.colour(0), label=r"target level $\ell^*$")
    right.plot(x, law.top_remaining.pdf(x), color=style.colour(1), label="largest free competitor")
    right.axvline(math.sqrt(2 * math.log(p)), color="k", ls=":", lw=1, label=r"$\sqrt{2\log p}$")
    right.set(xlabel=f"normalised score ($p = {p}$)", ylabel="density")
    right.legend()
    return fig


def replica_figure() -> Figure:
    """Saddle-point overlap q*(a) of the replica free entropy."""
    fig, (ax,) = _new_figure()
    for p in (2, 10, 100):
        density_c = 1.0 / float(lamcap.statistical_dimension(p))
        fraction = np.linspace(0.05, 0.97, _points(40))
        ax.plot(fraction, lamcap.solve_saddle_point(fraction * density_c, p), label=f"$p = {p}$")
    ax.set(xlabel=r"association density $a / a_c$", ylabel=r"overlap $q^*(a)$", ylim=(0, 1))
    ax.legend()
    return fig


def transition_figure() -> Figure:
    """The transition curve at d = 12: P(all p associations storable) against p."""
    d = 12
    p = np.arange(25, 56)
    p_c = float(lamcap.critical_p(d))
    fig, (ax,) = _new_figure()
    ax.plot(p, lamcap.feasibility_probability(d, p), color=style.colour(0), marker="o", ms=2.5)
    ax.axvline(p_c, color="k", lw=0.8, ls="--")
    ax.text(p_c, 0.98, f" critical_p(12) = {p_c:.1f}", va="top", fontsize=7)
    ax.axhline(0.5, color="0.6", lw=0.6, ls=":")
    ax.set(
        xlabel="number of associations $p$ ($d = 12$)",
        ylabel="P(all associations storable)",
        ylim=(-0.02, 1.02),
    )
    return fig


# ------------------------------------------------------------------ landing page


def headline_figure() -> Figure:
    """Capacity against p: finite-size law, asymptote 1/2 and the measured transitions."""
    p = np.unique(np.round(np.logspace(math.log10(8), 9, _points(80))).astype(np.int64))
    fig, (ax,) = _new_figure()
    ax.semilogx(
        p, lamcap.capacity(p=p), color="k", label=r"finite-size law $\log p/\mathbb{E}[C_p]$"
    )
    style.mark_asymptote(ax, lamcap.CAPACITY, r"$1/2$ ($d\to\infty$)")
    for index, name in enumerate(("decoupled", "original")):
        rows = measured_table("1", name, "auto")
        dims = sorted(rows)
        p_c = np.array([rows[d][0] for d in dims])
        loads = [tuple(float(_load(v, d)) for v in rows[d]) for d in dims]
        _errorbar(
            ax,
            p_c * (1 + 0.06 * index),  # side by side
            loads,
            color=style.colour(index),
            ms=3,
            label=f"measured, {name} (d = {dims[0]}–{dims[-1]})",
        )
    top = ax.secondary_xaxis("top")
    sizes = [8, 32, 128, 1024, 8192]
    top.set_xticks([float(lamcap.critical_p(d)) for d in sizes], labels=[str(d) for d in sizes])
    top.set_xticks([], minor=True)
    top.set_xlabel("dimension $d$ at which $p$ is critical")
    ax.set(
        xlabel="number of outputs $p$ ($n = p$ associations)",
        ylabel=r"capacity $\alpha = p\log p/d^2$",
        xlim=(8, 1e9),
        ylim=(0.4, 1.25),
    )
    ax.legend(loc="upper right")
    return fig


# ------------------------------------------------------------------ measurements


def measured_table(
    kappa: str, model: str, method: str, embeddings: str = "gaussian"
) -> dict[int, tuple[float, float, float]]:
    """``d -> (p_c, low, high)`` of one kind of cell in docs/measurements/capacity.csv.

    The CSV is written from the committed results databases by ``lamcap results
    transitions``, so the figures show exactly the backed measurements.
    """
    with MEASUREMENTS.open(encoding="utf-8") as handle:
        return {
            int(row["d"]): (float(row["p_c"]), float(row["p_c_low"]), float(row["p_c_high"]))
            for row in csv.DictReader(handle)
            if (row["kappa"], row["model"], row["method"]) == (kappa, model, method)
            and row.get("embeddings", "gaussian") == embeddings
        }


def _load(p: Any, d: Any) -> Any:
    p = np.asarray(p, dtype=float)
    return p * np.log(p) / np.asarray(d, dtype=float) ** 2


def _dimension_axis(ax: Any, ticks: list[int]) -> None:
    """Logarithmic d axis labelled at ``ticks`` with plain numbers."""
    ax.set_xscale("log")
    ax.set_xticks(ticks, labels=[str(t) for t in ticks])
    ax.set_xticks([], minor=True)
    ax.set_xlabel("dimension $d$")


def _errorbar(ax: Any, x: Any, rows: list[tuple[float, float, float]], **options: Any) -> Any:
    value, low, high = (np.array(column) for column in zip(*rows, strict=True))
    options.setdefault("fmt", "o")
    return ax.errorbar(x, value, yerr=[value - low, high - value], **options)


def measured_capacity_figure() -> Figure:
    """Measured p_c(d) (decoupled and original) against critical_p(d)."""
    decoupled = measured_table("1", "decoupled", "auto")
    original = measured_table("1", "original", "auto")
    fig, (left, right) = _new_figure(2)
    dims = np.unique(np.geomspace(8, 128, _points(40)).round().astype(int))
    left.plot(dims, _load(lamcap.critical_p(dims), dims), color="k", label="critical_p(d)")
    style.mark_asymptote(left, 0.5, r"$1/2$ ($d\to\infty$)")
    for index, (name, rows) in enumerate((("decoupled", decoupled), ("original", original))):
        measured = sorted(rows)
        shifted = np.array(measured, dtype=float) * (1 + 0.03 * index)  # bars side by side
        loads = [tuple(float(_load(v, d)) for v in rows[d]) for d in measured]
        _errorbar(left, shifted, loads, color=style.colour(index), label=f"measured, {name}")
        theory = [float(lamcap.critical_p(d)) for d in measured]
        gaps = [
            tuple(100 * (v / t - 1) for v in rows[d]) for d, t in zip(measured, theory, strict=True)
        ]
        _errorbar(right, shifted, gaps, color=style.colour(index), label=name)
    _dimension_axis(left, [8, 16, 32, 64, 128])
    left.set_ylabel(r"critical load $p_c\log p_c/d^2$")
    left.set_ylim(0.4, None)
    left.legend(loc="upper right")
    right.axhspan(-3, 3, color="0.92", zorder=0, label="within 3%")
    right.axhline(0, color="k", lw=0.8)
    _dimension_axis(right, sorted(set(decoupled) | set(original)))
    right.set_ylabel(r"measured $p_c$ / critical_p(d) $- 1$ (%)")
    right.legend(loc="lower right", title="95% intervals")
    return fig


def monte_carlo_hebbian() -> dict[int, tuple[float, float, float]]:
    """``d -> (p_c, low, high)``: the Monte Carlo 1/2 crossing of P(all), 95% interval.

    From docs/measurements/hebbian_mc_transition.csv, written by
    ``measurements/hebbian_mc.py``.
    """
    with HEBBIAN_MONTE_CARLO.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    z = 1.959963984540054
    return {
        int(row["d"]): (
            float(row["p_c"]),
            float(row["p_c"]) - z * float(row["p_c_se"]),
            float(row["p_c"]) + z * float(row["p_c_se"]),
        )
        for row in rows
    }


def logistic_hebbian() -> dict[int, tuple[float, float, float]]:
    """``d -> (p_c, low, high)`` of the committed Hebbian sweep with the logistic link."""
    fits = {}
    for cell, data in cell_data(HEBBIAN_DATABASE).items():
        fit = fit_transition(*data.counts(), link="logistic")
        fits[cell.d] = (fit.p_c, fit.low, fit.high)
    return fits


def measured_hebbian_figure() -> Figure:
    """Measured Hebbian perfect-recall transition against the finite-d pair law."""
    rows = measured_table("1", "decoupled", "hebbian")
    dims = [8, 12, 16, 24, 32, 48, 64, 96] if not _SETTINGS["quick"] else [8, 16, 32]
    fig, (left, right) = _new_figure(2)
    exact = [hebbian_transition(d, finite=True) for d in dims]
    limit = [hebbian_transition(d) for d in dims]
    left.plot(dims, exact, color="k", marker=".", label="pair law at d (hebbian_recall_finite)")
    left.plot(dims, limit, color="k", ls=":", label=r"$d\to\infty$ law (hebbian_recall)")
    measured = sorted(rows)
    _errorbar(
        left,
        measured,
        [rows[d] for d in measured],
        color=style.colour(0),
        label="measured, 95% interval",
    )
    _dimension_axis(left, [8, 16, 32, 64])
    left.set(yscale="log", ylabel="Hebbian transition $p$ (all recalled w.p. 1/2)")
    left.legend(loc="upper left")
    series = (
        (rows, "measured, law-shaped fit", "o", style.colour(0)),
        (logistic_hebbian(), "same data, logistic fit", "s", style.colour(1)),
        (monte_carlo_hebbian(), "Monte Carlo of P(all)", "D", "k"),
    )
    for index, (values, label, marker, colour) in enumerate(series):
        sizes = sorted(values)
        law = [hebbian_transition(d, finite=True) for d in sizes]
        gaps = [
            tuple(100 * (v / t - 1) for v in values[d]) for d, t in zip(sizes, law, strict=True)
        ]
        shifted = np.array(sizes, dtype=float) * (1 + 0.04 * (index - 1))  # side by side
        _errorbar(right, shifted, gaps, color=colour, fmt=marker, label=label)
    right.axhline(0, color="k", lw=0.8)
    _dimension_axis(right, measured)
    right.set_ylabel("$p_c$ / pair law $- 1$ (%)")
    right.legend(loc="lower right", title="95% intervals")
    return fig


# --------------------------------------------------------------- reproduce how-to


@functools.cache
def _reproduce_run() -> tuple[Path, list[Any]]:
    """A small sweep (d = 8, 12) and solution samples, as `lamcap reproduce --quick` makes."""
    quick = _SETTINGS["quick"]
    dims, seeds, rounds = ((8,), 2, 0) if quick else ((8, 12), 3, 1)
    database = Path(tempfile.mkdtemp()) / "results.sqlite"
    sweeps = [
        Sweep(dims=dims, models=("decoupled", "original"), seeds_per_point=seeds, rounds=rounds),
        Sweep(dims=dims, methods=("hebbian",), seeds_per_point=seeds, rounds=rounds),
        Sweep(dims=dims, kappas=(0.5,), seeds_per_point=seeds, rounds=rounds),
    ]
    with open_executor() as executor:
        for sweep in sweeps:
            run_sweep(sweep, database, executor=executor)
        samples = mechanism_samples(
            executor, d=dims[-1], kappas=(1.0, 0.5), seeds=2 if quick else 6
        )
    return database, samples


def _reproduce_figure(number: int) -> Callable[[], Figure]:
    def draw() -> Figure:
        database, samples = _reproduce_run()
        drawers: dict[int, Callable[[], Figure]] = {
            1: lambda: storable_fraction.draw(cell_data(database)),
            2: lambda: rank_capacity.draw(transition_table(database)),
            3: lambda: finite_size.draw(transition_table(database)),
            4: lambda: spectrum.draw(samples),
            5: lambda: scores.draw(samples[0]),
        }
        return drawers[number]()

    draw.__doc__ = f"Figure {number} of `lamcap figures` for a small sweep."
    return draw


# ------------------------------------------------------------------- own weights


def own_weights_figure() -> Figure:
    """Spectrum and scores of max-margin W's, overlaid as the own-weights how-to does."""
    d, seeds = (16, 2) if _SETTINGS["quick"] else (24, 6)
    p = math.floor(0.95 * float(lamcap.critical_p(d)))
    values, target, competitor, ratios = [], [], [], []
    for seed in range(seeds):
        instance = lamcap.make_instance(d, p, seed=seed)
        result = lamcap.solve(instance, objective="max_margin", tolerance=1e-4)
        if result.verdict != "feasible":
            continue
        spectrum_ = lamcap.empirical_spectrum(result.weights)
        values.append(spectrum_.singular_values)
        ratios.append(spectrum_.moment_ratio())
        summary = lamcap.normalized_scores(
            lamcap.scores(instance, result.weights), instance.targets
        )
        target.append(summary.target)
        competitor.append(summary.competitor)
    fig, (left, right) = _new_figure(2)
    pooled = np.concatenate(values)
    left.hist(
        pooled,
        bins=24,
        density=True,
        color=style.colour(0),
        alpha=0.45,
        label=f"{len(values)} max-margin W, d = {d}, p = {p}",
    )
    s = np.linspace(0.0, 2.4, 400)
    left.plot(s, lamcap.singular_value_density(s, 1.0), color="k", label="quarter circle")
    left.set(xlabel="singular value ($\\|W\\|_F^2 = d$)", ylabel="density")
    left.legend(loc="upper right", title=f"$E[s^4]/E[s^2]^2$ = {np.mean(ratios):.2f} (law 2)")
    law = lamcap.score_law(p)
    bins = np.linspace(0.5, 4.0, 36)
    right.hist(
        np.concatenate(target),
        bins=bins,
        density=True,
        alpha=0.45,
        color=style.colour(0),
        label=r"target level $\ell^*$",
    )
    right.hist(
        np.concatenate(competitor),
        bins=bins,
        density=True,
        alpha=0.45,
        color=style.colour(1),
        label="largest free competitor",
    )
    x = np.linspace(0.5, 4.0, _points(40))  # top_remaining.pdf costs ~0.2 s per point
    right.plot(x, law.target.pdf(x), color=style.colour(0))
    right.plot(x, law.top_remaining.pdf(x), color=style.colour(1))
    right.set(xlabel=f"normalised score (p = {p})", ylabel="density")
    right.legend(loc="upper right", title="histograms: W; lines: score_law(p)")
    return fig


FIGURES: dict[str, Callable[[], Figure]] = {
    "headline": headline_figure,
    "capacity": capacity_figure,
    "cone": cone_figure,
    "crofton": crofton_figure,
    "rank": rank_figure,
    "partial-recall": partial_recall_figure,
    "hebbian": hebbian_figure,
    "mechanism": mechanism_figure,
    "replica": replica_figure,
    "transition": transition_figure,
    "measured-capacity": measured_capacity_figure,
    "measured-hebbian": measured_hebbian_figure,
    "reproduce-fig1": _reproduce_figure(1),
    "reproduce-fig2": _reproduce_figure(2),
    "reproduce-fig3": _reproduce_figure(3),
    "reproduce-fig4": _reproduce_figure(4),
    "reproduce-fig5": _reproduce_figure(5),
    "own-weights": own_weights_figure,
}


def make_figures(names: list[str], out: Path) -> list[Path]:
    """Render the named figures into ``out`` and return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        with style.context():
            fig = FIGURES[name]()
            try:
                style.check_fits(fig)
            except ValueError as error:
                msg = f"figure {name!r}: {error}"
                raise ValueError(msg) from None
            path = out / f"{name}.png"
            fig.savefig(path, dpi=DPI, metadata={"Software": None})
        plt.close(fig)
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", help=f"figures to make (default all): {', '.join(FIGURES)}"
    )
    parser.add_argument("--out", type=Path, default=HERE, help="output folder")
    parser.add_argument("--quick", action="store_true", help="coarse grids (for tests)")
    args = parser.parse_args(argv)
    _SETTINGS["quick"] = args.quick
    unknown = sorted(set(args.names) - set(FIGURES))
    if unknown:
        parser.error(f"unknown figure(s) {unknown}; choose from {list(FIGURES)}")
    for path in make_figures(args.names or list(FIGURES), args.out):
        print(f"wrote {path} ({path.stat().st_size // 1024} kB)")


if __name__ == "__main__":
    main()

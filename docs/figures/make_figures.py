"""Regenerate the figures of the theory pages (docs/figures/*.png).

Usage::

    python docs/figures/make_figures.py            # all figures
    python docs/figures/make_figures.py rank cone  # some of them
    python docs/figures/make_figures.py --out /tmp/figs

Each figure is one small function that calls lamcap's public API only, so the
figures show what the package computes. The PNGs are small (about 30-60 kB) and
committed; the site build does not run this script (it stays static and fast).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

import matplotlib as mpl

mpl.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

import lamcap

HERE = Path(__file__).resolve().parent
FIGSIZE = (5.6, 3.4)
DPI = 100
_SETTINGS = {"quick": False}  # --quick: coarse grids, to test the script fast


def _points(count: int) -> int:
    """Grid size: ``count`` normally, a fifth of it (at least 5) with --quick."""
    return max(5, count // 5) if _SETTINGS["quick"] else count


def _new_figure(ncols: int = 1) -> tuple[Figure, list[plt.Axes]]:
    fig, axes = plt.subplots(1, ncols, figsize=(FIGSIZE[0] * (1 + 0.5 * (ncols - 1)), FIGSIZE[1]))
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
        p = np.unique(np.linspace(0.6 * p_c, 1.5 * p_c, _points(20)).round().astype(np.int64))
        load = p * np.log(p) / d**2
        ax.plot(load, lamcap.feasibility_probability(d, p), label=f"$d = {d}$")
    ax.set(xlabel=r"load $\alpha = p \log p / d^2$", ylabel="P(all storable)")
    ax.legend()
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
    for p, color in ((10**2, "C0"), (10**4, "C1"), (10**6, "C2")):
        ax.plot(
            alpha,
            lamcap.hebbian_recall(p, alpha),
            color=color,
            label=f"$p = 10^{{{round(math.log10(p))}}}$",
        )
        ax.plot(alpha, lamcap.hebbian_recall(p, alpha, all_associations=True), color=color, ls="--")
    for threshold in (lamcap.HEBBIAN_CAPACITY, 0.5):
        ax.axvline(threshold, color="k", lw=0.8, ls=":")
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
    x = np.linspace(1.5, 4.0, _points(60))  # competitor_pdf costs ~0.2 s per point
    right.hist(sample.target, bins=60, density=True, alpha=0.4, color="C0")
    right.hist(sample.competitor, bins=60, density=True, alpha=0.4, color="C1")
    right.plot(x, law.target_pdf(x), color="C0", label=r"target level $\ell^*$")
    right.plot(x, law.competitor_pdf(x), color="C1", label="largest free competitor")
    right.axvline(math.sqrt(2 * math.log(p)), color="k", ls=":", lw=1, label=r"$\sqrt{2\log p}$")
    right.set(xlabel=f"normalised score ($p = {p}$)", ylabel="density")
    right.legend(fontsize="small")
    fig.tight_layout()
    return fig


def replica_figure() -> Figure:
    """Saddle-point overlap q*(a) of the replica free entropy."""
    fig, (ax,) = _new_figure()
    for p in (2, 10, 100):
        load_c = 1.0 / float(lamcap.statistical_dimension(p))
        fraction = np.linspace(0.05, 0.97, _points(40))
        ax.plot(fraction, lamcap.solve_saddle_point(fraction * load_c, p), label=f"$p = {p}$")
    ax.set(xlabel=r"load $a / a_c$", ylabel=r"overlap $q^*(a)$", ylim=(0, 1))
    ax.legend()
    return fig


FIGURES: dict[str, Callable[[], Figure]] = {
    "capacity": capacity_figure,
    "cone": cone_figure,
    "crofton": crofton_figure,
    "rank": rank_figure,
    "hebbian": hebbian_figure,
    "mechanism": mechanism_figure,
    "replica": replica_figure,
}


def make_figures(names: list[str], out: Path) -> list[Path]:
    """Render the named figures into ``out`` and return the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        fig = FIGURES[name]()
        fig.tight_layout()
        path = out / f"{name}.png"
        fig.savefig(path, dpi=DPI)
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

"""The figures of arXiv:2605.10795 and our finite-size additions, one module per figure.

=======================  ==================================================
module                   figure
=======================  ==================================================
``storable_fraction``    1. fraction storable vs α: DP, OP, Hebbian, theory
``rank_capacity``        2. α_c(κ) with measured rank-constrained points
``finite_size``          3. measured α_c(d) vs d, finite-size prediction, 1/2
``spectrum``             4. singular values of solutions vs densities
``scores``               5. normalised scores at capacity, optimal vs Hebbian
=======================  ==================================================

Each module has ``draw(data, out=None) -> Figure`` (matplotlib ``Figure``
without pyplot, so headless) and writes ``<NAME>.png`` and ``<NAME>.pdf``
with fixed metadata.  All of them share one look, defined once in
:mod:`lamcap.experiments.figures._style` (journal widths, 8 pt text, the
Okabe–Ito colours, one colour per d for a measurement and its theory,
asymptotes as labelled grey dashed lines, PNG at 300 dpi and PDF with
embedded fonts).  :func:`draw_all` draws all five from a results database
(figures 1–3) and a small batch of fresh solutions (figures 4–5).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import ParamSpec, TypeVar

import numpy as np

from lamcap import critical_p
from lamcap._deprecation import renamed_keywords
from lamcap._progress import Progress
from lamcap.experiments._analysis import cell_data, transition_table
from lamcap.experiments._mechanism import SolutionSample, collect_solutions
from lamcap.experiments.figures import _finite_size as finite_size
from lamcap.experiments.figures import _rank_capacity as rank_capacity
from lamcap.experiments.figures import _scores as scores
from lamcap.experiments.figures import _spectrum as spectrum
from lamcap.experiments.figures import _storable_fraction as storable_fraction

__all__ = ["draw_all", "mechanism_samples", "save_samples"]

_P = ParamSpec("_P")
_T = TypeVar("_T")


class _CountingExecutor(Executor):
    """Forward to ``inner``; each submitted call adds one unit to ``progress``, done when it ends."""

    def __init__(self, inner: Executor, progress: Progress) -> None:
        self._inner = inner
        self._progress = progress

    def submit(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> Future[_T]:
        self._progress.grow(1)
        future = self._inner.submit(fn, *args, **kwargs)
        future.add_done_callback(lambda _: self._progress.advance())
        return future


def mechanism_samples(
    executor: Executor,
    *,
    d: int,
    kappas: tuple[float, ...],
    seeds: int,
    critical_fraction: float = 0.95,
) -> list[SolutionSample]:
    """Solutions at ``critical_fraction`` × critical_p(d, κ) for each κ (figures 4 and 5).

    Full rank: the max-margin W (``lamcap.solve(..., objective="max_margin")``),
    the matrix the spectrum and score predictions are about
    (docs/theory/mechanism.md); κ < 1: the rank-constrained trainer.
    """

    samples = []
    for kappa in kappas:
        p = max(2, math.floor(critical_fraction * float(critical_p(d, kappa=kappa))))
        solution = "max_margin" if kappa == 1.0 else "two_layer"
        samples.append(
            collect_solutions(executor, d, p, kappa=kappa, seeds=seeds, solution=solution)
        )
    return samples


@renamed_keywords(samples="solutions")
def save_samples(solutions: list[SolutionSample], path: Path) -> None:
    """Write the arrays of ``solutions`` (spectra and normalised scores) to one ``.npz`` file.

    Each array is stored as ``d{d}_kappa{kappa}_p{p}_{field}`` for the fields
    ``singular_values``, ``target``, ``competitors``, ``hebbian_target`` and
    ``hebbian_competitors`` of :class:`~lamcap.experiments.SolutionSample`; the
    parent folder of ``path`` is created if missing.
    """
    arrays = {}
    for sample in solutions:
        prefix = f"d{sample.d}_kappa{sample.kappa:g}_p{sample.p}"
        for name in (
            "singular_values",
            "target",
            "competitors",
            "hebbian_target",
            "hebbian_competitors",
        ):
            arrays[f"{prefix}_{name}"] = getattr(sample, name)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


@renamed_keywords(samples="solutions")
def draw_all(
    database: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    executor: Executor,
    quick: bool = False,
    progress: bool = False,
    mechanism_d: int | None = None,
    solutions: list[SolutionSample] | None = None,
) -> list[Path]:
    """Draw figures 1–5 into ``out``; return the written files (PNG and PDF).

    Figures 4–5 use the pooled ``solutions`` if given (``samples=`` is the
    deprecated name of this keyword), else fresh solutions at
    ``mechanism_d`` (default 12 with ``quick``, else 32) for κ = 1 and 0.5,
    saved to ``mechanism_samples.npz``.  With ``progress`` it reports each
    figure and each solved instance on stderr (:mod:`lamcap._progress`).
    """
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    first = "figure 1 (storable fraction)"
    with Progress("figures", total=5, unit="steps", note=first, enabled=progress) as bar:
        storable_fraction.draw(cell_data(database), directory)
        rows = transition_table(database)
        bar.advance(note="figure 2 (rank capacity)")
        rank_capacity.draw(rows, directory)
        bar.advance(note="figure 3 (finite size)")
        finite_size.draw(rows, directory)
        samples = solutions
        if samples is None:
            d = mechanism_d if mechanism_d is not None else (12 if quick else 32)
            seeds = 6 if quick else 16
            bar.advance(note=f"solving {seeds} instances per κ at d = {d} for figures 4-5")
            counted = _CountingExecutor(executor, bar) if progress else executor
            samples = mechanism_samples(counted, d=d, kappas=(1.0, 0.5), seeds=seeds)
            save_samples(samples, directory / "mechanism_samples.npz")
            bar.note("figure 4 (spectrum)")
        else:
            bar.advance(note="figure 4 (spectrum)")
        spectrum.draw(samples, directory)
        bar.advance(note="figure 5 (scores)")
        scores.draw(samples[0], directory)
        bar.advance(note="done")
    paths: list[Path] = []
    for module in (storable_fraction, rank_capacity, finite_size, spectrum, scores):
        paths += [directory / f"{module.NAME}.png", directory / f"{module.NAME}.pdf"]
    return paths

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
with fixed metadata.  :func:`draw_all` draws all five from a results database
(figures 1–3) and a small batch of fresh solutions (figures 4–5).
"""

from __future__ import annotations

import math
import os
import sys
from concurrent.futures import Executor
from pathlib import Path

import numpy as np

from lamcap.experiments.analysis import cell_data, transition_table
from lamcap.experiments.figures import (
    finite_size,
    rank_capacity,
    scores,
    spectrum,
    storable_fraction,
)
from lamcap.experiments.mechanism import SolutionSample, collect_solutions

__all__ = ["draw_all", "mechanism_samples", "save_samples"]


def mechanism_samples(
    executor: Executor, *, d: int, kappas: tuple[float, ...], seeds: int, load_factor: float = 0.95
) -> list[SolutionSample]:
    """Solutions at ``load_factor`` × critical_p(d, κ) for each κ (figures 4 and 5).

    Full rank: ``method="adam_ce"`` (cross-entropy training, whose direction
    tends to the max-margin W — the solution the spectrum prediction is about,
    docs/theory/mechanism.md); κ < 1: the rank-constrained trainer (``"auto"``).
    """
    from lamcap import critical_p  # noqa: PLC0415

    samples = []
    for kappa in kappas:
        p = max(2, math.floor(load_factor * float(critical_p(d, kappa=kappa))))
        method = "adam_ce" if kappa == 1.0 else "auto"
        samples.append(collect_solutions(executor, d, p, kappa=kappa, seeds=seeds, method=method))
    return samples


def save_samples(samples: list[SolutionSample], path: Path) -> None:
    arrays = {}
    for sample in samples:
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


def draw_all(
    database: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    executor: Executor,
    quick: bool = False,
    progress: bool = True,
    mechanism_d: int | None = None,
    samples: list[SolutionSample] | None = None,
) -> list[Path]:
    """Draw figures 1–5 into ``out``; return the written files (PNG and PDF).

    Figures 4–5 use ``samples`` if given, else fresh solutions at
    ``mechanism_d`` (default 12 with ``quick``, else 32) for κ = 1 and 0.5,
    saved to ``mechanism_samples.npz``.
    """
    directory = Path(out)
    directory.mkdir(parents=True, exist_ok=True)
    cells = cell_data(database)
    rows = transition_table(database)
    paths: list[Path] = []
    storable_fraction.draw(cells, directory)
    rank_capacity.draw(rows, directory)
    finite_size.draw(rows, directory)
    if samples is None:
        d = mechanism_d if mechanism_d is not None else (12 if quick else 32)
        seeds = 6 if quick else 16
        if progress:
            sys.stderr.write(f"solving {seeds} instances per κ at d = {d} for figures 4-5\n")
        samples = mechanism_samples(executor, d=d, kappas=(1.0, 0.5), seeds=seeds)
        save_samples(samples, directory / "mechanism_samples.npz")
    spectrum.draw(samples, directory)
    scores.draw(samples[0], directory)
    for module in (storable_fraction, rank_capacity, finite_size, spectrum, scores):
        paths += [directory / f"{module.NAME}.png", directory / f"{module.NAME}.pdf"]
    return paths

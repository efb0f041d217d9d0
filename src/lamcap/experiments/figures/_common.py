"""Shared figure helpers: headless figures, deterministic PNG + PDF output, theory guards."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import NDArray

__all__ = ["OPTIMAL_METHODS", "colour", "load_of", "new_figure", "save", "theory_or_none"]

OPTIMAL_METHODS = ("auto", "cutting_plane", "full_lp", "two_layer", "adam_ce")
"""Solver methods that look for *some* storing W (as opposed to the Hebbian rule)."""

_STYLE = {"font.size": 9}


def new_figure(columns: int = 1, *, height: float = 3.2) -> tuple[Figure, list[Any]]:
    """A figure with ``columns`` side-by-side axes, drawn without any display (Agg)."""
    figure = Figure(figsize=(3.6 * columns, height), layout="constrained")
    axes = [figure.add_subplot(1, columns, i + 1) for i in range(columns)]
    for axis in axes:
        axis.tick_params(labelsize=_STYLE["font.size"])
    return figure, axes


def save(figure: Figure, directory: Path, name: str) -> list[Path]:
    """Write ``name.png`` and ``name.pdf`` with fixed metadata (byte-reproducible)."""
    directory.mkdir(parents=True, exist_ok=True)
    png, pdf = directory / f"{name}.png", directory / f"{name}.pdf"
    figure.savefig(png, dpi=150, metadata={"Software": None})
    figure.savefig(
        pdf, metadata={"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None}
    )
    return [png, pdf]


def load_of(p: NDArray[Any] | float, d: int) -> NDArray[np.float64]:
    r"""Load :math:`\alpha = p\log p/d^2`."""
    values = np.asarray(p, dtype=np.float64)
    return np.asarray(values * np.log(values) / (d * d), dtype=np.float64)


def colour(index: int) -> str:
    """The ``index``-th colour of matplotlib's default cycle."""
    return f"C{index % 10}"


def theory_or_none(function: Callable[[], Any]) -> Any:
    """Evaluate a theory curve; None if that part of the theory layer is missing."""
    try:
        return function()
    except (ImportError, AttributeError, NotImplementedError):
        return None


def finite(value: float) -> bool:
    """True for a finite float."""
    return math.isfinite(value)

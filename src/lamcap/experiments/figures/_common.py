"""Shared figure helpers that are not style: methods, loads, theory guards.

The look of the figures (sizes, colours, output) lives in
:mod:`lamcap.experiments.figures._style`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

OPTIMAL_METHODS = ("auto", "cutting_plane", "full_lp", "two_layer", "adam_ce")
"""Solver methods that look for *some* storing W (as opposed to the Hebbian rule)."""


def load_of(p: NDArray[Any] | float, d: int) -> NDArray[np.float64]:
    r"""Load :math:`\alpha = p\log p/d^2`."""
    values = np.asarray(p, dtype=np.float64)
    return np.asarray(values * np.log(values) / (d * d), dtype=np.float64)


def integer_grid(low: float, high: float, points: int = 160) -> NDArray[np.int64]:
    """At most ``points`` integers spanning [low, high] (every integer when fewer), >= 2."""
    start, stop = max(2, math.floor(low)), max(3, math.ceil(high))
    count = min(points, stop - start + 1)
    return np.unique(np.linspace(start, stop, count).round().astype(np.int64))


def theory_or_none(function: Callable[[], Any]) -> Any:
    """Evaluate a theory curve; None if that part of the theory layer is missing."""
    try:
        return function()
    except (ImportError, AttributeError, NotImplementedError):
        return None


def finite(value: float) -> bool:
    """True for a finite float."""
    return math.isfinite(value)

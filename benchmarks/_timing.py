"""Timing shared by the benchmark scripts (imported from ``benchmarks/``, their own folder)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_seconds(function: Callable[[], object], repeat: int = 3) -> float:
    """Shortest wall time of ``repeat`` calls of ``function`` (``time.perf_counter``)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best

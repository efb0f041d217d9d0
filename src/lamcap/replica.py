"""Replica-symmetric free entropy and saddle point (public alias of :mod:`lamcap.theory.replica`).

Examples
--------
>>> from lamcap.replica import solve_saddle_point
>>> f"{float(solve_saddle_point(1.0, 2)):.4f}"
'0.5853'
"""

from __future__ import annotations

from lamcap.theory.replica import (
    critical_load,
    energetic_term,
    entropic_term,
    free_entropy,
    log_volume,
    solve_saddle_point,
)

__all__ = [
    "critical_load",
    "energetic_term",
    "entropic_term",
    "free_entropy",
    "log_volume",
    "solve_saddle_point",
]

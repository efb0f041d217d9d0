"""Replica-symmetric free entropy and saddle point (public alias of :mod:`lamcap.theory.replica`).

Examples
--------
>>> from lamcap.replica import solve_saddle_point
>>> f"{float(solve_saddle_point(1.0, 2)):.4f}"
'0.5853'
"""

from __future__ import annotations

from lamcap.theory import replica as _implementation
from lamcap.theory.replica import *

__all__ = list(_implementation.__all__)

r"""Grids in p, cubic Lagrange interpolation in :math:`\log p` and root searches in p.

Shared by the modules that interpolate a quantity known at integer p to a real p and
then solve for p: :mod:`lamcap.theory._capacity` (:math:`\mathbb{E}[C_p]` on a grid of
ratio 1.1, the root of :math:`p\,\mathbb{E}[C_p] = w^2`), :mod:`lamcap.theory._crofton`
and :mod:`lamcap.theory._partial_recall` (the law of :math:`|A|` on a grid of ratio
1.05, the root of the partial load).  A grid holds every integer up to 20, then the
integers rounded from :math:`20\cdot\text{ratio}^k`; the interpolation is cubic in
:math:`\log p` through the two nodes on each side of ``p``.

This module imports the standard library only: it sits below every theory module that
uses it, so that their imports point one way (issue 35).
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: Every integer p up to this one is a grid node; beyond, integers rounded from
#: ``20 * ratio**k``.
DENSE_GRID_END = 20


def grid_node(j: int, ratio: float) -> int:
    """j-th node of an interpolation grid in p (strictly increasing, node 0 is p = 2).

    Every integer up to 20, then integers rounded from ``20 * ratio**k`` (``ratio >= 1.05``).

    Examples
    --------
    >>> [grid_node(j, 1.1) for j in (0, 18, 19, 20)]
    [2, 20, 22, 24]
    """
    dense = DENSE_GRID_END - 1
    if j < dense:
        return j + 2
    return round(DENSE_GRID_END * ratio ** (j - dense + 1))


def bracket_index(p: float, ratio: float) -> int:
    """Largest j with grid node j <= p.

    Examples
    --------
    >>> bracket_index(2.5, 1.1), bracket_index(23.0, 1.1)
    (0, 19)
    """
    if p < DENSE_GRID_END:
        return math.floor(p) - 2
    j = DENSE_GRID_END - 1 + math.floor(math.log(p / DENSE_GRID_END) / math.log(ratio))
    while grid_node(j + 1, ratio) <= p:
        j += 1
    while grid_node(j, ratio) > p:
        j -= 1
    return j


def interpolation_stencil(p: float, ratio: float) -> tuple[list[int], list[float]]:
    """Grid nodes and cubic Lagrange weights (in the variable log p) for a real p >= 2.

    The four nodes are the two grid nodes on each side of ``p`` (the first four
    when ``p < 3``); the weights sum to one and reduce to the identity at a node.

    Examples
    --------
    >>> nodes, weights = interpolation_stencil(5.0, 1.1)
    >>> nodes, round(sum(weights), 12), round(weights[1], 12)  # p = 5 is the second node
    ([4, 5, 6, 7], 1.0, 1.0)
    """
    nodes = _stencil_nodes(bracket_index(p, ratio), ratio)
    return nodes, _lagrange_weights(math.log(p), [math.log(q) for q in nodes])


def _stencil_nodes(bracket: int, ratio: float) -> list[int]:
    """The four grid nodes of the interpolation stencil for p in [node(bracket), node(bracket+1))."""
    first = max(0, bracket - 1)
    return [grid_node(i, ratio) for i in range(first, first + 4)]


def _lagrange_weights(u: float, knots: list[float]) -> list[float]:
    weights = []
    for i, knot in enumerate(knots):
        weight = 1.0
        for k, other in enumerate(knots):
            if k != i:
                weight *= (u - other) / (knot - other)
        weights.append(weight)
    return weights


def bisect_increasing(function: Callable[[float], float], low: float, high: float) -> float:
    """Root of an increasing function on ``[low, high]`` by bisection, to machine precision.

    Examples
    --------
    >>> round(bisect_increasing(lambda x: x * x - 2.0, 1.0, 2.0), 15)
    1.414213562373095
    """
    while True:
        middle = 0.5 * (low + high)
        if not low < middle < high:
            return middle
        if function(middle) < 0.0:
            low = middle
        else:
            high = middle


def integer_bracket(excess: Callable[[float], float], start: int) -> tuple[int, int] | None:
    """Consecutive integers ``low < high`` with ``excess(low) < 0 <= excess(high)``.

    ``excess`` increases in p.  The search starts at ``start`` (at least 2), walks down
    by halving while ``excess`` is not negative there, then up by doubling, then bisects
    on the integers; None when ``excess(2) >= 0`` (the root lies at or below 2).

    Examples
    --------
    >>> integer_bracket(lambda q: q - 40.5, 10), integer_bracket(lambda q: q, 10)
    ((40, 41), None)
    """
    low = max(2, start)
    if excess(low) >= 0.0:  # not expected from a start below the root; walk down
        while low > 2 and excess(low) >= 0.0:
            low = max(2, low // 2)
        if excess(low) >= 0.0:
            return None
    high = max(low + 1, math.ceil(1.1 * low))
    while excess(high) < 0.0:
        low, high = high, 2 * high
    while high - low > 1:
        split = (low + high) // 2
        if excess(split) < 0.0:
            low = split
        else:
            high = split
    return low, high

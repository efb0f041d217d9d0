r"""Grids in p, the one interpolator in :math:`\log p` and the one root search in p.

Every quantity lamcap knows at integer p and needs at a real p goes through
:func:`interpolation_stencil` (or :func:`interpolate_in_log_p` for a scalar): the mean
Gaussian cost :math:`\mathbb{E}[C_p]` on a grid of ratio 1.1, the law of :math:`|A|` on
a grid of ratio 1.05 (:mod:`lamcap.theory._cost_law`) and the unit-norm cost
:math:`C_p(d)` on every integer (:data:`EVERY_INTEGER`).  A grid holds every integer up
to 20, then the integers rounded from :math:`20\cdot\text{ratio}^k`; the interpolation
is cubic in :math:`\log p` through the two nodes on each side of ``p``.

Every critical p (full or partial recall, any embeddings) is the root of an increasing
load in p, found by :func:`increasing_root`: an integer bracket, then bisection in real
p to the last bit (:mod:`lamcap.theory._cost_models`).

This module imports the standard library only: it sits below every theory module that
uses it, so that their imports point one way (docs/architecture.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable

#: Every integer p up to this one is a grid node; beyond, integers rounded from
#: ``20 * ratio**k``.
DENSE_GRID_END = 20
#: The ratio that names the grid of every integer p >= 2.
EVERY_INTEGER = 1.0


def grid_node(j: int, ratio: float) -> int:
    """j-th node of an interpolation grid in p (strictly increasing, node 0 is p = 2).

    Every integer up to 20, then integers rounded from ``20 * ratio**k`` (``ratio >= 1.05``),
    or every integer (``ratio`` :data:`EVERY_INTEGER`).

    Examples
    --------
    >>> [grid_node(j, 1.1) for j in (0, 18, 19, 20)], grid_node(40, EVERY_INTEGER)
    ([2, 20, 22, 24], 42)
    """
    dense = DENSE_GRID_END - 1
    if j < dense or ratio == EVERY_INTEGER:
        return j + 2
    return round(DENSE_GRID_END * ratio ** (j - dense + 1))


def bracket_index(p: float, ratio: float) -> int:
    """Largest j with grid node j <= p.

    Examples
    --------
    >>> bracket_index(2.5, 1.1), bracket_index(23.0, 1.1), bracket_index(23.5, EVERY_INTEGER)
    (0, 19, 21)
    """
    if p < DENSE_GRID_END or ratio == EVERY_INTEGER:
        return math.floor(p) - 2
    j = DENSE_GRID_END - 1 + math.floor(math.log(p / DENSE_GRID_END) / math.log(ratio))
    while grid_node(j + 1, ratio) <= p:
        j += 1
    while grid_node(j, ratio) > p:
        j -= 1
    return j


def interpolation_stencil(p: float, ratio: float) -> tuple[list[int], list[float]]:
    """Grid nodes and cubic Lagrange coefficients (in the variable log p) for a real p >= 2.

    The four nodes are the two grid nodes on each side of ``p`` (the first four
    when ``p < 3``); the coefficients sum to one and reduce to the identity at a node.

    Examples
    --------
    >>> nodes, weights = interpolation_stencil(5.0, 1.1)
    >>> nodes, round(sum(weights), 12), round(weights[1], 12)  # p = 5 is the second node
    ([4, 5, 6, 7], 1.0, 1.0)
    """
    nodes = _stencil_nodes(bracket_index(p, ratio), ratio)
    return nodes, _lagrange_weights(math.log(p), [math.log(q) for q in nodes])


def interpolate_in_log_p(value_at: Callable[[int], float], p: float, ratio: float) -> float:
    """A quantity known at the integer grid nodes, at a real ``p >= 2``: cubic in log p.

    ``value_at(q)`` is called at the four nodes of :func:`interpolation_stencil`; at a
    node ``p`` itself only there, and its value is returned unchanged.

    Examples
    --------
    >>> round(interpolate_in_log_p(math.log, 30.0, 1.1), 12) == round(math.log(30.0), 12)
    True
    """
    if float(p).is_integer() and bracket_index(p, ratio) >= 0:
        node = int(p)
        if grid_node(bracket_index(p, ratio), ratio) == node:
            return value_at(node)
    nodes, weights = interpolation_stencil(p, ratio)
    return sum(w * value_at(q) for q, w in zip(nodes, weights, strict=True))


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


def integer_bracket(
    excess: Callable[[float], float], start: int, limit: float = math.inf
) -> tuple[int, int] | None:
    """Consecutive integers ``low < high`` with ``excess(low) < 0 <= excess(high)``.

    ``excess`` increases in p.  The search starts at ``start`` (at least 2), walks down
    by halving while ``excess`` is not negative there, then up by doubling (never past
    ``limit``, where the caller has checked that ``excess`` is not negative), then
    bisects on the integers; None when ``excess(2) >= 0`` (the root lies at or below 2).

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
    high = _capped(max(low + 1, math.ceil(1.1 * low)), limit)
    while excess(high) < 0.0:
        low, high = high, _capped(2 * high, limit)
    return _narrowed(excess, low, high, excess(low), excess(high))


def _narrowed(
    excess: Callable[[float], float], low: int, high: int, below: float, above: float
) -> tuple[int, int]:
    """Consecutive integers around the sign change of ``excess`` in ``[low, high]``.

    Safeguarded false position on the integers: the next point is where the chord
    through the two ends crosses zero, rounded into the open interval, unless the same
    end moved twice in a row, when it is the midpoint (so never more than about twice
    the steps of bisection; a smooth ``excess`` needs a handful, which matters where one
    value costs a quadrature, as the unit-norm cost does).  The result is the same
    pair as bisection finds for any ``excess`` that increases.
    """
    last_side = 0
    repeated = False
    while high - low > 1:
        if repeated or not below < 0.0 <= above:
            split = (low + high) // 2
        else:
            chord = low + (high - low) * (-below / (above - below))
            split = min(max(round(chord), low + 1), high - 1)
        value = excess(split)
        side = -1 if value < 0.0 else 1
        repeated = side == last_side and not repeated
        last_side = side
        if value < 0.0:
            low, below = split, value
        else:
            high, above = split, value
    return low, high


def _capped(value: int, limit: float) -> int:
    """``value``, or the largest integer not above ``limit`` when that is smaller."""
    return value if value <= limit else math.floor(limit)


def increasing_root(
    excess: Callable[[float], float], start: float, limit: float = math.inf
) -> float:
    """Real root ``p >= 2`` of an increasing ``excess``: 2.0 when ``excess(2) >= 0``.

    :func:`integer_bracket` from ``floor(start)`` (below ``limit``, where ``excess``
    must not be negative), then :func:`bisect_increasing` between the two integers.

    Examples
    --------
    >>> increasing_root(lambda q: q * q - 2000.0, 10.0) == math.sqrt(2000.0)
    True
    """
    bracket = integer_bracket(excess, math.floor(start), limit)
    if bracket is None:
        return 2.0
    return bisect_increasing(excess, float(bracket[0]), float(bracket[1]))

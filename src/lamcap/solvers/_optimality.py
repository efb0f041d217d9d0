r"""The max-margin weights and their optimality certificate (a duality gap).

For a feasible instance, the **max-margin** (minimum-norm) weights are

.. math::

    W^* = \operatorname*{arg\,min}_W \tfrac12 \|W\|_F^2
    \quad\text{s.t.}\quad \langle W, A_i\rangle = (u_t - u_\rho)^\top W e_\mu
    \ \ge\ c \quad \forall i = (\mu, \rho),\ \rho \ne t(\mu),

with :math:`A_i = (u_t - u_\rho) e_\mu^\top` the raw constraint matrices of
all :math:`n(p-1)` constraints and :math:`c` the requested ``raw_margin``
(arXiv:2605.10795; docs/theory/mechanism.md: the theory's spectra and score
laws describe this matrix, not an arbitrary feasible one).  Its smallest raw
margin is exactly :math:`c`, and its smallest raw margin per unit norm,
:math:`c / \|W^*\|_F`, is the largest any :math:`W` reaches (symbols:
docs/vocabulary.md; :math:`c` is not the theory's margin :math:`m`).

Certificate
-----------
Both bounds are recomputed here from the instance alone (plain numpy, no
solver code), so a result can be re-checked without trusting the solver:

* **dual (lower) bound** — any :math:`y \ge 0` on any set of constraints gives
  the Lagrange dual value

  .. math::

      D(y) = c \sum_i y_i - \tfrac12 \Big\|\sum_i y_i A_i\Big\|_F^2
      \ \le\ \tfrac12 \|W^*\|_F^2 ;

* **primal (upper) bound** — any :math:`W` whose smallest raw margin over all
  :math:`n(p-1)` constraints is :math:`c_W > 0` becomes feasible after scaling by
  :math:`c / c_W`, so :math:`P(W) = \tfrac12 (c \|W\|_F / c_W)^2 \ge \tfrac12\|W^*\|_F^2`.

The **relative gap** :math:`g = (P - D)/P` therefore bounds everything a user
may want to know about :math:`W` (scaled to smallest raw margin :math:`c`):
:math:`(1 - g)\|W\|_F^2 \le \|W^*\|_F^2 \le \|W\|_F^2`, and by strong
convexity of :math:`\tfrac12\|W\|^2`,
:math:`\|W - W^*\|_F^2 \le 2(P - D)`, i.e.
:math:`\|W - W^*\|_F / \|W\|_F \le \sqrt g`.

Precision: :math:`D` and :math:`P` are float64 sums and dot products; the
raw margins are accurate to :math:`2(d+2)\,2^{-53}(\|u_t\| + \|u_\rho\|)
\|W\|_F\|e_\mu\|` (:mod:`lamcap.solvers._certificates`), so :math:`c_W` has
relative error at most :math:`2\sqrt2(d+2)\,2^{-53}/\gamma`, with
:math:`\gamma` the smallest *normalised* margin of :math:`W` (about
:math:`10^{-11}` at d = 128 near capacity, :math:`\gamma \approx 5\cdot10^{-3}`);
:math:`P` has twice that, and :math:`g` is accurate to about that absolute.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lamcap._validation import check_real
from lamcap.problems import Instance, check_instance
from lamcap.solvers._certificates import (
    checked_constraint_arrays,
    weighted_constraint_sum,
    weights_matrix,
)
from lamcap.solvers._constraints import raw_min_margin


@dataclass(frozen=True, eq=False)
class MarginDual:
    r"""Multipliers :math:`y \ge 0` on some constraints, proving :math:`\tfrac12\|W^*\|_F^2 \ge D(y)`.

    Attributes
    ----------
    associations : ndarray of int64, shape (k,)
        :math:`\mu` of each constraint.
    competitors : ndarray of int64, shape (k,)
        :math:`\rho` of each constraint (never the target of :math:`\mu`).
    y : ndarray of float64, shape (k,)
        Non-negative multipliers, in the units of raw constraints with
        right-hand side ``raw_margin``.
    raw_margin : float
        The right-hand side :math:`c > 0` the bound refers to.

    Examples
    --------
    >>> dual = MarginDual(np.array([0]), np.array([1]), np.array([0.5]), 1.0)
    >>> float(dual.y.sum())
    0.5
    """

    associations: NDArray[np.int64]
    competitors: NDArray[np.int64]
    y: NDArray[np.float64]
    raw_margin: float


@dataclass(frozen=True)
class OptimalityGap:
    r"""Recomputed bounds on :math:`\tfrac12\|W^*\|_F^2` and the relative gap between them.

    Attributes
    ----------
    primal : float
        :math:`P = \tfrac12 (c\|W\|_F / c_W)^2` (``inf`` when :math:`c_W \le 0`).
    dual : float
        :math:`D(y)` (module docstring).
    relative_gap : float
        :math:`(P - D)/P`, clipped at 0 from below (rounding can make
        :math:`D` exceed :math:`P` by about :math:`10^{-12}` relative when both
        are optimal); ``inf`` when :math:`P` is.
    raw_min_margin : float
        :math:`c_W`, the smallest raw margin of ``W`` over all :math:`n(p-1)` constraints.
    primal_norm : float
        :math:`\|W\|_F` of the weights as given (before any scaling).
    """

    primal: float
    dual: float
    relative_gap: float
    raw_min_margin: float
    primal_norm: float


def _check_dual(instance: Instance, dual: MarginDual) -> tuple[NDArray[np.int64], ...]:
    associations, competitors, _ = checked_constraint_arrays(
        instance, dual.associations, dual.competitors, dual.y, owner="dual", name="y"
    )
    return associations, competitors


def dual_value(instance: Instance, dual: MarginDual) -> float:
    r"""Recompute the Lagrange dual value :math:`D(y) = c\sum_i y_i - \tfrac12\|\sum_i y_i A_i\|_F^2`.

    .. math::

        \sum_i y_i A_i = \sum_\mu v_\mu e_\mu^\top, \qquad
        v_\mu = \sum_{\rho} y_{\mu\rho} (u_t - u_\rho),

    a lower bound on :math:`\tfrac12\|W^*\|_F^2` for every :math:`y \ge 0`
    (weak duality; module docstring).  Only the outputs of the associations
    named are generated; cost :math:`O(kd + n_S p d + n_S d^2)`.  Raises
    ``ValueError`` for malformed duals (indices out of range, negative or
    non-finite weights).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 3, n=2, seed=0)
    >>> dual_value(instance, MarginDual(np.array([0]), np.array([1]), np.array([0.0]), 1.0))
    0.0
    """
    instance = check_instance(instance)
    raw_margin = check_real("raw_margin", dual.raw_margin, minimum=0.0, closed="()")
    associations, competitors = _check_dual(instance, dual)
    y = np.asarray(dual.y, dtype=np.float64)
    if y.size == 0:
        return 0.0
    combination, _, _ = weighted_constraint_sum(instance, associations, competitors, y)
    return raw_margin * float(y.sum()) - 0.5 * float(np.sum(combination * combination))


def primal_value(instance: Instance, W: object, raw_margin: float) -> tuple[float, float]:
    r"""Upper bound :math:`P = \tfrac12 (c\|W\|_F/c_W)^2` on :math:`\tfrac12\|W^*\|_F^2` and :math:`c_W`.

    :math:`c` is ``raw_margin`` and :math:`c_W` the smallest raw margin of ``W`` over all :math:`n(p-1)`
    constraints (one full score pass,
    :func:`lamcap.solvers._constraints.raw_min_margin`); :math:`P = \infty` when
    :math:`c_W \le 0` (``W`` does not recall every association).

    Examples
    --------
    >>> from lamcap.problems import make_instance
    >>> instance = make_instance(4, 3, n=2, seed=0)
    >>> primal_value(instance, np.zeros((4, 4)), 1.0)
    (inf, 0.0)
    """
    instance = check_instance(instance)
    weights = weights_matrix(W, instance.d)
    level = check_real("raw_margin", raw_margin, minimum=0.0, closed="()")
    lowest = raw_min_margin(instance, weights)
    if not lowest > 0:
        return math.inf, lowest
    return 0.5 * (level * float(np.linalg.norm(weights)) / lowest) ** 2, lowest


def optimality_gap(instance: Instance, W: object, dual: MarginDual) -> OptimalityGap:
    r"""Recompute the certified relative gap :math:`(P - D)/P` of ``W`` against ``dual``.

    :math:`P` from :func:`primal_value` (a full pass over all constraints),
    :math:`D` from :func:`dual_value`, both at the dual's ``raw_margin``.  A gap
    :math:`g` proves :math:`\|W^*\|_F^2 \ge (1-g)\,\|W_c\|_F^2` and
    :math:`\|W_c - W^*\|_F \le \sqrt g\,\|W_c\|_F` for :math:`W_c = cW/c_W`
    (module docstring).

    Examples
    --------
    >>> import lamcap
    >>> instance = lamcap.make_instance(8, 6, n=4, seed=0)
    >>> result = lamcap.solve(instance, objective="max_margin")
    >>> gap = optimality_gap(instance, result.weights, result.details["dual"])
    >>> gap.relative_gap <= 1e-4, round(gap.raw_min_margin, 9)
    (True, 1.0)
    """
    instance = check_instance(instance)
    weights = weights_matrix(W, instance.d)
    primal, lowest = primal_value(instance, weights, dual.raw_margin)
    lower = dual_value(instance, dual)
    gap = math.inf if math.isinf(primal) else max(0.0, (primal - lower) / primal)
    return OptimalityGap(primal, lower, gap, lowest, float(np.linalg.norm(weights)))

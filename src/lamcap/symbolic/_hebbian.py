r"""Hebbian recall thresholds as large-deviation limits (sympy).

See docs/theory/hebbian.md and arXiv:2605.10795.  Normalised scores under the Hebbian rule: target
:math:`\sim N(\mu, 1)` with :math:`\mu = \sqrt{L/\alpha}`, :math:`L = \log p`, and
:math:`p - 1` competitors :math:`\sim N(0, 1)`.  On the scale :math:`\sqrt L`
(:math:`\mu = m\sqrt L`, a level :math:`t\sqrt L`), the probability that a competitor
beats the target is :math:`p^{-I(\alpha)}` with the rate

.. math::

    I = \min_t \Big[\frac{(m - t)^2}{2} + \Big(\frac{t^2}{2} - 1\Big)_+\Big]
      = \begin{cases}
          (m - \sqrt2)^2/2, & \sqrt2 \le m \le 2\sqrt2,\\
          m^2/4 - 1, & m \ge 2\sqrt2,
        \end{cases}

(the first branch: the target drops to the typical maximum :math:`\sqrt{2L}`; the
second: the target drops to :math:`\mu/2` and one competitor rises to meet it).
The error fraction vanishes iff :math:`I > 0`, i.e. :math:`\alpha < 1/2`; all
:math:`p` associations are recalled iff :math:`I > 1` (union bound, tight for
these nearly independent events), i.e. :math:`\alpha < 1/8`.

The decay exponent often quoted, :math:`(1 - \sqrt{2\alpha})^2/(2\alpha)`, is
the first branch and holds for :math:`1/8 \le \alpha < 1/2` only; below 1/8 the
exponent is :math:`1/(4\alpha) - 1` (the two agree at :math:`\alpha = 1/8`).

Examples
--------
>>> thresholds()
(1/8, 1/2)
"""

from __future__ import annotations

import sympy as sp

ALPHA = sp.Symbol("alpha", positive=True)
_M, _T = sp.symbols("m t", positive=True)


def _branch_minima() -> tuple[sp.Expr, sp.Expr]:
    """Minima of the rate over t on t <= sqrt 2 (at t = sqrt 2) and t >= sqrt 2 (at t = m/2)."""
    lower = ((_M - _T) ** 2 / 2).subs(_T, sp.sqrt(2))
    upper_rate = (_M - _T) ** 2 / 2 + _T**2 / 2 - 1
    (stationary,) = sp.solve(sp.diff(upper_rate, _T), _T)
    return sp.expand(lower), sp.expand(upper_rate.subs(_T, stationary))


def error_exponent() -> sp.Piecewise:
    r"""Rate :math:`I(\alpha)`: a competitor beats the target with probability :math:`p^{-I}`.

    Examples
    --------
    >>> exponent = error_exponent()
    >>> sp.simplify(exponent.args[1][0] - (1 - sp.sqrt(2 * ALPHA)) ** 2 / (2 * ALPHA))
    0
    >>> exponent.args[0][0]
    -1 + 1/(4*alpha)
    """
    lower, upper = _branch_minima()
    m_of_alpha = 1 / sp.sqrt(ALPHA)
    return sp.Piecewise(
        (sp.expand(upper.subs(_M, m_of_alpha)), sp.Rational(1, 8) >= ALPHA),
        (sp.factor(lower.subs(_M, m_of_alpha)), sp.Rational(1, 2) > ALPHA),
        (sp.Integer(0), True),
    )


def thresholds() -> tuple[sp.Expr, sp.Expr]:
    r"""(:math:`\alpha` below which all are recalled, :math:`\alpha` below which the error fraction vanishes).

    Solves :math:`I(\alpha) = 1` on the second branch (equivalently the first) and
    :math:`I(\alpha) = 0` on the first branch, :math:`\mu = \sqrt{L/\alpha} > \sqrt{2L}`.
    """
    lower, upper = _branch_minima()
    m_all = [s for s in sp.solve(sp.Eq(upper, 1), _M) if s.is_positive]
    m_fraction = sp.sqrt(2)  # lower branch vanishes at m = sqrt(2)
    assert sp.simplify(lower.subs(_M, m_fraction)) == 0
    alpha_all = sp.nsimplify(1 / m_all[0] ** 2)
    alpha_fraction = sp.nsimplify(1 / m_fraction**2)
    return alpha_all, alpha_fraction

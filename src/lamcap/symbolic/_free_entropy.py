r"""Replica-symmetric free entropy of the full-rank decoupled model (sympy).

docs/theory/replica.md, arXiv:2605.10795, Gardner 1988.  With :math:`\delta = 1 - q`,

.. math::

    \Phi(q; a) = \tfrac12\Big[\log\delta + \frac{q}{\delta}\Big] + a\,G(q),
    \qquad G'(q) = -\frac{D(q)}{2\delta^2},

(:math:`D(q) = \mathbb{E}\|\langle\lambda\rangle - \sqrt q z\|^2`, by Stein's lemma and
the heat equation for the Gaussian smoothing of the indicator of :math:`K`), so
the saddle point is :math:`a = q/D(q)`.  Near :math:`q = 1`,
:math:`D(q) = \mathbb{E}[C_p] + O(\delta)` and
:math:`G(q) = -\mathbb{E}[C_p]/(2\delta) + O(\log\delta)`; the :math:`1/\delta`
part of :math:`\Phi` is :math:`(1 - a\,\mathbb{E}[C_p])/(2\delta)`, which changes
sign at :math:`a_c = 1/\mathbb{E}[C_p]`.  The numeric evaluation lives in
:mod:`lamcap.theory._replica`; tests check it against these expressions.

Examples
--------
>>> sp.simplify(saddle_point_density() - Q / D)
0
"""

from __future__ import annotations

import sympy as sp

#: Overlap q, association density a = n/d^2, mean displacement D(q), statistical dimension E[C_p].
Q, DENSITY, D, DIMENSION = sp.symbols("q a D C", positive=True)
#: Gardner's stability kappa_G = m/sqrt(2) (p = 2; not the rank ratio kappa) and the variable u.
STABILITY, U = sp.symbols("kappa_G u", real=True)
_DELTA = sp.Symbol("delta", positive=True)


def entropic_term() -> sp.Expr:
    r""":math:`\tfrac12[\log(1 - q) + q/(1 - q)]`.

    Examples
    --------
    >>> sp.series(entropic_term(), Q, 0, 3)
    q**2/4 + O(q**3)
    """
    return sp.log(1 - Q) / 2 + Q / (2 * (1 - Q))


def saddle_point_density() -> sp.Expr:
    r"""Solve :math:`\partial_q\Phi = 0` with :math:`G'(q) = -D/(2(1-q)^2)` for the association density :math:`a`."""
    derivative = sp.diff(entropic_term(), Q) + DENSITY * (-D / (2 * (1 - Q) ** 2))
    (solution,) = sp.solve(sp.Eq(derivative, 0), DENSITY)
    return sp.simplify(solution)


def free_entropy_near_one() -> sp.Expr:
    r"""Singular part of :math:`\Phi` as :math:`\delta = 1 - q \to 0` (with :math:`G \approx -C/(2\delta)`).

    Examples
    --------
    >>> sp.factor(free_entropy_near_one())
    -(C*a - 1)/(2*delta)
    """
    phi = entropic_term().subs(Q, 1 - _DELTA) + DENSITY * (-DIMENSION / (2 * _DELTA))
    return sp.expand(sp.limit(phi * _DELTA, _DELTA, 0) / _DELTA)


def critical_density_from_singular_part() -> sp.Expr:
    r"""The association density at which the :math:`1/(1-q)` part of :math:`\Phi` vanishes: :math:`1/\mathbb{E}[C_p]`.

    Examples
    --------
    >>> critical_density_from_singular_part()
    1/C
    """
    (solution,) = sp.solve(sp.Eq(free_entropy_near_one() * _DELTA, 0), DENSITY)
    return solution


def gardner_energetic_integrand() -> sp.Expr:
    r"""p = 2 energetic integrand :math:`\log H((\kappa_G - \sqrt q u)/\sqrt{1-q})` (against Du), :math:`\kappa_G = m/\sqrt2`."""
    argument = (STABILITY - sp.sqrt(Q) * U) / sp.sqrt(1 - Q)
    return sp.log(sp.erfc(argument / sp.sqrt(2)) / 2)


def gardner_second_moment() -> sp.Expr:
    r""":math:`\int_{-\kappa_G}^\infty Dz\,(z + \kappa_G)^2`, the p = 2 value of :math:`\mathbb{E}\operatorname{dist}(g, K_m)^2`.

    Gardner's margin capacity (an association density) is its inverse.

    Examples
    --------
    >>> sp.simplify(gardner_second_moment().subs(STABILITY, 0))
    1/2
    """
    z = sp.Symbol("z", real=True)
    density = sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi)
    return sp.simplify(sp.integrate((z + STABILITY) ** 2 * density, (z, -STABILITY, sp.oo)))
